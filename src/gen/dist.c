/*-------------------------------------------------------------------------
 * dist.c
 *		Key choosers of the benchmarks: a seedable PRNG and YCSB's request
 *		distributions, re-implemented after YCSB 0.17.0's generators, and
 *		petagen.draw(), which exposes them for tests.
 *
 *	uniform		a key number uniform in 0 .. items-1
 *	zipfian		ScrambledZipfianGenerator: a ZipfianGenerator over YCSB's
 *				fixed 10^10 (+1) item space, its rank scattered with
 *				Utils.fnvhash64 and taken modulo items.  For the default
 *				constant 0.99 YCSB's precomputed zeta (26.46902820178302)
 *				is used; for another constant zeta is computed here
 *	latest		SkewedLatestGenerator: last - zipfian(last), so the most
 *				recently inserted key is the most popular
 *	hotspot		HotspotIntegerGenerator: a share hotspotopnfraction of the
 *				draws is uniform in the first (long) (items *
 *				hotspotdatafraction) key numbers, the rest uniform in the others
 *	sequential	SequentialGenerator: 0, 1, ..., items-1, 0, 1, ... (wraps)
 *	exponential	ExponentialGenerator as CoreWorkload uses it: last -
 *				(long) x, x exponential with rate gamma = -ln(1 -
 *				exponentialpercentile / 100) / (items * exponentialfrac),
 *				drawn again while below 0; exponentialpercentile % of x fall
 *				below items * exponentialfrac, so with the redraws more of the
 *				keys kept fall in the newest items * exponentialfrac key
 *				numbers (97.97% with YCSB's defaults 95 and 6/7)
 *
 * YCSB takes the hotspot and exponential parameters as they come (an out of
 * range fraction silently becomes 0); petagen refuses them instead.
 *
 * zeta(n) = sum 1/i^theta for i = 1 .. n is summed exactly up to 10^6
 * terms (cached per theta) and the rest by the midpoint rule
 * integral (x^(1-theta)/(1-theta)), whose error past 10^6 is below
 * 10^-12: so zeta(10^10, 0.99) gives YCSB's constant to 10 digits, at once.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "compat.h"
#include "gen/dist.h"
#include "gen/keys.h"

/* YCSB ScrambledZipfianGenerator: its item space and precomputed zeta. */
#define DIST_SCRAMBLED_ITEMS	INT64CONST(10000000000)
#define DIST_SCRAMBLED_ZETAN	26.46902820178302
#define DIST_YCSB_CONSTANT		0.99
/* Terms of zeta summed exactly; the tail is integrated. */
#define DIST_ZETA_EXACT			1000000
/* Most key numbers one petagen.draw() call returns. */
#define DIST_MAX_DRAW			100000000

static const char *const dist_names[] = {"uniform", "zipfian", "latest",
"hotspot", "sequential", "exponential"};

