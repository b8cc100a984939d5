/*-------------------------------------------------------------------------
 * bench_live.c
 *		petagen.bench_status(): the benchmarks running now in this
 *		database, read live from their workers' slots, as status() serves
 *		loads.
 *
 * A running bench() announces its run in a file of its own,
 * $PGDATA/pg_petagen/bench/<pid of its backend>: the run's DSM handle and
 * id.  It removes the file when it detaches the run's segment, however it
 * leaves (the callback that terminates its workers, bench.c).  A crash
 * can leave a file behind: its segment is gone with the server's life,
 * so bench_status() skips a file whose segment it cannot attach, or whose
 * segment is not that run's (a magic number and the run id are checked);
 * it does not remove it (the backend of that pid may be announcing a new
 * run in it), the next run of a backend with that pid overwrites it.
 * bench_status() attaches each announced segment for a
 * moment and reads what each worker publishes once per interval
 * (bench_measure.c) in atomics of its slot: nothing blocks the workers.
 * The pg_petagen directory's sweep (leafdir.c) leaves bench/ alone: it
 * only looks at database oids.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "bench/bench_shared.h"
#include "bench/bench_live.h"
#include "bench/bench_params.h"
#include "bench/bench_run.h"
#include "compat.h"
#include "load/load.h"

/* Where running benchmarks announce themselves, under the data directory. */
#define BENCH_LIVE_DIR		LEAF_DIR "/bench"
/* Columns of bench_status(). */
#define BENCH_STATUS_COLS	11

/* What an announcement file holds. */
typedef struct BenchAnnouncement
{
	uint32		magic;
	dsm_handle	handle;
	int64		run;
} BenchAnnouncement;

/* The announcement file of this backend's run. */
static void
bench_live_path(char *path, int pid)
{
	snprintf(path, MAXPGPATH, BENCH_LIVE_DIR "/%d", pid);
}

/* Announce run, whose shared state is seg, for bench_status(). */
void
bench_live_announce(dsm_segment *seg, int64 run)
{
	BenchAnnouncement a = {BENCH_MAGIC, dsm_segment_handle(seg), run};
	char		path[MAXPGPATH];
	int			fd;

	leaf_make_dir(LEAF_DIR);
	leaf_make_dir(BENCH_LIVE_DIR);
	bench_live_path(path, MyProcPid);
	fd = OpenTransientFile(path, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0 || write(fd, &a, sizeof(a)) != sizeof(a))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	CloseTransientFile(fd);
}

/* Withdraw this backend's announcement (none is fine). */
void
bench_live_withdraw(void)
{
	char		path[MAXPGPATH];

	bench_live_path(path, MyProcPid);
	(void) unlink(path);
}

/* Read an announcement file; false if it is not one. */
static bool
bench_live_read(const char *path, BenchAnnouncement *a)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	bool		ok;

	if (fd < 0)
		return false;
	ok = read(fd, a, sizeof(*a)) == sizeof(*a) && a->magic == BENCH_MAGIC;
	CloseTransientFile(fd);
	return ok;
}

/* Seconds, to 0.1. */
static double
bench_live_seconds(double ns)
{
	return round(ns / 1e8) / 10;
}

/*
 * The live figures of a run: operations so far, and over its workers'
 * last whole interval the operations per second, mean and max latency.
 */
static void
bench_live_figures(BenchShared *shared, uint64 now, Datum *values, bool *nulls)
{
	uint64		operations = 0;
	uint64		count = 0;
	uint64		latency = 0;
	uint64		max = 0;
	uint64		interval = 0;

	for (int i = 0; i < shared->nworkers; i++)
	{
		BenchLive  *live = &shared->slots[i].measure.live;
		uint64		len = pg_atomic_read_u64(&live->interval_ns);
		uint64		until = pg_atomic_read_u64(&live->until_ns);

		operations += pg_atomic_read_u64(&live->operations);
		if (len == 0 || now < shared->measure_ns)
			continue;
		interval = Max(interval, len);
		/* only if that interval is the last whole one: else none ended since */
		if (until / len != (now - shared->measure_ns) / len)
			continue;
		count += pg_atomic_read_u64(&live->count);
		latency += pg_atomic_read_u64(&live->latency_ns);
		max = Max(max, pg_atomic_read_u64(&live->max_ns));
	}
	values[0] = Int64GetDatum(operations);
	values[1] = Float8GetDatum(interval ? round(count * 1e9 / interval * 10) / 10 : 0);
	nulls[1] = interval == 0;
	values[2] = Float8GetDatum(count ? bench_round_latency(latency / 1000.0 / count) : 0);
	nulls[2] = count == 0;
	values[3] = Float8GetDatum(bench_round_latency(max / 1000.0));
	nulls[3] = count == 0;
}

