/*-------------------------------------------------------------------------
 * preflight_space.c
 *		The estimates of the preflight check (preflight.c): how the load's
 *		rows spread over the leaves, the bytes of their heaps, indexes and
 *		WAL, and their findings: routing, leaves, relation size, index
 *		tablespace, and space per filesystem.
 *
 * Estimates come from a sample of key numbers (10,000, or 100 per leaf up
 * to a million) spread evenly over the key space, routed as the load routes them (route.c), so every partitioning
 * strategy is estimated the same way.  Sizes follow the page layout: heap
 * tuple header, packed varlenas, line pointers and fillfactor per page;
 * btree leaf tuples filled to the index fillfactor for ascending keys and
 * ~70% for random ones; WAL about the heap plus index bytes, of which
 * pg_wal holds at most max_wal_size at a time.  TOAST is not modelled.
 *
 * A load's workers take the same estimates once as they begin
 * (check_unit_spaces()): per filesystem, what a key number of a chunk and
 * each local leaf written whole put there, so that before each unit they
 * wait for the room the next units need there above the disk reserve,
 * never more than check() says the load needs there.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/stat.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "catalog/partition.h"
#include "catalog/pg_am_d.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "compat.h"
#include "job/options.h"
#include "job/preflight.h"
#include "job/preflight_int.h"
#include "load/load.h"
#include "route/route.h"

/* Key numbers routed to estimate the leaves' shares: at least, per leaf, at most. */
#define CHECK_MIN_SAMPLES	10000
#define CHECK_LEAF_SAMPLES	100
#define CHECK_MAX_SAMPLES	1000000

/*
 * check_hash_share() of a partition under a range or list bound, and under
 * a DEFAULT partition.  A hash partition whose share would give the sample
 * fewer keys than CHECK_SHARE_MIN_SAMPLES is not judged.  A finding names
 * up to CHECK_SHARE_NAMES leaves.
 */
#define CHECK_SHARE_UNKNOWN		(-1.0)
#define CHECK_SHARE_DEFAULT		(-2.0)
#define CHECK_SHARE_MIN_SAMPLES	20
#define CHECK_SHARE_NAMES		10

/* Fill of btree leaf pages under random inserts (about ln 2). */
#define CHECK_RANDOM_FILL	0.70

/* Key number i of n spread evenly over the job's first .. first+rows-1. */
int64
check_sample_seq(const JobDef *def, int64 n, int64 i)
{
	return def->first + (def->rows / n) * i + (def->rows % n) * i / n;
}

/* Route a sample of the key space: each leaf's rows and average key length. */
void
check_sample(CheckCtx *ctx)
{
	int64		rows = ctx->def->rows;
	int64		n = Min(rows, Min(CHECK_MAX_SAMPLES,
								  Max(CHECK_MIN_SAMPLES,
									  (int64) CHECK_LEAF_SAMPLES * route_nleaves(ctx->router))));
	const KeySpec *keys = &ctx->def->spec.keys;
	char	   *buf = palloc(KEYS_DATUM_BUFSIZE);
	int64		unrouted = 0;
	int64		first_unrouted = -1;
	char		first_key[KEYS_MAX_LEN + 1];
	char		scratch[KEYS_MAX_LEN + 1];

	for (int64 i = 0; i < n; i++)
	{
		int64		seq = check_sample_seq(ctx->def, n, i);
		Datum		key = keys_datum(keys, seq, buf);
		const char *chars;
		int			len = keys_datum_chars(keys->kind, key, scratch, &chars);
		int			leaf;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		leaf = route_key(ctx->router, key);
		if (leaf == ROUTE_ELSEWHERE)
			continue;			/* another partition's key */
		if (leaf < 0)
		{
			if (unrouted++ == 0)
			{
				first_unrouted = seq;
				keys_format(keys, seq, first_key);
			}
			continue;
		}
		ctx->leaves[leaf].sampled++;
		ctx->leaves[leaf].keylen += len;
	}
	ctx->nsamples = n;
	for (int i = 0; i < route_nleaves(ctx->router); i++)
	{
		LeafEstimate *est = &ctx->leaves[i];

		if (est->sampled > 0)
			est->keylen /= est->sampled;
		est->rows = est->sampled * (double) rows / n;
	}
	if (unrouted > 0)
		check_add(ctx, CHECK_ERROR, ERRCODE_CHECK_VIOLATION, ctx->table,
				  psprintf("routing: no partition accepts about %.0f%% of the key space",
						   100.0 * unrouted / n),
				  "Create the missing partitions (or a DEFAULT partition), or load a key space the partitions cover.",
				  "routing: no partition accepts about %.0f%% of the key space, the first being key number " INT64_FORMAT " (\"%s\"): the load would fail there",
				  100.0 * unrouted / n, first_unrouted, first_key);
}

