/*-------------------------------------------------------------------------
 * remote.c
 *		A postgres_fdw server reached over libpq as the calling role: the
 *		cluster calls' one statement on a node (cluster/node.c) and a
 *		benchmark's client sessions to another node (bench/bench_client.c).
 *
 * A server is reached as postgres_fdw and dblink reach it: libpq with the
 * server's options and then the user mapping's (the mapping's win), the
 * database encoding as client_encoding, and postgres_fdw's rule for a
 * role that is not a superuser: its mapping must hold a password and the
 * node must have asked for it (password_required => false, which only a
 * superuser may set, lifts the rule), so that such a role never connects
 * as the server's own OS identity.  The role needs USAGE on the server, as
 * dblink asks.  petagen stores no credentials: the mapping is read when a
 * connection is made, and no password is ever part of a message.  What
 * goes wrong is returned as a message (and an SQLSTATE), not raised: the
 * cluster calls name the node and go on with the others, a benchmark
 * raises it with a hint of its own.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_foreign_server.h"
#include "commands/defrem.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/syscache.h"

#include "compat.h"
#include "remote.h"

/* Options this file sets besides those of the server and the mapping. */
#define REMOTE_OWN_OPTIONS	2

/* Is server a postgres_fdw server? */
bool
remote_is_postgres_fdw(ForeignServer *server)
{
	return strcmp(GetForeignDataWrapper(server->fdwid)->fdwname, "postgres_fdw") == 0;
}

/* Add the options of a foreign server or user mapping libpq knows to info. */
static void
remote_libpq_options(List *options, RemoteConninfo *info)
{
	PQconninfoOption *known = PQconndefaults();
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *d = (DefElem *) lfirst(lc);
		PQconninfoOption *opt;

		for (opt = known; opt && opt->keyword; opt++)
		{
			/* debug options, and what this file sets itself */
			if (strchr(opt->dispchar, 'D') ||
				strcmp(opt->keyword, "client_encoding") == 0 ||
				strcmp(opt->keyword, "fallback_application_name") == 0)
				continue;
			if (strcmp(opt->keyword, d->defname) == 0)
			{
				remote_set(info, d->defname, defGetString(d));
				break;
			}
		}
	}
	PQconninfoFree(known);
}

/* Does a user mapping require a password (postgres_fdw's option)? */
static bool
remote_password_required(UserMapping *user)
{
	ListCell   *lc;

	foreach(lc, user->options)
	{
		DefElem    *d = (DefElem *) lfirst(lc);

		if (strcmp(d->defname, "password_required") == 0)
			return defGetBoolean(d);
	}
	return true;
}

/*
 * The reason the calling role may not connect through its mapping before
 * trying (postgres_fdw's check_conn_params), or NULL.
 */
static char *
remote_refusal(const RemoteConninfo *info)
{
	const char *password = remote_get(info, "password");

	if (superuser_arg(info->user->userid) || !remote_password_required(info->user) ||
		(password != NULL && password[0] != '\0'))
		return NULL;
	return psprintf("password is required: the user mapping of role \"%s\" for server \"%s\" holds no password, which a role that is not a superuser needs",
					GetUserNameFromId(info->user->userid, false), info->server->servername);
}

/*
 * The user mapping of the calling role (or PUBLIC's) for server, NULL if
 * there is none.
 */
static UserMapping *
remote_mapping(ForeignServer *server)
{
	Oid			userid = GetUserId();
	HeapTuple	tp;

	tp = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(userid),
						 ObjectIdGetDatum(server->serverid));
	if (!HeapTupleIsValid(tp))
		tp = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(InvalidOid),
							 ObjectIdGetDatum(server->serverid));
	if (!HeapTupleIsValid(tp))
		return NULL;
	ReleaseSysCache(tp);
	return GetUserMapping(userid, server->serverid);
}

/*
 * Fill info with the libpq options that reach server (a postgres_fdw one)
 * as the calling role, with room for extra more; NULL, or why the role may
 * not connect (and its SQLSTATE in *sqlstate).
 */
char *
remote_conninfo(ForeignServer *server, int extra, RemoteConninfo *info,
				int *sqlstate)
{
	memset(info, 0, sizeof(RemoteConninfo));
	info->server = server;
	if (compat_foreign_server_aclcheck(server->serverid, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
	{
		*sqlstate = ERRCODE_INSUFFICIENT_PRIVILEGE;
		return psprintf("permission denied for foreign server \"%s\"", server->servername);
	}
	info->user = remote_mapping(server);
	if (info->user == NULL)
	{
		*sqlstate = ERRCODE_UNDEFINED_OBJECT;
		return psprintf("no user mapping for role \"%s\" on server \"%s\"",
						GetUserNameFromId(GetUserId(), false), server->servername);
	}
	info->room = list_length(server->options) + list_length(info->user->options) +
		REMOTE_OWN_OPTIONS + extra;
	info->keywords = palloc0((info->room + 1) * sizeof(char *));
	info->values = palloc0((info->room + 1) * sizeof(char *));
	remote_libpq_options(server->options, info);
	remote_libpq_options(info->user->options, info);
	remote_set(info, "fallback_application_name", "petagen");
	remote_set(info, "client_encoding", GetDatabaseEncodingName());
	*sqlstate = ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED;
	return remote_refusal(info);
}

/* Set option keyword of info to value: the last of a keyword wins. */
void
remote_set(RemoteConninfo *info, const char *keyword, const char *value)
{
	if (info->n >= info->room)
		elog(ERROR, "no room for connection option \"%s\"", keyword);
	info->keywords[info->n] = keyword;
	info->values[info->n++] = value;
}

/* The value of option keyword in info (the last one set), or NULL. */
const char *
remote_get(const RemoteConninfo *info, const char *keyword)
{
	for (int i = info->n - 1; i >= 0; i--)
		if (strcmp(info->keywords[i], keyword) == 0)
			return info->values[i];
	return NULL;
}

/*
 * After conn connected with info: NULL, or the message of postgres_fdw's
 * rule when the server did not ask a role that needs one for its password.
 */
char *
remote_password_unused(const RemoteConninfo *info, PGconn * conn)
{
	if (superuser_arg(info->user->userid) || !remote_password_required(info->user) ||
		PQconnectionUsedPassword(conn))
		return NULL;
	return psprintf("password is required: server \"%s\" did not ask role \"%s\" for its password, which a role that is not a superuser needs",
					info->server->servername, GetUserNameFromId(info->user->userid, false));
}
