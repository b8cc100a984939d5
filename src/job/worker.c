/*-------------------------------------------------------------------------
 * worker.c
 *		A load job's background worker, in one file read from top to
 *		bottom: its main loop over the units of the job, the preparing
 *		phase of a method that has one (a leaf job's routing), the indexing
 *		phase, the worker's slot and pace (state, the disk reserve, the
 *		throttle, stop requests), and when a progress_log row is due.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "debug_pause.h"
#include "job/job.h"
#include "job/ledger.h"
#include "job/live.h"
#include "job/preflight.h"
#include "launch.h"
#include "load/load.h"
#include "petagen.h"

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
	int			error_code;		/* error's SQLSTATE (sqlerrcode) */
} WorkerCtx;

/* The worker's slot and pace. */
static void worker_set_state(WorkerCtx *ctx, JobState state, const char *reason);
static void worker_set_unit(WorkerCtx *ctx, int64 unit, int64 nkeys, Oid leaf);
static void worker_set_error(WorkerCtx *ctx, const char *message);
static void worker_set_current_index(WorkerCtx *ctx, const char *name);
static void worker_sleep(long ms);
static void worker_wait_for_room(WorkerCtx *ctx, const UnitSpace *spaces,
								 const int64 *need, int n, const char *what);
static void worker_sample_rate(WorkerCtx *ctx);
static void worker_check_stop(WorkerCtx *ctx);
static void worker_debug_pause(WorkerCtx *ctx, DebugPausePoint point, int64 chunk);
static void worker_progress(void *arg, const LoadStats *so_far);
static void worker_log_progress(WorkerCtx *ctx, const LoadStats *st);
static int64 worker_claim(WorkerCtx *ctx, pg_atomic_uint64 *next, int64 n);

/* The preparing phase. */
static void worker_before_prepare(void *arg, int64 bytes);
static void worker_activity(void *arg, const char *what);
static void worker_leave_preparing(WorkerCtx *ctx);
static bool worker_prepare_phase(WorkerCtx *ctx);

/* The indexing phase. */
static void worker_index_phase(WorkerCtx *ctx);
static bool worker_build_rest(WorkerCtx *ctx);

/* When a progress_log row is due. */
static bool sampling_claim(JobShared *shared, double done);
static void sampling_phase_changed(JobShared *shared);

/*
 * --------------------------------------------------------------------
 * A load job's background worker: claim chunks of key numbers, load
 * each in one transaction together with its ledger row, publish
 * progress, honour stop requests, the disk reserve and the throttle.
 *
 * Chunks are claimed in order from a shared counter, and chunks the ledger
 * already holds (from an earlier run) are skipped, so every chunk is
 * loaded exactly once whatever happened before.  A chunk that fails with
 * an error another writer can cause (a unique violation when two workers
 * race on a duplicate ycsb key, a deadlock, a serialization failure) is
 * rolled back and retried; any other error fails the worker and is
 * recorded.  The last worker to leave records the job's end, and commits
 * it before its own slot shows the end: a final state in shared memory is
 * already in petagen.jobs, which is what wait() relies on.  Catalog rows
 * are written through ledger.c (as the catalog owner, search_path pinned);
 * the worker itself runs as the job's owner.
 *
 * What a unit is and how it is written is the job's load method's
 * (src/load/load.h, looked up once when the job is read): a chunk
 * of key numbers loaded into every local leaf (methods.c; a frozen
 * job records each chunk's intent in a transaction of its own before the
 * chunk), or a local leaf written whole (methods.c).  This file holds
 * no branch on the method: it runs every method's phases alike, calling
 * the callbacks it has.  A method with a preparing phase (a leaf job
 * routes its ranges of key numbers into routing files first) has its
 * units prepared before any is loaded (below).  The last worker
 * out lets the method finish the job (a leaf job's routing files are
 * removed) unless the run was interrupted.
 *
 * A job with indexes after (table.c) has a last phase: when no worker
 * is loading any more and the ledger is complete, each worker builds one
 * set-aside index at a time, and the last worker out builds the
 * partitioned indexes that attach them.
 *
 * Whichever worker finds a progress_log row due (the end of this file) logs the
 * job's live totals and its phase: after a batch (loading), before a range
 * is routed (routing), before an index is built (indexing).  The row is in
 * that worker's transaction and commits with it.  The last worker out of
 * routing, and the first into indexing, make the next row due at once, so
 * that each phase begins with a row.
 *
 * This part holds the worker's life and its loop over units; the
 * preparing phase, the indexing phase, what it shows in its slot and how
 * it paces itself, and when a progress_log row is due follow it.
 * --------------------------------------------------------------------
 */

#define WORKER_MAX_RETRIES	10

static WorkerCtx *worker_ctx;

PGDLLEXPORT void petagen_worker_main(Datum main_arg);

/* In a transaction of its own, before unit `unit`'s: the method's begin_unit(). */
static void
worker_begin_unit(WorkerCtx *ctx, int64 unit)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	ctx->def.method->begin_unit(&ctx->load, unit);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
}

/* Add a committed chunk's stats to this worker's totals. */
static void
worker_add_totals(WorkerCtx *ctx, const LoadStats *st)
{
	ctx->total.keys += st->keys;
	ctx->total.rows += st->rows;
	ctx->total.bytes += st->bytes;
	ctx->total.duplicates += st->duplicates;
	pg_atomic_write_u64(&ctx->slot->duplicates, ctx->total.duplicates);
}

/*
 * Load unit `unit` (a chunk, or a leaf job's local leaf) and its ledger
 * row in one transaction, through the job's method.
 */
