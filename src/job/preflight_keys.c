/*-------------------------------------------------------------------------
 * preflight_keys.c
 *		The key findings of the preflight check (preflight.c): whether the
 *		table already holds keys of this load, and for a leaf job whether
 *		its leaves hold rows at all.
 *
 * The probe looks up to 65 key numbers (spread evenly, and the last) up in
 * their local leaves' btree indexes on ycsb_key (keyindex.c), only for a
 * role with SELECT on the table or ycsb_key; leaves with rows and no such
 * index are a warning.  For a leaf job the keys found are told by its
 * error on leaves that hold rows (named and counted only for a role that
 * may read the table), not as a second error.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "job/preflight_int.h"
#include "job/refusals.h"
#include "job/sizing.h"
#include "load/load.h"
#include "route/route.h"

/* Key numbers looked up in the table, spread over the key space (and the last). */
#define CHECK_PROBE_KEYS	64

/* A local leaf the probe looks keys up in; opened on its first key. */
typedef struct ProbeLeaf
{
	bool		opened;
	Relation	heap;
	Relation	index;			/* a btree index leading with ycsb_key, or NULL */
	KeyLookup  *lookup;
} ProbeLeaf;

/* May the current role look up keys of relid: SELECT on it or on ycsb_key? */
static bool
check_may_read_keys(Oid relid)
{
	AttrNumber	att = get_attnum(relid, "ycsb_key");

	return pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
		(att != InvalidAttrNumber &&
		 pg_attribute_aclcheck(relid, att, GetUserId(), ACL_SELECT) == ACLCHECK_OK);
}

/* Open a local leaf for the probe: its key index, or note rows without one. */
static void
check_probe_open(CheckCtx *ctx, ProbeLeaf *pl, Oid relid)
{
	RowShape	shape;

	pl->opened = true;
	pl->heap = table_open(relid, NoLock);	/* locked by route_open() */
	shape_from_tupdesc(RelationGetDescr(pl->heap),
					   RelationGetRelationName(pl->heap), &shape);
	pl->index = keyindex_open_any(pl->heap, shape.key_att);
	if (pl->index != NULL)
		pl->lookup = keyindex_begin(pl->heap, pl->index, GetActiveSnapshot());
	else if (leaf_has_rows(pl->heap, GetActiveSnapshot()) &&
			 ctx->probe.unindexed++ == 0)
		ctx->probe.first_unindexed = pstrdup(RelationGetRelationName(pl->heap));
}

/* Close what check_probe_open() opened; the leaf's lock stays. */
static void
check_probe_close(ProbeLeaf *pl)
{
	if (pl->lookup != NULL)
		keyindex_end(pl->lookup);
	if (pl->index != NULL)
		index_close(pl->index, AccessShareLock);
	table_close(pl->heap, NoLock);
}

/* Look key number seq up in its leaf, if that is local and has a key index. */
static void
check_probe_key(CheckCtx *ctx, ProbeLeaf *leaves, int64 seq, char *buf)
{
	KeyProbe   *probe = &ctx->probe;
	Datum		key = keys_datum(&ctx->def->spec.keys, seq, buf);
	int			leaf;
	ProbeLeaf  *pl;

	leaf = route_key(ctx->router, key);
	if (leaf < 0 || !route_leaf(ctx->router, leaf)->local)
		return;					/* another node's key, or no partition's */
	pl = &leaves[leaf];
	if (!pl->opened)
		check_probe_open(ctx, pl, route_leaf(ctx->router, leaf)->relid);
	if (pl->lookup == NULL)
		return;
	probe->probed++;
	if (!keyindex_contains(pl->lookup, key) || probe->present++ > 0)
		return;
	probe->first_seq = seq;
	keys_format(&ctx->def->spec.keys, seq, probe->first_key);
	probe->first_leaf = pstrdup(RelationGetRelationName(pl->heap));
}

/*
 * Look a sample of the load's keys up in the local leaves' key indexes,
 * for a role that may read them: CHECK_PROBE_KEYS key numbers spread
 * evenly over the key space (the first among them), and the last.
 */
