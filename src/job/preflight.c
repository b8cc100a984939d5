/*-------------------------------------------------------------------------
 * preflight.c
 *		The preflight check of a load, in one file read from top to bottom:
 *		petagen.check() and the refusal of petagen.start(); the estimates
 *		of the space a load takes and where it lands; the probe of the key
 *		space and the leaves; how a finding is worded; and the refusals
 *		start() and resume() share.  Declared in preflight.h.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/stat.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/partition.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "commands/tablespace.h"
#include "commands/vacuum.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "storage/bufpage.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "compat.h"
#include "job/job.h"
#include "job/ledger.h"
#include "job/preflight.h"
#include "launch.h"
#include "load/load.h"
#include "route/route.h"

static List *check_run(const JobDef *def);
static void check_add(void *arg, CheckSeverity severity, int sqlstate,
					  const char *object, const char *summary,
					  const char *hint,
					  const char *fmt,...) pg_attribute_printf(7, 8);

/* The findings of the check, in report order (see below). */
static int64 check_sample_seq(const JobDef *def, int64 n, int64 i);
static void check_sample(CheckCtx *ctx);
static void check_leaves(CheckCtx *ctx);
static double check_wal_total(const CheckCtx *ctx);
static void check_spaces(CheckCtx *ctx);
static void check_probe(CheckCtx *ctx);
static void check_keys(CheckCtx *ctx);

/*
 * --------------------------------------------------------------------
 * The preflight check of a load: petagen.check(), its findings in
 * report order, the findings on settings, workers, the method and a
 * leaf job's routing files, and the refusal of petagen.start() when
 * it finds an error.
 *
 * Everything that can hurt a multi-day load and can be seen before it
 * starts is a finding here, one row each with a severity (error, warning, info),
 * the object it is about, what was found ("topic: ...") and what to do;
 * check() says what was found in at most CHECK_FINDING_MAX characters,
 * check_details() in full, with what to do (see below):
 *
 *	- method: with method => 'auto', the method it takes and why (options.c);
 *	- table: anything start() itself would refuse (shape, privileges,
 *	  partitions, no local leaf), caught in a subtransaction;
 *	- leaves: local and foreign leaves, this node's share of the rows, and
 *	  leaves the sample routes no key to (hash sub-partitions whose modulus
 *	  shares a factor with their parent's);
 *	- keys: whether the table already holds keys of this load, probed
 *	  with up to 65 key numbers (spread evenly, and the last) looked up in
 *	  their local leaves' btree indexes on ycsb_key (leafload.c), only for
 *	  a role with SELECT on the table or ycsb_key; leaves with rows and no
 *	  such index are a warning.  For a leaf job the keys found are told by
 *	  its error on leaves that hold rows, not as a second error;
 *	- routing: key numbers no partition accepts;
 *	- space: per filesystem, the estimated heap, index and WAL bytes of
 *	  this node's share against its free space minus the disk reserve;
 *	- index tablespace: an index of a local leaf not beside its heap;
 *	- relation size: a leaf growing past PostgreSQL's per-relation limit;
 *	- workers: free background worker slots;
 *	- autovacuum, freeze, xids, checkpoints, wal: settings that make such a
 *	  load or its aftermath slow;
 *	- the method's own findings, from its preflight() (load.h), which
 *	  adds them through check_add() as the rest: for method => 'leaf'
 *	  (src/load/methods.c) leaves not empty (named and counted only for a
 *	  role with SELECT on the table), the routing files' space and inodes
 *	  (one file per range of chunk_rows keys), whether
 *	  wal_level lets the leaves skip WAL, the time per leaf and what a crash
 *	  costs (one leaf per worker written again).
 *
 * The estimates (routing, leaves, relation size, index tablespace, space)
 * follow this part of the file, then the keys; then a finding and the
 * context of a check run.  The refusals start() and resume() share (a
 * table that cannot be loaded, another job on it) are the last part; the
 * check runs them too.
 * --------------------------------------------------------------------
 */

/* A max_wal_size below this (MB) is worth raising for a load that passes it. */
#define CHECK_GOOD_WAL_MB	16384

/* Error findings start() lists in its refusal. */
#define CHECK_DETAIL_ERRORS	3

/* Columns of petagen.check_details(); check() returns the first three. */
#define CHECK_DETAILS_COLS	5

static const char *const check_severity_names[] = {"info", "warning", "error"};

/* A setting as SHOW spells it. */
static const char *
check_setting(const char *name)
{
	return GetConfigOptionByName(name, NULL, false);
}

/* check_table_loadable() of the load of JobDef arg, for check_try(). */
static void
check_table_loadable_def(void *arg)
{
	const JobDef *def = arg;

	check_table_loadable(def->relid, &def->spec, job_last_seq(def));
}

/* Run what start() checks of the table; an error finding and false if it fails. */
static bool
check_table(CheckCtx *ctx)
{
	ErrorData  *edata = check_try(check_table_loadable_def, (void *) ctx->def);

	if (edata == NULL)
		return true;
	check_add(ctx, CHECK_ERROR, edata->sqlerrcode, ctx->table, NULL,
			  edata->hint ? edata->hint : edata->detail,
			  "table: %s", edata->message);
	return false;
}

/* Are there enough free background worker slots for the workers? */
static void
check_workers(CheckCtx *ctx)
{
	int			free_slots = Max(launch_free_slots(), 0);
	int			nworkers = ctx->def->nworkers;

	if (nworkers > free_slots)
		check_add(ctx, CHECK_ERROR, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
				  "max_worker_processes",
				  psprintf("workers: %d workers, %d free background worker slots",
						   nworkers, free_slots),
				  "Use fewer workers, or increase \"max_worker_processes\" and restart the server.",
				  "workers: %d workers need %d background worker slots, %d of max_worker_processes (%d) are free",
				  nworkers, nworkers, free_slots, max_worker_processes);
	else if (nworkers + launch_autoresume_slots() > free_slots)
		check_add(ctx, CHECK_WARNING, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
				  "max_worker_processes",
				  psprintf("workers: %d workers leave no slot to auto-resume them",
						   nworkers),
				  psprintf("Use fewer workers, or set \"max_worker_processes\" to at least %d and restart the server.",
						   max_worker_processes + nworkers + launch_autoresume_slots() - free_slots),
				  "workers: %d workers take %d of the %d free background worker slots; after a restart, auto-resume needs one more for the database's worker that resumes the job, or it fails",
				  nworkers, nworkers, free_slots);
	else
		check_add(ctx, CHECK_INFO, 0, "max_worker_processes",
				  psprintf("workers: %d workers, %d of %d background worker slots are free",
						   nworkers, free_slots, max_worker_processes),
				  NULL,
				  "workers: %d workers, %d of max_worker_processes (%d) background worker slots are free%s",
				  nworkers, free_slots, max_worker_processes,
				  launch_autoresume_slots() > 0 ?
				  ", enough for auto-resume after a restart too" : "");
}

