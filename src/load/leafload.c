/*-------------------------------------------------------------------------
 * leafload.c
 *		Leaf-at-a-time loads: each local leaf written whole into new storage,
 *		its new files recorded, its heap pages built in memory, its key index.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relation.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/visibilitymapdefs.h"
#include "access/xact.h"
#include "access/xlogrecord.h"
#include "access/xlogutils.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "catalog/pg_opfamily.h"
#include "catalog/storage.h"
#include "common/hashfn.h"
#include "commands/tablecmds.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "storage/md.h"
#include "storage/predicate.h"
#include "storage/smgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "compat.h"
#include "gen/keys.h"
#include "gen/rowgen.h"
#include "load/load.h"
#include "load/load_int.h"
#include "route/route.h"

static void leaf_storage_record(int64 job, int leafno, Oid leafrelid);
static LeafRowMap *leafrowmap_create(int key_att);
static void leafrowmap_add_key(LeafRowMap *map, int64 seq);
static void leafrowmap_add_page(LeafRowMap *map, OffsetNumber nrows);
static void leafrowmap_check_toasted(LeafRowMap *map, Relation rel,
									 HeapTuple stored);
static void leafkeys_build(Relation heap, Relation index,
						   const LeafRouting *routing, int leafno,
						   int64 nranges, const LeafRowMap *map);
static bool leafkeys_eligible(Relation index, const LeafRowMap *map);


/*-------------------------------------------------------------------------
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
 * and records the new files (below), writes the leaf's
 * rows frozen (as COPY FREEZE after a TRUNCATE: nobody sees the new
 * storage before commit) through the writer's direct mode, which builds
 * the heap pages and the visibility map in backend memory (the TOAST
 * table's too, whose index it builds after them: leaftoast.c) and hands
 * them to storage in bulk (below), each key first checked against the
 * leaf's partition bounds as they are now (route_open_leaf(): a key
 * routed elsewhere raises PostgreSQL's partition constraint error,
 * 23514), CHECK constraints as the writer checks them, and builds its
 * indexes into their new storage with index_build(), as REINDEX does, so
 * no row goes through a btree insert, checking UNIQUE and EXCLUDE
 * constraints as REINDEX does (23505, 23P01): a btree on ycsb_key alone
 * (the primary key) fed the rows' TIDs and keys as they were written,
 * without reading the heap back, every other index from the heap (see
 * "A leaf's index on its key" below).  It then locks the leaf,
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

/* Does leaf rel hold a row that snapshot sees?  Any relation will do. */
bool
load_has_rows(Relation rel, Snapshot snapshot)
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
	bool		has_rows = load_has_rows(rel, snapshot);

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

		if (load_has_rows(rel, GetActiveSnapshot()))
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
 * Give every index of rel new, empty storage, each locked LEAF_BUILD_LOCK
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
 * Build every index of relation relid (locked LEAF_BUILD_LOCK) into the
 * index's new storage (leaf_new_storage()), as REINDEX does after giving it
 * new storage, checking UNIQUE and EXCLUDE constraints (23505, 23P01).
 * With routing given (the leaf, its rows written as map records), an index
 * on the key alone is fed the rows' keys from there (leafkeys_build());
 * every other index reads the heap (index_build()).
 */
static void
leaf_build_indexes(Oid relid, const LeafRouting *routing, int leafno,
				   int64 nranges, const LeafRowMap *map)
{
	Relation	heap = relation_open(relid, NoLock);
	List	   *indexes = RelationGetIndexList(heap);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), LEAF_BUILD_LOCK);

		if (routing != NULL && leafkeys_eligible(index, map))
			leafkeys_build(heap, index, routing, leafno, nranges, map);
		else
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
 * recorded, before anything is written; returns the TOAST table, if any.
 * The indexes are built after the rows, the TOAST table's too: values
 * stored out of line do not go through it as they are written
 * (leaftoast.c).
 */
static Oid
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
	}
	return toastrelid;
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
 * each key first checked against the leaf's bounds as they are now;
 * returns the record of where they went (for leafkeys_build()).
 */
static LeafRowMap *
leaf_write_rows(const LeafRouting *routing, Oid leafrelid, int leafno,
				int64 nranges, LoadStats *stats, LoadProgressFn progress,
				void *progress_arg)
{
	Relation	rel = table_open(leafrelid, NoLock);
	Router	   *bounds = route_open_leaf(routing->relid, leafrelid);
	RowShape	shape;
	RowGen		rg;
	LeafRowMap *map;
	Writer	   *writer;
	int			since_progress = 0;

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	table_close(rel, NoLock);
	map = leafrowmap_create(shape.key_att);
	writer = writer_open_direct(leafrelid, &routing->spec, map);
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
			leafrowmap_add_key(map, seq);
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
	return map;
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
	LeafRowMap *map;
	Oid			toastrelid;

	leaf_lock_checked(routing, leafrelid);
	toastrelid = leaf_new_storage(leafrelid);
	leaf_storage_record(routing->job, leafno, leafrelid);
	map = leaf_write_rows(routing, leafrelid, leafno, nranges, stats,
						  progress, progress_arg);
	if (progress)
		progress(progress_arg, stats);
	if (OidIsValid(toastrelid))
		leaftoast_build_unbuilt(toastrelid);
	leaf_build_indexes(leafrelid, routing, leafno, nranges, map);
	leaf_lock_for_commit(leafrelid);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}


/*-------------------------------------------------------------------------
 *		The new files of a leaf being written by a leaf load, recorded on
 *		disk before its commit, so that the files a crash leaves behind are
 *		dropped by resume(), on the primary and on its standbys.
 *
 * A leaf load gives a leaf, its TOAST table and all their indexes new
 * storage in the leaf's transaction (as TRUNCATE does).  An abort removes
 * the new files, but a crash does not: PostgreSQL forgets files created
 * by a transaction that never ended, and they stay on disk, outside every
 * relation, on the primary and on every standby that replayed their
 * creation, a whole leaf's heap and indexes per worker per crash.  So,
 * once the leaf and its indexes have their new, empty files and before
 * anything is written into them, the worker records their locations in
 * $PGDATA/pg_petagen/storage/<database>_<job>_<leaf> (written under a
 * temporary name and renamed durably); it removes the record after the
 * leaf's transaction commits or aborts.
 *
 * A record found by resume() or forget() (no worker of the job is alive
 * then) was left by a crash.  If the ledger holds the leaf, its
 * transaction committed and the files are the leaf's.  Otherwise every
 * recorded file that exists and that no pg_class row uses is dropped in
 * the calling transaction as DROP TABLE drops a relation's files
 * (RelationDropStorage()): when it commits, its commit record lists them,
 * the files go, and a standby replaying the record drops its copies
 * (xact_redo_commit()).  Crash recovery replays the record too: the main
 * fork of a dropped file is only truncated at commit and unlinked by the
 * next checkpoint, and a crash before that checkpoint leaves the unlink to
 * the redo of the commit record.  The record is renamed to
 * <name>.drop first, so that a new record of the leaf, written by a
 * worker the same resume() launches, never has its name, and is removed
 * only when the dropping transaction commits: if it rolls back, the next
 * resume() or forget() drops the files again.  A recorded file cannot
 * belong to anyone else: its relfilenumber is not given to a new relation
 * while the file exists, and the record goes at the commit that drops it.
 * Records of a database that no longer exists (its files went with it)
 * are removed by start() and resume() in any database.
 *
 * What a crash can still leave: the empty files of a leaf between their
 * creation and its record (microseconds, nothing written yet).
 *-------------------------------------------------------------------------
 */