/* Seconds left: to the end, or with operationcount at the current rate. */
static void
bench_live_eta(BenchShared *shared, uint64 now, double ops_per_s, bool rate_null,
			   Datum *value, bool *null)
{
	uint64		claimed;

	*null = false;
	if (shared->workload.operationcount == 0)
	{
		*value = Float8GetDatum(bench_live_seconds(now < shared->end_ns ? shared->end_ns - now : 0));
		return;
	}
	claimed = pg_atomic_read_u64(&shared->claimed);
	*null = rate_null || ops_per_s <= 0;
	if (!*null)
		*value = Float8GetDatum(round((shared->workload.operationcount - Min(claimed, (uint64) shared->workload.operationcount)) /
									  ops_per_s * 10) / 10);
}

/* One row of bench_status() for a run's shared state. */
static void
bench_live_row(ReturnSetInfo *rsinfo, BenchShared *shared)
{
	Datum		values[BENCH_STATUS_COLS];
	bool		nulls[BENCH_STATUS_COLS] = {0};
	uint64		now = bench_now_ns();
	bool		going = pg_atomic_read_u32(&shared->go) != 0;

	pg_read_barrier();
	values[0] = Int64GetDatum(shared->run);
	values[1] = CStringGetTextDatum(bench_kind_name(shared->workload.kind));
	values[2] = Int32GetDatum(shared->nworkers);
	values[3] = CStringGetTextDatum(!going ? "starting" :
									now < shared->measure_ns ? "warmup" : "measuring");
	values[4] = Float8GetDatum(going && now > shared->measure_ns ?
							   bench_live_seconds(now - shared->measure_ns) : 0);
	values[10] = Float8GetDatum(shared->workload.target_rate);
	nulls[10] = shared->workload.target_rate <= 0;
	if (!going)
	{
		for (int i = 5; i <= 9; i++)
			nulls[i] = true;
	}
	else
	{
		bench_live_figures(shared, now, &values[5], &nulls[5]);
		bench_live_eta(shared, now, nulls[6] ? 0 : DatumGetFloat8(values[6]), nulls[6],
					   &values[9], &nulls[9]);
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Attach an announced run; NULL if it is gone. */
static dsm_segment *
bench_live_attach(const BenchAnnouncement *a)
{
	dsm_segment *seg = dsm_find_mapping(a->handle);
	BenchShared *shared;

	/* this backend's own run: bench() cannot run bench_status(), but be safe */
	if (seg != NULL)
		return NULL;
	seg = dsm_attach(a->handle);
	if (seg == NULL)
		return NULL;
	shared = dsm_segment_address(seg);
	if (dsm_segment_map_length(seg) < offsetof(BenchShared, slots) ||
		shared->magic != BENCH_MAGIC || shared->run != a->run)
	{
		dsm_detach(seg);
		return NULL;
	}
	return seg;
}

PG_FUNCTION_INFO_V1(petagen_bench_status);
/* petagen.bench_status(): one row per benchmark running in this database. */
Datum
petagen_bench_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DIR		   *dir;
	struct dirent *de;

	InitMaterializedSRF(fcinfo, 0);
	dir = AllocateDir(BENCH_LIVE_DIR);
	if (dir == NULL && errno == ENOENT)
		return (Datum) 0;
	while ((de = ReadDir(dir, BENCH_LIVE_DIR)) != NULL)
	{
		char		path[MAXPGPATH];
		BenchAnnouncement a;
		dsm_segment *seg;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), BENCH_LIVE_DIR "/%s", de->d_name);
		if (!bench_live_read(path, &a) || (seg = bench_live_attach(&a)) == NULL)
			continue;
		if (((BenchShared *) dsm_segment_address(seg))->database == MyDatabaseId)
			bench_live_row(rsinfo, dsm_segment_address(seg));
		dsm_detach(seg);
	}
	FreeDir(dir);
	return (Datum) 0;
}
