/*-------------------------------------------------------------------------
 * preflight.h
 *		The preflight check of a load: what petagen.check() reports and
 *		petagen.start() refuses on.  See preflight.c; the refusals are in
 *		refusals.h.
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
extern char *check_size(double bytes);

#endif							/* PETAGEN_PREFLIGHT_H */
