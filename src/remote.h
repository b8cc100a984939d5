/*-------------------------------------------------------------------------
 * remote.h
 *		A postgres_fdw server reached over libpq as the calling role, with
 *		the server's and its user mapping's options and postgres_fdw's
 *		password rule.  See remote.c.
 *-------------------------------------------------------------------------
 */
#ifndef PETAGEN_REMOTE_H
#define PETAGEN_REMOTE_H

#include "foreign/foreign.h"
#include "libpq-fe.h"

/*
 * The libpq options that reach a server as the calling role: keywords[n]
 * and values[n] are NULL, with room for more before them (remote_set()).
 */
typedef struct RemoteConninfo
{
	ForeignServer *server;
	UserMapping *user;
	const char **keywords;
	const char **values;
	int			n;
	int			room;			/* options the arrays hold, the NULLs not
								 * counted */
} RemoteConninfo;

extern bool remote_is_postgres_fdw(ForeignServer *server);
extern char *remote_conninfo(ForeignServer *server, int extra, RemoteConninfo *info,
							 int *sqlstate);
extern void remote_set(RemoteConninfo *info, const char *keyword, const char *value);
extern const char *remote_get(const RemoteConninfo *info, const char *keyword);
extern char *remote_password_unused(const RemoteConninfo *info, PGconn * conn);

#endif							/* PETAGEN_REMOTE_H */
