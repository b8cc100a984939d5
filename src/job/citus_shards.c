/*-------------------------------------------------------------------------
 * citus_shards.c
 *		The Citus shards a load job writes on this node: recorded by
 *		start(), checked by every chunk before it commits.
 *
 * Each node's job writes the keys of the shards placed on it, chunk by
 * chunk (or, with method => 'leaf', shard by shard).  If a shard moves
 * during the load (citus_move_shard_placement(), the rebalancer, a split),
 * the rows already committed travel with it, but the keys of the chunks
 * still to come would be skipped here and, on the node it moved to,
 * written only by the chunks that node has not done yet: keys would be
 * lost or written twice.  So start() records the shard ids placed here in
 * petagen.job_shards, and a chunk fails (55000, not retried: the job fails
 * with the reason) when the shards placed here are no longer exactly
 * those.  The check runs inside the chunk's transaction, after its rows
 * are written and just before its ledger row: a placement change committed
 * before that point fails the chunk, whose rows roll back (a frozen
 * chunk's are removed by the repair of resume()).  A move whose metadata
 * commits between the check and the chunk's commit is not seen by that
 * chunk; the next chunk fails.  A leaf job checks each leaf the same way,
 * and also when the leaf begins, before its shard table is touched (a
 * moved shard's table here is an orphan Citus drops).  After a failed
 * job, verify() on any worker says what is where.
 *
 * Tables that are not Citus tables record nothing and check nothing.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/memutils.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "job/citus_shards.h"
#include "route/citus_meta.h"

/* Compare shard ids for qsort. */
static int
citus_shards_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * The ids of relid's shards placed on this node, ascending, as text; NULL
 * if relid is not a Citus table.  Only Citus's metadata is read: the shard
 * tables are not locked, as a leaf job's workers each hold theirs ACCESS
 * EXCLUSIVE while they check.
 */
static char *
citus_shards_local(Oid relid)
{
	Relation	rel;
	CitusTable *table;
	int64	   *ids;
	int			nlocal = 0;
	StringInfoData text;

	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return NULL;			/* Citus is not installed here */
	rel = table_open(relid, AccessShareLock);
	table = citus_meta_open(rel);
	table_close(rel, NoLock);
	if (table == NULL)
		return NULL;
	ids = palloc(sizeof(int64) * Max(table->nshards, 1));
	for (int i = 0; i < table->nshards; i++)
		if (table->shards[i].local)
			ids[nlocal++] = table->shards[i].shardid;
	qsort(ids, nlocal, sizeof(int64), citus_shards_cmp);
	initStringInfo(&text);
	appendStringInfoChar(&text, '{');
	for (int i = 0; i < nlocal; i++)
		appendStringInfo(&text, "%s" INT64_FORMAT, i > 0 ? "," : "", ids[i]);
	appendStringInfoChar(&text, '}');
	return text.data;
}

/* Record the shards of relid placed on this node for job (in start()). */
void
citus_shards_record(int64 job, Oid relid)
{
	char	   *ids = citus_shards_local(relid);
	Oid			types[2] = {INT8OID, TEXTOID};	/* $1: the job, $2: the shards */
	Datum		values[2];
	CatalogScope scope;

	if (ids == NULL)
		return;
	values[0] = Int64GetDatum(job);
	values[1] = CStringGetTextDatum(ids);
	catalog_connect(&scope, true);
	catalog_exec("INSERT INTO petagen.job_shards (job, shard)"
				 " SELECT $1, s FROM pg_catalog.unnest($2::pg_catalog.int8[]) s",
				 2, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/* Error unless the shards of relid placed here are the ones job recorded. */
void
citus_shards_check(int64 job, Oid relid)
{
	char	   *ids = citus_shards_local(relid);
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	char	   *recorded;
	CatalogScope scope;

	if (ids == NULL)
		return;
	catalog_connect(&scope, false);
	catalog_exec("SELECT '{' || coalesce(pg_catalog.string_agg(shard::text, ','"
				 " ORDER BY shard), '') || '}' FROM petagen.job_shards WHERE job = $1",
				 1, types, values, NULL, SPI_OK_SELECT);
	recorded = catalog_text(0, CATALOG_ONLY_COLUMN, CurrentMemoryContext);
	if (strcmp(recorded, ids) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Citus shards of \"%s\" placed on this node changed during load job " INT64_FORMAT,
						get_rel_name(relid), job),
				 errdetail("The job started with shards %s here; now they are %s. A shard was moved, split or rebalanced during the load.",
						   recorded, ids),
				 errhint("Do not move shards while petagen loads. Check the keys with petagen.verify() on each worker; to load again, truncate the table through the coordinator and run petagen.start() on each worker.")));
	catalog_finish(&scope);
}
