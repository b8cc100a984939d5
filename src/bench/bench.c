/*-------------------------------------------------------------------------
 * bench.c
 *		The SQL entry points of a benchmark: petagen.bench() and
 *		petagen.bench_sweep() start, wait for and merge a run;
 *		petagen.bench_status() reads the running ones live;
 *		petagen.forget_bench() removes finished ones.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "bench/bench.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/libpq.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "gen/keys.h"
#include "gen/rowgen.h"
#include "gen/spec.h"
#include "guard.h"
#include "job/ledger.h"
#include "launch.h"
#include "load/load.h"

static void bench_live_announce(dsm_segment *seg, int64 run);
static void bench_live_withdraw(void);


/*-------------------------------------------------------------------------
 *		petagen.bench() and petagen.bench_sweep(): validate a benchmark,
 *		start its background workers, wait for them, merge their figures,
 *		record the run in petagen.bench_results and return it.
 *
 * bench() is synchronous and may run inside any transaction: its workers
 * read nothing the caller wrote, they get everything through the run's
 * DSM segment, and each of their operations is a transaction of its own,
 * so they see only committed data and never wait for the caller.  Bad
 * input is refused before anything starts.  The workers end with their
 * caller: when the caller detaches the run's segment, however it leaves
 * (the run ended, an error or a cancel aborted its transaction,
 * pg_terminate_backend or a lost client ended it), a callback terminates
 * the workers still there, as parallel query does.  bench() looks for a
 * lost client while it waits, so it notices one without
 * client_connection_check_interval.  While it runs, bench_status() shows
 * it (bench.c).  A run that did not end records
 * nothing: its row would go with the aborted transaction, and a partial
 * window is no measurement.  With start_at, the workers start and prepare
 * their statements, then bench() waits, interruptibly, until that instant
 * before it lets them go: cluster_bench() gives every node's bench() the
 * same one, so that their runs measure the same window.
 *
 * The key space (rows and how keys are spelled) comes from the newest
 * load job of the table, a finished one first; explicit options override
 * it; bench() warns when the target leaves lack the first, middle or
 * last key of that key space.  Inserted keys (YCSB d and e) are key
 * numbers from the end of the load's (bench_key_end(), rows) + id * 2^40
 * on, id being the run's bench_results id, striped across the workers:
 * no two runs and no two workers insert the same key number, and none
 * is one of the load's.  An int ycsb_key has no room for stripes of 2^40:
 * a run's inserts there start where the earlier runs of the load job ended
 * theirs (options.insert_end in bench_results), one run after another,
 * and a run with no key number left below 2^31 is refused (a worker
 * stops with an error at the first key number past it).  The workload's arguments are read in bench_params.c,
 * the target leaves resolved and checked in bench_params.c; the run is
 * reported in bench_results.c.
 *-------------------------------------------------------------------------
 */

/* The duration of a run given neither a duration nor an operationcount. */
#define BENCH_DEFAULT_DURATION	"10 s"
/* Longest duration and warm-up, in microseconds: nanosecond clocks stay in range. */
#define BENCH_MAX_US		(INT64CONST(365) * USECS_PER_DAY)
/* The latest start_at a run accepts, from the call. */
#define BENCH_MAX_START_AHEAD_US	(INT64CONST(3600) * USECS_PER_SEC)
/* Time past the end after which bench() terminates workers still busy. */
#define BENCH_GRACE_NS		(UINT64CONST(10) * 1000000000)

static const char *const bench_arg_names[] = {
	"kind", "workers", "duration", "warmup", "table"
};

/* Where bench() and bench_sweep() declare the generation arguments. */
static const GenArgs bench_gen_args = SPEC_GEN_ARGS(BENCH_ARG_);

/* The workers of a run, for the callback that terminates them with the caller. */
typedef struct BenchLeader
{
	int			nworkers;		/* registered so far */
	BackgroundWorkerHandle *handles[FLEXIBLE_ARRAY_MEMBER];
} BenchLeader;

/* An interval argument in microseconds, a month being 30 days; at most a year. */
static int64
bench_interval_us(const Interval *iv, const char *argname)
{
	int64		days_us;
	int64		us;

	if (pg_mul_s64_overflow((int64) iv->month * DAYS_PER_MONTH + iv->day,
							USECS_PER_DAY, &days_us) ||
		pg_add_s64_overflow(days_us, iv->time, &us) || us > BENCH_MAX_US)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range", argname),
				 errhint("A benchmark's %s is at most 365 days.", argname)));
	return us;
}

/*
 * The key space: from the newest load job of the table (its first key
 * number too), overridden by options (rows given: from 0).
 */
