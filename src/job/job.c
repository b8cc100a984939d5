/*-------------------------------------------------------------------------
 * job.c
 *		The SQL API of load jobs, in one file read from top to bottom:
 *		petagen.start(), resume(), stop(), wait() and forget(), then
 *		petagen.alter(), which shares their privilege checks.
 *
 * What they call lies further down the data path: the arguments and the
 * choice of the method (options.c), the preflight and the refusals start()
 * and resume() share (preflight.c), the catalog rows (ledger.c) and the
 * run's live state and its launch at commit (live.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "common/int128.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "catalog.h"
#include "compat.h"
#include "guard.h"
#include "job/job.h"
#include "job/ledger.h"
#include "job/live.h"
#include "job/preflight.h"
#include "launch.h"
#include "load/load.h"
#include "petagen.h"

static void job_check_operator(void);
static void job_check_owner(const JobDef *def, const char *funcname);

/*
 * --------------------------------------------------------------------
 * The SQL API of load jobs: petagen.start(), resume(), stop(),
 * wait() and forget().
 *
 * start() validates everything a worker would trip over (privileges, the
 * table's shape and local leaves, options, worker slots), resolves
 * method => 'auto' (options.c, said in a NOTICE), records the job
 * in petagen.jobs and creates the run's shared state, all in the caller's
 * transaction: if anything fails, no job row
 * is left.  The workers are registered only when that transaction commits
 * (live.c): an open transaction holds no worker slot.  The
 * workers run as the job's owner, the role that called start(), also when
 * a superuser or a member of the owner calls resume(): nobody gets workers
 * with more privileges than the owner's.  stop(), resume(), wait() and
 * forget() need the owner's privileges, as does alter() (below), which
 * shares the privilege checks.  Only petagen writes petagen.jobs
 * (ledger.c), so started_by can be trusted.  resume() refuses, unless
 * force => true, a job whose table (or partition tree) another job
 * committed chunks into since the job's own last chunk: that job may have
 * written the keys still to load.
 *
 * forget() removes a job none of whose workers is left (done, failed,
 * stopped or interrupted): its row and every catalog row naming it, the
 * rows an interrupted frozen chunk left in the table, and its files
 * (job_remove_files() says when); not while indexes it set aside are
 * unbuilt (their only record is the job's).  It locks the job's row
 * first, so a concurrent resume() either commits first (forget() then
 * finds a live run and refuses) or finds no row to update and fails.
 * --------------------------------------------------------------------
 */

/* Raise an error unless the current role may run load jobs. */
static void
job_check_operator(void)
{
	Oid			operator = get_role_oid("petagen_operator", true);

	if (!superuser() &&
		!(OidIsValid(operator) && has_privs_of_role(GetUserId(), operator)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to run petagen load jobs"),
				 errhint("Only superusers and members of role \"petagen_operator\" may start, stop, resume or alter jobs.")));
}

/*
 * Raise an error unless the current role may act on def's job: superusers
 * and members (with privileges) of the role that owns it.
 */
static void
job_check_owner(const JobDef *def, const char *funcname)
{
	if (!has_privs_of_role(GetUserId(), def->owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for load job " INT64_FORMAT, def->job),
				 errdetail("Load job " INT64_FORMAT " belongs to role \"%s\".", def->job,
						   GetUserNameFromId(def->owner, false)),
				 errhint("Only superusers and roles with the privileges of role \"%s\" may call %s on it.",
						 GetUserNameFromId(def->owner, false), funcname)));
}

/* Raise an error if the role that owns def's job was dropped. */
static void
job_check_owner_exists(const JobDef *def)
{
	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(def->owner)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("the owner of load job " INT64_FORMAT " no longer exists",
						def->job),
				 errdetail("Its workers would run as the role with OID %u, which was dropped.",
						   def->owner),
				 errhint("Start a new job with petagen.start(): its workers run as you.")));
}

