/*-------------------------------------------------------------------------
 * spec.c
 *		The generation spec shared by petagen.rows() and the loader: the key
 *		mode and its spelling, the seed, the field lengths (YCSB's
 *		fieldlength, fieldlengthdistribution and minfieldlength), and the
 *		checks that a range of key numbers fits a table's columns.
 *
 * Counts and key numbers arrive as numeric, so that `rows => 8e11` works as
 * written; they are turned into int64 here with errors a DBA can act on.
 *
 * spec_read_args() and spec_read_keys() are the one reader of the
 * generation arguments (keys, seed, fieldlength, prefix, zeropadding,
 * fieldlengthdistribution, minfieldlength) for every SQL function that
 * takes them: each caller passes where its declaration has them (GenArgs,
 * from its enum of argument names).  The
 * caller checks for NULL first, with errors naming the argument, or passes
 * a fallback spec for the arguments not given (bench(): the key space of
 * the table's load job).  An argument past PG_NARGS() is not given: the
 * 0.1 declarations a server runs until ALTER EXTENSION petagen UPDATE may
 * end before it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/int.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "gen/spec.h"

/* YCSB's ZipfianGenerator constant, which its field lengths use. */
#define SPEC_ZIPFIAN_CONSTANT	0.99
/* spec_power_sum() adds up to this many terms exactly. */
#define SPEC_EXACT_SUM			1000

static const char *const spec_fielddist_names[] = {
	[FIELDLEN_CONSTANT] = "constant",
	[FIELDLEN_UNIFORM] = "uniform",
	[FIELDLEN_ZIPFIAN] = "zipfian",
};

/* Validate the seed and field length into spec, its keys already set. */
static void
spec_set_values(GenSpec *spec, int64 seed, int fieldlength)
{
	if (fieldlength <= 0 || fieldlength > SPEC_MAX_FIELDLENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fieldlength must be between 1 and %d, not %d",
						SPEC_MAX_FIELDLENGTH, fieldlength),
				 errhint("YCSB's default fieldlength is 100.")));
	spec->seed = (uint64) seed;
	spec->fieldlength = fieldlength;
	spec->fielddist = FIELDLEN_CONSTANT;
	spec->minfieldlength = SPEC_DEFAULT_MINFIELDLENGTH;
}

/* The SQL name of a field length distribution. */
const char *
spec_fielddist_name(FieldLengthDist dist)
{
	return spec_fielddist_names[dist];
}

/* Look a field length distribution up by name, or raise an error. */
static FieldLengthDist
spec_fielddist_lookup(const char *name)
{
	for (int i = 0; i < lengthof(spec_fielddist_names); i++)
		if (strcmp(name, spec_fielddist_names[i]) == 0)
			return (FieldLengthDist) i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown fieldlengthdistribution \"%s\"", name),
			 errhint("Valid field length distributions are \"constant\", \"uniform\" and \"zipfian\".")));
	pg_unreachable();
}

/*
 * Validate the field length distribution and the shortest field into spec,
 * its fieldlength already set: minfieldlength runs from 1 to fieldlength.
 */
void
spec_set_lengths(GenSpec *spec, const char *fielddist, int minfieldlength)
{
	spec->fielddist = spec_fielddist_lookup(fielddist);
	if (minfieldlength < 1 || minfieldlength > spec->fieldlength)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("minfieldlength must be between 1 and fieldlength %d, not %d",
						spec->fieldlength, minfieldlength),
				 errhint("Fields of fieldlengthdistribution \"uniform\" and \"zipfian\" are minfieldlength to fieldlength characters long; YCSB's default minfieldlength is 1.")));
	spec->minfieldlength = minfieldlength;
}

/*
 * sum i^-s for i = 1 .. n: the first SPEC_EXACT_SUM terms exactly, the
 * rest as the integral over [SPEC_EXACT_SUM + 1/2, n + 1/2] (relative error
 * below 10^-8 for the exponents used here).
 */
static double
spec_power_sum(int n, double s)
{
	double		sum = 0;

	for (int i = 1; i <= Min(n, SPEC_EXACT_SUM); i++)
		sum += pow(i, -s);
	if (n > SPEC_EXACT_SUM)
		sum += (pow(n + 0.5, 1 - s) - pow(SPEC_EXACT_SUM + 0.5, 1 - s)) / (1 - s);
	return sum;
}

/*
 * The mean length of a field: what a size estimate multiplies by.  For
 * zipfian, the mean of Zipf's law with YCSB's constant 0.99 over the
 * lengths, which YCSB's generator approximates.
 */
double
spec_mean_fieldlength(const GenSpec *spec)
{
	int			n = spec->fieldlength - spec->minfieldlength + 1;

	if (spec->fielddist == FIELDLEN_CONSTANT)
		return spec->fieldlength;
	if (spec->fielddist == FIELDLEN_UNIFORM)
		return (spec->minfieldlength + spec->fieldlength) / 2.0;
	/* length minfieldlength + i - 1 has weight i^-0.99, i = 1 .. n */
	return spec->minfieldlength - 1 +
		spec_power_sum(n, SPEC_ZIPFIAN_CONSTANT - 1) /
		spec_power_sum(n, SPEC_ZIPFIAN_CONSTANT);
}

/* Validate the generation options into spec. */
void
spec_init(GenSpec *spec, const char *mode, const char *prefix,
		  int zeropadding, int64 seed, int fieldlength)
{
	keys_init_spec(&spec->keys, mode, prefix, zeropadding);
	spec_set_values(spec, seed, fieldlength);
}

