/*-------------------------------------------------------------------------
 * preflight.h
 *		The preflight check of a load: what petagen.check() reports and
 *		petagen.start() refuses on, and the refusals start() and resume()
 *		share.  See preflight.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PREFLIGHT_H
#define PETAGEN_PREFLIGHT_H

#include "nodes/pg_list.h"

#include "job/jobdef.h"

typedef enum CheckSeverity
{
	CHECK_INFO,
	CHECK_WARNING,
	CHECK_ERROR
} CheckSeverity;

/* One row of petagen.check(). */
typedef struct CheckFinding
{
	CheckSeverity severity;
	int			sqlstate;		/* for an error: the errcode start() raises */
	char	   *object;
	char	   *finding;		/* "topic: what was found" */
	char	   *hint;			/* or NULL */
} CheckFinding;

extern List *check_run(const JobDef *def);
extern void check_refuse_errors(const JobDef *def);
extern void check_table_loadable(Oid relid, const GenSpec *spec, int64 rows);
extern void check_no_other_job(Oid relid, int64 except_job);
extern bool check_may_read(Oid relid);
extern char *check_size(double bytes);
extern ErrorData *check_try(void (*fn) (void *arg), void *arg);

#endif							/* PETAGEN_PREFLIGHT_H */
