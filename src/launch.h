/*-------------------------------------------------------------------------
 * launch.h
 *		Starting petagen's background workers, for load jobs and benchmark
 *		runs alike, and the checks made before.  See launch.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LAUNCH_H
#define PETAGEN_LAUNCH_H

#include "postmaster/bgworker.h"

/* Most workers of one job or one benchmark run. */
#define LAUNCH_MAX_WORKERS	128

/* What a worker is: its entry point in the library and its names. */
typedef struct LaunchKind
{
	const char *function;		/* e.g. "petagen_worker_main" */
	const char *type;			/* bgw_type, e.g. "petagen worker" */
	const char *name_format;	/* bgw_name from (run id, worker index) */
	bool		notify;			/* signal this backend as the worker starts
								 * and stops */
} LaunchKind;

extern BackgroundWorkerHandle *launch_worker(const LaunchKind *kind, int64 id,
											 int index, int nworkers,
											 const void *args, Size args_len);
extern BackgroundWorkerHandle *launch_try_worker(const LaunchKind *kind, int64 id,
												 int index, const void *args,
												 Size args_len);
extern void launch_register_autoresume(void);
extern bool autoretry_transient(int sqlerrcode);
extern bool autoresume_in_worker(void);
extern int	launch_free_slots(void);
extern int	launch_autoresume_slots(void);
extern void launch_check_workers(int nworkers);
extern void launch_check_worker_count(int nworkers);
extern void launch_check_login(Oid role, const char *funcname);
extern ErrorData *launch_catch_and_abort(MemoryContext cxt);

#endif							/* PETAGEN_LAUNCH_H */
