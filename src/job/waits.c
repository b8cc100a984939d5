/*-------------------------------------------------------------------------
 * waits.c
 *		What a load job's workers wait on and how fast a run loads over the
 *		last minute, in one file read from top to bottom: each worker's
 *		sampling of its own wait events, reading them as shares and the
 *		limit that binds, then the run's rate history.  Declared in live.h.
 *
 * Wait samples.  Every WAIT_SAMPLE_MS a timer (timeout.c, SIGALRM) fires in
 * each worker, and its handler copies the worker's own wait_event_info (0
 * while it runs on CPU) into the worker's WaitRing with the milliseconds
 * since the last sample: a signal that arrives during a disk write is
 * handled when the write returns, still inside its wait event, so a long
 * write counts as long as it took.  Nothing sleeps and no lock is taken,
 * in the handler or in a reader: the worker alone writes its ring (a
 * 64-bit atomic store per sample), readers take the last WAIT_WINDOW_MS of
 * it, and a worker that has not sampled for a while (a write that has not
 * returned yet) counts the time since with the wait event its PGPROC shows
 * now.  The timer wakes the worker's latch 10 times a second: its sleeps
 * (the throttle, the disk reserve) loop until their time is up.
 *
 * Rate history.  While a run loads, whichever worker finds a sample due
 * (every RATE_SAMPLE_MS, claimed with a compare-and-exchange as progress_log
 * rows are) records the rows the run has written, its own and the others'
 * in flight; the rate over a window is the rows written since the moment
 * the window began, interpolated between the samples around it.  A run
 * that has not loaded for a whole window has no such rate: it is too young
 * to be called slow.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "job/live.h"
#include "petagen.h"

/* The history covers the longest petagen.straggler_window. */
StaticAssertDecl(RATE_SAMPLES * RATE_SAMPLE_MS > RATE_WINDOW_MAX_S * 1000,
				 "the rate history is shorter than the longest window");

/* The recent past a worker's wait shares cover. */
#define WAIT_WINDOW_MS		10000

/* Events and limits named in a profile, most first. */
#define WAITS_SHOWN			3

/* The limits a wait event counts against. */
static const char *const wait_limit_names[WAIT_NLIMITS] = {
	"CPU", "data writes", "syncs", "WAL", "locks", "reads", "sleep", "other"
};

/*
 * This worker's ring, which its timer fills; NULL again before the worker
 * unmaps the run's segment as it exits (waits_stop), as a last tick may
 * still come.
 */
static WaitRing *volatile waits_ring = NULL;
static TimestampTz waits_last = 0;
static TimeoutId waits_timeout;

/*
 * The timer's handler, in the signal handler: one sample of this worker's
 * wait event, weighed by the time since the last.
 */
static void
waits_sample(void)
{
	WaitRing   *ring = waits_ring;
	TimestampTz now = GetCurrentTimestamp();
	uint32		info = *(volatile uint32 *) my_wait_event_info;
	int64		ms = (now - waits_last) / 1000;
	uint64		n;

	if (ring == NULL)
		return;
	ms = Min(Max(ms, 1), WAIT_WINDOW_MS);
	waits_last = now;
	n = pg_atomic_read_u64(&ring->next);
	pg_atomic_write_u64(&ring->samples[n % WAIT_SAMPLES],
						((uint64) info << 32) | (uint64) ms);
	pg_atomic_write_u64(&ring->last_at, (uint64) now);
	pg_atomic_write_u64(&ring->next, n + 1);
}

/* On exit, before the run's segment is unmapped: sample no more. */
static void
waits_stop(int code, Datum arg)
{
	waits_ring = NULL;
	disable_timeout(waits_timeout, false);
}

/* As a worker: sample what this process waits on into ring from now on. */
void
waits_start(WaitRing *ring)
{
	waits_timeout = RegisterTimeout(USER_TIMEOUT, waits_sample);
	waits_last = GetCurrentTimestamp();
	waits_ring = ring;
	before_shmem_exit(waits_stop, (Datum) 0);
	enable_timeout_every(waits_timeout,
						 TimestampTzPlusMilliseconds(waits_last, WAIT_SAMPLE_MS),
						 WAIT_SAMPLE_MS);
}

