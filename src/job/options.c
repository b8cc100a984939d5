/*-------------------------------------------------------------------------
 * options.c
 *		A load job's arguments and its method, in one file read from top to
 *		bottom: start()'s and check()'s arguments read into a JobDef, the
 *		sizes a job may leave out (its chunks, the disk reserve in force),
 *		and the load method: the method argument and what 'auto' resolves
 *		to, and why.  Declared in job.h.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "gen/keys.h"
#include "guard.h"
#include "job/job.h"
#include "job/preflight.h"
#include "launch.h"
#include "load/load.h"
#include "petagen.h"

static int64 job_default_chunk_rows(const JobDef *def);
static const LoadMethod *method_option(const char *value);
static void method_resolve(JobDef *def, const LoadMethod *asked,
						   int64 chunk_rows);

/*
 * --------------------------------------------------------------------
 * Reading petagen.start()'s and petagen.check()'s arguments into a
 * JobDef: each argument found by its line in jobsettings.h (its
 * position in the function called, the catalog version that has it),
 * each checked with an error that names it, the generation arguments
 * through spec.c's reader (spec_read_args()), and the rules for the
 * settings a caller may leave out (chunk size, disk reserve).
 * petagen.disk_reserve is a floor: a job's disk_reserve may raise it,
 * not lower it.  alter() parses its sizes here too.
 *
 * The SQL declarations (sql/objects/start, check) hold the defaults a
 * caller sees; the arguments that may be NULL are derived here.  The
 * method is read after the disk reserve and before the chunk size, whose
 * default depends on it: method => 'auto' is resolved then (below).  A
 * setting whose JobDef member jobsettings.h declares (O()) is read by its
 * kind alone, after the others.
 * --------------------------------------------------------------------
 */

/* Largest chunk_rows a caller may ask for. */
#define JOB_CHUNK_ROWS_LIMIT	100000000

/* A line of JOB_SETTINGS as a JobSettingDesc. */
#define JS_OWN_M(member) false
#define JS_OWN_O(ctype, member) true
#define JS_OWN_NONE false
#define JS_OFFSET_M(member) offsetof(JobDef, member)
#define JS_OFFSET_O(ctype, member) offsetof(JobDef, member)
#define JS_OFFSET_NONE (-1)
#define JS_DESC(name, start, check, since, kind, nulls, member, dflt, none) \
	[JS_##name] = {#name, start, check, CATALOG_##since, JS_KIND_##kind, \
				   nulls, JS_OWN_##member, JS_OFFSET_##member, dflt, none},

/* Every setting of a job, as jobsettings.h declares them. */
const JobSettingDesc job_settings[JOB_NSETTINGS] = {
	JOB_SETTINGS(JS_DESC)
};

/* A setting's position in func's declaration, or -1 if func takes none. */
int
options_position(JobFunc func, JobSetting s)
{
	return func == JOB_FUNC_START ? job_settings[s].start : job_settings[s].check;
}

/*
 * The position of setting s in the declaration of func called, or -1
 * (SPEC_NO_ARG) if it has none: func takes no such argument, or the
 * catalog, whose declarations are those of its version, predates it.
 */
static int
options_arg(FunctionCallInfo fcinfo, JobFunc func, JobSetting s)
{
	int			pos = options_position(func, s);

	StaticAssertStmt(SPEC_NO_ARG == -1, "options_arg() returns SPEC_NO_ARG");
	if (pos < 0 || job_settings[s].since > catalog_version())
		return -1;
	if (pos >= PG_NARGS())
		elog(ERROR, "petagen: the function with OID %u has no argument \"%s\" at position %d",
			 fcinfo->flinfo->fn_oid, job_settings[s].name, pos + 1);
	return pos;
}

/* Raise an error for the first argument of func given NULL that may not be. */
static void
options_check_nulls(FunctionCallInfo fcinfo, JobFunc func, const char *funcname)
{
	for (int s = 0; s < JOB_NSETTINGS; s++)
	{
		int			pos = options_arg(fcinfo, func, s);

		if (!job_settings[s].nulls && pos >= 0 && PG_ARGISNULL(pos))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of %s must not be null",
							job_settings[s].name, funcname)));
	}
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

/* Size setting s of func in bytes, or its none when NULL. */
static int64
options_size(FunctionCallInfo fcinfo, JobFunc func, JobSetting s)
{
	int			pos = options_arg(fcinfo, func, s);

	if (pos < 0 || PG_ARGISNULL(pos))
		return job_settings[s].none;
	return options_size_bytes(PG_GETARG_TEXT_PP(pos), job_settings[s].name);
}