static void
bench_key_space(BenchDef *def, FunctionCallInfo fcinfo)
{
	JobDef		job;

	def->rows = -1;
	def->first = 0;
	def->job = ledger_newest_job_of(def->relid);
	if (def->job == 0 || !job_read(def->job, &job, true))
		spec_init(&job.spec, SPEC_DEFAULT_KEYS, SPEC_DEFAULT_PREFIX,
				  SPEC_DEFAULT_ZEROPADDING, SPEC_DEFAULT_SEED,
				  SPEC_DEFAULT_FIELDLENGTH);
	else
	{
		def->first = job.first;
		def->rows = job.rows;
	}
	if (!PG_ARGISNULL(BENCH_ARG_ROWS))
	{
		def->first = 0;
		def->rows = spec_count_arg(PG_GETARG_NUMERIC(BENCH_ARG_ROWS), "rows");
	}
	if (def->rows < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no key space is known for table \"%s\"", get_rel_name(def->relid)),
				 errdetail("The table has no petagen load job, and rows was not given."),
				 errhint("Pass rows => ... or load the table with petagen.start() first.")));
	if (def->rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("rows must be at least 1")));
	spec_read_args(fcinfo, &bench_gen_args, &job.spec, &def->spec);
	keys_set_kind(&def->spec.keys, shape_key_kind(def->relid),
				  get_rel_name(def->relid));
}

/* Raise an error unless the keys and values the run writes fit the table. */
static void
bench_check_shape(const BenchDef *def)
{
	Relation	rel = RelationIdGetRelation(def->relid);
	RowShape	shape;

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	spec_check_shape(&def->spec, &shape,
					 bench_does(&def->workload, BENCH_OP_INSERT) ?
					 keys_max_seq(&def->spec.keys) : def->first + (def->rows - 1),
					 RelationGetRelationName(rel));
	RelationClose(rel);
}

/*
 * The duration of a run without one: BENCH_DEFAULT_DURATION, or with
 * operationcount the longest one, after which the run stops anyway.
 */
static Interval *
bench_default_duration(bool operationcount)
{
	return DatumGetIntervalP(DirectFunctionCall3(interval_in,
												 CStringGetDatum(operationcount ?
																 "365 days" : BENCH_DEFAULT_DURATION),
												 ObjectIdGetDatum(InvalidOid),
												 Int32GetDatum(-1)));
}

/* Read and validate every argument but workers into def. */
void
bench_read_args(FunctionCallInfo fcinfo, BenchDef *def)
{
	/* every run is recorded in petagen.bench_results */
	guard_writable("petagen.bench()");
	memset(def, 0, sizeof(BenchDef));
	/* duration may be null: see bench_default_duration() */
	spec_check_nulls(fcinfo, 0, bench_arg_names, BENCH_ARG_DURATION,
					 "petagen.bench()");
	spec_check_nulls(fcinfo, BENCH_ARG_WARMUP, bench_arg_names,
					 lengthof(bench_arg_names), "petagen.bench()");
	bench_read_workload(fcinfo, &def->workload);
	def->duration = PG_ARGISNULL(BENCH_ARG_DURATION) ?
		bench_default_duration(def->workload.operationcount > 0) : PG_GETARG_INTERVAL_P(BENCH_ARG_DURATION);
	def->warmup = PG_GETARG_INTERVAL_P(BENCH_ARG_WARMUP);
	def->duration_us = bench_interval_us(def->duration, "duration");
	def->warmup_us = bench_interval_us(def->warmup, "warmup");
	if (def->duration_us <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration must be positive")));
	if (def->warmup_us < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("warmup must not be negative")));
	def->label = !bench_arg_given(fcinfo, BENCH_ARG_LABEL) ? NULL :
		text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_LABEL));
	/* 0.1's bench_results has neither */
	def->record_settings = catalog_version() >= CATALOG_V0_2;
	def->record_measure = catalog_version() >= CATALOG_V0_2;
	def->relid = guard_table_name(PG_GETARG_TEXT_PP(BENCH_ARG_TABLE));
	launch_check_login(GetUserId(), "petagen.bench()");
	bench_key_space(def, fcinfo);
	bench_check_shape(def);
	bench_resolve_target(def, fcinfo);
}

/* The run's id, drawn from bench_results' identity before the run. */
static int64
bench_next_id(void)
{
	int64		id;
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_exec("SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence("
				 "'petagen.bench_results', 'id'))", 0, NULL, NULL, NULL, SPI_OK_SELECT);
	id = catalog_int8(0, CATALOG_ONLY_COLUMN);
	catalog_finish(&scope);
	return id;
}

