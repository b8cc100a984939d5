/*-------------------------------------------------------------------------
 * petagen.c
 *		Module entry point: PG_MODULE_MAGIC and _PG_init, nothing else.
 *
 * petagen generates YCSB-shaped rows inside the server.  The data path reads
 * top to bottom: keys.c (key numbers -> keys), rowgen.c (field bytes and
 * rows), shape.c (which tables are YCSB-shaped), spec.c (validated
 * generation options), rows.c (the SQL generator).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "compat.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Module load: reserve the petagen.* GUC prefix. */
void
_PG_init(void)
{
	MarkGUCPrefixReserved("petagen");
}
