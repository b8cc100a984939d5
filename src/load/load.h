/*-------------------------------------------------------------------------
 * load.h
 *		What load/ offers the job layer: loading a range of key numbers,
 *		the load method interface, the disk reserve, frozen intents, indexes
 *		after, and the leaf method's routing files and storage.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LOAD_H
#define PETAGEN_LOAD_H

#include "access/genam.h"
#include "access/transam.h"
#include "executor/tuptable.h"
#include "storage/block.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "gen/spec.h"

/*-------------------------------------------------------------------------
 *		What a load did, counted by the writer (load.c) and summed by
 *		whoever loads: petagen.load(), the workers of chunk and leaf jobs.
 *
 * All counters only grow.
 *-------------------------------------------------------------------------
 */

/* What a load did; all counters only grow. */
typedef struct LoadStats
{
	int64		keys;			/* key numbers processed */
	int64		rows;			/* rows written */
	int64		bytes;			/* heap tuple bytes written */
	int64		duplicates;		/* ycsb/go-ycsb keys skipped as duplicates */
	int64		foreign;		/* keys skipped: their leaf is not local */
} LoadStats;

/*-------------------------------------------------------------------------
 *		Loading a range of key numbers into the local leaves of a table in
 *		the current transaction: route, build, multi-insert, index.
 *
 * Used by petagen.load() (synchronous, in the calling backend) and by the
 * chunk method's workers (methods.c), one chunk of key numbers per
 * transaction.
 *-------------------------------------------------------------------------
 */

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

/* Does rel (a leaf) hold a row that snapshot sees?  See leafload.c. */
extern bool load_has_rows(Relation rel, Snapshot snapshot);
extern void load_range(Oid relid, const GenSpec *spec, bool frozen,
					   int64 first, int64 count, LoadStats *stats,
					   LoadProgressFn progress, void *progress_arg);

/*-------------------------------------------------------------------------
 *		A load method as a table of callbacks, the way a table access method
 *		is a TableAmRoutine: how a job's key space is cut into units, how
 *		its workers prepare them, write one, finish the job and recover
 *		after a crash.  The chunk method and the leaf method (methods.c)
 *		stand behind it; methods.c looks one up
 *		by the name petagen.jobs.method holds.
 *
 * A job's worker (src/job/worker.c) runs any method in the same phases,
 * as pgvector's index build runs its phases: begin() once, in a
 * transaction; if the method has a preparing phase (prepare_unit, the
 * leaf method's routing), the workers claim its units in order, one per
 * range of chunk_rows keys, each in a transaction of its own, and wait
 * until every one is done (prepare_done()); then they claim the job's
 * units in order (chunks of key numbers, or local leaves), each written
 * by write_unit() in one transaction that also inserts the unit's ledger
 * row, between begin_unit() (in a transaction of its own before it; it
 * may do nothing) and end_unit() (after it commits or aborts).  The job layer above calls finish() when a run ends other
 * than interrupted, and recover() before resume() and forget().  A
 * callback left NULL does nothing.
 *
 * Adding a method: a file of load/ filling a LoadMethod, its row in
 * load_methods[] (methods.c), in the order method => 'auto' prefers it,
 * and its name in petagen.jobs.method's CHECK (the install and the update
 * script).  The job layer knows a method only through this table.
 *-------------------------------------------------------------------------
 */

/* A load job as its method sees it: filled from the catalog's row (options.c). */
typedef struct LoadJob
{
	int64		job;
	Oid			relid;
	int64		first;			/* the first key number (YCSB's insertstart) */
	int64		rows;
	int64		chunk_rows;		/* keys per chunk, or per routing range */
	GenSpec		spec;
	bool		frozen;			/* rows written frozen: see load.h */
	bool		indexes_after;	/* indexes => 'after' (table.c) */
	int64		token;			/* the method's new_token()
								 * (jobs.route_token), or 0 */
	int			run;
	int			worker;			/* the worker's index, or -1 outside one */
	int64		nunits;			/* as planned when the run began */
	MemoryContext cxt;			/* lives as long as the worker */
	void	   *state;			/* the method's own, made by begin() */
} LoadJob;