/* Raise an error if the table def's job loads was dropped. */
static void
job_check_table_exists(const JobDef *def)
{
	if (!OidIsValid(get_rel_namespace(def->relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the table of load job " INT64_FORMAT " was dropped",
						def->job),
				 errdetail("The job loaded the relation with OID %u, which no longer exists.",
						   def->relid),
				 errhint("Forget the job with petagen.forget(" INT64_FORMAT "), and start a new one with petagen.start().",
						 def->job)));
}

/* The units of def's ledger: chunks of key numbers, or a leaf job's local leaves. */
static int64
job_units(const JobDef *def)
{
	LoadJob		job;

	method_load_job(def, &job);
	return def->method->plan_units(&job);
}

/* Start a run of def: shared state, the handle in the catalog, the workers at commit. */
static void
job_launch(const JobDef *def)
{
	dsm_segment *seg = pending_create_segment(live_size(def->nworkers));
	WorkerArgs	args;

	live_init(seg, def, job_units(def));
	StaticAssertStmt(sizeof(WorkerArgs) <= BGW_EXTRALEN, "WorkerArgs too large");
	args.job = def->job;
	args.run = def->run;
	args.index = 0;
	args.database = MyDatabaseId;
	args.role = def->owner;
	args.starter_xid = GetTopTransactionId();
	args.handle = dsm_segment_handle(seg);
	args.replacing = false;
	args.redo = -1;
	ledger_set_handle(def->job, args.handle);
	pending_launch(seg, &args, def->nworkers);
}

/*
 * Let every method remove the leftovers no job can use any more (the leaf
 * method: routing files, records of leaves in flight of dropped
 * databases); after check_no_other_job(), so that no start() or resume()
 * commits meanwhile.
 */
static void
job_sweep_methods(void)
{
	int			ntokens;
	int64	   *tokens = ledger_resumable_tokens(&ntokens);

	for (int i = 0; load_methods[i] != NULL; i++)
		if (load_methods[i]->sweep)
			load_methods[i]->sweep(tokens, ntokens);
	pfree(tokens);
}

PG_FUNCTION_INFO_V1(petagen_start);
/* petagen.start(rows, workers, table, keys, ..., force): start a load job. */
Datum
petagen_start(PG_FUNCTION_ARGS)
{
	JobDef		def;

	guard_writable("petagen.start()");
	job_check_operator();
	launch_check_login(GetUserId(), "petagen.start()");
	options_parse(fcinfo, "petagen.start()", JOB_FUNC_START, &def);
	check_table_loadable(def.relid, &def.spec, job_last_seq(&def));
	launch_check_workers(def.nworkers);
	if (!PG_GETARG_BOOL(options_position(JOB_FUNC_START, JS_force)))
		check_refuse_errors(&def);
	check_no_other_job(def.relid, 0);
	job_sweep_methods();
	def.owner = GetUserId();
	/* a method that keeps files outside relations keeps them under a token */
	def.route_token = def.method->new_token ? def.method->new_token() : 0;
	ledger_insert_job(&def);
	citus_shards_record(def.job, def.relid);
	if (def.indexes_after)
		indexes_set_aside(def.job, def.relid);
	job_launch(&def);
	if (def.method_auto)
		ereport(NOTICE,
				(errmsg("load job " INT64_FORMAT " uses the %s method: %s",
						def.job, def.method->name,
						def.method_reason)));
	PG_RETURN_INT64(def.job);
}

/*
 * Raise an error if the ledger of a job whose units are leaves names, at
 * some leaf number, a leaf that is not the table's leaf of that number
 * now: resume() would skip a leaf that was never written.
 */
static void
job_check_leaves_unchanged(const JobDef *def)
{
	int			nlocal;
	Oid		   *leaves = def->method->unit_leaves(def->relid, &nlocal);
	Oid			was = InvalidOid;
	int64		moved = ledger_moved_leaf(def->job, leaves, nlocal, &was);

	if (moved >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the leaves of table \"%s\" changed since load job " INT64_FORMAT " wrote some of them",
						get_rel_name(def->relid), def->job),
				 errdetail("Leaf number " INT64_FORMAT " was \"%s\"; it is now %s.",
						   moved, get_rel_name(was) ? get_rel_name(was) : "a dropped table",
						   moved < nlocal ? psprintf("\"%s\"", get_rel_name(leaves[moved])) : "gone"),
				 errhint("Start a new job for the table as it is now.")));
	pfree(leaves);
}

