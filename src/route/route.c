/*-------------------------------------------------------------------------
 * route.c
 *		The leaves of a YCSB-shaped table, local or foreign, and which leaf
 *		PostgreSQL itself would route a key to.
 *
 * A table is a plain table, a foreign table, or a partitioned table whose
 * partition key is the column ycsb_key at every level (HASH, LIST or RANGE,
 * any depth, default partitions allowed), of the key's own type: text (a
 * text or varchar key), int or bigint (an integer key, keys.c).  route_open() walks the partition
 * tree depth-first in partition-bound order, collects its leaves and builds
 * one RouteNode per partitioned table.  route_key() must give exactly the
 * leaf PostgreSQL's own tuple routing gives, so it mirrors
 * get_partition_for_tuple() of execPartition.c (static there):
 *
 *	- HASH: compute_partition_hash_value() over the key's support function,
 *	  then boundinfo->indexes[hash % nindexes];
 *	- LIST: partition_list_bsearch(), a partition only on an equal datum;
 *	- RANGE: partition_range_datum_bsearch() returns the greatest bound <= key,
 *	  so the key's partition is the one whose upper bound is the next one,
 *	  indexes[offset + 1] (upper bounds are exclusive, MINVALUE/MAXVALUE are
 *	  bound kinds the search handles);
 *	- no partition found: boundinfo->default_index, which may be -1;
 *	- a partitioned partition: the same again one level down.
 *
 * Keys are never NULL, so the null partition of LIST is never consulted.
 *
 * A hash-distributed Citus table (citus_meta.c) has no partitions: its
 * leaves are its shards, and route_key() is Citus's own shard routing.
 *
 * A partition as the table (a leaf, or a partitioned partition): a key
 * belongs to it only if PostgreSQL, routing from the root of the partition
 * tree, would put it in a leaf of the partition's subtree.  route_open()
 * then also builds a node for every ancestor, whose other partitions are
 * ROUTE_ELSEWHERE (neither opened nor locked), and route_key() gives
 * ROUTE_ELSEWHERE for a key that lands outside the subtree, or that no
 * partition of an ancestor accepts: such a key is another table's, not an
 * error.  The leaves are only those of the subtree, so loading every leaf
 * separately writes exactly what loading the root writes.
 * Detached-pending partitions are left out exactly when the executor leaves
 * them out (below REPEATABLE READ).
 *
 * route_open_leaf() builds the same for one leaf of a table (a partition
 * under it, or a local shard of a Citus table): its only leaf is that one,
 * and route_key() tells whether a key belongs there, with no other leaf
 * opened or locked, so that a worker holding its leaf locked can
 * check its keys against the bounds as they are now without waiting for
 * the leaves other workers hold.
 *
 * Locking: every partitioned table and every leaf is locked with
 * AccessShareLock, kept until transaction end.  The partitioned tables stay
 * open until route_close(), because each RouteNode points into their
 * relcache entries (partition key and bounds), which the relcache keeps
 * stable while a relation is open.  route_key() does no catalog access and
 * allocates nothing itself.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "catalog.h"
#include "route/citus_meta.h"
#include "compat.h"
#include "gen/shape.h"
#include "guard.h"
#include "route/route.h"

#define ROUTE_HINT "petagen routes by the column ycsb_key: partition by HASH, LIST or RANGE (ycsb_key) at every level."

typedef struct RouteNode RouteNode;

/* Where one partition of a partitioned table leads. */
typedef struct RouteTarget
{
	RouteNode  *node;			/* a partitioned partition, or NULL */
	int			leaf;			/* else a leaf in Router.leaves, or
								 * ROUTE_ELSEWHERE */
} RouteTarget;

/* One partitioned table: what get_partition_for_tuple() reads. */
struct RouteNode
{
	char		strategy;		/* PARTITION_STRATEGY_HASH, _LIST, _RANGE */
	FmgrInfo   *partsupfunc;	/* in the relcache entry's partition key */
	Oid		   *partcollation;
	PartitionBoundInfo boundinfo;	/* in the relcache entry's partdesc */
	RouteTarget *targets;		/* one per partition index */
	bool		ancestor;		/* above the table: no partition is elsewhere */
};

