/*-------------------------------------------------------------------------
 * debug_pause.c
 *		The petagen.debug_pause setting, for tests: 'point' or 'point:N'
 *		holds every load worker that reaches point (before_chunk,
 *		mid_chunk, before_commit) in a chunk numbered N or higher (0 when
 *		omitted), until the setting changes and the configuration is
 *		reloaded.  In a leaf job (method => 'leaf') a chunk is a whole local
 *		leaf, numbered in routing order: mid_chunk:N holds a leaf partly
 *		written into its new storage (at the first progress report after
 *		some of its rows, whatever writes them), before_commit:N a leaf
 *		written, indexes built, locked ACCESS EXCLUSIVE for its commit,
 *		uncommitted.
 *
 * PostgreSQL 15 has no injection points, so this is how petagen's tests
 * place a worker exactly where they need it: paused in the middle of a
 * chunk's rows or before its commit, with uncommitted frozen rows written,
 * or between chunks with some chunks committed.  The worker side (waiting on the latch, honouring stop and
 * SIGTERM meanwhile, showing the pause in status()) is in worker.c.
 * The setting is superuser-only: set it with ALTER SYSTEM and
 * pg_reload_conf().
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "debug_pause.h"

/* The parsed setting, kept by the assign hook. */
typedef struct DebugPause
{
	DebugPausePoint point;
	int64		first_chunk;
} DebugPause;

char	   *debug_pause_setting = NULL;
static DebugPause debug_pause = {DEBUG_PAUSE_NONE, 0};

static const char *const debug_pause_names[] = {"", "before_chunk", "mid_chunk", "before_commit"};

/* The name of a pause point, as the setting spells it. */
const char *
debug_pause_name(DebugPausePoint point)
{
	return debug_pause_names[point];
}

/* Parse 'point' or 'point:N' into *out; false if it is neither. */
static bool
debug_pause_parse(const char *value, DebugPause *out)
{
	const char *colon = strchr(value, ':');
	size_t		len = colon ? (size_t) (colon - value) : strlen(value);

	out->point = DEBUG_PAUSE_NONE;
	out->first_chunk = 0;
	if (len == 0 && colon == NULL)
		return true;
	for (int i = DEBUG_PAUSE_BEFORE_CHUNK; i < lengthof(debug_pause_names); i++)
		if (strlen(debug_pause_names[i]) == len &&
			strncmp(value, debug_pause_names[i], len) == 0)
			out->point = (DebugPausePoint) i;
	if (out->point == DEBUG_PAUSE_NONE)
		return false;
	if (colon != NULL)
	{
		char	   *end;

		errno = 0;
		out->first_chunk = strtoll(colon + 1, &end, 10);
		if (errno != 0 || end == colon + 1 || *end != '\0' || out->first_chunk < 0)
			return false;
	}
	return true;
}

/* GUC check hook: accept '', 'point' or 'point:N'. */
bool
debug_pause_check(char **newval, void **extra, GucSource source)
{
	DebugPause	parsed;

	if (*newval == NULL || debug_pause_parse(*newval, &parsed))
		return true;
	GUC_check_errdetail("Use '', 'before_chunk', 'mid_chunk' or 'before_commit', optionally followed by ':' and the first chunk number to pause in.");
	return false;
}

/* GUC assign hook: keep the parsed setting (the check hook accepted it). */
void
debug_pause_assign(const char *newval, void *extra)
{
	if (newval == NULL || !debug_pause_parse(newval, &debug_pause))
		debug_pause.point = DEBUG_PAUSE_NONE;
}

/* Does the setting hold a worker at point in chunk `chunk`? */
bool
debug_pause_at(DebugPausePoint point, int64 chunk)
{
	return debug_pause.point == point && chunk >= debug_pause.first_chunk;
}