#define LEAF_STORAGE_PARENT	"pg_petagen"
#define LEAF_STORAGE_DIR	LEAF_STORAGE_PARENT "/storage"
#define LEAF_STORAGE_MAGIC	0x5047534C	/* "PGSL" */
#define LEAF_STORAGE_DROP	".drop"

/* The head of a record; nfiles CompatRelFile follow. */
typedef struct LeafStorageHeader
{
	uint32		magic;
	uint32		nfiles;
	int64		job;
	int32		leafno;
	Oid			database;
} LeafStorageHeader;

/* The files being collected for a record. */
typedef struct LeafFiles
{
	int			n;
	int			max;
	CompatRelFile *files;
} LeafFiles;

/* A record to remove when the transaction that dropped its files commits. */
typedef struct LeafRecordAtCommit
{
	int			nestLevel;		/* of the (sub)transaction that dropped them */
	char		path[MAXPGPATH];
} LeafRecordAtCommit;

/* The records to remove at commit (in TopMemoryContext). */
static List *leaf_records_at_commit = NIL;

/* The path of the record of leaf leafno of job in this database. */
static void
leaf_storage_path(char *path, size_t size, int64 job, int leafno, bool tmp)
{
	snprintf(path, size, LEAF_STORAGE_DIR "/%u_" INT64_FORMAT "_%d%s",
			 MyDatabaseId, job, leafno, tmp ? ".tmp" : "");
}

/* Append the files of relation relid and of its indexes to lf. */
static void
leaf_storage_add_rel(LeafFiles *lf, Oid relid)
{
	Relation	rel = relation_open(relid, NoLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	if (lf->n + list_length(indexes) + 1 > lf->max)
	{
		lf->max = (lf->n + list_length(indexes) + 1) * 2;
		lf->files = repalloc(lf->files, sizeof(CompatRelFile) * lf->max);
	}
	lf->files[lf->n++] = compat_rel_file(rel);
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		lf->files[lf->n++] = compat_rel_file(index);
		index_close(index, NoLock);
	}
	relation_close(rel, NoLock);
}

/*
 * Record the files leaf leafrelid (locked ACCESS EXCLUSIVE in the current
 * transaction) has now, its TOAST table's and all their indexes', as leaf
 * leafno of job; replaces an earlier record of the leaf.
 */
static void
leaf_storage_record(int64 job, int leafno, Oid leafrelid)
{
	LeafFiles	lf = {0, 8, palloc(sizeof(CompatRelFile) * 8)};
	LeafStorageHeader hdr = {LEAF_STORAGE_MAGIC, 0, job, leafno, MyDatabaseId};
	Relation	leaf = relation_open(leafrelid, NoLock);
	Oid			toastrelid = leaf->rd_rel->reltoastrelid;
	char		tmp[MAXPGPATH];
	char		path[MAXPGPATH];
	int			fd;

	relation_close(leaf, NoLock);
	leaf_storage_add_rel(&lf, leafrelid);
	if (OidIsValid(toastrelid))
		leaf_storage_add_rel(&lf, toastrelid);
	hdr.nfiles = lf.n;
	leaf_make_dir(LEAF_STORAGE_PARENT);
	leaf_make_dir(LEAF_STORAGE_DIR);
	leaf_storage_path(tmp, sizeof(tmp), job, leafno, true);
	leaf_storage_path(path, sizeof(path), job, leafno, false);
	fd = OpenTransientFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmp)));
	leaf_write_all(fd, &hdr, sizeof(hdr), tmp);
	leaf_write_all(fd, lf.files, sizeof(CompatRelFile) * lf.n, tmp);
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", tmp)));
	/* fsyncs the file, renames it, fsyncs the directory */
	durable_rename(tmp, path, ERROR);
	pfree(lf.files);
}

/* Remove the record of leaf leafno of job, if there is one. */
void
leaf_storage_forget(int64 job, int leafno)
{
	char		path[MAXPGPATH];
	struct stat st;

	leaf_storage_path(path, sizeof(path), job, leafno, false);
	if (stat(path, &st) == 0)
		(void) durable_unlink(path, WARNING);
}

/*
 * Read the record at path into *hdr and a palloc'd array of its files;
 * NULL if it is not a whole record of job in this database.
 */
static CompatRelFile *
leaf_storage_read(const char *path, int64 job, LeafStorageHeader *hdr)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	CompatRelFile *files = NULL;
	size_t		len;

	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	if (read(fd, hdr, sizeof(*hdr)) == sizeof(*hdr) &&
		hdr->magic == LEAF_STORAGE_MAGIC && hdr->job == job &&
		hdr->database == MyDatabaseId && hdr->leafno >= 0 &&
		hdr->nfiles <= MaxAllocSize / sizeof(CompatRelFile))
	{
		len = sizeof(CompatRelFile) * hdr->nfiles;
		files = palloc(Max(len, 1));
		if (read(fd, files, len) != (ssize_t) len)
		{
			pfree(files);
			files = NULL;
		}
	}
	CloseTransientFile(fd);
	return files;
}

/*
 * Drop file when this transaction commits, if it exists, as DROP TABLE
 * drops a relation's files: its commit record lists the file, so that
 * standbys and crash recovery drop it too.  Returns whether it exists.
 */
static bool
leaf_storage_drop_at_commit(CompatRelFile file)
{
	Relation	fake = CreateFakeRelcacheEntry(file);
	bool		exists;

	/*
	 * On 17 and later the entry comes with an unpinned smgr handle, which
	 * RelationCloseSmgr() would unpin: open a pinned one of our own.
	 */
	fake->rd_smgr = NULL;
	exists = smgrexists(RelationGetSmgr(fake), MAIN_FORKNUM);
	if (exists)
	{
		/* a commit record lists dropped files only with an XID */
		(void) GetCurrentTransactionId();
		RelationDropStorage(fake);
	}
	RelationCloseSmgr(fake);
	FreeFakeRelcacheEntry(fake);
	return exists;
}

