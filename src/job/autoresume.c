/*-------------------------------------------------------------------------
 * autoresume.c
 *		Resuming interrupted load jobs after a restart or a crash: the
 *		launcher, a static background worker registered when petagen is in
 *		shared_preload_libraries, and the short-lived worker it starts in
 *		each database.
 *
 * The postmaster starts the launcher once the server accepts connections
 * (BgWorkerStart_RecoveryFinished): a hot standby starts none until it is
 * promoted, so jobs resume on the primary only.  The launcher connects to
 * no database, lists the databases that allow connections (templates
 * excepted) and starts one worker per database, one at a time, each
 * holding one worker slot while it runs.  That worker connects as the
 * bootstrap superuser; if petagen is installed there, it records for every
 * job the catalog says is running but that has no live run (what status()
 * calls interrupted) when and why it was interrupted, then, with
 * petagen.auto_resume on, calls petagen.resume(job) as the job's owner
 * (started_by): every privilege check of resume() applies to the owner,
 * as if it had called it.  A job resume() refuses is logged with the
 * reason and left as it is.  One transaction records, another resumes: a
 * refusal keeps the record.
 *
 * Why a job was interrupted: the launcher leaves the file
 * $PGDATA/pg_petagen/shutdown when the server shuts it down (SIGTERM) and
 * takes it as it starts.  A file older than this server's start means the
 * last run of the server ended with a shutdown; no file, that it crashed or
 * was killed (SIGKILL, an immediate stop, a power cut), which no process
 * could record.  The time recorded is the job's last progress, the closest
 * the catalog knows to the moment it stopped.
 *
 * While the server runs, the launcher scans again every
 * AUTORESUME_INTERVAL_MS: a job whose workers all exited (terminated, or
 * the last of them ended a run some other's death left short) without it
 * ending is recorded as interrupted because "its workers exited before it
 * finished" and resumed like the others.  Such a scan leaves a job whose
 * interruption is already recorded since its last progress: one resume()
 * refused, or left with auto_resume off, is not retried every few seconds.
 * Before that, each scan starts a worker in place of one of a job's that
 * died while the others load (autoresume_replace()): the run goes on, and
 * ends done, in the same run.
 * With petagen.auto_retry above 0, each scan also deals with the failed
 * jobs of a 0.2 catalog (autoretry_failed()): a job whose last run failed
 * for a transient cause (autoretry_transient()) is resumed as its owner,
 * like an interrupted one, after petagen.auto_retry_delay doubled per retry
 * already made (10 minutes at most), up to petagen.auto_retry times; a job
 * failed for a permanent cause, or whose retries are spent, is logged once
 * and left failed.  petagen.jobs keeps the failure's SQLSTATE, the retries
 * made and the next one's time ('infinity': none), which status() shows.
 * A resume the launcher makes that resume() refuses (too few free
 * background worker slots: 53400) is recorded the same way, on a failed
 * job as on an interrupted one (left running in the catalog), and decided
 * on by the same rule: a job interrupted while the slots were taken is
 * resumed once they are free.  A database's worker waits
 * AUTORESUME_LOCK_TIMEOUT at most for a lock: a table locked by a long
 * transaction refuses the resume (55P03), retried the same way.  The
 * launcher's resumes count against
 * petagen.auto_retry; a resume() called by anyone else gives the job its
 * retries again (ledger_resume_run()).
 * The launcher holds one background worker slot for as long as the server
 * runs, and each scan one more per database, one at a time.  Connected to no
 * database, it still has a ProcSignal slot, so its waits process interrupts:
 * DROP DATABASE, DROP TABLESPACE and ALTER DATABASE ... SET TABLESPACE wait
 * until every such process has absorbed their ProcSignalBarrier.  It restarts 10
 * seconds after a crash of its own (launch.c) and scans again: jobs
 * resumed meanwhile have a live run and are left alone.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "launch.h"
#include "petagen.h"
#include "job/ledger.h"
#include "job/live.h"
#include "load/load.h"

/* The file the launcher leaves when the server shuts down. */
#define AUTORESUME_DIR		"pg_petagen"
#define AUTORESUME_MARKER	AUTORESUME_DIR "/shutdown"

/* How often the launcher looks for jobs whose workers all exited. */
#define AUTORESUME_INTERVAL_MS	5000

