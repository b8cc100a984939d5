/*-------------------------------------------------------------------------
 * bench.c
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
 * client_connection_check_interval.  A run that did not end records
 * nothing: its row would go with the aborted transaction, and a partial
 * window is no measurement.
 *
 * The key space (rows and how keys are spelled) comes from the newest
 * load job of the table, a finished one first; explicit options override
 * it.  Inserted keys (YCSB d and e) are key numbers from rows + id * 2^40
 * on, id being the run's bench_results id, striped across the workers: no
 * two runs and no two workers insert the same key number.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "libpq/libpq.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "bench/bench.h"
#include "catalog.h"
#include "compat.h"
#include "guard.h"
#include "gen/keys.h"
#include "job/ledger.h"
#include "launch.h"
#include "route/citus_meta.h"
#include "route/route.h"
#include "gen/rowgen.h"

/* Columns of bench()'s result row. */
#define BENCH_RESULT_COLS	17
#define BENCH_SWEEP_COLS	18	/* bench_sweep()'s rows end with the sweep id */
/* Key numbers tried to show that the target holds part of the key space. */
#define BENCH_PROBE_KEYS	100000
/* Longest duration and warm-up, in microseconds: nanosecond clocks stay in range. */
#define BENCH_MAX_US		(INT64CONST(365) * USECS_PER_DAY)
/* Time past the end after which bench() terminates workers still busy. */
#define BENCH_GRACE_NS		(UINT64CONST(10) * 1000000000)

/* The SQL arguments of bench() and bench_sweep(), in order. */
typedef enum BenchArg
{
	BENCH_ARG_KIND,
	BENCH_ARG_WORKERS,
	BENCH_ARG_DURATION,
	BENCH_ARG_WARMUP,
	BENCH_ARG_TABLE,
	BENCH_ARG_TARGET,
	BENCH_ARG_DISTRIBUTION,
	BENCH_ARG_ZIPFIAN_CONSTANT,
	BENCH_ARG_ROWS,
	BENCH_ARG_KEYS,
	BENCH_ARG_SEED,
	BENCH_ARG_FIELDLENGTH,
	BENCH_ARG_PREFIX,
	BENCH_ARG_ZEROPADDING
} BenchArg;

static const char *const bench_arg_names[] = {
	"kind", "workers", "duration", "warmup", "table"
};

/* YCSB's core workloads (workloads/workloada .. workloadf) and the two micro kinds. */
static const BenchMix bench_mixes[BENCH_NKINDS] = {
	/* read, update, insert, scan, rmw */
	{"select", {1, 0, 0, 0, 0}, DIST_UNIFORM},
	{"update", {0, 1, 0, 0, 0}, DIST_UNIFORM},
	{"ycsb-a", {0.5, 0.5, 0, 0, 0}, DIST_ZIPFIAN},
	{"ycsb-b", {0.95, 0.05, 0, 0, 0}, DIST_ZIPFIAN},
	{"ycsb-c", {1, 0, 0, 0, 0}, DIST_ZIPFIAN},
	{"ycsb-d", {0.95, 0, 0.05, 0, 0}, DIST_LATEST},
	{"ycsb-e", {0, 0, 0.05, 0.95, 0}, DIST_ZIPFIAN},
	{"ycsb-f", {0.5, 0, 0, 0, 0.5}, DIST_ZIPFIAN},
};

/* A benchmark, validated. */
typedef struct BenchDef
{
	BenchKind	kind;
	Interval   *duration;
	Interval   *warmup;
	int64		duration_us;
	int64		warmup_us;
	Oid			relid;
	bool		citus;			/* a Citus table: the leaves are its shards */
	BenchTarget *targets;		/* sorted by leaf */
	int			ntargets;
	const char *target_node;
	DistKind	distribution;
	double		zipfian_constant;
	int64		rows;
	GenSpec		spec;
	int64		job;			/* the load job the key space is from, or 0 */
} BenchDef;

/* The workers of a run, for the callback that terminates them with the caller. */
typedef struct BenchLeader
{
	int			nworkers;		/* registered so far */
	BackgroundWorkerHandle *handles[FLEXIBLE_ARRAY_MEMBER];
} BenchLeader;

/* What a run measured. */
typedef struct BenchResult
{
	int64		id;
	int			nworkers;
	uint64		ops[BENCH_NOPS];
	uint64		operations;
	uint64		errors;
	uint64		not_found;
	double		seconds;
	int			terminated;
	char		last_error[BENCH_TEXT_LEN];
	TimestampTz started_at;
	Hist		hist;
} BenchResult;