static void
worker_load_unit(WorkerCtx *ctx, int64 unit)
{
	const LoadMethod *method = ctx->def.method;
	Oid			leaf = method->unit_leaf(&ctx->load, unit);
	LoadStats	st = {0};
	char		activity[64];

	ctx->chunk_base_keys = ctx->total.keys;
	ctx->chunk_base_rows = ctx->total.rows;
	ctx->chunk_base_bytes = ctx->total.bytes;
	worker_set_unit(ctx, unit, method->unit_keys(&ctx->load, unit), leaf);
	snprintf(activity, sizeof(activity), "petagen job " INT64_FORMAT ": %s " INT64_FORMAT,
			 ctx->def.job, method->unit_name, unit);
	if (method->begin_unit)
		worker_begin_unit(ctx, unit);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
	/* a shard moved off this node: fail before touching what it left here */
	citus_shards_check(ctx->def.job, ctx->def.relid);
	method->write_unit(&ctx->load, unit, &st, &ctx->host);
	worker_debug_pause(ctx, DEBUG_PAUSE_BEFORE_COMMIT, unit);
	worker_check_stop(ctx);
	citus_shards_check(ctx->def.job, ctx->def.relid);
	ledger_record_chunk(&ctx->def, ctx->args.index, unit, leaf, &st);
	PopActiveSnapshot();
	CommitTransactionCommand();
	if (method->end_unit)
		method->end_unit(&ctx->load, unit);
	pgstat_report_activity(STATE_IDLE, NULL);
	worker_add_totals(ctx, &st);
}

/* Can another try of a chunk succeed after this error? */
static bool
worker_retryable(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_UNIQUE_VIOLATION ||
		sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED ||
		sqlerrcode == ERRCODE_T_R_SERIALIZATION_FAILURE;
}

/* One attempt at a chunk: NULL if it committed, else the error (rolled back). */
static ErrorData *
worker_attempt_chunk(WorkerCtx *ctx, int64 chunk)
{
	ErrorData  *volatile edata = NULL;

	PG_TRY();
	{
		worker_load_unit(ctx, chunk);
	}
	PG_CATCH();
	{
		edata = launch_catch_and_abort(ctx->cxt);
		/* e.g. the abort removed a leaf's new files: their record goes too */
		if (ctx->def.method->end_unit)
			ctx->def.method->end_unit(&ctx->load, chunk);
		/* the slot's live counters go back to what is committed */
		pg_atomic_write_u64(&ctx->slot->keys, ctx->total.keys);
		pg_atomic_write_u64(&ctx->slot->rows, ctx->total.rows);
		pg_atomic_write_u64(&ctx->slot->bytes, ctx->total.bytes);
	}
	PG_END_TRY();
	worker_set_unit(ctx, -1, 0, InvalidOid);
	return edata;
}

/* Load a chunk, retrying it after transient errors; false if the worker must end. */
static bool
worker_try_chunk(WorkerCtx *ctx, int64 chunk)
{
	for (int attempt = 1;; attempt++)
	{
		ErrorData  *edata = worker_attempt_chunk(ctx, chunk);

		if (edata == NULL)
			return true;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
		{
			ctx->stopping = true;
			return false;
		}
		worker_set_error(ctx, edata->message);
		if (!worker_retryable(edata->sqlerrcode) || attempt >= WORKER_MAX_RETRIES)
		{
			strlcpy(ctx->error, edata->message, sizeof(ctx->error));
			ctx->error_code = edata->sqlerrcode;
			elog(LOG, "petagen job " INT64_FORMAT " worker %d failed in chunk " INT64_FORMAT " after %d attempts: %s",
				 ctx->def.job, ctx->args.index, chunk, attempt, edata->message);
			return false;
		}
		FreeErrorData(edata);
		worker_sleep(10L * attempt);
	}
}

/* Is unit `unit` in the ledger from an earlier run? */
static bool
worker_unit_done(WorkerCtx *ctx, int64 unit)
{
	return ctx->done && (ctx->done[unit / 8] & (1 << (unit % 8)));
}

/*
 * Before unit `unit`: what the next units from it on, one per worker,
 * write on each filesystem (check()'s estimates, never more than the
 * load's total there), into ctx->need; where unit `unit` writes, into
 * ctx->unit_watch.  A filesystem they do not write is not watched.
 */
static void
worker_unit_needs(WorkerCtx *ctx, int64 unit)
{
	const LoadMethod *method = ctx->def.method;
	const UnitSpaces *spaces = &ctx->spaces;
	int64		end = Min(unit + ctx->def.nworkers, ctx->shared->nchunks);
	double		need[DISK_MAX_TARGETS] = {0};

	ctx->nnext = 0;
	for (int s = 0; s < spaces->n; s++)
		ctx->unit_watch[s] = -1;
	for (int64 u = unit; u < end; u++)
	{
		Oid			leaf;
		int64		keys;

		if (u > unit && worker_unit_done(ctx, u))
			continue;
		leaf = method->unit_leaf(&ctx->load, u);
		keys = method->unit_keys(&ctx->load, u);
		ctx->nnext++;
		for (int s = 0; s < spaces->n; s++)
		{
			double		bytes = check_unit_bytes(spaces, s, leaf, keys);

			need[s] += bytes;
			if (u == unit && bytes > 0)
				ctx->unit_watch[s] = 0;
		}
	}
	for (int s = 0; s < spaces->n; s++)
		ctx->need[s] = need[s] > 0 ?
			(int64) ceil(Min(need[s], spaces->space[s].total)) : -1;
}

/* Load unit `chunk` once there is room for it; false if the worker must end. */
static bool
worker_do_unit(WorkerCtx *ctx, int64 chunk)
{
	char		what[64];

	worker_debug_pause(ctx, DEBUG_PAUSE_BEFORE_CHUNK, chunk);
	worker_unit_needs(ctx, chunk);
	if (ctx->nnext == 1)
		snprintf(what, sizeof(what), "the next %s", ctx->def.method->unit_name);
	else
		snprintf(what, sizeof(what), "the next %d %s", ctx->nnext,
				 ctx->def.method->units_name);
	worker_wait_for_room(ctx, ctx->spaces.space, ctx->need, ctx->spaces.n,
						 what);
	if (pg_atomic_read_u32(&ctx->shared->stop_requested))
	{
		ctx->stopping = true;
		return false;
	}
	worker_set_state(ctx, JOB_RUNNING, NULL);
	return worker_try_chunk(ctx, chunk);
}

