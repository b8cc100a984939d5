/*-------------------------------------------------------------------------
 * load.c
 *		Loading a range of key numbers in the current transaction (the chunk
 *		method and petagen.load()): the load, its per-leaf multi-insert
 *		writer, and the other columns filled as INSERT would.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "rewrite/prs2lock.h"
#include "rewrite/rewriteDefine.h"
#include "rewrite/rewriteHandler.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "gen/rowgen.h"
#include "guard.h"
#include "load/load.h"
#include "load/load_int.h"

/* The values INSERT would give a leaf's other columns (below). */
typedef struct RowDefaults RowDefaults;

static RowDefaults *defaults_init(Relation rel, const RowShape *shape,
								  EState *estate);
static void defaults_fill(RowDefaults *d, Datum *values, bool *nulls);
static Writer *writer_open(const Router *router, const GenSpec *spec,
						   bool frozen);


/*-------------------------------------------------------------------------
 *		Loading a range of key numbers into the local leaves of a table in
 *		the current transaction, and petagen.load(), its synchronous SQL
 *		face.
 *
 * For each key number in order: build the key, route it as PostgreSQL
 * would (route.c), skip it if its leaf is not a local table (or, when the
 * table is a partition, if the key belongs outside it: counted as foreign
 * too), else hand it to the writer (load.c), which builds the leaf's row
 * and multi-inserts it.  The same range gives the same rows on every node
 * and run.
 *
 * Locking: RowExclusiveLock on the table before the router locks its
 * leaves with AccessShareLock; the writer takes RowExclusiveLock on each
 * leaf it writes.  Locks are held until the transaction ends.
 *
 * petagen writes rows straight into the heap: it checks the INSERT
 * privilege and the leaves' CHECK constraints, but refuses tables where
 * rows would bypass something a plain INSERT enforces: row-level security
 * and triggers or rules on INSERT (including foreign key checks).
 *-------------------------------------------------------------------------
 */

/* Report progress at least every this many keys. */
#define LOAD_PROGRESS_KEYS	10000

/* Raise an error unless the current user may insert into the table. */
void
load_check_privilege(Oid relid)
{
	if (pg_class_aclcheck(relid, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errhint("Loading with petagen needs the INSERT privilege on the table.")));
}

/* The first enabled INSERT trigger of a relation, or NULL. */
static const Trigger *
load_insert_trigger(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
		if (td->triggers[i].tgenabled != TRIGGER_DISABLED &&
			TRIGGER_FOR_INSERT(td->triggers[i].tgtype))
			return &td->triggers[i];
	return NULL;
}

/* Does a relation have an enabled ON INSERT rule? */
static bool
load_has_insert_rule(Relation rel)
{
	RuleLock   *rules = rel->rd_rules;

	for (int i = 0; rules != NULL && i < rules->numLocks; i++)
		if (rules->rules[i]->event == CMD_INSERT &&
			rules->rules[i]->enabled != RULE_DISABLED)
			return true;
	return false;
}

/* Refuse a relation whose policies, triggers or rules petagen would skip. */
void
load_check_bypass(Relation rel)
{
	const Trigger *trig;

	if (check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load \"%s\": row-level security is enabled for it",
						RelationGetRelationName(rel)),
				 errdetail("petagen writes rows directly and would bypass its policies."),
				 errhint("Load as the table owner or a role with BYPASSRLS, or disable row-level security for the load.")));
	trig = load_insert_trigger(rel);
	if (trig != NULL && OidIsValid(trig->tgconstraint))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load \"%s\": constraint \"%s\" is checked by a trigger",
						RelationGetRelationName(rel),
						get_constraint_name(trig->tgconstraint)),
				 errdetail("petagen writes rows directly and would bypass the check."),
				 errhint("Drop the constraint for the load, or make it NOT DEFERRABLE if it is a deferrable unique constraint.")));
	if (trig != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load \"%s\": it has trigger \"%s\" on INSERT",
						RelationGetRelationName(rel), trig->tgname),
				 errdetail("petagen writes rows directly and would bypass triggers."),
				 errhint("Drop or disable the trigger for the load.")));
	if (load_has_insert_rule(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load \"%s\": it has a rule on INSERT",
						RelationGetRelationName(rel)),
				 errdetail("petagen writes rows directly and would bypass rules."),
				 errhint("Drop or disable the table's ON INSERT rules (listed in pg_rules) for the load.")));
}

/*
 * Check the table's shape against spec up to key number last, and its
 * policies, triggers and rules (not its leaves'); fill its shape.
 */