/* The proportions and default distribution of a kind. */
const BenchMix *
bench_mix(BenchKind kind)
{
	return &bench_mixes[kind];
}

/* A kind by name. */
static BenchKind
bench_parse_kind(const char *name)
{
	for (int k = 0; k < BENCH_NKINDS; k++)
		if (strcmp(name, bench_mixes[k].name) == 0)
			return (BenchKind) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown benchmark kind \"%s\"", name),
			 errhint("Use select, update, or one of the YCSB workloads ycsb-a, ycsb-b, ycsb-c, ycsb-d, ycsb-e, ycsb-f.")));
	pg_unreachable();
}

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

/* Does the kind read, update or insert? */
static bool
bench_does(BenchKind kind, BenchOp op)
{
	return bench_mixes[kind].proportion[op] > 0;
}

/* Raise an error unless the current user may do what the kind does to a leaf. */
static void
bench_check_privileges(BenchKind kind, Oid relid)
{
	AclMode		modes[3] = {ACL_SELECT, ACL_UPDATE, ACL_INSERT};
	bool		needed[3] = {true,
		bench_does(kind, BENCH_OP_UPDATE) || bench_does(kind, BENCH_OP_RMW),
	bench_does(kind, BENCH_OP_INSERT)};

	for (int i = 0; i < lengthof(modes); i++)
	{
		AclResult	acl = needed[i] ?
			pg_class_aclcheck(relid, GetUserId(), modes[i]) : ACLCHECK_OK;

		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, get_relkind_objtype(get_rel_relkind(relid)),
						   get_rel_name(relid));
	}
}

/* The id of a leaf among a benchmark's targets: a Citus shard's id, else its oid. */
int64
bench_leaf_id(const RouteLeaf *leaf)
{
	return leaf->shardid != 0 ? leaf->shardid : (int64) leaf->relid;
}

/* Compare targets by leaf for qsort and bsearch. */
int
bench_target_cmp(const void *a, const void *b)
{
	int64		x = ((const BenchTarget *) a)->leaf;
	int64		y = ((const BenchTarget *) b)->leaf;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* The target of a leaf of the router, or NULL if it is not one. */
static const BenchTarget *
bench_find_target(const BenchDef *def, const RouteLeaf *leaf)
{
	BenchTarget key = {bench_leaf_id(leaf), InvalidOid};

	return bsearch(&key, def->targets, def->ntargets, sizeof(BenchTarget),
				   bench_target_cmp);
}

/* Index of a leaf relid in the router, or -1. */
static int
bench_leaf_index(const Router *router, Oid relid)
{
	for (int i = 0; i < route_nleaves(router); i++)
		if (route_leaf(router, i)->relid == relid)
			return i;
	return -1;
}

/* The hint that says how to list the leaves of the table, or of a Citus table. */
static int
bench_leaves_hint(const BenchDef *def)
{
	const char *name = catalog_relation_literal(def->relid);

	if (def->citus)
		return errhint("petagen.leaves(%s) lists its shards: name a local one by its leaf, or every shard on a node by its node (host:port); Citus routes the queries of a node's shards.",
					   name);
	return errhint("SELECT relid FROM pg_partition_tree(%s) WHERE isleaf lists the leaves.",
				   name);
}

/*
 * Mark the leaves one target name stands for in chosen (per router leaf,
 * the relation to query): every shard on a Citus node named "host:port",
 * queried through the distributed table, or one leaf named as a table.
 */
static void
bench_name_target(const BenchDef *def, const Router *router, const char *name,
				  Oid *chosen)
{
	bool		node = false;
	Oid			relid;
	int			leaf;

	for (int i = 0; def->citus && i < route_nleaves(router); i++)
		if (strcmp(route_leaf(router, i)->node, name) == 0)
		{
			chosen[i] = def->relid;
			node = true;
		}
	if (node)
		return;
	if (def->citus && strchr(name, ':') != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no shard of Citus table \"%s\" is placed on node \"%s\"",
						get_rel_name(def->relid), name),
				 bench_leaves_hint(def)));
	relid = guard_table_name(cstring_to_text(name));
	leaf = bench_leaf_index(router, relid);
	if (leaf < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 def->citus ?
				 errmsg("\"%s\" is not a shard of \"%s\" placed on this node",
						name, get_rel_name(def->relid)) :
				 errmsg("\"%s\" is not a leaf partition of \"%s\"",
						name, get_rel_name(def->relid)),
				 bench_leaves_hint(def)));
	chosen[leaf] = relid;
}

