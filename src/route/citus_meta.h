/*-------------------------------------------------------------------------
 * citus_meta.h
 *		What petagen reads of Citus's metadata on a Citus node, and how
 *		Citus routes a key of a hash-distributed table to its shard.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_CITUS_META_H
#define PETAGEN_CITUS_META_H

#include "fmgr.h"
#include "utils/relcache.h"

/* One shard of a hash-distributed table: its hash range and where it is. */
typedef struct CitusShard
{
	int64		shardid;
	int32		min;			/* shardminvalue .. shardmaxvalue, inclusive */
	int32		max;
	bool		local;			/* a placement in this node's group */
	char	   *node;			/* "host:port" of a node holding it: this node
								 * for a local shard */
} CitusShard;

/* A hash-distributed table: its shards sorted by range, and its hash. */
typedef struct CitusTable
{
	int			nshards;
	CitusShard *shards;
	int32		group;			/* this node's group (pg_dist_local_group) */
	FmgrInfo	hash;			/* the distribution column type's hash */
	Oid			collation;		/* the distribution column's collation */
} CitusTable;

extern CitusTable *citus_meta_open(Relation rel);
extern int	citus_meta_route(CitusTable *table, Datum key);
extern char *citus_meta_shard_name(const char *relname, int64 shardid);
extern void citus_meta_allow_shard_ddl(void);

#endif							/* PETAGEN_CITUS_META_H */
