/*-------------------------------------------------------------------------
 * bench_params.c
 *		What a benchmark works on: its workload, by YCSB CoreWorkload's
 *		property names, and its target leaves.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <math.h>

#include "bench/bench.h"
#include "common/int.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "catalog.h"
#include "compat.h"
#include "gen/keys.h"
#include "gen/rowgen.h"
#include "guard.h"
#include "job/ledger.h"
#include "route/route.h"


/*-------------------------------------------------------------------------
 *		The workload of petagen.bench() and petagen.bench_sweep(), by YCSB
 *		CoreWorkload's property names without dots: the kind, the five
 *		operation proportions, operationcount, the request distribution
 *		with its parameters, the scan shape (minscanlength,
 *		maxscanlength, scanlengthdistribution), and the pace: YCSB's
 *		target as target_rate (bench()'s target names its target leaves).
 *
 * Kind ycsb takes the proportions given; one not given takes
 * CoreWorkload's default (readproportion 0.95, updateproportion 0.05, the
 * others 0), and together they must sum to 1.  The other kinds are presets
 * with fixed proportions, YCSB's workloads/workloada .. workloadf files
 * for ycsb-a .. ycsb-f: giving a proportion with them is an error.  A
 * preset's distribution and maxscanlength (workloade's 100) are defaults
 * that the arguments override.  dataintegrity (YCSB's) is off unless
 * given true.
 *-------------------------------------------------------------------------
 */

/* How far the proportions may sum from 1 (rounding of decimal fractions). */
#define BENCH_PROPORTION_EPSILON	1e-9
/* Longest scan: a LIMIT, kept well inside int4. */
#define BENCH_MAX_SCANLENGTH		1000000

/* A kind: its proportions, distribution and maxscanlength (YCSB's). */
typedef struct BenchPreset
{
	const char *name;
	double		proportion[BENCH_NOPS];
	DistKind	distribution;
	int32		maxscanlength;
} BenchPreset;

/* CoreWorkload's defaults, YCSB's core workloads and the two micro kinds. */
static const BenchPreset bench_presets[BENCH_NKINDS] = {
	/* read, update, insert, scan, rmw */
	{"ycsb", {0.95, 0.05, 0, 0, 0}, DIST_UNIFORM, 1000},
	{"select", {1, 0, 0, 0, 0}, DIST_UNIFORM, 1000},
	{"update", {0, 1, 0, 0, 0}, DIST_UNIFORM, 1000},
	{"ycsb-a", {0.5, 0.5, 0, 0, 0}, DIST_ZIPFIAN, 1000},
	{"ycsb-b", {0.95, 0.05, 0, 0, 0}, DIST_ZIPFIAN, 1000},
	{"ycsb-c", {1, 0, 0, 0, 0}, DIST_ZIPFIAN, 1000},
	{"ycsb-d", {0.95, 0, 0.05, 0, 0}, DIST_LATEST, 1000},
	{"ycsb-e", {0, 0, 0.05, 0.95, 0}, DIST_ZIPFIAN, 100},
	{"ycsb-f", {0.5, 0, 0, 0, 0.5}, DIST_ZIPFIAN, 1000},
};

/* The proportions' argument names, in BenchOp order. */
static const char *const bench_proportion_names[BENCH_NOPS] = {
	"readproportion", "updateproportion", "insertproportion",
	"scanproportion", "readmodifywriteproportion"
};

/* The name of a kind. */
const char *
bench_kind_name(BenchKind kind)
{
	return bench_presets[kind].name;
}

/* Does the workload read, update, insert, scan or read-modify-write? */
bool
bench_does(const BenchWorkload *w, BenchOp op)
{
	return w->proportion[op] > 0;
}

/* A kind by name. */
static BenchKind
bench_parse_kind(const char *name)
{
	for (int k = 0; k < BENCH_NKINDS; k++)
		if (strcmp(name, bench_presets[k].name) == 0)
			return (BenchKind) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown benchmark kind \"%s\"", name),
			 errhint("Use ycsb with readproportion, updateproportion, insertproportion, scanproportion and readmodifywriteproportion, or one of the presets select, update, ycsb-a, ycsb-b, ycsb-c, ycsb-d, ycsb-e, ycsb-f.")));
	pg_unreachable();
}

/*
 * Was argument argno given (not NULL)?  The declarations of petagen 0.1,
 * which a server runs until ALTER EXTENSION petagen UPDATE, end with
 * zeropadding: the arguments after it are not given.
 */
bool
bench_arg_given(FunctionCallInfo fcinfo, int argno)
{
	return argno < PG_NARGS() && !PG_ARGISNULL(argno);
}

/* A float8 argument, or a fallback when it is not given. */
static double
bench_float_arg(FunctionCallInfo fcinfo, int argno, double fallback)
{
	return bench_arg_given(fcinfo, argno) ? PG_GETARG_FLOAT8(argno) : fallback;
}

