/*-------------------------------------------------------------------------
 * frozen.c
 *		Exactly-once for frozen loads: the intent a frozen chunk commits
 *		before it writes, and the repair that removes what an interrupted
 *		attempt of the chunk left behind.
 *
 * Why: a frozen chunk inserts with HEAP_INSERT_FROZEN, so heap_multi_insert
 * marks xmin committed-and-invalid (frozen) at insert time and, on pages it
 * starts empty, sets the page all-visible and the visibility map
 * all-visible + all-frozen.  Such rows are visible to every snapshot at
 * once, and an abort (error, retry, stop()) or a crash (WAL replay rebuilds
 * them with the same flags) does not take them back.  The chunk's ledger
 * row still commits atomically with the chunk, so resume() redoes exactly
 * the chunks that did not commit; without a repair their rows would be
 * there twice (or the unique index would refuse the second copy forever).
 *
 * Intent: before an attempt writes a row, a small committed transaction
 * stores in petagen.chunk_intents, for every local leaf, the first block an
 * attempt may write (the leaf's block count then, minus one), and the next
 * XID then (xid_bound): every attempt of the chunk runs in a later
 * transaction.  The chunk transaction deletes the intent together with
 * inserting its ledger row, so an intent exists exactly while the chunk is
 * in flight or was interrupted.  This costs one more XID per chunk.
 *
 * Why the blocks bound holds: load.c inserts with HEAP_INSERT_FROZEN |
 * HEAP_INSERT_SKIP_FSM, a fresh BulkInsertState per leaf and chunk, and
 * resets the relation's cached insertion target block before the first
 * insert.  RelationGetBufferForTuple (hio.c) then never asks the free space
 * map: the first tuple goes to a new page (PostgreSQL 15), or to the last
 * page (16+ try nblocks - 1 without the FSM); later ones go to the bulk
 * state's current page or to new pages.  All are at or past the block count
 * at intent time minus one, as long as the leaf does not shrink in
 * between: VACUUM's truncation of empty trailing pages could do that, so
 * the chunk transaction takes RowExclusiveLock on every leaf first (which
 * blocks that truncation) and checks that each leaf still reaches its
 * recorded block; if not, the attempt is retried with a new intent.
 *
 * Repair, before every attempt of a chunk that has an intent (a retry in
 * the same run, or the first attempt after resume()): for each leaf, under
 * ShareUpdateExclusiveLock (so that two repairs of the same leaf, and
 * VACUUM, do not run at once; loading workers' RowExclusiveLock does not
 * conflict), scan from the recorded block to the end and delete
 * (simple_heap_delete) every tuple that
 *	- is frozen and visible to a snapshot taken after the lock (not already
 *	  deleted by an earlier repair),
 *	- has a raw xmin (HeapTupleHeaderGetRawXmin: a frozen tuple keeps the
 *	  XID that inserted it, in PostgreSQL 9.4 and later, also after WAL
 *	  replay) at or after xid_bound, and
 *	- whose inserting transaction is neither in progress nor committed
 *	  (checked in that order, as tqual does, so a commit in between cannot
 *	  be mistaken for an abort).
 * Pages in that range are shared with other workers' chunks: their rows
 * carry their own chunk transaction's XID, which either committed (kept),
 * is still running (kept: its own repair or commit settles it), or aborted
 * (deleted here or by its own repair, harmlessly twice-checked).  Rows older
 * than xid_bound (anything on the last page before the intent) are never
 * looked at, so no XID whose commit log may be gone is asked about.
 * Index entries an attempt wrote then point at deleted tuples: index scans
 * and unique checks skip them, VACUUM removes them.  The pages repaired lose
 * their all-visible bit until the next VACUUM; only those pages.
 * petagen.forget() of a job repairs every chunk with an intent, in its own
 * transaction (a rollback keeps the rows and the intents), before the
 * intents go with the job's row: nobody could remove those rows later.
 *
 * Limits: the XID comparison is modulo 2^32, so an interrupted frozen job
 * must be resumed within ~2 billion XIDs (long before anti-wraparound
 * forces it anyway).  ycsb/go-ycsb keys are refused: their duplicate probe
 * (SnapshotSelf) would see another worker's uncommitted frozen row.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/xid8.h"

#include "catalog.h"
#include "compat.h"
#include "load/load.h"
#include "route/route.h"

/* The verdict on the last XID looked at: rows of a chunk share one. */
typedef struct XidVerdict
{
	TransactionId xid;
	bool		left_over;		/* aborted or crashed: its rows must go */
} XidVerdict;

/*
 * Refuse a frozen load of relid by a role that does not own it (its rows
 * are visible before they commit and outlive a rollback until resume()),
 * and key modes whose duplicate probe cannot work with frozen rows.
 */
