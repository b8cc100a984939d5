/*-------------------------------------------------------------------------
 * load.c
 *		Loading a range of key numbers into the local leaves of a table in
 *		the current transaction, and petagen.load(), its synchronous SQL
 *		face.
 *
 * For each key number in order: build the key, route it as PostgreSQL
 * would (route.c), skip it if its leaf is not a local table (or, when the
 * table is a partition, if the key belongs outside it: counted as foreign
 * too), else hand it to the writer (writer.c), which builds the leaf's row
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
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "rewrite/prs2lock.h"
#include "rewrite/rewriteDefine.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "compat.h"
#include "guard.h"
#include "load/load.h"
#include "gen/rowgen.h"
#include "load/writer.h"

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
