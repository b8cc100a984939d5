/*-------------------------------------------------------------------------
 * preflight_int.h
 *		The finding functions preflight.c calls in report order from
 *		preflight_space.c and preflight_keys.c, and the one the key probe
 *		takes from the estimates.  Not for use outside the preflight
 *		check; see preflight.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_PREFLIGHT_INT_H
#define PETAGEN_PREFLIGHT_INT_H

#include "job/finding.h"

extern int64 check_sample_seq(const JobDef *def, int64 n, int64 i);
extern void check_sample(CheckCtx *ctx);
extern void check_leaves(CheckCtx *ctx);
extern double check_wal_total(const CheckCtx *ctx);
extern void check_spaces(CheckCtx *ctx);
extern void check_probe(CheckCtx *ctx);
extern void check_keys(CheckCtx *ctx);
extern void check_leaves_nonempty(CheckCtx *ctx);

#endif							/* PETAGEN_PREFLIGHT_INT_H */
