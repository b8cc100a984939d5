/*-------------------------------------------------------------------------
 * bench.h
 *		What the chapters of bench/ share: the shared state of a run and its
 *		workers, the measurement figures, the workload's parameters, the
 *		run being set up, its targets, its live status and dataintegrity.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_H
#define PETAGEN_BENCH_H

#include <time.h>

#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "gen/dist.h"
#include "gen/hist.h"
#include "gen/rowgen.h"
#include "gen/spec.h"
#include "route/route.h"

/*-------------------------------------------------------------------------
 *		What a benchmark worker measures, by operation kind: counts, the
 *		latency histograms (from the intended start and from the actual
 *		one) and a time series; and the schedule a paced worker follows.
 *		See bench_worker.c.
 *-------------------------------------------------------------------------
 */

/* The monotonic clock, in nanoseconds. */
static inline uint64
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * UINT64CONST(1000000000) + ts.tv_nsec;
}

/* BenchOp's number of kinds (defined before BenchOp, further down). */
#define BENCH_MEASURE_NOPS	5
/* Time series intervals a worker keeps; past them the interval doubles. */
#define BENCH_SAMPLES		1024
/* The first interval of the time series: one second. */
#define BENCH_SAMPLE_NS		UINT64CONST(1000000000)

/* One interval of one operation kind: completed operations and errors. */
typedef struct BenchSample
{
	uint64		count;
	uint64		errors;
	uint64		latency_ns;		/* sum, from the intended starts */
	uint64		service_ns;		/* sum, from the actual starts */
	uint64		max_ns;			/* the longest latency */
} BenchSample;

/* One operation kind's figures. */
typedef struct BenchOpFigures
{
	uint64		count;			/* completed, errors not included */
	uint64		errors;
	uint64		not_found;
	Hist		latency;		/* from the intended start, nanoseconds */
	Hist		service;		/* from the actual start; paced runs only */
} BenchOpFigures;

/*
 * What a worker publishes for bench_status() once per interval, when its
 * first operation of a new interval ends: its measured operations by then,
 * and the last whole interval's operations, latency sum and max.
 */
typedef struct BenchLive
{
	pg_atomic_uint64 operations;
	pg_atomic_uint64 interval_ns;	/* that interval's length, 0: none yet */
	pg_atomic_uint64 until_ns;	/* its end, from the measurement's start */
	pg_atomic_uint64 count;
	pg_atomic_uint64 latency_ns;
	pg_atomic_uint64 max_ns;
} BenchLive;

/*
 * Everything a worker (or, merged, a run) measured.  Sample i covers
 * [i, i + 1) * (BENCH_SAMPLE_NS << sample_shift) from the measurement's
 * start, by the operations' ends.
 */
typedef struct BenchMeasure
{
	BenchOpFigures ops[BENCH_MEASURE_NOPS];
	uint32		sample_shift;
	int32		nsamples;		/* intervals up to the last one used */
	BenchSample samples[BENCH_SAMPLES][BENCH_MEASURE_NOPS];
	BenchLive	live;			/* a worker's; not merged */
} BenchMeasure;

/*
 * A worker's schedule at a target rate (YCSB's target, pgbench -R):
 * operation i of the worker is intended at first_ns + i * period_ns.
 * period_ns 0: a closed loop, each operation intended when it starts.
 */
typedef struct BenchPace
{
	double		first_ns;
	double		period_ns;
	uint64		next;			/* the next operation's number */
} BenchPace;

extern void measure_init(BenchMeasure *m);
extern void measure_merge(BenchMeasure *into, const BenchMeasure *from);
extern void measure_finish(BenchMeasure *m, bool paced);