/* Create and fill the shared state of a run. */
static dsm_segment *
bench_create_shared(const BenchDef *def, int64 id, int nworkers,
					int64 insert_base)
{
	Size		size = bench_shared_size(nworkers, def->ntargets);
	dsm_segment *seg = dsm_create(size, 0);
	BenchShared *shared = dsm_segment_address(seg);

	memset(shared, 0, size);
	shared->magic = BENCH_MAGIC;
	shared->run = id;
	shared->workload = def->workload;
	shared->relid = def->relid;
	shared->database = MyDatabaseId;
	shared->role = GetUserId();
	shared->first = def->first;
	shared->rows = def->rows;
	shared->spec = def->spec;
	shared->insert_base = insert_base;
	shared->nworkers = nworkers;
	shared->clients = def->clients;
	shared->client_server = def->client_server;
	shared->ntargets = def->ntargets;
	pg_atomic_init_u32(&shared->go, 0);
	pg_atomic_init_u64(&shared->inserts, 0);
	pg_atomic_init_u64(&shared->claimed, 0);
	pg_atomic_init_u64(&shared->sequence, 0);
	for (int i = 0; i < BENCH_RING; i++)
		pg_atomic_init_u64(&shared->ring[i].tag, 0);
	for (int i = 0; i < nworkers; i++)
	{
		pg_atomic_init_u32(&shared->slots[i].state, BENCH_W_STARTING);
		measure_init(&shared->slots[i].measure);
	}
	memcpy(bench_targets(shared), def->targets, sizeof(BenchTarget) * def->ntargets);
	return seg;
}

/* What a benchmark run's workers are. */
static const LaunchKind bench_worker_kind = {
	"petagen_bench_main", "petagen bench worker",
	"petagen bench " INT64_FORMAT " worker %d", true
};

/*
 * On detaching a run's segment, however the caller leaves: withdraw its
 * announcement for bench_status(), terminate the workers still running (a
 * no-op for those that exited) and forget them.
 */
static void
bench_leader_detach(dsm_segment *seg, Datum arg)
{
	BenchLeader *leader = (BenchLeader *) DatumGetPointer(arg);

	bench_live_withdraw();
	for (int i = 0; i < leader->nworkers; i++)
		TerminateBackgroundWorker(leader->handles[i]);
	for (int i = 0; i < leader->nworkers; i++)
		pfree(leader->handles[i]);
	pfree(leader);
}

/*
 * The leader of a run on seg: its workers end when seg is detached.  It and
 * the handles live in TopMemoryContext, which an abort leaves alone.
 */
static BenchLeader *
bench_leader_create(dsm_segment *seg, int nworkers)
{
	BenchLeader *leader = MemoryContextAllocZero(TopMemoryContext,
												 offsetof(BenchLeader, handles) +
												 sizeof(void *) * nworkers);

	on_dsm_detach(seg, bench_leader_detach, PointerGetDatum(leader));
	return leader;
}

/* Register worker index of a run and hand it to the leader. */
static void
bench_register_worker(dsm_segment *seg, BenchLeader *leader, int64 id,
					  int index, int nworkers)
{
	BenchWorkerArgs args = {dsm_segment_handle(seg), index};
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	StaticAssertStmt(sizeof(BenchWorkerArgs) <= BGW_EXTRALEN, "BenchWorkerArgs too large");
	leader->handles[index] = launch_worker(&bench_worker_kind, id, index,
										   nworkers, &args, sizeof(args));
	leader->nworkers = index + 1;
	MemoryContextSwitchTo(old);
}

/*
 * Sleep a little on the latch (set when a worker starts or stops); end the
 * backend as PostgreSQL does if its client has gone.
 */
static void
bench_sleep(void)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 10L, compat_wait_event("PetagenBenchWorkers"));
	ResetLatch(MyLatch);
	if (MyProcPort != NULL && !pq_check_connection())
	{
		ClientConnectionLost = true;
		InterruptPending = true;
	}
	CHECK_FOR_INTERRUPTS();
}

/* Has the worker behind a handle exited? */
static bool
bench_worker_gone(BackgroundWorkerHandle *handle)
{
	pid_t		pid;

	return GetBackgroundWorkerPid(handle, &pid) == BGWH_STOPPED;
}

/* Wait until every worker has prepared its plans; error if one could not. */
static void
bench_wait_ready(BenchShared *shared, BackgroundWorkerHandle **handles)
{
	for (int i = 0; i < shared->nworkers;)
	{
		BenchSlot  *slot = &shared->slots[i];
		uint32		state = pg_atomic_read_u32(&slot->state);

		if (state == BENCH_W_READY)
		{
			i++;
			continue;
		}
		pg_read_barrier();
		if (state == BENCH_W_FAILED || bench_worker_gone(handles[i]))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("benchmark worker %d could not start: %s", i,
							slot->error[0] ? slot->error : "it exited, see the server log"),
					 slot->hint[0] ? errhint("%s", slot->hint) : 0));
		bench_sleep();
	}
}

