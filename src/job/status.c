/*-------------------------------------------------------------------------
 * status.c
 *		petagen.status(): a row per worker and a total row per job, from
 *		the live shared state while a run is going and from the catalog and
 *		the ledger afterwards.  Cheap enough for \watch 1.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "job/ledger.h"
#include "job/live.h"
#include "load/indexes.h"

#define STATUS_COLS		23
#define STATUS_BAR_LEN	20
/* Longest ETA shown (about 31,700 years): keeps the interval in range. */
#define STATUS_MAX_SECONDS	1e12

/* One status row before it becomes a tuple. */
typedef struct StatusRow
{
	int64		job;
	int			worker;			/* -1: the total row */
	JobState	state;
	int			pid;
	int64		keys_done;
	int64		keys_total;
	int64		rows;
	int64		duplicates;
	int64		bytes;
	double		recent_rows_per_s;
	double		recent_bytes_per_s;
	double		avg_rows_per_s;
	double		avg_bytes_per_s;
	double		eta_s;			/* < 0: unknown */
	int64		headroom;		/* < 0: unknown */
	char		reason[JOB_TEXT_LEN];
	char		last_error[JOB_TEXT_LEN];
	TimestampTz last_error_at;	/* 0: none */
	JobPhase	phase;
	int64		indexes_built;	/* < 0: not shown (worker rows) */
	int64		indexes_total;
	char		current_index[JOB_TEXT_LEN];
} StatusRow;

/* Seconds from `since` to now. */
static double
status_seconds_since(TimestampTz since)
{
	long		secs;
	int			usecs;

	TimestampDifference(since, GetCurrentTimestamp(), &secs, &usecs);
	return secs + usecs / 1e6;
}

/* A text progress bar for a fraction 0..1. */
static text *
status_bar(double fraction)
{
	char		bar[STATUS_BAR_LEN + 3];
	int			filled = (int) (Min(Max(fraction, 0.0), 1.0) * STATUS_BAR_LEN);

	bar[0] = '[';
	for (int i = 0; i < STATUS_BAR_LEN; i++)
		bar[i + 1] = i < filled ? '#' : '.';
	bar[STATUS_BAR_LEN + 1] = ']';
	bar[STATUS_BAR_LEN + 2] = '\0';
	return cstring_to_text(bar);
}

/* An interval of whole seconds, at most STATUS_MAX_SECONDS. */
static Interval *
status_interval(double seconds)
{
	Interval   *iv = palloc0(sizeof(Interval));

	seconds = Min(Max(seconds, 0), STATUS_MAX_SECONDS);
	iv->time = (TimeOffset) rint(seconds) * USECS_PER_SEC;
	return iv;
}

/* A value rounded to one decimal. */
static double
status_round1(double v)
{
	return rint(v * 10.0) / 10.0;
}

