/*-------------------------------------------------------------------------
 * indexes.c
 *		Indexes after: set the indexes of a table's local leaves aside when
 *		a job starts, and build them again when every chunk is loaded.
 *
 * start() (in its own transaction, so a failed start() leaves every index
 * in place) records each index of the partition tree in
 * petagen.job_indexes, with the SQL that builds it again, then drops it:
 *	- a leaf's index: its pg_get_indexdef(); if it backs a PRIMARY KEY or
 *	  UNIQUE constraint, also ALTER TABLE ... ADD CONSTRAINT ... USING
 *	  INDEX, which turns the built index into the constraint.  Stage 0.
 *	- a partitioned table's index (the parent's primary key on a
 *	  partitioned usertable): ALTER TABLE ... ADD CONSTRAINT ... or CREATE
 *	  INDEX without ONLY.  DefineIndex (indexcmds.c) recursing into the
 *	  partitions attaches each partition's matching index (and, for a
 *	  constraint, requires and attaches the partition's matching
 *	  constraint) instead of building a new one, so these are cheap.
 *	  Stage 1 + (depth of the tree - depth of the table): deepest first.
 * Leaf indexes attached to a partitioned index cannot be dropped alone, so
 * the drops go from the root down: dropping a parent's index drops the
 * attached ones with it.  Indexes of foreign leaves do not exist.  Names
 * are qualified: the definitions are read with the pinned search_path of
 * catalog.c, which the workers run them with.  Only petagen's code (as the
 * catalog owner) writes job_indexes, and a worker still runs a recorded
 * definition only if it parses as one CREATE INDEX or ADD CONSTRAINT on
 * the very table of its row, as the job's owner.
 *
 * Building: once every chunk is in the ledger, each worker claims one
 * unbuilt stage-0 index at a time (FOR UPDATE SKIP LOCKED: the row lock is
 * the claim, and dies with the worker), builds it in its own transaction
 * with default_tablespace set to its heap's tablespace, and marks it built
 * in the same transaction.  N workers build N indexes at once.  The last
 * worker then builds the rest in stage order.  An interrupted build rolls
 * back and stays unbuilt: resume() builds it.
 *
 * Building and dropping need the table's ownership, checked at start() and
 * resume() with a clear error; exclusion constraints are refused (they have
 * no USING INDEX form).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "compat.h"
#include "load/indexes.h"

/* The tables of the partition tree of $n (a plain table is its own tree). */
#define INDEXES_TREE(n) \
	"(SELECT relid, level FROM pg_catalog.pg_partition_tree(" n ")" \
	" UNION ALL SELECT " n ", 0 WHERE NOT EXISTS" \
	" (SELECT FROM pg_catalog.pg_partition_tree(" n ")))"

/* Every index of the partition tree of $2, recorded for job $1. */
static const char *const indexes_record_sql =
"WITH tree AS ("
" SELECT t.relid, t.level, c.relkind, n.nspname, c.relname"
" FROM " INDEXES_TREE("$2") " t"
" JOIN pg_catalog.pg_class c ON c.oid = t.relid"
" JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
" WHERE c.relkind IN ('r', 'p'))"
" INSERT INTO petagen.job_indexes (job, on_table, index_name, stage, create_sql,"
" constraint_sql)"
" SELECT $1, t.relid, ic.relname,"
" CASE WHEN t.relkind = 'r' THEN 0"
" ELSE 1 + (SELECT pg_catalog.max(level) FROM tree) - t.level END,"
" CASE WHEN t.relkind = 'r' THEN pg_catalog.pg_get_indexdef(i.indexrelid)"
" WHEN con.oid IS NOT NULL THEN pg_catalog.format('ALTER TABLE %I.%I ADD CONSTRAINT %I %s',"
" t.nspname, t.relname, con.conname, pg_catalog.pg_get_constraintdef(con.oid))"
" ELSE pg_catalog.regexp_replace(pg_catalog.pg_get_indexdef(i.indexrelid),"
" ' ON ONLY ', ' ON ') END,"
" CASE WHEN t.relkind = 'r' AND con.oid IS NOT NULL THEN"
" pg_catalog.format('ALTER TABLE %I.%I ADD CONSTRAINT %I %s USING INDEX %I%s',"
" t.nspname, t.relname, con.conname,"
" CASE con.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END, ic.relname,"
" CASE WHEN con.condeferred THEN ' DEFERRABLE INITIALLY DEFERRED'"
" WHEN con.condeferrable THEN ' DEFERRABLE' ELSE '' END) END"
" FROM tree t"
" JOIN pg_catalog.pg_index i ON i.indrelid = t.relid"
" JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid"
" LEFT JOIN pg_catalog.pg_constraint con ON con.conindid = i.indexrelid"
" AND con.conrelid = t.relid AND con.contype IN ('p', 'u')";

