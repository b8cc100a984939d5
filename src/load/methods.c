/*-------------------------------------------------------------------------
 * methods.c
 *		The load methods petagen knows and the two behind the interface of
 *		load.h: the chunk method and the leaf method.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "gen/keys.h"
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

/*
 * Every method, in the order method => 'auto' prefers them (the last one
 * has no obstacle), ending with NULL.
 */
const LoadMethod *const load_methods[] = {
	&load_method_leaf,
	&load_method_chunk,
	NULL
};

/* The method called name, or NULL if none is. */
const LoadMethod *
load_method_by_name(const char *name)
{
	for (int i = 0; load_methods[i] != NULL; i++)
		if (strcmp(load_methods[i]->name, name) == 0)
			return load_methods[i];
	return NULL;
}

/* The method called name; an error if none is. */
const LoadMethod *
load_method_find(const char *name)
{
	const LoadMethod *method = load_method_by_name(name);

	if (method == NULL)
		elog(ERROR, "unknown load method \"%s\"", name);
	return method;
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

/* A frozen chunk job needs the frozen chunks' checks (frozen.c). */
static void
chunk_check(const LoadJob *job)
{
	if (job->frozen)
		frozen_check(job->relid, &job->spec);
}

/* A chunk load takes one transaction ID per chunk. */
static int64
chunk_xids(const LoadCheck *check, char **per, const char **hint)
{
	*per = psprintf("one per chunk of " INT64_FORMAT " keys",
					check->job->chunk_rows);
	*hint = "Use a larger chunk_rows (fewer, longer transactions), or raise autovacuum_freeze_max_age for the load.";
	return load_nchunks(check->job->rows, check->job->chunk_rows);
}

/*
 * forget() of a frozen chunk job: remove what every interrupted chunk left,
 * as resume() would before writing it again (frozen.c).
 */
static void
chunk_forget(const LoadJob *job)
{
	if (job->frozen)
		frozen_repair_job(job->job);
}

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
	.xids = chunk_xids,
	.check = chunk_check,
	.plan_units = chunk_plan_units,
	.forget = chunk_forget,
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
 *
 * Before a job starts, the method judges the load: its obstacle for
 * method => 'auto' (what only the chunk method loads, leaves it may not
 * truncate or that hold rows, routing files that do not fit), its checks
 * of the table (leafload.c) and of chunk_rows (one file per range), and
 * its findings in petagen.check() (leaves with rows, the routing files'
 * room, WAL, the time per leaf).  Its token names the job's routing files;
 * start() and resume() sweep the files and records no job can use, and a
 * DROP of petagen removes the database's at commit (leafroute.c).
 *-------------------------------------------------------------------------
 */

/*
 * A leaf job's chunk_rows is the size of its routing ranges, one file each
 * (leafroute.c): by default about four per worker within LEAF_RANGE_ROWS_MIN
 * .. LEAF_RANGE_ROWS_MAX (the method's chunk_rows_min and chunk_rows_max,
 * options.c), and never below the minimum, so that a job of 10^12 keys
 * writes at most 10^8 files (10^6 by default).
 */
#define LEAF_RANGE_ROWS_MIN		10000
#define LEAF_RANGE_ROWS_MAX		1000000

/* A leaf job's routing files against the data directory's room for them. */
typedef struct RoutingRoom
{
	double		bytes;			/* the files' bytes */
	double		room;			/* free bytes above the disk reserve */
	int64		files;			/* one per range of chunk_rows keys */
	int64		inodes;			/* free inodes, or -1: no limit */
} RoutingRoom;

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
		.job = job->job,.token = job->token,.relid = job->relid,
		.first = job->first,.rows = job->rows,.chunk_rows = job->chunk_rows,.spec = job->spec,
	};

	*routing = now;
	leaf_routing_init(routing);
}

/*
 * The routing files of job's load (job->chunk_rows keys each) with nlocal
 * local leaves, and the data directory's room for them above reserve.
 */
static void
leaf_routing_room(const LoadJob *job, int nlocal, int64 reserve,
				  RoutingRoom *r)
{
	r->bytes = (double) leaf_route_bytes(job->rows, nlocal);
	r->room = (double) disk_free(DataDir) - reserve;
	r->files = load_nchunks(job->rows, job->chunk_rows);
	r->inodes = disk_free_inodes(DataDir);
}

