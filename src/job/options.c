/*-------------------------------------------------------------------------
 * options.c
 *		Reading petagen.start()'s and petagen.check()'s arguments into a
 *		JobDef: each argument by its name (options.h), each checked with an
 *		error that names it, the generation arguments through spec.c's
 *		reader (spec_read_args()), and the rules for the settings a caller
 *		may leave out (chunk size, disk reserve).  petagen.disk_reserve is
 *		a floor: a job's disk_reserve may raise it, not lower it.  alter()
 *		parses its sizes here too.
 *
 * The SQL declarations (sql/objects/start.sql, check.sql) hold the
 * defaults a caller sees; the arguments that may be NULL are derived here.
 * The method is read after the disk reserve and before the chunk size,
 * whose default depends on it: method => 'auto' is resolved then (method.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/fmgrprotos.h"

#include "guard.h"
#include "launch.h"
#include "load/load.h"
#include "job/method.h"
#include "job/options.h"
#include "job/sizing.h"
#include "petagen.h"

/* Largest chunk_rows a caller may ask for. */
#define JOB_CHUNK_ROWS_LIMIT	100000000

/* The names of start()'s arguments, as errors name them. */
static const char *const start_arg_names[START_NARGS] = {
	[START_ARG_ROWS] = "rows",
	[START_ARG_WORKERS] = "workers",
	[START_ARG_TABLE] = "table",
	[START_ARG_KEYS] = "keys",
	[START_ARG_SEED] = "seed",
	[START_ARG_FIELDLENGTH] = "fieldlength",
	[START_ARG_PREFIX] = "prefix",
	[START_ARG_ZEROPADDING] = "zeropadding",
	[START_ARG_CHUNK_ROWS] = "chunk_rows",
	[START_ARG_DISK_RESERVE] = "disk_reserve",
	[START_ARG_MAX_RATE] = "max_rate",
	[START_ARG_FROZEN] = "frozen",
	[START_ARG_INDEXES] = "indexes",
	[START_ARG_FORCE] = "force",
	[START_ARG_METHOD] = "method",
	[START_ARG_FIELDLENGTHDISTRIBUTION] = "fieldlengthdistribution",
	[START_ARG_MINFIELDLENGTH] = "minfieldlength",
	[START_ARG_FIRST] = "first",
};

/* Where start() declares the generation arguments. */
static const GenArgs start_gen_args = SPEC_ALL_ARGS(START_ARG_);

/* Raise an error if argument arg is NULL. */
void
options_check_not_null(FunctionCallInfo fcinfo, StartArg arg,
					   const char *funcname)
{
	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" of %s must not be null",
						start_arg_names[arg], funcname)));
}

/* Raise an error if the job argument (the first) of a function taking a job is NULL. */
void
options_check_job_arg(FunctionCallInfo fcinfo, const char *funcname)
{
	static const char *const names[] = {"job"};

	spec_check_nulls(fcinfo, 0, names, lengthof(names), funcname);
}

/*
 * A size such as '10GB' in bytes, for the disk_reserve or max_rate
 * argument named argname (of start(), check() or alter()).
 */
int64
options_size_bytes(text *arg, const char *argname)
{
	int64		bytes = DatumGetInt64(DirectFunctionCall1(pg_size_bytes,
														  PointerGetDatum(arg)));

	if (bytes < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative, not \"%s\"", argname,
						text_to_cstring(arg))));
	if (bytes > JOB_MAX_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be at most 1024 PB, not \"%s\"", argname,
						text_to_cstring(arg)),
				 errhint("disk_reserve and max_rate are at most 2^60 bytes, so that sums with free space stay in range.")));
	return bytes;
}

/* Size argument arg of start() or check() in bytes, or `none` when NULL. */
static int64
options_size(FunctionCallInfo fcinfo, StartArg arg, int64 none)
{
	if (PG_ARGISNULL(arg))
		return none;
	return options_size_bytes(PG_GETARG_TEXT_PP(arg), start_arg_names[arg]);
}

/* Raise an error if a leaf job's ranges would be too small: too many files. */
static void
options_check_leaf_ranges(const JobDef *def)
{
	if (def->method->whole_leaves && def->chunk_rows < LEAF_RANGE_ROWS_MIN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_rows of a leaf job must be at least %d, not " INT64_FORMAT,
						LEAF_RANGE_ROWS_MIN, def->chunk_rows),
				 errdetail("A leaf job routes its keys in ranges of chunk_rows keys, one file in the data directory each: " INT64_FORMAT " rows would make " INT64_FORMAT " files.",
						   def->rows, load_nchunks(def->rows, def->chunk_rows)),
				 errhint("Leave chunk_rows out: a leaf job then routes ranges of %d to %d keys.",
						 LEAF_RANGE_ROWS_MIN, LEAF_RANGE_ROWS_MAX)));
}