/*
 * How long a database's worker waits for a lock: a table locked by a
 * long transaction refuses a resume (55P03, retried) instead of holding up
 * the launcher and every other database's jobs for as long.
 */
#define AUTORESUME_LOCK_TIMEOUT "5s"

/* What the launcher tells a database's worker, in bgw_extra. */
typedef struct AutoresumeArgs
{
	Oid			database;
	bool		at_start;		/* the launcher has just started */
	bool		shut_down;		/* the server's last run ended with a shutdown */
} AutoresumeArgs;

/* An interrupted job, as read before resuming it. */
typedef struct AutoresumeJob
{
	int64		job;
	Oid			owner;
	int			nworkers;
} AutoresumeJob;

static const LaunchKind autoresume_db_kind = {
	"petagen_autoresume_db_main", "petagen auto-resume",
	"petagen auto-resume of database " INT64_FORMAT, true
};

PGDLLEXPORT void petagen_autoresume_main(Datum main_arg);
PGDLLEXPORT void petagen_autoresume_db_main(Datum main_arg);

/*
 * Is this process a database's auto-resume worker?  Its resumes are the
 * launcher's own, which count against petagen.auto_retry.
 */
bool
autoresume_in_worker(void)
{
	return MyBgworkerEntry != NULL &&
		strcmp(MyBgworkerEntry->bgw_function_name, autoresume_db_kind.function) == 0;
}

/*
 * Take the file the launcher left at the last shutdown: true if it was
 * left before this server started.
 */
static bool
autoresume_take_marker(void)
{
	struct stat st;
	bool		shut_down;

	if (stat(AUTORESUME_MARKER, &st) != 0)
		return false;
	shut_down = time_t_to_timestamptz(st.st_mtime) < PgStartTime;
	if (unlink(AUTORESUME_MARKER) != 0)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", AUTORESUME_MARKER)));
	return shut_down;
}

/* Leave the file that tells the next start the server was shut down. */
static void
autoresume_leave_marker(void)
{
	int			fd;

	if (MakePGDirectory(AUTORESUME_DIR) != 0 && errno != EEXIST)
		return;
	fd = OpenTransientFile(AUTORESUME_MARKER, O_CREAT | O_WRONLY | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", AUTORESUME_MARKER)));
	else
		CloseTransientFile(fd);
}

/*
 * The databases that allow connections, but for templates (a worker there
 * would hold up CREATE DATABASE), in an array in TopMemoryContext.
 */
static Oid *
autoresume_databases(int *ndbs)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tuple;
	int			max = 16;
	Oid		   *dbs = MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * max);

	*ndbs = 0;
	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tuple);

		if (!db->datallowconn || db->datistemplate || database_is_invalid_form(db))
			continue;
		if (*ndbs == max)
		{
			max *= 2;
			dbs = repalloc(dbs, sizeof(Oid) * max);
		}
		dbs[(*ndbs)++] = db->oid;
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return dbs;
}

