/*-------------------------------------------------------------------------
 * bench_results.c
 *		What a benchmark run reports: its row of petagen.bench_results, its
 *		figures by operation kind and its time series, and its latency
 *		histograms read back and merged on demand.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "bench/bench.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

#include "catalog.h"
#include "compat.h"
#include "gen/keys.h"
#include "guard.h"
#include "route/citus_meta.h"

static char *bench_operation_stats_json(const BenchWorkload *w, const BenchMeasure *m);
static char *bench_samples_json(const BenchWorkload *w, const BenchMeasure *m, double seconds);


/*-------------------------------------------------------------------------
 *		What a benchmark run reports: its row of petagen.bench_results
 *		(with the settings it ran under, its label, with dataintegrity its
 *		integrity_errors, its target_rate and its figures by operation
 *		kind and over time, bench_results.c), its result row, and the
 *		warnings when keys were not found or rows read differed from the
 *		generator's.
 *
 * Figures are rounded to what a run can measure: tps to 0.1 operation per
 * second, latencies to 3 significant digits (bench_results.c; the
 * histogram's buckets are finer than that, a run's noise coarser).  The
 * settings snapshot holds the server's version and the settings that
 * change in-server figures most; synchronous_commit is the one the
 * workers ran with (worker 0's), which a SET in the caller's session does
 * not change.  cores is sysconf(_SC_NPROCESSORS_ONLN), the processors
 * online, where the platform has it (Linux, the BSDs, macOS), else null.
 *-------------------------------------------------------------------------
 */

/* Columns of bench()'s result row. */
#define BENCH_RESULT_COLS	12

/*
 * The parameters of the INSERT into petagen.bench_results, values[Arg_x]
 * being $(Arg_x + 1); from label on for label, settings and
 * integrity_errors, from target_rate on for the measurement layer's
 * columns (columns of 0.2's bench_results).
 */
enum
{
	Arg_record_id,
	Arg_record_sweep,
	Arg_record_kind,
	Arg_record_workers,
	Arg_record_duration,
	Arg_record_warmup,
	Arg_record_table,
	Arg_record_target,
	Arg_record_target_node,
	Arg_record_distribution,
	Arg_record_options,
	Arg_record_operations,
	Arg_record_tps,
	Arg_record_errors,
	Arg_record_not_found,
	Arg_record_ops,				/* BENCH_NOPS: reads .. rmws */
	Arg_record_p50_us = Arg_record_ops + BENCH_NOPS,	/* bench_latencies()'s */
	Arg_record_p95_us,
	Arg_record_p99_us,
	Arg_record_p999_us,
	Arg_record_max_us,
	Arg_record_started_at,
	Arg_record_run_by,
	Arg_record_label,
	Arg_record_synchronous_commit,
	Arg_record_cores,
	Arg_record_integrity_errors,
	Arg_record_target_rate,		/* from here on for the measurement layer */
	Arg_record_operation_stats,
	Arg_record_samples,
	Arg_record_clients,
	Arg_record_path,
	BENCH_RECORD_ARGS
};

/* The values of label, settings and integrity_errors in that INSERT. */
#define BENCH_SETTINGS_SQL \
	", $28, pg_catalog.jsonb_build_object(" \
	"'server_version', pg_catalog.current_setting('server_version')," \
	" 'shared_buffers', pg_catalog.current_setting('shared_buffers')," \
	" 'synchronous_commit', $29," \
	" 'wal_level', pg_catalog.current_setting('wal_level')," \
	" 'max_connections', pg_catalog.current_setting('max_connections')::integer," \
	" 'cores', $30), $31"
/* The values of target_rate, operation_stats, samples, clients and path in that INSERT. */
#define BENCH_MEASURE_SQL ", $32, $33::pg_catalog.jsonb, $34::pg_catalog.jsonb, $35, $36"

/* A relation's name as regclass spells it. */
static char *
bench_relname(Oid relid)
{
	return DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
}

/* A target's name: its leaf, or a Citus shard's name as citus_shards spells it. */
static const char *
bench_target_name(const BenchDef *def, const BenchTarget *target)
{
	if (def->citus && target->relid == def->relid)
		return quote_identifier(citus_meta_shard_name(get_rel_name(def->relid),
													  target->leaf));
	return bench_relname(target->relid);
}

/* Append "key": string to a JSON object under construction. */
static void
bench_json_text(StringInfo buf, const char *key, const char *value)
{
	appendStringInfo(buf, ", \"%s\": ", key);
	escape_json(buf, value);
}

