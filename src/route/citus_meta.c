/*-------------------------------------------------------------------------
 * citus_meta.c
 *		What petagen reads of Citus's metadata on a Citus node.
 *
 * On a Citus node a distributed table is a shell table that holds no rows:
 * its rows live in shard tables named <table>_<shardid>, and Citus sends a
 * key to the shard whose hash range (pg_dist_shard) holds the hash of the
 * key.  Rows written into the shell table are never read by Citus queries,
 * and a shard written with keys outside its range hides them from key
 * lookups, so petagen routes exactly as Citus's FindShardInterval() does:
 *
 *	- the hash is the distribution column type's hash support function
 *	  (lookup_type_cache(..., TYPECACHE_HASH_PROC_FINFO): hashtext for text
 *	  and varchar, hashint4 for int, hashint8 for bigint), called with the
 *	  column's collation, as an int4;
 *	- the shard is the one whose [shardminvalue, shardmaxvalue] holds it;
 *	  citus_meta_open() checks that the ranges tile the whole int4 space,
 *	  so a binary search over the ranges sorted by their minimum finds it.
 *
 * Only hash-distributed tables whose distribution column is ycsb_key are
 * loaded.  Reference, Citus local, single-shard, append and range tables,
 * partitioned Citus tables and a shard table given directly are refused.
 * A shard is local when one of its active placements (pg_dist_placement,
 * shardstate 1) is in this node's group (pg_dist_local_group); every node
 * that holds a placement writes it.
 *
 * Citus's catalogs are read directly (no SQL, so no search_path is
 * involved, and no Citus function is called), and only when they exist.
 * All functions here are prefixed citus_meta_, never citus_, so that they
 * can not clash with Citus's own symbols in one backend.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "route/citus_meta.h"

#define CITUS_META_HINT \
	"petagen loads Citus tables distributed by hash on ycsb_key, as create_distributed_table('usertable', 'ycsb_key') makes them; load other Citus tables with COPY through the coordinator."

/* pg_dist_placement.shardstate of an active placement */
#define CITUS_META_SHARD_ACTIVE 1

/*
 * The value of column `att` of the first row of Citus catalog `catalog`
 * whose column `keyatt` equals `key` (compared by `eqproc`); false if the
 * catalog does not exist or has no such row.
 */
static bool
citus_meta_lookup(const char *catalog, const char *keyatt,
				  RegProcedure eqproc, Datum key, const char *att,
				  Datum *value)
{
	Oid			relid = get_relname_relid(catalog, PG_CATALOG_NAMESPACE);
	Relation	rel;
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		isnull = true;

	if (!OidIsValid(relid))
		return false;
	rel = table_open(relid, AccessShareLock);
	ScanKeyInit(&skey, get_attnum(relid, keyatt), BTEqualStrategyNumber,
				eqproc, key);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &skey);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		*value = heap_getattr(tuple, get_attnum(relid, att),
							  RelationGetDescr(rel), &isnull);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return !isnull;
}

/* The Citus table a shard table <table>_<shardid> belongs to, or InvalidOid. */
static Oid
citus_meta_shard_owner(Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	const char *sep = strrchr(name, '_');
	char	   *end;
	int64		shardid;
	Datum		owner;
	char	   *ownername;

	if (sep == NULL || sep[1] == '\0')
		return InvalidOid;
	errno = 0;
	shardid = strtoi64(sep + 1, &end, 10);
	if (*end != '\0' || errno != 0 || shardid <= 0)
		return InvalidOid;
	if (!citus_meta_lookup("pg_dist_shard", "shardid", F_INT8EQ,
						   Int64GetDatum(shardid), "logicalrelid", &owner))
		return InvalidOid;
	ownername = get_rel_name(DatumGetObjectId(owner));
	if (ownername == NULL ||
		get_rel_namespace(DatumGetObjectId(owner)) != RelationGetNamespace(rel) ||
		strlen(ownername) != (size_t) (sep - name) ||
		strncmp(ownername, name, sep - name) != 0)
		return InvalidOid;
	return DatumGetObjectId(owner);
}

/* Error if a table is a shard table of a Citus table. */
static void
citus_meta_refuse_shard(Relation rel)
{
	Oid			owner = citus_meta_shard_owner(rel);

	if (OidIsValid(owner))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is a shard of the Citus table \"%s\"",
						RelationGetRelationName(rel), get_rel_name(owner)),
				 errdetail("A shard holds only the keys of its hash range; petagen would write keys of every range into it."),
				 errhint("Give the distributed table \"%s\" as the table: petagen writes each key into its own shard.",
						 get_rel_name(owner))));
}

