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
/* start()'s arguments in SQL order; check() takes all but force. */
typedef enum StartArg
{
	START_ARG_ROWS,
	START_ARG_WORKERS,
	START_ARG_TABLE,
	START_ARG_KEYS,
	START_ARG_SEED,
	START_ARG_FIELDLENGTH,
	START_ARG_PREFIX,
	START_ARG_ZEROPADDING,
	START_ARG_CHUNK_ROWS,		/* NULL: job_default_chunk_rows() */
	START_ARG_DISK_RESERVE,		/* NULL: the petagen.disk_reserve setting;
								 * else at least that */
	START_ARG_MAX_RATE,			/* NULL: no cap */
	START_ARG_FROZEN,
	START_ARG_INDEXES,
	START_ARG_FORCE,
	START_ARG_METHOD,
	START_ARG_FIELDLENGTHDISTRIBUTION,
	START_ARG_MINFIELDLENGTH,
	START_ARG_FIRST,			/* YCSB's insertstart */
	START_NARGS
} StartArg;

/*
 * check() takes no force: its method argument is where start() has force,
 * and each argument after it one place earlier than start()'s.
 */
#define CHECK_ARG_METHOD START_ARG_FORCE

extern void options_parse(FunctionCallInfo fcinfo, const char *funcname,
						  StartArg method_arg, JobDef *def);
extern void options_check_method(const JobDef *def);
extern void options_check_not_null(FunctionCallInfo fcinfo, StartArg arg,
								   const char *funcname);
extern void options_check_job_arg(FunctionCallInfo fcinfo, const char *funcname);
extern int64 options_size_bytes(text *arg, const char *argname);

/* options.c: the load method */
extern void method_load_job(const JobDef *def, LoadJob *job);

#endif							/* PETAGEN_JOB_H */
