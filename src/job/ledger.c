/*-------------------------------------------------------------------------
 * ledger.c
 *		Every statement petagen runs on the catalog of load jobs, in one
 *		file read from top to bottom: the job rows of petagen.jobs, the
 *		ledger proper (petagen.chunks) and petagen.progress_log, and the
 *		Citus shards a job writes on this node (petagen.job_shards).
 *		Declared in ledger.h.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "gen/keys.h"
#include "job/job.h"
#include "job/ledger.h"
#include "load/load.h"
#include "route/citus_meta.h"

/*
 * --------------------------------------------------------------------
 * The job rows: every statement on petagen.jobs (one row per job),
 * from start()'s INSERT to forget()'s DELETE, and the last
 * progress_log row a run's end adds.  The chunks and the progress a
 * running load records follow them below; all are declared
 * in ledger.h.
 *
 * Reads run as the current role; writes as the catalog owner (catalog.c),
 * so that roles need no more than SELECT on these tables and every row in
 * them was written by petagen.  Every statement runs with search_path
 * pinned, and reads its result columns and fills its parameters by name
 * (the Anum_ and Arg_ enums beside it).  The other catalog tables have one
 * owner each as well: chunk_intents is frozen.c's, job_indexes
 * table.c's, job_shards this file's (the last part), bench_results bench_results.c's
 * and bench.c's.
 * --------------------------------------------------------------------
 */

/* The int8 one column of the first n result rows, in an array in cxt. */
static int64 *
ledger_int8_rows(int n, MemoryContext cxt)
{
	int64	   *values = MemoryContextAlloc(cxt, sizeof(int64) * Max(n, 1));

	for (int i = 0; i < n; i++)
		values[i] = catalog_int8(i, CATALOG_ONLY_COLUMN);
	return values;
}

/* job_read()'s target list: these, then the settings (ledger_select_job()). */
enum
{
	Anum_job_read_run = 1,
	Anum_job_read_state,
	Anum_job_read_dsm_handle,
	Anum_job_read_xmin,
	JOB_READ_FIXED = Anum_job_read_xmin
};

/* Does setting s have a column in petagen.jobs? */
static bool
ledger_has_column(JobSetting s)
{
	return job_settings[s].kind != JS_KIND_ARG;
}

/* Does the catalog hold setting s's column (a 0.1 catalog lacks 0.2's)? */
static bool
ledger_column_present(JobSetting s)
{
	return ledger_has_column(s) &&
		(int) job_settings[s].since <= (int) catalog_version();
}

/* The parameter type of setting s's column. */
static Oid
ledger_setting_type(JobSetting s)
{
	switch (job_settings[s].kind)
	{
		case JS_KIND_INT4:
			return INT4OID;
		case JS_KIND_INT8:
		case JS_KIND_OPT8:
			return INT8OID;
		case JS_KIND_OID:
			return OIDOID;
		case JS_KIND_BOOL:
			return BOOLOID;
		default:
			return TEXTOID;
	}
}

/*
 * job_read()'s query: the fixed columns, then each setting read back
 * (its column, or on a catalog without it the column's default); col[s]
 * is setting s's result column, 0 if none.
 */
static char *
ledger_select_job(int *col)
{
	StringInfoData sql;
	int			n = JOB_READ_FIXED;

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT run, state, dsm_handle, xmin");
	for (int s = 0; s < JOB_NSETTINGS; s++)
	{
		col[s] = 0;
		if (!ledger_has_column(s) || job_settings[s].kind == JS_KIND_NOTE)
			continue;
		col[s] = ++n;
		if (ledger_column_present(s))
			appendStringInfo(&sql, ", j.%s", quote_identifier(job_settings[s].name));
		else
			appendStringInfo(&sql, ", (%s)::%s", job_settings[s].dflt,
							 format_type_be(ledger_setting_type(s)));
	}
	appendStringInfoString(&sql, " FROM petagen.jobs j WHERE job = $1");
	return sql.data;
}

/*
 * Setting s of def from column col of the first result row, by its kind;
 * the generation settings are read whole by ledger_fill_spec().
 */
