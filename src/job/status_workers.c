/*-------------------------------------------------------------------------
 * status_workers.c
 *		petagen.status_details(job): the detail behind one status() row.
 *		First a row per phase the job has (worker IS NULL: routing,
 *		loading, indexing, in order) with that phase's own progress and
 *		when it began, then, while a run is live, a row per worker with its
 *		own progress: the chunk, or leaf, it writes and how far it got.
 *		petagen.status_workers(job) shows the same rows in the columns a
 *		120-column psql screen holds: the chunk or leaf as one `unit`, the
 *		percent, rows, rate and the reason cut as status() cuts it.
 *
 * A phase began at its first progress_log row (workers log one as each
 * phase begins: sampling.c); it lasted until the next phase began, or the
 * job ended.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "job/live.h"
#include "job/options.h"
#include "job/status.h"

/* The columns of status_details(), in order. */
typedef enum StatusWorkersCol
{
	SW_WORKER,
	SW_PHASE,
	SW_STATE,
	SW_PID,
	SW_LEAF,
	SW_CHUNK,
	SW_DONE,
	SW_TOTAL,
	SW_PERCENT,
	SW_ROWS,
	SW_DUPLICATES,
	SW_ROWS_PER_S,
	SW_MB_PER_S,
	SW_STARTED,
	SW_ELAPSED,
	SW_HEADROOM,
	SW_REASON,
	SW_LAST_ERROR,
	SW_LAST_ERROR_AT,
	SW_CURRENT_INDEX,
	STATUS_WORKERS_COLS
} StatusWorkersCol;

/* The columns of status_workers(); SW_CHUNK stands for its unit. */
static const StatusWorkersCol status_workers_cols[] = {
	SW_WORKER, SW_PHASE, SW_STATE, SW_PID, SW_CHUNK, SW_PERCENT, SW_ROWS,
	SW_ROWS_PER_S, SW_REASON
};

/* When each phase of a job first began (0: not yet). */
typedef TimestampTz PhaseStarts[NSTEPS];

/* status_phase_starts()'s target list. */
enum
{
	Anum_phase_start_phase = 1,
	Anum_phase_start_at,
};

/* Read from progress_log when each phase of job began. */
static void
status_phase_starts(int64 job, PhaseStarts starts)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;
	uint64		n;

	memset(starts, 0, sizeof(PhaseStarts));
	catalog_connect(&scope, false);
	/* a 0.1 catalog's progress_log has no phase: to_jsonb() reads NULL */
	n = catalog_exec("SELECT to_jsonb(l) ->> 'phase', min(logged_at)"
					 " FROM petagen.progress_log l WHERE job = $1 GROUP BY 1",
					 1, types, values, NULL, SPI_OK_SELECT);
	for (uint64 row = 0; row < n; row++)
	{
		char	   *phase = catalog_text(row, Anum_phase_start_phase, CurrentMemoryContext);
		bool		isnull;
		Datum		at = catalog_value(row, Anum_phase_start_at, &isnull);

		for (int i = 0; i < NSTEPS && phase != NULL; i++)
			if (strcmp(phase, progress_step_name(i)) == 0)
				starts[i] = DatumGetTimestampTz(at);
	}
	catalog_finish(&scope);
}

/* How long phase `step` lasted, or has lasted by now; < 0 if unknown. */
static double
status_phase_seconds(const JobProgress *p, const PhaseStarts starts,
					 ProgressStep step, bool live)
{
	TimestampTz end = 0;
	long		secs;
	int			usecs;

	if (starts[step] == 0 || step > p->step)
		return -1;
	for (int i = step + 1; i < NSTEPS && end == 0; i++)
		if (p->steps[i].present && i <= p->step)
			end = starts[i];
	if (end == 0 && !live)
		end = p->sum.finished_at;
	if (end == 0)
		end = GetCurrentTimestamp();
	TimestampDifference(starts[step], end, &secs, &usecs);
	return secs + usecs / 1e6;
}

/* The state shown for a phase: done, the job's state, or pending. */
static const char *
status_phase_state(const JobProgress *p, ProgressStep step)
{
	if (step < p->step)
		return "done";
	if (step == p->step)
		return job_state_name(p->state);
	return "pending";
}