/*
 * Claim and load units until none is left, a stop is asked for, or an
 * error.  The unit claimed last is in the slot: a replacement for a worker
 * that died (autoresume.c) loads it first unless the ledger has it.
 */
static void
worker_loop(WorkerCtx *ctx)
{
	int64		chunk = ctx->args.redo;

	ctx->slot->claimed = chunk;
	if (chunk >= 0 && !worker_unit_done(ctx, chunk) && !worker_do_unit(ctx, chunk))
		return;
	for (;;)
	{
		chunk = worker_claim(ctx, &ctx->shared->next_chunk, ctx->shared->nchunks);
		ctx->slot->claimed = chunk;
		if (chunk < 0)
			return;
		if (!worker_unit_done(ctx, chunk) && !worker_do_unit(ctx, chunk))
			return;
	}
}

/* Wait for start()'s transaction, then read the job; false if it is not ours to run. */
static bool
worker_read_job(WorkerCtx *ctx)
{
	bool		found;

	StartTransactionCommand();
	if (TransactionIdIsValid(ctx->args.starter_xid))
		XactLockTableWait(ctx->args.starter_xid, NULL, NULL, XLTW_None);
	PushActiveSnapshot(GetTransactionSnapshot());
	MemoryContextSwitchTo(ctx->cxt);
	found = job_read(ctx->args.job, &ctx->def, true);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
	return found && ctx->def.run == ctx->args.run &&
		strcmp(ctx->def.state, "running") == 0;
}

/*
 * Load the ledger's chunks of this job into a bitmap, and what its units
 * write on each filesystem; begin the job's method.
 */
static void
worker_begin(WorkerCtx *ctx)
{
	int64		nchunks = ctx->shared->nchunks;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	load_check_privilege(ctx->def.relid);
	ctx->done = MemoryContextAllocZero(ctx->cxt, nchunks / 8 + 1);
	ledger_done_chunks(ctx->def.job, nchunks, ctx->done);
	check_unit_spaces(&ctx->def, &ctx->spaces, ctx->cxt);
	strlcpy(ctx->datadir.path, DataDir, MAXPGPATH);
	strlcpy(ctx->datadir.label, "the data directory", UNIT_SPACE_LABEL_LEN);
	method_load_job(&ctx->def, &ctx->load);
	ctx->load.worker = ctx->args.index;
	ctx->load.nunits = nchunks;
	ctx->load.cxt = ctx->cxt;
	ctx->host.arg = ctx;
	ctx->host.progress = worker_progress;
	ctx->host.before_prepare = worker_before_prepare;
	ctx->host.activity = worker_activity;
	if (ctx->def.method->begin)
		ctx->def.method->begin(&ctx->load);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
}

/* Stop counting this worker among those still loading chunks. */
static void
worker_leave_loading(WorkerCtx *ctx)
{
	if (ctx->loading)
		pg_atomic_fetch_sub_u32(&ctx->shared->loading, 1);
	ctx->loading = false;
}

