/*-------------------------------------------------------------------------
 * leafroute.h
 *		The routing files of leaf loads: each range of a leaf job's key
 *		space routed once into per-leaf key lists on disk, read back leaf
 *		by leaf; files that belong to exactly one job of one database.  See
 *		leafroute.c; their directories: leafdir.h.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFROUTE_H
#define PETAGEN_LEAFROUTE_H

#include "gen/spec.h"
#include "load/loadstats.h"

/* What a job's routing files must say now (leaf_routing_init()). */
typedef struct LeafRouting
{
	int64		job;
	int64		token;			/* petagen.jobs.route_token */
	Oid			relid;
	int64		first;			/* the job's first key number */
	int64		rows;
	int64		chunk_rows;		/* keys per range */
	GenSpec		spec;
	int			nlocal;			/* local leaves of the table */
	uint64		keys_fp;		/* of the key spec */
	uint64		layout_fp;		/* of the partitions, bounds and leaves */
} LeafRouting;

/* Reads the key numbers of one leaf in one range file. */
typedef struct LeafReader LeafReader;

extern void leaf_routing_init(LeafRouting *routing);
extern bool leaf_range_current(const LeafRouting *routing, int64 range,
							   int nlocal);
extern void leaf_route_range(const LeafRouting *routing, int64 range,
							 LoadStats *stats);
extern LeafReader *leaf_reader_open(const LeafRouting *routing, int64 range,
									int leafno, int nlocal);
extern int64 leaf_reader_foreign(const LeafReader *r);
extern bool leaf_reader_next(LeafReader *r, int64 *seq);
extern void leaf_reader_close(LeafReader *r);
extern int64 leaf_route_bytes(int64 rows, int nlocal);
extern void leaf_write_all(int fd, const void *data, size_t len,
						   const char *path);

#endif							/* PETAGEN_LEAFROUTE_H */
