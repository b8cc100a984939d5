/*-------------------------------------------------------------------------
 * sizing.c
 *		The sizes of a load job that a caller may leave out: its chunk size,
 *		by the number of workers and the method, and the disk reserve in
 *		force.  petagen.disk_reserve is a floor: a job's disk_reserve may
 *		raise it, not lower it.  And where a job's chunks lie in its key
 *		space first .. first+rows-1.  Below options.c (which reads the
 *		arguments) and method.c (which weighs them for method => 'auto').
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "job/sizing.h"
#include "petagen.h"

/* The chunk size rule of job_default_chunk_rows(). */
#define JOB_CHUNKS_PER_WORKER	4
#define JOB_CHUNK_ROWS_MIN		1000
#define JOB_CHUNK_ROWS_MAX		100000

/* The last key number of def's key space. */
int64
job_last_seq(const JobDef *def)
{
	return def->first + (def->rows - 1);
}

/*
 * The disk reserve in force for a job, in bytes: the setting's, which the
 * DBA sets for every job, or the job's own if that is larger.  A job may
 * raise the reserve, never lower it below the setting.
 */
int64
job_reserve(const JobDef *def)
{
	return Max(def->disk_reserve, (int64) petagen_disk_reserve_mb * 1024 * 1024);
}

/*
 * The chunk size of a job that names none: about JOB_CHUNKS_PER_WORKER
 * chunks per worker, so that a small load keeps every worker busy, within
 * JOB_CHUNK_ROWS_MIN .. JOB_CHUNK_ROWS_MAX (one transaction each), or for
 * a leaf job LEAF_RANGE_ROWS_MIN .. LEAF_RANGE_ROWS_MAX (one file each).
 */
int64
job_default_chunk_rows(const JobDef *def)
{
	int64		per_chunk = (def->rows - 1) / ((int64) def->nworkers * JOB_CHUNKS_PER_WORKER) + 1;

	if (def->method->whole_leaves)
		return Min(Max(per_chunk, LEAF_RANGE_ROWS_MIN), LEAF_RANGE_ROWS_MAX);
	return Min(Max(per_chunk, JOB_CHUNK_ROWS_MIN), JOB_CHUNK_ROWS_MAX);
}
