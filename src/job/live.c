/*-------------------------------------------------------------------------
 * live.c
 *		A run's live state, in one file read from top to bottom: its
 *		dynamic shared memory segment and the state of a job read from it,
 *		then the runs start() and resume() launch when their transaction
 *		commits.  Declared in live.h.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "job/job.h"
#include "job/ledger.h"
#include "job/live.h"
#include "launch.h"

static void live_pin(dsm_segment *seg);

/*
 * --------------------------------------------------------------------
 * A run's live state: one dynamic shared memory segment per run of a
 * job (jobdef.h has its layout), and the state of a job read from it.
 *
 * The segment is pinned so that it outlives the backend that created it
 * until the run's workers have attached; the last of them to attach drops
 * the pin (live_attached), or the backend that launched them does if they
 * all attached before it pinned (live_pin, at its commit: below).
 * From then on the segment lives as long as a worker (or a status()
 * reader) has it mapped: no run leaves it behind, whether its workers end,
 * fail, or are terminated.  A crash-restart of the server
 * destroys it, and a job whose catalog row still says "running" without
 * a segment, or without a live worker, is interrupted.
 *
 * The segment also holds the settings alter() changes while a run goes:
 * live_write_settings() publishes them, workers read them with
 * live_read_settings().
 * --------------------------------------------------------------------
 */

static const char *const job_state_names[] = {
	"starting", "running", "paused", "throttled", "done", "failed",
	"stopped", "interrupted"
};

static const char *const job_phase_names[] = {"loading", "indexing", "done"};

/* The name status() shows for a state. */
const char *
job_state_name(JobState state)
{
	return job_state_names[state];
}

/* The name status() shows for a phase. */
const char *
job_phase_name(JobPhase phase)
{
	return job_phase_names[phase];
}

/* Bytes of shared state for a run with nworkers workers. */
Size
live_size(int nworkers)
{
	return add_size(offsetof(JobShared, workers),
					mul_size(sizeof(WorkerSlot), nworkers));
}

/* Initialize the slot of one worker that has not started yet. */
static void
live_init_slot(WorkerSlot *slot)
{
	pg_atomic_init_u32(&slot->state, JOB_STARTING);
	pg_atomic_init_u64(&slot->keys, 0);
	pg_atomic_init_u64(&slot->rows, 0);
	pg_atomic_init_u64(&slot->bytes, 0);
	pg_atomic_init_u64(&slot->duplicates, 0);
	SpinLockInit(&slot->mutex);
	slot->current_index[0] = '\0';
	slot->unit = -1;
	slot->claimed = -1;
	slot->replaced_at = 0;
	pg_atomic_init_u64(&slot->waits.next, 0);
	pg_atomic_init_u64(&slot->waits.last_at, 0);
	for (int i = 0; i < WAIT_SAMPLES; i++)
		pg_atomic_init_u64(&slot->waits.samples[i], 0);
}

/*
 * Fill seg (live_size() bytes) with the live state of a new run of def,
 * counting from what the ledger holds.
 */
void
live_init(dsm_segment *seg, const JobDef *def, int64 nchunks)
{
	JobShared  *shared = dsm_segment_address(seg);
	LedgerSummary sum;

	memset(shared, 0, live_size(def->nworkers));
	shared->magic = JOB_MAGIC;
	shared->job = def->job;
	shared->run = def->run;
	shared->nworkers = def->nworkers;
	shared->nchunks = nchunks;
	shared->nranges = load_nchunks(def->rows, def->chunk_rows);
	pg_atomic_init_u64(&shared->next_range, 0);
	pg_atomic_init_u32(&shared->routing, def->nworkers);
	shared->started_at = GetCurrentTimestamp();
	pg_atomic_init_u64(&shared->next_chunk, 0);
	pg_atomic_init_u32(&shared->active, def->nworkers);
	pg_atomic_init_u32(&shared->stop_requested, 0);
	pg_atomic_init_u32(&shared->failed, 0);
	pg_atomic_init_u32(&shared->failed_code, 0);
	pg_atomic_init_u64(&shared->headroom, PG_UINT64_MAX);
	pg_atomic_init_u64(&shared->next_log_at, 0);
	pg_atomic_init_u32(&shared->loading, def->nworkers);
	pg_atomic_init_u32(&shared->phase, PHASE_LOADING);
	pg_atomic_init_u32(&shared->attached, 0);
	pg_atomic_init_u32(&shared->pin, LIVE_NOT_PINNED);
	pg_atomic_init_u64(&shared->max_rate, (uint64) def->max_rate);
	pg_atomic_init_u64(&shared->disk_reserve, (uint64) def->disk_reserve);
	pg_atomic_init_u64(&shared->history.next, 0);
	pg_atomic_init_u64(&shared->history.due, 0);
	for (int i = 0; i < RATE_SAMPLES; i++)
	{
		pg_atomic_init_u64(&shared->history.samples[i].at, 0);
		pg_atomic_init_u64(&shared->history.samples[i].rows, 0);
	}
	for (int i = 0; i < def->nworkers; i++)
		live_init_slot(&shared->workers[i]);
	ledger_summary(def->job, &sum);
	shared->base_keys = sum.keys;
	shared->base_rows = sum.rows;
	shared->base_bytes = sum.bytes;
}

