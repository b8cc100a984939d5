/*-------------------------------------------------------------------------
 * guard.c
 *		Refusing what must not happen where it is asked for: writes in a
 *		read-only transaction or on a hot standby, and a table argument the
 *		caller could not have named.
 *
 * A regclass argument may be given as a bare OID, which skips the USAGE
 * check on the table's schema that name lookup does: guard_table() makes
 * it, so a table is reachable through petagen exactly when it is reachable
 * by name.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "compat.h"
#include "guard.h"

/* Raise PostgreSQL's errors for a write in a read-only transaction or recovery. */
void
guard_writable(const char *funcname)
{
	PreventCommandIfReadOnly(funcname);
	PreventCommandDuringRecovery(funcname);
}

/* Raise an error unless relid is a relation whose schema the user may use. */
void
guard_table(Oid relid)
{
	Oid			nspid = get_rel_namespace(relid);
	AclResult	acl;

	if (!OidIsValid(nspid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	acl = compat_namespace_aclcheck(nspid, GetUserId(), ACL_USAGE);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_SCHEMA, get_namespace_name(nspid));
}

/* A table argument given as text, a possibly qualified name, resolved. */
Oid
guard_table_name(text *name)
{
	List	   *names = textToQualifiedNameList(name);

	return RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock,
							false);
}
