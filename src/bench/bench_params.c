/*-------------------------------------------------------------------------
 * bench_params.c
 *		The workload of petagen.bench() and petagen.bench_sweep(), by YCSB
 *		CoreWorkload's property names without dots: the kind, the five
 *		operation proportions, operationcount, the request distribution
 *		with its parameters, and the scan shape (minscanlength,
 *		maxscanlength, scanlengthdistribution).
 *
 * Kind ycsb takes the proportions given; one not given takes
 * CoreWorkload's default (readproportion 0.95, updateproportion 0.05, the
 * others 0), and together they must sum to 1.  The other kinds are presets
 * with fixed proportions, YCSB's workloads/workloada .. workloadf files
 * for ycsb-a .. ycsb-f: giving a proportion with them is an error.  A
 * preset's distribution and maxscanlength (workloade's 100) are defaults
 * that the arguments override.  dataintegrity (YCSB's) is off unless
 * given true.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "bench/bench_params.h"

/* How far the proportions may sum from 1 (rounding of decimal fractions). */
#define BENCH_PROPORTION_EPSILON	1e-9
/* Longest scan: a LIMIT, kept well inside int4. */
#define BENCH_MAX_SCANLENGTH		1000000

/* A kind: its proportions, distribution and maxscanlength (YCSB's). */
typedef struct BenchPreset
{
	const char *name;
	double		proportion[BENCH_NOPS];
	DistKind	distribution;
	int32		maxscanlength;
} BenchPreset;

/* CoreWorkload's defaults, YCSB's core workloads and the two micro kinds. */
static const BenchPreset bench_presets[BENCH_NKINDS] = {
	/* read, update, insert, scan, rmw */
	{"ycsb", {0.95, 0.05, 0, 0, 0}, DIST_UNIFORM, 1000},
	{"select", {1, 0, 0, 0, 0}, DIST_UNIFORM, 1000},
	{"update", {0, 1, 0, 0, 0}, DIST_UNIFORM, 1000},
	{"ycsb-a", {0.5, 0.5, 0, 0, 0}, DIST_ZIPFIAN, 1000},
	{"ycsb-b", {0.95, 0.05, 0, 0, 0}, DIST_ZIPFIAN, 1000},
	{"ycsb-c", {1, 0, 0, 0, 0}, DIST_ZIPFIAN, 1000},
	{"ycsb-d", {0.95, 0, 0.05, 0, 0}, DIST_LATEST, 1000},
	{"ycsb-e", {0, 0, 0.05, 0.95, 0}, DIST_ZIPFIAN, 100},
	{"ycsb-f", {0.5, 0, 0, 0, 0.5}, DIST_ZIPFIAN, 1000},
};

/* The proportions' argument names, in BenchOp order. */
static const char *const bench_proportion_names[BENCH_NOPS] = {
	"readproportion", "updateproportion", "insertproportion",
	"scanproportion", "readmodifywriteproportion"
};

/* The name of a kind. */
const char *
bench_kind_name(BenchKind kind)
{
	return bench_presets[kind].name;
}

/* Does the workload read, update, insert, scan or read-modify-write? */
bool
bench_does(const BenchWorkload *w, BenchOp op)
{
	return w->proportion[op] > 0;
}

/* A kind by name. */
static BenchKind
bench_parse_kind(const char *name)
{
	for (int k = 0; k < BENCH_NKINDS; k++)
		if (strcmp(name, bench_presets[k].name) == 0)
			return (BenchKind) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown benchmark kind \"%s\"", name),
			 errhint("Use ycsb with readproportion, updateproportion, insertproportion, scanproportion and readmodifywriteproportion, or one of the presets select, update, ycsb-a, ycsb-b, ycsb-c, ycsb-d, ycsb-e, ycsb-f.")));
	pg_unreachable();
}

/*
 * Was argument argno given (not NULL)?  The declarations of petagen 0.1,
 * which a server runs until ALTER EXTENSION petagen UPDATE, end with
 * zeropadding: the arguments after it are not given.
 */
bool
bench_arg_given(FunctionCallInfo fcinfo, int argno)
{
	return argno < PG_NARGS() && !PG_ARGISNULL(argno);
}

/* A float8 argument, or a fallback when it is not given. */
static double
bench_float_arg(FunctionCallInfo fcinfo, int argno, double fallback)
{
	return bench_arg_given(fcinfo, argno) ? PG_GETARG_FLOAT8(argno) : fallback;
}

/* The proportions: the preset's, or kind ycsb's arguments summing to 1. */
static void
bench_read_proportions(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	const BenchPreset *preset = &bench_presets[w->kind];
	double		sum = 0;

	for (int op = 0; op < BENCH_NOPS; op++)
	{
		int			argno = BENCH_ARG_READPROPORTION + op;

		if (bench_arg_given(fcinfo, argno) && w->kind != BENCH_YCSB)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s applies only to kind ycsb, not to the preset \"%s\"",
							bench_proportion_names[op], preset->name),
					 errhint("Use kind => 'ycsb' with the proportions of your workload file.")));
		w->proportion[op] = bench_float_arg(fcinfo, argno, preset->proportion[op]);
		if (!(w->proportion[op] >= 0 && w->proportion[op] <= 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must be between 0 and 1, not %g",
							bench_proportion_names[op], w->proportion[op])));
		sum += w->proportion[op];
	}
	if (fabs(sum - 1) > BENCH_PROPORTION_EPSILON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the operation proportions sum to %.10g, not 1", sum),
				 errdetail("readproportion %g, updateproportion %g, insertproportion %g, scanproportion %g, readmodifywriteproportion %g.",
						   w->proportion[BENCH_OP_READ], w->proportion[BENCH_OP_UPDATE],
						   w->proportion[BENCH_OP_INSERT], w->proportion[BENCH_OP_SCAN],
						   w->proportion[BENCH_OP_RMW]),
				 errhint("A proportion not given takes YCSB's default: readproportion 0.95, updateproportion 0.05, the others 0.")));
}

