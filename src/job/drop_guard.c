/*-------------------------------------------------------------------------
 * drop_guard.c
 *		DROP EXTENSION petagen is refused while load workers run: it would
 *		drop the job catalog under them.
 *
 * The extension script creates an event trigger on ddl_command_start for
 * the DROP EXTENSION tag; its function, petagen_guard_drop_extension(),
 * looks at the statement and, when it names petagen, refuses while a load
 * job has a live run.  Other DDL does not fire it, and DROP EXTENSION of
 * other extensions returns at once.  A drop it lets through removes the
 * database's routing files of leaf jobs when its transaction commits
 * (leafroute.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/event_trigger.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"

#include "job/ledger.h"
#include "job/live.h"
#include "load/leafroute.h"

/* Does a DROP EXTENSION statement name petagen? */
static bool
drop_guard_drops_petagen(Node *parsetree)
{
	DropStmt   *stmt = (DropStmt *) parsetree;
	ListCell   *lc;

	if (parsetree == NULL || !IsA(parsetree, DropStmt) ||
		stmt->removeType != OBJECT_EXTENSION)
		return false;
	foreach(lc, stmt->objects)
		if (strcmp(strVal(lfirst(lc)), "petagen") == 0)
			return true;
	return false;
}

/* Raise an error if a load job has workers running. */
static void
drop_guard_no_live_job(void)
{
	int			n;
	int64	   *jobs = ledger_job_ids(true, &n);

	for (int i = 0; i < n; i++)
	{
		JobDef		def;
		JobState	state;

		if (!job_read(jobs[i], &def, true))
			continue;
		state = job_current_state(&def);
		if (state < JOB_DONE && state != JOB_INTERRUPTED)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("cannot drop extension petagen while load job " INT64_FORMAT " is running",
							jobs[i]),
					 errdetail("Its workers write into the table and into petagen's catalog."),
					 errhint("Stop it with petagen.stop(" INT64_FORMAT ") or wait for it with petagen.wait(" INT64_FORMAT "), then drop the extension.",
							 jobs[i], jobs[i])));
	}
}

PG_FUNCTION_INFO_V1(petagen_guard_drop_extension);
/* Event trigger on DROP EXTENSION: refuse to drop petagen under live workers. */
Datum
petagen_guard_drop_extension(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function petagen.guard_drop_extension() must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	if (drop_guard_drops_petagen(trigdata->parsetree))
	{
		drop_guard_no_live_job();
		leaf_remove_database_at_commit();
	}
	PG_RETURN_VOID();
}
