/*-------------------------------------------------------------------------
 * progress.c
 *		A load job's progress over its phases, for status() (one row per
 *		job) and status_workers() (its phases and workers): from the live
 *		shared state while a run goes, from catalog and ledger otherwise.
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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "job/live.h"
#include "job/options.h"
#include "job/progress.h"
#include "load/load.h"

/*
 * The time a phase takes per key, relative to loading: measured on
 * PostgreSQL 18 (docs/operating.md, "Watching a load"), a leaf job of 1e6 rows
 * routed in 0.3 s and wrote its leaves in 19 s; a chunk job of 1e6 rows
 * with indexes => 'after' loaded in 13.7 s and built its 9 indexes in
 * 11.8 s.
 */
static const double step_weights[NSTEPS] = {0.02, 1.0, 0.8};

static const char *const step_names[NSTEPS + 1] = {
	"routing", "loading", "indexing", "done"
};

/* The name status() shows for a phase (NSTEPS: "done"). */
const char *
progress_step_name(ProgressStep step)
{
	return step_names[step];
}

/* Seconds from `since` to now. */
double
progress_seconds_since(TimestampTz since)
{
	long		secs;
	int			usecs;

	TimestampDifference(since, GetCurrentTimestamp(), &secs, &usecs);
	return secs + usecs / 1e6;
}

/* The fraction of a phase done, 0..1 (0 if unknown). */
double
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
 * rate_at over the time since then (worker_slot.c keeps that sample one to
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
void
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
	SpinLockRelease(&slot->mutex);
	w->unit_done = Max(w->keys - unit_base, 0);
	progress_recent_rates(w, rate_at, rate_rows, rate_bytes);
}

/*
 * What status() shows in `reason`: why the job is paused, throttled or
 * held (a worker's reason), how it failed, or when and why it was
 * interrupted (as the auto-resume launcher recorded it).
 */
static void
progress_reason(const JobDef *def, JobProgress *p, const char *worker_reason)
{
	if (worker_reason != NULL && worker_reason[0] != '\0')
		strlcpy(p->reason, worker_reason, JOB_TEXT_LEN);
	else if (p->state == JOB_FAILED)
		strlcpy(p->reason, p->sum.last_error, JOB_TEXT_LEN);
	else if (p->state == JOB_INTERRUPTED)
		ledger_interruption(def->job, p->reason, JOB_TEXT_LEN);
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
	p->steps[STEP_ROUTING].done = Max(claimed - (int64) routing, 0);
	if (shared->base_keys > 0)
		p->steps[STEP_ROUTING].done = p->steps[STEP_ROUTING].total;
	p->steps[STEP_LOADING].done = Min(keys, def->rows);
	if (phase == PHASE_DONE)
		progress_complete_before(p, NSTEPS);
	else if (phase == PHASE_INDEXING)
		progress_complete_before(p, STEP_INDEXING);
	else if (def->method->prepare_unit && routing > 0)
		progress_complete_before(p, STEP_ROUTING);
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
	start[STEP_ROUTING].done = base_keys > 0 ? start[STEP_ROUTING].total : 0;
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
	}
	/* a worker gone while others run says so before any worker's reason */
	if (dead >= 0 && p->state != JOB_INTERRUPTED)
		snprintf(first_reason, JOB_TEXT_LEN,
				 "worker %d exited: the others go on without its chunk, which a resume loads",
				 dead);
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
		p->steps[STEP_ROUTING].done = -1;
		progress_complete_before(p, STEP_ROUTING);
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
void
progress_job(const JobDef *def, JobShared *shared, JobProgress *p)
{
	memset(p, 0, sizeof(*p));
	p->rows_per_s = -1;
	p->bytes_per_s = -1;
	p->eta_s = -1;
	p->headroom = -1;
	ledger_summary(def->job, &p->sum);
	p->steps[STEP_ROUTING].present = def->method->prepare_unit != NULL;
	p->steps[STEP_ROUTING].total = load_nchunks(def->rows, def->chunk_rows);
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
