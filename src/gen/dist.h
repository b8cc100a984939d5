/*-------------------------------------------------------------------------
 * dist.h
 *		Key choosers of the benchmarks: a seedable PRNG and YCSB's request
 *		distributions (uniform, scrambled zipfian, skewed latest, hotspot,
 *		sequential, exponential).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_DIST_H
#define PETAGEN_DIST_H

#include "fmgr.h"
#include "port/atomics.h"

/* xoshiro256**: fast, 256 bits of state, seedable per worker. */
typedef struct DistRng
{
	uint64		s[4];
} DistRng;

typedef enum DistKind
{
	DIST_UNIFORM,
	DIST_ZIPFIAN,				/* YCSB's ScrambledZipfianGenerator */
	DIST_LATEST,				/* YCSB's SkewedLatestGenerator */
	DIST_HOTSPOT,				/* YCSB's HotspotIntegerGenerator */
	DIST_SEQUENTIAL,			/* YCSB's SequentialGenerator */
	DIST_EXPONENTIAL			/* YCSB's ExponentialGenerator, from the
								 * newest key */
} DistKind;

/* YCSB's defaults of the parameters, as the SQL functions declare them. */
#define DIST_DEFAULT_HOTSPOTDATAFRACTION	0.2
#define DIST_DEFAULT_HOTSPOTOPNFRACTION		0.8
#define DIST_DEFAULT_EXPONENTIALPERCENTILE	95
#define DIST_DEFAULT_EXPONENTIALFRAC		0.8571428571

/* The parameters of the distributions, by YCSB's property names without dots. */
typedef struct DistParams
{
	double		zipfian_constant;
	double		hotspotdatafraction;
	double		hotspotopnfraction;
	double		exponentialpercentile;
	double		exponentialfrac;
} DistParams;

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

/*
 * A key chooser over key numbers 0 .. items-1 (latest and exponential:
 * 0 .. last).  sequential counts in *counter when it is set (shared by the
 * workers of a run, as YCSB's generator is by its threads), else in next.
 */
typedef struct DistChooser
{
	DistKind	kind;
	int64		items;
	DistZipf	zipf;
	int64		hot_items;		/* hotspot: the first hot_items are hot */
	double		hot_opn;		/* hotspot: the share of draws that are hot */
	double		gamma;			/* exponential: the rate */
	uint64		next;			/* sequential: the next draw's count */
	pg_atomic_uint64 *counter;	/* sequential: a shared count, or NULL */
} DistChooser;

extern void dist_rng_seed(DistRng *rng, uint64 seed, uint64 stream);
extern uint64 dist_rng_next(DistRng *rng);
extern double dist_rng_double(DistRng *rng);
extern int64 dist_rng_below(DistRng *rng, int64 n);
extern DistKind dist_parse(const char *name);
extern const char *dist_name(DistKind kind);
extern void dist_check_params(const DistParams *params);
extern void dist_read_params(FunctionCallInfo fcinfo, const int *argnos,
							 const char *funcname, DistParams *params);
extern void dist_init(DistChooser *ch, DistKind kind, int64 items,
					  const DistParams *params);
extern void dist_zipf_range_init(DistZipf *z, int64 items);
extern int64 dist_zipf_range_next(DistZipf *z, DistRng *rng);
extern int64 dist_zipf_range_at(const DistZipf *z, double u);
extern int64 dist_next(DistChooser *ch, DistRng *rng, int64 last);

#endif							/* PETAGEN_DIST_H */