void
frozen_check(Oid relid, const GenSpec *spec)
{
	if (!compat_class_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to load it with frozen => true",
						get_rel_name(relid)),
				 errdetail("Frozen rows are visible to every transaction before they commit, and stay after a rollback until the job is resumed."),
				 errhint("Run the job as the table's owner, or load without frozen.")));
	if (spec->keys.mode == KEYS_YCSB || spec->keys.mode == KEYS_GO_YCSB)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("frozen loads cannot use keys of mode \"%s\"",
						keys_mode_name(spec->keys.mode)),
				 errdetail("Rows written frozen are visible before they commit, so the duplicate check of hashed YCSB keys would see other workers' unfinished chunks."),
				 errhint("Use keys => 'scrambled' or 'ordered', or load without frozen.")));
}

/* Did the transaction that inserted this frozen tuple abort or crash? */
static bool
frozen_is_left_over(HeapTupleHeader tup, TransactionId bound, XidVerdict *last)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(tup);

	if (!HeapTupleHeaderXminFrozen(tup) || !TransactionIdIsNormal(xmin) ||
		TransactionIdPrecedes(xmin, bound))
		return false;
	if (xmin == last->xid)
		return last->left_over;
	last->xid = xmin;
	/* in progress first: a commit between the two checks is then seen */
	last->left_over = !TransactionIdIsCurrentTransactionId(xmin) &&
		!TransactionIdIsInProgress(xmin) && !TransactionIdDidCommit(xmin);
	return last->left_over;
}

/* Collect the left-over tuples of one page into dead[]; returns how many. */
static int
frozen_scan_page(Relation rel, BlockNumber blk, TransactionId bound,
				 Snapshot snapshot, BufferAccessStrategy strategy,
				 XidVerdict *last, ItemPointerData *dead)
{
	Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL,
										 strategy);
	Page		page;
	OffsetNumber maxoff;
	int			n = 0;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	maxoff = PageIsNew(page) ? InvalidOffsetNumber : PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (!ItemIdIsNormal(lp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		tup.t_len = ItemIdGetLength(lp);
		tup.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&tup.t_self, blk, off);
		if (frozen_is_left_over(tup.t_data, bound, last) &&
			HeapTupleSatisfiesVisibility(&tup, snapshot, buf))
			dead[n++] = tup.t_self;
	}
	UnlockReleaseBuffer(buf);
	return n;
}

/* Delete the left-over rows of one leaf from block `from` on; returns how many. */
static int64
frozen_repair_leaf(Oid leafid, BlockNumber from, TransactionId bound)
{
	Relation	rel = try_table_open(leafid, ShareUpdateExclusiveLock);
	BufferAccessStrategy strategy;
	Snapshot	snapshot;
	BlockNumber nblocks;
	XidVerdict	last = {InvalidTransactionId, false};
	ItemPointerData dead[MaxHeapTuplesPerPage];
	int64		removed = 0;

	if (rel == NULL)
		return 0;				/* the leaf is gone, and its rows with it */
	/* taken after the lock: an earlier repair's deletions are seen */
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	strategy = GetAccessStrategy(BAS_BULKREAD);
	nblocks = RelationGetNumberOfBlocks(rel);
	for (BlockNumber blk = from; blk < nblocks; blk++)
	{
		int			ndead = frozen_scan_page(rel, blk, bound, snapshot,
											 strategy, &last, dead);

		for (int i = 0; i < ndead; i++)
			simple_heap_delete(rel, &dead[i]);
		removed += ndead;
		CHECK_FOR_INTERRUPTS();
	}
	FreeAccessStrategy(strategy);
	UnregisterSnapshot(snapshot);
	table_close(rel, NoLock);
	return removed;
}

/* frozen_read_intent()'s target list. */
enum
{
	Anum_intent_leaves = 1,
	Anum_intent_from_blocks,
	Anum_intent_xid_bound,
};

