/*-------------------------------------------------------------------------
 * citus_meta.c
 *		What petagen reads of Citus's metadata on a Citus node.
 *
 * On a Citus node a distributed table is a shell table that holds no rows:
 * its rows live in shard tables named <table>_<shardid>, and Citus sends a
 * key to the shard whose hash range (pg_dist_shard) holds hashtext(key).
 * Rows written into the shell table are never read by Citus queries, and a
 * shard written with keys outside its range hides them from key lookups.
 * Until petagen routes keys the way Citus does, it refuses both targets.
 *
 * Citus's catalogs pg_dist_partition and pg_dist_shard are read directly
 * (no SQL, so no search_path is involved), and only when they exist.  All
 * functions here are prefixed citus_meta_, never citus_, so that they can
 * not clash with Citus's own symbols in one backend.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "route/citus_meta.h"

#define CITUS_META_HINT \
	"petagen does not load Citus tables yet: load them with COPY through the coordinator."

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

/* Error if a table is a Citus table or one of its shards. */
void
citus_meta_refuse(Relation rel)
{
	Datum		method;
	Oid			owner;

	if (citus_meta_lookup("pg_dist_partition", "logicalrelid", F_OIDEQ,
						  ObjectIdGetDatum(RelationGetRelid(rel)),
						  "partmethod", &method))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is managed by Citus",
						RelationGetRelationName(rel)),
				 errdetail("Its rows live in Citus shards; rows written into \"%s\" itself would never be read by Citus queries.",
						   RelationGetRelationName(rel)),
				 errhint(CITUS_META_HINT)));
	owner = citus_meta_shard_owner(rel);
	if (OidIsValid(owner))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is a shard of the Citus table \"%s\"",
						RelationGetRelationName(rel), get_rel_name(owner)),
				 errdetail("A shard holds only the keys of its hash range; petagen would write keys of every range into it."),
				 errhint(CITUS_META_HINT)));
}
