/*-------------------------------------------------------------------------
 * verify.c
 *		petagen.verify(): prove that a table holds exactly the keys of a key
 *		space, leaf by leaf, local and foreign; and why it finds extra rows in
 *		a table that benchmark runs inserted into.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "catalog.h"
#include "compat.h"
#include "gen/keys.h"
#include "gen/spec.h"
#include "guard.h"
#include "job/ledger.h"
#include "route/citus_meta.h"
#include "route/route.h"
#include "verify/verify.h"

static bool verify_bench_ignore_arg(text *arg);
static int64 verify_bench_ignored(const JobDef *job, Router *router,
								  VerifyIgnoreFn fn, void *arg);
static void verify_note_ignored(const JobDef *job, int64 runs, int64 ignored);
static void verify_note_bench_inserts(const JobDef *job, const char *table,
									  int64 extra);


/*-------------------------------------------------------------------------
 *		petagen.verify(): prove that a table holds exactly the keys of a key
 *		space, leaf by leaf, local and foreign.
 *
 * One pass over the key numbers: each key is routed with PostgreSQL's own
 * partition routing.  If its leaf is local, the key is added to the leaf's
 * expected fingerprint (verify_scan.c: count and a 128-bit sum of key
 * hashes, order-independent); if its leaf is a foreign table, it joins a
 * batch that is probed on the remote node in one query (verify_scan.c).
 * Each local leaf is read once (an index-only scan of its key index, or a
 * sequential scan) into the fingerprint of what it holds: equal
 * fingerprints prove the leaf holds every expected key exactly once and
 * nothing else.  The pass and the leaf scans are shared between the
 * calling backend and parallel workers (verify_scan.c).  Only for the local leaves whose fingerprints differ, a
 * second pass over the key numbers probes each of their expected keys in
 * the leaf's btree index on ycsb_key (verify_scan.c): a key not found is
 * missing, a key found more than once duplicated, and the leaf's rows no
 * expected key found are extra; a NOTICE names the first keys of each
 * kind.  No sort of the heap is needed.  From any node of a cluster this
 * checks the whole key space, and each leaf's row says which node holds
 * it; petagen._verify_local(job) checks only this node's own leaves, as
 * cluster_verify() runs it on every node.  petagen.verify(job) does the
 * same for the table and key space
 * recorded for a load job, and says which of the extra rows benchmark runs
 * inserted, or with bench_inserts => 'ignore' leaves them out
 * (verify.c).
 *
 * A Citus table's leaves are its shards (route.c routes as Citus does): a
 * shard on this node is checked exactly like a local leaf; a shard on
 * another node like a foreign leaf, its keys probed in batches through the
 * distributed table (Citus prunes each batch's query to the one shard that
 * holds the batch's keys) and its rows counted on its node with Citus's
 * master_run_on_worker().  So verify() on any one node of a Citus cluster,
 * the coordinator too, checks the whole key space.
 *
 * Index probes and scans see every row, whatever row-level security would
 * hide, so verify() refuses a table or local leaf where RLS applies to the
 * caller (else it would be an oracle for hidden keys), and needs the SELECT
 * privilege on every local leaf it reads.  Only a valid, non-partial btree
 * index whose first column is ycsb_key proves a key present (it has an
 * entry for every row of its leaf).  A partition given as the table is
 * checked for the keys PostgreSQL would route into it (route.c); its rows
 * of other keys show as extra.
 *-------------------------------------------------------------------------
 */

#define VERIFY_COLS 9
/* Fewer keys than this are verified without parallel workers. */
#define VERIFY_PARALLEL_MIN_KEYS 262144

/* The arguments of petagen.verify(table, rows, ...), in SQL order. */
typedef enum VerifyArg
{
	VERIFY_ARG_TABLE,
	VERIFY_ARG_ROWS,
	VERIFY_ARG_KEYS,
	VERIFY_ARG_PREFIX,
	VERIFY_ARG_ZEROPADDING,
	VERIFY_ARG_FIRST
} VerifyArg;