/* Read the intent of a chunk into intent (arrays in cxt); false if none. */
static bool
frozen_read_intent(int64 job, int64 chunk, MemoryContext cxt,
				   FrozenIntent *intent)
{
	Oid			types[2] = {INT8OID, INT8OID};
	Datum		values[2] = {Int64GetDatum(job), Int64GetDatum(chunk)};
	bool		isnull;
	Datum	   *leaves;
	Datum	   *blocks;
	int			n;
	MemoryContext old;

	if (catalog_read("SELECT leaves, from_blocks, xid_bound"
					 " FROM petagen.chunk_intents WHERE job = $1 AND chunk = $2",
					 2, types, values, 1) == 0)
		return false;
	old = MemoryContextSwitchTo(cxt);
	deconstruct_array(DatumGetArrayTypeP(catalog_value(0, Anum_intent_leaves, &isnull)),
					  OIDOID, sizeof(Oid), true, TYPALIGN_INT, &leaves, NULL, &n);
	deconstruct_array(DatumGetArrayTypeP(catalog_value(0, Anum_intent_from_blocks, &isnull)),
					  INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &blocks, NULL, &n);
	intent->nleaves = n;
	intent->leaves = palloc(sizeof(Oid) * Max(n, 1));
	intent->from_blocks = palloc(sizeof(BlockNumber) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		intent->leaves[i] = DatumGetObjectId(leaves[i]);
		intent->from_blocks[i] = (BlockNumber) DatumGetInt64(blocks[i]);
	}
	intent->xid_bound = DatumGetFullTransactionId(catalog_value(0, Anum_intent_xid_bound, &isnull));
	MemoryContextSwitchTo(old);
	return true;
}

/* Remove what earlier attempts of a chunk left, as its intent says. */
static void
frozen_repair(int64 job, int64 chunk, const FrozenIntent *intent)
{
	TransactionId bound = XidFromFullTransactionId(intent->xid_bound);
	int64		removed = 0;

	for (int i = 0; i < intent->nleaves; i++)
		removed += frozen_repair_leaf(intent->leaves[i],
									  intent->from_blocks[i], bound);
	if (removed > 0)
		ereport(LOG,
				(errmsg("petagen job " INT64_FORMAT " chunk " INT64_FORMAT ": removed " INT64_FORMAT " frozen rows of an interrupted attempt",
						job, chunk, removed)));
}

/*
 * petagen.forget() of job, none of whose workers is left: remove what every
 * interrupted chunk left (the chunks with an intent), as resume() would
 * before writing them again; the intents go with the job's row.
 */
void
frozen_repair_job(int64 job)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	MemoryContext here = CurrentMemoryContext;
	CatalogScope scope;
	int64	   *chunks;
	uint64		n;

	catalog_connect(&scope, false);
	n = catalog_exec("SELECT chunk FROM petagen.chunk_intents WHERE job = $1",
					 1, types, values, NULL, SPI_OK_SELECT);
	chunks = MemoryContextAlloc(here, sizeof(int64) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
		chunks[i] = catalog_int8(i, CATALOG_ONLY_COLUMN);
	catalog_finish(&scope);
	for (uint64 i = 0; i < n; i++)
	{
		FrozenIntent intent;
		bool		found;

		catalog_connect(&scope, false);
		found = frozen_read_intent(job, chunks[i], here, &intent);
		catalog_finish(&scope);
		if (!found)
			continue;
		frozen_repair(job, chunks[i], &intent);
		frozen_free_intent(&intent);

		/*
		 * the next repair's snapshot must see these deletions: they share
		 * pages
		 */
		CommandCounterIncrement();
	}
	pfree(chunks);
}

/* Fill intent with the local leaves of relid and where a new attempt may write. */
static void
frozen_new_intent(Oid relid, MemoryContext cxt, FrozenIntent *intent)
{
	Router	   *router = route_open(relid);
	int			n = route_nleaves(router);

	intent->nleaves = 0;
	intent->leaves = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	intent->from_blocks = MemoryContextAlloc(cxt, sizeof(BlockNumber) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);
		Relation	rel;
		BlockNumber nblocks;

		if (!leaf->local)
			continue;
		rel = table_open(leaf->relid, AccessShareLock);
		nblocks = RelationGetNumberOfBlocks(rel);
		table_close(rel, NoLock);
		intent->leaves[intent->nleaves] = leaf->relid;
		intent->from_blocks[intent->nleaves++] = nblocks > 0 ? nblocks - 1 : 0;
	}
	route_close(router);
	/* every attempt's XID is assigned after this one's commit, so later */
	intent->xid_bound = ReadNextFullTransactionId();
}

/* The parameters of an intent's INSERT: values[Arg_intent_x] is $(x + 1). */
enum
{
	Arg_intent_job,
	Arg_intent_chunk,
	Arg_intent_leaves,
	Arg_intent_from_blocks,
	Arg_intent_xid_bound,
	Arg_intent_worker,
	Arg_intent_run,
	INTENT_NARGS
};