/*
 * chunk_rows as func was given it, or -1 if left out (NULL, or a
 * declaration without it).
 */
static int64
options_given_chunk_rows(FunctionCallInfo fcinfo, JobFunc func)
{
	int			pos = options_arg(fcinfo, func, JS_chunk_rows);

	return pos < 0 || PG_ARGISNULL(pos) ? -1 : PG_GETARG_INT64(pos);
}

/* Let def's method refuse its chunk_rows (a leaf job: too many files). */
static void
options_check_method_chunk_rows(const JobDef *def)
{
	LoadJob		job;

	if (def->method->check_chunk_rows == NULL)
		return;
	method_load_job(def, &job);
	def->method->check_chunk_rows(&job);
}

/* Read chunk_rows into def (after its method) and check the chunks it makes. */
static void
options_chunk_rows(FunctionCallInfo fcinfo, JobFunc func, JobDef *def)
{
	int64		nchunks;

	def->chunk_rows = options_given_chunk_rows(fcinfo, func);
	if (def->chunk_rows < 0)
		def->chunk_rows = job_default_chunk_rows(def);
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
	options_check_method_chunk_rows(def);
}

/*
 * Read and check the frozen and indexes options and the method into def,
 * resolving method => 'auto' (below).  A leaf job writes frozen rows into
 * new storage, safe without the frozen chunks' ownership requirement
 * (leafload.c).
 */
static void
options_load_method(FunctionCallInfo fcinfo, JobFunc func, JobDef *def)
{
	int			method_arg = options_arg(fcinfo, func, JS_method);

	def->frozen = PG_GETARG_BOOL(options_arg(fcinfo, func, JS_frozen));
	def->indexes_after = indexes_option(text_to_cstring(PG_GETARG_TEXT_PP(options_arg(fcinfo, func, JS_indexes))));
	/* the 0.1 declarations of start() and check() have no method: chunk */
	def->method = load_method_find("chunk");
	if (method_arg >= 0)
		method_resolve(def, method_option(text_to_cstring(PG_GETARG_TEXT_PP(method_arg))),
					   options_given_chunk_rows(fcinfo, func));
	options_check_method(def);
}

/* Raise an error unless def's table suits its load method and options. */
void
options_check_method(const JobDef *def)
{
	LoadJob		job;

	method_load_job(def, &job);
	if (def->method->check)
		def->method->check(&job);
	if (def->indexes_after)
		indexes_check(def->relid, &def->spec);
}

/* Read the generation arguments and the first key number into def. */
static void
options_gen_args(FunctionCallInfo fcinfo, JobFunc func, JobDef *def)
{
	GenArgs		args = {
		.keys = options_arg(fcinfo, func, JS_keys),
		.seed = options_arg(fcinfo, func, JS_seed),
		.fieldlength = options_arg(fcinfo, func, JS_fieldlength),
		.prefix = options_arg(fcinfo, func, JS_prefix),
		.zeropadding = options_arg(fcinfo, func, JS_zeropadding),
		.fieldlengthdistribution = options_arg(fcinfo, func, JS_fieldlengthdistribution),
		.minfieldlength = options_arg(fcinfo, func, JS_minfieldlength),
	};
	int			first_arg = options_arg(fcinfo, func, JS_first);

	spec_read_args(fcinfo, &args, NULL, &def->spec);
	keys_set_kind(&def->spec.keys, shape_key_kind(def->relid),
				  get_rel_name(def->relid));
	if (first_arg >= 0)
		def->first = spec_count_arg(PG_GETARG_NUMERIC(first_arg), "first");
	spec_check_range(def->first, def->rows);
}

/*
 * Read the settings whose JobDef member jobsettings.h declares (O()) into
 * def, each by its kind; one not given keeps zero.
 */
static void
options_own_args(FunctionCallInfo fcinfo, JobFunc func, JobDef *def)
{
	for (int s = 0; s < JOB_NSETTINGS; s++)
	{
		const JobSettingDesc *d = &job_settings[s];
		int			pos = options_arg(fcinfo, func, s);
		char	   *member = (char *) def + d->offset;

		if (!d->own || pos < 0 || PG_ARGISNULL(pos))
			continue;
		switch (d->kind)
		{
			case JS_KIND_INT4:
				*(int32 *) member = PG_GETARG_INT32(pos);
				break;
			case JS_KIND_INT8:
			case JS_KIND_OPT8:
				*(int64 *) member = PG_GETARG_INT64(pos);
				break;
			case JS_KIND_BOOL:
				*(bool *) member = PG_GETARG_BOOL(pos);
				break;
			case JS_KIND_TEXT:
				*(char **) member = text_to_cstring(PG_GETARG_TEXT_PP(pos));
				break;
			default:
				elog(ERROR, "petagen: setting \"%s\" has a kind only options.c reads",
					 d->name);
		}
	}
}