/* Autovacuum during the load, and the freeze it owes after it. */
static void
check_autovacuum(CheckCtx *ctx)
{
	if (autovacuum_start_daemon && autovacuum_vac_ins_thresh >= 0 &&
		ctx->nautovacuum > 0)
		check_add(ctx, CHECK_WARNING, 0, ctx->table,
				  psprintf("autovacuum: on for %d of %d local leaves: it rescans them during the load",
						   ctx->nautovacuum, ctx->nlocal),
				  "For the load, ALTER TABLE ... SET (autovacuum_enabled = off) on each local leaf; after it, VACUUM (FREEZE, ANALYZE) them and ALTER TABLE ... RESET (autovacuum_enabled).",
				  "autovacuum: %d of %d local leaves have autovacuum enabled: insert-triggered vacuums will scan them again and again during the load",
				  ctx->nautovacuum, ctx->nlocal);
	if (ctx->def->frozen || ctx->def->method->new_storage)
		return;					/* rows are written frozen: nothing owed */
	check_add(ctx, CHECK_WARNING, 0, ctx->table,
			  psprintf("freeze: about %s of heap left unfrozen for an anti-wraparound vacuum",
					   check_size(ctx->heap)),
			  psprintf("Load with frozen => true, or after the load run VACUUM (FREEZE) on each leaf at a time you choose, with vacuum_cost_delay = 0: a plain VACUUM leaves rows younger than vacuum_freeze_min_age (%d) unfrozen.",
					   vacuum_freeze_min_age),
			  "freeze: the load leaves about %s of heap with unfrozen rows; an anti-wraparound vacuum will read and write all of it once autovacuum_freeze_max_age (%d) transactions have passed",
			  check_size(ctx->heap), autovacuum_freeze_max_age);
}

/* The load of ctx as its method judges it (LoadCheck); job holds its view. */
static void
check_method_view(CheckCtx *ctx, LoadJob *job, LoadCheck *check)
{
	method_load_job(ctx->def, job);
	memset(check, 0, sizeof(*check));
	check->job = job;
	check->chunk_rows_asked = true;
	check->reserve = job_reserve(ctx->def);
	check->may_read = check_may_read;
	check->size = check_size;
	check->add = check_add;
	check->arg = ctx;
	check->table = ctx->table;
	check->nworkers = ctx->def->nworkers;
	check->nlocal = ctx->nlocal;
	if (ctx->nlocal > 0)
	{
		check->largest_rows = ctx->leaves[ctx->largest].rows;
		check->largest_heap = ctx->leaves[ctx->largest].heap;
	}
	check->probed = ctx->probe.probed;
	check->present = ctx->probe.present;
}

/*
 * Transaction IDs the load uses on every node, as its method counts them:
 * one per chunk, or for a leaf job one per local leaf (routing writes only
 * files).
 */
static void
check_xids(CheckCtx *ctx)
{
	LoadJob		job;
	LoadCheck	check;
	char	   *per;
	const char *hint;
	int64		xids;

	check_method_view(ctx, &job, &check);
	xids = ctx->def->method->xids(&check, &per, &hint);
	if (xids + ctx->max_age > autovacuum_freeze_max_age)
		check_add(ctx, CHECK_WARNING, 0, ctx->table,
				  psprintf("xids: about " INT64_FORMAT " transaction IDs, past autovacuum_freeze_max_age",
						   xids),
				  hint,
				  "xids: the load uses about " INT64_FORMAT " transaction IDs (%s); with the leaves' age of %d that passes autovacuum_freeze_max_age (%d): anti-wraparound vacuums start on the leaves during the load",
				  xids, per, ctx->max_age, autovacuum_freeze_max_age);
	else
		check_add(ctx, CHECK_INFO, 0, ctx->table,
				  psprintf("xids: the load uses about " INT64_FORMAT " transaction IDs", xids),
				  NULL,
				  "xids: the load uses about " INT64_FORMAT " transaction IDs, %s",
				  xids, per);
}

/* Checkpoints during the load, and the WAL settings. */
static void
check_wal(CheckCtx *ctx)
{
	double		wal = check_wal_total(ctx);

	if (wal > (double) max_wal_size_mb * 1024 * 1024 &&
		max_wal_size_mb < CHECK_GOOD_WAL_MB)
		check_add(ctx, CHECK_WARNING, 0, "max_wal_size",
				  psprintf("checkpoints: about %s of WAL, max_wal_size %s: full page images again",
						   check_size(wal), check_setting("max_wal_size")),
				  "Raise max_wal_size for the load (ALTER SYSTEM SET max_wal_size = '64GB'; SELECT pg_reload_conf();), and checkpoint_timeout with it.",
				  "checkpoints: the load writes about %s of WAL and max_wal_size is %s: after every checkpoint each index page touched is written to WAL in full again",
				  check_size(wal), check_setting("max_wal_size"));
	check_add(ctx, CHECK_INFO, 0, "wal_level",
			  psprintf("wal: about %s of WAL; wal_level %s, full_page_writes %s",
					   check_size(wal), check_setting("wal_level"),
					   check_setting("full_page_writes")),
			  fullPageWrites ? NULL :
			  "full_page_writes = off is safe only on storage that cannot tear pages.",
			  "wal: the load writes about %s of WAL; wal_level is %s, full_page_writes %s, synchronous_commit %s (one commit per chunk)",
			  check_size(wal), check_setting("wal_level"),
			  check_setting("full_page_writes"), check_setting("synchronous_commit"));
}

/* The findings of def's method itself (a leaf job: empty leaves, routing files, ...). */
static void
check_method_preflight(CheckCtx *ctx)
{
	LoadJob		job;
	LoadCheck	check;

	check_method_view(ctx, &job, &check);
	ctx->def->method->preflight(&check);
}