/*
 * resume()'s checks of the table, made as the job's owner: whoever calls
 * resume(), the workers run as the owner, with its privileges only.
 */
static void
job_check_resumable(const JobDef *def)
{
	Oid			save_userid;
	int			save_sec_context;

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(def->owner,
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	options_check_method(def);
	check_table_loadable(def->relid, &def->spec, job_last_seq(def));
	if (def->method->unit_leaves)
		job_check_leaves_unchanged(def);
	SetUserIdAndSecContext(save_userid, save_sec_context);
}

/* Raise an error if def's job has a live worker. */
static void
job_check_no_live_run(const JobDef *def)
{
	if (strcmp(def->state, "running") == 0 && live_is_running(def))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("load job " INT64_FORMAT " is still running", def->job),
				 errhint("Stop it with petagen.stop(" INT64_FORMAT ") first.", def->job)));
}

/* Raise an error unless def's job can be resumed now. */
static void
job_check_not_running(const JobDef *def)
{
	if (strcmp(def->state, "done") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " is already done", def->job),
				 errhint("To load the table again, empty it and start a new job with petagen.start().")));
	job_check_no_live_run(def);
}

/*
 * Let def's method clean what a crash left (a leaf job: the files of the
 * leaves it interrupted, leafload.c): resume() and forget() run when
 * no worker of the job is left.  Units are counted from the ledger, not
 * the table, which may be gone.
 */
static void
job_recover(const JobDef *def)
{
	int64		nunits;
	uint8	   *done;
	LoadJob		job;

	if (def->method->recover == NULL)
		return;
	nunits = ledger_chunk_bound(def->job);
	done = palloc0(nunits / 8 + 1);
	ledger_done_chunks(def->job, nunits, done);
	method_load_job(def, &job);
	def->method->recover(&job, done, nunits);
	pfree(done);
}

/* Let def's method remove what only the job's runs used (routing files). */
static void
job_finish(const JobDef *def)
{
	LoadJob		job;

	if (def->method->finish == NULL)
		return;
	method_load_job(def, &job);
	def->method->finish(&job);
}

/*
 * Let def's method repair what no worker will now that the job is
 * forgotten (a frozen chunk job: the rows of its interrupted chunks).
 */
static void
job_forget_method(const JobDef *def)
{
	LoadJob		job;

	if (def->method->forget == NULL)
		return;
	method_load_job(def, &job);
	def->method->forget(&job);
}

/*
 * resume()'s force argument: false from the 0.1 declaration, which has
 * none; NULL is an error.
 */
static bool
job_resume_force(FunctionCallInfo fcinfo)
{
	if (catalog_version() == CATALOG_V0_1)
		return false;
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"force\" of petagen.resume() must not be null")));
	return PG_GETARG_BOOL(2);
}

/*
 * Raise an error if another job on def's table (or its partition tree)
 * committed chunks since def's job last did: it may have written keys
 * def's job has yet to load, which resuming would write again.  After
 * check_no_other_job(), so that no other job writes meanwhile.
 */
static void
job_check_not_overwritten(const JobDef *def)
{
	Oid			other_rel = InvalidOid;
	int64		other = ledger_written_since(def->relid, def->job, &other_rel);

	if (other == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("load job " INT64_FORMAT " wrote into \"%s\" since load job " INT64_FORMAT " last did",
					other, get_rel_name(def->relid), def->job),
			 errdetail("Load job " INT64_FORMAT " loaded \"%s\" after the last chunk of load job " INT64_FORMAT ": it may have written keys that load job " INT64_FORMAT " has yet to load, and resuming would write them again.",
					   other, get_rel_name(other_rel), def->job, def->job),
			 errhint("If load job " INT64_FORMAT " loaded other keys, pass force => true. Otherwise check the table with petagen.verify(" INT64_FORMAT ") instead of resuming, or start a new job for the table as it is now.",
					 other, other)));
}

