/*-------------------------------------------------------------------------
 * method.c
 *		Choosing a job's load method: method => 'auto' (the default of
 *		start() and check()) takes the leaf method when it may, the chunk
 *		method otherwise; 'chunk' and 'leaf' are taken as asked.
 *
 * The leaf method loads several times faster (README, Performance), but
 * refuses what the chunk method loads: hashed YCSB keys (duplicates),
 * indexes => 'after', a chunk_rows below its range minimum, a leaf the role
 * may not TRUNCATE and a local leaf that holds rows.  'auto' takes the
 * chunk method on each of those instead of refusing, and on an
 * unpartitioned table, which the leaf method would write with one worker
 * in one transaction that a crash rolls back whole.  Foreign leaves and
 * Citus shards of other nodes are not written by either method, so they
 * count for nothing.  The choice is made once, at start(): the catalog
 * keeps the method chosen (jobs.method, which resume() follows) and why
 * (jobs.method_reason).  Choosing leaf weakens none of the leaf method's
 * own checks: start() still runs its preflight, and every worker checks
 * each leaf empty again under its lock (leafload.c), so a row committed
 * after start() fails the leaf as it would with method => 'leaf'.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "gen/keys.h"
#include "job/method.h"
#include "job/options.h"
#include "job/preflight.h"
#include "load/leafload.h"

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
 * Why a local leaf of def's table stops the leaf method, or NULL: one the
 * role may not TRUNCATE, or one that holds rows (named only to a role that
 * may read the table, as check() names it).
 */
static char *
method_leaf_obstacle(const JobDef *def)
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
	if (leaf_nonempty(def->relid, &first) == 0)
		return NULL;
	if (check_may_read(def->relid))
		return psprintf("leaf \"%s\" is not empty", first);
	return pstrdup("a local leaf holds rows");
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
	return method_leaf_obstacle(def);
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
		def->leaf_method = method == METHOD_LEAF;
		def->method_reason = psprintf("method => '%s' was asked",
									  def->leaf_method ? "leaf" : "chunk");
		return;
	}
	reason = method_chunk_reason(def, chunk_rows);
	def->leaf_method = reason == NULL;
	def->method_reason = reason ? reason :
		psprintf("every local leaf is empty and role \"%s\" may truncate them",
				 GetUserNameFromId(GetUserId(), false));
}
