/*-------------------------------------------------------------------------
 * verify_scan.c
 *		The keys of the leaves verify() checks: a local leaf read in one pass
 *		and fingerprinted (in parallel, by the calling backend and its
 *		helpers), the missing, extra and duplicated keys of one that differs,
 *		and the keys of a remote leaf probed in batches.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <xxhash.h>

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/shm_toc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "catalog.h"
#include "compat.h"
#include "gen/shape.h"
#include "route/route.h"
#include "verify/verify.h"

static void fdwprobe_add(FdwProbe *probe, Datum key);


/*-------------------------------------------------------------------------
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
static void
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
static uint64
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
static LeafScan *
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
static bool
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

		/*
		 * as an index-only scan: the heap decides unless the page is
		 * all-visible
		 */
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
static void
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
static void
keyprint_merge(KeyPrint *a, const KeyPrint *b)
{
	uint64		low = a->sum_low + b->sum_low;

	a->sum_high += b->sum_high + (low < a->sum_low ? 1 : 0);
	a->sum_low = low;
	a->count += b->count;
}


/*-------------------------------------------------------------------------
 *		The fingerprints of petagen.verify(): what the key space routes to
 *		each leaf and what each local leaf holds, computed by the calling
 *		backend and parallel workers together.
 *
 * The work is a queue of units in shared memory: unit i < nleaves reads
 * local leaf i into its fingerprint (verify_scan.c), every further unit
 * generates and routes VERIFY_RANGE_KEYS key numbers and adds each key to
 * the expected fingerprint of its leaf.  The calling backend and up to
 * nworkers parallel workers (PostgreSQL's parallel infrastructure, as
 * parallel CREATE INDEX uses it: the workers share the caller's snapshot,
 * role and locks, and their errors are raised in the caller) take units
 * with an atomic counter until none is left.  A leaf's fingerprint is
 * written only by the participant that scanned it; the expected
 * fingerprints are kept per participant and summed at the end, so nothing
 * is locked.  Fingerprints are order-independent, so how the units fall
 * does not change the result.
 *
 * Workers cannot reach a foreign leaf's server (postgres_fdw keeps its
 * connections per backend) nor the caller's temporary tables, so with a
 * foreign or a temporary leaf, or with fewer than VERIFY_PARALLEL_MIN_KEYS
 * keys, verify.c asks for no workers and the caller does every unit
 * itself, batching the keys of foreign leaves into their remote probes.
 *-------------------------------------------------------------------------
 */

/* Key numbers per unit of the generator's pass. */
#define VERIFY_RANGE_KEYS 65536
/* The shm_toc key of the shared state. */
#define VERIFY_SHARED_KEY UINT64CONST(0x7065746167656E76)

/* The queue of units and the results, in shared memory (or local). */
typedef struct VerifyShared
{
	Oid			relid;
	VerifyRange range;
	KeySpec		keys;
	int			nleaves;
	int			nparticipants;
	uint64		nunits;
	pg_atomic_uint64 next_unit;
	/* nleaves VerifyPrint, then nparticipants * nleaves expected KeyPrint */
	VerifyPrint prints[FLEXIBLE_ARRAY_MEMBER];
} VerifyShared;

PGDLLEXPORT void petagen_verify_worker_main(dsm_segment *seg, shm_toc *toc);

/* The bytes of the shared state. */
static Size
verify_shared_size(int nleaves, int nparticipants)
{
	return add_size(add_size(offsetof(VerifyShared, prints),
							 mul_size(nleaves, sizeof(VerifyPrint))),
					mul_size(mul_size(nleaves, nparticipants), sizeof(KeyPrint)));
}

/* The expected fingerprints of participant p, one per leaf. */
static KeyPrint *
verify_shared_want(VerifyShared *shared, int p)
{
	return (KeyPrint *) &shared->prints[shared->nleaves] + (Size) p * shared->nleaves;
}

