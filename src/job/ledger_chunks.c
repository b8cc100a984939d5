/*-------------------------------------------------------------------------
 * ledger_chunks.c
 *		The ledger proper: every statement on petagen.chunks (one row per
 *		loaded chunk, committed with the chunk's rows) and the rows a
 *		running load adds to petagen.progress_log (its history, each row
 *		naming the job's phase where the catalog has that column: a 0.1
 *		catalog, before ALTER EXTENSION UPDATE, has not).  ledger.c owns the
 *		job rows these reference; both are declared in ledger.h.
 *
 * Reads run as the current role, writes as the catalog owner (catalog.c).
 * Result columns and parameters are read and filled by name: an Anum_
 * enum per statement's target list, an Arg_ enum per parameter list.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "job/ledger.h"

/* ledger_summary()'s target list. */
enum
{
	Anum_summary_keys = 1,
	Anum_summary_rows,
	Anum_summary_bytes,
	Anum_summary_duplicates,
	Anum_summary_run_seconds,
	Anum_summary_run_rows,
	Anum_summary_run_bytes,
	Anum_summary_last_error,
	Anum_summary_last_error_at,
	Anum_summary_started_at,
	Anum_summary_finished_at,
	Anum_summary_logged_keys,
};

/* Timestamp column col of the first result row; 0 for NULL. */
static TimestampTz
ledger_timestamp(int col)
{
	bool		isnull;
	Datum		d = catalog_value(0, col, &isnull);

	return isnull ? 0 : DatumGetTimestampTz(d);
}

/* Float8 column col of the first result row; 0 for NULL. */
static double
ledger_float8(int col)
{
	bool		isnull;
	Datum		d = catalog_value(0, col, &isnull);

	return isnull ? 0 : DatumGetFloat8(d);
}

/* Sum the ledger of a job and read its last run and last error into sum. */
void
ledger_summary(int64 job, LedgerSummary *sum)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;

	memset(sum, 0, sizeof(*sum));
	catalog_connect(&scope, false);
	if (catalog_exec("SELECT coalesce(sum(c.keys), 0)::int8,"
					 " coalesce(sum(c.rows_written), 0)::int8,"
					 " coalesce(sum(c.bytes), 0)::int8,"
					 " coalesce(sum(c.duplicates), 0)::int8,"
					 " extract(epoch FROM j.finished_at - coalesce((to_jsonb(j)"
					 " ->> 'run_started_at')::timestamptz, j.started_at))::float8,"
					 " coalesce(sum(c.rows_written) FILTER (WHERE c.run = j.run), 0)::float8,"
					 " coalesce(sum(c.bytes) FILTER (WHERE c.run = j.run), 0)::float8,"
					 " j.last_error, j.last_error_at, j.started_at, j.finished_at,"
					 " (SELECT coalesce(max(p.keys_done), 0) FROM petagen.progress_log p"
					 " WHERE p.job = j.job)"
					 " FROM petagen.jobs j LEFT JOIN petagen.chunks c USING (job)"
					 " WHERE j.job = $1 GROUP BY j.job",
					 1, types, values, NULL, SPI_OK_SELECT) > 0)
	{
		char	   *err = catalog_text(0, Anum_summary_last_error,
									   CurrentMemoryContext);

		sum->keys = catalog_int8(0, Anum_summary_keys);
		sum->rows = catalog_int8(0, Anum_summary_rows);
		sum->bytes = catalog_int8(0, Anum_summary_bytes);
		sum->duplicates = catalog_int8(0, Anum_summary_duplicates);
		sum->run_seconds = ledger_float8(Anum_summary_run_seconds);
		sum->run_rows = ledger_float8(Anum_summary_run_rows);
		sum->run_bytes = ledger_float8(Anum_summary_run_bytes);
		if (err)
			strlcpy(sum->last_error, err, JOB_TEXT_LEN);
		sum->last_error_at = ledger_timestamp(Anum_summary_last_error_at);
		sum->started_at = ledger_timestamp(Anum_summary_started_at);
		sum->finished_at = ledger_timestamp(Anum_summary_finished_at);
		sum->logged_keys = catalog_int8(0, Anum_summary_logged_keys);
	}
	catalog_finish(&scope);
}