PG_FUNCTION_INFO_V1(petagen_resume);
/* petagen.resume(job, workers, force): load the chunks a job has not finished. */
Datum
petagen_resume(PG_FUNCTION_ARGS)
{
	JobDef		def;
	bool		force;

	guard_writable("petagen.resume()");
	job_check_operator();
	options_check_job_arg(fcinfo, "petagen.resume()");
	force = job_resume_force(fcinfo);
	job_read(PG_GETARG_INT64(0), &def, false);
	job_check_owner(&def, "petagen.resume()");
	job_check_owner_exists(&def);
	launch_check_login(def.owner, "petagen.resume()");
	job_check_not_running(&def);
	if (!PG_ARGISNULL(1))
		def.nworkers = PG_GETARG_INT32(1);
	job_recover(&def);
	job_check_table_exists(&def);
	job_check_resumable(&def);
	launch_check_workers(def.nworkers);
	check_no_other_job(def.relid, def.job);
	if (!force)
		job_check_not_overwritten(&def);
	job_sweep_methods();
	def.run++;
	/* the launcher's resumes count against petagen.auto_retry, a person's not */
	ledger_resume_run(&def, !autoresume_in_worker());
	job_launch(&def);
	PG_RETURN_INT64(def.job);
}

/* Raise an error if this transaction started or resumed the job. */
static void
job_check_not_ours(const JobDef *def)
{
	if (def->ours)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " was started in this transaction",
						def->job),
				 errdetail("Its workers begin when this transaction commits, so waiting here would never end."),
				 errhint("Commit, then call petagen.wait(" INT64_FORMAT ").", def->job)));
}

/*
 * Has job's catalog row left "running"?  Its last worker may have
 * committed the end and detached the run's segment between a read of the
 * row and the look at the segment, which then shows no run.
 */
static bool
job_ended_since(int64 job)
{
	JobDef		def;

	job_read(job, &def, false);
	return strcmp(def.state, "running") != 0;
}

/*
 * Wait until first's job has ended, or timeout_us microseconds passed (-1:
 * forever).  A run has ended when the catalog says so, or when no worker is
 * left to say so (interrupted): the last worker commits the end to the
 * catalog before its slot shows it, so a final state returned here is
 * already in petagen.jobs (but an interrupted run, which stays "running"
 * there; a run that looks interrupted is checked against the catalog
 * once more, job_ended_since()).
 */
