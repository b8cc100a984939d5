/*-------------------------------------------------------------------------
 * worker_int.h
 *		What the files of a load job's background worker share: the
 *		worker's context, and the functions worker.c calls from
 *		worker_slot.c (its slot and pace), worker_prepare.c (the preparing
 *		phase of a method that has one: a leaf job's routing) and
 *		worker_index.c (the indexing phase).  Not for use outside the
 *		worker; see worker.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_WORKER_INT_H
#define PETAGEN_WORKER_INT_H

#include "debug_pause.h"
#include "job/live.h"
#include "job/preflight.h"
#include "load/load.h"

/* Everything one worker knows. */
typedef struct WorkerCtx
{
	WorkerArgs	args;
	JobDef		def;
	JobShared  *shared;
	WorkerSlot *slot;
	bits8	   *done;			/* chunks in the ledger before this run */
	UnitSpaces	spaces;			/* the filesystems the job writes */
	UnitSpace	datadir;		/* where a preparing unit writes */
	int64		need[DISK_MAX_TARGETS]; /* of spaces: the next units', or -1 */
	int64		unit_watch[DISK_MAX_TARGETS];	/* 0 where the unit in hand
												 * writes, else -1 */
	int			nnext;			/* the next units counted in need */
	MemoryContext cxt;
	LoadStats	total;			/* this worker, this run, committed chunks */
	int64		chunk_base_rows;	/* slot counters when the chunk began */
	int64		chunk_base_bytes;
	int64		chunk_base_keys;
	TimestampTz rate_at;		/* last rate sample, published at the next */
	int64		rate_rows;
	int64		rate_bytes;
	int64		throttle_rate;	/* the max_rate the throttle counts under */
	TimestampTz throttle_at;	/* since when: the cap was set */
	int64		throttle_bytes; /* slot bytes then */
	LoadJob		load;			/* the job as its method sees it */
	LoadHost	host;			/* what the worker offers the method */
	bool		stopping;
	bool		preparing;		/* counted in shared->routing */
	bool		loading;		/* counted in shared->loading */
	bool		left;			/* no longer counted in shared->active */
	char		error[JOB_TEXT_LEN];
} WorkerCtx;

/* worker_slot.c */
extern void worker_set_state(WorkerCtx *ctx, JobState state, const char *reason);
extern void worker_set_unit(WorkerCtx *ctx, int64 unit, int64 nkeys, Oid leaf);
extern void worker_set_error(WorkerCtx *ctx, const char *message);
extern void worker_set_current_index(WorkerCtx *ctx, const char *name);
extern void worker_sleep(long ms);
extern void worker_wait_for_room(WorkerCtx *ctx, const UnitSpace *spaces,
								 const int64 *need, int n, const char *what);
extern void worker_sample_rate(WorkerCtx *ctx);
extern void worker_check_stop(WorkerCtx *ctx);
extern void worker_debug_pause(WorkerCtx *ctx, DebugPausePoint point, int64 chunk);
extern void worker_progress(void *arg, const LoadStats *so_far);
extern void worker_log_progress(WorkerCtx *ctx, const LoadStats *st);
extern int64 worker_claim(WorkerCtx *ctx, pg_atomic_uint64 *next, int64 n);

/* worker_prepare.c */
extern void worker_before_prepare(void *arg, int64 bytes);
extern void worker_leave_preparing(WorkerCtx *ctx);
extern bool worker_prepare_phase(WorkerCtx *ctx);

/* worker_index.c */
extern void worker_index_phase(WorkerCtx *ctx);
extern bool worker_build_rest(WorkerCtx *ctx);

#endif							/* PETAGEN_WORKER_INT_H */