/* Read local leaf print->relid into print->have. */
static void
verify_scan_leaf(VerifyPrint *print)
{
	Relation	heap = table_open(print->relid, AccessShareLock);
	Relation	index = index_open(print->index, AccessShareLock);
	LeafScan   *scan = leafscan_begin(heap, index);
	const char *key;
	int			len;

	while (leafscan_next(scan, &key, &len))
	{
		if ((print->have.count & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		keyprint_add(&print->have, key, len);
	}
	leafscan_end(scan);
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
}

/*
 * Route the key numbers from offset on, VERIFY_RANGE_KEYS of them within
 * the range verified, into want[].
 */
static void
verify_route_range(VerifyShared *shared, Router *router, KeyPrint *want,
				   FdwProbe **remote, int64 offset)
{
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	char		scratch[KEYS_MAX_LEN + 1];
	int64		first = shared->range.first + offset;
	int64		end = first + Min(shared->range.rows - offset, VERIFY_RANGE_KEYS);

	CHECK_FOR_INTERRUPTS();
	for (int64 seq = first; seq < end; seq++)
	{
		Datum		key = keys_datum(&shared->keys, seq, buf);
		int			leaf = route_key(router, key);
		const char *chars;
		int			len;

		if (leaf < 0)
			continue;
		if (OidIsValid(shared->prints[leaf].index))
		{
			len = keys_datum_chars(shared->keys.kind, key, scratch, &chars);
			keyprint_add(&want[leaf], chars, len);
		}
		else
		{
			/* a foreign leaf, or a Citus shard on another node */
			want[leaf].count++;
			if (remote != NULL && remote[leaf] != NULL)
				fdwprobe_add(remote[leaf], key);
		}
	}
	pfree(buf);
}

/* Take units until none is left: participant p of the shared work. */
static void
verify_participate(VerifyShared *shared, int p, FdwProbe **remote)
{
	Router	   *router = route_open(shared->relid);
	KeyPrint   *want = verify_shared_want(shared, p);
	uint64		unit;

	/* a worker routes as the caller did: the same leaves in the same order */
	if (route_nleaves(router) != shared->nleaves)
		elog(ERROR, "petagen: the leaves of %u changed during verify()", shared->relid);
	for (int i = 0; i < shared->nleaves; i++)
		if (route_leaf(router, i)->relid != shared->prints[i].relid)
			elog(ERROR, "petagen: the leaves of %u changed during verify()", shared->relid);
	while ((unit = pg_atomic_fetch_add_u64(&shared->next_unit, 1)) < shared->nunits)
	{
		if (unit < (uint64) shared->nleaves)
		{
			if (OidIsValid(shared->prints[unit].index))
				verify_scan_leaf(&shared->prints[unit]);
		}
		else
			verify_route_range(shared, router, want, remote,
							   (int64) (unit - shared->nleaves) * VERIFY_RANGE_KEYS);
	}
	route_close(router);
}

/* A parallel worker of verify(). */
void
petagen_verify_worker_main(dsm_segment *seg, shm_toc *toc)
{
	VerifyShared *shared = shm_toc_lookup(toc, VERIFY_SHARED_KEY, false);

	verify_participate(shared, ParallelWorkerNumber + 1, NULL);
}

/* Fill the shared state: the leaves, the units, nothing counted yet. */
static void
verify_shared_init(VerifyShared *shared, Oid relid, const KeySpec *keys,
				   const VerifyRange *range, const VerifyPrint *prints, int nleaves,
				   int nparticipants)
{
	memset(shared, 0, verify_shared_size(nleaves, nparticipants));
	shared->relid = relid;
	shared->range = *range;
	shared->keys = *keys;
	shared->nleaves = nleaves;
	shared->nparticipants = nparticipants;
	shared->nunits = nleaves + (range->rows + VERIFY_RANGE_KEYS - 1) / VERIFY_RANGE_KEYS;
	pg_atomic_init_u64(&shared->next_unit, 0);
	for (int i = 0; i < nleaves; i++)
	{
		shared->prints[i].relid = prints[i].relid;
		shared->prints[i].index = prints[i].index;
	}
}

/* Copy the results out: each leaf's fingerprint, the expected ones summed. */
static void
verify_shared_collect(VerifyShared *shared, VerifyPrint *prints)
{
	for (int i = 0; i < shared->nleaves; i++)
	{
		prints[i].have = shared->prints[i].have;
		memset(&prints[i].want, 0, sizeof(KeyPrint));
		for (int p = 0; p < shared->nparticipants; p++)
			keyprint_merge(&prints[i].want, &verify_shared_want(shared, p)[i]);
	}
}

/*
 * Fill want and have of prints[0 .. nleaves-1] (relid and index given) for
 * the key numbers of range in table relid, with up to nworkers parallel
 * workers; foreign leaves' keys go to remote[leaf] (then nworkers is 0).
 */
void
verify_prints(Oid relid, const KeySpec *keys, const VerifyRange *range,
			  VerifyPrint *prints, int nleaves, FdwProbe **remote, int nworkers)
{
	ParallelContext *pcxt = NULL;
	VerifyShared *shared;
	Size		size = verify_shared_size(nleaves, nworkers + 1);

	if (nworkers > 0)
	{
		EnterParallelMode();
		pcxt = CreateParallelContext("$libdir/petagen", "petagen_verify_worker_main",
									 nworkers);
		shm_toc_estimate_chunk(&pcxt->estimator, size);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
		InitializeParallelDSM(pcxt);
		shared = shm_toc_allocate(pcxt->toc, size);
		shm_toc_insert(pcxt->toc, VERIFY_SHARED_KEY, shared);
	}
	else
		shared = palloc_extended(size, MCXT_ALLOC_HUGE);
	verify_shared_init(shared, relid, keys, range, prints, nleaves, nworkers + 1);
	if (pcxt != NULL)
	{
		LaunchParallelWorkers(pcxt);
		elog(DEBUG1, "petagen.verify(): %d of %d parallel workers launched",
			 pcxt->nworkers_launched, nworkers);
	}
	verify_participate(shared, 0, remote);
	if (pcxt != NULL)
		WaitForParallelWorkersToFinish(pcxt);
	verify_shared_collect(shared, prints);
	if (pcxt != NULL)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
	}
	else
		pfree(shared);
}


/*-------------------------------------------------------------------------
 *		Naming the missing, extra and duplicated keys of a local leaf whose
 *		fingerprint differs from the key space's, for petagen.verify().
 *
 * When a leaf's fingerprint differs, verify.c walks the key space once
 * more and hands every key routed to the leaf to leafdiff_probe(), which
 * looks it up in the leaf's key index: no match is a missing key, more than
 * one a duplicated key.  The rows of the leaf that no expected key matched
 * are its extra keys (rows - found).  Naming them needs the set of expected
 * keys: leafdiff_probe() also keeps the 64-bit hash of each expected key
 * when verify.c granted the leaf room for them (8 bytes a key, all leaves
 * together within work_mem); then one scan of the leaf names the keys whose
 * hash is not in that sorted set, up to VERIFY_NAMED of them.  A leaf
 * whose expected keys do not fit is told as a count of extra keys only.
 *
 * verify(job, bench_inserts => 'ignore') hands the leaf the rows benchmark
 * runs inserted (leafdiff_ignore()): they are not extra, their hashes join
 * the set so that the scan does not name them, and a leaf that differs by
 * them alone is not told.
 *
 * The names go out as a NOTICE per differing leaf, the first VERIFY_NAMED
 * keys of each kind: missing and duplicated in key-number order, extra in
 * the order the leaf's scan reads them.  The counts are verify()'s result.
 *-------------------------------------------------------------------------
 */

/* Keys named per kind and leaf. */
#define VERIFY_NAMED 10

/* The keys of one kind found so far, the first VERIFY_NAMED by name. */
typedef struct DiffNames
{
	int64		count;
	StringInfoData list;
} DiffNames;

/* What the key-by-key probes of one leaf found. */
struct LeafDiff
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ScanKeyData skey;
	int64		found;			/* index matches, duplicates included */
	int64		copies;			/* matches beyond the first of a key */
	int64		ignored;		/* rows benchmark runs inserted, left out */
	uint64	   *hashes;			/* the expected keys' hashes, or NULL */
	int64		nhashes;
	int64		maxhashes;
	DiffNames	missing;
	DiffNames	duplicated;
	DiffNames	extra;
};

