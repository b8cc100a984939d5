/*-------------------------------------------------------------------------
 * leafload.c
 *		Leaf-at-a-time loads (start(..., method => 'leaf')): route first,
 *		then write each local leaf whole, in one transaction, into new
 *		storage.
 *
 * Routing: the key space is cut into ranges, each routed once into a
 * routing file that lists, per local leaf, the key numbers that land there
 * (leafroute.c); a leaf is written from its lists in every range's file.
 * The files are $PGDATA/pg_petagen/<database oid>/<route token>/range.<n>,
 * one job's only: a file whose header does not name this job, its token,
 * the range, its key options and the table's layout fails the leaf.  They
 * are removed when a run ends other than interrupted, swept by start() and
 * resume(), and removed by DROP EXTENSION.
 *
 * Writing: a worker claims a local leaf and, in one transaction, locks the
 * table ROW EXCLUSIVE (as INSERT does) and the leaf EXCLUSIVE (see Locks
 * below), then, under those locks, checks everything a chunk job checks
 * for each chunk:
 * INSERT on the table and TRUNCATE on the leaf, that the leaf is still a
 * leaf of the table, the columns' types and lengths against the keys and
 * fields, policies, triggers and rules of table and leaf.  It refuses the
 * leaf unless it is empty, as seen by a snapshot taken after the lock (the
 * transaction's first snapshot predates the wait for the lock, and would
 * miss rows committed meanwhile).  It gives the leaf, its TOAST table and
 * all their indexes new storage as TRUNCATE does (ExecuteTruncateGuts)
 * and records the new files (leafstorage.c), writes the leaf's
 * rows frozen (as COPY FREEZE after a TRUNCATE: nobody sees the new
 * storage before commit) through the writer's direct mode, which builds
 * the heap pages and the visibility map in backend memory and hands them
 * to storage in bulk (leafpages.c), each key first checked against the
 * leaf's partition bounds as they are now (route_open_leaf(): a key
 * routed elsewhere raises PostgreSQL's partition constraint error,
 * 23514), CHECK constraints as the writer checks them, and builds its
 * indexes into their new storage with index_build(), as REINDEX does, so
 * no row goes through a btree insert, checking UNIQUE and EXCLUDE
 * constraints as REINDEX does (23505, 23P01).  It then locks the leaf,
 * its TOAST table and their indexes ACCESS EXCLUSIVE; the caller adds the
 * ledger row and commits.  With wal_level = minimal PostgreSQL writes no
 * WAL for the new storage and syncs it at commit; above minimal every
 * page goes to WAL as a full-page image.  An abort or a crash
 * leaves the old, empty storage in place: nothing of an unfinished leaf is
 * ever visible.  The new files stay recorded until the transaction ends,
 * so that resume() can drop what a crash left.
 *
 * Locks: a leaf being written blocks no reader.  Its new storage is built
 * under EXCLUSIVE, on the leaf, its TOAST table and their indexes: the
 * weakest lock that conflicts with itself and with every lock a writer or
 * DDL takes (ROW EXCLUSIVE for INSERT, UPDATE, DELETE, COPY; SHARE UPDATE
 * EXCLUSIVE for VACUUM, ANALYZE, CREATE INDEX CONCURRENTLY; SHARE for
 * CREATE INDEX; ACCESS EXCLUSIVE for TRUNCATE, ALTER, DROP), and
 * lets ACCESS SHARE through: SELECT on the table or the leaf,
 * pg_partition_tree(), pg_total_relation_size(), the planner's look at the
 * leaf's indexes (SELECT ... FOR UPDATE, ROW SHARE, waits; it would find
 * no row).  The new relfilenumbers are in pg_class rows this transaction
 * has not committed, and the relcache invalidation that announces them is
 * sent at commit, so every other backend keeps reading the old, empty
 * storage, which stays on disk until commit.  The leaf stays empty there:
 * nothing that writes a row can lock it meanwhile, and the check that it
 * is empty ran after the lock was granted, so it is not checked again
 * (this backend's relcache now points at the new storage).  At commit the
 * old files are unlinked, so before it the worker takes ACCESS EXCLUSIVE
 * on the leaf, its TOAST table and their indexes (as CLUSTER's
 * finish_heap_swap() runs under it): it waits for the readers that hold
 * ACCESS SHARE to finish, and new readers wait behind it until the commit,
 * which then holds only the ledger row and the sync of the new files at
 * wal_level = minimal.  A reader that comes after sees the new storage.
 * The indexes are built serially: a parallel btree build's workers lock
 * the index ACCESS EXCLUSIVE, which would block the planner of every
 * query on the table for the build.
 * Upgrading EXCLUSIVE to ACCESS EXCLUSIVE cannot deadlock with another
 * upgrade of the leaf's lock: EXCLUSIVE conflicts with itself and with
 * every stronger lock but ACCESS SHARE, so while the worker holds it the
 * only other holders are readers.  A reader that, in the same
 * transaction, then asks for a lock that conflicts with EXCLUSIVE (a write
 * or DDL of the leaf after reading it) waits for the worker while the
 * worker waits for it: PostgreSQL's deadlock detector breaks that cycle by
 * failing one of them, which can be the leaf's transaction (retried as any
 * failed leaf is).
 *
 * Privileges: new storage for a leaf is what TRUNCATE does, so the job's
 * owner needs the TRUNCATE privilege on every local leaf (checked at
 * start() and again before each leaf), besides INSERT on the table.  On
 * Citus the leaves are the local shard tables, which Citus gives the
 * distributed table's owner and grants (a GRANT on the coordinator reaches
 * them); the router's leaves of other nodes' shards are skipped while
 * routing, like foreign leaves.  Their keys are credited, range by range,
 * to the local leaves' ledger rows (foreign_skipped), so a job's keys add
 * up to the key space as a chunk job's do.  No utility statement runs on a
 * shard (new storage and index builds are internal calls), so
 * Citus's guard against manual changes to shards, in its utility hook, is
 * not involved.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "commands/tablecmds.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "gen/keys.h"
#include "gen/rowgen.h"
#include "load/leafload.h"
#include "load/leafroute.h"
#include "load/leafstorage.h"
#include "load/writer.h"
#include "route/route.h"

/* Report progress at least every this many keys. */
#define LEAF_PROGRESS_KEYS	10000

