/*-------------------------------------------------------------------------
 * leafroute.c
 *		The routing files of leaf loads: written, read, and where they live
 *		and when they go.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "access/table.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "gen/rowgen.h"
#include "load/load.h"
#include "route/route.h"

static void leaf_db_dir(char *path, Oid dboid);
static void leaf_token_dir(char *path, int64 token);
static void leaf_range_path(char *path, int64 token, int64 range, bool tmp);


/*-------------------------------------------------------------------------
 *		The routing files of leaf loads (leafload.c): a leaf job's key space
 *		cut into ranges, each routed once into a file that lists, per local
 *		leaf, the key numbers that land there; read back leaf by leaf.
 *
 * The key space is cut into ranges of chunk_rows key numbers.  A worker
 * routes every key of a range as load.c does and writes, per local leaf,
 * the key numbers that land there, delta-encoded as varints (about one
 * byte per key with 64 leaves), to the range's file.  The file is written
 * under a temporary name and renamed durably, so a range's file is
 * complete or absent.  Re-routing the whole key space for every leaf
 * instead would cost leaves x keys.
 *
 * Whose files: they belong to exactly one job of one database, in the job's
 * directory named by its route token (leafroute.c).  Every file's header says
 * what produced it: format version, database, job, token, range (number,
 * first key, count), a fingerprint of the key spec (every GenSpec field that
 * decides keys) and one of the table's layout (the table, every partition
 * below and above it with its bound, the leaves in routing order, local or
 * not, with their Citus shards).  A file whose header differs in anything
 * from what the job would write is not its current routing: while routing,
 * the range is routed again and the file replaced; while a leaf is written,
 * it is an error that fails the job, and resume() routes again.  A worker
 * compares with what it found when its run began (the routing phase, when no
 * leaf of the job is being written: the layout's fingerprint locks every
 * leaf ACCESS SHARE, which a leaf being written would block) and routes a
 * range with what it finds then, in the range's transaction: a layout
 * changed during routing fails the job at its next leaf.  So a file is never
 * used by a job that did not write it for the table as it was routed.
 *
 * Where the files live, and when they are removed: leafroute.c.
 *-------------------------------------------------------------------------
 */

#define LEAF_FILE_MAGIC		0x5047524C	/* "PGRL" */
/* 2: the header names its job, token, range, key spec and layout */
#define LEAF_FILE_VERSION	2
#define LEAF_READ_BUF		65536

/* The head of a range file; nleaves LeafSection follow, then the sections. */
typedef struct LeafFileHeader
{
	uint32		magic;
	uint32		version;
	Oid			database;
	uint32		nleaves;		/* local leaves of the table */
	int64		job;
	int64		token;
	int64		range;
	int64		first;			/* the range's first key number */
	int64		count;
	uint64		keys_fp;		/* leaf_keys_fingerprint() */
	uint64		layout_fp;		/* leaf_layout_fingerprint() */
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

/* The fingerprint of what decides a key number's key: every KeySpec field. */
static uint64
leaf_keys_fingerprint(const GenSpec *spec)
{
	StringInfoData buf;

	/* the kind in the mode's field: unchanged for text keys */
	int32		fields[3] = {spec->keys.mode + 16 * spec->keys.kind,
	spec->keys.zeropadding, spec->keys.prefixlen};
	uint64		fp;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (const char *) fields, sizeof(fields));
	appendBinaryStringInfo(&buf, spec->keys.prefix, spec->keys.prefixlen);
	fp = XXH3_64bits(buf.data, buf.len);
	pfree(buf.data);
	return fp;
}

/* Add a relation to a layout's description: its OID and its partition bound. */
static void
leaf_describe_partition(StringInfo buf, Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		isnull;
	Datum		bound;

	appendBinaryStringInfo(buf, (const char *) &relid, sizeof(relid));
	if (!HeapTupleIsValid(tuple))
		return;
	bound = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_relpartbound, &isnull);
	if (!isnull)
	{
		char	   *spec = TextDatumGetCString(bound);

		appendBinaryStringInfo(buf, spec, strlen(spec) + 1);
		pfree(spec);
	}
	ReleaseSysCache(tuple);
}