/*-------------------------------------------------------------------------
 *		In-server microbenchmarks: what petagen.bench() hands its workers in
 *		dynamic shared memory, and what they hand back.
 *
 * bench() creates one DSM segment per run (not pinned: it lives as long as
 * the calling backend's transaction; detaching it terminates the workers
 * still running, see bench.c), registers the workers, waits until
 * every worker has prepared its plans, sets the clock (warm-up start,
 * measurement start, end, all CLOCK_MONOTONIC nanoseconds) and lets them
 * go; after they exit it merges their counters and histograms.  Each
 * worker writes only its own BenchSlot; bench() reads a slot only after
 * the worker has exited, except for the atomic state.  Inserts (YCSB d
 * and e) claim logical insert numbers from a shared counter and publish
 * the key number of each committed insert in a ring, which the latest
 * distribution reads; each worker's inserts are key numbers insert_base +
 * i * nworkers + its index, i counting up (insert_candidates of them
 * drawn), so a run inserts only key numbers from insert_base up to
 * insert_base + nworkers * the most a worker drew.  With operationcount, a worker claims each measured
 * operation from a shared counter before it runs it, so exactly
 * operationcount operations (successful or not) are measured.  With
 * dataintegrity, a worker compares the fields of the rows it reads with
 * the generator's (bench_worker.c).
 *-------------------------------------------------------------------------
 */

#define BENCH_MAGIC			0x50474242	/* "PGBB" */
#define BENCH_TEXT_LEN		512
/* The longest hint of a worker that could not start. */
#define BENCH_HINT_LEN		512
/* Committed inserts the latest distribution remembers. */
#define BENCH_RING			65536
/*
 * Inserted key numbers start at first + rows + run id * BENCH_INSERT_STRIDE
 * (text and bigint keys; an int key's runs insert one after another, bench.c).
 */
#define BENCH_INSERT_STRIDE	(INT64CONST(1) << 40)

typedef enum BenchKind
{
	BENCH_YCSB,					/* the proportions given, YCSB's defaults */
	BENCH_SELECT,
	BENCH_UPDATE,
	BENCH_YCSB_A,
	BENCH_YCSB_B,
	BENCH_YCSB_C,
	BENCH_YCSB_D,
	BENCH_YCSB_E,
	BENCH_YCSB_F,
	BENCH_NKINDS
} BenchKind;

typedef enum BenchOp
{
	BENCH_OP_READ,
	BENCH_OP_UPDATE,
	BENCH_OP_INSERT,
	BENCH_OP_SCAN,
	BENCH_OP_RMW,
	BENCH_NOPS
} BenchOp;

/*
 * What the workers run, YCSB's CoreWorkload properties: the proportions
 * (summing to 1), the request distribution and its parameters, the scan
 * length, operationcount (0: run for the duration instead), and the pace
 * (YCSB's target: operations per second over all workers, 0: a closed
 * loop).
 */
typedef struct BenchWorkload
{
	BenchKind	kind;
	double		proportion[BENCH_NOPS];
	DistKind	distribution;
	DistParams	params;
	int64		operationcount;
	int32		minscanlength;
	int32		maxscanlength;
	bool		scanzipfian;	/* scanlengthdistribution zipfian, else
								 * uniform */
	double		target_rate;
	bool		dataintegrity;	/* check the fields read, write checkable ones */
} BenchWorkload;

/* What a worker is doing, as bench() sees it. */
typedef enum BenchWorkerState
{
	BENCH_W_STARTING,
	BENCH_W_READY,				/* plans prepared, waiting for go */
	BENCH_W_DONE,
	BENCH_W_FAILED				/* could not prepare: error says why */
} BenchWorkerState;

/* One worker's results; written only by that worker. */
typedef struct BenchSlot
{
	pg_atomic_uint32 state;		/* BenchWorkerState */
	uint64		integrity_errors;	/* rows read whose fields differ */
	uint64		insert_candidates;	/* of the worker's insert stripe, drawn */
	uint64		last_ns;		/* end of the last measured operation */
	char		error[BENCH_TEXT_LEN];	/* the last error message */
	char		hint[BENCH_HINT_LEN];	/* a failed start's hint, or "" */
	BenchMeasure measure;		/* the measured operations, by kind */
} BenchSlot;

