/*-------------------------------------------------------------------------
 * frozen.h
 *		Frozen loads: rows written frozen survive an abort or a crash, so a
 *		frozen chunk records an intent before it writes and its leftovers
 *		are removed before it is written again.  See frozen.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_FROZEN_H
#define PETAGEN_FROZEN_H

#include "access/transam.h"
#include "storage/block.h"

#include "gen/spec.h"

/* Where the attempts of one frozen chunk can have left rows. */
typedef struct FrozenIntent
{
	int			nleaves;
	Oid		   *leaves;			/* the local leaves of the table */
	BlockNumber *from_blocks;	/* per leaf: no row of the chunk before it */
	FullTransactionId xid_bound;	/* no attempt of the chunk has an older XID */
} FrozenIntent;

extern void frozen_check(Oid relid, const GenSpec *spec);
extern void frozen_prepare_chunk(int64 job, int64 chunk, Oid relid,
								 int worker, int run, MemoryContext cxt,
								 FrozenIntent *intent);
extern void frozen_lock_leaves(const FrozenIntent *intent);
extern void frozen_forget_chunk(int64 job, int64 chunk);
extern void frozen_repair_job(int64 job);
extern void frozen_free_intent(FrozenIntent *intent);

#endif							/* PETAGEN_FROZEN_H */
