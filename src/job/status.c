/*-------------------------------------------------------------------------
 * status.c
 *		What a DBA sees of load jobs, in one file read from top to bottom:
 *		petagen.status(), then status_workers() and status_details(), then
 *		the progress of a job over its phases they all show.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "job/job.h"
#include "job/ledger.h"
#include "job/live.h"
#include "launch.h"
#include "load/load.h"
#include "petagen.h"

/* The phases of a job, in the order they run. */
typedef enum ProgressStep
{
	STEP_PREPARING,				/* the method's preparing phase (a leaf job's
								 * routing): units prepared */
	STEP_LOADING,				/* keys loaded */
	STEP_INDEXING,				/* indexes => 'after': indexes built */
	NSTEPS
} ProgressStep;

/* One phase's progress. */
typedef struct StepProgress
{
	bool		present;		/* the job has this phase */
	int64		done;
	int64		total;
} StepProgress;

/* One worker's progress, from its slot. */
typedef struct WorkerProgress
{
	JobState	state;
	int			pid;
	TimestampTz started_at;
	int64		keys;			/* this run */
	int64		rows;
	int64		bytes;
	int64		duplicates;
	double		rows_per_s;		/* recent */
	double		bytes_per_s;
	int64		unit;			/* chunk or leaf number written, or -1 */
	int64		unit_done;		/* its keys done */
	int64		unit_keys;
	Oid			unit_leaf;
	char		reason[JOB_TEXT_LEN];
	char		last_error[JOB_TEXT_LEN];
	TimestampTz last_error_at;
	char		current_index[JOB_TEXT_LEN];
	char		activity[JOB_TEXT_LEN]; /* how it writes its unit, or "" */
	TimestampTz replaced_at;	/* its dead predecessor's replacement, or 0 */
} WorkerProgress;

/* A whole job's progress. */
typedef struct JobProgress
{
	JobState	state;
	ProgressStep step;			/* the phase it is in (NSTEPS: done) */
	const LoadMethod *method;	/* the job's: it names the preparing phase */
	StepProgress steps[NSTEPS];
	double		fraction;		/* of the whole job, 0..1 */
	double		rows_per_s;		/* < 0: unknown */
	double		bytes_per_s;
	double		elapsed_s;		/* < 0: unknown */
	double		eta_s;			/* < 0: unknown */
	int64		rows;
	int64		duplicates;
	int64		headroom;		/* < 0: unknown */
	char		reason[JOB_TEXT_LEN];
	LedgerSummary sum;
} JobProgress;

/*
 * Characters of a reason in status() and status_workers(): with it, a row
 * of either fits a 120-column psql screen.
 */
#define STATUS_REASON_MAX	24

/* A job's progress (the last part of this file). */
static const char *progress_step_name(const JobProgress *p,
									  ProgressStep step);
static void progress_worker(JobShared *shared, int index, WorkerProgress *w);
static void progress_job(const JobDef *def, JobShared *shared, JobProgress *p);
static double progress_step_fraction(const StepProgress *s);
static double progress_seconds_since(TimestampTz since);

/*
 * Reading and formatting it for status() and status_workers().
 * status_read_job() is not inlined: inlined, gcc sees a path where
 * job_read() returns false although missing_ok is false (it raises an
 * error then) and warns that the caller's shared is left unset.
 */
static pg_noinline bool status_read_job(int64 job, bool missing_ok,
										JobDef *def, JobProgress *p,
										JobShared **shared, dsm_segment **seg);
static Datum status_reason(const char *reason);
static double status_percent(double fraction);
static Datum status_interval(double seconds);
static double status_mb(double bytes);

/*
 * --------------------------------------------------------------------
 * petagen.status(): one row per job, the screen a DBA \watches: its
 * phase, a bar and percent of the whole job (the last part of this file), rate,
 * elapsed time, ETA, state and reason.  Without an argument it lists
 * the active jobs (running, stopped) and those that ended in the last
 * hour.  Cheap enough for \watch 1.  A row fits a 120-column psql
 * screen: the reason is cut to STATUS_REASON_MAX characters (the whole
 * of it is in status_details()).  status_workers() shows the phases
 * and workers of one job.
 * --------------------------------------------------------------------
 */

#define STATUS_COLS		9
#define STATUS_BAR_LEN	10
/* Longest interval shown (about 31,700 years): keeps the interval in range. */
#define STATUS_MAX_SECONDS	1e12

