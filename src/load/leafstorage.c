/*-------------------------------------------------------------------------
 * leafstorage.c
 *		The new files of a leaf being written by a leaf load, recorded on
 *		disk before its commit, so that the files a crash leaves behind are
 *		removed by resume().
 *
 * A leaf load gives a leaf new storage in the leaf's transaction (as
 * TRUNCATE does).  An abort removes the new files, but a crash does not:
 * PostgreSQL forgets files created by a transaction that never ended, and
 * they stay on disk, outside every relation, a whole leaf's heap per
 * worker per crash.  So, once the leaf has its new heap and TOAST files,
 * and again once its indexes are built, the worker records their
 * locations in $PGDATA/pg_petagen/storage/<database>_<job>_<leaf>
 * (written under a temporary name and renamed durably); it removes the
 * record after the leaf's transaction commits or aborts.  A record found
 * by resume() or forget() (no worker of the job is alive then) was left
 * by a crash:
 * if the ledger holds the leaf, its transaction committed and the files
 * are the leaf's; otherwise every recorded file that no pg_class row
 * uses is dropped as an aborted transaction's files are
 * (DropRelationFiles(): buffers dropped, forks unlinked, the main fork's
 * name kept until the next checkpoint so that it is not reused before).
 * A recorded file cannot belong to anyone else: its relfilenumber is not
 * given to a new relation while the file exists.  Index files created
 * by a build the crash interrupted are not recorded yet and stay behind;
 * a standby keeps its copies of the dropped files (removing them is not
 * WAL-logged).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/genam.h"
#include "access/relation.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/md.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "compat.h"
#include "load/leafdir.h"
#include "load/leafroute.h"
#include "load/leafstorage.h"

#define LEAF_STORAGE_PARENT	"pg_petagen"
#define LEAF_STORAGE_DIR	LEAF_STORAGE_PARENT "/storage"
#define LEAF_STORAGE_MAGIC	0x5047534C	/* "PGSL" */

/* The head of a record; nfiles CompatRelFile follow. */
typedef struct LeafStorageHeader
{
	uint32		magic;
	uint32		nfiles;
	int64		job;
	int32		leafno;
	Oid			database;
} LeafStorageHeader;

/* The files being collected for a record. */
typedef struct LeafFiles
{
	int			n;
	int			max;
	CompatRelFile *files;
} LeafFiles;

/* The path of the record of leaf leafno of job in this database. */
static void
leaf_storage_path(char *path, size_t size, int64 job, int leafno, bool tmp)
{
	snprintf(path, size, LEAF_STORAGE_DIR "/%u_" INT64_FORMAT "_%d%s",
			 MyDatabaseId, job, leafno, tmp ? ".tmp" : "");
}

/* Append the files of relation relid and of its indexes to lf. */
static void
leaf_storage_add_rel(LeafFiles *lf, Oid relid)
{
	Relation	rel = relation_open(relid, NoLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	if (lf->n + list_length(indexes) + 1 > lf->max)
	{
		lf->max = (lf->n + list_length(indexes) + 1) * 2;
		lf->files = repalloc(lf->files, sizeof(CompatRelFile) * lf->max);
	}
	lf->files[lf->n++] = compat_rel_file(rel);
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		lf->files[lf->n++] = compat_rel_file(index);
		index_close(index, NoLock);
	}
	relation_close(rel, NoLock);
}

/*
 * Record the files leaf leafrelid (locked ACCESS EXCLUSIVE in the current
 * transaction) has now, its TOAST table's and all their indexes', as leaf
 * leafno of job; replaces an earlier record of the leaf.
 */
void
leaf_storage_record(int64 job, int leafno, Oid leafrelid)
{
	LeafFiles	lf = {0, 8, palloc(sizeof(CompatRelFile) * 8)};
	LeafStorageHeader hdr = {LEAF_STORAGE_MAGIC, 0, job, leafno, MyDatabaseId};
	Relation	leaf = relation_open(leafrelid, NoLock);
	Oid			toastrelid = leaf->rd_rel->reltoastrelid;
	char		tmp[MAXPGPATH];
	char		path[MAXPGPATH];
	int			fd;

	relation_close(leaf, NoLock);
	leaf_storage_add_rel(&lf, leafrelid);
	if (OidIsValid(toastrelid))
		leaf_storage_add_rel(&lf, toastrelid);
	hdr.nfiles = lf.n;
	leaf_make_dir(LEAF_STORAGE_PARENT);
	leaf_make_dir(LEAF_STORAGE_DIR);
	leaf_storage_path(tmp, sizeof(tmp), job, leafno, true);
	leaf_storage_path(path, sizeof(path), job, leafno, false);
	fd = OpenTransientFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmp)));
	leaf_write_all(fd, &hdr, sizeof(hdr), tmp);
	leaf_write_all(fd, lf.files, sizeof(CompatRelFile) * lf.n, tmp);
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", tmp)));
	/* fsyncs the file, renames it, fsyncs the directory */
	durable_rename(tmp, path, ERROR);
	pfree(lf.files);
}

