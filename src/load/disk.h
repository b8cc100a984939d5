/*-------------------------------------------------------------------------
 * disk.h
 *		Free space on the filesystems a load writes: heaps, indexes, WAL.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_DISK_H
#define PETAGEN_DISK_H

#define DISK_MAX_TARGETS	64

/* The distinct filesystems one job writes, by a path on each. */
typedef struct DiskTargets
{
	int			n;
	char		path[DISK_MAX_TARGETS][MAXPGPATH];
} DiskTargets;

extern void disk_tablespace_path(Oid spcoid, char *path);
extern void disk_add_path(DiskTargets *targets, const char *path);
extern int64 disk_free(const char *path);
extern int64 disk_free_inodes(const char *path);
extern void disk_find_targets(Oid relid, DiskTargets *targets);
extern int64 disk_min_free(const DiskTargets *targets, const char **where);

#endif							/* PETAGEN_DISK_H */
