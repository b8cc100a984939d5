/*-------------------------------------------------------------------------
 * node.c
 *		One statement on another node of a postgres_fdw cluster, run as the
 *		calling role through its user mapping for the node's foreign server.
 *
 * The cluster calls (sql/objects/cluster_*) find a table's nodes in the
 * engine's catalog: the foreign servers of its foreign leaves.  This file
 * reaches one of them as postgres_fdw and dblink do, with the options and
 * the password rule of remote.c, keeping no connection past the call.
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
#include "fmgr.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/wait_event.h"

#include "remote.h"

#define NODE_QUERY_COLS 4

PG_FUNCTION_INFO_V1(petagen_node_query);

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
 * Connect with info (the calling role's options for a server) and run
 * query; whether it connected in *reached, the first value in *value or
 * what went wrong in *error.
 */
static void
node_query(const RemoteConninfo *info, const char *query, bool *reached,
		   char **value, char **error)
{
	PGconn	   *volatile conn = NULL;

	PG_TRY();
	{
		conn = PQconnectStartParams(info->keywords, info->values, false);
		if (conn == NULL)
			*error = pstrdup("out of memory for the connection");
		else if (!node_connect_poll(conn))
			*error = pchomp(PQerrorMessage(conn));
		else if ((*error = remote_password_unused(info, conn)) == NULL)
		{
			*reached = true;
			node_run(conn, query, value, error);
		}
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PQfinish(conn);
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
	RemoteConninfo info;
	char	   *value = NULL;
	char	   *error;
	bool		reached = false;
	int			sqlstate;
	TupleDesc	tupdesc;
	Datum		values[NODE_QUERY_COLS];
	bool		nulls[NODE_QUERY_COLS] = {false};

	if (!remote_is_postgres_fdw(server))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("server \"%s\" is not a postgres_fdw server", name)));
	error = remote_conninfo(server, 0, &info, &sqlstate);
	if (error == NULL)
		node_query(&info, query, &reached, &value, &error);

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
