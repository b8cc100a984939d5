/*-------------------------------------------------------------------------
 * bench_targets.h
 *		The target of a benchmark: the leaves it works on, resolved from
 *		bench()'s arguments and checked.  See bench_targets.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_TARGETS_H
#define PETAGEN_BENCH_TARGETS_H

#include "fmgr.h"

#include "bench/bench_run.h"

extern void bench_resolve_target(BenchDef *def, FunctionCallInfo fcinfo);

#endif							/* PETAGEN_BENCH_TARGETS_H */
