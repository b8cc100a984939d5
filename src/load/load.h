/*-------------------------------------------------------------------------
 * load.h
 *		Loading a range of key numbers into the local leaves of a table in
 *		the current transaction: route, build, multi-insert, index.
 *
 * Used by petagen.load() (synchronous, in the calling backend) and by the
 * chunk method's workers (method_chunk.c), one chunk of key numbers per
 * transaction.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LOAD_H
#define PETAGEN_LOAD_H

#include "gen/spec.h"
#include "load/loadstats.h"
#include "utils/relcache.h"

/*
 * Called after every flushed batch (at most every few thousand keys) with
 * the stats so far; may sleep, check for interrupts or raise an error.
 */
typedef void (*LoadProgressFn) (void *arg, const LoadStats *so_far);

extern void load_check_bypass(Relation rel);
extern void load_no_partition(Oid relid, const KeySpec *keys, int64 seq);
extern void load_check_privilege(Oid relid);
extern void load_check(Oid relid, const GenSpec *spec, int64 last);
extern void load_check_table(Oid relid, const GenSpec *spec, int64 last,
							 RowShape *shape);
extern void load_range(Oid relid, const GenSpec *spec, bool frozen,
					   int64 first, int64 count, LoadStats *stats,
					   LoadProgressFn progress, void *progress_arg);

#endif							/* PETAGEN_LOAD_H */