void
check_probe(CheckCtx *ctx)
{
	int64		rows = ctx->def->rows;
	int64		n = Min(rows, CHECK_PROBE_KEYS);
	int			nleaves = route_nleaves(ctx->router);
	ProbeLeaf  *leaves;
	char	   *key;

	ctx->probe.skipped = !check_may_read_keys(ctx->def->relid);
	if (ctx->probe.skipped)
		return;
	leaves = palloc0(sizeof(ProbeLeaf) * nleaves);
	key = palloc(KEYS_DATUM_BUFSIZE);
	for (int64 i = 0; i < n; i++)
		check_probe_key(ctx, leaves, check_sample_seq(ctx->def, n, i), key);
	if (n < rows)
		check_probe_key(ctx, leaves, job_last_seq(ctx->def), key);
	for (int i = 0; i < nleaves; i++)
		if (leaves[i].opened)
			check_probe_close(&leaves[i]);
	pfree(leaves);
	pfree(key);
}

/*
 * The findings of the probe.  A leaf job's keys found present are told by
 * check_leaves_nonempty(), whose error covers leaves with rows of any kind.
 */
void
check_keys(CheckCtx *ctx)
{
	KeyProbe   *probe = &ctx->probe;
	bool		leaf = ctx->def->method->whole_leaves;

	if (probe->skipped)
		check_add(ctx, CHECK_INFO, 0, ctx->table,
				  "keys: not probed: that needs SELECT on the table or ycsb_key",
				  "Run petagen.check() as a role with SELECT on the table to look for them.",
				  "keys: whether the table already holds keys of this load was not probed: that needs SELECT on the table or its column ycsb_key");
	else if (probe->present > 0 && !leaf)
		check_add(ctx, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
				  probe->first_leaf,
				  psprintf("keys: %d of the %d key numbers probed are already in the table",
						   probe->present, probe->probed),
				  "If an earlier job loaded these keys, check the table with petagen.verify() instead of loading it again; TRUNCATE it first if its rows may go, or load other keys (another prefix).",
				  "keys: %d of the %d key numbers probed are already in the table, the first being key number " INT64_FORMAT " (\"%s\") in \"%s\": the load would write them again",
				  probe->present, probe->probed, probe->first_seq,
				  probe->first_key, probe->first_leaf);
	else if (probe->present == 0 && probe->probed > 0)
		check_add(ctx, CHECK_INFO, 0, ctx->table, NULL, NULL,
				  "keys: none of the %d key numbers probed is in the table yet",
				  probe->probed);
	if (probe->unindexed > 0 && !leaf)
		check_add(ctx, CHECK_WARNING, 0, probe->first_unindexed,
				  psprintf("keys: %d local leaves with rows and no btree index on ycsb_key, not probed",
						   probe->unindexed),
				  "Make sure their rows are not keys of this load, or create an index on ycsb_key so that petagen.check() can look.",
				  "keys: %d local leaves hold rows but no btree index on ycsb_key: whether they hold keys of this load was not probed",
				  probe->unindexed);
}

/*
 * The error finding of local leaves that hold rows: naming the first and
 * counting them only for a role that may read the table (check_may_read),
 * else naming the table alone.  start() refuses on it either way.
 */
void
check_leaves_nonempty(CheckCtx *ctx)
{
	char	   *first;
	int64		nonempty = leaf_nonempty(ctx->def->relid, &first);

	if (nonempty == 0)
		return;
	if (ctx->probe.present > 0)
		check_add(ctx, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, first,
				  psprintf("leaf method: " INT64_FORMAT " local leaves hold rows, %d probed keys among them",
						   nonempty, ctx->probe.present),
				  "TRUNCATE the leaves first if their rows may go; method => 'chunk' would write the keys they hold again.",
				  "leaf method: " INT64_FORMAT " local leaves hold rows, among them %d of the %d key numbers of this load probed; a leaf load writes only into empty leaves",
				  nonempty, ctx->probe.present, ctx->probe.probed);
	else if (check_may_read(ctx->def->relid))
		check_add(ctx, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, first,
				  NULL,
				  "TRUNCATE the leaves first if their rows may go, or use method => 'chunk'.",
				  "leaf method: " INT64_FORMAT " local leaves hold rows; a leaf load writes only into empty leaves",
				  nonempty);
	else
		check_add(ctx, CHECK_ERROR, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, ctx->table,
				  NULL,
				  "Which leaves hold rows is shown only to roles with SELECT on the table. TRUNCATE the leaves first if their rows may go, or use method => 'chunk'.",
				  "leaf method: local leaves hold rows; a leaf load writes only into empty leaves");
}
