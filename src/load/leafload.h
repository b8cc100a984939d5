/*-------------------------------------------------------------------------
 * leafload.h
 *		Leaf-at-a-time loads (start(..., method => 'leaf')): the key space
 *		routed into per-leaf key lists on disk (leafroute.h), then each
 *		local leaf written whole in one transaction, into new storage,
 *		frozen, indexes built after.  See leafload.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFLOAD_H
#define PETAGEN_LEAFLOAD_H

#include "load/leafroute.h"
#include "load/load.h"
#include "gen/spec.h"
#include "utils/snapshot.h"

extern void leaf_check(Oid relid, const GenSpec *spec, bool indexes_after);
extern Oid *leaf_local_leaves(Oid relid, int *nlocal);
extern bool leaf_has_rows(Relation rel, Snapshot snapshot);
extern int64 leaf_nonempty(Oid relid, char **first_name);
extern void leaf_write(const LeafRouting *routing, Oid leafrelid, int leafno,
					   int64 nranges, LoadStats *stats,
					   LoadProgressFn progress, void *progress_arg);

#endif							/* PETAGEN_LEAFLOAD_H */