/* As the last worker out: record how the run ended. */
static void
worker_finish_job(WorkerCtx *ctx)
{
	JobState	state = JOB_DONE;
	const char *error = NULL;
	int			code = 0;
	char		missing[JOB_TEXT_LEN];

	for (int i = 0; i < ctx->shared->nworkers; i++)
		if (pg_atomic_read_u32(&ctx->shared->workers[i].state) == JOB_INTERRUPTED)
			state = JOB_INTERRUPTED;
	if (pg_atomic_read_u32(&ctx->shared->failed))
	{
		state = JOB_FAILED;
		error = ctx->error[0] ? ctx->error : "a worker failed: see the server log";
		code = ctx->error[0] ? ctx->error_code :
			(int) pg_atomic_read_u32(&ctx->shared->failed_code);
	}
	else if (state != JOB_INTERRUPTED &&
			 pg_atomic_read_u32(&ctx->shared->stop_requested))
		state = JOB_STOPPED;
	if (state == JOB_DONE && ctx->def.indexes_after && !worker_build_rest(ctx))
	{
		state = JOB_FAILED;
		error = ctx->error;
		code = ctx->error_code;
	}

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (state == JOB_DONE && ledger_count_chunks(ctx->def.job) != ctx->shared->nchunks)
	{
		snprintf(missing, sizeof(missing), "the ledger lacks chunks of the key space");
		state = JOB_FAILED;
		error = missing;
	}
	else if (state == JOB_DONE && ctx->def.indexes_after &&
			 indexes_unbuilt(ctx->def.job) > 0)
	{
		snprintf(missing, sizeof(missing), "some set-aside indexes are not built");
		state = JOB_FAILED;
		error = missing;
	}
	if (state == JOB_DONE)
		pg_atomic_write_u32(&ctx->shared->phase, PHASE_DONE);

	/*
	 * An interrupted run stays "running" in the catalog: resume() continues
	 * it (a leaf job from its routing files).  Any other end lets the method
	 * finish (remove the routing files) before it commits, so that no
	 * resume() can route again into a directory being removed: if the commit
	 * fails, resume() routes again.
	 */
	if (state != JOB_INTERRUPTED)
	{
		if (ctx->def.method->finish)
			ctx->def.method->finish(&ctx->load);
		ledger_record_end(ctx->def.job, ctx->def.run, job_state_name(state), error,
						  code);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* On any exit: a worker that leaves without saying why was interrupted. */
static void
worker_on_exit(int code, Datum arg)
{
	WorkerCtx  *ctx = worker_ctx;

	if (ctx == NULL || ctx->slot == NULL)
		return;
	worker_leave_preparing(ctx);
	worker_leave_loading(ctx);
	if (pg_atomic_read_u32(&ctx->slot->state) < JOB_DONE)
	{
		pg_atomic_write_u32(&ctx->slot->state, JOB_INTERRUPTED);
		if (!ctx->left)
			pg_atomic_fetch_sub_u32(&ctx->shared->active, 1);
	}
}

/*
 * Attach the run's shared state and claim this worker's slot; false if
 * gone.  Called with signals still blocked, so a worker that runs at all
 * counts itself as attached, and the last to do so drops the run's pin.
 */
static bool
worker_attach(WorkerCtx *ctx)
{
	dsm_segment *seg = dsm_attach(ctx->args.handle);

	if (seg == NULL)
		return false;
	dsm_pin_mapping(seg);
	ctx->shared = dsm_segment_address(seg);
	if (dsm_segment_map_length(seg) < offsetof(JobShared, workers) ||
		ctx->shared->magic != JOB_MAGIC || ctx->shared->job != ctx->args.job ||
		ctx->shared->run != ctx->args.run ||
		ctx->args.index >= ctx->shared->nworkers)
		return false;
	live_attached(ctx->shared, ctx->args.handle);
	ctx->slot = &ctx->shared->workers[ctx->args.index];
	ctx->slot->pid = MyProcPid;
	ctx->slot->started_at = GetCurrentTimestamp();
	ctx->rate_at = ctx->slot->started_at;
	ctx->throttle_rate = (int64) pg_atomic_read_u64(&ctx->shared->max_rate);
	ctx->throttle_at = ctx->slot->started_at;
	SpinLockAcquire(&ctx->slot->mutex);
	ctx->slot->rate_at = ctx->slot->started_at;
	SpinLockRelease(&ctx->slot->mutex);
	return true;
}

/* Entry point of a load worker. */
void
petagen_worker_main(Datum main_arg)
{
	WorkerCtx  *ctx;
	JobState	end;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);

	ctx = MemoryContextAllocZero(TopMemoryContext, sizeof(WorkerCtx));
	ctx->cxt = AllocSetContextCreate(TopMemoryContext, "petagen worker",
									 ALLOCSET_DEFAULT_SIZES);
	memcpy(&ctx->args, MyBgworkerEntry->bgw_extra, sizeof(WorkerArgs));
	if (!worker_attach(ctx))
		proc_exit(0);			/* start() rolled back before pinning it */
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(ctx->args.database, ctx->args.role,
											  COMPAT_BGW_CONNECT_FLAGS);
	SetConfigOption("search_path", CATALOG_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION);
	MemoryContextSwitchTo(ctx->cxt);
	waits_start(&ctx->slot->waits);

	if (!worker_read_job(ctx))
	{
		/* start() rolled back or a newer run took over: nothing to do */
		elog(DEBUG1, "petagen job " INT64_FORMAT " run %d is gone", ctx->args.job,
			 ctx->args.run);
		proc_exit(0);
	}
	worker_ctx = ctx;
	/* the launcher counted a replacement as loading, after preparing */
	ctx->preparing = !ctx->args.replacing;
	ctx->loading = true;
	before_shmem_exit(worker_on_exit, (Datum) 0);
	worker_set_state(ctx, JOB_RUNNING, NULL);
	worker_begin(ctx);
	if (worker_prepare_phase(ctx))
		worker_loop(ctx);
	worker_leave_preparing(ctx);
	worker_leave_loading(ctx);
	if (ctx->def.indexes_after && !ctx->stopping && !ctx->error[0])
		worker_index_phase(ctx);

	end = ctx->error[0] ? JOB_FAILED : (ctx->stopping ? JOB_STOPPED : JOB_DONE);
	if (end == JOB_FAILED)
	{
		uint32		none = 0;

		/* the first failure's SQLSTATE is the run's */
		(void) pg_atomic_compare_exchange_u32(&ctx->shared->failed_code, &none,
											  (uint32) ctx->error_code);
		pg_atomic_write_u32(&ctx->shared->failed, 1);
	}
	ctx->left = true;
	/* the last worker's slot shows the end only once the catalog has it */
	if (pg_atomic_sub_fetch_u32(&ctx->shared->active, 1) == 0)
		worker_finish_job(ctx);
	worker_set_state(ctx, end, NULL);
	proc_exit(0);
}

/*
 * --------------------------------------------------------------------
 * The preparing phase of a load job's worker (worker.c), for a method
 * that has one (load.h: a leaf job routes its key space's
 * ranges into routing files): prepare the units not prepared yet,
 * then wait for the other workers' units.
 *
 * Units are claimed in order from a shared counter (JobShared.next_range),
 * each prepared in a transaction of its own; the method skips a unit it
 * finds prepared already (a range whose file is the job's current
 * routing), and calls back worker_before_prepare() before it writes, which
 * waits until the data directory has room for the unit's files above the
 * disk reserve.  The last worker out of the
 * phase makes a progress_log row due, so that the loading phase begins
 * with one.  Units are loaded only when every preparing unit is done.
 * --------------------------------------------------------------------
 */

/*
 * Called back by the method before a preparing unit writes `bytes` in the
 * data directory: wait for room for them there (only there: a tablespace
 * short of its reserve holds the loading phase, not this one), honour a
 * stop request, say so, log progress if due.
 */
static void
worker_before_prepare(void *arg, int64 bytes)
{
	WorkerCtx  *ctx = arg;
	LoadStats	none = {0};
	char		what[64];

	snprintf(what, sizeof(what), "the next %s file", ctx->def.method->prepare_name);
	worker_wait_for_room(ctx, &ctx->datadir, &bytes, 1, what);
	worker_check_stop(ctx);
	worker_set_state(ctx, JOB_RUNNING, ctx->def.method->prepare_activity);
	worker_log_progress(ctx, &none);
}

/* Stop counting this worker among those still preparing units. */
static void
worker_leave_preparing(WorkerCtx *ctx)
{
	/* the last one out starts the loading phase of a job that prepares */
	if (ctx->preparing &&
		pg_atomic_sub_fetch_u32(&ctx->shared->routing, 1) == 0 &&
		ctx->def.method->prepare_unit != NULL)
		sampling_phase_changed(ctx->shared);
	ctx->preparing = false;
}

/* Prepare one unit in a transaction; false if the worker must end. */
static bool
worker_prepare_unit(WorkerCtx *ctx, int64 unit)
{
	volatile bool ok = true;

	PG_TRY();
	{
		LoadStats	st = {0};

		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		ctx->def.method->prepare_unit(&ctx->load, unit, &st, &ctx->host);
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata = launch_catch_and_abort(ctx->cxt);

		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ctx->stopping = true;
		else
		{
			worker_set_error(ctx, edata->message);
			strlcpy(ctx->error, edata->message, sizeof(ctx->error));
			ctx->error_code = edata->sqlerrcode;
			elog(LOG, "petagen job " INT64_FORMAT " worker %d failed to prepare %s unit " INT64_FORMAT ": %s",
				 ctx->def.job, ctx->args.index, ctx->def.method->prepare_name,
				 unit, edata->message);
		}
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(ctx->cxt);
	return ok;
}

/*
 * The preparing phase: prepare the units not prepared yet, then wait for
 * the other workers'; true if every unit is prepared (or the method has no
 * such phase) and the job's units may be loaded.
 */
static bool
worker_prepare_phase(WorkerCtx *ctx)
{
	const LoadMethod *method = ctx->def.method;

	if (method->prepare_unit == NULL)
		return true;
	worker_set_state(ctx, JOB_RUNNING, method->prepare_activity);
	for (;;)
	{
		int64		unit = worker_claim(ctx, &ctx->shared->next_range,
										ctx->shared->nranges);

		if (unit < 0 || !worker_prepare_unit(ctx, unit))
			break;
	}
	worker_leave_preparing(ctx);
	while (!ctx->stopping && !ctx->error[0] &&
		   pg_atomic_read_u32(&ctx->shared->routing) > 0)
	{
		if (pg_atomic_read_u32(&ctx->shared->stop_requested))
			ctx->stopping = true;
		worker_sleep(100);
	}
	if (ctx->stopping || ctx->error[0])
		return false;
	worker_set_state(ctx, JOB_RUNNING, NULL);
	/* a worker that failed preparing left a unit unprepared */
	return method->prepare_done(&ctx->load, ctx->shared->nranges);
}

/*
 * --------------------------------------------------------------------
 * The indexing phase of a job with indexes after (table.c): once no
 * worker is loading any more and the ledger is complete, each worker
 * builds one set-aside leaf index at a time; the last worker out
 * (worker.c) builds the partitioned indexes that attach them.
 *
 * An index is claimed and built in a transaction of its own; a build that
 * fails fails the worker.  The first worker into indexing makes a
 * progress_log row due, so that the phase begins with one.
 * --------------------------------------------------------------------
 */

/* Is every chunk of the job in the ledger? */
static bool
worker_ledger_complete(WorkerCtx *ctx)
{
	bool		complete;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	complete = ledger_count_chunks(ctx->def.job) == ctx->shared->nchunks;
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
	return complete;
}

/* Wait until no worker loads chunks; true if the heaps are complete. */
static bool
worker_wait_loaded(WorkerCtx *ctx)
{
	worker_set_state(ctx, JOB_RUNNING, "waiting for the other workers' chunks");
	while (pg_atomic_read_u32(&ctx->shared->loading) > 0)
	{
		if (pg_atomic_read_u32(&ctx->shared->stop_requested))
			return false;
		worker_sample_rate(ctx);
		worker_sleep(100);
	}
	worker_set_state(ctx, JOB_RUNNING, NULL);
	return worker_ledger_complete(ctx);
}

/* Claim and build one set-aside index; false if none was left or it failed. */
static bool
worker_build_next_index(WorkerCtx *ctx, bool leaves_only)
{
	volatile bool built = false;

	PG_TRY();
	{
		IndexBuild	ib;
		char		activity[JOB_TEXT_LEN];

		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (indexes_claim(ctx->def.job, leaves_only, &ib))
		{
			LoadStats	none = {0};

			worker_log_progress(ctx, &none);
			worker_set_current_index(ctx, ib.name);
			snprintf(activity, sizeof(activity), "petagen job " INT64_FORMAT ": index %s",
					 ctx->def.job, ib.name);
			pgstat_report_activity(STATE_RUNNING, activity);
			indexes_build(ctx->def.job, &ib, ctx->args.index);
			built = true;
		}
		PopActiveSnapshot();
		CommitTransactionCommand();
		pgstat_report_activity(STATE_IDLE, NULL);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		edata = launch_catch_and_abort(ctx->cxt);
		worker_set_error(ctx, edata->message);
		strlcpy(ctx->error, edata->message, sizeof(ctx->error));
		ctx->error_code = edata->sqlerrcode;
		elog(LOG, "petagen job " INT64_FORMAT " worker %d failed to build an index: %s",
			 ctx->def.job, ctx->args.index, edata->message);
		FreeErrorData(edata);
		built = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(ctx->cxt);
	worker_set_current_index(ctx, "");
	return built;
}

/* Set the job's phase to indexing; the first worker to do so makes a progress_log row due. */
static void
worker_enter_indexing(WorkerCtx *ctx)
{
	if (pg_atomic_exchange_u32(&ctx->shared->phase, PHASE_INDEXING) != PHASE_INDEXING)
		sampling_phase_changed(ctx->shared);
}

/* The indexing phase: build leaf indexes, one at a time, until none is left. */
static void
worker_index_phase(WorkerCtx *ctx)
{
	if (!worker_wait_loaded(ctx))
		return;
	worker_enter_indexing(ctx);
	while (!pg_atomic_read_u32(&ctx->shared->stop_requested) &&
		   worker_build_next_index(ctx, true))
		;
	if (pg_atomic_read_u32(&ctx->shared->stop_requested))
		ctx->stopping = true;
}

/*
 * As the last worker out of a complete run with indexes after: build what
 * is left (the partitioned indexes, in stage order); false on an error.
 */
static bool
worker_build_rest(WorkerCtx *ctx)
{
	worker_enter_indexing(ctx);
	while (worker_build_next_index(ctx, false))
		;
	return ctx->error[0] == '\0';
}

/*
 * --------------------------------------------------------------------
 * What a load worker (worker.c) shows and how it paces itself: its
 * slot in the job's shared state (state and reason, the unit in
 * hand, rates, last error, the index it builds), the job's
 * progress_log rows, and the waits for the disk reserve, the rate cap
 * (max_rate), petagen.debug_pause and stop(); and how it claims the
 * next unit from a shared counter, stop() heeded.
 *
 * Only the worker writes its slot; strings and the rate sample under the
 * slot's spinlock, counters and state as atomics.  Every wait sleeps on
 * the latch, so SIGTERM, cancel and configuration reloads are served, and
 * reads the job's settings again (alter() may change them) at least once
 * a second.  A progress_log row is written by whichever worker finds one
 * due (below), in that worker's transaction.
 * --------------------------------------------------------------------
 */

/* The window of the recent rates status() shows, in milliseconds. */
#define WORKER_RATE_WINDOW_MS 3000

/* Bytes in MB, rounded up, as a pause's reason gives them. */
#define WORKER_MB_UP(bytes) (((bytes) + (1 << 20) - 1) >> 20)

/* Set this worker's state and, if given, the reason shown next to it. */
static void
worker_set_state(WorkerCtx *ctx, JobState state, const char *reason)
{
	SpinLockAcquire(&ctx->slot->mutex);
	strlcpy(ctx->slot->reason, reason ? reason : "", JOB_TEXT_LEN);
	SpinLockRelease(&ctx->slot->mutex);
	pg_atomic_write_u32(&ctx->slot->state, state);
}

/*
 * Publish the chunk (a leaf job's: leaf number, relation leaf) this worker
 * begins, of nkeys key numbers, or -1 when it holds none; its activity is
 * the unit's, so none yet.
 */
static void
worker_set_unit(WorkerCtx *ctx, int64 unit, int64 nkeys, Oid leaf)
{
	SpinLockAcquire(&ctx->slot->mutex);
	ctx->slot->activity[0] = '\0';
	ctx->slot->unit = unit;
	ctx->slot->unit_base_keys = ctx->total.keys;
	ctx->slot->unit_keys = nkeys;
	ctx->slot->unit_leaf = leaf;
	SpinLockRelease(&ctx->slot->mutex);
}

/* Publish an error message in this worker's slot. */
static void
worker_set_error(WorkerCtx *ctx, const char *message)
{
	SpinLockAcquire(&ctx->slot->mutex);
	strlcpy(ctx->slot->last_error, message, JOB_TEXT_LEN);
	ctx->slot->last_error_at = GetCurrentTimestamp();
	SpinLockRelease(&ctx->slot->mutex);
}

/* Publish the index this worker is building ("" for none). */
static void
worker_set_current_index(WorkerCtx *ctx, const char *name)
{
	SpinLockAcquire(&ctx->slot->mutex);
	strlcpy(ctx->slot->current_index, name, JOB_TEXT_LEN);
	SpinLockRelease(&ctx->slot->mutex);
}

/*
 * The method's callback: publish how this worker writes the unit in hand
 * (status_workers() shows it as the reason while there is no other).
 */
static void
worker_activity(void *arg, const char *what)
{
	WorkerCtx  *ctx = arg;

	SpinLockAcquire(&ctx->slot->mutex);
	strlcpy(ctx->slot->activity, what, JOB_TEXT_LEN);
	SpinLockRelease(&ctx->slot->mutex);
}

/* Reload the configuration if a SIGHUP came in. */
static void
worker_reload_config(void)
{
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/* Sleep up to ms on the latch, reloading the configuration on SIGHUP. */
static void
worker_sleep(long ms)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 ms, compat_wait_event("PetagenWorkerSleep"));
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	worker_reload_config();
}

/*
 * The filesystem of spaces (n) furthest below the reserve plus its need
 * (need[s] < 0: not watched), or -1 if none is; the least room above the
 * reserve among those watched, into *headroom (PG_INT64_MAX if none).
 */
static int
worker_short_space(const UnitSpace *spaces, const int64 *need, int n,
				   int64 reserve, int64 *free_bytes, int64 *headroom)
{
	int			shortest = -1;
	int64		most_short = 0;

	*headroom = PG_INT64_MAX;
	for (int s = 0; s < n; s++)
	{
		int64		free_s;

		if (need[s] < 0)
			continue;
		free_s = disk_free(spaces[s].path);
		*headroom = Min(*headroom, free_s - reserve);
		if (reserve + need[s] - free_s > most_short)
		{
			most_short = reserve + need[s] - free_s;
			shortest = s;
			*free_bytes = free_s;
		}
	}
	return shortest;
}

/*
 * Pause while a filesystem of spaces (n) has less than the reserve plus
 * need[s] bytes free (need[s] < 0: not watched); `what` names the units
 * that need it (NULL: the unit in hand, which needs only the reserve).
 * The reserve is read again (the setting on reload, the job's from
 * alter()) every second.
 */
static void
worker_wait_for_room(WorkerCtx *ctx, const UnitSpace *spaces,
					 const int64 *need, int n, const char *what)
{
	for (;;)
	{
		int64		free_bytes = 0;
		int64		headroom;
		int64		reserve;
		int			s;
		char		reason[JOB_TEXT_LEN];
		char		more[JOB_TEXT_LEN] = "";

		worker_reload_config();
		live_read_settings(ctx->shared, &ctx->def);
		reserve = job_reserve(&ctx->def);
		s = worker_short_space(spaces, need, n, reserve, &free_bytes, &headroom);
		if (headroom != PG_INT64_MAX)
			pg_atomic_write_u64(&ctx->shared->headroom,
								(uint64) Max(headroom, 0));
		if (s < 0 || ctx->stopping ||
			pg_atomic_read_u32(&ctx->shared->stop_requested))
			return;
		if (need[s] > 0)
			snprintf(more, sizeof(more), " + " INT64_FORMAT " MB for %s",
					 WORKER_MB_UP(need[s]), what);
		snprintf(reason, sizeof(reason),
				 "disk reserve: " INT64_FORMAT " MB free on %s, waiting for " INT64_FORMAT " MB: reserve " INT64_FORMAT " MB%s",
				 free_bytes >> 20, spaces[s].label,
				 WORKER_MB_UP(reserve + need[s]), WORKER_MB_UP(reserve), more);
		worker_set_state(ctx, JOB_PAUSED, reason);
		worker_sample_rate(ctx);
		worker_sleep(1000);
	}
}

/*
 * Seconds this worker is ahead of its share of max_rate, counting from
 * when the cap was last set: a cap lowered after a fast stretch limits
 * what follows, not what was written before.
 */
static double
worker_throttle_ahead(WorkerCtx *ctx)
{
	int64		bytes = pg_atomic_read_u64(&ctx->slot->bytes);
	TimestampTz now = GetCurrentTimestamp();
	long		secs;
	int			usecs;

	if (ctx->def.max_rate != ctx->throttle_rate)
	{
		ctx->throttle_rate = ctx->def.max_rate;
		ctx->throttle_at = now;
		ctx->throttle_bytes = bytes;
	}
	if (ctx->def.max_rate <= 0)
		return 0;
	TimestampDifference(ctx->throttle_at, now, &secs, &usecs);
	return (bytes - ctx->throttle_bytes) /
		((double) ctx->def.max_rate / ctx->def.nworkers) - (secs + usecs / 1e6);
}

/*
 * Sleep as long as this worker is ahead of its share of the rate cap,
 * reading the cap (alter() may change it) at least once a second.
 */
static void
worker_throttle(WorkerCtx *ctx)
{
	for (;;)
	{
		double		ahead;
		char		reason[JOB_TEXT_LEN];
		char	   *rate;

		live_read_settings(ctx->shared, &ctx->def);
		ahead = worker_throttle_ahead(ctx);
		if (ahead <= 0.01 || pg_atomic_read_u32(&ctx->shared->stop_requested))
			return;
		rate = TextDatumGetCString(DirectFunctionCall1(pg_size_pretty,
													   Int64GetDatum(ctx->def.max_rate)));
		snprintf(reason, sizeof(reason), "max_rate: %s/s", rate);
		pfree(rate);
		worker_set_state(ctx, JOB_THROTTLED, reason);
		worker_sample_rate(ctx);
		worker_sleep((long) Min(ahead * 1000, 1000));
	}
}

/*
 * While loading, add to the run's rate history if a sample is due
 * (waits.c).  Every WORKER_RATE_WINDOW_MS, publish the previous sample as
 * the start of status()'s recent rates, and take a new one: status() divides the rows
 * written since the published sample by the time since it, an interval
 * that always ends now and spans one to two windows while the worker runs.
 */
static void
worker_sample_rate(WorkerCtx *ctx)
{
	TimestampTz now = GetCurrentTimestamp();

	if (ctx->loading && (ctx->def.method->prepare_unit == NULL ||
						 pg_atomic_read_u32(&ctx->shared->routing) == 0))
		history_sample(ctx->shared);
	if (!TimestampDifferenceExceeds(ctx->rate_at, now, WORKER_RATE_WINDOW_MS))
		return;
	SpinLockAcquire(&ctx->slot->mutex);
	ctx->slot->rate_at = ctx->rate_at;
	ctx->slot->rate_rows = ctx->rate_rows;
	ctx->slot->rate_bytes = ctx->rate_bytes;
	SpinLockRelease(&ctx->slot->mutex);
	ctx->rate_at = now;
	ctx->rate_rows = pg_atomic_read_u64(&ctx->slot->rows);
	ctx->rate_bytes = pg_atomic_read_u64(&ctx->slot->bytes);
}

/* Raise the stop error if stop() was called: the chunk in flight rolls back. */
static void
worker_check_stop(WorkerCtx *ctx)
{
	if (pg_atomic_read_u32(&ctx->shared->stop_requested))
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("load job " INT64_FORMAT " is stopping", ctx->def.job)));
}

