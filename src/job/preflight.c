/*-------------------------------------------------------------------------
 * preflight.c
 *		The preflight check of a load: petagen.check(), its findings in
 *		report order, the findings on settings, workers, the method and a
 *		leaf job's routing files, and the refusal of petagen.start() when
 *		it finds an error.
 *
 * Everything that can hurt a multi-day load and can be seen before it
 * starts is a finding here, one row each with a severity (error, warning, info),
 * the object it is about, what was found ("topic: ...") and what to do;
 * check() says what was found in at most CHECK_FINDING_MAX characters,
 * check_details() in full, with what to do (finding.c):
 *
 *	- method: with method => 'auto', the method it takes and why (method.c);
 *	- table: anything start() itself would refuse (shape, privileges,
 *	  partitions, no local leaf), caught in a subtransaction;
 *	- leaves: local and foreign leaves, this node's share of the rows, and
 *	  leaves the sample routes no key to (hash sub-partitions whose modulus
 *	  shares a factor with their parent's);
 *	- keys: whether the table already holds keys of this load, probed
 *	  with up to 65 key numbers (spread evenly, and the last) looked up in
 *	  their local leaves' btree indexes on ycsb_key (keyindex.c), only for
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
 *	- method => 'leaf': leaves not empty (named and counted only for a
 *	  role with SELECT on the table), the routing files' space and inodes
 *	  (one file per range of chunk_rows keys), whether
 *	  wal_level lets the leaves skip WAL, the time per leaf and what a crash
 *	  costs (one leaf per worker written again).
 *
 * The estimates (routing, leaves, relation size, index tablespace, space)
 * are in preflight_space.c and the keys in preflight_keys.c, both called
 * from here through preflight_int.h; a finding and the context of a check
 * run are in finding.c.  The refusals start() and resume() share (a table
 * that cannot be loaded, another job on it) are in refusals.c; the check
 * runs them too.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "commands/vacuum.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "compat.h"
#include "launch.h"
#include "job/method.h"
#include "job/options.h"
#include "job/preflight.h"
#include "job/preflight_int.h"
#include "job/refusals.h"

/* A max_wal_size below this (MB) is worth raising for a load that passes it. */
#define CHECK_GOOD_WAL_MB	16384

/* Error findings start() lists in its refusal. */
#define CHECK_DETAIL_ERRORS	3

/*
 * Rows per second one worker writes into a leaf, conservatively: one
 * chunk-mode worker wrote 137,740 rows/s on a quiet 2-core machine, and a
 * leaf worker is faster (docs/performance.md).
 */
#define CHECK_LEAF_ROWS_PER_SEC	150000.0

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

/*
 * Are there enough free background worker slots for the workers, now and
 * when the launcher resumes them after a crash?  The slot its per-database
 * worker holds meanwhile is not free for them.
 */
static void
check_workers(CheckCtx *ctx)
{
	int			reserved = launch_reserved_slots();
	int			free_slots = Max(launch_free_slots() - reserved, 0);
	int			nworkers = ctx->def->nworkers;
	const char *kept = reserved > 0 ?
		psprintf(", %d kept for auto-resume", reserved) : "";

	if (nworkers > free_slots)
		check_add(ctx, CHECK_ERROR, ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
				  "max_worker_processes",
				  psprintf("workers: %d workers, %d free background worker slots%s",
						   nworkers, free_slots, kept),
				  "Use fewer workers, or increase \"max_worker_processes\" and restart the server.",
				  "workers: %d workers need %d background worker slots, %d of max_worker_processes (%d) are free%s",
				  nworkers, nworkers, free_slots, max_worker_processes, kept);
	else
		check_add(ctx, CHECK_INFO, 0, "max_worker_processes",
				  psprintf("workers: %d workers, %d of %d background worker slots are free%s",
						   nworkers, free_slots, max_worker_processes, kept),
				  NULL,
				  "workers: %d workers, %d of max_worker_processes (%d) background worker slots are free%s",
				  nworkers, free_slots, max_worker_processes, kept);
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
	if (ctx->def->frozen || ctx->def->method->whole_leaves)
		return;					/* rows are written frozen: nothing owed */
	check_add(ctx, CHECK_WARNING, 0, ctx->table,
			  psprintf("freeze: about %s of heap left unfrozen for an anti-wraparound vacuum",
					   check_size(ctx->heap)),
			  psprintf("Load with frozen => true, or after the load run VACUUM (FREEZE) on each leaf at a time you choose, with vacuum_cost_delay = 0: a plain VACUUM leaves rows younger than vacuum_freeze_min_age (%d) unfrozen.",
					   vacuum_freeze_min_age),
			  "freeze: the load leaves about %s of heap with unfrozen rows; an anti-wraparound vacuum will read and write all of it once autovacuum_freeze_max_age (%d) transactions have passed",
			  check_size(ctx->heap), autovacuum_freeze_max_age);
}

