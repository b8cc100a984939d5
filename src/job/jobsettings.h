/*-------------------------------------------------------------------------
 * jobsettings.h
 *		A load job's settings, declared once: the arguments start() and
 *		check() take and the columns of petagen.jobs that start() writes.
 *
 * JOB_SETTINGS(X) calls X(name, start, check, since, kind, nulls, member,
 * dflt, none) for each setting, in start()'s SQL order:
 *	name	the argument's name and its column's in petagen.jobs;
 *	start, check
 *			its position (from 0, as PG_GETARG_*() counts) in start()'s
 *			and in check()'s (and check_details()'s) declaration, or -1 for
 *			one the function does not take (a column no argument sets);
 *	since	the first catalog version with the argument and the column
 *			(PetagenCatalogVersion, without its CATALOG_ prefix): a catalog
 *			not yet updated has neither, its declarations end before it;
 *	kind	how the value goes between the JobDef and the catalog
 *			(JobSettingKind, without its JS_KIND_ prefix): ARG for an
 *			argument with no column;
 *	nulls	whether the argument may be NULL (NULL means something: a
 *			default options.c derives); any other raises an error;
 *	member	where the JobDef holds it: M(x) a member jobdef.h declares,
 *			read from the arguments by hand in options.c; O(ctype, x) a
 *			member this list declares, read and stored by its kind alone;
 *			NONE for an argument the JobDef does not keep;
 *	dflt	what a catalog without the column reads, as an SQL literal (the
 *			column's DEFAULT);
 *	none	for kind OPT8, the value that stands for NULL in the catalog.
 *
 * options.c reads the arguments into a JobDef by this list, ledger.c
 * builds the INSERT and the SELECT of a job's row from it: a new setting
 * is a line here, its argument in sql/objects/start and check, and its
 * column in sql/parts/20_jobs.sql and the update script.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_JOBSETTINGS_H
#define PETAGEN_JOBSETTINGS_H

#define JOB_SETTINGS(X) \
	X(rows, 0, 0, V0_1, INT8, false, M(rows), "0", 0) \
	X(workers, 1, 1, V0_1, INT4, false, M(nworkers), "0", 0) \
	X(table, 2, 2, V0_1, OID, false, M(relid), "0", 0) \
	X(keys, 3, 3, V0_1, KEYS, false, M(spec.keys.mode), "''", 0) \
	X(seed, 4, 4, V0_1, INT8, false, M(spec.seed), "0", 0) \
	X(fieldlength, 5, 5, V0_1, INT4, false, M(spec.fieldlength), "0", 0) \
	X(prefix, 6, 6, V0_1, PREFIX, false, M(spec.keys.prefix), "''", 0) \
	X(zeropadding, 7, 7, V0_1, INT4, false, M(spec.keys.zeropadding), "0", 0) \
	X(chunk_rows, 8, 8, V0_1, INT8, true, M(chunk_rows), "0", 0) \
	X(disk_reserve, 9, 9, V0_1, OPT8, true, M(disk_reserve), "NULL", -1) \
	X(max_rate, 10, 10, V0_1, OPT8, true, M(max_rate), "NULL", 0) \
	X(frozen, 11, 11, V0_1, BOOL, false, M(frozen), "false", 0) \
	X(indexes, 12, 12, V0_1, INDEXES, false, M(indexes_after), "'maintain'", 0) \
	X(force, 13, -1, V0_1, ARG, false, NONE, "NULL", 0) \
	X(method, 14, 13, V0_2, METHOD, false, M(method), "'chunk'", 0) \
	X(fieldlengthdistribution, 15, 14, V0_2, FIELDDIST, false, M(spec.fielddist), "'constant'", 0) \
	X(minfieldlength, 16, 15, V0_2, INT4, false, M(spec.minfieldlength), "1", 0) \
	X(first, 17, 16, V0_2, INT8, false, M(first), "0", 0) \
	X(started_by, -1, -1, V0_1, OID, false, M(owner), "0", 0) \
	X(route_token, -1, -1, V0_2, OPT8, true, M(route_token), "NULL", 0) \
	X(method_reason, -1, -1, V0_2, NOTE, true, M(method_reason), "NULL", 0)

/* A setting, by name: JS_rows .. */
#define JS_ENUM(name, start, check, since, kind, nulls, member, dflt, none) \
	JS_##name,
typedef enum JobSetting
{
	JOB_SETTINGS(JS_ENUM)
	JOB_NSETTINGS
} JobSetting;
#undef JS_ENUM

/* How a setting's value goes between the JobDef and the catalog. */
typedef enum JobSettingKind
{
	JS_KIND_ARG,				/* an argument only: no column */
	JS_KIND_INT4,				/* int32 <-> integer */
	JS_KIND_INT8,				/* int64 <-> bigint */
	JS_KIND_OPT8,				/* int64 <-> bigint, none <-> NULL */
	JS_KIND_OID,				/* Oid <-> regclass, regrole */
	JS_KIND_BOOL,				/* bool <-> boolean */
	JS_KIND_TEXT,				/* char * <-> text, NULL <-> NULL */
	JS_KIND_NOTE,				/* char * -> text, written only */
	JS_KIND_KEYS,				/* KeyMode -> its name */
	JS_KIND_PREFIX,				/* the key prefix -> text */
	JS_KIND_FIELDDIST,			/* FieldLengthDist -> its name */
	JS_KIND_INDEXES,			/* indexes_after <-> 'after', 'maintain' */
	JS_KIND_METHOD				/* const LoadMethod * <-> its name */
} JobSettingKind;

/* What options.c and ledger.c know of a setting: its line above. */
typedef struct JobSettingDesc
{
	const char *name;
	int			start;			/* position in start(), or -1 */
	int			check;			/* position in check(), or -1 */
	int			since;			/* PetagenCatalogVersion */
	JobSettingKind kind;
	bool		nulls;
	bool		own;			/* an O() member: read by its kind alone */
	int			offset;			/* of its member in JobDef, or -1 */
	const char *dflt;
	int64		none;
} JobSettingDesc;

/* The members of JobDef an O() line declares; M() and NONE declare none. */
#define JS_DECL_M(member)
#define JS_DECL_O(ctype, member) ctype member;
#define JS_DECL_NONE
#define JS_DECL(name, start, check, since, kind, nulls, member, dflt, none) \
	JS_DECL_##member

#endif							/* PETAGEN_JOBSETTINGS_H */
