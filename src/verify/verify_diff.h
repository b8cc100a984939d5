/*-------------------------------------------------------------------------
 * verify_diff.h
 *		Naming the missing, extra and duplicated keys of a local leaf whose
 *		fingerprint differs from the key space's, for petagen.verify().
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_DIFF_H
#define PETAGEN_VERIFY_DIFF_H

#include "utils/relcache.h"

typedef struct LeafDiff LeafDiff;

extern LeafDiff *leafdiff_begin(Relation heap, Relation index, int64 hashes);
extern void leafdiff_probe(LeafDiff *diff, Datum key, const char *bytes,
						   int len);
extern void leafdiff_ignore(LeafDiff *diff, const char *bytes, int len);
extern void leafdiff_finish(LeafDiff *diff, int64 rows, int64 *found,
							int64 *missing);

#endif							/* PETAGEN_VERIFY_DIFF_H */
