/*-------------------------------------------------------------------------
 * verify_bench.h
 *		Why petagen.verify(job) finds extra rows: the rows that benchmark
 *		runs inserted.  See verify_bench.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_BENCH_H
#define PETAGEN_VERIFY_BENCH_H

#include "job/jobdef.h"
#include "route/route.h"

extern bool verify_bench_ignore_arg(text *arg);
/* Called with each row left out: its leaf and its key's text, len bytes. */
typedef void (*VerifyIgnoreFn) (void *arg, int leaf, const char *key, int len);

extern int64 verify_bench_ignored(const JobDef *job, Router *router,
								  VerifyIgnoreFn fn, void *arg);
extern void verify_note_ignored(const JobDef *job, int64 runs, int64 ignored);
extern void verify_note_bench_inserts(const JobDef *job, const char *table,
									  int64 extra);

#endif							/* PETAGEN_VERIFY_BENCH_H */
