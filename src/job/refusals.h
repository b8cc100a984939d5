/*-------------------------------------------------------------------------
 * refusals.h
 *		The refusals petagen.start() and petagen.resume() share.  See
 *		refusals.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_REFUSALS_H
#define PETAGEN_REFUSALS_H

#include "job/jobdef.h"

extern void check_table_loadable(Oid relid, const GenSpec *spec,
								 int64 last_seq);
extern void check_no_other_job(Oid relid, int64 except_job);
extern bool check_may_read(Oid relid);
extern ErrorData *check_try(void (*fn) (void *arg), void *arg);

#endif							/* PETAGEN_REFUSALS_H */