/* The proportions: the preset's, or kind ycsb's arguments summing to 1. */
static void
bench_read_proportions(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	const BenchPreset *preset = &bench_presets[w->kind];
	double		sum = 0;

	for (int op = 0; op < BENCH_NOPS; op++)
	{
		int			argno = BENCH_ARG_READPROPORTION + op;

		if (bench_arg_given(fcinfo, argno) && w->kind != BENCH_YCSB)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s applies only to kind ycsb, not to the preset \"%s\"",
							bench_proportion_names[op], preset->name),
					 errhint("Use kind => 'ycsb' with the proportions of your workload file.")));
		w->proportion[op] = bench_float_arg(fcinfo, argno, preset->proportion[op]);
		if (!(w->proportion[op] >= 0 && w->proportion[op] <= 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must be between 0 and 1, not %g",
							bench_proportion_names[op], w->proportion[op])));
		sum += w->proportion[op];
	}
	if (fabs(sum - 1) > BENCH_PROPORTION_EPSILON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the operation proportions sum to %.10g, not 1", sum),
				 errdetail("readproportion %g, updateproportion %g, insertproportion %g, scanproportion %g, readmodifywriteproportion %g.",
						   w->proportion[BENCH_OP_READ], w->proportion[BENCH_OP_UPDATE],
						   w->proportion[BENCH_OP_INSERT], w->proportion[BENCH_OP_SCAN],
						   w->proportion[BENCH_OP_RMW]),
				 errhint("A proportion not given takes YCSB's default: readproportion 0.95, updateproportion 0.05, the others 0.")));
}

/* The scan shape: minscanlength .. maxscanlength, uniform or zipfian. */
static void
bench_read_scan(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	const char *dist = !bench_arg_given(fcinfo, BENCH_ARG_SCANLENGTHDISTRIBUTION) ? "uniform" :
	text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_SCANLENGTHDISTRIBUTION));

	w->minscanlength = !bench_arg_given(fcinfo, BENCH_ARG_MINSCANLENGTH) ? 1 :
		PG_GETARG_INT32(BENCH_ARG_MINSCANLENGTH);
	w->maxscanlength = !bench_arg_given(fcinfo, BENCH_ARG_MAXSCANLENGTH) ?
		bench_presets[w->kind].maxscanlength : PG_GETARG_INT32(BENCH_ARG_MAXSCANLENGTH);
	if (w->minscanlength < 1 || w->maxscanlength < w->minscanlength ||
		w->maxscanlength > BENCH_MAX_SCANLENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scan lengths %d .. %d are out of range",
						w->minscanlength, w->maxscanlength),
				 errhint("minscanlength must be at least 1 and at most maxscanlength, and maxscanlength at most %d.",
						 BENCH_MAX_SCANLENGTH)));
	w->scanzipfian = strcmp(dist, "zipfian") == 0;
	if (!w->scanzipfian && strcmp(dist, "uniform") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown scanlengthdistribution \"%s\"", dist),
				 errhint("Use uniform or zipfian.")));
}

/* operationcount: a positive count, or 0 when the run has a duration instead. */
static void
bench_read_operationcount(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	if (!bench_arg_given(fcinfo, BENCH_ARG_OPERATIONCOUNT))
		return;
	if (!PG_ARGISNULL(BENCH_ARG_DURATION))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration and operationcount cannot both be given"),
				 errhint("A run ends after its duration or after operationcount operations: pass one of them.")));
	w->operationcount = PG_GETARG_INT64(BENCH_ARG_OPERATIONCOUNT);
	if (w->operationcount < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("operationcount must be at least 1, not " INT64_FORMAT,
						w->operationcount)));
}

/*
 * target_rate, YCSB's target (bench() has a target argument: its target
 * leaves): operations per second over all workers, or 0 for a closed loop.
 */
static void
bench_read_target_rate(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	if (!bench_arg_given(fcinfo, BENCH_ARG_TARGET_RATE))
		return;
	w->target_rate = PG_GETARG_FLOAT8(BENCH_ARG_TARGET_RATE);
	if (!(w->target_rate > 0) || isinf(w->target_rate))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target_rate must be a positive finite number of operations per second, not %g",
						w->target_rate),
				 errhint("Pass NULL (the default) to run the workers in a closed loop, as fast as they can.")));
}

/* The request distribution and its parameters. */
static void
bench_read_distribution(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	static const int argnos[] = {BENCH_ARG_ZIPFIAN_CONSTANT,
		BENCH_ARG_HOTSPOTDATAFRACTION, BENCH_ARG_HOTSPOTOPNFRACTION,
	BENCH_ARG_EXPONENTIALPERCENTILE, BENCH_ARG_EXPONENTIALFRAC};

	w->distribution = PG_ARGISNULL(BENCH_ARG_DISTRIBUTION) ?
		bench_presets[w->kind].distribution :
		dist_parse(text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_DISTRIBUTION)));
	dist_read_params(fcinfo, argnos, "petagen.bench()", &w->params);
}

