/*-------------------------------------------------------------------------
 * catalog.c
 *		The one way petagen runs SQL: SPI inside a catalog scope.
 *
 * The job catalog is petagen.jobs, chunks, progress_log (ledger.c and
 * ledger.c), chunk_intents (frozen.c), job_indexes (table.c),
 * job_shards (ledger.c) and bench_results (bench_results.c,
 * bench.c; bench.c draws its ids).  It is written only by
 * petagen's own code: roles get SELECT at most, and a write runs as the
 * owner of the catalog (the owner of petagen.jobs, the role that created
 * the extension) with SECURITY_LOCAL_USERID_CHANGE |
 * SECURITY_RESTRICTED_OPERATION, as PostgreSQL runs maintenance commands
 * as a table's owner.  Reads and the statements on the user's tables run
 * as the current role.
 *
 * Every scope pins search_path to CATALOG_SEARCH_PATH, so that no
 * operator, function or table another role created in a schema of the
 * caller's search_path can be picked by a statement petagen runs, in the
 * calling backend as in the workers.  Names a user passes are resolved
 * with the caller's search_path before a scope is entered.
 *
 * Inside a scope, catalog_exec() (or catalog_read(), read-only in the
 * caller's snapshot) runs one statement and catalog_value(),
 * catalog_text() and catalog_int8() read its result by the column names
 * catalog.h describes.  No other file calls SPI, but for these named
 * exceptions:
 *	- bench_worker.c: the benchmark's measured statements, prepared once
 *	  per worker and run per operation in its own SPI connection and
 *	  transaction, so that a run times the operation and nothing else;
 *	- verify_scan.c: verify's probes of a remote leaf, a plan prepared once
 *	  and run per batch of keys.
 *
 * catalog_version() says which version of the catalog the library runs
 * on: a 0.2 library runs on a 0.1 catalog (its tables and declarations)
 * until ALTER EXTENSION petagen UPDATE, and every statement or argument
 * that differs between the two branches on it.  It is found once per
 * backend and forgotten on a relcache invalidation of petagen.jobs.
 *
 * catalog_finish() restores the user id, the security context and the
 * search_path; on an error the (sub)transaction abort restores all three
 * (AbortTransaction and AbortSubTransaction reset the user id to the one
 * saved at its start and unwind the GUC nest levels).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog.h"

/* The owner of petagen.jobs: the only role that writes the job catalog. */
Oid
catalog_owner(void)
{
	Oid			relid = get_relname_relid("jobs", get_namespace_oid("petagen", false));
	HeapTuple	tuple;
	Oid			owner;

	if (!OidIsValid(relid))
		elog(ERROR, "petagen: table petagen.jobs does not exist");
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

/*
 * Connect to SPI with search_path pinned; with as_owner, also become the
 * catalog owner until catalog_finish().
 */
void
catalog_connect(CatalogScope *scope, bool as_owner)
{
	Oid			owner = as_owner ? catalog_owner() : InvalidOid;

	SPI_connect();
	scope->nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", CATALOG_SEARCH_PATH, PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	GetUserIdAndSecContext(&scope->save_userid, &scope->save_sec_context);
	if (as_owner)
		SetUserIdAndSecContext(owner, scope->save_sec_context |
							   SECURITY_LOCAL_USERID_CHANGE |
							   SECURITY_RESTRICTED_OPERATION);
}

/* Leave a scope: user id, security context, search_path back, SPI closed. */
void
catalog_finish(CatalogScope *scope)
{
	SetUserIdAndSecContext(scope->save_userid, scope->save_sec_context);
	AtEOXact_GUC(true, scope->nestlevel);
	SPI_finish();
}

/* A relation's name, schema-qualified and quoted, for the SQL petagen runs. */
char *
catalog_relation_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/*
 * A relation's name as a string literal a regclass argument takes:
 * schema-qualified, quoted, for the SQL an error hint suggests.
 */
char *
catalog_relation_literal(Oid relid)
{
	return quote_literal_cstr(catalog_relation_name(relid));
}

/*
 * Run one statement with arguments inside a scope, read-only or not, for
 * at most limit rows (0: all); raise an error unless SPI returns `expect`.
 */
static uint64
catalog_run(const char *sql, int nargs, Oid *types, Datum *values,
			const char *nulls, bool read_only, long limit, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, nulls,
										   read_only, limit);

	if (rc != expect)
		elog(ERROR, "petagen: SPI statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
	return SPI_processed;
}

/*
 * Run one statement with arguments inside a scope; raise an error unless
 * SPI returns `expect`.  Returns the number of rows processed.
 */
uint64
catalog_exec(const char *sql, int nargs, Oid *types, Datum *values,
			 const char *nulls, int expect)
{
	return catalog_run(sql, nargs, types, values, nulls, false, 0, expect);
}

/*
 * Run one read-only SELECT inside a scope, in the snapshot of the calling
 * statement, for at most limit rows; returns the number of rows read.
 */
uint64
catalog_read(const char *sql, int nargs, Oid *types, Datum *values,
			 long limit)
{
	return catalog_run(sql, nargs, types, values, NULL, true, limit,
					   SPI_OK_SELECT);
}

/* Column col (1-based) of result row `row` of the last statement. */
Datum
catalog_value(uint64 row, int col, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col,
						 isnull);
}

/* Column col of result row `row` as text copied into cxt; NULL for NULL. */
char *
catalog_text(uint64 row, int col, MemoryContext cxt)
{
	char	   *s = SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col);

	return s ? MemoryContextStrdup(cxt, s) : NULL;
}

/* Int8 column col of result row `row` of the last statement; 0 for NULL. */
int64
catalog_int8(uint64 row, int col)
{
	bool		isnull;
	Datum		d = catalog_value(row, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

/*
 * The catalog version, found once per backend: petagen.jobs has a column
 * each version added last (CATALOG_NEWEST_COLUMN), which a catalog not yet
 * updated lacks.  ALTER EXTENSION petagen UPDATE adds it, and DROP or
 * CREATE EXTENSION replaces the table: either sends a relcache
 * invalidation of petagen.jobs, which every backend (workers and the
 * auto-resume launcher, which no SQL call tells the version, included)
 * takes at its next transaction, and which forgets the version found.
 */
#define CATALOG_NEWEST_COLUMN	"next_retry_at" /* of 0.2 */

static bool catalog_version_valid = false;
static PetagenCatalogVersion catalog_version_found;
static Oid	catalog_version_relid = InvalidOid; /* petagen.jobs then */

/* Forget the catalog version when petagen.jobs (or every relation) changes. */
static void
catalog_version_invalidate(Datum arg, Oid relid)
{
	if (relid == InvalidOid || relid == catalog_version_relid)
		catalog_version_valid = false;
}

/* The version of petagen's catalog in this database. */
PetagenCatalogVersion
catalog_version(void)
{
	static bool registered = false;

	if (catalog_version_valid)
		return catalog_version_found;
	if (!registered)
	{
		CacheRegisterRelcacheCallback(catalog_version_invalidate, (Datum) 0);
		registered = true;
	}
	catalog_version_relid = get_relname_relid("jobs", get_namespace_oid("petagen", false));
	catalog_version_found =
		get_attnum(catalog_version_relid, CATALOG_NEWEST_COLUMN) != InvalidAttrNumber ?
		CATALOG_V0_2 : CATALOG_V0_1;
	/* no petagen.jobs (a statement of CREATE EXTENSION): ask again */
	catalog_version_valid = OidIsValid(catalog_version_relid);
	return catalog_version_found;
}