/* Everything about a run that has no column of its own, as JSON. */
static char *
bench_options_json(const BenchDef *def, const BenchResult *res)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"rows\": " INT64_FORMAT, def->rows);
	if (def->first > 0)
		appendStringInfo(&buf, ", \"first\": " INT64_FORMAT, def->first);
	bench_json_text(&buf, "keys", keys_mode_name(def->spec.keys.mode));
	appendStringInfo(&buf, ", \"seed\": " INT64_FORMAT ", \"fieldlength\": %d",
					 (int64) def->spec.seed, def->spec.fieldlength);
	bench_json_text(&buf, "prefix", def->spec.keys.prefix);
	appendStringInfo(&buf, ", \"zeropadding\": %d, \"zipfian_constant\": %.15g",
					 def->spec.keys.zeropadding, def->workload.params.zipfian_constant);
	bench_workload_json(&buf, &def->workload);
	if (def->job > 0)
		appendStringInfo(&buf, ", \"job\": " INT64_FORMAT, def->job);
	if (bench_does(&def->workload, BENCH_OP_UPDATE) || bench_does(&def->workload, BENCH_OP_RMW))
		bench_json_text(&buf, "field_updated", "one random field per update (YCSB writeallfields=false)");
	if (bench_does(&def->workload, BENCH_OP_INSERT))
		appendStringInfo(&buf, ", \"insert_base\": " INT64_FORMAT ", \"insert_end\": " INT64_FORMAT,
						 res->insert_base, res->insert_end);
	appendStringInfo(&buf, ", \"seconds\": %.6f", res->seconds);
	if (res->terminated > 0)
		appendStringInfo(&buf, ", \"terminated_workers\": %d", res->terminated);
	if (res->last_error[0])
		bench_json_text(&buf, "last_error", res->last_error);
	if (def->extra_options)
		appendStringInfo(&buf, ", %s", def->extra_options);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/* Operations per second of a run, to 0.1; 0 for an empty window. */
static double
bench_tps(const BenchResult *res)
{
	return res->seconds > 0 ? round(res->operations / res->seconds * 10) / 10 : 0;
}

/*
 * The latency columns p50, p95, p99, p99.9 and max in microseconds into
 * values[0..4]; false if nothing was measured (the columns are then NULL).
 */
static bool
bench_latencies(const BenchResult *res, Datum *values)
{
	static const double fractions[4] = {0.50, 0.95, 0.99, 0.999};

	for (int i = 0; i < lengthof(fractions); i++)
		values[i] = Float8GetDatum(bench_round_latency(hist_percentile(&res->hist, fractions[i]) / 1000.0));
	values[4] = Float8GetDatum(bench_round_latency(res->hist.max / 1000.0));
	return res->operations > 0;
}

/* The duration column: the one given, or with operationcount the measured one. */
static Datum
bench_duration(const BenchDef *def, const BenchResult *res)
{
	Interval   *measured;

	if (def->workload.operationcount == 0)
		return IntervalPGetDatum(def->duration);
	measured = palloc0(sizeof(Interval));
	measured->time = (int64) round(res->seconds * 1000) * 1000;
	return IntervalPGetDatum(measured);
}

/* Processors online, or -1 where the platform cannot say. */
static int
bench_cores(void)
{
#ifdef _SC_NPROCESSORS_ONLN
	return (int) sysconf(_SC_NPROCESSORS_ONLN);
#else
	return -1;
#endif
}

/* How many of the INSERT's parameters the declaration of bench() has columns for. */
static int
bench_record_nargs(const BenchDef *def)
{
	if (def->record_measure)
		return BENCH_RECORD_ARGS;
	return def->record_settings ? Arg_record_target_rate : Arg_record_label;
}

/*
 * The end of the key numbers earlier runs of load job inserted
 * (options.insert_end), or from if none inserted past it.
 */
int64
bench_results_insert_end(int64 job, int64 from)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;
	bool		isnull;
	Datum		end;

	catalog_connect(&scope, true);
	catalog_read("SELECT pg_catalog.max((options->>'insert_end')::bigint)"
				 " FROM petagen.bench_results WHERE options ? 'insert_end'"
				 " AND (options->>'job')::bigint = $1",
				 1, types, values, 1);
	end = catalog_value(0, 1, &isnull);
	catalog_finish(&scope);
	return isnull ? from : Max(from, DatumGetInt64(end));
}

