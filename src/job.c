/*-------------------------------------------------------------------------
 * job.c
 *		The job catalog and the job life cycle: petagen.start(), resume(),
 *		stop() and wait(), and launching a run's background workers.
 *
 * start() validates everything a worker would trip over (privileges, the
 * table's shape and local leaves, options, worker slots), records the job
 * in petagen.jobs, creates the run's shared state and registers the
 * workers, all in the caller's transaction: if anything fails, no job row
 * is left and the workers already registered find no job and exit.  The
 * workers run as the job's owner, the role that called start(), also when
 * a superuser or a member of the owner calls resume(): nobody gets workers
 * with more privileges than the owner's.  stop(), resume() and wait() need
 * the owner's privileges.  Only petagen writes petagen.jobs (catalog.c),
 * so started_by can be trusted.
 *
 * Job creation is serialized by a SHARE ROW EXCLUSIVE lock on
 * petagen.jobs, so that two jobs on one table cannot both pass the check.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/latch.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "catalog.h"
#include "check.h"
#include "compat.h"
#include "frozen.h"
#include "guard.h"
#include "indexes.h"
#include "job.h"
#include "leafload.h"
#include "load.h"
#include "route.h"

int			petagen_disk_reserve_mb = 1024;
int			petagen_progress_log_interval = 300;

/* The chunk size rule of job_default_chunk_rows(). */
#define JOB_CHUNKS_PER_WORKER	4
#define JOB_CHUNK_ROWS_MIN		1000
#define JOB_CHUNK_ROWS_MAX		100000

static const char *const job_state_names[] = {
	"starting", "running", "paused", "throttled", "done", "failed",
	"stopped", "interrupted"
};

static const char *const job_phase_names[] = {"loading", "indexing", "done"};

/* The name status() shows for a phase. */
const char *
job_phase_name(JobPhase phase)
{
	return job_phase_names[phase];
}

/* The name status() shows for a state. */
const char *
job_state_name(JobState state)
{
	return job_state_names[state];
}

/* Bytes of shared state for a run with nworkers workers. */
Size
job_shared_size(int nworkers)
{
	return add_size(offsetof(JobShared, workers),
					mul_size(sizeof(WorkerSlot), nworkers));
}

/* Define the petagen.* settings the workers read. */
void
job_init_gucs(void)
{
	DefineCustomIntVariable("petagen.disk_reserve",
							"Free space load workers leave on every filesystem they write.",
							"Workers pause before a batch that would leave less; a job's disk_reserve option overrides this.",
							&petagen_disk_reserve_mb, 1024, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("petagen.progress_log_interval",
							"Time between rows a load job adds to petagen.progress_log.",
							NULL, &petagen_progress_log_interval, 300, 1, 86400,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
}

/* Raise an error unless the current role may run load jobs. */
static void
job_check_operator(void)
{
	Oid			operator = get_role_oid("petagen_operator", true);

	if (!superuser() &&
		!(OidIsValid(operator) && has_privs_of_role(GetUserId(), operator)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run petagen load jobs"),
				 errhint("Only superusers and members of role \"petagen_operator\" may start, stop or resume jobs.")));
}

/*
 * Raise an error unless workers can connect as role: before PostgreSQL 17
 * a background worker cannot connect as a role without LOGIN; from 17 on
 * they bypass that check (compat.h), so every role can.
 */
void
job_check_login(Oid role, const char *funcname)
{
	HeapTuple	tuple;
	bool		canlogin;

	if (COMPAT_BGW_NOLOGIN_OK)
		return;
	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(role));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for role %u", role);
	canlogin = ((Form_pg_authid) GETSTRUCT(tuple))->rolcanlogin;
	ReleaseSysCache(tuple);
	if (!canlogin)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("role \"%s\" cannot log in, so petagen workers cannot run as it",
						GetUserNameFromId(role, false)),
				 errdetail("The workers of %s connect as the role that calls it, or for resume() as the job's owner.",
						   funcname),
				 errhint("Call it as a role with LOGIN, or ALTER ROLE ... LOGIN.")));
}

/*
 * Raise an error unless the current role may act on def's job: superusers
 * and members (with privileges) of the role that owns it.
 */
static void
job_check_owner(const JobDef *def, const char *funcname)
{
	if (!has_privs_of_role(GetUserId(), def->owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for load job " INT64_FORMAT, def->job),
				 errdetail("Load job " INT64_FORMAT " belongs to role \"%s\".", def->job,
						   GetUserNameFromId(def->owner, false)),
				 errhint("Only superusers and roles with the privileges of role \"%s\" may call %s on it.",
						 GetUserNameFromId(def->owner, false), funcname)));
}

/* Raise an error if the role that owns def's job was dropped. */
static void
job_check_owner_exists(const JobDef *def)
{
	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(def->owner)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("the owner of load job " INT64_FORMAT " no longer exists",
						def->job),
				 errdetail("Its workers would run as the role with OID %u, which was dropped.",
						   def->owner),
				 errhint("Start a new job with petagen.start(): its workers run as you.")));
}

