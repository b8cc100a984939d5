/*-------------------------------------------------------------------------
 * preflight.h
 *		The preflight check of a load: what petagen.check() reports and
 *		petagen.start() refuses on.  See preflight.c; a finding is in
 *		finding.h, the refusals start() and resume() share in refusals.h.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PREFLIGHT_H
#define PETAGEN_PREFLIGHT_H

#include "nodes/pg_list.h"

#include "job/jobdef.h"

extern List *check_run(const JobDef *def);
extern void check_refuse_errors(const JobDef *def);

#endif							/* PETAGEN_PREFLIGHT_H */
