/*-------------------------------------------------------------------------
 * preflight.h
 *		The preflight check of a load: what petagen.check() reports and
 *		petagen.start() refuses on, and its estimates of what a load's
 *		units write on each filesystem, which a load's workers wait for
 *		above the disk reserve.  See preflight.c and preflight_space.c; a
 *		finding is in finding.h, the refusals start() and resume() share in
 *		refusals.h.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PREFLIGHT_H
#define PETAGEN_PREFLIGHT_H

#include "nodes/pg_list.h"

#include "job/jobdef.h"
#include "load/load.h"

/* Room for what a reason calls a filesystem: its tablespaces and pg_wal. */
#define UNIT_SPACE_LABEL_LEN	160

/* A filesystem a load writes, and what its units write there. */
typedef struct UnitSpace
{
	char		path[MAXPGPATH];	/* a directory on it */
	char		label[UNIT_SPACE_LABEL_LEN];	/* tablespace "x" and pg_wal */
	double		per_key;		/* bytes a key number writes there, WAL too */
	double		total;			/* the load's bytes there, as check() says */
} UnitSpace;

/* What the units of a load write on each filesystem, as check() estimates. */
typedef struct UnitSpaces
{
	int			n;
	UnitSpace	space[DISK_MAX_TARGETS];
	int			nleaves;		/* the local leaves */
	Oid		   *leaf;
	double	   *leaf_bytes;		/* leaf i writes [i * n + s] on space s */
} UnitSpaces;

extern List *check_run(const JobDef *def);
extern void check_refuse_errors(const JobDef *def);
extern void check_unit_spaces(const JobDef *def, UnitSpaces *spaces,
							  MemoryContext cxt);
extern double check_unit_bytes(const UnitSpaces *spaces, int s, Oid leaf,
							   int64 keys);

#endif							/* PETAGEN_PREFLIGHT_H */
