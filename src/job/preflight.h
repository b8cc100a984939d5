/*-------------------------------------------------------------------------
 * check.h
 *		The preflight check of a load: what petagen.check() reports and
 *		petagen.start() refuses on.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_CHECK_H
#define PETAGEN_CHECK_H

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

#endif							/* PETAGEN_CHECK_H */
