/*-------------------------------------------------------------------------
 * disk.h
 *		Free space on the filesystems a load writes: heaps, indexes, WAL.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_DISK_H
#define PETAGEN_DISK_H

/* The most distinct filesystems one job's estimates and waits count. */
#define DISK_MAX_TARGETS	64

extern void disk_tablespace_path(Oid spcoid, char *path);
extern int64 disk_free(const char *path);
extern int64 disk_free_inodes(const char *path);

#endif							/* PETAGEN_DISK_H */