/* Run one SPI statement with int8 or text arguments; returns SPI_processed. */
static uint64
job_spi(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL,
										   false, 0);

	if (rc != expect)
		elog(ERROR, "petagen: SPI statement failed (%d): %s", rc, sql);
	return SPI_processed;
}

/* Column n (1-based) of the first SPI result row as a Datum; isnull set. */
static Datum
job_col(int n, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, n,
						 isnull);
}

/* Column n of the first SPI result row as a C string (palloc'd in the caller's context). */
static char *
job_col_text(int n, MemoryContext cxt)
{
	char	   *s = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, n);

	return MemoryContextStrdup(cxt, s ? s : "");
}

/* Read job `job` from petagen.jobs into def; false if missing and missing_ok. */
bool
job_read(int64 job, JobDef *def, bool missing_ok)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	bool		isnull;
	char	   *mode;
	char	   *prefix;
	CatalogScope scope;

	catalog_connect(&scope, false);
	if (job_spi("SELECT \"table\"::oid, rows, workers, run, chunk_rows, keys, seed,"
				" fieldlength, prefix, zeropadding, disk_reserve, max_rate,"
				" started_by::oid, state, dsm_handle, xmin, frozen,"
				" indexes = 'after', method = 'leaf'"
				" FROM petagen.jobs WHERE job = $1",
				1, types, values, SPI_OK_SELECT) == 0)
	{
		catalog_finish(&scope);
		if (missing_ok)
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("load job " INT64_FORMAT " does not exist", job),
				 errhint("SELECT job, \"table\", state FROM petagen.jobs lists the jobs.")));
	}
	def->job = job;
	def->relid = DatumGetObjectId(job_col(1, &isnull));
	def->rows = DatumGetInt64(job_col(2, &isnull));
	def->nworkers = DatumGetInt32(job_col(3, &isnull));
	def->run = DatumGetInt32(job_col(4, &isnull));
	def->chunk_rows = DatumGetInt64(job_col(5, &isnull));
	mode = job_col_text(6, cxt);
	prefix = job_col_text(9, cxt);
	MemoryContextSwitchTo(cxt);
	spec_init(&def->spec, mode, prefix, DatumGetInt32(job_col(10, &isnull)),
			  DatumGetInt64(job_col(7, &isnull)),
			  DatumGetInt32(job_col(8, &isnull)));
	def->disk_reserve = DatumGetInt64(job_col(11, &isnull));
	if (isnull)
		def->disk_reserve = -1;
	def->max_rate = DatumGetInt64(job_col(12, &isnull));
	if (isnull)
		def->max_rate = 0;
	def->owner = DatumGetObjectId(job_col(13, &isnull));
	strlcpy(def->state, job_col_text(14, cxt), sizeof(def->state));
	def->handle = (dsm_handle) DatumGetInt64(job_col(15, &isnull));
	if (isnull)
		def->handle = DSM_HANDLE_INVALID;
	def->ours = TransactionIdIsCurrentTransactionId(DatumGetTransactionId(job_col(16, &isnull)));
	def->frozen = DatumGetBool(job_col(17, &isnull));
	def->indexes_after = DatumGetBool(job_col(18, &isnull));
	def->leaf_method = DatumGetBool(job_col(19, &isnull));
	catalog_finish(&scope);
	return true;
}

/* Attach the live state of def's current run, or NULL if it is gone. */
JobShared *
job_attach(const JobDef *def, dsm_segment **seg)
{
	JobShared  *shared;

	*seg = NULL;
	if (def->handle == DSM_HANDLE_INVALID)
		return NULL;
	*seg = dsm_find_mapping(def->handle);
	if (*seg == NULL)
		*seg = dsm_attach(def->handle);
	if (*seg == NULL)
		return NULL;
	shared = dsm_segment_address(*seg);
	if (dsm_segment_map_length(*seg) < offsetof(JobShared, workers) ||
		shared->magic != JOB_MAGIC || shared->job != def->job ||
		shared->run != def->run)
	{
		dsm_detach(*seg);
		*seg = NULL;
		return NULL;
	}
	return shared;
}

/* Is the process behind a worker slot still alive? */
bool
job_worker_alive(WorkerSlot *slot)
{
	return slot->pid != 0 && BackendPidGetProc(slot->pid) != NULL;
}

/*
 * In a worker's PG_CATCH: copy the error into cxt, clear it and abort the
 * transaction; the caller reports it and frees it with FreeErrorData().
 */
ErrorData *
job_catch_and_abort(MemoryContext cxt)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	AbortCurrentTransaction();
	MemoryContextSwitchTo(cxt);
	return edata;
}

