/*-------------------------------------------------------------------------
 * writer.h
 *		Per-leaf multi-insert buffers: building leaf rows, heap_multi_insert
 *		and index maintenance for the local leaves of one load.
 *
 * A Writer lives for one transaction, inside one load_range() call.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_WRITER_H
#define PETAGEN_WRITER_H

#include "gen/spec.h"
#include "load/loadstats.h"
#include "route/route.h"

typedef struct Writer Writer;

extern Writer *writer_open(const Router *router, const GenSpec *spec,
						   bool frozen);
extern Writer *writer_open_direct(Oid relid, const GenSpec *spec);
extern bool writer_add(Writer *writer, int leaf, int64 seq, Datum key,
					   LoadStats *stats);
extern void writer_flush_all(Writer *writer, LoadStats *stats);
extern void writer_close(Writer *writer);

#endif							/* PETAGEN_WRITER_H */
