/*-------------------------------------------------------------------------
 * options.h
 *		The arguments of petagen.start() and petagen.check(), by name, and
 *		the rules that derive a job's settings from them.  See options.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_OPTIONS_H
#define PETAGEN_OPTIONS_H

#include "fmgr.h"

#include "job/jobdef.h"
#include "job/sizing.h"

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

#endif							/* PETAGEN_OPTIONS_H */
