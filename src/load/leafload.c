/*-------------------------------------------------------------------------
 * leafload.c
 *		Leaf-at-a-time loads (start(..., method => 'leaf')): route first,
 *		then write each local leaf whole, in one transaction, into new
 *		storage.
 *
 * Routing: the key space is cut into ranges of chunk_rows key numbers.  A
 * worker routes every key of a range as load.c does and writes, per local
 * leaf, the key numbers that land there, delta-encoded as varints (about
 * one byte per key with 64 leaves), to the range's file
 * $PGDATA/pg_petagen/<job>/range.<n>.  The file is written under a
 * temporary name and renamed durably, so a range whose file exists is
 * complete and is not routed again after a stop or a crash.  Re-routing
 * the whole key space for every leaf instead would cost leaves x keys.
 *
 * Writing: a worker claims a local leaf and, in one transaction, locks the
 * table ROW EXCLUSIVE (as INSERT does) and the leaf ACCESS EXCLUSIVE, then,
 * under those locks, checks everything a chunk job checks for each chunk:
 * INSERT on the table and TRUNCATE on the leaf, that the leaf is still a
 * leaf of the table, the columns' types and lengths against the keys and
 * fields, policies, triggers and rules of table and leaf.  It refuses the
 * leaf unless it is empty, as seen by a snapshot taken after the lock (the
 * transaction's first snapshot predates the wait for the lock, and would
 * miss rows committed meanwhile).  It gives the leaf and its TOAST table
 * new storage as TRUNCATE does (ExecuteTruncateGuts), writes the leaf's
 * rows frozen with heap_multi_insert (HEAP_INSERT_FROZEN, as COPY FREEZE
 * after a TRUNCATE: nobody sees the new storage before commit), each key
 * first checked against the leaf's partition bounds as they are now
 * (route_open_leaf(): a key routed elsewhere raises PostgreSQL's partition
 * constraint error, 23514), CHECK constraints as the writer checks them,
 * and builds its indexes with reindex_relation(), so no row goes through
 * a btree insert, checking UNIQUE and EXCLUDE constraints as REINDEX does
 * (REINDEX_REL_CHECK_CONSTRAINTS: 23505, 23P01).  The caller adds the
 * ledger row and commits.  With wal_level = minimal PostgreSQL writes no
 * WAL for the new storage and syncs it at commit.  An abort or a crash
 * leaves the old, empty storage in place: nothing of an unfinished leaf is
 * ever visible.  The new files are recorded (leafstorage.c) until the
 * transaction ends, so that resume() can remove what a crash left.
 *
 * Privileges: new storage for a leaf is what TRUNCATE does, so the job's
 * owner needs the TRUNCATE privilege on every local leaf (checked at
 * start() and again before each leaf), besides INSERT on the table.  On
 * Citus the leaves are the local shard tables, which Citus gives the
 * distributed table's owner and grants (a GRANT on the coordinator reaches
 * them); the router's leaves of other nodes' shards are skipped while
 * routing, like foreign leaves.  Their keys are credited, range by range,
 * to the local leaves' ledger rows (foreign_skipped), so a job's keys add
 * up to the key space as a chunk job's do.  No utility statement runs on a
 * shard (new storage and reindex_relation() are internal calls), so
 * Citus's guard against manual changes to shards, in its utility hook, is
 * not involved.
 *
 * The routing files are removed when the job is done.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "commands/tablecmds.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "compat.h"
#include "gen/keys.h"
#include "gen/rowgen.h"
#include "load/leafload.h"
#include "load/leafstorage.h"
#include "load/writer.h"
#include "route/route.h"

#define LEAF_DIR			"pg_petagen"
#define LEAF_FILE_MAGIC		0x5047524C	/* "PGRL" */
#define LEAF_READ_BUF		65536
/* Report progress at least every this many keys. */
#define LEAF_PROGRESS_KEYS	10000

