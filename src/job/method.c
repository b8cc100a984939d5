/*-------------------------------------------------------------------------
 * method.c
 *		Choosing a job's load method: method => 'auto' (the default of
 *		start() and check()) takes the leaf method when it may, the chunk
 *		method otherwise; 'chunk' and 'leaf' are taken as asked.
 *
 * The leaf method loads several times faster (docs/performance.md), but
 * refuses what the chunk method loads: hashed YCSB keys (duplicates),
 * indexes => 'after', a chunk_rows below its range minimum, a leaf the role
 * may not TRUNCATE, a local leaf that holds rows, and routing files that do
 * not fit in the data directory (which may be a smaller filesystem than
 * the leaves' tablespaces).  'auto' takes the
 * chunk method on each of those instead of refusing, and on an
 * unpartitioned table, which the leaf method would write with one worker
 * in one transaction that a crash rolls back whole.  Foreign leaves and
 * Citus shards of other nodes are not written by either method, so they
 * count for nothing.  Looking at the leaves runs in a subtransaction: a
 * table start() cannot load (a Citus reference table, say) makes 'auto'
 * take the chunk method, whose checks then report the table as they do
 * for method => 'chunk' (check() as a finding, not an error).  The choice is made once, at start(): the catalog
 * keeps the method chosen (jobs.method, which resume() follows) and why
 * (jobs.method_reason).  Choosing leaf weakens none of the leaf method's
 * own checks: start() still runs its preflight, and every worker checks
 * each leaf empty again under its lock (leafload.c), so a row committed
 * after start() fails the leaf as it would with method => 'leaf'.
 *
 * The methods themselves are in src/load/ (loadmethod.h): def->method is
 * one of them, chosen here, or looked up by name when a job is read
 * (ledger.c); method_load_job() gives a method the job as it sees it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "gen/keys.h"
#include "job/finding.h"
#include "job/method.h"
#include "job/sizing.h"
#include "job/refusals.h"
#include "load/load.h"

/* Parse the method argument of start() or check(). */
JobMethod
method_option(const char *value)
{
	if (strcmp(value, "auto") == 0)
		return METHOD_AUTO;
	if (strcmp(value, "chunk") == 0)
		return METHOD_CHUNK;
	if (strcmp(value, "leaf") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method must be 'auto', 'chunk' or 'leaf', not \"%s\"", value),
				 errhint("'auto' (the default) takes 'leaf' when every local leaf is empty and you may truncate them, else 'chunk'; 'chunk' loads chunks of key numbers into every leaf; 'leaf' writes each local leaf whole, frozen, in one transaction.")));
	return METHOD_LEAF;
}

/*
 * The routing files of def's load as a leaf job (def->chunk_rows keys
 * each) with nlocal local leaves, and the data directory's room for them.
 */
void
method_routing_room(const JobDef *def, int nlocal, RoutingRoom *r)
{
	r->bytes = (double) leaf_route_bytes(def->rows, nlocal);
	r->room = (double) disk_free(DataDir) - job_reserve(def);
	r->files = load_nchunks(def->rows, def->chunk_rows);
	r->inodes = disk_free_inodes(DataDir);
}

/* Do the routing files fit in their room: bytes and inodes? */
bool
method_routing_fits(const RoutingRoom *r)
{
	return r->bytes <= r->room && (r->inodes < 0 || r->files <= r->inodes);
}

/*
 * Why the routing files of def's load as a leaf job would not fit, or
 * NULL; chunk_rows as in method_chunk_reason().
 */
static char *
method_routing_obstacle(const JobDef *def, int nlocal, int64 chunk_rows)
{
	JobDef		leaf = *def;
	RoutingRoom r;

	leaf.method = load_method_find("leaf");
	leaf.chunk_rows = chunk_rows >= 0 ? chunk_rows : job_default_chunk_rows(&leaf);
	method_routing_room(&leaf, nlocal, &r);
	if (method_routing_fits(&r))
		return NULL;
	return psprintf("the leaf method's routing files, about %s in " INT64_FORMAT " files, do not fit in the data directory (%s free above the disk reserve%s)",
					check_size(r.bytes), r.files, check_size(Max(r.room, 0)),
					r.inodes >= 0 ? psprintf(", " INT64_FORMAT " inodes", r.inodes) : "");
}