/*
 * Have the files of one record left by a crash dropped at commit, unless
 * the ledger (done, a bit per leaf) holds its leaf: those that exist and
 * that no pg_class row uses.  Returns how many.
 */
static int
leaf_storage_drop_record(const char *path, int64 job, const uint8 *done,
						 int nleaves)
{
	LeafStorageHeader hdr;
	CompatRelFile *files = leaf_storage_read(path, job, &hdr);
	int			ndrop = 0;

	if (files == NULL)
		return 0;
	if (hdr.leafno >= nleaves || !(done[hdr.leafno / 8] & (1 << (hdr.leafno % 8))))
	{
		for (uint32 i = 0; i < hdr.nfiles; i++)
			if (COMPAT_FILE_DB(files[i]) == MyDatabaseId &&
				!OidIsValid(compat_relid_by_file(COMPAT_FILE_SPC(files[i]),
												 COMPAT_FILE_NUMBER(files[i]))) &&
				leaf_storage_drop_at_commit(files[i]))
				ndrop++;
	}
	pfree(files);
	return ndrop;
}

/* At the end of a transaction: remove the records whose files it dropped. */
static void
leaf_storage_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	if (event == XACT_EVENT_COMMIT)
	{
		foreach(lc, leaf_records_at_commit)
			(void) durable_unlink(((LeafRecordAtCommit *) lfirst(lc))->path, WARNING);
	}
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		list_free_deep(leaf_records_at_commit);
		leaf_records_at_commit = NIL;
	}
}

/*
 * At the end of a subtransaction: its records pass to its parent, or stay
 * (with the files they list) if it rolled back.
 */
static void
leaf_storage_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							  SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();
	ListCell   *lc;

	foreach(lc, leaf_records_at_commit)
	{
		LeafRecordAtCommit *rec = lfirst(lc);

		if (rec->nestLevel < level)
			continue;
		if (event == SUBXACT_EVENT_COMMIT_SUB)
			rec->nestLevel = level - 1;
		else if (event == SUBXACT_EVENT_ABORT_SUB)
		{
			leaf_records_at_commit = foreach_delete_current(leaf_records_at_commit, lc);
			pfree(rec);
		}
	}
}

/* Remove the record at path when this transaction commits. */
static void
leaf_storage_remove_at_commit(const char *path)
{
	static bool registered = false;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	LeafRecordAtCommit *rec = palloc(sizeof(LeafRecordAtCommit));

	if (!registered)
	{
		RegisterXactCallback(leaf_storage_xact_callback, NULL);
		RegisterSubXactCallback(leaf_storage_subxact_callback, NULL);
		registered = true;
	}
	rec->nestLevel = GetCurrentTransactionNestLevel();
	strlcpy(rec->path, path, sizeof(rec->path));
	leaf_records_at_commit = lappend(leaf_records_at_commit, rec);
	MemoryContextSwitchTo(old);
}

/*
 * At resume() or forget() of job, whose workers are all gone: have the
 * files of its leaves that a crash interrupted (done: a bit per leaf the
 * ledger holds, nleaves of them) dropped, and every record of the job
 * removed, when this transaction commits; returns how many files.
 */
int
leaf_storage_remove_orphans(int64 job, const uint8 *done, int nleaves)
{
	char		prefix[64];
	char		path[MAXPGPATH];
	DIR		   *dir;
	struct dirent *de;
	int			ndropped = 0;

	snprintf(prefix, sizeof(prefix), "%u_" INT64_FORMAT "_", MyDatabaseId, job);
	dir = AllocateDir(LEAF_STORAGE_DIR);
	if (dir == NULL && errno == ENOENT)
		return 0;
	while ((de = ReadDirExtended(dir, LEAF_STORAGE_DIR, ERROR)) != NULL)
	{
		const char *dot = strchr(de->d_name, '.');

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), LEAF_STORAGE_DIR "/%s", de->d_name);
		/* a record still being written (".tmp") names nothing yet */
		if (dot != NULL && strcmp(dot, LEAF_STORAGE_DROP) != 0)
		{
			(void) durable_unlink(path, WARNING);
			continue;
		}
		if (dot == NULL)
		{
			char		drop[MAXPGPATH];

			snprintf(drop, sizeof(drop), "%s" LEAF_STORAGE_DROP, path);
			durable_rename(path, drop, ERROR);
			strlcpy(path, drop, sizeof(path));
		}
		ndropped += leaf_storage_drop_record(path, job, done, nleaves);
		leaf_storage_remove_at_commit(path);
	}
	FreeDir(dir);
	return ndropped;
}

/*
 * Remove the records of databases that no longer exist: their files went
 * with the database.
 */
void
leaf_storage_sweep_dropped(void)
{
	char		path[MAXPGPATH];
	DIR		   *dir = AllocateDir(LEAF_STORAGE_DIR);
	struct dirent *de;

	if (dir == NULL && errno == ENOENT)
		return;
	while ((de = ReadDirExtended(dir, LEAF_STORAGE_DIR, ERROR)) != NULL)
	{
		char	   *end;
		unsigned long dboid = strtoul(de->d_name, &end, 10);

		if (!isdigit((unsigned char) de->d_name[0]) || *end != '_' ||
			SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum((Oid) dboid)))
			continue;
		snprintf(path, sizeof(path), LEAF_STORAGE_DIR "/%s", de->d_name);
		(void) durable_unlink(path, WARNING);
	}
	FreeDir(dir);
}