static void
ledger_get_setting(JobDef *def, JobSetting s, int col, MemoryContext cxt)
{
	const JobSettingDesc *d = &job_settings[s];
	char	   *member = (char *) def + d->offset;
	bool		isnull;
	Datum		value = catalog_value(0, col, &isnull);

	switch (d->kind)
	{
		case JS_KIND_INT4:
			*(int32 *) member = isnull ? 0 : DatumGetInt32(value);
			break;
		case JS_KIND_INT8:
			*(int64 *) member = isnull ? 0 : DatumGetInt64(value);
			break;
		case JS_KIND_OPT8:
			*(int64 *) member = isnull ? d->none : DatumGetInt64(value);
			break;
		case JS_KIND_OID:
			*(Oid *) member = isnull ? InvalidOid : DatumGetObjectId(value);
			break;
		case JS_KIND_BOOL:
			*(bool *) member = !isnull && DatumGetBool(value);
			break;
		case JS_KIND_TEXT:
			*(char **) member = catalog_text(0, col, cxt);
			break;
		case JS_KIND_INDEXES:
			*(bool *) member = strcmp(catalog_text(0, col, cxt), "after") == 0;
			break;
		case JS_KIND_METHOD:
			*(const LoadMethod **) member = load_method_find(catalog_text(0, col, cxt));
			break;
		case JS_KIND_ARG:
		case JS_KIND_NOTE:
		case JS_KIND_KEYS:
		case JS_KIND_PREFIX:
		case JS_KIND_FIELDDIST:
			break;
	}
}

/*
 * def's generation spec, its numbers already read, validated whole with
 * the texts of columns col[] of the first result row.
 */
static void
ledger_fill_spec(JobDef *def, const int *col, MemoryContext cxt)
{
	int			minfieldlength = def->spec.minfieldlength;

	spec_init(&def->spec, catalog_text(0, col[JS_keys], cxt),
			  catalog_text(0, col[JS_prefix], cxt),
			  def->spec.keys.zeropadding, (int64) def->spec.seed,
			  def->spec.fieldlength);
	spec_set_lengths(&def->spec,
					 catalog_text(0, col[JS_fieldlengthdistribution], cxt),
					 minfieldlength);
	/* the key kind is the table's: its ycsb_key type decides it */
	keys_adopt_kind(&def->spec.keys, shape_key_kind(def->relid));
}

/* Fill def from the first result row of job_read()'s query (col[] as it made). */
static void
ledger_fill_def(int64 job, JobDef *def, const int *col, MemoryContext cxt)
{
	bool		isnull;
	char	   *state;

	MemoryContextSwitchTo(cxt);
	def->job = job;
	for (int s = 0; s < JOB_NSETTINGS; s++)
		if (col[s] > 0)
			ledger_get_setting(def, s, col[s], cxt);
	ledger_fill_spec(def, col, cxt);
	def->run = DatumGetInt32(catalog_value(0, Anum_job_read_run, &isnull));
	state = catalog_text(0, Anum_job_read_state, cxt);
	strlcpy(def->state, state ? state : "", sizeof(def->state));
	def->handle = (dsm_handle) DatumGetInt64(catalog_value(0, Anum_job_read_dsm_handle, &isnull));
	if (isnull)
		def->handle = DSM_HANDLE_INVALID;
	def->ours = TransactionIdIsCurrentTransactionId(DatumGetTransactionId(catalog_value(0, Anum_job_read_xmin, &isnull)));
}

