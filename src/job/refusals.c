/*-------------------------------------------------------------------------
 * refusals.c
 *		The refusals petagen.start() and petagen.resume() share: a table
 *		the current role cannot load with a job, and another job on the
 *		same partition tree.  start()'s refusal when the preflight check
 *		finds an error is in preflight.c.
 *
 * Each refusal is an ERROR raised here; petagen.check() runs the same
 * checks through check_try(), which turns the error into a finding.
 * Starts and resumes on one partition tree take turns from
 * check_no_other_job() to their commit, on a lock of the tree's root.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "job/ledger.h"
#include "job/refusals.h"
#include "load/load.h"
#include "route/route.h"

/*
 * Raise an error unless the current role can load the table with a job
 * whose last key number is last_seq.
 */
void
check_table_loadable(Oid relid, const GenSpec *spec, int64 last_seq)
{
	Router	   *router;
	int			nlocal = 0;

	load_check_privilege(relid);
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load temporary table \"%s\" with a job",
						get_rel_name(relid)),
				 errdetail("Background workers cannot access the temporary tables of other sessions."),
				 errhint("Use petagen.load() in this session, or load a permanent or unlogged table.")));
	router = route_open(relid);
	route_check_citus_local(router, relid);
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
	load_check(relid, spec, last_seq);
}

/*
 * Take turns with the other start() and resume() calls on relid's partition
 * tree, from here to commit: an object lock on the tree's root (not the
 * table's own lock, which the load does not need), so that an open
 * transaction that started a job holds up only the starts that could
 * conflict with it, and not the row writes of workers and stop().
 */
static void
check_lock_tree(Oid relid)
{
	List	   *ancestors = get_partition_ancestors(relid);
	Oid			root = ancestors == NIL ? relid : llast_oid(ancestors);

	LockDatabaseObject(RelationRelationId, root, 0, ExclusiveLock);
}

/*
 * Raise an error if another job the catalog says is running (live or
 * interrupted) loads relid or a table that shares partitions with it: both
 * would write the same leaves, and a frozen job's repair could delete the
 * other's rows.  Starts and resumes on one partition tree take turns from
 * here to commit.
 */
void
check_no_other_job(Oid relid, int64 except_job)
{
	int64		other;
	Oid			other_rel;

	check_lock_tree(relid);
	if (!ledger_running_conflict(relid, except_job, &other, &other_rel))
		return;
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

/*
 * Run fn(arg) in a subtransaction: NULL if it succeeds, else its error,
 * the subtransaction rolled back.  What fn allocates is in the caller's
 * memory context, and the locks it takes stay.
 */
ErrorData *
check_try(void (*fn) (void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return edata;
}

/*
 * May the current role see which leaves of relid hold rows?  A role with
 * SELECT on the table, or on a column of it, can count them through it.
 */
bool
check_may_read(Oid relid)
{
	Oid			userid = GetUserId();

	return pg_class_aclcheck(relid, userid, ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck_all(relid, userid, ACL_SELECT,
								  ACLMASK_ANY) == ACLCHECK_OK;
}