/* The statement that drops index $2 of table $1, if it still exists. */
static const char *const indexes_drop_sql =
"SELECT CASE WHEN con.oid IS NULL"
" THEN pg_catalog.format('DROP INDEX %I.%I', n.nspname, ic.relname)"
" ELSE pg_catalog.format('ALTER TABLE %I.%I DROP CONSTRAINT %I', n.nspname,"
" c.relname, con.conname) END"
" FROM pg_catalog.pg_index i"
" JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid"
" JOIN pg_catalog.pg_class c ON c.oid = i.indrelid"
" JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
" LEFT JOIN pg_catalog.pg_constraint con ON con.conindid = i.indexrelid"
" AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u')"
" WHERE i.indrelid = $1 AND ic.relname = $2";

/* The next unbuilt index of job $1 (only stage 0 if $2), locked as a claim. */
static const char *const indexes_claim_sql =
"SELECT j.on_table::pg_catalog.oid, j.index_name::text, j.create_sql,"
" j.constraint_sql, coalesce(s.spcname::text, '')"
" FROM petagen.job_indexes j"
" JOIN pg_catalog.pg_class c ON c.oid = j.on_table"
" LEFT JOIN pg_catalog.pg_tablespace s ON s.oid = c.reltablespace"
" WHERE j.job = $1 AND j.built_at IS NULL AND (NOT $2 OR j.stage = 0)"
" ORDER BY j.stage, j.on_table::pg_catalog.oid, j.index_name"
" LIMIT 1 FOR UPDATE OF j SKIP LOCKED";

/* The indexes option of start(): true for 'after', false for 'maintain'. */
bool
indexes_option(const char *value)
{
	if (strcmp(value, "after") == 0)
		return true;
	if (strcmp(value, "maintain") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("indexes must be \"maintain\" or \"after\", not \"%s\"", value),
				 errhint("\"maintain\" updates the indexes row by row; \"after\" builds them when the heaps are loaded.")));
	return false;
}

/* Raise an error unless the current role can run a job with indexes after. */
void
indexes_check(Oid relid, const GenSpec *spec)
{
	if (spec->keys.mode == KEYS_YCSB || spec->keys.mode == KEYS_GO_YCSB)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("indexes => 'after' cannot load keys of mode \"%s\"",
						keys_mode_name(spec->keys.mode)),
				 errdetail("Hashed YCSB keys have duplicates, which are found through the unique index on ycsb_key while loading."),
				 errhint("Use keys => 'scrambled' or 'ordered', or indexes => 'maintain'.")));
	if (!compat_class_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to load it with indexes => 'after'",
						get_rel_name(relid)),
				 errdetail("The job drops the table's indexes and builds them again."),
				 errhint("Run the job as the table's owner, or use indexes => 'maintain'.")));
}

/* Raise an error if the partition tree of relid has an exclusion constraint. */
static void
indexes_check_exclusion(Oid relid)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (SPI_execute_with_args("SELECT c.conname::text, c.conrelid::pg_catalog.regclass::text"
							  " FROM " INDEXES_TREE("$1") " t"
							  " JOIN pg_catalog.pg_constraint c ON c.conrelid = t.relid"
							  " WHERE c.contype = 'x' LIMIT 1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "petagen: could not read the constraints of the table");
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("indexes => 'after' cannot set aside exclusion constraint \"%s\" of %s",
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2)),
				 errhint("Drop the constraint for the load, or use indexes => 'maintain'.")));
}

