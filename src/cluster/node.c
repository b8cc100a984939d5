/*-------------------------------------------------------------------------
 * node.c
 *		One statement on another node of a postgres_fdw cluster, run as the
 *		calling role through its user mapping for the node's foreign server.
 *
 * The cluster calls (sql/objects/cluster_*) find a table's nodes in the
 * engine's catalog: the foreign servers of its foreign leaves.  This file
 * reaches one of them as postgres_fdw and dblink do: libpq with the
 * server's options and then the user mapping's (the mapping's win), the
 * database encoding as client_encoding, and postgres_fdw's rule for a
 * role that is not a superuser: its mapping must hold a password and the
 * node must have asked for it (password_required => false, which only a
 * superuser may set, lifts the rule), so that such a role never connects
 * as the server's own OS identity.  The role needs USAGE on the server, as
 * dblink asks.  petagen stores no credentials: it reads the mapping at
 * each call and keeps no connection past it.
 *
 * Connecting and waiting for the result are interruptible (WaitLatchOrSocket,
 * as libpqsrv does); the connection is closed on every path, an error or a
 * cancel included.  What goes wrong on the node (no mapping, unreachable,
 * the statement's error) is returned, not raised, so that a cluster call
 * names the node and goes on with the others.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"

#include "compat.h"

#define NODE_QUERY_COLS 4

PG_FUNCTION_INFO_V1(petagen_node_query);

/* The options of a foreign server or user mapping libpq knows. */
static int
node_libpq_options(List *options, const char **keywords,
				   const char **values)
{
	PQconninfoOption *known = PQconndefaults();
	ListCell   *lc;
	int			n = 0;

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
				keywords[n] = d->defname;
				values[n] = defGetString(d);
				n++;
				break;
			}
		}
	}
	PQconninfoFree(known);
	return n;
}

