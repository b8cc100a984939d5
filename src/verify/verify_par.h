/*-------------------------------------------------------------------------
 * verify_par.h
 *		The fingerprints of petagen.verify(): what the key space routes to
 *		each leaf and what each local leaf holds, computed by the calling
 *		backend and parallel workers together.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_PAR_H
#define PETAGEN_VERIFY_PAR_H

#include "gen/keys.h"
#include "verify/verify_fdw.h"
#include "verify/verify_scan.h"

/* What verify_prints() computes for one leaf. */
typedef struct VerifyPrint
{
	Oid			relid;
	Oid			index;			/* its key index; InvalidOid: a foreign leaf */
	KeyPrint	want;			/* the keys routed to it (a count if foreign) */
	KeyPrint	have;			/* the keys a local leaf holds */
} VerifyPrint;

/* The key numbers verify() checks: first .. first+rows-1. */
typedef struct VerifyRange
{
	int64		first;
	int64		rows;
} VerifyRange;

extern void verify_prints(Oid relid, const KeySpec *keys,
						  const VerifyRange *range,
						  VerifyPrint *prints, int nleaves, FdwProbe **remote,
						  int nworkers);

#endif							/* PETAGEN_VERIFY_PAR_H */