/* Where verify(table, rows, ...) declares the key spelling. */
static const GenArgs verify_gen_args = SPEC_KEY_ARGS(VERIFY_ARG_);

/* What verify knows of one leaf. */
typedef struct VerifyLeaf
{
	FdwProbe   *remote;			/* a remote leaf's batch probe, or NULL */
	Relation	heap;			/* else the local leaf and its key index */
	Relation	index;
	LeafDiff   *diff;			/* its probes when it holds other keys */
	int64		expected;
	int64		rows;			/* rows the leaf holds */
	int64		missing;
	int64		found;			/* expected keys' rows, duplicates included */
	int64		ignored;		/* rows benchmark runs inserted, left out */
} VerifyLeaf;

/* The valid, non-partial btree index of a leaf on ycsb_key first, or an error. */
static Relation
verify_key_index(Relation heap)
{
	AttrNumber	keyatt = get_attnum(RelationGetRelid(heap), "ycsb_key");
	List	   *indexes = RelationGetIndexList(heap);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		if (index->rd_rel->relam == BTREE_AM_OID && index->rd_index->indisvalid &&
			index->rd_index->indkey.values[0] == keyatt &&
			RelationGetIndexPredicate(index) == NIL)
			return index;
		index_close(index, AccessShareLock);
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("leaf \"%s\" has no btree index on ycsb_key",
					RelationGetRelationName(heap)),
			 errdetail("A partial index does not cover every key, so it cannot prove a key present."),
			 errhint("petagen.verify() probes the primary key; add one with ALTER TABLE ... ADD PRIMARY KEY (ycsb_key).")));
	pg_unreachable();
}

/* Raise an error unless the caller may see every row of relid. */
static void
verify_check_visible(Oid relid)
{
	AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, get_relkind_objtype(get_rel_relkind(relid)),
					   get_rel_name(relid));
	if (check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("petagen.verify() cannot check \"%s\": row-level security applies to it",
						get_rel_name(relid)),
				 errdetail("verify() probes the index directly and would report keys the policies hide."),
				 errhint("Verify as the table owner or a role with BYPASSRLS.")));
}

/* Open a local leaf and its key index. */
static void
verify_open_leaf(VerifyLeaf *vl, Oid relid)
{
	verify_check_visible(relid);
	vl->heap = table_open(relid, AccessShareLock);
	vl->index = verify_key_index(vl->heap);
}

/* count(*) of a foreign leaf, pushed down to its node. */
static int64
verify_count_rows(Oid relid)
{
	char	   *sql = psprintf("SELECT pg_catalog.count(*) FROM ONLY %s",
							   catalog_relation_name(relid));
	bool		isnull;
	int64		n;
	CatalogScope scope;

	catalog_connect(&scope, false);
	catalog_exec(sql, 0, NULL, NULL, NULL, SPI_OK_SELECT);
	n = DatumGetInt64(catalog_value(0, CATALOG_ONLY_COLUMN, &isnull));
	catalog_finish(&scope);
	return n;
}

/* The target list of master_run_on_worker() that verify_count_shard() reads. */
enum
{
	Anum_run_on_worker_success = 1,
	Anum_run_on_worker_result,
};

/*
 * count(*) of the Citus shard of table relid on another node (leaf->node is
 * its "host:port"), run on that node by Citus's master_run_on_worker().
 */
