/*-------------------------------------------------------------------------
 * verify_scan.c
 *		Reading every ycsb_key a local leaf holds, in one pass, and the
 *		order-independent fingerprint of a set of keys, for petagen.verify().
 *
 * A fingerprint (KeyPrint) is the number of keys and the sum, modulo 2^128,
 * of XXH3-128 hashes of their text (keys_datum_chars(): a text key's
 * bytes, an integer key's decimal number, as keys_format() spells both): adding keys in any order gives the
 * same fingerprint, and two multisets of keys that differ (a key missing,
 * one more, one twice) differ in it but with probability about 2^-128.
 * verify() compares the fingerprint of the keys the generator routes to a
 * leaf with the fingerprint of the keys the leaf holds.
 *
 * A leaf's keys are read from its key index (the one verify.c chose: valid,
 * not partial, so it has an entry for every row) by an index-only scan when
 * the visibility map says nearly every heap page is all-visible (a frozen
 * load, a vacuumed table): the index is a small fraction of the heap, and
 * the few pages not all-visible are read as an index-only scan reads them.
 * Otherwise a sequential scan of the heap reads the keys: fetching the heap
 * in index order would be random I/O.  Both see exactly the rows of the
 * leaf itself (its index has no entries of inheritance children) visible to
 * the active snapshot, so the count is that of SELECT count(*) FROM ONLY.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <xxhash.h>

#include "access/genam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "gen/shape.h"
#include "verify/verify_scan.h"

/* Index-only scan when at least this share of the heap pages is all-visible. */
#define LEAFSCAN_ALL_VISIBLE_SHARE 0.9

/* One pass over the keys of a local leaf. */
struct LeafScan
{
	Relation	heap;
	AttrNumber	keyatt;			/* ycsb_key in the heap */
	KeyKind		kind;			/* its type */
	char		chars[KEYS_MAX_LEN + 1];	/* an integer key's text */
	IndexScanDesc iscan;		/* an index-only scan, or NULL */
	TableScanDesc hscan;		/* else a sequential scan */
	TupleTableSlot *slot;
	Buffer		vmbuffer;
	MemoryContext keycxt;		/* a detoasted key, until the next one */
};

/* Add one key (NULL: a NULL ycsb_key) to a fingerprint. */
void
keyprint_add(KeyPrint *kp, const char *key, int len)
{
	XXH128_hash_t h = key != NULL ? XXH3_128bits(key, len) :
		XXH3_128bits_withSeed("", 0, 1);
	uint64		low = kp->sum_low + h.low64;

	kp->sum_high += h.high64 + (low < kp->sum_low ? 1 : 0);
	kp->sum_low = low;
	kp->count++;
}

/* Do two fingerprints describe the same multiset of keys? */
bool
keyprint_equal(const KeyPrint *a, const KeyPrint *b)
{
	return a->count == b->count && a->sum_low == b->sum_low &&
		a->sum_high == b->sum_high;
}

/* A 64-bit hash of a key (NULL: a NULL ycsb_key), for sets of keys. */
uint64
keyprint_hash(const char *key, int len)
{
	return key != NULL ? XXH3_64bits(key, len) : XXH3_64bits_withSeed("", 0, 1);
}

/* Would an index-only scan of heap read (nearly) no heap page? */
static bool
leafscan_all_visible(Relation heap)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(heap);
	BlockNumber all_visible;
	BlockNumber all_frozen;

	if (nblocks == 0)
		return true;
	visibilitymap_count(heap, &all_visible, &all_frozen);
	return all_visible >= LEAFSCAN_ALL_VISIBLE_SHARE * nblocks;
}

/* Start reading the keys of a local leaf, by its key index or its heap. */
LeafScan *
leafscan_begin(Relation heap, Relation index)
{
	LeafScan   *ls = palloc0(sizeof(LeafScan));

	ls->heap = heap;
	ls->keyatt = get_attnum(RelationGetRelid(heap), "ycsb_key");
	ls->kind = shape_key_kind(RelationGetRelid(heap));
	ls->slot = table_slot_create(heap, NULL);
	ls->vmbuffer = InvalidBuffer;
	ls->keycxt = AllocSetContextCreate(CurrentMemoryContext,
									   "petagen verify key",
									   ALLOCSET_SMALL_SIZES);
	if (leafscan_all_visible(heap))
	{
		ls->iscan = compat_index_beginscan(heap, index, GetActiveSnapshot(), 0, 0);
		ls->iscan->xs_want_itup = true;
		index_rescan(ls->iscan, NULL, 0, NULL, 0);
	}
	else
		ls->hscan = table_beginscan(heap, GetActiveSnapshot(), 0, NULL);
	return ls;
}

/*
 * Hand out a key datum as its text (keys_datum_chars(): the bytes the
 * generator's side adds too), detoasted if it must be.
 */
static bool
leafscan_key(LeafScan *ls, Datum value, bool isnull, const char **key,
			 int *len)
{
	if (isnull)
	{
		*key = NULL;
		*len = 0;
		return true;
	}
	if (ls->kind == KEYKIND_TEXT &&
		VARATT_IS_EXTENDED((struct varlena *) DatumGetPointer(value)))
	{
		MemoryContext old = MemoryContextSwitchTo(ls->keycxt);

		value = PointerGetDatum(pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value)));
		MemoryContextSwitchTo(old);
	}
	*len = keys_datum_chars(ls->kind, value, ls->chars, key);
	return true;
}

/* The key of the row in the slot. */
static bool
leafscan_slot_key(LeafScan *ls, const char **key, int *len)
{
	bool		isnull;
	Datum		value = slot_getattr(ls->slot, ls->keyatt, &isnull);

	return leafscan_key(ls, value, isnull, key, len);
}

/* The next key of the leaf (NULL for a NULL key); false after the last. */
bool
leafscan_next(LeafScan *ls, const char **key, int *len)
{
	ItemPointer tid;

	MemoryContextReset(ls->keycxt);
	if (ls->hscan != NULL)
		return table_scan_getnextslot(ls->hscan, ForwardScanDirection, ls->slot) &&
			leafscan_slot_key(ls, key, len);
	while ((tid = index_getnext_tid(ls->iscan, ForwardScanDirection)) != NULL)
	{
		bool		isnull;
		Datum		value;

		/* as an index-only scan: the heap decides unless the page is all-visible */
		if (!VM_ALL_VISIBLE(ls->heap, ItemPointerGetBlockNumber(tid), &ls->vmbuffer))
		{
			if (!index_fetch_heap(ls->iscan, ls->slot))
				continue;
			return leafscan_slot_key(ls, key, len);
		}
		value = index_getattr(ls->iscan->xs_itup, 1, ls->iscan->xs_itupdesc, &isnull);
		return leafscan_key(ls, value, isnull, key, len);
	}
	return false;
}

/* End a scan of a leaf's keys. */
void
leafscan_end(LeafScan *ls)
{
	if (ls->iscan != NULL)
		index_endscan(ls->iscan);
	else
		table_endscan(ls->hscan);
	if (BufferIsValid(ls->vmbuffer))
		ReleaseBuffer(ls->vmbuffer);
	ExecDropSingleTupleTableSlot(ls->slot);
	MemoryContextDelete(ls->keycxt);
	pfree(ls);
}

/* Add the keys of fingerprint b to fingerprint a. */
void
keyprint_merge(KeyPrint *a, const KeyPrint *b)
{
	uint64		low = a->sum_low + b->sum_low;

	a->sum_high += b->sum_high + (low < a->sum_low ? 1 : 0);
	a->sum_low = low;
	a->count += b->count;
}
