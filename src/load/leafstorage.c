/*-------------------------------------------------------------------------
 * leafstorage.c
 *		The new files of a leaf being written by a leaf load, recorded on
 *		disk before its commit, so that the files a crash leaves behind are
 *		dropped by resume(), on the primary and on its standbys.
 *
 * A leaf load gives a leaf, its TOAST table and all their indexes new
 * storage in the leaf's transaction (as TRUNCATE does).  An abort removes
 * the new files, but a crash does not: PostgreSQL forgets files created
 * by a transaction that never ended, and they stay on disk, outside every
 * relation, on the primary and on every standby that replayed their
 * creation, a whole leaf's heap and indexes per worker per crash.  So,
 * once the leaf and its indexes have their new, empty files and before
 * anything is written into them, the worker records their locations in
 * $PGDATA/pg_petagen/storage/<database>_<job>_<leaf> (written under a
 * temporary name and renamed durably); it removes the record after the
 * leaf's transaction commits or aborts.
 *
 * A record found by resume() or forget() (no worker of the job is alive
 * then) was left by a crash.  If the ledger holds the leaf, its
 * transaction committed and the files are the leaf's.  Otherwise every
 * recorded file that exists and that no pg_class row uses is dropped in
 * the calling transaction as DROP TABLE drops a relation's files
 * (RelationDropStorage()): when it commits, its commit record lists them,
 * the files go, and a standby replaying the record drops its copies
 * (xact_redo_commit()).  Crash recovery replays the record too: the main
 * fork of a dropped file is only truncated at commit and unlinked by the
 * next checkpoint, and a crash before that checkpoint leaves the unlink to
 * the redo of the commit record.  The record is renamed to
 * <name>.drop first, so that a new record of the leaf, written by a
 * worker the same resume() launches, never has its name, and is removed
 * only when the dropping transaction commits: if it rolls back, the next
 * resume() or forget() drops the files again.  A recorded file cannot
 * belong to anyone else: its relfilenumber is not given to a new relation
 * while the file exists, and the record goes at the commit that drops it.
 * Records of a database that no longer exists (its files went with it)
 * are removed by start() and resume() in any database.
 *
 * What a crash can still leave: the empty files of a leaf between their
 * creation and its record (microseconds, nothing written yet).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/genam.h"
#include "access/relation.h"
#include "access/xact.h"
#include "access/xlogutils.h"
#include "catalog/storage.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "compat.h"
#include "load/leafdir.h"
#include "load/leafroute.h"
#include "load/leafstorage.h"

#define LEAF_STORAGE_PARENT	"pg_petagen"
#define LEAF_STORAGE_DIR	LEAF_STORAGE_PARENT "/storage"
#define LEAF_STORAGE_MAGIC	0x5047534C	/* "PGSL" */
#define LEAF_STORAGE_DROP	".drop"

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

/* A record to remove when the transaction that dropped its files commits. */
typedef struct LeafRecordAtCommit
{
	int			nestLevel;		/* of the (sub)transaction that dropped them */
	char		path[MAXPGPATH];
} LeafRecordAtCommit;

/* The records to remove at commit (in TopMemoryContext). */
static List *leaf_records_at_commit = NIL;

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
 * Drop file when this transaction commits, if it exists, as DROP TABLE
 * drops a relation's files: its commit record lists the file, so that
 * standbys and crash recovery drop it too.  Returns whether it exists.
 */
static bool
leaf_storage_drop_at_commit(CompatRelFile file)
{
	Relation	fake = CreateFakeRelcacheEntry(file);
	bool		exists;

	/*
	 * On 17 and later the entry comes with an unpinned smgr handle, which
	 * RelationCloseSmgr() would unpin: open a pinned one of our own.
	 */
	fake->rd_smgr = NULL;
	exists = smgrexists(RelationGetSmgr(fake), MAIN_FORKNUM);
	if (exists)
	{
		/* a commit record lists dropped files only with an XID */
		(void) GetCurrentTransactionId();
		RelationDropStorage(fake);
	}
	RelationCloseSmgr(fake);
	FreeFakeRelcacheEntry(fake);
	return exists;
}

