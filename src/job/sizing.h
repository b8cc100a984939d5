/*-------------------------------------------------------------------------
 * sizing.h
 *		The sizes of a load job: its chunks, its default chunk size and the
 *		disk reserve in force (sizing.c).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_SIZING_H
#define PETAGEN_SIZING_H

#include "job/jobdef.h"

/*
 * A leaf job's chunk_rows is the size of its routing ranges, one file each
 * (leafroute.c): by default about four per worker within LEAF_RANGE_ROWS_MIN
 * .. LEAF_RANGE_ROWS_MAX (sizing.c), and never below the minimum, so that a
 * job of 10^12 keys writes at most 10^8 files (10^6 by default).
 */
#define LEAF_RANGE_ROWS_MIN		10000
#define LEAF_RANGE_ROWS_MAX		1000000

extern int64 job_last_seq(const JobDef *def);
extern int64 job_default_chunk_rows(const JobDef *def);
extern int64 job_reserve(const JobDef *def);

#endif							/* PETAGEN_SIZING_H */