/* Which method method => 'auto' takes (options.c), and why. */
static void
check_method(CheckCtx *ctx)
{
	if (ctx->def->method_auto)
		check_add(ctx, CHECK_INFO, 0, ctx->table,
				  psprintf("method: auto takes the %s method (check_details() says why)",
						   ctx->def->method->name),
				  ctx->def->method == load_methods[0] ? NULL :
				  psprintf("petagen.check(..., method => '%s') lists what stops the %s method, which loads faster.",
						   load_methods[0]->name, load_methods[0]->name),
				  "method: auto takes the %s method: %s",
				  ctx->def->method->name,
				  ctx->def->method_reason);
}

/* The findings of the preflight check of def's load, in report order. */
static List *
check_run(const JobDef *def)
{
	CheckCtx	ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.def = def;
	ctx.table = get_rel_name(def->relid);
	check_method(&ctx);
	if (check_table(&ctx))
	{
		ctx.router = route_open(def->relid);
		ctx.leaves = palloc0(sizeof(LeafEstimate) * route_nleaves(ctx.router));
		check_sample(&ctx);
		check_leaves(&ctx);
		check_probe(&ctx);
		check_keys(&ctx);
		check_spaces(&ctx);
		route_close(ctx.router);
		check_autovacuum(&ctx);
		check_xids(&ctx);
		check_wal(&ctx);
		if (def->method->preflight)
			check_method_preflight(&ctx);
	}
	check_workers(&ctx);
	return ctx.findings;
}

/* Raise an error naming the check's error findings for def, if any. */
void
check_refuse_errors(const JobDef *def)
{
	List	   *findings = check_run(def);
	CheckFinding *first = NULL;
	StringInfoData detail;
	int			nerrors = 0;
	ListCell   *lc;

	initStringInfo(&detail);
	foreach(lc, findings)
	{
		CheckFinding *f = lfirst(lc);

		if (f->severity != CHECK_ERROR)
			continue;
		if (first == NULL)
			first = f;
		if (nerrors++ < CHECK_DETAIL_ERRORS)
			appendStringInfo(&detail, "%s%s (%s).", detail.len ? " " : "",
							 f->detail, f->object);
	}
	if (first == NULL)
		return;
	if (nerrors > CHECK_DETAIL_ERRORS)
		appendStringInfo(&detail, " And %d more.", nerrors - CHECK_DETAIL_ERRORS);
	ereport(ERROR,
			(errcode(first->sqlstate),
			 errmsg("preflight check refuses the load of \"%s\": %s",
					get_rel_name(def->relid), first->detail),
			 errdetail_plural("%d finding is an error: %s",
							  "%d findings are errors: %s",
							  nerrors, nerrors, detail.data),
			 errhint("Run SELECT * FROM petagen.check(...) with the same arguments for the findings, or pass force => true.")));
}

/*
 * Return the findings of the load fcinfo's arguments describe: severity,
 * object and the short finding, then with details the finding in full and
 * the hint.
 */
