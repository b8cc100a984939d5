/*-------------------------------------------------------------------------
 * citus_shards.h
 *		The Citus shards a load job writes on this node: recorded by
 *		start(), checked by every chunk before it commits.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_CITUS_SHARDS_H
#define PETAGEN_CITUS_SHARDS_H

extern void citus_shards_record(int64 job, Oid relid);
extern void citus_shards_check(int64 job, Oid relid);

#endif							/* PETAGEN_CITUS_SHARDS_H */