/* Record the end of a run in petagen.jobs and a last progress_log row. */
void
job_record_end(int64 job, int32 run, JobState state, const char *error)
{
	Oid			types[4] = {INT8OID, INT4OID, TEXTOID, TEXTOID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', error ? ' ' : 'n'};
	CatalogScope scope;

	values[0] = Int64GetDatum(job);
	values[1] = Int32GetDatum(run);
	values[2] = CStringGetTextDatum(job_state_name(state));
	values[3] = error ? CStringGetTextDatum(error) : (Datum) 0;
	catalog_connect(&scope, true);
	if (SPI_execute_with_args("UPDATE petagen.jobs SET state = $3,"
							  " finished_at = pg_catalog.now(),"
							  " last_error = coalesce($4, last_error),"
							  " last_error_at = CASE WHEN $4 IS NULL THEN last_error_at"
							  " ELSE pg_catalog.now() END"
							  " WHERE job = $1 AND run = $2",
							  4, types, values, nulls, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "petagen: could not record the end of job " INT64_FORMAT, job);
	/* a last progress_log row, so the history ends where the job did */
	if (SPI_execute_with_args("INSERT INTO petagen.progress_log (job, keys_done,"
							  " rows_written, bytes, logged_at)"
							  " SELECT $1, coalesce(sum(keys), 0), coalesce(sum(rows_written), 0),"
							  " coalesce(sum(bytes), 0), pg_catalog.clock_timestamp()"
							  " FROM petagen.chunks WHERE job = $1",
							  1, types, values, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "petagen: could not add to progress_log");
	catalog_finish(&scope);
}

/* Background worker slots not in use, as far as pg_stat_activity shows. */
int
job_free_worker_slots(void)
{
	bool		isnull;
	int			used;
	CatalogScope scope;

	catalog_connect(&scope, false);
	job_spi("SELECT count(*)::int4 FROM pg_catalog.pg_stat_activity"
			" WHERE backend_type NOT IN ('client backend', 'autovacuum launcher',"
			" 'autovacuum worker', 'background writer', 'checkpointer',"
			" 'walwriter', 'walsender', 'walreceiver', 'startup', 'archiver',"
			" 'standalone backend', 'slotsync worker', 'walsummarizer',"
			" 'io worker')", 0, NULL, NULL, SPI_OK_SELECT);
	used = DatumGetInt32(job_col(1, &isnull));
	catalog_finish(&scope);
	return max_worker_processes - used;
}

/* Raise an error unless nworkers is a worker count a job may have. */
static void
job_check_worker_count(int nworkers)
{
	if (nworkers < 1 || nworkers > JOB_MAX_WORKERS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workers must be between 1 and %d, not %d",
						JOB_MAX_WORKERS, nworkers)));
}

/* Raise an error unless nworkers workers can be started now. */
void
job_check_workers(int nworkers)
{
	int			free_slots;

	job_check_worker_count(nworkers);
	free_slots = job_free_worker_slots();
	if (nworkers > free_slots)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("not enough free background worker slots for %d workers",
						nworkers),
				 errdetail("max_worker_processes is %d and %d slots are free.",
						   max_worker_processes, Max(free_slots, 0)),
				 errhint("Use fewer workers, or increase \"max_worker_processes\" and restart the server.")));
}

/* Raise an error unless the table can be loaded by the current role. */
void
job_check_table(Oid relid, const GenSpec *spec, int64 rows)
{
	Router	   *router;
	int			nlocal = 0;
	AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_INSERT);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, get_relkind_objtype(get_rel_relkind(relid)),
					   get_rel_name(relid));
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load temporary table \"%s\" with a job",
						get_rel_name(relid)),
				 errdetail("Background workers cannot access the temporary tables of other sessions."),
				 errhint("Use petagen.load() in this session, or load a permanent or unlogged table.")));
	router = route_open(relid);
	for (int i = 0; i < route_nleaves(router); i++)
		nlocal += route_leaf(router, i)->local ? 1 : 0;
	route_close(router);
	if (nlocal == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" has no local leaf on this node", get_rel_name(relid)),
				 get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE ?
				 errdetail("It is a foreign table.") :
				 errdetail("All of its partitions are foreign tables."),
				 errhint("Run petagen.start() on the nodes that store the rows.")));
	/* a load of no keys validates the shape, options and leaves */
	{
		LoadStats	none = {0};

		load_range(relid, spec, false, rows - 1, 0, &none, NULL, NULL);
	}
}

/*
 * Raise an error if another job the catalog says is running (live or
 * interrupted) loads relid or a table that shares
 * partitions with it (an ancestor or a descendant in its partition tree):
 * both would write the same leaves, and a frozen job's repair could delete
 * the other's rows.
 */