/* Publish def's max_rate and disk_reserve to the run's workers. */
void
live_write_settings(JobShared *shared, const JobDef *def)
{
	pg_atomic_write_u64(&shared->max_rate, (uint64) def->max_rate);
	pg_atomic_write_u64(&shared->disk_reserve, (uint64) def->disk_reserve);
}

/* Read the run's max_rate and disk_reserve, as alter() last set them, into def. */
void
live_read_settings(JobShared *shared, JobDef *def)
{
	def->max_rate = (int64) pg_atomic_read_u64(&shared->max_rate);
	def->disk_reserve = (int64) pg_atomic_read_u64(&shared->disk_reserve);
}

/* Attach the live state of def's current run, or NULL if it is gone. */
JobShared *
job_attach(const JobDef *def, dsm_segment **seg)
{
	JobShared  *shared;

	*seg = NULL;
	if (def->handle == DSM_HANDLE_INVALID)
		return NULL;
	*seg = dsm_find_mapping(def->handle);
	if (*seg == NULL)
		*seg = dsm_attach(def->handle);
	if (*seg == NULL)
		return NULL;
	shared = dsm_segment_address(*seg);
	if (dsm_segment_map_length(*seg) < offsetof(JobShared, workers) ||
		shared->magic != JOB_MAGIC || shared->job != def->job ||
		shared->run != def->run)
	{
		dsm_detach(*seg);
		*seg = NULL;
		return NULL;
	}
	return shared;
}

/* Is the process behind a worker slot still alive? */
bool
job_worker_alive(WorkerSlot *slot)
{
	return slot->pid != 0 && BackendPidGetProc(slot->pid) != NULL;
}

/* Is a run of def live: shared state there and some worker not gone? */
bool
live_is_running(const JobDef *def)
{
	dsm_segment *seg;
	JobShared  *shared = job_attach(def, &seg);
	bool		live = false;

	if (shared == NULL)
		return false;
	for (int i = 0; i < shared->nworkers; i++)
	{
		JobState	state = pg_atomic_read_u32(&shared->workers[i].state);

		if (state < JOB_DONE &&
			(state == JOB_STARTING || job_worker_alive(&shared->workers[i])))
			live = true;
	}
	dsm_detach(seg);
	return live;
}

/* Drop the pin of a run's segment, once: whoever gets here first does. */
static void
live_unpin(JobShared *shared, dsm_handle handle)
{
	uint32		expected = LIVE_PINNED;

	if (pg_atomic_compare_exchange_u32(&shared->pin, &expected, LIVE_UNPINNED))
		dsm_unpin_segment(handle);
}

/*
 * As the launcher, the workers registered: pin the run's segment so
 * that it outlives this backend until they attach; if they all have, drop
 * the pin again.
 */
static void
live_pin(dsm_segment *seg)
{
	JobShared  *shared = dsm_segment_address(seg);

	dsm_pin_segment(seg);
	/* a full barrier: a worker attaching now sees the pin, or we see it */
	pg_atomic_exchange_u32(&shared->pin, LIVE_PINNED);
	if (pg_atomic_read_u32(&shared->attached) == shared->nworkers)
		live_unpin(shared, dsm_segment_handle(seg));
}

/* As a worker that has just attached: the last to attach drops the pin. */
void
live_attached(JobShared *shared, dsm_handle handle)
{
	if (pg_atomic_add_fetch_u32(&shared->attached, 1) == shared->nworkers)
		live_unpin(shared, handle);
}

/* The state of a job now: the catalog's, or the live one while it runs. */
JobState
job_current_state(const JobDef *def)
{
	dsm_segment *seg;
	JobShared  *shared;
	JobState	state;

	for (state = JOB_STARTING; state <= JOB_INTERRUPTED; state++)
		if (strcmp(def->state, job_state_names[state]) == 0 &&
			state != JOB_RUNNING)
			return state;
	shared = job_attach(def, &seg);
	if (shared == NULL)
		return JOB_INTERRUPTED;
	state = job_total_state(shared);
	dsm_detach(seg);
	return state;
}

/* The state of a whole run from its workers' slots. */
JobState
job_total_state(JobShared *shared)
{
	/* the most telling state wins, in this order */
	static const JobState order[] = {JOB_RUNNING, JOB_PAUSED, JOB_THROTTLED,
	JOB_STARTING, JOB_INTERRUPTED, JOB_FAILED, JOB_STOPPED, JOB_DONE};
	bool		seen[JOB_INTERRUPTED + 1] = {false};

	for (int i = 0; i < shared->nworkers; i++)
	{
		WorkerSlot *slot = &shared->workers[i];
		JobState	state = pg_atomic_read_u32(&slot->state);

		if (state != JOB_STARTING && state < JOB_DONE && !job_worker_alive(slot))
			state = JOB_INTERRUPTED;
		seen[state] = true;
	}
	for (int i = 0; i < lengthof(order); i++)
		if (seen[order[i]])
			return order[i];
	return JOB_DONE;
}

