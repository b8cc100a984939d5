/*-------------------------------------------------------------------------
 * bench_figures.c
 *		A run's figures by operation kind and its time series, as the JSON
 *		petagen.bench_results keeps (operation_stats, samples), which
 *		bench_operations(), bench_samples() and bench_json() read.
 *
 * operation_stats has one object per kind the run's mix has or that
 * completed or failed an operation: count, errors, not_found, the latency
 * percentiles p50 .. p99.9 and max from the intended start, the same of
 * the service time (from the actual start; equal in a closed loop), and
 * the latency histogram's non-empty buckets as [low_us, high_us, count]
 * (a value v is in a bucket when low_us <= v < high_us).  samples holds
 * the interval in seconds, the measured seconds, and per kind one array
 * [operations, errors, mean_us, service_mean_us, max_us] per interval
 * from the measurement's start, by the operations' ends.  Latencies are
 * rounded as bench_results' (BENCH_LATENCY_DIGITS significant digits,
 * bench_round_latency() here),
 * bucket bounds are exact.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"

#include "bench/bench_params.h"
#include "bench/bench_run.h"

/* Significant digits of a latency. */
#define BENCH_LATENCY_DIGITS	3

/* The kinds' names in operation_stats and samples, in BenchOp order. */
static const char *const bench_op_names[BENCH_NOPS] = {
	"read", "update", "insert", "scan", "readmodifywrite"
};

/* The percentiles of operation_stats, and their names. */
static const double bench_fractions[] = {0.50, 0.95, 0.99, 0.999};
static const char *const bench_fraction_names[] = {"p50", "p95", "p99", "p999"};

/* Does the run report kind op: in its mix, or it ran some? */
static bool
bench_reports(const BenchWorkload *w, const BenchOpFigures *f, int op)
{
	return bench_does(w, (BenchOp) op) || f->count > 0 || f->errors > 0;
}

/* x rounded to digits significant digits. */
static double
bench_round_significant(double x, int digits)
{
	double		scale;

	if (x == 0 || !isfinite(x))
		return x;
	scale = pow(10, digits - (int) ceil(log10(fabs(x))));
	return round(x * scale) / scale;
}

/* A latency in microseconds rounded to what a run can measure. */
double
bench_round_latency(double us)
{
	return bench_round_significant(us, BENCH_LATENCY_DIGITS);
}

/* nanoseconds as rounded microseconds, a JSON number */
static void
bench_json_us(StringInfo buf, double ns)
{
	appendStringInfo(buf, "%.15g", bench_round_latency(ns / 1000.0));
}

/* Append "<prefix>p50_us" .. "<prefix>max_us" of a histogram. */
static void
bench_json_percentiles(StringInfo buf, const char *prefix, const Hist *hist)
{
	for (int i = 0; i < lengthof(bench_fractions); i++)
	{
		appendStringInfo(buf, ", \"%s%s_us\": ", prefix, bench_fraction_names[i]);
		bench_json_us(buf, hist_percentile(hist, bench_fractions[i]));
	}
	appendStringInfo(buf, ", \"%smax_us\": ", prefix);
	bench_json_us(buf, (double) hist->max);
}

/* Append a histogram's non-empty buckets as [low_us, high_us, count]. */
static void
bench_json_buckets(StringInfo buf, const Hist *hist)
{
	bool		first = true;

	appendStringInfoString(buf, ", \"histogram\": [");
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		uint64		low;
		uint64		width;

		if (hist->buckets[i] == 0)
			continue;
		hist_bucket_range(i, &low, &width);
		appendStringInfo(buf, "%s[%.3f, %.3f, " UINT64_FORMAT "]", first ? "" : ", ",
						 low / 1000.0, (low + width) / 1000.0, hist->buckets[i]);
		first = false;
	}
	appendStringInfoChar(buf, ']');
}

/* The run's operation_stats: one object per kind it reports. */
char *
bench_operation_stats_json(const BenchWorkload *w, const BenchMeasure *m)
{
	StringInfoData buf;
	const char *sep = "";

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		const BenchOpFigures *f = &m->ops[op];

		if (!bench_reports(w, f, op))
			continue;
		appendStringInfo(&buf, "%s\"%s\": {\"count\": " UINT64_FORMAT
						 ", \"errors\": " UINT64_FORMAT ", \"not_found\": " UINT64_FORMAT,
						 sep, bench_op_names[op], f->count, f->errors, f->not_found);
		if (f->count > 0)
		{
			bench_json_percentiles(&buf, "", &f->latency);
			bench_json_percentiles(&buf, "service_", &f->service);
		}
		bench_json_buckets(&buf, &f->latency);
		appendStringInfoChar(&buf, '}');
		sep = ", ";
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* Append one interval of one kind: [operations, errors, mean_us, service_mean_us, max_us]. */
static void
bench_json_sample(StringInfo buf, const BenchSample *s)
{
	appendStringInfo(buf, "[" UINT64_FORMAT ", " UINT64_FORMAT ", ", s->count, s->errors);
	if (s->count == 0)
	{
		appendStringInfoString(buf, "null, null, null]");
		return;
	}
	bench_json_us(buf, (double) s->latency_ns / s->count);
	appendStringInfoString(buf, ", ");
	bench_json_us(buf, (double) s->service_ns / s->count);
	appendStringInfoString(buf, ", ");
	bench_json_us(buf, (double) s->max_ns);
	appendStringInfoChar(buf, ']');
}

/* The run's samples: its time series, per kind it reports. */
char *
bench_samples_json(const BenchWorkload *w, const BenchMeasure *m, double seconds)
{
	StringInfoData buf;
	const char *sep = "";

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"interval_s\": " UINT64_FORMAT ", \"seconds\": %.6f, \"operations\": {",
					 (BENCH_SAMPLE_NS << m->sample_shift) / BENCH_SAMPLE_NS, seconds);
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		if (!bench_reports(w, &m->ops[op], op))
			continue;
		appendStringInfo(&buf, "%s\"%s\": [", sep, bench_op_names[op]);
		for (int i = 0; i < m->nsamples; i++)
		{
			if (i > 0)
				appendStringInfoString(&buf, ", ");
			bench_json_sample(&buf, &m->samples[i][op]);
		}
		appendStringInfoChar(&buf, ']');
		sep = ", ";
	}
	appendStringInfoString(&buf, "}}");
	return buf.data;
}