/* Bytes a text value of len bytes takes in a heap or index tuple. */
static double
check_varlena(double len)
{
	return len + (len <= VARATT_SHORT_MAX - VARHDRSZ_SHORT ? VARHDRSZ_SHORT : VARHDRSZ);
}

/* Bytes a key of est->keylen characters takes: its text, or its integer. */
static double
check_key_bytes(const RowShape *shape, const LeafEstimate *est)
{
	switch (shape->key_kind)
	{
		case KEYKIND_INT4:
			return sizeof(int32);
		case KEYKIND_INT8:
			return sizeof(int64);
		case KEYKIND_TEXT:
			break;
	}
	return check_varlena(est->keylen);
}

/* Estimated heap bytes of a leaf holding est->rows rows. */
static double
check_heap_bytes(Relation rel, const RowShape *shape, const LeafEstimate *est,
				 double fieldlength)
{
	double		data = check_key_bytes(shape, est) +
		shape->nfields * check_varlena(fieldlength);
	bool		dropped = shape->natts > shape->nfields + 1;
	Size		hoff = MAXALIGN(SizeofHeapTupleHeader +
								(dropped ? BITMAPLEN(shape->natts) : 0));
	double		item = MAXALIGN((Size) (hoff + data)) + sizeof(ItemIdData);
	double		room = BLCKSZ - SizeOfPageHeaderData -
		BLCKSZ * (100 - RelationGetFillFactor(rel, HEAP_DEFAULT_FILLFACTOR)) / 100;
	double		per_page = Min(floor(room / item), MaxHeapTuplesPerPage);

	if (per_page < 1)
		return est->rows * item * BLCKSZ / (BLCKSZ - SizeOfPageHeaderData);
	return ceil(est->rows / per_page) * BLCKSZ;
}

/* Do keys arrive in ascending order, so that btree pages fill up? */
static bool
check_keys_ascend(const GenSpec *spec, int64 last_seq)
{
	if (spec->keys.kind != KEYKIND_TEXT)
		return true;			/* the key numbers themselves */
	return spec->keys.mode == KEYS_ORDERED &&
		keys_max_len(&spec->keys, last_seq) ==
		spec->keys.prefixlen + spec->keys.zeropadding;
}

/* Estimated bytes of one index of a leaf holding est->rows rows. */
static double
check_index_bytes(Relation index, const RowShape *shape,
				  const LeafEstimate *est, const CheckCtx *ctx)
{
	Form_pg_index form = index->rd_index;
	double		width = sizeof(IndexTupleData);
	double		fill = CHECK_RANDOM_FILL;
	double		item;
	double		per_page;

	for (int i = 0; i < form->indnatts; i++)
	{
		AttrNumber	att = form->indkey.values[i];

		width += att == 0 || att - 1 == shape->key_att ?
			check_key_bytes(shape, est) :
			check_varlena(spec_mean_fieldlength(&ctx->def->spec));
	}
	item = MAXALIGN((Size) width) + sizeof(ItemIdData);
	if (index->rd_rel->relam == BTREE_AM_OID &&
		check_keys_ascend(&ctx->def->spec, job_last_seq(ctx->def)))
		fill = BTGetFillFactor(index) / 100.0;
	per_page = Max(1, floor((BLCKSZ - SizeOfPageHeaderData -
							 MAXALIGN(sizeof(BTPageOpaqueData))) * fill / item));
	return ceil(est->rows / per_page) * BLCKSZ;
}

/*
 * Add bytes to the filesystem holding path; name it after a tablespace.
 * Its number in ctx->spaces, or -1 when there are too many to count.
 */