/* What the worker running a method offers it, called back from its units. */
typedef struct LoadHost
{
	void	   *arg;
	/* after every flushed batch, with the unit's stats so far */
	LoadProgressFn progress;

	/*
	 * Before a preparing unit writes `bytes` of files in the data directory
	 * (the only place a preparing unit writes): wait until its filesystem has
	 * that much free above the disk reserve, honour a stop request, say what
	 * the worker does.
	 */
	void		(*before_prepare) (void *arg, int64 bytes);

	/*
	 * Say how the worker writes the unit in hand (a leaf's writer), shown as
	 * its reason while it has no other, until the unit ends.
	 */
	void		(*activity) (void *arg, const char *what);
} LoadHost;

/* The severity of a finding of petagen.check() (src/job/preflight.c). */
typedef enum CheckSeverity
{
	CHECK_INFO,
	CHECK_WARNING,
	CHECK_ERROR
} CheckSeverity;

/* Warn when an estimate takes more than this share of the room. */
#define CHECK_MARGIN		0.90

/*
 * How to lower the disk reserve, on every major: before 17 ALTER SYSTEM
 * and SHOW know a petagen.* setting only once the library is loaded in the
 * session (or preloaded), and ALTER SYSTEM cannot share a transaction.
 */
#define CHECK_RESERVE_RECIPE \
	"The reserve is the larger of the job's disk_reserve (petagen.alter() changes a job's) and the setting petagen.disk_reserve; to lower the setting, run LOAD 'petagen'; then ALTER SYSTEM SET petagen.disk_reserve = '100MB'; then SELECT pg_reload_conf(); as separate statements in one session."

/*
 * What the job layer offers a method judging a load before it starts:
 * obstacle() for method => 'auto', xids() and preflight() for
 * petagen.check() (the fields after `size` only for these two).
 */
typedef struct LoadCheck
{
	const LoadJob *job;			/* chunk_rows: the caller's or the default */
	bool		chunk_rows_asked;	/* the caller named chunk_rows */
	int64		reserve;		/* the job's disk reserve, in bytes */
	/* may the role see which leaves of relid hold rows? */
	bool		(*may_read) (Oid relid);
	/* a byte count as pg_size_pretty() spells it */
	char	   *(*size) (double bytes);

	/* add a finding to arg: fmt in full, summary (or NULL) for check() */
	void		(*add) (void *arg, CheckSeverity severity, int sqlstate,
						const char *object, const char *summary,
						const char *hint,
						const char *fmt,...) pg_attribute_printf(7, 8);
	void	   *arg;
	const char *table;			/* the table's name */
	int			nworkers;
	int			nlocal;			/* local leaves */
	double		largest_rows;	/* the local leaf of most rows, estimated */
	double		largest_heap;	/* its heap bytes */
	int			probed;			/* key numbers probed (preflight.c) */
	int			present;		/* of them, already in the table */
} LoadCheck;