/* splitmix64: seeds the PRNG's state from one word. */
static uint64
dist_splitmix(uint64 *x)
{
	uint64		z = (*x += UINT64CONST(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Seed a PRNG from a seed and a stream number (a worker, say). */
void
dist_rng_seed(DistRng *rng, uint64 seed, uint64 stream)
{
	uint64		x = seed ^ (stream * UINT64CONST(0xD1B54A32D192ED03));

	for (int i = 0; i < 4; i++)
		rng->s[i] = dist_splitmix(&x);
}

/* Rotate left. */
static inline uint64
dist_rotl(uint64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits (xoshiro256**). */
uint64
dist_rng_next(DistRng *rng)
{
	uint64	   *s = rng->s;
	uint64		result = dist_rotl(s[1] * 5, 7) * 9;
	uint64		t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = dist_rotl(s[3], 45);
	return result;
}

/* A double uniform in [0, 1). */
double
dist_rng_double(DistRng *rng)
{
	return (dist_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* An integer uniform in 0 .. n-1 (n > 0). */
int64
dist_rng_below(DistRng *rng, int64 n)
{
	return (int64) (((unsigned __int128) dist_rng_next(rng) * (uint64) n) >> 64);
}

/* A distribution by name; an error names the valid ones. */
DistKind
dist_parse(const char *name)
{
	for (int i = 0; i < lengthof(dist_names); i++)
		if (strcmp(name, dist_names[i]) == 0)
			return (DistKind) i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown distribution \"%s\"", name),
			 errhint("Use uniform, zipfian, latest, hotspot, sequential or exponential.")));
	pg_unreachable();
}

/* The name of a distribution. */
const char *
dist_name(DistKind kind)
{
	return dist_names[kind];
}

/* Raise an error unless theta is a zipfian constant the generator handles. */
static void
dist_check_constant(double theta)
{
	if (!(theta > 0 && theta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("zipfian_constant must be greater than 0 and less than 1, not %g",
						theta),
				 errhint("YCSB's default is 0.99.")));
}

/* sum 1/i^theta for i = from+1 .. to, exactly. */
static double
dist_zeta_sum(int64 from, int64 to, double theta)
{
	double		sum = 0;

	for (int64 i = from + 1; i <= to; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		sum += 1.0 / pow((double) i, theta);
	}
	return sum;
}

/* zeta(n, theta): exact head, integrated tail. */
static double
dist_zeta(int64 n, double theta)
{
	static double cached_theta = -1;
	static double cached_head;
	double		a = DIST_ZETA_EXACT + 0.5;

	if (n <= DIST_ZETA_EXACT)
		return dist_zeta_sum(0, n, theta);
	if (cached_theta != theta)
	{
		cached_head = dist_zeta_sum(0, DIST_ZETA_EXACT, theta);
		cached_theta = theta;
	}
	return cached_head + (pow(n + 0.5, 1 - theta) - pow(a, 1 - theta)) / (1 - theta);
}

/* YCSB's eta for the constructor's item count and the current zetan. */
static void
dist_zipf_eta(DistZipf *z)
{
	z->eta = (1 - pow(2.0 / z->items, 1 - z->theta)) / (1 - z->zeta2theta / z->zetan);
}

/* A ZipfianGenerator over items 0 .. items-1; zetan < 0: compute it. */
static void
dist_zipf_init(DistZipf *z, int64 items, double theta, double zetan)
{
	z->items = items;
	z->countforzeta = items;
	z->theta = theta;
	z->alpha = 1.0 / (1.0 - theta);
	z->zeta2theta = dist_zeta(2, theta);
	z->zetan = zetan >= 0 ? zetan : dist_zeta(items, theta);
	dist_zipf_eta(z);
}

/* ZipfianGenerator.nextLong(itemcount) of a uniform draw u in [0, 1). */
static int64
dist_zipf_value(const DistZipf *z, double u, int64 itemcount)
{
	double		uz = u * z->zetan;

	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + pow(0.5, z->theta))
		return 1;
	return (int64) (itemcount * pow(z->eta * u - z->eta + 1, z->alpha));
}

/* ZipfianGenerator.nextLong(itemcount): zeta grows incrementally, never shrinks. */
static int64
dist_zipf_next(DistZipf *z, DistRng *rng, int64 itemcount)
{
	if (itemcount > z->countforzeta)
	{
		z->zetan = itemcount - z->countforzeta <= DIST_ZETA_EXACT ?
			z->zetan + dist_zeta_sum(z->countforzeta, itemcount, z->theta) :
			dist_zeta(itemcount, z->theta);
		z->countforzeta = itemcount;
		dist_zipf_eta(z);
	}
	return dist_zipf_value(z, dist_rng_double(rng), itemcount);
}

/* Raise an error unless the hotspot and exponential parameters are in range. */
void
dist_check_params(const DistParams *params)
{
	const char *name = NULL;
	double		value = 0;

	dist_check_constant(params->zipfian_constant);
	if (!(params->hotspotdatafraction >= 0 && params->hotspotdatafraction <= 1))
		name = "hotspotdatafraction", value = params->hotspotdatafraction;
	else if (!(params->hotspotopnfraction >= 0 && params->hotspotopnfraction <= 1))
		name = "hotspotopnfraction", value = params->hotspotopnfraction;
	if (name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between 0 and 1, not %g", name, value),
				 errhint("YCSB's defaults are hotspotdatafraction 0.2 and hotspotopnfraction 0.8.")));
	if (!(params->exponentialpercentile > 0 && params->exponentialpercentile < 100) ||
		!(params->exponentialfrac > 0 && params->exponentialfrac <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exponentialpercentile must be greater than 0 and less than 100, and exponentialfrac greater than 0 and at most 1, not %g and %g",
						params->exponentialpercentile, params->exponentialfrac),
				 errhint("YCSB's defaults are exponentialpercentile 95 and exponentialfrac 0.8571428571.")));
}