/* The leaves of one table and the routing nodes of its partitioned tables. */
struct Router
{
	MemoryContext mcxt;			/* holds the Router and everything it built */
	RouteNode  *root;			/* NULL for a plain or foreign table */
	RouteLeaf  *leaves;
	int			nleaves;
	int			maxleaves;
	List	   *open_rels;		/* partitioned tables, closed by route_close */
	CitusTable *citus;			/* a Citus table's shards, or NULL */
	int			only_shard;		/* route_open_leaf() of a shard: its index in
								 * citus->shards, else -1 */
};

static RouteNode *route_build_node(Router *router, Relation rel);

/* Error unless a relkind is a table petagen can route into. */
static void
route_check_relkind(Relation rel)
{
	char		relkind = rel->rd_rel->relkind;

	if (relkind != RELKIND_RELATION && relkind != RELKIND_FOREIGN_TABLE &&
		relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel)),
				 errdetail_relkind_not_supported(relkind),
				 errhint("petagen writes into plain, partitioned and foreign tables.")));
}

/* The type keys of table relid are routed as: text, int4 or int8. */
static Oid
route_key_type(Oid relid)
{
	return keys_type(shape_key_kind(relid));
}

/* Error unless a partitioned table is partitioned by its column ycsb_key. */
static void
route_check_key(Relation rel, PartitionKey key)
{
	AttrNumber	attnum = get_attnum(RelationGetRelid(rel), "ycsb_key");

	if (key->partnatts != 1 || key->partattrs[0] == InvalidAttrNumber ||
		key->partattrs[0] != attnum)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is not partitioned by the column ycsb_key",
						RelationGetRelationName(rel)),
				 errdetail("Its partition key is (%s).",
						   pg_get_partkeydef_columns(RelationGetRelid(rel), false)),
				 errhint(ROUTE_HINT)));
	if (key->partopcintype[0] != route_key_type(RelationGetRelid(rel)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("table \"%s\" is partitioned by ycsb_key as type %s",
						RelationGetRelationName(rel),
						format_type_be(key->partopcintype[0])),
				 errdetail("Keys are routed as text, int or bigint, so ycsb_key must be text or varchar with a text operator class, or int or bigint with an operator class of its own type."),
				 errhint(ROUTE_HINT)));
}

/* Append a leaf (an open relation) to the router; its index. */
static int
route_add_leaf(Router *router, Relation rel)
{
	RouteLeaf  *leaf;

	if (router->nleaves == router->maxleaves)
	{
		router->maxleaves *= 2;
		router->leaves = repalloc(router->leaves,
								  router->maxleaves * sizeof(RouteLeaf));
	}
	leaf = &router->leaves[router->nleaves];
	leaf->relid = RelationGetRelid(rel);
	leaf->local = rel->rd_rel->relkind == RELKIND_RELATION;
	leaf->heap_tablespace = OidIsValid(rel->rd_rel->reltablespace) ?
		rel->rd_rel->reltablespace : MyDatabaseTableSpace;
	leaf->shardid = 0;
	leaf->node = NULL;
	return router->nleaves++;
}

/* Lock and open the shard table of a local Citus shard, as a leaf. */
static void
route_add_local_shard(Router *router, Relation shell, const CitusShard *shard)
{
	char	   *name = citus_meta_shard_name(RelationGetRelationName(shell),
											 shard->shardid);
	Oid			relid = get_relname_relid(name, RelationGetNamespace(shell));
	Relation	rel;
	RouteLeaf  *leaf;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("shard table \"%s\" of Citus table \"%s\" is missing on this node",
						name, RelationGetRelationName(shell)),
				 errdetail("pg_dist_placement places shard " INT64_FORMAT " in this node's group.",
						   shard->shardid),
				 errhint("Check the Citus metadata with citus_shards on the coordinator.")));
	rel = table_open(relid, AccessShareLock);
	route_check_relkind(rel);
	leaf = &router->leaves[route_add_leaf(router, rel)];
	leaf->shardid = shard->shardid;
	leaf->node = shard->node;
	table_close(rel, NoLock);
}

/* One leaf per shard of a Citus table, in hash range order. */
static void
route_add_shards(Router *router, Relation shell)
{
	router->maxleaves = Max(router->citus->nshards, 1);
	router->leaves = repalloc(router->leaves, router->maxleaves * sizeof(RouteLeaf));
	for (int i = 0; i < router->citus->nshards; i++)
	{
		const CitusShard *shard = &router->citus->shards[i];
		RouteLeaf  *leaf;

		if (shard->local)
		{
			route_add_local_shard(router, shell, shard);
			continue;
		}
		leaf = &router->leaves[router->nleaves++];
		leaf->relid = InvalidOid;
		leaf->local = false;
		leaf->heap_tablespace = MyDatabaseTableSpace;
		leaf->shardid = shard->shardid;
		leaf->node = shard->node;
	}
}