/* Error unless a Citus table is distributed by hash, and not partitioned. */
static void
citus_meta_check_method(Relation rel, char method)
{
	const char *name = RelationGetRelationName(rel);

	if (method == 'n')
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is a Citus reference, local or single-shard table", name),
				 errdetail("It has no hash distribution over its shards, so it has no shard per key for petagen to write."),
				 errhint(CITUS_META_HINT)));
	if (method != 'h')
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is distributed by %s", name,
						method == 'a' ? "append" : method == 'r' ? "range" : "an unknown method"),
				 errdetail("Its shard ranges are made by whoever loads it; petagen routes keys only by hash."),
				 errhint(CITUS_META_HINT)));
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE || rel->rd_rel->relispartition)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is a partitioned Citus table or one of its partitions", name),
				 errdetail("petagen routes a key either by partitions or by Citus shards, not by both."),
				 errhint("Distribute a table that is not partitioned by hash on ycsb_key.")));
}

/*
 * Error unless the distribution column (a Var as text) is ycsb_key, text,
 * varchar, int or bigint.
 */
static void
citus_meta_check_column(CitusTable *table, Relation rel, Datum partkey)
{
	Node	   *node = stringToNode(TextDatumGetCString(partkey));
	Var		   *var = (Var *) node;
	Oid			relid = RelationGetRelid(rel);

	if (!IsA(node, Var))
		elog(ERROR, "distribution column of \"%s\" is not a column",
			 RelationGetRelationName(rel));
	if (var->varattno != get_attnum(relid, "ycsb_key"))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("Citus table \"%s\" is distributed by the column %s, not ycsb_key",
						RelationGetRelationName(rel),
						get_attname(relid, var->varattno, false)),
				 errdetail("Citus places a row by the hash of its distribution column; petagen places keys by ycsb_key."),
				 errhint(CITUS_META_HINT)));
	if (var->vartype != TEXTOID && var->vartype != VARCHAROID &&
		var->vartype != INT4OID && var->vartype != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("Citus table \"%s\" is distributed by ycsb_key as type %s",
						RelationGetRelationName(rel), format_type_be(var->vartype)),
				 errdetail("Keys are hashed as text, int or bigint, so ycsb_key must be text, varchar, int or bigint."),
				 errhint(CITUS_META_HINT)));
	fmgr_info_copy(&table->hash,
				   &lookup_type_cache(var->vartype, TYPECACHE_HASH_PROC_FINFO)->hash_proc_finfo,
				   CurrentMemoryContext);
	table->collation = var->varcollid;
}

/* Open a Citus catalog, or error if it is missing. */
static Relation
citus_meta_catalog(const char *catalog)
{
	Oid			relid = get_relname_relid(catalog, PG_CATALOG_NAMESPACE);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("Citus catalog \"%s\" is missing", catalog),
				 errhint("Check that the citus extension is installed in this database.")));
	return table_open(relid, AccessShareLock);
}

/* Column att of a tuple of an open Citus catalog; error if it is NULL. */
static Datum
citus_meta_attr(Relation rel, HeapTuple tuple, const char *att)
{
	bool		isnull;
	Datum		value = heap_getattr(tuple, get_attnum(RelationGetRelid(rel), att),
									 RelationGetDescr(rel), &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("Citus catalog \"%s\" has a NULL %s",
						RelationGetRelationName(rel), att),
				 errhint("Check the Citus metadata of this node (citus_check_cluster_node_health()).")));
	return value;
}

/* A shard's range bound, an int4 in text. */
static int32
citus_meta_bound(Relation rel, HeapTuple tuple, const char *att, int64 shardid)
{
	char	   *str = TextDatumGetCString(citus_meta_attr(rel, tuple, att));
	char	   *end;
	long		value;

	errno = 0;
	value = strtol(str, &end, 10);
	if (errno != 0 || *end != '\0' || end == str ||
		value < PG_INT32_MIN || value > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("shard " INT64_FORMAT " has %s \"%s\", not a hash value",
						shardid, att, str)));
	return (int32) value;
}

