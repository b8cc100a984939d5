/*-------------------------------------------------------------------------
 * leaftoast.c
 *		A leaf's values stored out of line (TOAST) written as the leaf's own
 *		rows are: into frozen pages of its new TOAST table built in backend
 *		memory, past shared buffers, and its TOAST index built once after
 *		them.
 *
 * The direct writer of a leaf load (leafload.c) makes a row over
 * TOAST_TUPLE_THRESHOLD fit as heap_toast_insert_or_update() makes a new
 * row fit, in its four rounds and with the toaster's own helpers
 * (toast_helper.h: which value is the biggest, whether it compresses, with
 * the column's compression, the table's toast_tuple_target), so that every
 * value is compressed, stored out of line or left alone exactly as an
 * INSERT would.  Only where a value goes out of line, which the toaster
 * does with toast_save_datum() (a heap_insert() and an index insert per
 * chunk, through shared buffers), does this file do it itself, the
 * smallest equivalent of that function: the TOAST pointer is the one
 * toast_save_datum() builds (va_rawsize and va_extinfo from the value as
 * it is, compressed or not, short header or not; va_toastrelid the leaf's
 * TOAST table), and the value is cut into chunks of TOAST_MAX_CHUNK_SIZE
 * bytes, rows (chunk_id, chunk_seq, chunk_data) of the TOAST table formed
 * with heap_form_tuple() as it forms them.  The rows go to the TOAST
 * table's pages through the same page writer as the leaf's rows
 * (leafpages_add(): frozen, all-visible, the visibility map alongside,
 * O_DIRECT where the filesystem allows it, WAL-logged as full-page images
 * above wal_level = minimal, checksummed; leafdirect.c), into the TOAST
 * table's new storage, which the leaf load gave it with the leaf's.
 *
 * Value IDs (va_valueid): toast_save_datum() takes each from the OID counter
 * (GetNewOidWithIndex()), probing the TOAST index so that no two values of
 * the TOAST table share one; nothing else asks of a value ID (detoasting,
 * amcheck and a later rewrite look a value up by (va_toastrelid,
 * va_valueid) only).  Here the TOAST table's storage is new in the leaf's
 * transaction and holds nothing but this leaf's values, and nobody else
 * can write it before commit (the leaf load holds the leaf and its TOAST
 * table EXCLUSIVE): the probe could only ever find a value of this load.
 * So the values get consecutive IDs from the one the OID counter gives the
 * first, wrapping past the largest OID to FirstNormalObjectId as the
 * counter does: unique as long as the leaf stores fewer values out of line
 * than there are such OIDs, which is checked (PostgreSQL's own toaster
 * could store no more either).  Each value still draws an OID from the
 * counter, as toast_save_datum() does, so the counter stays past the IDs
 * taken: a later INSERT or UPDATE of the leaf that stores a value out of
 * line draws an ID the TOAST table does not hold, instead of probing its
 * way through a range this load filled.  Consecutive IDs also make the
 * record of the values below a few runs.
 *
 * The TOAST index: the leaf load gives it new storage with the TOAST
 * table and does not build it before the rows (leafload.c); nothing reads
 * it meanwhile (values are stored, never looked up, and no row of the
 * leaf is read before its indexes are built).  Once the TOAST table's
 * pages are written, each of its indexes is built with index_build(), as
 * REINDEX builds it, fed the chunks' value IDs, sequence numbers and TIDs
 * from a record of the values (runs of values of as many chunks) and of
 * the pages (how many chunks each holds) instead of a scan of the TOAST
 * table, the way the leaf's key index is fed (leafload.c): the index is
 * the one btbuild() makes from those rows, its UNIQUE check included, and
 * no page of the TOAST table is read back, into shared buffers or at all.
 * Where the record would grow past a quarter of maintenance_work_mem (two
 * bytes per page of the TOAST table, a few per run of values), and for an
 * index that is not the btree on (chunk_id, chunk_seq) every TOAST table
 * has, the index is built from the TOAST table, as REINDEX builds it.  A
 * leaf whose rows store no value out of line gets its TOAST index built,
 * empty, after its rows (leaftoast_build_unbuilt()).
 *
 * Safety is the leaf's: the TOAST table's new files are among the leaf's
 * recorded ones (leafload.c), an abort drops them and a crash leaves them
 * to resume(), and they become the TOAST table's at the leaf's commit.
 * Logical decoding does not see the TOAST rows, as it does not see the
 * leaf's (full-page images) and as rewriteheap.c toasts.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/toast_compression.h"
#include "access/toast_helper.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "load/load_int.h"

/* A run of consecutive values stored out of line in as many chunks. */
typedef struct LeafToastRun
{
	uint32		nvalues;
	int32		nchunks;
} LeafToastRun;

