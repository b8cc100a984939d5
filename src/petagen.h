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

#endif							/* PETAGEN_H */
