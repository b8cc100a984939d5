/*-------------------------------------------------------------------------
 * worker_route.c
 *		The first phase of a leaf job's worker (worker.c): route the key
 *		space's ranges into routing files (leafroute.c), then wait for the
 *		other workers' ranges.
 *
 * Ranges are claimed in order from a shared counter; a range whose file
 * is the job's current routing is skipped, and each file is written once
 * the disk reserve leaves room for it, in a transaction of its own.  The
 * last worker out of routing makes a progress_log row due, so that the
 * loading phase begins with one.  Leaves are written only when every
 * range has its file.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "launch.h"
#include "job/sampling.h"
#include "job/worker_int.h"
#include "load/leafdir.h"
#include "load/leafroute.h"

/* In a transaction: what a leaf job's routing files must say now. */
void
worker_routing_init(WorkerCtx *ctx, LeafRouting *routing)
{
	routing->job = ctx->def.job;
	routing->token = ctx->def.route_token;
	routing->relid = ctx->def.relid;
	routing->first = ctx->def.first;
	routing->rows = ctx->def.rows;
	routing->chunk_rows = ctx->def.chunk_rows;
	routing->spec = ctx->def.spec;
	leaf_routing_init(routing);
}

/* Stop counting this worker among those still routing ranges. */
void
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
bool
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
