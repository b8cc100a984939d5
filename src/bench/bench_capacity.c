/*-------------------------------------------------------------------------
 * bench_capacity.c
 *		petagen.bench_capacity(): the highest target_rate a server holds
 *		with its p99 latency under a bound, found by a bounded search over
 *		short paced runs of petagen.bench().
 *
 * The caller's backend drives the search as bench_sweep() drives its runs
 * (bench.c): each step is one bench() run of step_duration, recorded in
 * petagen.bench_results like any other, the steps of one search sharing
 * the id of the first as their sweep id, which chart_capacity() takes.
 * Step 1 is a closed loop: the most the workers reach, R.  Step 2 runs at
 * a tenth of R: a bound it misses there is refused with the figures (an
 * error, so nothing is recorded).  Step 3 runs at R: if it meets the
 * bound, R is the answer; else the rest bisect between the highest rate
 * that met it and the lowest that did not, until steps are spent or the
 * two are within 1% of R.  A step meets the bound when it measured operations, its
 * p99 from the intended start (bench_results.p99_us, the run's every kind
 * merged) is at most the bound, and its workers kept up: they completed at
 * least 95% of the operations the rate offered over the measured window
 * (one of slack for a short window), else their backlog grew.  The answer
 * is the highest rate that met the bound.  Each step's options record
 * "capacity": the bound, its step number and, for a paced step, whether it
 * met the bound.
 *
 * bench_capacity() takes bench()'s arguments but duration (its
 * step_duration), operationcount (a step is timed) and target_rate (the
 * search sets it); it reads them with bench()'s own code through a call
 * frame laid out as bench()'s (capacity_bench_args), so an argument bench()
 * gains is passed through by adding it to the declaration and that table.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <math.h>

#include "bench/bench.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "launch.h"

/* The SQL arguments of bench_capacity(), in order. */
typedef enum CapacityArg
{
	CAP_ARG_KIND,
	CAP_ARG_P99,
	CAP_ARG_STEPS,
	CAP_ARG_STEP_DURATION,
	CAP_ARG_WORKERS,
	CAP_ARG_WARMUP,
	CAP_ARG_TABLE,
	CAP_ARG_TARGET,
	CAP_ARG_DISTRIBUTION,
	CAP_ARG_ZIPFIAN_CONSTANT,
	CAP_ARG_ROWS,
	CAP_ARG_KEYS,
	CAP_ARG_SEED,
	CAP_ARG_FIELDLENGTH,
	CAP_ARG_PREFIX,
	CAP_ARG_ZEROPADDING,
	CAP_ARG_READPROPORTION,
	CAP_ARG_UPDATEPROPORTION,
	CAP_ARG_INSERTPROPORTION,
	CAP_ARG_SCANPROPORTION,
	CAP_ARG_RMWPROPORTION,
	CAP_ARG_MINSCANLENGTH,
	CAP_ARG_MAXSCANLENGTH,
	CAP_ARG_SCANLENGTHDISTRIBUTION,
	CAP_ARG_HOTSPOTDATAFRACTION,
	CAP_ARG_HOTSPOTOPNFRACTION,
	CAP_ARG_EXPONENTIALPERCENTILE,
	CAP_ARG_EXPONENTIALFRAC,
	CAP_ARG_LABEL,
	CAP_ARG_DATAINTEGRITY,
	CAP_ARG_CLIENTS
} CapacityArg;

/* No argument of bench_capacity(): that argument of bench() is not given. */
#define CAP_ARG_NONE	(-1)