/*
 * Read and validate the arguments of func (start() or check()) into def;
 * funcname reads "petagen.f()".
 */
void
options_parse(FunctionCallInfo fcinfo, const char *funcname,
			  JobFunc func, JobDef *def)
{
	options_check_nulls(fcinfo, func, funcname);
	memset(def, 0, sizeof(*def));
	def->rows = spec_count_arg(PG_GETARG_NUMERIC(options_arg(fcinfo, func, JS_rows)), "rows");
	if (def->rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows must be at least 1")));
	def->nworkers = PG_GETARG_INT32(options_arg(fcinfo, func, JS_workers));
	launch_check_worker_count(def->nworkers);
	def->relid = guard_table_name(PG_GETARG_TEXT_PP(options_arg(fcinfo, func, JS_table)));
	options_gen_args(fcinfo, func, def);
	/* the disk reserve before the method: 'auto' weighs the routing files */
	def->disk_reserve = options_size(fcinfo, func, JS_disk_reserve);
	def->max_rate = options_size(fcinfo, func, JS_max_rate);
	options_load_method(fcinfo, func, def);
	options_chunk_rows(fcinfo, func, def);
	options_own_args(fcinfo, func, def);
}

/*
 * --------------------------------------------------------------------
 * The sizes of a load job that a caller may leave out: its chunk size,
 * by the number of workers and the method, and the disk reserve in
 * force.  petagen.disk_reserve is a floor: a job's disk_reserve may
 * raise it, not lower it.  And where a job's chunks lie in its key
 * space first .. first+rows-1.  Below the reading of the
 * arguments (above) and the method's choice (below), which weighs them
 * for method => 'auto'.
 * --------------------------------------------------------------------
 */

/* The chunk size rule of job_default_chunk_rows(). */
#define JOB_CHUNKS_PER_WORKER	4
#define JOB_CHUNK_ROWS_MIN		1000
#define JOB_CHUNK_ROWS_MAX		100000

/* The last key number of def's key space. */
int64
job_last_seq(const JobDef *def)
{
	return def->first + (def->rows - 1);
}

/*
 * The disk reserve in force for a job, in bytes: the setting's, which the
 * DBA sets for every job, or the job's own if that is larger.  A job may
 * raise the reserve, never lower it below the setting.
 */
int64
job_reserve(const JobDef *def)
{
	return Max(def->disk_reserve, (int64) petagen_disk_reserve_mb * 1024 * 1024);
}

/*
 * The chunk size of a job that names none: about JOB_CHUNKS_PER_WORKER
 * chunks per worker, so that a small load keeps every worker busy, within
 * JOB_CHUNK_ROWS_MIN .. JOB_CHUNK_ROWS_MAX (one transaction each), or
 * within the method's own bounds if it has some (a leaf job's: one file each).
 */
static int64
job_default_chunk_rows(const JobDef *def)
{
	int64		per_chunk = (def->rows - 1) / ((int64) def->nworkers * JOB_CHUNKS_PER_WORKER) + 1;

	if (def->method->chunk_rows_min > 0)
		return Min(Max(per_chunk, def->method->chunk_rows_min),
				   def->method->chunk_rows_max);
	return Min(Max(per_chunk, JOB_CHUNK_ROWS_MIN), JOB_CHUNK_ROWS_MAX);
}

/*
 * --------------------------------------------------------------------
 * Choosing a job's load method: method => 'auto' (the default of
 * start() and check()) walks load_methods[] (src/load/methods.c) in
 * order and takes the first method without an obstacle: the leaf method
 * when it may, the chunk method otherwise; a method named is taken as
 * asked.
 *
 * The leaf method loads several times faster (docs/performance.md), but
 * refuses what the chunk method loads: hashed YCSB keys (duplicates),
 * indexes => 'after', a chunk_rows below its range minimum, a leaf the role
 * may not TRUNCATE, a local leaf that holds rows, and routing files that do
 * not fit in the data directory (which may be a smaller filesystem than
 * the leaves' tablespaces).  'auto' takes the
 * chunk method on each of those instead of refusing, and on an
 * unpartitioned table, which the leaf method would write with one worker
 * in one transaction that a crash rolls back whole.  Foreign leaves and
 * Citus shards of other nodes are not written by either method, so they
 * count for nothing.  Looking at the leaves runs in a subtransaction: a
 * table start() cannot load (a Citus reference table, say) makes 'auto'
 * take the chunk method, whose checks then report the table as they do
 * for method => 'chunk' (check() as a finding, not an error).  The choice is made once, at start(): the catalog
 * keeps the method chosen (jobs.method, which resume() follows) and why
 * (jobs.method_reason).  Choosing leaf weakens none of the leaf method's
 * own checks: start() still runs its preflight, and every worker checks
 * each leaf empty again under its lock (leafload.c), so a row committed
 * after start() fails the leaf as it would with method => 'leaf'.
 *
 * The methods themselves are in src/load/ (load.h), and so are their
 * obstacles (the leaf method's, above, in methods.c): def->method is one
 * of them, chosen here, or looked up by name when a job is read
 * (ledger.c); method_load_job() gives a method the job as it sees it.
 * --------------------------------------------------------------------
 */

/* Parse the method argument of start() or check(): NULL for 'auto'. */
static const LoadMethod *
method_option(const char *value)
{
	const LoadMethod *method = load_method_by_name(value);

	if (strcmp(value, "auto") == 0)
		return NULL;
	if (method == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method must be 'auto', 'chunk' or 'leaf', not \"%s\"", value),
				 errhint("'auto' (the default) takes 'leaf' when every local leaf is empty and you may truncate them, else 'chunk'; 'chunk' loads chunks of key numbers into every leaf; 'leaf' writes each local leaf whole, frozen, in one transaction.")));
	return method;
}