/* The chosen leaves (chosen: per router leaf, the relation to query) as the targets. */
static void
bench_set_targets(BenchDef *def, const Router *router, const Oid *chosen)
{
	def->targets = palloc(sizeof(BenchTarget) * route_nleaves(router));
	for (int i = 0; i < route_nleaves(router); i++)
		if (OidIsValid(chosen[i]))
		{
			def->targets[def->ntargets].leaf = bench_leaf_id(route_leaf(router, i));
			def->targets[def->ntargets++].relid = chosen[i];
		}
}

/* The named leaves of the target array; errors for a name that is not a leaf. */
static void
bench_named_targets(BenchDef *def, const Router *router, ArrayType *names)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	Oid		   *chosen = palloc0(sizeof(Oid) * Max(route_nleaves(router), 1));

	deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("target must not contain nulls")));
		bench_name_target(def, router, TextDatumGetCString(elems[i]), chosen);
	}
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target must name at least one leaf partition")));
	bench_set_targets(def, router, chosen);
}

/* All local leaves, the default target. */
static void
bench_local_targets(BenchDef *def, const Router *router)
{
	Oid		   *chosen = palloc0(sizeof(Oid) * Max(route_nleaves(router), 1));

	for (int i = 0; i < route_nleaves(router); i++)
		if (route_leaf(router, i)->local)
			chosen[i] = route_leaf(router, i)->relid;
	bench_set_targets(def, router, chosen);
	if (def->ntargets == 0 && def->citus)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no shard of Citus table \"%s\" is placed on this node",
						get_rel_name(def->relid)),
				 errhint("Name the nodes whose shards to benchmark with target => ARRAY['host:port', ...], as the node column of petagen.leaves(%s) names them: Citus routes each query to the node holding its key.",
						 catalog_relation_literal(def->relid))));
	if (def->ntargets == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" has no local leaf on this node", get_rel_name(def->relid)),
				 errhint("Name the leaves to benchmark with target => ARRAY['leaf', ...]; foreign leaves are queried through their server.")));
}

/*
 * Where the target leaves are: "local", the foreign server of foreign
 * leaves, the node ("host:port") of Citus shards queried through Citus,
 * or "mixed".
 */
static const char *
bench_target_node(const BenchDef *def, const Router *router)
{
	const char *node = NULL;

	for (int i = 0; i < route_nleaves(router); i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);
		const BenchTarget *target = bench_find_target(def, leaf);
		const char *this;

		if (target == NULL)
			continue;
		this = leaf->shardid != 0 && target->relid == def->relid ?
			leaf->node : route_leaf_node(leaf);
		if (node != NULL && strcmp(node, this) != 0)
			return "mixed";
		node = this;
	}
	return node;
}

/* Raise an error unless some key of the key space routes to a target leaf. */
static void
bench_check_target_keys(const BenchDef *def, Router *router)
{
	RowShape	shape;
	RowGen		rg;
	Relation	rel = RelationIdGetRelation(def->relid);
	int64		step = Max(def->rows / BENCH_PROBE_KEYS, 1);

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	RelationClose(rel);
	rowgen_init(&rg, &shape, &def->spec);
	for (int64 seq = 0; seq < def->rows;)
	{
		int			leaf;

		CHECK_FOR_INTERRUPTS();
		rowgen_build_key(&rg, seq);
		leaf = route_key(router, PointerGetDatum(rg.key));
		if (leaf >= 0 && bench_find_target(def, route_leaf(router, leaf)) != NULL)
			return;
		if (pg_add_s64_overflow(seq, step, &seq))
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("no key of the key space 0 .. " INT64_FORMAT " lives in the target leaves",
					def->rows - 1),
			 errhint("Benchmark leaves that hold rows of the key space, or pass the right rows => ... .")));
}