/* The lock a leaf's new storage is built under: see Locks above. */
#define LEAF_BUILD_LOCK		ExclusiveLock

/* Raise an error unless the current role may give leaf rel new storage. */
static void
leaf_check_privilege(Oid leafrelid)
{
	if (pg_class_aclcheck(leafrelid, GetUserId(), ACL_TRUNCATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(leafrelid)),
				 errdetail("method => 'leaf' gives each leaf new storage, as TRUNCATE does."),
				 errhint("GRANT TRUNCATE on every local leaf to the role that runs the job, or use method => 'chunk'.")));
}

/* Does leaf rel hold a row that snapshot sees? */
bool
leaf_has_rows(Relation rel, Snapshot snapshot)
{
	TableScanDesc scan = table_beginscan(rel, snapshot, 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	bool		found = table_scan_getnextslot(scan, ForwardScanDirection, slot);

	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	return found;
}

/*
 * Raise an error if leaf rel, locked LEAF_BUILD_LOCK, holds rows: looked
 * for with a snapshot taken now, after the lock, so that rows committed
 * while this worker waited for the lock are seen (the transaction's own
 * snapshot predates the wait).
 */
static void
leaf_check_empty(Relation rel)
{
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	bool		has_rows = leaf_has_rows(rel, snapshot);

	UnregisterSnapshot(snapshot);
	if (has_rows)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("leaf \"%s\" is not empty", RelationGetRelationName(rel)),
				 errdetail("method => 'leaf' writes only into empty leaves: it gives each leaf new storage."),
				 errhint("TRUNCATE the leaf first if its rows may go, or use method => 'chunk'.")));
}

/* The local leaves of relid in routing order (palloc'd); *nlocal set. */
Oid *
leaf_local_leaves(Oid relid, int *nlocal)
{
	Router	   *router = route_open(relid);
	Oid		   *leaves = palloc(sizeof(Oid) * Max(route_nleaves(router), 1));

	*nlocal = 0;
	for (int i = 0; i < route_nleaves(router); i++)
		if (route_leaf(router, i)->local)
			leaves[(*nlocal)++] = route_leaf(router, i)->relid;
	route_close(router);
	return leaves;
}

/*
 * The local leaves of relid that hold rows; the first one's name in
 * *first_name (NULL if none).
 */
int64
leaf_nonempty(Oid relid, char **first_name)
{
	int			nlocal;
	Oid		   *leaves = leaf_local_leaves(relid, &nlocal);
	int64		n = 0;

	*first_name = NULL;
	for (int i = 0; i < nlocal; i++)
	{
		Relation	rel = table_open(leaves[i], AccessShareLock);

		if (leaf_has_rows(rel, GetActiveSnapshot()))
		{
			if (n++ == 0)
				*first_name = pstrdup(RelationGetRelationName(rel));
		}
		table_close(rel, AccessShareLock);
	}
	return n;
}

