/*-------------------------------------------------------------------------
 * compat.h
 *		Every PG_VERSION_NUM difference petagen cares about, in one place.
 *
 * petagen supports PostgreSQL 15 and later; CI builds and tests 15, 16 and
 * 18.
 * Each block names the release that changed what it wraps.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_COMPAT_H
#define PETAGEN_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "petagen requires PostgreSQL 15 or later"
#endif

/*
 * Materialized set-returning functions: 15.0 named the helper
 * SetSingleFuncCall() and its flag SRF_SINGLE_USE_EXPECTED; 15.1 renamed
 * them InitMaterializedSRF() and MAT_SRF_USE_EXPECTED_DESC (keeping the old
 * names as wrappers), the names every later release has.
 */
#if PG_VERSION_NUM < 150001
#define InitMaterializedSRF(fcinfo, flags) SetSingleFuncCall((fcinfo), (flags))
#define MAT_SRF_USE_EXPECTED_DESC SRF_SINGLE_USE_EXPECTED
#endif

/* 16 moved the varlena macros (VARDATA, SET_VARSIZE, ...) out of postgres.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * index_beginscan(): 18 added an IndexScanInstrumentation argument (for
 * EXPLAIN ANALYZE) before nkeys; petagen's own scans are not instrumented.
 */
#if PG_VERSION_NUM >= 180000
#define compat_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), (norderbys))
#else
#define compat_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), (nkeys), (norderbys))
#endif

/*
 * Background workers connecting as a role without LOGIN: 17 added
 * BGWORKER_BYPASS_ROLELOGINCHECK, so petagen's workers, which connect as the
 * caller, can run for a NOLOGIN role (e.g. after SET ROLE).  Before 17 such a
 * worker fails to connect, so petagen refuses the call up front.
 */
#if PG_VERSION_NUM >= 170000
#define COMPAT_BGW_NOLOGIN_OK true
#define COMPAT_BGW_CONNECT_FLAGS BGWORKER_BYPASS_ROLELOGINCHECK
#else
#define COMPAT_BGW_NOLOGIN_OK false
#define COMPAT_BGW_CONNECT_FLAGS 0
#endif

/*
 * The backend status entries of this transaction's snapshot, by 1-based
 * index: 16 renamed pgstat_fetch_stat_local_beentry().
 */
#if PG_VERSION_NUM >= 160000
#define compat_local_beentry(idx) pgstat_get_local_beentry_by_index(idx)
#else
#define compat_local_beentry(idx) pgstat_fetch_stat_local_beentry(idx)
#endif

/*
 * Wait events: 17 lets an extension name its own (WaitEventExtensionNew), so
 * pg_stat_activity.wait_event says what a petagen process waits for; before
 * 17 every extension's wait is "Extension".
 */
#if PG_VERSION_NUM >= 170000
#define compat_wait_event(name) WaitEventExtensionNew(name)
#else
#define compat_wait_event(name) PG_WAIT_EXTENSION
#endif

/*
 * A wait event set that lives as long as the process: 17 takes a resource
 * owner (none: the session's), 15 and 16 a memory context.
 */
#if PG_VERSION_NUM >= 170000
#define compat_create_wait_event_set(nevents) CreateWaitEventSet(NULL, (nevents))
#else
#define compat_create_wait_event_set(nevents) CreateWaitEventSet(TopMemoryContext, (nevents))
#endif

/*
 * ExecInsertIndexTuples(): 16 added the trailing onlySummarizing argument
 * (true only for HOT updates); 17 and 18 keep it.  petagen only inserts, so
 * it is always false.
 */
#if PG_VERSION_NUM >= 160000
#define compat_insert_index_tuples(rri, slot, estate) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL, false)
#else
#define compat_insert_index_tuples(rri, slot, estate) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL)
#endif

/* Ownership of a relation: 16 folded the per-class checks into one. */
#if PG_VERSION_NUM >= 160000
#define compat_class_ownercheck(relid, role) \
	object_ownercheck(RelationRelationId, (relid), (role))
#else
#define compat_class_ownercheck(relid, role) pg_class_ownercheck((relid), (role))
#endif

