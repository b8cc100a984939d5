/*-------------------------------------------------------------------------
 * method_leaf.c
 *		The leaf method (start(..., method => 'leaf')) behind the load
 *		method interface (loadmethod.h): its preparing phase routes the key
 *		space's ranges into routing files (leafroute.c), one range of
 *		chunk_rows keys per unit; its units are the table's local leaves,
 *		each written whole into new storage in one transaction
 *		(leafload.c).
 *
 * A range whose file is the job's current routing (as the worker began)
 * is not routed again; a leaf is written only when every range has its
 * file.  A leaf's new files are recorded until its transaction ends
 * (leafstorage.c): end_unit() forgets the record after a commit or an
 * abort, recover() drops what a crash left.  finish() removes the routing
 * files when a run ends other than interrupted.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/lsyscache.h"

#include "load/leafdir.h"
#include "load/leafload.h"
#include "load/leafroute.h"
#include "load/leafstorage.h"
#include "load/loadmethod.h"

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
 * transaction commits (leafstorage.c): done holds the leaves in the
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

/* The leaf method, found by loadmethod.c. */
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