/* The head of a range file; nleaves LeafSection follow, then the sections. */
typedef struct LeafFileHeader
{
	uint32		magic;
	uint32		nleaves;		/* local leaves of the table */
	int64		first;			/* the range's first key number */
	int64		count;
} LeafFileHeader;

/* Where one leaf's key numbers are in a range file. */
typedef struct LeafSection
{
	uint64		nkeys;
	uint64		nbytes;
} LeafSection;

/* Reads the key numbers of one leaf in one range file. */
typedef struct LeafReader
{
	int			fd;
	uint64		left;			/* keys still to read */
	int64		foreign;		/* keys of other nodes' leaves credited here */
	uint64		bytes_left;		/* section bytes not yet in buf */
	int64		prev;			/* the last key number read */
	int			len;
	int			pos;
	unsigned char buf[LEAF_READ_BUF];
} LeafReader;

/* Parse the method argument: true for 'leaf', false for 'chunk'. */
bool
leaf_method_option(const char *value)
{
	if (strcmp(value, "leaf") == 0)
		return true;
	if (strcmp(value, "chunk") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method must be 'chunk' or 'leaf', not \"%s\"", value),
				 errhint("'chunk' (the default) loads chunks of key numbers into every leaf; 'leaf' writes each local leaf whole, frozen, in one transaction.")));
	return false;
}

/* Raise an error unless the current role may give leaf rel new storage. */
static void
leaf_check_privilege(Oid leafrelid)
{
	if (pg_class_aclcheck(leafrelid, GetUserId(), ACL_TRUNCATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(leafrelid)),
				 errdetail("method => 'leaf' gives each leaf new storage, as TRUNCATE does."),
				 errhint("GRANT TRUNCATE on every local leaf to the role that runs the job, or use method => 'chunk'.")));
}

/* Does leaf rel hold a row that snapshot sees? */
static bool
leaf_has_rows(Relation rel, Snapshot snapshot)
{
	TableScanDesc scan = table_beginscan(rel, snapshot, 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	bool		found = table_scan_getnextslot(scan, ForwardScanDirection, slot);

	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	return found;
}

/*
 * Raise an error if leaf rel, locked ACCESS EXCLUSIVE, holds rows: looked
 * for with a snapshot taken now, after the lock, so that rows committed
 * while this worker waited for the lock are seen (the transaction's own
 * snapshot predates the wait).
 */
static void
leaf_check_empty(Relation rel)
{
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	bool		has_rows = leaf_has_rows(rel, snapshot);

	UnregisterSnapshot(snapshot);
	if (has_rows)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("leaf \"%s\" is not empty", RelationGetRelationName(rel)),
				 errdetail("method => 'leaf' writes only into empty leaves: it gives each leaf new storage."),
				 errhint("TRUNCATE the leaf first if its rows may go, or use method => 'chunk'.")));
}

/* The local leaves of relid in routing order (palloc'd); *nlocal set. */
Oid *
leaf_local_leaves(Oid relid, int *nlocal)
{
	Router	   *router = route_open(relid);
	Oid		   *leaves = palloc(sizeof(Oid) * Max(route_nleaves(router), 1));

	*nlocal = 0;
	for (int i = 0; i < route_nleaves(router); i++)
		if (route_leaf(router, i)->local)
			leaves[(*nlocal)++] = route_leaf(router, i)->relid;
	route_close(router);
	return leaves;
}

/*
 * The local leaves of relid that hold rows; the first one's name in
 * *first_name (NULL if none).
 */
int64
leaf_nonempty(Oid relid, char **first_name)
{
	int			nlocal;
	Oid		   *leaves = leaf_local_leaves(relid, &nlocal);
	int64		n = 0;

	*first_name = NULL;
	for (int i = 0; i < nlocal; i++)
	{
		Relation	rel = table_open(leaves[i], AccessShareLock);

		if (leaf_has_rows(rel, GetActiveSnapshot()))
		{
			if (n++ == 0)
				*first_name = pstrdup(RelationGetRelationName(rel));
		}
		table_close(rel, AccessShareLock);
	}
	return n;
}