/* Count one key of a kind, and name it while there are few. */
static void
diff_name(DiffNames *names, const char *key, int len)
{
	if (++names->count > VERIFY_NAMED)
		return;
	if (names->list.data == NULL)
		initStringInfo(&names->list);
	else
		appendStringInfoString(&names->list, ", ");
	if (key == NULL)
		appendStringInfoString(&names->list, "NULL");
	else
		appendBinaryStringInfo(&names->list, key, len);
}

/* Start probing a leaf; room for the hashes of that many expected keys. */
LeafDiff *
leafdiff_begin(Relation heap, Relation index, int64 hashes)
{
	LeafDiff   *diff = palloc0(sizeof(LeafDiff));
	Oid			opno;

	diff->heap = heap;
	diff->index = index;
	opno = get_opfamily_member(index->rd_opfamily[0], index->rd_opcintype[0],
							   index->rd_opcintype[0], BTEqualStrategyNumber);
	ScanKeyEntryInitialize(&diff->skey, 0, 1, BTEqualStrategyNumber,
						   index->rd_opcintype[0], index->rd_indcollation[0],
						   get_opcode(opno), (Datum) 0);
	diff->scan = compat_index_beginscan(heap, index, GetActiveSnapshot(), 1, 0);
	diff->slot = table_slot_create(heap, NULL);
	if (hashes > 0)
		diff->hashes = palloc_extended(sizeof(uint64) * hashes, MCXT_ALLOC_HUGE);
	diff->maxhashes = hashes;
	return diff;
}