/* Read job `job` from petagen.jobs into def; false if missing and missing_ok. */
bool
job_read(int64 job, JobDef *def, bool missing_ok)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	int			col[JOB_NSETTINGS];
	CatalogScope scope;

	catalog_connect(&scope, false);
	if (catalog_exec(ledger_select_job(col), 1, types, values, NULL,
					 SPI_OK_SELECT) == 0)
	{
		catalog_finish(&scope);
		if (missing_ok)
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("load job " INT64_FORMAT " does not exist", job),
				 errhint("SELECT job, \"table\", state FROM petagen.jobs lists the jobs.")));
	}
	ledger_fill_def(job, def, col, cxt);
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

	/* a 0.1 catalog has no leaf jobs: no route_token column */
	if (catalog_version() == CATALOG_V0_1)
	{
		*ntokens = 0;
		return ledger_int8_rows(0, cxt);
	}
	catalog_connect(&scope, false);
	*ntokens = (int) catalog_exec("SELECT route_token FROM petagen.jobs j"
								  " WHERE route_token IS NOT NULL"
								  " AND state IN ('running', 'failed', 'stopped')"
								  " AND EXISTS (SELECT FROM pg_catalog.pg_class c"
								  " WHERE c.oid = j.\"table\")",
								  0, NULL, NULL, NULL, SPI_OK_SELECT);
	tokens = ledger_int8_rows(*ntokens, cxt);
	catalog_finish(&scope);
	return tokens;
}

/* The target list of the statements below that find a job: it, then its table. */
enum
{
	Anum_job_ref_job = 1,
	Anum_job_ref_table,
};

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
		job = catalog_int8(0, Anum_job_ref_job);
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
		*other_job = catalog_int8(0, Anum_job_ref_job);
		*other_relid = DatumGetObjectId(catalog_value(0, Anum_job_ref_table, &isnull));
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
		other = catalog_int8(0, Anum_job_ref_job);
		*other_relid = DatumGetObjectId(catalog_value(0, Anum_job_ref_table, &isnull));
	}
	catalog_finish(&scope);
	return other;
}

/*
 * Setting s of def as its column's value, by its kind; *null set to 'n'
 * for NULL, else ' '.
 */
static Datum
ledger_put_setting(const JobDef *def, JobSetting s, char *null)
{
	const JobSettingDesc *d = &job_settings[s];
	const char *member = (const char *) def + d->offset;
	const char *text;

	*null = ' ';
	switch (d->kind)
	{
		case JS_KIND_INT4:
			return Int32GetDatum(*(const int32 *) member);
		case JS_KIND_INT8:
			return Int64GetDatum(*(const int64 *) member);
		case JS_KIND_OPT8:
			if (*(const int64 *) member == d->none)
				*null = 'n';
			return Int64GetDatum(*(const int64 *) member);
		case JS_KIND_OID:
			return ObjectIdGetDatum(*(const Oid *) member);
		case JS_KIND_BOOL:
			return BoolGetDatum(*(const bool *) member);
		case JS_KIND_TEXT:
		case JS_KIND_NOTE:
			text = *(char *const *) member;

			break;
		case JS_KIND_KEYS:
			text = keys_mode_name(*(const KeyMode *) member);

			break;
		case JS_KIND_PREFIX:
			text = member;

			break;
		case JS_KIND_FIELDDIST:
			text = spec_fielddist_name(*(const FieldLengthDist *) member);

			break;
		case JS_KIND_INDEXES:
			text = *(const bool *) member ? "after" : "maintain";

			break;
		case JS_KIND_METHOD:
			text = (*(const LoadMethod *const *) member)->name;

			break;
		default:
			elog(ERROR, "petagen: setting \"%s\" has no column", d->name);
	}
	if (text == NULL)
		*null = 'n';
	return text ? CStringGetTextDatum(text) : (Datum) 0;
}

/*
 * Insert def's row into petagen.jobs as its first run, every setting the
 * catalog has a column for; sets def->job.
 */
void
ledger_insert_job(JobDef *def)
{
	Oid			types[JOB_NSETTINGS];
	Datum		values[JOB_NSETTINGS];
	char		nulls[JOB_NSETTINGS];
	int			n = 0;
	StringInfoData cols;
	StringInfoData params;
	CatalogScope scope;

	initStringInfo(&cols);
	initStringInfo(&params);
	for (int s = 0; s < JOB_NSETTINGS; s++)
	{
		if (!ledger_column_present(s))
			continue;
		types[n] = ledger_setting_type(s);
		values[n] = ledger_put_setting(def, s, &nulls[n]);
		appendStringInfo(&cols, "%s%s", n > 0 ? ", " : "",
						 quote_identifier(job_settings[s].name));
		appendStringInfo(&params, "%s$%d", n > 0 ? ", " : "", n + 1);
		n++;
	}
	catalog_connect(&scope, true);
	catalog_exec(psprintf("INSERT INTO petagen.jobs (%s) VALUES (%s) RETURNING job",
						  cols.data, params.data),
				 n, types, values, nulls, SPI_OK_INSERT_RETURNING);
	def->job = catalog_int8(0, CATALOG_ONLY_COLUMN);
	catalog_finish(&scope);
	def->run = 1;
}

