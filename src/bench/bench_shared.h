/*-------------------------------------------------------------------------
 * bench_shared.h
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
 * the generator's (bench_integrity.c).
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_BENCH_SHARED_H
#define PETAGEN_BENCH_SHARED_H

#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/shmem.h"

#include "bench/bench_measure.h"
#include "gen/dist.h"
#include "gen/hist.h"
#include "gen/spec.h"
#include "route/route.h"

#define BENCH_MAGIC			0x50474242	/* "PGBB" */
#define BENCH_TEXT_LEN		256
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
	bool		scanzipfian;	/* scanlengthdistribution zipfian, else uniform */
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
	int64		rows;			/* loaded (first: the job's, YCSB's insertstart) */
	GenSpec		spec;
	int64		insert_base;
	int32		nworkers;
	int32		ntargets;		/* BenchTargets follow the slots, sorted */
	pg_atomic_uint32 go;
	uint64		start_ns;		/* warm-up starts */
	uint64		measure_ns;		/* measurement starts */
	uint64		end_ns;
	pg_atomic_uint64 inserts;	/* logical insert numbers claimed */
	pg_atomic_uint64 claimed;	/* measured operations claimed (operationcount) */
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

#endif							/* PETAGEN_BENCH_SHARED_H */
