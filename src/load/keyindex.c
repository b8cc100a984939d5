/*-------------------------------------------------------------------------
 * keyindex.c
 *		A leaf's btree index on ycsb_key, and lookups of single keys in it.
 *
 * Two callers look keys up in a leaf: the writer, for the duplicates of
 * hashed key modes (writer.c: the unique index on exactly ycsb_key, with
 * SnapshotSelf), and check()'s probe of whether a load's key space is
 * already in the table (preflight_keys.c: any valid btree index whose first
 * column is ycsb_key, with the statement's snapshot).  An index that
 * qualifies holds every row of the leaf: no expression, no predicate.  The
 * lookup compares with the equality operator of the index's own operator
 * family and collation, as the index itself does.  Callers lock the leaf;
 * row-level security is not applied, so callers refuse (or do not probe)
 * tables where it would hide rows.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "load/keyindex.h"

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