static int
check_space_add(CheckCtx *ctx, const char *path, const char *name,
				double heap, double index, double wal)
{
	struct stat st;
	int			i;
	CheckSpace *space;
	ListCell   *lc;

	if (stat(path, &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat directory \"%s\": %m", path)));
	for (i = 0; i < ctx->nspaces; i++)
		if (ctx->spaces[i].dev == st.st_dev)
			break;
	space = &ctx->spaces[i];
	if (i == ctx->nspaces)
	{
		if (ctx->nspaces == DISK_MAX_TARGETS)
			return -1;
		ctx->nspaces++;
		memset(space, 0, sizeof(*space));
		space->dev = st.st_dev;
		strlcpy(space->path, path, MAXPGPATH);
	}
	space->heap += heap;
	space->index += index;
	space->wal += wal;
	foreach(lc, space->names)
		if (strcmp(lfirst(lc), name) == 0)
			return i;
	space->names = lappend(space->names, pstrdup(name));
	return i;
}

/* Add a leaf's bytes to the filesystem of tablespace spcoid, noting where. */
static void
check_space_add_tablespace(CheckCtx *ctx, LeafEstimate *est, Oid spcoid,
						   double heap, double index)
{
	char		path[MAXPGPATH];
	int			space;
	LeafLanding *landing;

	disk_tablespace_path(spcoid, path);
	space = check_space_add(ctx, path, get_tablespace_name(spcoid), heap,
							index, 0);
	if (space < 0)
		return;
	landing = palloc(sizeof(LeafLanding));
	landing->space = space;
	landing->bytes = heap + index;
	est->landing = lappend(est->landing, landing);
}

/* Warn about an index of a leaf that is not in its heap's tablespace. */
static void
check_index_tablespace(CheckCtx *ctx, const RouteLeaf *leaf, Oid indexid,
					   Oid spcoid)
{
	const char *heap_ts = get_tablespace_name(leaf->heap_tablespace);

	check_add(ctx, CHECK_WARNING, 0, get_rel_name(indexid),
			  psprintf("index tablespace: in \"%s\", its table in \"%s\"",
					   get_tablespace_name(spcoid), heap_ts),
			  psprintf("ALTER INDEX %s SET TABLESPACE %s; puts it beside its table (quick while the index is small).",
					   catalog_relation_name(indexid), quote_identifier(heap_ts)),
			  "index tablespace: index \"%s\" of \"%s\" is in tablespace \"%s\", its table in \"%s\"",
			  get_rel_name(indexid), get_rel_name(leaf->relid),
			  get_tablespace_name(spcoid), heap_ts);
}

/* Estimate the indexes of a local leaf; flag those away from its heap. */
static double
check_leaf_indexes(CheckCtx *ctx, Relation rel, const RouteLeaf *leaf,
				   const RowShape *shape, LeafEstimate *est)
{
	List	   *indexes = RelationGetIndexList(rel);
	double		total = 0;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
		Oid			spcoid = OidIsValid(index->rd_rel->reltablespace) ?
			index->rd_rel->reltablespace : MyDatabaseTableSpace;
		double		bytes = check_index_bytes(index, shape, est, ctx);

		check_space_add_tablespace(ctx, est, spcoid, 0, bytes);
		if (spcoid != leaf->heap_tablespace)
			check_index_tablespace(ctx, leaf, lfirst_oid(lc), spcoid);
		total += bytes;
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	return total;
}

/* Flag a leaf whose heap would pass, or come near, the relation size limit. */
static void
check_relation_size(CheckCtx *ctx, const RouteLeaf *leaf, double bytes)
{
	double		limit = (double) BLCKSZ * MaxBlockNumber;
	char	   *hint;

	if (bytes <= limit / 2)
		return;
	if (route_is_citus(ctx->router))
		hint = psprintf("Distribute the table into more shards (alter_distributed_table(%s, shard_count => ...) on the coordinator, or citus.shard_count before create_distributed_table()): about %.0f shards on this node would keep each under half the limit.",
						catalog_relation_literal(ctx->def->relid), ceil(ctx->heap / (limit / 2)) + 1);
	else
		hint = psprintf("Partition the table into more leaves: about %.0f leaves for this node's share would keep each under half the limit.",
						ceil(ctx->heap / (limit / 2)) + 1);
	if (bytes > limit)
		check_add(ctx, CHECK_ERROR, ERRCODE_PROGRAM_LIMIT_EXCEEDED,
				  get_rel_name(leaf->relid),
				  psprintf("relation size: about %s, past the limit of %s per relation",
						   check_size(bytes), check_size(limit)),
				  hint,
				  "relation size: leaf \"%s\" would grow to about %s, past PostgreSQL's limit of %s per relation",
				  get_rel_name(leaf->relid), check_size(bytes), check_size(limit));
	else
		check_add(ctx, CHECK_WARNING, 0, get_rel_name(leaf->relid),
				  psprintf("relation size: about %s, over half the limit of %s per relation",
						   check_size(bytes), check_size(limit)),
				  hint,
				  "relation size: leaf \"%s\" would grow to about %s, over half PostgreSQL's limit of %s per relation",
				  get_rel_name(leaf->relid), check_size(bytes), check_size(limit));
}