/*
 * Read zipfian_constant and the hotspot and exponential parameters from
 * the five arguments argnos of a SQL function, and check them.  A
 * declaration of petagen 0.1 has zipfian_constant only: the others take
 * YCSB's defaults.
 */
void
dist_read_params(FunctionCallInfo fcinfo, const int *argnos,
				 const char *funcname, DistParams *params)
{
	static const char *const names[] = {"zipfian_constant",
		"hotspotdatafraction", "hotspotopnfraction", "exponentialpercentile",
	"exponentialfrac"};
	double		values[] = {DIST_YCSB_CONSTANT, DIST_DEFAULT_HOTSPOTDATAFRACTION,
		DIST_DEFAULT_HOTSPOTOPNFRACTION, DIST_DEFAULT_EXPONENTIALPERCENTILE,
	DIST_DEFAULT_EXPONENTIALFRAC};

	for (int i = 0; i < lengthof(names); i++)
	{
		if (argnos[i] >= PG_NARGS())
			continue;
		if (PG_ARGISNULL(argnos[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of %s must not be null",
							names[i], funcname)));
		values[i] = PG_GETARG_FLOAT8(argnos[i]);
	}
	params->zipfian_constant = values[0];
	params->hotspotdatafraction = values[1];
	params->hotspotopnfraction = values[2];
	params->exponentialpercentile = values[3];
	params->exponentialfrac = values[4];
	dist_check_params(params);
}

/* Set up a chooser of kind over items key numbers (items > 0). */
void
dist_init(DistChooser *ch, DistKind kind, int64 items, const DistParams *params)
{
	double		theta = params->zipfian_constant;

	memset(ch, 0, sizeof(DistChooser));
	ch->kind = kind;
	ch->items = items;
	if (kind == DIST_ZIPFIAN)

		/*
		 * YCSB: new ZipfianGenerator(0, ITEM_COUNT, ...): ITEM_COUNT + 1
		 * items
		 */
		dist_zipf_init(&ch->zipf, DIST_SCRAMBLED_ITEMS + 1, theta,
					   theta == DIST_YCSB_CONSTANT ? DIST_SCRAMBLED_ZETAN : -1);
	else if (kind == DIST_LATEST)
		/* YCSB: new ZipfianGenerator(basis.lastValue()) */
		dist_zipf_init(&ch->zipf, Max(items - 1, 1), theta, -1);
	/* YCSB: hotInterval = (int) (interval * hotsetFraction) */
	ch->hot_items = (int64) (items * params->hotspotdatafraction);
	ch->hot_opn = params->hotspotopnfraction;
	/* YCSB: new ExponentialGenerator(percentile, recordcount * frac) */
	ch->gamma = -log(1.0 - params->exponentialpercentile / 100.0) /
		(items * params->exponentialfrac);
}

/* YCSB's ZipfianGenerator(min, max), constant 0.99: items = max - min + 1. */
void
dist_zipf_range_init(DistZipf *z, int64 items)
{
	dist_zipf_init(z, items, DIST_YCSB_CONSTANT, -1);
}

/* The next draw of a ZipfianGenerator(min, max), as an offset from min. */
int64
dist_zipf_range_next(DistZipf *z, DistRng *rng)
{
	return dist_zipf_next(z, rng, z->items);
}

/* The draw of a ZipfianGenerator(min, max) for uniform u in [0, 1), from min. */
int64
dist_zipf_range_at(const DistZipf *z, double u)
{
	return dist_zipf_value(z, u, z->items);
}

/* HotspotIntegerGenerator.nextValue(); an empty hot or cold set is never drawn. */
static int64
dist_hotspot_next(DistChooser *ch, DistRng *rng)
{
	bool		hot = dist_rng_double(rng) < ch->hot_opn;

	if (ch->hot_items >= ch->items || (hot && ch->hot_items > 0))
		return dist_rng_below(rng, Max(ch->hot_items, 1));
	return ch->hot_items + dist_rng_below(rng, ch->items - ch->hot_items);
}

/* CoreWorkload.nextKeynum() with an ExponentialGenerator: last - x, x >= 0. */
static int64
dist_exponential_next(DistChooser *ch, DistRng *rng, int64 last)
{
	for (;;)
	{
		/* 1 - u lies in (0, 1]: its logarithm is finite */
		double		x = -log(1.0 - dist_rng_double(rng)) / ch->gamma;

		if (x <= (double) last)
			return last - (int64) x;
	}
}