/* Is a state final: nothing will change without resume()? */
bool
job_state_final(JobState state)
{
	return state >= JOB_DONE;
}

/*
 * --------------------------------------------------------------------
 * Runs of load jobs launched when the transaction that started or
 * resumed them commits.
 *
 * start() and resume() record the run in the catalog and create its shared
 * state, but register no worker: an open transaction would hold the
 * workers' slots for as long as it stays open, and block every other
 * start() meanwhile.  The workers are registered at pre-commit, where an
 * error (no free slot left) still aborts the transaction and with it the
 * job row; they wait for the commit, which follows at once.  A run whose
 * subtransaction rolls back is forgotten with it, and so is every run of a
 * transaction that aborts.  A transaction that launches a run cannot be
 * prepared: its workers would wait for COMMIT PREPARED.
 *
 * The run's segment belongs to the top transaction's resource owner, so it
 * outlives the statement that created it; at pre-commit it is pinned
 * (live_pin) and detached, and if the transaction aborts it goes with it.
 * --------------------------------------------------------------------
 */

/* A run whose workers are registered at commit. */
typedef struct PendingRun
{
	dsm_segment *seg;
	WorkerArgs	args;			/* of every worker but for index */
	int			nworkers;
	SubTransactionId subid;		/* of the subtransaction that launched it */
	struct PendingRun *next;
} PendingRun;

/* What a load job's workers are. */
const LaunchKind pending_worker_kind = {
	"petagen_worker_main", "petagen worker", "petagen job " INT64_FORMAT " worker %d",
	false
};

/* This transaction's pending runs, newest first, in TopTransactionContext. */
static PendingRun *pending_runs = NULL;
static bool pending_callbacks_set = false;

/* Register the workers of one run, pin its segment so it outlives us, detach. */
static void
pending_register(PendingRun *run)
{
	WorkerArgs	args = run->args;

	for (int i = 0; i < run->nworkers; i++)
	{
		args.index = i;
		launch_worker(&pending_worker_kind, args.job, i, run->nworkers, &args,
					  sizeof(args));
	}
	live_pin(run->seg);
	dsm_detach(run->seg);
}

/* At the end of the transaction: launch the pending runs, or forget them. */
static void
pending_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_PREPARE && pending_runs != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot PREPARE a transaction that started or resumed a petagen load job"),
				 errdetail("Its workers would wait for COMMIT PREPARED.")));
	/* an error here (no free slot) aborts the transaction */
	if (event == XACT_EVENT_PRE_COMMIT)
		for (PendingRun *run = pending_runs; run != NULL; run = run->next)
			pending_register(run);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
		pending_runs = NULL;	/* the memory and segments went with the
								 * transaction */
}

/*
 * At the end of a subtransaction: its runs pass to the parent, or go with
 * it when it rolls back.
 */
static void
pending_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	PendingRun **link = &pending_runs;

	while (*link != NULL)
	{
		PendingRun *run = *link;

		if (run->subid == mySubid && event == SUBXACT_EVENT_ABORT_SUB)
		{
			*link = run->next;
			dsm_detach(run->seg);
			pfree(run);
			continue;
		}
		if (run->subid == mySubid && event == SUBXACT_EVENT_COMMIT_SUB)
			run->subid = parentSubid;
		link = &run->next;
	}
}

/*
 * Create the shared state of a run: owned by the top transaction, it lives
 * until the run is launched at commit, or the transaction aborts.
 */
dsm_segment *
pending_create_segment(Size size)
{
	ResourceOwner save = CurrentResourceOwner;
	dsm_segment *seg;

	CurrentResourceOwner = TopTransactionResourceOwner;
	seg = dsm_create(size, 0);
	CurrentResourceOwner = save;
	return seg;
}

/* Launch nworkers workers with args on seg when this transaction commits. */
void
pending_launch(dsm_segment *seg, const WorkerArgs *args, int nworkers)
{
	PendingRun *run = MemoryContextAlloc(TopTransactionContext, sizeof(PendingRun));

	if (!pending_callbacks_set)
	{
		RegisterXactCallback(pending_xact_callback, NULL);
		RegisterSubXactCallback(pending_subxact_callback, NULL);
		pending_callbacks_set = true;
	}
	run->seg = seg;
	run->args = *args;
	run->nworkers = nworkers;
	run->subid = GetCurrentSubTransactionId();
	run->next = pending_runs;
	pending_runs = run;
}

/* Does this transaction launch a run of job at commit? */
bool
pending_has_job(int64 job)
{
	for (PendingRun *run = pending_runs; run != NULL; run = run->next)
		if (run->args.job == job)
			return true;
	return false;
}