/*
 * Hold here while petagen.debug_pause names this point and chunk, showing
 * why in status(): the latch wait serves SIGTERM, cancel and reloads, and
 * a stop() ends the pause.
 */
static void
worker_debug_pause(WorkerCtx *ctx, DebugPausePoint point, int64 chunk)
{
	char		reason[JOB_TEXT_LEN];

	worker_reload_config();
	if (!debug_pause_at(point, chunk))
		return;
	snprintf(reason, sizeof(reason), "petagen.debug_pause: %s of chunk " INT64_FORMAT,
			 debug_pause_name(point), chunk);
	worker_set_state(ctx, JOB_RUNNING, reason);
	while (debug_pause_at(point, chunk) &&
		   !pg_atomic_read_u32(&ctx->shared->stop_requested))
	{
		worker_sample_rate(ctx);
		worker_sleep(100);
	}
	worker_set_state(ctx, JOB_RUNNING, NULL);
}

/*
 * load_range's and leaf_write's callback after every batch: publish, log
 * progress when due, obey stop/disk/rate, and hold a unit partly written
 * where petagen.debug_pause says mid_chunk.
 */
static void
worker_progress(void *arg, const LoadStats *so_far)
{
	WorkerCtx  *ctx = (WorkerCtx *) arg;

	pg_atomic_write_u64(&ctx->slot->keys, ctx->chunk_base_keys + so_far->keys);
	pg_atomic_write_u64(&ctx->slot->rows, ctx->chunk_base_rows + so_far->rows);
	pg_atomic_write_u64(&ctx->slot->bytes, ctx->chunk_base_bytes + so_far->bytes);
	worker_sample_rate(ctx);
	worker_log_progress(ctx, so_far);
	worker_wait_for_room(ctx, ctx->spaces.space, ctx->unit_watch,
						 ctx->spaces.n, NULL);
	worker_throttle(ctx);
	if (so_far->rows > 0)
		worker_debug_pause(ctx, DEBUG_PAUSE_MID_CHUNK, ctx->slot->unit);
	/* after any pause: a stop that woke us must not let another batch through */
	worker_check_stop(ctx);
	worker_set_state(ctx, JOB_RUNNING, NULL);
}