/* Resolve the target (default: the local leaves) and check it. */
static void
bench_resolve_target(BenchDef *def, FunctionCallInfo fcinfo)
{
	Router	   *router = route_open(def->relid);

	def->citus = route_is_citus(router);
	if (PG_ARGISNULL(BENCH_ARG_TARGET))
		bench_local_targets(def, router);
	else
		bench_named_targets(def, router, PG_GETARG_ARRAYTYPE_P(BENCH_ARG_TARGET));
	qsort(def->targets, def->ntargets, sizeof(BenchTarget), bench_target_cmp);
	for (int i = 0; i < def->ntargets; i++)
		bench_check_privileges(def->kind, def->targets[i].relid);
	def->target_node = pstrdup(bench_target_node(def, router));
	bench_check_target_keys(def, router);
	route_close(router);
}

/* A text argument, or a fallback when it is NULL. */
static char *
bench_text_arg(FunctionCallInfo fcinfo, int argno, char *fallback)
{
	return PG_ARGISNULL(argno) ? fallback : text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

/* The key space: from the newest load job of the table, overridden by options. */
static void
bench_key_space(BenchDef *def, FunctionCallInfo fcinfo)
{
	JobDef		job;

	def->rows = -1;
	def->job = ledger_newest_job_of(def->relid);
	if (def->job == 0 || !job_read(def->job, &job, true))
		spec_init(&job.spec, SPEC_DEFAULT_KEYS, SPEC_DEFAULT_PREFIX,
				  SPEC_DEFAULT_ZEROPADDING, SPEC_DEFAULT_SEED,
				  SPEC_DEFAULT_FIELDLENGTH);
	else
		def->rows = job.rows;
	if (!PG_ARGISNULL(BENCH_ARG_ROWS))
		def->rows = spec_count_arg(PG_GETARG_NUMERIC(BENCH_ARG_ROWS), "rows");
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
	spec_init(&def->spec,
			  bench_text_arg(fcinfo, BENCH_ARG_KEYS,
							 (char *) keys_mode_name(job.spec.keys.mode)),
			  bench_text_arg(fcinfo, BENCH_ARG_PREFIX, job.spec.keys.prefix),
			  PG_ARGISNULL(BENCH_ARG_ZEROPADDING) ? job.spec.keys.zeropadding : PG_GETARG_INT32(BENCH_ARG_ZEROPADDING),
			  PG_ARGISNULL(BENCH_ARG_SEED) ? (int64) job.spec.seed : PG_GETARG_INT64(BENCH_ARG_SEED),
			  PG_ARGISNULL(BENCH_ARG_FIELDLENGTH) ? job.spec.fieldlength : PG_GETARG_INT32(BENCH_ARG_FIELDLENGTH));
}

/* Raise an error unless the keys and values the run writes fit the table. */
static void
bench_check_shape(const BenchDef *def)
{
	Relation	rel = RelationIdGetRelation(def->relid);
	RowShape	shape;

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	spec_check_shape(&def->spec, &shape,
					 bench_does(def->kind, BENCH_OP_INSERT) ? KEYS_MAX_SEQ : def->rows - 1,
					 RelationGetRelationName(rel));
	RelationClose(rel);
}

/* Read and validate every argument but workers into def. */
static void
bench_read_args(FunctionCallInfo fcinfo, BenchDef *def)
{
	/* every run is recorded in petagen.bench_results */
	guard_writable("petagen.bench()");
	memset(def, 0, sizeof(BenchDef));
	spec_check_nulls(fcinfo, 0, bench_arg_names, lengthof(bench_arg_names),
					 "petagen.bench()");
	if (PG_ARGISNULL(BENCH_ARG_ZIPFIAN_CONSTANT))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"zipfian_constant\" of petagen.bench() must not be null")));
	def->kind = bench_parse_kind(text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_KIND)));
	def->duration = PG_GETARG_INTERVAL_P(BENCH_ARG_DURATION);
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
	def->distribution = PG_ARGISNULL(BENCH_ARG_DISTRIBUTION) ?
		bench_mixes[def->kind].distribution :
		dist_parse(text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_DISTRIBUTION)));
	def->zipfian_constant = PG_GETARG_FLOAT8(BENCH_ARG_ZIPFIAN_CONSTANT);
	dist_check_constant(def->zipfian_constant);
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
	bool		isnull;
	int64		id;
	CatalogScope scope;

	catalog_connect(&scope, true);
	if (SPI_execute("SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence("
					"'petagen.bench_results', 'id'))", false, 1) != SPI_OK_SELECT)
		elog(ERROR, "petagen: could not draw a bench_results id");
	id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
									 1, &isnull));
	catalog_finish(&scope);
	return id;
}