/*-------------------------------------------------------------------------
 *		The direct writer of a leaf load: a leaf's rows placed into heap
 *		pages built in backend memory, which go to storage in bulk, and its
 *		visibility map built alongside, as CLUSTER and VACUUM FULL write a
 *		new heap (rewriteheap.c's raw_heap_insert).
 *
 * The leaf has new, empty storage of this transaction (leafload.c: the
 * leaf locked against every writer), which nobody else sees before commit
 * (readers keep reading the old storage), so its rows can
 * be written frozen, as COPY FREEZE after a TRUNCATE writes them, and
 * bypass shared buffers: no buffer holds a page of the new files.  Each
 * tuple gets the header heap_insert(..., HEAP_INSERT_FROZEN) gives it
 * (xmin the transaction's XID, marked frozen; cmin; xmax invalid; t_ctid
 * its own TID), a row over TOAST_TUPLE_THRESHOLD is toasted first, as
 * raw_heap_insert toasts it, its values compressed and moved out of line
 * as heap_toast_insert_or_update() does, the TOAST rows written frozen
 * into the TOAST table's new storage by this same writer (leaftoast.c),
 * and pages fill up to the leaf's fillfactor as heap_multi_insert fills
 * them.  Every page is PD_ALL_VISIBLE and the visibility map has both bits
 * set for every page, as heap_multi_insert sets them for frozen rows; the
 * map's pages are built here, with visibilitymap.c's layout.
 *
 * Pages of the heap and of the map go to the leaf's new files past the
 * page cache, with O_DIRECT, in aligned batches of 1 MB, one batch written
 * while the next is filled (leafdirect.c); where the filesystem refuses
 * O_DIRECT, through compat.h's bulk writer (PostgreSQL's bulk_write.h from
 * 17, the same steps by hand before), which copies them into the page
 * cache.  Either way the pages are the same, handled in the same order:
 * where the leaf needs WAL (RelationNeedsWAL: wal_level above minimal, or
 * storage not new in this transaction), every page, of the map too, is
 * WAL-logged as a full-page image, in records of XLR_MAX_BLOCK_ID pages,
 * and takes the image's LSN, so standbys and point-in-time recovery get
 * the rows; then its checksum is set.  At wal_level = minimal nothing is
 * logged and the new files are synced at commit (or logged then, if
 * smaller than wal_skip_threshold) by PostgreSQL's pending syncs.  An
 * abort or a crash before commit leaves the files unreferenced (the leaf
 * load above deals with them).  The TOAST table's pages are written the
 * same way, and its index built after them (leaftoast.c).
 *
 * Through the bulk writer, every checkpoint_flush_after pages of the main
 * fork written, the kernel is asked to start writing them back
 * (smgrwriteback(), as the checkpointer asks for the pages it writes
 * before it syncs them), so the sync at commit, or the checkpoint's, waits
 * for less.  It is a hint: it changes when the kernel writes the pages,
 * never what is written.
 *
 * The caller forms the rows and checks them (load.c) and builds the
 * leaf's indexes afterwards (leafload.c), its key index from the record of
 * how many rows each page holds, kept here if the caller asks for it.
 *-------------------------------------------------------------------------
 */

/*
 * The visibility map's layout, as visibilitymap.c lays it out (its macros
 * are private to that file): after the page header, BITS_PER_HEAPBLOCK
 * bits per heap block, the low bits of a byte for the lowest block.
 */
#define LEAF_VM_MAPSIZE		(BLCKSZ - MAXALIGN(SizeOfPageHeaderData))
#define LEAF_VM_BLOCKS_PER_BYTE	(BITS_PER_BYTE / BITS_PER_HEAPBLOCK)
#define LEAF_VM_BLOCKS_PER_PAGE	(LEAF_VM_MAPSIZE * LEAF_VM_BLOCKS_PER_BYTE)
#define LEAF_VM_FLAGS		(VISIBILITYMAP_ALL_VISIBLE | VISIBILITYMAP_ALL_FROZEN)

/*
 * How many of the pages last handed to the bulk writer the writeback hint
 * leaves out: the writer holds up to a WAL record's worth of pages
 * (XLR_MAX_BLOCK_ID) before it writes them, so the pages further back are
 * in the file.
 */
#define LEAF_WRITEBACK_LAG	(2 * XLR_MAX_BLOCK_ID)

struct LeafPages
{
	Relation	rel;
	TransactionId xid;			/* every row's xmin */
	CommandId	cid;			/* and cmin */
	Size		save_free;		/* room the fillfactor keeps free per page */
	LeafDirect *out;			/* the main fork */
	Page		page;			/* the page being filled, or NULL */
	BlockNumber blkno;			/* its block number: pages written so far */
	BlockNumber writeback_from; /* first page not yet hinted for writeback */
	int64		ntuples;		/* rows written */
	LeafRowMap *map;			/* records each page's row count, or NULL */
	LeafToast  *toast;			/* toasts the leaf's rows; NULL for a TOAST
								 * table's */
};

/* Raise an error unless rel stores its rows in heap pages. */
static void
leafpages_check_heap(Relation rel)
{
	if (rel->rd_tableam != GetHeapamTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("method => 'leaf' cannot load leaf \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("The leaf uses a table access method other than heap; a leaf load writes heap pages."),
				 errhint("Use method => 'chunk'.")));
}

/*
 * Start writing the rows of leaf rel, locked against writers by a leaf
 * load, with new and empty storage of the current transaction (its TOAST
 * table's too); map, if given, records how many rows each page holds.
 * rel may be the TOAST table of such a leaf (leaftoast.c).
 */
LeafPages *
leafpages_begin(Relation rel, LeafRowMap *map)
{
	LeafPages  *lp = palloc0(sizeof(LeafPages));

	leafpages_check_heap(rel);
	lp->rel = rel;
	lp->xid = GetCurrentTransactionId();
	lp->cid = GetCurrentCommandId(true);
	lp->save_free = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	lp->out = leafdirect_start(rel, MAIN_FORKNUM);
	lp->map = map;
	if (rel->rd_rel->relkind != RELKIND_TOASTVALUE)
		lp->toast = leaftoast_begin(rel);
	return lp;
}

/* Give tuple the header heap_insert(..., HEAP_INSERT_FROZEN) gives it. */
static void
leafpages_set_header(LeafPages *lp, HeapTuple tuple)
{
	HeapTupleHeader hdr = tuple->t_data;

	hdr->t_infomask &= ~HEAP_XACT_MASK;
	hdr->t_infomask2 &= ~HEAP2_XACT_MASK;
	hdr->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(hdr, lp->xid);
	HeapTupleHeaderSetXminFrozen(hdr);
	HeapTupleHeaderSetCmin(hdr, lp->cid);
	HeapTupleHeaderSetXmax(hdr, 0);
	tuple->t_tableOid = RelationGetRelid(lp->rel);
}

/*
 * Ask the kernel to start writing back the pages of the main fork in the
 * file since the last hint, once checkpoint_flush_after of them are there;
 * pages written with O_DIRECT are on their way already.
 */
static void
leafpages_writeback(LeafPages *lp)
{
	BlockNumber written;

	if (checkpoint_flush_after <= 0 || lp->blkno < LEAF_WRITEBACK_LAG ||
		leafdirect_is_direct(lp->out))
		return;
	written = lp->blkno - LEAF_WRITEBACK_LAG;
	if (written - lp->writeback_from < (BlockNumber) checkpoint_flush_after)
		return;
	smgrwriteback(RelationGetSmgr(lp->rel), MAIN_FORKNUM, lp->writeback_from,
				  written - lp->writeback_from);
	lp->writeback_from = written;
}

/* Hand the page being filled to storage. */
static void
leafpages_write_page(LeafPages *lp)
{
	if (lp->map != NULL)
		leafrowmap_add_page(lp->map, PageGetMaxOffsetNumber(lp->page));
	leafdirect_write(lp->out, lp->blkno, lp->page, true);
	lp->page = NULL;
	lp->blkno++;
	leafpages_writeback(lp);
}

