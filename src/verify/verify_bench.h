/*-------------------------------------------------------------------------
 * verify_bench.h
 *		Why petagen.verify(job) finds extra rows: the rows that benchmark
 *		runs inserted.  See verify_bench.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_BENCH_H
#define PETAGEN_VERIFY_BENCH_H

#include "job/jobdef.h"

extern void verify_note_bench_inserts(const JobDef *job, const char *table,
									  int64 extra);

#endif							/* PETAGEN_VERIFY_BENCH_H */