struct LeafToast
{
	Relation	rel;			/* the leaf */
	MemoryContext cxt;			/* the LeafToast's, record included */
	Relation	toastrel;		/* its TOAST table, once a value goes there */
	LeafPages  *pages;			/* the TOAST table's pages */
	struct varlena *chunk;		/* the chunk being stored */
	Oid			first_valueid;	/* the first value's ID */
	Oid			next_valueid;	/* the next value's */
	int64		nvalues;		/* values stored out of line */
	int64		nchunks;		/* their chunks */
	/* the record the TOAST index is built from */
	LeafToastRun *runs;
	uint32		nruns;
	uint32		maxruns;
	uint16	   *pagerows;		/* chunks on each page, from block 0 */
	BlockNumber npages;
	BlockNumber maxpages;
	Size		limit;			/* bytes the record may take */
	bool		unfit;			/* no record: the indexes read the table */
};

/* The values whose index build leaftoast_scan() feeds, and the index. */
static const LeafToast *leaftoast_feed = NULL;
static Oid	leaftoast_feed_index = InvalidOid;

/* The value ID after valueid, wrapping as the OID counter does. */
static Oid
leaftoast_oid_after(Oid valueid)
{
	return valueid == OID_MAX ? FirstNormalObjectId : valueid + 1;
}

/*
 * Start toasting the rows of leaf rel, whose storage and its TOAST table's
 * are new in this transaction; the TOAST table is opened when the first
 * value goes there.
 */
LeafToast *
leaftoast_begin(Relation rel)
{
	LeafToast  *lt = palloc0(sizeof(LeafToast));

	lt->rel = rel;
	lt->cxt = CurrentMemoryContext;
	return lt;
}

/* Open the TOAST table's pages and the record, for the first value. */
static void
leaftoast_open(LeafToast *lt)
{
	MemoryContext old = MemoryContextSwitchTo(lt->cxt);
	Size		limit = (Size) maintenance_work_mem * 1024 / 4;

	lt->toastrel = table_open(lt->rel->rd_rel->reltoastrelid, RowExclusiveLock);
	lt->pages = leafpages_begin(lt->toastrel, NULL);
	lt->chunk = palloc(TOAST_MAX_CHUNK_SIZE + VARHDRSZ);
	lt->limit = Min(limit, MaxAllocSize);
	lt->maxruns = 16;
	lt->runs = palloc(sizeof(LeafToastRun) * lt->maxruns);
	lt->maxpages = 1024;
	lt->pagerows = palloc(sizeof(uint16) * lt->maxpages);
	MemoryContextSwitchTo(old);
}

/* Keep no record: the TOAST indexes will be built from the TOAST table. */
static void
leaftoast_unfit(LeafToast *lt)
{
	lt->unfit = true;
	pfree(lt->runs);
	pfree(lt->pagerows);
	lt->runs = NULL;
	lt->pagerows = NULL;
}

/*
 * One of the record's arrays (array, of *max items of size each) doubled,
 * or NULL if the record would then take more than its limit.
 */
static void *
leaftoast_grow(LeafToast *lt, void *array, Size size, uint32 *max)
{
	Size		bytes = sizeof(LeafToastRun) * lt->maxruns +
	sizeof(uint16) * lt->maxpages + size * *max;

	if (bytes > lt->limit)
		return NULL;
	*max *= 2;
	return repalloc(array, size * *max);
}

