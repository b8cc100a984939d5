/*-------------------------------------------------------------------------
 * record.c
 *		petagen.cluster_jobs, the one catalog of the cluster layer: which
 *		node's load job each cluster job is.
 *
 * A cluster job is a name for the jobs cluster_start() started, one per
 * node, each an ordinary job of its own node.  Its rows are written here as
 * the catalog's owner (catalog.c), as every write of the job catalog is, and
 * removed only by a role with the privileges of the role that started it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"

#include "catalog.h"

PG_FUNCTION_INFO_V1(petagen_cluster_record);
PG_FUNCTION_INFO_V1(petagen_cluster_unrecord);

/*
 * petagen._cluster_record(table, nodes, jobs): record a new cluster job made
 * of jobs[i] on nodes[i], started by the calling role; returns its id.
 */
Datum
petagen_cluster_record(PG_FUNCTION_ARGS)
{
	Oid			types[4] = {INT8OID, REGCLASSOID, TEXTARRAYOID, INT8ARRAYOID};
	Datum		values[4];
	CatalogScope scope;
	int64		id;

	catalog_connect(&scope, true);
	catalog_read("SELECT pg_catalog.nextval('petagen.cluster_jobs_seq')",
				 0, NULL, NULL, 1);
	id = catalog_int8(0, CATALOG_ONLY_COLUMN);
	values[0] = Int64GetDatum(id);
	values[1] = PG_GETARG_DATUM(0);
	values[2] = PG_GETARG_DATUM(1);
	values[3] = PG_GETARG_DATUM(2);
	catalog_exec(psprintf("INSERT INTO petagen.cluster_jobs"
						  " (cluster_job, \"table\", node, job, started_by)"
						  " SELECT $1, $2, n.node, n.job, %u"
						  " FROM ROWS FROM (pg_catalog.unnest($3), pg_catalog.unnest($4))"
						  " AS n(node, job)",
						  GetUserId()),
				 4, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&scope);
	PG_RETURN_INT64(id);
}

/*
 * petagen._cluster_unrecord(cluster_job): remove a cluster job's rows if
 * the calling role has the privileges of the role that started it; returns
 * the number of rows removed.
 */
Datum
petagen_cluster_unrecord(PG_FUNCTION_ARGS)
{
	Oid			types[2] = {INT8OID, OIDOID};
	Datum		values[2];
	CatalogScope scope;
	uint64		n;

	values[0] = PG_GETARG_DATUM(0);
	values[1] = ObjectIdGetDatum(GetUserId());
	catalog_connect(&scope, true);
	n = catalog_exec("DELETE FROM petagen.cluster_jobs WHERE cluster_job = $1"
					 " AND pg_catalog.pg_has_role($2, started_by, 'USAGE')",
					 2, types, values, NULL, SPI_OK_DELETE);
	catalog_finish(&scope);
	PG_RETURN_INT64((int64) n);
}
