/*-------------------------------------------------------------------------
 * spec.h
 *		What to generate: key spelling, seed and field length, read from
 *		the SQL arguments of every function that takes them, validated
 *		against a table's shape and a range of key numbers.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_SPEC_H
#define PETAGEN_SPEC_H

#include "fmgr.h"
#include "utils/numeric.h"

#include "gen/keys.h"
#include "gen/shape.h"

/* Longest field petagen generates, in bytes. */
#define SPEC_MAX_FIELDLENGTH (1024 * 1024)
/* Most field bytes of one row (fieldlength x fields): a row is one palloc. */
#define SPEC_MAX_ROW_BYTES	(256 * 1024 * 1024)

/*
 * How long each field is: YCSB's fieldlengthdistribution.  constant: always
 * fieldlength; uniform and zipfian: minfieldlength .. fieldlength, drawn
 * per (seed, key number, field) by rowgen.c.
 */
typedef enum FieldLengthDist
{
	FIELDLEN_CONSTANT,
	FIELDLEN_UNIFORM,
	FIELDLEN_ZIPFIAN			/* YCSB's ZipfianGenerator(min, max) */
} FieldLengthDist;

/* Everything rows depend on besides the key number: a pure function of this. */
typedef struct GenSpec
{
	KeySpec		keys;
	uint64		seed;
	int			fieldlength;	/* the longest field */
	FieldLengthDist fielddist;
	int			minfieldlength; /* the shortest field, but for constant */
} GenSpec;

/* The generation arguments' defaults, as the SQL functions declare them. */
#define SPEC_DEFAULT_KEYS			"scrambled"
#define SPEC_DEFAULT_PREFIX			"user"
#define SPEC_DEFAULT_ZEROPADDING	1
#define SPEC_DEFAULT_SEED			0
#define SPEC_DEFAULT_FIELDLENGTH	100
#define SPEC_DEFAULT_FIELDLENGTHDISTRIBUTION "constant"
#define SPEC_DEFAULT_MINFIELDLENGTH	1

/*
 * Where one SQL function declares each generation argument, counted from 0
 * as PG_GETARG_*() counts; SPEC_NO_ARG for one it does not take (key(),
 * seq() and verify() take no seed and no fieldlength).  Each entry point
 * fills this from its own enum of argument names, by SPEC_ALL_ARGS(P_),
 * SPEC_GEN_ARGS(P_) or SPEC_KEY_ARGS(P_) where the enum names them P_KEYS,
 * P_SEED, ...  fieldlengthdistribution and minfieldlength, which came in
 * 0.2 at the end of the declarations, default to constant and 1 when a
 * function does not take them or they are not given and there is no
 * fallback.
 */
#define SPEC_NO_ARG (-1)
typedef struct GenArgs
{
	int			keys;
	int			seed;
	int			fieldlength;
	int			prefix;
	int			zeropadding;
	int			fieldlengthdistribution;
	int			minfieldlength;
} GenArgs;

/* All seven generation arguments, named p##KEYS .. p##MINFIELDLENGTH. */
#define SPEC_ALL_ARGS(p) \
	{p##KEYS, p##SEED, p##FIELDLENGTH, p##PREFIX, p##ZEROPADDING, \
	 p##FIELDLENGTHDISTRIBUTION, p##MINFIELDLENGTH}
/* The first five: constant field lengths, or a fallback's distribution. */
#define SPEC_GEN_ARGS(p) \
	{p##KEYS, p##SEED, p##FIELDLENGTH, p##PREFIX, p##ZEROPADDING, \
	 SPEC_NO_ARG, SPEC_NO_ARG}
/* The key spelling only: keys, prefix and zeropadding. */
#define SPEC_KEY_ARGS(p) \
	{p##KEYS, SPEC_NO_ARG, SPEC_NO_ARG, p##PREFIX, p##ZEROPADDING, \
	 SPEC_NO_ARG, SPEC_NO_ARG}

extern void spec_init(GenSpec *spec, const char *mode, const char *prefix,
					  int zeropadding, int64 seed, int fieldlength);
extern void spec_set_lengths(GenSpec *spec, const char *fielddist,
							 int minfieldlength);
extern const char *spec_fielddist_name(FieldLengthDist dist);
extern double spec_mean_fieldlength(const GenSpec *spec);
extern void spec_read_keys(FunctionCallInfo fcinfo, const GenArgs *args,
						   const KeySpec *fallback, KeySpec *keys);
extern void spec_read_args(FunctionCallInfo fcinfo, const GenArgs *args,
						   const GenSpec *fallback, GenSpec *spec);
extern void spec_check_shape(const GenSpec *spec, const RowShape *shape,
							 int64 last_seq, const char *name);
extern int64 spec_count_arg(Numeric value, const char *argname);
extern void spec_check_range(int64 first, int64 count);
extern void spec_check_nulls(FunctionCallInfo fcinfo, int from,
							 const char *const *argnames, int nargs,
							 const char *funcname);

/* The arguments petagen.rows() and petagen.load() share, in SQL order. */
typedef enum RangeArg
{
	RANGE_ARG_TABLE,
	RANGE_ARG_FIRST,
	RANGE_ARG_COUNT,
	RANGE_ARG_KEYS,
	RANGE_ARG_SEED,
	RANGE_ARG_FIELDLENGTH,
	RANGE_ARG_PREFIX,
	RANGE_ARG_ZEROPADDING,
	RANGE_ARG_FIELDLENGTHDISTRIBUTION,
	RANGE_ARG_MINFIELDLENGTH,
	RANGE_NARGS
} RangeArg;

extern void spec_range_args(FunctionCallInfo fcinfo, const char *funcname,
							bool null_table_ok, int64 *first, int64 *count,
							GenSpec *spec);

#endif							/* PETAGEN_SPEC_H */
