/*-------------------------------------------------------------------------
 * verify_diff.c
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
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "verify/verify_diff.h"
#include "verify/verify_scan.h"

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