static JobState
job_wait_final(const JobDef *first, int64 timeout_us)
{
	TimestampTz start = GetCurrentTimestamp();

	job_check_not_ours(first);

	for (;;)
	{
		JobDef		def;
		JobState	state;

		job_read(first->job, &def, false);
		state = job_current_state(&def);
		if (state == JOB_INTERRUPTED && job_ended_since(first->job))
			continue;
		if (state == JOB_INTERRUPTED ||
			(job_state_final(state) && strcmp(def.state, "running") != 0) ||
			(timeout_us >= 0 && GetCurrentTimestamp() - start >= timeout_us))
			return state;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100L, compat_wait_event("PetagenJobWait"));
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * wait()'s timeout argument in microseconds; -1 (forever) when NULL or
 * longer than a TimestampTz can count (about 292,000 years, and 'infinity'
 * on PostgreSQL 17 and later).  A month counts as 30 days, as interval
 * comparison counts it; the sum is taken in 128 bits, so no interval
 * overflows it.
 */
static int64
job_timeout_us(FunctionCallInfo fcinfo)
{
	Interval   *timeout;
	INT128		span;

	if (PG_ARGISNULL(1))
		return -1;
	timeout = PG_GETARG_INTERVAL_P(1);
	span = int64_to_int128(timeout->time);
	int128_add_int64_mul_int64(&span,
							   (int64) timeout->month * DAYS_PER_MONTH + timeout->day,
							   USECS_PER_DAY);
	if (int128_compare(span, int64_to_int128(0)) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timeout must not be negative")));
	if (int128_compare(span, int64_to_int128(PG_INT64_MAX)) > 0)
		return -1;
	return int128_to_int64(span);
}

PG_FUNCTION_INFO_V1(petagen_wait);
/* petagen.wait(job, timeout): wait for a job to end; returns its state. */
Datum
petagen_wait(PG_FUNCTION_ARGS)
{
	int64		timeout_us;
	JobDef		def;

	options_check_job_arg(fcinfo, "petagen.wait()");
	timeout_us = job_timeout_us(fcinfo);
	job_read(PG_GETARG_INT64(0), &def, false);
	job_check_owner(&def, "petagen.wait()");
	PG_RETURN_TEXT_P(cstring_to_text(job_state_name(job_wait_final(&def, timeout_us))));
}

PG_FUNCTION_INFO_V1(petagen_stop);
/* petagen.stop(job): ask a job's workers to stop, wait for them; returns the state. */
Datum
petagen_stop(PG_FUNCTION_ARGS)
{
	JobDef		def;
	dsm_segment *seg;
	JobShared  *shared;
	JobState	state;

	guard_writable("petagen.stop()");
	job_check_operator();
	options_check_job_arg(fcinfo, "petagen.stop()");
	job_read(PG_GETARG_INT64(0), &def, false);
	job_check_owner(&def, "petagen.stop()");
	shared = job_attach(&def, &seg);
	if (shared != NULL)
	{
		pg_atomic_write_u32(&shared->stop_requested, 1);
		dsm_detach(seg);
	}
	state = job_wait_final(&def, 60 * USECS_PER_SEC);
	if (state == JOB_INTERRUPTED)
	{
		/* no worker is left to say so: record it here, remove its files */
		ledger_mark_stopped(def.job);
		job_finish(&def);
		state = JOB_STOPPED;
	}
	PG_RETURN_TEXT_P(cstring_to_text(job_state_name(state)));
}

/*
 * Raise an error if def's job set indexes of its table aside and has not
 * built them again: petagen.job_indexes, which goes with the job, is the
 * only record of them.
 */
static void
job_check_indexes_built(const JobDef *def)
{
	int64		unbuilt;

	if (!def->indexes_after || get_rel_name(def->relid) == NULL)
		return;
	unbuilt = indexes_unbuilt(def->job);
	if (unbuilt > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " has not built the indexes it set aside",
						def->job),
				 errdetail("Table \"%s\" lacks " INT64_FORMAT " of its indexes; petagen.job_indexes holds how to build them, and would go with the job.",
						   get_rel_name(def->relid), unbuilt),
				 errhint("Resume it with petagen.resume(" INT64_FORMAT ") to finish the load and build them, or drop the table, then forget the job.",
						 def->job)));
}

/* Raise an error unless def's job can be forgotten: no worker now or at commit. */
static void
job_check_forgettable(const JobDef *def)
{
	if (def->ours && strcmp(def->state, "running") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("load job " INT64_FORMAT " was started in this transaction",
						def->job),
				 errdetail("Its workers begin when this transaction commits."),
				 errhint("Roll back to drop it, or commit, stop it with petagen.stop(" INT64_FORMAT ") and forget it then.",
						 def->job)));
	job_check_no_live_run(def);
	job_check_indexes_built(def);
}

/*
 * Remove the files petagen keeps for def's job outside relations, before
 * the job's row goes (a leaf job's): the records of its leaves in flight,
 * dropping the files a crash left that no relation uses (as resume() does:
 * nobody else would), and its routing files.  The files a crash left go
 * when this transaction commits, with their records (leafload.c: the
 * commit record drops them on standbys too); the routing files go now:
 * they are used by no relation and by no other job, so a rollback costs
 * only routing again (resume() starts over from the ledger).
 */
static void
job_remove_files(const JobDef *def)
{
	job_recover(def);
	job_finish(def);
}

/*
 * The arguments that give petagen.bench() def's key space, as it reads
 * it from the newest load job of a table.
 */
static char *
job_key_space_args(const JobDef *def)
{
	const KeySpec *keys = &def->spec.keys;
	char	   *spelling = "";

	if (keys->kind == KEYKIND_TEXT)
		spelling = psprintf(", keys => %s, prefix => %s, zeropadding => %d",
							quote_literal_cstr(keys_mode_name(keys->mode)),
							quote_literal_cstr(keys->prefix), keys->zeropadding);
	return psprintf("rows => " INT64_FORMAT "%s, seed => " UINT64_FORMAT ", fieldlength => %d",
					def->first + def->rows, spelling, def->spec.seed,
					def->spec.fieldlength);
}