/* Insert the row of a run into petagen.bench_results. */
void
bench_record(const BenchDef *def, const BenchResult *res, int64 sweep)
{
	Oid			types[BENCH_RECORD_ARGS] = {
		[Arg_record_id] = INT8OID,
		[Arg_record_sweep] = INT8OID,
		[Arg_record_kind] = TEXTOID,
		[Arg_record_workers] = INT4OID,
		[Arg_record_duration] = INTERVALOID,
		[Arg_record_warmup] = INTERVALOID,
		[Arg_record_table] = TEXTOID,
		[Arg_record_target] = TEXTARRAYOID,
		[Arg_record_target_node] = TEXTOID,
		[Arg_record_distribution] = TEXTOID,
		[Arg_record_options] = TEXTOID,
		[Arg_record_operations] = INT8OID,
		[Arg_record_tps] = FLOAT8OID,
		[Arg_record_errors] = INT8OID,
		[Arg_record_not_found] = INT8OID,
		/* the ops and latencies in their loops below */
		[Arg_record_started_at] = TIMESTAMPTZOID,
		[Arg_record_run_by] = OIDOID,
		[Arg_record_label] = TEXTOID,
		[Arg_record_synchronous_commit] = TEXTOID,
		[Arg_record_cores] = INT4OID,
		[Arg_record_integrity_errors] = INT8OID,
		[Arg_record_target_rate] = FLOAT8OID,
		[Arg_record_operation_stats] = TEXTOID,
		[Arg_record_samples] = TEXTOID,
		[Arg_record_clients] = INT4OID,
		[Arg_record_path] = TEXTOID,
	};
	Datum		values[BENCH_RECORD_ARGS];
	char		nulls[BENCH_RECORD_ARGS];
	Datum	   *names = palloc(sizeof(Datum) * def->ntargets);
	bool		measured;
	int			cores = bench_cores();
	CatalogScope scope;

	for (int i = 0; i < def->ntargets; i++)
		names[i] = CStringGetTextDatum(bench_target_name(def, &def->targets[i]));
	memset(nulls, ' ', sizeof(nulls));
	values[Arg_record_id] = Int64GetDatum(res->id);
	values[Arg_record_sweep] = Int64GetDatum(sweep);
	nulls[Arg_record_sweep] = sweep > 0 ? ' ' : 'n';
	values[Arg_record_kind] = CStringGetTextDatum(bench_kind_name(def->workload.kind));
	values[Arg_record_workers] = Int32GetDatum(res->nworkers);
	values[Arg_record_duration] = bench_duration(def, res);
	values[Arg_record_warmup] = IntervalPGetDatum(def->warmup);
	values[Arg_record_table] = CStringGetTextDatum(bench_relname(def->relid));
	values[Arg_record_target] = PointerGetDatum(construct_array(names, def->ntargets, TEXTOID, -1,
																false, TYPALIGN_INT));
	values[Arg_record_target_node] = CStringGetTextDatum(def->target_node);
	values[Arg_record_distribution] = CStringGetTextDatum(dist_name(def->workload.distribution));
	values[Arg_record_options] = CStringGetTextDatum(bench_options_json(def, res));
	values[Arg_record_operations] = Int64GetDatum(res->operations);
	values[Arg_record_tps] = Float8GetDatum(bench_tps(res));
	values[Arg_record_errors] = Int64GetDatum(res->errors);
	values[Arg_record_not_found] = Int64GetDatum(res->not_found);
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		types[Arg_record_ops + op] = INT8OID;
		values[Arg_record_ops + op] = Int64GetDatum(res->ops[op]);
	}
	measured = bench_latencies(res, &values[Arg_record_p50_us]);
	for (int i = Arg_record_p50_us; i <= Arg_record_max_us; i++)
	{
		types[i] = FLOAT8OID;
		nulls[i] = measured ? ' ' : 'n';
	}
	values[Arg_record_started_at] = TimestampTzGetDatum(res->started_at);
	values[Arg_record_run_by] = ObjectIdGetDatum(GetUserId());
	values[Arg_record_label] = CStringGetTextDatum(def->label ? def->label : "");
	nulls[Arg_record_label] = def->label ? ' ' : 'n';
	values[Arg_record_synchronous_commit] = CStringGetTextDatum(res->synchronous_commit);
	values[Arg_record_cores] = Int32GetDatum(cores);
	nulls[Arg_record_cores] = cores > 0 ? ' ' : 'n';
	values[Arg_record_integrity_errors] = Int64GetDatum(res->integrity_errors);
	nulls[Arg_record_integrity_errors] = def->workload.dataintegrity ? ' ' : 'n';
	values[Arg_record_target_rate] = Float8GetDatum(def->workload.target_rate);
	nulls[Arg_record_target_rate] = def->workload.target_rate > 0 ? ' ' : 'n';
	values[Arg_record_operation_stats] =
		CStringGetTextDatum(bench_operation_stats_json(&def->workload, &res->measure));
	values[Arg_record_samples] =
		CStringGetTextDatum(bench_samples_json(&def->workload, &res->measure, res->seconds));
	values[Arg_record_clients] = Int32GetDatum(def->clients);
	nulls[Arg_record_clients] = def->clients > 0 ? ' ' : 'n';
	values[Arg_record_path] = CStringGetTextDatum(def->clients > 0 ? "libpq" : "spi");
	catalog_connect(&scope, true);
	catalog_exec(psprintf("INSERT INTO petagen.bench_results (id, sweep, kind, workers,"
						  " duration, warmup, \"table\", target, target_node, distribution,"
						  " options, operations, tps, errors, not_found, reads, updates,"
						  " inserts, scans, rmws, p50_us, p95_us, p99_us, p999_us, max_us,"
						  " started_at, run_by, finished_at%s%s) OVERRIDING SYSTEM VALUE VALUES"
						  " ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::pg_catalog.jsonb,"
						  " $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,"
						  " $25, $26, $27::pg_catalog.regrole, pg_catalog.clock_timestamp()%s%s)",
						  def->record_settings ? ", label, settings, integrity_errors" : "",
						  def->record_measure ? ", target_rate, operation_stats, samples, clients, path" : "",
						  def->record_settings ? BENCH_SETTINGS_SQL : "",
						  def->record_measure ? BENCH_MEASURE_SQL : ""),
				 bench_record_nargs(def), types, values, nulls, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/* Warn when a run did not find keys it looked for: its figures measure misses. */
void
bench_warn_not_found(const BenchResult *res)
{
	if (res->not_found == 0)
		return;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("benchmark run " INT64_FORMAT " did not find " UINT64_FORMAT " of the keys its " UINT64_FORMAT " operations looked for",
					res->id, res->not_found, res->operations),
			 errdetail("An operation on a missing key is fast and changes nothing: the run's figures measure misses."),
			 errhint("Benchmark the key space the table holds: load it again with petagen.start(), or pass rows, keys, seed and prefix as it was loaded.")));
}