void
load_check_table(Oid relid, const GenSpec *spec, int64 last, RowShape *shape)
{
	Relation	rel = table_open(relid, NoLock);
	const char *name = RelationGetRelationName(rel);

	shape_from_tupdesc(RelationGetDescr(rel), name, shape);
	spec_check_shape(spec, shape, last, name);
	load_check_bypass(rel);
	table_close(rel, NoLock);
}

/*
 * Check every local leaf for its shape (a partition may lack a default or
 * identity its parent has), row-level security, triggers and rules.
 */
static void
load_check_leaves(const Router *router)
{
	for (int i = 0; i < route_nleaves(router); i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);
		Relation	rel;
		RowShape	shape;

		if (!leaf->local)
			continue;
		rel = table_open(leaf->relid, NoLock);	/* locked by route_open() */
		shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel),
						   &shape);
		load_check_bypass(rel);
		table_close(rel, NoLock);
	}
}

/*
 * Check everything a load of key numbers up to last into relid needs, and
 * lock it as INSERT does; returns its router, open, and fills its shape.
 */
static Router *
load_open_checked(Oid relid, const GenSpec *spec, int64 last, RowShape *shape)
{
	Router	   *router;

	load_check_privilege(relid);
	LockRelationOid(relid, RowExclusiveLock);
	load_check_table(relid, spec, last, shape);
	router = route_open(relid);
	route_check_citus_local(router, relid);
	load_check_leaves(router);
	return router;
}

/*
 * Raise an error unless the current role could load key numbers up to
 * last of spec into relid: privileges, shape, policies, triggers, rules,
 * leaves.  Writes nothing.
 */
void
load_check(Oid relid, const GenSpec *spec, int64 last)
{
	RowShape	shape;

	route_close(load_open_checked(relid, spec, last, &shape));
}

/* Raise PostgreSQL's error for a row that no partition accepts. */
void
load_no_partition(Oid relid, const KeySpec *keys, int64 seq)
{
	char		key[KEYS_MAX_LEN + 1];

	keys_format(keys, seq, key);
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("no partition of relation \"%s\" found for row",
					get_rel_name(relid)),
			 errdetail("Key number " INT64_FORMAT " has ycsb_key \"%s\".",
					   seq, key),
			 errhint("Create the missing partition, or load a range of keys it would not hold.")));
}

/* Route and write key numbers first .. first+count-1. */
static void
load_keys(Oid relid, Router *router, Writer *writer, RowGen *rg,
		  int64 first, int64 count, LoadStats *stats,
		  LoadProgressFn progress, void *progress_arg)
{
	int			since_progress = 0;

	for (int64 i = 0; i < count; i++)
	{
		int64		seq = first + i;
		bool		flushed = false;
		int			leaf;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		rowgen_build_key(rg, seq);
		leaf = route_key(router, rg->key);
		if (leaf == -1)
			load_no_partition(relid, &rg->spec.keys, seq);
		stats->keys++;
		if (leaf != ROUTE_ELSEWHERE && route_leaf(router, leaf)->local)
			flushed = writer_add(writer, leaf, seq, rg->key, stats);
		else
			stats->foreign++;
		if (++since_progress >= LOAD_PROGRESS_KEYS || flushed)
		{
			if (progress != NULL)
				progress(progress_arg, stats);
			since_progress = 0;
		}
	}
}

/*
 * Load key numbers first .. first+count-1 of spec into the local leaves of
 * table relid, in the current transaction, adding to *stats; frozen rows
 * only where the caller made that safe (frozen.c).
 */
void
load_range(Oid relid, const GenSpec *spec, bool frozen, int64 first,
		   int64 count, LoadStats *stats, LoadProgressFn progress,
		   void *progress_arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "petagen load",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	RowShape	shape;
	RowGen		rg;
	Router	   *router;
	Writer	   *writer;

	router = load_open_checked(relid, spec,
							   count > 0 ? first + (count - 1) : first, &shape);
	rowgen_init(&rg, &shape, spec);
	writer = writer_open(router, spec, frozen);

	load_keys(relid, router, writer, &rg, first, count, stats,
			  progress, progress_arg);
	writer_flush_all(writer, stats);
	if (progress != NULL)
		progress(progress_arg, stats);

	writer_close(writer);
	route_close(router);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}


/* Columns of petagen.load()'s result row. */
#define LOAD_RESULT_COLS 5

/* Put stats as the one result row of a materialized SRF. */
static void
load_return_stats(FunctionCallInfo fcinfo, const LoadStats *stats)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[LOAD_RESULT_COLS];
	bool		nulls[LOAD_RESULT_COLS] = {0};

	values[0] = Int64GetDatum(stats->keys);
	values[1] = Int64GetDatum(stats->rows);
	values[2] = Int64GetDatum(stats->bytes);
	values[3] = Int64GetDatum(stats->duplicates);
	values[4] = Int64GetDatum(stats->foreign);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(petagen_load);
