/*-------------------------------------------------------------------------
 * status.c
 *		petagen.status(): one row per job, the screen a DBA \watches: its
 *		phase, a bar and percent of the whole job (progress.c), rate,
 *		elapsed time, ETA, state and reason.  Without an argument it lists
 *		the active jobs (running, stopped) and those that ended in the last
 *		hour.  Cheap enough for \watch 1.  A row fits a 120-column psql
 *		screen: the reason is cut to STATUS_REASON_MAX characters (the whole
 *		of it is in status_details()).  status_workers.c shows the phases
 *		and workers of one job.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "job/ledger.h"
#include "job/live.h"
#include "job/progress.h"
#include "job/status.h"

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
Datum
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
double
status_percent(double fraction)
{
	return floor(Min(Max(fraction, 0.0), 1.0) * 1000.0) / 10.0;
}

/* Bytes as megabytes rounded to one decimal. */
double
status_mb(double bytes)
{
	return rint(bytes / 1048576.0 * 10.0) / 10.0;
}

/* An interval of whole seconds, at most STATUS_MAX_SECONDS. */
Datum
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
	values[i++] = CStringGetTextDatum(progress_step_name(p->step));
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
bool
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