/*
 * Raise an error unless a leaf job can load relid: keys unique by
 * construction, no indexes => 'after', TRUNCATE on every local leaf.
 * Leaves that hold rows are check()'s finding (start() refuses on it) and
 * each worker's refusal (leaf_check_empty).
 */
void
leaf_check(Oid relid, const GenSpec *spec, bool indexes_after)
{
	int			nlocal;
	Oid		   *leaves;

	if (spec->keys.mode == KEYS_YCSB || spec->keys.mode == KEYS_GO_YCSB)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("method => 'leaf' cannot load keys of mode \"%s\"",
						keys_mode_name(spec->keys.mode)),
				 errdetail("Hashed YCSB keys have duplicates, which are found through the unique index on ycsb_key while loading; a leaf load builds its indexes after its rows."),
				 errhint("Use keys => 'scrambled' or 'ordered', or method => 'chunk'.")));
	if (indexes_after)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method => 'leaf' cannot be combined with indexes => 'after'"),
				 errdetail("A leaf load builds each leaf's indexes after writing the leaf, in the same transaction."),
				 errhint("Leave indexes out, or use method => 'chunk'.")));
	leaves = leaf_local_leaves(relid, &nlocal);
	for (int i = 0; i < nlocal; i++)
		leaf_check_privilege(leaves[i]);
}

/*
 * In the current transaction: lock the job's table as INSERT does and the
 * leaf LEAF_BUILD_LOCK, then check under those locks everything a chunk
 * job checks per chunk: privileges, that the leaf is still a leaf of the
 * table, the shape of its columns (typmods) against the keys and fields,
 * policies, triggers and rules of table and leaf, and that it is empty.
 */
static void
leaf_lock_checked(const LeafRouting *routing, Oid leafrelid)
{
	Relation	rel;
	RowShape	shape;
	int64		last_seq = routing->first + Max(routing->rows - 1, 0);

	load_check_privilege(routing->relid);
	LockRelationOid(routing->relid, RowExclusiveLock);
	rel = table_open(leafrelid, LEAF_BUILD_LOCK);
	leaf_check_privilege(leafrelid);
	load_check_table(routing->relid, &routing->spec, last_seq, &shape);
	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	spec_check_shape(&routing->spec, &shape, last_seq, RelationGetRelationName(rel));
	load_check_bypass(rel);
	CheckTableNotInUse(rel, "petagen.start");
	leaf_check_empty(rel);
	table_close(rel, NoLock);
}

/*
Give every index of rel new, empty storage, each locked LEAF_BUILD_LOCK
 * and checked as REINDEX checks it; leaf_build_indexes() builds them.
 */
static void
leaf_new_index_storage(Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), LEAF_BUILD_LOCK);

		CheckTableNotInUse(index, "petagen.start");
		TransferPredicateLocksToHeapRelation(index);
		compat_set_new_relfilenumber(index, index->rd_rel->relpersistence);
		index_close(index, NoLock);
	}
	list_free(indexes);
}

/*
 * Build every index of relation relid (locked LEAF_BUILD_LOCK) from its
 * heap into the index's new storage (leaf_new_storage()), as REINDEX does
 * after giving it new storage, checking UNIQUE and EXCLUDE constraints
 * (23505, 23P01).
 */
static void
leaf_build_indexes(Oid relid)
{
	Relation	heap = relation_open(relid, NoLock);
	List	   *indexes = RelationGetIndexList(heap);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), LEAF_BUILD_LOCK);

		index_build(heap, index, BuildIndexInfo(index), true, false);
		index_close(index, NoLock);
		CommandCounterIncrement();
	}
	list_free(indexes);
	relation_close(heap, NoLock);
}

/*
 * Give a locked leaf, its TOAST table and all their indexes new, empty
 * storage, as TRUNCATE does, so that every new file exists, and can be
 * recorded, before anything is written.  The TOAST table's index is built
 * (empty) at once: values stored out of line go through it as they are
 * written.  The leaf's indexes are built after its rows.
 */
