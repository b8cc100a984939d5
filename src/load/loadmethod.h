/*-------------------------------------------------------------------------
 * loadmethod.h
 *		A load method as a table of callbacks, the way a table access method
 *		is a TableAmRoutine: how a job's key space is cut into units, how
 *		its workers prepare them, write one, finish the job and recover
 *		after a crash.  The chunk method (method_chunk.c) and the leaf
 *		method (method_leaf.c) stand behind it; loadmethod.c looks one up
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
 * Adding a method: a method_<name>.c filling a LoadMethod, its entry in
 * loadmethod.c's table, its name in method.c's argument and choice and in
 * petagen.jobs.method's CHECK (the install and the update script).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LOADMETHOD_H
#define PETAGEN_LOADMETHOD_H

#include "gen/spec.h"
#include "load/load.h"
#include "load/loadstats.h"

/* A load job as its method sees it: filled from the catalog's row (method.c). */
typedef struct LoadJob
{
	int64		job;
	Oid			relid;
	int64		first;			/* the first key number (YCSB's insertstart) */
	int64		rows;
	int64		chunk_rows;		/* keys per chunk, or per routing range */
	GenSpec		spec;
	bool		frozen;			/* rows written frozen: see frozen.h */
	int64		route_token;	/* petagen.jobs.route_token, or 0 */
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
	 * (the only place a preparing unit writes): wait until its filesystem
	 * has that much free above the disk reserve, honour a stop request, say
	 * what the worker does.
	 */
	void		(*before_prepare) (void *arg, int64 bytes);
} LoadHost;

/* A load method: its names and its callbacks, by phase. */
typedef struct LoadMethod
{
	const char *name;			/* petagen.jobs.method, status()'s method */
	const char *unit_name;		/* one unit, in pg_stat_activity */
	const char *units_name;		/* several, in a disk reserve pause's reason */
	const char *prepare_name;	/* the preparing phase in progress_log */
	const char *prepare_activity;	/* a preparing worker's state reason */
	/* writes each local leaf whole into new storage, frozen */
	bool		whole_leaves;

	/* The job's units, in the current transaction. */
	int64		(*plan_units) (const LoadJob *job);
	/* Before resume() and forget(): clean what a crash left (done: the ledger's units). */
	void		(*recover) (const LoadJob *job, const uint8 *done, int64 nunits);
	/* A run ended other than interrupted: remove what only the run used. */
	void		(*finish) (const LoadJob *job);

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
	/* The leaf unit `unit` writes whole, or InvalidOid; the disk reserve's too. */
	Oid			(*unit_leaf) (const LoadJob *job, int64 unit);
	/* Before the unit's transaction, in a transaction of its own. */
	void		(*begin_unit) (LoadJob *job, int64 unit);
	/* Write the unit in the current transaction, adding to *stats. */
	void		(*write_unit) (LoadJob *job, int64 unit, LoadStats *stats,
							   const LoadHost *host);
	/* After the unit's transaction committed or aborted. */
	void		(*end_unit) (const LoadJob *job, int64 unit);
} LoadMethod;

extern const LoadMethod *load_method_find(const char *name);
extern int64 load_nchunks(int64 rows, int64 chunk_rows);

#endif							/* PETAGEN_LOADMETHOD_H */