/*
 * After forget() removed def's job: a NOTICE if bench() no longer knows the
 * key space of its table, which no other job loaded, with the arguments
 * that give it.
 */
static void
job_note_key_space_gone(const JobDef *def, const char *args)
{
	char	   *table = get_rel_name(def->relid);

	if (table == NULL || ledger_newest_job_of(def->relid) != 0)
		return;
	ereport(NOTICE,
			(errmsg("petagen.bench() no longer knows the key space of table \"%s\"", table),
			 errdetail("The table has no other load job, from which bench() would take it."),
			 def->first == 0 ?
			 errhint("Give it to bench(): petagen.bench(..., \"table\" => %s, %s).",
					 quote_literal_cstr(table), args) :
			 errhint("Give it to bench(): petagen.bench(..., \"table\" => %s, %s); bench() counts keys from 0, and the job loaded from key number " INT64_FORMAT ".",
					 quote_literal_cstr(table), args, def->first)));
}

/* forget()'s result row: what it removed of def's job. */
static Datum
job_forget_result(FunctionCallInfo fcinfo, const JobDef *def, int64 chunks,
				  int64 progress, const char *args)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(def->job);
	values[1] = ObjectIdGetDatum(def->relid);
	values[2] = CStringGetTextDatum(job_state_name(job_current_state(def)));
	values[3] = Int64GetDatum(chunks);
	values[4] = Int64GetDatum(progress);
	values[5] = CStringGetTextDatum(args);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

PG_FUNCTION_INFO_V1(petagen_forget);
/*
 * petagen.forget(job): remove a job without workers, its rows and files;
 * returns what went, and the bench() arguments of its key space.
 */
Datum
petagen_forget(PG_FUNCTION_ARGS)
{
	JobDef		def;
	int64		chunks;
	int64		progress;
	char	   *args;

	guard_writable("petagen.forget()");
	job_check_operator();
	options_check_job_arg(fcinfo, "petagen.forget()");
	/* no resume() or worker may change the job from here on */
	ledger_lock_job(PG_GETARG_INT64(0));
	job_read(PG_GETARG_INT64(0), &def, false);
	job_check_owner(&def, "petagen.forget()");
	job_check_forgettable(&def);
	job_forget_method(&def);
	job_remove_files(&def);
	ledger_delete_job(def.job, &chunks, &progress);
	args = job_key_space_args(&def);
	job_note_key_space_gone(&def, args);
	return job_forget_result(fcinfo, &def, chunks, progress, args);
}

/*
 * --------------------------------------------------------------------
 * petagen.alter(): change the workers, max_rate and disk_reserve of a
 * job that runs, is paused or throttled, stopped, failed or
 * interrupted.
 *
 * The job's catalog row takes the new values in the caller's transaction,
 * and resume() starts every later run with them.  A run that is going
 * reads max_rate and disk_reserve from its shared state (jobdef.h), before
 * every batch and every sleep: alter() attaches the run's segment now and
 * writes into it, when its transaction commits, the values the catalog
 * then holds for the job.  So a rolled-back alter() (or savepoint) changes
 * nothing, and concurrent alter() calls, which take turns on the job's
 * row, reach the workers in commit order.  The values are read at
 * pre-commit, where an error still aborts the transaction, and written at
 * commit, where nothing can fail.
 *
 * A run keeps its workers: alter() records a new worker count only for a
 * job without a live run, for its next resume(), and refuses it for a
 * running job with the recipe (stop(), then resume(job, workers)).  The
 * same roles may alter a job as may stop it.
 *
 * alter() returns the job's settings as they now stand, and a NOTICE for
 * a value that changes nothing the job does: a disk_reserve below
 * petagen.disk_reserve, the floor a job may raise but never lower ('0',
 * which asks for the setting's, is no surprise), and any setting of a job
 * whose table was dropped (it cannot run again).
 * --------------------------------------------------------------------
 */