static void
leaf_new_storage(Oid leafrelid)
{
	Relation	rel = table_open(leafrelid, NoLock);
	Oid			toastrelid = rel->rd_rel->reltoastrelid;

	compat_set_new_relfilenumber(rel, rel->rd_rel->relpersistence);
	leaf_new_index_storage(rel);
	table_close(rel, NoLock);
	if (OidIsValid(toastrelid))
	{
		Relation	toastrel = relation_open(toastrelid, LEAF_BUILD_LOCK);

		compat_set_new_relfilenumber(toastrel, toastrel->rd_rel->relpersistence);
		leaf_new_index_storage(toastrel);
		table_close(toastrel, NoLock);
		leaf_build_indexes(toastrelid);
	}
}

/* Raise PostgreSQL's error for a row outside a leaf's partition bounds. */
static void
leaf_partition_violation(Oid leafrelid, const KeySpec *keys, int64 seq)
{
	char		key[KEYS_MAX_LEN + 1];

	keys_format(keys, seq, key);
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("new row for relation \"%s\" violates partition constraint",
					get_rel_name(leafrelid)),
			 errdetail("Key number " INT64_FORMAT " has ycsb_key \"%s\", which the table's partitions now route elsewhere.",
					   seq, key),
			 errhint("The table's partitions changed after the job routed its keys: petagen.resume() routes them again.")));
}

/*
 * Write the rows of leaf leafno's key numbers from every range file,
 * each key first checked against the leaf's bounds as they are now.
 */
static void
leaf_write_rows(const LeafRouting *routing, Oid leafrelid, int leafno,
				int64 nranges, LoadStats *stats, LoadProgressFn progress,
				void *progress_arg)
{
	Relation	rel = table_open(leafrelid, NoLock);
	Router	   *bounds = route_open_leaf(routing->relid, leafrelid);
	RowShape	shape;
	RowGen		rg;
	Writer	   *writer = writer_open_direct(leafrelid, &routing->spec);
	int			since_progress = 0;

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	table_close(rel, NoLock);
	rowgen_init(&rg, &shape, &routing->spec);
	for (int64 range = 0; range < nranges; range++)
	{
		LeafReader *r = leaf_reader_open(routing, range, leafno, routing->nlocal);
		int64		seq;

		stats->keys += leaf_reader_foreign(r);
		stats->foreign += leaf_reader_foreign(r);
		while (leaf_reader_next(r, &seq))
		{
			bool		flushed;

			if ((++since_progress & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			rowgen_build_key(&rg, seq);
			if (route_key(bounds, rg.key) != 0)
				leaf_partition_violation(leafrelid, &rg.spec.keys, seq);
			stats->keys++;
			flushed = writer_add(writer, 0, seq, rg.key, stats);
			if ((since_progress >= LEAF_PROGRESS_KEYS || flushed) && progress)
			{
				progress(progress_arg, stats);
				since_progress = 0;
			}
		}
		leaf_reader_close(r);
	}
	writer_flush_all(writer, stats);
	writer_close(writer);
	route_close(bounds);
}

/*
 * For the commit that puts relation relid's new storage in place: lock it,
 * its TOAST table and their indexes ACCESS EXCLUSIVE, waiting for their
 * readers to finish (see Locks above).
 */
static void
leaf_lock_for_commit(Oid relid)
{
	Relation	rel = relation_open(relid, AccessExclusiveLock);
	Oid			toastrelid = rel->rd_rel->reltoastrelid;
	ListCell   *lc;

	foreach(lc, RelationGetIndexList(rel))
		LockRelationOid(lfirst_oid(lc), AccessExclusiveLock);
	relation_close(rel, NoLock);
	if (OidIsValid(toastrelid))
		leaf_lock_for_commit(toastrelid);
}

/*
 * In the current transaction: write local leaf leafno whole from the
 * nranges routing files of routing's job, into new storage, frozen, and
 * build its indexes, checking every UNIQUE and EXCLUDE constraint as the
 * build goes (23505, 23P01, as load() raises them); adds to *stats.  Ends
 * with the leaf locked ACCESS EXCLUSIVE.  The caller records the leaf and
 * commits.
 */
void
leaf_write(const LeafRouting *routing, Oid leafrelid, int leafno,
		   int64 nranges, LoadStats *stats,
		   LoadProgressFn progress, void *progress_arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "petagen leaf", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);

	leaf_lock_checked(routing, leafrelid);
	leaf_new_storage(leafrelid);
	leaf_storage_record(routing->job, leafno, leafrelid);
	leaf_write_rows(routing, leafrelid, leafno, nranges, stats, progress,
					progress_arg);
	if (progress)
		progress(progress_arg, stats);
	leaf_build_indexes(leafrelid);
	leaf_lock_for_commit(leafrelid);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}