/* Do the routing files fit in their room: bytes and inodes? */
static bool
leaf_routing_fits(const RoutingRoom *r)
{
	return r->bytes <= r->room && (r->inodes < 0 || r->files <= r->inodes);
}

/* Why the routing files of check's load would not fit, or NULL. */
static char *
leaf_routing_obstacle(const LoadCheck *check, int nlocal)
{
	RoutingRoom r;

	leaf_routing_room(check->job, nlocal, check->reserve, &r);
	if (leaf_routing_fits(&r))
		return NULL;
	return psprintf("the leaf method's routing files, about %s in " INT64_FORMAT " files, do not fit in the data directory (%s free above the disk reserve%s)",
					check->size(r.bytes), r.files, check->size(Max(r.room, 0)),
					r.inodes >= 0 ? psprintf(", " INT64_FORMAT " inodes", r.inodes) : "");
}

/*
 * Why a local leaf of check's table, or their routing files, stop the leaf
 * method, or NULL: a leaf the role may not TRUNCATE, one that holds rows
 * (named only to a role that may read the table, as check() names it), or
 * routing files that do not fit.
 */
static char *
leaf_leaves_obstacle(const LoadCheck *check)
{
	const LoadJob *job = check->job;
	int			nlocal;
	Oid		   *leaves = leaf_local_leaves(job->relid, &nlocal);
	char	   *first;

	if (nlocal == 1 && leaves[0] == job->relid)
		return psprintf("\"%s\" is not partitioned: the leaf method would write it with one worker in one transaction",
						get_rel_name(job->relid));
	for (int i = 0; i < nlocal; i++)
		if (pg_class_aclcheck(leaves[i], GetUserId(), ACL_TRUNCATE) != ACLCHECK_OK)
			return psprintf("role \"%s\" may not truncate leaf \"%s\"",
							GetUserNameFromId(GetUserId(), false),
							get_rel_name(leaves[i]));
	if (leaf_nonempty(job->relid, &first) > 0)
		return check->may_read(job->relid) ?
			psprintf("leaf \"%s\" is not empty", first) :
			pstrdup("a local leaf holds rows");
	return leaf_routing_obstacle(check, nlocal);
}

/*
 * Why check's load cannot take the leaf method, or NULL if it can: what
 * only the chunk method loads, then the leaves and the routing files.
 */
static char *
leaf_obstacle(const LoadCheck *check)
{
	const LoadJob *job = check->job;

	if (job->spec.keys.mode == KEYS_YCSB || job->spec.keys.mode == KEYS_GO_YCSB)
		return psprintf("keys => '%s' has duplicates, which only the chunk method loads",
						keys_mode_name(job->spec.keys.mode));
	if (job->indexes_after)
		return pstrdup("indexes => 'after' is the chunk method's");
	if (check->chunk_rows_asked && job->chunk_rows < LEAF_RANGE_ROWS_MIN)
		return psprintf("chunk_rows " INT64_FORMAT " is below the leaf method's minimum of %d",
						job->chunk_rows, LEAF_RANGE_ROWS_MIN);
	return leaf_leaves_obstacle(check);
}

/* Why 'auto' takes the leaf method. */
static char *
leaf_auto_reason(const LoadJob *job)
{
	return psprintf("every local leaf is empty and role \"%s\" may truncate them",
					GetUserNameFromId(GetUserId(), false));
}

/*
 * Rows per second one worker writes into a leaf, conservatively: one
 * chunk-mode worker wrote 137,740 rows/s on a 2-core machine, and a
 * leaf worker is faster (docs/performance.md).
 */
#define CHECK_LEAF_ROWS_PER_SEC	150000.0

/* A leaf load takes one transaction ID per local leaf (routing writes only files). */
static int64
leaf_xids(const LoadCheck *check, char **per, const char **hint)
{
	*per = "one per local leaf";
	*hint = "VACUUM (FREEZE) the leaves before the load, or raise autovacuum_freeze_max_age for the load.";
	return check->nlocal;
}

/*
 * A leaf job's routing files: their bytes against the data directory's
 * free space above the reserve, their number against its free inodes.
 */
