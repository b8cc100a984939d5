/*-------------------------------------------------------------------------
 * compat.h
 *		Every PG_VERSION_NUM difference petagen cares about, in one place.
 *
 * petagen is developed on PostgreSQL 15 and must build on 16 and 17.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_COMPAT_H
#define PETAGEN_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "petagen requires PostgreSQL 15 or later"
#endif

/*
 * ExecInsertIndexTuples(): 16 added the trailing onlySummarizing argument
 * (true only for HOT updates); 17 keeps it.  petagen only inserts, so it is
 * always false.
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

#endif							/* PETAGEN_COMPAT_H */
