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
 * A frozen job (frozen.c) writes each chunk's intent in a transaction of
 * its own before the chunk, after removing what earlier attempts left.
 * A job with indexes after (indexes.c) has a second phase: when no worker
 * is loading any more and the ledger is complete, each worker builds one
 * set-aside index at a time, and the last worker out builds the
 * partitioned indexes that attach them.
 *
 * A leaf job (leafload.c) first routes its ranges of key numbers into
 * routing files (leafroute.c), ranges claimed in order like chunks, ranges
 * whose file is the job's current routing skipped, each file written once
 * the disk reserve leaves room for it; when every worker has finished
 * routing and every range has its file, the workers claim the local
 * leaves as a chunk job claims chunks, each leaf written whole in one
 * transaction with its ledger row.  The last worker out removes the
 * routing files unless the run was interrupted.
 *
 * Whichever worker finds a progress_log row due (sampling.c) logs the
 * job's live totals and its phase: after a batch (loading), before a range
 * is routed (routing), before an index is built (indexing).  The row is in
 * that worker's transaction and commits with it.  The last worker out of
 * routing, and the first into indexing, make the next row due at once, so
 * that each phase begins with a row.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "debug_pause.h"
#include "launch.h"
#include "petagen.h"
#include "job/citus_shards.h"
#include "job/ledger.h"
#include "job/live.h"
#include "job/options.h"
#include "job/sampling.h"
#include "load/disk.h"
#include "load/frozen.h"
#include "load/indexes.h"
#include "load/leafdir.h"
#include "load/leafload.h"
#include "load/leafroute.h"
#include "load/leafstorage.h"
#include "load/load.h"

#define WORKER_MAX_RETRIES	10
#define WORKER_RATE_WINDOW_MS 3000
#define WORKER_DEFAULT_ROW_BYTES 1200

/* Everything one worker knows. */
typedef struct WorkerCtx
{
	WorkerArgs	args;
	JobDef		def;
	JobShared  *shared;
	WorkerSlot *slot;
	bits8	   *done;			/* chunks in the ledger before this run */
	DiskTargets disk;
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
	FrozenIntent intent;		/* of the frozen chunk being written */
	Oid		   *leaves;			/* a leaf job's local leaves, by leaf number */
	int			nlocal;
	LeafRouting route_files;	/* its routing files as the run began: see
								 * worker_route_range() */
	bool		stopping;
	bool		routing;		/* counted in shared->routing */
	bool		loading;		/* counted in shared->loading */
	bool		left;			/* no longer counted in shared->active */
	char		error[JOB_TEXT_LEN];
} WorkerCtx;

static WorkerCtx *worker_ctx;

PGDLLEXPORT void petagen_worker_main(Datum main_arg);
static void worker_sample_rate(WorkerCtx *ctx);
static void worker_log_progress(WorkerCtx *ctx, const LoadStats *st);

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
 * begins, of nkeys key numbers, or -1 when it holds none.
 */