static int64
verify_count_shard(Oid relid, const RouteLeaf *leaf)
{
	char	   *host = pstrdup(leaf->node);
	char	   *colon = strrchr(host, ':');
	char	   *shard = citus_meta_shard_name(get_rel_name(relid), leaf->shardid);
	Oid			types[3] = {TEXTOID, INT4OID, TEXTOID};
	Datum		values[3];
	bool		isnull;
	bool		success;
	char	   *result;
	CatalogScope scope;

	Assert(colon != NULL);
	*colon = '\0';
	values[0] = CStringGetTextDatum(host);
	values[1] = Int32GetDatum(pg_strtoint32(colon + 1));
	values[2] = CStringGetTextDatum(psprintf("SELECT pg_catalog.count(*) FROM %s",
											 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
																		shard)));
	catalog_connect(&scope, false);
	catalog_exec("SELECT success, result FROM pg_catalog.master_run_on_worker("
				 "ARRAY[$1], ARRAY[$2], ARRAY[$3], false)",
				 3, types, values, NULL, SPI_OK_SELECT);
	success = DatumGetBool(catalog_value(0, Anum_run_on_worker_success, &isnull)) && !isnull;
	result = catalog_text(0, Anum_run_on_worker_result, CurrentMemoryContext);
	catalog_finish(&scope);
	if (!success)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_EXCEPTION),
				 errmsg("could not count the rows of shard \"%s\" on Citus node %s",
						shard, leaf->node),
				 errdetail("The node answered: %s", result),
				 errhint("Check that the node is up and that this role may connect to it and read the table.")));
	return pg_strtoint64(result);
}

/* Close a local leaf. */
static void
verify_close_leaf(VerifyLeaf *vl)
{
	index_close(vl->index, AccessShareLock);
	table_close(vl->heap, AccessShareLock);
}

