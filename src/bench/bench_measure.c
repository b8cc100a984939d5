/*-------------------------------------------------------------------------
 * bench_measure.c
 *		A benchmark worker's measurement layer: the schedule of a paced
 *		run, and the figures of every operation kind (counts, latency
 *		histograms, a time series), kept in the worker's slot and merged
 *		into the run's by bench().
 *
 * Pacing follows YCSB's target with measurement.interval = intended (and
 * pgbench -R's schedule lag): the run's target_rate is split evenly over
 * the workers, worker w's operation i is intended at start + (i + w / n)
 * * n / target_rate (the workers' schedules interleave), a worker ahead
 * of its schedule sleeps until the intended time, a worker behind it
 * does not sleep and catches up.  An operation's latency is measured from
 * its intended start, so a stall of the server counts for every operation
 * it delayed (no coordinated omission); its service time, from its actual
 * start, is kept beside it.  In a closed loop (no target_rate) an
 * operation is intended when it starts: the two are the same, and only
 * the latency histogram is filled (measure_finish() copies it).
 *
 * Per operation the worker reads the clock twice (bench_worker.c) and
 * adds to one or two histograms and one time series interval, all in its
 * own slot; nothing is shared until the worker has exited.  The time
 * series' interval is one second until BENCH_SAMPLES of them are used;
 * then adjacent intervals merge and the interval doubles, so a run of any
 * length keeps a bounded series; merging runs' series brings them to the
 * coarsest interval.  When an operation ends in a new interval, the worker
 * publishes the last one it used (its figures, and the operations so far)
 * in atomics of its slot for bench_status() (bench_live.c): at most one
 * publication per interval, and none while no operation ends.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"

#include "bench/bench_shared.h"
#include "bench/bench_measure.h"
#include "compat.h"

StaticAssertDecl(BENCH_MEASURE_NOPS == BENCH_NOPS,
				 "BENCH_MEASURE_NOPS must be the number of BenchOps");

/* Sleep in one go at most this long, to stay responsive to interrupts. */
#define MEASURE_MAX_SLEEP_MS	100

static void measure_sample_add(BenchSample *to, const BenchSample *from);

/* Empty a measurement. */
void
measure_init(BenchMeasure *m)
{
	memset(m, 0, sizeof(BenchMeasure));
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		hist_init(&m->ops[op].latency);
		hist_init(&m->ops[op].service);
	}
	pg_atomic_init_u64(&m->live.operations, 0);
	pg_atomic_init_u64(&m->live.interval_ns, 0);
	pg_atomic_init_u64(&m->live.until_ns, 0);
	pg_atomic_init_u64(&m->live.count, 0);
	pg_atomic_init_u64(&m->live.latency_ns, 0);
	pg_atomic_init_u64(&m->live.max_ns, 0);
}

/* Publish the last whole interval, number last, for bench_status(). */
static void
measure_publish(BenchMeasure *m, int last)
{
	BenchSample total = {0};
	uint64		operations = 0;

	for (int op = 0; op < BENCH_NOPS; op++)
	{
		measure_sample_add(&total, &m->samples[last][op]);
		operations += m->ops[op].count;
	}
	pg_atomic_write_u64(&m->live.operations, operations);
	pg_atomic_write_u64(&m->live.count, total.count);
	pg_atomic_write_u64(&m->live.latency_ns, total.latency_ns);
	pg_atomic_write_u64(&m->live.max_ns, total.max_ns);
	pg_atomic_write_u64(&m->live.until_ns, (last + 1) * (BENCH_SAMPLE_NS << m->sample_shift));
	pg_atomic_write_u64(&m->live.interval_ns, BENCH_SAMPLE_NS << m->sample_shift);
}

/* The schedule of worker index of nworkers at target_rate (0: closed loop). */
void
measure_pace_init(BenchPace *pace, double target_rate, uint64 start_ns,
				  int index, int nworkers)
{
	memset(pace, 0, sizeof(BenchPace));
	if (target_rate <= 0)
		return;
	pace->period_ns = 1e9 * nworkers / target_rate;
	pace->first_ns = start_ns + pace->period_ns * index / nworkers;
}

