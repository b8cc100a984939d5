/*-------------------------------------------------------------------------
 * verify_bench.c
 *		Why petagen.verify(job) finds extra rows in a table that benchmark
 *		runs inserted into, and how to remove those rows.
 *
 * A benchmark's inserts (ycsb-d, ycsb-e, insertproportion) are key numbers
 * outside the load job's key space: run id's workers insert from
 * options.insert_base (first + rows + id * 2^40) up to below options.insert_end
 * (bench_shared.h), and the run records the load job its key space is from as
 * options.job.  verify(job) checks the job's key space, so it counts
 * every such row still in the table as extra.  When it finds extra rows
 * and benchmark runs of the job inserted rows, a NOTICE says how many and
 * gives the DELETE that removes exactly the keys those runs could have
 * inserted, spelled as the job spells keys (petagen.key(); an integer
 * ycsb_key is the key number itself, and with int the runs insert one after
 * another from first + rows on, bench.c): a DELETE
 * rather than a function, so that it runs with the caller's privileges
 * and row-level security, as any other change to the table, and can be
 * read before it is run.  bench_results is read as the catalog's owner.
 *
 * verify(job, bench_inserts => 'ignore') leaves those rows out instead:
 * it looks the keys the runs could have inserted up in the table, with
 * the caller's privileges, routes each one found to its leaf, and takes
 * them from the leaf's extra rows, so that every other key is still
 * proved exactly; a NOTICE says how many rows it ignored.  A benchmark key
 * is never a key of the key space (the runs insert past it), but in the
 * hashed modes (ycsb, go-ycsb) two numbers can spell the same key: a leaf
 * ignores at most its extra rows, so such a key still counts as present.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "catalog.h"
#include "gen/keys.h"
#include "route/route.h"
#include "verify/verify_bench.h"

/* The bench_inserts argument of verify(job): true for 'ignore', false for 'count'. */
bool
verify_bench_ignore_arg(text *arg)
{
	char	   *mode = text_to_cstring(arg);

	if (strcmp(mode, "ignore") == 0)
		return true;
	if (strcmp(mode, "count") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bench_inserts \"%s\"", mode),
				 errhint("Use \"count\" (the rows benchmark runs inserted are extra) or \"ignore\" (they are left out).")));
	return false;
}

/* verify_bench_inserts()'s target list. */
enum
{
	Anum_inserts_runs = 1,
	Anum_inserts_rows,
};

/* The runs of load job whose inserts remain and the rows they inserted: runs, rows. */
static void
verify_bench_inserts(int64 job, int64 *runs, int64 *rows)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_read("SELECT pg_catalog.count(*), pg_catalog.sum(inserts)::bigint"
				 " FROM petagen.bench_results WHERE inserts > 0"
				 " AND options ? 'insert_end' AND (options->>'job')::bigint = $1",
				 1, types, values, 1);
	*runs = catalog_int8(0, Anum_inserts_runs);
	*rows = *runs > 0 ? catalog_int8(0, Anum_inserts_rows) : 0;
	catalog_finish(&scope);
}

/* The key of number column `n` as job spells it, for SQL. */
static const char *
verify_bench_key_sql(const JobDef *job, const char *n)
{
	if (job->spec.keys.kind != KEYKIND_TEXT)
		return n;
	return psprintf("petagen.key(%s, %s, %s, %d)", n,
					quote_literal_cstr(keys_mode_name(job->spec.keys.mode)),
					quote_literal_cstr(job->spec.keys.prefix),
					job->spec.keys.zeropadding);
}

/* verify_bench_ranges()'s target list. */
enum
{
	Anum_ranges_base = 1,
	Anum_ranges_end,
};

/*
 * The key numbers benchmark runs of job could have inserted, as the rows
 * of a VALUES list (base, end); NULL if no run inserted any.
 */
