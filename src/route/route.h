/*-------------------------------------------------------------------------
 * route.h
 *		The leaves of a YCSB-shaped table, local or foreign, and which leaf
 *		PostgreSQL itself would route a key to.
 *
 * A Router lives for one transaction: it holds relcache data of the table
 * and its partitions, all locked with AccessShareLock by route_open().
 * For a hash-distributed Citus table the leaves are its shards, in hash
 * range order: a local one is its shard table (citus_meta_shard_name()), another
 * node's has no relation here (relid InvalidOid); each names the node
 * holding it ("host:port").
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_ROUTE_H
#define PETAGEN_ROUTE_H

/* One leaf of the partition tree (a plain table is its own only leaf). */
typedef struct RouteLeaf
{
	Oid			relid;
	bool		local;			/* a heap table here, not a foreign table */
	Oid			heap_tablespace;	/* resolved: never InvalidOid */
	int64		shardid;		/* a Citus shard, or 0 */
	const char *node;			/* a Citus shard: "host:port" of the node
								 * holding it (this node for a local one) */
} RouteLeaf;

typedef struct Router Router;

/* route_key() of a key that belongs outside a partition given as the table */
#define ROUTE_ELSEWHERE (-2)

extern Router *route_open(Oid relid);
extern Router *route_open_leaf(Oid relid, Oid leafrelid);
extern int	route_nleaves(const Router *router);
extern const RouteLeaf *route_leaf(const Router *router, int leaf);
extern const char *route_leaf_node(const RouteLeaf *leaf);
extern int	route_key(Router *router, Datum key);
extern bool route_is_citus(const Router *router);
extern void route_check_citus_local(const Router *router, Oid relid);
extern void route_close(Router *router);

#endif							/* PETAGEN_ROUTE_H */