static void
job_check_no_other(Oid relid, int64 except_job)
{
	Oid			types[2] = {OIDOID, INT8OID};
	Datum		values[2] = {ObjectIdGetDatum(relid), Int64GetDatum(except_job)};
	bool		isnull;
	CatalogScope scope;

	catalog_connect(&scope, true);
	/*
	 * Held until commit, so starts and resumes take turns; SHARE UPDATE
	 * EXCLUSIVE conflicts with itself but not with the row writes of
	 * workers and stop(), which a caller's open transaction must not hold up.
	 */
	job_spi("LOCK TABLE petagen.jobs IN SHARE UPDATE EXCLUSIVE MODE", 0, NULL,
			NULL, SPI_OK_UTILITY);
	if (job_spi("SELECT job, \"table\"::pg_catalog.oid FROM petagen.jobs j"
				" WHERE state = 'running' AND job <> $2 AND (\"table\" = $1"
				" OR EXISTS (SELECT FROM pg_catalog.pg_partition_ancestors($1) a"
				" WHERE a.relid = j.\"table\")"
				" OR EXISTS (SELECT FROM pg_catalog.pg_partition_ancestors(j.\"table\") a"
				" WHERE a.relid = $1)) ORDER BY job LIMIT 1",
				2, types, values, SPI_OK_SELECT) > 0)
	{
		int64		other = DatumGetInt64(job_col(1, &isnull));
		Oid			other_rel = DatumGetObjectId(job_col(2, &isnull));

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("\"%s\" already has load job " INT64_FORMAT,
						get_rel_name(relid), other),
				 other_rel == relid ?
				 errdetail("One table takes one load job at a time.") :
				 errdetail("Load job " INT64_FORMAT " loads \"%s\", which shares partitions with \"%s\".",
						   other, get_rel_name(other_rel), get_rel_name(relid)),
				 errhint("Wait for it with petagen.wait(" INT64_FORMAT "), or stop it with petagen.stop(" INT64_FORMAT ").",
						 other, other)));
	}
	catalog_finish(&scope);
}

/* Sum what the ledger already holds for def into shared's base counters. */
static void
job_fill_base(const JobDef *def, JobShared *shared)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(def->job)};
	bool		isnull;
	CatalogScope scope;

	catalog_connect(&scope, false);
	job_spi("SELECT coalesce(sum(keys), 0)::int8, coalesce(sum(rows_written), 0)::int8,"
			" coalesce(sum(bytes), 0)::int8 FROM petagen.chunks WHERE job = $1",
			1, types, values, SPI_OK_SELECT);
	shared->base_keys = DatumGetInt64(job_col(1, &isnull));
	shared->base_rows = DatumGetInt64(job_col(2, &isnull));
	shared->base_bytes = DatumGetInt64(job_col(3, &isnull));
	catalog_finish(&scope);
}

/* Create and pin the live state of a new run of def. */
static dsm_segment *
job_create_shared(const JobDef *def)
{
	dsm_segment *seg = dsm_create(job_shared_size(def->nworkers), 0);
	JobShared  *shared = dsm_segment_address(seg);

	memset(shared, 0, job_shared_size(def->nworkers));
	shared->magic = JOB_MAGIC;
	shared->job = def->job;
	shared->run = def->run;
	shared->nworkers = def->nworkers;
	shared->nchunks = job_nchunks(def->rows, def->chunk_rows);
	shared->nranges = shared->nchunks;
	if (def->leaf_method)
	{
		int			nlocal;

		pfree(leaf_local_leaves(def->relid, &nlocal));
		shared->nchunks = nlocal;	/* a leaf is the unit of the ledger */
	}
	pg_atomic_init_u64(&shared->next_range, 0);
	pg_atomic_init_u32(&shared->routing, def->nworkers);
	shared->started_at = GetCurrentTimestamp();
	pg_atomic_init_u64(&shared->next_chunk, 0);
	pg_atomic_init_u32(&shared->active, def->nworkers);
	pg_atomic_init_u32(&shared->stop_requested, 0);
	pg_atomic_init_u32(&shared->failed, 0);
	pg_atomic_init_u64(&shared->headroom, PG_UINT64_MAX);
	pg_atomic_init_u64(&shared->next_log_at, 0);
	pg_atomic_init_u32(&shared->loading, def->nworkers);
	pg_atomic_init_u32(&shared->phase, PHASE_LOADING);
	for (int i = 0; i < def->nworkers; i++)
	{
		WorkerSlot *slot = &shared->workers[i];

		pg_atomic_init_u32(&slot->state, JOB_STARTING);
		pg_atomic_init_u64(&slot->keys, 0);
		pg_atomic_init_u64(&slot->rows, 0);
		pg_atomic_init_u64(&slot->bytes, 0);
		pg_atomic_init_u64(&slot->duplicates, 0);
		SpinLockInit(&slot->mutex);
		slot->current_index[0] = '\0';
	}
	job_fill_base(def, shared);
	return seg;
}