/* Where each argument of bench() is among bench_capacity()'s. */
static const int capacity_bench_args[] = {
	[BENCH_ARG_KIND] = CAP_ARG_KIND,
	[BENCH_ARG_WORKERS] = CAP_ARG_WORKERS,
	[BENCH_ARG_DURATION] = CAP_ARG_STEP_DURATION,
	[BENCH_ARG_WARMUP] = CAP_ARG_WARMUP,
	[BENCH_ARG_TABLE] = CAP_ARG_TABLE,
	[BENCH_ARG_TARGET] = CAP_ARG_TARGET,
	[BENCH_ARG_DISTRIBUTION] = CAP_ARG_DISTRIBUTION,
	[BENCH_ARG_ZIPFIAN_CONSTANT] = CAP_ARG_ZIPFIAN_CONSTANT,
	[BENCH_ARG_ROWS] = CAP_ARG_ROWS,
	[BENCH_ARG_KEYS] = CAP_ARG_KEYS,
	[BENCH_ARG_SEED] = CAP_ARG_SEED,
	[BENCH_ARG_FIELDLENGTH] = CAP_ARG_FIELDLENGTH,
	[BENCH_ARG_PREFIX] = CAP_ARG_PREFIX,
	[BENCH_ARG_ZEROPADDING] = CAP_ARG_ZEROPADDING,
	[BENCH_ARG_OPERATIONCOUNT] = CAP_ARG_NONE,
	[BENCH_ARG_READPROPORTION] = CAP_ARG_READPROPORTION,
	[BENCH_ARG_UPDATEPROPORTION] = CAP_ARG_UPDATEPROPORTION,
	[BENCH_ARG_INSERTPROPORTION] = CAP_ARG_INSERTPROPORTION,
	[BENCH_ARG_SCANPROPORTION] = CAP_ARG_SCANPROPORTION,
	[BENCH_ARG_RMWPROPORTION] = CAP_ARG_RMWPROPORTION,
	[BENCH_ARG_MINSCANLENGTH] = CAP_ARG_MINSCANLENGTH,
	[BENCH_ARG_MAXSCANLENGTH] = CAP_ARG_MAXSCANLENGTH,
	[BENCH_ARG_SCANLENGTHDISTRIBUTION] = CAP_ARG_SCANLENGTHDISTRIBUTION,
	[BENCH_ARG_HOTSPOTDATAFRACTION] = CAP_ARG_HOTSPOTDATAFRACTION,
	[BENCH_ARG_HOTSPOTOPNFRACTION] = CAP_ARG_HOTSPOTOPNFRACTION,
	[BENCH_ARG_EXPONENTIALPERCENTILE] = CAP_ARG_EXPONENTIALPERCENTILE,
	[BENCH_ARG_EXPONENTIALFRAC] = CAP_ARG_EXPONENTIALFRAC,
	[BENCH_ARG_LABEL] = CAP_ARG_LABEL,
	[BENCH_ARG_DATAINTEGRITY] = CAP_ARG_DATAINTEGRITY,
	[BENCH_ARG_TARGET_RATE] = CAP_ARG_NONE,
	[BENCH_ARG_CLIENTS] = CAP_ARG_CLIENTS,
};

/* The arguments of bench_capacity() that must not be null, up to table. */
static const char *const capacity_arg_names[] = {
	"kind", "p99", "steps", "step_duration", "workers", "warmup", "table"
};

/* The low step's rate, as a share of the closed loop's. */
#define CAPACITY_LOW_SHARE	0.1
/* The share of the offered operations a step must complete. */
#define CAPACITY_KEEP_UP	0.95
/* The bisection stops when its interval is this share of the closed loop's rate. */
#define CAPACITY_RESOLUTION 0.01
/* Columns of bench_capacity(). */
#define CAPACITY_COLS		11

/* A search under way: what it needs between steps. */
typedef struct CapacitySearch
{
	BenchDef	def;
	int			nworkers;
	double		bound_us;		/* the p99 bound */
	int			steps;			/* at most */
	int			step;			/* steps run */
	int64		sweep;			/* the first step's id, 0 before it */
	double		answer;			/* the highest rate that met the bound, or 0 */
	int64		answer_id;
	List	   *done;			/* the steps run, CapacityStep *, in order */
	ReturnSetInfo *rsinfo;
} CapacitySearch;

/* One step's figures. */
typedef struct CapacityStep
{
	double		rate;			/* offered; 0 for the closed loop */
	BenchResult *res;
	double		tps;
	double		p99_us;			/* NAN if nothing was measured */
	bool		meets;
} CapacityStep;

/* An interval in microseconds, a month being 30 days. */
static double
capacity_interval_us(const Interval *iv)
{
	return iv->time + (iv->day + (double) iv->month * DAYS_PER_MONTH) * USECS_PER_DAY;
}

/* Raise an error unless bench_capacity()'s own arguments are valid. */
static void
capacity_check_args(FunctionCallInfo fcinfo)
{
	spec_check_nulls(fcinfo, 0, capacity_arg_names, lengthof(capacity_arg_names),
					 "petagen.bench_capacity()");
	if (!(capacity_interval_us(PG_GETARG_INTERVAL_P(CAP_ARG_P99)) > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("p99 must be positive"),
				 errhint("Pass the latency the 99th percentile must stay under, such as '5 ms'.")));
	if (PG_GETARG_INT32(CAP_ARG_STEPS) < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steps must be at least 2, not %d", PG_GETARG_INT32(CAP_ARG_STEPS)),
				 errhint("A search takes a closed-loop step and a low-rate step before it bisects; 8 steps find a rate to about 3%%.")));
	if (!(capacity_interval_us(PG_GETARG_INTERVAL_P(CAP_ARG_STEP_DURATION)) > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("step_duration must be positive")));
}