/*
 * Run one write on a job's row: $1 is the job, then the arguments given;
 * returns the number of rows written.
 */
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

	/*
	 * started_at keeps the first run's start; a 0.1 catalog has no
	 * run_started_at
	 */
	ledger_update_job(catalog_version() >= CATALOG_V0_2 ?
					  "UPDATE petagen.jobs SET dsm_handle = $2,"
					  " started_at = coalesce(started_at, pg_catalog.now()),"
					  " run_started_at = pg_catalog.now() WHERE job = $1" :
					  "UPDATE petagen.jobs SET dsm_handle = $2,"
					  " started_at = coalesce(started_at, pg_catalog.now())"
					  " WHERE job = $1",
					  2, types, values);
}

/* ledger_resume_run()'s RETURNING list. */
enum
{
	Anum_resume_max_rate = 1,
	Anum_resume_disk_reserve,
};

/*
 * Record a new run (def's run and nworkers) of def's job; read back into
 * def the max_rate and disk_reserve of the row as updated, so that the run
 * takes those of an alter() that committed while this waited for the row.
 * The last failure's SQLSTATE and the retry decided on it go (a 0.2
 * catalog's); with fresh_retries, so do the retries made: a resume by a
 * person gives the job petagen.auto_retry's retries again.
 */
void
ledger_resume_run(JobDef *def, bool fresh_retries)
{
	Oid			types[3] = {INT8OID, INT4OID, INT4OID};
	Datum		values[3] = {Int64GetDatum(def->job), Int32GetDatum(def->run),
	Int32GetDatum(def->nworkers)};
	bool		isnull;
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* forget() may have removed the row since resume() read it */
	if (catalog_exec(psprintf("UPDATE petagen.jobs SET state = 'running', run = $2,"
							  " workers = $3, finished_at = NULL%s%s WHERE job = $1"
							  " RETURNING max_rate, disk_reserve",
							  catalog_version() >= CATALOG_V0_2 ?
							  ", failed_sqlstate = NULL, next_retry_at = NULL" : "",
							  catalog_version() >= CATALOG_V0_2 && fresh_retries ?
							  ", retries = 0" : ""),
					 3, types, values, NULL, SPI_OK_UPDATE_RETURNING) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("load job " INT64_FORMAT " does not exist", def->job),
				 errdetail("It was removed with petagen.forget() while it was being resumed.")));
	def->max_rate = catalog_int8(0, Anum_resume_max_rate);
	def->disk_reserve = DatumGetInt64(catalog_value(0, Anum_resume_disk_reserve, &isnull));
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

/*
 * The parameters of a run's end: values[Arg_end_x] is $(x + 1); the last
 * progress_log row takes the job and, as its phase, the state.
 */
enum
{
	Arg_end_job,
	Arg_end_run,
	Arg_end_state,
	Arg_end_error,
	Arg_end_sqlstate,			/* a 0.2 catalog's only */
	END_NARGS
};

/*
 * Record the end of a run (its final state's name) in petagen.jobs and a
 * last progress_log row; sqlerrcode: the failure's SQLSTATE, 0 if none.
 */
