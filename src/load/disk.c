/*-------------------------------------------------------------------------
 * disk.c
 *		Free space on the filesystems a load writes.
 *
 * A load writes the heap of every local leaf, every index of those leaves
 * (which may live in other tablespaces: a disk fills up when a leaf's
 * heap was moved and its index left behind) and WAL; a leaf job also its
 * routing files, in the data directory.  Workers compare the free space
 * of each with the reserve before every unit and batch (the job layer
 * knows which and how much: src/job/worker_slot.c).  check() also counts
 * free inodes where a leaf job writes its many routing files.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/statvfs.h>

#include "catalog/pg_tablespace_d.h"
#include "miscadmin.h"

#include "load/disk.h"

/* The directory of tablespace spcoid (0: the database's), MAXPGPATH long. */
void
disk_tablespace_path(Oid spcoid, char *path)
{
	if (!OidIsValid(spcoid))
		spcoid = MyDatabaseTableSpace;
	if (spcoid == DEFAULTTABLESPACE_OID)
		snprintf(path, MAXPGPATH, "%s/base", DataDir);
	else
		snprintf(path, MAXPGPATH, "%s/pg_tblspc/%u", DataDir, spcoid);
}

/* Free bytes for unprivileged use on the filesystem of path. */
int64
disk_free(const char *path)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not get free space of \"%s\": %m", path)));
	return (int64) fs.f_bavail * (int64) fs.f_frsize;
}

/* Inodes free for unprivileged use on the filesystem of path; -1 if unlimited. */
int64
disk_free_inodes(const char *path)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not get free inodes of \"%s\": %m", path)));
	/* filesystems without an inode table (btrfs, ZFS) report none at all */
	return fs.f_files == 0 ? -1 : (int64) fs.f_favail;
}
