/*-------------------------------------------------------------------------
 * verify_par.c
 *		The fingerprints of petagen.verify(): what the key space routes to
 *		each leaf and what each local leaf holds, computed by the calling
 *		backend and parallel workers together.
 *
 * The work is a queue of units in shared memory: unit i < nleaves reads
 * local leaf i into its fingerprint (verify_scan.c), every further unit
 * generates and routes VERIFY_RANGE_KEYS key numbers and adds each key to
 * the expected fingerprint of its leaf.  The calling backend and up to
 * nworkers parallel workers (PostgreSQL's parallel infrastructure, as
 * parallel CREATE INDEX uses it: the workers share the caller's snapshot,
 * role and locks, and their errors are raised in the caller) take units
 * with an atomic counter until none is left.  A leaf's fingerprint is
 * written only by the participant that scanned it; the expected
 * fingerprints are kept per participant and summed at the end, so nothing
 * is locked.  Fingerprints are order-independent, so how the units fall
 * does not change the result.
 *
 * Workers cannot reach a foreign leaf's server (postgres_fdw keeps its
 * connections per backend) nor the caller's temporary tables, so with a
 * foreign or a temporary leaf, or with fewer than VERIFY_PARALLEL_MIN_KEYS
 * keys, verify.c asks for no workers and the caller does every unit
 * itself, batching the keys of foreign leaves into their remote probes.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/shm_toc.h"
#include "utils/rel.h"

#include "compat.h"
#include "route/route.h"
#include "verify/verify_par.h"

/* Key numbers per unit of the generator's pass. */
#define VERIFY_RANGE_KEYS 65536
/* The shm_toc key of the shared state. */
#define VERIFY_SHARED_KEY UINT64CONST(0x7065746167656E76)

/* The queue of units and the results, in shared memory (or local). */
typedef struct VerifyShared
{
	Oid			relid;
	VerifyRange range;
	KeySpec		keys;
	int			nleaves;
	int			nparticipants;
	uint64		nunits;
	pg_atomic_uint64 next_unit;
	/* nleaves VerifyPrint, then nparticipants * nleaves expected KeyPrint */
	VerifyPrint prints[FLEXIBLE_ARRAY_MEMBER];
} VerifyShared;

PGDLLEXPORT void petagen_verify_worker_main(dsm_segment *seg, shm_toc *toc);

/* The bytes of the shared state. */
static Size
verify_shared_size(int nleaves, int nparticipants)
{
	return add_size(add_size(offsetof(VerifyShared, prints),
							 mul_size(nleaves, sizeof(VerifyPrint))),
					mul_size(mul_size(nleaves, nparticipants), sizeof(KeyPrint)));
}

/* The expected fingerprints of participant p, one per leaf. */
static KeyPrint *
verify_shared_want(VerifyShared *shared, int p)
{
	return (KeyPrint *) &shared->prints[shared->nleaves] + (Size) p * shared->nleaves;
}

