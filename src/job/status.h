/*-------------------------------------------------------------------------
 * status.h
 *		What status() (status.c) shares with status_workers()
 *		(status_workers.c): reading a job's progress and formatting it.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_STATUS_H
#define PETAGEN_STATUS_H

#include "job/progress.h"

extern bool status_read_job(int64 job, bool missing_ok, JobDef *def,
							JobProgress *p, JobShared **shared,
							dsm_segment **seg);
extern double status_percent(double fraction);
extern Datum status_interval(double seconds);
extern double status_mb(double bytes);

#endif							/* PETAGEN_STATUS_H */