/* Store stored (tuple, toasted if needed) on the page, TIDs set. */
static void
leafpages_place(LeafPages *lp, HeapTuple tuple, HeapTuple stored)
{
	Size		len = MAXALIGN(stored->t_len);
	OffsetNumber off;
	HeapTupleHeader onpage;

	if (len > MaxHeapTupleSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						len, (Size) MaxHeapTupleSize)));
	/* A page always holds a row: enforce the fillfactor unconditionally. */
	if (lp->page != NULL && len + lp->save_free > PageGetHeapFreeSpace(lp->page))
		leafpages_write_page(lp);
	if (lp->page == NULL)
	{
		lp->page = leafdirect_get_buf(lp->out);
		PageInit(lp->page, BLCKSZ, 0);
		PageSetAllVisible(lp->page);
	}
	off = PageAddItem(lp->page, (Item) stored->t_data, stored->t_len,
					  InvalidOffsetNumber, false, true);
	if (off == InvalidOffsetNumber)
		elog(ERROR, "failed to add tuple to page %u of \"%s\"",
			 lp->blkno, RelationGetRelationName(lp->rel));
	ItemPointerSet(&tuple->t_self, lp->blkno, off);
	onpage = (HeapTupleHeader) PageGetItem(lp->page, PageGetItemId(lp->page, off));
	onpage->t_ctid = tuple->t_self;
}

/*
 * Write tuple, a row of the leaf formed by heap_form_tuple, frozen; its
 * t_self is set to where it went.  tuple itself is not kept.
 */
void
leafpages_add(LeafPages *lp, HeapTuple tuple)
{
	HeapTuple	stored = tuple;

	leafpages_set_header(lp, tuple);
	if (lp->toast != NULL &&
		(HeapTupleHasExternal(tuple) || tuple->t_len > TOAST_TUPLE_THRESHOLD))
		stored = leaftoast_tuple(lp->toast, tuple);
	if (stored != tuple)
		leafpages_set_header(lp, stored);
	if (stored != tuple && lp->map != NULL)
		leafrowmap_check_toasted(lp->map, lp->rel, stored);
	leafpages_place(lp, tuple, stored);
	lp->ntuples++;
	if (stored != tuple)
		heap_freetuple(stored);
}

/* Set the visibility map bits of heap blocks [first, end) on map page map. */
static void
leafpages_vm_fill(char *map, BlockNumber first, BlockNumber end)
{
	uint32		nblocks = end - first;
	uint32		full = nblocks / LEAF_VM_BLOCKS_PER_BYTE;
	uint32		rest = nblocks % LEAF_VM_BLOCKS_PER_BYTE;

	/* first is the first block of a map page, so of a byte */
	Assert(first % LEAF_VM_BLOCKS_PER_PAGE == 0);
	for (uint32 i = 0; i < full; i++)
		map[i] = (char) 0xFF;	/* LEAF_VM_FLAGS for each of its blocks */
	for (uint32 i = 0; i < rest; i++)
		map[full] |= LEAF_VM_FLAGS << (i * BITS_PER_HEAPBLOCK);
}

/*
 * Write the leaf's visibility map: both bits set for every one of its
 * npages heap pages.  The bits lie between pd_lower and pd_upper, so the
 * pages are not standard for WAL (page_std = false).
 */
static void
leafpages_write_vm(Relation rel, BlockNumber npages)
{
	LeafDirect *out;
	BlockNumber first = 0;

	StaticAssertStmt(LEAF_VM_FLAGS == 0x03 && BITS_PER_HEAPBLOCK == 2,
					 "leafpages_vm_fill() writes 0xFF for four blocks");
	if (npages == 0)
		return;
	if (!smgrexists(RelationGetSmgr(rel), VISIBILITYMAP_FORKNUM))
		smgrcreate(RelationGetSmgr(rel), VISIBILITYMAP_FORKNUM, false);
	out = leafdirect_start(rel, VISIBILITYMAP_FORKNUM);
	for (BlockNumber mapblk = 0; first < npages; mapblk++)
	{
		Page		page = leafdirect_get_buf(out);
		BlockNumber end = Min(npages, first + LEAF_VM_BLOCKS_PER_PAGE);

		PageInit(page, BLCKSZ, 0);
		leafpages_vm_fill(PageGetContents(page), first, end);
		leafdirect_write(out, mapblk, page, false);
		first = end;
	}
	leafdirect_finish(out);
}

/*
 * Write the last page and the visibility map; make the files durable.
 * Count the rows as inserted in the leaf's statistics, as
 * heap_multi_insert counts them.  Then the same for the TOAST table, whose
 * index is built (leaftoast.c).
 */
void
leafpages_finish(LeafPages *lp)
{
	pgstat_count_heap_insert(lp->rel, lp->ntuples);
	if (lp->page != NULL)
		leafpages_write_page(lp);
	leafdirect_finish(lp->out);
	leafpages_write_vm(lp->rel, lp->blkno);
	if (lp->toast != NULL)
		leaftoast_finish(lp->toast);
	pfree(lp);
}


/*-------------------------------------------------------------------------
 *		A leaf's index on its key built from the rows as they were written,
 *		without reading the heap back.
 *
 * A leaf load knows where every row went: the page writer above records
 * how many rows each heap page holds (pages from block 0, in order, rows at
 * offsets 1 .. n of their page), and the rows were written in the order of
 * the leaf's key numbers in the routing files, whose keys are regenerated
 * from the numbers as the writer generated them (keys_datum()).  So an
 * index on the key alone (a btree whose only column is ycsb_key: no
 * expression, predicate, INCLUDE column or exclusion; the primary key, a
 * unique index or not) is built by btbuild() itself, through index_build()
 * as REINDEX builds it, fed each row's TID and key instead of a scan of
 * the heap: btbuild() reads its input only through the table's
 * index_build_range_scan callback (table_index_build_scan()).  For the
 * build, the leaf's relcache entry points at a copy of the heap's table
 * access method routine whose index_build_range_scan is leafkeys_scan();
 * every other entry of the copy is heap's own, and the entry points at
 * heap's routine again when the build ends, however it ends.  The sort,
 * the pages written, the UNIQUE check and its error (23505) are
 * btbuild()'s: the index is the one REINDEX would build.  Each row is fed
 * as live (tupleIsAlive), as a scan of the leaf finds it (every row is
 * frozen, nobody else sees the new storage).
 *
 * Safety: leafkeys_scan() feeds only the build it was set up for (that
 * leaf, that index, a whole-table scan); for any other call it is heap's
 * scan.  If a relcache invalidation rebuilds the leaf's entry meanwhile,
 * the entry gets heap's routine back and the build reads the heap: slower,
 * the same index.  The rows fed are checked against what was written: as
 * many, and the key numbers in the same order (a hash of the sequence), or
 * the build fails.
 *
 * Memory: the record of the pages is a run per change of rows per page
 * (one run for rows of equal width), at most a quarter of
 * maintenance_work_mem; a leaf whose record would grow past that, and any
 * other index, is built from the heap (index_build()).  So is a leaf where
 * the toaster, shrinking a wide row, compressed its key or moved it out of
 * line (a long key in a row whose other values did not shrink enough): a
 * scan feeds the key as the row stores it, and the index keeps it
 * compressed.
 *
 * Order: btbuild() sorts what it is fed (tuplesort), and its order is the
 * index's, whatever the order of the feed: keys first, TIDs among equal
 * keys.  Fed in key order, its quicksort finds each run presorted in one
 * pass over it and stops; scrambled keys fed in the order written cost it
 * a full sort, and the keys' long common prefix ("user" and digits) leaves
 * most abbreviated keys tied, so most comparisons are full ones.  Where the
 * index compares keys as bytes (text_pattern_ops, or text_ops in a
 * collation that compares as memcmp does, "C" or "POSIX"), and the keys
 * are the ordered or scrambled mode's, the rows are fed sorted by key:
 * each row's key read as a number that sorts as the key's bytes do (its
 * sort image, keys_sort_image()) and its TID are collected, 16 bytes a
 * row, sorted by image (a radix sort, through a second array of them),
 * and fed in the index's order (descending if its column is), each key
 * spelled from its image.  The two arrays take at most
 * maintenance_work_mem, before btbuild()'s sort fills; while it fills, the
 * sorted one is left, at most half of maintenance_work_mem (the sort
 * keeps some 70 bytes a row within maintenance_work_mem).  A larger leaf,
 * an index of another collation and integer keys (written in key order
 * already) are fed in the order written, each key regenerated from its
 * number as it is fed.
 *-------------------------------------------------------------------------
 */

