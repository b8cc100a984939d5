/*-------------------------------------------------------------------------
 * ledger.c
 *		The job catalog's owner: every statement on petagen.jobs (one row
 *		per job), petagen.chunks (one row per loaded chunk, committed with
 *		the chunk's rows) and petagen.progress_log (the load's history,
 *		each row naming the job's phase where the catalog has that column:
 *		a 0.1 catalog, before ALTER EXTENSION UPDATE, has not).
 *
 * Reads run as the current role; writes as the catalog owner (catalog.c),
 * so that roles need no more than SELECT on these tables and every row in
 * them was written by petagen.  Every statement runs with search_path
 * pinned.  The other catalog tables have one owner each as well:
 * chunk_intents is frozen.c's, job_indexes indexes.c's, bench_results
 * bench.c's.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "gen/keys.h"
#include "job/ledger.h"

/* Int8 of column col of the first result row (0 for NULL). */
static int64
ledger_int8(int col)
{
	bool		isnull;
	Datum		d = catalog_value(0, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

/* The int8 first column of the first n result rows, in an array in cxt. */
static int64 *
ledger_int8_rows(int n, MemoryContext cxt)
{
	int64	   *values = MemoryContextAlloc(cxt, sizeof(int64) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		values[i] = DatumGetInt64(catalog_value(i, 1, &isnull));
	}
	return values;
}

/* Fill def from the first result row of job_read()'s query. */
static void
ledger_fill_def(int64 job, JobDef *def, MemoryContext cxt)
{
	bool		isnull;
	char	   *state;

	MemoryContextSwitchTo(cxt);
	def->job = job;
	def->relid = DatumGetObjectId(catalog_value(0, 1, &isnull));
	def->rows = ledger_int8(2);
	def->nworkers = DatumGetInt32(catalog_value(0, 3, &isnull));
	def->run = DatumGetInt32(catalog_value(0, 4, &isnull));
	def->chunk_rows = ledger_int8(5);
	spec_init(&def->spec, catalog_text(0, 6, cxt), catalog_text(0, 9, cxt),
			  DatumGetInt32(catalog_value(0, 10, &isnull)), ledger_int8(7),
			  DatumGetInt32(catalog_value(0, 8, &isnull)));
	def->disk_reserve = DatumGetInt64(catalog_value(0, 11, &isnull));
	if (isnull)
		def->disk_reserve = -1;
	def->max_rate = ledger_int8(12);
	def->owner = DatumGetObjectId(catalog_value(0, 13, &isnull));
	state = catalog_text(0, 14, cxt);
	strlcpy(def->state, state ? state : "", sizeof(def->state));
	def->handle = (dsm_handle) DatumGetInt64(catalog_value(0, 15, &isnull));
	if (isnull)
		def->handle = DSM_HANDLE_INVALID;
	def->ours = TransactionIdIsCurrentTransactionId(DatumGetTransactionId(catalog_value(0, 16, &isnull)));
	def->frozen = DatumGetBool(catalog_value(0, 17, &isnull));
	def->indexes_after = DatumGetBool(catalog_value(0, 18, &isnull));
	def->leaf_method = DatumGetBool(catalog_value(0, 19, &isnull));
	def->route_token = ledger_int8(20);
}

/* Read job `job` from petagen.jobs into def; false if missing and missing_ok. */
bool
job_read(int64 job, JobDef *def, bool missing_ok)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;

	catalog_connect(&scope, false);
	if (catalog_exec("SELECT \"table\"::oid, rows, workers, run, chunk_rows, keys, seed,"
					 " fieldlength, prefix, zeropadding, disk_reserve, max_rate,"
					 " started_by::oid, state, dsm_handle, xmin, frozen,"
					 " indexes = 'after',"
					 " to_jsonb(j) ->> 'method' IS NOT DISTINCT FROM 'leaf',"
					 " (to_jsonb(j) ->> 'route_token')::int8"
					 " FROM petagen.jobs j WHERE job = $1",
					 1, types, values, NULL, SPI_OK_SELECT) == 0)
	{
		catalog_finish(&scope);
		if (missing_ok)
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("load job " INT64_FORMAT " does not exist", job),
				 errhint("SELECT job, \"table\", state FROM petagen.jobs lists the jobs.")));
	}
	ledger_fill_def(job, def, cxt);
	catalog_finish(&scope);
	return true;
}

