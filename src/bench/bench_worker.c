/*-------------------------------------------------------------------------
 * bench_worker.c
 *		A benchmark's background worker: its operations, the measurement of
 *		every one, and YCSB's dataintegrity check of the rows it reads.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "bench/bench.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "catalog.h"
#include "compat.h"
#include "gen/rowgen.h"
#include "launch.h"
#include "route/route.h"

static bool measure_wait(BenchPace *pace, uint64 end_ns, uint64 *intended);
static bool bench_first_row_is_key(RowGen *rg, SPITupleTable *tuptable,
								   uint64 nrows);


/*-------------------------------------------------------------------------
 *		A benchmark's background worker: prepare the plans of every target
 *		leaf, wait for the start signal, then run operations until the end
 *		of the run (or until the run's operationcount is claimed), each in
 *		its own transaction, timed with the monotonic clock, at the run's
 *		pace if it has a target_rate; record the measured ones
 *		(bench_worker.c).
 *
 * Queries name the target leaf itself, so a foreign leaf is queried
 * through its foreign data wrapper (postgres_fdw); a Citus shard on a
 * named node is queried through the distributed table, and Citus sends
 * each single-key statement to the node holding the key's shard (targets
 * naming the same relation share their plans).  Keys are drawn from
 * the run's distribution and kept only if PostgreSQL routes them to a
 * target leaf (rejection sampling); drawing and routing happen in batches,
 * in their own short transaction, outside the timed section.  An
 * operation that fails is rolled back and counted as an error; the worker
 * goes on.  An operation is measured if it is intended (in a closed loop:
 * starts) after the warm-up.  With dataintegrity, reads are checked and
 * updates write the generator's values (bench_worker.c).
 *-------------------------------------------------------------------------
 */

/* Draws in a row that miss the target before the worker gives up. */
#define BENCH_MAX_REJECTS	1000000
/* How long a worker waits for the start signal. */
#define BENCH_GO_TIMEOUT_NS	(UINT64CONST(120) * 1000000000)

PGDLLEXPORT void petagen_bench_main(Datum main_arg);

/* Prepare one statement and keep its plan. */
static SPIPlanPtr
bench_prepare_sql(const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, types);

	if (plan == NULL)
		elog(ERROR, "petagen: could not prepare \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	SPI_keepplan(plan);
	return plan;
}

/* The INSERT of a whole row into a leaf: key, then the fields. */
char *
bench_insert_sql(const char *leaf, const RowShape *shape)
{
	int			nfields = shape->nfields;
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s (ycsb_key", leaf);
	for (int f = 0; f < nfields; f++)
		appendStringInfo(&sql, ", field%d", shape->field_base + f);
	appendStringInfoString(&sql, ") VALUES ($1");
	for (int f = 0; f < nfields; f++)
		appendStringInfo(&sql, ", $%d", f + 2);
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

/* The SELECT of one row of a leaf by its key. */
char *
bench_select_sql(const char *leaf)
{
	return psprintf("SELECT * FROM %s WHERE ycsb_key = $1", leaf);
}

/* The scan of a leaf from a key on, $2 rows at most. */
char *
bench_scan_sql(const char *leaf)
{
	return psprintf("SELECT * FROM %s WHERE ycsb_key >= $1"
					" ORDER BY ycsb_key LIMIT $2", leaf);
}

/* The UPDATE of one field (its column field<number>) of a leaf's row by its key. */
char *
bench_update_sql(const char *leaf, int field)
{
	return psprintf("UPDATE %s SET field%d = $2 WHERE ycsb_key = $1", leaf, field);
}

/* Prepare the plans the run's mix needs on one leaf. */
static void
bench_prepare_leaf(BenchCtx *ctx, Oid relid, BenchPlans *plans)
{
	const double *p = ctx->workload->proportion;
	char	   *leaf = catalog_relation_name(relid);
	Oid			types[2] = {keys_type(ctx->rg.spec.keys.kind), INT8OID};
	Oid		   *row_types = palloc(sizeof(Oid) * (ctx->shape.nfields + 1));

	if (p[BENCH_OP_READ] > 0 || p[BENCH_OP_RMW] > 0)
		plans->select = bench_prepare_sql(bench_select_sql(leaf), 1, types);
	if (p[BENCH_OP_SCAN] > 0)
		plans->scan = bench_prepare_sql(bench_scan_sql(leaf), 2, types);
	if (p[BENCH_OP_UPDATE] > 0 || p[BENCH_OP_RMW] > 0)
	{
		types[1] = TEXTOID;
		plans->update = MemoryContextAlloc(ctx->cxt, sizeof(SPIPlanPtr) * ctx->shape.nfields);
		for (int f = 0; f < ctx->shape.nfields; f++)
			plans->update[f] = bench_prepare_sql(bench_update_sql(leaf, ctx->shape.field_base + f),
												 2, types);
	}
	if (p[BENCH_OP_INSERT] > 0)
	{
		row_types[0] = types[0];
		for (int i = 1; i <= ctx->shape.nfields; i++)
			row_types[i] = TEXTOID;
		plans->insert = bench_prepare_sql(bench_insert_sql(leaf, &ctx->shape),
										  ctx->shape.nfields + 1, row_types);
	}
}

/* The plans of target t: those of an earlier target naming the same relation, or new ones. */
static void
bench_prepare_target(BenchCtx *ctx, int t)
{
	BenchTarget *targets = bench_targets(ctx->shared);

	for (int u = 0; u < t; u++)
		if (targets[u].relid == targets[t].relid)
		{
			ctx->plans[t] = ctx->plans[u];
			return;
		}
	bench_prepare_leaf(ctx, targets[t].relid, &ctx->plans[t]);
}

/*
 * Read the table's shape and set up the generator, in the current
 * transaction.
 */
void
bench_prepare_shape(BenchCtx *ctx)
{
	BenchShared *shared = ctx->shared;
	Relation	rel;

	rel = table_open(shared->relid, AccessShareLock);
	MemoryContextSwitchTo(ctx->cxt);
	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel),
					   &ctx->shape);
	rowgen_init(&ctx->rg, &ctx->shape, &shared->spec);
	ctx->value = palloc(VARHDRSZ + shared->spec.fieldlength);
	SET_VARSIZE(ctx->value, VARHDRSZ + shared->spec.fieldlength);
	table_close(rel, NoLock);
}

