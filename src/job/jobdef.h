/*-------------------------------------------------------------------------
 * jobdef.h
 *		The types of load jobs: the catalog row, the live state in dynamic
 *		shared memory that workers publish and status() reads, and the
 *		worker arguments.
 *
 * A job's key space first .. first+rows-1 (first: YCSB's insertstart,
 * usually 0) is cut into chunks of chunk_rows key numbers, chunk c from
 * first + c * chunk_rows (methods.c).  A chunk is loaded in one
 * transaction that also inserts its row into the ledger petagen.chunks, so
 * the record of finished work commits atomically with the data; resume()
 * redoes exactly the chunks without a ledger row.
 *
 * Live state: one DSM segment per run of a job (start or resume), pinned
 * so that it outlives the backend that created it, its handle stored in
 * petagen.jobs.  Each worker writes only its own WorkerSlot; counters are
 * atomics, text fields are guarded by the slot's spinlock.  The pin only
 * bridges the time until every worker has attached: the last worker to
 * attach (or the launcher, if they all attached before it pinned) drops
 * it, so the segment lives exactly as long as some process has it mapped
 * and goes with the run's last worker however that worker ends (done,
 * ERROR, SIGTERM).  A crash-restart of the server destroys it too, and
 * status() then reports the job as interrupted.
 *
 * The settings alter() may change while a run goes (max_rate, the job's
 * disk_reserve) live in the segment: live_init() copies them from the
 * catalog, alter() writes them when its transaction commits (job.c), and
 * workers read them before every batch and every sleep (live_read_settings).
 *
 * A worker publishes the chunk (or leaf) it writes, where its keys counter
 * stood when it began and how many keys it holds (unit_*, under the slot's
 * spinlock), so that status_workers() shows each worker's own progress.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_JOBDEF_H
#define PETAGEN_JOBDEF_H

#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/spin.h"

#include "gen/spec.h"
#include "job/jobsettings.h"
#include "load/load.h"

#define JOB_MAGIC			0x50475756	/* "PGWV": the layout with wait
										 * samples and rate history */
/*
 * Most chunks of a job: each is a transaction, so more would approach XID
 * wraparound, and each worker keeps a bitmap of them (128 MB at most).
 */
#define JOB_MAX_CHUNKS		(INT64CONST(1) << 30)
/* Largest disk_reserve or max_rate: sums with free space stay in range. */
#define JOB_MAX_SIZE		(INT64CONST(1) << 60)
#define JOB_TEXT_LEN		256

/* What a worker (or, in the total row, a job) is doing. */
typedef enum JobState
{
	JOB_STARTING,
	JOB_RUNNING,
	JOB_PAUSED,					/* waiting for disk space; pause_reason says
								 * why */
	JOB_THROTTLED,				/* sleeping to keep under max_rate */
	JOB_DONE,
	JOB_FAILED,
	JOB_STOPPED,
	JOB_INTERRUPTED				/* died without saying so: crash or shutdown */
} JobState;

/* JobShared.pin: whether the run's segment is pinned. */
typedef enum LivePin
{
	LIVE_NOT_PINNED,			/* not yet: the workers are being registered */
	LIVE_PINNED,
	LIVE_UNPINNED				/* every worker attached: the pin was dropped */
} LivePin;

/* What a job with indexes => 'after' is doing (JobShared.phase). */
typedef enum JobPhase
{
	PHASE_LOADING,
	PHASE_INDEXING,				/* every chunk is in the ledger; building */
	PHASE_DONE
} JobPhase;

/*
 * What a worker waited on, sampled every WAIT_SAMPLE_MS by the worker's own
 * timer (waits.c): the last WAIT_SAMPLES samples, each its wait_event_info
 * (0: on CPU) in the high 32 bits and the milliseconds it stands for in the
 * low ones.  Written only by the worker, read without a lock.
 */
#define WAIT_SAMPLE_MS		100
#define WAIT_SAMPLES		128

typedef struct WaitRing
{
	pg_atomic_uint64 next;		/* samples taken */
	pg_atomic_uint64 last_at;	/* TimestampTz of the last, or 0 */
	pg_atomic_uint64 samples[WAIT_SAMPLES];
} WaitRing;

/*
 * A run's rows written over time while it loads, for the rate over the
 * last minute (waits.c): a sample every RATE_SAMPLE_MS by whichever worker
 * finds one due, the last RATE_SAMPLES of them.
 */
#define RATE_SAMPLE_MS		1000
#define RATE_SAMPLES		320

typedef struct RateSample
{
	pg_atomic_uint64 at;		/* TimestampTz, 0 while it is written */
	pg_atomic_uint64 rows;
} RateSample;

typedef struct RateHistory
{
	pg_atomic_uint64 next;		/* samples taken */
	pg_atomic_uint64 due;		/* TimestampTz the next is due */
	RateSample	samples[RATE_SAMPLES];
} RateHistory;

