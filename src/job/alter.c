/*-------------------------------------------------------------------------
 * alter.c
 *		petagen.alter(): change the workers, max_rate and disk_reserve of a
 *		job that runs, is paused or throttled, stopped, failed or
 *		interrupted.
 *
 * The job's catalog row takes the new values in the caller's transaction,
 * and resume() starts every later run with them.  A run that is going
 * reads max_rate and disk_reserve from its shared state (jobdef.h), before
 * every batch and every sleep: alter() attaches the run's segment now and
 * writes into it, when its transaction commits, the values the catalog
 * then holds for the job.  So a rolled-back alter() (or savepoint) changes
 * nothing, and concurrent alter() calls, which take turns on the job's
 * row, reach the workers in commit order.  The values are read at
 * pre-commit, where an error still aborts the transaction, and written at
 * commit, where nothing can fail.
 *
 * A run keeps its workers: alter() records a new worker count only for a
 * job without a live run, for its next resume(), and refuses it for a
 * running job with the recipe (stop(), then resume(job, workers)).  The
 * same roles may alter a job as may stop it.
 *
 * alter() returns the job's settings as they now stand, and a NOTICE for
 * a value that changes nothing the job does: a disk_reserve below
 * petagen.disk_reserve, the floor a job may raise but never lower ('0',
 * which asks for the setting's, is no surprise), and any setting of a job
 * whose table was dropped (it cannot run again).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "guard.h"
#include "launch.h"
#include "job/job.h"
#include "job/ledger.h"
#include "job/live.h"
#include "job/options.h"
#include "job/pending.h"
#include "job/sizing.h"
#include "petagen.h"

/* alter()'s arguments in SQL order. */
typedef enum AlterArg
{
	ALTER_ARG_JOB,
	ALTER_ARG_WORKERS,
	ALTER_ARG_MAX_RATE,
	ALTER_ARG_DISK_RESERVE
} AlterArg;

/* A run whose shared state takes its job's settings at commit. */
typedef struct AlterRun
{
	int64		job;
	int32		run;
	dsm_segment *seg;
	JobDef		def;			/* the catalog's settings, read at pre-commit */
	bool		current;		/* the catalog still names this run */
	struct AlterRun *next;
} AlterRun;

/* This transaction's altered runs, in TopTransactionContext. */
static AlterRun *alter_runs = NULL;
static bool alter_callback_set = false;

/* At pre-commit, read each altered run's settings; at commit, publish them. */
static void
alter_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_PREPARE && alter_runs != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot PREPARE a transaction that altered a running petagen load job"),
				 errdetail("Its workers would take the new settings before COMMIT PREPARED.")));
	if (event == XACT_EVENT_PRE_COMMIT && alter_runs != NULL)
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		for (AlterRun *r = alter_runs; r != NULL; r = r->next)
			r->current = job_read(r->job, &r->def, true) && r->def.run == r->run;
		PopActiveSnapshot();
	}
	if (event == XACT_EVENT_COMMIT)
		for (AlterRun *r = alter_runs; r != NULL; r = r->next)
		{
			if (r->current)
				live_write_settings(dsm_segment_address(r->seg), &r->def);
			dsm_detach(r->seg);
		}
	/* on abort, the segments go with the transaction's resource owner */
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
		alter_runs = NULL;
}

/*
 * Have def's run, if one is going, take the job's settings when this
 * transaction commits: attach its segment for the rest of the transaction.
 */
static void
alter_publish_at_commit(const JobDef *def)
{
	ResourceOwner save = CurrentResourceOwner;
	AlterRun   *r;
	dsm_segment *seg;

	for (r = alter_runs; r != NULL; r = r->next)
		if (r->job == def->job && r->run == def->run)
			return;
	CurrentResourceOwner = TopTransactionResourceOwner;
	(void) job_attach(def, &seg);
	CurrentResourceOwner = save;
	if (seg == NULL)
		return;					/* no run going: resume() reads the catalog */
	if (!alter_callback_set)
	{
		RegisterXactCallback(alter_xact_callback, NULL);
		alter_callback_set = true;
	}
	r = MemoryContextAllocZero(TopTransactionContext, sizeof(AlterRun));
	r->job = def->job;
	r->run = def->run;
	r->seg = seg;
	r->next = alter_runs;
	alter_runs = r;
}

/* Raise an error unless def's job may be altered now, its workers too if given. */
static void
alter_check_alterable(const JobDef *def, bool workers)
{
	if (strcmp(def->state, "done") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " is already done", def->job),
				 errhint("petagen.alter() changes jobs that run, are stopped, failed or interrupted.")));
	if (pending_has_job(def->job))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " was started or resumed in this transaction",
						def->job),
				 errhint("Give the settings to petagen.start() or petagen.resume(), or commit, then call petagen.alter(" INT64_FORMAT ").",
						 def->job)));
	if (workers && strcmp(def->state, "running") == 0 && live_is_running(def))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot change the workers of load job " INT64_FORMAT " while it runs",
						def->job),
				 errdetail("A run keeps the workers it started with."),
				 errhint("Stop it with petagen.stop(" INT64_FORMAT "), then continue it with petagen.resume(" INT64_FORMAT ", workers => ...).",
						 def->job, def->job)));
}

