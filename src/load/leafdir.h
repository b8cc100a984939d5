/*-------------------------------------------------------------------------
 * leafdir.h
 *		The directories of leaf loads' routing files: a job's files under
 *		its route token, swept and removed when nobody can use them.  See
 *		leafdir.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_LEAFDIR_H
#define PETAGEN_LEAFDIR_H

/* The routing files' directory, under the data directory. */
#define LEAF_DIR			"pg_petagen"

extern int64 leaf_new_token(void);
extern void leaf_db_dir(char *path, Oid dboid);
extern void leaf_token_dir(char *path, int64 token);
extern void leaf_range_path(char *path, int64 token, int64 range, bool tmp);
extern bool leaf_range_done(int64 token, int64 range);
extern void leaf_make_dir(const char *path);
extern void leaf_remove_files(int64 token);
extern void leaf_sweep_files(const int64 *keep, int nkeep);
extern void leaf_remove_database_at_commit(void);

#endif							/* PETAGEN_LEAFDIR_H */
