/*-------------------------------------------------------------------------
 * hist.h
 *		A latency histogram with logarithmic buckets (HDR-style): exact
 *		below 32, then 32 linear sub-buckets per power of two, so any
 *		value is known to within 1/32 (about 3%).  Fixed size, no
 *		allocation: it lives in a benchmark's shared memory.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_HIST_H
#define PETAGEN_HIST_H

#define HIST_SUB_BITS	5
#define HIST_SUB		(1 << HIST_SUB_BITS)
/* values 0 .. 31, then 32 sub-buckets for each exponent 5 .. 63 */
#define HIST_BUCKETS	(HIST_SUB + (64 - HIST_SUB_BITS) * HIST_SUB)

typedef struct Hist
{
	uint64		count;
	uint64		max;
	uint64		buckets[HIST_BUCKETS];
} Hist;

extern void hist_init(Hist *hist);
extern void hist_add(Hist *hist, uint64 value);
extern void hist_add_count(Hist *hist, uint64 value, uint64 n);
extern void hist_merge(Hist *into, const Hist *from);
extern double hist_percentile(const Hist *hist, double fraction);
extern void hist_bucket_range(int bucket, uint64 *low, uint64 *width);

#endif							/* PETAGEN_HIST_H */
