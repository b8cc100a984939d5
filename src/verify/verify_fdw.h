/*-------------------------------------------------------------------------
 * verify_fdw.h
 *		Probing the keys of a remote leaf (foreign, or a Citus shard on
 *		another node) in batches, one remote query per batch, for
 *		petagen.verify().
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_FDW_H
#define PETAGEN_VERIFY_FDW_H

typedef struct FdwProbe FdwProbe;

extern FdwProbe *fdwprobe_open(Oid relid);
extern void fdwprobe_add(FdwProbe *probe, Datum key);
extern void fdwprobe_finish(FdwProbe *probe, int64 *found, int64 *missing);

#endif							/* PETAGEN_VERIFY_FDW_H */