/* Register worker `index` of def's run; false if no slot was free. */
static bool
job_register_worker(const JobDef *def, dsm_handle handle, int index)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *bgw_handle;
	WorkerArgs	args;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, "petagen", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "petagen_worker_main", BGW_MAXLEN);
	snprintf(worker.bgw_name, BGW_MAXLEN, "petagen job " INT64_FORMAT " worker %d",
			 def->job, index);
	strlcpy(worker.bgw_type, "petagen worker", BGW_MAXLEN);
	args.job = def->job;
	args.run = def->run;
	args.index = index;
	args.database = MyDatabaseId;
	args.role = def->owner;
	args.starter_xid = GetTopTransactionId();
	args.handle = handle;
	StaticAssertStmt(sizeof(WorkerArgs) <= BGW_EXTRALEN, "WorkerArgs too large");
	memcpy(worker.bgw_extra, &args, sizeof(args));
	return RegisterDynamicBackgroundWorker(&worker, &bgw_handle);
}

/* Start a run of def: shared state, the workers, the handle in the catalog. */
static void
job_launch(const JobDef *def)
{
	dsm_segment *seg = job_create_shared(def);
	dsm_handle	handle = dsm_segment_handle(seg);
	Oid			types[2] = {INT8OID, INT8OID};
	Datum		values[2] = {Int64GetDatum(def->job), Int64GetDatum((int64) handle)};
	CatalogScope scope;

	for (int i = 0; i < def->nworkers; i++)
		if (!job_register_worker(def, handle, i))
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("could not register background worker %d of %d",
							i + 1, def->nworkers),
					 errhint("You may need to increase \"max_worker_processes\".")));
	catalog_connect(&scope, true);
	job_spi("UPDATE petagen.jobs SET dsm_handle = $2, started_at = pg_catalog.now()"
			" WHERE job = $1", 2, types, values, SPI_OK_UPDATE);
	catalog_finish(&scope);
	/* from here on the segment outlives this backend */
	dsm_pin_segment(seg);
	dsm_detach(seg);
}

/* Insert def's row into petagen.jobs; sets def->job. */
static void
job_insert(JobDef *def)
{
	Oid			types[15] = {OIDOID, INT8OID, INT4OID, INT8OID, TEXTOID, INT8OID,
	INT4OID, TEXTOID, INT4OID, INT8OID, INT8OID, OIDOID, BOOLOID, TEXTOID, TEXTOID};
	Datum		values[15];
	char		nulls[15] = "              ";
	bool		isnull;
	CatalogScope scope;

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
	def->owner = GetUserId();
	values[11] = ObjectIdGetDatum(def->owner);
	values[12] = BoolGetDatum(def->frozen);
	values[13] = CStringGetTextDatum(def->indexes_after ? "after" : "maintain");
	values[14] = CStringGetTextDatum(def->leaf_method ? "leaf" : "chunk");
	if (def->disk_reserve < 0)
		nulls[9] = 'n';
	if (def->max_rate <= 0)
		nulls[10] = 'n';
	catalog_connect(&scope, true);
	if (SPI_execute_with_args("INSERT INTO petagen.jobs (\"table\", rows, workers,"
							  " chunk_rows, keys, seed, fieldlength, prefix, zeropadding,"
							  " disk_reserve, max_rate, started_by, frozen, indexes, method)"
							  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
							  " $12::pg_catalog.regrole, $13, $14, $15) RETURNING job",
							  15, types, values, nulls, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "petagen: could not insert the job row");
	def->job = DatumGetInt64(job_col(1, &isnull));
	catalog_finish(&scope);
	def->run = 1;
}

/* A size argument such as '10GB' in bytes, or `none` when NULL. */
static int64
job_size_arg(FunctionCallInfo fcinfo, int argno, const char *argname,
			 int64 none)
{
	int64		bytes;

	if (PG_ARGISNULL(argno))
		return none;
	bytes = DatumGetInt64(DirectFunctionCall1(pg_size_bytes, PG_GETARG_DATUM(argno)));
	if (bytes < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative, not \"%s\"", argname,
						text_to_cstring(PG_GETARG_TEXT_PP(argno)))));
	if (bytes > JOB_MAX_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be at most 1024 PB, not \"%s\"", argname,
						text_to_cstring(PG_GETARG_TEXT_PP(argno))),
				 errhint("disk_reserve and max_rate are at most 2^60 bytes, so that sums with free space stay in range.")));
	return bytes;
}

/* The table argument, a possibly qualified name, resolved. */
Oid
job_table_arg(text *name)
{
	List	   *names = textToQualifiedNameList(name);

	return RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock,
							false);
}

/* Raise an error if the job argument (the first) is NULL. */
static void
job_check_job_arg(FunctionCallInfo fcinfo, const char *funcname)
{
	static const char *const names[] = {"job"};

	spec_check_nulls(fcinfo, 0, names, lengthof(names), funcname);
}

