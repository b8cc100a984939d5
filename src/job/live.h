/*-------------------------------------------------------------------------
 * live.h
 *		A run's live state in dynamic shared memory: creating it, attaching
 *		to it, reading a job's state from it, and launching a run's
 *		workers when the transaction of start() or resume() commits.  See
 *		live.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LIVE_H
#define PETAGEN_LIVE_H

#include "job/jobdef.h"
#include "launch.h"

extern const char *job_state_name(JobState state);
extern const char *job_phase_name(JobPhase phase);
extern Size live_size(int nworkers);
extern void live_init(dsm_segment *seg, const JobDef *def, int64 nchunks);
extern void live_write_settings(JobShared *shared, const JobDef *def);
extern void live_read_settings(JobShared *shared, JobDef *def);
extern JobShared *job_attach(const JobDef *def, dsm_segment **seg);
extern bool job_worker_alive(WorkerSlot *slot);
extern bool live_is_running(const JobDef *def);
extern void live_attached(JobShared *shared, dsm_handle handle);
extern JobState job_current_state(const JobDef *def);
extern JobState job_total_state(JobShared *shared);
extern bool job_state_final(JobState state);

/* waits.c: what workers wait on, a run's rate history */
typedef enum WaitLimit
{
	WAIT_CPU,
	WAIT_DATA_WRITES,
	WAIT_SYNCS,
	WAIT_WAL,
	WAIT_LOCKS,
	WAIT_READS,
	WAIT_SLEEP,					/* a worker's own: max_rate, disk reserve */
	WAIT_OTHER,
	WAIT_NLIMITS
} WaitLimit;

/* Time waited per event and per limit, in milliseconds. */
typedef struct WaitProfile
{
	int64		total_ms;
	int64		limit_ms[WAIT_NLIMITS];
	int			nevents;
	uint32		events[WAIT_SAMPLES + 1];	/* wait_event_info, 0: CPU */
	int64		event_ms[WAIT_SAMPLES + 1];
} WaitProfile;

extern void waits_start(WaitRing *ring);
extern void waits_read(WorkerSlot *slot, WaitProfile *p);
extern WaitLimit waits_bound(const WaitProfile *p);
extern const char *waits_limit_name(WaitLimit limit);
extern char *waits_events_text(const WaitProfile *p);
extern char *waits_limits_text(const WaitProfile *p);
extern void history_sample(JobShared *shared);
extern double history_rate(JobShared *shared, double window_s);

/* the runs launched at commit */
extern const LaunchKind pending_worker_kind;
extern dsm_segment *pending_create_segment(Size size);
extern bool pending_has_job(int64 job);
extern void pending_launch(dsm_segment *seg, const WorkerArgs *args, int nworkers);

#endif							/* PETAGEN_LIVE_H */