/* Emit one leaf's result row. */
static void
verify_emit(ReturnSetInfo *rsinfo, const RouteLeaf *leaf, VerifyLeaf *vl)
{
	Datum		values[VERIFY_COLS];
	bool		nulls[VERIFY_COLS] = {false};
	int64		present = vl->expected - vl->missing;
	int64		duplicated = vl->found - present;
	int64		extra = vl->rows - vl->found - vl->ignored;

	values[0] = ObjectIdGetDatum(leaf->relid);
	nulls[0] = !OidIsValid(leaf->relid);	/* a Citus shard elsewhere */
	values[1] = BoolGetDatum(leaf->local);
	values[2] = Int64GetDatum(vl->expected);
	values[3] = Int64GetDatum(present);
	values[4] = Int64GetDatum(vl->missing);
	values[5] = Int64GetDatum(extra);
	values[6] = Int64GetDatum(duplicated);
	values[7] = BoolGetDatum(vl->missing == 0 && extra == 0 && duplicated == 0);
	values[8] = CStringGetTextDatum(route_leaf_node(leaf));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Route every key number of the range; probe those of the leaves that differ. */
static void
verify_probe_keys(Router *router, VerifyLeaf *leaves, const KeySpec *keys,
				  const VerifyRange *range)
{
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	char		chars[KEYS_MAX_LEN + 1];

	for (int64 seq = range->first; seq - range->first < range->rows; seq++)
	{
		Datum		key = keys_datum(keys, seq, buf);
		int			leaf;

		if (((seq - range->first) & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		leaf = route_key(router, key);
		if (leaf >= 0 && leaves[leaf].diff != NULL)
			leafdiff_probe(leaves[leaf].diff, key, chars,
						   keys_format(keys, seq, chars));
	}
	pfree(buf);
}

/*
 * Compare every local leaf's fingerprints; start probes for those that
 * differ.  Room to name extra keys (8 bytes an expected key) goes to leaves
 * in order while the total fits in work_mem; an empty leaf has none.
 */
static bool
verify_compare_leaves(VerifyLeaf *leaves, const VerifyPrint *prints,
					  int nleaves)
{
	int64		room = (int64) work_mem * 1024 / sizeof(uint64);
	bool		differ = false;

	for (int i = 0; i < nleaves; i++)
	{
		VerifyLeaf *vl = &leaves[i];
		int64		hashes = 0;

		vl->expected = prints[i].want.count;
		if (vl->remote != NULL || vl->heap == NULL)
			continue;			/* foreign, or a Citus shard on another node */
		vl->rows = prints[i].have.count;
		if (keyprint_equal(&prints[i].have, &prints[i].want))
		{
			vl->found = vl->expected;
			continue;
		}
		if (vl->rows > 0 && vl->expected <= room)
		{
			hashes = vl->expected;
			room -= hashes;
		}
		vl->diff = leafdiff_begin(vl->heap, vl->index, hashes);
		differ = true;
	}
	return differ;
}

/*
 * Open every leaf of table relid: a local one and its key index, a
 * foreign one's batch probe, and for a Citus shard on another node a batch
 * probe through the distributed table (local_only: none of either).  The
 * number of parallel workers verify_prints() may use: none with a remote or
 * temporary leaf (workers reach neither).
 */
static int
verify_open_leaves(Oid relid, Router *router, VerifyLeaf *leaves,
				   VerifyPrint *prints, FdwProbe **remote, int nworkers,
				   bool local_only)
{
	for (int i = 0; i < route_nleaves(router); i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);

		prints[i].relid = leaf->relid;
		if (!leaf->local && local_only)
			continue;			/* its node checks it */
		if (!leaf->local)
		{
			remote[i] = leaves[i].remote =
				fdwprobe_open(OidIsValid(leaf->relid) ? leaf->relid : relid);
			nworkers = 0;
			continue;
		}
		verify_open_leaf(&leaves[i], leaf->relid);
		prints[i].index = RelationGetRelid(leaves[i].index);
		if (leaves[i].heap->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
			nworkers = 0;
	}
	return nworkers;
}

/* A row benchmark runs inserted, in leaf of the leaves arg: left out. */
static void
verify_ignore_row(void *arg, int leaf, const char *key, int len)
{
	VerifyLeaf *vl = &((VerifyLeaf *) arg)[leaf];

	vl->ignored++;
	if (vl->diff != NULL)
		leafdiff_ignore(vl->diff, key, len);
}

/*
 * Finish a leaf of table relid: its probes; close it and emit its row, its
 * ignored rows (at most its extra ones) left out; its extra rows.
 */
static int64
verify_finish_leaf(ReturnSetInfo *rsinfo, Oid relid, const RouteLeaf *leaf,
				   VerifyLeaf *vl)
{
	if (vl->diff != NULL)
		leafdiff_finish(vl->diff, vl->rows, &vl->found, &vl->missing);
	if (leaf->local)
		verify_close_leaf(vl);
	else
	{
		fdwprobe_finish(vl->remote, &vl->found, &vl->missing);
		vl->rows = OidIsValid(leaf->relid) ? verify_count_rows(leaf->relid) :
			verify_count_shard(relid, leaf);
	}
	vl->ignored = Min(vl->ignored, vl->rows - vl->found);
	verify_emit(rsinfo, leaf, vl);
	return vl->rows - vl->found - vl->ignored;
}

/*
 * Verify key numbers range->first .. first+rows-1 of table relid, with up
 * to nworkers parallel workers: a result row per leaf (local_only: per
 * local leaf); the extra rows of all leaves.  With ignore, leave out the
 * rows benchmark runs of that job inserted, and say how many.
 */
static int64
verify_table(FunctionCallInfo fcinfo, Oid relid, const VerifyRange *range,
			 const KeySpec *keys, int nworkers, const JobDef *ignore,
			 bool local_only)
{
	ReturnSetInfo *rsinfo;
	Router	   *router;
	VerifyLeaf *leaves;
	VerifyPrint *prints;
	FdwProbe  **remote;
	int			nleaves;
	int64		extra = 0;
	int64		runs = 0;
	int64		ignored = 0;

	guard_table(relid);
	verify_check_visible(relid);
	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	router = route_open(relid);
	nleaves = route_nleaves(router);
	leaves = palloc0(sizeof(VerifyLeaf) * nleaves);
	prints = palloc0(sizeof(VerifyPrint) * nleaves);
	remote = palloc0(sizeof(FdwProbe *) * nleaves);
	nworkers = verify_open_leaves(relid, router, leaves, prints, remote,
								  range->rows < VERIFY_PARALLEL_MIN_KEYS ? 0 : nworkers,
								  local_only);
	verify_prints(relid, keys, range, prints, nleaves, remote, nworkers);
	if (verify_compare_leaves(leaves, prints, nleaves))
		verify_probe_keys(router, leaves, keys, range);
	if (ignore != NULL)
		runs = verify_bench_ignored(ignore, router, verify_ignore_row, leaves);
	for (int i = 0; i < nleaves; i++)
	{
		if (local_only && !route_leaf(router, i)->local)
			continue;
		extra += verify_finish_leaf(rsinfo, relid, route_leaf(router, i), &leaves[i]);
		ignored += leaves[i].ignored;
	}
	route_close(router);
	if (ignore != NULL)
		verify_note_ignored(ignore, runs, ignored);
	return extra;
}

PG_FUNCTION_INFO_V1(petagen_verify);
/*
 * petagen.verify(table, rows, keys, prefix, zeropadding, first): a row per
 * leaf, with up to max_parallel_workers_per_gather parallel workers.  0.1's
 * declaration has no first.
 */
Datum
petagen_verify(PG_FUNCTION_ARGS)
{
	VerifyRange range = {0};
	KeySpec		keys;

	range.rows = spec_count_arg(PG_GETARG_NUMERIC(VERIFY_ARG_ROWS), "rows");
	if (catalog_version() >= CATALOG_V0_2)
		range.first = spec_count_arg(PG_GETARG_NUMERIC(VERIFY_ARG_FIRST), "first");
	spec_check_range(range.first, range.rows);
	spec_read_keys(fcinfo, &verify_gen_args, NULL, &keys);
	keys_set_kind(&keys, shape_key_kind(PG_GETARG_OID(VERIFY_ARG_TABLE)),
				  get_rel_name(PG_GETARG_OID(VERIFY_ARG_TABLE)));
	verify_table(fcinfo, PG_GETARG_OID(VERIFY_ARG_TABLE), &range, &keys,
				 max_parallel_workers_per_gather, NULL, false);
	return (Datum) 0;
}

/*
 * verify() of a load job (local_only: of its local leaves), with its
 * number of workers; the rows benchmark runs inserted counted as extra
 * ('count') or left out ('ignore').  0.1's declaration of verify(job) has
 * no bench_inserts.
 */
static Datum
verify_job(FunctionCallInfo fcinfo, const char *funcname, bool local_only)
{
	static const char *const names[] = {"job", "bench_inserts"};
	JobDef		def;
	int64		extra;
	VerifyRange range;
	bool		ignore;

	spec_check_nulls(fcinfo, 0, names, lengthof(names), funcname);
	ignore = catalog_version() >= CATALOG_V0_2 &&
		verify_bench_ignore_arg(PG_GETARG_TEXT_PP(1));
	job_read(PG_GETARG_INT64(0), &def, false);
	if (!OidIsValid(get_rel_namespace(def.relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the table of load job " INT64_FORMAT " was dropped",
						def.job),
				 errdetail("The job loaded the relation with OID %u, which no longer exists.",
						   def.relid),
				 errhint("To check another table against the same key space, call petagen.verify(table, rows, keys, prefix, zeropadding, first).")));
	range.first = def.first;
	range.rows = def.rows;
	extra = verify_table(fcinfo, def.relid, &range, &def.spec.keys, def.nworkers,
						 ignore ? &def : NULL, local_only);
	if (!ignore)
		verify_note_bench_inserts(&def, catalog_relation_name(def.relid), extra);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(petagen_verify_job);
/* petagen.verify(job, bench_inserts): verify() for a load job. */
Datum
petagen_verify_job(PG_FUNCTION_ARGS)
{
	return verify_job(fcinfo, "petagen.verify()", false);
}

PG_FUNCTION_INFO_V1(petagen_verify_local);
/*
 * petagen._verify_local(job, bench_inserts): verify(job) of this node's own
 * leaves only, as cluster_verify() runs it on each node.
 */
Datum
petagen_verify_local(PG_FUNCTION_ARGS)
{
	return verify_job(fcinfo, "petagen._verify_local()", true);
}


/*-------------------------------------------------------------------------
 *		Why petagen.verify(job) finds extra rows in a table that benchmark
 *		runs inserted into, and how to remove those rows.
 *
 * A benchmark's inserts (ycsb-d, ycsb-e, insertproportion) are key numbers
 * outside the load job's key space: run id's workers insert from
 * options.insert_base (first + rows + id * 2^40) up to below options.insert_end
 * (bench.h), and the run records the load job its key space is from as
 * options.job.  verify(job) checks the job's key space, so it counts
 * every such row still in the table as extra.  When it finds extra rows
 * and benchmark runs of the job inserted rows, a NOTICE says how many and
 * gives the DELETE that removes exactly the keys those runs could have
 * inserted, spelled as the job spells keys (petagen.key(); an integer
 * ycsb_key is the key number itself, and with int the runs insert one after
 * another from first + rows on, bench.c): a DELETE
 * rather than a function, so that it runs with the caller's privileges
 * and row-level security, as any other change to the table, and can be
 * read before it is run.  bench_results is read as the catalog's owner.
 *
 * verify(job, bench_inserts => 'ignore') leaves those rows out instead:
 * it looks the keys the runs could have inserted up in the table, with
 * the caller's privileges, routes each one found to its leaf, and takes
 * them from the leaf's extra rows, so that every other key is still
 * proved exactly; a NOTICE says how many rows it ignored.  A benchmark key
 * is never a key of the key space (the runs insert past it), but in the
 * hashed modes (ycsb, go-ycsb) two numbers can spell the same key: a leaf
 * ignores at most its extra rows, so such a key still counts as present.
 *-------------------------------------------------------------------------
 */

/* The bench_inserts argument of verify(job): true for 'ignore', false for 'count'. */
static bool
verify_bench_ignore_arg(text *arg)
{
	char	   *mode = text_to_cstring(arg);

	if (strcmp(mode, "ignore") == 0)
		return true;
	if (strcmp(mode, "count") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bench_inserts \"%s\"", mode),
				 errhint("Use \"count\" (the rows benchmark runs inserted are extra) or \"ignore\" (they are left out).")));
	return false;
}

/* verify_bench_inserts()'s target list. */
enum
{
	Anum_inserts_runs = 1,
	Anum_inserts_rows,
};

/* The runs of load job whose inserts remain and the rows they inserted: runs, rows. */
static void
verify_bench_inserts(int64 job, int64 *runs, int64 *rows)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	CatalogScope scope;

	catalog_connect(&scope, true);
	catalog_read("SELECT pg_catalog.count(*), pg_catalog.sum(inserts)::bigint"
				 " FROM petagen.bench_results WHERE inserts > 0"
				 " AND options ? 'insert_end' AND (options->>'job')::bigint = $1",
				 1, types, values, 1);
	*runs = catalog_int8(0, Anum_inserts_runs);
	*rows = *runs > 0 ? catalog_int8(0, Anum_inserts_rows) : 0;
	catalog_finish(&scope);
}

/* The key of number column `n` as job spells it, for SQL. */
static const char *
verify_bench_key_sql(const JobDef *job, const char *n)
{
	if (job->spec.keys.kind != KEYKIND_TEXT)
		return n;
	return psprintf("petagen.key(%s, %s, %s, %d)", n,
					quote_literal_cstr(keys_mode_name(job->spec.keys.mode)),
					quote_literal_cstr(job->spec.keys.prefix),
					job->spec.keys.zeropadding);
}

/* verify_bench_ranges()'s target list. */
enum
{
	Anum_ranges_base = 1,
	Anum_ranges_end,
};

/*
 * The key numbers benchmark runs of job could have inserted, as the rows
 * of a VALUES list (base, end); NULL if no run inserted any.
 */
static char *
verify_bench_ranges(int64 job, int64 *runs)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job)};
	StringInfoData buf;
	CatalogScope scope;

	initStringInfo(&buf);
	catalog_connect(&scope, true);
	*runs = catalog_read("SELECT (options->>'insert_base')::bigint,"
						 " (options->>'insert_end')::bigint"
						 " FROM petagen.bench_results WHERE inserts > 0"
						 " AND options ? 'insert_end' AND (options->>'job')::bigint = $1",
						 1, types, values, 0);
	for (uint64 i = 0; i < *runs; i++)
		appendStringInfo(&buf, "%s(" INT64_FORMAT ", " INT64_FORMAT ")",
						 i > 0 ? ", " : "", catalog_int8(i, Anum_ranges_base),
						 catalog_int8(i, Anum_ranges_end));
	catalog_finish(&scope);
	return *runs > 0 ? buf.data : NULL;
}