/*
 * Have the files of one record left by a crash dropped at commit, unless
 * the ledger (done, a bit per leaf) holds its leaf: those that exist and
 * that no pg_class row uses.  Returns how many.
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
	if (hdr.leafno >= nleaves || !(done[hdr.leafno / 8] & (1 << (hdr.leafno % 8))))
	{
		for (uint32 i = 0; i < hdr.nfiles; i++)
			if (COMPAT_FILE_DB(files[i]) == MyDatabaseId &&
				!OidIsValid(compat_relid_by_file(COMPAT_FILE_SPC(files[i]),
												 COMPAT_FILE_NUMBER(files[i]))) &&
				leaf_storage_drop_at_commit(files[i]))
				ndrop++;
	}
	pfree(files);
	return ndrop;
}

/* At the end of a transaction: remove the records whose files it dropped. */
static void
leaf_storage_xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	if (event == XACT_EVENT_COMMIT)
		foreach(lc, leaf_records_at_commit)
			(void) durable_unlink(((LeafRecordAtCommit *) lfirst(lc))->path, WARNING);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		list_free_deep(leaf_records_at_commit);
		leaf_records_at_commit = NIL;
	}
}

/*
 * At the end of a subtransaction: its records pass to its parent, or stay
 * (with the files they list) if it rolled back.
 */
static void
leaf_storage_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							  SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();
	ListCell   *lc;

	foreach(lc, leaf_records_at_commit)
	{
		LeafRecordAtCommit *rec = lfirst(lc);

		if (rec->nestLevel < level)
			continue;
		if (event == SUBXACT_EVENT_COMMIT_SUB)
			rec->nestLevel = level - 1;
		else if (event == SUBXACT_EVENT_ABORT_SUB)
		{
			leaf_records_at_commit = foreach_delete_current(leaf_records_at_commit, lc);
			pfree(rec);
		}
	}
}

/* Remove the record at path when this transaction commits. */
static void
leaf_storage_remove_at_commit(const char *path)
{
	static bool registered = false;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	LeafRecordAtCommit *rec = palloc(sizeof(LeafRecordAtCommit));

	if (!registered)
	{
		RegisterXactCallback(leaf_storage_xact_callback, NULL);
		RegisterSubXactCallback(leaf_storage_subxact_callback, NULL);
		registered = true;
	}
	rec->nestLevel = GetCurrentTransactionNestLevel();
	strlcpy(rec->path, path, sizeof(rec->path));
	leaf_records_at_commit = lappend(leaf_records_at_commit, rec);
	MemoryContextSwitchTo(old);
}

/*
 * At resume() or forget() of job, whose workers are all gone: have the
 * files of its leaves that a crash interrupted (done: a bit per leaf the
 * ledger holds, nleaves of them) dropped, and every record of the job
 * removed, when this transaction commits; returns how many files.
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
		const char *dot = strchr(de->d_name, '.');

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), LEAF_STORAGE_DIR "/%s", de->d_name);
		/* a record still being written (".tmp") names nothing yet */
		if (dot != NULL && strcmp(dot, LEAF_STORAGE_DROP) != 0)
		{
			(void) durable_unlink(path, WARNING);
			continue;
		}
		if (dot == NULL)
		{
			char		drop[MAXPGPATH];

			snprintf(drop, sizeof(drop), "%s" LEAF_STORAGE_DROP, path);
			durable_rename(path, drop, ERROR);
			strlcpy(path, drop, sizeof(path));
		}
		ndropped += leaf_storage_drop_record(path, job, done, nleaves);
		leaf_storage_remove_at_commit(path);
	}
	FreeDir(dir);
	return ndropped;
}

/*
 * Remove the records of databases that no longer exist: their files went
 * with the database.
 */
void
leaf_storage_sweep_dropped(void)
{
	char		path[MAXPGPATH];
	DIR		   *dir = AllocateDir(LEAF_STORAGE_DIR);
	struct dirent *de;

	if (dir == NULL && errno == ENOENT)
		return;
	while ((de = ReadDirExtended(dir, LEAF_STORAGE_DIR, ERROR)) != NULL)
	{
		char	   *end;
		unsigned long dboid = strtoul(de->d_name, &end, 10);

		if (!isdigit((unsigned char) de->d_name[0]) || *end != '_' ||
			SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum((Oid) dboid)))
			continue;
		snprintf(path, sizeof(path), LEAF_STORAGE_DIR "/%s", de->d_name);
		(void) durable_unlink(path, WARNING);
	}
	FreeDir(dir);
}