/* Drop index `name` of table `table` if it still exists. */
static void
indexes_drop_one(Oid table, const char *name)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(table), CStringGetTextDatum(name)};
	char	   *drop;

	if (SPI_execute_with_args(indexes_drop_sql, 2, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "petagen: could not look up index \"%s\"", name);
	if (SPI_processed == 0)
		return;					/* went with its parent's */
	drop = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	catalog_exec(drop, 0, NULL, NULL, NULL, SPI_OK_UTILITY);
}

/* Record and drop the indexes of relid's partition tree for job (in start()). */
void
indexes_set_aside(int64 job, Oid relid)
{
	Oid			types[2] = {INT8OID, REGCLASSOID};
	Datum		values[2] = {Int64GetDatum(job), ObjectIdGetDatum(relid)};
	uint64		n;
	Oid		   *tables;
	char	  **names;
	CatalogScope scope;
	CatalogScope owner_scope;

	catalog_connect(&scope, false);
	indexes_check_exclusion(relid);
	/* definitions spelled with the pinned search_path the workers run */
	catalog_connect(&owner_scope, true);
	catalog_exec(indexes_record_sql, 2, types, values, NULL, SPI_OK_INSERT);
	catalog_finish(&owner_scope);
	catalog_exec("SELECT on_table::pg_catalog.oid, index_name::text"
				 " FROM petagen.job_indexes WHERE job = $1 ORDER BY stage DESC",
				 1, types, values, NULL, SPI_OK_SELECT);
	n = SPI_processed;
	tables = palloc(sizeof(Oid) * (n + 1));
	names = palloc(sizeof(char *) * (n + 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		tables[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
												   SPI_tuptable->tupdesc, 1, &isnull));
		names[i] = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
	}
	/* parents first: their attached indexes go with them */
	for (uint64 i = 0; i < n; i++)
		indexes_drop_one(tables[i], names[i]);
	catalog_finish(&scope);
}

/* Copy the claimed row of the last SPI query into ib (in cxt). */
static void
indexes_copy_claim(IndexBuild *ib, MemoryContext cxt)
{
	HeapTuple	row = SPI_tuptable->vals[0];
	TupleDesc	desc = SPI_tuptable->tupdesc;
	bool		isnull;
	char	   *constraint_sql = SPI_getvalue(row, desc, 4);

	ib->on_table = DatumGetObjectId(SPI_getbinval(row, desc, 1, &isnull));
	strlcpy(ib->name, SPI_getvalue(row, desc, 2), NAMEDATALEN);
	ib->create_sql = MemoryContextStrdup(cxt, SPI_getvalue(row, desc, 3));
	ib->constraint_sql = constraint_sql ? MemoryContextStrdup(cxt, constraint_sql) : NULL;
	strlcpy(ib->tablespace, SPI_getvalue(row, desc, 5), NAMEDATALEN);
}

/*
 * Claim the next unbuilt index of job (stage 0 only if leaves_only) for the
 * rest of the current transaction; false if none is left unclaimed.
 */
bool
indexes_claim(int64 job, bool leaves_only, IndexBuild *ib)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[2] = {INT8OID, BOOLOID};
	Datum		values[2] = {Int64GetDatum(job), BoolGetDatum(leaves_only)};
	bool		found;
	CatalogScope scope;

	/* FOR UPDATE of a catalog row: as the catalog owner */
	catalog_connect(&scope, true);
	if (SPI_execute_with_args(indexes_claim_sql, 2, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "petagen: could not claim an index of job " INT64_FORMAT, job);
	found = SPI_processed > 0;
	if (found)
		indexes_copy_claim(ib, cxt);
	catalog_finish(&scope);
	return found;
}