/* Create and fill the shared state of a run. */
static dsm_segment *
bench_create_shared(const BenchDef *def, int64 id, int nworkers)
{
	Size		size = bench_shared_size(nworkers, def->ntargets);
	dsm_segment *seg = dsm_create(size, 0);
	BenchShared *shared = dsm_segment_address(seg);

	memset(shared, 0, size);
	shared->magic = BENCH_MAGIC;
	shared->run = id;
	shared->kind = def->kind;
	shared->distribution = def->distribution;
	shared->zipfian_constant = def->zipfian_constant;
	shared->relid = def->relid;
	shared->database = MyDatabaseId;
	shared->role = GetUserId();
	shared->rows = def->rows;
	shared->spec = def->spec;
	shared->insert_base = def->rows + id * BENCH_INSERT_STRIDE;
	shared->nworkers = nworkers;
	shared->ntargets = def->ntargets;
	pg_atomic_init_u32(&shared->go, 0);
	pg_atomic_init_u64(&shared->inserts, 0);
	for (int i = 0; i < BENCH_RING; i++)
		pg_atomic_init_u64(&shared->ring[i].tag, 0);
	for (int i = 0; i < nworkers; i++)
	{
		pg_atomic_init_u32(&shared->slots[i].state, BENCH_W_STARTING);
		hist_init(&shared->slots[i].hist);
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
 * On detaching a run's segment, however the caller leaves: terminate the
 * workers still running (a no-op for those that exited) and forget them.
 */
static void
bench_leader_detach(dsm_segment *seg, Datum arg)
{
	BenchLeader *leader = (BenchLeader *) DatumGetPointer(arg);

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
							slot->error[0] ? slot->error : "it exited, see the server log")));
		bench_sleep();
	}
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

/* Add up the slots of the workers into a result. */
static void
bench_merge(BenchShared *shared, BenchResult *res)
{
	uint64		last_ns = shared->measure_ns;

	pg_read_barrier();
	hist_init(&res->hist);
	for (int i = 0; i < shared->nworkers; i++)
	{
		BenchSlot  *slot = &shared->slots[i];

		for (int op = 0; op < BENCH_NOPS; op++)
		{
			res->ops[op] += slot->ops[op];
			res->operations += slot->ops[op];
		}
		res->errors += slot->errors;
		res->not_found += slot->not_found;
		last_ns = Max(last_ns, slot->last_ns);
		if (slot->error[0])
			strlcpy(res->last_error, slot->error, BENCH_TEXT_LEN);
		hist_merge(&res->hist, &slot->hist);
	}
	/* the measured window: to the end, or to the last operation's end */
	res->seconds = (Max(last_ns, shared->end_ns) - shared->measure_ns) / 1e9;
}

/* Run the workers of one benchmark run and collect their figures. */
static void
bench_execute_run(const BenchDef *def, BenchResult *res)
{
	dsm_segment *seg = bench_create_shared(def, res->id, res->nworkers);
	BenchShared *shared = dsm_segment_address(seg);
	BenchLeader *leader = bench_leader_create(seg, res->nworkers);

	for (int i = 0; i < res->nworkers; i++)
		bench_register_worker(seg, leader, res->id, i, res->nworkers);
	bench_wait_ready(shared, leader->handles);
	res->started_at = GetCurrentTimestamp();
	bench_go(shared, def);
	res->terminated = bench_wait_done(shared, leader->handles);
	bench_merge(shared, res);
	dsm_detach(seg);
}

/* A relation's name as regclass spells it. */
static char *
bench_relname(Oid relid)
{
	return DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
}

/* A target's name: its leaf, or a Citus shard's name as citus_shards spells it. */
static const char *
bench_target_name(const BenchDef *def, const BenchTarget *target)
{
	if (def->citus && target->relid == def->relid)
		return quote_identifier(citus_meta_shard_name(get_rel_name(def->relid),
													  target->leaf));
	return bench_relname(target->relid);
}

/* Append "key": string to a JSON object under construction. */
static void
bench_json_text(StringInfo buf, const char *key, const char *value)
{
	appendStringInfo(buf, ", \"%s\": ", key);
	escape_json(buf, value);
}