/* One worker's published state; written only by that worker. */
typedef struct WorkerSlot
{
	pg_atomic_uint32 state;		/* JobState */
	int			pid;
	TimestampTz started_at;
	pg_atomic_uint64 keys;		/* key numbers processed, this run */
	pg_atomic_uint64 rows;		/* rows written, this run, committed or not */
	pg_atomic_uint64 bytes;
	pg_atomic_uint64 duplicates;
	slock_t		mutex;			/* protects the rate sample and text fields */
	TimestampTz rate_at;		/* recent rates count from this sample */
	int64		rate_rows;
	int64		rate_bytes;
	char		reason[JOB_TEXT_LEN];	/* why paused/throttled */
	char		last_error[JOB_TEXT_LEN];
	TimestampTz last_error_at;
	char		current_index[JOB_TEXT_LEN];	/* being built, or "" */
	char		activity[JOB_TEXT_LEN]; /* how it writes its unit, or "" */
	int64		unit;			/* chunk (leaf job: leaf number) being
								 * written, or -1 */
	int64		unit_base_keys; /* the keys counter when it began */
	int64		unit_keys;		/* its key numbers (a leaf's: estimated) */
	Oid			unit_leaf;		/* a leaf job's leaf being written */
	int64		claimed;		/* the unit claimed last, or -1 */
	TimestampTz replaced_at;	/* when the launcher replaced a dead worker
								 * here (0: never), under mutex */
	WaitRing	waits;			/* what it waited on lately */
} WorkerSlot;

/* The live state of one run of a job. */
typedef struct JobShared
{
	uint32		magic;
	int64		job;
	int32		run;
	int32		nworkers;
	int64		nchunks;
	TimestampTz started_at;
	int64		base_keys;		/* done before this run (from the ledger) */
	int64		base_rows;
	int64		base_bytes;
	pg_atomic_uint64 next_chunk;	/* chunks are claimed in order */
	pg_atomic_uint32 active;	/* workers that have not left yet */
	pg_atomic_uint32 stop_requested;
	pg_atomic_uint32 failed;	/* some worker failed */
	pg_atomic_uint32 failed_code;	/* the first failure's sqlerrcode */
	pg_atomic_uint64 headroom;	/* smallest free - reserve, bytes */
	pg_atomic_uint64 next_log_at;	/* TimestampTz of the next progress_log
									 * row */
	pg_atomic_uint32 loading;	/* workers still claiming chunks */
	pg_atomic_uint32 phase;		/* JobPhase */

	/*
	 * A method with a preparing phase (a leaf job routes ranges first, then
	 * loads leaves as chunks) prepares nranges units (worker.c)
	 */
	int64		nranges;
	pg_atomic_uint64 next_range;	/* ranges are claimed in order */
	pg_atomic_uint32 routing;	/* workers still preparing (routing) */
	pg_atomic_uint32 attached;	/* workers that have attached the segment */
	pg_atomic_uint32 pin;		/* LivePin */
	/* JobDef's settings alter() changes: the values, cast to uint64 */
	pg_atomic_uint64 max_rate;
	pg_atomic_uint64 disk_reserve;
	RateHistory history;		/* rows written while loading, over time */
	WorkerSlot	workers[FLEXIBLE_ARRAY_MEMBER];
} JobShared;

/* A job as recorded in petagen.jobs. */
typedef struct JobDef
{
	int64		job;
	Oid			relid;
	int64		first;			/* the first key number (YCSB's insertstart) */
	int64		rows;
	int32		nworkers;
	int32		run;
	int64		chunk_rows;
	GenSpec		spec;
	int64		disk_reserve;	/* bytes, or -1: the GUC alone (job_reserve) */
	int64		max_rate;		/* bytes per second, or 0 for no cap */
	bool		frozen;			/* rows written frozen: see load.h */
	bool		indexes_after;	/* indexes set aside, built at the end */
	const LoadMethod *method;	/* chunk or leaf: see load.h */
	bool		method_auto;	/* start() chose it (options.c) */
	char	   *method_reason;	/* why this method, as start() chose it; NULL
								 * if read from the catalog or called through
								 * 0.1's start() */
	int64		route_token;	/* its method's new_token() (load.h), or 0 */
	Oid			owner;			/* the role the workers run as */
	char		state[16];		/* as in the catalog */
	bool		ours;			/* row written by this transaction */
	dsm_handle	handle;
	/* the settings jobsettings.h declares itself */
				JOB_SETTINGS(JS_DECL)
} JobDef;

/* What a worker gets in bgw_extra. */
typedef struct WorkerArgs
{
	int64		job;
	int32		run;
	int32		index;
	Oid			database;
	Oid			role;
	TransactionId starter_xid;	/* wait for it: the job row may be uncommitted */
	dsm_handle	handle;
	bool		replacing;		/* replaces a worker of the run that died */
	int64		redo;			/* a replacement's first unit, or -1 */
} WorkerArgs;

#endif							/* PETAGEN_JOBDEF_H */