/* Start database's worker and wait until it exits. */
static void
autoresume_database(Oid database, bool at_start, bool shut_down)
{
	AutoresumeArgs args = {database, at_start, shut_down};
	BackgroundWorkerHandle *handle;

	PG_TRY();
	{
		handle = launch_worker(&autoresume_db_kind, database, 0, 1,
							   &args, sizeof(args));
		(void) WaitForBackgroundWorkerShutdown(handle);
	}
	PG_CATCH();
	{
		ErrorData  *edata = launch_catch_and_abort(TopMemoryContext);

		ereport(LOG,
				(errcode(edata->sqlerrcode),
				 errmsg("petagen: could not look for interrupted jobs in database with OID %u: %s",
						database, edata->message),
				 edata->hint ? errhint("%s", edata->hint) : 0));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/* Start one worker per database, one at a time. */
static void
autoresume_scan(bool at_start, bool shut_down)
{
	int			ndbs;
	Oid		   *dbs = autoresume_databases(&ndbs);

	for (int i = 0; i < ndbs && !ShutdownRequestPending; i++)
		autoresume_database(dbs[i], at_start, shut_down);
	pfree(dbs);
}

/*
 * Entry point of the launcher: one worker per database, then again every
 * AUTORESUME_INTERVAL_MS for the jobs whose workers all exited meanwhile.
 */
void
petagen_autoresume_main(Datum main_arg)
{
	bool		shut_down;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	shut_down = autoresume_take_marker();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	autoresume_scan(true, shut_down);
	while (!ShutdownRequestPending)
	{
		int			rc;

		rc = WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					   AUTORESUME_INTERVAL_MS,
					   compat_wait_event("PetagenLauncherMain"));
		ResetLatch(MyLatch);
		/* absorb ProcSignalBarriers: DROP DATABASE waits for every backend */
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if ((rc & WL_TIMEOUT) && !ShutdownRequestPending)
			autoresume_scan(false, false);
	}
	autoresume_leave_marker();
	proc_exit(0);
}

/*
 * Was job's interruption already recorded since its last progress?  Then
 * a scan while the server runs has dealt with it: resumed (and that run
 * made no progress yet), left or refused; it leaves it as it is.
 */
static bool
autoresume_recorded(int64 job)
{
	char		buf[256];

	ledger_interruption(job, buf, sizeof(buf));
	return buf[0] != '\0';
}

/*
 * The jobs of this database that the catalog says are running and that
 * have no live run, in an array in cxt; none if petagen is not installed.
 * Unless the launcher has just started, not those already recorded.
 */
static AutoresumeJob *
autoresume_interrupted(MemoryContext cxt, bool at_start, int *njobs)
{
	AutoresumeJob *found = NULL;
	int64	   *running;
	int			nrunning;

	*njobs = 0;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (OidIsValid(get_extension_oid("petagen", true)))
	{
		running = ledger_running_job_ids(&nrunning);
		found = MemoryContextAlloc(cxt, sizeof(AutoresumeJob) * Max(nrunning, 1));
		for (int i = 0; i < nrunning; i++)
		{
			JobDef		def;

			if (!job_read(running[i], &def, true) || live_is_running(&def) ||
				(!at_start && autoresume_recorded(def.job)))
				continue;
			found[*njobs].job = def.job;
			found[*njobs].owner = def.owner;
			found[(*njobs)++].nworkers = def.nworkers;
		}
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	return found;
}

/* Record why job was interrupted; the time recorded, in cxt, or NULL. */
static char *
autoresume_record(const AutoresumeJob *job, const char *reason, MemoryContext cxt)
{
	char	   *at;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	MemoryContextSwitchTo(cxt);
	at = ledger_record_interruption(job->job, reason);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return at;
}

/* Call petagen.resume(job) as the job's owner, in a transaction of its own. */
static void
autoresume_call_resume(const AutoresumeJob *job)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job->job)};
	Oid			save_userid;
	int			save_sec_context;
	CatalogScope scope;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(job->owner, save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	catalog_connect(&scope, false);
	catalog_exec("SELECT petagen.resume($1)", 1, types, values, NULL, SPI_OK_SELECT);
	catalog_finish(&scope);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/*
 * Record resume()'s refusal of job, unless a resume by someone else gave
 * it a live run meanwhile: its SQLSTATE decides a retry (autoretry_job()).
 */
static void
autoresume_record_refusal(const AutoresumeJob *job, const ErrorData *edata)
{
	JobDef		def;
	char	   *error = psprintf("resume refused: %s", edata->message);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	ledger_lock_job(job->job);
	if (job_read(job->job, &def, true) && !live_is_running(&def))
		ledger_record_refusal(job->job, edata->sqlerrcode, error);
	PopActiveSnapshot();
	CommitTransactionCommand();
	pfree(error);
}

/*
 * Resume job as its owner; false, the refusal logged and recorded, if
 * resume() refused.
 */
static bool
autoresume_try_resume(const AutoresumeJob *job, const char *dbname, MemoryContext cxt)
{
	ErrorData  *volatile refusal = NULL;

	PG_TRY();
	{
		autoresume_call_resume(job);
	}
	PG_CATCH();
	{
		ErrorData  *edata = launch_catch_and_abort(cxt);

		ereport(LOG,
				(errcode(edata->sqlerrcode),
				 errmsg("petagen: could not resume job " INT64_FORMAT " in database \"%s\": %s",
						job->job, dbname, edata->message),
				 edata->detail ? errdetail("%s", edata->detail) : 0,
				 edata->hint ? errhint("%s", edata->hint) : 0));
		refusal = edata;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	if (refusal == NULL)
		return true;
	autoresume_record_refusal(job, refusal);
	MemoryContextSwitchTo(cxt);
	FreeErrorData(refusal);
	return false;
}

/* Resume job, interrupted at `when` for reason, and log how that went. */
static void
autoresume_resume(const AutoresumeJob *job, const char *dbname, const char *when,
				  const char *reason, MemoryContext cxt)
{
	if (autoresume_try_resume(job, dbname, cxt))
		ereport(LOG,
				(errmsg("petagen: resumed job " INT64_FORMAT " in database \"%s\" with %d workers",
						job->job, dbname, job->nworkers),
				 errdetail("It was interrupted after its last progress at %s: %s.",
						   when, reason)));
}

/* Record why job was interrupted and, with auto_resume on, resume it. */
static void
autoresume_job(const AutoresumeJob *job, const char *dbname, const char *reason,
			   MemoryContext cxt)
{
	char	   *at = autoresume_record(job, reason, cxt);
	const char *when = at ? at : "an unknown time";

	if (petagen_auto_resume)
		autoresume_resume(job, dbname, when, reason, cxt);
	else
		ereport(LOG,
				(errmsg("petagen: left interrupted job " INT64_FORMAT " in database \"%s\" as it is",
						job->job, dbname),
				 errdetail("It was interrupted after its last progress at %s: %s. \"petagen.auto_resume\" is off.",
						   when, reason),
				 errhint("Resume it with petagen.resume(" INT64_FORMAT ").", job->job)));
}

/*
 * Can the launcher replace the dead worker in slot `index` of a run?  Only
 * while the run loads its units (short of indexing), with no stop asked
 * for and no worker failed, and in a job whose method has a preparing
 * phase (a leaf job's routing) only if it died loading a unit (it had
 * claimed one, so every range was routed): one that died routing leaves
 * its range unrouted, which a new run routes.  A worker that died
 * otherwise leaves the run to end interrupted and be resumed.
 *
 * A dead worker is one whose process is gone from the proc array, which it
 * leaves after its transaction aborted: its locks are released and the new
 * storage of the leaf it was writing is unlinked by then, so the
 * replacement finds the leaf as it was, empty in its old storage, and
 * replaces the record of the leaf's new files with its own (leafload.c).
 * As it starts, the replacement reads every leaf of the table (the disk
 * reserve's estimates), so it waits, like any reader, while another worker
 * holds its leaf ACCESS EXCLUSIVE for that leaf's commit: a moment, unless
 * the other worker is held there (petagen.debug_pause before_commit).
 */
static bool
autoresume_replaceable(const JobDef *def, JobShared *shared, int index)
{
	WorkerSlot *slot = &shared->workers[index];

	return pg_atomic_read_u32(&slot->state) == JOB_INTERRUPTED &&
		!job_worker_alive(slot) &&
		(def->method->prepare_unit == NULL || slot->claimed >= 0) &&
		pg_atomic_read_u32(&shared->phase) == PHASE_LOADING &&
		!pg_atomic_read_u32(&shared->stop_requested) &&
		!pg_atomic_read_u32(&shared->failed);
}

/*
 * Count one more active worker in a run, unless none is left: then the
 * last one out has ended it (or is ending it), and a replacement is too
 * late.
 */
static bool
autoresume_join_run(JobShared *shared)
{
	uint32		active = pg_atomic_read_u32(&shared->active);

	do
	{
		if (active == 0)
			return false;
	} while (!pg_atomic_compare_exchange_u32(&shared->active, &active, active + 1));
	pg_atomic_fetch_add_u32(&shared->loading, 1);
	return true;
}

/*
 * Start a worker in slot `index` of def's live run in place of the one
 * that died there: counted as active and loading before it starts, so that
 * the last worker out cannot end the run meanwhile, it loads first the
 * unit its predecessor claimed (worker.c), then claims like the others.
 */
static void
autoresume_replace(const JobDef *def, JobShared *shared, int index,
				   const char *dbname)
{
	WorkerSlot *slot = &shared->workers[index];
	WorkerArgs	args = {0};

	if (!autoresume_replaceable(def, shared, index) || !autoresume_join_run(shared))
		return;
	args.job = def->job;
	args.run = def->run;
	args.index = index;
	args.database = MyDatabaseId;
	args.role = def->owner;
	args.starter_xid = InvalidTransactionId;
	args.handle = def->handle;
	args.replacing = true;
	args.redo = slot->claimed;
	SpinLockAcquire(&slot->mutex);
	slot->replaced_at = GetCurrentTimestamp();
	slot->reason[0] = '\0';
	SpinLockRelease(&slot->mutex);
	slot->pid = 0;
	pg_atomic_write_u32(&slot->state, JOB_STARTING);
	if (launch_try_worker(&pending_worker_kind, def->job, index, &args, sizeof(args)))
	{
		ereport(LOG,
				(errmsg("petagen: restarted worker %d of job " INT64_FORMAT " in database \"%s\"",
						index, def->job, dbname),
				 args.redo >= 0 ?
				 errdetail("It exited while the others ran; the new one loads first the %s it held, " INT64_FORMAT ".",
						   def->method->unit_name, args.redo) :
				 errdetail("It exited while the others ran, holding no %s.",
						   def->method->unit_name)));
		return;
	}
	/* the run ends interrupted once the others are done, and is resumed */
	pg_atomic_write_u32(&slot->state, JOB_INTERRUPTED);
	pg_atomic_fetch_sub_u32(&shared->loading, 1);
	pg_atomic_fetch_sub_u32(&shared->active, 1);
	ereport(LOG,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("petagen: could not restart worker %d of job " INT64_FORMAT " in database \"%s\": no background worker slot is free",
					index, def->job, dbname),
			 errhint("You may need to increase \"max_worker_processes\".")));
}

/*
 * Replace the workers that died in this database's live runs while their
 * other workers ran; none if petagen is not installed.
 */
static void
autoresume_replace_dead(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (OidIsValid(get_extension_oid("petagen", true)))
	{
		int			nrunning;
		int64	   *running = ledger_running_job_ids(&nrunning);
		char	   *dbname = get_database_name(MyDatabaseId);

		for (int i = 0; i < nrunning; i++)
		{
			JobDef		def;
			dsm_segment *seg;
			JobShared  *shared;

			if (!job_read(running[i], &def, true) ||
				(shared = job_attach(&def, &seg)) == NULL)
				continue;
			for (int w = 0; w < shared->nworkers; w++)
				autoresume_replace(&def, shared, w, dbname);
			dsm_detach(seg);
		}
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/*
 * Can a retry of a job that failed with this SQLSTATE succeed, the cause
 * gone meanwhile?  Transient causes, by class:
 *	08	connection exception (a remote leaf's connection);
 *	40	transaction rollback: serialization failure, deadlock;
 *	53	insufficient resources: disk full, out of memory, too many
 *		connections, no free background worker slot (53400);
 *	58	system error: I/O errors;
 * and 55P03 lock_not_available (lock_timeout), 57P01..57P03 (terminated
 * by an administrator, a crash, the server not accepting connections yet).
 * Anything else is permanent: a dropped table (42P01), a missing privilege
 * (42501), a constraint violation (23xxx), bad data (22xxx), an object in
 * use (55006) ... a retry meets it again.
 */
bool
autoretry_transient(int sqlerrcode)
{
	switch (ERRCODE_TO_CATEGORY(sqlerrcode))
	{
		case ERRCODE_CONNECTION_EXCEPTION:
		case ERRCODE_TRANSACTION_ROLLBACK:
		case ERRCODE_INSUFFICIENT_RESOURCES:
		case ERRCODE_SYSTEM_ERROR:
			return true;
		default:
			return sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE ||
				sqlerrcode == ERRCODE_ADMIN_SHUTDOWN ||
				sqlerrcode == ERRCODE_CRASH_SHUTDOWN ||
				sqlerrcode == ERRCODE_CANNOT_CONNECT_NOW;
	}
}

/* Seconds before a job's next retry: the delay, doubled per retry, 10 min at most. */
static int
autoretry_backoff(int retries)
{
	int64		secs = petagen_auto_retry_delay;

	for (int i = 0; i < retries && secs < 600; i++)
		secs *= 2;
	return (int) Min(secs, 600);
}

/* Set a failed job's retries and next retry, in a transaction of its own. */
static void
autoretry_set(int64 job, int32 retries, TimestampTz next)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	ledger_set_retry(job, retries, next);
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/*
 * Deal with a failed job, or an interrupted one whose resume was refused:
 * give up on it for good (a permanent cause, or petagen.auto_retry's
 * retries spent), set its retry after the backoff, or, when that is due,
 * count the retry and resume it as its owner.
 */
static void
autoretry_job(const LedgerFailedJob *f, const char *dbname, MemoryContext cxt)
{
	AutoresumeJob job = {f->job, f->owner, 0};

	if (!autoretry_transient(f->sqlerrcode))
	{
		autoretry_set(f->job, f->retries, DT_NOEND);
		ereport(LOG,
				(errmsg("petagen: not retrying job " INT64_FORMAT " in database \"%s\": %s (permanent, SQLSTATE %s)",
						f->job, dbname, f->error, unpack_sql_state(f->sqlerrcode)),
				 errhint("Remove the cause, then resume it with petagen.resume(" INT64_FORMAT ").", f->job)));
	}
	else if (f->retries >= petagen_auto_retry)
	{
		autoretry_set(f->job, f->retries, DT_NOEND);
		ereport(LOG,
				(errmsg("petagen: not retrying job " INT64_FORMAT " in database \"%s\": %d retries spent",
						f->job, dbname, f->retries),
				 errdetail("Its last run failed: %s.", f->error),
				 errhint("Resume it with petagen.resume(" INT64_FORMAT ") once the cause is gone.", f->job)));
	}
	else if (!f->scheduled)
		autoretry_set(f->job, f->retries,
					  TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
												  autoretry_backoff(f->retries) * INT64CONST(1000)));
	else
	{
		/* counted first: a refusal is recorded, to be decided again */
		autoretry_set(f->job, f->retries + 1, 0);
		ereport(LOG,
				(errmsg("petagen: retrying job " INT64_FORMAT " in database \"%s\" (attempt %d of %d) after: %s",
						f->job, dbname, f->retries + 1, petagen_auto_retry, f->error)));
		(void) autoresume_try_resume(&job, dbname, cxt);
	}
}

/*
 * Keep of the nfailed jobs in failed those the launcher may retry: not
 * an interrupted job that has a live run again; returns how many are left.
 */
static int
autoretry_drop_live(LedgerFailedJob *failed, int nfailed)
{
	int			n = 0;

	for (int i = 0; i < nfailed; i++)
	{
		JobDef		def;

		if (failed[i].interrupted &&
			(!job_read(failed[i].job, &def, true) || live_is_running(&def)))
			continue;
		failed[n++] = failed[i];
	}
	return n;
}

/*
 * With petagen.auto_retry on, deal with this database's failed jobs, and
 * interrupted ones whose resume was refused, whose retry is undecided or
 * due; none if petagen is not installed or its catalog is 0.1's (no column
 * to keep a failure's SQLSTATE).
 */
static void
autoretry_failed(const char *dbname, MemoryContext cxt)
{
	LedgerFailedJob *failed = NULL;
	int			nfailed = 0;

	if (petagen_auto_retry <= 0)
		return;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	MemoryContextSwitchTo(cxt);
	if (OidIsValid(get_extension_oid("petagen", true)) &&
		catalog_version() >= CATALOG_V0_2)
	{
		failed = ledger_failed_jobs(&nfailed);
		nfailed = autoretry_drop_live(failed, nfailed);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	for (int i = 0; i < nfailed; i++)
		autoretry_job(&failed[i], dbname, cxt);
}

/* Entry point of a database's worker: resume its interrupted jobs, retry its failed ones. */
void
petagen_autoresume_db_main(Datum main_arg)
{
	AutoresumeArgs args;
	MemoryContext cxt;
	AutoresumeJob *jobs;
	int			njobs;
	char	   *dbname;
	const char *reason;

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(args));
	if (!args.at_start)
		reason = "its workers exited before it finished";
	else if (args.shut_down)
		reason = "server shut down";
	else
		reason = "server crashed or was killed";
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(args.database, InvalidOid, 0);
	SetConfigOption("search_path", CATALOG_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION);
	SetConfigOption("lock_timeout", AUTORESUME_LOCK_TIMEOUT, PGC_USERSET, PGC_S_SESSION);
	cxt = AllocSetContextCreate(TopMemoryContext, "petagen auto-resume",
								ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cxt);
	if (!args.at_start)
		autoresume_replace_dead();
	MemoryContextSwitchTo(cxt);
	jobs = autoresume_interrupted(cxt, args.at_start, &njobs);
	StartTransactionCommand();
	dbname = MemoryContextStrdup(cxt, get_database_name(args.database));
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	for (int i = 0; i < njobs; i++)
		autoresume_job(&jobs[i], dbname, reason, cxt);
	autoretry_failed(dbname, cxt);
	proc_exit(0);
}
