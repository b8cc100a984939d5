/*-------------------------------------------------------------------------
 * bench_run.h
 *		One benchmark run as the caller's backend sees it: its validated
 *		definition (bench.c) and what it measured, and how it is reported
 *		(bench_results.c, bench_figures.c).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_RUN_H
#define PETAGEN_BENCH_RUN_H

#include "fmgr.h"
#include "utils/timestamp.h"

#include "bench/bench_shared.h"

/* A benchmark, validated. */
typedef struct BenchDef
{
	BenchWorkload workload;
	Interval   *duration;
	Interval   *warmup;
	int64		duration_us;
	int64		warmup_us;
	Oid			relid;
	bool		citus;			/* a Citus table: the leaves are its shards */
	BenchTarget *targets;		/* sorted by leaf */
	int			ntargets;
	const char *target_node;
	int64		first;			/* the key space: first .. first+rows-1 */
	int64		rows;
	GenSpec		spec;
	int64		job;			/* the load job the key space is from, or 0 */
	const char *label;			/* or NULL */
	bool		record_settings;	/* bench_results has label, settings, integrity_errors */
	bool		record_measure; /* and target_rate, operation_stats, samples */
} BenchDef;

/* What a run measured. */
typedef struct BenchResult
{
	int64		id;
	int			nworkers;
	uint64		ops[BENCH_NOPS];
	uint64		operations;
	uint64		errors;
	uint64		not_found;
	uint64		integrity_errors;	/* with dataintegrity: rows read wrong */
	int64		insert_base;	/* inserted key numbers are from this on */
	int64		insert_end;		/* and below this */
	double		seconds;
	int			terminated;
	char		last_error[BENCH_TEXT_LEN];
	char		synchronous_commit[NAMEDATALEN];	/* as the workers ran */
	TimestampTz started_at;
	Hist		hist;			/* every kind's latencies */
	BenchMeasure measure;		/* by kind, and the time series */
} BenchResult;

/*
 * The end of the key numbers the load wrote (first .. first+rows-1): a
 * run's inserts are key numbers from here on, outside them.
 */
static inline int64
bench_key_end(const BenchDef *def)
{
	return def->first + def->rows;
}

extern int64 bench_results_insert_end(int64 job, int64 from);
extern void bench_record(const BenchDef *def, const BenchResult *res, int64 sweep);
extern void bench_return_row(FunctionCallInfo fcinfo, const BenchDef *def,
							 const BenchResult *res);
extern void bench_warn_not_found(const BenchResult *res);
extern double bench_round_latency(double us);
extern char *bench_operation_stats_json(const BenchWorkload *w, const BenchMeasure *m);
extern char *bench_samples_json(const BenchWorkload *w, const BenchMeasure *m, double seconds);
extern void bench_warn_integrity(const BenchResult *res);

#endif							/* PETAGEN_BENCH_RUN_H */