/*
 * The share of the key space PostgreSQL's hash partitioning routes to
 * partition relid: the product of 1/modulus of its bound and those of its
 * ancestors; CHECK_SHARE_UNKNOWN if one of them is a range or list bound,
 * CHECK_SHARE_DEFAULT if one is a DEFAULT partition (a catch-all).
 */
static double
check_hash_share(Oid relid)
{
	double		share = 1.0;

	while (get_rel_relispartition(relid))
	{
		HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		PartitionBoundSpec *bound;
		bool		isnull;
		Datum		datum;

		if (!HeapTupleIsValid(tuple))
			elog(ERROR, "cache lookup failed for relation %u", relid);
		datum = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_relpartbound,
								&isnull);
		bound = isnull ? NULL :
			castNode(PartitionBoundSpec, stringToNode(TextDatumGetCString(datum)));
		ReleaseSysCache(tuple);
		if (bound == NULL || bound->is_default)
			return CHECK_SHARE_DEFAULT;
		if (bound->strategy != PARTITION_STRATEGY_HASH)
			return CHECK_SHARE_UNKNOWN;
		share /= bound->modulus;
		relid = get_partition_parent(relid, true);
	}
	return share;
}

/* The first max of names, and how many more there are. */
static char *
check_names(List *names, int max)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
	{
		if (foreach_current_index(lc) == max)
		{
			appendStringInfo(&buf, " and %d more", list_length(names) - max);
			break;
		}
		appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", (char *) lfirst(lc));
	}
	return buf.data;
}

/*
 * Warn, naming them, about leaves the sample routes no key to: a classic is
 * hash sub-partitions on ycsb_key whose modulus shares a factor with their
 * parent's, which get the keys of only some remainders (hash 4 under hash 4
 * fills 4 of 16 leaves).  Not for Citus shards (even hash ranges), DEFAULT
 * partitions (catch-alls), nor hash partitions whose share is too small for
 * the sample to tell.
 */
static void
check_shares(CheckCtx *ctx)
{
	int			nleaves = route_nleaves(ctx->router);
	List	   *none = NIL;

	if (route_is_citus(ctx->router))
		return;
	for (int i = 0; i < nleaves; i++)
	{
		Oid			relid = route_leaf(ctx->router, i)->relid;
		double		share = check_hash_share(relid);

		if (share == CHECK_SHARE_DEFAULT ||
			(share > 0 && share * ctx->nsamples < CHECK_SHARE_MIN_SAMPLES))
			continue;
		if (ctx->leaves[i].sampled == 0)
			none = lappend(none, get_rel_name(relid));
	}
	if (none == NIL)
		return;
	check_add(ctx, CHECK_WARNING, 0, ctx->table,
			  psprintf("leaves: %d of %d get no keys: %s", list_length(none),
					   nleaves, check_names(none, 2)),
			  "Hash sub-partitions on ycsb_key whose modulus shares a factor with their parent's get only the keys of some remainders: give them a modulus with no factor in common (hash 3 under hash 4), or partition the parent into more partitions instead; a range or list partition gets no keys when the key space lies outside its bounds.",
			  "leaves: %d of the %d leaves get none of the " INT64_FORMAT " key numbers sampled evenly from the key space, and stay empty: %s",
			  list_length(none), nleaves, ctx->nsamples,
			  check_names(none, CHECK_SHARE_NAMES));
}