/* The job numbers a query on petagen.jobs returns, in order. */
static int64 *
ledger_job_ids(const char *sql, int *njobs)
{
	MemoryContext cxt = CurrentMemoryContext;
	int64	   *jobs;
	CatalogScope scope;

	catalog_connect(&scope, false);
	*njobs = (int) catalog_exec(sql, 0, NULL, NULL, NULL, SPI_OK_SELECT);
	jobs = ledger_int8_rows(*njobs, cxt);
	catalog_finish(&scope);
	return jobs;
}

/* The jobs the catalog says are running (live or interrupted). */
int64 *
ledger_running_job_ids(int *njobs)
{
	return ledger_job_ids("SELECT job FROM petagen.jobs WHERE state = 'running'"
						  " ORDER BY job", njobs);
}

/* The jobs status() lists: running, stopped, or ended in the last hour. */
int64 *
ledger_listed_job_ids(int *njobs)
{
	return ledger_job_ids("SELECT job FROM petagen.jobs"
						  " WHERE state IN ('running', 'stopped')"
						  " OR finished_at > pg_catalog.now() - interval '1 hour'"
						  " ORDER BY job", njobs);
}

/*
 * The route tokens of the jobs that can still use their routing files:
 * resumable (running, failed or stopped) and their table still there.
 */
int64 *
ledger_resumable_tokens(int *ntokens)
{
	MemoryContext cxt = CurrentMemoryContext;
	int64	   *tokens;
	CatalogScope scope;

	catalog_connect(&scope, false);
	/* a 0.1 catalog has no route_token column: to_jsonb() reads NULL */
	*ntokens = (int) catalog_exec("SELECT t FROM petagen.jobs j,"
								  " LATERAL (SELECT (to_jsonb(j) ->> 'route_token')::int8) r(t)"
								  " WHERE t IS NOT NULL"
								  " AND state IN ('running', 'failed', 'stopped')"
								  " AND EXISTS (SELECT FROM pg_catalog.pg_class c"
								  " WHERE c.oid = j.\"table\")",
								  0, NULL, NULL, NULL, SPI_OK_SELECT);
	tokens = ledger_int8_rows(*ntokens, cxt);
	catalog_finish(&scope);
	return tokens;
}

/* The job whose key space a table holds: its newest done job, else its newest; 0 if none. */
int64
ledger_newest_job_of(Oid relid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	int64		job = 0;
	CatalogScope scope;

	catalog_connect(&scope, false);
	if (catalog_exec("SELECT job FROM petagen.jobs WHERE \"table\" = $1"
					 " ORDER BY state = 'done' DESC, job DESC LIMIT 1",
					 1, types, values, NULL, SPI_OK_SELECT) > 0)
		job = ledger_int8(1);
	catalog_finish(&scope);
	return job;
}

/*
 * A condition on job row j: its table is $1 or shares partitions with it
 * (an ancestor or a descendant in $1's partition tree).
 */
#define LEDGER_SAME_TREE \
	"(j.\"table\" = $1" \
	" OR EXISTS (SELECT FROM pg_catalog.pg_partition_ancestors($1) a" \
	" WHERE a.relid = j.\"table\")" \
	" OR EXISTS (SELECT FROM pg_catalog.pg_partition_ancestors(j.\"table\") a" \
	" WHERE a.relid = $1))"

/*
 * Is another job the catalog says is running (live or interrupted) loading
 * relid or a table that shares partitions with it (an ancestor or a
 * descendant in its partition tree)?  The caller holds the lock that makes
 * starts and resumes on the tree take turns (check_no_other_job).
 */
bool
ledger_running_conflict(Oid relid, int64 except_job, int64 *other_job,
						Oid *other_relid)
{
	Oid			types[2] = {OIDOID, INT8OID};
	Datum		values[2] = {ObjectIdGetDatum(relid), Int64GetDatum(except_job)};
	bool		isnull;
	bool		found;
	CatalogScope scope;

	catalog_connect(&scope, true);
	found = catalog_exec("SELECT job, \"table\"::pg_catalog.oid FROM petagen.jobs j"
						 " WHERE state = 'running' AND job <> $2 AND " LEDGER_SAME_TREE
						 " ORDER BY job LIMIT 1",
						 2, types, values, NULL, SPI_OK_SELECT) > 0;
	if (found)
	{
		*other_job = ledger_int8(1);
		*other_relid = DatumGetObjectId(catalog_value(0, 2, &isnull));
	}
	catalog_finish(&scope);
	return found;
}