static Datum
check_return(FunctionCallInfo fcinfo, bool details)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	JobDef		def;
	List	   *findings;
	ListCell   *lc;

	options_parse(fcinfo, details ? "petagen.check_details()" : "petagen.check()",
				  JOB_FUNC_CHECK, &def);
	findings = check_run(&def);
	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, findings)
	{
		CheckFinding *f = lfirst(lc);
		Datum		values[CHECK_DETAILS_COLS];
		bool		nulls[CHECK_DETAILS_COLS] = {0};

		values[0] = CStringGetTextDatum(check_severity_names[f->severity]);
		values[1] = CStringGetTextDatum(f->object);
		values[2] = CStringGetTextDatum(f->finding);
		if (details)
		{
			values[3] = CStringGetTextDatum(f->detail);
			values[4] = f->hint ? CStringGetTextDatum(f->hint) : (Datum) 0;
			nulls[4] = f->hint == NULL;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(petagen_check);
/* petagen.check(rows, workers, table, ...): the preflight findings of a load. */
Datum
petagen_check(PG_FUNCTION_ARGS)
{
	return check_return(fcinfo, false);
}

PG_FUNCTION_INFO_V1(petagen_check_details);
/* petagen.check_details(rows, ...): check()'s findings in full, with hints. */
Datum
petagen_check_details(PG_FUNCTION_ARGS)
{
	return check_return(fcinfo, true);
}

/*
 * --------------------------------------------------------------------
 * The estimates of the preflight check (preflight.c): how the load's
 * rows spread over the leaves, the bytes of their heaps, indexes and
 * WAL, and their findings: routing, leaves, relation size, index
 * tablespace, and space per filesystem.
 *
 * Estimates come from a sample of key numbers (10,000, or 100 per leaf up
 * to a million) spread evenly over the key space, routed as the load routes them (route.c), so every partitioning
 * strategy is estimated the same way.  Sizes follow the page layout: heap
 * tuple header, packed varlenas, line pointers and fillfactor per page;
 * btree leaf tuples filled to the index fillfactor for ascending keys and
 * ~70% for random ones; WAL about the heap plus index bytes, of which
 * pg_wal holds at most max_wal_size at a time.  TOAST is not modelled.
 *
 * A load's workers take the same estimates once as they begin
 * (check_unit_spaces()): per filesystem, what a key number of a chunk and
 * each local leaf written whole put there, so that before each unit they
 * wait for the room the next units need there above the disk reserve,
 * never more than check() says the load needs there.
 * --------------------------------------------------------------------
 */

/* Key numbers routed to estimate the leaves' shares: at least, per leaf, at most. */
#define CHECK_MIN_SAMPLES	10000
#define CHECK_LEAF_SAMPLES	100
#define CHECK_MAX_SAMPLES	1000000

/*
 * check_hash_share() of a partition under a range or list bound, and under
 * a DEFAULT partition.  A hash partition whose share would give the sample
 * fewer keys than CHECK_SHARE_MIN_SAMPLES is not judged.  A finding names
 * up to CHECK_SHARE_NAMES leaves.
 */
#define CHECK_SHARE_UNKNOWN		(-1.0)
#define CHECK_SHARE_DEFAULT		(-2.0)
#define CHECK_SHARE_MIN_SAMPLES	20
#define CHECK_SHARE_NAMES		10

/* Fill of btree leaf pages under random inserts (about ln 2). */
#define CHECK_RANDOM_FILL	0.70

/* Key number i of n spread evenly over the job's first .. first+rows-1. */
static int64
check_sample_seq(const JobDef *def, int64 n, int64 i)
{
	return def->first + (def->rows / n) * i + (def->rows % n) * i / n;
}

/* Route a sample of the key space: each leaf's rows and average key length. */
static void
check_sample(CheckCtx *ctx)
{
	int64		rows = ctx->def->rows;
	int64		n = Min(rows, Min(CHECK_MAX_SAMPLES,
								  Max(CHECK_MIN_SAMPLES,
									  (int64) CHECK_LEAF_SAMPLES * route_nleaves(ctx->router))));
	const KeySpec *keys = &ctx->def->spec.keys;
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	int64		unrouted = 0;
	int64		first_unrouted = -1;
	char		first_key[KEYS_MAX_LEN + 1];
	char		scratch[KEYS_MAX_LEN + 1];

	for (int64 i = 0; i < n; i++)
	{
		int64		seq = check_sample_seq(ctx->def, n, i);
		Datum		key = keys_datum(keys, seq, buf);
		const char *chars;
		int			len = keys_datum_chars(keys->kind, key, scratch, &chars);
		int			leaf;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		leaf = route_key(ctx->router, key);
		if (leaf == ROUTE_ELSEWHERE)
			continue;			/* another partition's key */
		if (leaf < 0)
		{
			if (unrouted++ == 0)
			{
				first_unrouted = seq;
				keys_format(keys, seq, first_key);
			}
			continue;
		}
		ctx->leaves[leaf].sampled++;
		ctx->leaves[leaf].keylen += len;
	}
	ctx->nsamples = n;
	for (int i = 0; i < route_nleaves(ctx->router); i++)
	{
		LeafEstimate *est = &ctx->leaves[i];

		if (est->sampled > 0)
			est->keylen /= est->sampled;
		est->rows = est->sampled * (double) rows / n;
	}
	if (unrouted > 0)
		check_add(ctx, CHECK_ERROR, ERRCODE_CHECK_VIOLATION, ctx->table,
				  psprintf("routing: no partition accepts about %.0f%% of the key space",
						   100.0 * unrouted / n),
				  "Create the missing partitions (or a DEFAULT partition), or load a key space the partitions cover.",
				  "routing: no partition accepts about %.0f%% of the key space, the first being key number " INT64_FORMAT " (\"%s\"): the load would fail there",
				  100.0 * unrouted / n, first_unrouted, first_key);
}

/* Bytes a text value of len bytes takes in a heap or index tuple. */
static double
check_varlena(double len)
{
	return len + (len <= VARATT_SHORT_MAX - VARHDRSZ_SHORT ? VARHDRSZ_SHORT : VARHDRSZ);
}

/* Bytes a key of est->keylen characters takes: its text, or its integer. */
static double
check_key_bytes(const RowShape *shape, const LeafEstimate *est)
{
	switch (shape->key_kind)
	{
		case KEYKIND_INT4:
			return sizeof(int32);
		case KEYKIND_INT8:
			return sizeof(int64);
		case KEYKIND_TEXT:
			break;
	}
	return check_varlena(est->keylen);
}

/* Estimated heap bytes of a leaf holding est->rows rows. */
static double
check_heap_bytes(Relation rel, const RowShape *shape, const LeafEstimate *est,
				 double fieldlength)
{
	double		data = check_key_bytes(shape, est) +
	shape->nfields * check_varlena(fieldlength);
	bool		dropped = shape->natts > shape->nfields + 1;
	Size		hoff = MAXALIGN(SizeofHeapTupleHeader +
								(dropped ? BITMAPLEN(shape->natts) : 0));
	double		item = MAXALIGN((Size) (hoff + data)) + sizeof(ItemIdData);
	double		room = BLCKSZ - SizeOfPageHeaderData -
	BLCKSZ * (100 - RelationGetFillFactor(rel, HEAP_DEFAULT_FILLFACTOR)) / 100;
	double		per_page = Min(floor(room / item), MaxHeapTuplesPerPage);

	if (per_page < 1)
		return est->rows * item * BLCKSZ / (BLCKSZ - SizeOfPageHeaderData);
	return ceil(est->rows / per_page) * BLCKSZ;
}

/* Do keys arrive in ascending order, so that btree pages fill up? */
static bool
check_keys_ascend(const GenSpec *spec, int64 last_seq)
{
	if (spec->keys.kind != KEYKIND_TEXT)
		return true;			/* the key numbers themselves */
	return spec->keys.mode == KEYS_ORDERED &&
		keys_max_len(&spec->keys, last_seq) ==
		spec->keys.prefixlen + spec->keys.zeropadding;
}

/* Estimated bytes of one index of a leaf holding est->rows rows. */
static double
check_index_bytes(Relation index, const RowShape *shape,
				  const LeafEstimate *est, const CheckCtx *ctx)
{
	Form_pg_index form = index->rd_index;
	double		width = sizeof(IndexTupleData);
	double		fill = CHECK_RANDOM_FILL;
	double		item;
	double		per_page;

	for (int i = 0; i < form->indnatts; i++)
	{
		AttrNumber	att = form->indkey.values[i];

		width += att == 0 || att - 1 == shape->key_att ?
			check_key_bytes(shape, est) :
			check_varlena(spec_mean_fieldlength(&ctx->def->spec));
	}
	item = MAXALIGN((Size) width) + sizeof(ItemIdData);
	if (index->rd_rel->relam == BTREE_AM_OID &&
		check_keys_ascend(&ctx->def->spec, job_last_seq(ctx->def)))
		fill = BTGetFillFactor(index) / 100.0;
	per_page = Max(1, floor((BLCKSZ - SizeOfPageHeaderData -
							 MAXALIGN(sizeof(BTPageOpaqueData))) * fill / item));
	return ceil(est->rows / per_page) * BLCKSZ;
}

/*
 * Add bytes to the filesystem holding path; name it after a tablespace.
 * Its number in ctx->spaces, or -1 when there are too many to count.
 */
static int
check_space_add(CheckCtx *ctx, const char *path, const char *name,
				double heap, double index, double wal)
{
	struct stat st;
	int			i;
	CheckSpace *space;
	ListCell   *lc;

	if (stat(path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat directory \"%s\": %m", path)));
	for (i = 0; i < ctx->nspaces; i++)
		if (ctx->spaces[i].dev == st.st_dev)
			break;
	space = &ctx->spaces[i];
	if (i == ctx->nspaces)
	{
		if (ctx->nspaces == DISK_MAX_TARGETS)
			return -1;
		ctx->nspaces++;
		memset(space, 0, sizeof(*space));
		space->dev = st.st_dev;
		strlcpy(space->path, path, MAXPGPATH);
	}
	space->heap += heap;
	space->index += index;
	space->wal += wal;
	foreach(lc, space->names)
	{
		if (strcmp(lfirst(lc), name) == 0)
			return i;
	}
	space->names = lappend(space->names, pstrdup(name));
	return i;
}

/* Add a leaf's bytes to the filesystem of tablespace spcoid, noting where. */
static void
check_space_add_tablespace(CheckCtx *ctx, LeafEstimate *est, Oid spcoid,
						   double heap, double index)
{
	char		path[MAXPGPATH];
	int			space;
	LeafLanding *landing;

	disk_tablespace_path(spcoid, path);
	space = check_space_add(ctx, path, get_tablespace_name(spcoid), heap,
							index, 0);
	if (space < 0)
		return;
	landing = palloc(sizeof(LeafLanding));
	landing->space = space;
	landing->bytes = heap + index;
	est->landing = lappend(est->landing, landing);
}

/* Warn about an index of a leaf that is not in its heap's tablespace. */
static void
check_index_tablespace(CheckCtx *ctx, const RouteLeaf *leaf, Oid indexid,
					   Oid spcoid)
{
	const char *heap_ts = get_tablespace_name(leaf->heap_tablespace);

	check_add(ctx, CHECK_WARNING, 0, get_rel_name(indexid),
			  psprintf("index tablespace: in \"%s\", its table in \"%s\"",
					   get_tablespace_name(spcoid), heap_ts),
			  psprintf("ALTER INDEX %s SET TABLESPACE %s; puts it beside its table (quick while the index is small).",
					   catalog_relation_name(indexid), quote_identifier(heap_ts)),
			  "index tablespace: index \"%s\" of \"%s\" is in tablespace \"%s\", its table in \"%s\"",
			  get_rel_name(indexid), get_rel_name(leaf->relid),
			  get_tablespace_name(spcoid), heap_ts);
}

/* Estimate the indexes of a local leaf; flag those away from its heap. */
static double
check_leaf_indexes(CheckCtx *ctx, Relation rel, const RouteLeaf *leaf,
				   const RowShape *shape, LeafEstimate *est)
{
	List	   *indexes = RelationGetIndexList(rel);
	double		total = 0;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
		Oid			spcoid = OidIsValid(index->rd_rel->reltablespace) ?
		index->rd_rel->reltablespace : MyDatabaseTableSpace;
		double		bytes = check_index_bytes(index, shape, est, ctx);

		check_space_add_tablespace(ctx, est, spcoid, 0, bytes);
		if (spcoid != leaf->heap_tablespace)
			check_index_tablespace(ctx, leaf, lfirst_oid(lc), spcoid);
		total += bytes;
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	return total;
}

/* Flag a leaf whose heap would pass, or come near, the relation size limit. */
static void
check_relation_size(CheckCtx *ctx, const RouteLeaf *leaf, double bytes)
{
	double		limit = (double) BLCKSZ * MaxBlockNumber;
	char	   *hint;

	if (bytes <= limit / 2)
		return;
	if (route_is_citus(ctx->router))
		hint = psprintf("Distribute the table into more shards (alter_distributed_table(%s, shard_count => ...) on the coordinator, or citus.shard_count before create_distributed_table()): about %.0f shards on this node would keep each under half the limit.",
						catalog_relation_literal(ctx->def->relid), ceil(ctx->heap / (limit / 2)) + 1);
	else
		hint = psprintf("Partition the table into more leaves: about %.0f leaves for this node's share would keep each under half the limit.",
						ceil(ctx->heap / (limit / 2)) + 1);
	if (bytes > limit)
		check_add(ctx, CHECK_ERROR, ERRCODE_PROGRAM_LIMIT_EXCEEDED,
				  get_rel_name(leaf->relid),
				  psprintf("relation size: about %s, past the limit of %s per relation",
						   check_size(bytes), check_size(limit)),
				  hint,
				  "relation size: leaf \"%s\" would grow to about %s, past PostgreSQL's limit of %s per relation",
				  get_rel_name(leaf->relid), check_size(bytes), check_size(limit));
	else
		check_add(ctx, CHECK_WARNING, 0, get_rel_name(leaf->relid),
				  psprintf("relation size: about %s, over half the limit of %s per relation",
						   check_size(bytes), check_size(limit)),
				  hint,
				  "relation size: leaf \"%s\" would grow to about %s, over half PostgreSQL's limit of %s per relation",
				  get_rel_name(leaf->relid), check_size(bytes), check_size(limit));
}

/*
 * The share of the key space PostgreSQL's hash partitioning routes to
 * partition relid: the product of 1/modulus of its bound and those of its
 * ancestors; CHECK_SHARE_UNKNOWN if one of them is a range or list bound,
 * CHECK_SHARE_DEFAULT if one is a DEFAULT partition (a catch-all).
 */
static double
check_hash_share(Oid relid)
{
	double		share = 1.0;

	while (get_rel_relispartition(relid))
	{
		HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		PartitionBoundSpec *bound;
		bool		isnull;
		Datum		datum;

		if (!HeapTupleIsValid(tuple))
			elog(ERROR, "cache lookup failed for relation %u", relid);
		datum = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_relpartbound,
								&isnull);
		bound = isnull ? NULL :
			castNode(PartitionBoundSpec, stringToNode(TextDatumGetCString(datum)));
		ReleaseSysCache(tuple);
		if (bound == NULL || bound->is_default)
			return CHECK_SHARE_DEFAULT;
		if (bound->strategy != PARTITION_STRATEGY_HASH)
			return CHECK_SHARE_UNKNOWN;
		share /= bound->modulus;
		relid = get_partition_parent(relid, true);
	}
	return share;
}

