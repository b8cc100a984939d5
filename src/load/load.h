/*-------------------------------------------------------------------------
 * load.h
 *		Loading a range of key numbers into the local leaves of a table in
 *		the current transaction: route, build, multi-insert, index.
 *
 * Used by petagen.load() (synchronous, in the calling backend) and by the
 * background workers, one chunk of key numbers per transaction.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LOAD_H
#define PETAGEN_LOAD_H

#include "gen/spec.h"
#include "utils/relcache.h"

/* What a load did; all counters only grow. */
typedef struct LoadStats
{
	int64		keys;			/* key numbers processed */
	int64		rows;			/* rows written */
	int64		bytes;			/* heap tuple bytes written */
	int64		duplicates;		/* ycsb/go-ycsb keys skipped as duplicates */
	int64		foreign;		/* keys skipped: their leaf is not local */
} LoadStats;

/*
 * Called after every flushed batch (at most every few thousand keys) with
 * the stats so far; may sleep, check for interrupts or raise an error.
 */
typedef void (*LoadProgressFn) (void *arg, const LoadStats *so_far);

extern void load_check_bypass(Relation rel);
extern void load_no_partition(Oid relid, const char *key, int64 seq);
extern void load_check_privilege(Oid relid);
extern void load_check(Oid relid, const GenSpec *spec, int64 last);
extern void load_check_table(Oid relid, const GenSpec *spec, int64 last,
							 RowShape *shape);
extern void load_range(Oid relid, const GenSpec *spec, bool frozen,
					   int64 first, int64 count, LoadStats *stats,
					   LoadProgressFn progress, void *progress_arg);

#endif							/* PETAGEN_LOAD_H */
