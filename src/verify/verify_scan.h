/*-------------------------------------------------------------------------
 * verify_scan.h
 *		Reading every ycsb_key a local leaf holds, in one pass, and the
 *		order-independent fingerprint of a set of keys, for petagen.verify().
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_VERIFY_SCAN_H
#define PETAGEN_VERIFY_SCAN_H

#include "utils/relcache.h"

/* A multiset of keys, whatever their order: count and a 128-bit hash sum. */
typedef struct KeyPrint
{
	int64		count;
	uint64		sum_low;
	uint64		sum_high;
} KeyPrint;

typedef struct LeafScan LeafScan;

extern void keyprint_add(KeyPrint *kp, const char *key, int len);
extern void keyprint_merge(KeyPrint *a, const KeyPrint *b);
extern bool keyprint_equal(const KeyPrint *a, const KeyPrint *b);
extern uint64 keyprint_hash(const char *key, int len);

extern LeafScan *leafscan_begin(Relation heap, Relation index);
extern bool leafscan_next(LeafScan *ls, const char **key, int *len);
extern void leafscan_end(LeafScan *ls);

#endif							/* PETAGEN_VERIFY_SCAN_H */