/* Read and validate the workload arguments of bench() or bench_sweep(). */
void
bench_read_workload(FunctionCallInfo fcinfo, BenchWorkload *w)
{
	memset(w, 0, sizeof(BenchWorkload));
	w->kind = bench_parse_kind(text_to_cstring(PG_GETARG_TEXT_PP(BENCH_ARG_KIND)));
	bench_read_proportions(fcinfo, w);
	bench_read_operationcount(fcinfo, w);
	bench_read_distribution(fcinfo, w);
	bench_read_scan(fcinfo, w);
	w->dataintegrity = bench_arg_given(fcinfo, BENCH_ARG_DATAINTEGRITY) &&
		PG_GETARG_BOOL(BENCH_ARG_DATAINTEGRITY);
	bench_read_target_rate(fcinfo, w);
}

/* Append the workload's parameters to a JSON object under construction. */
void
bench_workload_json(StringInfo buf, const BenchWorkload *w)
{
	for (int op = 0; op < BENCH_NOPS; op++)
		appendStringInfo(buf, ", \"%s\": %.15g", bench_proportion_names[op],
						 w->proportion[op]);
	if (w->operationcount > 0)
		appendStringInfo(buf, ", \"operationcount\": " INT64_FORMAT, w->operationcount);
	if (w->distribution == DIST_HOTSPOT)
		appendStringInfo(buf, ", \"hotspotdatafraction\": %.15g, \"hotspotopnfraction\": %.15g",
						 w->params.hotspotdatafraction, w->params.hotspotopnfraction);
	if (w->distribution == DIST_EXPONENTIAL)
		appendStringInfo(buf, ", \"exponentialpercentile\": %.15g, \"exponentialfrac\": %.15g",
						 w->params.exponentialpercentile, w->params.exponentialfrac);
	if (bench_does(w, BENCH_OP_SCAN))
		appendStringInfo(buf, ", \"minscanlength\": %d, \"maxscanlength\": %d, \"scanlengthdistribution\": \"%s\"",
						 w->minscanlength, w->maxscanlength,
						 w->scanzipfian ? "zipfian" : "uniform");
	if (w->dataintegrity)
		appendStringInfoString(buf, ", \"dataintegrity\": true");
}


/*-------------------------------------------------------------------------
 *		The target of a benchmark: the leaves petagen.bench() and
 *		petagen.bench_sweep() work on (named ones, or by default the local
 *		leaves), the node they are on, and the checks that the current
 *		user may do what the workload does to them and that they hold
 *		the key space.
 *
 * Targets are sorted by leaf id (a Citus shard's id, else the leaf's oid)
 * so that workers find a leaf's target by bsearch; every target is on one
 * node.  The key space is checked by probing: the first, middle and last
 * key of it are looked up, and bench() warns when the target leaves lack
 * them.  See bench.c for the run itself.
 *-------------------------------------------------------------------------
 */

/* Key numbers tried to show that the target holds part of the key space. */
#define BENCH_PROBE_KEYS	100000

/* Raise an error unless the current user may do what the kind does to a leaf. */
static void
bench_check_privileges(const BenchWorkload *w, Oid relid)
{
	AclMode		modes[3] = {ACL_SELECT, ACL_UPDATE, ACL_INSERT};
	bool		needed[3] = {true,
		bench_does(w, BENCH_OP_UPDATE) || bench_does(w, BENCH_OP_RMW),
	bench_does(w, BENCH_OP_INSERT)};

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
	for (int64 seq = def->first; seq - def->first < def->rows;)
	{
		int			leaf;

		CHECK_FOR_INTERRUPTS();
		rowgen_build_key(&rg, seq);
		leaf = route_key(router, rg.key);
		if (leaf >= 0 && bench_find_target(def, route_leaf(router, leaf)) != NULL)
			return;
		if (pg_add_s64_overflow(seq, step, &seq))
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("no key of the key space " INT64_FORMAT " .. " INT64_FORMAT " lives in the target leaves",
					def->first, def->first + (def->rows - 1)),
			 errhint("Benchmark leaves that hold rows of the key space, or pass the right rows => ... .")));
}

/* Is a key (keys_datum() of kind) in the target relation relid? */
static bool
bench_key_present(KeyKind kind, Datum key, Oid relid)
{
	Oid			types[1] = {keys_type(kind)};
	Datum		values[1] = {key};
	CatalogScope scope;
	uint64		found;

	catalog_connect(&scope, false);
	found = catalog_exec(psprintf("SELECT FROM %s WHERE ycsb_key = $1 LIMIT 1",
								  catalog_relation_name(relid)),
						 1, types, values, NULL, SPI_OK_SELECT);
	catalog_finish(&scope);
	return found > 0;
}