/*
 * The newest other job on relid's partition tree (as ledger_running_conflict
 * counts it) that committed a chunk after job's last chunk, or before job
 * had any, after job was created; 0 if none.  Sets *other_relid to its table.
 */
int64
ledger_written_since(Oid relid, int64 job, Oid *other_relid)
{
	Oid			types[2] = {OIDOID, INT8OID};
	Datum		values[2] = {ObjectIdGetDatum(relid), Int64GetDatum(job)};
	bool		isnull;
	int64		other = 0;
	CatalogScope scope;

	catalog_connect(&scope, true);
	if (catalog_exec("SELECT job, \"table\"::pg_catalog.oid FROM petagen.jobs j"
					 " WHERE job <> $2 AND " LEDGER_SAME_TREE
					 " AND EXISTS (SELECT FROM petagen.chunks c WHERE c.job = j.job"
					 " AND c.finished_at > (SELECT coalesce(max(m.finished_at), s.created_at)"
					 " FROM petagen.jobs s LEFT JOIN petagen.chunks m ON m.job = s.job"
					 " WHERE s.job = $2 GROUP BY s.created_at))"
					 " ORDER BY job DESC LIMIT 1",
					 2, types, values, NULL, SPI_OK_SELECT) > 0)
	{
		other = ledger_int8(1);
		*other_relid = DatumGetObjectId(catalog_value(0, 2, &isnull));
	}
	catalog_finish(&scope);
	return other;
}

/*
 * The INSERT of a job's row.  A job started through 0.2's start() names
 * its method, route token (NULL for a chunk job) and why that method
 * (def->method_reason); one started through 0.1's start(), which a catalog
 * still at 0.1 has (the library is 0.2, ALTER EXTENSION UPDATE not yet
 * run), names none: that catalog has none of these columns.
 */
#define LEDGER_INSERT_JOB(col, param) \
	"INSERT INTO petagen.jobs (\"table\", rows, workers," \
	" chunk_rows, keys, seed, fieldlength, prefix, zeropadding," \
	" disk_reserve, max_rate, started_by, frozen, indexes" col ")" \
	" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11," \
	" $12::pg_catalog.regrole, $13, $14" param ") RETURNING job"

/* Insert def's row into petagen.jobs as its first run; sets def->job. */
void
ledger_insert_job(JobDef *def)
{
	Oid			types[17] = {OIDOID, INT8OID, INT4OID, INT8OID, TEXTOID, INT8OID,
	INT4OID, TEXTOID, INT4OID, INT8OID, INT8OID, OIDOID, BOOLOID, TEXTOID, TEXTOID,
	INT8OID, TEXTOID};
	Datum		values[17];
	char		nulls[17];
	CatalogScope scope;

	memset(nulls, ' ', sizeof(nulls));
	values[0] = ObjectIdGetDatum(def->relid);
	values[1] = Int64GetDatum(def->rows);
	values[2] = Int32GetDatum(def->nworkers);
	values[3] = Int64GetDatum(def->chunk_rows);
	values[4] = CStringGetTextDatum(keys_mode_name(def->spec.keys.mode));
	values[5] = Int64GetDatum((int64) def->spec.seed);
	values[6] = Int32GetDatum(def->spec.fieldlength);
	values[7] = CStringGetTextDatum(def->spec.keys.prefix);
	values[8] = Int32GetDatum(def->spec.keys.zeropadding);
	values[9] = Int64GetDatum(def->disk_reserve);
	values[10] = Int64GetDatum(def->max_rate);
	values[11] = ObjectIdGetDatum(def->owner);
	values[12] = BoolGetDatum(def->frozen);
	values[13] = CStringGetTextDatum(def->indexes_after ? "after" : "maintain");
	values[14] = CStringGetTextDatum(def->leaf_method ? "leaf" : "chunk");
	values[15] = Int64GetDatum(def->route_token);
	values[16] = CStringGetTextDatum(def->method_reason ? def->method_reason : "");
	if (def->disk_reserve < 0)
		nulls[9] = 'n';
	if (def->max_rate <= 0)
		nulls[10] = 'n';
	if (!def->leaf_method)
		nulls[15] = 'n';
	catalog_connect(&scope, true);
	if (def->method_reason != NULL)
		catalog_exec(LEDGER_INSERT_JOB(", method, route_token, method_reason",
									   ", $15, $16, $17"), 17,
					 types, values, nulls, SPI_OK_INSERT_RETURNING);
	else
		catalog_exec(LEDGER_INSERT_JOB("", ""), 14, types, values, nulls,
					 SPI_OK_INSERT_RETURNING);
	def->job = ledger_int8(1);
	catalog_finish(&scope);
	def->run = 1;
}

