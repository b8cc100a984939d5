/*-------------------------------------------------------------------------
 * petagen.c
 *		Module entry point: PG_MODULE_MAGIC and _PG_init, nothing else.
 *
 * petagen generates YCSB-shaped rows inside the server.  The data path reads
 * top to bottom: job.c (the SQL calls and the job catalog) -> worker.c (a
 * background worker per share of the job) -> load.c (a range of key numbers
 * in one transaction) -> keys.c (number -> key) -> route.c (key -> leaf) ->
 * rowgen.c (field bytes, rows) -> writer.c (multi-insert, indexes).
 * Around it: shape.c and spec.c validate tables and options, rows.c is the
 * SQL generator, progress.c is status(), disk.c the free-space checks,
 * verify.c proves a loaded table, frozen.c keeps frozen loads exactly-once,
 * indexes.c sets indexes aside and builds them after the load, debug_pause.c
 * holds workers where a test needs them, guard.c refuses writes in
 * read-only transactions and on standbys, tables given by OID in a schema
 * the caller may not use, and DROP EXTENSION under live workers.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "compat.h"
#include "debug_pause.h"
#include "job/jobdef.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Module load: define the settings, reserve the petagen.* GUC prefix. */
void
_PG_init(void)
{
	job_init_gucs();
	debug_pause_init_guc();
	MarkGUCPrefixReserved("petagen");
}
