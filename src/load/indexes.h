/*-------------------------------------------------------------------------
 * indexes.h
 *		Indexes after: a job with indexes => 'after' sets the indexes of the
 *		table's local leaves aside at start(), loads heaps only, and its
 *		workers build the indexes again at the end.  See indexes.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_INDEXES_H
#define PETAGEN_INDEXES_H

#include "gen/spec.h"

/* One index to build, as claimed from petagen.job_indexes. */
typedef struct IndexBuild
{
	Oid			on_table;
	char		name[NAMEDATALEN];
	char		tablespace[NAMEDATALEN];	/* the heap's; "" for the default */
	char	   *create_sql;
	char	   *constraint_sql; /* NULL if none */
} IndexBuild;

extern bool indexes_option(const char *value);
extern void indexes_check(Oid relid, const GenSpec *spec);
extern void indexes_set_aside(int64 job, Oid relid);
extern bool indexes_claim(int64 job, bool leaves_only, IndexBuild *ib);
extern void indexes_build(int64 job, const IndexBuild *ib, int worker);
extern void indexes_progress(int64 job, int64 *built, int64 *total);
extern int64 indexes_unbuilt(int64 job);

#endif							/* PETAGEN_INDEXES_H */