/*
 * Wait, interruptibly, until start_at (0: do not wait), the workers ready:
 * every node of a cluster_bench() starts its run at that instant, to
 * within bench_sleep()'s 10 ms.
 */
static void
bench_wait_start(TimestampTz start_at)
{
	while (start_at != 0 && GetCurrentTimestamp() < start_at)
		bench_sleep();
}

/* Set the clock and start the workers. */
static void
bench_go(BenchShared *shared, const BenchDef *def)
{
	shared->start_ns = bench_now_ns();
	shared->measure_ns = shared->start_ns + def->warmup_us * 1000;
	shared->end_ns = shared->measure_ns + def->duration_us * 1000;
	pg_write_barrier();
	pg_atomic_write_u32(&shared->go, 1);
}

/* Wait until every worker has exited, terminating stragglers; how many were. */
static int
bench_wait_done(BenchShared *shared, BackgroundWorkerHandle **handles)
{
	int			terminated = 0;

	for (;;)
	{
		int			running = 0;

		for (int i = 0; i < shared->nworkers; i++)
			running += bench_worker_gone(handles[i]) ? 0 : 1;
		if (running == 0)
			return terminated;
		if (terminated == 0 && bench_now_ns() > shared->end_ns + BENCH_GRACE_NS)
		{
			for (int i = 0; i < shared->nworkers; i++)
				TerminateBackgroundWorker(handles[i]);
			terminated = running;
		}
		bench_sleep();
	}
}

/* The totals of a run over its operation kinds. */
static void
bench_totals(BenchResult *res)
{
	hist_init(&res->hist);
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		const BenchOpFigures *f = &res->measure.ops[op];

		res->ops[op] = f->count;
		res->operations += f->count;
		res->errors += f->errors;
		res->not_found += f->not_found;
		hist_merge(&res->hist, &f->latency);
	}
}

/* Add up the slots of the workers into a result. */
static void
bench_merge(BenchShared *shared, BenchResult *res)
{
	uint64		last_ns = shared->measure_ns;

	pg_read_barrier();
	measure_init(&res->measure);
	for (int i = 0; i < shared->nworkers; i++)
	{
		BenchSlot  *slot = &shared->slots[i];

		measure_merge(&res->measure, &slot->measure);
		res->integrity_errors += slot->integrity_errors;
		res->insert_end = Max(res->insert_end, shared->insert_base +
							  (int64) slot->insert_candidates * shared->nworkers);
		last_ns = Max(last_ns, slot->last_ns);
		if (slot->error[0])
			strlcpy(res->last_error, slot->error, BENCH_TEXT_LEN);
	}
	measure_finish(&res->measure, shared->workload.target_rate > 0);
	bench_totals(res);
	strlcpy(res->synchronous_commit, shared->synchronous_commit, NAMEDATALEN);
	/* the measured window: to the end, or to the last operation's end */
	if (shared->workload.operationcount == 0)
		last_ns = Max(last_ns, shared->end_ns);
	res->seconds = (last_ns - shared->measure_ns) / 1e9;
}

/* Run the workers of one benchmark run and collect their figures. */
static void
bench_execute_run(const BenchDef *def, BenchResult *res)
{
	dsm_segment *seg = bench_create_shared(def, res->id, res->nworkers,
										   res->insert_base);
	BenchShared *shared = dsm_segment_address(seg);
	BenchLeader *leader = bench_leader_create(seg, res->nworkers);

	bench_live_announce(seg, res->id);
	for (int i = 0; i < res->nworkers; i++)
		bench_register_worker(seg, leader, res->id, i, res->nworkers);
	bench_wait_ready(shared, leader->handles);
	bench_wait_start(def->start_at);
	res->started_at = GetCurrentTimestamp();
	bench_go(shared, def);
	res->terminated = bench_wait_done(shared, leader->handles);
	bench_merge(shared, res);
	dsm_detach(seg);
}

/*
 * The first key number run id inserts: its stripe of 2^40 (bench.h),
 * or with an int ycsb_key, which has no room for stripes, the end of what
 * the earlier runs of the load job inserted.  Raises an error if there is
 * no room left.
 */