/* Read the table's shape and prepare the plans of every target leaf. */
static void
bench_prepare(BenchCtx *ctx)
{
	BenchShared *shared = ctx->shared;
	CatalogScope scope;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	bench_prepare_shape(ctx);
	ctx->plans = palloc0(sizeof(BenchPlans) * shared->ntargets);
	/* the plans keep the pinned search_path when they are planned again */
	catalog_connect(&scope, false);
	for (int t = 0; t < shared->ntargets; t++)
		bench_prepare_target(ctx, t);
	catalog_finish(&scope);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
}

/* The key number of committed insert j (a logical number), or -1 if unknown. */
static int64
bench_inserted_seq(BenchShared *shared, uint64 j)
{
	BenchRingEntry *entry = &shared->ring[j % BENCH_RING];
	int64		seq;

	if (pg_atomic_read_u64(&entry->tag) != j + 1)
		return -1;
	pg_read_barrier();
	seq = entry->seq;
	pg_read_barrier();
	return pg_atomic_read_u64(&entry->tag) == j + 1 ? seq : -1;
}

/* Publish the key number of committed insert j for the latest distribution. */
void
bench_publish_insert(BenchShared *shared, uint64 j, int64 seq)
{
	BenchRingEntry *entry = &shared->ring[j % BENCH_RING];

	pg_atomic_write_u64(&entry->tag, 0);
	pg_write_barrier();
	entry->seq = seq;
	pg_write_barrier();
	pg_atomic_write_u64(&entry->tag, j + 1);
}

/* Draw a key number to read; -1 if the draw hit an insert not known (yet). */
static int64
bench_draw(BenchCtx *ctx)
{
	BenchShared *shared = ctx->shared;
	int64		inserted = (int64) pg_atomic_read_u64(&shared->inserts);
	int64		n = dist_next(&ctx->chooser, &ctx->rng, shared->rows - 1 + inserted);

	if (n < shared->rows)
		return shared->first + n;
	return bench_inserted_seq(shared, (uint64) (n - shared->rows));
}

/* The target index of a leaf of the router, or -1. */
static int
bench_target_index(BenchShared *shared, const RouteLeaf *leaf)
{
	BenchTarget key = {bench_leaf_id(leaf), InvalidOid};
	BenchTarget *found = bsearch(&key, bench_targets(shared), shared->ntargets,
								 sizeof(BenchTarget), bench_target_cmp);

	return found == NULL ? -1 : (int) (found - bench_targets(shared));
}

/* The target index of the leaf key number seq goes to, or -1. */
static int
bench_route(BenchCtx *ctx, Router *router, int64 seq)
{
	int			leaf;

	rowgen_build_key(&ctx->rg, seq);
	leaf = route_key(router, ctx->rg.key);
	if (leaf < 0)
		return -1;
	return bench_target_index(ctx->shared, route_leaf(router, leaf));
}