/* petagen.load(table, first, count, keys, seed, fieldlength, prefix, zeropadding) */
Datum
petagen_load(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int64		first;
	int64		count;
	GenSpec		spec;
	LoadStats	stats = {0};

	guard_writable("petagen.load()");
	spec_range_args(fcinfo, "petagen.load()", false, &first, &count, &spec);
	relid = PG_GETARG_OID(RANGE_ARG_TABLE);
	guard_table(relid);
	keys_set_kind(&spec.keys, shape_key_kind(relid), get_rel_name(relid));

	InitMaterializedSRF(fcinfo, 0);
	load_range(relid, &spec, false, first, count, &stats, NULL, NULL);
	load_return_stats(fcinfo, &stats);
	return (Datum) 0;
}


/*-------------------------------------------------------------------------
 *		Per-leaf multi-insert buffers for the local leaves of one load:
 *		leaf rows are built, buffered, written with heap_multi_insert and
 *		indexed with ExecInsertIndexTuples, as COPY FROM does.
 *
 * A leaf is opened on its first row, with RowExclusiveLock, and gets an
 * EState and ResultRelInfo (InitResultRelInfo + ExecOpenIndices, like
 * copyfrom.c and the logical replication apply worker), a BulkInsertState,
 * its own RowGen for the leaf's own tuple descriptor (a leaf may order its
 * columns differently or have dropped columns), and up to
 * WRITER_MAX_ROWS heap-tuple slots.  A leaf's buffer is flushed when it
 * holds WRITER_MAX_ROWS rows or leaf_max_bytes bytes, and at the end.
 *
 * Memory: buffered tuples live in tuplecxt and are freed one by one when
 * their slot is cleared after a flush; heap_multi_insert's and the index
 * AMs' scratch memory is the leaf's per-tuple context, reset after every
 * step.  Nothing grows with the number of rows.
 *
 * A leaf's columns besides ycsb_key and the fields get what INSERT would
 * give them (load.c), evaluated per row in the leaf's per-tuple memory.
 *
 * Rows bypass triggers, row-level security and partition routing; the
 * caller (load.c) refuses leaves where that would matter.  A leaf's CHECK
 * constraints and the NOT NULL constraints of the columns INSERT fills
 * (load.c: the key and the fields are never NULL) are enforced, at one
 * ExecConstraints() per row, with INSERT's errors; a leaf that has neither
 * pays nothing.
 *
 * Duplicate keys (ycsb and go-ycsb modes only; the other modes are unique
 * by construction and pay nothing): before a row is buffered, its key is
 * looked up in the leaf's unique index on ycsb_key (leafload.c) with
 * SnapshotSelf (committed rows and this transaction's own), and in a small
 * hash set of the keys still waiting in the leaf's buffer; on a hit in the
 * set the buffer is flushed first so that the index lookup decides.  A
 * duplicate is counted and skipped.  A key inserted by another transaction
 * still in progress is not seen: the row is written and the unique index
 * waits for that transaction, then raises unique_violation if it
 * committed; the caller retries its chunk, and the aborted transaction
 * leaves nothing behind.  A leaf without such a unique index cannot tell
 * duplicates from new rows, so there every row is written and nothing is
 * counted.
 *
 * A direct writer (writer_open_direct, for a leaf load: leafload.c) writes
 * one leaf's rows, checked one by one as above, straight into heap pages
 * built in backend memory (leafload.c), frozen, without buffering them in
 * slots and without shared buffers, and leaves its indexes alone: the
 * caller builds them afterwards (its key index from the record of where
 * the rows went).  writer_flush_all() finishes its pages; no row may
 * follow.
 *
 * Frozen writers (frozen.c) insert with HEAP_INSERT_FROZEN |
 * HEAP_INSERT_SKIP_FSM and reset the leaf's cached insertion target block
 * when they open it, so rows only go to pages past the chunk's intent.
 *-------------------------------------------------------------------------
 */

/*
 * Flush a leaf's buffer at WRITER_MAX_ROWS rows (copyfrom.c's limit) or at
 * its byte limit: WRITER_TOTAL_BYTES shared by the leaves, between
 * copyfrom.c's 64 kB and 1 MB per leaf.  1 MB batches loaded 1M rows into
 * eight leaves ~15% faster than 64 kB ones; the total keeps tables with
 * thousands of leaves from buffering gigabytes.
 */
#define WRITER_MAX_ROWS		1000
#define WRITER_MIN_BYTES	65535
#define WRITER_MAX_BYTES	(1024 * 1024)
#define WRITER_TOTAL_BYTES	(16 * 1024 * 1024)
/* Slots of the pending-key hash set: a power of two, over 2 x MAX_ROWS. */
#define WRITER_PENDING_SIZE	2048