/* Raise an error unless at least one setting is given. */
static void
alter_check_some_setting(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(ALTER_ARG_WORKERS) && PG_ARGISNULL(ALTER_ARG_MAX_RATE) &&
		PG_ARGISNULL(ALTER_ARG_DISK_RESERVE))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("petagen.alter() needs workers, max_rate or disk_reserve"),
				 errhint("For example: SELECT petagen.alter(" INT64_FORMAT ", max_rate => '50MB');",
						 PG_GETARG_INT64(ALTER_ARG_JOB))));
}

/* alter()'s workers in range, or -1 (unchanged) when NULL. */
static int32
alter_workers(FunctionCallInfo fcinfo)
{
	int32		nworkers;

	if (PG_ARGISNULL(ALTER_ARG_WORKERS))
		return -1;
	nworkers = PG_GETARG_INT32(ALTER_ARG_WORKERS);
	if (nworkers < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workers must be between 1 and %d, not %d",
						LAUNCH_MAX_WORKERS, nworkers),
				 errhint("To keep the job's workers, leave workers out (or pass NULL).")));
	launch_check_worker_count(nworkers);
	return nworkers;
}

/* NOTICEs for the values given to alter() that change nothing def's job does. */
static void
alter_note_no_effect(const JobDef *def, int64 disk_reserve)
{
	int64		floor = (int64) petagen_disk_reserve_mb * 1024 * 1024;

	if (get_rel_name(def->relid) == NULL)
		ereport(NOTICE,
				(errmsg("the new settings of load job " INT64_FORMAT " have no effect: its table was dropped",
						def->job),
				 errdetail("The job loaded the relation with OID %u, which no longer exists, so it cannot run again.",
						   def->relid),
				 errhint("Remove the job with petagen.forget(" INT64_FORMAT ").", def->job)));
	else if (disk_reserve > 0 && disk_reserve < floor)
		ereport(NOTICE,
				(errmsg("disk_reserve %s has no effect on load job " INT64_FORMAT ": petagen.disk_reserve is %s",
						text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(disk_reserve)))),
						def->job,
						text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(floor))))),
				 errdetail("A job's disk_reserve may raise the server's reserve, never lower it: the job keeps %s free.",
						   text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(job_reserve(def)))))),
				 errhint("To leave less free space, lower petagen.disk_reserve in postgresql.conf and reload.")));
}

/* alter()'s result row: def's job's settings as they now stand. */
static Datum
alter_result(FunctionCallInfo fcinfo, const JobDef *def)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(def->job);
	values[1] = CStringGetTextDatum(def->state);
	values[2] = Int32GetDatum(def->nworkers);
	values[3] = Int64GetDatum(def->max_rate);
	nulls[3] = def->max_rate <= 0;
	values[4] = Int64GetDatum(def->disk_reserve);
	nulls[4] = def->disk_reserve < 0;
	values[5] = Int64GetDatum(job_reserve(def));
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

/* A size argument of alter() in bytes, or -1 (unchanged) when NULL. */
static int64
alter_size(FunctionCallInfo fcinfo, AlterArg arg, const char *argname)
{
	if (PG_ARGISNULL(arg))
		return -1;
	return options_size_bytes(PG_GETARG_TEXT_PP(arg), argname);
}

PG_FUNCTION_INFO_V1(petagen_alter);
/*
 * petagen.alter(job, workers, max_rate, disk_reserve): change a job's
 * settings; returns them as they now stand.
 */
Datum
petagen_alter(PG_FUNCTION_ARGS)
{
	JobDef		def;
	int32		nworkers;
	int64		max_rate;
	int64		disk_reserve;

	guard_writable("petagen.alter()");
	job_check_operator();
	options_check_job_arg(fcinfo, "petagen.alter()");
	alter_check_some_setting(fcinfo);
	nworkers = alter_workers(fcinfo);
	max_rate = alter_size(fcinfo, ALTER_ARG_MAX_RATE, "max_rate");
	disk_reserve = alter_size(fcinfo, ALTER_ARG_DISK_RESERVE, "disk_reserve");
	job_read(PG_GETARG_INT64(ALTER_ARG_JOB), &def, false);
	job_check_owner(&def, "petagen.alter()");
	alter_check_alterable(&def, nworkers != -1);
	/* the row is ours until commit: read the run it names now */
	ledger_alter_job(def.job, nworkers, max_rate, disk_reserve);
	job_read(def.job, &def, false);
	alter_check_alterable(&def, nworkers != -1);
	alter_publish_at_commit(&def);
	alter_note_no_effect(&def, disk_reserve);
	return alter_result(fcinfo, &def);
}