/* Compare shards by shardid for qsort and bsearch. */
static int
citus_meta_cmp_id(const void *a, const void *b)
{
	int64		x = ((const CitusShard *) a)->shardid;
	int64		y = ((const CitusShard *) b)->shardid;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Compare shards by the start of their hash range for qsort. */
static int
citus_meta_cmp_min(const void *a, const void *b)
{
	int32		x = ((const CitusShard *) a)->min;
	int32		y = ((const CitusShard *) b)->min;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Read the shards of a table (pg_dist_shard) into table, by shardid. */
static void
citus_meta_read_shards(CitusTable *table, Oid relid)
{
	Relation	rel = citus_meta_catalog("pg_dist_shard");
	int			max = 16;
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tuple;

	table->shards = palloc(max * sizeof(CitusShard));
	ScanKeyInit(&skey, get_attnum(RelationGetRelid(rel), "logicalrelid"),
				BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &skey);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		CitusShard *shard;

		if (table->nshards == max)
		{
			max *= 2;
			table->shards = repalloc(table->shards, max * sizeof(CitusShard));
		}
		shard = &table->shards[table->nshards++];
		shard->shardid = DatumGetInt64(citus_meta_attr(rel, tuple, "shardid"));
		shard->min = citus_meta_bound(rel, tuple, "shardminvalue", shard->shardid);
		shard->max = citus_meta_bound(rel, tuple, "shardmaxvalue", shard->shardid);
		shard->local = false;
		shard->node = NULL;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	qsort(table->shards, table->nshards, sizeof(CitusShard), citus_meta_cmp_id);
}

/* This node's Citus group (pg_dist_local_group). */
static int32
citus_meta_local_group(void)
{
	Relation	rel = citus_meta_catalog("pg_dist_local_group");
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple = systable_getnext(scan);
	int32		group;

	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this Citus node has no group"),
				 errdetail("pg_dist_local_group is empty."),
				 errhint("Add this node to the cluster with citus_add_node() on the coordinator.")));
	group = DatumGetInt32(citus_meta_attr(rel, tuple, "groupid"));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return group;
}

/* "host:port" of a node of a Citus group (pg_dist_node). */
static char *
citus_meta_node_name(int32 group)
{
	Relation	rel = citus_meta_catalog("pg_dist_node");
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tuple;
	char	   *name;

	ScanKeyInit(&skey, get_attnum(RelationGetRelid(rel), "groupid"),
				BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(group));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &skey);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		name = psprintf("%s:%d",
						TextDatumGetCString(citus_meta_attr(rel, tuple, "nodename")),
						DatumGetInt32(citus_meta_attr(rel, tuple, "nodeport")));
	else
		name = psprintf("group %d", group);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return name;
}

/*
 * Name each shard's node, "host:port" of this node for a local shard, else
 * of the group of a placement (groups), looking each group up once.
 */
static void
citus_meta_name_nodes(CitusTable *table, const int32 *groups)
{
	int32	   *seen = palloc(sizeof(int32) * Max(table->nshards, 1));
	char	  **names = palloc(sizeof(char *) * Max(table->nshards, 1));
	int			nseen = 0;

	for (int i = 0; i < table->nshards; i++)
	{
		int32		group = table->shards[i].local ? table->group : groups[i];
		int			g = 0;

		while (g < nseen && seen[g] != group)
			g++;
		if (g == nseen)
		{
			seen[nseen] = group;
			names[nseen++] = citus_meta_node_name(group);
		}
		table->shards[i].node = names[g];
	}
}

/* Mark each shard local or not and name its node (pg_dist_placement, active only). */
static void
citus_meta_read_placements(CitusTable *table, const char *relname)
{
	Relation	rel = citus_meta_catalog("pg_dist_placement");
	int32	   *groups = palloc(sizeof(int32) * Max(table->nshards, 1));
	bool	   *placed = palloc0(sizeof(bool) * Max(table->nshards, 1));
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple;

	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		CitusShard	key;
		CitusShard *shard;
		int			i;

		key.shardid = DatumGetInt64(citus_meta_attr(rel, tuple, "shardid"));
		shard = bsearch(&key, table->shards, table->nshards,
						sizeof(CitusShard), citus_meta_cmp_id);
		if (shard == NULL ||
			DatumGetInt32(citus_meta_attr(rel, tuple, "shardstate")) != CITUS_META_SHARD_ACTIVE)
			continue;
		i = shard - table->shards;
		groups[i] = DatumGetInt32(citus_meta_attr(rel, tuple, "groupid"));
		placed[i] = true;
		shard->local |= groups[i] == table->group;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	for (int i = 0; i < table->nshards; i++)
		if (!placed[i])
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("shard " INT64_FORMAT " of Citus table \"%s\" has no active placement",
							table->shards[i].shardid, relname),
					 errhint("Check the Citus metadata with citus_shards on the coordinator.")));
	citus_meta_name_nodes(table, groups);
}