/* The first max of names, and how many more there are. */
static char *
check_names(List *names, int max)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
	{
		if (foreach_current_index(lc) == max)
		{
			appendStringInfo(&buf, " and %d more", list_length(names) - max);
			break;
		}
		appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", (char *) lfirst(lc));
	}
	return buf.data;
}

/*
 * Warn, naming them, about leaves the sample routes no key to: a classic is
 * hash sub-partitions on ycsb_key whose modulus shares a factor with their
 * parent's, which get the keys of only some remainders (hash 4 under hash 4
 * fills 4 of 16 leaves).  Not for Citus shards (even hash ranges), DEFAULT
 * partitions (catch-alls), nor hash partitions whose share is too small for
 * the sample to tell.
 */
static void
check_shares(CheckCtx *ctx)
{
	int			nleaves = route_nleaves(ctx->router);
	List	   *none = NIL;

	if (route_is_citus(ctx->router))
		return;
	for (int i = 0; i < nleaves; i++)
	{
		Oid			relid = route_leaf(ctx->router, i)->relid;
		double		share = check_hash_share(relid);

		if (share == CHECK_SHARE_DEFAULT ||
			(share > 0 && share * ctx->nsamples < CHECK_SHARE_MIN_SAMPLES))
			continue;
		if (ctx->leaves[i].sampled == 0)
			none = lappend(none, get_rel_name(relid));
	}
	if (none == NIL)
		return;
	check_add(ctx, CHECK_WARNING, 0, ctx->table,
			  psprintf("leaves: %d of %d get no keys: %s", list_length(none),
					   nleaves, check_names(none, 2)),
			  "Hash sub-partitions on ycsb_key whose modulus shares a factor with their parent's get only the keys of some remainders: give them a modulus with no factor in common (hash 3 under hash 4), or partition the parent into more partitions instead; a range or list partition gets no keys when the key space lies outside its bounds.",
			  "leaves: %d of the %d leaves get none of the " INT64_FORMAT " key numbers sampled evenly from the key space, and stay empty: %s",
			  list_length(none), nleaves, ctx->nsamples,
			  check_names(none, CHECK_SHARE_NAMES));
}