/*
 * Raise an error unless a leaf job can load relid: keys unique by
 * construction, no indexes => 'after', TRUNCATE on every local leaf.
 * Leaves that hold rows are check()'s finding (start() refuses on it) and
 * each worker's refusal (leaf_check_empty).
 */
void
leaf_check(Oid relid, const GenSpec *spec, bool indexes_after)
{
	int			nlocal;
	Oid		   *leaves;

	if (spec->keys.mode == KEYS_YCSB || spec->keys.mode == KEYS_GO_YCSB)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("method => 'leaf' cannot load keys of mode \"%s\"",
						keys_mode_name(spec->keys.mode)),
				 errdetail("Hashed YCSB keys have duplicates, which are found through the unique index on ycsb_key while loading; a leaf load builds its indexes after its rows."),
				 errhint("Use keys => 'scrambled' or 'ordered', or method => 'chunk'.")));
	if (indexes_after)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("method => 'leaf' cannot be combined with indexes => 'after'"),
				 errdetail("A leaf load builds each leaf's indexes after writing the leaf, in the same transaction."),
				 errhint("Leave indexes out, or use method => 'chunk'.")));
	leaves = leaf_local_leaves(relid, &nlocal);
	for (int i = 0; i < nlocal; i++)
		leaf_check_privilege(leaves[i]);
}

/* The path of a job's routing directory, or of range file `range` in it. */
static void
leaf_path(char *path, size_t size, int64 job, int64 range, bool tmp)
{
	if (range < 0)
		snprintf(path, size, LEAF_DIR "/" INT64_FORMAT, job);
	else
		snprintf(path, size, LEAF_DIR "/" INT64_FORMAT "/range." INT64_FORMAT "%s",
				 job, range, tmp ? ".tmp" : "");
}

/* Has range `range` of job been routed: is its file there? */
bool
leaf_range_done(int64 job, int64 range)
{
	char		path[MAXPGPATH];
	struct stat st;

	leaf_path(path, sizeof(path), job, range, false);
	return stat(path, &st) == 0;
}

/* Create directory path unless it exists, durably. */
static void
leaf_make_dir(const char *path)
{
	if (MakePGDirectory(path) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", path)));
	fsync_fname(path, true);
}

/* Append v to buf as a little-endian base-128 varint. */
static void
leaf_put_varint(StringInfo buf, uint64 v)
{
	while (v >= 0x80)
	{
		appendStringInfoChar(buf, (char) ((v & 0x7F) | 0x80));
		v >>= 7;
	}
	appendStringInfoChar(buf, (char) v);
}

/* Write len bytes to fd or raise an error naming path. */
static void
leaf_write_all(int fd, const void *data, size_t len, const char *path)
{
	errno = 0;
	if (write(fd, data, len) != (ssize_t) len)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	}
}

/* Write a range's file (header, sections) and rename it into place durably. */
static void
leaf_write_file(int64 job, int64 range, const LeafFileHeader *hdr,
				StringInfo bufs, const LeafSection *sections)
{
	char		dir[MAXPGPATH];
	char		tmp[MAXPGPATH];
	char		path[MAXPGPATH];
	int			fd;

	leaf_make_dir(LEAF_DIR);
	leaf_path(dir, sizeof(dir), job, -1, false);
	leaf_make_dir(dir);
	leaf_path(tmp, sizeof(tmp), job, range, true);
	leaf_path(path, sizeof(path), job, range, false);
	fd = OpenTransientFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmp)));
	leaf_write_all(fd, hdr, sizeof(*hdr), tmp);
	leaf_write_all(fd, sections, sizeof(LeafSection) * hdr->nleaves, tmp);
	for (uint32 i = 0; i < hdr->nleaves; i++)
		leaf_write_all(fd, bufs[i].data, bufs[i].len, tmp);
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", tmp)));
	/* fsyncs the file, renames it, fsyncs the directory */
	durable_rename(tmp, path, ERROR);
}