/* Sort the shards by hash range; error unless the ranges tile the int4 space. */
static void
citus_meta_check_ranges(CitusTable *table, const char *relname)
{
	int64		next = PG_INT32_MIN;

	qsort(table->shards, table->nshards, sizeof(CitusShard), citus_meta_cmp_min);
	for (int i = 0; i < table->nshards; i++)
	{
		if (table->shards[i].min != next || table->shards[i].max < table->shards[i].min)
			break;
		next = (int64) table->shards[i].max + 1;
	}
	if (next != (int64) PG_INT32_MAX + 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the hash ranges of the shards of Citus table \"%s\" do not cover every hash value once",
						relname),
				 errdetail("%d shards in pg_dist_shard; the ranges leave a gap or overlap at %lld.",
						   table->nshards, (long long) next),
				 errhint("Check the Citus metadata with citus_shards on the coordinator.")));
}

/*
 * The shards of a hash-distributed Citus table and where they are; NULL if
 * the table is not a Citus table; an error for a Citus table or shard that
 * petagen does not load.
 */
CitusTable *
citus_meta_open(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	const char *name = RelationGetRelationName(rel);
	Datum		method;
	Datum		partkey;
	CitusTable *table;

	if (!citus_meta_lookup("pg_dist_partition", "logicalrelid", F_OIDEQ,
						   ObjectIdGetDatum(relid), "partmethod", &method))
	{
		citus_meta_refuse_shard(rel);
		return NULL;
	}
	citus_meta_check_method(rel, DatumGetChar(method));
	if (!citus_meta_lookup("pg_dist_partition", "logicalrelid", F_OIDEQ,
						   ObjectIdGetDatum(relid), "partkey", &partkey))
		elog(ERROR, "hash-distributed table \"%s\" has no distribution column", name);
	table = palloc0(sizeof(CitusTable));
	citus_meta_check_column(table, rel, partkey);
	table->group = citus_meta_local_group();
	citus_meta_read_shards(table, relid);
	citus_meta_read_placements(table, name);
	citus_meta_check_ranges(table, name);
	return table;
}

/* The index in table->shards of the shard Citus routes a key (keys_datum()) to. */
int
citus_meta_route(CitusTable *table, Datum key)
{
	int32		hash = DatumGetInt32(FunctionCall1Coll(&table->hash,
													   table->collation, key));
	int			lo = 0;
	int			hi = table->nshards - 1;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo + 1) / 2;

		if (table->shards[mid].min <= hash)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * The name of the shard table of shard shardid of table relname, as Citus's
 * AppendShardIdToName() builds it: relname_shardid, or, where that would
 * not fit in NAMEDATALEN, the name clipped, '_', its hash_any() in hex and
 * _shardid.
 */
char *
citus_meta_shard_name(const char *relname, int64 shardid)
{
	char		suffix[NAMEDATALEN];
	int			len = strlen(relname);
	int			suffixlen = snprintf(suffix, sizeof(suffix), "_" INT64_FORMAT, shardid);

	if (len < NAMEDATALEN - suffixlen)
		return psprintf("%s%s", relname, suffix);
	return psprintf("%.*s_%.8x%s",
					pg_mbcliplen(relname, len, NAMEDATALEN - suffixlen - 10), relname,
					DatumGetUInt32(hash_any((const unsigned char *) relname, len)),
					suffix);
}

/*
 * Let this transaction's SQL change shard tables, until the caller's GUC
 * nest level ends: Citus refuses DDL on a shard (the indexes petagen sets
 * aside and builds again) unless citus.enable_manual_changes_to_shards is
 * on.  Nothing to do where Citus is not loaded.
 */
void
citus_meta_allow_shard_ddl(void)
{
	if (GetConfigOption("citus.enable_manual_changes_to_shards", true, false) != NULL)
		(void) set_config_option("citus.enable_manual_changes_to_shards", "on",
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
								 true, 0, false);
}
