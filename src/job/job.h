/*-------------------------------------------------------------------------
 * job.h
 *		Who may act on load jobs: the privilege checks of start(), stop(),
 *		resume() and wait() (job.c) that alter() (alter.c) shares.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_JOB_H
#define PETAGEN_JOB_H

#include "job/jobdef.h"

extern void job_check_operator(void);
extern void job_check_owner(const JobDef *def, const char *funcname);

#endif							/* PETAGEN_JOB_H */