/* Add seq to buf if it lives in the target; raise an error after too many misses. */
static void
bench_keep(BenchCtx *ctx, Router *router, BenchKeyBuf *buf, int64 seq,
		   int *rejects)
{
	int			target = seq < 0 ? -1 : bench_route(ctx, router, seq);

	if (target >= 0)
	{
		buf->keys[buf->n].seq = seq;
		buf->keys[buf->n++].target = target;
		*rejects = 0;
	}
	else if (++*rejects > BENCH_MAX_REJECTS)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no key drawn in %d tries lives in a target leaf",
						BENCH_MAX_REJECTS)));
}

/*
 * Whether key number seq fits an integer ycsb_key; if not, with none
 * buffered (nbuffered), raise an error and stop the worker: every later
 * insert would fail the same way.
 */
static bool
bench_insert_fits(BenchCtx *ctx, int64 seq, int nbuffered)
{
	if (seq <= keys_max_seq(&ctx->shared->spec.keys))
		return true;
	if (nbuffered > 0)
		return false;
	ctx->finished = true;
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("key number " INT64_FORMAT " to insert is out of range for integer column ycsb_key", seq),
			 errdetail("An integer column holds key numbers up to " INT64_FORMAT ".",
					   keys_max_seq(&ctx->shared->spec.keys)),
			 errhint("Make the column bigint.")));
}

/* Fill a batch of routed keys in a transaction of its own: reads or inserts. */
static void
bench_refill(BenchCtx *ctx, BenchKeyBuf *buf, bool inserts)
{
	int			want = inserts ? BENCH_INSERT_BATCH : BENCH_KEY_BATCH;
	int			rejects = 0;
	Router	   *router;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	router = route_open(ctx->shared->relid);
	buf->n = buf->next = 0;
	while (buf->n < want)
	{
		CHECK_FOR_INTERRUPTS();
		if (inserts)
		{
			int64		seq = ctx->shared->insert_base +
			ctx->next_candidate++ * ctx->shared->nworkers + ctx->args.index;

			if (!bench_insert_fits(ctx, seq, buf->n))
			{
				ctx->next_candidate--;	/* the next refill fails on it */
				break;
			}
			bench_keep(ctx, router, buf, seq, &rejects);
			ctx->slot->insert_candidates = ctx->next_candidate;
		}
		else
			bench_keep(ctx, router, buf, bench_draw(ctx), &rejects);
	}
	route_close(router);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
}

/* The next key of a batch, refilling it when empty. */
BenchKey
bench_take(BenchCtx *ctx, BenchKeyBuf *buf, bool inserts)
{
	if (buf->next >= buf->n)
		bench_refill(ctx, buf, inserts);
	return buf->keys[buf->next++];
}

/* Run a prepared plan; the rows it returned or changed. */
static uint64
bench_execute(SPIPlanPtr plan, Datum *values)
{
	int			rc = SPI_execute_plan(plan, values, NULL, false, 0);

	if (rc < 0)
		elog(ERROR, "petagen: SPI_execute_plan failed: %s",
			 SPI_result_code_string(rc));
	return SPI_processed;
}

/*
 * Update one random field of key number seq (key) with a new random value,
 * or with dataintegrity the generator's; rows changed.
 */
static uint64
bench_update(BenchCtx *ctx, BenchPlans *plans, int64 seq, Datum key)
{
	int			field = (int) dist_rng_below(&ctx->rng, ctx->shape.nfields);
	Datum		values[2];

	values[0] = key;
	if (ctx->workload->dataintegrity)
		values[1] = bench_integrity_value(&ctx->rg, seq, field);
	else
	{
		rowgen_fill_field(ctx->shared->spec.seed ^ (uint64) ctx->shared->run,
						  (int64) ctx->opno++, ctx->args.index, VARDATA(ctx->value),
						  ctx->shared->spec.fieldlength);
		values[1] = PointerGetDatum(ctx->value);
	}
	return bench_execute(plans->update[field], values);
}

/* Run a read or a scan starting at key number seq; with dataintegrity check it. */
static uint64
bench_read(BenchCtx *ctx, SPIPlanPtr plan, int64 seq, Datum *values)
{
	uint64		n = bench_execute(plan, values);

	if (ctx->workload->dataintegrity)
		ctx->mismatches += bench_integrity_check(&ctx->rg, seq, SPI_tuptable, n);
	return n;
}

/* Insert the whole row of key number seq into its leaf. */
static void
bench_insert(BenchCtx *ctx, BenchPlans *plans, int64 seq)
{
	Datum	   *values = palloc(sizeof(Datum) * (ctx->shape.nfields + 1));

	rowgen_build_key(&ctx->rg, seq);
	rowgen_build_fields(&ctx->rg, seq);
	values[0] = ctx->rg.values[ctx->shape.key_att];
	for (int f = 0; f < ctx->shape.nfields; f++)
		values[f + 1] = ctx->rg.values[ctx->shape.field_att[f]];
	bench_execute(plans->insert, values);
}