/* The limit a wait event counts against. */
static WaitLimit
waits_limit(uint32 info)
{
	const char *type = pgstat_get_wait_event_type(info);
	const char *name = pgstat_get_wait_event(info);

	if (info == 0 || type == NULL)
		return WAIT_CPU;
	if (name == NULL)
		name = "";
	if (strcmp(type, "IO") == 0)
	{
		if (strstr(name, "WAL") != NULL)
			return WAIT_WAL;
		if (strstr(name, "Sync") != NULL || strstr(name, "Flush") != NULL)
			return WAIT_SYNCS;
		if (strstr(name, "Read") != NULL)
			return WAIT_READS;
		return WAIT_DATA_WRITES;
	}
	if (strcmp(type, "LWLock") == 0)
		return strncmp(name, "WAL", 3) == 0 ? WAIT_WAL : WAIT_LOCKS;
	if (strcmp(type, "Lock") == 0 || strcmp(type, "BufferPin") == 0 ||
		strcmp(name, "SpinDelay") == 0)
		return WAIT_LOCKS;
	/* a worker's own sleeps (max_rate, the disk reserve) are Extension waits */
	if (strcmp(type, "Extension") == 0 || strcmp(type, "Timeout") == 0)
		return WAIT_SLEEP;
	return WAIT_OTHER;
}

/* Add ms waited on info to a profile. */
static void
waits_add(WaitProfile *p, uint32 info, int64 ms)
{
	int			i;

	p->total_ms += ms;
	p->limit_ms[waits_limit(info)] += ms;
	for (i = 0; i < p->nevents; i++)
		if (p->events[i] == info)
			break;
	if (i == p->nevents)
	{
		if (p->nevents == WAIT_SAMPLES + 1)
			return;
		p->events[p->nevents] = info;
		p->event_ms[p->nevents++] = 0;
	}
	p->event_ms[i] += ms;
}

/*
 * Add to p what the worker of slot waited on over the last WAIT_WINDOW_MS,
 * as of now: its samples, and since the last of them, if it is late, the
 * wait event its process shows.
 */
void
waits_read(WorkerSlot *slot, WaitProfile *p)
{
	WaitRing   *ring = &slot->waits;
	uint64		next = pg_atomic_read_u64(&ring->next);
	TimestampTz last = (TimestampTz) pg_atomic_read_u64(&ring->last_at);
	int64		late = (GetCurrentTimestamp() - last) / 1000;
	int64		window = 0;
	PGPROC	   *proc;

	if (next == 0)
		return;
	if (late > 3 * WAIT_SAMPLE_MS && slot->pid != 0 &&
		(proc = BackendPidGetProc(slot->pid)) != NULL)
	{
		window = Min(late, WAIT_WINDOW_MS);
		waits_add(p, *(volatile uint32 *) &proc->wait_event_info, window);
	}
	for (uint64 i = next; i > 0 && next - i < WAIT_SAMPLES && window < WAIT_WINDOW_MS; i--)
	{
		uint64		s = pg_atomic_read_u64(&ring->samples[(i - 1) % WAIT_SAMPLES]);
		int64		ms = Min((int64) (s & PG_UINT32_MAX), WAIT_WINDOW_MS - window);

		waits_add(p, (uint32) (s >> 32), ms);
		window += ms;
	}
}

/* A share of a profile, in whole percent. */
static int
waits_percent(const WaitProfile *p, int64 ms)
{
	return (int) ((ms * 100 + p->total_ms / 2) / p->total_ms);
}

/* The limit that binds in p: the one it waited on most. */
WaitLimit
waits_bound(const WaitProfile *p)
{
	WaitLimit	bound = WAIT_CPU;

	for (int i = 0; i < WAIT_NLIMITS; i++)
		if (p->limit_ms[i] > p->limit_ms[bound])
			bound = i;
	return bound;
}

/* The name of a limit. */
const char *
waits_limit_name(WaitLimit limit)
{
	return wait_limit_names[limit];
}

/*
 * p's events, most first, as shares: "CPU 62% IO:DataFileWrite 30%
 * LWLock:WALWrite 8%" (at most WAITS_SHOWN, each at least 1%); NULL for
 * no samples.  palloc'd.
 */
char *
waits_events_text(const WaitProfile *p)
{
	StringInfoData buf;
	bool		shown[WAIT_SAMPLES + 1] = {false};

	if (p->total_ms <= 0)
		return NULL;
	initStringInfo(&buf);
	for (int k = 0; k < WAITS_SHOWN; k++)
	{
		int			best = -1;
		uint32		info;

		for (int i = 0; i < p->nevents; i++)
			if (!shown[i] && (best < 0 || p->event_ms[i] > p->event_ms[best]))
				best = i;
		if (best < 0 || (k > 0 && waits_percent(p, p->event_ms[best]) < 1))
			break;
		shown[best] = true;
		info = p->events[best];
		if (info == 0 || pgstat_get_wait_event_type(info) == NULL)
			appendStringInfoString(&buf, k > 0 ? " CPU" : "CPU");
		else
			appendStringInfo(&buf, "%s%s:%s", k > 0 ? " " : "",
							 pgstat_get_wait_event_type(info),
							 pgstat_get_wait_event(info));
		appendStringInfo(&buf, " %d%%", waits_percent(p, p->event_ms[best]));
	}
	return buf.data;
}

