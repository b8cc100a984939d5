/*-------------------------------------------------------------------------
 * sampling.c
 *		When a load job adds a row to petagen.progress_log: often enough
 *		that a chart of any run has some SAMPLING_POINTS points, never more
 *		often than every SAMPLING_MIN_MS, never less often than
 *		petagen.progress_log_interval.
 *
 * The interval is the run's expected duration (its elapsed time over the
 * share of its work done) over SAMPLING_POINTS, at most a tenth of the
 * time the run has taken so far (the first estimates are rough), bounded.
 * The rows of a run are shared by its workers: the worker that finds a row
 * due claims it by moving JobShared.next_log_at forward with a
 * compare-and-exchange, so that two workers never log the same moment.  A new run starts with next_log_at 0
 * (live.c), and a phase change sets it back to 0: the first row of a run
 * or phase is logged at once and marks where it began.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "petagen.h"
#include "job/sampling.h"

#define SAMPLING_POINTS		40
#define SAMPLING_EARLY		10
#define SAMPLING_MIN_MS		100

/*
 * Microseconds until the next row of a run that has done `done` (0 .. 1) of
 * its work: its expected duration over SAMPLING_POINTS, and no more than a
 * tenth of its elapsed time (early estimates are rough), bounded.
 */
static int64
sampling_interval(const JobShared *shared, TimestampTz now, double done)
{
	double		elapsed = (double) (now - shared->started_at);
	double		interval = elapsed / SAMPLING_EARLY;

	if (done > 0)
		interval = Min(interval, elapsed / Min(done, 1.0) / SAMPLING_POINTS);
	interval = Min(interval, (double) petagen_progress_log_interval * USECS_PER_SEC);
	return (int64) Max(interval, (double) SAMPLING_MIN_MS * 1000);
}

/*
 * Is a progress_log row due now?  If so, the caller must log it: the next
 * one is then due an interval later.
 */
bool
sampling_claim(JobShared *shared, double done)
{
	TimestampTz now = GetCurrentTimestamp();
	uint64		due = pg_atomic_read_u64(&shared->next_log_at);

	return (uint64) now >= due &&
		pg_atomic_compare_exchange_u64(&shared->next_log_at, &due,
									   (uint64) (now + sampling_interval(shared, now, done)));
}

/* A run entered a new phase: its next progress_log row is due at once. */
void
sampling_phase_changed(JobShared *shared)
{
	pg_atomic_write_u64(&shared->next_log_at, 0);
}
