/*-------------------------------------------------------------------------
 * leafdir.c
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
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "load/leafdir.h"

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
void
leaf_db_dir(char *path, Oid dboid)
{
	snprintf(path, MAXPGPATH, LEAF_DIR "/%u", dboid);
}

/* The directory of the routing files of token in this database. */
void
leaf_token_dir(char *path, int64 token)
{
	snprintf(path, MAXPGPATH, LEAF_DIR "/%u/" LEAF_TOKEN_FORMAT, MyDatabaseId,
			 (uint32) ((uint64) token >> 32), (uint32) token);
}

/* The path of range file `range` of token (its temporary name if tmp). */
void
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