/*
 * Add a row of status_details() (details), or the columns of it that
 * status_workers() shows: the leaf's name or "chunk N" as its unit, the
 * reason cut to STATUS_REASON_MAX characters.
 */
static void
status_put(ReturnSetInfo *rsinfo, Datum *values, bool *nulls, bool details)
{
	Datum		narrow[lengthof(status_workers_cols)];
	bool		narrow_nulls[lengthof(status_workers_cols)];

	if (details)
	{
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		return;
	}
	for (int i = 0; i < lengthof(status_workers_cols); i++)
	{
		StatusWorkersCol col = status_workers_cols[i];

		narrow[i] = values[col];
		narrow_nulls[i] = nulls[col];
		if (col == SW_CHUNK && !nulls[SW_LEAF])
			narrow[i] = DirectFunctionCall1(textin,
											DirectFunctionCall1(regclassout, values[SW_LEAF]));
		else if (col == SW_CHUNK && !nulls[SW_CHUNK])
			narrow[i] = CStringGetTextDatum(psprintf("chunk " INT64_FORMAT,
													 DatumGetInt64(values[SW_CHUNK])));
		else if (col == SW_REASON && !nulls[SW_REASON])
			narrow[i] = status_reason(TextDatumGetCString(values[SW_REASON]));
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, narrow, narrow_nulls);
}

/* Add the row of phase `step` of the job whose progress is p. */
static void
status_phase_row(ReturnSetInfo *rsinfo, const JobProgress *p,
				 const PhaseStarts starts, ProgressStep step, bool live,
				 bool details)
{
	Datum		values[STATUS_WORKERS_COLS];
	bool		nulls[STATUS_WORKERS_COLS];
	const StepProgress *s = &p->steps[step];
	bool		current = step == p->step;
	bool		loading = step == STEP_LOADING;
	double		seconds = status_phase_seconds(p, starts, step, live);

	memset(values, 0, sizeof(values));
	memset(nulls, true, sizeof(nulls));
	nulls[SW_PHASE] = nulls[SW_STATE] = false;
	values[SW_PHASE] = CStringGetTextDatum(progress_step_name(step));
	values[SW_STATE] = CStringGetTextDatum(status_phase_state(p, step));
	nulls[SW_DONE] = nulls[SW_TOTAL] = nulls[SW_PERCENT] = s->done < 0;
	values[SW_DONE] = Int64GetDatum(s->done);
	values[SW_TOTAL] = Int64GetDatum(s->total);
	values[SW_PERCENT] = Float8GetDatum(status_percent(progress_step_fraction(s)));
	nulls[SW_ROWS] = nulls[SW_DUPLICATES] = !loading;
	values[SW_ROWS] = Int64GetDatum(p->rows);
	values[SW_DUPLICATES] = Int64GetDatum(p->duplicates);
	nulls[SW_ROWS_PER_S] = nulls[SW_MB_PER_S] = !loading || p->rows_per_s < 0;
	values[SW_ROWS_PER_S] = Int64GetDatum((int64) p->rows_per_s);
	values[SW_MB_PER_S] = Float8GetDatum(status_mb(p->bytes_per_s));
	nulls[SW_STARTED] = starts[step] == 0;
	values[SW_STARTED] = TimestampTzGetDatum(starts[step]);
	nulls[SW_ELAPSED] = seconds < 0;
	values[SW_ELAPSED] = status_interval(seconds);
	nulls[SW_HEADROOM] = !current || p->headroom < 0;
	if (!nulls[SW_HEADROOM])
		values[SW_HEADROOM] = DirectFunctionCall1(pg_size_pretty,
												  Int64GetDatum(p->headroom));
	nulls[SW_REASON] = !current || p->reason[0] == '\0';
	values[SW_REASON] = CStringGetTextDatum(p->reason);
	nulls[SW_LAST_ERROR] = !current || p->sum.last_error[0] == '\0';
	nulls[SW_LAST_ERROR_AT] = nulls[SW_LAST_ERROR];
	values[SW_LAST_ERROR] = CStringGetTextDatum(p->sum.last_error);
	values[SW_LAST_ERROR_AT] = TimestampTzGetDatum(p->sum.last_error_at);
	status_put(rsinfo, values, nulls, details);
}