/* Estimate each local leaf; note its autovacuum and freeze state. */
static void
check_leaves(CheckCtx *ctx)
{
	int			nleaves = route_nleaves(ctx->router);

	ctx->largest = -1;
	for (int i = 0; i < nleaves; i++)
	{
		const RouteLeaf *leaf = route_leaf(ctx->router, i);
		LeafEstimate *est = &ctx->leaves[i];
		Relation	rel;
		RowShape	shape;
		StdRdOptions *options;

		if (!leaf->local)
			continue;
		if (ctx->largest < 0 || est->rows > ctx->leaves[ctx->largest].rows)
			ctx->largest = i;
		rel = table_open(leaf->relid, NoLock);	/* locked by route_open() */
		shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel),
						   &shape);
		est->heap = check_heap_bytes(rel, &shape, est,
									 spec_mean_fieldlength(&ctx->def->spec));
		check_space_add_tablespace(ctx, est, leaf->heap_tablespace, est->heap, 0);
		est->index = check_leaf_indexes(ctx, rel, leaf, &shape, est);
		ctx->nlocal++;
		ctx->local_rows += est->rows;
		ctx->heap += est->heap;
		ctx->index += est->index;
		options = (StdRdOptions *) rel->rd_options;
		if (options == NULL || options->autovacuum.enabled)
			ctx->nautovacuum++;
		if (TransactionIdIsNormal(rel->rd_rel->relfrozenxid))
			ctx->max_age = Max(ctx->max_age,
							   (int32) (ReadNextTransactionId() - rel->rd_rel->relfrozenxid));
		table_close(rel, NoLock);
	}
	check_add(ctx, CHECK_INFO, 0, ctx->table,
			  psprintf("leaves: %d local and %d foreign; this node writes about %.1f%% of the rows",
					   ctx->nlocal, nleaves - ctx->nlocal,
					   100.0 * ctx->local_rows / ctx->def->rows),
			  nleaves > ctx->nlocal ?
			  "Run the same petagen.start() on the nodes that store the foreign leaves." : NULL,
			  "leaves: %d local and %d foreign; this node writes about %.0f of the " INT64_FORMAT " rows (%.1f%%)",
			  ctx->nlocal, nleaves - ctx->nlocal, ctx->local_rows,
			  ctx->def->rows, 100.0 * ctx->local_rows / ctx->def->rows);
	check_shares(ctx);
	for (int i = 0; i < nleaves; i++)
		if (route_leaf(ctx->router, i)->local)
			check_relation_size(ctx, route_leaf(ctx->router, i),
								ctx->leaves[i].heap);
}

/* The bytes of WAL the load writes in all. */
static double
check_wal_total(const CheckCtx *ctx)
{
	/*
	 * new storage in the loading transaction: WAL only with wal_level >
	 * minimal
	 */
	if (ctx->def->method->new_storage && wal_level == WAL_LEVEL_MINIMAL)
		return 0;
	return ctx->heap + ctx->index;
}

/* Sort tablespace names. */
static int
check_name_cmp(const ListCell *a, const ListCell *b)
{
	return strcmp(lfirst(a), lfirst(b));
}

/* Add the WAL pg_wal holds at a time to its filesystem; that one's number. */
static int
check_space_add_wal(CheckCtx *ctx)
{
	char		wal_path[MAXPGPATH];

	snprintf(wal_path, MAXPGPATH, "%s/pg_wal", DataDir);
	return check_space_add(ctx, wal_path, "pg_wal", 0, 0,
						   Min(check_wal_total(ctx),
							   (double) max_wal_size_mb * 1024 * 1024));
}

