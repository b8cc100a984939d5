/*-------------------------------------------------------------------------
 * create.c
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
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "catalog.h"
#include "guard.h"
#include "gen/spec.h"

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