/*
 * Hand each row of the job's table whose key benchmark runs of the job
 * could have inserted to fn, with the leaf of router it is in and its key's
 * text; returns how many runs inserted rows.
 */
static int64
verify_bench_ignored(const JobDef *job, Router *router, VerifyIgnoreFn fn,
					 void *arg)
{
	char	   *ranges;
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	char		chars[KEYS_MAX_LEN + 1];
	int64		runs;
	uint64		n;
	CatalogScope scope;

	ranges = verify_bench_ranges(job->job, &runs);
	if (ranges == NULL)
		return 0;
	/* the table as the caller reads it: verify() checked its privileges */
	catalog_connect(&scope, false);
	n = catalog_read(psprintf("SELECT b.n FROM (SELECT DISTINCT s.n"
							  " FROM (VALUES %s) AS r(b, e),"
							  " pg_catalog.generate_series(r.b, r.e - 1) AS s(n)) AS b,"
							  " %s AS t WHERE t.ycsb_key = %s",
							  ranges, catalog_relation_name(job->relid),
							  verify_bench_key_sql(job, "b.n")),
					 0, NULL, NULL, 0);
	for (uint64 i = 0; i < n; i++)
	{
		int64		seq = catalog_int8(i, CATALOG_ONLY_COLUMN);
		int			leaf;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		leaf = route_key(router, keys_datum(&job->spec.keys, seq, buf));
		if (leaf >= 0)
			fn(arg, leaf, chars, keys_format(&job->spec.keys, seq, chars));
	}
	catalog_finish(&scope);
	pfree(buf);
	return runs;
}