void
ledger_record_end(int64 job, int32 run, const char *state, const char *error,
				  int sqlerrcode)
{
	Oid			types[END_NARGS] = {
		[Arg_end_job] = INT8OID,
		[Arg_end_run] = INT4OID,
		[Arg_end_state] = TEXTOID,
		[Arg_end_error] = TEXTOID,
		[Arg_end_sqlstate] = TEXTOID,
	};
	Datum		values[END_NARGS] = {
		[Arg_end_job] = Int64GetDatum(job),
		[Arg_end_run] = Int32GetDatum(run),
		[Arg_end_state] = CStringGetTextDatum(state),
		[Arg_end_error] = error ? CStringGetTextDatum(error) : (Datum) 0,
		[Arg_end_sqlstate] = sqlerrcode ?
		CStringGetTextDatum(unpack_sql_state(sqlerrcode)) : (Datum) 0,
	};
	char		nulls[END_NARGS] = {
		[Arg_end_job] = ' ',
		[Arg_end_run] = ' ',
		[Arg_end_state] = ' ',
		[Arg_end_error] = error ? ' ' : 'n',
		[Arg_end_sqlstate] = sqlerrcode ? ' ' : 'n',
	};
	bool		phases = catalog_version() >= CATALOG_V0_2;
	CatalogScope scope;

	catalog_connect(&scope, true);
	/* a 0.2 catalog keeps the SQLSTATE for petagen.auto_retry (autoresume.c) */
	catalog_exec(psprintf("UPDATE petagen.jobs SET state = $3,"
						  " finished_at = pg_catalog.now(),"
						  " last_error = coalesce($4, last_error),"
						  " last_error_at = CASE WHEN $4 IS NULL THEN last_error_at"
						  " ELSE pg_catalog.now() END%s"
						  " WHERE job = $1 AND run = $2",
						  phases ? ", failed_sqlstate = $5, next_retry_at = NULL" : ""),
				 phases ? END_NARGS : Arg_end_error + 1, types, values, nulls,
				 SPI_OK_UPDATE);
	/* a last progress_log row, so the history ends where the job did, and how */
	catalog_exec(psprintf("INSERT INTO petagen.progress_log (job, keys_done,"
						  " rows_written, bytes, logged_at%s)"
						  " SELECT $1, coalesce(sum(keys), 0), coalesce(sum(rows_written), 0),"
						  " coalesce(sum(bytes), 0), pg_catalog.clock_timestamp()%s"
						  " FROM petagen.chunks WHERE job = $1",
						  phases ? ", phase" : "", phases ? ", $3" : ""),
				 phases ? Arg_end_state + 1 : Arg_end_job + 1, types, values,
				 nulls, SPI_OK_INSERT);
	catalog_finish(&scope);
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

/* ledger_failed_jobs()' target list. */
enum
{
	Anum_failed_job = 1,
	Anum_failed_owner,
	Anum_failed_sqlstate,
	Anum_failed_error,
	Anum_failed_retries,
	Anum_failed_scheduled,
	Anum_failed_interrupted,
};

/*
 * The jobs of a 0.2 catalog that petagen.auto_retry may retry, in job
 * order: failed, or interrupted with a resume refused (running in the
 * catalog: the caller skips those with a live run), whose failure or
 * refusal has an SQLSTATE, and whose retry is not decided yet, or due.
 */
LedgerFailedJob *
ledger_failed_jobs(int *njobs)
{
	MemoryContext cxt = CurrentMemoryContext;
	LedgerFailedJob *jobs;
	CatalogScope scope;

	catalog_connect(&scope, false);
	*njobs = catalog_exec("SELECT job, started_by::oid, failed_sqlstate,"
						  " coalesce(last_error, ''), retries::int8, next_retry_at IS NOT NULL,"
						  " state = 'running'"
						  " FROM petagen.jobs WHERE state IN ('failed', 'running')"
						  " AND failed_sqlstate IS NOT NULL"
						  " AND (next_retry_at IS NULL OR next_retry_at <= pg_catalog.now())"
						  " ORDER BY job", 0, NULL, NULL, NULL, SPI_OK_SELECT);
	jobs = MemoryContextAllocZero(cxt, sizeof(LedgerFailedJob) * Max(*njobs, 1));
	for (int i = 0; i < *njobs; i++)
	{
		LedgerFailedJob *f = &jobs[i];
		char	   *code = catalog_text(i, Anum_failed_sqlstate, cxt);
		bool		isnull;

		f->job = catalog_int8(i, Anum_failed_job);
		f->owner = DatumGetObjectId(catalog_value(i, Anum_failed_owner, &isnull));
		f->sqlerrcode = strlen(code) == 5 ?
			MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4]) :
			ERRCODE_INTERNAL_ERROR;
		strlcpy(f->error, catalog_text(i, Anum_failed_error, cxt), JOB_TEXT_LEN);
		f->retries = (int32) catalog_int8(i, Anum_failed_retries);
		f->scheduled = DatumGetBool(catalog_value(i, Anum_failed_scheduled, &isnull));
		f->interrupted = DatumGetBool(catalog_value(i, Anum_failed_interrupted, &isnull));
	}
	catalog_finish(&scope);
	return jobs;
}

