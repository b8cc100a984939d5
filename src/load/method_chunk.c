/*-------------------------------------------------------------------------
 * method_chunk.c
 *		The chunk method (start(..., method => 'chunk')) behind the load
 *		method interface (loadmethod.h): a job's key space cut into chunks
 *		of chunk_rows key numbers, each loaded into every local leaf in one
 *		transaction (load.c).
 *
 * It has no preparing phase and keeps nothing on disk outside relations.
 * Chunk c holds key numbers first + c * chunk_rows on (first: YCSB's
 * insertstart, usually 0).  A frozen job (frozen.c) records each chunk's intent in a transaction of
 * its own before the chunk, after removing what earlier attempts left;
 * the chunk's transaction locks the leaves first and removes the intent
 * with the chunk's commit.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "load/frozen.h"
#include "load/loadmethod.h"

/* The job's chunks. */
static int64
chunk_plan_units(const LoadJob *job)
{
	return load_nchunks(job->rows, job->chunk_rows);
}

/* A worker's start: the intent of the frozen chunk being written. */
static void
chunk_begin(LoadJob *job)
{
	job->state = MemoryContextAllocZero(job->cxt, sizeof(FrozenIntent));
}

/* The key numbers of chunk `unit`. */
static int64
chunk_unit_keys(const LoadJob *job, int64 unit)
{
	return Min(job->chunk_rows, job->rows - unit * job->chunk_rows);
}

/* A chunk writes into every local leaf: none whole. */
static Oid
chunk_unit_leaf(const LoadJob *job, int64 unit)
{
	return InvalidOid;
}

/* In a transaction of its own: repair a frozen chunk and record its intent. */
static void
chunk_begin_unit(LoadJob *job, int64 unit)
{
	FrozenIntent *intent = job->state;

	if (!job->frozen)
		return;
	frozen_free_intent(intent);
	frozen_prepare_chunk(job->job, unit, job->relid, job->worker, job->run,
						 job->cxt, intent);
}

/* Load chunk `unit` in the current transaction. */
static void
chunk_write_unit(LoadJob *job, int64 unit, LoadStats *stats,
				 const LoadHost *host)
{
	if (job->frozen)
		frozen_lock_leaves((FrozenIntent *) job->state);
	load_range(job->relid, &job->spec, job->frozen,
			   job->first + unit * job->chunk_rows, chunk_unit_keys(job, unit),
			   stats, host->progress, host->arg);
	/* the intent goes with the chunk's commit */
	if (job->frozen)
		frozen_forget_chunk(job->job, unit);
}

/* The chunk method, found by loadmethod.c. */
extern const LoadMethod load_method_chunk;
const LoadMethod load_method_chunk = {
	.name = "chunk",
	.unit_name = "chunk",
	.units_name = "chunks",
	.whole_leaves = false,
	.plan_units = chunk_plan_units,
	.begin = chunk_begin,
	.unit_keys = chunk_unit_keys,
	.unit_leaf = chunk_unit_leaf,
	.begin_unit = chunk_begin_unit,
	.write_unit = chunk_write_unit,
};
