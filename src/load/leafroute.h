/*-------------------------------------------------------------------------
 * leafroute.h
 *		The routing files of leaf loads: each range of a leaf job's key
 *		space routed once into per-leaf key lists on disk, read back leaf
 *		by leaf.  See leafroute.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFROUTE_H
#define PETAGEN_LEAFROUTE_H

#include "load/load.h"
#include "gen/spec.h"

/* Reads the key numbers of one leaf in one range file. */
typedef struct LeafReader LeafReader;

extern bool leaf_range_done(int64 job, int64 range);
extern void leaf_route_range(int64 job, Oid relid, const GenSpec *spec,
							 int64 range, int64 first, int64 count,
							 LoadStats *stats);
extern LeafReader *leaf_reader_open(int64 job, int64 range, int leafno,
									int nlocal);
extern int64 leaf_reader_foreign(const LeafReader *r);
extern bool leaf_reader_next(LeafReader *r, int64 *seq);
extern void leaf_reader_close(LeafReader *r);
extern void leaf_remove_files(int64 job);
extern int64 leaf_route_bytes(int64 rows, int nlocal);

#endif							/* PETAGEN_LEAFROUTE_H */