/*
 * The fingerprint of what decides which local leaf a key lands in: relid,
 * its ancestors and every partition below it with their bounds, and the
 * router's leaves in routing order (local or not, Citus shard).  The
 * caller holds router, opened on relid in this transaction.
 */
static uint64
leaf_layout_fingerprint(Oid relid, Router *router)
{
	StringInfoData buf;
	List	   *rels = list_concat(get_partition_ancestors(relid),
								   find_all_inheritors(relid, NoLock, NULL));
	ListCell   *lc;
	uint64		fp;

	initStringInfo(&buf);
	foreach(lc, rels)
		leaf_describe_partition(&buf, lfirst_oid(lc));
	for (int i = 0; i < route_nleaves(router); i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);

		appendBinaryStringInfo(&buf, (const char *) &leaf->relid,
							   sizeof(leaf->relid));
		appendBinaryStringInfo(&buf, (const char *) &leaf->local,
							   sizeof(leaf->local));
		appendBinaryStringInfo(&buf, (const char *) &leaf->shardid,
							   sizeof(leaf->shardid));
	}
	fp = XXH3_64bits(buf.data, buf.len);
	pfree(buf.data);
	list_free(rels);
	return fp;
}

/*
 * In a transaction: complete routing (its job, token, relid, first, rows,
 * chunk_rows and spec set by the caller) with what the job's routing files
 * must say now, from the table as it is (its partitions stay locked until
 * the transaction ends).
 */
void
leaf_routing_init(LeafRouting *routing)
{
	Router	   *router = route_open(routing->relid);

	routing->nlocal = 0;
	for (int i = 0; i < route_nleaves(router); i++)
		routing->nlocal += route_leaf(router, i)->local ? 1 : 0;
	routing->keys_fp = leaf_keys_fingerprint(&routing->spec);
	routing->layout_fp = leaf_layout_fingerprint(routing->relid, router);
	route_close(router);
}

/* The header range `range` of routing's job must have, for nleaves leaves. */
static void
leaf_expected_header(const LeafRouting *routing, int64 range, int nleaves,
					 LeafFileHeader *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = LEAF_FILE_MAGIC;
	hdr->version = LEAF_FILE_VERSION;
	hdr->database = MyDatabaseId;
	hdr->nleaves = nleaves;
	hdr->job = routing->job;
	hdr->token = routing->token;
	hdr->range = range;
	hdr->first = routing->first + range * routing->chunk_rows;
	hdr->count = Min(routing->chunk_rows,
					 routing->rows - range * routing->chunk_rows);
	hdr->keys_fp = routing->keys_fp;
	hdr->layout_fp = routing->layout_fp;
}

/* How a file's header differs from the expected one, or NULL if it does not. */
static const char *
leaf_header_mismatch(const LeafFileHeader *got, const LeafFileHeader *want)
{
	if (got->magic != want->magic || got->version != want->version)
		return "another version of petagen";
	if (got->database != want->database)
		return "another database";
	if (got->job != want->job || got->token != want->token)
		return "another load job";
	if (got->range != want->range || got->first != want->first ||
		got->count != want->count)
		return "another range of key numbers";
	if (got->keys_fp != want->keys_fp)
		return "other key options (keys, prefix, zeropadding)";
	if (got->nleaves != want->nleaves || got->layout_fp != want->layout_fp)
		return "another partition layout of the table";
	return NULL;
}

/*
 * Read the header of the file open as fd; false if the file is shorter
 * than a header.
 */
static bool
leaf_read_header(int fd, const char *path, LeafFileHeader *hdr)
{
	ssize_t		got = read(fd, hdr, sizeof(*hdr));

	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	return got == (ssize_t) sizeof(*hdr);
}

/*
 * Is range `range` routed for routing's job as the table is now: is its
 * file there with the header the job would write (nlocal leaves)?
 */
bool
leaf_range_current(const LeafRouting *routing, int64 range, int nlocal)
{
	char		path[MAXPGPATH];
	LeafFileHeader want;
	LeafFileHeader got;
	int			fd;
	bool		current;

	leaf_range_path(path, routing->token, range, false);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0 && errno == ENOENT)
		return false;
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open routing file \"%s\": %m", path)));
	leaf_expected_header(routing, range, nlocal, &want);
	current = leaf_read_header(fd, path, &got) &&
		leaf_header_mismatch(&got, &want) == NULL;
	CloseTransientFile(fd);
	return current;
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
void
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

