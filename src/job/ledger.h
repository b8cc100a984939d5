/*-------------------------------------------------------------------------
 * ledger.h
 *		Every statement petagen runs on petagen.jobs, petagen.chunks and
 *		petagen.progress_log: the job rows (ledger.c) and the chunks and
 *		progress of a running load, and the Citus shards a job writes on
 *		this node (all in ledger.c).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEDGER_H
#define PETAGEN_LEDGER_H

#include "job/jobdef.h"
#include "load/load.h"

/* What the ledger and the job row say about a job's progress. */
typedef struct LedgerSummary
{
	int64		keys;			/* sums over every chunk of every run */
	int64		rows;
	int64		bytes;
	int64		duplicates;
	double		run_seconds;	/* the last run, start to finish; 0 if unknown */
	double		run_rows;		/* rows and bytes of the last run */
	double		run_bytes;
	char		last_error[JOB_TEXT_LEN];
	TimestampTz last_error_at;	/* 0 if none */
	TimestampTz started_at;		/* the first run's start; 0 if none */
	TimestampTz finished_at;	/* the last run's end; 0 if none */
	int64		logged_keys;	/* the most keys progress_log ever showed done */
	char		failed_sqlstate[6]; /* the last failure's SQLSTATE; "" if none */
	int32		retries;		/* petagen.auto_retry's retries so far */
	TimestampTz next_retry_at;	/* 0 if none, DT_NOEND if never */
} LedgerSummary;

/*
 * A failed job, or an interrupted one whose resume was refused, that
 * petagen.auto_retry's launcher has to look at.
 */
typedef struct LedgerFailedJob
{
	int64		job;
	Oid			owner;
	int			sqlerrcode;		/* the failure's SQLSTATE */
	char		error[JOB_TEXT_LEN];
	int32		retries;
	bool		scheduled;		/* a retry is due (else none is decided) */
	bool		interrupted;	/* running in the catalog: a resume refused */
} LedgerFailedJob;

/* ledger.c: the job rows */
extern bool job_read(int64 job, JobDef *def, bool missing_ok);
extern int64 *ledger_running_job_ids(int *njobs);
extern int64 *ledger_listed_job_ids(int *njobs);
extern int64 *ledger_resumable_tokens(int *ntokens);
extern int64 ledger_newest_job_of(Oid relid);
extern bool ledger_running_conflict(Oid relid, int64 except_job,
									int64 *other_job, Oid *other_relid);
extern int64 ledger_written_since(Oid relid, int64 job, Oid *other_relid);
extern void ledger_insert_job(JobDef *def);
extern void ledger_set_handle(int64 job, dsm_handle handle);
extern void ledger_resume_run(JobDef *def, bool fresh_retries);
extern void ledger_alter_job(int64 job, int32 nworkers, int64 max_rate,
							 int64 disk_reserve);
extern void ledger_mark_stopped(int64 job);
extern void ledger_record_end(int64 job, int32 run, const char *state,
							  const char *error, int sqlerrcode);
extern void ledger_lock_job(int64 job);
extern LedgerFailedJob *ledger_failed_jobs(int *njobs);
extern void ledger_set_retry(int64 job, int32 retries, TimestampTz next);
extern void ledger_record_refusal(int64 job, int sqlerrcode, const char *error);
extern void ledger_delete_job(int64 job, int64 *chunks, int64 *progress);
extern char *ledger_record_interruption(int64 job, const char *reason);
extern void ledger_interruption(int64 job, char *buf, Size len);

/* ledger.c: the chunks and the progress log */
extern void ledger_summary(int64 job, LedgerSummary *sum);
extern void ledger_record_chunk(const JobDef *def, int32 worker, int64 chunk,
								Oid leaf, const LoadStats *st);
extern void ledger_log_progress(int64 job, const LoadStats *live,
								const char *phase);
extern void ledger_done_chunks(int64 job, int64 nchunks, uint8 *done);
extern int64 ledger_moved_leaf(int64 job, const Oid *leaves, int nleaves,
							   Oid *was);
extern int64 ledger_count_chunks(int64 job);
extern int64 ledger_chunk_bound(int64 job);

/* ledger.c: the Citus shards of a job */
extern void citus_shards_record(int64 job, Oid relid);
extern void citus_shards_check(int64 job, Oid relid);

#endif							/* PETAGEN_LEDGER_H */