/* Lock and open a partition; a node for a partitioned one, else a leaf. */
static RouteTarget
route_build_target(Router *router, Oid relid)
{
	RouteTarget target = {NULL, -1};
	Relation	rel = table_open(relid, AccessShareLock);

	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		target.node = route_build_node(router, rel);
	else
	{
		route_check_relkind(rel);
		target.leaf = route_add_leaf(router, rel);
		table_close(rel, NoLock);
	}
	return target;
}

/* A node for an open partitioned table, its partitions unset; keeps it open. */
static RouteNode *
route_new_node(Router *router, Relation rel, PartitionDesc desc)
{
	PartitionKey key = RelationGetPartitionKey(rel);
	RouteNode  *node = palloc(sizeof(RouteNode));

	check_stack_depth();
	router->open_rels = lappend(router->open_rels, rel);
	route_check_key(rel, key);
	node->strategy = (char) key->strategy;
	node->partsupfunc = key->partsupfunc;
	node->partcollation = key->partcollation;
	node->boundinfo = desc->boundinfo;
	node->targets = palloc(Max(desc->nparts, 1) * sizeof(RouteTarget));
	node->ancestor = false;
	return node;
}

/* The partition descriptor routing sees (detached-pending as the executor). */
static PartitionDesc
route_partdesc(Relation rel)
{
	return RelationGetPartitionDesc(rel, !IsolationUsesXactSnapshot());
}

/* The node of an open partitioned table, its subtree built; keeps it open. */
static RouteNode *
route_build_node(Router *router, Relation rel)
{
	PartitionDesc desc = route_partdesc(rel);
	RouteNode  *node = route_new_node(router, rel, desc);

	if (desc->nparts == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("partitioned table \"%s\" has no partitions",
						RelationGetRelationName(rel)),
				 errhint("Create its partitions first.")));
	for (int i = 0; i < desc->nparts; i++)
		node->targets[i] = route_build_target(router, desc->oids[i]);
	return node;
}

/*
 * The root node of the partition tree above partition relid, whose own
 * target (its subtree) is given: every ancestor leads only towards relid.
 */
static RouteNode *
route_build_ancestors(Router *router, Oid relid, RouteTarget target)
{
	ListCell   *lc;

	foreach(lc, get_partition_ancestors(relid))
	{
		Relation	parent = table_open(lfirst_oid(lc), AccessShareLock);
		PartitionDesc desc = route_partdesc(parent);
		RouteNode  *node = route_new_node(router, parent, desc);

		node->ancestor = true;
		for (int i = 0; i < desc->nparts; i++)
		{
			node->targets[i].node = NULL;
			node->targets[i].leaf = ROUTE_ELSEWHERE;
			if (desc->oids[i] == relid)
				node->targets[i] = target;
		}
		target.node = node;
		relid = RelationGetRelid(parent);
	}
	return target.node;
}

/* An empty router in a memory context of its own. */
static Router *
route_create(void)
{
	MemoryContext mcxt = AllocSetContextCreate(CurrentMemoryContext,
											   "petagen router",
											   ALLOCSET_SMALL_SIZES);
	Router	   *router = MemoryContextAllocZero(mcxt, sizeof(Router));

	router->mcxt = mcxt;
	router->only_shard = -1;
	router->maxleaves = 16;
	router->leaves = MemoryContextAlloc(mcxt, router->maxleaves * sizeof(RouteLeaf));
	return router;
}

/* Lock a table and all its partitions; its leaves and routing nodes. */
Router *
route_open(Oid relid)
{
	Router	   *router = route_create();
	MemoryContext oldcxt = MemoryContextSwitchTo(router->mcxt);
	Relation	rel = relation_open(relid, AccessShareLock);
	RouteTarget target = {NULL, -1};

	route_check_relkind(rel);
	router->citus = citus_meta_open(rel);
	if (router->citus != NULL)
	{
		route_add_shards(router, rel);
		table_close(rel, NoLock);
	}
	else if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		target.node = route_build_node(router, rel);
	else
	{
		target.leaf = route_add_leaf(router, rel);
		table_close(rel, NoLock);
	}
	router->root = target.node;
	if (router->citus == NULL && get_rel_relispartition(relid))
		router->root = route_build_ancestors(router, relid, target);
	MemoryContextSwitchTo(oldcxt);
	return router;
}