/* Add a StatusRow to the result tuplestore. */
static void
status_emit(ReturnSetInfo *rsinfo, const StatusRow *r)
{
	Datum		values[STATUS_COLS];
	bool		nulls[STATUS_COLS];
	double		fraction = r->keys_total > 0 ? (double) r->keys_done / r->keys_total : 0;
	int			i = 0;

	/* while indexing, the bar shows the indexes built */
	if (r->phase == PHASE_INDEXING && r->indexes_total > 0)
		fraction = (double) r->indexes_built / r->indexes_total;

	memset(nulls, false, sizeof(nulls));
	values[i++] = Int64GetDatum(r->job);
	nulls[i] = r->worker < 0;
	values[i++] = Int32GetDatum(r->worker);
	values[i++] = CStringGetTextDatum(job_state_name(r->state));
	nulls[i] = r->pid == 0;
	values[i++] = Int32GetDatum(r->pid);
	values[i++] = Int64GetDatum(r->keys_done);
	values[i++] = Int64GetDatum(r->keys_total);
	values[i++] = Int64GetDatum(r->rows);
	values[i++] = Int64GetDatum(r->duplicates);
	values[i++] = Float8GetDatum(status_round1(fraction * 100.0));
	values[i++] = PointerGetDatum(status_bar(fraction));
	values[i++] = Int64GetDatum((int64) r->recent_rows_per_s);
	values[i++] = Float8GetDatum(status_round1(r->recent_bytes_per_s / 1048576.0));
	values[i++] = Int64GetDatum((int64) r->avg_rows_per_s);
	values[i++] = Float8GetDatum(status_round1(r->avg_bytes_per_s / 1048576.0));
	nulls[i] = r->eta_s < 0;
	values[i++] = IntervalPGetDatum(status_interval(r->eta_s));
	nulls[i] = r->headroom < 0;
	values[i++] = r->headroom < 0 ? (Datum) 0 :
		DirectFunctionCall1(pg_size_pretty, Int64GetDatum(r->headroom));
	nulls[i] = r->reason[0] == '\0';
	values[i++] = CStringGetTextDatum(r->reason);
	nulls[i] = r->last_error[0] == '\0';
	values[i++] = CStringGetTextDatum(r->last_error);
	nulls[i] = r->last_error_at == 0;
	values[i++] = TimestampTzGetDatum(r->last_error_at);
	values[i++] = CStringGetTextDatum(job_phase_name(r->phase));
	nulls[i] = r->indexes_built < 0;
	values[i++] = Int32GetDatum((int32) r->indexes_built);
	nulls[i] = r->indexes_built < 0;
	values[i++] = Int32GetDatum((int32) r->indexes_total);
	nulls[i] = r->current_index[0] == '\0';
	values[i++] = CStringGetTextDatum(r->current_index);
	Assert(i == STATUS_COLS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * A live worker's recent rates: what it wrote since the sample it published
 * at rate_at over the time since then (worker.c keeps that sample one to
 * two windows old while it writes, so a paused worker's rates fall to 0).
 * A worker that has ended writes nothing; rows rolled back count as 0.
 */
static void
status_recent_rates(StatusRow *r, TimestampTz rate_at, int64 rate_rows,
					int64 rate_bytes)
{
	double		window;

	if (r->state >= JOB_DONE || rate_at == 0)
		return;
	window = status_seconds_since(rate_at);
	if (window <= 0)
		return;
	r->recent_rows_per_s = Max(r->rows - rate_rows, 0) / window;
	r->recent_bytes_per_s = Max(r->bytes - rate_bytes, 0) / window;
}

/* The status row of one worker slot. */
static void
status_worker_row(const JobDef *def, WorkerSlot *slot, int index, StatusRow *r)
{
	double		elapsed = status_seconds_since(slot->started_at);
	TimestampTz rate_at;
	int64		rate_rows;
	int64		rate_bytes;

	memset(r, 0, sizeof(*r));
	r->job = def->job;
	r->worker = index;
	r->state = pg_atomic_read_u32(&slot->state);
	if (r->state != JOB_STARTING && r->state < JOB_DONE && !job_worker_alive(slot))
		r->state = JOB_INTERRUPTED;
	r->pid = slot->pid;
	r->keys_done = pg_atomic_read_u64(&slot->keys);
	r->keys_total = -1;
	r->rows = pg_atomic_read_u64(&slot->rows);
	r->bytes = pg_atomic_read_u64(&slot->bytes);
	r->duplicates = pg_atomic_read_u64(&slot->duplicates);
	if (slot->started_at != 0 && elapsed > 0)
	{
		r->avg_rows_per_s = r->rows / elapsed;
		r->avg_bytes_per_s = r->bytes / elapsed;
	}
	r->eta_s = -1;
	r->headroom = -1;
	SpinLockAcquire(&slot->mutex);
	rate_at = slot->rate_at;
	rate_rows = slot->rate_rows;
	rate_bytes = slot->rate_bytes;
	strlcpy(r->reason, slot->reason, JOB_TEXT_LEN);
	strlcpy(r->last_error, slot->last_error, JOB_TEXT_LEN);
	r->last_error_at = slot->last_error_at;
	strlcpy(r->current_index, slot->current_index, JOB_TEXT_LEN);
	SpinLockRelease(&slot->mutex);
	r->indexes_built = -1;
	status_recent_rates(r, rate_at, rate_rows, rate_bytes);
}

/* Fold a worker row into the total row. */
static void
status_add_worker(StatusRow *total, const StatusRow *w)
{
	total->keys_done += w->keys_done;
	total->rows += w->rows;
	total->bytes += w->bytes;
	total->duplicates += w->duplicates;
	total->recent_rows_per_s += w->recent_rows_per_s;
	total->recent_bytes_per_s += w->recent_bytes_per_s;
	if (w->last_error_at > total->last_error_at)
	{
		strlcpy(total->last_error, w->last_error, JOB_TEXT_LEN);
		total->last_error_at = w->last_error_at;
	}
	if (total->reason[0] == '\0')
		strlcpy(total->reason, w->reason, JOB_TEXT_LEN);
}

/* Emit the rows of a job whose run is live, from its shared state. */
static void
status_live(ReturnSetInfo *rsinfo, const JobDef *def, JobShared *shared)
{
	StatusRow	total;
	StatusRow	w;
	double		elapsed = status_seconds_since(shared->started_at);
	int64		run_keys;

	memset(&total, 0, sizeof(total));
	total.job = def->job;
	total.worker = -1;
	total.state = job_total_state(shared);
	total.keys_total = def->rows;
	total.phase = pg_atomic_read_u32(&shared->phase);
	indexes_progress(def->job, &total.indexes_built, &total.indexes_total);
	for (int i = 0; i < shared->nworkers; i++)
	{
		status_worker_row(def, &shared->workers[i], i, &w);
		w.keys_total = def->rows;
		w.phase = total.phase;
		status_emit(rsinfo, &w);
		status_add_worker(&total, &w);
	}
	run_keys = total.keys_done;
	total.keys_done += shared->base_keys;
	total.rows += shared->base_rows;
	if (elapsed > 0)
	{
		total.avg_rows_per_s = (total.rows - shared->base_rows) / elapsed;
		total.avg_bytes_per_s = total.bytes / elapsed;
	}
	total.eta_s = run_keys > 0 ?
		(def->rows - total.keys_done) / (run_keys / Max(elapsed, 0.001)) : -1;
	total.headroom = (int64) Min(pg_atomic_read_u64(&shared->headroom),
								 (uint64) PG_INT64_MAX);
	if (total.headroom == PG_INT64_MAX)
		total.headroom = -1;
	status_emit(rsinfo, &total);
}

/* Emit the total row of a job that is not running, from catalog and ledger. */
static void
status_from_catalog(ReturnSetInfo *rsinfo, const JobDef *def, JobState state)
{
	StatusRow	total;
	LedgerSummary sum;

	memset(&total, 0, sizeof(total));
	total.job = def->job;
	total.worker = -1;
	total.state = state;
	total.keys_total = def->rows;
	total.eta_s = -1;
	total.headroom = -1;
	ledger_summary(def->job, &sum);
	total.keys_done = sum.keys;
	total.rows = sum.rows;
	total.duplicates = sum.duplicates;
	strlcpy(total.last_error, sum.last_error, JOB_TEXT_LEN);
	total.last_error_at = sum.last_error_at;
	if (state == JOB_INTERRUPTED)
		ledger_interruption(def->job, total.reason, JOB_TEXT_LEN);
	/* averages of the last run */
	if (sum.run_seconds > 0)
	{
		total.avg_rows_per_s = sum.run_rows / sum.run_seconds;
		total.avg_bytes_per_s = sum.run_bytes / sum.run_seconds;
	}
	indexes_progress(def->job, &total.indexes_built, &total.indexes_total);
	/* a run that ended with the heaps complete but indexes unbuilt was indexing */
	if (state == JOB_DONE)
		total.phase = PHASE_DONE;
	else if (total.keys_done >= def->rows && total.indexes_built < total.indexes_total)
		total.phase = PHASE_INDEXING;
	else
		total.phase = PHASE_LOADING;
	status_emit(rsinfo, &total);
}

/* Emit the status rows of one job; nothing if it is gone and missing_ok. */
static void
status_job(ReturnSetInfo *rsinfo, int64 job, bool missing_ok)
{
	JobDef		def;
	dsm_segment *seg;
	JobShared  *shared;

	if (!job_read(job, &def, missing_ok))
		return;
	shared = strcmp(def.state, "running") == 0 ? job_attach(&def, &seg) : NULL;
	if (shared != NULL)
	{
		status_live(rsinfo, &def, shared);
		dsm_detach(seg);
	}
	else
		status_from_catalog(rsinfo, &def, job_current_state(&def));
}

PG_FUNCTION_INFO_V1(petagen_status);
/* petagen.status(job): progress of one job, or of every job when NULL. */
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
		jobs = ledger_job_ids(false, &njobs);
	/* a job asked for by number must exist; one listed may be gone since */
	for (int i = 0; i < njobs; i++)
		status_job(rsinfo, jobs[i], PG_ARGISNULL(0));
	return (Datum) 0;
}
