/*-------------------------------------------------------------------------
 * verify.c
 *		petagen.verify(): prove that a table holds exactly the keys of a key
 *		space, leaf by leaf, local and foreign.
 *
 * One pass over the key numbers: each key is routed with PostgreSQL's own
 * partition routing.  If its leaf is local, it is looked up in that leaf's
 * btree index on ycsb_key (the primary key); if its leaf is a foreign table,
 * it joins a batch that is probed on the remote node in one query
 * (verify_fdw.c).  A key not found is missing; a key found more than once
 * is duplicated; rows of a leaf that no key of the key space found are
 * extra.  No sort of the heap is needed: one index probe per key and one
 * count(*) per leaf (pushed down to the remote node for a foreign leaf).
 * From any node of a cluster this checks the whole key space, and each
 * leaf's row says which node holds it.  petagen.verify(job) does the same
 * for the table and key space recorded for a load job.
 *
 * Index probes see every row, whatever row-level security would hide, so
 * verify() refuses a table or local leaf where RLS applies to the caller
 * (else it would be an oracle for hidden keys), and needs the SELECT
 * privilege on every local leaf it probes.  Only a valid, non-partial
 * btree index whose first column is ycsb_key proves a key present.  A
 * partition given as the table is checked for the keys PostgreSQL would
 * route into it (route.c); its rows of other keys show as extra.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "catalog.h"
#include "compat.h"
#include "guard.h"
#include "job/ledger.h"
#include "gen/keys.h"
#include "route/route.h"
#include "gen/spec.h"
#include "verify/verify_fdw.h"

#define VERIFY_COLS 9

/* What verify knows of one leaf. */
typedef struct VerifyLeaf
{
	FdwProbe   *remote;			/* a foreign leaf's batch probe, or NULL */
	Relation	heap;			/* else the local leaf and its key index */
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ScanKeyData skey;
	int64		expected;
	int64		missing;
	int64		found;			/* index matches, duplicates included */
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

/* Open a local leaf for probing. */
static void
verify_open_leaf(VerifyLeaf *vl, Oid relid)
{
	Oid			opno;

	verify_check_visible(relid);
	vl->heap = table_open(relid, AccessShareLock);
	vl->index = verify_key_index(vl->heap);
	opno = get_opfamily_member(vl->index->rd_opfamily[0],
							   vl->index->rd_opcintype[0],
							   vl->index->rd_opcintype[0], BTEqualStrategyNumber);
	ScanKeyEntryInitialize(&vl->skey, 0, 1, BTEqualStrategyNumber,
						   vl->index->rd_opcintype[0],
						   vl->index->rd_indcollation[0], get_opcode(opno),
						   (Datum) 0);
	vl->scan = compat_index_beginscan(vl->heap, vl->index, GetActiveSnapshot(), 1, 0);
	vl->slot = table_slot_create(vl->heap, NULL);
}

/* Count the index entries of one key in a leaf. */
static int64
verify_probe(VerifyLeaf *vl, Datum key)
{
	int64		n = 0;

	vl->skey.sk_argument = key;
	index_rescan(vl->scan, &vl->skey, 1, NULL, 0);
	while (index_getnext_slot(vl->scan, ForwardScanDirection, vl->slot))
		n++;
	return n;
}

/* count(*) of a leaf, without inheritance children (its index has none). */
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
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
									1, &isnull));
	catalog_finish(&scope);
	return n;
}

/* Close a leaf opened for probing. */
static void
verify_close_leaf(VerifyLeaf *vl)
{
	index_endscan(vl->scan);
	ExecDropSingleTupleTableSlot(vl->slot);
	index_close(vl->index, AccessShareLock);
	table_close(vl->heap, AccessShareLock);
}

