/*-------------------------------------------------------------------------
 * methods.c
 *		The load methods petagen knows and the two behind the interface of
 *		load.h: the chunk method and the leaf method.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include "utils/lsyscache.h"

#include "load/load.h"
#include "load/load_int.h"


/*-------------------------------------------------------------------------
 *		The load methods petagen knows, looked up by the name
 *		petagen.jobs.method holds; see load.h for the interface.
 *-------------------------------------------------------------------------
 */

/* The chunk and leaf methods, below. */
extern const LoadMethod load_method_chunk;
extern const LoadMethod load_method_leaf;

/* Every method, by name. */
static const LoadMethod *const load_methods[] = {
	&load_method_chunk,
	&load_method_leaf,
};

/* The method called name; an error if none is. */
const LoadMethod *
load_method_find(const char *name)
{
	for (int i = 0; i < lengthof(load_methods); i++)
		if (strcmp(load_methods[i]->name, name) == 0)
			return load_methods[i];
	elog(ERROR, "unknown load method \"%s\"", name);
	return NULL;				/* keep the compiler quiet */
}

/* The number of chunks of chunk_rows key numbers in 0 .. rows-1. */
int64
load_nchunks(int64 rows, int64 chunk_rows)
{
	return rows / chunk_rows + (rows % chunk_rows != 0);
}


/*-------------------------------------------------------------------------
 *		The chunk method (start(..., method => 'chunk')) behind the load
 *		method interface (load.h): a job's key space cut into chunks
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

/* The chunk method, found by methods.c. */
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


/*-------------------------------------------------------------------------
 *		The leaf method (start(..., method => 'leaf')) behind the load
 *		method interface (load.h): its preparing phase routes the key
 *		space's ranges into routing files (leafroute.c), one range of
 *		chunk_rows keys per unit; its units are the table's local leaves,
 *		each written whole into new storage in one transaction
 *		(leafload.c).
 *
 * A range whose file is the job's current routing (as the worker began)
 * is not routed again; a leaf is written only when every range has its
 * file.  A leaf's new files are recorded until its transaction ends
 * (leafload.c): end_unit() forgets the record after a commit or an
 * abort, recover() drops what a crash left.  finish() removes the routing
 * files when a run ends other than interrupted.
 *-------------------------------------------------------------------------
 */

/* What a worker of a leaf job keeps. */
typedef struct LeafJobState
{
	Oid		   *leaves;			/* the local leaves, by leaf number */
	int			nlocal;
	LeafRouting routing;		/* the routing files as the worker began */
} LeafJobState;

/* In a transaction: what job's routing files must say now. */
static void
leaf_job_routing(const LoadJob *job, LeafRouting *routing)
{
	LeafRouting now = {
		.job = job->job, .token = job->route_token, .relid = job->relid,
		.first = job->first, .rows = job->rows, .chunk_rows = job->chunk_rows, .spec = job->spec,
	};

	*routing = now;
	leaf_routing_init(routing);
}

/* The job's units: the table's local leaves. */
static int64
leaf_plan_units(const LoadJob *job)
{
	int			nlocal;

	pfree(leaf_local_leaves(job->relid, &nlocal));
	return nlocal;
}

/*
 * Have the files of leaves a crash interrupted dropped when this
 * transaction commits (leafload.c): done holds the leaves in the
 * ledger, nunits of them at most.
 */
static void
leaf_recover(const LoadJob *job, const uint8 *done, int64 nunits)
{
	int			ndropped = leaf_storage_remove_orphans(job->job, done, (int) nunits);

	if (ndropped > 0)
		ereport(NOTICE,
				(errmsg("removed the files of %d relations left by leaves a crash interrupted",
						ndropped)));
}

/* A run ended other than interrupted: its routing files go. */
static void
leaf_finish(const LoadJob *job)
{
	leaf_remove_files(job->route_token);
}

/* A worker's start: the local leaves and the routing as they are now. */
static void
leaf_begin(LoadJob *job)
{
	LeafJobState *st = MemoryContextAllocZero(job->cxt, sizeof(LeafJobState));
	MemoryContext old = MemoryContextSwitchTo(job->cxt);

	st->leaves = leaf_local_leaves(job->relid, &st->nlocal);
	MemoryContextSwitchTo(old);
	leaf_job_routing(job, &st->routing);
	job->state = st;
	if (st->nlocal != job->nunits)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has %d local leaves, not the " INT64_FORMAT " of load job " INT64_FORMAT,
						get_rel_name(job->relid), st->nlocal, job->nunits, job->job),
				 errhint("Its partitions changed while the job ran: start a new job.")));
}

/*
 * In the current transaction: route range `unit` unless its file is the
 * job's current routing, once the disk reserve leaves room for the file.
 */
static void
leaf_prepare_unit(LoadJob *job, int64 unit, LoadStats *stats,
				  const LoadHost *host)
{
	LeafJobState *st = job->state;
	LeafRouting routing;

	if (leaf_range_current(&st->routing, unit, st->nlocal))
		return;
	leaf_job_routing(job, &routing);
	host->before_prepare(host->arg, leaf_route_bytes(routing.chunk_rows,
													 routing.nlocal));
	leaf_route_range(&routing, unit, stats);
}

/* Has every range its routing file? */
static bool
leaf_prepare_done(const LoadJob *job, int64 nprepare)
{
	for (int64 range = 0; range < nprepare; range++)
		if (!leaf_range_done(job->route_token, range))
			return false;
	return true;
}

/* A leaf's keys are known once read: estimated as an even share. */
static int64
leaf_unit_keys(const LoadJob *job, int64 unit)
{
	return job->rows / Max(job->nunits, 1);
}

/* Local leaf number `unit`. */
static Oid
leaf_unit_leaf(const LoadJob *job, int64 unit)
{
	return ((LeafJobState *) job->state)->leaves[unit];
}

/*
 * Write local leaf number `unit` whole in the current transaction, from
 * the routing files as the worker began: they must be this job's for the
 * table as the run began.
 */
static void
leaf_write_unit(LoadJob *job, int64 unit, LoadStats *stats,
				const LoadHost *host)
{
	LeafJobState *st = job->state;

	leaf_write(&st->routing, st->leaves[unit], (int) unit,
			   load_nchunks(job->rows, job->chunk_rows), stats,
			   host->progress, host->arg);
}

/* After the leaf's transaction: its new files need no record any more. */
static void
leaf_end_unit(const LoadJob *job, int64 unit)
{
	leaf_storage_forget(job->job, (int) unit);
}

/* The leaf method, found by methods.c. */
extern const LoadMethod load_method_leaf;
const LoadMethod load_method_leaf = {
	.name = "leaf",
	.unit_name = "leaf",
	.units_name = "leaves",
	.prepare_name = "routing",
	.prepare_activity = "routing keys",
	.whole_leaves = true,
	.plan_units = leaf_plan_units,
	.recover = leaf_recover,
	.finish = leaf_finish,
	.begin = leaf_begin,
	.prepare_unit = leaf_prepare_unit,
	.prepare_done = leaf_prepare_done,
	.unit_keys = leaf_unit_keys,
	.unit_leaf = leaf_unit_leaf,
	.write_unit = leaf_write_unit,
	.end_unit = leaf_end_unit,
};