/* Add the row of worker `index` of a live run in phase `step`. */
static void
status_worker_row(ReturnSetInfo *rsinfo, JobShared *shared, int index,
				  ProgressStep step, bool details)
{
	Datum		values[STATUS_WORKERS_COLS];
	bool		nulls[STATUS_WORKERS_COLS];
	WorkerProgress w;
	bool		holds;

	progress_worker(shared, index, &w);
	holds = w.unit >= 0;
	memset(values, 0, sizeof(values));
	memset(nulls, false, sizeof(nulls));
	values[SW_WORKER] = Int32GetDatum(index);
	values[SW_PHASE] = CStringGetTextDatum(progress_step_name(step));
	values[SW_STATE] = CStringGetTextDatum(job_state_name(w.state));
	nulls[SW_PID] = w.pid == 0;
	values[SW_PID] = Int32GetDatum(w.pid);
	nulls[SW_LEAF] = !holds || !OidIsValid(w.unit_leaf);
	values[SW_LEAF] = ObjectIdGetDatum(w.unit_leaf);
	/* its own progress: in the chunk or leaf it holds, if any */
	for (int col = SW_CHUNK; col <= SW_PERCENT; col++)
		nulls[col] = !holds;
	values[SW_CHUNK] = Int64GetDatum(w.unit);
	values[SW_DONE] = Int64GetDatum(w.unit_done);
	values[SW_TOTAL] = Int64GetDatum(w.unit_keys);
	values[SW_PERCENT] = Float8GetDatum(status_percent(w.unit_keys > 0 ?
													   (double) w.unit_done / w.unit_keys :
													   0));
	values[SW_ROWS] = Int64GetDatum(w.rows);
	values[SW_DUPLICATES] = Int64GetDatum(w.duplicates);
	values[SW_ROWS_PER_S] = Int64GetDatum((int64) w.rows_per_s);
	values[SW_MB_PER_S] = Float8GetDatum(status_mb(w.bytes_per_s));
	nulls[SW_STARTED] = nulls[SW_ELAPSED] = w.started_at == 0;
	values[SW_STARTED] = TimestampTzGetDatum(w.started_at);
	values[SW_ELAPSED] = status_interval(w.started_at == 0 ? 0 :
										 progress_seconds_since(w.started_at));
	nulls[SW_HEADROOM] = true;
	nulls[SW_REASON] = w.reason[0] == '\0';
	values[SW_REASON] = CStringGetTextDatum(w.reason);
	nulls[SW_LAST_ERROR] = nulls[SW_LAST_ERROR_AT] = w.last_error_at == 0;
	values[SW_LAST_ERROR] = CStringGetTextDatum(w.last_error);
	values[SW_LAST_ERROR_AT] = TimestampTzGetDatum(w.last_error_at);
	nulls[SW_CURRENT_INDEX] = w.current_index[0] == '\0';
	values[SW_CURRENT_INDEX] = CStringGetTextDatum(w.current_index);
	status_put(rsinfo, values, nulls, details);
}

/* Return the rows of status_details() (details) or status_workers(). */
static Datum
status_workers_return(FunctionCallInfo fcinfo, bool details)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	JobDef		def;
	JobProgress p;
	JobShared  *shared;
	dsm_segment *seg;
	PhaseStarts starts;

	options_check_job_arg(fcinfo, "petagen.status_workers()");
	InitMaterializedSRF(fcinfo, 0);
	status_read_job(PG_GETARG_INT64(0), false, &def, &p, &shared, &seg);
	status_phase_starts(def.job, starts);
	for (int i = 0; i < NSTEPS; i++)
		if (p.steps[i].present)
			status_phase_row(rsinfo, &p, starts, i, shared != NULL, details);
	if (shared != NULL)
	{
		for (int i = 0; i < shared->nworkers; i++)
			status_worker_row(rsinfo, shared, i, p.step, details);
		dsm_detach(seg);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(petagen_status_workers);
/* petagen.status_workers(job): a row per phase of the job, then per worker. */
Datum
petagen_status_workers(PG_FUNCTION_ARGS)
{
	return status_workers_return(fcinfo, false);
}

PG_FUNCTION_INFO_V1(petagen_status_details);
/* petagen.status_details(job): status_workers() with every figure. */
Datum
petagen_status_details(PG_FUNCTION_ARGS)
{
	return status_workers_return(fcinfo, true);
}
