/*-------------------------------------------------------------------------
 * verify_fdw.c
 *		Probing the keys of a remote leaf (a foreign leaf, or a Citus shard
 *		on another node) in batches, one remote query per batch, for
 *		petagen.verify().
 *
 * Probing a remote leaf one key at a time would cost a network round trip
 * per key.  Instead the expected keys of a remote leaf are buffered and
 * sent FDWPROBE_BATCH at a time as one array parameter of
 *
 *	SELECT count(*), count(DISTINCT ycsb_key) FROM rel WHERE ycsb_key = ANY ($1)
 *
 * where rel is the foreign table, which postgres_fdw pushes down whole, or
 * the Citus distributed table: all keys of a batch are in one shard, and
 * Citus prunes the query to that shard and sends it there whole.  (Citus
 * prunes on = ANY only with a constant array: it gives the generic plan,
 * whose parameter is unbound, an exorbitant cost, so PostgreSQL's plan
 * cache plans every batch as a custom plan, the batch a constant.)  The
 * remote node answers with index probes and sends back two numbers.
 * count(*) is the rows found (with duplicates), count(DISTINCT) the keys
 * present; the batch's other keys are missing.  The array is of the key
 * column's type (text[], or int[] / bigint[] for an integer ycsb_key).
 * Nothing here depends on the key mode, and the remote node needs no
 * petagen.  The plan is
 * prepared once per leaf and kept until fdwprobe_finish(); each batch runs
 * in its own SPI connection, so callers may keep local scans open in
 * between.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "catalog.h"
#include "gen/shape.h"
#include "verify/verify_fdw.h"

/* Keys sent per remote query. */
#define FDWPROBE_BATCH 1000

/* The batch being filled for one remote leaf, and its running totals. */
struct FdwProbe
{
	MemoryContext keycxt;		/* copies of the batch's keys */
	SPIPlanPtr	plan;
	Oid			keytype;		/* text, int4 or int8 */
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum		keys[FDWPROBE_BATCH];
	int			nkeys;
	int64		found;			/* rows found, duplicates included */
	int64		missing;		/* keys sent and not found */
};

/* Prepare the batch probe of relid: a foreign table or a Citus table. */
FdwProbe *
fdwprobe_open(Oid relid)
{
	FdwProbe   *probe = palloc0(sizeof(FdwProbe));
	Oid			argtype;
	char	   *sql;
	CatalogScope scope;

	probe->keytype = keys_type(shape_key_kind(relid));
	get_typlenbyvalalign(probe->keytype, &probe->typlen, &probe->typbyval,
						 &probe->typalign);
	argtype = get_array_type(probe->keytype);
	sql = psprintf("SELECT pg_catalog.count(*), pg_catalog.count(DISTINCT ycsb_key)"
				   " FROM %s WHERE ycsb_key OPERATOR(pg_catalog.=) ANY ($1)",
				   catalog_relation_name(relid));
	probe->keycxt = AllocSetContextCreate(CurrentMemoryContext,
										  "petagen fdw probe",
										  ALLOCSET_DEFAULT_SIZES);
	/* the plan keeps the pinned search_path when it is planned again */
	catalog_connect(&scope, false);
	probe->plan = SPI_prepare(sql, 1, &argtype);
	if (probe->plan == NULL)
		elog(ERROR, "petagen: could not prepare \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	SPI_keepplan(probe->plan);
	catalog_finish(&scope);
	return probe;
}

/* Send the buffered keys as one remote query and add up its answer. */
static void
fdwprobe_flush(FdwProbe *probe)
{
	ArrayType  *array;
	Datum		arg;
	bool		isnull;
	int64		distinct;

	if (probe->nkeys == 0)
		return;
	array = construct_array(probe->keys, probe->nkeys, probe->keytype,
							probe->typlen, probe->typbyval, probe->typalign);
	arg = PointerGetDatum(array);
	SPI_connect();
	if (SPI_execute_plan(probe->plan, &arg, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "petagen: the probe of a remote leaf returned no row");
	probe->found += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
	distinct = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
										   SPI_tuptable->tupdesc, 2, &isnull));
	SPI_finish();
	probe->missing += probe->nkeys - distinct;
	pfree(array);
	MemoryContextReset(probe->keycxt);
	probe->nkeys = 0;
}

/* Add a key (keys_datum()) to the batch; a full batch goes out at once. */
void
fdwprobe_add(FdwProbe *probe, Datum key)
{
	MemoryContext old = MemoryContextSwitchTo(probe->keycxt);

	probe->keys[probe->nkeys++] = datumCopy(key, probe->typbyval, probe->typlen);
	MemoryContextSwitchTo(old);
	if (probe->nkeys == FDWPROBE_BATCH)
		fdwprobe_flush(probe);
}

/* Send the last batch; the totals; free the probe. */
void
fdwprobe_finish(FdwProbe *probe, int64 *found, int64 *missing)
{
	fdwprobe_flush(probe);
	*found = probe->found;
	*missing = probe->missing;
	SPI_freeplan(probe->plan);
	MemoryContextDelete(probe->keycxt);
	pfree(probe);
}