/* The disk reserve in force for a job, in bytes: its own, or the setting's. */
int64
job_reserve(const JobDef *def)
{
	if (def->disk_reserve >= 0)
		return def->disk_reserve;
	return (int64) petagen_disk_reserve_mb * 1024 * 1024;
}

/* The number of chunks of chunk_rows key numbers in 0 .. rows-1. */
int64
job_nchunks(int64 rows, int64 chunk_rows)
{
	return rows / chunk_rows + (rows % chunk_rows != 0);
}

/*
 * The chunk size of a job that names none: about JOB_CHUNKS_PER_WORKER
 * chunks per worker, so that a small load keeps every worker busy, within
 * JOB_CHUNK_ROWS_MIN .. JOB_CHUNK_ROWS_MAX (one transaction each).
 */
static int64
job_default_chunk_rows(const JobDef *def)
{
	int64		per_chunk = (def->rows - 1) / ((int64) def->nworkers * JOB_CHUNKS_PER_WORKER) + 1;

	return Min(Max(per_chunk, JOB_CHUNK_ROWS_MIN), JOB_CHUNK_ROWS_MAX);
}

/* Raise an error unless def's key space cuts into at most JOB_MAX_CHUNKS. */
static void
job_check_chunks(const JobDef *def)
{
	int64		nchunks = job_nchunks(def->rows, def->chunk_rows);

	if (nchunks > JOB_MAX_CHUNKS)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows " INT64_FORMAT " in chunks of " INT64_FORMAT " make " INT64_FORMAT " chunks, too many for one job",
						def->rows, def->chunk_rows, nchunks),
				 errhint("A job has at most " INT64_FORMAT " chunks, so for " INT64_FORMAT " rows chunk_rows must be at least " INT64_FORMAT ".",
						 JOB_MAX_CHUNKS, def->rows,
						 job_nchunks(def->rows, JOB_MAX_CHUNKS))));
}

/* start()'s arguments in SQL order; chunk_rows, disk_reserve, max_rate may be NULL. */
static const char *const start_arg_names[] = {
	"rows", "workers", "table", "keys", "seed", "fieldlength", "prefix",
	"zeropadding", "chunk_rows", "disk_reserve", "max_rate", "frozen",
	"indexes"
};

/*
 * Read and check the frozen and indexes options (arguments 11, 12) and the
 * method (argument method_arg) into def.  A leaf job writes frozen rows into
 * new storage, safe without the frozen chunks' ownership requirement.
 */
static void
job_parse_load_options(FunctionCallInfo fcinfo, const char *funcname,
					   int method_arg, JobDef *def)
{
	spec_check_nulls(fcinfo, 11, start_arg_names, lengthof(start_arg_names),
					 funcname);
	if (PG_ARGISNULL(method_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"method\" of %s must not be null", funcname)));
	def->frozen = PG_GETARG_BOOL(11);
	def->indexes_after = indexes_option(text_to_cstring(PG_GETARG_TEXT_PP(12)));
	def->leaf_method = leaf_method_option(text_to_cstring(PG_GETARG_TEXT_PP(method_arg)));
	if (def->leaf_method)
		leaf_check(def->relid, &def->spec, def->indexes_after, false);
	else if (def->frozen)
		frozen_check(def->relid, &def->spec);
	if (def->indexes_after)
		indexes_check(def->relid, &def->spec);
}

/*
 * Read and validate the arguments start() and check() share, in SQL order
 * rows .. indexes, and method (argument method_arg), into def; funcname
 * reads "petagen.f()".
 */
void
job_parse_args(FunctionCallInfo fcinfo, const char *funcname, int method_arg,
			   JobDef *def)
{
	spec_check_nulls(fcinfo, 0, start_arg_names, 8, funcname);
	memset(def, 0, sizeof(*def));
	def->rows = spec_count_arg(PG_GETARG_NUMERIC(0), "rows");
	if (def->rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows must be at least 1")));
	def->nworkers = PG_GETARG_INT32(1);
	job_check_worker_count(def->nworkers);
	def->relid = job_table_arg(PG_GETARG_TEXT_PP(2));
	spec_init(&def->spec, text_to_cstring(PG_GETARG_TEXT_PP(3)),
			  text_to_cstring(PG_GETARG_TEXT_PP(6)), PG_GETARG_INT32(7),
			  PG_GETARG_INT64(4), PG_GETARG_INT32(5));
	def->chunk_rows = PG_ARGISNULL(8) ? job_default_chunk_rows(def) :
		PG_GETARG_INT64(8);
	if (def->chunk_rows < 1 || def->chunk_rows > 100000000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_rows must be between 1 and 100000000, not " INT64_FORMAT,
						def->chunk_rows),
				 errhint("Each chunk of key numbers is one transaction; leave chunk_rows out for the default.")));
	job_check_chunks(def);
	def->disk_reserve = job_size_arg(fcinfo, 9, "disk_reserve", -1);
	def->max_rate = job_size_arg(fcinfo, 10, "max_rate", 0);
	job_parse_load_options(fcinfo, funcname, method_arg, def);
}