/* Raise an error: leafrelid is no longer a leaf of table relid. */
static void
route_not_a_leaf(Oid relid, Oid leafrelid)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("\"%s\" is no longer a leaf of table \"%s\"",
					get_rel_name(leafrelid), get_rel_name(relid)),
			 errdetail("The table's partitions or shards changed after the job listed its leaves."),
			 errhint("Start a new job for the table as it is now.")));
}

/* The index of the local Citus shard whose shard table is leafrelid, or -1. */
static int
route_shard_of(const CitusTable *citus, Relation shell, Oid leafrelid)
{
	for (int i = 0; i < citus->nshards; i++)
	{
		char	   *name;

		if (!citus->shards[i].local)
			continue;
		name = citus_meta_shard_name(RelationGetRelationName(shell),
									 citus->shards[i].shardid);
		if (get_relname_relid(name, RelationGetNamespace(shell)) == leafrelid)
			return i;
	}
	return -1;
}

/* Is relid leafrelid or one of its ancestors in the partition tree? */
static bool
route_is_above(Oid relid, Oid leafrelid)
{
	return relid == leafrelid ||
		(get_rel_relispartition(leafrelid) &&
		 list_member_oid(get_partition_ancestors(leafrelid), relid));
}

/*
 * A router for one leaf of table relid (the leaf locked by the caller):
 * its only leaf is leafrelid, and route_key() gives 0 for a key that
 * PostgreSQL, routing from the root of the partition tree, or Citus would
 * put there, ROUTE_ELSEWHERE for any other.  Locks the leaf's ancestors
 * with AccessShareLock, no other leaf.  Raises an error if leafrelid is no
 * longer a leaf of relid.
 */
Router *
route_open_leaf(Oid relid, Oid leafrelid)
{
	Router	   *router;
	Relation	rel;
	MemoryContext oldcxt;

	if (route_is_above(relid, leafrelid))
		return route_open(leafrelid);
	/* else only a shard table of a Citus table can be its leaf */
	router = route_create();
	oldcxt = MemoryContextSwitchTo(router->mcxt);
	rel = relation_open(relid, AccessShareLock);
	router->citus = citus_meta_open(rel);
	if (router->citus != NULL)
		router->only_shard = route_shard_of(router->citus, rel, leafrelid);
	relation_close(rel, NoLock);
	if (router->only_shard < 0)
		route_not_a_leaf(relid, leafrelid);
	rel = table_open(leafrelid, AccessShareLock);
	route_add_leaf(router, rel);
	table_close(rel, NoLock);
	MemoryContextSwitchTo(oldcxt);
	return router;
}

/* The number of leaves. */
int
route_nleaves(const Router *router)
{
	return router->nleaves;
}

/* Leaf number leaf, 0 .. route_nleaves() - 1. */
const RouteLeaf *
route_leaf(const Router *router, int leaf)
{
	Assert(leaf >= 0 && leaf < router->nleaves);
	return &router->leaves[leaf];
}

/* Where a leaf is stored: "local", its foreign server, or a Citus node. */
const char *
route_leaf_node(const RouteLeaf *leaf)
{
	if (leaf->local)
		return "local";
	if (leaf->node != NULL)
		return leaf->node;
	return GetForeignServer(GetForeignTable(leaf->relid)->serverid)->servername;
}

/* The partition index of one partitioned table for a key, or -1. */
static int
route_partition(const RouteNode *node, Datum key)
{
	PartitionBoundInfo boundinfo = node->boundinfo;
	bool		isnull = false;
	bool		equal = false;
	int			part_index = -1;
	int			bound_offset;

	switch (node->strategy)
	{
		case PARTITION_STRATEGY_HASH:
			{
				uint64		hash = compute_partition_hash_value(1,
																node->partsupfunc,
																node->partcollation,
																&key, &isnull);

				part_index = boundinfo->indexes[hash % boundinfo->nindexes];
			}
			break;
		case PARTITION_STRATEGY_LIST:
			bound_offset = partition_list_bsearch(node->partsupfunc,
												  node->partcollation,
												  boundinfo, key, &equal);
			if (bound_offset >= 0 && equal)
				part_index = boundinfo->indexes[bound_offset];
			break;
		case PARTITION_STRATEGY_RANGE:
			bound_offset = partition_range_datum_bsearch(node->partsupfunc,
														 node->partcollation,
														 boundinfo, 1, &key,
														 &equal);
			part_index = boundinfo->indexes[bound_offset + 1];
			break;
		default:
			elog(ERROR, "unexpected partition strategy: %d",
				 (int) node->strategy);
	}
	return part_index >= 0 ? part_index : boundinfo->default_index;
}