static int64
bench_insert_base(const BenchDef *def, int64 id)
{
	int64		base;

	if (!bench_does(&def->workload, BENCH_OP_INSERT))
		return bench_key_end(def);
	if (def->spec.keys.kind == KEYKIND_INT4)
	{
		base = def->job > 0 ?
			bench_results_insert_end(def->job, bench_key_end(def)) :
			bench_key_end(def);
		if (base > keys_max_seq(&def->spec.keys))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("no room left in integer column ycsb_key for the inserts of run " INT64_FORMAT, id),
					 errdetail("Inserted key numbers would start at " INT64_FORMAT ", past the largest integer, 2147483647.",
							   base),
					 errhint("Make the column bigint: ALTER TABLE %s ALTER COLUMN ycsb_key TYPE bigint.",
							 quote_identifier(get_rel_name(def->relid)))));
		return base;
	}
	if ((id + 1) > (KEYS_MAX_SEQ - bench_key_end(def)) / BENCH_INSERT_STRIDE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("no room left in the key space for the inserts of run " INT64_FORMAT, id),
				 errdetail("Inserted keys start at first + rows + id * 2^40.")));
	return bench_key_end(def) + id * BENCH_INSERT_STRIDE;
}

/* Run one benchmark with nworkers workers; what it measured, not yet recorded. */
BenchResult *
bench_measure_run(const BenchDef *def, int nworkers)
{
	BenchResult *res = palloc0(sizeof(BenchResult));

	res->nworkers = nworkers;
	res->id = bench_next_id();
	res->insert_base = bench_insert_base(def, res->id);
	pgstat_report_activity(STATE_RUNNING,
						   psprintf("petagen bench " INT64_FORMAT ": %s, %d workers",
									res->id, bench_kind_name(def->workload.kind), nworkers));
	bench_execute_run(def, res);
	return res;
}

/* Record a run bench_measure_run() measured, in sweep (0: none), and warn of what it found. */
void
bench_finish(const BenchDef *def, const BenchResult *res, int64 sweep)
{
	bench_record(def, res, sweep);
	bench_warn_not_found(res);
	bench_warn_integrity(res);
}

/*
 * Run one benchmark with nworkers workers, record it, return its row and
 * its id.  sweep: the sweep's id, 0 for none, -1 when this run starts one.
 */
static int64
bench_run(FunctionCallInfo fcinfo, const BenchDef *def, int nworkers,
		  int64 sweep)
{
	BenchResult *res = bench_measure_run(def, nworkers);

	bench_finish(def, res, sweep < 0 ? res->id : sweep);
	bench_return_row(fcinfo, def, res);
	return res->id;
}

/*
 * Take start_at, the instant the run starts: not past, at most an hour
 * ahead; recorded in the run's options.
 */
static void
bench_read_start_at(BenchDef *def, TimestampTz start_at)
{
	TimestampTz now = GetCurrentTimestamp();

	if (start_at < now)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("start_at %s is in the past", timestamptz_to_str(start_at)),
				 errdetail("It is %s now.", timestamptz_to_str(now)),
				 errhint("Pass an instant a few seconds ahead, such as clock_timestamp() + interval '2 s'.")));
	if (start_at - now > BENCH_MAX_START_AHEAD_US)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("start_at %s is more than an hour ahead", timestamptz_to_str(start_at)),
				 errhint("A run waits for its start_at with its workers started: pass an instant a few seconds ahead.")));
	def->start_at = start_at;
	def->extra_options = psprintf("\"start_at\": \"%s\"", timestamptz_to_str(start_at));
}

PG_FUNCTION_INFO_V1(petagen_bench);
/* petagen.bench(kind, workers, duration, warmup, table, target, ...): one run. */
Datum
petagen_bench(PG_FUNCTION_ARGS)
{
	BenchDef	def;
	int			nworkers;

	bench_read_args(fcinfo, &def);
	nworkers = PG_GETARG_INT32(BENCH_ARG_WORKERS);
	launch_check_workers(nworkers);
	if (bench_arg_given(fcinfo, BENCH_ARG_CLIENTS))
	{
		def.clients = PG_GETARG_INT32(BENCH_ARG_CLIENTS);
		bench_check_clients(&def, def.clients, nworkers);
	}
	if (bench_arg_given(fcinfo, BENCH_ARG_START_AT))
		bench_read_start_at(&def, PG_GETARG_TIMESTAMPTZ(BENCH_ARG_START_AT));
	InitMaterializedSRF(fcinfo, 0);
	bench_run(fcinfo, &def, nworkers, 0);
	return (Datum) 0;
}

/*
 * The counts of integer[] argument argno (named name, listing what): at
 * least one, none null; *n of them.
 */
static int *
bench_counts_arg(FunctionCallInfo fcinfo, int argno, const char *name,
				 const char *what, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	int		   *counts;

	deconstruct_array(PG_GETARG_ARRAYTYPE_P(argno), INT4OID, 4, true,
					  TYPALIGN_INT, &elems, &nulls, n);
	if (*n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must list at least one %s", name, what)));
	counts = palloc(sizeof(int) * *n);
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain nulls", name)));
		counts[i] = DatumGetInt32(elems[i]);
	}
	return counts;
}

