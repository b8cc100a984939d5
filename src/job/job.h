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
/*
 * A leaf job's chunk_rows is the size of its routing ranges, one file each
 * (leafroute.c): by default about four per worker within LEAF_RANGE_ROWS_MIN
 * .. LEAF_RANGE_ROWS_MAX (options.c), and never below the minimum, so that a
 * job of 10^12 keys writes at most 10^8 files (10^6 by default).
 */
#define LEAF_RANGE_ROWS_MIN		10000
#define LEAF_RANGE_ROWS_MAX		1000000

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
/* The method argument of start() and check(). */
typedef enum JobMethod
{
	METHOD_AUTO,
	METHOD_CHUNK,
	METHOD_LEAF
} JobMethod;

/* A leaf job's routing files against the data directory's room for them. */
typedef struct RoutingRoom
{
	double		bytes;			/* the files' bytes */
	double		room;			/* free bytes above the disk reserve */
	int64		files;			/* one per range of chunk_rows keys */
	int64		inodes;			/* free inodes, or -1: no limit */
} RoutingRoom;

extern void method_routing_room(const JobDef *def, int nlocal, RoutingRoom *r);
extern bool method_routing_fits(const RoutingRoom *r);
extern void method_load_job(const JobDef *def, LoadJob *job);

#endif							/* PETAGEN_JOB_H */
