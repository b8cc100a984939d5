/*-------------------------------------------------------------------------
 * bench_forget.c
 *		petagen.forget_bench(id): remove a benchmark run, or a whole
 *		bench_sweep(), from petagen.bench_results.
 *
 * A run is named by its bench_results id, a sweep by the id of its first
 * run (bench_results.sweep, what chart_sweep() takes).  forget_bench() of
 * a sweep's id removes every run of the sweep: its first run alone cannot
 * go without leaving a sweep whose id names no run.  A later run of a
 * sweep goes alone.  A run belongs to the role that ran it
 * (bench_results.run_by): superusers and roles with that role's
 * privileges may remove it; when one run of a sweep is not the caller's,
 * nothing is removed.  The rows are locked before they are checked, and
 * deleted as the catalog owner (catalog.c), the only writer of
 * bench_results.  A run keeps no files.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/memutils.h"

#include "catalog.h"
#include "gen/spec.h"
#include "guard.h"

/* A role's name for a message, also when the role was dropped. */
static char *
bench_role_name(Oid role)
{
	char	   *name = GetUserNameFromId(role, true);

	return name ? psprintf("\"%s\"", name) : psprintf("with OID %u (dropped)", role);
}

/* Raise an error unless the current role may remove run id, run by run_by. */
static void
bench_check_owner(int64 id, Oid run_by)
{
	if (has_privs_of_role(GetUserId(), run_by))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for benchmark run " INT64_FORMAT, id),
			 errdetail("Benchmark run " INT64_FORMAT " was run by role %s.", id,
					   bench_role_name(run_by)),
			 errhint("Only superusers and roles with the privileges of that role may call petagen.forget_bench() on it.")));
}

/* bench_lock_runs()'s target list. */
enum
{
	Anum_forget_id = 1,
	Anum_forget_run_by,
};

/*
 * Lock the runs petagen.forget_bench(id) removes and check that the
 * current role may remove each; raise an error if there is none.
 */
static void
bench_lock_runs(int64 id)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(id)};
	MemoryContext cxt = CurrentMemoryContext;
	CatalogScope scope;
	uint64		n;
	int64	   *ids;
	Oid		   *owners;

	catalog_connect(&scope, true);
	n = catalog_exec("SELECT id, run_by::pg_catalog.oid FROM petagen.bench_results"
					 " WHERE id = $1 OR sweep = $1 ORDER BY id FOR UPDATE",
					 1, types, values, NULL, SPI_OK_SELECT);
	ids = MemoryContextAlloc(cxt, sizeof(int64) * Max(n, 1));
	owners = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(catalog_value(i, Anum_forget_id, &isnull));
		owners[i] = DatumGetObjectId(catalog_value(i, Anum_forget_run_by, &isnull));
	}
	catalog_finish(&scope);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("benchmark run " INT64_FORMAT " does not exist", id),
				 errhint("SELECT id, sweep, kind, workers, run_by FROM petagen.bench_results lists the runs.")));
	for (uint64 i = 0; i < n; i++)
		bench_check_owner(ids[i], owners[i]);
}

PG_FUNCTION_INFO_V1(petagen_forget_bench);
/* petagen.forget_bench(id): remove a run, or every run of a sweep; returns how many. */
Datum
petagen_forget_bench(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"id"};
	Oid			types[1] = {INT8OID};
	Datum		values[1];
	CatalogScope scope;
	uint64		n;

	guard_writable("petagen.forget_bench()");
	spec_check_nulls(fcinfo, 0, names, lengthof(names), "petagen.forget_bench()");
	values[0] = PG_GETARG_DATUM(0);
	bench_lock_runs(PG_GETARG_INT64(0));
	catalog_connect(&scope, true);
	n = catalog_exec("DELETE FROM petagen.bench_results WHERE id = $1 OR sweep = $1",
					 1, types, values, NULL, SPI_OK_DELETE);
	catalog_finish(&scope);
	PG_RETURN_INT64((int64) n);
}