/* The scan shape: minscanlength .. maxscanlength, uniform or zipfian. */
static void
bench_read_scan(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	const char *dist = !bench_arg_given(fcinfo, BENCH_ARG_SCANLENGTHDISTRIBUTION) ? "uniform" :
		text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_SCANLENGTHDISTRIBUTION));

	w->minscanlength = !bench_arg_given(fcinfo, BENCH_ARG_MINSCANLENGTH) ? 1 :
		PG_GETARG_INT32(BENCH_ARG_MINSCANLENGTH);
	w->maxscanlength = !bench_arg_given(fcinfo, BENCH_ARG_MAXSCANLENGTH) ?
		bench_presets[w->kind].maxscanlength : PG_GETARG_INT32(BENCH_ARG_MAXSCANLENGTH);
	if (w->minscanlength < 1 || w->maxscanlength < w->minscanlength ||
		w->maxscanlength > BENCH_MAX_SCANLENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scan lengths %d .. %d are out of range",
						w->minscanlength, w->maxscanlength),
				 errhint("minscanlength must be at least 1 and at most maxscanlength, and maxscanlength at most %d.",
						 BENCH_MAX_SCANLENGTH)));
	w->scanzipfian = strcmp(dist, "zipfian") == 0;
	if (!w->scanzipfian && strcmp(dist, "uniform") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown scanlengthdistribution \"%s\"", dist),
				 errhint("Use uniform or zipfian.")));
}

/* operationcount: a positive count, or 0 when the run has a duration instead. */
static void
bench_read_operationcount(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	if (!bench_arg_given(fcinfo, BENCH_ARG_OPERATIONCOUNT))
		return;
	if (!PG_ARGISNULL(BENCH_ARG_DURATION))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration and operationcount cannot both be given"),
				 errhint("A run ends after its duration or after operationcount operations: pass one of them.")));
	w->operationcount = PG_GETARG_INT64(BENCH_ARG_OPERATIONCOUNT);
	if (w->operationcount < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("operationcount must be at least 1, not " INT64_FORMAT,
						w->operationcount)));
}

/* The request distribution and its parameters. */
static void
bench_read_distribution(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	static const int argnos[] = {BENCH_ARG_ZIPFIAN_CONSTANT,
		BENCH_ARG_HOTSPOTDATAFRACTION, BENCH_ARG_HOTSPOTOPNFRACTION,
	BENCH_ARG_EXPONENTIALPERCENTILE, BENCH_ARG_EXPONENTIALFRAC};

	w->distribution = PG_ARGISNULL(BENCH_ARG_DISTRIBUTION) ?
		bench_presets[w->kind].distribution :
		dist_parse(text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_DISTRIBUTION)));
	dist_read_params(fcinfo, argnos, "petagen.bench()", &w->params);
}

/* Read and validate the workload arguments of bench() or bench_sweep(). */
void
bench_read_workload(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	memset(w, 0, sizeof(BenchWorkload));
	w->kind = bench_parse_kind(text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_KIND)));
	bench_read_proportions(fcinfo, w);
	bench_read_operationcount(fcinfo, w);
	bench_read_distribution(fcinfo, w);
	bench_read_scan(fcinfo, w);
	w->dataintegrity = bench_arg_given(fcinfo, BENCH_ARG_DATAINTEGRITY) &&
		PG_GETARG_BOOL(BENCH_ARG_DATAINTEGRITY);
}

/* Append the workload's parameters to a JSON object under construction. */
void
bench_workload_json(StringInfo buf, const BenchWorkload *w)
{
	for (int op = 0; op < BENCH_NOPS; op++)
		appendStringInfo(buf, ", \"%s\": %.15g", bench_proportion_names[op],
						 w->proportion[op]);
	if (w->operationcount > 0)
		appendStringInfo(buf, ", \"operationcount\": " INT64_FORMAT, w->operationcount);
	if (w->distribution == DIST_HOTSPOT)
		appendStringInfo(buf, ", \"hotspotdatafraction\": %.15g, \"hotspotopnfraction\": %.15g",
						 w->params.hotspotdatafraction, w->params.hotspotopnfraction);
	if (w->distribution == DIST_EXPONENTIAL)
		appendStringInfo(buf, ", \"exponentialpercentile\": %.15g, \"exponentialfrac\": %.15g",
						 w->params.exponentialpercentile, w->params.exponentialfrac);
	if (bench_does(w, BENCH_OP_SCAN))
		appendStringInfo(buf, ", \"minscanlength\": %d, \"maxscanlength\": %d, \"scanlengthdistribution\": \"%s\"",
						 w->minscanlength, w->maxscanlength,
						 w->scanzipfian ? "zipfian" : "uniform");
	if (w->dataintegrity)
		appendStringInfoString(buf, ", \"dataintegrity\": true");
}