/* One committed insert: tag = logical insert number + 1, 0 while unset. */
typedef struct BenchRingEntry
{
	pg_atomic_uint64 tag;
	int64		seq;
} BenchRingEntry;

/* A run: configuration, clock, shared insert state, the slots. */
typedef struct BenchShared
{
	uint32		magic;
	int64		run;			/* its petagen.bench_results id */
	BenchWorkload workload;
	Oid			relid;
	Oid			database;
	Oid			role;
	int64		first;			/* key numbers first .. first+rows-1 are */
	int64		rows;			/* loaded (first: the job's, YCSB's
								 * insertstart) */
	GenSpec		spec;
	int64		insert_base;
	int32		nworkers;
	int32		clients;		/* client sessions over libpq; 0: SPI */
	Oid			client_server;	/* the postgres_fdw server they connect to,
								 * InvalidOid: this server */
	int32		ntargets;		/* BenchTargets follow the slots, sorted */
	pg_atomic_uint32 go;
	uint64		start_ns;		/* warm-up starts */
	uint64		measure_ns;		/* measurement starts */
	uint64		end_ns;
	pg_atomic_uint64 inserts;	/* logical insert numbers claimed */
	pg_atomic_uint64 claimed;	/* measured operations claimed
								 * (operationcount) */
	pg_atomic_uint64 sequence;	/* the sequential distribution's count */
	char		synchronous_commit[NAMEDATALEN];	/* worker 0's setting */
	BenchRingEntry ring[BENCH_RING];
	BenchSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} BenchShared;

/*
 * One target leaf: what identifies it in the router (a Citus shard's id,
 * else the leaf's oid) and the relation the statements name: the leaf
 * itself, or for a Citus shard on a named node the distributed table,
 * which Citus routes each single-key statement of to the shard.
 */
typedef struct BenchTarget
{
	int64		leaf;
	Oid			relid;
} BenchTarget;

/* What a worker gets in bgw_extra. */
typedef struct BenchWorkerArgs
{
	dsm_handle	handle;
	int32		index;
} BenchWorkerArgs;

extern int64 bench_leaf_id(const RouteLeaf *leaf);
extern int	bench_target_cmp(const void *a, const void *b);

/* The target leaves sorted by leaf, after the slots. */
static inline BenchTarget *
bench_targets(BenchShared *shared)
{
	return (BenchTarget *) &shared->slots[shared->nworkers];
}

/* Bytes of shared state for nworkers workers and ntargets leaves. */
static inline Size
bench_shared_size(int nworkers, int ntargets)
{
	return add_size(add_size(offsetof(BenchShared, slots),
							 mul_size(sizeof(BenchSlot), nworkers)),
					mul_size(sizeof(BenchTarget), ntargets));
}

/*-------------------------------------------------------------------------
 *		A benchmark worker's state and the steps both of its paths share:
 *		in-server through SPI (bench_worker.c) and through client sessions
 *		over libpq (bench_client.c).
 *-------------------------------------------------------------------------
 */

/* Keys drawn and routed per batch. */
#define BENCH_KEY_BATCH		128
#define BENCH_INSERT_BATCH	16

/* The prepared plans of one target leaf. */
typedef struct BenchPlans
{
	SPIPlanPtr	select;
	SPIPlanPtr	scan;
	SPIPlanPtr	insert;
	SPIPlanPtr *update;			/* one per field */
} BenchPlans;

/* A key number and the target leaf it lives in. */
typedef struct BenchKey
{
	int64		seq;
	int			target;
} BenchKey;

/* A batch of routed keys. */
typedef struct BenchKeyBuf
{
	BenchKey	keys[BENCH_KEY_BATCH];
	int			n;
	int			next;
} BenchKeyBuf;