/* Is generation argument argno given: declared, within PG_NARGS(), not NULL? */
static bool
spec_arg_given(FunctionCallInfo fcinfo, int argno)
{
	return argno != SPEC_NO_ARG && argno < PG_NARGS() && !PG_ARGISNULL(argno);
}

/* Raise an error for a generation argument neither given nor defaulted. */
static void
spec_arg_missing(FunctionCallInfo fcinfo, int argno)
{
	/* callers check for NULL first: this is a caller's mistake */
	elog(ERROR, "generation argument %d of the function with OID %u is missing",
		 argno, fcinfo->flinfo->fn_oid);
}

/* Text generation argument argno, or fallback (NULL: none) when not given. */
static const char *
spec_text_arg(FunctionCallInfo fcinfo, int argno, const char *fallback)
{
	if (spec_arg_given(fcinfo, argno))
		return text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (fallback == NULL)
		spec_arg_missing(fcinfo, argno);
	return fallback;
}

/*
 * Integer generation argument argno as a Datum, or fallback when it is not
 * given; have_fallback false: the caller has checked that it is given.
 */
static Datum
spec_int_arg(FunctionCallInfo fcinfo, int argno, bool have_fallback,
			 Datum fallback)
{
	if (spec_arg_given(fcinfo, argno))
		return PG_GETARG_DATUM(argno);
	if (!have_fallback)
		spec_arg_missing(fcinfo, argno);
	return fallback;
}

/*
 * Read and validate keys, prefix and zeropadding at the positions args
 * names into keys; those not given take fallback's (NULL: all are given).
 */
void
spec_read_keys(FunctionCallInfo fcinfo, const GenArgs *args,
			   const KeySpec *fallback, KeySpec *keys)
{
	const char *mode = spec_text_arg(fcinfo, args->keys,
									 fallback ? keys_mode_name(fallback->mode) : NULL);
	const char *prefix = spec_text_arg(fcinfo, args->prefix,
									   fallback ? fallback->prefix : NULL);
	int32		zeropadding =
	DatumGetInt32(spec_int_arg(fcinfo, args->zeropadding, fallback != NULL,
							   Int32GetDatum(fallback ? fallback->zeropadding : 0)));

	Assert(keys != fallback);
	keys_init_spec(keys, mode, prefix, zeropadding);
}

/*
 * Read and validate all the generation arguments at the positions args
 * names into spec; those not given take fallback's (NULL: all are given).
 */
void
spec_read_args(FunctionCallInfo fcinfo, const GenArgs *args,
			   const GenSpec *fallback, GenSpec *spec)
{
	bool		have = fallback != NULL;
	int64		seed =
	DatumGetInt64(spec_int_arg(fcinfo, args->seed, have,
							   Int64GetDatum(have ? (int64) fallback->seed : 0)));
	int32		fieldlength =
	DatumGetInt32(spec_int_arg(fcinfo, args->fieldlength, have,
							   Int32GetDatum(have ? fallback->fieldlength : 0)));
	const char *fielddist =
	spec_text_arg(fcinfo, args->fieldlengthdistribution,
				  have ? spec_fielddist_name(fallback->fielddist) :
				  SPEC_DEFAULT_FIELDLENGTHDISTRIBUTION);
	int32		minfieldlength =
	DatumGetInt32(spec_int_arg(fcinfo, args->minfieldlength, true,
							   Int32GetDatum(have ? fallback->minfieldlength :
											 SPEC_DEFAULT_MINFIELDLENGTH)));

	spec_read_keys(fcinfo, args, fallback ? &fallback->keys : NULL,
				   &spec->keys);
	spec_set_values(spec, seed, fieldlength);
	spec_set_lengths(spec, fielddist, minfieldlength);
}

/* Raise an error unless key numbers up to last_seq fit an integer ycsb_key. */
static void
spec_check_int_keys(const GenSpec *spec, const RowShape *shape,
					int64 last_seq, const char *name)
{
	if (spec->keys.kind != shape->key_kind)
		elog(ERROR, "key kind %d of the spec is not kind %d of \"%s\"",
			 (int) spec->keys.kind, (int) shape->key_kind, name);
	if (last_seq > keys_max_seq(&spec->keys))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("key number " INT64_FORMAT " is out of range for column ycsb_key of \"%s\"",
						last_seq, name),
				 errdetail("The largest key number is " INT64_FORMAT "; column ycsb_key is integer and holds key numbers up to " INT64_FORMAT ".",
						   last_seq, keys_max_seq(&spec->keys)),
				 errhint("Make the column bigint: ALTER TABLE %s ALTER COLUMN ycsb_key TYPE bigint.",
						 quote_identifier(name))));
}

/* Raise an error unless keys up to last_seq and the fields fit the columns. */
void
spec_check_shape(const GenSpec *spec, const RowShape *shape, int64 last_seq,
				 const char *name)
{
	int			keylen = keys_max_chars(&spec->keys, last_seq);
	int64		rowbytes;

	spec_check_int_keys(spec, shape, last_seq, name);

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
	/* a 0.1 declaration may end before the last argument */
	for (int i = from; i < Min(nargs, PG_NARGS()); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of %s must not be null",
							argnames[i], funcname)));
}

static const char *const range_arg_names[RANGE_NARGS] = {
	"table", "first", "count", "keys", "seed", "fieldlength", "prefix",
	"zeropadding", "fieldlengthdistribution", "minfieldlength"
};

/* Where rows() and load() declare the generation arguments. */
static const GenArgs range_gen_args = SPEC_ALL_ARGS(RANGE_ARG_);

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
	spec_read_args(fcinfo, &range_gen_args, NULL, spec);
}
