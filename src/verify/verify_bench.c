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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "catalog.h"
#include "gen/keys.h"
#include "verify/verify_bench.h"

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

/*
 * After verify(job) found extra rows in table: a NOTICE if benchmark runs
 * of the job inserted rows, with the DELETE that removes them.
 */
void
verify_note_bench_inserts(const JobDef *job, const char *table, int64 extra)
{
	int64		runs;
	int64		rows;
	const char *key = "n";

	if (extra == 0)
		return;
	verify_bench_inserts(job->job, &runs, &rows);
	if (runs == 0)
		return;
	if (job->spec.keys.kind == KEYKIND_TEXT)
		key = psprintf("petagen.key(n, %s, %s, %d)",
					   quote_literal_cstr(keys_mode_name(job->spec.keys.mode)),
					   quote_literal_cstr(job->spec.keys.prefix),
					   job->spec.keys.zeropadding);
	ereport(NOTICE,
			(errmsg("benchmark runs of load job " INT64_FORMAT " inserted " INT64_FORMAT " rows outside its key space: verify counts them as extra",
					job->job, rows),
			 errdetail("%s finds " INT64_FORMAT " extra rows; " INT64_FORMAT " benchmark runs inserted key numbers from options.insert_base up to below options.insert_end of their petagen.bench_results rows.",
					   table, extra, runs),
			 errhint("To remove the rows benchmark runs inserted: DELETE FROM %s WHERE ycsb_key IN (SELECT %s FROM petagen.bench_results AS r, generate_series((r.options->>'insert_base')::bigint, (r.options->>'insert_end')::bigint - 1) AS n WHERE (r.options->>'job')::bigint = " INT64_FORMAT " AND r.inserts > 0);",
					 table, key, job->job)));
}
