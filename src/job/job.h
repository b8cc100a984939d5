/*-------------------------------------------------------------------------
 * job.h
 *		What the chapters of a load job share across src/job/: start()'s
 *		and check()'s arguments, the sizes a job may leave out and the
 *		load method of a job (options.c).
 *		The types are in jobdef.h, the catalog statements in ledger.h, the
 *		live state in live.h, the preflight check in preflight.h.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_JOB_H
#define PETAGEN_JOB_H

#include "fmgr.h"

#include "job/jobdef.h"

/* options.c: the sizes of a job */
extern int64 job_last_seq(const JobDef *def);
extern int64 job_reserve(const JobDef *def);

/* options.c: the arguments */
/* The functions that take a job's settings as arguments (jobsettings.h). */
typedef enum JobFunc
{
	JOB_FUNC_START,
	JOB_FUNC_CHECK				/* check() and check_details(): no force */
} JobFunc;

extern const JobSettingDesc job_settings[JOB_NSETTINGS];

extern int	options_position(JobFunc func, JobSetting s);
extern void options_parse(FunctionCallInfo fcinfo, const char *funcname,
						  JobFunc func, JobDef *def);
extern void options_check_method(const JobDef *def);
extern void options_check_job_arg(FunctionCallInfo fcinfo, const char *funcname);
extern int64 options_size_bytes(text *arg, const char *argname);

/* options.c: the load method */
extern void method_load_job(const JobDef *def, LoadJob *job);

#endif							/* PETAGEN_JOB_H */