/* One local leaf being written. */
typedef struct WriterLeaf
{
	Relation	rel;
	EState	   *estate;
	ResultRelInfo *rri;
	BulkInsertState bistate;	/* NULL for a direct writer */
	LeafPages  *pages;			/* a direct writer's, until finished */
	RowShape	shape;
	RowGen		rg;
	RowDefaults *defaults;		/* its extra columns, or NULL */
	bool		check_constraints;	/* rows need ExecConstraints() */
	TupleTableSlot **slots;		/* WRITER_MAX_ROWS, created on first use */
	int			nslots;			/* slots created so far */
	int			nbuffered;		/* rows waiting in slots[0 .. nbuffered-1] */
	int			batched;		/* direct: rows written since the last batch */
	Size		bytes;			/* their heap tuple bytes */
	/* duplicate detection: ycsb/go-ycsb modes with a unique key index */
	KeyLookup  *probe;			/* on the unique index on ycsb_key */
	uint64	   *pending;		/* hash set of buffered keys' hashes */
} WriterLeaf;

struct Writer
{
	MemoryContext cxt;			/* the Writer and every leaf's state */
	MemoryContext tuplecxt;		/* buffered tuples */
	Oid		   *relids;			/* by leaf number */
	GenSpec		spec;
	bool		direct;			/* one leaf, through leafload.c, no indexes */
	LeafRowMap *map;			/* direct: where its rows went, or NULL */
	bool		check_dups;		/* ycsb or go-ycsb keys */
	int			insert_options; /* heap_multi_insert's options */
	CommandId	cid;
	Size		leaf_max_bytes; /* flush a leaf's buffer at this size */
	int			nleaves;
	WriterLeaf **leaves;		/* by route leaf number; NULL until used */
};

/* Set up a Writer for nleaves leaves (relids[]); no leaf is opened yet. */
static Writer *
writer_create(int nleaves, const Oid *relids, const GenSpec *spec,
			  bool frozen, bool direct)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "petagen writer",
											  ALLOCSET_DEFAULT_SIZES);
	Writer	   *w = MemoryContextAllocZero(cxt, sizeof(Writer));

	w->cxt = cxt;
	w->tuplecxt = AllocSetContextCreate(cxt, "petagen writer tuples",
										ALLOCSET_DEFAULT_SIZES);
	w->spec = *spec;
	w->direct = direct;
	w->check_dups = spec->keys.kind == KEYKIND_TEXT &&
		(spec->keys.mode == KEYS_YCSB || spec->keys.mode == KEYS_GO_YCSB);
	w->insert_options = frozen ? HEAP_INSERT_FROZEN | HEAP_INSERT_SKIP_FSM : 0;
	w->cid = GetCurrentCommandId(true);
	w->nleaves = nleaves;
	w->relids = MemoryContextAlloc(cxt, sizeof(Oid) * Max(nleaves, 1));
	memcpy(w->relids, relids, sizeof(Oid) * nleaves);
	w->leaf_max_bytes = WRITER_TOTAL_BYTES / Max(w->nleaves, 1);
	w->leaf_max_bytes = Max(w->leaf_max_bytes, WRITER_MIN_BYTES);
	w->leaf_max_bytes = Min(w->leaf_max_bytes, WRITER_MAX_BYTES);
	w->leaves = MemoryContextAllocZero(cxt,
									   sizeof(WriterLeaf *) * Max(w->nleaves, 1));
	return w;
}

/* Set up a Writer for the leaves of router; no leaf is opened yet. */
static Writer *
writer_open(const Router *router, const GenSpec *spec, bool frozen)
{
	int			n = route_nleaves(router);
	Oid		   *relids = palloc(sizeof(Oid) * Max(n, 1));
	Writer	   *w;

	for (int i = 0; i < n; i++)
		relids[i] = route_leaf(router, i)->relid;
	w = writer_create(n, relids, spec, frozen, false);
	pfree(relids);
	return w;
}

/*
 * Set up a direct Writer of frozen rows for one leaf (leaf number 0), with
 * new storage of this transaction, whose indexes the caller builds after
 * the rows: they are not maintained.  map, if given, records how many rows
 * each heap page holds (leafload.c).
 */
Writer *
writer_open_direct(Oid relid, const GenSpec *spec, LeafRowMap *map)
{
	Writer	   *w = writer_create(1, &relid, spec, true, true);

	w->map = map;
	return w;
}

/* The unique btree index on exactly ycsb_key of a leaf, or NULL. */
static Relation
writer_key_index(WriterLeaf *wl)
{
	for (int i = 0; i < wl->rri->ri_NumIndices; i++)
	{
		Relation	idx = wl->rri->ri_IndexRelationDescs[i];
		Form_pg_index ind = idx->rd_index;

		if (ind->indisunique && ind->indimmediate && ind->indnkeyatts == 1 &&
			keyindex_leads_with_key(idx, wl->shape.key_att))
			return idx;
	}
	return NULL;
}

