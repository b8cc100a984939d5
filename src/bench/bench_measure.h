/*-------------------------------------------------------------------------
 * bench_measure.h
 *		What a benchmark worker measures, by operation kind: counts, the
 *		latency histograms (from the intended start and from the actual
 *		one) and a time series; and the schedule a paced worker follows.
 *		See bench_measure.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_MEASURE_H
#define PETAGEN_BENCH_MEASURE_H

#include <time.h>

#include "port/atomics.h"

#include "gen/hist.h"

/* The monotonic clock, in nanoseconds. */
static inline uint64
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * UINT64CONST(1000000000) + ts.tv_nsec;
}

/* BenchOp's number of kinds (bench_shared.h includes this header first). */
#define BENCH_MEASURE_NOPS	5
/* Time series intervals a worker keeps; past them the interval doubles. */
#define BENCH_SAMPLES		1024
/* The first interval of the time series: one second. */
#define BENCH_SAMPLE_NS		UINT64CONST(1000000000)

/* One interval of one operation kind: completed operations and errors. */
typedef struct BenchSample
{
	uint64		count;
	uint64		errors;
	uint64		latency_ns;		/* sum, from the intended starts */
	uint64		service_ns;		/* sum, from the actual starts */
	uint64		max_ns;			/* the longest latency */
} BenchSample;

/* One operation kind's figures. */
typedef struct BenchOpFigures
{
	uint64		count;			/* completed, errors not included */
	uint64		errors;
	uint64		not_found;
	Hist		latency;		/* from the intended start, nanoseconds */
	Hist		service;		/* from the actual start; paced runs only */
} BenchOpFigures;

/*
 * What a worker publishes for bench_status() once per interval, when its
 * first operation of a new interval ends: its measured operations by then,
 * and the last whole interval's operations, latency sum and max.
 */
typedef struct BenchLive
{
	pg_atomic_uint64 operations;
	pg_atomic_uint64 interval_ns;	/* that interval's length, 0: none yet */
	pg_atomic_uint64 until_ns;	/* its end, from the measurement's start */
	pg_atomic_uint64 count;
	pg_atomic_uint64 latency_ns;
	pg_atomic_uint64 max_ns;
} BenchLive;

/*
 * Everything a worker (or, merged, a run) measured.  Sample i covers
 * [i, i + 1) * (BENCH_SAMPLE_NS << sample_shift) from the measurement's
 * start, by the operations' ends.
 */
typedef struct BenchMeasure
{
	BenchOpFigures ops[BENCH_MEASURE_NOPS];
	uint32		sample_shift;
	int32		nsamples;		/* intervals up to the last one used */
	BenchSample samples[BENCH_SAMPLES][BENCH_MEASURE_NOPS];
	BenchLive	live;			/* a worker's; not merged */
} BenchMeasure;

/*
 * A worker's schedule at a target rate (YCSB's target, pgbench -R):
 * operation i of the worker is intended at first_ns + i * period_ns.
 * period_ns 0: a closed loop, each operation intended when it starts.
 */
typedef struct BenchPace
{
	double		first_ns;
	double		period_ns;
	uint64		next;			/* the next operation's number */
} BenchPace;

extern void measure_init(BenchMeasure *m);
extern void measure_pace_init(BenchPace *pace, double target_rate, uint64 start_ns,
							  int index, int nworkers);
extern bool measure_wait(BenchPace *pace, uint64 end_ns, uint64 *intended);
extern void measure_record(BenchMeasure *m, bool paced, int op, uint64 since_ns,
						   uint64 intended, uint64 t0, uint64 t1, bool found);
extern void measure_error(BenchMeasure *m, int op, uint64 since_ns, uint64 t1);
extern void measure_merge(BenchMeasure *into, const BenchMeasure *from);
extern void measure_finish(BenchMeasure *m, bool paced);

#endif							/* PETAGEN_BENCH_MEASURE_H */