static void
worker_set_unit(WorkerCtx *ctx, int64 unit, int64 nkeys, Oid leaf)
{
	SpinLockAcquire(&ctx->slot->mutex);
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
 * Pause while less than reserve + need bytes are free on some target; the
 * reserve is read again (the setting on reload, the job's from alter())
 * every second.
 */
static void
worker_wait_for_room(WorkerCtx *ctx, int64 need)
{
	for (;;)
	{
		const char *where;
		int64		free_bytes;
		int64		reserve;
		char		reason[JOB_TEXT_LEN];

		worker_reload_config();
		live_read_settings(ctx->shared, &ctx->def);
		free_bytes = disk_min_free(&ctx->disk, &where);
		reserve = job_reserve(&ctx->def);
		pg_atomic_write_u64(&ctx->shared->headroom,
							(uint64) Max(free_bytes - reserve, 0));
		if (free_bytes - need >= reserve || ctx->stopping ||
			pg_atomic_read_u32(&ctx->shared->stop_requested))
			return;
		snprintf(reason, sizeof(reason),
				 "disk reserve: " INT64_FORMAT " MB free on %s, reserve " INT64_FORMAT " MB, needs " INT64_FORMAT " MB more",
				 free_bytes >> 20, where, reserve >> 20,
				 (reserve + need - free_bytes + (1 << 20) - 1) >> 20);
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
 * Every WORKER_RATE_WINDOW_MS, publish the previous sample as the start of
 * status()'s recent rates, and take a new one: status() divides the rows
 * written since the published sample by the time since it, an interval
 * that always ends now and spans one to two windows while the worker runs.
 */
static void
worker_sample_rate(WorkerCtx *ctx)
{
	TimestampTz now = GetCurrentTimestamp();

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
 * load_range's callback after every batch: publish, log progress when due,
 * and obey stop/disk/rate.
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
	worker_wait_for_room(ctx, 0);
	worker_throttle(ctx);
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
 * work in flight) if one is due (sampling.c), naming the job's phase:
 * routing, or as status() names it (loading, indexing).
 */
static void
worker_log_progress(WorkerCtx *ctx, const LoadStats *st)
{
	JobShared  *sh = ctx->shared;
	bool		routing = ctx->def.leaf_method && ctx->routing;
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
							routing ? "routing" :
							job_phase_name(pg_atomic_read_u32(&sh->phase)));
}

/* Insert the ledger row of a finished chunk (a leaf job's: leaf number `chunk`). */
static void
worker_record_chunk(WorkerCtx *ctx, int64 chunk, const LoadStats *st)
{
	ledger_record_chunk(&ctx->def, ctx->args.index, chunk,
						ctx->def.leaf_method ? ctx->leaves[chunk] : InvalidOid, st);
}

/* In a transaction of its own: repair a frozen chunk and record its intent. */
static void
worker_prepare_frozen(WorkerCtx *ctx, int64 chunk)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	frozen_free_intent(&ctx->intent);
	frozen_prepare_chunk(ctx->def.job, chunk, ctx->def.relid, ctx->args.index,
						 ctx->def.run, ctx->cxt, &ctx->intent);
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

/* Load chunk `chunk` and its ledger row in one transaction. */
static void
worker_load_chunk(WorkerCtx *ctx, int64 chunk)
{
	int64		first = chunk * ctx->def.chunk_rows;
	int64		count = Min(ctx->def.chunk_rows, ctx->def.rows - first);
	LoadStats	st = {0};
	char		activity[64];

	ctx->chunk_base_keys = ctx->total.keys;
	ctx->chunk_base_rows = ctx->total.rows;
	ctx->chunk_base_bytes = ctx->total.bytes;
	worker_set_unit(ctx, chunk, count, InvalidOid);
	snprintf(activity, sizeof(activity), "petagen job " INT64_FORMAT ": chunk " INT64_FORMAT,
			 ctx->def.job, chunk);
	if (ctx->def.frozen)
		worker_prepare_frozen(ctx, chunk);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
	if (ctx->def.frozen)
		frozen_lock_leaves(&ctx->intent);
	load_range(ctx->def.relid, &ctx->def.spec, ctx->def.frozen, first, count,
			   &st, worker_progress, ctx);
	worker_debug_pause(ctx, DEBUG_PAUSE_BEFORE_COMMIT, chunk);
	worker_check_stop(ctx);
	citus_shards_check(ctx->def.job, ctx->def.relid);
	worker_record_chunk(ctx, chunk, &st);
	if (ctx->def.frozen)
		frozen_forget_chunk(ctx->def.job, chunk);
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	worker_add_totals(ctx, &st);
}

/*
 * Write local leaf leafno of a leaf job whole, and its ledger row, in one
 * transaction (leafload.c).
 */
static void
worker_load_leaf(WorkerCtx *ctx, int64 leafno)
{
	LoadStats	st = {0};
	char		activity[64];

	ctx->chunk_base_keys = ctx->total.keys;
	ctx->chunk_base_rows = ctx->total.rows;
	ctx->chunk_base_bytes = ctx->total.bytes;
	/* a leaf's keys are known once read: estimated as an even share */
	worker_set_unit(ctx, leafno, ctx->def.rows / Max(ctx->shared->nchunks, 1),
					ctx->leaves[leafno]);
	snprintf(activity, sizeof(activity), "petagen job " INT64_FORMAT ": leaf " INT64_FORMAT,
			 ctx->def.job, leafno);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
	/* a shard moved off this node: fail before touching what it left here */
	citus_shards_check(ctx->def.job, ctx->def.relid);
	/* the routing files must be this job's for the table as the run began */
	leaf_write(&ctx->route_files, ctx->leaves[leafno], (int) leafno,
			   ctx->shared->nranges, &st, worker_progress, ctx);
	worker_debug_pause(ctx, DEBUG_PAUSE_BEFORE_COMMIT, leafno);
	worker_check_stop(ctx);
	citus_shards_check(ctx->def.job, ctx->def.relid);
	worker_record_chunk(ctx, leafno, &st);
	PopActiveSnapshot();
	CommitTransactionCommand();
	leaf_storage_forget(ctx->def.job, (int) leafno);
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
		if (ctx->def.leaf_method)
			worker_load_leaf(ctx, chunk);
		else
			worker_load_chunk(ctx, chunk);
	}
	PG_CATCH();
	{
		edata = launch_catch_and_abort(ctx->cxt);
		/* the abort removed a leaf's new files: their record goes too */
		if (ctx->def.leaf_method)
			leaf_storage_forget(ctx->def.job, (int) chunk);
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

/* The rough size of a chunk (or leaf) on disk, heap and index, for the reserve check. */
static int64
worker_chunk_bytes(WorkerCtx *ctx)
{
	double		per_key = WORKER_DEFAULT_ROW_BYTES;
	int64		keys = ctx->def.chunk_rows;

	if (ctx->def.leaf_method)
		keys = ctx->def.rows / Max(ctx->shared->nchunks, 1) + 1;
	if (ctx->total.keys > 0)
		per_key = (double) ctx->total.bytes / ctx->total.keys;
	return (int64) (per_key * 1.5 * keys);
}

/* Claim and load chunks until none is left, a stop is asked for, or an error. */
static void
worker_loop(WorkerCtx *ctx)
{
	for (;;)
	{
		int64		chunk;

		if (pg_atomic_read_u32(&ctx->shared->stop_requested))
			ctx->stopping = true;
		if (ctx->stopping || ctx->error[0])
			return;
		chunk = (int64) pg_atomic_fetch_add_u64(&ctx->shared->next_chunk, 1);
		if (chunk >= ctx->shared->nchunks)
			return;
		if (ctx->done && (ctx->done[chunk / 8] & (1 << (chunk % 8))))
			continue;
		worker_debug_pause(ctx, DEBUG_PAUSE_BEFORE_CHUNK, chunk);
		worker_wait_for_room(ctx, worker_chunk_bytes(ctx) * ctx->def.nworkers);
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

/* In a transaction: what a leaf job's routing files must say now. */
static void
worker_routing_init(WorkerCtx *ctx, LeafRouting *routing)
{
	routing->job = ctx->def.job;
	routing->token = ctx->def.route_token;
	routing->relid = ctx->def.relid;
	routing->rows = ctx->def.rows;
	routing->chunk_rows = ctx->def.chunk_rows;
	routing->spec = ctx->def.spec;
	leaf_routing_init(routing);
}

/* Load the ledger's chunks of this job into a bitmap, and the disk targets. */
static void
worker_prepare(WorkerCtx *ctx)
{
	int64		nchunks = ctx->shared->nchunks;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	load_check_privilege(ctx->def.relid);
	ctx->done = MemoryContextAllocZero(ctx->cxt, nchunks / 8 + 1);
	ledger_done_chunks(ctx->def.job, nchunks, ctx->done);
	disk_find_targets(ctx->def.relid, &ctx->disk);
	if (ctx->def.leaf_method)
	{
		MemoryContext old = MemoryContextSwitchTo(ctx->cxt);

		ctx->leaves = leaf_local_leaves(ctx->def.relid, &ctx->nlocal);
		MemoryContextSwitchTo(old);
		worker_routing_init(ctx, &ctx->route_files);
		/* the routing files are in the data directory */
		disk_add_path(&ctx->disk, DataDir);
	}
	if (ctx->def.leaf_method && ctx->nlocal != nchunks)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has %d local leaves, not the " INT64_FORMAT " of load job " INT64_FORMAT,
						get_rel_name(ctx->def.relid), ctx->nlocal, nchunks, ctx->def.job),
				 errhint("Its partitions changed while the job ran: start a new job.")));
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
}

/* Stop counting this worker among those still routing ranges. */
static void
worker_leave_routing(WorkerCtx *ctx)
{
	/* the last router starts the leaf job's loading phase */
	if (ctx->routing &&
		pg_atomic_sub_fetch_u32(&ctx->shared->routing, 1) == 0 &&
		ctx->def.leaf_method)
		sampling_phase_changed(ctx->shared);
	ctx->routing = false;
}

/*
 * Route one range of a leaf job in a transaction, unless its file is the
 * job's current routing, once the disk reserve leaves room for the file;
 * false if the worker must end.
 */
static bool
worker_route_range(WorkerCtx *ctx, int64 range)
{
	volatile bool ok = true;

	PG_TRY();
	{
		LoadStats	st = {0};
		LeafRouting routing;

		if (!leaf_range_current(&ctx->route_files, range, ctx->nlocal))
		{
			StartTransactionCommand();
			PushActiveSnapshot(GetTransactionSnapshot());
			worker_routing_init(ctx, &routing);
			worker_wait_for_room(ctx, leaf_route_bytes(routing.chunk_rows,
													   routing.nlocal));
			worker_check_stop(ctx);
			worker_set_state(ctx, JOB_RUNNING, "routing keys");
			worker_log_progress(ctx, &st);
			leaf_route_range(&routing, range, &st);
			PopActiveSnapshot();
			CommitTransactionCommand();
		}
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
			elog(LOG, "petagen job " INT64_FORMAT " worker %d failed to route range " INT64_FORMAT ": %s",
				 ctx->def.job, ctx->args.index, range, edata->message);
		}
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(ctx->cxt);
	return ok;
}

/*
 * A leaf job's first phase: route the ranges not routed yet, then wait
 * for the other workers'; true if every range is routed and leaves may be
 * written.
 */
static bool
worker_route(WorkerCtx *ctx)
{
	worker_set_state(ctx, JOB_RUNNING, "routing keys");
	for (;;)
	{
		int64		range;

		if (pg_atomic_read_u32(&ctx->shared->stop_requested))
			ctx->stopping = true;
		if (ctx->stopping || ctx->error[0])
			break;
		range = (int64) pg_atomic_fetch_add_u64(&ctx->shared->next_range, 1);
		if (range >= ctx->shared->nranges)
			break;
		if (!worker_route_range(ctx, range))
			break;
	}
	worker_leave_routing(ctx);
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
	/* a worker that failed routing left a range without its file */
	for (int64 range = 0; range < ctx->shared->nranges; range++)
		if (!leaf_range_done(ctx->def.route_token, range))
			return false;
	return true;
}

/* Stop counting this worker among those still loading chunks. */
static void
worker_leave_loading(WorkerCtx *ctx)
{
	if (ctx->loading)
		pg_atomic_fetch_sub_u32(&ctx->shared->loading, 1);
	ctx->loading = false;
}

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
	 * it, from its routing files.  Any other end removes them before it
	 * commits, so that no resume() can route again into a directory being
	 * removed: if the commit fails, resume() routes again.
	 */
	if (state != JOB_INTERRUPTED)
	{
		if (ctx->def.leaf_method)
			leaf_remove_files(ctx->def.route_token);
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
	worker_leave_routing(ctx);
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
	ctx->routing = true;
	ctx->loading = true;
	before_shmem_exit(worker_on_exit, (Datum) 0);
	worker_set_state(ctx, JOB_RUNNING, NULL);
	worker_prepare(ctx);
	if (!ctx->def.leaf_method || worker_route(ctx))
		worker_loop(ctx);
	worker_leave_routing(ctx);
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
