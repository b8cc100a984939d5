/*-------------------------------------------------------------------------
 * leafdirect.c
 *		A leaf's new files written past the page cache: the pages of one
 *		fork in aligned batches with O_DIRECT, one batch being written while
 *		the next is filled, WAL-logged and checksummed as PostgreSQL's bulk
 *		writer does them.
 *
 * The direct writer of a leaf load (leafload.c) builds the pages of a
 * leaf's heap and visibility map in backend memory, and those of its TOAST
 * table's heap and visibility map (leaftoast.c): each fork of each
 * relation has a writer of its own here.  Through the bulk
 * writer (compat.h: bulk_write.h from 17, the same steps by hand before)
 * every page is copied into the kernel's page cache by smgrextend() and
 * written back later: a copy of every byte the load writes, and a page
 * cache full of loaded pages that nobody reads.  Here the pages go from
 * backend memory to the file itself, as pg_bulkload's direct writer does
 * it, in batches of LEAFDIRECT_BATCH_PAGES pages (1 MB) aligned for
 * O_DIRECT.
 *
 * Each batch is handled as the bulk writer handles its pages, in the same
 * order: WAL-logged when the relation needs WAL (log_newpages(), records of
 * XLR_MAX_BLOCK_ID pages as the bulk writer makes them, so every page's LSN
 * is its full-page image's), checksummed (PageSetChecksumInplace()), then
 * written.  A batch never spans two segment files: it ends at a multiple
 * of RELSEG_SIZE blocks, and segment files after the first are created as
 * md.c creates them (its path, O_CREAT, PostgreSQL's file mode), each
 * filled to exactly RELSEG_SIZE blocks before the next begins.  md.c keeps
 * no size of its own outside recovery: smgrnblocks() reads the files'
 * sizes and opens the segments it finds, so its view of the relation is
 * right once the writer is done, and nothing of it enters shared buffers.
 * The fork is ended by the bulk writer's own finish, with no page left in
 * it: at wal_level = minimal the sync at commit (smgrDoPendingSyncs) covers
 * the files, as it covers the bulk writer's; above it the fork is synced,
 * or registered with the checkpointer, exactly as the bulk writer does.
 * fsync() is per file, not per descriptor, so it reaches the pages written
 * here through another descriptor.
 *
 * A batch is written while the next one is filled (Linux AIO, io_submit(),
 * with at most one write in flight; no thread): a worker that generates
 * rows does not wait for the disk unless the disk is slower.  On ext4 an
 * asynchronous O_DIRECT write that extends a file is done synchronously,
 * so each segment file is extended LEAFDIRECT_ALLOC_BATCHES batches ahead
 * with fallocate() and cut back to what was written when the fork ends.
 * Where AIO is not available (io_setup() fails, or not Linux) each batch is
 * written with pwrite().  An error or a cancel while a write is in flight
 * is safe: the transaction's abort closes the descriptor and drops the new
 * files, and the memory context that holds the batches waits for the write
 * (io_destroy()) before the memory is freed.  A crash leaves the files to
 * resume() as any leaf in flight.
 *
 * Where the filesystem refuses O_DIRECT (open() fails with EINVAL: ramfs,
 * tmpfs before Linux 6.6, some network and FUSE filesystems) the fork goes
 * through the bulk writer as before, and status_workers() and check() say
 * so (leafdirect_writer(), which asks of the leaf: its TOAST table lives
 * in its tablespace, and each writer asks its own file anyway).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/aio_abi.h>
#include <sys/syscall.h>
#define LEAFDIRECT_AIO 1
#endif

#include "access/relation.h"
#include "access/xloginsert.h"
#include "common/relpath.h"
#include "pgstat.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "load/load_int.h"

/* Pages per batch written at once: 1 MB with 8 kB pages. */
#define LEAFDIRECT_BATCH_PAGES	(1024 * 1024 / BLCKSZ)

/* Batches a segment file is extended ahead of its writes (ext4: above). */
#define LEAFDIRECT_ALLOC_BATCHES	16

/* The alignment O_DIRECT asks of buffers (PG_IO_ALIGN_SIZE from 16). */
#define LEAFDIRECT_ALIGN		4096

/* One batch: consecutive blocks of one segment file. */
typedef struct LeafDirectBatch
{
	char	   *pages;			/* LEAFDIRECT_BATCH_PAGES pages, aligned */
	BlockNumber first;			/* the block of pages[0] */
	int			npages;
	bool		page_std[LEAFDIRECT_BATCH_PAGES];	/* as for log_newpage */
	bool		in_flight;		/* submitted, not yet waited for */
#ifdef LEAFDIRECT_AIO
	struct iocb iocb;
#endif
} LeafDirectBatch;

