/*-------------------------------------------------------------------------
 * table.c
 *		The table around a load: petagen.create_table(), free space on the
 *		filesystems a load writes, and indexes set aside and built after.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <sys/statvfs.h>

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace_d.h"
#include "catalog/pg_type.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "catalog.h"
#include "compat.h"
#include "gen/spec.h"
#include "guard.h"
#include "load/load.h"
#include "route/citus_meta.h"
#include "route/route.h"


/*-------------------------------------------------------------------------
 *		petagen.create_table(): the canonical YCSB usertable, hash-partitioned,
 *		its leaves spread round-robin over tablespaces, each leaf's primary
 *		key index beside its heap.
 *
 * The parent carries the primary key; PostgreSQL clones it onto every leaf.
 * A cloned index goes to default_tablespace, not to its leaf's tablespace,
 * so each leaf is created with default_tablespace set to its tablespace
 * (and no TABLESPACE clause): heap and index land together, and an index
 * left behind on the old disk when heaps are moved cannot happen.  The setting is saved
 * and restored around each statement as a function's SET clause would be.
 *
 * Everything is validated before the first statement runs; the statements
 * use schema-qualified, quoted names only, so the caller's search_path
 * decides nothing but where an unqualified name is created.
 *-------------------------------------------------------------------------
 */

/* Most leaves create_table() makes, and most field columns. */
#define CREATE_MAX_PARTITIONS	65536
#define CREATE_MAX_FIELDS		1000
/* varchar(n) allows n up to this. */
#define CREATE_MAX_VARCHAR		(10 * 1024 * 1024)

static const char *const create_arg_names[] = {
	"name", "partitions", "tablespaces", "fields", "fieldlength", "keylength"
};

/* Raise an error unless low <= value <= high. */
static void
create_check_bound(const char *argname, int value, int low, int high)
{
	if (value < low || value > high)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between %d and %d, not %d",
						argname, low, high, value)));
}

/* The tablespace names of the array argument, each checked; NIL for NULL. */
static List *
create_tablespaces(FunctionCallInfo fcinfo, int argno)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *names = NIL;

	if (PG_ARGISNULL(argno))
		return NIL;
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(argno), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tablespaces must not be an empty array"),
				 errhint("Pass NULL to create every leaf in the default tablespace.")));
	for (int i = 0; i < n; i++)
	{
		char	   *name;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("tablespaces must not contain NULL")));
		name = TextDatumGetCString(elems[i]);
		(void) get_tablespace_oid(name, false);
		names = lappend(names, name);
	}
	return names;
}

/* Resolve the new table's schema and name; error if it or a leaf name is taken. */
static void
create_resolve_name(text *name, int partitions, Oid *nspid, char **relname)
{
	RangeVar   *rv = makeRangeVarFromNameList(textToQualifiedNameList(name));
	Oid			existing;
	char		last_leaf[NAMEDATALEN * 2];

	*nspid = RangeVarGetAndCheckCreationNamespace(rv, NoLock, &existing);
	*relname = rv->relname;
	if (OidIsValid(existing))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", rv->relname),
				 errhint("Drop it first, or pass another name.")));
	snprintf(last_leaf, sizeof(last_leaf), "%s_p%d", rv->relname, partitions - 1);
	if (strlen(last_leaf) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("name \"%s\" is too long for its partitions", rv->relname),
				 errdetail("Leaf \"%s\" would be longer than %d bytes.",
						   last_leaf, NAMEDATALEN - 1)));
}

/* The CREATE TABLE of the partitioned parent. */
static char *
create_parent_sql(const char *qname, int fields, int fieldlength,
				  int keylength)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (ycsb_key pg_catalog.varchar(%d) NOT NULL",
					 qname, keylength);
	for (int f = 0; f < fields; f++)
		appendStringInfo(&sql, ", field%d pg_catalog.varchar(%d)", f, fieldlength);
	appendStringInfoString(&sql, ", PRIMARY KEY (ycsb_key)) PARTITION BY HASH (ycsb_key)");
	return sql.data;
}

/* Run one DDL statement with default_tablespace set to tablespace, if any. */
static void
create_run(const char *sql, const char *tablespace)
{
	int			nestlevel = NewGUCNestLevel();

	if (tablespace != NULL)
		(void) set_config_option("default_tablespace", tablespace,
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
								 true, 0, false);
	catalog_exec(sql, 0, NULL, NULL, NULL, SPI_OK_UTILITY);
	AtEOXact_GUC(true, nestlevel);
}