/*
 * p's limits, most first, as shares: "CPU 62% data writes 30%" (at most
 * WAITS_SHOWN, each at least 1%); NULL for no samples.  palloc'd.
 */
char *
waits_limits_text(const WaitProfile *p)
{
	StringInfoData buf;
	bool		shown[WAIT_NLIMITS] = {false};

	if (p->total_ms <= 0)
		return NULL;
	initStringInfo(&buf);
	for (int k = 0; k < WAITS_SHOWN; k++)
	{
		int			best = -1;

		for (int i = 0; i < WAIT_NLIMITS; i++)
			if (!shown[i] && (best < 0 || p->limit_ms[i] > p->limit_ms[best]))
				best = i;
		if (k > 0 && waits_percent(p, p->limit_ms[best]) < 1)
			break;
		shown[best] = true;
		appendStringInfo(&buf, "%s%s %d%%", k > 0 ? " " : "",
						 wait_limit_names[best], waits_percent(p, p->limit_ms[best]));
	}
	return buf.data;
}

/*
 * --------------------------------------------------------------------
 * A run's rate history while it loads (see the banner).
 * --------------------------------------------------------------------
 */

/* The rows the run has written by now: earlier runs', and every worker's. */
static int64
history_rows(JobShared *shared)
{
	int64		rows = shared->base_rows;

	for (int i = 0; i < shared->nworkers; i++)
		rows += pg_atomic_read_u64(&shared->workers[i].rows);
	return rows;
}

/* As a loading worker: record the run's rows written, if a sample is due. */
void
history_sample(JobShared *shared)
{
	RateHistory *h = &shared->history;
	TimestampTz now = GetCurrentTimestamp();
	uint64		due = pg_atomic_read_u64(&h->due);
	RateSample *s;

	if ((uint64) now < due ||
		!pg_atomic_compare_exchange_u64(&h->due, &due,
										(uint64) TimestampTzPlusMilliseconds(now, RATE_SAMPLE_MS)))
		return;
	s = &h->samples[pg_atomic_fetch_add_u64(&h->next, 1) % RATE_SAMPLES];
	pg_atomic_write_u64(&s->at, 0);
	pg_write_barrier();
	pg_atomic_write_u64(&s->rows, (uint64) history_rows(shared));
	pg_write_barrier();
	pg_atomic_write_u64(&s->at, (uint64) now);
}

/* Read sample i of the history into *at and *rows; false while it is written. */
static bool
history_read(RateHistory *h, uint64 i, TimestampTz *at, int64 *rows)
{
	RateSample *s = &h->samples[i % RATE_SAMPLES];
	uint64		at1 = pg_atomic_read_u64(&s->at);

	pg_read_barrier();
	*rows = (int64) pg_atomic_read_u64(&s->rows);
	pg_read_barrier();
	*at = (TimestampTz) at1;
	return at1 != 0 && pg_atomic_read_u64(&s->at) == at1;
}

/*
 * The run's rows per second over the last window_s seconds; < 0 if it has
 * not loaded that long (its oldest sample kept is younger than the window).
 */
double
history_rate(JobShared *shared, double window_s)
{
	RateHistory *h = &shared->history;
	uint64		next = pg_atomic_read_u64(&h->next);
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz from = now - (TimestampTz) (window_s * USECS_PER_SEC);
	TimestampTz after_at = now;
	int64		after_rows = history_rows(shared);
	int64		now_rows = after_rows;

	for (uint64 i = next; i > 0 && next - i < RATE_SAMPLES; i--)
	{
		TimestampTz at;
		int64		rows;

		if (!history_read(h, i - 1, &at, &rows))
			continue;
		if (at <= from)
		{
			double		frac = 0;
			double		rows_then;

			if (after_at > at)
				frac = (double) (from - at) / (after_at - at);
			rows_then = rows + (after_rows - rows) * frac;
			return Max(now_rows - rows_then, 0) / window_s;
		}
		after_at = at;
		after_rows = rows;
	}
	return -1;
}
