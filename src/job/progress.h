/*-------------------------------------------------------------------------
 * progress.h
 *		A load job's progress over its phases, as status() and
 *		status_workers() show it.  See progress.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PROGRESS_H
#define PETAGEN_PROGRESS_H

#include "job/jobdef.h"
#include "job/ledger.h"

/* The phases of a job, in the order they run. */
typedef enum ProgressStep
{
	STEP_ROUTING,				/* a leaf job's routing: ranges routed */
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
} WorkerProgress;

/* A whole job's progress. */
typedef struct JobProgress
{
	JobState	state;
	ProgressStep step;			/* the phase it is in (NSTEPS: done) */
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

extern const char *progress_step_name(ProgressStep step);
extern void progress_worker(JobShared *shared, int index, WorkerProgress *w);
extern void progress_job(const JobDef *def, JobShared *shared, JobProgress *p);
extern double progress_step_fraction(const StepProgress *s);
extern double progress_seconds_since(TimestampTz since);

#endif							/* PETAGEN_PROGRESS_H */
