/*-------------------------------------------------------------------------
 * worker_prepare.c
 *		The preparing phase of a load job's worker (worker.c), for a method
 *		that has one (loadmethod.h: a leaf job routes its key space's
 *		ranges into routing files): prepare the units not prepared yet,
 *		then wait for the other workers' units.
 *
 * Units are claimed in order from a shared counter (JobShared.next_range),
 * each prepared in a transaction of its own; the method skips a unit it
 * finds prepared already (a range whose file is the job's current
 * routing), and calls back worker_before_prepare() before it writes, which
 * waits until the data directory has room for the unit's files above the
 * disk reserve.  The last worker out of the
 * phase makes a progress_log row due, so that the loading phase begins
 * with one.  Units are loaded only when every preparing unit is done.
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

/*
 * Called back by the method before a preparing unit writes `bytes` in the
 * data directory: wait for room for them there (only there: a tablespace
 * short of its reserve holds the loading phase, not this one), honour a
 * stop request, say so, log progress if due.
 */
void
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
void
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
bool
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
