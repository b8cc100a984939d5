/*-------------------------------------------------------------------------
 * worker_slot.c
 *		What a load worker (worker.c) shows and how it paces itself: its
 *		slot in the job's shared state (state and reason, the unit in
 *		hand, rates, last error, the index it builds), the job's
 *		progress_log rows, and the waits for the disk reserve, the rate cap
 *		(max_rate), petagen.debug_pause and stop(); and how it claims the
 *		next unit from a shared counter, stop() heeded.
 *
 * Only the worker writes its slot; strings and the rate sample under the
 * slot's spinlock, counters and state as atomics.  Every wait sleeps on
 * the latch, so SIGTERM, cancel and configuration reloads are served, and
 * reads the job's settings again (alter() may change them) at least once
 * a second.  A progress_log row is written by whichever worker finds one
 * due (sampling.c), in that worker's transaction.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "debug_pause.h"
#include "job/ledger.h"
#include "job/live.h"
#include "job/options.h"
#include "job/sampling.h"
#include "job/worker_int.h"
#include "load/load.h"

/* The window of the recent rates status() shows, in milliseconds. */
#define WORKER_RATE_WINDOW_MS 3000

/* Bytes in MB, rounded up, as a pause's reason gives them. */
#define WORKER_MB_UP(bytes) (((bytes) + (1 << 20) - 1) >> 20)

/* Set this worker's state and, if given, the reason shown next to it. */
void
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
void
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
void
worker_set_error(WorkerCtx *ctx, const char *message)
{
	SpinLockAcquire(&ctx->slot->mutex);
	strlcpy(ctx->slot->last_error, message, JOB_TEXT_LEN);
	ctx->slot->last_error_at = GetCurrentTimestamp();
	SpinLockRelease(&ctx->slot->mutex);
}

/* Publish the index this worker is building ("" for none). */
void
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
void
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
void
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
 * Every WORKER_RATE_WINDOW_MS, publish the previous sample as the start of
 * status()'s recent rates, and take a new one: status() divides the rows
 * written since the published sample by the time since it, an interval
 * that always ends now and spans one to two windows while the worker runs.
 */
void
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
void
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
void
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
void
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
 * work in flight) if one is due (sampling.c), naming the job's phase:
 * routing, or as status() names it (loading, indexing).
 */
void
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
int64
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