/* A scan's length: YCSB's scanlength generator over minscanlength .. maxscanlength. */
int64
bench_scan_length(BenchCtx *ctx)
{
	const BenchWorkload *w = ctx->workload;

	if (w->scanzipfian)
		return w->minscanlength + dist_zipf_range_next(&ctx->scanzipf, &ctx->rng);
	return w->minscanlength +
		dist_rng_below(&ctx->rng, w->maxscanlength - w->minscanlength + 1);
}

/* One operation on one key, in the current transaction; false if not found. */
static bool
bench_operate(BenchCtx *ctx, BenchOp op, BenchKey key)
{
	BenchPlans *plans = &ctx->plans[key.target];
	Datum		values[2];
	bool		found = true;
	uint64		n;

	if (op == BENCH_OP_INSERT)
	{
		bench_insert(ctx, plans, key.seq);
		return true;
	}
	rowgen_build_key(&ctx->rg, key.seq);
	values[0] = ctx->rg.key;
	switch (op)
	{
		case BENCH_OP_READ:
			found = bench_read(ctx, plans->select, key.seq, values) > 0;
			break;
		case BENCH_OP_UPDATE:
			found = bench_update(ctx, plans, key.seq, values[0]) > 0;
			break;
		case BENCH_OP_SCAN:
			values[1] = Int64GetDatum(bench_scan_length(ctx));
			n = bench_read(ctx, plans->scan, key.seq, values);
			found = bench_first_row_is_key(&ctx->rg, SPI_tuptable, n);
			break;
		case BENCH_OP_RMW:
			found = bench_read(ctx, plans->select, key.seq, values) > 0;
			bench_update(ctx, plans, key.seq, values[0]);
			break;
		default:
			elog(ERROR, "unexpected benchmark operation %d", (int) op);
	}
	return found;
}

/* Pick the next operation by the mix's proportions. */
BenchOp
bench_pick_op(BenchCtx *ctx)
{
	double		u = dist_rng_double(&ctx->rng);
	double		sum = 0;
	int			last = 0;

	for (int op = 0; op < BENCH_NOPS; op++)
	{
		if (ctx->workload->proportion[op] <= 0)
			continue;
		sum += ctx->workload->proportion[op];
		last = op;
		if (u < sum)
			return (BenchOp) op;
	}
	return (BenchOp) last;
}

/* One timed transaction; returns whether the key was found. */
static bool
bench_transaction(BenchCtx *ctx, BenchOp op, BenchKey key)
{
	bool		found;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	found = bench_operate(ctx, op, key);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return found;
}

/*
 * May an operation intended at t0 run?  With operationcount, a measured
 * one claims its number first: false once operationcount are claimed.
 */
bool
bench_claim(BenchCtx *ctx, uint64 t0)
{
	BenchShared *shared = ctx->shared;

	if (shared->workload.operationcount == 0 || t0 < shared->measure_ns)
		return true;
	return pg_atomic_fetch_add_u64(&shared->claimed, 1) <
		(uint64) shared->workload.operationcount;
}

/*
 * Run and time one operation intended at intended that starts at t0;
 * record it if measured.
 */
static void
bench_timed(BenchCtx *ctx, BenchOp op, BenchKey key, uint64 intended, uint64 t0)
{
	BenchShared *shared = ctx->shared;
	BenchSlot  *slot = ctx->slot;
	uint64		j = op == BENCH_OP_INSERT ? pg_atomic_fetch_add_u64(&shared->inserts, 1) : 0;
	bool		found;
	uint64		t1;

	ctx->mismatches = 0;
	found = bench_transaction(ctx, op, key);
	t1 = bench_now_ns();

	MemoryContextSwitchTo(ctx->cxt);
	if (op == BENCH_OP_INSERT)
		bench_publish_insert(shared, j, key.seq);
	if (intended >= shared->measure_ns)
	{
		slot->integrity_errors += ctx->mismatches;
		slot->last_ns = t1;
		measure_record(&slot->measure, ctx->pace.period_ns > 0, op,
					   shared->measure_ns, intended, t0, t1, found);
	}
}

/*
 * Choose, run, time and record one operation, at its intended time when
 * the run is paced; errors are counted.
 */