/* A load method: its names and its callbacks, by phase. */
typedef struct LoadMethod
{
	const char *name;			/* petagen.jobs.method, status()'s method */
	const char *unit_name;		/* one unit, in pg_stat_activity */
	const char *units_name;		/* several, in a disk reserve pause's reason */
	const char *prepare_name;	/* the preparing phase, in status() too */
	const char *prepare_activity;	/* a preparing worker's state reason */

	/*
	 * Writes into new storage, frozen: no freeze owed after the load, no WAL
	 * at wal_level = minimal (petagen.check()'s estimates).
	 */
	bool		new_storage;
	/* Writes only into empty leaves: its preflight() tells rows found. */
	bool		empty_leaves;
	/* the bounds of a default chunk_rows, or 0: the job layer's */
	int64		chunk_rows_min;
	int64		chunk_rows_max;

	/*
	 * Choosing and checking, in start(), check() and resume().  Why the
	 * method cannot load check's job (method => 'auto' then takes the next in
	 * load_methods[]), or NULL if it can.
	 */
	char	   *(*obstacle) (const LoadCheck *check);
	/* Why 'auto' takes the method when none before it had an obstacle. */
	char	   *(*auto_reason) (const LoadJob *job);
	/* The transaction IDs a load takes, what per, and a hint if too many. */
	int64		(*xids) (const LoadCheck *check, char **per, const char **hint);
	/* Add the method's own findings to petagen.check(). */
	void		(*preflight) (const LoadCheck *check);
	/* Raise an error unless the job's table and options suit the method. */
	void		(*check) (const LoadJob *job);
	/* Raise an error unless the job's chunk_rows suits the method. */
	void		(*check_chunk_rows) (const LoadJob *job);
	/* The leaves its units write whole, by unit: resume() checks them. */
	Oid		   *(*unit_leaves) (Oid relid, int *nunits);

	/*
	 * The method's leftovers outside relations.  start() gives a job the
	 * method's new_token(), an opaque value kept in petagen.jobs.route_token;
	 * start() and resume() sweep() what no job with a token in keep can use;
	 * DROP DATABASE or DROP EXTENSION petagen has them removed at commit by
	 * drop_database().
	 */
	int64		(*new_token) (void);
	void		(*sweep) (const int64 *keep, int nkeep);
	void		(*drop_database) (void);

	/* The job's units, in the current transaction. */
	int64		(*plan_units) (const LoadJob *job);

	/*
	 * Before resume() and forget(): clean what a crash left (done: the
	 * ledger's units).
	 */
	void		(*recover) (const LoadJob *job, const uint8 *done, int64 nunits);
	/* A run ended other than interrupted: remove what only the run used. */
	void		(*finish) (const LoadJob *job);
	/* forget(), before recover() and finish(): repair what no worker will. */
	void		(*forget) (const LoadJob *job);

	/* A worker's start, in a transaction: its state. */
	void		(*begin) (LoadJob *job);
	/* Prepare unit `unit` of the preparing phase, in its transaction. */
	void		(*prepare_unit) (LoadJob *job, int64 unit, LoadStats *stats,
								 const LoadHost *host);
	/* Is every one of the nprepare preparing units done? */
	bool		(*prepare_done) (const LoadJob *job, int64 nprepare);

	/*
	 * The keys of unit `unit`, for status_workers() and the disk reserve
	 * (estimated if unknown).
	 */
	int64		(*unit_keys) (const LoadJob *job, int64 unit);

	/*
	 * The leaf unit `unit` writes whole, or InvalidOid; the disk reserve's
	 * too.
	 */
	Oid			(*unit_leaf) (const LoadJob *job, int64 unit);
	/* Before the unit's transaction, in a transaction of its own. */
	void		(*begin_unit) (LoadJob *job, int64 unit);
	/* Write the unit in the current transaction, adding to *stats. */
	void		(*write_unit) (LoadJob *job, int64 unit, LoadStats *stats,
							   const LoadHost *host);
	/* After the unit's transaction committed or aborted. */
	void		(*end_unit) (const LoadJob *job, int64 unit);
} LoadMethod;

extern const LoadMethod *const load_methods[];
extern const LoadMethod *load_method_by_name(const char *name);
extern const LoadMethod *load_method_find(const char *name);
extern int64 load_nchunks(int64 rows, int64 chunk_rows);

/*-------------------------------------------------------------------------
 *		Free space on the filesystems a load writes: heaps, indexes, WAL.
 *-------------------------------------------------------------------------
 */

/* The most distinct filesystems one job's estimates and waits count. */
#define DISK_MAX_TARGETS	64

/* The free space of a filesystem that reports no size (disk_free()). */
#define DISK_UNLIMITED		(INT64CONST(1) << 60)

extern void disk_tablespace_path(Oid spcoid, char *path);
extern int64 disk_free(const char *path);
extern int64 disk_free_inodes(const char *path);