/*
 * Raise an error unless sql, recorded for index `name` of relid, is one
 * CREATE INDEX on relid or one ALTER TABLE relid ADD PRIMARY KEY/UNIQUE.
 */
static void
indexes_check_sql(const char *sql, Oid relid, const char *name)
{
	List	   *stmts = raw_parser(sql, RAW_PARSE_DEFAULT);
	Node	   *stmt = list_length(stmts) == 1 ? linitial_node(RawStmt, stmts)->stmt : NULL;
	RangeVar   *rv = NULL;

	if (stmt != NULL && IsA(stmt, IndexStmt))
		rv = ((IndexStmt *) stmt)->relation;
	else if (stmt != NULL && IsA(stmt, AlterTableStmt) &&
			 list_length(((AlterTableStmt *) stmt)->cmds) == 1)
	{
		AlterTableCmd *cmd = linitial_node(AlterTableCmd, ((AlterTableStmt *) stmt)->cmds);
		Constraint *con = (Constraint *) cmd->def;

		if (cmd->subtype == AT_AddConstraint && con != NULL && IsA(con, Constraint) &&
			(con->contype == CONSTR_PRIMARY || con->contype == CONSTR_UNIQUE))
			rv = ((AlterTableStmt *) stmt)->relation;
	}
	if (rv == NULL || RangeVarGetRelid(rv, NoLock, true) != relid)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("the recorded definition of index \"%s\" is not an index of table %s",
						name, get_rel_name(relid)),
				 errdetail("Its petagen.job_indexes row holds: %s", sql),
				 errhint("Only petagen writes petagen.job_indexes; recreate the index by hand and drop the job's row.")));
}

/* Run a recorded definition of index `name` of relid, checked first. */
static void
indexes_run(const char *sql, Oid relid, const char *name)
{
	indexes_check_sql(sql, relid, name);
	catalog_exec(sql, 0, NULL, NULL, NULL, SPI_OK_UTILITY);
}

/*
 * Build a claimed index in its heap's tablespace, as the current role (the
 * job's owner), and mark it built (as the catalog owner).
 */
void
indexes_build(int64 job, const IndexBuild *ib, int worker)
{
	Oid			types[5] = {INT8OID, OIDOID, TEXTOID, INT4OID, TEXTOID};
	Datum		values[5];
	CatalogScope scope;

	values[0] = Int64GetDatum(job);
	values[1] = ObjectIdGetDatum(ib->on_table);
	values[2] = CStringGetTextDatum(ib->name);
	values[3] = Int32GetDatum(worker);
	values[4] = CStringGetTextDatum(ib->tablespace);
	catalog_connect(&scope, false);
	(void) set_config_option("default_tablespace", ib->tablespace, PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	indexes_run(ib->create_sql, ib->on_table, ib->name);
	if (ib->constraint_sql != NULL)
		indexes_run(ib->constraint_sql, ib->on_table, ib->name);
	catalog_finish(&scope);
	catalog_connect(&scope, true);
	catalog_exec("UPDATE petagen.job_indexes SET built_at = pg_catalog.now(),"
				 " built_by = $4, tablespace = NULLIF($5, '')"
				 " WHERE job = $1 AND on_table = $2 AND index_name = $3",
				 5, types, values, NULL, SPI_OK_UPDATE);
	catalog_finish(&scope);
}

/* Count the indexes job set aside, and how many of them are built. */
void
indexes_progress(int64 job, int64 *built, int64 *total)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	bool		isnull;
	CatalogScope scope;

	catalog_connect(&scope, false);
	catalog_exec("SELECT count(built_at), count(*) FROM petagen.job_indexes"
				 " WHERE job = $1", 1, types, values, NULL, SPI_OK_SELECT);
	*built = DatumGetInt64(catalog_value(0, 1, &isnull));
	*total = DatumGetInt64(catalog_value(0, 2, &isnull));
	catalog_finish(&scope);
}

/* How many indexes of job are not built yet. */
int64
indexes_unbuilt(int64 job)
{
	int64		built;
	int64		total;

	indexes_progress(job, &built, &total);
	return total - built;
}