/* Prepare the duplicate lookup of a leaf, if it has a unique key index. */
static void
writer_init_probe(WriterLeaf *wl)
{
	Relation	idx = writer_key_index(wl);

	if (idx == NULL)
		return;					/* duplicates cannot be detected: see banner */
	wl->probe = keyindex_begin(wl->rel, idx, SnapshotSelf);
	wl->pending = palloc0(sizeof(uint64) * WRITER_PENDING_SIZE);
}

/* Refuse indexes whose checks would be deferred to after-trigger events. */
static void
writer_check_indexes(WriterLeaf *wl)
{
	for (int i = 0; i < wl->rri->ri_NumIndices; i++)
	{
		Relation	idx = wl->rri->ri_IndexRelationDescs[i];

		if (!idx->rd_index->indimmediate)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("petagen cannot load \"%s\": index \"%s\" is deferrable",
							RelationGetRelationName(wl->rel),
							RelationGetRelationName(idx)),
					 errhint("Make the constraint NOT DEFERRABLE for the load.")));
	}
}

/*
 * Whether rows of a leaf whose shape is given need ExecConstraints(): the
 * leaf has CHECK constraints, or NOT NULL on a column INSERT fills.
 */
static bool
writer_needs_constraints(Relation rel, const RowShape *shape)
{
	TupleDesc	desc = RelationGetDescr(rel);

	if (desc->constr == NULL)
		return false;
	if (desc->constr->num_check > 0)
		return true;
	for (int i = 0; i < shape->nextra; i++)
		if (TupleDescAttr(desc, shape->extra_att[i])->attnotnull)
			return true;
	return false;
}

/* Open leaf number leaf for writing: relation, executor state, buffers. */
static WriterLeaf *
writer_open_leaf(Writer *w, int leaf)
{
	MemoryContext old = MemoryContextSwitchTo(w->cxt);
	WriterLeaf *wl = palloc0(sizeof(WriterLeaf));

	wl->rel = table_open(w->relids[leaf], RowExclusiveLock);
	if (w->insert_options & HEAP_INSERT_FROZEN)
		RelationSetTargetBlock(wl->rel, InvalidBlockNumber);
	shape_from_tupdesc(RelationGetDescr(wl->rel),
					   RelationGetRelationName(wl->rel), &wl->shape);
	wl->check_constraints = writer_needs_constraints(wl->rel, &wl->shape);
	rowgen_init(&wl->rg, &wl->shape, &w->spec);
	wl->estate = CreateExecutorState();
	wl->defaults = defaults_init(wl->rel, &wl->shape, wl->estate);
	wl->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(wl->rri, wl->rel, 0, NULL, 0);
	if (w->direct)
		wl->pages = leafpages_begin(wl->rel, w->map);
	else
	{
		ExecOpenIndices(wl->rri, false);
		wl->bistate = GetBulkInsertState();
	}
	writer_check_indexes(wl);
	wl->slots = palloc0(sizeof(TupleTableSlot *) * WRITER_MAX_ROWS);
	if (w->check_dups)
		writer_init_probe(wl);
	MemoryContextSwitchTo(old);
	return wl;
}

/* Insert the index entries of the first n slots of a leaf. */
static void
writer_insert_index_tuples(WriterLeaf *wl, int n)
{
	EState	   *estate = wl->estate;
	MemoryContext old = MemoryContextSwitchTo(GetPerTupleMemoryContext(estate));

	for (int i = 0; i < n; i++)
	{
		List	   *recheck = compat_insert_index_tuples(wl->rri, wl->slots[i],
														 estate);

		/* Deferrable indexes were refused in writer_open_leaf(). */
		if (recheck != NIL)
			elog(ERROR, "unexpected deferred index check");
		ResetPerTupleExprContext(estate);
	}
	MemoryContextSwitchTo(old);
}

/* Write a leaf's buffered rows to its heap and indexes; empty the buffer. */
static void
writer_flush_leaf(Writer *w, WriterLeaf *wl, LoadStats *stats)
{
	EState	   *estate = wl->estate;
	MemoryContext old;

	if (wl->nbuffered == 0)
		return;
	old = MemoryContextSwitchTo(GetPerTupleMemoryContext(estate));
	heap_multi_insert(wl->rel, wl->slots, wl->nbuffered, w->cid,
					  w->insert_options, wl->bistate);
	MemoryContextSwitchTo(old);
	ResetPerTupleExprContext(estate);
	if (wl->rri->ri_NumIndices > 0)
		writer_insert_index_tuples(wl, wl->nbuffered);
	for (int i = 0; i < wl->nbuffered; i++)
		ExecClearTuple(wl->slots[i]);
	stats->rows += wl->nbuffered;
	stats->bytes += wl->bytes;
	wl->nbuffered = 0;
	wl->bytes = 0;
	if (wl->pending != NULL)
		memset(wl->pending, 0, sizeof(uint64) * WRITER_PENDING_SIZE);
}