static char *
verify_bench_ranges(int64 job, int64 *runs)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	StringInfoData buf;
	CatalogScope scope;

	initStringInfo(&buf);
	catalog_connect(&scope, true);
	*runs = catalog_read("SELECT (options->>'insert_base')::bigint,"
						 " (options->>'insert_end')::bigint"
						 " FROM petagen.bench_results WHERE inserts > 0"
						 " AND options ? 'insert_end' AND (options->>'job')::bigint = $1",
						 1, types, values, 0);
	for (uint64 i = 0; i < *runs; i++)
		appendStringInfo(&buf, "%s(" INT64_FORMAT ", " INT64_FORMAT ")",
						 i > 0 ? ", " : "", catalog_int8(i, Anum_ranges_base),
						 catalog_int8(i, Anum_ranges_end));
	catalog_finish(&scope);
	return *runs > 0 ? buf.data : NULL;
}

/*
 * Hand each row of the job's table whose key benchmark runs of the job
 * could have inserted to fn, with the leaf of router it is in and its key's
 * text; returns how many runs inserted rows.
 */
int64
verify_bench_ignored(const JobDef *job, Router *router, VerifyIgnoreFn fn,
					 void *arg)
{
	char	   *ranges;
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	char		chars[KEYS_MAX_LEN + 1];
	int64		runs;
	uint64		n;
	CatalogScope scope;

	ranges = verify_bench_ranges(job->job, &runs);
	if (ranges == NULL)
		return 0;
	/* the table as the caller reads it: verify() checked its privileges */
	catalog_connect(&scope, false);
	n = catalog_read(psprintf("SELECT b.n FROM (SELECT DISTINCT s.n"
							  " FROM (VALUES %s) AS r(b, e),"
							  " pg_catalog.generate_series(r.b, r.e - 1) AS s(n)) AS b,"
							  " %s AS t WHERE t.ycsb_key = %s",
							  ranges, catalog_relation_name(job->relid),
							  verify_bench_key_sql(job, "b.n")),
					 0, NULL, NULL, 0);
	for (uint64 i = 0; i < n; i++)
	{
		int64		seq = catalog_int8(i, CATALOG_ONLY_COLUMN);
		int			leaf;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		leaf = route_key(router, keys_datum(&job->spec.keys, seq, buf));
		if (leaf >= 0)
			fn(arg, leaf, chars, keys_format(&job->spec.keys, seq, chars));
	}
	catalog_finish(&scope);
	pfree(buf);
	return runs;
}

/* After verify(job, bench_inserts => 'ignore'): how many rows it left out. */
void
verify_note_ignored(const JobDef *job, int64 runs, int64 ignored)
{
	ereport(NOTICE,
			(errmsg("verify ignored " INT64_FORMAT " rows that benchmark runs of load job " INT64_FORMAT " inserted",
					ignored, job->job),
			 errdetail(INT64_FORMAT " benchmark runs of the job inserted rows: their keys, from options.insert_base up to below options.insert_end of their petagen.bench_results rows, are neither extra nor expected.",
					   runs)));
}

/*
 * After verify(job) found extra rows in table: a NOTICE if benchmark runs
 * of the job inserted rows, with the DELETE that removes them.
 */
void
verify_note_bench_inserts(const JobDef *job, const char *table, int64 extra)
{
	int64		runs;
	int64		rows;

	if (extra == 0)
		return;
	verify_bench_inserts(job->job, &runs, &rows);
	if (runs == 0)
		return;
	ereport(NOTICE,
			(errmsg("benchmark runs of load job " INT64_FORMAT " inserted " INT64_FORMAT " rows outside its key space: verify counts them as extra",
					job->job, rows),
			 errdetail("%s finds " INT64_FORMAT " extra rows; " INT64_FORMAT " benchmark runs inserted key numbers from options.insert_base up to below options.insert_end of their petagen.bench_results rows. petagen.verify(" INT64_FORMAT ", bench_inserts => 'ignore') leaves them out.",
					   table, extra, runs, job->job),
			 errhint("To remove the rows benchmark runs inserted: DELETE FROM %s WHERE ycsb_key IN (SELECT %s FROM petagen.bench_results AS r, generate_series((r.options->>'insert_base')::bigint, (r.options->>'insert_end')::bigint - 1) AS n WHERE (r.options->>'job')::bigint = " INT64_FORMAT " AND r.inserts > 0);",
					 table, verify_bench_key_sql(job, "n"), job->job)));
}