/* One finding per filesystem: the estimate against free space and reserve. */
static void
check_spaces(CheckCtx *ctx)
{
	int64		reserve = job_reserve(ctx->def);

	check_space_add_wal(ctx);
	for (int i = 0; i < ctx->nspaces; i++)
	{
		CheckSpace *space = &ctx->spaces[i];
		double		need = space->heap + space->index + space->wal;
		double		room = (double) disk_free(space->path) - reserve;
		StringInfoData names;
		ListCell   *lc;
		CheckSeverity severity = CHECK_INFO;
		const char *hint = NULL;

		initStringInfo(&names);
		list_sort(space->names, check_name_cmp);
		foreach(lc, space->names)
			appendStringInfo(&names, "%s%s", names.len ? ", " : "",
							 (char *) lfirst(lc));
		if (need > room)
		{
			severity = CHECK_ERROR;
			hint = "Free space there, move leaves with their indexes to larger tablespaces (ALTER TABLE ... SET TABLESPACE, ALTER INDEX ... SET TABLESPACE), lower the disk reserve, or load fewer rows. "
				CHECK_RESERVE_RECIPE;
		}
		else if (need > room * CHECK_MARGIN)
		{
			severity = CHECK_WARNING;
			hint = "Less than 10% would be left above the reserve: free space or spread the leaves over more tablespaces before a long load.";
		}
		check_add(ctx, severity, ERRCODE_DISK_FULL, names.data,
				  psprintf("space: about %s needed on this filesystem, %s free, reserve %s",
						   check_size(need), check_size(disk_free(space->path)),
						   check_size(reserve)),
				  hint,
				  "space: this node's share needs about %s on this filesystem (heap %s, indexes %s, WAL %s); %s are free and the disk reserve keeps %s",
				  check_size(need), check_size(space->heap),
				  check_size(space->index), check_size(space->wal),
				  check_size(disk_free(space->path)), check_size(reserve));
	}
}

/* What a pause's reason calls a filesystem: tablespace "a" and pg_wal. */
static void
check_space_label(const CheckSpace *space, char *label, size_t len)
{
	StringInfoData buf;
	int			ntablespaces = 0;
	bool		wal = false;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, space->names)
	{
		if (strcmp(lfirst(lc), "pg_wal") == 0)
			wal = true;
		else
			appendStringInfo(&buf, "%s\"%s\"", ntablespaces++ ? ", " : "",
							 (char *) lfirst(lc));
	}
	if (ntablespaces == 0)
		strlcpy(label, "pg_wal", len);
	else
		snprintf(label, len, "%s %s%s",
				 ntablespaces == 1 ? "tablespace" : "tablespaces", buf.data,
				 wal ? " and pg_wal" : "");
}

/*
 * For a load's worker: the filesystems the load writes, with what a key
 * number and each local leaf written whole put on each (heap, indexes and
 * WAL) and the load's total there, all as check() estimates them (its
 * findings are not kept).  The leaves are allocated in cxt.
 */
void
check_unit_spaces(const JobDef *def, UnitSpaces *spaces, MemoryContext cxt)
{
	CheckCtx	ctx;
	int			wal;
	bool		logged;

	memset(&ctx, 0, sizeof(ctx));
	ctx.def = def;
	ctx.table = get_rel_name(def->relid);
	ctx.router = route_open(def->relid);
	ctx.leaves = palloc0(sizeof(LeafEstimate) * route_nleaves(ctx.router));
	check_sample(&ctx);
	check_leaves(&ctx);
	wal = check_space_add_wal(&ctx);
	logged = check_wal_total(&ctx) > 0;
	spaces->n = ctx.nspaces;
	for (int s = 0; s < ctx.nspaces; s++)
	{
		const CheckSpace *cs = &ctx.spaces[s];

		strlcpy(spaces->space[s].path, cs->path, MAXPGPATH);
		check_space_label(cs, spaces->space[s].label, UNIT_SPACE_LABEL_LEN);
		spaces->space[s].per_key = 0;
		spaces->space[s].total = cs->heap + cs->index + cs->wal;
	}
	spaces->nleaves = 0;
	spaces->leaf = MemoryContextAlloc(cxt, sizeof(Oid) * Max(ctx.nlocal, 1));
	spaces->leaf_bytes = MemoryContextAllocZero(cxt, sizeof(double) *
												Max(ctx.nlocal, 1) * Max(ctx.nspaces, 1));
	for (int i = 0; i < route_nleaves(ctx.router); i++)
	{
		const LeafEstimate *est = &ctx.leaves[i];
		double	   *bytes = &spaces->leaf_bytes[spaces->nleaves * ctx.nspaces];
		ListCell   *lc;

		if (!route_leaf(ctx.router, i)->local)
			continue;
		spaces->leaf[spaces->nleaves++] = route_leaf(ctx.router, i)->relid;
		foreach(lc, est->landing)
		{
			const LeafLanding *landing = lfirst(lc);

			bytes[landing->space] += landing->bytes;
		}
		if (logged && wal >= 0)
			bytes[wal] += est->heap + est->index;
		for (int s = 0; s < ctx.nspaces; s++)
			spaces->space[s].per_key += bytes[s] / Max(def->rows, 1);
	}
	route_close(ctx.router);
}

/*
 * The bytes a unit writes on filesystem s of spaces: leaf written whole,
 * or (leaf invalid) keys key numbers routed over the local leaves.
 */
double
check_unit_bytes(const UnitSpaces *spaces, int s, Oid leaf, int64 keys)
{
	if (!OidIsValid(leaf))
		return keys * spaces->space[s].per_key;
	for (int i = 0; i < spaces->nleaves; i++)
		if (spaces->leaf[i] == leaf)
			return spaces->leaf_bytes[i * spaces->n + s];
	return 0;
}

/*
 * --------------------------------------------------------------------
 * The key findings of the preflight check (preflight.c): whether the
 * table already holds keys of this load, and for a leaf job whether
 * its leaves hold rows at all.
 *
 * The probe looks up to 65 key numbers (spread evenly, and the last) up in
 * their local leaves' btree indexes on ycsb_key (leafload.c), only for a
 * role with SELECT on the table or ycsb_key; leaves with rows and no such
 * index are a warning.  For a leaf job the keys found are told by its
 * error on leaves that hold rows (named and counted only for a role that
 * may read the table), not as a second error.
 * --------------------------------------------------------------------
 */

/* Key numbers looked up in the table, spread over the key space (and the last). */
#define CHECK_PROBE_KEYS	64