/* A run of consecutive heap pages holding the same number of rows. */
typedef struct LeafPageRun
{
	BlockNumber npages;
	OffsetNumber nrows;			/* on each page: offsets 1 .. nrows */
} LeafPageRun;

/* Where a leaf's rows went: its heap pages from block 0, in order. */
struct LeafRowMap
{
	LeafPageRun *runs;
	int			nruns;
	int			maxruns;		/* allocated */
	int			limit;			/* the most runs kept */
	bool		unfit;			/* feeds no build: more runs than limit, or a
								 * key stored compressed or out of line */
	int64		nrows;			/* rows on the pages recorded */
	uint64		keysum;			/* the key numbers written, in order, hashed */
	int			key_att;		/* the leaf's ycsb_key (0-based) */
};

/* The index build leafkeys_scan() feeds. */
typedef struct LeafKeyFeed
{
	Oid			relid;
	Oid			indexrelid;
	const LeafRouting *routing;
	int			leafno;
	int64		nranges;
	const LeafRowMap *map;
	bool		presorted;		/* feed the rows sorted by key */
	bool		descending;		/* ... in descending order */
} LeafKeyFeed;

/* The rows of a leaf as they were written: key numbers and TIDs. */
typedef struct LeafRowCursor
{
	const LeafKeyFeed *feed;
	Relation	rel;			/* the leaf */
	LeafReader *reader;			/* of range, or NULL */
	int64		range;
	int			run;			/* the run of feed->map holding blkno */
	BlockNumber pages_left;		/* of run, blkno's included */
	BlockNumber blkno;
	OffsetNumber off;			/* of the last row read, on blkno */
	int64		nrows;			/* rows read */
	uint64		keysum;			/* their key numbers, hashed in order */
} LeafRowCursor;

/*
 * A row to feed sorted by key (leafkeys_feed_sorted()): its key's sort
 * image (keys_sort_image()) and its TID, in 16 bytes.
 */
typedef struct LeafKeyRow
{
	uint64		image;
	ItemPointerData tid;
	uint8		ndigits;
} LeafKeyRow;

/* Passes of leafkeys_sort_rows(): a row's digits, then its image's bytes. */
#define LEAF_SORT_PASSES	(1 + (int) sizeof(uint64))

/* The build being fed, or NULL. */
static const LeafKeyFeed *leafkeys_feed = NULL;

/* A new, empty record of the pages of a leaf whose key is key_att. */
static LeafRowMap *
leafrowmap_create(int key_att)
{
	LeafRowMap *map = palloc0(sizeof(LeafRowMap));
	Size		limit = (Size) maintenance_work_mem * 1024 / 4;

	limit = Min(limit, MaxAllocSize) / sizeof(LeafPageRun);
	map->limit = (int) Min(limit, (Size) PG_INT32_MAX / 2);
	map->maxruns = Min(16, map->limit);
	map->runs = palloc(sizeof(LeafPageRun) * Max(map->maxruns, 1));
	map->key_att = key_att;
	return map;
}

/* Add the key number of the next row written to a leaf's record. */
static void
leafrowmap_add_key(LeafRowMap *map, int64 seq)
{
	map->keysum = hash_combine64(map->keysum, (uint64) seq);
}

/* Record the next heap page of a leaf, holding nrows rows. */
static void
leafrowmap_add_page(LeafRowMap *map, OffsetNumber nrows)
{
	map->nrows += nrows;
	if (map->unfit)
		return;
	if (map->nruns > 0 && map->runs[map->nruns - 1].nrows == nrows)
	{
		map->runs[map->nruns - 1].npages++;
		return;
	}
	if (map->nruns == map->limit)
	{
		map->unfit = true;
		return;
	}
	if (map->nruns == map->maxruns)
	{
		map->maxruns = Min(map->maxruns * 2, map->limit);
		map->runs = repalloc(map->runs, sizeof(LeafPageRun) * map->maxruns);
	}
	map->runs[map->nruns].npages = 1;
	map->runs[map->nruns].nrows = nrows;
	map->nruns++;
}

/*
 * Keep no record of a leaf where stored, a row the toaster shrank, holds
 * its key compressed or out of line: a scan would feed the key as stored,
 * and the index would keep it compressed.
 */
static void
leafrowmap_check_toasted(LeafRowMap *map, Relation rel, HeapTuple stored)
{
	bool		isnull;
	Datum		key;

	if (map->unfit || TupleDescAttr(RelationGetDescr(rel), map->key_att)->attlen != -1)
		return;
	key = heap_getattr(stored, map->key_att + 1, RelationGetDescr(rel), &isnull);
	if (!isnull && (VARATT_IS_COMPRESSED(DatumGetPointer(key)) ||
					VARATT_IS_EXTERNAL(DatumGetPointer(key))))
		map->unfit = true;
}

/*
 * Can index be built by leafkeys_build(): a btree on the leaf's key alone,
 * covering every row, and the leaf's pages recorded?
 */
static bool
leafkeys_eligible(Relation index, const LeafRowMap *map)
{
	return map != NULL && !map->unfit &&
		index->rd_index->indnatts == 1 &&
		!index->rd_index->indisexclusion &&
		keyindex_leads_with_key(index, map->key_att);
}

