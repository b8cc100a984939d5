/*-------------------------------------------------------------------------
 * dist.h
 *		Key choosers of the benchmarks: a seedable PRNG and YCSB's request
 *		distributions (uniform, scrambled zipfian, skewed latest).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_DIST_H
#define PETAGEN_DIST_H

/* xoshiro256**: fast, 256 bits of state, seedable per worker. */
typedef struct DistRng
{
	uint64		s[4];
} DistRng;

typedef enum DistKind
{
	DIST_UNIFORM,
	DIST_ZIPFIAN,				/* YCSB's ScrambledZipfianGenerator */
	DIST_LATEST					/* YCSB's SkewedLatestGenerator */
} DistKind;

/* YCSB's ZipfianGenerator state (Gray et al., SIGMOD 1994). */
typedef struct DistZipf
{
	int64		items;			/* fixed at construction, as in YCSB's eta */
	int64		countforzeta;	/* item count zetan was computed for */
	double		theta;
	double		alpha;
	double		zetan;
	double		zeta2theta;
	double		eta;
} DistZipf;

/* A key chooser over key numbers 0 .. items-1 (latest: 0 .. last). */
typedef struct DistChooser
{
	DistKind	kind;
	int64		items;
	DistZipf	zipf;
} DistChooser;

extern void dist_rng_seed(DistRng *rng, uint64 seed, uint64 stream);
extern uint64 dist_rng_next(DistRng *rng);
extern double dist_rng_double(DistRng *rng);
extern int64 dist_rng_below(DistRng *rng, int64 n);
extern DistKind dist_parse(const char *name);
extern const char *dist_name(DistKind kind);
extern void dist_check_constant(double theta);
extern void dist_init(DistChooser *ch, DistKind kind, int64 items,
					  double theta);
extern int64 dist_next(DistChooser *ch, DistRng *rng, int64 last);

#endif							/* PETAGEN_DIST_H */