/* USAGE and the like on a schema: 16 folded the per-class checks into one. */
#if PG_VERSION_NUM >= 160000
#define compat_namespace_aclcheck(nspid, role, mode) \
	object_aclcheck(NamespaceRelationId, (nspid), (role), (mode))
#else
#define compat_namespace_aclcheck(nspid, role, mode) \
	pg_namespace_aclcheck((nspid), (role), (mode))
#endif

/*
 * A relation's new, empty storage, as TRUNCATE gives it: 16 renamed
 * RelationSetNewRelfilenode() (relfilenode -> relfilenumber) without other
 * change.
 */
#if PG_VERSION_NUM >= 160000
#define compat_set_new_relfilenumber(rel, persistence) \
	RelationSetNewRelfilenumber((rel), (persistence))
#else
#define compat_set_new_relfilenumber(rel, persistence) \
	RelationSetNewRelfilenode((rel), (persistence))
#endif

/*
 * Where a relation's files are: 16 renamed RelFileNode (spcNode, dbNode,
 * relNode) to RelFileLocator (spcOid, dbOid, relNumber), same layout, and
 * RelidByRelfilenode() to RelidByRelfilenumber().
 */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
#include "utils/relfilenumbermap.h"
typedef RelFileLocator CompatRelFile;
#define compat_rel_file(rel) ((rel)->rd_locator)
#define COMPAT_FILE_SPC(f) ((f).spcOid)
#define COMPAT_FILE_DB(f) ((f).dbOid)
#define COMPAT_FILE_NUMBER(f) ((f).relNumber)
#define compat_relid_by_file(spc, number) RelidByRelfilenumber((spc), (number))
#else
#include "storage/relfilenode.h"
#include "utils/relfilenodemap.h"
typedef RelFileNode CompatRelFile;
#define compat_rel_file(rel) ((rel)->rd_node)
#define COMPAT_FILE_SPC(f) ((f).spcNode)
#define COMPAT_FILE_DB(f) ((f).dbNode)
#define COMPAT_FILE_NUMBER(f) ((f).relNode)
#define compat_relid_by_file(spc, number) RelidByRelfilenode((spc), (number))
#endif

/*
 * The path of a fork's first segment file, into path (MAXPGPATH): 18 made
 * relpathperm() return a struct holding the string instead of a palloc'd
 * string.
 */
#if PG_VERSION_NUM >= 180000
#define compat_relpath(file, fork, path) \
	strlcpy((path), relpathperm((file), (fork)).str, MAXPGPATH)
#else
#define compat_relpath(file, fork, path) \
	do { \
		char	   *compat_p = relpathperm((file), (fork)); \
		strlcpy((path), compat_p, MAXPGPATH); \
		pfree(compat_p); \
	} while (0)
#endif

/*
 * Writing a new relation's pages from backend memory, bypassing shared
 * buffers (leafload.c), as CLUSTER's rewriteheap.c and nbtsort.c do.
 * 17 added storage/bulk_write.h, which WAL-logs the pages as full-page
 * images when RelationNeedsWAL(), sets their checksums, and syncs the fork
 * at the end (or has the next checkpoint do it).  Before 17 those callers
 * did the same by hand, which the functions below repeat: pages are
 * WAL-logged in batches (log_newpages), checksummed, and appended with
 * smgrextend(skipFsync); at the end the fork is synced with smgrimmedsync,
 * except for a permanent relation written without WAL (wal_level = minimal,
 * storage new in this transaction), which the pending sync at commit
 * covers.  The caller writes blocks 0, 1, 2 ... in order, each page from
 * compat_bulk_get_buf(), which compat_bulk_write() takes over (frees).
 */
#if PG_VERSION_NUM >= 170000
#include "storage/bulk_write.h"
typedef BulkWriteState CompatBulkWrite;
#define compat_bulk_start(rel, fork) smgr_bulk_start_rel((rel), (fork))
#define compat_bulk_get_buf(bulk) ((Page) smgr_bulk_get_buf(bulk))
#define compat_bulk_write(bulk, blkno, page, page_std) \
	smgr_bulk_write((bulk), (blkno), (BulkWriteBuffer) (page), (page_std))