/* Raise an error: the rows fed to a build are not the rows written. */
static void
leafkeys_mismatch(Relation rel)
{
	elog(ERROR, "the keys of leaf \"%s\" do not match the rows written",
		 RelationGetRelationName(rel));
}

/*
 * Can the rows be fed to index's build sorted by key (leafkeys_feed_sorted())
 * in the order the build sorts them: text keys with sort images, an index
 * that compares them as bytes (text_pattern_ops, or text_ops in a collation
 * that compares as memcmp does), and the rows' records, twice (for their
 * sort), within maintenance_work_mem?
 */
static bool
leafkeys_presortable(Relation index, const KeySpec *keys, const LeafRowMap *map)
{
	Oid			opfamily = index->rd_opfamily[0];
	Size		limit = (Size) maintenance_work_mem * 1024;

	if (!keys_have_sort_image(keys) ||
		(uint64) map->nrows > limit / (2 * sizeof(LeafKeyRow)))
		return false;
	return opfamily == TEXT_PATTERN_BTREE_FAM_OID ||
		(opfamily == TEXT_BTREE_FAM_OID &&
		 compat_collate_is_c(index->rd_indcollation[0]));
}

/* Start reading the rows that feed's leaf, rel, was written with. */
static void
leafrows_begin(LeafRowCursor *c, const LeafKeyFeed *feed, Relation rel)
{
	memset(c, 0, sizeof(*c));
	c->feed = feed;
	c->rel = rel;
	c->pages_left = feed->map->nruns > 0 ? feed->map->runs[0].npages : 0;
}

/*
 * The key number and TID of the next row written; false after the last,
 * once the rows read are checked against those written.
 */
static bool
leafrows_next(LeafRowCursor *c, int64 *seq, ItemPointer tid)
{
	const LeafKeyFeed *feed = c->feed;
	const LeafRowMap *map = feed->map;

	while (c->reader == NULL || !leaf_reader_next(c->reader, seq))
	{
		if (c->reader != NULL)
		{
			leaf_reader_close(c->reader);
			c->reader = NULL;
			c->range++;
		}
		if (c->range == feed->nranges)
		{
			if (c->nrows != map->nrows || c->keysum != map->keysum)
				leafkeys_mismatch(c->rel);
			return false;
		}
		c->reader = leaf_reader_open(feed->routing, c->range, feed->leafno,
									 feed->routing->nlocal);
	}
	if ((c->nrows & 1023) == 0)
		CHECK_FOR_INTERRUPTS();
	/* the next row's place: the next offset, else the next page */
	while (c->run < map->nruns && c->off == map->runs[c->run].nrows)
	{
		c->off = 0;
		c->blkno++;
		if (--c->pages_left == 0 && ++c->run < map->nruns)
			c->pages_left = map->runs[c->run].npages;
	}
	if (c->run == map->nruns)
		leafkeys_mismatch(c->rel);
	ItemPointerSet(tid, c->blkno, ++c->off);
	c->keysum = hash_combine64(c->keysum, (uint64) *seq);
	c->nrows++;
	return true;
}

/* Call a build's callback with one row, live, in memory context rowcxt. */
static inline void
leafkeys_feed_row(Relation index_rel, ItemPointer tid, Datum key,
				  IndexBuildCallback callback, void *callback_state,
				  MemoryContext rowcxt)
{
	MemoryContext old = MemoryContextSwitchTo(rowcxt);
	bool		isnull[1] = {false};

	callback(index_rel, tid, &key, isnull, true, callback_state);
	MemoryContextSwitchTo(old);
	MemoryContextReset(rowcxt);
}

/* Byte pass of a row's key: 0 its digits, then its image's from the lowest. */
static inline uint8
leafkeys_row_byte(const LeafKeyRow *row, int pass)
{
	return pass == 0 ? row->ndigits : (uint8) (row->image >> (8 * (pass - 1)));
}

/*
 * Sort the n rows at rows by key as bytes (by image, then digits) with a
 * radix sort, least significant byte first, through tmp (room for n rows),
 * skipping a byte all rows share; returns the array that holds them
 * sorted.
 */
static LeafKeyRow *
leafkeys_sort_rows(LeafKeyRow *rows, LeafKeyRow *tmp, int64 n)
{
	int64		(*counts)[256] = palloc0(sizeof(int64) * LEAF_SORT_PASSES * 256);

	/* the rows are the same in every pass: count each pass's bytes at once */
	for (int64 i = 0; i < n; i++)
		for (int pass = 0; pass < LEAF_SORT_PASSES; pass++)
			counts[pass][leafkeys_row_byte(&rows[i], pass)]++;
	for (int pass = 0; pass < LEAF_SORT_PASSES && n > 0; pass++)
	{
		int64	   *place = counts[pass];
		int64		next = 0;
		LeafKeyRow *sorted = tmp;

		if (place[leafkeys_row_byte(&rows[0], pass)] == n)
			continue;
		for (int b = 0; b < 256; b++)
		{
			int64		count = place[b];

			place[b] = next;
			next += count;
		}
		for (int64 i = 0; i < n; i++)
			sorted[place[leafkeys_row_byte(&rows[i], pass)]++] = rows[i];
		tmp = rows;
		rows = sorted;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(counts);
	return rows;
}

/*
 * Feed the rows of cursor c to a build sorted by key, in the index's
 * order (leafkeys_presortable()): their sort images and TIDs collected,
 * sorted, and each key spelled from its image.
 */
static void
leafkeys_feed_sorted(LeafRowCursor *c, Relation index_rel,
					 IndexBuildCallback callback, void *callback_state,
					 MemoryContext rowcxt, char *keybuf)
{
	const KeySpec *keys = &c->feed->routing->spec.keys;
	int64		nrows = c->feed->map->nrows;
	Size		size = sizeof(LeafKeyRow) * Max(nrows, 1);
	LeafKeyRow *rows = MemoryContextAllocHuge(CurrentMemoryContext, size);
	LeafKeyRow *tmp = MemoryContextAllocHuge(CurrentMemoryContext, size);
	LeafKeyRow *sorted;
	int64		n = 0;
	int64		seq;
	ItemPointerData tid;

	while (leafrows_next(c, &seq, &tid))
	{
		int			ndigits;

		if (n == nrows)
			leafkeys_mismatch(c->rel);
		rows[n].image = keys_sort_image(keys, seq, &ndigits);
		rows[n].ndigits = (uint8) ndigits;
		rows[n].tid = tid;
		n++;
	}
	sorted = leafkeys_sort_rows(rows, tmp, n);
	pfree(sorted == rows ? tmp : rows);
	for (int64 i = 0; i < n; i++)
	{
		LeafKeyRow *row = &sorted[c->feed->descending ? n - 1 - i : i];

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		leafkeys_feed_row(index_rel, &row->tid,
						  keys_datum_of_image(keys, row->image, row->ndigits, keybuf),
						  callback, callback_state, rowcxt);
	}
	pfree(sorted);
}

/*
 * The leaf's index_build_range_scan during leafkeys_build(): call callback
 * with each row's TID and key, each live, sorted by key where the build
 * sorts keys as bytes, else in the order the rows were written; returns
 * the number of rows.  Any other scan is heap's.
 */
static double
leafkeys_scan(Relation table_rel, Relation index_rel, IndexInfo *index_info,
			  bool allow_sync, bool anyvisible, bool progress,
			  BlockNumber start_blockno, BlockNumber numblocks,
			  IndexBuildCallback callback, void *callback_state,
			  TableScanDesc scan)
{
	const LeafKeyFeed *feed = leafkeys_feed;
	const TableAmRoutine *heapam = GetHeapamTableAmRoutine();
	MemoryContext rowcxt;
	char	   *keybuf;
	LeafRowCursor c;
	int64		seq;
	ItemPointerData tid;

	if (feed == NULL || RelationGetRelid(table_rel) != feed->relid ||
		RelationGetRelid(index_rel) != feed->indexrelid ||
		start_blockno != 0 || numblocks != InvalidBlockNumber || scan != NULL)
		return heapam->index_build_range_scan(table_rel, index_rel, index_info,
											  allow_sync, anyvisible, progress,
											  start_blockno, numblocks,
											  callback, callback_state, scan);
	keybuf = palloc(KEYS_DATUM_BUFSIZE);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "petagen leaf keys",
								   ALLOCSET_DEFAULT_SIZES);
	leafrows_begin(&c, feed, table_rel);
	if (feed->presorted)
		leafkeys_feed_sorted(&c, index_rel, callback, callback_state, rowcxt,
							 keybuf);
	else
		while (leafrows_next(&c, &seq, &tid))
			leafkeys_feed_row(index_rel, &tid,
							  keys_datum(&feed->routing->spec.keys, seq, keybuf),
							  callback, callback_state, rowcxt);
	MemoryContextDelete(rowcxt);
	pfree(keybuf);
	return (double) c.nrows;
}