/*
 * The job's keys, rows and bytes written by now, as status() shows them:
 * earlier runs', this worker's (st is the chunk being committed) and the
 * other workers' chunks in flight, so that the rows written between two
 * progress_log rows are the work done between them, never a whole chunk
 * credited to the moment it commits.
 */
static void
worker_live_totals(WorkerCtx *ctx, const LoadStats *st, LoadStats *live)
{
	JobShared  *sh = ctx->shared;

	live->keys = sh->base_keys + ctx->total.keys + st->keys;
	live->rows = sh->base_rows + ctx->total.rows + st->rows;
	live->bytes = sh->base_bytes + ctx->total.bytes + st->bytes;
	for (int i = 0; i < sh->nworkers; i++)
	{
		if (i == ctx->args.index)
			continue;
		live->keys += pg_atomic_read_u64(&sh->workers[i].keys);
		live->rows += pg_atomic_read_u64(&sh->workers[i].rows);
		live->bytes += pg_atomic_read_u64(&sh->workers[i].bytes);
	}
}

/*
 * Add a progress_log row with the job's live totals (st: this worker's
 * work in flight) if one is due (below), naming the job's phase:
 * routing, or as status() names it (loading, indexing).
 */
static void
worker_log_progress(WorkerCtx *ctx, const LoadStats *st)
{
	JobShared  *sh = ctx->shared;
	bool		routing = ctx->def.method->prepare_unit != NULL && ctx->preparing;
	LoadStats	live;
	double		done;

	worker_live_totals(ctx, st, &live);
	if (routing)
		done = (double) Min(pg_atomic_read_u64(&sh->next_range), sh->nranges) /
			Max(sh->nranges, 1);
	else
		done = (double) (live.keys - sh->base_keys) /
			Max(ctx->def.rows - sh->base_keys, 1);
	if (sampling_claim(sh, done))
		ledger_log_progress(ctx->def.job, &live,
							routing ? ctx->def.method->prepare_name :
							job_phase_name(pg_atomic_read_u32(&sh->phase)));
}

