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
 * reindex_relation(): 17 added a leading ReindexStmt argument (NULL when
 * not called for a REINDEX statement, as TRUNCATE calls it) and made the
 * params const.
 */
#if PG_VERSION_NUM >= 170000
#define compat_reindex_relation(relid, flags, params) \
	reindex_relation(NULL, (relid), (flags), (params))
#else
#define compat_reindex_relation(relid, flags, params) \
	reindex_relation((relid), (flags), (params))
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

#endif							/* PETAGEN_COMPAT_H */