static void
bench_step(BenchCtx *ctx)
{
	BenchShared *shared = ctx->shared;
	BenchSlot  *slot = ctx->slot;
	volatile uint64 intended = 0;
	volatile BenchOp op = BENCH_OP_READ;

	PG_TRY();
	{
		BenchKey	key;
		uint64		at;
		uint64		t0;

		op = bench_pick_op(ctx);
		key = bench_take(ctx, op == BENCH_OP_INSERT ? &ctx->inserts : &ctx->reads,
						 op == BENCH_OP_INSERT);
		ctx->finished = !measure_wait(&ctx->pace, shared->end_ns, &at);
		t0 = bench_now_ns();
		intended = at ? at : t0;
		if (!ctx->finished && bench_claim(ctx, intended))
			bench_timed(ctx, op, key, intended, t0);
		else
			ctx->finished = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		uint64		t1;

		edata = launch_catch_and_abort(ctx->cxt);
		t1 = bench_now_ns();
		if ((intended ? intended : t1) >= shared->measure_ns)
		{
			measure_error(&slot->measure, op, shared->measure_ns, t1);
			slot->last_ns = t1;
			strlcpy(slot->error, edata->message, BENCH_TEXT_LEN);
		}
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/* Run operations through SPI until the run ends, at its pace. */
static void
bench_run_spi(BenchCtx *ctx)
{
	measure_pace_init(&ctx->pace, ctx->workload->target_rate, ctx->shared->start_ns,
					  ctx->args.index, ctx->shared->nworkers);
	while (!ctx->finished && bench_now_ns() < ctx->shared->end_ns)
	{
		CHECK_FOR_INTERRUPTS();
		bench_step(ctx);
	}
}

/* Wait for bench() to set the clock; false if it never does. */
static bool
bench_wait_go(BenchCtx *ctx)
{
	uint64		deadline = bench_now_ns() + BENCH_GO_TIMEOUT_NS;

	while (!pg_atomic_read_u32(&ctx->shared->go))
	{
		if (bench_now_ns() > deadline)
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1L, compat_wait_event("PetagenBenchStart"));
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pg_read_barrier();
	return true;
}

/* Attach the run's shared state; NULL if it is gone or not a run's. */
static BenchShared *
bench_attach(const BenchWorkerArgs *args)
{
	dsm_segment *seg = dsm_attach(args->handle);
	BenchShared *shared;

	if (seg == NULL)
		return NULL;
	shared = dsm_segment_address(seg);
	if (shared->magic != BENCH_MAGIC || args->index >= shared->nworkers)
		return NULL;
	return shared;
}

/*
 * Set up the key and scan length choosers; the sequential distribution
 * counts in the run's shared counter, as YCSB's threads share theirs.
 */
static void
bench_init_choosers(BenchCtx *ctx)
{
	const BenchWorkload *w = ctx->workload;

	dist_init(&ctx->chooser, w->distribution, ctx->shared->rows, &w->params);
	ctx->chooser.counter = &ctx->shared->sequence;
	if (w->scanzipfian && bench_does(w, BENCH_OP_SCAN))
		dist_zipf_range_init(&ctx->scanzipf, w->maxscanlength - w->minscanlength + 1);
}

/*
 * Prepare the plans, or with clients connect the sessions; on error
 * publish it and leave.
 */
static void
bench_setup(BenchCtx *ctx)
{
	PG_TRY();
	{
		if (ctx->shared->clients > 0)
			bench_clients_connect(ctx);
		else
			bench_prepare(ctx);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(ctx->cxt);
		edata = CopyErrorData();
		strlcpy(ctx->slot->error, edata->message, BENCH_TEXT_LEN);
		strlcpy(ctx->slot->hint, edata->hint ? edata->hint : "", BENCH_HINT_LEN);
		pg_write_barrier();
		pg_atomic_write_u32(&ctx->slot->state, BENCH_W_FAILED);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/* Entry point of a benchmark worker. */
void
petagen_bench_main(Datum main_arg)
{
	BenchCtx   *ctx;
	BenchShared *shared;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	ctx = MemoryContextAllocZero(TopMemoryContext, sizeof(BenchCtx));
	ctx->cxt = AllocSetContextCreate(TopMemoryContext, "petagen bench worker",
									 ALLOCSET_DEFAULT_SIZES);
	memcpy(&ctx->args, MyBgworkerEntry->bgw_extra, sizeof(BenchWorkerArgs));
	shared = bench_attach(&ctx->args);
	if (shared == NULL)
		proc_exit(0);
	ctx->shared = shared;
	ctx->slot = &shared->slots[ctx->args.index];
	ctx->workload = &shared->workload;
	BackgroundWorkerInitializeConnectionByOid(shared->database, shared->role,
											  COMPAT_BGW_CONNECT_FLAGS);
	SetConfigOption("search_path", CATALOG_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION);
	MemoryContextSwitchTo(ctx->cxt);
	dist_rng_seed(&ctx->rng, (uint64) shared->run, ctx->args.index);
	bench_init_choosers(ctx);
	bench_setup(ctx);
	if (ctx->args.index == 0)
		strlcpy(shared->synchronous_commit,
				GetConfigOption("synchronous_commit", false, false), NAMEDATALEN);
	pgstat_report_activity(STATE_RUNNING, psprintf("petagen bench " INT64_FORMAT ": %s",
												   shared->run, bench_kind_name(ctx->workload->kind)));
	pg_atomic_write_u32(&ctx->slot->state, BENCH_W_READY);
	if (bench_wait_go(ctx) && shared->clients > 0)
		bench_clients_run(ctx);
	else if (pg_atomic_read_u32(&shared->go))
		bench_run_spi(ctx);
	pg_write_barrier();
	pg_atomic_write_u32(&ctx->slot->state, BENCH_W_DONE);
	proc_exit(0);
}


/*-------------------------------------------------------------------------
 *		A benchmark worker's measurement layer: the schedule of a paced
 *		run, and the figures of every operation kind (counts, latency
 *		histograms, a time series), kept in the worker's slot and merged
 *		into the run's by bench().
 *
 * Pacing follows YCSB's target with measurement.interval = intended (and
 * pgbench -R's schedule lag): the run's target_rate is split evenly over
 * the workers, worker w's operation i is intended at start + (i + w / n)
 * * n / target_rate (the workers' schedules interleave), a worker ahead
 * of its schedule sleeps until the intended time, a worker behind it
 * does not sleep and catches up.  An operation's latency is measured from
 * its intended start, so a stall of the server counts for every operation
 * it delayed (no coordinated omission); its service time, from its actual
 * start, is kept beside it.  In a closed loop (no target_rate) an
 * operation is intended when it starts: the two are the same, and only
 * the latency histogram is filled (measure_finish() copies it).
 *
 * Per operation the worker reads the clock twice (bench_worker.c) and
 * adds to one or two histograms and one time series interval, all in its
 * own slot; nothing is shared until the worker has exited.  The time
 * series' interval is one second until BENCH_SAMPLES of them are used;
 * then adjacent intervals merge and the interval doubles, so a run of any
 * length keeps a bounded series; merging runs' series brings them to the
 * coarsest interval.  When an operation ends in a new interval, the worker
 * publishes the last one it used (its figures, and the operations so far)
 * in atomics of its slot for bench_status() (bench.c): at most one
 * publication per interval, and none while no operation ends.
 *-------------------------------------------------------------------------
 */

StaticAssertDecl(BENCH_MEASURE_NOPS == BENCH_NOPS,
				 "BENCH_MEASURE_NOPS must be the number of BenchOps");

/* Sleep in one go at most this long, to stay responsive to interrupts. */
#define MEASURE_MAX_SLEEP_MS	100

static void measure_sample_add(BenchSample *to, const BenchSample *from);

/* Empty a measurement. */
void
measure_init(BenchMeasure *m)
{
	memset(m, 0, sizeof(BenchMeasure));
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		hist_init(&m->ops[op].latency);
		hist_init(&m->ops[op].service);
	}
	pg_atomic_init_u64(&m->live.operations, 0);
	pg_atomic_init_u64(&m->live.interval_ns, 0);
	pg_atomic_init_u64(&m->live.until_ns, 0);
	pg_atomic_init_u64(&m->live.count, 0);
	pg_atomic_init_u64(&m->live.latency_ns, 0);
	pg_atomic_init_u64(&m->live.max_ns, 0);
}

/* Publish the last whole interval, number last, for bench_status(). */
static void
measure_publish(BenchMeasure *m, int last)
{
	BenchSample total = {0};
	uint64		operations = 0;

	for (int op = 0; op < BENCH_NOPS; op++)
	{
		measure_sample_add(&total, &m->samples[last][op]);
		operations += m->ops[op].count;
	}
	pg_atomic_write_u64(&m->live.operations, operations);
	pg_atomic_write_u64(&m->live.count, total.count);
	pg_atomic_write_u64(&m->live.latency_ns, total.latency_ns);
	pg_atomic_write_u64(&m->live.max_ns, total.max_ns);
	pg_atomic_write_u64(&m->live.until_ns, (last + 1) * (BENCH_SAMPLE_NS << m->sample_shift));
	pg_atomic_write_u64(&m->live.interval_ns, BENCH_SAMPLE_NS << m->sample_shift);
}

/* The schedule of worker index of nworkers at target_rate (0: closed loop). */
void
measure_pace_init(BenchPace *pace, double target_rate, uint64 start_ns,
				  int index, int nworkers)
{
	memset(pace, 0, sizeof(BenchPace));
	if (target_rate <= 0)
		return;
	pace->period_ns = 1e9 * nworkers / target_rate;
	pace->first_ns = start_ns + pace->period_ns * index / nworkers;
}

/* Sleep until the monotonic clock reaches until_ns. */
static void
measure_sleep_until(uint64 until_ns)
{
	for (;;)
	{
		uint64		now = bench_now_ns();
		uint64		left_us;

		if (now >= until_ns)
			return;
		left_us = (until_ns - now) / 1000;
		if (left_us < 1000)
		{
			pg_usleep((long) left_us);
			return;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 (long) Min(left_us / 1000, MEASURE_MAX_SLEEP_MS),
						 compat_wait_event("PetagenBenchPace"));
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Wait for the next operation's intended start and set *intended to it;
 * false if that is at or after end_ns.  In a closed loop, return at once
 * with *intended 0 (the operation is intended when it starts).
 */
static bool
measure_wait(BenchPace *pace, uint64 end_ns, uint64 *intended)
{
	double		at;

	*intended = 0;
	if (pace->period_ns <= 0)
		return true;
	at = pace->first_ns + pace->period_ns * (double) pace->next;
	if (at >= (double) end_ns)
		return false;
	pace->next++;
	*intended = (uint64) at;
	measure_sleep_until(*intended);
	return true;
}

/* Add one interval's figures to another's. */
static void
measure_sample_add(BenchSample *to, const BenchSample *from)
{
	to->count += from->count;
	to->errors += from->errors;
	to->latency_ns += from->latency_ns;
	to->service_ns += from->service_ns;
	to->max_ns = Max(to->max_ns, from->max_ns);
}

/* Double the time series' interval: merge each pair of intervals. */
static void
measure_coarsen(BenchMeasure *m)
{
	int			n = (m->nsamples + 1) / 2;

	/* interval d takes 2d and 2d + 1, both read before d is written */
	for (int d = 0; d < n; d++)
		for (int op = 0; op < BENCH_NOPS; op++)
		{
			BenchSample pair = m->samples[2 * d][op];

			if (2 * d + 1 < m->nsamples)
				measure_sample_add(&pair, &m->samples[2 * d + 1][op]);
			m->samples[d][op] = pair;
		}
	memset(m->samples[n], 0, sizeof(m->samples[0]) * (m->nsamples - n));
	m->nsamples = n;
	m->sample_shift++;
}

/* The time series interval an operation ending at offset_ns falls in. */
static BenchSample *
measure_sample(BenchMeasure *m, int op, uint64 offset_ns)
{
	uint64		i = offset_ns / (BENCH_SAMPLE_NS << m->sample_shift);

	if (i >= (uint64) m->nsamples && m->nsamples > 0)
		measure_publish(m, m->nsamples - 1);
	while (i >= BENCH_SAMPLES)
	{
		measure_coarsen(m);
		i = offset_ns / (BENCH_SAMPLE_NS << m->sample_shift);
	}
	m->nsamples = Max(m->nsamples, (int32) i + 1);
	return &m->samples[i][op];
}

/*
 * Record a measured operation of kind op, intended at intended, started
 * at t0, ended at t1; since_ns is the measurement's start.
 */
void
measure_record(BenchMeasure *m, bool paced, int op, uint64 since_ns,
			   uint64 intended, uint64 t0, uint64 t1, bool found)
{
	BenchOpFigures *f = &m->ops[op];
	BenchSample *s = measure_sample(m, op, t1 - since_ns);
	uint64		latency = t1 - intended;

	f->count++;
	f->not_found += found ? 0 : 1;
	hist_add(&f->latency, latency);
	if (paced)
		hist_add(&f->service, t1 - t0);
	s->count++;
	s->latency_ns += latency;
	s->service_ns += t1 - t0;
	s->max_ns = Max(s->max_ns, latency);
}

/* Record a measured operation of kind op that failed at t1. */
void
measure_error(BenchMeasure *m, int op, uint64 since_ns, uint64 t1)
{
	m->ops[op].errors++;
	measure_sample(m, op, t1 - since_ns)->errors++;
}

/* Add a worker's figures to the run's (the time series at the coarser interval). */
void
measure_merge(BenchMeasure *into, const BenchMeasure *from)
{
	int			step;

	while (into->sample_shift < from->sample_shift)
		measure_coarsen(into);
	step = 1 << (into->sample_shift - from->sample_shift);
	for (int op = 0; op < BENCH_NOPS; op++)
	{
		into->ops[op].count += from->ops[op].count;
		into->ops[op].errors += from->ops[op].errors;
		into->ops[op].not_found += from->ops[op].not_found;
		hist_merge(&into->ops[op].latency, &from->ops[op].latency);
		hist_merge(&into->ops[op].service, &from->ops[op].service);
	}
	for (int i = 0; i < from->nsamples; i++)
		for (int op = 0; op < BENCH_NOPS; op++)
			measure_sample_add(&into->samples[i / step][op], &from->samples[i][op]);
	into->nsamples = Max(into->nsamples, (from->nsamples + step - 1) / step);
}

/* After merging: in a closed loop, the service times are the latencies. */
void
measure_finish(BenchMeasure *m, bool paced)
{
	if (paced)
		return;
	for (int op = 0; op < BENCH_NOPS; op++)
		m->ops[op].service = m->ops[op].latency;
}


/*-------------------------------------------------------------------------
 *		YCSB's dataintegrity for petagen.bench(): a worker compares the
 *		fields of each row it reads with what the generator gives for the
 *		row's key number, and its updates write the generator's value, so
 *		that a row stays checkable after it was updated.
 *
 * YCSB does the same (CoreWorkload's buildDeterministicValue: with
 * dataintegrity, inserts and updates write a function of key and field,
 * and reads compare with it).  petagen's function is the load's own
 * (rowgen.c, with the run's generation spec), so a freshly loaded table
 * reads with no mismatch, and one changed by anyone but petagen counts.
 * A read checks the row of its key; a scan checks its first row, when
 * that is the row of the key the scan starts at: the generator's values
 * are a function of the key number, which the other rows' keys do not
 * reveal (ycsb and go-ycsb keys are hashes).  A row counts once, however
 * many of its fields differ; a missing row is not_found, not a mismatch.
 * Workers call this only with dataintegrity on: off costs nothing.  A
 * scan whose first row is not its start key's did not find that key
 * (not_found), with or without dataintegrity.
 *-------------------------------------------------------------------------
 */

/* Longest name of a field column, "field" and a number. */
#define BENCH_FIELD_NAME_LEN	32

/* Column name of a row read into *value; false if it is missing or NULL. */
static bool
bench_column(HeapTuple tuple, TupleDesc desc, const char *name, Datum *value)
{
	int			fnum = SPI_fnumber(desc, name);
	bool		isnull = true;

	*value = fnum > 0 ? SPI_getbinval(tuple, desc, fnum, &isnull) : (Datum) 0;
	return !isnull;
}

/* Does text column name of a row read hold the bytes of value (not null)? */
static bool
bench_column_is(HeapTuple tuple, TupleDesc desc, const char *name, Datum value)
{
	Datum		got;

	return bench_column(tuple, desc, name, &got) &&
		keys_equal(KEYKIND_TEXT, got, value);
}

/* Does a row read hold the generator's fields of row seq? */
static bool
bench_row_matches(RowGen *rg, int64 seq, HeapTuple tuple, TupleDesc desc)
{
	char		name[BENCH_FIELD_NAME_LEN];

	rowgen_build_fields(rg, seq);
	for (int f = 0; f < rg->shape->nfields; f++)
	{
		snprintf(name, sizeof(name), "field%d", rg->shape->field_base + f);
		if (!bench_column_is(tuple, desc, name,
							 rg->values[rg->shape->field_att[f]]))
			return false;
	}
	return true;
}

/*
 * Is the first of the nrows rows just read the row of the key in rg->key?
 * A scan that does not start at its key did not find it.
 */
static bool
bench_first_row_is_key(RowGen *rg, SPITupleTable *tuptable, uint64 nrows)
{
	Datum		got;

	if (nrows == 0 ||
		!bench_column(tuptable->vals[0], tuptable->tupdesc, "ycsb_key", &got))
		return false;
	return keys_equal(rg->spec.keys.kind, got, rg->key);
}

/*
 * 1 if the first of the nrows rows just read is row seq (its key is in
 * rg->key) and its fields differ from the generator's, else 0.
 */
int
bench_integrity_check(RowGen *rg, int64 seq, SPITupleTable *tuptable,
					  uint64 nrows)
{
	if (!bench_first_row_is_key(rg, tuptable, nrows))
		return 0;
	return bench_row_matches(rg, seq, tuptable->vals[0], tuptable->tupdesc) ? 0 : 1;
}

/* The generator's value of one field of row seq, what an update writes. */
Datum
bench_integrity_value(RowGen *rg, int64 seq, int field)
{
	rowgen_build_fields(rg, seq);
	return rg->values[rg->shape->field_att[field]];
}