/* Read and validate the search's arguments, bench()'s with bench()'s code. */
static void
capacity_read_args(FunctionCallInfo fcinfo, CapacitySearch *s)
{
	LOCAL_FCINFO(bench, lengthof(capacity_bench_args));

	capacity_check_args(fcinfo);
	InitFunctionCallInfoData(*bench, fcinfo->flinfo, lengthof(capacity_bench_args),
							 fcinfo->fncollation, NULL, NULL);
	for (int i = 0; i < lengthof(capacity_bench_args); i++)
	{
		int			from = capacity_bench_args[i];

		bench->args[i].isnull = from == CAP_ARG_NONE || PG_ARGISNULL(from);
		bench->args[i].value = bench->args[i].isnull ? (Datum) 0 : PG_GETARG_DATUM(from);
	}
	bench_read_args(bench, &s->def);
	s->nworkers = PG_GETARG_INT32(CAP_ARG_WORKERS);
	launch_check_workers(s->nworkers);
	if (bench_arg_given(bench, BENCH_ARG_CLIENTS))
	{
		s->def.clients = PG_GETARG_INT32(CAP_ARG_CLIENTS);
		bench_check_clients(&s->def, s->def.clients, s->nworkers);
	}
	s->bound_us = capacity_interval_us(PG_GETARG_INTERVAL_P(CAP_ARG_P99));
	s->steps = PG_GETARG_INT32(CAP_ARG_STEPS);
}

/* A rate offered, to 0.1 operation per second as bench_results' tps, above 0. */
static double
capacity_round_rate(double rate)
{
	return Max(round(rate * 10) / 10, 0.1);
}

/* The step's "capacity" member of options: the bound, the step, whether it met it. */
static char *
capacity_options(const CapacitySearch *s, const CapacityStep *st)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "\"capacity\": {\"p99_us\": %.15g, \"step\": %d",
					 s->bound_us, s->step);
	if (st->rate > 0)
		appendStringInfo(&buf, ", \"meets\": %s", st->meets ? "true" : "false");
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* Does a paced step meet the bound: measured, p99 under it, kept up? */
static bool
capacity_meets(const CapacitySearch *s, const CapacityStep *st)
{
	return st->res->operations > 0 && st->p99_us <= s->bound_us &&
		st->res->operations + 1 >= CAPACITY_KEEP_UP * st->rate * st->res->seconds;
}

/* Run one step at rate (0: a closed loop), record it, judge it. */
static CapacityStep *
capacity_run_step(CapacitySearch *s, double rate)
{
	CapacityStep *st = palloc0(sizeof(CapacityStep));

	s->def.workload.target_rate = rate;
	st->rate = rate;
	st->res = bench_measure_run(&s->def, s->nworkers);
	s->step++;
	if (s->sweep == 0)
		s->sweep = st->res->id;
	st->tps = st->res->seconds > 0 ? round(st->res->operations / st->res->seconds * 10) / 10 : 0;
	st->p99_us = st->res->operations > 0 ?
		bench_round_latency(hist_percentile(&st->res->hist, 0.99) / 1000.0) : NAN;
	st->meets = rate > 0 && capacity_meets(s, st);
	if (st->meets && rate > s->answer)
	{
		s->answer = rate;
		s->answer_id = st->res->id;
	}
	s->def.extra_options = capacity_options(s, st);
	bench_finish(&s->def, st->res, s->sweep);
	s->done = lappend(s->done, st);
	return st;
}

/* A latency in microseconds for a message: in ms, in s from a second on, or "none". */
static char *
capacity_ms(double us)
{
	if (isnan(us))
		return pstrdup("none (no operation completed)");
	return us < 1e6 ? psprintf("%.3g ms", us / 1000) : psprintf("%.3g s", us / 1e6);
}