/* Add a key hash to the pending set; false if it was there already. */
static bool
writer_pending_add(WriterLeaf *wl, uint64 hash)
{
	uint32		mask = WRITER_PENDING_SIZE - 1;
	uint32		i = (uint32) hash & mask;

	hash |= 1;					/* 0 marks an empty entry */
	for (; wl->pending[i] != 0; i = (i + 1) & mask)
		if (wl->pending[i] == hash)
			return false;
	wl->pending[i] = hash;
	return true;
}

/*
 * Whether key is a duplicate of a row written or buffered before (ycsb and
 * go-ycsb modes with a unique key index only).  May flush the leaf.
 */
static bool
writer_is_duplicate(Writer *w, WriterLeaf *wl, Datum key, LoadStats *stats)
{
	uint64		hash;

	if (wl->probe == NULL)
		return false;
	/* only text keys (ycsb, go-ycsb) are checked */
	hash = hash_bytes_extended((const unsigned char *) VARDATA_ANY(DatumGetPointer(key)),
							   VARSIZE_ANY_EXHDR(DatumGetPointer(key)), 0);
	if (!writer_pending_add(wl, hash))
	{
		/* Maybe in the buffer: write it out and let the index decide. */
		writer_flush_leaf(w, wl, stats);
		writer_pending_add(wl, hash);
	}
	return keyindex_contains(wl->probe, key);
}

/* A leaf's next free slot, created on first use. */
static TupleTableSlot *
writer_next_slot(WriterLeaf *wl)
{
	if (wl->nbuffered == wl->nslots)
		wl->slots[wl->nslots++] =
			MakeSingleTupleTableSlot(RelationGetDescr(wl->rel),
									 &TTSOpsHeapTuple);
	return wl->slots[wl->nbuffered];
}

/*
 * Form row seq (key given) of a leaf, in the current memory context; the
 * values of its extra columns are the per-tuple context's.
 */
static HeapTuple
writer_form_row(WriterLeaf *wl, int64 seq, Datum key)
{
	rowgen_set_key(&wl->rg, key);
	rowgen_build_fields(&wl->rg, seq);
	defaults_fill(wl->defaults, wl->rg.values, wl->rg.nulls);
	return heap_form_tuple(RelationGetDescr(wl->rel), wl->rg.values,
						   wl->rg.nulls);
}

/*
 * Raise INSERT's error unless the row in slot meets the leaf's NOT NULL and
 * CHECK constraints; the caller resets the per-tuple context.
 */
static void
writer_check_row(WriterLeaf *wl, TupleTableSlot *slot)
{
	if (wl->check_constraints)
		ExecConstraints(wl->rri, slot, wl->estate);
}

/* Build row seq (key given) of a leaf into its next slot. */
static void
writer_buffer_row(Writer *w, WriterLeaf *wl, int64 seq, Datum key)
{
	TupleTableSlot *slot = writer_next_slot(wl);
	MemoryContext old = MemoryContextSwitchTo(w->tuplecxt);
	HeapTuple	tuple = writer_form_row(wl, seq, key);

	MemoryContextSwitchTo(old);
	/* The slot owns the tuple: heap_multi_insert then needs no copy. */
	ExecStoreHeapTuple(tuple, slot, true);
	writer_check_row(wl, slot);
	ResetPerTupleExprContext(wl->estate);
	wl->nbuffered++;
	wl->bytes += tuple->t_len;
}

/*
 * Build row seq (key given) of a direct writer's leaf, check it and write
 * it into the leaf's pages at once; every allocation is the per-tuple
 * context's, reset after the row.
 */
static void
writer_direct_row(WriterLeaf *wl, int64 seq, Datum key,
				  LoadStats *stats)
{
	TupleTableSlot *slot = writer_next_slot(wl);
	MemoryContext old = MemoryContextSwitchTo(GetPerTupleMemoryContext(wl->estate));
	HeapTuple	tuple = writer_form_row(wl, seq, key);

	ExecStoreHeapTuple(tuple, slot, false);
	writer_check_row(wl, slot);
	ExecClearTuple(slot);
	leafpages_add(wl->pages, tuple);
	stats->rows++;
	stats->bytes += tuple->t_len;
	wl->batched++;
	wl->bytes += tuple->t_len;
	MemoryContextSwitchTo(old);
	ResetPerTupleExprContext(wl->estate);
}

