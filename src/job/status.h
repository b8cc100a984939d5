/*-------------------------------------------------------------------------
 * status.h
 *		What status() (status.c) shares with status_workers() and
 *		status_details() (status_workers.c): reading a job's progress and
 *		formatting it.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_STATUS_H
#define PETAGEN_STATUS_H

#include "job/progress.h"

extern bool status_read_job(int64 job, bool missing_ok, JobDef *def,
							JobProgress *p, JobShared **shared,
							dsm_segment **seg);
/*
 * Characters of a reason in status() and status_workers(): with it, a row
 * of either fits a 120-column psql screen.
 */
#define STATUS_REASON_MAX	24

extern Datum status_reason(const char *reason);
extern double status_percent(double fraction);
extern Datum status_interval(double seconds);
extern double status_mb(double bytes);

#endif							/* PETAGEN_STATUS_H */