/* Read chunk_rows into def (after its method) and check the chunks it makes. */
static void
options_chunk_rows(FunctionCallInfo fcinfo, JobDef *def)
{
	int64		nchunks;

	def->chunk_rows = PG_ARGISNULL(START_ARG_CHUNK_ROWS) ?
		job_default_chunk_rows(def) : PG_GETARG_INT64(START_ARG_CHUNK_ROWS);
	if (def->chunk_rows < 1 || def->chunk_rows > JOB_CHUNK_ROWS_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_rows must be between 1 and %d, not " INT64_FORMAT,
						JOB_CHUNK_ROWS_LIMIT, def->chunk_rows),
				 errhint("Each chunk of key numbers is one transaction; leave chunk_rows out for the default.")));
	nchunks = load_nchunks(def->rows, def->chunk_rows);
	if (nchunks > JOB_MAX_CHUNKS)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows " INT64_FORMAT " in chunks of " INT64_FORMAT " make " INT64_FORMAT " chunks, too many for one job",
						def->rows, def->chunk_rows, nchunks),
				 errhint("A job has at most " INT64_FORMAT " chunks, so for " INT64_FORMAT " rows chunk_rows must be at least " INT64_FORMAT ".",
						 JOB_MAX_CHUNKS, def->rows,
						 load_nchunks(def->rows, JOB_MAX_CHUNKS))));
	options_check_leaf_ranges(def);
}

/*
 * Read and check the frozen and indexes options and the method (argument
 * method_arg) into def, resolving method => 'auto' (method.c).  A leaf job
 * writes frozen rows into new storage, safe without the frozen chunks'
 * ownership requirement (leafload.c).
 */
static void
options_load_method(FunctionCallInfo fcinfo, const char *funcname,
					StartArg method_arg, JobDef *def)
{
	options_check_not_null(fcinfo, START_ARG_FROZEN, funcname);
	options_check_not_null(fcinfo, START_ARG_INDEXES, funcname);
	def->frozen = PG_GETARG_BOOL(START_ARG_FROZEN);
	def->indexes_after = indexes_option(text_to_cstring(PG_GETARG_TEXT_PP(START_ARG_INDEXES)));
	/* the 0.1 declarations of start() and check() have no method: chunk */
	def->method = load_method_find("chunk");
	if (PG_NARGS() > method_arg)
	{
		if (PG_ARGISNULL(method_arg))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"method\" of %s must not be null", funcname)));
		method_resolve(def, method_option(text_to_cstring(PG_GETARG_TEXT_PP(method_arg))),
					   PG_ARGISNULL(START_ARG_CHUNK_ROWS) ? -1 :
					   PG_GETARG_INT64(START_ARG_CHUNK_ROWS));
	}
	options_check_method(def);
}

/* Raise an error unless def's table suits its load method and options. */
void
options_check_method(const JobDef *def)
{
	if (def->method->whole_leaves)
		leaf_check(def->relid, &def->spec, def->indexes_after);
	else if (def->frozen)
		frozen_check(def->relid, &def->spec);
	if (def->indexes_after)
		indexes_check(def->relid, &def->spec);
}

/*
 * Read the generation arguments and the first key number into def; those
 * after method (argument method_arg) are one place earlier in check(),
 * which takes no force.
 */
static void
options_gen_args(FunctionCallInfo fcinfo, const char *funcname,
				 StartArg method_arg, JobDef *def)
{
	int			shift = method_arg - START_ARG_METHOD;
	int			first_arg = START_ARG_FIRST + shift;
	GenArgs		args = start_gen_args;

	args.fieldlengthdistribution += shift;
	args.minfieldlength += shift;
	for (int arg = START_ARG_FIELDLENGTHDISTRIBUTION; arg < START_NARGS; arg++)
		if (arg + shift < PG_NARGS() && PG_ARGISNULL(arg + shift))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of %s must not be null",
							start_arg_names[arg], funcname)));
	spec_read_args(fcinfo, &args, NULL, &def->spec);
	keys_set_kind(&def->spec.keys, shape_key_kind(def->relid),
				  get_rel_name(def->relid));
	if (first_arg < PG_NARGS())
		def->first = spec_count_arg(PG_GETARG_NUMERIC(first_arg), "first");
	spec_check_range(def->first, def->rows);
}

/*
 * Read and validate the arguments start() and check() share, rows ..
 * indexes and method (argument method_arg) and those after it, into def;
 * funcname reads "petagen.f()".
 */
void
options_parse(FunctionCallInfo fcinfo, const char *funcname,
			  StartArg method_arg, JobDef *def)
{
	spec_check_nulls(fcinfo, START_ARG_ROWS, start_arg_names,
					 START_ARG_CHUNK_ROWS, funcname);
	memset(def, 0, sizeof(*def));
	def->rows = spec_count_arg(PG_GETARG_NUMERIC(START_ARG_ROWS), "rows");
	if (def->rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows must be at least 1")));
	def->nworkers = PG_GETARG_INT32(START_ARG_WORKERS);
	launch_check_worker_count(def->nworkers);
	def->relid = guard_table_name(PG_GETARG_TEXT_PP(START_ARG_TABLE));
	options_gen_args(fcinfo, funcname, method_arg, def);
	/* the disk reserve before the method: 'auto' weighs the routing files */
	def->disk_reserve = options_size(fcinfo, START_ARG_DISK_RESERVE, -1);
	def->max_rate = options_size(fcinfo, START_ARG_MAX_RATE, 0);
	options_load_method(fcinfo, funcname, method_arg, def);
	options_chunk_rows(fcinfo, def);
}
