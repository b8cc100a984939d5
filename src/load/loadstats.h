/*-------------------------------------------------------------------------
 * loadstats.h
 *		What a load did, counted by the writer (writer.c) and summed by
 *		whoever loads: petagen.load(), the workers of chunk and leaf jobs.
 *
 * All counters only grow.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LOADSTATS_H
#define PETAGEN_LOADSTATS_H

/* What a load did; all counters only grow. */
typedef struct LoadStats
{
	int64		keys;			/* key numbers processed */
	int64		rows;			/* rows written */
	int64		bytes;			/* heap tuple bytes written */
	int64		duplicates;		/* ycsb/go-ycsb keys skipped as duplicates */
	int64		foreign;		/* keys skipped: their leaf is not local */
} LoadStats;

#endif							/* PETAGEN_LOADSTATS_H */