/* Everything one worker knows. */
typedef struct BenchCtx
{
	BenchWorkerArgs args;
	BenchShared *shared;
	BenchSlot  *slot;
	const BenchWorkload *workload;
	MemoryContext cxt;
	RowShape	shape;
	RowGen		rg;
	BenchPlans *plans;			/* one per target */
	DistRng		rng;
	DistChooser chooser;
	DistZipf	scanzipf;		/* scanlengthdistribution zipfian */
	bool		finished;		/* operationcount reached */
	BenchKeyBuf reads;			/* keys to read, update, scan from */
	BenchKeyBuf inserts;		/* new keys, past the loaded key space */
	int64		next_candidate; /* of this worker's insert stripe */
	char	   *value;			/* an update's new field value (varlena) */
	uint64		opno;
	BenchPace	pace;			/* the schedule at the run's target_rate */
	int			mismatches;		/* rows the current operation read wrong */
	struct BenchClients *clients;	/* with clients: the sessions */
} BenchCtx;

extern void bench_prepare_shape(BenchCtx *ctx);
extern char *bench_select_sql(const char *leaf);
extern char *bench_scan_sql(const char *leaf);
extern char *bench_update_sql(const char *leaf, int field);
extern char *bench_insert_sql(const char *leaf, const RowShape *shape);
extern BenchOp bench_pick_op(BenchCtx *ctx);
extern BenchKey bench_take(BenchCtx *ctx, BenchKeyBuf *buf, bool inserts);
extern bool bench_claim(BenchCtx *ctx, uint64 t0);
extern int64 bench_scan_length(BenchCtx *ctx);
extern void bench_publish_insert(BenchShared *shared, uint64 j, int64 seq);
extern Datum bench_integrity_value(RowGen *rg, int64 seq, int field);
extern void measure_record(BenchMeasure *m, bool paced, int op, uint64 since_ns,
						   uint64 intended, uint64 t0, uint64 t1, bool found);
extern void measure_error(BenchMeasure *m, int op, uint64 since_ns, uint64 t1);
extern void measure_pace_init(BenchPace *pace, double target_rate, uint64 start_ns,
							  int index, int nworkers);

/*-------------------------------------------------------------------------
 *		A benchmark's client sessions: with clients, a worker drives its
 *		share of them over libpq instead of running operations through SPI.
 *		See bench_client.c.
 *-------------------------------------------------------------------------
 */

struct BenchDef;
extern void bench_check_client_server(struct BenchDef *def);
extern void bench_check_clients(struct BenchDef *def, int clients, int nworkers);
extern void bench_clients_connect(BenchCtx *ctx);
extern void bench_clients_run(BenchCtx *ctx);

/*-------------------------------------------------------------------------
 *		The workload of a benchmark as YCSB's CoreWorkload defines it:
 *		operation proportions, operation count, request distribution and
 *		scan shape, read from the arguments of bench() and bench_sweep().
 *		See bench_params.c.
 *-------------------------------------------------------------------------
 */

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
	BENCH_ARG_ZEROPADDING,
	BENCH_ARG_OPERATIONCOUNT,
	BENCH_ARG_READPROPORTION,	/* the five proportions, in BenchOp order */
	BENCH_ARG_UPDATEPROPORTION,
	BENCH_ARG_INSERTPROPORTION,
	BENCH_ARG_SCANPROPORTION,
	BENCH_ARG_RMWPROPORTION,
	BENCH_ARG_MINSCANLENGTH,
	BENCH_ARG_MAXSCANLENGTH,
	BENCH_ARG_SCANLENGTHDISTRIBUTION,
	BENCH_ARG_HOTSPOTDATAFRACTION,
	BENCH_ARG_HOTSPOTOPNFRACTION,
	BENCH_ARG_EXPONENTIALPERCENTILE,
	BENCH_ARG_EXPONENTIALFRAC,
	BENCH_ARG_LABEL,
	BENCH_ARG_DATAINTEGRITY,
	BENCH_ARG_TARGET_RATE,
	BENCH_ARG_CLIENTS,
	BENCH_ARG_START_AT			/* bench() only */
} BenchArg;