/*
 * Probe one expected key of the leaf: key (keys_datum()) and its text
 * (keys_format()), len bytes.
 */
void
leafdiff_probe(LeafDiff *diff, Datum key, const char *bytes, int len)
{
	int64		n = 0;

	diff->skey.sk_argument = key;
	index_rescan(diff->scan, &diff->skey, 1, NULL, 0);
	while (index_getnext_slot(diff->scan, ForwardScanDirection, diff->slot))
		n++;
	diff->found += n;
	if (n == 0)
		diff_name(&diff->missing, bytes, len);
	else if (n > 1)
	{
		diff_name(&diff->duplicated, bytes, len);
		diff->copies += n - 1;
	}
	if (diff->nhashes < diff->maxhashes)
		diff->hashes[diff->nhashes++] = keyprint_hash(bytes, len);
}

/*
 * Leave out a row of the leaf that a benchmark run inserted: its key's text,
 * len bytes.  After the last leafdiff_probe().
 */
void
leafdiff_ignore(LeafDiff *diff, const char *bytes, int len)
{
	diff->ignored++;
	if (diff->hashes == NULL)
		return;
	if (diff->nhashes == diff->maxhashes)
	{
		diff->maxhashes *= 2;
		diff->hashes = repalloc_huge(diff->hashes, sizeof(uint64) * diff->maxhashes);
	}
	diff->hashes[diff->nhashes++] = keyprint_hash(bytes, len);
}