/*
 * Whether a direct writer's leaf has written as many rows or bytes since
 * its last batch as a buffered leaf flushes at once; starts the next batch
 * if so.  The caller's progress (and petagen.debug_pause mid_chunk) then
 * sees a direct writer at the cadence of a buffered one.
 */
static bool
writer_direct_batch_done(Writer *w, WriterLeaf *wl)
{
	if (wl->batched < WRITER_MAX_ROWS && wl->bytes < w->leaf_max_bytes)
		return false;
	wl->batched = 0;
	wl->bytes = 0;
	return true;
}

/*
 * Buffer row seq, whose key (keys_datum()) is given, for leaf
 * number leaf (a local one); a duplicate key is counted and skipped.
 * Returns true if a buffer was flushed (a direct writer: a batch written).
 */
bool
writer_add(Writer *w, int leaf, int64 seq, Datum key, LoadStats *stats)
{
	WriterLeaf *wl = w->leaves[leaf];
	int64		rows_before = stats->rows;

	if (wl == NULL)
		wl = w->leaves[leaf] = writer_open_leaf(w, leaf);
	if (w->direct)
	{
		writer_direct_row(wl, seq, key, stats);
		return writer_direct_batch_done(w, wl);
	}
	if (w->check_dups && writer_is_duplicate(w, wl, key, stats))
	{
		stats->duplicates++;
		return stats->rows != rows_before;
	}
	writer_buffer_row(w, wl, seq, key);
	if (wl->nbuffered >= WRITER_MAX_ROWS || wl->bytes >= w->leaf_max_bytes)
		writer_flush_leaf(w, wl, stats);
	return stats->rows != rows_before;
}

/* Write out every leaf's buffer; finish a direct writer's pages. */
void
writer_flush_all(Writer *w, LoadStats *stats)
{
	for (int i = 0; i < w->nleaves; i++)
	{
		WriterLeaf *wl = w->leaves[i];

		if (wl == NULL)
			continue;
		writer_flush_leaf(w, wl, stats);
		if (wl->pages != NULL)
			leafpages_finish(wl->pages);
		wl->pages = NULL;
	}
}

/* Release a leaf's resources; its lock is kept until transaction end. */
static void
writer_close_leaf(WriterLeaf *wl)
{
	for (int i = 0; i < wl->nslots; i++)
		ExecDropSingleTupleTableSlot(wl->slots[i]);
	if (wl->probe != NULL)
		keyindex_end(wl->probe);
	if (wl->bistate != NULL)
		FreeBulkInsertState(wl->bistate);
	ExecCloseIndices(wl->rri);
	FreeExecutorState(wl->estate);
	table_close(wl->rel, NoLock);
}

/* Release everything; unflushed rows are dropped (flush them first). */
void
writer_close(Writer *w)
{
	for (int i = 0; i < w->nleaves; i++)
		if (w->leaves[i] != NULL)
			writer_close_leaf(w->leaves[i]);
	MemoryContextDelete(w->cxt);
}


/*-------------------------------------------------------------------------
 *		Filling a leaf's other columns (shape.c's extra columns: neither
 *		ycsb_key nor a field) as INSERT would: each column's DEFAULT, an
 *		identity column's next value, a stored generated column's
 *		expression over the row; a column without any of them is NULL,
 *		coerced to the column's domain if it has one (which may refuse it).
 *
 * The expressions are build_column_default()'s, the ones the rewriter
 * puts into an INSERT's target list for a column it does not name (and
 * ExecInitStoredGenerated() computes generated columns from), prepared
 * once per leaf in the writer's EState and evaluated for every row in its
 * per-tuple memory: a volatile default such as now() or nextval() is
 * evaluated per row as INSERT does.  Defaults are computed first, then
 * the generated columns over the row so far (a generated column may refer
 * to the other columns, never to another generated one).  A virtual
 * generated column (PostgreSQL 18) is not stored and stays NULL.
 *
 * The caller forms the heap tuple from values[] and nulls[], checks it
 * against the leaf's NOT NULL and CHECK constraints (load.c) and then
 * resets the per-tuple memory.
 *-------------------------------------------------------------------------
 */

/* One extra column INSERT fills. */
typedef struct DefaultColumn
{
	int			att;			/* 0-based attribute index */
	ExprState  *expr;
} DefaultColumn;

struct RowDefaults
{
	EState	   *estate;
	int			ndefaults;		/* columns[0 .. ndefaults-1]: defaults */
	int			ncolumns;		/* then the stored generated columns */
	DefaultColumn *columns;
	TupleTableSlot *row;		/* the row so far, for generated columns */
};