PG_FUNCTION_INFO_V1(petagen_start);
/* petagen.start(rows, workers, table, keys, ..., force): start a load job. */
Datum
petagen_start(PG_FUNCTION_ARGS)
{
	JobDef		def;

	guard_writable("petagen.start()");
	job_check_operator();
	job_check_login(GetUserId(), "petagen.start()");
	job_parse_args(fcinfo, "petagen.start()", 14, &def);
	if (PG_ARGISNULL(13))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"force\" of petagen.start() must not be null")));
	job_check_table(def.relid, &def.spec, def.rows);
	job_check_workers(def.nworkers);
	if (!PG_GETARG_BOOL(13))
		check_refuse_errors(&def);
	job_check_no_other(def.relid, 0);
	job_insert(&def);
	if (def.indexes_after)
		indexes_set_aside(def.job, def.relid);
	job_launch(&def);
	PG_RETURN_INT64(def.job);
}

/* Unpin the shared state an interrupted run left behind, if any. */
static void
job_release_stale(const JobDef *def)
{
	dsm_segment *seg;

	if (job_attach(def, &seg) != NULL)
	{
		dsm_detach(seg);
		dsm_unpin_segment(def->handle);
	}
}

/* Is a run of def live: shared state there and some worker not gone? */
static bool
job_is_live(const JobDef *def)
{
	dsm_segment *seg;
	JobShared  *shared = job_attach(def, &seg);
	bool		live = false;

	if (shared == NULL)
		return false;
	for (int i = 0; i < shared->nworkers; i++)
	{
		JobState	state = pg_atomic_read_u32(&shared->workers[i].state);

		if (state < JOB_DONE &&
			(state == JOB_STARTING || job_worker_alive(&shared->workers[i])))
			live = true;
	}
	dsm_detach(seg);
	return live;
}

/*
 * resume()'s checks of the table, made as the job's owner: whoever calls
 * resume(), the workers run as the owner, with its privileges only.
 */
static void
job_check_resumable(const JobDef *def)
{
	Oid			save_userid;
	int			save_sec_context;

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(def->owner,
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	if (def->leaf_method)
		leaf_check(def->relid, &def->spec, def->indexes_after, false);
	else if (def->frozen)
		frozen_check(def->relid, &def->spec);
	if (def->indexes_after)
		indexes_check(def->relid, &def->spec);
	job_check_table(def->relid, &def->spec, def->rows);
	SetUserIdAndSecContext(save_userid, save_sec_context);
}

PG_FUNCTION_INFO_V1(petagen_resume);
/* petagen.resume(job, workers): load the chunks a job has not finished. */
Datum
petagen_resume(PG_FUNCTION_ARGS)
{
	int64		job;
	JobDef		def;
	Oid			types[3] = {INT8OID, INT4OID, INT4OID};
	Datum		values[3];
	CatalogScope scope;

	guard_writable("petagen.resume()");
	job_check_operator();
	job_check_job_arg(fcinfo, "petagen.resume()");
	job = PG_GETARG_INT64(0);
	job_read(job, &def, false);
	job_check_owner(&def, "petagen.resume()");
	job_check_owner_exists(&def);
	job_check_login(def.owner, "petagen.resume()");
	if (strcmp(def.state, "done") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " is already done", job)));
	if (strcmp(def.state, "running") == 0 && job_is_live(&def))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("load job " INT64_FORMAT " is still running", job),
				 errhint("Stop it with petagen.stop(" INT64_FORMAT ") first.", job)));
	if (!PG_ARGISNULL(1))
		def.nworkers = PG_GETARG_INT32(1);
	job_release_stale(&def);
	job_check_resumable(&def);
	job_check_workers(def.nworkers);
	job_check_no_other(def.relid, job);
	def.run++;
	values[0] = Int64GetDatum(job);
	values[1] = Int32GetDatum(def.run);
	values[2] = Int32GetDatum(def.nworkers);
	catalog_connect(&scope, true);
	job_spi("UPDATE petagen.jobs SET state = 'running', run = $2, workers = $3,"
			" finished_at = NULL WHERE job = $1", 3, types, values,
			SPI_OK_UPDATE);
	catalog_finish(&scope);
	job_launch(&def);
	PG_RETURN_INT64(job);
}

/* The state of a job now: the catalog's, or the live one while it runs. */
JobState
job_current_state(const JobDef *def)
{
	dsm_segment *seg;
	JobShared  *shared;
	JobState	state;

	for (state = JOB_STARTING; state <= JOB_INTERRUPTED; state++)
		if (strcmp(def->state, job_state_names[state]) == 0 &&
			state != JOB_RUNNING)
			return state;
	shared = job_attach(def, &seg);
	if (shared == NULL)
		return JOB_INTERRUPTED;
	state = job_total_state(shared);
	dsm_detach(seg);
	return state;
}