/* alter()'s arguments in SQL order. */
typedef enum AlterArg
{
	ALTER_ARG_JOB,
	ALTER_ARG_WORKERS,
	ALTER_ARG_MAX_RATE,
	ALTER_ARG_DISK_RESERVE
} AlterArg;

/* A run whose shared state takes its job's settings at commit. */
typedef struct AlterRun
{
	int64		job;
	int32		run;
	dsm_segment *seg;
	JobDef		def;			/* the catalog's settings, read at pre-commit */
	bool		current;		/* the catalog still names this run */
	struct AlterRun *next;
} AlterRun;

/* This transaction's altered runs, in TopTransactionContext. */
static AlterRun *alter_runs = NULL;
static bool alter_callback_set = false;

/* At pre-commit, read each altered run's settings; at commit, publish them. */
static void
alter_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_PREPARE && alter_runs != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot PREPARE a transaction that altered a running petagen load job"),
				 errdetail("Its workers would take the new settings before COMMIT PREPARED.")));
	if (event == XACT_EVENT_PRE_COMMIT && alter_runs != NULL)
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		for (AlterRun *r = alter_runs; r != NULL; r = r->next)
			r->current = job_read(r->job, &r->def, true) && r->def.run == r->run;
		PopActiveSnapshot();
	}
	if (event == XACT_EVENT_COMMIT)
		for (AlterRun *r = alter_runs; r != NULL; r = r->next)
		{
			if (r->current)
				live_write_settings(dsm_segment_address(r->seg), &r->def);
			dsm_detach(r->seg);
		}
	/* on abort, the segments go with the transaction's resource owner */
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
		alter_runs = NULL;
}

/*
 * Have def's run, if one is going, take the job's settings when this
 * transaction commits: attach its segment for the rest of the transaction.
 */
static void
alter_publish_at_commit(const JobDef *def)
{
	ResourceOwner save = CurrentResourceOwner;
	AlterRun   *r;
	dsm_segment *seg;

	for (r = alter_runs; r != NULL; r = r->next)
		if (r->job == def->job && r->run == def->run)
			return;
	CurrentResourceOwner = TopTransactionResourceOwner;
	(void) job_attach(def, &seg);
	CurrentResourceOwner = save;
	if (seg == NULL)
		return;					/* no run going: resume() reads the catalog */
	if (!alter_callback_set)
	{
		RegisterXactCallback(alter_xact_callback, NULL);
		alter_callback_set = true;
	}
	r = MemoryContextAllocZero(TopTransactionContext, sizeof(AlterRun));
	r->job = def->job;
	r->run = def->run;
	r->seg = seg;
	r->next = alter_runs;
	alter_runs = r;
}

/* Raise an error unless def's job may be altered now, its workers too if given. */
static void
alter_check_alterable(const JobDef *def, bool workers)
{
	if (strcmp(def->state, "done") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " is already done", def->job),
				 errhint("petagen.alter() changes jobs that run, are stopped, failed or interrupted.")));
	if (pending_has_job(def->job))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("load job " INT64_FORMAT " was started or resumed in this transaction",
						def->job),
				 errhint("Give the settings to petagen.start() or petagen.resume(), or commit, then call petagen.alter(" INT64_FORMAT ").",
						 def->job)));
	if (workers && strcmp(def->state, "running") == 0 && live_is_running(def))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot change the workers of load job " INT64_FORMAT " while it runs",
						def->job),
				 errdetail("A run keeps the workers it started with."),
				 errhint("Stop it with petagen.stop(" INT64_FORMAT "), then continue it with petagen.resume(" INT64_FORMAT ", workers => ...).",
						 def->job, def->job)));
}

/* Raise an error unless at least one setting is given. */
static void
alter_check_some_setting(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(ALTER_ARG_WORKERS) && PG_ARGISNULL(ALTER_ARG_MAX_RATE) &&
		PG_ARGISNULL(ALTER_ARG_DISK_RESERVE))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("petagen.alter() needs workers, max_rate or disk_reserve"),
				 errhint("For example: SELECT petagen.alter(" INT64_FORMAT ", max_rate => '50MB');",
						 PG_GETARG_INT64(ALTER_ARG_JOB))));
}