/*
 * Set the retries and the next retry (0: none decided, DT_NOEND: never) of
 * a failed job, or of an interrupted one whose resume was refused, as the
 * catalog owner.
 */
void
ledger_set_retry(int64 job, int32 retries, TimestampTz next)
{
	Oid			types[3] = {INT8OID, INT4OID, TIMESTAMPTZOID};
	Datum		values[3] = {Int64GetDatum(job), Int32GetDatum(retries),
	TimestampTzGetDatum(next)};
	char		nulls[3] = {' ', ' ', next == 0 ? 'n' : ' '};
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_exec("UPDATE petagen.jobs SET retries = $2, next_retry_at = $3"
				 " WHERE job = $1 AND state IN ('failed', 'running')",
				 3, types, values, nulls, SPI_OK_UPDATE);
	catalog_finish(&scope);
}

/*
 * Record that the launcher's resume of a failed or interrupted job was
 * refused, with the refusal's SQLSTATE and error, for petagen.auto_retry
 * to decide on as on a failure; a 0.1 catalog has no column for it.
 */
void
ledger_record_refusal(int64 job, int sqlerrcode, const char *error)
{
	Oid			types[3] = {INT8OID, TEXTOID, TEXTOID};
	Datum		values[3] = {Int64GetDatum(job),
		CStringGetTextDatum(unpack_sql_state(sqlerrcode)),
	CStringGetTextDatum(error)};

	if (catalog_version() == CATALOG_V0_1)
		return;
	ledger_update_job("UPDATE petagen.jobs SET failed_sqlstate = $2,"
					  " last_error = $3, last_error_at = pg_catalog.now(),"
					  " next_retry_at = NULL"
					  " WHERE job = $1 AND state IN ('failed', 'running')",
					  3, types, values);
}

/* ledger_delete_job()'s target list. */
enum
{
	Anum_delete_chunks = 1,
	Anum_delete_progress,
};

/*
 * Delete job's row of petagen.jobs: every table that names a job
 * (chunks, progress_log, chunk_intents, job_indexes, job_shards) references
 * it ON DELETE CASCADE, so its rows there go with it.  *chunks and
 * *progress: the chunks and progress_log rows that went.
 */
void
ledger_delete_job(int64 job, int64 *chunks, int64 *progress)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_exec("DELETE FROM petagen.jobs j WHERE job = $1 RETURNING"
				 " (SELECT pg_catalog.count(*) FROM petagen.chunks c WHERE c.job = j.job),"
				 " (SELECT pg_catalog.count(*) FROM petagen.progress_log p WHERE p.job = j.job)",
				 1, types, values, NULL, SPI_OK_DELETE_RETURNING);
	*chunks = catalog_int8(0, Anum_delete_chunks);
	*progress = catalog_int8(0, Anum_delete_progress);
	catalog_finish(&scope);
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

	if (catalog_version() == CATALOG_V0_1)
		return NULL;
	catalog_connect(&scope, true);
	if (catalog_exec("UPDATE petagen.jobs j SET interrupted_at = " LEDGER_LAST_PROGRESS ","
					 " interrupted_reason = $2 WHERE job = $1 AND state = 'running'"
					 " RETURNING interrupted_at::timestamptz(0)::text",
					 2, types, values, NULL, SPI_OK_UPDATE_RETURNING) > 0)
		at = catalog_text(0, CATALOG_ONLY_COLUMN, cxt);
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
	/* a 0.1 catalog records no interruption */
	if (catalog_version() == CATALOG_V0_1)
		return;
	catalog_connect(&scope, false);
	if (catalog_exec("SELECT j.interrupted_reason || ', last progress at '"
					 " || j.interrupted_at::timestamptz(0)"
					 " FROM petagen.jobs j"
					 " WHERE j.job = $1 AND j.interrupted_at >= " LEDGER_LAST_PROGRESS,
					 1, types, values, NULL, SPI_OK_SELECT) > 0 &&
		(reason = catalog_text(0, CATALOG_ONLY_COLUMN, CurrentMemoryContext)) != NULL)
		strlcpy(buf, reason, len);
	catalog_finish(&scope);
}