/*
 * Write a range's file (header, sections) into routing's directory under
 * a temporary name and rename it into place durably, replacing any file
 * the range had.
 */
static void
leaf_write_file(const LeafRouting *routing, const LeafFileHeader *hdr,
				StringInfo bufs, const LeafSection *sections)
{
	char		dir[MAXPGPATH];
	char		tmp[MAXPGPATH];
	char		path[MAXPGPATH];
	int			fd;

	leaf_make_dir(LEAF_DIR);
	leaf_db_dir(dir, MyDatabaseId);
	leaf_make_dir(dir);
	leaf_token_dir(dir, routing->token);
	leaf_make_dir(dir);
	leaf_range_path(tmp, routing->token, hdr->range, true);
	leaf_range_path(path, routing->token, hdr->range, false);
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
 * Route range `range` of routing's job (initialized in this transaction)
 * and write the key numbers of each local leaf to the range's file;
 * counts the keys routed and those of foreign leaves into *stats.
 */
void
leaf_route_range(const LeafRouting *routing, int64 range, LoadStats *stats)
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
	int64		first;
	int64		count;

	leaf_expected_header(routing, range, routing->nlocal, &hdr);
	first = hdr.first;
	count = hdr.count;
	leaf_table_shape(routing->relid, &routing->spec, first, count, &shape);
	router = route_open(routing->relid);
	local_no = palloc(sizeof(int) * Max(route_nleaves(router), 1));
	for (int i = 0; i < route_nleaves(router); i++)
		local_no[i] = route_leaf(router, i)->local ? nlocal++ : -1;
	Assert(nlocal == routing->nlocal);
	bufs = palloc(sizeof(StringInfoData) * Max(nlocal, 1));
	sections = palloc0(sizeof(LeafSection) * Max(nlocal, 1));
	prev = palloc(sizeof(int64) * Max(nlocal, 1));
	for (int i = 0; i < nlocal; i++)
	{
		initStringInfo(&bufs[i]);
		prev[i] = first - 1;
	}
	rowgen_init(&rg, &shape, &routing->spec);
	for (int64 seq = first; seq < first + count; seq++)
	{
		int			leaf;

		if (((seq - first) & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		rowgen_build_key(&rg, seq);
		leaf = route_key(router, rg.key);
		if (leaf == -1)
			load_no_partition(routing->relid, &rg.spec.keys, seq);
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
	leaf_write_file(routing, &hdr, bufs, sections);
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
 * Open range `range`'s file of routing's job (initialized in this
 * transaction) and raise an error unless it is the job's current routing
 * for nlocal local leaves.
 */
static int
leaf_open_current(const LeafRouting *routing, int64 range, int nlocal,
				  LeafFileHeader *hdr)
{
	char		path[MAXPGPATH];
	LeafFileHeader want;
	const char *why;
	int			fd;

	leaf_range_path(path, routing->token, range, false);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open routing file \"%s\": %m", path)));
	leaf_expected_header(routing, range, nlocal, &want);
	why = leaf_read_header(fd, path, hdr) ?
		leaf_header_mismatch(hdr, &want) : "a write that did not finish";
	if (why != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("routing file \"%s\" is not the current routing of load job " INT64_FORMAT,
						path, routing->job),
				 errdetail("The file was written for %s.", why),
				 errhint("The job fails and its routing files are removed; petagen.resume(" INT64_FORMAT ") routes its keys again.",
						 routing->job)));
	return fd;
}

/*
 * Open the section of local leaf leafno in range `range`'s file of
 * routing's job.  The keys of the range that no local leaf holds (other
 * nodes' leaves) are credited to local leaf range % nlocal, so that the
 * ledger's keys of all leaves add up to the key space, as a chunk job's
 * do.
 */