static void
leaf_check_routing_files(const LoadCheck *ctx)
{
	RoutingRoom r;
	CheckSeverity severity = CHECK_INFO;
	const char *hint = NULL;

	leaf_routing_room(ctx->job, ctx->nlocal, ctx->reserve, &r);
	if (!leaf_routing_fits(&r))
	{
		severity = CHECK_ERROR;
		hint = "Free space or inodes in the data directory, lower the disk reserve, or raise chunk_rows (fewer, larger files). "
			CHECK_RESERVE_RECIPE;
	}
	else if (r.bytes > r.room * CHECK_MARGIN ||
			 (r.inodes >= 0 && r.files > r.inodes * CHECK_MARGIN))
	{
		severity = CHECK_WARNING;
		hint = "Less than 10% of the data directory's space or inodes would be left: free some, or raise chunk_rows.";
	}
	ctx->add(ctx->arg, severity, ERRCODE_DISK_FULL, "pg_petagen",
			 psprintf("leaf method: routing files of about %s in " INT64_FORMAT " files, %s free",
					  ctx->size(r.bytes), r.files, ctx->size(Max(r.room, 0))),
			 hint,
			 "leaf method: the routing files take about %s in " INT64_FORMAT " files (one per " INT64_FORMAT " keys) in the data directory until the job ends; %s are free above the disk reserve, %s",
			 ctx->size(r.bytes), r.files, ctx->job->chunk_rows,
			 ctx->size(Max(r.room, 0)),
			 r.inodes >= 0 ? psprintf(INT64_FORMAT " inodes", r.inodes) :
			 "inodes without limit");
}

/*
 * The error finding of local leaves that hold rows: naming the first and
 * counting them only for a role that may read the table (may_read),
 * else naming the table alone.  start() refuses on it either way.
 */
static void
leaf_check_nonempty(const LoadCheck *ctx)
{
	char	   *first;
	int64		nonempty = leaf_nonempty(ctx->job->relid, &first);

	if (nonempty == 0)
		return;
	if (ctx->present > 0)
		ctx->add(ctx->arg, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, first,
				 psprintf("leaf method: " INT64_FORMAT " local leaves hold rows, %d probed keys among them",
						  nonempty, ctx->present),
				 "TRUNCATE the leaves first if their rows may go; method => 'chunk' would write the keys they hold again.",
				 "leaf method: " INT64_FORMAT " local leaves hold rows, among them %d of the %d key numbers of this load probed; a leaf load writes only into empty leaves",
				 nonempty, ctx->present, ctx->probed);
	else if (ctx->may_read(ctx->job->relid))
		ctx->add(ctx->arg, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, first,
				 NULL,
				 "TRUNCATE the leaves first if their rows may go, or use method => 'chunk'.",
				 "leaf method: " INT64_FORMAT " local leaves hold rows; a leaf load writes only into empty leaves",
				 nonempty);
	else
		ctx->add(ctx->arg, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, ctx->table,
				 NULL,
				 "Which leaves hold rows is shown only to roles with SELECT on the table. TRUNCATE the leaves first if their rows may go, or use method => 'chunk'.",
				 "leaf method: local leaves hold rows; a leaf load writes only into empty leaves");
}

/*
 * How a leaf job writes the leaves' pages: past the page cache (O_DIRECT),
 * or through it where a leaf's filesystem refuses O_DIRECT.
 */
static void
leaf_check_writer(const LoadCheck *ctx)
{
	int			nlocal;
	Oid		   *leaves = leaf_local_leaves(ctx->job->relid, &nlocal);
	int			nbuffered = 0;
	char	   *first = NULL;

	for (int i = 0; i < nlocal; i++)
		if (strcmp(leafdirect_writer(leaves[i]), LEAFDIRECT_BUFFERED) == 0 &&
			nbuffered++ == 0)
			first = get_rel_name(leaves[i]);
	if (nbuffered == 0)
		ctx->add(ctx->arg, CHECK_INFO, 0, ctx->table,
				 "leaf method: " LEAFDIRECT_DIRECT ", past the page cache", NULL,
				 "leaf method: " LEAFDIRECT_DIRECT ": the leaves' heap and visibility map pages go to their files past the page cache, in batches of 1 MB");
	else
		ctx->add(ctx->arg, CHECK_INFO, 0, first,
				 psprintf("leaf method: " LEAFDIRECT_BUFFERED " for %d of %d leaves",
						  nbuffered, nlocal),
				 "Leaves on a filesystem that accepts O_DIRECT (ext4, XFS) are written past the page cache, leaving it to the readers.",
				 "leaf method: " LEAFDIRECT_BUFFERED ": the filesystem of %d of the %d local leaves refuses O_DIRECT, so their pages are written through the page cache",
				 nbuffered, nlocal);
}