/*
 * --------------------------------------------------------------------
 * The ledger proper: every statement on petagen.chunks (one row per
 * loaded chunk, committed with the chunk's rows) and the rows a
 * running load adds to petagen.progress_log (its history, each row
 * naming the job's phase where the catalog has that column: a 0.1
 * catalog, before ALTER EXTENSION UPDATE, has not).  ledger.c owns the
 * job rows these reference; both are declared in ledger.h.
 *
 * Reads run as the current role, writes as the catalog owner (catalog.c).
 * Result columns and parameters are read and filled by name: an Anum_
 * enum per statement's target list, an Arg_ enum per parameter list.
 * --------------------------------------------------------------------
 */

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
	Anum_summary_failed_sqlstate,
	Anum_summary_retries,
	Anum_summary_next_retry_at,
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
	/* the last run's start: 0.1's catalog knows the first run's only */
	if (catalog_exec(psprintf("SELECT coalesce(sum(c.keys), 0)::int8,"
							  " coalesce(sum(c.rows_written), 0)::int8,"
							  " coalesce(sum(c.bytes), 0)::int8,"
							  " coalesce(sum(c.duplicates), 0)::int8,"
							  " extract(epoch FROM j.finished_at - %s)::float8,"
							  " coalesce(sum(c.rows_written) FILTER (WHERE c.run = j.run), 0)::float8,"
							  " coalesce(sum(c.bytes) FILTER (WHERE c.run = j.run), 0)::float8,"
							  " j.last_error, j.last_error_at, j.started_at, j.finished_at,"
							  " (SELECT coalesce(max(p.keys_done), 0) FROM petagen.progress_log p"
							  " WHERE p.job = j.job), %s"
							  " FROM petagen.jobs j LEFT JOIN petagen.chunks c USING (job)"
							  " WHERE j.job = $1 GROUP BY j.job",
							  catalog_version() >= CATALOG_V0_2 ?
							  "coalesce(j.run_started_at, j.started_at)" :
							  "j.started_at",
							  catalog_version() >= CATALOG_V0_2 ?
							  "j.failed_sqlstate, j.retries::int8, j.next_retry_at" :
							  "NULL::text, 0::int8, NULL::timestamptz"),
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
		err = catalog_text(0, Anum_summary_failed_sqlstate, CurrentMemoryContext);
		if (err)
			strlcpy(sum->failed_sqlstate, err, sizeof(sum->failed_sqlstate));
		sum->retries = (int32) catalog_int8(0, Anum_summary_retries);
		sum->next_retry_at = ledger_timestamp(Anum_summary_next_retry_at);
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
	phases = catalog_version() >= CATALOG_V0_2;
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

/*
 * --------------------------------------------------------------------
 * The Citus shards a load job writes on this node: recorded by
 * start(), checked by every chunk before it commits.
 *
 * Each node's job writes the keys of the shards placed on it, chunk by
 * chunk (or, with method => 'leaf', shard by shard).  If a shard moves
 * during the load (citus_move_shard_placement(), the rebalancer, a split),
 * the rows already committed travel with it, but the keys of the chunks
 * still to come would be skipped here and, on the node it moved to,
 * written only by the chunks that node has not done yet: keys would be
 * lost or written twice.  So start() records the shard ids placed here in
 * petagen.job_shards, and a chunk fails (55000, not retried: the job fails
 * with the reason) when the shards placed here are no longer exactly
 * those.  The check runs inside the chunk's transaction, after its rows
 * are written and just before its ledger row: a placement change committed
 * before that point fails the chunk, whose rows roll back (a frozen
 * chunk's are removed by the repair of resume()).  A move whose metadata
 * commits between the check and the chunk's commit is not seen by that
 * chunk; the next chunk fails.  A leaf job checks each leaf the same way,
 * and also when the leaf begins, before its shard table is touched (a
 * moved shard's table here is an orphan Citus drops).  After a failed
 * job, verify() on any worker says what is where.
 *
 * Tables that are not Citus tables record nothing and check nothing.
 * --------------------------------------------------------------------
 */

/* Compare shard ids for qsort. */
static int
citus_shards_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * The ids of relid's shards placed on this node, ascending, as text; NULL
 * if relid is not a Citus table.  Only Citus's metadata is read: the shard
 * tables are not locked, as a leaf job's workers each hold theirs ACCESS
 * EXCLUSIVE while they check.
 */
static char *
citus_shards_local(Oid relid)
{
	Relation	rel;
	CitusTable *table;
	int64	   *ids;
	int			nlocal = 0;
	StringInfoData text;

	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return NULL;			/* Citus is not installed here */
	rel = table_open(relid, AccessShareLock);
	table = citus_meta_open(rel);
	table_close(rel, NoLock);
	if (table == NULL)
		return NULL;
	ids = palloc(sizeof(int64) * Max(table->nshards, 1));
	for (int i = 0; i < table->nshards; i++)
		if (table->shards[i].local)
			ids[nlocal++] = table->shards[i].shardid;
	qsort(ids, nlocal, sizeof(int64), citus_shards_cmp);
	initStringInfo(&text);
	appendStringInfoChar(&text, '{');
	for (int i = 0; i < nlocal; i++)
		appendStringInfo(&text, "%s" INT64_FORMAT, i > 0 ? "," : "", ids[i]);
	appendStringInfoChar(&text, '}');
	return text.data;
}

/* Record the shards of relid placed on this node for job (in start()). */
void
citus_shards_record(int64 job, Oid relid)
{
	char	   *ids = citus_shards_local(relid);
	Oid			types[2] = {INT8OID, TEXTOID};	/* $1: the job, $2: the shards */
	Datum		values[2];
	CatalogScope scope;

	if (ids == NULL)
		return;
	values[0] = Int64GetDatum(job);
	values[1] = CStringGetTextDatum(ids);
	catalog_connect(&scope, true);
	catalog_exec("INSERT INTO petagen.job_shards (job, shard)"
				 " SELECT $1, s FROM pg_catalog.unnest($2::pg_catalog.int8[]) s",
				 2, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/* Error unless the shards of relid placed here are the ones job recorded. */
void
citus_shards_check(int64 job, Oid relid)
{
	char	   *ids = citus_shards_local(relid);
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	char	   *recorded;
	CatalogScope scope;

	if (ids == NULL)
		return;
	catalog_connect(&scope, false);
	catalog_exec("SELECT '{' || coalesce(pg_catalog.string_agg(shard::text, ','"
				 " ORDER BY shard), '') || '}' FROM petagen.job_shards WHERE job = $1",
				 1, types, values, NULL, SPI_OK_SELECT);
	recorded = catalog_text(0, CATALOG_ONLY_COLUMN, CurrentMemoryContext);
	if (strcmp(recorded, ids) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Citus shards of \"%s\" placed on this node changed during load job " INT64_FORMAT,
						get_rel_name(relid), job),
				 errdetail("The job started with shards %s here; now they are %s. A shard was moved, split or rebalanced during the load.",
						   recorded, ids),
				 errhint("Do not move shards while petagen loads. Check the keys with petagen.verify() on each worker; to load again, truncate the table through the coordinator and run petagen.start() on each worker.")));
	catalog_finish(&scope);
}