/* A method's obstacle to a load, for check_try(). */
typedef struct MethodChoice
{
	const JobDef *def;
	const LoadMethod *method;
	int64		chunk_rows;		/* the caller's, or -1 if left out */
	char	   *obstacle;
} MethodChoice;

/* The obstacle of MethodChoice arg's method to its load, as it would be. */
static void
method_obstacle(void *arg)
{
	MethodChoice *choice = arg;
	JobDef		def = *choice->def;
	LoadJob		job;
	LoadCheck	check = {
		.job = &job,
		.chunk_rows_asked = choice->chunk_rows >= 0,
		.reserve = job_reserve(choice->def),
		.may_read = check_may_read,
		.size = check_size,
	};

	def.method = choice->method;
	def.chunk_rows = choice->chunk_rows >= 0 ? choice->chunk_rows :
		job_default_chunk_rows(&def);
	method_load_job(&def, &job);
	choice->obstacle = choice->method->obstacle(&check);
}

/*
 * Why def's load cannot take method, or NULL if it can; an error looking
 * at the table (one start() and check() report as the table's) is a
 * reason too: the next method's checks then report it.
 */
static char *
method_obstacle_safe(const JobDef *def, const LoadMethod *method,
					 int64 chunk_rows)
{
	MethodChoice choice = {def, method, chunk_rows, NULL};
	ErrorData  *edata;

	if (method->obstacle == NULL)
		return NULL;
	edata = check_try(method_obstacle, &choice);
	return edata ? edata->message : choice.obstacle;
}

/*
 * Set def's method from the method asked for (NULL: 'auto', the first of
 * load_methods[] without an obstacle; chunk_rows is the caller's, or -1 if
 * left out), and def->method_reason to why: the obstacle of the method
 * before it, or the method's own reason.
 */
static void
method_resolve(JobDef *def, const LoadMethod *asked, int64 chunk_rows)
{
	char	   *reason = NULL;

	def->method_auto = asked == NULL;
	if (!def->method_auto)
	{
		def->method = asked;
		def->method_reason = psprintf("method => '%s' was asked",
									  def->method->name);
		return;
	}
	for (int i = 0; load_methods[i] != NULL; i++)
	{
		char	   *obstacle = method_obstacle_safe(def, load_methods[i],
													chunk_rows);
		LoadJob		job;

		if (obstacle != NULL)
		{
			reason = obstacle;
			continue;
		}
		def->method = load_methods[i];
		if (reason == NULL)
		{
			method_load_job(def, &job);
			reason = def->method->auto_reason(&job);
		}
		def->method_reason = reason;
		return;
	}
	elog(ERROR, "every load method has an obstacle: %s", reason);
}

/*
 * def's job as its method sees it, outside any worker: the worker sets
 * its index, units, memory context and the method's state.
 */
void
method_load_job(const JobDef *def, LoadJob *job)
{
	LoadJob		view = {
		.job = def->job,
		.relid = def->relid,
		.first = def->first,
		.rows = def->rows,
		.chunk_rows = def->chunk_rows,
		.spec = def->spec,
		.frozen = def->frozen,
		.indexes_after = def->indexes_after,
		.token = def->route_token,
		.run = def->run,
		.worker = -1,
		.cxt = CurrentMemoryContext,
	};

	*job = view;
}