/*
 * A NULL of column att's domain type, coerced to the domain, or NULL when
 * the column's type is no domain: what the planner puts into an INSERT for
 * a column without a default (expand_insert_targetlist()), so that the
 * domain's NOT NULL and CHECK constraints judge the NULL.
 */
static Expr *
defaults_domain_null(Form_pg_attribute attr)
{
	Oid			base_type;
	int32		base_typmod = attr->atttypmod;
	Node	   *null_const;

	base_type = getBaseTypeAndTypmod(attr->atttypid, &base_typmod);
	if (base_type == attr->atttypid)
		return NULL;
	null_const = (Node *) makeConst(base_type, base_typmod, attr->attcollation,
									attr->attlen, (Datum) 0, true,
									attr->attbyval);
	return (Expr *) coerce_to_domain(null_const, base_type, base_typmod,
									 attr->atttypid, COERCION_IMPLICIT,
									 COERCE_IMPLICIT_CAST, -1, false);
}

/*
 * Prepare column att's default (or generation) expression, or for a domain
 * column without one a NULL coerced to the domain; NULL if none of these.
 */
static ExprState *
defaults_prepare(Relation rel, int att, EState *estate)
{
	Expr	   *expr = (Expr *) build_column_default(rel, att + 1);

	if (expr == NULL)
		expr = defaults_domain_null(TupleDescAttr(RelationGetDescr(rel), att));
	return expr == NULL ? NULL : ExecPrepareExpr(expr, estate);
}

/* Add column att with expression expr to d, unless it has none. */
static void
defaults_add(RowDefaults *d, int att, ExprState *expr)
{
	if (expr == NULL)
		return;					/* no default: NULL, as INSERT leaves it */
	d->columns[d->ncolumns].att = att;
	d->columns[d->ncolumns].expr = expr;
	d->ncolumns++;
}

/*
 * Prepare the extra columns of leaf rel (shape is its own) in estate, in
 * the current memory context; NULL if it has none to fill.
 */
static RowDefaults *
defaults_init(Relation rel, const RowShape *shape, EState *estate)
{
	TupleDesc	desc = RelationGetDescr(rel);
	RowDefaults *d;
	bool		generated = false;

	if (shape->nextra == 0)
		return NULL;
	d = palloc0(sizeof(RowDefaults));
	d->estate = estate;
	d->columns = palloc(sizeof(DefaultColumn) * shape->nextra);
	for (int i = 0; i < shape->nextra; i++)
	{
		int			att = shape->extra_att[i];

		if (TupleDescAttr(desc, att)->attgenerated == '\0')
			defaults_add(d, att, defaults_prepare(rel, att, estate));
	}
	d->ndefaults = d->ncolumns;
	for (int i = 0; i < shape->nextra; i++)
	{
		int			att = shape->extra_att[i];

		if (TupleDescAttr(desc, att)->attgenerated == ATTRIBUTE_GENERATED_STORED)
		{
			defaults_add(d, att, defaults_prepare(rel, att, estate));
			generated = true;
		}
	}
	if (generated)
		/* a copy: a slot pins a refcounted descriptor until it is dropped */
		d->row = ExecInitExtraTupleSlot(estate, CreateTupleDescCopy(desc),
										&TTSOpsVirtual);
	return d;
}

/* Evaluate columns from .. to-1 of d into values[] and nulls[]. */
static void
defaults_eval(RowDefaults *d, int from, int to, Datum *values, bool *nulls)
{
	ExprContext *econtext = GetPerTupleExprContext(d->estate);

	for (int i = from; i < to; i++)
	{
		DefaultColumn *col = &d->columns[i];

		values[col->att] = ExecEvalExpr(col->expr, econtext, &nulls[col->att]);
	}
}

/*
 * Fill the extra columns of a row whose key and fields values[] and
 * nulls[] hold (the others NULL), in the per-tuple memory of d's EState.
 */
static void
defaults_fill(RowDefaults *d, Datum *values, bool *nulls)
{
	MemoryContext old;
	int			natts;

	if (d == NULL)
		return;
	old = MemoryContextSwitchTo(GetPerTupleMemoryContext(d->estate));
	defaults_eval(d, 0, d->ndefaults, values, nulls);
	if (d->row != NULL)
	{
		natts = d->row->tts_tupleDescriptor->natts;
		ExecClearTuple(d->row);
		memcpy(d->row->tts_values, values, sizeof(Datum) * natts);
		memcpy(d->row->tts_isnull, nulls, sizeof(bool) * natts);
		ExecStoreVirtualTuple(d->row);
		GetPerTupleExprContext(d->estate)->ecxt_scantuple = d->row;
		defaults_eval(d, d->ndefaults, d->ncolumns, values, nulls);
	}
	MemoryContextSwitchTo(old);
}
