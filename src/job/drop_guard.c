/*-------------------------------------------------------------------------
 * drop_guard.c
 *		Extension petagen, and the table a load job writes, cannot be
 *		dropped while the job's workers run: that would drop the job catalog
 *		or the table under them.
 *
 * The extension script creates an event trigger on ddl_command_start for
 * the tags of every statement that can drop the extension: DROP EXTENSION,
 * DROP SCHEMA (of its schema, CASCADE or not) and DROP OWNED (by the role
 * that owns the extension or its schema).  Its function,
 * petagen_guard_drop_extension(), looks at the statement and, when it
 * would drop petagen, refuses while a load job has a live run.  Other DDL
 * does not fire it, and the statements that drop something else return at
 * once.  A drop it lets through has each load method remove the
 * database's files outside relations when its transaction commits (the
 * routing files of leaf jobs, leafroute.c).
 *
 * The same trigger fires for DROP TABLE and refuses, while a job's workers
 * run, every DROP TABLE, DROP SCHEMA and DROP OWNED that would drop the
 * job's table: the table itself, one of its partitions (a leaf the workers
 * write), or a partitioned table it is a partition of; the schema that
 * holds it; its owner's objects.  Without the guard the statement would
 * wait for the leaf or chunk in flight, drop the table, and fail the job
 * on the next one with no word of the table.  The check runs before the
 * statement takes its locks, so it refuses at once.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/cmdtag.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "job/ledger.h"
#include "job/live.h"
#include "load/load.h"

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
	{
		if (strcmp(strVal(lfirst(lc)), name) == 0)
			return true;
	}
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

/* The jobs of this database whose workers run (or are paused); *n set. */
static JobDef *
drop_guard_live_jobs(int *n)
{
	int			njobs;
	int64	   *jobs = ledger_running_job_ids(&njobs);
	JobDef	   *live = palloc(sizeof(JobDef) * Max(njobs, 1));

	*n = 0;
	for (int i = 0; i < njobs; i++)
	{
		JobState	state;

		if (!job_read(jobs[i], &live[*n], true))
			continue;
		state = job_current_state(&live[*n]);
		if (state < JOB_DONE && state != JOB_INTERRUPTED)
			(*n)++;
	}
	return live;
}

/* Raise an error if a load job has workers running; tag names the statement. */
static void
drop_guard_no_live_job(const char *tag)
{
	int			n;
	JobDef	   *live = drop_guard_live_jobs(&n);

	if (n > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot drop extension petagen while load job " INT64_FORMAT " is running",
						live[0].job),
				 errdetail("%s would drop extension petagen; the job's workers write into the table and into petagen's catalog.",
						   tag),
				 errhint("Stop it with petagen.stop(" INT64_FORMAT ") or wait for it with petagen.wait(" INT64_FORMAT ") first.",
						 live[0].job, live[0].job)));
}

/*
 * Would dropping relation dropped drop relid: relid itself, a partition
 * of it (at any depth), or a partitioned table relid is a partition of?
 */
static bool
drop_guard_rel_drops(Oid dropped, Oid relid)
{
	return dropped == relid ||
		list_member_oid(get_partition_ancestors(dropped), relid) ||
		list_member_oid(get_partition_ancestors(relid), dropped);
}

/* The owner of relation relid, or InvalidOid if it is gone. */
static Oid
drop_guard_rel_owner(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

/* Would this DROP TABLE, DROP SCHEMA or DROP OWNED drop table relid? */
static bool
drop_guard_drops_table(Node *parsetree, Oid relid)
{
	DropStmt   *drop = (DropStmt *) parsetree;
	ListCell   *lc;

	if (IsA(parsetree, DropOwnedStmt))
	{
		Oid			owner = drop_guard_rel_owner(relid);
		DropGuardTarget target = {NULL, owner, owner};

		return OidIsValid(owner) &&
			drop_guard_owned(((DropOwnedStmt *) parsetree)->roles, &target);
	}
	if (!IsA(parsetree, DropStmt))
		return false;
	if (drop->removeType == OBJECT_SCHEMA)
	{
		char	   *schema = get_namespace_name(get_rel_namespace(relid));

		return schema != NULL && drop_guard_names(drop->objects, schema);
	}
	if (drop->removeType != OBJECT_TABLE)
		return false;
	foreach(lc, drop->objects)
	{
		RangeVar   *rv = makeRangeVarFromNameList(lfirst(lc));
		Oid			dropped = RangeVarGetRelid(rv, NoLock, true);

		if (OidIsValid(dropped) && drop_guard_rel_drops(dropped, relid))
			return true;
	}
	return false;
}

/*
 * Raise an error if the statement would drop the table of a load job
 * whose workers run; tag names the statement.
 */
static void
drop_guard_no_live_table(Node *parsetree, const char *tag)
{
	int			n;
	JobDef	   *live;

	if (parsetree == NULL)
		return;
	live = drop_guard_live_jobs(&n);
	for (int i = 0; i < n; i++)
		if (drop_guard_drops_table(parsetree, live[i].relid))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("cannot drop table \"%s\" while load job " INT64_FORMAT " is running",
							get_rel_name(live[i].relid), live[i].job),
					 errdetail("%s would drop table \"%s\", which the job's workers write into.",
							   tag, get_rel_name(live[i].relid)),
					 errhint("Stop it with petagen.stop(" INT64_FORMAT ") or wait for it with petagen.wait(" INT64_FORMAT ") first.",
							 live[i].job, live[i].job)));
}

/*
 * Have every load method remove the database's files outside relations
 * when this transaction commits (the leaf method's routing files).
 */
static void
drop_guard_methods_at_commit(void)
{
	for (int i = 0; load_methods[i] != NULL; i++)
		if (load_methods[i]->drop_database)
			load_methods[i]->drop_database();
}

PG_FUNCTION_INFO_V1(petagen_guard_drop_extension);
/*
 * Event trigger on the DROPs of petagen and of tables: refuse those that
 * would drop petagen or a job's table under live workers.
 */
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
		drop_guard_methods_at_commit();
	}
	drop_guard_no_live_table(trigdata->parsetree,
							 GetCommandTagName(trigdata->tag));
	PG_RETURN_VOID();
}
