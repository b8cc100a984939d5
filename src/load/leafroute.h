/*-------------------------------------------------------------------------
 * leafroute.h
 *		The routing files of leaf loads: each range of a leaf job's key
 *		space routed once into per-leaf key lists on disk, read back leaf
 *		by leaf; files that belong to exactly one job of one database.  See
 *		leafroute.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFROUTE_H
#define PETAGEN_LEAFROUTE_H

#include "gen/spec.h"
#include "load/load.h"

/* What a job's routing files must say now (leaf_routing_init()). */
typedef struct LeafRouting
{
	int64		job;
	int64		token;			/* petagen.jobs.route_token */
	Oid			relid;
	int64		rows;
	int64		chunk_rows;		/* keys per range */
	GenSpec		spec;
	int			nlocal;			/* local leaves of the table */
	uint64		keys_fp;		/* of the key spec */
	uint64		layout_fp;		/* of the partitions, bounds and leaves */
} LeafRouting;

/* Reads the key numbers of one leaf in one range file. */
typedef struct LeafReader LeafReader;

extern int64 leaf_new_token(void);
extern void leaf_routing_init(LeafRouting *routing);
extern bool leaf_range_done(int64 token, int64 range);
extern bool leaf_range_current(const LeafRouting *routing, int64 range,
							   int nlocal);
extern void leaf_route_range(const LeafRouting *routing, int64 range,
							 LoadStats *stats);
extern LeafReader *leaf_reader_open(const LeafRouting *routing, int64 range,
									int leafno, int nlocal);
extern int64 leaf_reader_foreign(const LeafReader *r);
extern bool leaf_reader_next(LeafReader *r, int64 *seq);
extern void leaf_reader_close(LeafReader *r);
extern void leaf_remove_files(int64 token);
extern void leaf_sweep_files(const int64 *keep, int nkeep);
extern void leaf_remove_database_at_commit(void);
extern int64 leaf_route_bytes(int64 rows, int nlocal);
extern void leaf_make_dir(const char *path);
extern void leaf_write_all(int fd, const void *data, size_t len,
						   const char *path);

#endif							/* PETAGEN_LEAFROUTE_H */