/* A local leaf the probe looks keys up in; opened on its first key. */
typedef struct ProbeLeaf
{
	bool		opened;
	Relation	heap;
	Relation	index;			/* a btree index leading with ycsb_key, or
								 * NULL */
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
	else if (load_has_rows(pl->heap, GetActiveSnapshot()) &&
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
static void
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
 * The findings of the probe.  The keys found present by a method that
 * writes only into empty leaves are told by its preflight() (the leaf
 * method's error on leaves with rows, of any kind).
 */
static void
check_keys(CheckCtx *ctx)
{
	KeyProbe   *probe = &ctx->probe;
	bool		leaf = ctx->def->method->empty_leaves;

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
 * --------------------------------------------------------------------
 * A finding of the preflight check (preflight.c): adding one to a
 * check run, and the byte counts findings and hints spell.
 *
 * A finding is one row of petagen.check(): a severity, the object it is
 * about, what was found ("topic: ...") and what to do; for an error, the
 * errcode start() raises when it refuses on it.  What was found is said
 * twice: in full (the detail petagen.check_details() shows and start()'s
 * refusal quotes), and in at most CHECK_FINDING_MAX characters for
 * petagen.check(), which a psql screen shows without wrapping.  Everything
 * is allocated in the caller's memory context.
 * --------------------------------------------------------------------
 */

/*
 * The finding check() shows for detail: detail itself when it is short
 * enough, else summary; either cut to CHECK_FINDING_MAX characters ending
 * in "..." if it is longer (a name or an error message can be).
 */
static char *
check_short(const char *detail, const char *summary)
{
	const char *text = detail;
	int			len = strlen(detail);

	if (pg_mbstrlen_with_len(detail, len) > CHECK_FINDING_MAX && summary)
	{
		text = summary;

		len = strlen(summary);
	}
	if (pg_mbstrlen_with_len(text, len) <= CHECK_FINDING_MAX)
		return pstrdup(text);
	return psprintf("%.*s...",
					pg_mbcharcliplen(text, len, CHECK_FINDING_MAX - 3), text);
}

/*
 * Add a finding to CheckCtx arg (a load method's too: LoadCheck's add):
 * fmt (printf-style) says it in full, summary (or NULL) in at most
 * CHECK_FINDING_MAX characters; object and hint are kept as given.
 */
static void
check_add(void *arg, CheckSeverity severity, int sqlstate,
		  const char *object, const char *summary, const char *hint,
		  const char *fmt,...)
{
	CheckCtx   *ctx = arg;
	CheckFinding *f = palloc(sizeof(CheckFinding));
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	f->severity = severity;
	f->sqlstate = sqlstate;
	f->object = pstrdup(object);
	f->detail = buf.data;
	f->finding = check_short(buf.data, summary);
	f->hint = hint ? pstrdup(hint) : NULL;
	ctx->findings = lappend(ctx->findings, f);
}

/* A byte count as pg_size_pretty() spells it. */
char *
check_size(double bytes)
{
	int64		b = bytes >= (double) PG_INT64_MAX ? PG_INT64_MAX : (int64) bytes;

	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum(b))));
}

/*
 * --------------------------------------------------------------------
 * The refusals petagen.start() and petagen.resume() share: a table
 * the current role cannot load with a job, and another job on the
 * same partition tree.  start()'s refusal when the preflight check
 * finds an error is in preflight.c.
 *
 * Each refusal is an ERROR raised here; petagen.check() runs the same
 * checks through check_try(), which turns the error into a finding.
 * Starts and resumes on one partition tree take turns from
 * check_no_other_job() to their commit, on a lock of the tree's root.
 * --------------------------------------------------------------------
 */

/*
 * Raise an error unless the current role can load the table with a job
 * whose last key number is last_seq.
 */
void
check_table_loadable(Oid relid, const GenSpec *spec, int64 last_seq)
{
	Router	   *router;
	int			nlocal = 0;

	load_check_privilege(relid);
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("petagen cannot load temporary table \"%s\" with a job",
						get_rel_name(relid)),
				 errdetail("Background workers cannot access the temporary tables of other sessions."),
				 errhint("Use petagen.load() in this session, or load a permanent or unlogged table.")));
	router = route_open(relid);
	route_check_citus_local(router, relid);
	for (int i = 0; i < route_nleaves(router); i++)
		nlocal += route_leaf(router, i)->local ? 1 : 0;
	route_close(router);
	if (nlocal == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" has no local leaf on this node", get_rel_name(relid)),
				 get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE ?
				 errdetail("It is a foreign table.") :
				 errdetail("All of its partitions are foreign tables."),
				 errhint("Run petagen.start() on the nodes that store the rows.")));
	load_check(relid, spec, last_seq);
}

/*
 * Take turns with the other start() and resume() calls on relid's partition
 * tree, from here to commit: an object lock on the tree's root (not the
 * table's own lock, which the load does not need), so that an open
 * transaction that started a job holds up only the starts that could
 * conflict with it, and not the row writes of workers and stop().
 */
static void
check_lock_tree(Oid relid)
{
	List	   *ancestors = get_partition_ancestors(relid);
	Oid			root = ancestors == NIL ? relid : llast_oid(ancestors);

	LockDatabaseObject(RelationRelationId, root, 0, ExclusiveLock);
}

/*
 * Raise an error if another job the catalog says is running (live or
 * interrupted) loads relid or a table that shares partitions with it: both
 * would write the same leaves, and a frozen job's repair could delete the
 * other's rows.  Starts and resumes on one partition tree take turns from
 * here to commit.
 */
void
check_no_other_job(Oid relid, int64 except_job)
{
	int64		other;
	Oid			other_rel;

	check_lock_tree(relid);
	if (!ledger_running_conflict(relid, except_job, &other, &other_rel))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("\"%s\" already has load job " INT64_FORMAT,
					get_rel_name(relid), other),
			 other_rel == relid ?
			 errdetail("One table takes one load job at a time.") :
			 errdetail("Load job " INT64_FORMAT " loads \"%s\", which shares partitions with \"%s\".",
					   other, get_rel_name(other_rel), get_rel_name(relid)),
			 errhint("Wait for it with petagen.wait(" INT64_FORMAT "), or stop it with petagen.stop(" INT64_FORMAT ").",
					 other, other)));
}

/*
 * Run fn(arg) in a subtransaction: NULL if it succeeds, else its error,
 * the subtransaction rolled back.  What fn allocates is in the caller's
 * memory context, and the locks it takes stay.
 */
ErrorData *
check_try(void (*fn) (void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return edata;
}

/*
 * May the current role see which leaves of relid hold rows?  A role with
 * SELECT on the table, or on a column of it, can count them through it.
 */
bool
check_may_read(Oid relid)
{
	Oid			userid = GetUserId();

	return pg_class_aclcheck(relid, userid, ACL_SELECT) == ACLCHECK_OK ||
		pg_attribute_aclcheck_all(relid, userid, ACL_SELECT,
								  ACLMASK_ANY) == ACLCHECK_OK;
}
