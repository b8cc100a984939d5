/*-------------------------------------------------------------------------
 * petagen.h
 *		The petagen.* settings, defined in petagen.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_H
#define PETAGEN_H

extern int	petagen_disk_reserve_mb;
extern int	petagen_progress_log_interval;
extern bool petagen_auto_resume;
extern int	petagen_auto_retry;
extern int	petagen_auto_retry_delay;
extern int	petagen_straggler_window;

/*
 * Longest petagen.straggler_window: a run keeps its rate history that long
 * (jobdef.h, RATE_SAMPLES samples RATE_SAMPLE_MS apart).
 */
#define RATE_WINDOW_MAX_S	300

#endif							/* PETAGEN_H */
