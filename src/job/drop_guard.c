/*-------------------------------------------------------------------------
 * drop_guard.c
 *		Extension petagen cannot be dropped while load workers run: that
 *		would drop the job catalog under them.
 *
 * The extension script creates an event trigger on ddl_command_start for
 * the tags of every statement that can drop the extension: DROP EXTENSION,
 * DROP SCHEMA (of its schema, CASCADE or not) and DROP OWNED (by the role
 * that owns the extension or its schema).  Its function,
 * petagen_guard_drop_extension(), looks at the statement and, when it
 * would drop petagen, refuses while a load job has a live run.  Other DDL
 * does not fire it, and the statements that drop something else return at
 * once.  A drop it lets through removes the database's routing files of
 * leaf jobs when its transaction commits (leafdir.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "tcop/cmdtag.h"
#include "utils/acl.h"

#include "catalog.h"
#include "job/ledger.h"
#include "job/live.h"
#include "load/leafdir.h"
#include "load/leafroute.h"

/* What a statement must name to drop petagen. */
typedef struct DropGuardTarget
{
	char	   *schema;			/* the extension's schema */
	Oid			owner;			/* the extension's owner */
	Oid			schema_owner;
} DropGuardTarget;

/* drop_guard_target()'s target list. */
enum
{
	Anum_target_schema = 1,
	Anum_target_owner,
	Anum_target_schema_owner,
};

/* Read petagen's schema and owners from the catalogs into target. */
static void
drop_guard_target(DropGuardTarget *target)
{
	MemoryContext cxt = CurrentMemoryContext;
	CatalogScope scope;
	bool		isnull;

	catalog_connect(&scope, false);
	catalog_exec("SELECT n.nspname::text, x.extowner, n.nspowner"
				 " FROM pg_catalog.pg_extension x"
				 " JOIN pg_catalog.pg_namespace n ON n.oid = x.extnamespace"
				 " WHERE x.extname = 'petagen'",
				 0, NULL, NULL, NULL, SPI_OK_SELECT);
	target->schema = catalog_text(0, Anum_target_schema, cxt);
	target->owner = DatumGetObjectId(catalog_value(0, Anum_target_owner, &isnull));
	target->schema_owner = DatumGetObjectId(catalog_value(0, Anum_target_schema_owner, &isnull));
	catalog_finish(&scope);
}

/* Does a list of names (String nodes) hold name? */
static bool
drop_guard_names(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp(strVal(lfirst(lc)), name) == 0)
			return true;
	return false;
}

/* Does DROP OWNED BY these roles drop what target's roles own? */
static bool
drop_guard_owned(List *roles, const DropGuardTarget *target)
{
	ListCell   *lc;

	foreach(lc, roles)
	{
		Oid			role = get_rolespec_oid(lfirst(lc), true);

		if (role == target->owner || role == target->schema_owner)
			return true;
	}
	return false;
}

/* Would this DROP EXTENSION, DROP SCHEMA or DROP OWNED drop petagen? */
static bool
drop_guard_drops_petagen(Node *parsetree)
{
	DropStmt   *drop = (DropStmt *) parsetree;
	DropGuardTarget target;

	if (parsetree == NULL)
		return false;
	if (IsA(parsetree, DropOwnedStmt))
	{
		drop_guard_target(&target);
		return drop_guard_owned(((DropOwnedStmt *) parsetree)->roles, &target);
	}
	if (!IsA(parsetree, DropStmt))
		return false;
	if (drop->removeType == OBJECT_EXTENSION)
		return drop_guard_names(drop->objects, "petagen");
	if (drop->removeType != OBJECT_SCHEMA)
		return false;
	drop_guard_target(&target);
	return drop_guard_names(drop->objects, target.schema);
}

/* Raise an error if a load job has workers running; tag names the statement. */
static void
drop_guard_no_live_job(const char *tag)
{
	int			n;
	int64	   *jobs = ledger_running_job_ids(&n);

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
					 errdetail("%s would drop extension petagen; the job's workers write into the table and into petagen's catalog.",
							   tag),
					 errhint("Stop it with petagen.stop(" INT64_FORMAT ") or wait for it with petagen.wait(" INT64_FORMAT ") first.",
							 jobs[i], jobs[i])));
	}
}

PG_FUNCTION_INFO_V1(petagen_guard_drop_extension);
/* Event trigger on the DROPs of petagen: refuse them under live workers. */
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
		drop_guard_no_live_job(GetCommandTagName(trigdata->tag));
		leaf_remove_database_at_commit();
	}
	PG_RETURN_VOID();
}
