/*-------------------------------------------------------------------------
 * debug_pause.h
 *		petagen.debug_pause: a test-only setting that holds load workers at
 *		a named point of their loop, so that tests control the timing they
 *		depend on instead of racing the machine.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_DEBUG_PAUSE_H
#define PETAGEN_DEBUG_PAUSE_H

/* Where in a chunk's life a worker can be held. */
typedef enum DebugPausePoint
{
	DEBUG_PAUSE_NONE,
	DEBUG_PAUSE_BEFORE_CHUNK,	/* a chunk claimed, nothing of it written yet */
	DEBUG_PAUSE_MID_CHUNK,		/* some of its rows written, the rest to come */
	DEBUG_PAUSE_BEFORE_COMMIT	/* its rows written; its ledger row and commit
								 * to come */
} DebugPausePoint;

#include "utils/guc.h"

/* The setting, its hooks (petagen.c defines it). */
extern char *debug_pause_setting;
extern bool debug_pause_check(char **newval, void **extra, GucSource source);
extern void debug_pause_assign(const char *newval, void *extra);
extern bool debug_pause_at(DebugPausePoint point, int64 chunk);
extern const char *debug_pause_name(DebugPausePoint point);

#endif							/* PETAGEN_DEBUG_PAUSE_H */