/*
 * Transaction IDs the load uses on every node: one per chunk, or for a leaf
 * job one per local leaf (routing writes only files).
 */
static void
check_xids(CheckCtx *ctx)
{
	bool		leaf = ctx->def->method->whole_leaves;
	int64		xids = leaf ? ctx->nlocal : load_nchunks(ctx->def->rows, ctx->def->chunk_rows);
	char	   *per = leaf ? "one per local leaf" :
		psprintf("one per chunk of " INT64_FORMAT " keys", ctx->def->chunk_rows);

	if (xids + ctx->max_age > autovacuum_freeze_max_age)
		check_add(ctx, CHECK_WARNING, 0, ctx->table,
				  psprintf("xids: about " INT64_FORMAT " transaction IDs, past autovacuum_freeze_max_age",
						   xids),
				  leaf ? "VACUUM (FREEZE) the leaves before the load, or raise autovacuum_freeze_max_age for the load." :
				  "Use a larger chunk_rows (fewer, longer transactions), or raise autovacuum_freeze_max_age for the load.",
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

/*
 * A leaf job's routing files: their bytes against the data directory's
 * free space above the reserve, their number against its free inodes.
 */
static void
check_routing_files(CheckCtx *ctx)
{
	RoutingRoom r;
	CheckSeverity severity = CHECK_INFO;
	const char *hint = NULL;

	method_routing_room(ctx->def, ctx->nlocal, &r);
	if (!method_routing_fits(&r))
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
	check_add(ctx, severity, ERRCODE_DISK_FULL, "pg_petagen",
			  psprintf("leaf method: routing files of about %s in " INT64_FORMAT " files, %s free",
					   check_size(r.bytes), r.files, check_size(Max(r.room, 0))),
			  hint,
			  "leaf method: the routing files take about %s in " INT64_FORMAT " files (one per " INT64_FORMAT " keys) in the data directory until the job ends; %s are free above the disk reserve, %s",
			  check_size(r.bytes), r.files, ctx->def->chunk_rows,
			  check_size(Max(r.room, 0)),
			  r.inodes >= 0 ? psprintf(INT64_FORMAT " inodes", r.inodes) :
			  "inodes without limit");
}

/* A leaf job: empty leaves, routing files, WAL, time per leaf, crash cost. */
static void
check_leaf_method(CheckCtx *ctx)
{
	const LeafEstimate *largest = &ctx->leaves[ctx->largest];
	double		leaf_rows = largest->rows;

	check_leaves_nonempty(ctx);
	check_routing_files(ctx);
	check_add(ctx, CHECK_INFO, 0, "wal_level",
			  wal_level == WAL_LEVEL_MINIMAL ? NULL :
			  psprintf("leaf method: wal_level is %s: the leaves are written to WAL too",
					   check_setting("wal_level")),
			  wal_level == WAL_LEVEL_MINIMAL ? NULL :
			  "With wal_level = minimal (and max_wal_senders = 0) a leaf load writes no WAL for heaps and indexes: the files are synced at each leaf's commit.",
			  "leaf method: wal_level is %s, so the leaves' heaps and indexes %s",
			  check_setting("wal_level"),
			  wal_level == WAL_LEVEL_MINIMAL ? "write no WAL" : "are written to WAL as well");
	check_add(ctx, CHECK_INFO, 0, ctx->table,
			  psprintf("leaf method: the largest leaf is about %.0f rows, %.0f s for one worker",
					   leaf_rows, leaf_rows / CHECK_LEAF_ROWS_PER_SEC),
			  NULL,
			  "leaf method: the largest leaf is about %.0f rows (%s of heap), about %.0f s for one worker; a crash or stop rolls back up to %d leaves in flight, about %.0f rows written again",
			  leaf_rows, check_size(largest->heap),
			  leaf_rows / CHECK_LEAF_ROWS_PER_SEC,
			  Min(ctx->def->nworkers, ctx->nlocal),
			  leaf_rows * Min(ctx->def->nworkers, ctx->nlocal));
}

/* Which method method => 'auto' takes (method.c), and why. */
static void
check_method(CheckCtx *ctx)
{
	if (ctx->def->method_auto)
		check_add(ctx, CHECK_INFO, 0, ctx->table,
				  psprintf("method: auto takes the %s method (check_details() says why)",
						   ctx->def->method->name),
				  ctx->def->method->whole_leaves ? NULL :
				  "petagen.check(..., method => 'leaf') lists what stops the leaf method, which loads faster.",
				  "method: auto takes the %s method: %s",
				  ctx->def->method->name,
				  ctx->def->method_reason);
}

/* The findings of the preflight check of def's load, in report order. */
List *
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
		if (def->method->whole_leaves)
			check_leaf_method(&ctx);
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
				  CHECK_ARG_METHOD, &def);
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