/*
 * A bar and percent for a fraction 0..1: "#####.....  50.0%" (no brackets:
 * with a 120-column budget for status(), the dots mark the bar's extent).
 */
static text *
status_bar(double fraction)
{
	char		bar[STATUS_BAR_LEN + 16];
	int			filled;

	fraction = Min(Max(fraction, 0.0), 1.0);
	filled = (int) (fraction * STATUS_BAR_LEN);
	for (int i = 0; i < STATUS_BAR_LEN; i++)
		bar[i] = i < filled ? '#' : '.';
	snprintf(bar + STATUS_BAR_LEN, sizeof(bar) - STATUS_BAR_LEN,
			 " %5.1f%%", status_percent(fraction));
	return cstring_to_text(bar);
}

/*
 * A reason as status() and status_workers() show it: cut to
 * STATUS_REASON_MAX characters, ending in "..." if it was longer.
 */
static Datum
status_reason(const char *reason)
{
	int			len = strlen(reason);

	if (pg_mbstrlen_with_len(reason, len) <= STATUS_REASON_MAX)
		return CStringGetTextDatum(reason);
	return CStringGetTextDatum(psprintf("%.*s...",
										pg_mbcharcliplen(reason, len, STATUS_REASON_MAX - 3),
										reason));
}

/* A fraction 0..1 as a percent rounded down to 0.1: 100 only when done. */
static double
status_percent(double fraction)
{
	return floor(Min(Max(fraction, 0.0), 1.0) * 1000.0) / 10.0;
}

/* Bytes as megabytes rounded to one decimal. */
static double
status_mb(double bytes)
{
	return rint(bytes / 1048576.0 * 10.0) / 10.0;
}

/* An interval of whole seconds, at most STATUS_MAX_SECONDS. */
static Datum
status_interval(double seconds)
{
	Interval   *iv = palloc0(sizeof(Interval));

	seconds = Min(Max(seconds, 0), STATUS_MAX_SECONDS);
	iv->time = (TimeOffset) rint(seconds) * USECS_PER_SEC;
	return IntervalPGetDatum(iv);
}

/* Rows per second in a short human form: "950/s", "12.3k/s", "1.2M/s". */
static text *
status_rate(double rows_per_s)
{
	static const char *const units[] = {"", "k", "M", "G", "T"};
	int			u = 0;

	while (rows_per_s >= 999.95 && u < lengthof(units) - 1)
	{
		rows_per_s /= 1000.0;
		u++;
	}
	if (u == 0)
		return cstring_to_text(psprintf("%.0f/s", rows_per_s));
	return cstring_to_text(psprintf("%.1f%s/s", rows_per_s, units[u]));
}

