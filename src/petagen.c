/*-------------------------------------------------------------------------
 * petagen.c
 *		Module entry point: PG_MODULE_MAGIC, _PG_init and every petagen.*
 *		setting.
 *
 * petagen generates YCSB-shaped rows inside the server.  The code is in
 * one directory per layer (gen, route, load, job, then bench and verify),
 * each including only the layers before it (scripts/check_layers.sh);
 * docs/architecture.md maps every file along the data path of a load.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "debug_pause.h"
#include "launch.h"
#include "petagen.h"

PG_MODULE_MAGIC;

int			petagen_disk_reserve_mb = 1024;
int			petagen_progress_log_interval = 300;
bool		petagen_auto_resume = true;
int			petagen_auto_retry = 3;
int			petagen_auto_retry_delay = 30;
int			petagen_straggler_window = 60;

void		_PG_init(void);

/*
 * Module load: define the settings, reserve the petagen.* GUC prefix and,
 * when preloaded, register the auto-resume launcher.
 */
void
_PG_init(void)
{
	DefineCustomIntVariable("petagen.disk_reserve",
							"Free space load workers leave on every filesystem they write.",
							"Workers pause before a batch that would leave less; a job's disk_reserve option may raise this, not lower it.",
							&petagen_disk_reserve_mb, 1024, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("petagen.progress_log_interval",
							"Time between rows a load job adds to petagen.progress_log.",
							NULL, &petagen_progress_log_interval, 300, 1, 86400,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomStringVariable("petagen.debug_pause",
							   "For tests only: holds load workers at a point of their loop.",
							   "'before_chunk' or 'before_commit', optionally ':N' for chunks numbered N or higher; '' (the default) pauses nowhere.",
							   &debug_pause_setting, "", PGC_SUSET, 0,
							   debug_pause_check, debug_pause_assign, NULL);
	DefineCustomBoolVariable("petagen.auto_resume",
							 "Resumes interrupted load jobs after a restart or a crash.",
							 "Only when petagen is in shared_preload_libraries: its launcher resumes, as each job's owner, the jobs a restart interrupted.",
							 &petagen_auto_resume, true, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("petagen.auto_retry",
							"Times the launcher retries a load job that failed for a transient cause.",
							"Only when petagen is in shared_preload_libraries: its launcher resumes, as the job's owner, a job that failed for a cause a retry may not meet again (a lock timeout, a deadlock, a lack of resources, an I/O error); 0 retries none.",
							&petagen_auto_retry, 3, 0, 1000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("petagen.auto_retry_delay",
							"Wait before a load job's first automatic retry; each next one waits twice as long, 10 minutes at most.",
							NULL, &petagen_auto_retry_delay, 30, 1, 600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("petagen.straggler_window",
							"How long a node of a cluster load must load slower than the others to be named a straggler.",
							"cluster_status() names a node whose rate over this window is below 60% of the median of the loading nodes' rates over it.",
							&petagen_straggler_window, 60, 1, RATE_WINDOW_MAX_S,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);
	MarkGUCPrefixReserved("petagen");
	if (process_shared_preload_libraries_in_progress)
		launch_register_autoresume();
}
