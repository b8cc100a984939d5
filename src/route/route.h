/*-------------------------------------------------------------------------
 * route.h
 *		The leaves of a YCSB-shaped table, local or foreign, and which leaf
 *		PostgreSQL itself would route a key to.
 *
 * A Router lives for one transaction: it holds relcache data of the table
 * and its partitions, all locked with AccessShareLock by route_open().
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
} RouteLeaf;

typedef struct Router Router;

/* route_key() of a key that belongs outside a partition given as the table */
#define ROUTE_ELSEWHERE (-2)

extern Router *route_open(Oid relid);
extern int	route_nleaves(const Router *router);
extern const RouteLeaf *route_leaf(const Router *router, int leaf);
extern const char *route_leaf_node(const RouteLeaf *leaf);
extern int	route_key(Router *router, Datum key);
extern void route_close(Router *router);

#endif							/* PETAGEN_ROUTE_H */
