/*-------------------------------------------------------------------------
 * leafroute.c
 *		The routing files of leaf loads (leafload.c): a leaf job's key space
 *		cut into ranges, each routed once into a file that lists, per local
 *		leaf, the key numbers that land there; read back leaf by leaf.
 *
 * The key space is cut into ranges of chunk_rows key numbers.  A worker
 * routes every key of a range as load.c does and writes, per local leaf,
 * the key numbers that land there, delta-encoded as varints (about one
 * byte per key with 64 leaves), to the range's file
 * $PGDATA/pg_petagen/<job>/range.<n>.  The file is written under a
 * temporary name and renamed durably, so a range whose file exists is
 * complete and is not routed again after a stop or a crash.  Re-routing
 * the whole key space for every leaf instead would cost leaves x keys.
 *
 * The routing files are removed when the job is done.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/table.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "gen/rowgen.h"
#include "load/leafroute.h"
#include "route/route.h"

#define LEAF_DIR			"pg_petagen"
#define LEAF_FILE_MAGIC		0x5047524C	/* "PGRL" */
#define LEAF_READ_BUF		65536

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
struct LeafReader
{
	int			fd;
	uint64		left;			/* keys still to read */
	int64		foreign;		/* keys of other nodes' leaves credited here */
	uint64		bytes_left;		/* section bytes not yet in buf */
	int64		prev;			/* the last key number read */
	int			len;
	int			pos;
	unsigned char buf[LEAF_READ_BUF];
};

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
 * Open the key numbers of local leaf leafno (of nlocal) in range `range`
 * of job, for leaf_reader_next().
 */
LeafReader *
leaf_reader_open(int64 job, int64 range, int leafno, int nlocal)
{
	LeafReader *r = palloc(sizeof(LeafReader));

	leaf_open_section(r, job, range, leafno, nlocal);
	return r;
}

/* The keys of other nodes' leaves a reader's range credits to its leaf. */
int64
leaf_reader_foreign(const LeafReader *r)
{
	return r->foreign;
}

/* The next key number of a reader's leaf; false at the end. */
bool
leaf_reader_next(LeafReader *r, int64 *seq)
{
	return leaf_next_key(r, seq);
}

/* Close a reader and free it. */
void
leaf_reader_close(LeafReader *r)
{
	CloseTransientFile(r->fd);
	pfree(r);
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