#define compat_bulk_finish(bulk) smgr_bulk_finish(bulk)
#else
#include "access/xloginsert.h"
#include "access/xlogrecord.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "utils/rel.h"

/* Pages logged in one WAL record at most, as bulk_write.c batches them. */
#define COMPAT_BULK_BATCH	XLR_MAX_BLOCK_ID

/* One fork being written. */
typedef struct CompatBulkWrite
{
	Relation	rel;
	ForkNumber	fork;
	bool		use_wal;
	bool		page_std;		/* of the pending pages */
	MemoryContext cxt;			/* where page buffers are allocated */
	int			npending;
	BlockNumber blknos[COMPAT_BULK_BATCH];
	char	   *pages[COMPAT_BULK_BATCH];
} CompatBulkWrite;

/* Start writing fork of rel, whose storage is new and empty. */
static inline CompatBulkWrite *
compat_bulk_start(Relation rel, ForkNumber fork)
{
	CompatBulkWrite *bulk = palloc0(sizeof(CompatBulkWrite));

	bulk->rel = rel;
	bulk->fork = fork;
	bulk->use_wal = RelationNeedsWAL(rel);
	bulk->cxt = CurrentMemoryContext;
	return bulk;
}

/* A page-sized buffer for the next page, in the writer's context. */
#define compat_bulk_get_buf(bulk) ((Page) MemoryContextAlloc((bulk)->cxt, BLCKSZ))

/* Log, checksum and append the pending pages; free them. */
static inline void
compat_bulk_flush(CompatBulkWrite *bulk)
{
	if (bulk->npending == 0)
		return;
	if (bulk->use_wal)
		log_newpages(&compat_rel_file(bulk->rel), bulk->fork, bulk->npending,
					 bulk->blknos, bulk->pages, bulk->page_std);
	for (int i = 0; i < bulk->npending; i++)
	{
		PageSetChecksumInplace(bulk->pages[i], bulk->blknos[i]);
		smgrextend(RelationGetSmgr(bulk->rel), bulk->fork, bulk->blknos[i],
				   bulk->pages[i], true);
		pfree(bulk->pages[i]);
	}
	bulk->npending = 0;
}

/* Queue page as block blkno (the next one); page_std as for log_newpage. */
static inline void
compat_bulk_write(CompatBulkWrite *bulk, BlockNumber blkno, Page page,
				  bool page_std)
{
	if (bulk->npending == COMPAT_BULK_BATCH ||
		(bulk->npending > 0 && bulk->page_std != page_std))
		compat_bulk_flush(bulk);
	bulk->page_std = page_std;
	bulk->blknos[bulk->npending] = blkno;
	bulk->pages[bulk->npending++] = (char *) page;
}

/* Write what is pending and make the fork durable (see above). */
static inline void
compat_bulk_finish(CompatBulkWrite *bulk)
{
	compat_bulk_flush(bulk);
	if (bulk->use_wal || !RelationIsPermanent(bulk->rel))
		smgrimmedsync(RelationGetSmgr(bulk->rel), bulk->fork);
	pfree(bulk);
}
#endif

/*
 * The privilege check of a foreign server: 16 folded the per-object
 * aclcheck functions into object_aclcheck().
 */
#if PG_VERSION_NUM >= 160000
#define compat_foreign_server_aclcheck(srvid, roleid, mode) \
	object_aclcheck(ForeignServerRelationId, (srvid), (roleid), (mode))
#else
#define compat_foreign_server_aclcheck(srvid, roleid, mode) \
	pg_foreign_server_aclcheck((srvid), (roleid), (mode))
#endif

/*
 * Does collation collid compare text as bytes (memcmp, then length), as
 * "C" and "POSIX" do: 18 dropped lc_collate_is_c() for the locale's
 * collate_is_c.  The caller includes utils/pg_locale.h.
 */
#if PG_VERSION_NUM >= 180000
#define compat_collate_is_c(collid) \
	(pg_newlocale_from_collation(collid)->collate_is_c)
#else
#define compat_collate_is_c(collid) lc_collate_is_c(collid)
#endif

#endif							/* PETAGEN_COMPAT_H */