/* Read local leaf print->relid into print->have. */
static void
verify_scan_leaf(VerifyPrint *print)
{
	Relation	heap = table_open(print->relid, AccessShareLock);
	Relation	index = index_open(print->index, AccessShareLock);
	LeafScan   *scan = leafscan_begin(heap, index);
	const char *key;
	int			len;

	while (leafscan_next(scan, &key, &len))
	{
		if ((print->have.count & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		keyprint_add(&print->have, key, len);
	}
	leafscan_end(scan);
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
}

/*
 * Route the key numbers from offset on, VERIFY_RANGE_KEYS of them within
 * the range verified, into want[].
 */
static void
verify_route_range(VerifyShared *shared, Router *router, KeyPrint *want,
				   FdwProbe **remote, int64 offset)
{
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	char		scratch[KEYS_MAX_LEN + 1];
	int64		first = shared->range.first + offset;
	int64		end = first + Min(shared->range.rows - offset, VERIFY_RANGE_KEYS);

	CHECK_FOR_INTERRUPTS();
	for (int64 seq = first; seq < end; seq++)
	{
		Datum		key = keys_datum(&shared->keys, seq, buf);
		int			leaf = route_key(router, key);
		const char *chars;
		int			len;

		if (leaf < 0)
			continue;
		if (OidIsValid(shared->prints[leaf].index))
		{
			len = keys_datum_chars(shared->keys.kind, key, scratch, &chars);
			keyprint_add(&want[leaf], chars, len);
		}
		else
		{
			/* a foreign leaf, or a Citus shard on another node */
			want[leaf].count++;
			if (remote != NULL && remote[leaf] != NULL)
				fdwprobe_add(remote[leaf], key);
		}
	}
	pfree(buf);
}

/* Take units until none is left: participant p of the shared work. */
static void
verify_participate(VerifyShared *shared, int p, FdwProbe **remote)
{
	Router	   *router = route_open(shared->relid);
	KeyPrint   *want = verify_shared_want(shared, p);
	uint64		unit;

	/* a worker routes as the caller did: the same leaves in the same order */
	if (route_nleaves(router) != shared->nleaves)
		elog(ERROR, "petagen: the leaves of %u changed during verify()", shared->relid);
	for (int i = 0; i < shared->nleaves; i++)
		if (route_leaf(router, i)->relid != shared->prints[i].relid)
			elog(ERROR, "petagen: the leaves of %u changed during verify()", shared->relid);
	while ((unit = pg_atomic_fetch_add_u64(&shared->next_unit, 1)) < shared->nunits)
	{
		if (unit < (uint64) shared->nleaves)
		{
			if (OidIsValid(shared->prints[unit].index))
				verify_scan_leaf(&shared->prints[unit]);
		}
		else
			verify_route_range(shared, router, want, remote,
							   (int64) (unit - shared->nleaves) * VERIFY_RANGE_KEYS);
	}
	route_close(router);
}

/* A parallel worker of verify(). */
void
petagen_verify_worker_main(dsm_segment *seg, shm_toc *toc)
{
	VerifyShared *shared = shm_toc_lookup(toc, VERIFY_SHARED_KEY, false);

	verify_participate(shared, ParallelWorkerNumber + 1, NULL);
}

/* Fill the shared state: the leaves, the units, nothing counted yet. */
static void
verify_shared_init(VerifyShared *shared, Oid relid, const KeySpec *keys,
				   const VerifyRange *range, const VerifyPrint *prints, int nleaves,
				   int nparticipants)
{
	memset(shared, 0, verify_shared_size(nleaves, nparticipants));
	shared->relid = relid;
	shared->range = *range;
	shared->keys = *keys;
	shared->nleaves = nleaves;
	shared->nparticipants = nparticipants;
	shared->nunits = nleaves + (range->rows + VERIFY_RANGE_KEYS - 1) / VERIFY_RANGE_KEYS;
	pg_atomic_init_u64(&shared->next_unit, 0);
	for (int i = 0; i < nleaves; i++)
	{
		shared->prints[i].relid = prints[i].relid;
		shared->prints[i].index = prints[i].index;
	}
}

/* Copy the results out: each leaf's fingerprint, the expected ones summed. */
static void
verify_shared_collect(VerifyShared *shared, VerifyPrint *prints)
{
	for (int i = 0; i < shared->nleaves; i++)
	{
		prints[i].have = shared->prints[i].have;
		memset(&prints[i].want, 0, sizeof(KeyPrint));
		for (int p = 0; p < shared->nparticipants; p++)
			keyprint_merge(&prints[i].want, &verify_shared_want(shared, p)[i]);
	}
}

/*
 * Fill want and have of prints[0 .. nleaves-1] (relid and index given) for
 * the key numbers of range in table relid, with up to nworkers parallel
 * workers; foreign leaves' keys go to remote[leaf] (then nworkers is 0).
 */
void
verify_prints(Oid relid, const KeySpec *keys, const VerifyRange *range,
			  VerifyPrint *prints, int nleaves, FdwProbe **remote, int nworkers)
{
	ParallelContext *pcxt = NULL;
	VerifyShared *shared;
	Size		size = verify_shared_size(nleaves, nworkers + 1);

	if (nworkers > 0)
	{
		EnterParallelMode();
		pcxt = CreateParallelContext("$libdir/petagen", "petagen_verify_worker_main",
									 nworkers);
		shm_toc_estimate_chunk(&pcxt->estimator, size);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
		InitializeParallelDSM(pcxt);
		shared = shm_toc_allocate(pcxt->toc, size);
		shm_toc_insert(pcxt->toc, VERIFY_SHARED_KEY, shared);
	}
	else
		shared = palloc_extended(size, MCXT_ALLOC_HUGE);
	verify_shared_init(shared, relid, keys, range, prints, nleaves, nworkers + 1);
	if (pcxt != NULL)
	{
		LaunchParallelWorkers(pcxt);
		elog(DEBUG1, "petagen.verify(): %d of %d parallel workers launched",
			 pcxt->nworkers_launched, nworkers);
	}
	verify_participate(shared, 0, remote);
	if (pcxt != NULL)
		WaitForParallelWorkersToFinish(pcxt);
	verify_shared_collect(shared, prints);
	if (pcxt != NULL)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
	}
	else
		pfree(shared);
}
