/*-------------------------------------------------------------------------
 * guard.c
 *		Refusing what must not happen where it is asked for: writes in a
 *		read-only transaction or on a hot standby, a table argument the
 *		caller could not have named, and DROP EXTENSION petagen while load
 *		workers run.
 *
 * A regclass argument may be given as a bare OID, which skips the USAGE
 * check on the table's schema that name lookup does: guard_table() makes
 * it, so a table is reachable through petagen exactly when it is reachable
 * by name.
 *
 * DROP EXTENSION petagen would drop the catalog under running workers.
 * The extension script creates an event trigger on ddl_command_start for
 * the DROP EXTENSION tag; its function, petagen_guard_drop_extension(),
 * looks at the statement and, when it names petagen, refuses while a load
 * job has a live run.  Other DDL does not fire it, and DROP EXTENSION of
 * other extensions returns at once.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_namespace.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "guard.h"
#include "job/jobdef.h"

/* Raise PostgreSQL's errors for a write in a read-only transaction or recovery. */
void
guard_writable(const char *funcname)
{
	PreventCommandIfReadOnly(funcname);
	PreventCommandDuringRecovery(funcname);
}

/* Raise an error unless relid is a relation whose schema the user may use. */
void
guard_table(Oid relid)
{
	Oid			nspid = get_rel_namespace(relid);
	AclResult	acl;

	if (!OidIsValid(nspid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	acl = compat_namespace_aclcheck(nspid, GetUserId(), ACL_USAGE);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_SCHEMA, get_namespace_name(nspid));
}

/* Does a DROP EXTENSION statement name petagen? */
static bool
guard_drops_petagen(Node *parsetree)
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

/* The jobs the catalog says are running (live or interrupted); *n of them. */
static int64 *
guard_running_jobs(int *n)
{
	MemoryContext cxt = CurrentMemoryContext;
	int64	   *jobs;

	SPI_connect();
	if (SPI_execute("SELECT job FROM petagen.jobs"
					" WHERE state OPERATOR(pg_catalog.=) 'running' ORDER BY job",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "petagen: could not read petagen.jobs");
	*n = (int) SPI_processed;
	jobs = MemoryContextAlloc(cxt, sizeof(int64) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		bool		isnull;

		jobs[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
											  SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	return jobs;
}

/* Raise an error if a load job has workers running. */
static void
guard_no_live_job(void)
{
	int			n;
	int64	   *jobs = guard_running_jobs(&n);

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
	if (guard_drops_petagen(trigdata->parsetree))
		guard_no_live_job();
	PG_RETURN_VOID();
}
