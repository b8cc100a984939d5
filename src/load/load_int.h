/*-------------------------------------------------------------------------
 * load_int.h
 *		What the chapters of load/ share among themselves and nothing above
 *		them needs: the writer, leaf pages and leaf storage.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LOAD_INT_H
#define PETAGEN_LOAD_INT_H

#include "access/htup.h"
#include "common/relpath.h"
#include "storage/bufpage.h"
#include "nodes/execnodes.h"
#include "utils/relcache.h"

#include "gen/shape.h"
#include "gen/spec.h"
#include "load/load.h"
#include "route/route.h"

/*-------------------------------------------------------------------------
 *		The direct writer of a leaf load: frozen heap pages built in backend
 *		memory and handed to storage in bulk, with the visibility map.
 *-------------------------------------------------------------------------
 */

typedef struct LeafPages LeafPages;
typedef struct LeafRowMap LeafRowMap;

extern LeafPages *leafpages_begin(Relation rel, LeafRowMap *map);
extern void leafpages_add(LeafPages *lp, HeapTuple tuple);
extern void leafpages_finish(LeafPages *lp);

/*-------------------------------------------------------------------------
 *		A leaf's values stored out of line, written by the direct writer
 *		into its new TOAST table, whose index is built after them.  See
 *		leaftoast.c.
 *-------------------------------------------------------------------------
 */

typedef struct LeafToast LeafToast;

extern LeafToast *leaftoast_begin(Relation rel);
extern HeapTuple leaftoast_tuple(LeafToast *lt, HeapTuple tuple);
extern void leaftoast_finish(LeafToast *lt);
extern void leaftoast_build_unbuilt(Oid toastrelid);

/*-------------------------------------------------------------------------
 *		A leaf's new files written past the page cache (O_DIRECT), or
 *		through the bulk writer where the filesystem refuses it.  See
 *		leafdirect.c.
 *-------------------------------------------------------------------------
 */

typedef struct LeafDirect LeafDirect;

/* What status_workers() and check() say of a leaf's writer. */
#define LEAFDIRECT_DIRECT	"O_DIRECT writes"
#define LEAFDIRECT_BUFFERED "buffered: no O_DIRECT"

extern const char *leafdirect_writer(Oid relid);
extern LeafDirect *leafdirect_start(Relation rel, ForkNumber fork);
extern bool leafdirect_is_direct(const LeafDirect *d);
extern Page leafdirect_get_buf(LeafDirect *d);
extern void leafdirect_write(LeafDirect *d, BlockNumber blkno, Page page,
							 bool page_std);
extern void leafdirect_finish(LeafDirect *d);

/*-------------------------------------------------------------------------
 *		The new files of a leaf being written by a leaf load, recorded on
 *		disk before its commit, so that the files a crash leaves behind are
 *		removed by resume().  See leafload.c.
 *-------------------------------------------------------------------------
 */

extern void leaf_storage_forget(int64 job, int leafno);
extern int	leaf_storage_remove_orphans(int64 job, const uint8 *done,
										int nleaves);

/*-------------------------------------------------------------------------
 *		Per-leaf multi-insert buffers: building leaf rows, heap_multi_insert
 *		and index maintenance for the local leaves of one load.
 *
 * A Writer lives for one transaction, inside one load_range() call.
 *-------------------------------------------------------------------------
 */

typedef struct Writer Writer;

extern Writer *writer_open_direct(Oid relid, const GenSpec *spec,
								  LeafRowMap *map);
extern bool writer_add(Writer *writer, int leaf, int64 seq, Datum key,
					   LoadStats *stats);
extern void writer_flush_all(Writer *writer, LoadStats *stats);
extern void writer_close(Writer *writer);

#endif							/* PETAGEN_LOAD_INT_H */
