/*-------------------------------------------------------------------------
 * catalog.h
 *		Every SQL statement petagen runs goes through a catalog scope: a
 *		fixed search_path for its duration and, for writes to the job
 *		catalog, the catalog owner's user id.  See catalog.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_CATALOG_H
#define PETAGEN_CATALOG_H

/* The search_path of every statement petagen runs, and of its workers. */
#define CATALOG_SEARCH_PATH "pg_catalog, pg_temp"

/*
 * Statements name what they read and fill: the columns of a result are
 * read by an Anum_<statement>_<column> enum (1-based, as attribute numbers
 * in PostgreSQL's catalog headers) declared beside the statement, and the
 * values[] of $1..$n filled by an Arg_<statement>_<parameter> enum (0-based:
 * values[Arg_x] is $(Arg_x + 1)).  A result of one column reads it as
 * CATALOG_ONLY_COLUMN.
 */
#define CATALOG_ONLY_COLUMN 1

/*
 * The versions of petagen's catalog a 0.2 library runs on: 0.1's until
 * ALTER EXTENSION petagen UPDATE, which brings the columns and the
 * declarations of 0.2.
 */
typedef enum PetagenCatalogVersion
{
	CATALOG_V0_1,
	CATALOG_V0_2
} PetagenCatalogVersion;

/* What catalog_connect() changed, for catalog_finish() to restore. */
typedef struct CatalogScope
{
	int			nestlevel;		/* GUC nest level of the pinned search_path */
	Oid			save_userid;
	int			save_sec_context;
} CatalogScope;

extern void catalog_connect(CatalogScope *scope, bool as_owner);
extern void catalog_finish(CatalogScope *scope);
extern Oid	catalog_owner(void);
extern char *catalog_relation_name(Oid relid);
extern char *catalog_relation_literal(Oid relid);
extern uint64 catalog_exec(const char *sql, int nargs, Oid *types,
						   Datum *values, const char *nulls, int expect);
extern uint64 catalog_read(const char *sql, int nargs, Oid *types,
						   Datum *values, long limit);
extern Datum catalog_value(uint64 row, int col, bool *isnull);
extern char *catalog_text(uint64 row, int col, MemoryContext cxt);
extern int64 catalog_int8(uint64 row, int col);
extern PetagenCatalogVersion catalog_version(void);

#endif							/* PETAGEN_CATALOG_H */