/* Record the chunk just written at tid: the next row of its page. */
static void
leaftoast_record_chunk(LeafToast *lt, ItemPointer tid)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);

	lt->nchunks++;
	if (lt->unfit)
		return;
	if (blkno == lt->npages && lt->npages == lt->maxpages)
	{
		uint16	   *grown = leaftoast_grow(lt, lt->pagerows, sizeof(uint16),
										   &lt->maxpages);

		if (grown == NULL)
		{
			leaftoast_unfit(lt);
			return;
		}
		lt->pagerows = grown;
	}
	if (blkno == lt->npages)
		lt->pagerows[lt->npages++] = 0;
	if (blkno + 1 != lt->npages ||
		ItemPointerGetOffsetNumber(tid) != ++lt->pagerows[blkno])
		elog(ERROR, "chunk of TOAST table \"%s\" written out of order",
			 RelationGetRelationName(lt->toastrel));
}

/* Record the value just written, in nchunks chunks. */
static void
leaftoast_record_value(LeafToast *lt, int32 nchunks)
{
	if (lt->unfit)
		return;
	if (lt->nruns > 0 && lt->runs[lt->nruns - 1].nchunks == nchunks)
	{
		lt->runs[lt->nruns - 1].nvalues++;
		return;
	}
	if (lt->nruns == lt->maxruns)
	{
		LeafToastRun *grown = leaftoast_grow(lt, lt->runs,
											 sizeof(LeafToastRun),
											 &lt->maxruns);

		if (grown == NULL)
		{
			leaftoast_unfit(lt);
			return;
		}
		lt->runs = grown;
	}
	lt->runs[lt->nruns].nvalues = 1;
	lt->runs[lt->nruns].nchunks = nchunks;
	lt->nruns++;
}

/* The ID of the next value stored out of line: see the banner. */
static Oid
leaftoast_valueid(LeafToast *lt)
{
	Oid			drawn = GetNewObjectId();
	Oid			valueid;

	if (lt->nvalues == 0)
		lt->first_valueid = lt->next_valueid = drawn;
	else if (lt->nvalues > (int64) OID_MAX - FirstNormalObjectId)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot store more than %u values out of line in TOAST table \"%s\"",
						OID_MAX - FirstNormalObjectId + 1,
						RelationGetRelationName(lt->toastrel)),
				 errdetail("Each value stored out of line in a TOAST table needs an OID of its own."),
				 errhint("Spread the table's rows over more partitions.")));
	valueid = lt->next_valueid;
	lt->next_valueid = leaftoast_oid_after(valueid);
	lt->nvalues++;
	return valueid;
}

/* Write chunk seq of value valueid: size bytes at data. */
static void
leaftoast_write_chunk(LeafToast *lt, Oid valueid, int32 seq,
					  const char *data, int32 size)
{
	Datum		values[3];
	bool		isnull[3] = {false, false, false};
	HeapTuple	tuple;

	SET_VARSIZE(lt->chunk, size + VARHDRSZ);
	memcpy(VARDATA(lt->chunk), data, size);
	values[0] = ObjectIdGetDatum(valueid);
	values[1] = Int32GetDatum(seq);
	values[2] = PointerGetDatum(lt->chunk);
	tuple = heap_form_tuple(RelationGetDescr(lt->toastrel), values, isnull);
	leafpages_add(lt->pages, tuple);
	leaftoast_record_chunk(lt, &tuple->t_self);
	heap_freetuple(tuple);
}

/*
 * Store value (not external) out of line in the leaf's TOAST table, in
 * chunks of TOAST_MAX_CHUNK_SIZE; returns its TOAST pointer, the one
 * toast_save_datum() returns for it but for the value ID.
 */
