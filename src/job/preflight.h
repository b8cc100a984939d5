/*-------------------------------------------------------------------------
 * preflight.h
 *		The preflight check of a load: what petagen.check() reports and
 *		petagen.start() refuses on, its findings, the refusals start() and
 *		resume() share, and its estimates of what a load's units write on
 *		each filesystem, which a load's workers wait for above the disk
 *		reserve.  See preflight.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PREFLIGHT_H
#define PETAGEN_PREFLIGHT_H

#include <sys/types.h>

#include "nodes/pg_list.h"

#include "gen/keys.h"
#include "job/jobdef.h"
#include "load/load.h"
#include "route/route.h"

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

extern void check_refuse_errors(const JobDef *def);
extern void check_unit_spaces(const JobDef *def, UnitSpaces *spaces,
							  MemoryContext cxt);
extern double check_unit_bytes(const UnitSpaces *spaces, int s, Oid leaf,
							   int64 keys);

/*
 * One row of petagen.check(): its finding, short enough for a psql screen,
 * and in petagen.check_details() the whole sentence and the hint as well.
 */
typedef struct CheckFinding
{
	CheckSeverity severity;
	int			sqlstate;		/* for an error: the errcode start() raises */
	char	   *object;
	char	   *finding;		/* "topic: what was found", CHECK_FINDING_MAX */
	char	   *detail;			/* "topic: what was found", in full */
	char	   *hint;			/* or NULL */
} CheckFinding;

/*
 * Characters of a finding in petagen.check(): with a severity and an object
 * of up to 24 characters, a row of SELECT * fits 120 columns in psql.
 */
#define CHECK_FINDING_MAX	80

/* The bytes of a leaf's estimate that land on one filesystem of CheckCtx.spaces. */
typedef struct LeafLanding
{
	int			space;
	double		bytes;
} LeafLanding;

/* What the sample and the page layout say about one leaf. */
typedef struct LeafEstimate
{
	int64		sampled;		/* keys of the sample routed to it */
	double		rows;
	double		keylen;			/* average key bytes */
	double		heap;			/* heap bytes */
	double		index;			/* bytes of all its indexes */
	List	   *landing;		/* LeafLanding: its heap and indexes, where */
} LeafEstimate;

/* One filesystem the load writes, and what lands on it. */
typedef struct CheckSpace
{
	dev_t		dev;
	char		path[MAXPGPATH];	/* a directory on it */
	List	   *names;			/* tablespaces on it, and "pg_wal" */
	double		heap;
	double		index;
	double		wal;
} CheckSpace;

/* What the probe of the key space found in the local leaves. */
typedef struct KeyProbe
{
	bool		skipped;		/* the role may not read ycsb_key */
	int			probed;			/* key numbers looked up in a local leaf */
	int			present;		/* of them, already in the table */
	int64		first_seq;		/* the first one present */
	char		first_key[KEYS_MAX_LEN + 1];
	const char *first_leaf;
	int			unindexed;		/* local leaves with rows but no key index */
	const char *first_unindexed;
} KeyProbe;

/* Everything one check run gathers. */
typedef struct CheckCtx
{
	const JobDef *def;
	const char *table;
	List	   *findings;
	Router	   *router;
	LeafEstimate *leaves;
	int64		nsamples;		/* key numbers routed for the estimates */
	int			nlocal;
	int			largest;		/* the local leaf of most rows */
	int			nautovacuum;	/* local leaves with autovacuum enabled */
	int32		max_age;		/* oldest relfrozenxid age of a local leaf */
	double		local_rows;
	double		heap;
	double		index;
	int			nspaces;
	CheckSpace	spaces[DISK_MAX_TARGETS];
	KeyProbe	probe;
} CheckCtx;

extern char *check_size(double bytes);

/* The refusals start() and resume() share. */
extern void check_table_loadable(Oid relid, const GenSpec *spec,
								 int64 last_seq);
extern void check_no_other_job(Oid relid, int64 except_job);
extern bool check_may_read(Oid relid);
extern ErrorData *check_try(void (*fn) (void *arg), void *arg);

#endif							/* PETAGEN_PREFLIGHT_H */