/* Warn when a run with dataintegrity read rows whose fields the generator did not write. */
void
bench_warn_integrity(const BenchResult *res)
{
	if (res->integrity_errors == 0)
		return;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("benchmark run " INT64_FORMAT " read " UINT64_FORMAT " rows whose fields differ from the generator's",
					res->id, res->integrity_errors),
			 errdetail("With dataintegrity, a read compares every field of the row with the value petagen generates for its key number; petagen's own updates write those values."),
			 errhint("Something other than petagen changed those rows, or the table was loaded with another seed or fieldlength: pass seed and fieldlength as it was loaded, or load it again with petagen.start().")));
}

/*
 * Put a run as a result row of a materialized SRF, bench()'s or
 * bench_sweep()'s (whose sweep id is its first row's id).  The operations
 * of each kind and the sweep are in bench_results and bench_operations():
 * a row fits a 120-column psql screen.
 */
void
bench_return_row(FunctionCallInfo fcinfo, const BenchDef *def,
				 const BenchResult *res)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[BENCH_RESULT_COLS];
	bool		nulls[BENCH_RESULT_COLS] = {0};
	bool		measured;

	values[0] = Int64GetDatum(res->id);
	values[1] = CStringGetTextDatum(bench_kind_name(def->workload.kind));
	values[2] = Int32GetDatum(res->nworkers);
	values[3] = Int64GetDatum(res->operations);
	values[4] = Float8GetDatum(bench_tps(res));
	values[5] = Int64GetDatum(res->errors);
	values[6] = Int64GetDatum(res->not_found);
	measured = bench_latencies(res, &values[7]);
	for (int i = 7; i < 12; i++)
		nulls[i] = !measured;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}


/*-------------------------------------------------------------------------
 *		A run's figures by operation kind and its time series, as the JSON
 *		petagen.bench_results keeps (operation_stats, samples), which
 *		bench_operations(), bench_samples(), bench_json(),
 *		bench_percentiles() and bench_histogram() read.
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
static char *
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
static char *
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


/*-------------------------------------------------------------------------
 *		A run's latency histograms read back from operation_stats:
 *		bench_percentiles() and bench_histogram().
 *
 * Each kind's histogram is rebuilt from its stored buckets (bounds are
 * exact nanoseconds), the kinds merged by summing bucket counts, and a
 * percentile found in the merged counts as bench_results' are (the middle
 * of its bucket, never above the largest latency), rounded the same way:
 * bench_percentiles(run, '{50,95,99,99.9}', 'all') gives the run's p50_us
 * .. p999_us (but where the largest latency's rounding caps one).  The largest latency is known to 3 significant digits only
 * (operation_stats' max_us); percentile 100 is it.  "all" names the
 * merged histogram of every kind.  A run recorded without operation_stats
 * has no histograms, and no rows.
 *-------------------------------------------------------------------------
 */

/* Columns of bench_percentiles() and bench_histogram(). */
#define BENCH_PERCENTILE_COLS	4
#define BENCH_HISTOGRAM_COLS	3

/* The merged histogram's index and name, after the kinds'. */
#define BENCH_ALL		BENCH_NOPS
#define BENCH_ALL_NAME	"all"

/* A run's histograms: each kind's, and at BENCH_ALL their merge. */
typedef struct BenchHists
{
	bool		present[BENCH_NOPS + 1];	/* the run reports it */
	Hist		hists[BENCH_NOPS + 1];
} BenchHists;

/* The kind operation_stats and the operation arguments name name, or -1. */
static int
bench_op_named(const char *name)
{
	for (int op = 0; op < BENCH_NOPS; op++)
		if (strcmp(name, bench_op_names[op]) == 0)
			return op;
	return -1;
}

/*
 * The histogram an operation argument names: a kind, BENCH_ALL for
 * "all", -1 for NULL (all of them).
 */
static int
bench_hist_named(FunctionCallInfo fcinfo, int argno, const char *caller)
{
	char	   *name;
	int			op;

	if (PG_ARGISNULL(argno))
		return -1;
	name = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (strcmp(name, BENCH_ALL_NAME) == 0)
		return BENCH_ALL;
	op = bench_op_named(name);
	if (op < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown operation \"%s\" for %s", name, caller),
				 errhint("Pass one of \"read\", \"update\", \"insert\", \"scan\", \"readmodifywrite\", \"all\" (every kind merged), or NULL.")));
	return op;
}

/*
 * Add the rows the last statement read to h: per row a kind's name, a
 * bucket's lower bound and count in nanoseconds (NULL for a kind without
 * operations) and the kind's largest latency; run names the run(s) in an
 * error.  The kinds are merged into BENCH_ALL by the caller.
 */