/* alter()'s workers in range, or -1 (unchanged) when NULL. */
static int32
alter_workers(FunctionCallInfo fcinfo)
{
	int32		nworkers;

	if (PG_ARGISNULL(ALTER_ARG_WORKERS))
		return -1;
	nworkers = PG_GETARG_INT32(ALTER_ARG_WORKERS);
	if (nworkers < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("workers must be between 1 and %d, not %d",
						LAUNCH_MAX_WORKERS, nworkers),
				 errhint("To keep the job's workers, leave workers out (or pass NULL).")));
	launch_check_worker_count(nworkers);
	return nworkers;
}

/* NOTICEs for the values given to alter() that change nothing def's job does. */
static void
alter_note_no_effect(const JobDef *def, int64 disk_reserve)
{
	int64		floor = (int64) petagen_disk_reserve_mb * 1024 * 1024;

	if (get_rel_name(def->relid) == NULL)
		ereport(NOTICE,
				(errmsg("the new settings of load job " INT64_FORMAT " have no effect: its table was dropped",
						def->job),
				 errdetail("The job loaded the relation with OID %u, which no longer exists, so it cannot run again.",
						   def->relid),
				 errhint("Remove the job with petagen.forget(" INT64_FORMAT ").", def->job)));
	else if (disk_reserve > 0 && disk_reserve < floor)
		ereport(NOTICE,
				(errmsg("disk_reserve %s has no effect on load job " INT64_FORMAT ": petagen.disk_reserve is %s",
						text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(disk_reserve)))),
						def->job,
						text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(floor))))),
				 errdetail("A job's disk_reserve may raise the server's reserve, never lower it: the job keeps %s free.",
						   text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(job_reserve(def)))))),
				 errhint("To leave less free space, lower petagen.disk_reserve in postgresql.conf and reload.")));
}

/* alter()'s result row: def's job's settings as they now stand. */
static Datum
alter_result(FunctionCallInfo fcinfo, const JobDef *def)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(def->job);
	values[1] = CStringGetTextDatum(def->state);
	values[2] = Int32GetDatum(def->nworkers);
	values[3] = Int64GetDatum(def->max_rate);
	nulls[3] = def->max_rate <= 0;
	values[4] = Int64GetDatum(def->disk_reserve);
	nulls[4] = def->disk_reserve < 0;
	values[5] = Int64GetDatum(job_reserve(def));
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

/* A size argument of alter() in bytes, or -1 (unchanged) when NULL. */
static int64
alter_size(FunctionCallInfo fcinfo, AlterArg arg, const char *argname)
{
	if (PG_ARGISNULL(arg))
		return -1;
	return options_size_bytes(PG_GETARG_TEXT_PP(arg), argname);
}

PG_FUNCTION_INFO_V1(petagen_alter);
/*
 * petagen.alter(job, workers, max_rate, disk_reserve): change a job's
 * settings; returns them as they now stand.
 */
Datum
petagen_alter(PG_FUNCTION_ARGS)
{
	JobDef		def;
	int32		nworkers;
	int64		max_rate;
	int64		disk_reserve;

	guard_writable("petagen.alter()");
	job_check_operator();
	options_check_job_arg(fcinfo, "petagen.alter()");
	alter_check_some_setting(fcinfo);
	nworkers = alter_workers(fcinfo);
	max_rate = alter_size(fcinfo, ALTER_ARG_MAX_RATE, "max_rate");
	disk_reserve = alter_size(fcinfo, ALTER_ARG_DISK_RESERVE, "disk_reserve");
	job_read(PG_GETARG_INT64(ALTER_ARG_JOB), &def, false);
	job_check_owner(&def, "petagen.alter()");
	alter_check_alterable(&def, nworkers != -1);
	/* the row is ours until commit: read the run it names now */
	ledger_alter_job(def.job, nworkers, max_rate, disk_reserve);
	job_read(def.job, &def, false);
	alter_check_alterable(&def, nworkers != -1);
	alter_publish_at_commit(&def);
	alter_note_no_effect(&def, disk_reserve);
	return alter_result(fcinfo, &def);
}