/* Estimate each local leaf; note its autovacuum and freeze state. */
void
check_leaves(CheckCtx *ctx)
{
	int			nleaves = route_nleaves(ctx->router);

	ctx->largest = -1;
	for (int i = 0; i < nleaves; i++)
	{
		const RouteLeaf *leaf = route_leaf(ctx->router, i);
		LeafEstimate *est = &ctx->leaves[i];
		Relation	rel;
		RowShape	shape;
		StdRdOptions *options;

		if (!leaf->local)
			continue;
		if (ctx->largest < 0 || est->rows > ctx->leaves[ctx->largest].rows)
			ctx->largest = i;
		rel = table_open(leaf->relid, NoLock);	/* locked by route_open() */
		shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel),
						   &shape);
		est->heap = check_heap_bytes(rel, &shape, est,
								 spec_mean_fieldlength(&ctx->def->spec));
		check_space_add_tablespace(ctx, est, leaf->heap_tablespace, est->heap, 0);
		est->index = check_leaf_indexes(ctx, rel, leaf, &shape, est);
		ctx->nlocal++;
		ctx->local_rows += est->rows;
		ctx->heap += est->heap;
		ctx->index += est->index;
		options = (StdRdOptions *) rel->rd_options;
		if (options == NULL || options->autovacuum.enabled)
			ctx->nautovacuum++;
		if (TransactionIdIsNormal(rel->rd_rel->relfrozenxid))
			ctx->max_age = Max(ctx->max_age,
							   (int32) (ReadNextTransactionId() - rel->rd_rel->relfrozenxid));
		table_close(rel, NoLock);
	}
	check_add(ctx, CHECK_INFO, 0, ctx->table,
			  psprintf("leaves: %d local and %d foreign; this node writes about %.1f%% of the rows",
					   ctx->nlocal, nleaves - ctx->nlocal,
					   100.0 * ctx->local_rows / ctx->def->rows),
			  nleaves > ctx->nlocal ?
			  "Run the same petagen.start() on the nodes that store the foreign leaves." : NULL,
			  "leaves: %d local and %d foreign; this node writes about %.0f of the " INT64_FORMAT " rows (%.1f%%)",
			  ctx->nlocal, nleaves - ctx->nlocal, ctx->local_rows,
			  ctx->def->rows, 100.0 * ctx->local_rows / ctx->def->rows);
	check_shares(ctx);
	for (int i = 0; i < nleaves; i++)
		if (route_leaf(ctx->router, i)->local)
			check_relation_size(ctx, route_leaf(ctx->router, i),
								ctx->leaves[i].heap);
}

/* The bytes of WAL the load writes in all. */
double
check_wal_total(const CheckCtx *ctx)
{
	/* new storage in the loading transaction: WAL only with wal_level > minimal */
	if (ctx->def->method->whole_leaves && wal_level == WAL_LEVEL_MINIMAL)
		return 0;
	return ctx->heap + ctx->index;
}

/* Sort tablespace names. */
static int
check_name_cmp(const ListCell *a, const ListCell *b)
{
	return strcmp(lfirst(a), lfirst(b));
}

/* Add the WAL pg_wal holds at a time to its filesystem; that one's number. */
static int
check_space_add_wal(CheckCtx *ctx)
{
	char		wal_path[MAXPGPATH];

	snprintf(wal_path, MAXPGPATH, "%s/pg_wal", DataDir);
	return check_space_add(ctx, wal_path, "pg_wal", 0, 0,
						   Min(check_wal_total(ctx),
							   (double) max_wal_size_mb * 1024 * 1024));
}

/* One finding per filesystem: the estimate against free space and reserve. */
void
check_spaces(CheckCtx *ctx)
{
	int64		reserve = job_reserve(ctx->def);

	check_space_add_wal(ctx);
	for (int i = 0; i < ctx->nspaces; i++)
	{
		CheckSpace *space = &ctx->spaces[i];
		double		need = space->heap + space->index + space->wal;
		double		room = (double) disk_free(space->path) - reserve;
		StringInfoData names;
		ListCell   *lc;
		CheckSeverity severity = CHECK_INFO;
		const char *hint = NULL;

		initStringInfo(&names);
		list_sort(space->names, check_name_cmp);
		foreach(lc, space->names)
			appendStringInfo(&names, "%s%s", names.len ? ", " : "",
							 (char *) lfirst(lc));
		if (need > room)
		{
			severity = CHECK_ERROR;
			hint = "Free space there, move leaves with their indexes to larger tablespaces (ALTER TABLE ... SET TABLESPACE, ALTER INDEX ... SET TABLESPACE), lower the disk reserve, or load fewer rows. "
				CHECK_RESERVE_RECIPE;
		}
		else if (need > room * CHECK_MARGIN)
		{
			severity = CHECK_WARNING;
			hint = "Less than 10% would be left above the reserve: free space or spread the leaves over more tablespaces before a long load.";
		}
		check_add(ctx, severity, ERRCODE_DISK_FULL, names.data,
				  psprintf("space: about %s needed on this filesystem, %s free, reserve %s",
						   check_size(need), check_size(disk_free(space->path)),
						   check_size(reserve)),
				  hint,
				  "space: this node's share needs about %s on this filesystem (heap %s, indexes %s, WAL %s); %s are free and the disk reserve keeps %s",
				  check_size(need), check_size(space->heap),
				  check_size(space->index), check_size(space->wal),
				  check_size(disk_free(space->path)), check_size(reserve));
	}
}

