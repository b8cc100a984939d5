/*-------------------------------------------------------------------------
 * leafload.h
 *		Leaf-at-a-time loads (start(..., method => 'leaf')): the key space
 *		routed into per-leaf key lists on disk, then each local leaf written
 *		whole in one transaction, into new storage, frozen, indexes built
 *		after.  See leafload.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFLOAD_H
#define PETAGEN_LEAFLOAD_H

#include "load/load.h"
#include "gen/spec.h"

/* What writing a leaf needs to know of its job. */
typedef struct LeafJob
{
	int64		job;
	Oid			relid;			/* the job's table */
	int64		rows;			/* its key numbers: 0 .. rows-1 */
	int			nlocal;			/* local leaves of the table */
	int64		nranges;		/* routing files */
	const GenSpec *spec;
} LeafJob;

extern bool leaf_method_option(const char *value);
extern void leaf_check(Oid relid, const GenSpec *spec, bool indexes_after);
extern Oid *leaf_local_leaves(Oid relid, int *nlocal);
extern int64 leaf_nonempty(Oid relid, char **first_name);
extern bool leaf_range_done(int64 job, int64 range);
extern void leaf_route_range(int64 job, Oid relid, const GenSpec *spec,
							 int64 range, int64 first, int64 count,
							 LoadStats *stats);
extern void leaf_write(const LeafJob *lj, Oid leafrelid, int leafno,
					   LoadStats *stats, LoadProgressFn progress,
					   void *progress_arg);
extern void leaf_remove_files(int64 job);
extern int64 leaf_route_bytes(int64 rows, int nlocal);

#endif							/* PETAGEN_LEAFLOAD_H */