/* Check the table's shape for keys first .. first+count-1; fill shape. */
static void
leaf_table_shape(Oid relid, const GenSpec *spec, int64 first, int64 count,
				 RowShape *shape)
{
	Relation	rel = table_open(relid, AccessShareLock);

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), shape);
	spec_check_shape(spec, shape, first + Max(count - 1, 0),
					 RelationGetRelationName(rel));
	table_close(rel, NoLock);
}

/*
 * Route key numbers first .. first+count-1 (range `range` of job) and
 * write the key numbers of each local leaf to the range's file; counts
 * the keys routed and those of foreign leaves into *stats.
 */
void
leaf_route_range(int64 job, Oid relid, const GenSpec *spec, int64 range,
				 int64 first, int64 count, LoadStats *stats)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "petagen route", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	RowShape	shape;
	RowGen		rg;
	Router	   *router;
	int		   *local_no;
	int			nlocal = 0;
	StringInfo	bufs;
	LeafSection *sections;
	int64	   *prev;
	LeafFileHeader hdr;

	leaf_table_shape(relid, spec, first, count, &shape);
	router = route_open(relid);
	local_no = palloc(sizeof(int) * Max(route_nleaves(router), 1));
	for (int i = 0; i < route_nleaves(router); i++)
		local_no[i] = route_leaf(router, i)->local ? nlocal++ : -1;
	bufs = palloc(sizeof(StringInfoData) * Max(nlocal, 1));
	sections = palloc0(sizeof(LeafSection) * Max(nlocal, 1));
	prev = palloc(sizeof(int64) * Max(nlocal, 1));
	for (int i = 0; i < nlocal; i++)
	{
		initStringInfo(&bufs[i]);
		prev[i] = first - 1;
	}
	rowgen_init(&rg, &shape, spec);
	for (int64 seq = first; seq < first + count; seq++)
	{
		int			leaf;

		if (((seq - first) & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		rowgen_build_key(&rg, seq);
		leaf = route_key(router, PointerGetDatum(rg.key));
		if (leaf == -1)
			load_no_partition(relid, rg.key, seq);
		stats->keys++;
		if (leaf == ROUTE_ELSEWHERE || local_no[leaf] < 0)
		{
			stats->foreign++;
			continue;
		}
		leaf = local_no[leaf];
		leaf_put_varint(&bufs[leaf], (uint64) (seq - prev[leaf]));
		prev[leaf] = seq;
		sections[leaf].nkeys++;
	}
	route_close(router);
	for (int i = 0; i < nlocal; i++)
		sections[i].nbytes = bufs[i].len;
	hdr.magic = LEAF_FILE_MAGIC;
	hdr.nleaves = nlocal;
	hdr.first = first;
	hdr.count = count;
	leaf_write_file(job, range, &hdr, bufs, sections);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/* Read exactly len bytes of path at the current offset of fd. */
static void
leaf_read_all(int fd, void *data, size_t len, const char *path)
{
	ssize_t		got = read(fd, data, len);

	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	if (got != (ssize_t) len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("routing file \"%s\" is truncated", path)));
}

/*
 * Open the section of local leaf leafno in a range file of job.  The keys
 * of the range that no local leaf holds (other nodes' leaves) are credited
 * to local leaf range % nlocal, so that the ledger's keys of all leaves add
 * up to the key space, as a chunk job's do.
 */
static void
leaf_open_section(LeafReader *r, int64 job, int64 range, int leafno,
				  int nlocal)
{
	char		path[MAXPGPATH];
	LeafFileHeader hdr;
	LeafSection *sections;
	off_t		offset;

	leaf_path(path, sizeof(path), job, range, false);
	r->fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (r->fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open routing file \"%s\": %m", path)));
	leaf_read_all(r->fd, &hdr, sizeof(hdr), path);
	if (hdr.magic != LEAF_FILE_MAGIC || hdr.nleaves != (uint32) nlocal)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("routing file \"%s\" does not match the table's %d local leaves",
						path, nlocal),
				 errdetail("The table's partitions changed since the job routed its keys."),
				 errhint("Start a new job: this one cannot be resumed.")));
	sections = palloc(sizeof(LeafSection) * nlocal);
	leaf_read_all(r->fd, sections, sizeof(LeafSection) * nlocal, path);
	offset = sizeof(hdr) + sizeof(LeafSection) * nlocal;
	for (int i = 0; i < leafno; i++)
		offset += sections[i].nbytes;
	if (lseek(r->fd, offset, SEEK_SET) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in file \"%s\": %m", path)));
	r->left = sections[leafno].nkeys;
	r->bytes_left = sections[leafno].nbytes;
	r->foreign = 0;
	if (range % nlocal == leafno)
	{
		r->foreign = hdr.count;
		for (int i = 0; i < nlocal; i++)
			r->foreign -= sections[i].nkeys;
	}
	r->prev = hdr.first - 1;
	r->len = r->pos = 0;
	pfree(sections);
}

