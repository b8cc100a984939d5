/*-------------------------------------------------------------------------
 * hist.c
 *		A latency histogram with logarithmic buckets: recording, merging
 *		the histograms of several workers, percentiles.
 *
 * A value v < 32 has its own bucket.  Above, with e = floor(log2 v), the
 * bucket is one of 32 of width 2^(e-5) covering [2^e, 2^(e+1)): index
 * 32 + (e-5)*32 + (v >> (e-5)) - 32.  A percentile is reported as the
 * middle of its bucket (never above the largest value recorded), so it is
 * within 1/64 of the truth relative to the value.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "port/pg_bitutils.h"

#include "gen/hist.h"

/* Empty a histogram. */
void
hist_init(Hist *hist)
{
	memset(hist, 0, sizeof(Hist));
}

/* The bucket of a value. */
static inline int
hist_bucket(uint64 value)
{
	int			e;

	if (value < HIST_SUB)
		return (int) value;
	e = pg_leftmost_one_pos64(value);
	return HIST_SUB + (e - HIST_SUB_BITS) * HIST_SUB +
		(int) (value >> (e - HIST_SUB_BITS)) - HIST_SUB;
}

/* The smallest value of a bucket, and its width. */
void
hist_bucket_range(int bucket, uint64 *low, uint64 *width)
{
	int			e;

	if (bucket < HIST_SUB)
	{
		*low = bucket;
		*width = 1;
		return;
	}
	e = (bucket - HIST_SUB) / HIST_SUB + HIST_SUB_BITS;
	*width = UINT64CONST(1) << (e - HIST_SUB_BITS);
	*low = (uint64) (HIST_SUB + (bucket - HIST_SUB) % HIST_SUB) * *width;
}

/* Record one value. */
void
hist_add(Hist *hist, uint64 value)
{
	hist_add_count(hist, value, 1);
}

/* Record n times the same value: rebuilds a histogram from its buckets. */
void
hist_add_count(Hist *hist, uint64 value, uint64 n)
{
	hist->buckets[hist_bucket(value)] += n;
	hist->count += n;
	if (value > hist->max)
		hist->max = value;
}

/* Add the counts of one histogram to another. */
void
hist_merge(Hist *into, const Hist *from)
{
	for (int i = 0; i < HIST_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
	into->count += from->count;
	into->max = Max(into->max, from->max);
}

/* The value below which a fraction (0 .. 1) of the values lie; 0 if empty. */
double
hist_percentile(const Hist *hist, double fraction)
{
	uint64		rank;
	uint64		seen = 0;

	if (hist->count == 0)
		return 0;
	rank = (uint64) ceil(fraction * hist->count);
	rank = Max(rank, 1);
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		seen += hist->buckets[i];
		if (seen >= rank)
		{
			uint64		low;
			uint64		width;

			hist_bucket_range(i, &low, &width);
			return Min(low + (width - 1) / 2.0, (double) hist->max);
		}
	}
	return (double) hist->max;
}