/* Sleep until the monotonic clock reaches until_ns. */
static void
measure_sleep_until(uint64 until_ns)
{
	for (;;)
	{
		uint64		now = bench_now_ns();
		uint64		left_us;

		if (now >= until_ns)
			return;
		left_us = (until_ns - now) / 1000;
		if (left_us < 1000)
		{
			pg_usleep((long) left_us);
			return;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min(left_us / 1000, MEASURE_MAX_SLEEP_MS),
						 compat_wait_event("PetagenBenchPace"));
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Wait for the next operation's intended start and set *intended to it;
 * false if that is at or after end_ns.  In a closed loop, return at once
 * with *intended 0 (the operation is intended when it starts).
 */
bool
measure_wait(BenchPace *pace, uint64 end_ns, uint64 *intended)
{
	double		at;

	*intended = 0;
	if (pace->period_ns <= 0)
		return true;
	at = pace->first_ns + pace->period_ns * (double) pace->next;
	if (at >= (double) end_ns)
		return false;
	pace->next++;
	*intended = (uint64) at;
	measure_sleep_until(*intended);
	return true;
}

/* Add one interval's figures to another's. */
static void
measure_sample_add(BenchSample *to, const BenchSample *from)
{
	to->count += from->count;
	to->errors += from->errors;
	to->latency_ns += from->latency_ns;
	to->service_ns += from->service_ns;
	to->max_ns = Max(to->max_ns, from->max_ns);
}

/* Double the time series' interval: merge each pair of intervals. */
static void
measure_coarsen(BenchMeasure *m)
{
	int			n = (m->nsamples + 1) / 2;

	/* interval d takes 2d and 2d + 1, both read before d is written */
	for (int d = 0; d < n; d++)
		for (int op = 0; op < BENCH_NOPS; op++)
		{
			BenchSample pair = m->samples[2 * d][op];

			if (2 * d + 1 < m->nsamples)
				measure_sample_add(&pair, &m->samples[2 * d + 1][op]);
			m->samples[d][op] = pair;
		}
	memset(m->samples[n], 0, sizeof(m->samples[0]) * (m->nsamples - n));
	m->nsamples = n;
	m->sample_shift++;
}

/* The time series interval an operation ending at offset_ns falls in. */
static BenchSample *
measure_sample(BenchMeasure *m, int op, uint64 offset_ns)
{
	uint64		i = offset_ns / (BENCH_SAMPLE_NS << m->sample_shift);

	if (i >= (uint64) m->nsamples && m->nsamples > 0)
		measure_publish(m, m->nsamples - 1);
	while (i >= BENCH_SAMPLES)
	{
		measure_coarsen(m);
		i = offset_ns / (BENCH_SAMPLE_NS << m->sample_shift);
	}
	m->nsamples = Max(m->nsamples, (int32) i + 1);
	return &m->samples[i][op];
}

/*
 * Record a measured operation of kind op, intended at intended, started
 * at t0, ended at t1; since_ns is the measurement's start.
 */
void
measure_record(BenchMeasure *m, bool paced, int op, uint64 since_ns,
			   uint64 intended, uint64 t0, uint64 t1, bool found)
{
	BenchOpFigures *f = &m->ops[op];
	BenchSample *s = measure_sample(m, op, t1 - since_ns);
	uint64		latency = t1 - intended;

	f->count++;
	f->not_found += found ? 0 : 1;
	hist_add(&f->latency, latency);
	if (paced)
		hist_add(&f->service, t1 - t0);
	s->count++;
	s->latency_ns += latency;
	s->service_ns += t1 - t0;
	s->max_ns = Max(s->max_ns, latency);
}

/* Record a measured operation of kind op that failed at t1. */
void
measure_error(BenchMeasure *m, int op, uint64 since_ns, uint64 t1)
{
	m->ops[op].errors++;
	measure_sample(m, op, t1 - since_ns)->errors++;
}

/* Add a worker's figures to the run's (the time series at the coarser interval). */
void
measure_merge(BenchMeasure *into, const BenchMeasure *from)
{
	int			step;

	while (into->sample_shift < from->sample_shift)
		measure_coarsen(into);
	step = 1 << (into->sample_shift - from->sample_shift);
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		into->ops[op].count += from->ops[op].count;
		into->ops[op].errors += from->ops[op].errors;
		into->ops[op].not_found += from->ops[op].not_found;
		hist_merge(&into->ops[op].latency, &from->ops[op].latency);
		hist_merge(&into->ops[op].service, &from->ops[op].service);
	}
	for (int i = 0; i < from->nsamples; i++)
		for (int op = 0; op < BENCH_NOPS; op++)
			measure_sample_add(&into->samples[i / step][op], &from->samples[i][op]);
	into->nsamples = Max(into->nsamples, (from->nsamples + step - 1) / step);
}

/* After merging: in a closed loop, the service times are the latencies. */
void
measure_finish(BenchMeasure *m, bool paced)
{
	if (paced)
		return;
	for (int op = 0; op < BENCH_NOPS; op++)
		m->ops[op].service = m->ops[op].latency;
}