/* The parameters of a chunk's INSERT: values[Arg_chunk_x] is $(x + 1). */
enum
{
	Arg_chunk_job,
	Arg_chunk_chunk,
	Arg_chunk_keys,
	Arg_chunk_rows_written,
	Arg_chunk_bytes,
	Arg_chunk_duplicates,
	Arg_chunk_foreign_skipped,
	Arg_chunk_worker,
	Arg_chunk_run,
	Arg_chunk_leaf,				/* a leaf job's only */
	CHUNK_NARGS
};

/*
 * Insert the ledger row of a chunk a worker finished, in its transaction;
 * a leaf job's chunk is local leaf number `chunk`, relation leaf (else
 * InvalidOid).
 */
void
ledger_record_chunk(const JobDef *def, int32 worker, int64 chunk,
					Oid leaf, const LoadStats *st)
{
	Oid			types[CHUNK_NARGS] = {
		[Arg_chunk_job] = INT8OID,
		[Arg_chunk_chunk] = INT8OID,
		[Arg_chunk_keys] = INT8OID,
		[Arg_chunk_rows_written] = INT8OID,
		[Arg_chunk_bytes] = INT8OID,
		[Arg_chunk_duplicates] = INT8OID,
		[Arg_chunk_foreign_skipped] = INT8OID,
		[Arg_chunk_worker] = INT4OID,
		[Arg_chunk_run] = INT4OID,
		[Arg_chunk_leaf] = OIDOID,
	};
	Datum		values[CHUNK_NARGS] = {
		[Arg_chunk_job] = Int64GetDatum(def->job),
		[Arg_chunk_chunk] = Int64GetDatum(chunk),
		[Arg_chunk_keys] = Int64GetDatum(st->keys),
		[Arg_chunk_rows_written] = Int64GetDatum(st->rows),
		[Arg_chunk_bytes] = Int64GetDatum(st->bytes),
		[Arg_chunk_duplicates] = Int64GetDatum(st->duplicates),
		[Arg_chunk_foreign_skipped] = Int64GetDatum(st->foreign),
		[Arg_chunk_worker] = Int32GetDatum(worker),
		[Arg_chunk_run] = Int32GetDatum(def->run),
		[Arg_chunk_leaf] = ObjectIdGetDatum(leaf),
	};
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* only a leaf job names the leaf column (a 0.1 catalog has none) */
	if (OidIsValid(leaf))
		catalog_exec("INSERT INTO petagen.chunks (job, chunk, keys, rows_written,"
					 " bytes, duplicates, foreign_skipped, worker, run, leaf)"
					 " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
					 CHUNK_NARGS, types, values, NULL, SPI_OK_INSERT);
	else
		catalog_exec("INSERT INTO petagen.chunks (job, chunk, keys, rows_written,"
					 " bytes, duplicates, foreign_skipped, worker, run)"
					 " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
					 Arg_chunk_leaf, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/* The parameters of a progress_log row's INSERT, phase last (0.2's only). */
enum
{
	Arg_progress_job,
	Arg_progress_keys_done,
	Arg_progress_rows_written,
	Arg_progress_bytes,
	Arg_progress_phase,
	PROGRESS_NARGS
};

/*
 * Add a progress_log row with the job's live totals, stamped now, in the
 * current transaction; phase: what the job is doing (routing, loading,
 * indexing).
 */
void
ledger_log_progress(int64 job, const LoadStats *live, const char *phase)
{
	Oid			types[PROGRESS_NARGS] = {
		[Arg_progress_job] = INT8OID,
		[Arg_progress_keys_done] = INT8OID,
		[Arg_progress_rows_written] = INT8OID,
		[Arg_progress_bytes] = INT8OID,
		[Arg_progress_phase] = TEXTOID,
	};
	Datum		values[PROGRESS_NARGS] = {
		[Arg_progress_job] = Int64GetDatum(job),
		[Arg_progress_keys_done] = Int64GetDatum(live->keys),
		[Arg_progress_rows_written] = Int64GetDatum(live->rows),
		[Arg_progress_bytes] = Int64GetDatum(live->bytes),
		[Arg_progress_phase] = CStringGetTextDatum(phase),
	};
	bool		phases;
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* logged_at: the moment of these totals, not when the transaction began */
	phases = catalog_has_column("progress_log", "phase");
	catalog_exec(psprintf("INSERT INTO petagen.progress_log (job, keys_done,"
						  " rows_written, bytes, logged_at%s)"
						  " VALUES ($1, $2, $3, $4, pg_catalog.clock_timestamp()%s)",
						  phases ? ", phase" : "", phases ? ", $5" : ""),
				 phases ? PROGRESS_NARGS : Arg_progress_phase, types, values,
				 NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/* The target list of the chunk reads below: the chunk, then its leaf. */
enum
{
	Anum_chunk_chunk = 1,
	Anum_chunk_leaf,
};

/* Set bit c of done (nchunks bits) for every chunk c of job in the ledger. */
void
ledger_done_chunks(int64 job, int64 nchunks, uint8 *done)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	uint64		n;
	CatalogScope scope;

	catalog_connect(&scope, false);
	n = catalog_exec("SELECT chunk FROM petagen.chunks WHERE job = $1",
					 1, types, values, NULL, SPI_OK_SELECT);
	for (uint64 i = 0; i < n; i++)
	{
		int64		chunk = catalog_int8(i, Anum_chunk_chunk);

		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		if (chunk >= 0 && chunk < nchunks)
			done[chunk / 8] |= 1 << (chunk % 8);
	}
	catalog_finish(&scope);
}

/*
 * The first leaf number in a leaf job's ledger whose leaf is not leaves[]
 * at that number now (nleaves of them), or -1; *was set to its leaf then.
 */
int64
ledger_moved_leaf(int64 job, const Oid *leaves, int nleaves, Oid *was)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	int64		moved = -1;
	uint64		n;
	CatalogScope scope;

	catalog_connect(&scope, false);
	n = catalog_exec("SELECT chunk, leaf FROM petagen.chunks"
					 " WHERE job = $1 AND leaf IS NOT NULL ORDER BY chunk",
					 1, types, values, NULL, SPI_OK_SELECT);
	for (uint64 i = 0; i < n && moved < 0; i++)
	{
		bool		isnull;
		int64		chunk = catalog_int8(i, Anum_chunk_chunk);
		Oid			leaf = DatumGetObjectId(catalog_value(i, Anum_chunk_leaf, &isnull));

		if (chunk < 0 || chunk >= nleaves || leaves[chunk] != leaf)
		{
			moved = chunk;
			*was = leaf;
		}
	}
	catalog_finish(&scope);
	return moved;
}

/* The int8 (its one column) that query sql ($1: job) returns about job's ledger. */
static int64
ledger_job_int8(const char *sql, int64 job)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	int64		n;
	CatalogScope scope;

	catalog_connect(&scope, false);
	catalog_exec(sql, 1, types, values, NULL, SPI_OK_SELECT);
	n = catalog_int8(0, CATALOG_ONLY_COLUMN);
	catalog_finish(&scope);
	return n;
}

/* The number of chunks of job in the ledger. */
int64
ledger_count_chunks(int64 job)
{
	return ledger_job_int8("SELECT count(*) FROM petagen.chunks WHERE job = $1", job);
}

/* One more than the highest chunk number of job in the ledger (0 if none). */
int64
ledger_chunk_bound(int64 job)
{
	return ledger_job_int8("SELECT COALESCE(max(chunk) + 1, 0) FROM petagen.chunks"
						   " WHERE job = $1", job);
}
