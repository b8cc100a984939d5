/*-------------------------------------------------------------------------
 * sampling.h
 *		When a load job adds a row to petagen.progress_log.  See sampling.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_SAMPLING_H
#define PETAGEN_SAMPLING_H

#include "job/jobdef.h"

extern bool sampling_claim(JobShared *shared, double done);
extern void sampling_phase_changed(JobShared *shared);

#endif							/* PETAGEN_SAMPLING_H */