static Datum
leaftoast_save(LeafToast *lt, Datum value)
{
	struct varlena *dval = (struct varlena *) DatumGetPointer(value);
	struct varlena *result;
	varatt_external pointer;
	char	   *data;
	int32		todo;
	int32		seq = 0;

	if (lt->toastrel == NULL)
		leaftoast_open(lt);
	if (VARATT_IS_SHORT(dval))
	{
		data = VARDATA_SHORT(dval);
		todo = VARSIZE_SHORT(dval) - VARHDRSZ_SHORT;
		pointer.va_rawsize = todo + VARHDRSZ;	/* as if not short */
		pointer.va_extinfo = todo;
	}
	else if (VARATT_IS_COMPRESSED(dval))
	{
		data = VARDATA(dval);
		todo = VARSIZE(dval) - VARHDRSZ;
		/* the size of the value once decompressed, and how it compressed */
		pointer.va_rawsize = VARDATA_COMPRESSED_GET_EXTSIZE(dval) + VARHDRSZ;
		VARATT_EXTERNAL_SET_SIZE_AND_COMPRESS_METHOD(pointer, todo,
													 VARDATA_COMPRESSED_GET_COMPRESS_METHOD(dval));
	}
	else
	{
		data = VARDATA(dval);
		todo = VARSIZE(dval) - VARHDRSZ;
		pointer.va_rawsize = VARSIZE(dval);
		pointer.va_extinfo = todo;
	}
	pointer.va_toastrelid = RelationGetRelid(lt->toastrel);
	pointer.va_valueid = leaftoast_valueid(lt);
	for (; todo > 0; seq++)
	{
		int32		size = Min(TOAST_MAX_CHUNK_SIZE, todo);

		leaftoast_write_chunk(lt, pointer.va_valueid, seq, data, size);
		data += size;
		todo -= size;
	}
	leaftoast_record_value(lt, seq);
	result = palloc(TOAST_POINTER_SIZE);
	SET_VARTAG_EXTERNAL(result, VARTAG_ONDISK);
	memcpy(VARDATA_EXTERNAL(result), &pointer, sizeof(pointer));
	return PointerGetDatum(result);
}

/*
 * Move value attribute of ttc out of line, as toast_tuple_externalize()
 * does, through leaftoast_save().
 */
static void
leaftoast_externalize(LeafToast *lt, ToastTupleContext *ttc, int attribute)
{
	Datum	   *value = &ttc->ttc_values[attribute];
	Datum		old_value = *value;
	ToastAttrInfo *attr = &ttc->ttc_attr[attribute];

	attr->tai_colflags |= TOASTCOL_IGNORE;
	*value = leaftoast_save(lt, old_value);
	if ((attr->tai_colflags & TOASTCOL_NEEDS_FREE) != 0)
		pfree(DatumGetPointer(old_value));
	attr->tai_colflags |= TOASTCOL_NEEDS_FREE;
	ttc->ttc_flags |= (TOAST_NEEDS_CHANGE | TOAST_NEEDS_FREE);
}

/*
 * Make tuple, a new row of the leaf, fit as heap_toast_insert_or_update()
 * makes it fit, round by round: 1, compress values of storage EXTENDED,
 * biggest first, and move one that alone is still over the target out of
 * line; 2, move values of storage EXTENDED or EXTERNAL out of line,
 * biggest first; 3, compress values of storage MAIN; 4, move those out of
 * line, against the larger target of MAIN.  Each round ends when the row
 * fits its target or no value is left to it; rounds 1 and 3 need no TOAST
 * table.  Returns tuple, or a new tuple (palloc'd, its header to be set)
 * with the values as stored.
 */