extern bool bench_arg_given(FunctionCallInfo fcinfo, int argno);
extern void bench_read_workload(FunctionCallInfo fcinfo, BenchWorkload *w);
extern const char *bench_kind_name(BenchKind kind);
extern bool bench_does(const BenchWorkload *w, BenchOp op);
extern void bench_workload_json(StringInfo buf, const BenchWorkload *w);

/*-------------------------------------------------------------------------
 *		One benchmark run as the caller's backend sees it: its validated
 *		definition (bench.c) and what it measured, and how it is reported
 *		(bench_results.c).
 *-------------------------------------------------------------------------
 */

/* A benchmark, validated. */
typedef struct BenchDef
{
	BenchWorkload workload;
	Interval   *duration;
	Interval   *warmup;
	int64		duration_us;
	int64		warmup_us;
	Oid			relid;
	bool		citus;			/* a Citus table: the leaves are its shards */
	BenchTarget *targets;		/* sorted by leaf */
	int			ntargets;
	const char *target_node;
	int64		first;			/* the key space: first .. first+rows-1 */
	int64		rows;
	GenSpec		spec;
	int64		job;			/* the load job the key space is from, or 0 */
	const char *label;			/* or NULL */
	int			clients;		/* client sessions over libpq; 0: SPI */
	TimestampTz start_at;		/* when the run starts, or 0: at once */
	Oid			client_server;	/* the server they connect to (a postgres_fdw
								 * one of the target leaves), or InvalidOid */
	bool		record_settings;	/* bench_results has label, settings,
									 * integrity_errors */
	bool		record_measure; /* and target_rate, operation_stats, samples */
	const char *extra_options;	/* more "key": value members of options, or
								 * NULL */
} BenchDef;

/* What a run measured. */
typedef struct BenchResult
{
	int64		id;
	int			nworkers;
	uint64		ops[BENCH_NOPS];
	uint64		operations;
	uint64		errors;
	uint64		not_found;
	uint64		integrity_errors;	/* with dataintegrity: rows read wrong */
	int64		insert_base;	/* inserted key numbers are from this on */
	int64		insert_end;		/* and below this */
	double		seconds;
	int			terminated;
	char		last_error[BENCH_TEXT_LEN];
	char		synchronous_commit[NAMEDATALEN];	/* as the workers ran */
	TimestampTz started_at;
	Hist		hist;			/* every kind's latencies */
	BenchMeasure measure;		/* by kind, and the time series */
} BenchResult;

/*
 * The end of the key numbers the load wrote (first .. first+rows-1): a
 * run's inserts are key numbers from here on, outside them.
 */
static inline int64
bench_key_end(const BenchDef *def)
{
	return def->first + def->rows;
}

extern void bench_read_args(FunctionCallInfo fcinfo, BenchDef *def);
extern BenchResult *bench_measure_run(const BenchDef *def, int nworkers);
extern void bench_finish(const BenchDef *def, const BenchResult *res, int64 sweep);
extern int64 bench_results_insert_end(int64 job, int64 from);
extern void bench_record(const BenchDef *def, const BenchResult *res, int64 sweep);
extern void bench_return_row(FunctionCallInfo fcinfo, const BenchDef *def,
							 const BenchResult *res);
extern void bench_warn_not_found(const BenchResult *res);
extern double bench_round_latency(double us);
extern void bench_warn_integrity(const BenchResult *res);

/*-------------------------------------------------------------------------
 *		The target of a benchmark: the leaves it works on, resolved from
 *		bench()'s arguments and checked.  See bench_params.c.
 *-------------------------------------------------------------------------
 */

extern void bench_resolve_target(BenchDef *def, FunctionCallInfo fcinfo);

/*-------------------------------------------------------------------------
 *		YCSB's dataintegrity in a benchmark worker: the fields of a row read
 *		checked against the generator, and the generator's value for an
 *		update.  See bench_worker.c.
 *-------------------------------------------------------------------------
 */

extern int	bench_integrity_check(RowGen *rg, int64 seq, SPITupleTable *tuptable,
								  uint64 nrows);

#endif							/* PETAGEN_BENCH_H */
