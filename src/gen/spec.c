/*-------------------------------------------------------------------------
 * spec.c
 *		The generation spec shared by petagen.rows() and the loader: the key
 *		mode and its spelling, the seed, the field length, and the checks
 *		that a range of key numbers fits a table's columns.
 *
 * Counts and key numbers arrive as numeric, so that `rows => 8e11` works as
 * written; they are turned into int64 here with errors a DBA can act on.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "gen/spec.h"

/* Validate the generation options into spec. */
void
spec_init(GenSpec *spec, const char *mode, const char *prefix,
		  int zeropadding, int64 seed, int fieldlength)
{
	keys_init_spec(&spec->keys, mode, prefix, zeropadding);
	if (fieldlength <= 0 || fieldlength > SPEC_MAX_FIELDLENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fieldlength must be between 1 and %d, not %d",
						SPEC_MAX_FIELDLENGTH, fieldlength),
				 errhint("YCSB's default fieldlength is 100.")));
	spec->seed = (uint64) seed;
	spec->fieldlength = fieldlength;
}

/* Raise an error unless keys up to last_seq and the fields fit the columns. */
void
spec_check_shape(const GenSpec *spec, const RowShape *shape, int64 last_seq,
				 const char *name)
{
	int			keylen = keys_max_chars(&spec->keys, last_seq);
	int64		rowbytes;

	if (pg_mul_s64_overflow(spec->fieldlength, shape->nfields, &rowbytes) ||
		rowbytes > SPEC_MAX_ROW_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows of \"%s\" would be too long", name),
				 errdetail("%d field columns of fieldlength %d are " INT64_FORMAT " bytes.",
						   shape->nfields, spec->fieldlength,
						   (int64) shape->nfields * spec->fieldlength),
				 errhint("petagen generates at most %d field bytes per row: pass a smaller fieldlength, or use fewer field columns.",
						 SPEC_MAX_ROW_BYTES)));

	if (shape->field_maxchars >= 0 && spec->fieldlength > shape->field_maxchars)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("fieldlength %d is longer than the field columns of \"%s\" allow",
						spec->fieldlength, name),
				 errdetail("The shortest field column is varchar(%d).",
						   shape->field_maxchars),
				 errhint("Pass fieldlength => %d or less, or widen the columns.",
						 shape->field_maxchars)));
	if (shape->key_maxchars >= 0 && keylen > shape->key_maxchars)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("keys of mode \"%s\" can be %d characters long, longer than column ycsb_key of \"%s\" allows",
						keys_mode_name(spec->keys.mode), keylen, name),
				 errdetail("Column ycsb_key is varchar(%d).", shape->key_maxchars),
				 errhint("Use a shorter prefix or zeropadding, or widen the column.")));
}

/* A numeric count or key number argument as int64, 0 .. 2^63-1. */
int64
spec_count_arg(Numeric value, const char *argname)
{
	Datum		d = NumericGetDatum(value);
	Datum		whole;

	if (numeric_is_nan(value) || numeric_is_inf(value) ||
		DatumGetBool(DirectFunctionCall2(numeric_lt, d,
										 NumericGetDatum(int64_to_numeric(0)))) ||
		DatumGetBool(DirectFunctionCall2(numeric_gt, d,
										 NumericGetDatum(int64_to_numeric(PG_INT64_MAX)))))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be between 0 and " INT64_FORMAT ", not %s",
						argname, PG_INT64_MAX,
						DatumGetCString(DirectFunctionCall1(numeric_out, d)))));
	whole = DirectFunctionCall2(numeric_trunc, d, Int32GetDatum(0));
	if (!DatumGetBool(DirectFunctionCall2(numeric_eq, d, whole)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a whole number, not %s", argname,
						DatumGetCString(DirectFunctionCall1(numeric_out, d)))));
	return DatumGetInt64(DirectFunctionCall1(numeric_int8, d));
}

/* Raise an error unless first .. first+count-1 lies in the key space. */
void
spec_check_range(int64 first, int64 count)
{
	if (count > 0 && first > KEYS_MAX_SEQ - (count - 1))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("first " INT64_FORMAT " and count " INT64_FORMAT " run past the key space",
						first, count),
				 errdetail("Key numbers run from 0 to " INT64_FORMAT ".",
						   KEYS_MAX_SEQ)));
}

/*
 * Raise an error if an argument from number `from` on is NULL; argnames
 * holds the SQL names of all nargs arguments, funcname reads "schema.f()".
 */
void
spec_check_nulls(FunctionCallInfo fcinfo, int from,
				 const char *const *argnames, int nargs, const char *funcname)
{
	for (int i = from; i < nargs; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of %s must not be null",
							argnames[i], funcname)));
}

static const char *const range_arg_names[RANGE_NARGS] = {
	"table", "first", "count", "keys", "seed", "fieldlength", "prefix",
	"zeropadding"
};

/*
 * Read and validate the range and generation arguments of rows() and
 * load(); null_table_ok for rows(), whose table argument is NULL::table.
 */
void
spec_range_args(FunctionCallInfo fcinfo, const char *funcname,
				bool null_table_ok, int64 *first, int64 *count, GenSpec *spec)
{
	spec_check_nulls(fcinfo, null_table_ok ? RANGE_ARG_FIRST : RANGE_ARG_TABLE,
					 range_arg_names, RANGE_NARGS, funcname);
	*first = spec_count_arg(PG_GETARG_NUMERIC(RANGE_ARG_FIRST), "first");
	*count = spec_count_arg(PG_GETARG_NUMERIC(RANGE_ARG_COUNT), "count");
	spec_check_range(*first, *count);
	spec_init(spec,
			  text_to_cstring(PG_GETARG_TEXT_PP(RANGE_ARG_KEYS)),
			  text_to_cstring(PG_GETARG_TEXT_PP(RANGE_ARG_PREFIX)),
			  PG_GETARG_INT32(RANGE_ARG_ZEROPADDING),
			  PG_GETARG_INT64(RANGE_ARG_SEED),
			  PG_GETARG_INT32(RANGE_ARG_FIELDLENGTH));
}