struct LeafDirect
{
	Relation	rel;
	ForkNumber	fork;
	bool		use_wal;
	CompatBulkWrite *bulk;		/* ends the fork; writes it if not direct */
	bool		direct;
	char		path[MAXPGPATH];	/* of the fork's first segment file */
	char		segpath[MAXPGPATH]; /* of the one open */
	int			fd;				/* the segment file open, or -1 */
	BlockNumber segno;
	off_t		allocated;		/* its bytes allocated ahead (fallocate) */
	bool		may_allocate;	/* fallocate() works there */
	LeafDirectBatch batches[2];
	int			filling;		/* the batch being filled */
	BlockNumber nblocks;		/* blocks written or queued so far */
#ifdef LEAFDIRECT_AIO
	aio_context_t aio;			/* 0: writes are synchronous */
#endif
	MemoryContext cxt;			/* the writer's, batches included */
	MemoryContextCallback cleanup;
};

/* The path of segment segno of the file whose first segment is path. */
static void
leafdirect_segpath(const char *path, BlockNumber segno, char *segpath)
{
	if (segno == 0)
		strlcpy(segpath, path, MAXPGPATH);
	else
		snprintf(segpath, MAXPGPATH, "%s.%u", path, segno);
}

/*
 * Does the filesystem of the file at path refuse O_DIRECT?  An error other
 * than EINVAL is not an answer: the writer raises it when it opens the file.
 */
static bool
leafdirect_refused_at(const char *path)
{
	int			fd;

	if (PG_O_DIRECT == 0)
		return true;
	fd = OpenTransientFile(path, O_RDONLY | PG_O_DIRECT | PG_BINARY);
	if (fd >= 0)
	{
		CloseTransientFile(fd);
		return false;
	}
	return errno == EINVAL;
}

/*
 * How the pages of leaf relid are written, for status_workers() and
 * check(): its filesystem, where its current file is, is the one its new
 * storage gets ("" if it is gone).
 */
const char *
leafdirect_writer(Oid relid)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	char		path[MAXPGPATH];
	bool		refused;

	if (rel == NULL)
		return "";				/* dropped: the leaf load says so */
	compat_relpath(compat_rel_file(rel), MAIN_FORKNUM, path);
	refused = RelationUsesLocalBuffers(rel) || leafdirect_refused_at(path);
	relation_close(rel, AccessShareLock);
	return refused ? LEAFDIRECT_BUFFERED : LEAFDIRECT_DIRECT;
}

/*
 * No more writes, or the writer's memory context goes (after an error or a
 * cancel: the transaction's abort has closed the file already): wait for
 * the write in flight, if any, before the batches' memory is freed.
 */
static void
leafdirect_cleanup(void *arg)
{
#ifdef LEAFDIRECT_AIO
	LeafDirect *d = arg;

	if (d->aio != 0)
		(void) syscall(SYS_io_destroy, d->aio);
	d->aio = 0;
#endif
}

/* Set up the two batches and, where there is AIO, a context for them. */
static void
leafdirect_setup(LeafDirect *d)
{
	for (int i = 0; i < 2; i++)
	{
		char	   *raw = palloc(LEAFDIRECT_BATCH_PAGES * BLCKSZ + LEAFDIRECT_ALIGN);

		d->batches[i].pages = (char *) TYPEALIGN(LEAFDIRECT_ALIGN, raw);
	}
#ifdef LEAFDIRECT_AIO
	if (syscall(SYS_io_setup, 1, &d->aio) != 0)
		d->aio = 0;				/* no AIO: synchronous writes */
#endif
	d->cleanup.func = leafdirect_cleanup;
	d->cleanup.arg = d;
	MemoryContextRegisterResetCallback(d->cxt, &d->cleanup);
}

/*
 * Open the fork's first segment file, new and empty, with O_DIRECT; false
 * if the filesystem refuses O_DIRECT (EINVAL) or the relation is local.
 */
static bool
leafdirect_open_first(LeafDirect *d)
{
	if (RelationUsesLocalBuffers(d->rel) || PG_O_DIRECT == 0)
		return false;
	d->fd = OpenTransientFile(d->path, O_WRONLY | PG_O_DIRECT | PG_BINARY);
	if (d->fd < 0 && errno == EINVAL)
		return false;
	if (d->fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", d->path)));
	if (lseek(d->fd, 0, SEEK_END) != 0)
		elog(ERROR, "file \"%s\" is not empty", d->path);
	strlcpy(d->segpath, d->path, MAXPGPATH);
	return true;
}

/*
 * Start writing fork of rel, whose storage is new in this transaction and
 * empty, from block 0 on: past the page cache where the filesystem allows
 * O_DIRECT, else through the bulk writer.
 */
LeafDirect *
leafdirect_start(Relation rel, ForkNumber fork)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "petagen leaf direct",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	LeafDirect *d = palloc0(sizeof(LeafDirect));

	d->cxt = cxt;
	d->rel = rel;
	d->fork = fork;
	d->use_wal = RelationNeedsWAL(rel);
	d->bulk = compat_bulk_start(rel, fork);
	d->fd = -1;
	d->may_allocate = true;
	compat_relpath(compat_rel_file(rel), fork, d->path);
	d->direct = leafdirect_open_first(d);
	if (d->direct)
		leafdirect_setup(d);
	MemoryContextSwitchTo(old);
	return d;
}

