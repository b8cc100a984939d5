/*-------------------------------------------------------------------------
 * bench_live.h
 *		A running benchmark announced for petagen.bench_status().  See
 *		bench_live.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_LIVE_H
#define PETAGEN_BENCH_LIVE_H

#include "storage/dsm.h"

extern void bench_live_announce(dsm_segment *seg, int64 run);
extern void bench_live_withdraw(void);

#endif							/* PETAGEN_BENCH_LIVE_H */