static void
bench_hists_add_rows(BenchHists *h, uint64 nrows, int64 run)
{
	for (uint64 row = 0; row < nrows; row++)
	{
		char	   *name = catalog_text(row, 1, CurrentMemoryContext);
		int			op = bench_op_named(name);
		bool		isnull;
		Datum		low = catalog_value(row, 2, &isnull);
		Datum		max;

		if (op < 0)
			elog(ERROR, "unknown operation kind \"%s\" in operation_stats of benchmark run " INT64_FORMAT,
				 name, run);
		h->present[op] = h->present[BENCH_ALL] = true;
		if (isnull)
			continue;
		hist_add_count(&h->hists[op], (uint64) DatumGetInt64(low),
					   (uint64) DatumGetInt64(catalog_value(row, 3, &isnull)));
		max = catalog_value(row, 4, &isnull);
		if (!isnull)
			h->hists[op].max = Max(h->hists[op].max, (uint64) DatumGetInt64(max));
	}
}

/*
 * Read run's histograms from petagen.bench_results (palloc'd: they are too
 * big for the stack), after the checks every function taking a run id
 * makes (_check_run: NULL, no such run).
 */
static BenchHists *
bench_read_hists(FunctionCallInfo fcinfo, const char *caller)
{
	BenchHists *h = palloc0(sizeof(BenchHists));
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2] = {PG_GETARG_DATUM(0), CStringGetTextDatum(caller)};
	char		nulls[2] = {PG_ARGISNULL(0) ? 'n' : ' ', ' '};
	CatalogScope scope;
	uint64		nrows;

	catalog_connect(&scope, false);
	catalog_exec("SELECT petagen._check_run($1, $2)", 2, types, values, nulls,
				 SPI_OK_SELECT);
	nrows = catalog_read("SELECT o.key, round((b.value->>0)::numeric * 1000)::int8,"
						 " (b.value->>2)::int8, round((o.value->>'max_us')::numeric * 1000)::int8"
						 " FROM petagen.bench_results AS r"
						 " CROSS JOIN LATERAL jsonb_each(r.operation_stats) AS o"
						 " LEFT JOIN LATERAL jsonb_array_elements(o.value->'histogram') AS b ON true"
						 " WHERE r.id = $1",
						 1, types, values, 0);
	bench_hists_add_rows(h, nrows, PG_GETARG_INT64(0));
	catalog_finish(&scope);
	for (int op = 0; op < BENCH_NOPS; op++)
		hist_merge(&h->hists[BENCH_ALL], &h->hists[op]);
	return h;
}

/* The name of histogram i of a BenchHists. */
static const char *
bench_hist_name(int i)
{
	return i == BENCH_ALL ? BENCH_ALL_NAME : bench_op_names[i];
}

/* Percentiles (0 .. 100] from a float8[], checked. */
static double *
bench_read_percentiles(FunctionCallInfo fcinfo, int argno, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	double	   *percentiles;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"percentiles\" of petagen.bench_percentiles() must not be null")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(argno), FLOAT8OID, sizeof(float8),
					  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, n);
	percentiles = palloc(sizeof(double) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		percentiles[i] = nulls[i] ? NAN : DatumGetFloat8(elems[i]);
		if (!(percentiles[i] > 0 && percentiles[i] <= 100))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("percentile %s of petagen.bench_percentiles() is not in (0, 100]",
							nulls[i] ? "NULL" : float8out_internal(percentiles[i])),
					 errhint("Pass percentiles greater than 0 and at most 100, such as '{50,99,99.9,100}'; 100 is the largest latency.")));
	}
	return percentiles;
}

/* A percentile (0 .. 100] of a histogram in microseconds, rounded as bench_results'. */
static double
bench_hist_percentile_us(const Hist *hist, double percentile)
{
	double		ns = percentile >= 100 ? (double) hist->max : hist_percentile(hist, percentile / 100);

	return bench_round_latency(ns / 1000.0);
}