/*
 * Run one write on a job's row: $1 is the job, then the arguments given;
 * returns the number of rows written.
 */
/* Does petagen's table `table` have column `column` (a 0.1 catalog may not)? */
static bool
ledger_has_column(const char *table, const char *column)
{
	Oid			relid = get_relname_relid(table, get_namespace_oid("petagen", false));

	return get_attnum(relid, column) != InvalidAttrNumber;
}

static uint64
ledger_update_job(const char *sql, int nargs, Oid *types, Datum *values)
{
	CatalogScope scope;
	uint64		n;

	catalog_connect(&scope, true);
	n = catalog_exec(sql, nargs, types, values, NULL, SPI_OK_UPDATE);
	catalog_finish(&scope);
	return n;
}

/* Store the handle of a run's shared state as it starts. */
void
ledger_set_handle(int64 job, dsm_handle handle)
{
	Oid			types[2] = {INT8OID, INT8OID};
	Datum		values[2] = {Int64GetDatum(job), Int64GetDatum((int64) handle)};

	/* started_at keeps the first run's start; a 0.1 catalog has no run_started_at */
	ledger_update_job(ledger_has_column("jobs", "run_started_at") ?
					  "UPDATE petagen.jobs SET dsm_handle = $2,"
					  " started_at = coalesce(started_at, pg_catalog.now()),"
					  " run_started_at = pg_catalog.now() WHERE job = $1" :
					  "UPDATE petagen.jobs SET dsm_handle = $2,"
					  " started_at = coalesce(started_at, pg_catalog.now())"
					  " WHERE job = $1",
					  2, types, values);
}

/*
 * Record a new run (def's run and nworkers) of def's job; read back into
 * def the max_rate and disk_reserve of the row as updated, so that the run
 * takes those of an alter() that committed while this waited for the row.
 */
void
ledger_resume_run(JobDef *def)
{
	Oid			types[3] = {INT8OID, INT4OID, INT4OID};
	Datum		values[3] = {Int64GetDatum(def->job), Int32GetDatum(def->run),
	Int32GetDatum(def->nworkers)};
	bool		isnull;
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* forget() may have removed the row since resume() read it */
	if (catalog_exec("UPDATE petagen.jobs SET state = 'running', run = $2,"
					 " workers = $3, finished_at = NULL WHERE job = $1"
					 " RETURNING max_rate, disk_reserve",
					 3, types, values, NULL, SPI_OK_UPDATE_RETURNING) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("load job " INT64_FORMAT " does not exist", def->job),
				 errdetail("It was removed with petagen.forget() while it was being resumed.")));
	def->max_rate = ledger_int8(1);
	def->disk_reserve = DatumGetInt64(catalog_value(0, 2, &isnull));
	if (isnull)
		def->disk_reserve = -1;
	catalog_finish(&scope);
}

/*
 * Change a job's workers, max_rate (0: no cap) and disk_reserve; a
 * negative value leaves the column as it is.
 */