/*
 * The leaf PostgreSQL would route a key (keys_datum()) to; -1 if no
 * partition of the table accepts it, ROUTE_ELSEWHERE if it belongs outside
 * the table.
 */
int
route_key(Router *router, Datum key)
{
	const RouteNode *node = router->root;

	if (router->citus != NULL && router->only_shard >= 0)
		return citus_meta_route(router->citus, key) == router->only_shard ?
			0 : ROUTE_ELSEWHERE;
	if (router->citus != NULL)
		return citus_meta_route(router->citus, key);
	if (node == NULL)
		return 0;
	for (;;)
	{
		int			part_index = route_partition(node, key);

		if (part_index < 0)
			return node->ancestor ? ROUTE_ELSEWHERE : -1;
		if (node->targets[part_index].node == NULL)
			return node->targets[part_index].leaf;
		node = node->targets[part_index].node;
	}
}

/* Is the table a Citus table, its leaves its shards? */
bool
route_is_citus(const Router *router)
{
	return router->citus != NULL;
}

/*
 * Error if relid is a Citus table with no shard on this node: a load here
 * would write nothing (the coordinator of a cluster whose shards are all
 * on the workers).
 */
void
route_check_citus_local(const Router *router, Oid relid)
{
	if (router->citus == NULL)
		return;
	for (int i = 0; i < router->nleaves; i++)
		if (router->leaves[i].local)
			return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("no shard of Citus table \"%s\" is placed on this node",
					get_rel_name(relid)),
			 errdetail("Its %d shards are placed on other nodes; this node is in Citus group %d. petagen writes only the shards of the node it runs on.",
					   router->citus->nshards, router->citus->group),
			 errhint("Run petagen.start() on each Citus worker node (petagen.leaves(%s) lists where each shard is); together they load every key once.",
					 catalog_relation_literal(relid))));
}

/* Close the partitioned tables (locks stay) and free the router. */
void
route_close(Router *router)
{
	ListCell   *lc;

	foreach(lc, router->open_rels)
		table_close((Relation) lfirst(lc), NoLock);
	MemoryContextDelete(router->mcxt);
}

/*
 * A key given as text as a key of table relid: the text itself, or for an
 * integer ycsb_key the number it spells.
 */
static Datum
route_key_from_text(Oid relid, text *key)
{
	Oid			typid = route_key_type(relid);
	Oid			input;
	Oid			ioparam;

	if (typid == TEXTOID)
		return PointerGetDatum(key);
	getTypeInputInfo(typid, &input, &ioparam);
	return OidInputFunctionCall(input, text_to_cstring(key), ioparam, -1);
}

/* petagen.leaf(table, key): its leaf; NULL if none or a Citus shard elsewhere. */
PG_FUNCTION_INFO_V1(petagen_leaf);
Datum
petagen_leaf(PG_FUNCTION_ARGS)
{
	Router	   *router;
	int			leaf;
	Oid			relid;

	guard_table(PG_GETARG_OID(0));
	router = route_open(PG_GETARG_OID(0));
	leaf = route_key(router, route_key_from_text(PG_GETARG_OID(0),
												 PG_GETARG_TEXT_P(1)));
	relid = leaf >= 0 ? route_leaf(router, leaf)->relid : InvalidOid;
	route_close(router);
	if (!OidIsValid(relid))
		PG_RETURN_NULL();
	PG_RETURN_OID(relid);
}

PG_FUNCTION_INFO_V1(petagen_leaves);
/* petagen.leaves(table): every leaf in routing order, and the node storing it. */
Datum
petagen_leaves(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Router	   *router;

	guard_table(PG_GETARG_OID(0));
	router = route_open(PG_GETARG_OID(0));
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < route_nleaves(router); i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = ObjectIdGetDatum(leaf->relid);
		nulls[0] = !OidIsValid(leaf->relid);	/* a Citus shard elsewhere */
		values[1] = CStringGetTextDatum(route_leaf_node(leaf));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	route_close(router);
	return (Datum) 0;
}
