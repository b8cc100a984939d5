/*-------------------------------------------------------------------------
 * launch.c
 *		The one launcher of petagen's background workers (load jobs and
 *		benchmark runs), the checks made before a launch (a sane worker
 *		count, free slots, a role the workers can connect as), and the
 *		error handling the workers share.
 *
 * One worker is static, registered at server start when petagen is in
 * shared_preload_libraries: the auto-resume launcher (job/autoresume.c).
 * The others are dynamic.  Workers get their arguments in bgw_extra; they
 * connect as the role the caller names (the caller's, or a job's owner)
 * with the privileges of that role only.  Free slots are counted from the
 * server's backend status entries, the same for every role, whatever
 * pg_stat_activity shows it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/backend_status.h"
#include "utils/syscache.h"

#include "compat.h"
#include "launch.h"

/*
 * Fill worker as a worker of kind that connects to a database once the
 * server accepts connections (not on a hot standby), with no restart.
 */
static void
launch_fill(BackgroundWorker *worker, const LaunchKind *kind)
{
	memset(worker, 0, sizeof(*worker));
	worker->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker->bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker->bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker->bgw_library_name, "petagen", BGW_MAXLEN);
	strlcpy(worker->bgw_function_name, kind->function, BGW_MAXLEN);
	strlcpy(worker->bgw_type, kind->type, BGW_MAXLEN);
}

/*
 * Register worker `index` of run `id` of a kind, with args in bgw_extra;
 * NULL when no slot is free.
 */
BackgroundWorkerHandle *
launch_try_worker(const LaunchKind *kind, int64 id, int index,
				  const void *args, Size args_len)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	Assert(args_len <= BGW_EXTRALEN);
	launch_fill(&worker, kind);
	worker.bgw_notify_pid = kind->notify ? MyProcPid : 0;
	snprintf(worker.bgw_name, BGW_MAXLEN, kind->name_format, id, index);
	memcpy(worker.bgw_extra, args, args_len);
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		return NULL;
	return handle;
}

/*
 * Register worker `index` of nworkers of run `id` of a kind, with args in
 * bgw_extra; raises an error when no slot is free.
 */
BackgroundWorkerHandle *
launch_worker(const LaunchKind *kind, int64 id, int index, int nworkers,
			  const void *args, Size args_len)
{
	BackgroundWorkerHandle *handle = launch_try_worker(kind, id, index,
													   args, args_len);

	if (handle == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("could not register background worker %d of %d",
						index + 1, nworkers),
				 errhint("You may need to increase \"max_worker_processes\".")));
	return handle;
}

/* Whether this server registered the auto-resume launcher (preloaded). */
static bool launch_autoresume_registered = false;

/*
 * Register the auto-resume launcher (job/autoresume.c): started as the
 * server begins to accept connections, restarted 10 seconds after it
 * crashes.  Only from _PG_init, while shared_preload_libraries is
 * processed.
 */
void
launch_register_autoresume(void)
{
	static const LaunchKind kind = {
		"petagen_autoresume_main", "petagen launcher", "petagen launcher", false
	};
	BackgroundWorker worker;

	launch_fill(&worker, &kind);
	worker.bgw_restart_time = 10;
	strlcpy(worker.bgw_name, kind.name_format, BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
	launch_autoresume_registered = true;
}

/*
 * Slots auto-resume needs beyond a job's workers after a restart: the
 * per-database worker that calls resume() holds one while the job's
 * workers start (the launcher and the server's own workers, such as the
 * logical replication launcher, are running and counted as used).
 */
int
launch_autoresume_slots(void)
{
	return launch_autoresume_registered ? 1 : 0;
}

/*
 * Background worker slots not in use: max_worker_processes less the
 * background workers running now (ours, parallel query's, other
 * extensions'), counted from the server's backend status entries with no
 * privilege filter, so every role gets the same figure.  A worker that is
 * registered but has not started yet holds a slot and is not counted.
 */
int
launch_free_slots(void)
{
	int			used = 0;

	for (int i = 1; i <= pgstat_fetch_stat_numbackends(); i++)
	{
		LocalPgBackendStatus *entry = compat_local_beentry(i);

		if (entry != NULL && entry->backendStatus.st_backendType == B_BG_WORKER)
			used++;
	}
	return max_worker_processes - used;
}

/* Raise an error unless nworkers is a worker count a job or run may have. */
void
launch_check_worker_count(int nworkers)
{
	if (nworkers < 1 || nworkers > LAUNCH_MAX_WORKERS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workers must be between 1 and %d, not %d",
						LAUNCH_MAX_WORKERS, nworkers)));
}

/* Raise an error unless nworkers workers can be started now. */
void
launch_check_workers(int nworkers)
{
	int			free_slots;

	launch_check_worker_count(nworkers);
	free_slots = launch_free_slots();
	if (nworkers > free_slots)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("not enough free background worker slots for %d workers",
						nworkers),
				 errdetail("max_worker_processes is %d and %d slots are free.",
						   max_worker_processes, Max(free_slots, 0)),
				 errhint("Use fewer workers, or increase \"max_worker_processes\" and restart the server.")));
}

/*
 * Raise an error unless workers can connect as role: before PostgreSQL 17
 * a background worker cannot connect as a role without LOGIN; from 17 on
 * they bypass that check (compat.h), so every role can.
 */
void
launch_check_login(Oid role, const char *funcname)
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
 * In a worker's PG_CATCH: copy the error into cxt, clear it and abort the
 * transaction; the caller reports it and frees it with FreeErrorData().
 */
ErrorData *
launch_catch_and_abort(MemoryContext cxt)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	AbortCurrentTransaction();
	MemoryContextSwitchTo(cxt);
	return edata;
}