/*
 * The key spelling arguments of a run that override those of the load job
 * its key space is from, as "keys => 'ordered' (load job 3: 'scrambled')",
 * or NULL if none does.
 */
static char *
bench_spelling_overrides(const BenchDef *def)
{
	const KeySpec *mine = &def->spec.keys;
	const KeySpec *its;
	JobDef		job;
	StringInfoData buf;

	if (def->job <= 0 || !job_read(def->job, &job, true) ||
		mine->kind != KEYKIND_TEXT)
		return NULL;
	its = &job.spec.keys;
	initStringInfo(&buf);
	if (mine->mode != its->mode)
		appendStringInfo(&buf, "keys => %s (load job " INT64_FORMAT ": %s)",
						 quote_literal_cstr(keys_mode_name(mine->mode)), def->job,
						 quote_literal_cstr(keys_mode_name(its->mode)));
	if (strcmp(mine->prefix, its->prefix) != 0)
		appendStringInfo(&buf, "%sprefix => %s (load job " INT64_FORMAT ": %s)",
						 buf.len > 0 ? ", " : "", quote_literal_cstr(mine->prefix),
						 def->job, quote_literal_cstr(its->prefix));
	if (mine->zeropadding != its->zeropadding)
		appendStringInfo(&buf, "%szeropadding => %d (load job " INT64_FORMAT ": %d)",
						 buf.len > 0 ? ", " : "", mine->zeropadding, def->job,
						 its->zeropadding);
	return buf.len > 0 ? buf.data : NULL;
}

/*
 * Warn if the target leaves lack the first, middle or last key number of
 * the key space that they should hold: the keys, prefix or zeropadding
 * given spell the keys otherwise than the job the key space is from (the
 * warning names them), the table was emptied or loaded again since that
 * job, or rows does not match.
 * Only a warning: a run over a partly deleted table can be what is wanted,
 * and its not_found says how much it missed.
 */
static void
bench_check_key_space(const BenchDef *def, Router *router, bool rows_given)
{
	int64		probes[3] = {def->first + (def->rows - 1),
	def->first + def->rows / 2, def->first};
	RowShape	shape;
	RowGen		rg;
	Relation	rel = RelationIdGetRelation(def->relid);
	char	   *overrides;

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	RelationClose(rel);
	rowgen_init(&rg, &shape, &def->spec);
	for (int i = 0; i < lengthof(probes); i++)
	{
		const BenchTarget *target;
		int			leaf;

		rowgen_build_key(&rg, probes[i]);
		leaf = route_key(router, rg.key);
		target = leaf < 0 ? NULL : bench_find_target(def, route_leaf(router, leaf));
		if (target == NULL || bench_key_present(rg.spec.keys.kind, rg.key, target->relid))
			continue;
		overrides = bench_spelling_overrides(def);
		if (overrides != NULL)
		{
			ereport(WARNING,
					(errcode(ERRCODE_WARNING),
					 errmsg("table \"%s\" does not hold key number " INT64_FORMAT " of the key space " INT64_FORMAT " .. " INT64_FORMAT " as the arguments spell it",
							get_rel_name(def->relid), probes[i], def->first,
							def->first + (def->rows - 1)),
					 errdetail("The arguments %s spell the keys otherwise than the load job the table's key space is from.",
							   overrides),
					 errhint("Leave those arguments out to use the load job's; not_found counts the operations that miss.")));
			return;
		}
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("table \"%s\" does not hold key number " INT64_FORMAT " of the key space " INT64_FORMAT " .. " INT64_FORMAT,
						get_rel_name(def->relid), probes[i], def->first,
						def->first + (def->rows - 1)),
				 def->job > 0 && !rows_given ?
				 errdetail("The key space is that of load job " INT64_FORMAT ": the table was emptied or loaded again since.", def->job) :
				 errdetail("The key space is the rows given."),
				 errhint("Load the table again with petagen.start(), or pass rows, keys, seed and prefix as it was loaded; not_found counts the operations that miss.")));
		return;
	}
}

/* Resolve the target (default: the local leaves) and check it. */
void
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
		bench_check_privileges(&def->workload, def->targets[i].relid);
	def->target_node = pstrdup(bench_target_node(def, router));
	if (bench_arg_given(fcinfo, BENCH_ARG_CLIENTS))
		bench_check_client_server(def);
	bench_check_target_keys(def, router);
	bench_check_key_space(def, router, !PG_ARGISNULL(BENCH_ARG_ROWS));
	route_close(router);
}
