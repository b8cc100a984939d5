/*-------------------------------------------------------------------------
 * keyindex.h
 *		A leaf's btree index on ycsb_key, and lookups of keys in it: the
 *		writer's duplicate check and check()'s probe of the key space.
 *		See keyindex.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_KEYINDEX_H
#define PETAGEN_KEYINDEX_H

#include "access/genam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

/* An open lookup of single keys in one index of one leaf. */
typedef struct KeyLookup
{
	IndexScanDesc scan;
	ScanKeyData key;
	TupleTableSlot *slot;
} KeyLookup;

extern bool keyindex_leads_with_key(Relation index, int key_att);
extern Relation keyindex_open_any(Relation heap, int key_att);
extern KeyLookup *keyindex_begin(Relation heap, Relation index,
								 Snapshot snapshot);
extern bool keyindex_contains(KeyLookup *lookup, Datum key);
extern void keyindex_end(KeyLookup *lookup);

#endif							/* PETAGEN_KEYINDEX_H */
