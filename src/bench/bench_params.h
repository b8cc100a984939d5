/*-------------------------------------------------------------------------
 * bench_params.h
 *		The workload of a benchmark as YCSB's CoreWorkload defines it:
 *		operation proportions, operation count, request distribution and
 *		scan shape, read from the arguments of bench() and bench_sweep().
 *		See bench_params.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_PARAMS_H
#define PETAGEN_BENCH_PARAMS_H

#include "fmgr.h"
#include "lib/stringinfo.h"

#include "bench/bench_shared.h"

/* The SQL arguments of bench() and bench_sweep(), in order. */
typedef enum BenchArg
{
	BENCH_ARG_KIND,
	BENCH_ARG_WORKERS,
	BENCH_ARG_DURATION,
	BENCH_ARG_WARMUP,
	BENCH_ARG_TABLE,
	BENCH_ARG_TARGET,
	BENCH_ARG_DISTRIBUTION,
	BENCH_ARG_ZIPFIAN_CONSTANT,
	BENCH_ARG_ROWS,
	BENCH_ARG_KEYS,
	BENCH_ARG_SEED,
	BENCH_ARG_FIELDLENGTH,
	BENCH_ARG_PREFIX,
	BENCH_ARG_ZEROPADDING,
	BENCH_ARG_OPERATIONCOUNT,
	BENCH_ARG_READPROPORTION,	/* the five proportions, in BenchOp order */
	BENCH_ARG_UPDATEPROPORTION,
	BENCH_ARG_INSERTPROPORTION,
	BENCH_ARG_SCANPROPORTION,
	BENCH_ARG_RMWPROPORTION,
	BENCH_ARG_MINSCANLENGTH,
	BENCH_ARG_MAXSCANLENGTH,
	BENCH_ARG_SCANLENGTHDISTRIBUTION,
	BENCH_ARG_HOTSPOTDATAFRACTION,
	BENCH_ARG_HOTSPOTOPNFRACTION,
	BENCH_ARG_EXPONENTIALPERCENTILE,
	BENCH_ARG_EXPONENTIALFRAC,
	BENCH_ARG_LABEL,
	BENCH_ARG_DATAINTEGRITY,
	BENCH_ARG_TARGET_RATE
} BenchArg;

extern bool bench_arg_given(FunctionCallInfo fcinfo, int argno);
extern void bench_read_workload(FunctionCallInfo fcinfo, BenchWorkload *w);
extern const char *bench_kind_name(BenchKind kind);
extern bool bench_does(const BenchWorkload *w, BenchOp op);
extern void bench_workload_json(StringInfo buf, const BenchWorkload *w);

#endif							/* PETAGEN_BENCH_PARAMS_H */
