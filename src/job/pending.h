/*-------------------------------------------------------------------------
 * pending.h
 *		The runs start() and resume() launch when their transaction
 *		commits.  See pending.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PENDING_H
#define PETAGEN_PENDING_H

#include "job/jobdef.h"

extern dsm_segment *pending_create_segment(Size size);
extern bool pending_has_job(int64 job);
extern void pending_launch(dsm_segment *seg, const WorkerArgs *args, int nworkers);

#endif							/* PETAGEN_PENDING_H */