/* Emit one leaf's result row. */
static void
verify_emit(ReturnSetInfo *rsinfo, const RouteLeaf *leaf, VerifyLeaf *vl)
{
	Datum		values[VERIFY_COLS];
	bool		nulls[VERIFY_COLS] = {false};
	int64		rows = verify_count_rows(leaf->relid);
	int64		present = vl->expected - vl->missing;
	int64		duplicated = vl->found - present;
	int64		extra = rows - vl->found;

	values[0] = ObjectIdGetDatum(leaf->relid);
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

/* Route and probe every key number 0 .. rows-1. */
static void
verify_scan_keys(Router *router, VerifyLeaf *leaves, const KeySpec *keys,
				 int64 rows)
{
	char		buf[VARHDRSZ + KEYS_MAX_LEN + 1];

	for (int64 seq = 0; seq < rows; seq++)
	{
		int			leaf;
		int64		n;

		if ((seq & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		SET_VARSIZE(buf, VARHDRSZ + keys_format(keys, seq, buf + VARHDRSZ));
		leaf = route_key(router, PointerGetDatum(buf));
		if (leaf < 0)
			continue;
		leaves[leaf].expected++;
		if (leaves[leaf].remote != NULL)
		{
			fdwprobe_add(leaves[leaf].remote, PointerGetDatum(buf));
			continue;
		}
		n = verify_probe(&leaves[leaf], PointerGetDatum(buf));
		leaves[leaf].found += n;
		if (n == 0)
			leaves[leaf].missing++;
	}
}

/* Verify key numbers 0 .. rows-1 of table relid: a result row per leaf. */
static void
verify_table(FunctionCallInfo fcinfo, Oid relid, int64 rows,
			 const KeySpec *keys)
{
	ReturnSetInfo *rsinfo;
	Router	   *router;
	VerifyLeaf *leaves;
	int			nleaves;

	guard_table(relid);
	verify_check_visible(relid);
	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	router = route_open(relid);
	nleaves = route_nleaves(router);
	leaves = palloc0(sizeof(VerifyLeaf) * nleaves);
	for (int i = 0; i < nleaves; i++)
	{
		if (route_leaf(router, i)->local)
			verify_open_leaf(&leaves[i], route_leaf(router, i)->relid);
		else
			leaves[i].remote = fdwprobe_open(route_leaf(router, i)->relid);
	}
	verify_scan_keys(router, leaves, keys, rows);
	for (int i = 0; i < nleaves; i++)
	{
		if (route_leaf(router, i)->local)
			verify_close_leaf(&leaves[i]);
		else
			fdwprobe_finish(leaves[i].remote, &leaves[i].found,
							&leaves[i].missing);
		verify_emit(rsinfo, route_leaf(router, i), &leaves[i]);
	}
	route_close(router);
}

PG_FUNCTION_INFO_V1(petagen_verify);
/* petagen.verify(table, rows, keys, prefix, zeropadding): a row per leaf. */
Datum
petagen_verify(PG_FUNCTION_ARGS)
{
	int64		rows = spec_count_arg(PG_GETARG_NUMERIC(1), "rows");
	KeySpec		keys;

	keys_init_spec(&keys, text_to_cstring(PG_GETARG_TEXT_PP(2)),
				   text_to_cstring(PG_GETARG_TEXT_PP(3)), PG_GETARG_INT32(4));
	verify_table(fcinfo, PG_GETARG_OID(0), rows, &keys);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(petagen_verify_job);
/* petagen.verify(job): the same for the key space of a load job. */
Datum
petagen_verify_job(PG_FUNCTION_ARGS)
{
	JobDef		def;

	job_read(PG_GETARG_INT64(0), &def, false);
	if (!OidIsValid(get_rel_namespace(def.relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the table of load job " INT64_FORMAT " was dropped",
						def.job),
				 errdetail("The job loaded the relation with OID %u, which no longer exists.",
						   def.relid),
				 errhint("To check another table against the same key space, call petagen.verify(table, rows, keys, prefix, zeropadding).")));
	verify_table(fcinfo, def.relid, def.rows, &def.spec.keys);
	return (Datum) 0;
}