PG_FUNCTION_INFO_V1(petagen_bench_sweep);
/*
 * petagen.bench_sweep(kind, workers[], ..., clients[]): one run per worker
 * count, and with clients per worker count and client count.
 */
Datum
petagen_bench_sweep(PG_FUNCTION_ARGS)
{
	BenchDef	def;
	int			n;
	int		   *workers;
	int			nclients = 0;
	int		   *clients = NULL;
	int			most = 0;
	int64		sweep = -1;

	bench_read_args(fcinfo, &def);
	workers = bench_counts_arg(fcinfo, BENCH_ARG_WORKERS, "workers", "worker count", &n);
	for (int i = 0; i < n; i++)
	{
		if (workers[i] < 1)
			launch_check_workers(workers[i]);
		most = Max(most, workers[i]);
	}
	launch_check_workers(most);
	if (bench_arg_given(fcinfo, BENCH_ARG_CLIENTS))
		clients = bench_counts_arg(fcinfo, BENCH_ARG_CLIENTS, "clients", "client count",
								   &nclients);
	for (int i = 0; i < n; i++)
		for (int c = 0; c < nclients; c++)
			bench_check_clients(&def, clients[c], workers[i]);
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < n; i++)
		for (int c = 0; c < Max(nclients, 1); c++)
		{
			int64		id;

			def.clients = nclients > 0 ? clients[c] : 0;
			id = bench_run(fcinfo, &def, workers[i], sweep);
			if (sweep < 0)
				sweep = id;
		}
	return (Datum) 0;
}


/*-------------------------------------------------------------------------
 *		petagen.bench_status(): the benchmarks running now in this
 *		database, read live from their workers' slots, as status() serves
 *		loads.
 *
 * A running bench() announces its run in a file of its own,
 * $PGDATA/pg_petagen/bench/<pid of its backend>: the run's DSM handle and
 * id.  It removes the file when it detaches the run's segment, however it
 * leaves (the callback that terminates its workers, bench.c).  A crash
 * can leave a file behind: its segment is gone with the server's life,
 * so bench_status() skips a file whose segment it cannot attach, or whose
 * segment is not that run's (a magic number and the run id are checked);
 * it does not remove it (the backend of that pid may be announcing a new
 * run in it), the next run of a backend with that pid overwrites it.
 * bench_status() attaches each announced segment for a
 * moment and reads what each worker publishes once per interval
 * (bench_worker.c) in atomics of its slot: nothing blocks the workers.
 * The pg_petagen directory's sweep (leafroute.c) leaves bench/ alone: it
 * only looks at database oids.
 *-------------------------------------------------------------------------
 */

/* Where running benchmarks announce themselves, under the data directory. */
#define BENCH_LIVE_DIR		LEAF_DIR "/bench"
/* Columns of bench_status(). */
#define BENCH_STATUS_COLS	12

/* What an announcement file holds. */
typedef struct BenchAnnouncement
{
	uint32		magic;
	dsm_handle	handle;
	int64		run;
} BenchAnnouncement;

/* The announcement file of this backend's run. */
static void
bench_live_path(char *path, int pid)
{
	snprintf(path, MAXPGPATH, BENCH_LIVE_DIR "/%d", pid);
}

/* Announce run, whose shared state is seg, for bench_status(). */
static void
bench_live_announce(dsm_segment *seg, int64 run)
{
	BenchAnnouncement a = {BENCH_MAGIC, dsm_segment_handle(seg), run};
	char		path[MAXPGPATH];
	int			fd;

	leaf_make_dir(LEAF_DIR);
	leaf_make_dir(BENCH_LIVE_DIR);
	bench_live_path(path, MyProcPid);
	fd = OpenTransientFile(path, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0 || write(fd, &a, sizeof(a)) != sizeof(a))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	CloseTransientFile(fd);
}

/* Withdraw this backend's announcement (none is fine). */
static void
bench_live_withdraw(void)
{
	char		path[MAXPGPATH];

	bench_live_path(path, MyProcPid);
	(void) unlink(path);
}

/* Read an announcement file; false if it is not one. */
static bool
bench_live_read(const char *path, BenchAnnouncement *a)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	bool		ok;

	if (fd < 0)
		return false;
	ok = read(fd, a, sizeof(*a)) == sizeof(*a) && a->magic == BENCH_MAGIC;
	CloseTransientFile(fd);
	return ok;
}

/* Seconds, to 0.1. */
static double
bench_live_seconds(double ns)
{
	return round(ns / 1e8) / 10;
}

/*
 * The live figures of a run: operations so far, and over its workers'
 * last whole interval the operations per second, mean and max latency.
 */
