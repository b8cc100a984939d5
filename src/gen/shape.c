/*-------------------------------------------------------------------------
 * shape.c
 *		Discovering and validating a YCSB-shaped row type.
 *
 * A YCSB-shaped table has a key column ycsb_key and field columns field0,
 * field1, ... fieldN-1 (YCSB's numbering; BenchBase's YCSB table numbers
 * them field1 ... fieldN: a table without field0 starts at field1), each
 * of type text or varchar(n), in any column order.  ycsb_key may also be
 * int or bigint (BenchBase's ycsb_key int): it then holds the key number
 * itself (keys.c, the key kind).  Any other column is
 * an extra column, which the loaders fill as INSERT would (load/defaults.c:
 * its default, identity or stored generated expression, else NULL) and
 * rows() leaves NULL; one that is NOT NULL with none of these is refused,
 * as INSERT would fail on it.  Dropped columns are ignored; ycsb_key and
 * the fields must not be generated.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/builtins.h"

#include "gen/shape.h"

#define SHAPE_HINT "A YCSB-shaped table has a column ycsb_key of type text, varchar, int or bigint and columns field0, field1, ... (or field1, field2, ...) of type text or varchar."

/*
 * The field number of a column named fieldN (no leading zeros), up to
 * natts (field1 .. fieldN numbering), or -1.
 */
static int
shape_field_number(const char *attname, int natts)
{
	const char *digits = attname + 5;
	int			number = 0;

	if (strncmp(attname, "field", 5) != 0 || *digits == '\0' ||
		(digits[0] == '0' && digits[1] != '\0'))
		return -1;
	for (const char *p = digits; *p; p++)
	{
		if (*p < '0' || *p > '9' || number > natts)
			return -1;
		number = number * 10 + (*p - '0');
	}
	return number <= natts ? number : -1;
}

/* Raise an error if ycsb_key or a field column att is generated. */
static void
shape_check_not_generated(Form_pg_attribute att, const char *name)
{
	if (att->attgenerated)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("column \"%s\" of \"%s\" is a generated column",
						NameStr(att->attname), name),
				 errhint(SHAPE_HINT)));
}

/*
 * The varchar(n) character limit of a text or varchar attribute, or -1;
 * an error naming the types the column may have (types) for another type.
 */
static int32
shape_char_limit(Form_pg_attribute att, const char *name, const char *types)
{
	shape_check_not_generated(att, name);
	if (att->atttypid != TEXTOID && att->atttypid != VARCHAROID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of \"%s\" has type %s, not %s",
						NameStr(att->attname), name,
						format_type_be(att->atttypid), types),
				 errhint(SHAPE_HINT)));
	return att->atttypmod >= VARHDRSZ ? att->atttypmod - VARHDRSZ : -1;
}

/* Shrink a character limit (-1: none) to another. */
static int32
shape_min_limit(int32 a, int32 b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return Min(a, b);
}

/* Raise an error unless INSERT can fill extra column att without a value. */
static void
shape_check_extra(Form_pg_attribute att, const char *name)
{
	if (att->attnotnull && !att->atthasdef && !att->attidentity &&
		!att->attgenerated)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("column \"%s\" of \"%s\" is NOT NULL and has no default",
						NameStr(att->attname), name),
				 errdetail("petagen fills ycsb_key and the field columns, and every other column as INSERT would when it is not named: with its default, else NULL."),
				 errhint("Give the column a DEFAULT, or allow NULL in it.")));
}

/* The 0-based index of attribute ycsb_key, or an error. */
static int
shape_key_att(TupleDesc tupdesc, const char *name)
{
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), "ycsb_key") == 0)
			return i;
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("\"%s\" has no column \"ycsb_key\"", name),
			 errhint(SHAPE_HINT)));
	pg_unreachable();
}

/*
 * Number the fields from field0, or from field1 if there is no field0
 * (BenchBase's table); raise an error on a gap.  field_att is indexed by
 * the number in the column's name on entry, from field_base on return.
 */
static void
shape_number_fields(RowShape *shape, const char *name)
{
	shape->field_base = shape->nfields > 1 && shape->field_att[0] < 0 ? 1 : 0;
	for (int f = shape->field_base; f < shape->nfields; f++)
		if (shape->field_att[f] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
					 errmsg("field columns of \"%s\" have a gap: field%d is missing",
							name, f),
					 errdetail("Field columns must be numbered field%d to field%d without gaps.",
							   shape->field_base, shape->nfields - 1),
					 errhint(SHAPE_HINT)));
	shape->nfields -= shape->field_base;
	memmove(shape->field_att, shape->field_att + shape->field_base,
			sizeof(int) * shape->nfields);
}

/* The kind and character limit of column ycsb_key att, or an error. */
static void
shape_key_column(RowShape *shape, Form_pg_attribute att, const char *name)
{
	shape->key_kind = keys_kind_of_type(att->atttypid);
	if (shape->key_kind == KEYKIND_TEXT)
		shape->key_maxchars = shape_char_limit(att, name,
											   "text, varchar, int or bigint");
	else
		shape_check_not_generated(att, name);
}

/*
 * The key kind of table relid's ycsb_key; text when it has none (the
 * shape check then says what is off).
 */
KeyKind
shape_key_kind(Oid relid)
{
	AttrNumber	att = get_attnum(relid, "ycsb_key");

	if (att == InvalidAttrNumber)
		return KEYKIND_TEXT;
	return keys_kind_of_type(get_atttype(relid, att));
}

/* Fill shape from a row type, or raise an error saying what is off. */
void
shape_from_tupdesc(TupleDesc tupdesc, const char *name, RowShape *shape)
{
	shape->natts = tupdesc->natts;
	shape->key_att = shape_key_att(tupdesc, name);
	shape->nfields = 0;
	shape->field_att = palloc(sizeof(int) * (tupdesc->natts + 1));
	shape->key_kind = KEYKIND_TEXT;
	shape->key_maxchars = -1;
	shape->field_maxchars = -1;
	shape->nextra = 0;
	shape->extra_att = palloc(sizeof(int) * Max(tupdesc->natts, 1));
	for (int i = 0; i <= tupdesc->natts; i++)
		shape->field_att[i] = -1;

	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		const char *attname = NameStr(att->attname);
		int			field;

		if (att->attisdropped)
			continue;
		if (i == shape->key_att)
		{
			shape_key_column(shape, att, name);
			continue;
		}
		field = shape_field_number(attname, tupdesc->natts);
		if (field < 0)
		{
			shape_check_extra(att, name);
			shape->extra_att[shape->nextra++] = i;
			continue;
		}
		shape->field_maxchars = shape_min_limit(shape->field_maxchars,
												shape_char_limit(att, name,
																 "text or varchar"));
		shape->field_att[field] = i;
		shape->nfields = Max(shape->nfields, field + 1);
	}

	shape_number_fields(shape, name);
}
