/*-------------------------------------------------------------------------
 * pending.c
 *		Runs of load jobs launched when the transaction that started or
 *		resumed them commits.
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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "launch.h"
#include "job/live.h"
#include "job/pending.h"

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
static const LaunchKind pending_worker_kind = {
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
		pending_runs = NULL;	/* the memory and segments went with the transaction */
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
