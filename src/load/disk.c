/*-------------------------------------------------------------------------
 * disk.c
 *		Free space on the filesystems a load writes.
 *
 * A load writes the heap of every local leaf, every index of those leaves
 * (which may live in other tablespaces: a disk fills up when a leaf's
 * heap was moved and its index left behind) and WAL; a leaf job also its
 * routing files, in the data directory.  Workers compare the smallest free
 * space among them with the reserve before every batch.  check() also
 * counts free inodes where a leaf job writes its many routing files.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/statvfs.h>

#include "access/table.h"
#include "catalog/pg_tablespace_d.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "load/disk.h"
#include "route/route.h"

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

/* Add directory path to the targets once. */
void
disk_add_path(DiskTargets *targets, const char *path)
{
	for (int i = 0; i < targets->n; i++)
		if (strcmp(targets->path[i], path) == 0)
			return;
	if (targets->n < DISK_MAX_TARGETS)
		strlcpy(targets->path[targets->n++], path, MAXPGPATH);
}

/* Add the directory of tablespace spcoid (0: the database's) once. */
static void
disk_add_tablespace(DiskTargets *targets, Oid spcoid)
{
	char		path[MAXPGPATH];

	disk_tablespace_path(spcoid, path);
	disk_add_path(targets, path);
}

/* Collect the tablespaces of local leaves and their indexes, and pg_wal. */
void
disk_find_targets(Oid relid, DiskTargets *targets)
{
	Router	   *router = route_open(relid);

	targets->n = 0;
	snprintf(targets->path[targets->n++], MAXPGPATH, "%s/pg_wal", DataDir);
	for (int i = 0; i < route_nleaves(router); i++)
	{
		const RouteLeaf *leaf = route_leaf(router, i);
		Relation	rel;
		List	   *indexes;
		ListCell   *lc;

		if (!leaf->local)
			continue;
		disk_add_tablespace(targets, leaf->heap_tablespace);
		rel = table_open(leaf->relid, AccessShareLock);
		indexes = RelationGetIndexList(rel);
		foreach(lc, indexes)
			disk_add_tablespace(targets, get_rel_tablespace(lfirst_oid(lc)));
		list_free(indexes);
		table_close(rel, AccessShareLock);
	}
	route_close(router);
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

/* The smallest free space among the targets; *where names its path. */
int64
disk_min_free(const DiskTargets *targets, const char **where)
{
	int64		min_free = PG_INT64_MAX;

	*where = "";
	for (int i = 0; i < targets->n; i++)
	{
		int64		free_bytes = disk_free(targets->path[i]);

		if (free_bytes < min_free)
		{
			min_free = free_bytes;
			*where = targets->path[i];
		}
	}
	return min_free;
}
