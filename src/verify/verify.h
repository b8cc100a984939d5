/*-------------------------------------------------------------------------
 * verify.h
 *		What the chapters of verify/ share: reading a local leaf's keys and
 *		their fingerprint, the fingerprints computed in parallel, the diff of
 *		a leaf that differs, remote probes, and benchmark rows explained.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_H
#define PETAGEN_VERIFY_H

#include "utils/relcache.h"

#include "gen/keys.h"
#include "job/jobdef.h"
#include "route/route.h"

/*-------------------------------------------------------------------------
 *		Probing the keys of a remote leaf (foreign, or a Citus shard on
 *		another node) in batches, one remote query per batch, for
 *		petagen.verify().
 *-------------------------------------------------------------------------
 */

typedef struct FdwProbe FdwProbe;

extern FdwProbe *fdwprobe_open(Oid relid);
extern void fdwprobe_finish(FdwProbe *probe, int64 *found, int64 *missing);

/*-------------------------------------------------------------------------
 *		Reading every ycsb_key a local leaf holds, in one pass, and the
 *		order-independent fingerprint of a set of keys, for petagen.verify().
 *-------------------------------------------------------------------------
 */

/* A multiset of keys, whatever their order: count and a 128-bit hash sum. */
typedef struct KeyPrint
{
	int64		count;
	uint64		sum_low;
	uint64		sum_high;
} KeyPrint;

typedef struct LeafScan LeafScan;

extern bool keyprint_equal(const KeyPrint *a, const KeyPrint *b);

/*-------------------------------------------------------------------------
 *		The fingerprints of petagen.verify(): what the key space routes to
 *		each leaf and what each local leaf holds, computed by the calling
 *		backend and parallel workers together.
 *-------------------------------------------------------------------------
 */

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

/*-------------------------------------------------------------------------
 *		Naming the missing, extra and duplicated keys of a local leaf whose
 *		fingerprint differs from the key space's, for petagen.verify().
 *-------------------------------------------------------------------------
 */

typedef struct LeafDiff LeafDiff;

extern LeafDiff *leafdiff_begin(Relation heap, Relation index, int64 hashes);
extern void leafdiff_probe(LeafDiff *diff, Datum key, const char *bytes,
						   int len);
extern void leafdiff_ignore(LeafDiff *diff, const char *bytes, int len);
extern void leafdiff_finish(LeafDiff *diff, int64 rows, int64 *found,
							int64 *missing);

/*-------------------------------------------------------------------------
 *		Why petagen.verify(job) finds extra rows: the rows that benchmark
 *		runs inserted.  See verify.c.
 *-------------------------------------------------------------------------
 */

/* Called with each row left out: its leaf and its key's text, len bytes. */
typedef void (*VerifyIgnoreFn) (void *arg, int leaf, const char *key, int len);

#endif							/* PETAGEN_VERIFY_H */