static void
leaf_open_section(LeafReader *r, const LeafRouting *routing, int64 range,
				  int leafno, int nlocal)
{
	LeafFileHeader hdr;
	LeafSection *sections;
	off_t		offset;

	r->fd = leaf_open_current(routing, range, nlocal, &hdr);
	sections = palloc(sizeof(LeafSection) * nlocal);
	leaf_read_all(r->fd, sections, sizeof(LeafSection) * nlocal, "routing file");
	offset = sizeof(hdr) + sizeof(LeafSection) * nlocal;
	for (int i = 0; i < leafno; i++)
		offset += sections[i].nbytes;
	if (lseek(r->fd, offset, SEEK_SET) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in a routing file: %m")));
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
 * Open the key numbers of local leaf leafno (of nlocal) in range
 * `range`'s file of routing's job, for leaf_reader_next(); raises an
 * error unless the file is the job's current routing.
 */
LeafReader *
leaf_reader_open(const LeafRouting *routing, int64 range, int leafno,
				 int nlocal)
{
	LeafReader *r = palloc(sizeof(LeafReader));

	leaf_open_section(r, routing, range, leafno, nlocal);
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


/*-------------------------------------------------------------------------
 *		Where the routing files of leaf loads (leafroute.c) live, and when
 *		they go: a directory per job of one database, named by the job's
 *		route token, removed when its run ends or nobody can use it any more.
 *
 * A job's directory is $PGDATA/pg_petagen/<database oid>/<token>, the token
 * a random 64-bit value start() draws and petagen.jobs keeps (route_token):
 * job ids are per database and start at 1 again after DROP/CREATE
 * EXTENSION, tokens do not repeat.
 *
 * Lifecycle: a job's directory is removed when a run ends done, failed or
 * stopped (not interrupted: nobody is left, and resume() continues from
 * the files).  start() and resume() sweep what nobody can use any more:
 * in this database's directory every token that is not a resumable job's
 * (running, failed or stopped, its table still there), the directories
 * of dropped databases, and the files of the layout before tokens
 * (pg_petagen/<job>/range.<n>).  DROP EXTENSION petagen removes this
 * database's directory when the dropping transaction commits.  Removal is
 * never transactional: when the transaction that removed files rolls back,
 * the only cost is routing again.
 *-------------------------------------------------------------------------
 */

/* A token directory's name: the token in hex. */
#define LEAF_TOKEN_FORMAT	"%08x%08x"
#define LEAF_TOKEN_LEN		16

/* Remove this database's directory when the transaction commits. */
static bool leaf_drop_at_commit = false;

/* A new route token: random, never 0 (no token). */
int64
leaf_new_token(void)
{
	int64		token = 0;

	while (token == 0)
		if (!pg_strong_random(&token, sizeof(token)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate a random routing token")));
	return token;
}

/* The directory of database dboid's routing files. */
static void
leaf_db_dir(char *path, Oid dboid)
{
	snprintf(path, MAXPGPATH, LEAF_DIR "/%u", dboid);
}

/* The directory of the routing files of token in this database. */
static void
leaf_token_dir(char *path, int64 token)
{
	snprintf(path, MAXPGPATH, LEAF_DIR "/%u/" LEAF_TOKEN_FORMAT, MyDatabaseId,
			 (uint32) ((uint64) token >> 32), (uint32) token);
}

/* The path of range file `range` of token (its temporary name if tmp). */
static void
leaf_range_path(char *path, int64 token, int64 range, bool tmp)
{
	char		dir[MAXPGPATH];

	leaf_token_dir(dir, token);
	snprintf(path, MAXPGPATH, "%s/range." INT64_FORMAT "%s", dir, range,
			 tmp ? ".tmp" : "");
}

/* Does range `range` of token have its file (current or not)? */
bool
leaf_range_done(int64 token, int64 range)
{
	char		path[MAXPGPATH];
	struct stat st;

	leaf_range_path(path, token, range, false);
	return stat(path, &st) == 0;
}

/* Create directory path unless it exists, durably. */
void
leaf_make_dir(const char *path)
{
	if (MakePGDirectory(path) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", path)));
	fsync_fname(path, true);
}

/* Remove the routing files of token in this database, if any. */
void
leaf_remove_files(int64 token)
{
	char		dir[MAXPGPATH];
	struct stat st;

	if (token == 0)
		return;
	leaf_token_dir(dir, token);
	if (stat(dir, &st) == 0 && !rmtree(dir, true))
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove the routing files in \"%s\"", dir)));
}

/* Remove path, a file or a directory with everything in it. */
static void
leaf_remove_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode))
		(void) rmtree(path, true);	/* warns of what it cannot remove */
	else if (unlink(path) != 0)
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
}