/*
 * Claim the next of n units from the shared counter next: -1 once none is
 * left, or the worker is stopping (a stop was asked for) or failed.
 */
static int64
worker_claim(WorkerCtx *ctx, pg_atomic_uint64 *next, int64 n)
{
	int64		unit;

	if (pg_atomic_read_u32(&ctx->shared->stop_requested))
		ctx->stopping = true;
	if (ctx->stopping || ctx->error[0])
		return -1;
	unit = (int64) pg_atomic_fetch_add_u64(next, 1);
	return unit < n ? unit : -1;
}

/*
 * --------------------------------------------------------------------
 * When a load job adds a row to petagen.progress_log: often enough
 * that a chart of any run has some SAMPLING_POINTS points, never more
 * often than every SAMPLING_MIN_MS, never less often than
 * petagen.progress_log_interval.
 *
 * The interval is the run's expected duration (its elapsed time over the
 * share of its work done) over SAMPLING_POINTS, at most a tenth of the
 * time the run has taken so far (the first estimates are rough), bounded.
 * The rows of a run are shared by its workers: the worker that finds a row
 * due claims it by moving JobShared.next_log_at forward with a
 * compare-and-exchange, so that two workers never log the same moment.  A new run starts with next_log_at 0
 * (live.c), and a phase change sets it back to 0: the first row of a run
 * or phase is logged at once and marks where it began.
 * --------------------------------------------------------------------
 */