/* SequentialGenerator.nextValue(): the count modulo items. */
static int64
dist_sequential_next(DistChooser *ch)
{
	uint64		count = ch->counter != NULL ?
	pg_atomic_fetch_add_u64(ch->counter, 1) : ch->next++;

	return (int64) (count % (uint64) ch->items);
}

/*
 * The next key number.  latest and exponential draw from 0 .. last, the key
 * number of the newest row (items - 1 before any insert); the others
 * ignore last.
 */
int64
dist_next(DistChooser *ch, DistRng *rng, int64 last)
{
	int64		r;

	switch (ch->kind)
	{
		case DIST_UNIFORM:
			return dist_rng_below(rng, ch->items);
		case DIST_ZIPFIAN:
			r = keys_ycsb_hash(dist_zipf_next(&ch->zipf, rng, ch->zipf.items));
			/* Java's % keeps the sign of abs(-2^63); stay in range instead */
			r %= ch->items;
			return r < 0 ? r + ch->items : r;
		case DIST_LATEST:
			if (last < 1)
				return 0;
			return last - dist_zipf_next(&ch->zipf, rng, last);
		case DIST_HOTSPOT:
			return dist_hotspot_next(ch, rng);
		case DIST_SEQUENTIAL:
			return dist_sequential_next(ch);
		case DIST_EXPONENTIAL:
			return dist_exponential_next(ch, rng, Max(last, 0));
	}
	pg_unreachable();
}

/* The arguments of petagen.draw(), in SQL order. */
typedef enum DrawArg
{
	DRAW_ARG_DISTRIBUTION,
	DRAW_ARG_ITEMS,
	DRAW_ARG_N,
	DRAW_ARG_SEED,
	DRAW_ARG_ZIPFIAN_CONSTANT,	/* the five parameters dist_read_params()
								 * reads */
	DRAW_ARG_HOTSPOTDATAFRACTION,
	DRAW_ARG_HOTSPOTOPNFRACTION,
	DRAW_ARG_EXPONENTIALPERCENTILE,
	DRAW_ARG_EXPONENTIALFRAC
} DrawArg;

PG_FUNCTION_INFO_V1(petagen_draw);
/*
 * petagen.draw(distribution, items, n, seed, zipfian_constant,
 * hotspotdatafraction, hotspotopnfraction, exponentialpercentile,
 * exponentialfrac): n key numbers.
 */
Datum
petagen_draw(PG_FUNCTION_ARGS)
{
	static const char *const argnames[] = {
		[DRAW_ARG_DISTRIBUTION] = "distribution",[DRAW_ARG_ITEMS] = "items",
		[DRAW_ARG_N] = "n",[DRAW_ARG_SEED] = "seed"
	};
	static const int param_args[] = {DRAW_ARG_ZIPFIAN_CONSTANT,
		DRAW_ARG_HOTSPOTDATAFRACTION, DRAW_ARG_HOTSPOTOPNFRACTION,
	DRAW_ARG_EXPONENTIALPERCENTILE, DRAW_ARG_EXPONENTIALFRAC};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DistChooser ch;
	DistParams	params;
	DistRng		rng;
	int64		items;
	int32		n;

	for (int i = 0; i < lengthof(argnames); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of petagen.draw() must not be null",
							argnames[i])));
	items = PG_GETARG_INT64(DRAW_ARG_ITEMS);
	n = PG_GETARG_INT32(DRAW_ARG_N);
	if (items < 1 || n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("items must be at least 1 and n not negative")));
	if (n > DIST_MAX_DRAW)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("n must be at most %d, not %d", DIST_MAX_DRAW, n),
				 errdetail("petagen.draw() returns its key numbers as one set, kept in memory or in temporary files."),
				 errhint("Draw in several calls with different seeds.")));
	dist_read_params(fcinfo, param_args, "petagen.draw()", &params);
	dist_init(&ch,
			  dist_parse(text_to_cstring(PG_GETARG_TEXT_PP(DRAW_ARG_DISTRIBUTION))),
			  items, &params);
	dist_rng_seed(&rng, (uint64) PG_GETARG_INT64(DRAW_ARG_SEED), 0);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int32 i = 0; i < n; i++)
	{
		Datum		value = Int64GetDatum(dist_next(&ch, &rng, items - 1));
		bool		isnull = false;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	return (Datum) 0;
}