/* The next byte of a reader's section, refilling its buffer as needed. */
static unsigned char
leaf_next_byte(LeafReader *r)
{
	if (r->pos == r->len)
	{
		int			want = (int) Min(r->bytes_left, (uint64) LEAF_READ_BUF);

		if (want == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("a petagen routing file ends inside a key list")));
		leaf_read_all(r->fd, r->buf, want, "routing file");
		r->bytes_left -= want;
		r->len = want;
		r->pos = 0;
	}
	return r->buf[r->pos++];
}

/* The next key number of a reader's leaf; false at the end. */
static bool
leaf_next_key(LeafReader *r, int64 *seq)
{
	uint64		delta = 0;
	int			shift = 0;
	unsigned char b;

	if (r->left == 0)
		return false;
	do
	{
		b = leaf_next_byte(r);
		delta |= (uint64) (b & 0x7F) << shift;
		shift += 7;
	} while (b & 0x80);
	r->left--;
	r->prev += (int64) delta;
	*seq = r->prev;
	return true;
}

/*
 * In the current transaction: lock the job's table as INSERT does and the
 * leaf ACCESS EXCLUSIVE, then check under those locks everything a chunk
 * job checks per chunk: privileges, that the leaf is still a leaf of the
 * table, the shape of its columns (typmods) against the keys and fields,
 * policies, triggers and rules of table and leaf, and that it is empty.
 */
static void
leaf_lock_checked(const LeafJob *lj, Oid leafrelid)
{
	Relation	rel;
	RowShape	shape;

	load_check_privilege(lj->relid);
	LockRelationOid(lj->relid, RowExclusiveLock);
	rel = table_open(leafrelid, AccessExclusiveLock);
	leaf_check_privilege(leafrelid);
	load_check_table(lj->relid, lj->spec, Max(lj->rows - 1, 0), &shape);
	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	spec_check_shape(lj->spec, &shape, Max(lj->rows - 1, 0),
					 RelationGetRelationName(rel));
	load_check_bypass(rel);
	CheckTableNotInUse(rel, "petagen.start");
	leaf_check_empty(rel);
	table_close(rel, NoLock);
}

/* Give a locked leaf and its TOAST table new, empty storage, as TRUNCATE does. */
static void
leaf_new_storage(Oid leafrelid)
{
	Relation	rel = table_open(leafrelid, NoLock);

	compat_set_new_relfilenumber(rel, rel->rd_rel->relpersistence);
	if (OidIsValid(rel->rd_rel->reltoastrelid))
	{
		Relation	toastrel = relation_open(rel->rd_rel->reltoastrelid,
											 AccessExclusiveLock);

		compat_set_new_relfilenumber(toastrel, toastrel->rd_rel->relpersistence);
		table_close(toastrel, NoLock);
	}
	table_close(rel, NoLock);
}

/* Raise PostgreSQL's error for a row outside a leaf's partition bounds. */
static void
leaf_partition_violation(Oid leafrelid, const char *key, int64 seq)
{
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("new row for relation \"%s\" violates partition constraint",
					get_rel_name(leafrelid)),
			 errdetail("Key number " INT64_FORMAT " has ycsb_key \"%s\", which the table's partitions now route elsewhere.",
					   seq, text_to_cstring((const text *) key)),
			 errhint("The table's partitions changed after the job routed its keys: start a new job for the table as it is now.")));
}