/*-------------------------------------------------------------------------
 *		Frozen loads: rows written frozen survive an abort or a crash, so a
 *		frozen chunk records an intent before it writes and its leftovers
 *		are removed before it is written again.  See frozen.c.
 *-------------------------------------------------------------------------
 */

/* Where the attempts of one frozen chunk can have left rows. */
typedef struct FrozenIntent
{
	int			nleaves;
	Oid		   *leaves;			/* the local leaves of the table */
	BlockNumber *from_blocks;	/* per leaf: no row of the chunk before it */
	FullTransactionId xid_bound;	/* no attempt of the chunk has an older
									 * XID */
} FrozenIntent;

extern void frozen_check(Oid relid, const GenSpec *spec);
extern void frozen_prepare_chunk(int64 job, int64 chunk, Oid relid,
								 int worker, int run, MemoryContext cxt,
								 FrozenIntent *intent);
extern void frozen_lock_leaves(const FrozenIntent *intent);
extern void frozen_forget_chunk(int64 job, int64 chunk);
extern void frozen_repair_job(int64 job);
extern void frozen_free_intent(FrozenIntent *intent);

/*-------------------------------------------------------------------------
 *		Indexes after: a job with indexes => 'after' sets the indexes of the
 *		table's local leaves aside at start(), loads heaps only, and its
 *		workers build the indexes again at the end.  See table.c.
 *-------------------------------------------------------------------------
 */

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

/*-------------------------------------------------------------------------
 *		A leaf's btree index on ycsb_key, and lookups of keys in it: the
 *		writer's duplicate check and check()'s probe of the key space.
 *		See leafload.c.
 *-------------------------------------------------------------------------
 */

/* An open lookup of single keys in one index of one leaf. */
typedef struct KeyLookup
{
	IndexScanDesc scan;
	ScanKeyData key;
	TupleTableSlot *slot;
} KeyLookup;

extern bool keyindex_leads_with_key(Relation index, int key_att);
extern Relation keyindex_open_any(Relation heap, int key_att);
extern KeyLookup *keyindex_begin(Relation heap, Relation index,
								 Snapshot snapshot);
extern bool keyindex_contains(KeyLookup *lookup, Datum key);
extern void keyindex_end(KeyLookup *lookup);

/*-------------------------------------------------------------------------
 *		The routing files of leaf loads: each range of a leaf job's key
 *		space routed once into per-leaf key lists on disk, read back leaf
 *		by leaf; files that belong to exactly one job of one database.  See
 *		leafroute.c; their directories: load.h.
 *-------------------------------------------------------------------------
 */

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

/*-------------------------------------------------------------------------
 *		The directories of leaf loads' routing files: a job's files under
 *		its route token, swept and removed when nobody can use them.  See
 *		leafroute.c.
 *-------------------------------------------------------------------------
 */

/* The routing files' directory, under the data directory. */
#define LEAF_DIR			"pg_petagen"

extern int64 leaf_new_token(void);
extern bool leaf_range_done(int64 token, int64 range);
extern void leaf_make_dir(const char *path);
extern void leaf_remove_files(int64 token);
extern void leaf_sweep_files(const int64 *keep, int nkeep);
extern void leaf_storage_sweep_dropped(void);
extern void leaf_remove_database_at_commit(void);

/*-------------------------------------------------------------------------
 *		Leaf-at-a-time loads (start(..., method => 'leaf')): the key space
 *		routed into per-leaf key lists on disk (load.h), then each
 *		local leaf written whole in one transaction, into new storage,
 *		frozen, indexes built after.  See leafload.c.
 *-------------------------------------------------------------------------
 */

extern void leaf_check(Oid relid, const GenSpec *spec, bool indexes_after);
extern Oid *leaf_local_leaves(Oid relid, int *nlocal);
extern int64 leaf_nonempty(Oid relid, char **first_name);
extern void leaf_write(const LeafRouting *routing, Oid leafrelid, int leafno,
					   int64 nranges, LoadStats *stats,
					   LoadProgressFn progress, void *progress_arg);

#endif							/* PETAGEN_LOAD_H */