static void
bench_live_figures(BenchShared *shared, uint64 now, Datum *values, bool *nulls)
{
	uint64		operations = 0;
	uint64		count = 0;
	uint64		latency = 0;
	uint64		max = 0;
	uint64		interval = 0;

	for (int i = 0; i < shared->nworkers; i++)
	{
		BenchLive  *live = &shared->slots[i].measure.live;
		uint64		len = pg_atomic_read_u64(&live->interval_ns);
		uint64		until = pg_atomic_read_u64(&live->until_ns);

		operations += pg_atomic_read_u64(&live->operations);
		if (len == 0 || now < shared->measure_ns)
			continue;
		interval = Max(interval, len);
		/* only if that interval is the last whole one: else none ended since */
		if (until / len != (now - shared->measure_ns) / len)
			continue;
		count += pg_atomic_read_u64(&live->count);
		latency += pg_atomic_read_u64(&live->latency_ns);
		max = Max(max, pg_atomic_read_u64(&live->max_ns));
	}
	values[0] = Int64GetDatum(operations);
	values[1] = Float8GetDatum(interval ? round(count * 1e9 / interval * 10) / 10 : 0);
	nulls[1] = interval == 0;
	values[2] = Float8GetDatum(count ? bench_round_latency(latency / 1000.0 / count) : 0);
	nulls[2] = count == 0;
	values[3] = Float8GetDatum(bench_round_latency(max / 1000.0));
	nulls[3] = count == 0;
}

/* Seconds left: to the end, or with operationcount at the current rate. */
static void
bench_live_eta(BenchShared *shared, uint64 now, double ops_per_s, bool rate_null,
			   Datum *value, bool *null)
{
	uint64		claimed;

	*null = false;
	if (shared->workload.operationcount == 0)
	{
		*value = Float8GetDatum(bench_live_seconds(now < shared->end_ns ? shared->end_ns - now : 0));
		return;
	}
	claimed = pg_atomic_read_u64(&shared->claimed);
	*null = rate_null || ops_per_s <= 0;
	if (!*null)
		*value = Float8GetDatum(round((shared->workload.operationcount - Min(claimed, (uint64) shared->workload.operationcount)) /
									  ops_per_s * 10) / 10);
}

/* One row of bench_status() for a run's shared state. */
static void
bench_live_row(ReturnSetInfo *rsinfo, BenchShared *shared)
{
	Datum		values[BENCH_STATUS_COLS];
	bool		nulls[BENCH_STATUS_COLS] = {0};
	uint64		now = bench_now_ns();
	bool		going = pg_atomic_read_u32(&shared->go) != 0;

	pg_read_barrier();
	values[0] = Int64GetDatum(shared->run);
	values[1] = CStringGetTextDatum(bench_kind_name(shared->workload.kind));
	values[2] = Int32GetDatum(shared->nworkers);
	/* client sessions; NULL for a run through SPI */
	values[3] = Int32GetDatum(shared->clients);
	nulls[3] = shared->clients == 0;
	values[4] = CStringGetTextDatum(!going ? "starting" :
									now < shared->measure_ns ? "warmup" : "measuring");
	values[5] = Float8GetDatum(going && now > shared->measure_ns ?
							   bench_live_seconds(now - shared->measure_ns) : 0);
	values[11] = Float8GetDatum(shared->workload.target_rate);
	nulls[11] = shared->workload.target_rate <= 0;
	if (!going)
	{
		for (int i = 6; i <= 10; i++)
			nulls[i] = true;
	}
	else
	{
		bench_live_figures(shared, now, &values[6], &nulls[6]);
		bench_live_eta(shared, now, nulls[7] ? 0 : DatumGetFloat8(values[7]), nulls[7],
					   &values[10], &nulls[10]);
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Attach an announced run; NULL if it is gone. */
static dsm_segment *
bench_live_attach(const BenchAnnouncement *a)
{
	dsm_segment *seg = dsm_find_mapping(a->handle);
	BenchShared *shared;

	/* this backend's own run: bench() cannot run bench_status(), but be safe */
	if (seg != NULL)
		return NULL;
	seg = dsm_attach(a->handle);
	if (seg == NULL)
		return NULL;
	shared = dsm_segment_address(seg);
	if (dsm_segment_map_length(seg) < offsetof(BenchShared, slots) ||
		shared->magic != BENCH_MAGIC || shared->run != a->run)
	{
		dsm_detach(seg);
		return NULL;
	}
	return seg;
}

PG_FUNCTION_INFO_V1(petagen_bench_status);
/* petagen.bench_status(): one row per benchmark running in this database. */
Datum
petagen_bench_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DIR		   *dir;
	struct dirent *de;

	InitMaterializedSRF(fcinfo, 0);
	dir = AllocateDir(BENCH_LIVE_DIR);
	if (dir == NULL && errno == ENOENT)
		return (Datum) 0;
	while ((de = ReadDir(dir, BENCH_LIVE_DIR)) != NULL)
	{
		char		path[MAXPGPATH];
		BenchAnnouncement a;
		dsm_segment *seg;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), BENCH_LIVE_DIR "/%s", de->d_name);
		if (!bench_live_read(path, &a) || (seg = bench_live_attach(&a)) == NULL)
			continue;
		if (((BenchShared *) dsm_segment_address(seg))->database == MyDatabaseId)
			bench_live_row(rsinfo, dsm_segment_address(seg));
		dsm_detach(seg);
	}
	FreeDir(dir);
	return (Datum) 0;
}