/* A leaf job: empty leaves, routing files, WAL, time per leaf, crash cost. */
static void
leaf_preflight(const LoadCheck *ctx)
{
	double		leaf_rows = ctx->largest_rows;

	leaf_check_nonempty(ctx);
	leaf_check_routing_files(ctx);
	ctx->add(ctx->arg, CHECK_INFO, 0, "wal_level",
			 wal_level == WAL_LEVEL_MINIMAL ? NULL :
			 psprintf("leaf method: wal_level is %s: the leaves are written to WAL too",
					  GetConfigOptionByName("wal_level", NULL, false)),
			 wal_level == WAL_LEVEL_MINIMAL ? NULL :
			 "With wal_level = minimal (and max_wal_senders = 0) a leaf load writes no WAL for heaps and indexes: the files are synced at each leaf's commit.",
			 "leaf method: wal_level is %s, so the leaves' heaps and indexes %s",
			 GetConfigOptionByName("wal_level", NULL, false),
			 wal_level == WAL_LEVEL_MINIMAL ? "write no WAL" : "are written to WAL as well");
	ctx->add(ctx->arg, CHECK_INFO, 0, ctx->table,
			 psprintf("leaf method: the largest leaf is about %.0f rows, %.0f s for one worker",
					  leaf_rows, leaf_rows / CHECK_LEAF_ROWS_PER_SEC),
			 NULL,
			 "leaf method: the largest leaf is about %.0f rows (%s of heap), about %.0f s for one worker; a crash or stop rolls back up to %d leaves in flight, about %.0f rows written again",
			 leaf_rows, ctx->size(ctx->largest_heap),
			 leaf_rows / CHECK_LEAF_ROWS_PER_SEC,
			 Min(ctx->nworkers, ctx->nlocal),
			 leaf_rows * Min(ctx->nworkers, ctx->nlocal));
	leaf_check_writer(ctx);
}

/* Raise an error unless the job's table suits a leaf load (leafload.c). */
static void
leaf_check_job(const LoadJob *job)
{
	leaf_check(job->relid, &job->spec, job->indexes_after);
}

/* Raise an error if a leaf job's ranges would be too small: too many files. */
static void
leaf_check_chunk_rows(const LoadJob *job)
{
	if (job->chunk_rows < LEAF_RANGE_ROWS_MIN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_rows of a leaf job must be at least %d, not " INT64_FORMAT,
						LEAF_RANGE_ROWS_MIN, job->chunk_rows),
				 errdetail("A leaf job routes its keys in ranges of chunk_rows keys, one file in the data directory each: " INT64_FORMAT " rows would make " INT64_FORMAT " files.",
						   job->rows, load_nchunks(job->rows, job->chunk_rows)),
				 errhint("Leave chunk_rows out: a leaf job then routes ranges of %d to %d keys.",
						 LEAF_RANGE_ROWS_MIN, LEAF_RANGE_ROWS_MAX)));
}

/*
 * Remove the routing files no job with a token in keep can use
 * (leafroute.c) and the records of leaves in flight of dropped databases
 * (leafload.c).
 */
static void
leaf_sweep(const int64 *keep, int nkeep)
{
	leaf_sweep_files(keep, nkeep);
	leaf_storage_sweep_dropped();
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
	leaf_remove_files(job->token);
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
		if (!leaf_range_done(job->token, range))
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

	/* how its pages are written, for status_workers() */
	host->activity(host->arg, leafdirect_writer(st->leaves[unit]));
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
	.new_storage = true,
	.empty_leaves = true,
	.chunk_rows_min = LEAF_RANGE_ROWS_MIN,
	.chunk_rows_max = LEAF_RANGE_ROWS_MAX,
	.obstacle = leaf_obstacle,
	.auto_reason = leaf_auto_reason,
	.xids = leaf_xids,
	.preflight = leaf_preflight,
	.check = leaf_check_job,
	.check_chunk_rows = leaf_check_chunk_rows,
	.unit_leaves = leaf_local_leaves,
	.new_token = leaf_new_token,
	.sweep = leaf_sweep,
	.drop_database = leaf_remove_database_at_commit,
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