/* After verify(job, bench_inserts => 'ignore'): how many rows it left out. */
static void
verify_note_ignored(const JobDef *job, int64 runs, int64 ignored)
{
	ereport(NOTICE,
			(errmsg("verify ignored " INT64_FORMAT " rows that benchmark runs of load job " INT64_FORMAT " inserted",
					ignored, job->job),
			 errdetail(INT64_FORMAT " benchmark runs of the job inserted rows: their keys, from options.insert_base up to below options.insert_end of their petagen.bench_results rows, are neither extra nor expected.",
					   runs)));
}

/*
 * After verify(job) found extra rows in table: a NOTICE if benchmark runs
 * of the job inserted rows, with the DELETE that removes them.
 */
static void
verify_note_bench_inserts(const JobDef *job, const char *table, int64 extra)
{
	int64		runs;
	int64		rows;

	if (extra == 0)
		return;
	verify_bench_inserts(job->job, &runs, &rows);
	if (runs == 0)
		return;
	ereport(NOTICE,
			(errmsg("benchmark runs of load job " INT64_FORMAT " inserted " INT64_FORMAT " rows outside its key space: verify counts them as extra",
					job->job, rows),
			 errdetail("%s finds " INT64_FORMAT " extra rows; " INT64_FORMAT " benchmark runs inserted key numbers from options.insert_base up to below options.insert_end of their petagen.bench_results rows. petagen.verify(" INT64_FORMAT ", bench_inserts => 'ignore') leaves them out.",
					   table, extra, runs, job->job),
			 errhint("To remove the rows benchmark runs inserted: DELETE FROM %s WHERE ycsb_key IN (SELECT %s FROM petagen.bench_results AS r, generate_series((r.options->>'insert_base')::bigint, (r.options->>'insert_end')::bigint - 1) AS n WHERE (r.options->>'job')::bigint = " INT64_FORMAT " AND r.inserts > 0);",
					 table, verify_bench_key_sql(job, "n"), job->job)));
}