PG_FUNCTION_INFO_V1(petagen_create_table);
/* petagen.create_table(name, partitions, tablespaces, fields, fieldlength, keylength) */
Datum
petagen_create_table(PG_FUNCTION_ARGS)
{
	int			partitions;
	List	   *tablespaces;
	Oid			nspid;
	char	   *relname;
	const char *schema;
	CatalogScope scope;

	guard_writable("petagen.create_table()");
	spec_check_nulls(fcinfo, 0, create_arg_names, 2, "petagen.create_table()");
	spec_check_nulls(fcinfo, 3, create_arg_names, lengthof(create_arg_names),
					 "petagen.create_table()");
	partitions = PG_GETARG_INT32(1);
	create_check_bound("partitions", partitions, 1, CREATE_MAX_PARTITIONS);
	create_check_bound("fields", PG_GETARG_INT32(3), 1, CREATE_MAX_FIELDS);
	create_check_bound("fieldlength", PG_GETARG_INT32(4), 1, SPEC_MAX_FIELDLENGTH);
	create_check_bound("keylength", PG_GETARG_INT32(5), 1, CREATE_MAX_VARCHAR);
	tablespaces = create_tablespaces(fcinfo, 2);
	create_resolve_name(PG_GETARG_TEXT_PP(0), partitions, &nspid, &relname);
	schema = get_namespace_name(nspid);

	catalog_connect(&scope, false);
	create_run(create_parent_sql(quote_qualified_identifier(schema, relname),
								 PG_GETARG_INT32(3), PG_GETARG_INT32(4),
								 PG_GETARG_INT32(5)), NULL);
	for (int i = 0; i < partitions; i++)
	{
		char	   *leaf = psprintf("%s_p%d", relname, i);

		create_run(psprintf("CREATE TABLE %s PARTITION OF %s"
							" FOR VALUES WITH (MODULUS %d, REMAINDER %d)",
							quote_qualified_identifier(schema, leaf),
							quote_qualified_identifier(schema, relname),
							partitions, i),
				   tablespaces ? list_nth(tablespaces, i % list_length(tablespaces)) : NULL);
	}
	catalog_finish(&scope);
	PG_RETURN_OID(get_relname_relid(relname, nspid));
}


/*-------------------------------------------------------------------------
 *		Free space on the filesystems a load writes.
 *
 * A load writes the heap of every local leaf, every index of those leaves
 * (which may live in other tablespaces: a disk fills up when a leaf's
 * heap was moved and its index left behind) and WAL; a leaf job also its
 * routing files, in the data directory.  Workers compare the free space
 * of each with the reserve before every unit and batch (the job layer
 * knows which and how much: src/job/worker.c).  check() also counts
 * free inodes where a leaf job writes its many routing files.
 *-------------------------------------------------------------------------
 */

/* The directory of tablespace spcoid (0: the database's), MAXPGPATH long. */
void
disk_tablespace_path(Oid spcoid, char *path)
{
	if (!OidIsValid(spcoid))
		spcoid = MyDatabaseTableSpace;
	if (spcoid == DEFAULTTABLESPACE_OID)
		snprintf(path, MAXPGPATH, "%s/base", DataDir);
	else
		snprintf(path, MAXPGPATH, "%s/pg_tblspc/%u", DataDir, spcoid);
}

/*
 * Free bytes for unprivileged use on the filesystem of path; DISK_UNLIMITED
 * for a filesystem that reports no size at all (ramfs), whose free space
 * cannot be watched.
 */
int64
disk_free(const char *path)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not get free space of \"%s\": %m", path)));
	if (fs.f_blocks == 0)
		return DISK_UNLIMITED;
	return (int64) fs.f_bavail * (int64) fs.f_frsize;
}

/* Inodes free for unprivileged use on the filesystem of path; -1 if unlimited. */
int64
disk_free_inodes(const char *path)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not get free inodes of \"%s\": %m", path)));
	/* filesystems without an inode table (btrfs, ZFS) report none at all */
	return fs.f_files == 0 ? -1 : (int64) fs.f_favail;
}


/*-------------------------------------------------------------------------
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
 * A Citus table's indexes are those of its local shard tables (route.c),
 * all stage 0, and the statements run with
 * citus.enable_manual_changes_to_shards on, without which Citus refuses
 * DDL on a shard.
 *
 * Building and dropping need the table's ownership, checked at start() and
 * resume() with a clear error; exclusion constraints are refused (they have
 * no USING INDEX form).
 *-------------------------------------------------------------------------
 */