/* The state of a whole run from its workers' slots. */
JobState
job_total_state(JobShared *shared)
{
	bool		seen[JOB_INTERRUPTED + 1] = {false};

	for (int i = 0; i < shared->nworkers; i++)
	{
		WorkerSlot *slot = &shared->workers[i];
		JobState	state = pg_atomic_read_u32(&slot->state);

		if (state != JOB_STARTING && state < JOB_DONE && !job_worker_alive(slot))
			state = JOB_INTERRUPTED;
		seen[state] = true;
	}
	/* the most telling state wins, in this order */
	{
		static const JobState order[] = {JOB_RUNNING, JOB_PAUSED, JOB_THROTTLED,
		JOB_STARTING, JOB_INTERRUPTED, JOB_FAILED, JOB_STOPPED, JOB_DONE};

		for (int i = 0; i < lengthof(order); i++)
			if (seen[order[i]])
				return order[i];
	}
	return JOB_DONE;
}

/* Is a state final: nothing will change without resume()? */
static bool
job_state_final(JobState state)
{
	return state >= JOB_DONE;
}

/* Raise an error if this transaction started or resumed the job. */
static void
job_check_not_ours(const JobDef *def)
{
	if (def->ours)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " was started in this transaction",
						def->job),
				 errdetail("Its workers begin when this transaction commits, so waiting here would never end."),
				 errhint("Commit, then call petagen.wait(" INT64_FORMAT ").", def->job)));
}

/*
 * Wait until first's job has ended, or timeout_ms passed (-1: forever).  A
 * run has ended when the catalog says so, or when no worker is left to say
 * so (interrupted): the last worker commits the end to the catalog before
 * its slot shows it, so a final state returned here is already in
 * petagen.jobs (but an interrupted run, which stays "running" there).
 */
static JobState
job_wait_final(const JobDef *first, long timeout_ms)
{
	TimestampTz start = GetCurrentTimestamp();

	job_check_not_ours(first);

	for (;;)
	{
		JobDef		def;
		JobState	state;

		job_read(first->job, &def, false);
		state = job_current_state(&def);
		if (state == JOB_INTERRUPTED ||
			(job_state_final(state) && strcmp(def.state, "running") != 0) ||
			(timeout_ms >= 0 &&
			 TimestampDifferenceExceeds(start, GetCurrentTimestamp(), timeout_ms)))
			return state;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100L, compat_wait_event("PetagenJobWait"));
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

PG_FUNCTION_INFO_V1(petagen_wait);
/* petagen.wait(job, timeout): wait for a job to end; returns its state. */
Datum
petagen_wait(PG_FUNCTION_ARGS)
{
	long		timeout_ms = -1;
	JobDef		def;

	job_check_job_arg(fcinfo, "petagen.wait()");
	if (!PG_ARGISNULL(1))
	{
		Interval   *timeout = PG_GETARG_INTERVAL_P(1);

		timeout_ms = (long) (timeout->time / 1000 +
							 ((int64) timeout->month * DAYS_PER_MONTH + timeout->day) *
							 SECS_PER_DAY * 1000);
		if (timeout_ms < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("timeout must not be negative")));
	}
	job_read(PG_GETARG_INT64(0), &def, false);
	job_check_owner(&def, "petagen.wait()");
	PG_RETURN_TEXT_P(cstring_to_text(job_state_name(job_wait_final(&def, timeout_ms))));
}

PG_FUNCTION_INFO_V1(petagen_stop);
/* petagen.stop(job): ask a job's workers to stop, wait for them; returns the state. */
Datum
petagen_stop(PG_FUNCTION_ARGS)
{
	int64		job = PG_GETARG_INT64(0);
	JobDef		def;
	dsm_segment *seg;
	JobShared  *shared;
	JobState	state;
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};

	guard_writable("petagen.stop()");
	job_check_operator();
	job_read(job, &def, false);
	job_check_owner(&def, "petagen.stop()");
	shared = job_attach(&def, &seg);
	if (shared != NULL)
	{
		pg_atomic_write_u32(&shared->stop_requested, 1);
		dsm_detach(seg);
	}
	state = job_wait_final(&def, 60000);
	if (state == JOB_INTERRUPTED)
	{
		CatalogScope scope;

		/* no worker is left to say so: record it here */
		catalog_connect(&scope, true);
		job_spi("UPDATE petagen.jobs SET state = 'stopped', finished_at = pg_catalog.now()"
				" WHERE job = $1 AND state = 'running'", 1, types, values,
				SPI_OK_UPDATE);
		catalog_finish(&scope);
		state = JOB_STOPPED;
	}
	PG_RETURN_TEXT_P(cstring_to_text(job_state_name(state)));
}
