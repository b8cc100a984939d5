/*-------------------------------------------------------------------------
 * leafpages.c
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
 * its own TID), values over TOAST_TUPLE_THRESHOLD are toasted first as
 * raw_heap_insert does (the TOAST rows go through shared buffers, frozen),
 * and pages fill up to the leaf's fillfactor as heap_multi_insert fills
 * them.  Every page is PD_ALL_VISIBLE and the visibility map has both bits
 * set for every page, as heap_multi_insert sets them for frozen rows; the
 * map's pages are built here, with visibilitymap.c's layout.
 *
 * Pages go to storage through compat.h's bulk writer: PostgreSQL's
 * bulk_write.h from 17, the same steps by hand before.  Where the leaf
 * needs WAL (RelationNeedsWAL: wal_level above minimal, or storage not new
 * in this transaction), every page, of the map too, is WAL-logged as a
 * full-page image, so standbys and point-in-time recovery get the rows; at
 * wal_level = minimal nothing is logged and the new files are synced at
 * commit (or logged then, if smaller than wal_skip_threshold) by
 * PostgreSQL's pending syncs.  An abort or a crash before commit leaves the
 * files unreferenced (leafload.c and leafstorage.c deal with them).
 *
 * Every checkpoint_flush_after pages of the main fork written, the kernel
 * is asked to start writing them back (smgrwriteback(), as the
 * checkpointer asks for the pages it writes before it syncs them), so the
 * sync at commit, or the checkpoint's, waits for less.  It is a hint: it
 * changes when the kernel writes the pages, never what is written.
 *
 * The caller forms the rows and checks them (writer.c) and builds the
 * leaf's indexes afterwards (leafload.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/visibilitymapdefs.h"
#include "access/xact.h"
#include "access/xlogrecord.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/rel.h"

#include "compat.h"
#include "load/leafpages.h"

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
 * The TOAST options of a row: frozen like the leaf's rows; not decoded by
 * logical decoding, which cannot decode the leaf's pages (full-page
 * images) either, as rewriteheap.c toasts.
 */
#define LEAF_TOAST_OPTIONS	\
	(HEAP_INSERT_FROZEN | HEAP_INSERT_SKIP_FSM | HEAP_INSERT_NO_LOGICAL)

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
	CompatBulkWrite *bulk;		/* the main fork */
	Page		page;			/* the page being filled, or NULL */
	BlockNumber blkno;			/* its block number: pages written so far */
	BlockNumber writeback_from; /* first page not yet hinted for writeback */
	int64		ntuples;		/* rows written */
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
 * load, with new and empty storage of the current transaction.
 */
LeafPages *
leafpages_begin(Relation rel)
{
	LeafPages  *lp = palloc0(sizeof(LeafPages));

	leafpages_check_heap(rel);
	lp->rel = rel;
	lp->xid = GetCurrentTransactionId();
	lp->cid = GetCurrentCommandId(true);
	lp->save_free = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	lp->bulk = compat_bulk_start(rel, MAIN_FORKNUM);
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
 * file since the last hint, once checkpoint_flush_after of them are there.
 */
static void
leafpages_writeback(LeafPages *lp)
{
	BlockNumber written;

	if (checkpoint_flush_after <= 0 || lp->blkno < LEAF_WRITEBACK_LAG)
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
	compat_bulk_write(lp->bulk, lp->blkno, lp->page, true);
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
		lp->page = compat_bulk_get_buf(lp->bulk);
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
	if (HeapTupleHasExternal(tuple) || tuple->t_len > TOAST_TUPLE_THRESHOLD)
		stored = heap_toast_insert_or_update(lp->rel, tuple, NULL,
											 LEAF_TOAST_OPTIONS);
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
	CompatBulkWrite *bulk;
	BlockNumber first = 0;

	StaticAssertStmt(LEAF_VM_FLAGS == 0x03 && BITS_PER_HEAPBLOCK == 2,
					 "leafpages_vm_fill() writes 0xFF for four blocks");
	if (npages == 0)
		return;
	if (!smgrexists(RelationGetSmgr(rel), VISIBILITYMAP_FORKNUM))
		smgrcreate(RelationGetSmgr(rel), VISIBILITYMAP_FORKNUM, false);
	bulk = compat_bulk_start(rel, VISIBILITYMAP_FORKNUM);
	for (BlockNumber mapblk = 0; first < npages; mapblk++)
	{
		Page		page = compat_bulk_get_buf(bulk);
		BlockNumber end = Min(npages, first + LEAF_VM_BLOCKS_PER_PAGE);

		PageInit(page, BLCKSZ, 0);
		leafpages_vm_fill(PageGetContents(page), first, end);
		compat_bulk_write(bulk, mapblk, page, false);
		first = end;
	}
	compat_bulk_finish(bulk);
}

/*
 * Write the last page and the visibility map; make the files durable.
 * Count the rows as inserted in the leaf's statistics, as
 * heap_multi_insert counts them.
 */
void
leafpages_finish(LeafPages *lp)
{
	pgstat_count_heap_insert(lp->rel, lp->ntuples);
	if (lp->page != NULL)
		leafpages_write_page(lp);
	compat_bulk_finish(lp->bulk);
	leafpages_write_vm(lp->rel, lp->blkno);
	pfree(lp);
}