/* Is name a token directory's name?  If so, the token in *token. */
static bool
leaf_token_name(const char *name, int64 *token)
{
	uint64		v = 0;

	if (strlen(name) != LEAF_TOKEN_LEN)
		return false;
	for (const char *c = name; *c; c++)
	{
		if (*c >= '0' && *c <= '9')
			v = (v << 4) | (uint64) (*c - '0');
		else if (*c >= 'a' && *c <= 'f')
			v = (v << 4) | (uint64) (*c - 'a' + 10);
		else
			return false;
	}
	*token = (int64) v;
	return true;
}

/* Is token one of keep[0 .. nkeep-1]? */
static bool
leaf_token_kept(int64 token, const int64 *keep, int nkeep)
{
	for (int i = 0; i < nkeep; i++)
		if (keep[i] == token)
			return true;
	return false;
}

/*
 * Sweep database directory dbdir: remove what is not a token directory
 * (files of the layout before tokens) and, in this database's (ours), the
 * token directories not in keep[] that are older than this transaction: a
 * directory changed since may be a job's this transaction cannot see yet.
 */
static void
leaf_sweep_db(const char *dbdir, bool ours, const int64 *keep, int nkeep)
{
	pg_time_t	since = timestamptz_to_time_t(GetCurrentTransactionStartTimestamp());
	DIR		   *dir = AllocateDir(dbdir);
	struct dirent *de;

	while ((de = ReadDir(dir, dbdir)) != NULL)
	{
		char		path[MAXPGPATH];
		struct stat st;
		int64		token;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dbdir, de->d_name);
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && leaf_token_name(de->d_name, &token) &&
			(!ours || leaf_token_kept(token, keep, nkeep) || st.st_mtime >= since))
			continue;
		leaf_remove_path(path);
	}
	FreeDir(dir);
}

/*
 * Remove the routing files nobody can use any more: in this database's
 * directory, those of every token not in keep[] (the resumable jobs');
 * the directories of databases that no longer exist; the files of the
 * layout before tokens.
 */
void
leaf_sweep_files(const int64 *keep, int nkeep)
{
	DIR		   *dir = AllocateDir(LEAF_DIR);
	struct dirent *de;

	if (dir == NULL && errno == ENOENT)
		return;
	while ((de = ReadDir(dir, LEAF_DIR)) != NULL)
	{
		char		path[MAXPGPATH];
		char	   *end;
		unsigned long dboid = strtoul(de->d_name, &end, 10);

		if (!isdigit((unsigned char) de->d_name[0]) || *end != '\0')
			continue;
		snprintf(path, sizeof(path), LEAF_DIR "/%s", de->d_name);
		if (!SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum((Oid) dboid)))
			leaf_remove_path(path);
		else
			leaf_sweep_db(path, (Oid) dboid == MyDatabaseId, keep, nkeep);
	}
	FreeDir(dir);
}

/* At the end of a transaction: remove this database's files if it dropped petagen. */
static void
leaf_xact_callback(XactEvent event, void *arg)
{
	char		dir[MAXPGPATH];

	if (event == XACT_EVENT_COMMIT && leaf_drop_at_commit)
	{
		leaf_db_dir(dir, MyDatabaseId);
		leaf_remove_path(dir);
	}
	if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PARALLEL_PRE_COMMIT &&
		event != XACT_EVENT_PRE_PREPARE)
		leaf_drop_at_commit = false;
}

/*
 * DROP EXTENSION petagen: remove this database's routing files when the
 * transaction commits.  If a savepoint rolls the drop back, they are
 * removed anyway: the jobs kept route again.
 */
void
leaf_remove_database_at_commit(void)
{
	static bool registered = false;

	if (!registered)
		RegisterXactCallback(leaf_xact_callback, NULL);
	registered = true;
	leaf_drop_at_commit = true;
}