void
ledger_alter_job(int64 job, int32 nworkers, int64 max_rate, int64 disk_reserve)
{
	Oid			types[4] = {INT8OID, INT4OID, INT8OID, INT8OID};
	Datum		values[4] = {Int64GetDatum(job), Int32GetDatum(nworkers),
	Int64GetDatum(max_rate), Int64GetDatum(disk_reserve)};
	char		nulls[4] = {' ', nworkers < 0 ? 'n' : ' ', max_rate < 0 ? 'n' : ' ',
	disk_reserve < 0 ? 'n' : ' '};
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* the catalog has no cap as NULL, as start() records it */
	catalog_exec("UPDATE petagen.jobs SET workers = coalesce($2, workers),"
				 " max_rate = CASE WHEN $3 IS NULL THEN max_rate"
				 " ELSE NULLIF($3, 0) END,"
				 " disk_reserve = coalesce($4, disk_reserve) WHERE job = $1",
				 4, types, values, nulls, SPI_OK_UPDATE);
	catalog_finish(&scope);
}

/* Record that a job with no worker left was stopped. */
void
ledger_mark_stopped(int64 job)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};

	ledger_update_job("UPDATE petagen.jobs SET state = 'stopped',"
					  " finished_at = pg_catalog.now()"
					  " WHERE job = $1 AND state = 'running'", 1, types, values);
}


