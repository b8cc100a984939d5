/*-------------------------------------------------------------------------
 * leafstorage.h
 *		The new files of a leaf being written by a leaf load, recorded on
 *		disk before its commit, so that the files a crash leaves behind are
 *		dropped by resume().  See leafstorage.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFSTORAGE_H
#define PETAGEN_LEAFSTORAGE_H

extern void leaf_storage_record(int64 job, int leafno, Oid leafrelid);
extern void leaf_storage_forget(int64 job, int leafno);
extern int	leaf_storage_remove_orphans(int64 job, const uint8 *done,
										int nleaves);
extern void leaf_storage_sweep_dropped(void);

#endif							/* PETAGEN_LEAFSTORAGE_H */