/* The tables of the partition tree of $n (a plain table is its own tree). */
#define INDEXES_TREE(n) \
	"(SELECT relid, level FROM pg_catalog.pg_partition_tree(" n ")" \
	" UNION ALL SELECT " n ", 0 WHERE NOT EXISTS" \
	" (SELECT FROM pg_catalog.pg_partition_tree(" n ")))"

/* The tables of the partition tree of $2, or the shard tables $3 if not NULL. */
#define INDEXES_TABLES \
	"(SELECT relid, level FROM " INDEXES_TREE("$2") " p WHERE $3 IS NULL" \
	" UNION ALL SELECT s::pg_catalog.regclass, 0 FROM pg_catalog.unnest($3) s)"

/* Every index of the tables of $2 (see INDEXES_TABLES), recorded for job $1. */
static const char *const indexes_record_sql =
"WITH tree AS ("
" SELECT t.relid, t.level, c.relkind, n.nspname, c.relname"
" FROM " INDEXES_TABLES " t"
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

/* indexes_record_sql's parameters: values[Arg_record_x] is $(x + 1). */
enum
{
	Arg_record_job,
	Arg_record_table,
	Arg_record_shards,			/* a Citus table's local shards, else NULL */
	RECORD_NARGS
};

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

/* indexes_claim_sql's target list. */
enum
{
	Anum_claim_on_table = 1,
	Anum_claim_index_name,
	Anum_claim_create_sql,
	Anum_claim_constraint_sql,
	Anum_claim_tablespace,
};

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

/* indexes_check_exclusion()'s target list. */
enum
{
	Anum_exclusion_name = 1,
	Anum_exclusion_table,
};

/* Raise an error if the partition tree of relid has an exclusion constraint. */
static void
indexes_check_exclusion(Oid relid)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (catalog_read("SELECT c.conname::text, c.conrelid::pg_catalog.regclass::text"
					 " FROM " INDEXES_TREE("$1") " t"
					 " JOIN pg_catalog.pg_constraint c ON c.conrelid = t.relid"
					 " WHERE c.contype = 'x' LIMIT 1",
					 1, types, values, 1) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("indexes => 'after' cannot set aside exclusion constraint \"%s\" of %s",
						catalog_text(0, Anum_exclusion_name, CurrentMemoryContext),
						catalog_text(0, Anum_exclusion_table, CurrentMemoryContext)),
				 errhint("Drop the constraint for the load, or use indexes => 'maintain'.")));
}

/* Drop index `name` of table `table` if it still exists. */
static void
indexes_drop_one(Oid table, const char *name)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(table), CStringGetTextDatum(name)};
	char	   *drop;

	if (catalog_exec(indexes_drop_sql, 2, types, values, NULL, SPI_OK_SELECT) == 0)
		return;					/* went with its parent's */
	drop = catalog_text(0, CATALOG_ONLY_COLUMN, CurrentMemoryContext);
	catalog_exec(drop, 0, NULL, NULL, NULL, SPI_OK_UTILITY);
}

/* The local shard tables of a Citus table as an oid[]; NULL for other tables. */
static Datum
indexes_citus_shards(Oid relid, bool *isnull)
{
	Router	   *router = route_open(relid);
	Datum	   *oids = palloc(sizeof(Datum) * Max(route_nleaves(router), 1));
	int			n = 0;

	*isnull = !route_is_citus(router);
	for (int i = 0; i < route_nleaves(router); i++)
		if (route_leaf(router, i)->local)
			oids[n++] = ObjectIdGetDatum(route_leaf(router, i)->relid);
	route_close(router);
	if (*isnull)
		return (Datum) 0;
	return PointerGetDatum(construct_array(oids, n, OIDOID, sizeof(Oid), true,
										   TYPALIGN_INT));
}

/* The target list of the indexes indexes_set_aside() drops. */
enum
{
	Anum_set_aside_on_table = 1,
	Anum_set_aside_index_name,
};

/*
 * Record and drop the indexes of relid's partition tree (a Citus table's
 * local shards) for job (in start()).
 */