/*
 * Build index, on heap's key alone (leafkeys_eligible()), as index_build()
 * builds it, fed the rows routing's leaf leafno wrote, as map recorded
 * them, instead of reading the heap (see above).
 */
static void
leafkeys_build(Relation heap, Relation index, const LeafRouting *routing,
			   int leafno, int64 nranges, const LeafRowMap *map)
{
	const TableAmRoutine *heapam = heap->rd_tableam;
	TableAmRoutine *fed = palloc(sizeof(TableAmRoutine));
	LeafKeyFeed feed = {RelationGetRelid(heap), RelationGetRelid(index),
	routing, leafno, nranges, map};

	leafpages_check_heap(heap);
	feed.presorted = leafkeys_presortable(index, &routing->spec.keys, map);
	feed.descending = (index->rd_indoption[0] & INDOPTION_DESC) != 0;
	elog(DEBUG1, "petagen: index \"%s\" of leaf \"%s\" is fed its keys %s",
		 RelationGetRelationName(index), RelationGetRelationName(heap),
		 feed.presorted ? "sorted" : "in the order written");
	*fed = *heapam;
	fed->index_build_range_scan = leafkeys_scan;
	leafkeys_feed = &feed;
	heap->rd_tableam = fed;
	PG_TRY();
	{
		index_build(heap, index, BuildIndexInfo(index), true, false);
	}
	PG_FINALLY();
	{
		heap->rd_tableam = heapam;
		leafkeys_feed = NULL;
	}
	PG_END_TRY();
	pfree(fed);
}

/*-------------------------------------------------------------------------
 *		A leaf's btree index on ycsb_key, and lookups of single keys in it.
 *
 * Two callers look keys up in a leaf: the writer, for the duplicates of
 * hashed key modes (load.c: the unique index on exactly ycsb_key, with
 * SnapshotSelf), and check()'s probe of whether a load's key space is
 * already in the table (preflight.c: any valid btree index whose first
 * column is ycsb_key, with the statement's snapshot).  An index that
 * qualifies holds every row of the leaf: no expression, no predicate.  The
 * lookup compares with the equality operator of the index's own operator
 * family and collation, as the index itself does.  Callers lock the leaf;
 * row-level security is not applied, so callers refuse (or do not probe)
 * tables where it would hide rows.
 *-------------------------------------------------------------------------
 */

/*
 * Is index a btree whose first column is attribute key_att (0-based) of
 * its table, covering every row (no expression, no predicate)?
 */
bool
keyindex_leads_with_key(Relation index, int key_att)
{
	return index->rd_rel->relam == BTREE_AM_OID &&
		index->rd_index->indkey.values[0] == key_att + 1 &&
		RelationGetIndexExpressions(index) == NIL &&
		RelationGetIndexPredicate(index) == NIL;
}

/*
 * A valid btree index of heap leading with key_att, opened with
 * AccessShareLock, or NULL if it has none.
 */
Relation
keyindex_open_any(Relation heap, int key_att)
{
	List	   *indexes = RelationGetIndexList(heap);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		if (index->rd_index->indisvalid &&
			keyindex_leads_with_key(index, key_att))
		{
			list_free(indexes);
			return index;
		}
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	return NULL;
}

/* Begin lookups of keys of heap in index, seeing rows as snapshot does. */
KeyLookup *
keyindex_begin(Relation heap, Relation index, Snapshot snapshot)
{
	KeyLookup  *lookup = palloc0(sizeof(KeyLookup));
	Oid			eqop = get_opfamily_member(index->rd_opfamily[0],
										   index->rd_opcintype[0],
										   index->rd_opcintype[0],
										   BTEqualStrategyNumber);

	if (!OidIsValid(eqop))
		elog(ERROR, "missing equality operator for index \"%s\"",
			 RelationGetRelationName(index));
	ScanKeyInit(&lookup->key, 1, BTEqualStrategyNumber, get_opcode(eqop),
				(Datum) 0);
	lookup->key.sk_collation = index->rd_indcollation[0];
	lookup->slot = table_slot_create(heap, NULL);
	lookup->scan = compat_index_beginscan(heap, index, snapshot, 1, 0);
	return lookup;
}

/* Does the index hold key (keys_datum()) in a row the snapshot sees? */
bool
keyindex_contains(KeyLookup *lookup, Datum key)
{
	bool		found;

	lookup->key.sk_argument = key;
	index_rescan(lookup->scan, &lookup->key, 1, NULL, 0);
	found = index_getnext_slot(lookup->scan, ForwardScanDirection, lookup->slot);
	ExecClearTuple(lookup->slot);
	return found;
}

/* End the lookups and free them. */
void
keyindex_end(KeyLookup *lookup)
{
	index_endscan(lookup->scan);
	ExecDropSingleTupleTableSlot(lookup->slot);
	pfree(lookup);
}