/*-------------------------------------------------------------------------
 *		petagen.forget_bench(id): remove a benchmark run, or a whole
 *		bench_sweep(), from petagen.bench_results.
 *
 * A run is named by its bench_results id, a sweep by the id of its first
 * run (bench_results.sweep, what chart_sweep() takes).  forget_bench() of
 * a sweep's id removes every run of the sweep: its first run alone cannot
 * go without leaving a sweep whose id names no run.  A later run of a
 * sweep goes alone.  A run belongs to the role that ran it
 * (bench_results.run_by): superusers and roles with that role's
 * privileges may remove it; when one run of a sweep is not the caller's,
 * nothing is removed.  The rows are locked before they are checked, and
 * deleted as the catalog owner (catalog.c), the only writer of
 * bench_results.  A run keeps no files.
 *-------------------------------------------------------------------------
 */

/* A role's name for a message, also when the role was dropped. */
static char *
bench_role_name(Oid role)
{
	char	   *name = GetUserNameFromId(role, true);

	return name ? psprintf("\"%s\"", name) : psprintf("with OID %u (dropped)", role);
}

/* Raise an error unless the current role may remove run id, run by run_by. */
static void
bench_check_owner(int64 id, Oid run_by)
{
	if (has_privs_of_role(GetUserId(), run_by))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for benchmark run " INT64_FORMAT, id),
			 errdetail("Benchmark run " INT64_FORMAT " was run by role %s.", id,
					   bench_role_name(run_by)),
			 errhint("Only superusers and roles with the privileges of that role may call petagen.forget_bench() on it.")));
}

/* bench_lock_runs()'s target list. */
enum
{
	Anum_forget_id = 1,
	Anum_forget_run_by,
};

/*
 * Lock the runs petagen.forget_bench(id) removes and check that the
 * current role may remove each; raise an error if there is none.
 */
static void
bench_lock_runs(int64 id)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(id)};
	MemoryContext cxt = CurrentMemoryContext;
	CatalogScope scope;
	uint64		n;
	int64	   *ids;
	Oid		   *owners;

	catalog_connect(&scope, true);
	n = catalog_exec("SELECT id, run_by::pg_catalog.oid FROM petagen.bench_results"
					 " WHERE id = $1 OR sweep = $1 ORDER BY id FOR UPDATE",
					 1, types, values, NULL, SPI_OK_SELECT);
	ids = MemoryContextAlloc(cxt, sizeof(int64) * Max(n, 1));
	owners = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt64(catalog_value(i, Anum_forget_id, &isnull));
		owners[i] = DatumGetObjectId(catalog_value(i, Anum_forget_run_by, &isnull));
	}
	catalog_finish(&scope);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("benchmark run " INT64_FORMAT " does not exist", id),
				 errhint("SELECT id, sweep, kind, workers, run_by FROM petagen.bench_results lists the runs.")));
	for (uint64 i = 0; i < n; i++)
		bench_check_owner(ids[i], owners[i]);
}

PG_FUNCTION_INFO_V1(petagen_forget_bench);
/* petagen.forget_bench(id): remove a run, or every run of a sweep; returns how many. */
Datum
petagen_forget_bench(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"id"};
	Oid			types[1] = {INT8OID};
	Datum		values[1];
	CatalogScope scope;
	uint64		n;

	guard_writable("petagen.forget_bench()");
	spec_check_nulls(fcinfo, 0, names, lengthof(names), "petagen.forget_bench()");
	values[0] = PG_GETARG_DATUM(0);
	bench_lock_runs(PG_GETARG_INT64(0));
	catalog_connect(&scope, true);
	n = catalog_exec("DELETE FROM petagen.bench_results WHERE id = $1 OR sweep = $1",
					 1, types, values, NULL, SPI_OK_DELETE);
	catalog_finish(&scope);
	PG_RETURN_INT64((int64) n);
}