#define SAMPLING_POINTS		40
#define SAMPLING_EARLY		10
#define SAMPLING_MIN_MS		100

/*
 * Microseconds until the next row of a run that has done `done` (0 .. 1) of
 * its work: its expected duration over SAMPLING_POINTS, and no more than a
 * tenth of its elapsed time (early estimates are rough), bounded.
 */
static int64
sampling_interval(const JobShared *shared, TimestampTz now, double done)
{
	double		elapsed = (double) (now - shared->started_at);
	double		interval = elapsed / SAMPLING_EARLY;

	if (done > 0)
		interval = Min(interval, elapsed / Min(done, 1.0) / SAMPLING_POINTS);
	interval = Min(interval, (double) petagen_progress_log_interval * USECS_PER_SEC);
	return (int64) Max(interval, (double) SAMPLING_MIN_MS * 1000);
}

/*
 * Is a progress_log row due now?  If so, the caller must log it: the next
 * one is then due an interval later.
 */
static bool
sampling_claim(JobShared *shared, double done)
{
	TimestampTz now = GetCurrentTimestamp();
	uint64		due = pg_atomic_read_u64(&shared->next_log_at);

	return (uint64) now >= due &&
		pg_atomic_compare_exchange_u64(&shared->next_log_at, &due,
									   (uint64) (now + sampling_interval(shared, now, done)));
}

/* A run entered a new phase: its next progress_log row is due at once. */
static void
sampling_phase_changed(JobShared *shared)
{
	pg_atomic_write_u64(&shared->next_log_at, 0);
}