/* Add the status row of def's job, whose progress is p. */
static void
status_emit(ReturnSetInfo *rsinfo, const JobDef *def, const JobProgress *p)
{
	Datum		values[STATUS_COLS];
	bool		nulls[STATUS_COLS];
	int			i = 0;

	memset(nulls, false, sizeof(nulls));
	values[i++] = Int64GetDatum(def->job);
	values[i++] = ObjectIdGetDatum(def->relid);
	values[i++] = CStringGetTextDatum(progress_step_name(p, p->step));
	values[i++] = PointerGetDatum(status_bar(p->fraction));
	nulls[i] = p->rows_per_s < 0;
	values[i++] = p->rows_per_s < 0 ? (Datum) 0 :
		PointerGetDatum(status_rate(p->rows_per_s));
	nulls[i] = p->elapsed_s < 0;
	values[i++] = status_interval(p->elapsed_s);
	nulls[i] = p->eta_s < 0;
	values[i++] = status_interval(p->eta_s);
	values[i++] = CStringGetTextDatum(job_state_name(p->state));
	nulls[i] = p->reason[0] == '\0';
	values[i++] = status_reason(p->reason);
	Assert(i == STATUS_COLS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Read def's job and its progress into p; false if it is gone and
 * missing_ok.  With a live run, *shared is its state (detach *seg), else
 * NULL.
 */
static bool
status_read_job(int64 job, bool missing_ok, JobDef *def, JobProgress *p,
				JobShared **shared, dsm_segment **seg)
{
	if (!job_read(job, def, missing_ok))
		return false;
	*shared = strcmp(def->state, "running") == 0 ? job_attach(def, seg) : NULL;
	progress_job(def, *shared, p);
	return true;
}

/* Add the status row of one job; nothing if it is gone and missing_ok. */
static void
status_job(ReturnSetInfo *rsinfo, int64 job, bool missing_ok)
{
	JobDef		def;
	JobProgress p;
	JobShared  *shared;
	dsm_segment *seg;

	if (!status_read_job(job, missing_ok, &def, &p, &shared, &seg))
		return;
	if (shared != NULL)
		dsm_detach(seg);
	status_emit(rsinfo, &def, &p);
}

PG_FUNCTION_INFO_V1(petagen_status);
/* petagen.status(job): one job, or the active and recently ended ones. */
Datum
petagen_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64	   *jobs;
	int			njobs = 1;

	InitMaterializedSRF(fcinfo, 0);
	if (!PG_ARGISNULL(0))
	{
		jobs = palloc(sizeof(int64));
		jobs[0] = PG_GETARG_INT64(0);
	}
	else
		jobs = ledger_listed_job_ids(&njobs);
	/* a job asked for by number must exist; one listed may be gone since */
	for (int i = 0; i < njobs; i++)
		status_job(rsinfo, jobs[i], PG_ARGISNULL(0));
	return (Datum) 0;
}

/*
 * --------------------------------------------------------------------
 * petagen.status_details(job): the detail behind one status() row.
 * First a row per phase the job has (worker IS NULL: routing,
 * loading, indexing, in order) with that phase's own progress and
 * when it began, then, while a run is live, a row per worker with its
 * own progress: the chunk, or leaf, it writes and how far it got.
 * petagen.status_workers(job) shows the same rows in the columns a
 * 120-column psql screen holds: the chunk or leaf as one `unit`, the
 * percent, rows, rate and the reason cut as status() cuts it.
 *
 * A phase began at its first progress_log row (workers log one as each
 * phase begins: worker.c); it lasted until the next phase began, or the
 * job ended.
 * --------------------------------------------------------------------
 */

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
	SW_WAITS,
	SW_BOUND,
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
status_phase_starts(const JobProgress *p, int64 job, PhaseStarts starts)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;
	uint64		n;

	memset(starts, 0, sizeof(PhaseStarts));
	catalog_connect(&scope, false);
	/* a 0.1 catalog's progress_log has no phase */
	n = catalog_exec(psprintf("SELECT %s, min(logged_at)"
							  " FROM petagen.progress_log l WHERE job = $1 GROUP BY 1",
							  catalog_version() >= CATALOG_V0_2 ? "phase" : "NULL::text"),
					 1, types, values, NULL, SPI_OK_SELECT);
	for (uint64 row = 0; row < n; row++)
	{
		char	   *phase = catalog_text(row, Anum_phase_start_phase, CurrentMemoryContext);
		bool		isnull;
		Datum		at = catalog_value(row, Anum_phase_start_at, &isnull);

		/* a method without a preparing phase has no name for it */
		for (int i = 0; i < NSTEPS && phase != NULL; i++)
			if (progress_step_name(p, i) != NULL &&
				strcmp(phase, progress_step_name(p, i)) == 0)
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
 * reason (narrow_reason instead, if not NULL) cut to STATUS_REASON_MAX
 * characters.
 */
static void
status_put(ReturnSetInfo *rsinfo, Datum *values, bool *nulls, bool details,
		   const char *narrow_reason)
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
		else if (col == SW_REASON && narrow_reason != NULL)
		{
			narrow[i] = status_reason(narrow_reason);
			narrow_nulls[i] = false;
		}
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
	values[SW_PHASE] = CStringGetTextDatum(progress_step_name(p, step));
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
	status_put(rsinfo, values, nulls, details, NULL);
}

/* Add the row of worker `index` of a live run in p's phase. */
static void
status_worker_row(ReturnSetInfo *rsinfo, JobShared *shared, int index,
				  const JobProgress *p, bool details)
{
	Datum		values[STATUS_WORKERS_COLS];
	bool		nulls[STATUS_WORKERS_COLS];
	WorkerProgress w;
	bool		holds;
	WaitProfile waits;
	char	   *limits;

	progress_worker(shared, index, &w);
	memset(&waits, 0, sizeof(waits));
	if (w.state < JOB_DONE)
		waits_read(&shared->workers[index], &waits);
	limits = waits_limits_text(&waits);
	holds = w.unit >= 0;
	memset(values, 0, sizeof(values));
	memset(nulls, false, sizeof(nulls));
	values[SW_WORKER] = Int32GetDatum(index);
	values[SW_PHASE] = CStringGetTextDatum(progress_step_name(p, p->step));
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
	/* why it waits, else how it writes its unit (not the job's reason) */
	nulls[SW_REASON] = w.reason[0] == '\0' && w.activity[0] == '\0';
	values[SW_REASON] = CStringGetTextDatum(w.reason[0] ? w.reason : w.activity);
	nulls[SW_LAST_ERROR] = nulls[SW_LAST_ERROR_AT] = w.last_error_at == 0;
	values[SW_LAST_ERROR] = CStringGetTextDatum(w.last_error);
	values[SW_LAST_ERROR_AT] = TimestampTzGetDatum(w.last_error_at);
	nulls[SW_CURRENT_INDEX] = w.current_index[0] == '\0';
	values[SW_CURRENT_INDEX] = CStringGetTextDatum(w.current_index);
	nulls[SW_WAITS] = nulls[SW_BOUND] = limits == NULL;
	if (limits != NULL)
	{
		values[SW_WAITS] = CStringGetTextDatum(waits_events_text(&waits));
		values[SW_BOUND] = CStringGetTextDatum(waits_limit_name(waits_bound(&waits)));
	}
	/* status_workers(): why it waits, else its waits, else how it writes */
	status_put(rsinfo, values, nulls, details,
			   w.reason[0] == '\0' && limits != NULL ? limits : NULL);
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
	status_phase_starts(&p, def.job, starts);
	for (int i = 0; i < NSTEPS; i++)
		if (p.steps[i].present)
			status_phase_row(rsinfo, &p, starts, i, shared != NULL, details);
	if (shared != NULL)
	{
		for (int i = 0; i < shared->nworkers; i++)
			status_worker_row(rsinfo, shared, i, &p, details);
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

/*
 * --------------------------------------------------------------------
 * What the cluster's status reads of a node's job (cluster_status()):
 * what its workers wait on, and its rate over the last minute, both from
 * the live state (waits.c).
 * --------------------------------------------------------------------
 */

/* Attach the live run of job, or NULL if it has none (or no such job). */
static JobShared *
status_attach_live(int64 job, JobDef *def, dsm_segment **seg)
{
	if (!job_read(job, def, true) || strcmp(def->state, "running") != 0)
		return NULL;
	return job_attach(def, seg);
}

PG_FUNCTION_INFO_V1(petagen_job_waits);
/*
 * petagen._job_waits(job): what the live workers of job waited on lately,
 * all together, as shares of the limits: "data writes 70% CPU 30%"; NULL
 * without a live worker.
 */
Datum
petagen_job_waits(PG_FUNCTION_ARGS)
{
	JobDef		def;
	dsm_segment *seg;
	JobShared  *shared = status_attach_live(PG_GETARG_INT64(0), &def, &seg);
	WaitProfile waits;
	char	   *shares;

	if (shared == NULL)
		PG_RETURN_NULL();
	memset(&waits, 0, sizeof(waits));
	for (int i = 0; i < shared->nworkers; i++)
		if (pg_atomic_read_u32(&shared->workers[i].state) < JOB_DONE &&
			job_worker_alive(&shared->workers[i]))
			waits_read(&shared->workers[i], &waits);
	dsm_detach(seg);
	shares = waits_limits_text(&waits);
	if (shares == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(shares));
}

PG_FUNCTION_INFO_V1(petagen_recent_rate);
/*
 * petagen._recent_rate(job, seconds): the rows per second job's live run
 * wrote over the last `seconds`; NULL if it has not loaded that long.
 */
Datum
petagen_recent_rate(PG_FUNCTION_ARGS)
{
	JobDef		def;
	dsm_segment *seg;
	JobShared  *shared = status_attach_live(PG_GETARG_INT64(0), &def, &seg);
	double		window = PG_GETARG_FLOAT8(1);
	double		rate = -1;

	if (shared == NULL)
		PG_RETURN_NULL();
	if (window > 0 && pg_atomic_read_u32(&shared->phase) == PHASE_LOADING)
		rate = history_rate(shared, window);
	dsm_detach(seg);
	if (rate < 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(rate);
}

/*
 * --------------------------------------------------------------------
 * A load job's progress over its phases, for status() (one row per
 * job) and status_workers() (its phases and workers): from the live
 * shared state while a run goes, from catalog and ledger otherwise.
 *
 * A job runs its phases in order: routing (method 'leaf': the key ranges
 * routed), loading (the key numbers loaded) and indexing (indexes =>
 * 'after': the set-aside indexes built).  Each phase's fraction done only
 * grows while it runs and is 1 once a later phase began, so the whole
 * job's fraction, the phases' fractions weighted by the share of a load's
 * time each takes (STEP_WEIGHTS) and divided by the weights of the phases
 * the job has, never goes back.  A run that continues a job which loaded
 * keys before counts its routing done, as status() did before it began:
 * a resumed leaf job routes again, but its progress does not go back.  The
 * ETA of the whole job extrapolates the whole fraction gained in this run
 * over the run's time, while the run makes progress: none while its
 * workers are paused or starting, or load nothing.
 *
 * Only work a stop or crash rolls back goes: the keys of the chunks or
 * leaves in flight, which status() counts while they are written.  A job
 * without a live run says so in its reason when progress_log shows more
 * keys done than its ledger (at least that many were rolled back).
 * --------------------------------------------------------------------
 */

/*
 * The time a phase takes per key, relative to loading: measured on
 * PostgreSQL 18 (docs/operating.md, "Watching a load"), a leaf job of 1e6 rows
 * routed in 0.3 s and wrote its leaves in 19 s; a chunk job of 1e6 rows
 * with indexes => 'after' loaded in 13.7 s and built its 9 indexes in
 * 11.8 s.
 */
static const double step_weights[NSTEPS] = {0.02, 1.0, 0.8};

/* The phases after the preparing one, which p's method names. */
static const char *const step_names[NSTEPS + 1] = {
	NULL, "loading", "indexing", "done"
};

/* The name status() shows for a phase of p's job (NSTEPS: "done"). */
static const char *
progress_step_name(const JobProgress *p, ProgressStep step)
{
	if (step == STEP_PREPARING)
		return p->method->prepare_name;
	return step_names[step];
}

/* Seconds from `since` to now. */
static double
progress_seconds_since(TimestampTz since)
{
	long		secs;
	int			usecs;

	TimestampDifference(since, GetCurrentTimestamp(), &secs, &usecs);
	return secs + usecs / 1e6;
}

/* The fraction of a phase done, 0..1 (0 if unknown). */
static double
progress_step_fraction(const StepProgress *s)
{
	if (s->total <= 0 || s->done < 0)
		return s->total == 0 && s->done == 0 ? 1.0 : 0.0;
	return Min((double) s->done / s->total, 1.0);
}

/* The whole job's fraction done from its phases' (see the banner). */
static double
progress_weighted(const StepProgress *steps)
{
	double		sum = 0;
	double		weights = 0;

	for (int i = 0; i < NSTEPS; i++)
	{
		if (!steps[i].present)
			continue;
		sum += step_weights[i] * progress_step_fraction(&steps[i]);
		weights += step_weights[i];
	}
	return weights > 0 ? sum / weights : 0;
}

/* Mark the phases before `step` complete. */
static void
progress_complete_before(JobProgress *p, ProgressStep step)
{
	p->step = step;
	for (int i = 0; i < step && i < NSTEPS; i++)
		p->steps[i].done = p->steps[i].total;
}

/*
 * A worker's recent rates: what it wrote since the sample it published at
 * rate_at over the time since then (worker.c keeps that sample one to
 * two windows old while it writes, so a paused worker's rates fall to 0).  A
 * worker that has ended writes nothing; rows rolled back count as 0.
 */
static void
progress_recent_rates(WorkerProgress *w, TimestampTz rate_at, int64 rate_rows,
					  int64 rate_bytes)
{
	double		window;

	if (w->state >= JOB_DONE || rate_at == 0)
		return;
	window = progress_seconds_since(rate_at);
	if (window <= 0)
		return;
	w->rows_per_s = Max(w->rows - rate_rows, 0) / window;
	w->bytes_per_s = Max(w->bytes - rate_bytes, 0) / window;
}

/* Read worker `index`'s slot of a live run into w. */
static void
progress_worker(JobShared *shared, int index, WorkerProgress *w)
{
	WorkerSlot *slot = &shared->workers[index];
	TimestampTz rate_at;
	int64		rate_rows;
	int64		rate_bytes;
	int64		unit_base;

	memset(w, 0, sizeof(*w));
	w->state = pg_atomic_read_u32(&slot->state);
	if (w->state != JOB_STARTING && w->state < JOB_DONE && !job_worker_alive(slot))
		w->state = JOB_INTERRUPTED;
	w->pid = slot->pid;
	w->started_at = slot->started_at;
	w->keys = pg_atomic_read_u64(&slot->keys);
	w->rows = pg_atomic_read_u64(&slot->rows);
	w->bytes = pg_atomic_read_u64(&slot->bytes);
	w->duplicates = pg_atomic_read_u64(&slot->duplicates);
	SpinLockAcquire(&slot->mutex);
	rate_at = slot->rate_at;
	rate_rows = slot->rate_rows;
	rate_bytes = slot->rate_bytes;
	w->unit = slot->unit;
	unit_base = slot->unit_base_keys;
	w->unit_keys = slot->unit_keys;
	w->unit_leaf = slot->unit_leaf;
	strlcpy(w->reason, slot->reason, JOB_TEXT_LEN);
	strlcpy(w->last_error, slot->last_error, JOB_TEXT_LEN);
	w->last_error_at = slot->last_error_at;
	strlcpy(w->current_index, slot->current_index, JOB_TEXT_LEN);
	strlcpy(w->activity, slot->activity, JOB_TEXT_LEN);
	w->replaced_at = slot->replaced_at;
	SpinLockRelease(&slot->mutex);
	w->unit_done = Max(w->keys - unit_base, 0);
	progress_recent_rates(w, rate_at, rate_rows, rate_bytes);
}

/*
 * How a failed job failed, or why an interrupted job's resume was refused,
 * and, with petagen.auto_retry, when the launcher retries it (session
 * time) or why it does not; palloc'd.
 */
static char *
progress_retry_note(const LedgerSummary *sum)
{
	const char *code = sum->failed_sqlstate;
	char		when[16];
	pg_time_t	t;

	if (sum->next_retry_at == 0)
		return pstrdup(sum->last_error);
	if (sum->next_retry_at != DT_NOEND)
	{
		t = timestamptz_to_time_t(sum->next_retry_at);
		pg_strftime(when, sizeof(when), "%H:%M:%S", pg_localtime(&t, session_timezone));
		return psprintf("retry %d of %d at %s after: %s", sum->retries + 1,
						Max(petagen_auto_retry, sum->retries + 1), when,
						sum->last_error);
	}
	if (strlen(code) == 5 &&
		autoretry_transient(MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4])))
		return psprintf("not retried: %d retries spent", sum->retries);
	return psprintf("not retried: %s (permanent)", sum->last_error);
}

/*
 * Into p->reason: when and why an interrupted job was interrupted (as the
 * auto-resume launcher recorded it) and, if the launcher's resume was
 * refused, why and what comes next.
 */
static void
progress_interruption(const JobDef *def, JobProgress *p)
{
	char	   *note;

	ledger_interruption(def->job, p->reason, JOB_TEXT_LEN);
	if (p->sum.failed_sqlstate[0] == '\0')
		return;
	note = progress_retry_note(&p->sum);
	if (p->reason[0] != '\0')
		strlcat(p->reason, "; ", JOB_TEXT_LEN);
	strlcat(p->reason, note, JOB_TEXT_LEN);
	pfree(note);
}

/*
 * What status() shows in `reason`: why the job is paused, throttled or
 * held (a worker's reason), how it failed, or when and why it was
 * interrupted (as the auto-resume launcher recorded it).
 */
static void
progress_reason(const JobDef *def, JobProgress *p, const char *worker_reason)
{
	char	   *note;

	if (worker_reason != NULL && worker_reason[0] != '\0')
		strlcpy(p->reason, worker_reason, JOB_TEXT_LEN);
	else if (p->state == JOB_FAILED)
	{
		note = progress_retry_note(&p->sum);
		strlcpy(p->reason, note, JOB_TEXT_LEN);
		pfree(note);
	}
	else if (p->state == JOB_INTERRUPTED)
		progress_interruption(def, p);
}

/*
 * Add to a job's reason the keys a stop, failure or crash rolled back: at
 * least the keys progress_log showed done beyond those its ledger holds.
 */
static void
progress_rolled_back(JobProgress *p)
{
	int64		lost = p->sum.logged_keys - p->sum.keys;
	char	   *note;

	if (lost <= 0 || p->state == JOB_DONE)
		return;
	note = psprintf("at least " INT64_FORMAT " keys written were rolled back; resume() writes them again",
					lost);
	if (p->reason[0] == '\0')
		strlcpy(p->reason, note, JOB_TEXT_LEN);
	else
		strlcpy(p->reason, psprintf("%s; %s", p->reason, note), JOB_TEXT_LEN);
}

/*
 * Put first in reason that worker `worker` died and the launcher, within
 * seconds, started another in its place at `at` (session time zone).
 */
static void
progress_replaced(char *reason, int worker, TimestampTz at)
{
	pg_time_t	t = timestamptz_to_time_t(at);
	char		when[16];
	char	   *note;

	pg_strftime(when, sizeof(when), "%H:%M:%S", pg_localtime(&t, session_timezone));
	if (reason[0] == '\0')
		note = psprintf("worker %d died: restarted at %s", worker, when);
	else
		note = psprintf("worker %d died: restarted at %s; %s", worker, when, reason);
	strlcpy(reason, note, JOB_TEXT_LEN);
	pfree(note);
}

/* The phase a live run is in, and its phases' progress. */
static void
progress_live_steps(const JobDef *def, JobShared *shared, JobProgress *p,
					int64 keys)
{
	uint32		routing = pg_atomic_read_u32(&shared->routing);
	int64		claimed = Min((int64) pg_atomic_read_u64(&shared->next_range),
							  shared->nranges);
	JobPhase	phase = pg_atomic_read_u32(&shared->phase);

	/* a worker still routing holds at most one claimed range unfinished */
	p->steps[STEP_PREPARING].done = Max(claimed - (int64) routing, 0);
	if (shared->base_keys > 0)
		p->steps[STEP_PREPARING].done = p->steps[STEP_PREPARING].total;
	p->steps[STEP_LOADING].done = Min(keys, def->rows);
	if (phase == PHASE_DONE)
		progress_complete_before(p, NSTEPS);
	else if (phase == PHASE_INDEXING)
		progress_complete_before(p, STEP_INDEXING);
	else if (def->method->prepare_unit && routing > 0)
		progress_complete_before(p, STEP_PREPARING);
	else
		progress_complete_before(p, STEP_LOADING);
}

/*
 * The whole fraction as a run began: base_keys loaded, and routed if any
 * were, nothing else.
 */
static double
progress_at_run_start(const StepProgress *steps, int64 base_keys)
{
	StepProgress start[NSTEPS];

	memcpy(start, steps, sizeof(start));
	start[STEP_PREPARING].done = base_keys > 0 ? start[STEP_PREPARING].total : 0;
	start[STEP_LOADING].done = base_keys;
	start[STEP_INDEXING].done = 0;
	return progress_weighted(start);
}

/*
 * Is a live run making progress: a worker runs or is throttled, and while
 * loading writes rows?
 */
static bool
progress_advancing(const JobProgress *p)
{
	if (p->state != JOB_RUNNING && p->state != JOB_THROTTLED)
		return false;
	return p->step != STEP_LOADING || p->rows_per_s > 0;
}

/* The progress of a job whose run is live, from its shared state. */
static void
progress_live(const JobDef *def, JobShared *shared, JobProgress *p)
{
	WorkerProgress w;
	double		run_s = progress_seconds_since(shared->started_at);
	double		at_start;
	const char *reason = NULL;
	char		first_reason[JOB_TEXT_LEN] = "";
	int			dead = -1;
	int			replaced = -1;
	TimestampTz replaced_at = 0;
	int64		keys = shared->base_keys;

	p->state = job_total_state(shared);
	p->rows = shared->base_rows;
	p->rows_per_s = 0;
	p->bytes_per_s = 0;
	for (int i = 0; i < shared->nworkers; i++)
	{
		progress_worker(shared, i, &w);
		keys += w.keys;
		p->rows += w.rows;
		p->duplicates += w.duplicates;
		p->rows_per_s += w.rows_per_s;
		p->bytes_per_s += w.bytes_per_s;
		if (first_reason[0] == '\0')
			strlcpy(first_reason, w.reason, JOB_TEXT_LEN);
		if (dead < 0 && w.state == JOB_INTERRUPTED)
			dead = i;
		if (w.replaced_at > replaced_at)
		{
			replaced = i;
			replaced_at = w.replaced_at;
		}
	}
	/* a worker gone while others run says so before any worker's reason */
	if (dead >= 0 && p->state != JOB_INTERRUPTED)
		snprintf(first_reason, JOB_TEXT_LEN,
				 "worker %d exited: the others go on without its chunk, which a resume loads",
				 dead);
	else if (replaced >= 0 && p->state != JOB_INTERRUPTED)
		progress_replaced(first_reason, replaced, replaced_at);
	p->duplicates += p->sum.duplicates;
	progress_live_steps(def, shared, p, keys);
	/* rows are written while loading only: no rate to show otherwise */
	if (p->step != STEP_LOADING)
		p->rows_per_s = p->bytes_per_s = -1;
	if (first_reason[0] != '\0')
		reason = first_reason;
	progress_reason(def, p, reason);
	p->headroom = (int64) Min(pg_atomic_read_u64(&shared->headroom),
							  (uint64) PG_INT64_MAX);
	if (p->headroom == PG_INT64_MAX)
		p->headroom = -1;
	p->fraction = progress_weighted(p->steps);
	at_start = progress_at_run_start(p->steps, shared->base_keys);
	if (!progress_advancing(p))
		return;
	if (p->fraction > at_start + 1e-9 && run_s > 0)
		p->eta_s = (1.0 - p->fraction) * run_s / (p->fraction - at_start);
}

/* The progress of a job with no live run, from catalog and ledger. */
static void
progress_catalog(const JobDef *def, JobProgress *p)
{
	p->state = job_current_state(def);
	p->rows = p->sum.rows;
	p->duplicates = p->sum.duplicates;
	p->steps[STEP_LOADING].done = Min(p->sum.keys, def->rows);
	/* a leaf job's routing files are not counted: known done once it loaded */
	if (p->state == JOB_DONE)
		progress_complete_before(p, NSTEPS);
	else if (p->sum.keys >= def->rows && def->indexes_after)
		progress_complete_before(p, STEP_INDEXING);
	else if (p->sum.keys > 0 || def->method->prepare_unit == NULL)
		progress_complete_before(p, STEP_LOADING);
	else
	{
		p->steps[STEP_PREPARING].done = -1;
		progress_complete_before(p, STEP_PREPARING);
	}
	if (p->sum.run_seconds > 0 && p->sum.run_rows > 0)
	{
		p->rows_per_s = p->sum.run_rows / p->sum.run_seconds;
		p->bytes_per_s = p->sum.run_bytes / p->sum.run_seconds;
	}
	if (p->state == JOB_DONE)
		p->eta_s = 0;
	progress_reason(def, p, NULL);
	progress_rolled_back(p);
	p->fraction = progress_weighted(p->steps);
}

/* The time from the job's first start to its end, or to now if it has none. */
static double
progress_elapsed(const JobProgress *p, bool live)
{
	long		secs;
	int			usecs;

	if (p->sum.started_at == 0)
		return -1;
	if (live || p->sum.finished_at == 0)
		return progress_seconds_since(p->sum.started_at);
	TimestampDifference(p->sum.started_at, p->sum.finished_at, &secs, &usecs);
	return secs + usecs / 1e6;
}

/*
 * The progress of def's job into p: from shared, its run's live state, or
 * (NULL) from the catalog and ledger.
 */
static void
progress_job(const JobDef *def, JobShared *shared, JobProgress *p)
{
	memset(p, 0, sizeof(*p));
	p->rows_per_s = -1;
	p->bytes_per_s = -1;
	p->eta_s = -1;
	p->headroom = -1;
	ledger_summary(def->job, &p->sum);
	p->method = def->method;
	p->steps[STEP_PREPARING].present = def->method->prepare_unit != NULL;
	p->steps[STEP_PREPARING].total = load_nchunks(def->rows, def->chunk_rows);
	p->steps[STEP_LOADING].present = true;
	p->steps[STEP_LOADING].total = def->rows;
	p->steps[STEP_INDEXING].present = def->indexes_after;
	if (def->indexes_after)
		indexes_progress(def->job, &p->steps[STEP_INDEXING].done,
						 &p->steps[STEP_INDEXING].total);
	if (shared != NULL)
		progress_live(def, shared, p);
	else
		progress_catalog(def, p);
	p->elapsed_s = progress_elapsed(p, shared != NULL);
}