/* The rows of bench_percentiles() for histogram i. */
static void
bench_put_percentiles(ReturnSetInfo *rsinfo, const BenchHists *h, int i,
					  const double *percentiles, int n)
{
	Datum		values[BENCH_PERCENTILE_COLS];
	bool		nulls[BENCH_PERCENTILE_COLS] = {0};

	if (!h->present[i])
		return;
	values[0] = CStringGetTextDatum(bench_hist_name(i));
	values[3] = Int64GetDatum((int64) h->hists[i].count);
	nulls[2] = h->hists[i].count == 0;
	for (int k = 0; k < n; k++)
	{
		values[1] = Float8GetDatum(percentiles[k]);
		values[2] = Float8GetDatum(bench_hist_percentile_us(&h->hists[i], percentiles[k]));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

PG_FUNCTION_INFO_V1(petagen_bench_percentiles);
/* petagen.bench_percentiles(run, percentiles, operation): from the stored histograms. */
Datum
petagen_bench_percentiles(PG_FUNCTION_ARGS)
{
	const char *caller = "petagen.bench_percentiles()";
	int			named = bench_hist_named(fcinfo, 2, caller);
	int			n;
	double	   *percentiles = bench_read_percentiles(fcinfo, 1, &n);
	BenchHists *h = bench_read_hists(fcinfo, caller);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (named >= 0)
		bench_put_percentiles(rsinfo, h, named, percentiles, n);
	else
	{
		bench_put_percentiles(rsinfo, h, BENCH_ALL, percentiles, n);
		for (int op = 0; op < BENCH_NOPS; op++)
			bench_put_percentiles(rsinfo, h, op, percentiles, n);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(petagen_bench_histogram);
/* petagen.bench_histogram(run, operation): the non-empty buckets of a histogram. */
Datum
petagen_bench_histogram(PG_FUNCTION_ARGS)
{
	int			named = bench_hist_named(fcinfo, 1, "petagen.bench_histogram()");
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BenchHists *h = bench_read_hists(fcinfo, "petagen.bench_histogram()");
	const Hist *hist = &h->hists[named >= 0 ? named : BENCH_ALL];

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		Datum		values[BENCH_HISTOGRAM_COLS];
		bool		nulls[BENCH_HISTOGRAM_COLS] = {0};
		uint64		low;
		uint64		width;

		if (hist->buckets[i] == 0)
			continue;
		hist_bucket_range(i, &low, &width);
		values[0] = Float8GetDatum(low / 1000.0);
		values[1] = Float8GetDatum((low + width) / 1000.0);
		values[2] = Int64GetDatum((int64) hist->buckets[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}


/*-------------------------------------------------------------------------
 *		A cluster's run: petagen._bench_record_cluster() records the runs
 *		cluster_bench() started on every node at one instant as one row of
 *		petagen.bench_results on the node it was called on.
 *
 * The row is a run like the others (path 'cluster', target_node
 * 'cluster', target the nodes), so bench_percentiles(), bench_histogram(),
 * bench_json(), bench_samples(), chart_bench() and forget_bench() read it
 * as they read any run.  Its counts and tps are the sums of the nodes';
 * its latency histograms are the nodes' merged by summing bucket counts,
 * kind by kind, and its percentiles are read from the merged histograms as
 * a run's are (hist.c): the p99 of the union of every node's operations,
 * never an average of the nodes' p99s.  Its time series sums the nodes'
 * interval by interval (they started at the same instant).  options.nodes
 * keeps each node's run: its id there, its start, figures, error, and its
 * operations per interval, which chart_cluster_bench() draws.  Each node
 * keeps its own run in its own bench_results.
 *-------------------------------------------------------------------------
 */

/* The nodes' runs, per element of $1: node, error, run (a bench_json()). */
#define CLUSTER_RUNS_SQL \
	"WITH n AS (SELECT e.value->>'node' AS node, e.value->>'error' AS error," \
	" e.value->'run'->'run' AS r, e.value->'run'->'operations' AS ops," \
	" e.value->'run'->'samples' AS s, e.i" \
	" FROM pg_catalog.jsonb_array_elements($1) WITH ORDINALITY AS e(value, i))," \
	" ok AS (SELECT * FROM n WHERE pg_catalog.jsonb_typeof(n.r) = 'object') "

/* The operations of each interval of the time series s, summed over its kinds. */
#define CLUSTER_OPS_SQL(s) \
	"(SELECT pg_catalog.jsonb_agg(q.c ORDER BY q.j) FROM (SELECT v.j, sum((v.x->>0)::int8) AS c" \
	" FROM pg_catalog.jsonb_each(" s "->'operations') AS o," \
	" pg_catalog.jsonb_array_elements(o.value) WITH ORDINALITY AS v(x, j) GROUP BY v.j) AS q)"

/* One node's entry of options.nodes. */
#define CLUSTER_NODE_SQL \
	"pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('node', n.node, 'error', n.error," \
	" 'run', n.r->'id', 'started_at', n.r->'started_at', 'workers', n.r->'workers'," \
	" 'clients', n.r->'clients', 'operations', n.r->'operations', 'tps', n.r->'tps'," \
	" 'errors', n.r->'errors', 'p50_us', n.r->'p50_us', 'p95_us', n.r->'p95_us'," \
	" 'p99_us', n.r->'p99_us', 'p999_us', n.r->'p999_us', 'max_us', n.r->'max_us'," \
	" 'interval_s', n.s->'interval_s', 'ops', " CLUSTER_OPS_SQL("n.s") "))"

/* The nodes' time series summed interval by interval, as samples. */
#define CLUSTER_SAMPLES_SQL \
	"(SELECT pg_catalog.jsonb_build_object('interval_s', (SELECT max((ok.s->>'interval_s')::int8) FROM ok)," \
	" 'seconds', (SELECT max((ok.s->>'seconds')::float8) FROM ok)," \
	" 'operations', coalesce(pg_catalog.jsonb_object_agg(u.k, u.a), '{}'))" \
	" FROM (SELECT t.k, pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(t.c, t.e, t.m, t.sm, t.x) ORDER BY t.j) AS a" \
	" FROM (SELECT o.key AS k, v.j, sum((v.x->>0)::int8) AS c, sum((v.x->>1)::int8) AS e," \
	" round(sum((v.x->>2)::numeric * (v.x->>0)::int8) / nullif(sum((v.x->>0)::int8), 0), 3) AS m," \
	" round(sum((v.x->>3)::numeric * (v.x->>0)::int8) / nullif(sum((v.x->>0)::int8), 0), 3) AS sm," \
	" max((v.x->>4)::numeric) AS x" \
	" FROM ok, pg_catalog.jsonb_each(ok.s->'operations') AS o," \
	" pg_catalog.jsonb_array_elements(o.value) WITH ORDINALITY AS v(x, j)" \
	" GROUP BY o.key, v.j) AS t GROUP BY t.k) AS u)"

/*
 * The cluster row's INSERT, after CLUSTER_RUNS_SQL: its two %s add the node
 * column and its value ($13) when the node is given.
 */
#define CLUSTER_INSERT_SQL \
	"INSERT INTO petagen.bench_results (id, sweep, kind, workers, duration, warmup," \
	" \"table\", target, target_node, distribution, options, operations, tps," \
	" errors, not_found, reads, updates, inserts, scans, rmws, p50_us, p95_us," \
	" p99_us, p999_us, max_us, started_at, run_by, finished_at, label," \
	" integrity_errors, target_rate, operation_stats, samples, clients, path%s)" \
	" OVERRIDING SYSTEM VALUE SELECT $11, CASE WHEN $2 = 0 THEN $11 ELSE $2 END, min(ok.r->>'kind'), sum((ok.r->>'workers')::int4)::int4," \
	" max((ok.r->>'duration')::interval), max((ok.r->>'warmup')::interval)," \
	" min(ok.r->>'table'), CASE WHEN $12 IS NULL THEN (SELECT pg_catalog.array_agg(n.node ORDER BY n.i) FROM n)" \
	" ELSE (SELECT pg_catalog.array_agg(t.value ORDER BY t.i) FROM ok AS o," \
	" pg_catalog.jsonb_array_elements_text(o.r->'target') WITH ORDINALITY AS t(value, i)) END," \
	" coalesce($12, 'cluster'), min(ok.r->>'distribution')," \
	" pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('start_at', $3," \
	" 'nodes', (SELECT pg_catalog.jsonb_agg(" CLUSTER_NODE_SQL " ORDER BY n.i) FROM n)))," \
	" sum((ok.r->>'operations')::int8)::int8," \
	" round(sum((ok.r->>'tps')::numeric), 1)::float8," \
	" sum((ok.r->>'errors')::int8)::int8, sum((ok.r->>'not_found')::int8)::int8," \
	" sum((ok.r->>'reads')::int8)::int8, sum((ok.r->>'updates')::int8)::int8," \
	" sum((ok.r->>'inserts')::int8)::int8, sum((ok.r->>'scans')::int8)::int8," \
	" sum((ok.r->>'rmws')::int8)::int8, $5, $6, $7, $8, $9," \
	" min((ok.r->>'started_at')::timestamptz), $10::pg_catalog.regrole," \
	" pg_catalog.clock_timestamp(), min(ok.r->>'label')," \
	" sum((ok.r->>'integrity_errors')::int8)::int8," \
	" sum((ok.r->>'target_rate')::float8), $4::pg_catalog.jsonb, " \
	CLUSTER_SAMPLES_SQL ", sum((ok.r->>'clients')::int4)::int4," \
	" CASE WHEN $12 IS NULL THEN 'cluster' ELSE min(ok.r->>'path') END%s" \
	" FROM ok HAVING count(*) > 0 RETURNING id"

/* The parameters of the cluster row's INSERT. */
enum
{
	Arg_cluster_runs,
	Arg_cluster_sweep,
	Arg_cluster_start_at,
	Arg_cluster_stats,
	Arg_cluster_p50_us,			/* to max_us: bench_latencies()'s order */
	Arg_cluster_run_by = Arg_cluster_p50_us + 5,
	Arg_cluster_id,
	Arg_cluster_target_node,
	Arg_cluster_node,			/* only when given */
	CLUSTER_RECORD_ARGS
};

/*
 * The nodes' histograms of runs (the argument of _bench_record_cluster)
 * merged kind by kind, and into BENCH_ALL; the counts of each kind summed
 * into counts, errors and not_found.
 */
static BenchHists *
bench_cluster_hists(Datum runs, uint64 *counts, uint64 *errors,
					uint64 *not_found)
{
	BenchHists *h = palloc0(sizeof(BenchHists));
	Oid			types[1] = {JSONBOID};
	Datum		values[1] = {runs};
	uint64		nrows;

	nrows = catalog_read(CLUSTER_RUNS_SQL
						 "SELECT o.key, round((b.value->>0)::numeric * 1000)::int8,"
						 " (b.value->>2)::int8, round((o.value->>'max_us')::numeric * 1000)::int8"
						 " FROM ok CROSS JOIN LATERAL pg_catalog.jsonb_each(ok.ops) AS o"
						 " LEFT JOIN LATERAL pg_catalog.jsonb_array_elements(o.value->'histogram') AS b ON true",
						 1, types, values, 0);
	bench_hists_add_rows(h, nrows, 0);
	for (int op = 0; op < BENCH_NOPS; op++)
		hist_merge(&h->hists[BENCH_ALL], &h->hists[op]);
	nrows = catalog_read(CLUSTER_RUNS_SQL
						 "SELECT o.key, sum((o.value->>'count')::int8)::int8,"
						 " sum((o.value->>'errors')::int8)::int8, sum((o.value->>'not_found')::int8)::int8"
						 " FROM ok CROSS JOIN LATERAL pg_catalog.jsonb_each(ok.ops) AS o GROUP BY o.key",
						 1, types, values, 0);
	for (uint64 row = 0; row < nrows; row++)
	{
		int			op = bench_op_named(catalog_text(row, 1, CurrentMemoryContext));

		if (op < 0)
			continue;
		counts[op] = (uint64) catalog_int8(row, 2);
		errors[op] = (uint64) catalog_int8(row, 3);
		not_found[op] = (uint64) catalog_int8(row, 4);
	}
	return h;
}

/* The cluster row's operation_stats: each kind's sums and merged histogram. */
static char *
bench_cluster_stats_json(const BenchHists *h, const uint64 *counts,
						 const uint64 *errors, const uint64 *not_found)
{
	StringInfoData buf;
	const char *sep = "";

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		if (!h->present[op])
			continue;
		appendStringInfo(&buf, "%s\"%s\": {\"count\": " UINT64_FORMAT
						 ", \"errors\": " UINT64_FORMAT ", \"not_found\": " UINT64_FORMAT,
						 sep, bench_op_names[op], counts[op], errors[op], not_found[op]);
		if (h->hists[op].count > 0)
			bench_json_percentiles(&buf, "", &h->hists[op]);
		bench_json_buckets(&buf, &h->hists[op]);
		appendStringInfoChar(&buf, '}');
		sep = ", ";
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

PG_FUNCTION_INFO_V1(petagen_bench_record_cluster);
/*
 * petagen._bench_record_cluster(runs, sweep, start_at, node, target_node):
 * record the cluster row of the nodes' runs (a JSON array of {node, error,
 * run: bench_json() of the node's run}) in sweep (NULL: none; 0: this row
 * starts one); returns its id, or NULL when no node ran.  With target_node
 * (cluster_matrix()), the row is a copy of one node's run, node and
 * target_node as given and its own path; else path and target_node are
 * 'cluster' and node this node.
 */
Datum
petagen_bench_record_cluster(PG_FUNCTION_ARGS)
{
	static const double fractions[4] = {0.50, 0.95, 0.99, 0.999};
	Oid			types[CLUSTER_RECORD_ARGS] = {
		[Arg_cluster_runs] = JSONBOID,
		[Arg_cluster_sweep] = INT8OID,
		[Arg_cluster_start_at] = TIMESTAMPTZOID,
		[Arg_cluster_stats] = TEXTOID,
		[Arg_cluster_run_by] = OIDOID,
		[Arg_cluster_id] = INT8OID,
		[Arg_cluster_target_node] = TEXTOID,
		[Arg_cluster_node] = TEXTOID,
	};
	Datum		values[CLUSTER_RECORD_ARGS];
	char		nulls[CLUSTER_RECORD_ARGS];
	uint64		counts[BENCH_NOPS] = {0};
	uint64		errors[BENCH_NOPS] = {0};
	uint64		not_found[BENCH_NOPS] = {0};
	BenchHists *h;
	const Hist *all;
	CatalogScope scope;
	int64		id = 0;
	uint64		n;

	guard_writable("petagen.cluster_bench()");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	memset(nulls, ' ', sizeof(nulls));
	values[Arg_cluster_runs] = PG_GETARG_DATUM(0);
	values[Arg_cluster_sweep] = PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1);
	nulls[Arg_cluster_sweep] = PG_ARGISNULL(1) ? 'n' : ' ';
	values[Arg_cluster_start_at] = PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2);
	nulls[Arg_cluster_start_at] = PG_ARGISNULL(2) ? 'n' : ' ';
	values[Arg_cluster_run_by] = ObjectIdGetDatum(GetUserId());
	values[Arg_cluster_target_node] = PG_ARGISNULL(4) ? (Datum) 0 : PG_GETARG_DATUM(4);
	nulls[Arg_cluster_target_node] = PG_ARGISNULL(4) ? 'n' : ' ';
	values[Arg_cluster_node] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);

	catalog_connect(&scope, false);
	h = bench_cluster_hists(values[Arg_cluster_runs], counts, errors, not_found);
	catalog_finish(&scope);
	all = &h->hists[BENCH_ALL];
	values[Arg_cluster_stats] = CStringGetTextDatum(bench_cluster_stats_json(h, counts, errors,
																			 not_found));
	for (int i = 0; i < 5; i++)
	{
		types[Arg_cluster_p50_us + i] = FLOAT8OID;
		nulls[Arg_cluster_p50_us + i] = all->count > 0 ? ' ' : 'n';
		values[Arg_cluster_p50_us + i] =
			Float8GetDatum(bench_round_latency((i < 4 ? hist_percentile(all, fractions[i]) :
												(double) all->max) / 1000.0));
	}

	catalog_connect(&scope, true);
	catalog_exec("SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence("
				 "'petagen.bench_results', 'id'))", 0, NULL, NULL, NULL, SPI_OK_SELECT);
	values[Arg_cluster_id] = Int64GetDatum(catalog_int8(0, CATALOG_ONLY_COLUMN));
	n = catalog_exec(psprintf(CLUSTER_RUNS_SQL CLUSTER_INSERT_SQL,
							  PG_ARGISNULL(3) ? "" : ", node",
							  PG_ARGISNULL(3) ? "" : ", $13"),
					 PG_ARGISNULL(3) ? Arg_cluster_node : CLUSTER_RECORD_ARGS,
					 types, values, nulls, SPI_OK_INSERT_RETURNING);
	if (n > 0)
		id = catalog_int8(0, CATALOG_ONLY_COLUMN);
	catalog_finish(&scope);
	if (n == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64(id);
}