HeapTuple
leaftoast_tuple(LeafToast *lt, HeapTuple tuple)
{
	TupleDesc	desc = RelationGetDescr(lt->rel);
	Datum		values[MaxHeapAttributeNumber];
	bool		isnull[MaxHeapAttributeNumber];
	ToastAttrInfo attrs[MaxHeapAttributeNumber];
	ToastTupleContext ttc = {0};
	bool		has_toast = OidIsValid(lt->rel->rd_rel->reltoastrelid);
	Size		hoff = SizeofHeapTupleHeader;
	Size		target;
	int			att;
	HeapTuple	result = tuple;

	heap_deform_tuple(tuple, desc, values, isnull);
	ttc.ttc_rel = lt->rel;
	ttc.ttc_values = values;
	ttc.ttc_isnull = isnull;
	ttc.ttc_attr = attrs;
	toast_tuple_init(&ttc);
	/* the header heap_form_tuple() gives the row */
	if ((ttc.ttc_flags & TOAST_HAS_NULLS) != 0)
		hoff += BITMAPLEN(desc->natts);
	hoff = MAXALIGN(hoff);
	target = RelationGetToastTupleTarget(lt->rel, TOAST_TUPLE_TARGET) - hoff;

	while (heap_compute_data_size(desc, values, isnull) > target &&
		   (att = toast_tuple_find_biggest_attribute(&ttc, true, false)) >= 0)
	{
		if (TupleDescAttr(desc, att)->attstorage == TYPSTORAGE_EXTENDED)
			toast_tuple_try_compression(&ttc, att);
		else
			attrs[att].tai_colflags |= TOASTCOL_INCOMPRESSIBLE;
		if (attrs[att].tai_size > target && has_toast)
			leaftoast_externalize(lt, &ttc, att);
	}
	while (has_toast && heap_compute_data_size(desc, values, isnull) > target &&
		   (att = toast_tuple_find_biggest_attribute(&ttc, false, false)) >= 0)
		leaftoast_externalize(lt, &ttc, att);
	while (heap_compute_data_size(desc, values, isnull) > target &&
		   (att = toast_tuple_find_biggest_attribute(&ttc, true, true)) >= 0)
		toast_tuple_try_compression(&ttc, att);
	target = TOAST_TUPLE_TARGET_MAIN - hoff;
	while (has_toast && heap_compute_data_size(desc, values, isnull) > target &&
		   (att = toast_tuple_find_biggest_attribute(&ttc, false, true)) >= 0)
		leaftoast_externalize(lt, &ttc, att);

	if ((ttc.ttc_flags & TOAST_NEEDS_CHANGE) != 0)
		result = heap_form_tuple(desc, values, isnull);
	toast_tuple_cleanup(&ttc);
	return result;
}

/* Raise an error: the chunks fed to a build are not the chunks written. */
static void
leaftoast_mismatch(Relation toastrel)
{
	elog(ERROR, "the chunks of TOAST table \"%s\" do not match the values written",
		 RelationGetRelationName(toastrel));
}

/*
 * The TOAST table's index_build_range_scan during leaftoast_build_index():
 * call callback with each chunk's TID, value ID and sequence number, in
 * the order they were written, each live; returns the number of chunks.
 * Any other scan is heap's.
 */
static double
leaftoast_scan(Relation table_rel, Relation index_rel, IndexInfo *index_info,
			   bool allow_sync, bool anyvisible, bool progress,
			   BlockNumber start_blockno, BlockNumber numblocks,
			   IndexBuildCallback callback, void *callback_state,
			   TableScanDesc scan)
{
	const LeafToast *lt = leaftoast_feed;
	MemoryContext rowcxt;
	Oid			valueid;
	BlockNumber blkno = 0;
	OffsetNumber off = 0;
	int64		nchunks = 0;

	if (lt == NULL || RelationGetRelid(table_rel) != RelationGetRelid(lt->toastrel) ||
		RelationGetRelid(index_rel) != leaftoast_feed_index ||
		start_blockno != 0 || numblocks != InvalidBlockNumber || scan != NULL)
		return GetHeapamTableAmRoutine()->index_build_range_scan(table_rel, index_rel, index_info,
																 allow_sync, anyvisible, progress,
																 start_blockno, numblocks,
																 callback, callback_state, scan);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "petagen leaf toast",
								   ALLOCSET_DEFAULT_SIZES);
	valueid = lt->first_valueid;
	for (uint32 run = 0; run < lt->nruns; run++)
	{
		for (uint32 v = 0; v < lt->runs[run].nvalues; v++)
		{
			for (int32 seq = 0; seq < lt->runs[run].nchunks; seq++)
			{
				ItemPointerData tid;
				Datum		values[2] = {ObjectIdGetDatum(valueid), Int32GetDatum(seq)};
				bool		isnull[2] = {false, false};
				MemoryContext old;

				if ((nchunks++ & 1023) == 0)
					CHECK_FOR_INTERRUPTS();
				/* the next chunk's place: the next offset, else the next page */
				if (off == lt->pagerows[blkno])
				{
					off = 0;
					if (++blkno == lt->npages)
						leaftoast_mismatch(table_rel);
				}
				ItemPointerSet(&tid, blkno, ++off);
				old = MemoryContextSwitchTo(rowcxt);
				callback(index_rel, &tid, values, isnull, true, callback_state);
				MemoryContextSwitchTo(old);
				MemoryContextReset(rowcxt);
			}
			valueid = leaftoast_oid_after(valueid);
		}
	}
	if (nchunks != lt->nchunks ||
		(nchunks > 0 && (blkno + 1 != lt->npages || off != lt->pagerows[blkno])))
		leaftoast_mismatch(table_rel);
	MemoryContextDelete(rowcxt);
	return (double) nchunks;
}