/* What a pause's reason calls a filesystem: tablespace "a" and pg_wal. */
static void
check_space_label(const CheckSpace *space, char *label, size_t len)
{
	StringInfoData buf;
	int			ntablespaces = 0;
	bool		wal = false;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, space->names)
	{
		if (strcmp(lfirst(lc), "pg_wal") == 0)
			wal = true;
		else
			appendStringInfo(&buf, "%s\"%s\"", ntablespaces++ ? ", " : "",
							 (char *) lfirst(lc));
	}
	if (ntablespaces == 0)
		strlcpy(label, "pg_wal", len);
	else
		snprintf(label, len, "%s %s%s",
				 ntablespaces == 1 ? "tablespace" : "tablespaces", buf.data,
				 wal ? " and pg_wal" : "");
}

/*
 * For a load's worker: the filesystems the load writes, with what a key
 * number and each local leaf written whole put on each (heap, indexes and
 * WAL) and the load's total there, all as check() estimates them (its
 * findings are not kept).  The leaves are allocated in cxt.
 */
void
check_unit_spaces(const JobDef *def, UnitSpaces *spaces, MemoryContext cxt)
{
	CheckCtx	ctx;
	int			wal;
	bool		logged;

	memset(&ctx, 0, sizeof(ctx));
	ctx.def = def;
	ctx.table = get_rel_name(def->relid);
	ctx.router = route_open(def->relid);
	ctx.leaves = palloc0(sizeof(LeafEstimate) * route_nleaves(ctx.router));
	check_sample(&ctx);
	check_leaves(&ctx);
	wal = check_space_add_wal(&ctx);
	logged = check_wal_total(&ctx) > 0;
	spaces->n = ctx.nspaces;
	for (int s = 0; s < ctx.nspaces; s++)
	{
		const CheckSpace *cs = &ctx.spaces[s];

		strlcpy(spaces->space[s].path, cs->path, MAXPGPATH);
		check_space_label(cs, spaces->space[s].label, UNIT_SPACE_LABEL_LEN);
		spaces->space[s].per_key = 0;
		spaces->space[s].total = cs->heap + cs->index + cs->wal;
	}
	spaces->nleaves = 0;
	spaces->leaf = MemoryContextAlloc(cxt, sizeof(Oid) * Max(ctx.nlocal, 1));
	spaces->leaf_bytes = MemoryContextAllocZero(cxt, sizeof(double) *
												Max(ctx.nlocal, 1) * Max(ctx.nspaces, 1));
	for (int i = 0; i < route_nleaves(ctx.router); i++)
	{
		const LeafEstimate *est = &ctx.leaves[i];
		double	   *bytes = &spaces->leaf_bytes[spaces->nleaves * ctx.nspaces];
		ListCell   *lc;

		if (!route_leaf(ctx.router, i)->local)
			continue;
		spaces->leaf[spaces->nleaves++] = route_leaf(ctx.router, i)->relid;
		foreach(lc, est->landing)
		{
			const LeafLanding *landing = lfirst(lc);

			bytes[landing->space] += landing->bytes;
		}
		if (logged && wal >= 0)
			bytes[wal] += est->heap + est->index;
		for (int s = 0; s < ctx.nspaces; s++)
			spaces->space[s].per_key += bytes[s] / Max(def->rows, 1);
	}
	route_close(ctx.router);
}

/*
 * The bytes a unit writes on filesystem s of spaces: leaf written whole,
 * or (leaf invalid) keys key numbers routed over the local leaves.
 */
double
check_unit_bytes(const UnitSpaces *spaces, int s, Oid leaf, int64 keys)
{
	if (!OidIsValid(leaf))
		return keys * spaces->space[s].per_key;
	for (int i = 0; i < spaces->nleaves; i++)
		if (spaces->leaf[i] == leaf)
			return spaces->leaf_bytes[i * spaces->n + s];
	return 0;
}