/* Remove the record of leaf leafno of job, if there is one. */
void
leaf_storage_forget(int64 job, int leafno)
{
	char		path[MAXPGPATH];
	struct stat st;

	leaf_storage_path(path, sizeof(path), job, leafno, false);
	if (stat(path, &st) == 0)
		(void) durable_unlink(path, WARNING);
}

/*
 * Read the record at path into *hdr and a palloc'd array of its files;
 * NULL if it is not a whole record of job in this database.
 */
static CompatRelFile *
leaf_storage_read(const char *path, int64 job, LeafStorageHeader *hdr)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	CompatRelFile *files = NULL;
	size_t		len;

	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	if (read(fd, hdr, sizeof(*hdr)) == sizeof(*hdr) &&
		hdr->magic == LEAF_STORAGE_MAGIC && hdr->job == job &&
		hdr->database == MyDatabaseId && hdr->leafno >= 0 &&
		hdr->nfiles <= MaxAllocSize / sizeof(CompatRelFile))
	{
		len = sizeof(CompatRelFile) * hdr->nfiles;
		files = palloc(Max(len, 1));
		if (read(fd, files, len) != (ssize_t) len)
		{
			pfree(files);
			files = NULL;
		}
	}
	CloseTransientFile(fd);
	return files;
}

/*
 * Drop the files of one record left by a crash unless the ledger (done,
 * a bit per leaf) holds its leaf: those no pg_class row uses.  Returns
 * how many were dropped.
 */
static int
leaf_storage_drop_record(const char *path, int64 job, const uint8 *done,
						 int nleaves)
{
	LeafStorageHeader hdr;
	CompatRelFile *files = leaf_storage_read(path, job, &hdr);
	int			ndrop = 0;

	if (files == NULL)
		return 0;
	if (hdr.leafno < nleaves && (done[hdr.leafno / 8] & (1 << (hdr.leafno % 8))))
	{
		pfree(files);
		return 0;
	}
	for (uint32 i = 0; i < hdr.nfiles; i++)
		if (COMPAT_FILE_DB(files[i]) == MyDatabaseId &&
			!OidIsValid(compat_relid_by_file(COMPAT_FILE_SPC(files[i]),
											 COMPAT_FILE_NUMBER(files[i]))))
			files[ndrop++] = files[i];
	if (ndrop > 0)
		DropRelationFiles(files, ndrop, false);
	pfree(files);
	return ndrop;
}

/*
 * At resume() or forget() of job, whose workers are all gone: drop the
 * files of its leaves that a crash interrupted (done: a bit per leaf the
 * ledger holds, nleaves of them) and remove every record of the job;
 * returns how many files were dropped.
 */
int
leaf_storage_remove_orphans(int64 job, const uint8 *done, int nleaves)
{
	char		prefix[64];
	char		path[MAXPGPATH];
	DIR		   *dir;
	struct dirent *de;
	int			ndropped = 0;

	snprintf(prefix, sizeof(prefix), "%u_" INT64_FORMAT "_", MyDatabaseId, job);
	dir = AllocateDir(LEAF_STORAGE_DIR);
	if (dir == NULL && errno == ENOENT)
		return 0;
	while ((de = ReadDirExtended(dir, LEAF_STORAGE_DIR, ERROR)) != NULL)
	{
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), LEAF_STORAGE_DIR "/%s", de->d_name);
		/* a record still being written (".tmp") names nothing yet */
		if (strchr(de->d_name, '.') == NULL)
			ndropped += leaf_storage_drop_record(path, job, done, nleaves);
		(void) durable_unlink(path, WARNING);
	}
	FreeDir(dir);
	return ndropped;
}