void
indexes_set_aside(int64 job, Oid relid)
{
	Oid			types[RECORD_NARGS] = {
		[Arg_record_job] = INT8OID,
		[Arg_record_table] = REGCLASSOID,
		[Arg_record_shards] = OIDARRAYOID,
	};
	Datum		values[RECORD_NARGS] = {
		[Arg_record_job] = Int64GetDatum(job),
		[Arg_record_table] = ObjectIdGetDatum(relid),
	};
	char		nulls[RECORD_NARGS] = {' ', ' ', ' '};
	bool		no_shards;
	uint64		n;
	Oid		   *tables;
	char	  **names;
	CatalogScope scope;
	CatalogScope owner_scope;

	values[Arg_record_shards] = indexes_citus_shards(relid, &no_shards);
	nulls[Arg_record_shards] = no_shards ? 'n' : ' ';
	catalog_connect(&scope, false);
	citus_meta_allow_shard_ddl();
	indexes_check_exclusion(relid);
	/* definitions spelled with the pinned search_path the workers run */
	catalog_connect(&owner_scope, true);
	catalog_exec(indexes_record_sql, RECORD_NARGS, types, values, nulls,
				 SPI_OK_INSERT);
	catalog_finish(&owner_scope);
	n = catalog_exec("SELECT on_table::pg_catalog.oid, index_name::text"
					 " FROM petagen.job_indexes WHERE job = $1 ORDER BY stage DESC",
					 Arg_record_job + 1, types, values, NULL, SPI_OK_SELECT);
	tables = palloc(sizeof(Oid) * (n + 1));
	names = palloc(sizeof(char *) * (n + 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		tables[i] = DatumGetObjectId(catalog_value(i, Anum_set_aside_on_table, &isnull));
		names[i] = catalog_text(i, Anum_set_aside_index_name, CurrentMemoryContext);
	}
	/* parents first: their attached indexes go with them */
	for (uint64 i = 0; i < n; i++)
		indexes_drop_one(tables[i], names[i]);
	catalog_finish(&scope);
}

/* Copy the claimed row of the last statement into ib (in cxt). */
static void
indexes_copy_claim(IndexBuild *ib, MemoryContext cxt)
{
	bool		isnull;

	ib->on_table = DatumGetObjectId(catalog_value(0, Anum_claim_on_table, &isnull));
	strlcpy(ib->name, catalog_text(0, Anum_claim_index_name, CurrentMemoryContext),
			NAMEDATALEN);
	ib->create_sql = catalog_text(0, Anum_claim_create_sql, cxt);
	ib->constraint_sql = catalog_text(0, Anum_claim_constraint_sql, cxt);
	strlcpy(ib->tablespace, catalog_text(0, Anum_claim_tablespace, CurrentMemoryContext),
			NAMEDATALEN);
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
	found = catalog_exec(indexes_claim_sql, 2, types, values, NULL,
						 SPI_OK_SELECT) > 0;
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

/* The parameters of an index's "built" UPDATE: values[Arg_built_x] is $(x + 1). */
enum
{
	Arg_built_job,
	Arg_built_on_table,
	Arg_built_index_name,
	Arg_built_by,
	Arg_built_tablespace,
	BUILT_NARGS
};

/*
 * Build a claimed index in its heap's tablespace, as the current role (the
 * job's owner), and mark it built (as the catalog owner).
 */
void
indexes_build(int64 job, const IndexBuild *ib, int worker)
{
	Oid			types[BUILT_NARGS] = {
		[Arg_built_job] = INT8OID,
		[Arg_built_on_table] = OIDOID,
		[Arg_built_index_name] = TEXTOID,
		[Arg_built_by] = INT4OID,
		[Arg_built_tablespace] = TEXTOID,
	};
	Datum		values[BUILT_NARGS] = {
		[Arg_built_job] = Int64GetDatum(job),
		[Arg_built_on_table] = ObjectIdGetDatum(ib->on_table),
		[Arg_built_index_name] = CStringGetTextDatum(ib->name),
		[Arg_built_by] = Int32GetDatum(worker),
		[Arg_built_tablespace] = CStringGetTextDatum(ib->tablespace),
	};
	CatalogScope scope;

	catalog_connect(&scope, false);
	(void) set_config_option("default_tablespace", ib->tablespace, PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	citus_meta_allow_shard_ddl();
	indexes_run(ib->create_sql, ib->on_table, ib->name);
	if (ib->constraint_sql != NULL)
		indexes_run(ib->constraint_sql, ib->on_table, ib->name);
	catalog_finish(&scope);
	catalog_connect(&scope, true);
	catalog_exec("UPDATE petagen.job_indexes SET built_at = pg_catalog.now(),"
				 " built_by = $4, tablespace = NULLIF($5, '')"
				 " WHERE job = $1 AND on_table = $2 AND index_name = $3",
				 BUILT_NARGS, types, values, NULL, SPI_OK_UPDATE);
	catalog_finish(&scope);
}

/* indexes_progress()'s target list. */
enum
{
	Anum_progress_built = 1,
	Anum_progress_total,
};

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
	*built = DatumGetInt64(catalog_value(0, Anum_progress_built, &isnull));
	*total = DatumGetInt64(catalog_value(0, Anum_progress_total, &isnull));
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