/* Record the end of a run (its final state's name) in petagen.jobs and a last progress_log row. */
void
ledger_record_end(int64 job, int32 run, const char *state, const char *error)
{
	Oid			types[4] = {INT8OID, INT4OID, TEXTOID, TEXTOID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', error ? ' ' : 'n'};
	bool		phases;
	CatalogScope scope;

	values[0] = Int64GetDatum(job);
	values[1] = Int32GetDatum(run);
	values[2] = CStringGetTextDatum(state);
	values[3] = error ? CStringGetTextDatum(error) : (Datum) 0;
	catalog_connect(&scope, true);
	catalog_exec("UPDATE petagen.jobs SET state = $3,"
				 " finished_at = pg_catalog.now(),"
				 " last_error = coalesce($4, last_error),"
				 " last_error_at = CASE WHEN $4 IS NULL THEN last_error_at"
				 " ELSE pg_catalog.now() END"
				 " WHERE job = $1 AND run = $2",
				 4, types, values, nulls, SPI_OK_UPDATE);
	/* a last progress_log row, so the history ends where the job did, and how */
	phases = ledger_has_column("progress_log", "phase");
	catalog_exec(psprintf("INSERT INTO petagen.progress_log (job, keys_done,"
						  " rows_written, bytes, logged_at%s)"
						  " SELECT $1, coalesce(sum(keys), 0), coalesce(sum(rows_written), 0),"
						  " coalesce(sum(bytes), 0), pg_catalog.clock_timestamp()%s"
						  " FROM petagen.chunks WHERE job = $1",
						  phases ? ", phase" : "", phases ? ", $3" : ""),
				 phases ? 3 : 1, types, values, nulls, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/* Sum the ledger of a job and read its last run and last error into sum. */
void
ledger_summary(int64 job, LedgerSummary *sum)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	bool		isnull;
	Datum		d;
	CatalogScope scope;

	memset(sum, 0, sizeof(*sum));
	catalog_connect(&scope, false);
	catalog_exec("SELECT coalesce(sum(c.keys), 0)::int8,"
				 " coalesce(sum(c.rows_written), 0)::int8,"
				 " coalesce(sum(c.bytes), 0)::int8,"
				 " coalesce(sum(c.duplicates), 0)::int8,"
				 " extract(epoch FROM j.finished_at - coalesce((to_jsonb(j)"
				 " ->> 'run_started_at')::timestamptz, j.started_at))::float8,"
				 " coalesce(sum(c.rows_written) FILTER (WHERE c.run = j.run), 0)::float8,"
				 " coalesce(sum(c.bytes) FILTER (WHERE c.run = j.run), 0)::float8,"
				 " j.last_error, j.last_error_at, j.started_at, j.finished_at"
				 " FROM petagen.jobs j LEFT JOIN petagen.chunks c USING (job)"
				 " WHERE j.job = $1 GROUP BY j.job",
				 1, types, values, NULL, SPI_OK_SELECT);
	if (SPI_processed > 0)
	{
		char	   *err = catalog_text(0, 8, CurrentMemoryContext);

		sum->keys = ledger_int8(1);
		sum->rows = ledger_int8(2);
		sum->bytes = ledger_int8(3);
		sum->duplicates = ledger_int8(4);
		d = catalog_value(0, 5, &isnull);
		sum->run_seconds = isnull ? 0 : DatumGetFloat8(d);
		sum->run_rows = DatumGetFloat8(catalog_value(0, 6, &isnull));
		sum->run_bytes = DatumGetFloat8(catalog_value(0, 7, &isnull));
		if (err)
			strlcpy(sum->last_error, err, JOB_TEXT_LEN);
		d = catalog_value(0, 9, &isnull);
		sum->last_error_at = isnull ? 0 : DatumGetTimestampTz(d);
		d = catalog_value(0, 10, &isnull);
		sum->started_at = isnull ? 0 : DatumGetTimestampTz(d);
		d = catalog_value(0, 11, &isnull);
		sum->finished_at = isnull ? 0 : DatumGetTimestampTz(d);
	}
	catalog_finish(&scope);
}

/*
 * Insert the ledger row of a chunk a worker finished, in its transaction;
 * a leaf job's chunk is local leaf number `chunk`, relation leaf (else
 * InvalidOid).
 */
void
ledger_record_chunk(const JobDef *def, int32 worker, int64 chunk,
					Oid leaf, const LoadStats *st)
{
	Oid			types[10] = {INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID,
	INT8OID, INT4OID, INT4OID, OIDOID};
	Datum		values[10];
	CatalogScope scope;

	values[0] = Int64GetDatum(def->job);
	values[1] = Int64GetDatum(chunk);
	values[2] = Int64GetDatum(st->keys);
	values[3] = Int64GetDatum(st->rows);
	values[4] = Int64GetDatum(st->bytes);
	values[5] = Int64GetDatum(st->duplicates);
	values[6] = Int64GetDatum(st->foreign);
	values[7] = Int32GetDatum(worker);
	values[8] = Int32GetDatum(def->run);
	values[9] = ObjectIdGetDatum(leaf);
	catalog_connect(&scope, true);
	/* only a leaf job names the leaf column (a 0.1 catalog has none) */
	if (OidIsValid(leaf))
		catalog_exec("INSERT INTO petagen.chunks (job, chunk, keys, rows_written,"
					 " bytes, duplicates, foreign_skipped, worker, run, leaf)"
					 " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
					 10, types, values, NULL, SPI_OK_INSERT);
	else
		catalog_exec("INSERT INTO petagen.chunks (job, chunk, keys, rows_written,"
					 " bytes, duplicates, foreign_skipped, worker, run)"
					 " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
					 9, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/*
 * Add a progress_log row with the job's live totals, stamped now, in the
 * current transaction; phase: what the job is doing (routing, loading,
 * indexing).
 */
void
ledger_log_progress(int64 job, const LoadStats *live, const char *phase)
{
	Oid			types[5] = {INT8OID, INT8OID, INT8OID, INT8OID, TEXTOID};
	Datum		values[5] = {Int64GetDatum(job), Int64GetDatum(live->keys),
		Int64GetDatum(live->rows), Int64GetDatum(live->bytes),
		CStringGetTextDatum(phase)};
	bool		phases;
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* logged_at: the moment of these totals, not when the transaction began */
	phases = ledger_has_column("progress_log", "phase");
	catalog_exec(psprintf("INSERT INTO petagen.progress_log (job, keys_done,"
						  " rows_written, bytes, logged_at%s)"
						  " VALUES ($1, $2, $3, $4, pg_catalog.clock_timestamp()%s)",
						  phases ? ", phase" : "", phases ? ", $5" : ""),
				 phases ? 5 : 4, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
}

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
		bool		isnull;
		int64		chunk = DatumGetInt64(catalog_value(i, 1, &isnull));

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
		int64		chunk = DatumGetInt64(catalog_value(i, 1, &isnull));
		Oid			leaf = DatumGetObjectId(catalog_value(i, 2, &isnull));

		if (chunk < 0 || chunk >= nleaves || leaves[chunk] != leaf)
		{
			moved = chunk;
			*was = leaf;
		}
	}
	catalog_finish(&scope);
	return moved;
}

/* The int8 that query sql ($1: job) returns about job's ledger. */
static int64
ledger_job_int8(const char *sql, int64 job)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	int64		n;
	CatalogScope scope;

	catalog_connect(&scope, false);
	catalog_exec(sql, 1, types, values, NULL, SPI_OK_SELECT);
	n = ledger_int8(1);
	catalog_finish(&scope);
	return n;
}

/* The number of chunks of job in the ledger. */
int64
ledger_count_chunks(int64 job)
{
	return ledger_job_int8("SELECT count(*) FROM petagen.chunks WHERE job = $1", job);
}

/* Run sql, whose $1 is job, as the catalog owner; it must return expect. */
static void
ledger_exec_job(const char *sql, int64 job, int expect)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_exec(sql, 1, types, values, NULL, expect);
	catalog_finish(&scope);
}

/*
 * Lock job's row of petagen.jobs, if there is one, until the transaction
 * ends, so that no resume(), alter() or worker changes it meanwhile.  FOR
 * NO KEY UPDATE: a running worker's uncommitted ledger and progress_log
 * rows hold KEY SHARE locks on the row (their foreign keys), which must
 * not make the caller wait for a job it is about to refuse as running.
 */
void
ledger_lock_job(int64 job)
{
	ledger_exec_job("SELECT FROM petagen.jobs WHERE job = $1 FOR NO KEY UPDATE",
					job, SPI_OK_SELECT);
}

/* One more than the highest chunk number of job in the ledger (0 if none). */
int64
ledger_chunk_bound(int64 job)
{
	return ledger_job_int8("SELECT COALESCE(max(chunk) + 1, 0) FROM petagen.chunks"
						   " WHERE job = $1", job);
}

/*
 * Delete job's row of petagen.jobs: every table that names a job
 * (chunks, progress_log, chunk_intents, job_indexes, job_shards) references
 * it ON DELETE CASCADE, so its rows there go with it.
 */
void
ledger_delete_job(int64 job)
{
	ledger_exec_job("DELETE FROM petagen.jobs WHERE job = $1", job, SPI_OK_DELETE);
}

/*
 * When a job was last seen making progress: its run's start, its last
 * chunk or its last progress_log row, whichever is latest.
 */
#define LEDGER_LAST_PROGRESS \
	"GREATEST(j.started_at," \
	" (SELECT max(c.finished_at) FROM petagen.chunks c WHERE c.job = j.job)," \
	" (SELECT max(p.logged_at) FROM petagen.progress_log p WHERE p.job = j.job))"

/*
 * Record that job, running in the catalog with no live run, was
 * interrupted for reason, at its last progress; returns that time as
 * text (NULL if not recorded: a 0.1 catalog has no column for it).
 */
char *
ledger_record_interruption(int64 job, const char *reason)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2] = {Int64GetDatum(job), CStringGetTextDatum(reason)};
	char	   *at = NULL;
	CatalogScope scope;

	if (!ledger_has_column("jobs", "interrupted_reason"))
		return NULL;
	catalog_connect(&scope, true);
	if (catalog_exec("UPDATE petagen.jobs j SET interrupted_at = " LEDGER_LAST_PROGRESS ","
					 " interrupted_reason = $2 WHERE job = $1 AND state = 'running'"
					 " RETURNING interrupted_at::timestamptz(0)::text",
					 2, types, values, NULL, SPI_OK_UPDATE_RETURNING) > 0)
		at = catalog_text(0, 1, cxt);
	catalog_finish(&scope);
	return at;
}

/*
 * Into buf: why and when job's run was interrupted, as recorded for it
 * since its last progress; empty if nothing was.
 */
void
ledger_interruption(int64 job, char *buf, Size len)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	char	   *reason;
	CatalogScope scope;

	buf[0] = '\0';
	catalog_connect(&scope, false);
	/* a 0.1 catalog has no such columns: to_jsonb() reads NULL */
	if (catalog_exec("SELECT r.reason || ', last progress at ' || r.at::timestamptz(0)"
					 " FROM petagen.jobs j, LATERAL (SELECT"
					 " to_jsonb(j) ->> 'interrupted_reason',"
					 " (to_jsonb(j) ->> 'interrupted_at')::timestamptz) r(reason, at)"
					 " WHERE j.job = $1 AND r.at >= " LEDGER_LAST_PROGRESS,
					 1, types, values, NULL, SPI_OK_SELECT) > 0 &&
		(reason = catalog_text(0, 1, CurrentMemoryContext)) != NULL)
		strlcpy(buf, reason, len);
	catalog_finish(&scope);
}