/* Does a user mapping require a password (postgres_fdw's option)? */
static bool
node_password_required(UserMapping *user)
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
 * The reason the calling role may not connect to server through its
 * mapping before trying (postgres_fdw's check_conn_params), or NULL.
 */
static char *
node_refusal(ForeignServer *server, UserMapping *user,
			 const char **keywords, const char **values, int n)
{
	if (superuser_arg(user->userid) || !node_password_required(user))
		return NULL;
	for (int i = 0; i < n; i++)
		if (strcmp(keywords[i], "password") == 0 && values[i][0] != '\0')
			return NULL;
	return psprintf("password is required: the user mapping of role \"%s\" for server \"%s\" holds no password, which a role that is not a superuser needs",
					GetUserNameFromId(user->userid, false), server->servername);
}

/* Wait until conn's socket is ready for what flags ask, interruptibly. */
static void
node_wait(PGconn * conn, int flags)
{
	int			rc;

	rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | flags,
						   PQsocket(conn), -1L, PG_WAIT_EXTENSION);
	if (rc & WL_LATCH_SET)
		ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

/* Connect conn (started) to the end, interruptibly; false on failure. */
static bool
node_connect_poll(PGconn * conn)
{
	PostgresPollingStatusType status = PGRES_POLLING_WRITING;

	if (PQstatus(conn) == CONNECTION_BAD)
		return false;
	while (status != PGRES_POLLING_OK && status != PGRES_POLLING_FAILED)
	{
		node_wait(conn, status == PGRES_POLLING_READING ?
				  WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE);
		status = PQconnectPoll(conn);
	}
	return status == PGRES_POLLING_OK;
}

/*
 * Run query on conn and return its first value (NULL if none) in *value,
 * or the error in *error; interruptible.
 */
static void
node_run(PGconn * conn, const char *query, char **value, char **error)
{
	PGresult   *res;
	PGresult   *last = NULL;

	if (!PQsendQuery(conn, query))
	{
		*error = pchomp(PQerrorMessage(conn));
		return;
	}
	for (;;)
	{
		while (PQisBusy(conn))
		{
			node_wait(conn, WL_SOCKET_READABLE);
			if (!PQconsumeInput(conn))
			{
				*error = pchomp(PQerrorMessage(conn));
				PQclear(last);
				return;
			}
		}
		res = PQgetResult(conn);
		if (res == NULL)
			break;
		PQclear(last);
		last = res;
	}
	if (last == NULL)
		*error = pstrdup("the node returned no result");
	else if (PQresultStatus(last) != PGRES_TUPLES_OK &&
			 PQresultStatus(last) != PGRES_COMMAND_OK)
		*error = pchomp(PQresultErrorMessage(last));
	else if (PQntuples(last) > 0 && PQnfields(last) > 0 &&
			 !PQgetisnull(last, 0, 0))
		*value = pstrdup(PQgetvalue(last, 0, 0));
	PQclear(last);
}

/*
 * Connect to server as the calling role with its mapping and run query;
 * whether it connected in *reached, the first value in *value or what went
 * wrong in *error.
 */
static void
node_query(ForeignServer *server, UserMapping *user, const char *query,
		   bool *reached, char **value, char **error)
{
	int			max = list_length(server->options) + list_length(user->options) + 3;
	const char **keywords = palloc(max * sizeof(char *));
	const char **values = palloc(max * sizeof(char *));
	int			n;
	PGconn	   *volatile conn = NULL;

	n = node_libpq_options(server->options, keywords, values);
	n += node_libpq_options(user->options, keywords + n, values + n);
	keywords[n] = "fallback_application_name";
	values[n++] = "petagen";
	keywords[n] = "client_encoding";
	values[n++] = GetDatabaseEncodingName();
	keywords[n] = values[n] = NULL;

	*error = node_refusal(server, user, keywords, values, n);
	if (*error)
		return;

	PG_TRY();
	{
		conn = PQconnectStartParams(keywords, values, false);
		if (conn == NULL)
			*error = pstrdup("out of memory for the connection");
		else if (!node_connect_poll(conn))
			*error = pchomp(PQerrorMessage(conn));
		else if (!superuser_arg(user->userid) &&
				 node_password_required(user) &&
				 !PQconnectionUsedPassword(conn))
			*error = psprintf("password is required: server \"%s\" did not ask role \"%s\" for its password, which a role that is not a superuser needs",
							  server->servername,
							  GetUserNameFromId(user->userid, false));
		else
		{
			*reached = true;
			node_run(conn, query, value, error);
		}
	}
	PG_FINALLY();
	{
		PQfinish(conn);
	}
	PG_END_TRY();
}

/*
 * The user mapping of the calling role (or PUBLIC's) for server, NULL if
 * there is none.
 */
static UserMapping *
node_mapping(ForeignServer *server)
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
 * petagen._node_query(server, query): run query on the node of a
 * postgres_fdw server as the calling role: whether it connected, whether
 * the query ran, its error, its first value.
 */
Datum
petagen_node_query(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(1));
	ForeignServer *server = GetForeignServerByName(name, false);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	UserMapping *user;
	char	   *value = NULL;
	char	   *error = NULL;
	bool		reached = false;
	TupleDesc	tupdesc;
	Datum		values[NODE_QUERY_COLS];
	bool		nulls[NODE_QUERY_COLS] = {false};
	AclResult	aclresult;

	if (strcmp(fdw->fdwname, "postgres_fdw") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("server \"%s\" is not a postgres_fdw server", name)));
	aclresult = compat_foreign_server_aclcheck(server->serverid, GetUserId(),
											   ACL_USAGE);
	if (aclresult != ACLCHECK_OK)
		error = psprintf("permission denied for foreign server \"%s\"", name);
	else if ((user = node_mapping(server)) == NULL)
		error = psprintf("no user mapping for role \"%s\" on server \"%s\"",
						 GetUserNameFromId(GetUserId(), false), name);
	else
		node_query(server, user, query, &reached, &value, &error);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = BoolGetDatum(reached);
	values[1] = BoolGetDatum(error == NULL);
	nulls[2] = error == NULL;
	values[2] = error ? CStringGetTextDatum(error) : (Datum) 0;
	nulls[3] = value == NULL;
	values[3] = value ? CStringGetTextDatum(value) : (Datum) 0;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