/* Are the fork's pages written past the page cache? */
bool
leafdirect_is_direct(const LeafDirect *d)
{
	return d->direct;
}

/* The buffer of the next page: a page of the batch being filled. */
Page
leafdirect_get_buf(LeafDirect *d)
{
	LeafDirectBatch *b = &d->batches[d->filling];

	if (!d->direct)
		return compat_bulk_get_buf(d->bulk);
	return (Page) (b->pages + (Size) b->npages * BLCKSZ);
}

/* Raise the error of a write of batch b that failed or fell short. */
static void
leafdirect_write_error(LeafDirect *d, LeafDirectBatch *b, ssize_t done)
{
	if (done < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write blocks %u..%u in file \"%s\": %m",
						b->first, b->first + b->npages - 1, d->segpath)));
	ereport(ERROR,
			(errcode(ERRCODE_DISK_FULL),
			 errmsg("could not write blocks %u..%u in file \"%s\": wrote only %zd of %zu bytes",
					b->first, b->first + b->npages - 1, d->segpath, done,
					(Size) b->npages * BLCKSZ),
			 errhint("Check free disk space.")));
}

/* Wait for the write in flight, if any; raise its error. */
static void
leafdirect_wait(LeafDirect *d)
{
#ifdef LEAFDIRECT_AIO
	LeafDirectBatch *b = &d->batches[1 - d->filling];
	struct io_event ev;
	long		n;

	if (!b->in_flight)
		return;
	pgstat_report_wait_start(WAIT_EVENT_DATA_FILE_WRITE);
	do
		n = syscall(SYS_io_getevents, d->aio, 1, 1, &ev, NULL);
	while (n < 0 && errno == EINTR);
	pgstat_report_wait_end();
	b->in_flight = false;
	if (n != 1)
		elog(ERROR, "io_getevents failed for file \"%s\": %m", d->segpath);
	if (ev.res != (int64) b->npages * BLCKSZ)
	{
		errno = ev.res < 0 ? (int) -ev.res : 0;
		leafdirect_write_error(d, b, ev.res < 0 ? -1 : (ssize_t) ev.res);
	}
#endif
}

/*
 * Have segment file segno open, the one before (written whole) closed.
 * Files after the first are created as md.c creates them.
 */
static void
leafdirect_open_segment(LeafDirect *d, BlockNumber segno)
{
	if (d->fd >= 0 && d->segno == segno)
		return;
	if (d->fd >= 0 && CloseTransientFile(d->fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", d->segpath)));
	d->fd = -1;
	leafdirect_segpath(d->path, segno, d->segpath);
	d->fd = OpenTransientFile(d->segpath,
							  O_WRONLY | O_CREAT | PG_O_DIRECT | PG_BINARY);
	if (d->fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", d->segpath)));
	d->segno = segno;
	d->allocated = 0;
}

/*
 * Extend the open segment file ahead of a write ending at byte end of it,
 * up to the end of the segment, so that the write does not extend it.
 */
static void
leafdirect_allocate(LeafDirect *d, off_t end)
{
#if defined(__linux__)
	off_t		seg_bytes = (off_t) RELSEG_SIZE * BLCKSZ;
	off_t		want;

	if (!d->may_allocate || end <= d->allocated)
		return;
	want = Min(end + (off_t) LEAFDIRECT_ALLOC_BATCHES * LEAFDIRECT_BATCH_PAGES * BLCKSZ,
			   seg_bytes);
	pgstat_report_wait_start(WAIT_EVENT_DATA_FILE_EXTEND);
	if (fallocate(d->fd, 0, d->allocated, want - d->allocated) == 0)
		d->allocated = want;
	else if (errno == ENOSPC)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not extend file \"%s\": %m", d->segpath),
				 errhint("Check free disk space.")));
	else
		d->may_allocate = false;	/* not supported there: writes extend */
	pgstat_report_wait_end();
#endif
}

