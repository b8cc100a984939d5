/*-------------------------------------------------------------------------
 * worker.c
 *		A load job's background worker: claim chunks of key numbers, load
 *		each in one transaction together with its ledger row, publish
 *		progress, honour stop requests, the disk reserve and the throttle.
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
 * (src/load/loadmethod.h, looked up once when the job is read): a chunk
 * of key numbers loaded into every local leaf (method_chunk.c; a frozen
 * job records each chunk's intent in a transaction of its own before the
 * chunk), or a local leaf written whole (method_leaf.c).  This file holds
 * no branch on the method: it runs every method's phases alike, calling
 * the callbacks it has.  A method with a preparing phase (a leaf job
 * routes its ranges of key numbers into routing files first) has its
 * units prepared before any is loaded (worker_prepare.c).  The last worker
 * out lets the method finish the job (a leaf job's routing files are
 * removed) unless the run was interrupted.
 *
 * A job with indexes after (indexes.c) has a last phase: when no worker
 * is loading any more and the ledger is complete, each worker builds one
 * set-aside index at a time, and the last worker out builds the
 * partitioned indexes that attach them.
 *
 * Whichever worker finds a progress_log row due (sampling.c) logs the
 * job's live totals and its phase: after a batch (loading), before a range
 * is routed (routing), before an index is built (indexing).  The row is in
 * that worker's transaction and commits with it.  The last worker out of
 * routing, and the first into indexing, make the next row due at once, so
 * that each phase begins with a row.
 *
 * This file holds the worker's life and its loop over units; what it
 * shows in its slot and how it paces itself are in worker_slot.c, the
 * preparing phase in worker_prepare.c, the indexing phase in
 * worker_index.c, and worker_int.h is what they share.
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
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "debug_pause.h"
#include "job/live.h"
#include "launch.h"
#include "job/citus_shards.h"
#include "job/ledger.h"
#include "job/method.h"
#include "job/worker_int.h"
#include "load/load.h"

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

/* Claim and load units until none is left, a stop is asked for, or an error. */
static void
worker_loop(WorkerCtx *ctx)
{
	for (;;)
	{
		int64		chunk = worker_claim(ctx, &ctx->shared->next_chunk,
										 ctx->shared->nchunks);
		char		what[64];

		if (chunk < 0)
			return;
		if (worker_unit_done(ctx, chunk))
			continue;
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
			return;
		}
		worker_set_state(ctx, JOB_RUNNING, NULL);
		if (!worker_try_chunk(ctx, chunk))
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
	char		missing[JOB_TEXT_LEN];

	for (int i = 0; i < ctx->shared->nworkers; i++)
		if (pg_atomic_read_u32(&ctx->shared->workers[i].state) == JOB_INTERRUPTED)
			state = JOB_INTERRUPTED;
	if (pg_atomic_read_u32(&ctx->shared->failed))
	{
		state = JOB_FAILED;
		error = ctx->error[0] ? ctx->error : "a worker failed: see the server log";
	}
	else if (state != JOB_INTERRUPTED &&
			 pg_atomic_read_u32(&ctx->shared->stop_requested))
		state = JOB_STOPPED;
	if (state == JOB_DONE && ctx->def.indexes_after && !worker_build_rest(ctx))
	{
		state = JOB_FAILED;
		error = ctx->error;
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
	 * resume() can route again into a directory being removed: if the
	 * commit fails, resume() routes again.
	 */
	if (state != JOB_INTERRUPTED)
	{
		if (ctx->def.method->finish)
			ctx->def.method->finish(&ctx->load);
		ledger_record_end(ctx->def.job, ctx->def.run, job_state_name(state), error);
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

	if (!worker_read_job(ctx))
	{
		/* start() rolled back or a newer run took over: nothing to do */
		elog(DEBUG1, "petagen job " INT64_FORMAT " run %d is gone", ctx->args.job,
			 ctx->args.run);
		proc_exit(0);
	}
	worker_ctx = ctx;
	ctx->preparing = true;
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
		pg_atomic_write_u32(&ctx->shared->failed, 1);
	ctx->left = true;
	/* the last worker's slot shows the end only once the catalog has it */
	if (pg_atomic_sub_fetch_u32(&ctx->shared->active, 1) == 0)
		worker_finish_job(ctx);
	worker_set_state(ctx, end, NULL);
	proc_exit(0);
}