/* qsort/bsearch order of hashes. */
static int
diff_hash_cmp(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* Name the first extra keys: rows of the leaf whose hash no expected key has. */
static void
diff_name_extra(LeafDiff *diff, int64 extra)
{
	LeafScan   *scan = leafscan_begin(diff->heap, diff->index);
	const char *key;
	int			len;
	int64		seen = 0;

	qsort(diff->hashes, diff->nhashes, sizeof(uint64), diff_hash_cmp);
	while (diff->extra.count < Min(extra, VERIFY_NAMED) &&
		   leafscan_next(scan, &key, &len))
	{
		uint64		h = keyprint_hash(key, len);

		if ((++seen & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (bsearch(&h, diff->hashes, diff->nhashes, sizeof(uint64),
					diff_hash_cmp) == NULL)
			diff_name(&diff->extra, key, len);
	}
	leafscan_end(scan);
	diff->extra.count = extra;
}

/* Append one kind's names to a detail message. */
static void
diff_describe(StringInfo detail, const char *kind, const DiffNames *names)
{
	if (names->list.data == NULL)
		return;
	appendStringInfo(detail, "%s%s keys: %s", detail->len > 0 ? " " : "", kind,
					 names->list.data);
	if (names->count > VERIFY_NAMED)
		appendStringInfo(detail, " and " INT64_FORMAT " more",
						 names->count - VERIFY_NAMED);
	appendStringInfoChar(detail, '.');
}

/* Tell the keys of a differing leaf as a NOTICE. */
static void
diff_report(LeafDiff *diff, int64 extra)
{
	StringInfoData detail;
	bool		unnamed = extra > 0 && diff->hashes == NULL;

	initStringInfo(&detail);
	diff_describe(&detail, "Missing", &diff->missing);
	diff_describe(&detail, "Extra", &diff->extra);
	diff_describe(&detail, "Duplicated", &diff->duplicated);
	ereport(NOTICE,
			(errmsg("leaf \"%s\" differs from the key space: " INT64_FORMAT " missing, " INT64_FORMAT " extra, " INT64_FORMAT " duplicated",
					RelationGetRelationName(diff->heap), diff->missing.count,
					extra, diff->copies),
			 detail.len > 0 ? errdetail_internal("%s", detail.data) : 0,
			 unnamed ? errhint("The extra keys are not named because the leaf's expected keys do not fit in \"work_mem\" (8 bytes a key); raise it to name them.") : 0));
}

/*
 * End the probes of a leaf of that many rows: found and missing keys.  Its
 * rows left out are not extra (at most all of them are).
 */
void
leafdiff_finish(LeafDiff *diff, int64 rows, int64 *found, int64 *missing)
{
	int64		extra = Max(rows - diff->found - diff->ignored, 0);

	index_endscan(diff->scan);
	ExecDropSingleTupleTableSlot(diff->slot);
	if (extra > 0 && diff->hashes != NULL)
		diff_name_extra(diff, extra);
	if (extra > 0 || diff->missing.count > 0 || diff->copies > 0)
		diff_report(diff, extra);
	*found = diff->found;
	*missing = diff->missing.count;
}


/*-------------------------------------------------------------------------
 *		Probing the keys of a remote leaf (a foreign leaf, or a Citus shard
 *		on another node) in batches, one remote query per batch, for
 *		petagen.verify().
 *
 * Probing a remote leaf one key at a time would cost a network round trip
 * per key.  Instead the expected keys of a remote leaf are buffered and
 * sent FDWPROBE_BATCH at a time as one array parameter of
 *
 *	SELECT count(*), count(DISTINCT ycsb_key) FROM rel WHERE ycsb_key = ANY ($1)
 *
 * where rel is the foreign table, which postgres_fdw pushes down whole, or
 * the Citus distributed table: all keys of a batch are in one shard, and
 * Citus prunes the query to that shard and sends it there whole.  (Citus
 * prunes on = ANY only with a constant array: it gives the generic plan,
 * whose parameter is unbound, an exorbitant cost, so PostgreSQL's plan
 * cache plans every batch as a custom plan, the batch a constant.)  The
 * remote node answers with index probes and sends back two numbers.
 * count(*) is the rows found (with duplicates), count(DISTINCT) the keys
 * present; the batch's other keys are missing.  The array is of the key
 * column's type (text[], or int[] / bigint[] for an integer ycsb_key).
 * Nothing here depends on the key mode, and the remote node needs no
 * petagen.  The plan is
 * prepared once per leaf and kept until fdwprobe_finish(); each batch runs
 * in its own SPI connection, so callers may keep local scans open in
 * between.
 *-------------------------------------------------------------------------
 */

/* Keys sent per remote query. */
#define FDWPROBE_BATCH 1000

/* The batch being filled for one remote leaf, and its running totals. */
struct FdwProbe
{
	MemoryContext keycxt;		/* copies of the batch's keys */
	SPIPlanPtr	plan;
	Oid			keytype;		/* text, int4 or int8 */
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum		keys[FDWPROBE_BATCH];
	int			nkeys;
	int64		found;			/* rows found, duplicates included */
	int64		missing;		/* keys sent and not found */
};

/* Prepare the batch probe of relid: a foreign table or a Citus table. */
FdwProbe *
fdwprobe_open(Oid relid)
{
	FdwProbe   *probe = palloc0(sizeof(FdwProbe));
	Oid			argtype;
	char	   *sql;
	CatalogScope scope;

	probe->keytype = keys_type(shape_key_kind(relid));
	get_typlenbyvalalign(probe->keytype, &probe->typlen, &probe->typbyval,
						 &probe->typalign);
	argtype = get_array_type(probe->keytype);
	sql = psprintf("SELECT pg_catalog.count(*), pg_catalog.count(DISTINCT ycsb_key)"
				   " FROM %s WHERE ycsb_key OPERATOR(pg_catalog.=) ANY ($1)",
				   catalog_relation_name(relid));
	probe->keycxt = AllocSetContextCreate(CurrentMemoryContext,
										  "petagen fdw probe",
										  ALLOCSET_DEFAULT_SIZES);
	/* the plan keeps the pinned search_path when it is planned again */
	catalog_connect(&scope, false);
	probe->plan = SPI_prepare(sql, 1, &argtype);
	if (probe->plan == NULL)
		elog(ERROR, "petagen: could not prepare \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	SPI_keepplan(probe->plan);
	catalog_finish(&scope);
	return probe;
}

/* Send the buffered keys as one remote query and add up its answer. */
static void
fdwprobe_flush(FdwProbe *probe)
{
	ArrayType  *array;
	Datum		arg;
	bool		isnull;
	int64		distinct;

	if (probe->nkeys == 0)
		return;
	array = construct_array(probe->keys, probe->nkeys, probe->keytype,
							probe->typlen, probe->typbyval, probe->typalign);
	arg = PointerGetDatum(array);
	SPI_connect();
	if (SPI_execute_plan(probe->plan, &arg, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "petagen: the probe of a remote leaf returned no row");
	probe->found += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
	distinct = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
										   SPI_tuptable->tupdesc, 2, &isnull));
	SPI_finish();
	probe->missing += probe->nkeys - distinct;
	pfree(array);
	MemoryContextReset(probe->keycxt);
	probe->nkeys = 0;
}

/* Add a key (keys_datum()) to the batch; a full batch goes out at once. */
static void
fdwprobe_add(FdwProbe *probe, Datum key)
{
	MemoryContext old = MemoryContextSwitchTo(probe->keycxt);

	probe->keys[probe->nkeys++] = datumCopy(key, probe->typbyval, probe->typlen);
	MemoryContextSwitchTo(old);
	if (probe->nkeys == FDWPROBE_BATCH)
		fdwprobe_flush(probe);
}

/* Send the last batch; the totals; free the probe. */
void
fdwprobe_finish(FdwProbe *probe, int64 *found, int64 *missing)
{
	fdwprobe_flush(probe);
	*found = probe->found;
	*missing = probe->missing;
	SPI_freeplan(probe->plan);
	MemoryContextDelete(probe->keycxt);
	pfree(probe);
}