/* Write batch b into the open segment file: submit it, or write it now. */
static void
leafdirect_submit(LeafDirect *d, LeafDirectBatch *b)
{
	off_t		offset = (off_t) (b->first % RELSEG_SIZE) * BLCKSZ;
	size_t		len = (size_t) b->npages * BLCKSZ;
	ssize_t		done;

	leafdirect_allocate(d, offset + (off_t) len);
#ifdef LEAFDIRECT_AIO
	if (d->aio != 0)
	{
		struct iocb *iocbs[1] = {&b->iocb};

		memset(&b->iocb, 0, sizeof(b->iocb));
		b->iocb.aio_lio_opcode = IOCB_CMD_PWRITE;
		b->iocb.aio_fildes = d->fd;
		b->iocb.aio_buf = (uint64) (uintptr_t) b->pages;
		b->iocb.aio_nbytes = len;
		b->iocb.aio_offset = offset;
		if (syscall(SYS_io_submit, d->aio, 1, iocbs) == 1)
		{
			b->in_flight = true;
			return;
		}
		/* not queued: this write and the next ones are synchronous */
		leafdirect_cleanup(d);
	}
#endif
	pgstat_report_wait_start(WAIT_EVENT_DATA_FILE_WRITE);
	done = pg_pwrite(d->fd, b->pages, len, offset);
	pgstat_report_wait_end();
	if (done != (ssize_t) len)
		leafdirect_write_error(d, b, done);
}

/*
 * WAL-log the pages of batch b if the relation needs it, in runs of the
 * same page_std (log_newpages() makes records of XLR_MAX_BLOCK_ID pages),
 * then set their checksums.
 */
static void
leafdirect_log_and_checksum(LeafDirect *d, LeafDirectBatch *b)
{
	BlockNumber blknos[LEAFDIRECT_BATCH_PAGES];
	Page		pages[LEAFDIRECT_BATCH_PAGES];

	for (int i = 0; i < b->npages; i++)
	{
		blknos[i] = b->first + i;
		pages[i] = (Page) (b->pages + (Size) i * BLCKSZ);
	}
	for (int i = 0; d->use_wal && i < b->npages;)
	{
		int			run = 1;

		while (i + run < b->npages && b->page_std[i + run] == b->page_std[i])
			run++;
		log_newpages(&compat_rel_file(d->rel), d->fork, run, &blknos[i],
					 &pages[i], b->page_std[i]);
		i += run;
	}
	for (int i = 0; i < b->npages; i++)
		PageSetChecksumInplace(pages[i], blknos[i]);
}

/*
 * Write the batch being filled, once the one in flight is written; the
 * other batch is filled next.
 */
static void
leafdirect_flush(LeafDirect *d)
{
	LeafDirectBatch *b = &d->batches[d->filling];

	if (b->npages == 0)
		return;
	leafdirect_log_and_checksum(d, b);
	leafdirect_wait(d);
	leafdirect_open_segment(d, b->first / RELSEG_SIZE);
	leafdirect_submit(d, b);
	d->filling = 1 - d->filling;
	d->batches[d->filling].npages = 0;
}

/*
 * Queue page (from leafdirect_get_buf()) as block blkno, the next one;
 * page_std as for log_newpage.
 */
void
leafdirect_write(LeafDirect *d, BlockNumber blkno, Page page, bool page_std)
{
	LeafDirectBatch *b = &d->batches[d->filling];

	if (!d->direct)
	{
		compat_bulk_write(d->bulk, blkno, page, page_std);
		return;
	}
	if (blkno != d->nblocks ||
		page != (Page) (b->pages + (Size) b->npages * BLCKSZ))
		elog(ERROR, "pages of file \"%s\" written out of order", d->path);
	if (b->npages == 0)
		b->first = blkno;
	b->page_std[b->npages++] = page_std;
	d->nblocks++;
	if (b->npages == LEAFDIRECT_BATCH_PAGES || d->nblocks % RELSEG_SIZE == 0)
		leafdirect_flush(d);
}

/*
 * Write what is queued, wait for it, cut the last segment file back to
 * what was written and close it; end the fork as the bulk writer does
 * (the sync, see above).
 */
void
leafdirect_finish(LeafDirect *d)
{
	if (d->direct)
	{
		off_t		end;

		leafdirect_flush(d);
		leafdirect_wait(d);
		end = (off_t) (d->nblocks - d->segno * RELSEG_SIZE) * BLCKSZ;
		if (d->allocated > end && ftruncate(d->fd, end) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not truncate file \"%s\" to %u blocks: %m",
							d->segpath, (BlockNumber) (end / BLCKSZ))));
		if (CloseTransientFile(d->fd) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not close file \"%s\": %m", d->segpath)));
		d->fd = -1;
		leafdirect_cleanup(d);
	}
	compat_bulk_finish(d->bulk);
	MemoryContextDelete(d->cxt);
}