/* Everything about a run that has no column of its own, as JSON. */
static char *
bench_options_json(const BenchDef *def, const BenchResult *res)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"rows\": " INT64_FORMAT, def->rows);
	bench_json_text(&buf, "keys", keys_mode_name(def->spec.keys.mode));
	appendStringInfo(&buf, ", \"seed\": " INT64_FORMAT ", \"fieldlength\": %d",
					 (int64) def->spec.seed, def->spec.fieldlength);
	bench_json_text(&buf, "prefix", def->spec.keys.prefix);
	appendStringInfo(&buf, ", \"zeropadding\": %d, \"zipfian_constant\": %.15g",
					 def->spec.keys.zeropadding, def->zipfian_constant);
	if (def->job > 0)
		appendStringInfo(&buf, ", \"job\": " INT64_FORMAT, def->job);
	if (bench_does(def->kind, BENCH_OP_UPDATE) || bench_does(def->kind, BENCH_OP_RMW))
		bench_json_text(&buf, "field_updated", "one random field per update (YCSB writeallfields=false)");
	if (bench_does(def->kind, BENCH_OP_SCAN))
		bench_json_text(&buf, "scan_length", "uniform 1..100");
	if (bench_does(def->kind, BENCH_OP_INSERT))
		appendStringInfo(&buf, ", \"insert_base\": " INT64_FORMAT,
						 def->rows + res->id * BENCH_INSERT_STRIDE);
	appendStringInfo(&buf, ", \"seconds\": %.6f", res->seconds);
	if (res->terminated > 0)
		appendStringInfo(&buf, ", \"terminated_workers\": %d", res->terminated);
	if (res->last_error[0])
		bench_json_text(&buf, "last_error", res->last_error);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/*
 * The latency columns p50, p95, p99, p99.9 and max in microseconds into
 * values[0..4]; false if nothing was measured (the columns are then NULL).
 */
static bool
bench_latencies(const BenchResult *res, Datum *values)
{
	static const double fractions[4] = {0.50, 0.95, 0.99, 0.999};

	for (int i = 0; i < lengthof(fractions); i++)
		values[i] = Float8GetDatum(hist_percentile(&res->hist, fractions[i]) / 1000.0);
	values[4] = Float8GetDatum(res->hist.max / 1000.0);
	return res->operations > 0;
}

/* Insert the row of a run into petagen.bench_results. */
static void
bench_record(const BenchDef *def, const BenchResult *res, int64 sweep)
{
	Oid			types[27] = {INT8OID, INT8OID, TEXTOID, INT4OID, INTERVALOID,
		INTERVALOID, TEXTOID, TEXTARRAYOID, TEXTOID, TEXTOID, TEXTOID, INT8OID,
		FLOAT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID, INT8OID,
		FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, TIMESTAMPTZOID, OIDOID};
	Datum		values[27];
	char		nulls[27];
	Datum	   *names = palloc(sizeof(Datum) * def->ntargets);
	bool		measured;
	CatalogScope scope;

	for (int i = 0; i < def->ntargets; i++)
		names[i] = CStringGetTextDatum(bench_target_name(def, &def->targets[i]));
	memset(nulls, ' ', sizeof(nulls));
	values[0] = Int64GetDatum(res->id);
	values[1] = Int64GetDatum(sweep);
	nulls[1] = sweep > 0 ? ' ' : 'n';
	values[2] = CStringGetTextDatum(bench_mixes[def->kind].name);
	values[3] = Int32GetDatum(res->nworkers);
	values[4] = IntervalPGetDatum(def->duration);
	values[5] = IntervalPGetDatum(def->warmup);
	values[6] = CStringGetTextDatum(bench_relname(def->relid));
	values[7] = PointerGetDatum(construct_array(names, def->ntargets, TEXTOID, -1,
												false, TYPALIGN_INT));
	values[8] = CStringGetTextDatum(def->target_node);
	values[9] = CStringGetTextDatum(dist_name(def->distribution));
	values[10] = CStringGetTextDatum(bench_options_json(def, res));
	values[11] = Int64GetDatum(res->operations);
	values[12] = Float8GetDatum(res->operations / res->seconds);
	values[13] = Int64GetDatum(res->errors);
	values[14] = Int64GetDatum(res->not_found);
	for (int op = 0; op < BENCH_NOPS; op++)
		values[15 + op] = Int64GetDatum(res->ops[op]);
	measured = bench_latencies(res, &values[20]);
	for (int i = 20; i < 25; i++)
		nulls[i] = measured ? ' ' : 'n';
	values[25] = TimestampTzGetDatum(res->started_at);
	values[26] = ObjectIdGetDatum(GetUserId());
	catalog_connect(&scope, true);
	catalog_exec("INSERT INTO petagen.bench_results (id, sweep, kind, workers,"
				 " duration, warmup, \"table\", target, target_node, distribution,"
				 " options, operations, tps, errors, not_found, reads, updates,"
				 " inserts, scans, rmws, p50_us, p95_us, p99_us, p999_us, max_us,"
				 " started_at, run_by, finished_at) OVERRIDING SYSTEM VALUE VALUES"
				 " ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::pg_catalog.jsonb,"
				 " $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,"
				 " $25, $26, $27::pg_catalog.regrole, pg_catalog.clock_timestamp())",
				 27, types, values, nulls, SPI_OK_INSERT);
	catalog_finish(&scope);
}

