/*-------------------------------------------------------------------------
 * worker_index.c
 *		The indexing phase of a job with indexes after (indexes.c): once no
 *		worker is loading any more and the ledger is complete, each worker
 *		builds one set-aside leaf index at a time; the last worker out
 *		(worker.c) builds the partitioned indexes that attach them.
 *
 * An index is claimed and built in a transaction of its own; a build that
 * fails fails the worker.  The first worker into indexing makes a
 * progress_log row due, so that the phase begins with one.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "launch.h"
#include "job/ledger.h"
#include "job/sampling.h"
#include "job/worker_int.h"
#include "load/load.h"

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
void
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
bool
worker_build_rest(WorkerCtx *ctx)
{
	worker_enter_indexing(ctx);
	while (worker_build_next_index(ctx, false))
		;
	return ctx->error[0] == '\0';
}