/* Store intent as the chunk's row of petagen.chunk_intents. */
static void
frozen_write_intent(int64 job, int64 chunk, int worker, int run,
					const FrozenIntent *intent)
{
	Oid			types[INTENT_NARGS] = {
		[Arg_intent_job] = INT8OID,
		[Arg_intent_chunk] = INT8OID,
		[Arg_intent_leaves] = OIDARRAYOID,
		[Arg_intent_from_blocks] = INT8ARRAYOID,
		[Arg_intent_xid_bound] = XID8OID,
		[Arg_intent_worker] = INT4OID,
		[Arg_intent_run] = INT4OID,
	};
	Datum		values[INTENT_NARGS];
	Datum	   *leaves = palloc(sizeof(Datum) * Max(intent->nleaves, 1));
	Datum	   *blocks = palloc(sizeof(Datum) * Max(intent->nleaves, 1));

	for (int i = 0; i < intent->nleaves; i++)
	{
		leaves[i] = ObjectIdGetDatum(intent->leaves[i]);
		blocks[i] = Int64GetDatum((int64) intent->from_blocks[i]);
	}
	values[Arg_intent_job] = Int64GetDatum(job);
	values[Arg_intent_chunk] = Int64GetDatum(chunk);
	values[Arg_intent_leaves] = PointerGetDatum(construct_array(leaves, intent->nleaves, OIDOID,
																sizeof(Oid), true, TYPALIGN_INT));
	values[Arg_intent_from_blocks] = PointerGetDatum(construct_array(blocks, intent->nleaves, INT8OID,
																	 sizeof(int64), FLOAT8PASSBYVAL,
																	 TYPALIGN_DOUBLE));
	values[Arg_intent_xid_bound] = FullTransactionIdGetDatum(intent->xid_bound);
	values[Arg_intent_worker] = Int32GetDatum(worker);
	values[Arg_intent_run] = Int32GetDatum(run);
	catalog_exec("INSERT INTO petagen.chunk_intents (job, chunk, leaves,"
				 " from_blocks, xid_bound, worker, run)"
				 " VALUES ($1, $2, $3, $4, $5, $6, $7)"
				 " ON CONFLICT (job, chunk) DO UPDATE SET leaves = EXCLUDED.leaves,"
				 " from_blocks = EXCLUDED.from_blocks, xid_bound = EXCLUDED.xid_bound,"
				 " worker = EXCLUDED.worker, run = EXCLUDED.run,"
				 " written_at = pg_catalog.now()",
				 INTENT_NARGS, types, values, NULL, SPI_OK_INSERT);
}

/*
 * In its own transaction, before an attempt at a frozen chunk: remove what
 * earlier attempts left, then record (and return) the new attempt's intent.
 */
void
frozen_prepare_chunk(int64 job, int64 chunk, Oid relid, int worker, int run,
					 MemoryContext cxt, FrozenIntent *intent)
{
	FrozenIntent earlier;
	MemoryContext here = CurrentMemoryContext;
	CatalogScope scope;
	bool		found;

	catalog_connect(&scope, false);
	found = frozen_read_intent(job, chunk, here, &earlier);
	catalog_finish(&scope);
	if (found)
		frozen_repair(job, chunk, &earlier);
	frozen_new_intent(relid, cxt, intent);
	catalog_connect(&scope, true);
	frozen_write_intent(job, chunk, worker, run, intent);
	catalog_finish(&scope);
}

/*
 * First thing in the chunk transaction: lock every leaf against VACUUM's
 * truncation and check none shrank below the intent's blocks since.
 */
void
frozen_lock_leaves(const FrozenIntent *intent)
{
	for (int i = 0; i < intent->nleaves; i++)
	{
		Relation	rel = try_table_open(intent->leaves[i], RowExclusiveLock);

		if (rel == NULL)
			continue;
		if (intent->from_blocks[i] > 0 &&
			RelationGetNumberOfBlocks(rel) <= intent->from_blocks[i])
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("leaf \"%s\" shrank since the chunk's intent was recorded",
							RelationGetRelationName(rel)),
					 errdetail("VACUUM truncated it; the chunk is retried with a new intent.")));
		table_close(rel, NoLock);
	}
}

/* In the chunk transaction: the chunk is done, its intent goes with it. */
void
frozen_forget_chunk(int64 job, int64 chunk)
{
	Oid			types[2] = {INT8OID, INT8OID};
	Datum		values[2] = {Int64GetDatum(job), Int64GetDatum(chunk)};
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_exec("DELETE FROM petagen.chunk_intents WHERE job = $1 AND chunk = $2",
				 2, types, values, NULL, SPI_OK_DELETE);
	catalog_finish(&scope);
}

/* Release the arrays of an intent. */
void
frozen_free_intent(FrozenIntent *intent)
{
	if (intent->leaves != NULL)
		pfree(intent->leaves);
	if (intent->from_blocks != NULL)
		pfree(intent->from_blocks);
	intent->leaves = NULL;
	intent->from_blocks = NULL;
	intent->nleaves = 0;
}