/*
 * Put a run as a result row of a materialized SRF; sweep (its sweep's id,
 * or 0) ends the row where the result has that column (bench_sweep()'s).
 */
static void
bench_return_row(FunctionCallInfo fcinfo, const BenchDef *def,
				 const BenchResult *res, int64 sweep)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[BENCH_SWEEP_COLS];
	bool		nulls[BENCH_SWEEP_COLS] = {0};
	bool		measured;

	values[0] = Int64GetDatum(res->id);
	values[1] = CStringGetTextDatum(bench_mixes[def->kind].name);
	values[2] = Int32GetDatum(res->nworkers);
	values[3] = Int64GetDatum(res->operations);
	values[4] = Float8GetDatum(res->operations / res->seconds);
	values[5] = Int64GetDatum(res->errors);
	values[6] = Int64GetDatum(res->not_found);
	measured = bench_latencies(res, &values[7]);
	for (int i = 7; i < 12; i++)
		nulls[i] = !measured;
	for (int op = 0; op < BENCH_NOPS; op++)
		values[12 + op] = Int64GetDatum(res->ops[op]);
	values[BENCH_RESULT_COLS] = Int64GetDatum(sweep);
	nulls[BENCH_RESULT_COLS] = sweep <= 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Raise an error if a run of nworkers could insert past the key space. */
static void
bench_check_insert_room(const BenchDef *def, int64 id)
{
	if (bench_does(def->kind, BENCH_OP_INSERT) &&
		(id + 1) > (KEYS_MAX_SEQ - def->rows) / BENCH_INSERT_STRIDE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("no room left in the key space for the inserts of run " INT64_FORMAT, id),
				 errdetail("Inserted keys start at rows + id * 2^40.")));
}

/*
 * Run one benchmark with nworkers workers, record it, return its row and
 * its id.  sweep: the sweep's id, 0 for none, -1 when this run starts one.
 */
static int64
bench_run(FunctionCallInfo fcinfo, const BenchDef *def, int nworkers,
		  int64 sweep)
{
	BenchResult *res = palloc0(sizeof(BenchResult));

	res->nworkers = nworkers;
	res->id = bench_next_id();
	bench_check_insert_room(def, res->id);
	pgstat_report_activity(STATE_RUNNING,
						   psprintf("petagen bench " INT64_FORMAT ": %s, %d workers",
									res->id, bench_mixes[def->kind].name, nworkers));
	bench_execute_run(def, res);
	if (sweep < 0)
		sweep = res->id;
	bench_record(def, res, sweep);
	bench_return_row(fcinfo, def, res, sweep);
	return res->id;
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
	InitMaterializedSRF(fcinfo, 0);
	bench_run(fcinfo, &def, nworkers, 0);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(petagen_bench_sweep);
/* petagen.bench_sweep(kind, workers[], ...): one run per worker count. */
Datum
petagen_bench_sweep(PG_FUNCTION_ARGS)
{
	BenchDef	def;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			most = 0;
	int64		sweep = -1;

	bench_read_args(fcinfo, &def);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(BENCH_ARG_WORKERS), INT4OID, 4, true,
					  TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workers must list at least one worker count")));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("workers must not contain nulls")));
		if (DatumGetInt32(elems[i]) < 1)
			launch_check_workers(DatumGetInt32(elems[i]));
		most = Max(most, DatumGetInt32(elems[i]));
	}
	launch_check_workers(most);
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < n; i++)
	{
		int64		id = bench_run(fcinfo, &def, DatumGetInt32(elems[i]), sweep);

		if (sweep < 0)
			sweep = id;
	}
	return (Datum) 0;
}