/*
 * Why a local leaf of def's table, or their routing files, stop the leaf
 * method, or NULL: a leaf the role may not TRUNCATE, one that holds rows
 * (named only to a role that may read the table, as check() names it), or
 * routing files that do not fit.
 */
static char *
method_leaf_obstacle(const JobDef *def, int64 chunk_rows)
{
	int			nlocal;
	Oid		   *leaves = leaf_local_leaves(def->relid, &nlocal);
	char	   *first;

	if (nlocal == 1 && leaves[0] == def->relid)
		return psprintf("\"%s\" is not partitioned: the leaf method would write it with one worker in one transaction",
						get_rel_name(def->relid));
	for (int i = 0; i < nlocal; i++)
		if (pg_class_aclcheck(leaves[i], GetUserId(), ACL_TRUNCATE) != ACLCHECK_OK)
			return psprintf("role \"%s\" may not truncate leaf \"%s\"",
							GetUserNameFromId(GetUserId(), false),
							get_rel_name(leaves[i]));
	if (leaf_nonempty(def->relid, &first) > 0)
		return check_may_read(def->relid) ?
			psprintf("leaf \"%s\" is not empty", first) :
			pstrdup("a local leaf holds rows");
	return method_routing_obstacle(def, nlocal, chunk_rows);
}

/*
 * Why def's load cannot take the leaf method, or NULL if it can; chunk_rows
 * is the caller's, or -1 if left out.
 */
static char *
method_chunk_reason(const JobDef *def, int64 chunk_rows)
{
	if (def->spec.keys.mode == KEYS_YCSB || def->spec.keys.mode == KEYS_GO_YCSB)
		return psprintf("keys => '%s' has duplicates, which only the chunk method loads",
						keys_mode_name(def->spec.keys.mode));
	if (def->indexes_after)
		return pstrdup("indexes => 'after' is the chunk method's");
	if (chunk_rows >= 0 && chunk_rows < LEAF_RANGE_ROWS_MIN)
		return psprintf("chunk_rows " INT64_FORMAT " is below the leaf method's minimum of %d",
						chunk_rows, LEAF_RANGE_ROWS_MIN);
	return method_leaf_obstacle(def, chunk_rows);
}

/* method_chunk_reason()'s arguments and result, for check_try(). */
typedef struct MethodChoice
{
	const JobDef *def;
	int64		chunk_rows;
	char	   *reason;
} MethodChoice;

/* method_chunk_reason() of MethodChoice arg. */
static void
method_choose(void *arg)
{
	MethodChoice *choice = arg;

	choice->reason = method_chunk_reason(choice->def, choice->chunk_rows);
}

/*
 * Why def's load cannot take the leaf method, or NULL if it can; an error
 * looking at the table (one start() and check() report as the table's) is
 * a reason too: the chunk method's checks then report it.
 */
static char *
method_chunk_reason_safe(const JobDef *def, int64 chunk_rows)
{
	MethodChoice choice = {def, chunk_rows, NULL};
	ErrorData  *edata = check_try(method_choose, &choice);

	return edata ? edata->message : choice.reason;
}

/*
 * Set def's method from the method asked for (chunk_rows as in
 * method_chunk_reason()), and def->method_reason to why.
 */
void
method_resolve(JobDef *def, JobMethod method, int64 chunk_rows)
{
	char	   *reason;

	def->method_auto = method == METHOD_AUTO;
	if (!def->method_auto)
	{
		def->method = load_method_find(method == METHOD_LEAF ? "leaf" : "chunk");
		def->method_reason = psprintf("method => '%s' was asked",
									  def->method->name);
		return;
	}
	reason = method_chunk_reason_safe(def, chunk_rows);
	def->method = load_method_find(reason == NULL ? "leaf" : "chunk");
	def->method_reason = reason ? reason :
		psprintf("every local leaf is empty and role \"%s\" may truncate them",
				 GetUserNameFromId(GetUserId(), false));
}

/*
 * def's job as its method sees it, outside any worker: the worker sets
 * its index, units, memory context and the method's state.
 */
void
method_load_job(const JobDef *def, LoadJob *job)
{
	LoadJob		view = {
		.job = def->job,
		.relid = def->relid,
		.first = def->first,
		.rows = def->rows,
		.chunk_rows = def->chunk_rows,
		.spec = def->spec,
		.frozen = def->frozen,
		.route_token = def->route_token,
		.run = def->run,
		.worker = -1,
		.cxt = CurrentMemoryContext,
	};

	*job = view;
}