/* Raise an error unless the closed loop measured operations. */
static void
capacity_check_probe(const CapacitySearch *s, const CapacityStep *probe)
{
	if (probe->res->operations > 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("petagen.bench_capacity() measured no operation in its closed-loop step"),
			 errdetail_plural("%d worker completed no operation in %.1f s; " UINT64_FORMAT " failed%s%s.",
							  "%d workers completed no operation in %.1f s; " UINT64_FORMAT " failed%s%s.",
							  s->nworkers, s->nworkers, probe->res->seconds, probe->res->errors,
							  probe->res->last_error[0] ? ", the last with: " : "",
							  probe->res->last_error),
			 errhint("Run petagen.bench() with the same arguments to see what fails.")));
}

/* Raise an error with the figures if the low step missed the bound. */
static void
capacity_check_low(const CapacitySearch *s, const CapacityStep *probe,
				   const CapacityStep *low)
{
	if (low->meets)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("p99 of %s cannot be met even at a low rate", capacity_ms(s->bound_us)),
			 errdetail_plural("At %.1f operations per second, a tenth of the %.1f a closed loop of %d worker reached (p99 %s), the p99 latency from the intended start was %s and %.1f operations per second were completed.",
							  "At %.1f operations per second, a tenth of the %.1f a closed loop of %d workers reached (p99 %s), the p99 latency from the intended start was %s and %.1f operations per second were completed.",
							  s->nworkers, low->rate, probe->tps, s->nworkers,
							  capacity_ms(probe->p99_us), capacity_ms(low->p99_us), low->tps),
			 errhint("Pass a p99 above the latency at a low rate, or find what slows each operation (locks, triggers, I/O, other load) with petagen.bench() and petagen.bench_operations().")));
}

/* Append a step's row to the result. */
static void
capacity_put_row(CapacitySearch *s, const CapacityStep *st, int step)
{
	Datum		values[CAPACITY_COLS];
	bool		nulls[CAPACITY_COLS] = {0};
	const BenchResult *res = st->res;

	values[0] = Int32GetDatum(step);
	values[1] = Int64GetDatum(res->id);
	values[2] = Float8GetDatum(st->rate);
	nulls[2] = st->rate <= 0;
	values[3] = Float8GetDatum(st->tps);
	values[4] = Int64GetDatum((int64) res->errors);
	values[5] = Float8GetDatum(bench_round_latency(hist_percentile(&res->hist, 0.50) / 1000.0));
	values[6] = Float8GetDatum(st->p99_us);
	values[7] = Float8GetDatum(bench_round_latency(hist_percentile(&res->hist, 0.999) / 1000.0));
	values[8] = Float8GetDatum(bench_round_latency(res->hist.max / 1000.0));
	for (int i = 5; i <= 8; i++)
		nulls[i] = res->operations == 0;
	values[9] = BoolGetDatum(st->meets);
	nulls[9] = st->rate <= 0;
	values[10] = BoolGetDatum(res->id == s->answer_id);
	tuplestore_putvalues(s->rsinfo->setResult, s->rsinfo->setDesc, values, nulls);
}

/*
 * Run the search: the closed loop, the low rate (refused if it misses the
 * bound), the closed loop's rate, then bisection.
 */
static void
capacity_search(CapacitySearch *s)
{
	CapacityStep *probe = capacity_run_step(s, 0);
	CapacityStep *st;
	double		lo;
	double		hi;

	capacity_check_probe(s, probe);
	lo = capacity_round_rate(probe->tps * CAPACITY_LOW_SHARE);
	capacity_check_low(s, probe, capacity_run_step(s, lo));
	hi = capacity_round_rate(probe->tps);
	if (s->step == s->steps || hi <= lo || capacity_run_step(s, hi)->meets)
		return;
	while (s->step < s->steps && hi - lo > probe->tps * CAPACITY_RESOLUTION)
	{
		double		mid = capacity_round_rate((lo + hi) / 2);

		if (mid <= lo || mid >= hi)
			break;
		st = capacity_run_step(s, mid);
		if (st->meets)
			lo = mid;
		else
			hi = mid;
	}
}

PG_FUNCTION_INFO_V1(petagen_bench_capacity);
/* petagen.bench_capacity(kind, p99, steps, step_duration, workers, ...): the search. */
Datum
petagen_bench_capacity(PG_FUNCTION_ARGS)
{
	CapacitySearch s = {0};
	ListCell   *lc;
	int			step = 0;

	capacity_read_args(fcinfo, &s);
	InitMaterializedSRF(fcinfo, 0);
	s.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	capacity_search(&s);
	foreach(lc, s.done)
		capacity_put_row(&s, lfirst(lc), ++step);
	return (Datum) 0;
}