/*
 * Write the rows of leaf leafno's key numbers from every range file,
 * each key first checked against the leaf's bounds as they are now.
 */
static void
leaf_write_rows(const LeafJob *lj, Oid leafrelid, int leafno,
				LoadStats *stats, LoadProgressFn progress, void *progress_arg)
{
	Relation	rel = table_open(leafrelid, NoLock);
	Router	   *bounds = route_open_leaf(lj->relid, leafrelid);
	RowShape	shape;
	RowGen		rg;
	Writer	   *writer = writer_open_heap_only(leafrelid, lj->spec);
	LeafReader *r = palloc(sizeof(LeafReader));
	int			since_progress = 0;

	shape_from_tupdesc(RelationGetDescr(rel), RelationGetRelationName(rel), &shape);
	table_close(rel, NoLock);
	rowgen_init(&rg, &shape, lj->spec);
	for (int64 range = 0; range < lj->nranges; range++)
	{
		int64		seq;

		leaf_open_section(r, lj->job, range, leafno, lj->nlocal);
		stats->keys += r->foreign;
		stats->foreign += r->foreign;
		while (leaf_next_key(r, &seq))
		{
			bool		flushed;

			if ((++since_progress & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			rowgen_build_key(&rg, seq);
			if (route_key(bounds, PointerGetDatum(rg.key)) != 0)
				leaf_partition_violation(leafrelid, rg.key, seq);
			stats->keys++;
			flushed = writer_add(writer, 0, seq, rg.key, stats);
			if ((since_progress >= LEAF_PROGRESS_KEYS || flushed) && progress)
			{
				progress(progress_arg, stats);
				since_progress = 0;
			}
		}
		CloseTransientFile(r->fd);
	}
	writer_flush_all(writer, stats);
	writer_close(writer);
	route_close(bounds);
	pfree(r);
}

/*
 * In the current transaction: write local leaf leafno of a leaf job whole
 * from its routing files, into new storage, frozen, and build its indexes,
 * checking every UNIQUE and EXCLUDE constraint as the build goes (23505,
 * 23P01, as load() raises them); adds to *stats.  The caller records the
 * leaf and commits.
 */
void
leaf_write(const LeafJob *lj, Oid leafrelid, int leafno, LoadStats *stats,
		   LoadProgressFn progress, void *progress_arg)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "petagen leaf", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ReindexParams params = {0};

	leaf_lock_checked(lj, leafrelid);
	leaf_new_storage(leafrelid);
	leaf_storage_record(lj->job, leafno, leafrelid);
	leaf_write_rows(lj, leafrelid, leafno, stats, progress, progress_arg);
	if (progress)
		progress(progress_arg, stats);
	/* every index of the leaf (and its TOAST table) built from its heap */
	compat_reindex_relation(leafrelid,
							REINDEX_REL_PROCESS_TOAST | REINDEX_REL_CHECK_CONSTRAINTS,
							&params);
	leaf_storage_record(lj->job, leafno, leafrelid);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/* Remove a job's routing files, if any. */
void
leaf_remove_files(int64 job)
{
	char		dir[MAXPGPATH];
	struct stat st;

	leaf_path(dir, sizeof(dir), job, -1, false);
	if (stat(dir, &st) == 0 && !rmtree(dir, true))
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove the routing files in \"%s\"", dir)));
}

/* A generous estimate of the routing files of rows keys over nlocal leaves. */
int64
leaf_route_bytes(int64 rows, int nlocal)
{
	/* a delta of about nlocal takes one varint byte per 7 bits */
	int			bits = 1;

	while ((INT64CONST(1) << bits) < (int64) Max(nlocal, 1) * 4 && bits < 62)
		bits++;
	return rows * ((bits + 6) / 7);
}