/*
 * Is index the btree on (chunk_id, chunk_seq) of a TOAST table, covering
 * every row?
 */
static bool
leaftoast_index_eligible(Relation index)
{
	return index->rd_rel->relam == BTREE_AM_OID &&
		index->rd_index->indnatts == 2 &&
		index->rd_index->indkey.values[0] == 1 &&
		index->rd_index->indkey.values[1] == 2 &&
		RelationGetIndexExpressions(index) == NIL &&
		RelationGetIndexPredicate(index) == NIL;
}

/*
 * Build index of the TOAST table as index_build() builds it, fed the
 * chunks written as the record has them (see above), or from the TOAST
 * table if there is no record or the index is not the usual one.
 */
static void
leaftoast_build_index(LeafToast *lt, Relation index)
{
	Relation	toastrel = lt->toastrel;
	const TableAmRoutine *heapam = toastrel->rd_tableam;
	TableAmRoutine *fed;

	if (lt->unfit || !leaftoast_index_eligible(index))
	{
		index_build(toastrel, index, BuildIndexInfo(index), true, false);
		return;
	}
	fed = palloc(sizeof(TableAmRoutine));
	*fed = *heapam;
	fed->index_build_range_scan = leaftoast_scan;
	leaftoast_feed = lt;
	leaftoast_feed_index = RelationGetRelid(index);
	toastrel->rd_tableam = fed;
	PG_TRY();
	{
		index_build(toastrel, index, BuildIndexInfo(index), true, false);
	}
	PG_FINALLY();
	{
		toastrel->rd_tableam = heapam;
		leaftoast_feed = NULL;
		leaftoast_feed_index = InvalidOid;
	}
	PG_END_TRY();
	pfree(fed);
}

/*
 * After the leaf's rows: write the TOAST table's last page and its
 * visibility map, and build its indexes, if a value went there; free lt.
 */
void
leaftoast_finish(LeafToast *lt)
{
	List	   *indexes;
	ListCell   *lc;

	if (lt->toastrel == NULL)
	{
		pfree(lt);
		return;
	}
	leafpages_finish(lt->pages);
	indexes = RelationGetIndexList(lt->toastrel);
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);

		leaftoast_build_index(lt, index);
		index_close(index, NoLock);
		CommandCounterIncrement();
	}
	list_free(indexes);
	table_close(lt->toastrel, NoLock);
	if (!lt->unfit)
	{
		pfree(lt->runs);
		pfree(lt->pagerows);
	}
	pfree(lt->chunk);
	pfree(lt);
}

/*
 * Build the indexes of TOAST table toastrelid that have no storage yet, as
 * REINDEX builds them: those of a leaf whose rows stored no value out of
 * line (leaftoast_finish() builds the others).  The TOAST table is empty.
 */
void
leaftoast_build_unbuilt(Oid toastrelid)
{
	Relation	toastrel = table_open(toastrelid, RowExclusiveLock);
	List	   *indexes = RelationGetIndexList(toastrel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);

		if (RelationGetNumberOfBlocks(index) == 0)
		{
			index_build(toastrel, index, BuildIndexInfo(index), true, false);
			CommandCounterIncrement();
		}
		index_close(index, NoLock);
	}
	list_free(indexes);
	table_close(toastrel, NoLock);
}
