/*-------------------------------------------------------------------------
 * node.c
 *		One statement on other nodes of a postgres_fdw cluster, on all at
 *		once, run as the calling role through its user mapping for each
 *		node's foreign server.
 *
 * The cluster calls (sql/objects/cluster_*) find a table's nodes in the
 * engine's catalog: the foreign servers of its foreign leaves.  This file
 * reaches one of them as postgres_fdw and dblink do, with the options and
 * the password rule of remote.c, keeping no connection past the call.
 * Before its statement, each session is set up as postgres_fdw sets up
 * its own (search_path, dates, intervals and floats in one fixed form), so
 * that neither the role's settings on the node nor an object in a schema
 * of its search_path changes what the statement does or how its result
 * reads here.
 *
 * A statement runs on several nodes at once (_nodes_query): each node's
 * connection is started and its statement sent without blocking, one wait
 * on a WaitEventSet over the latch and every socket moves each on as its
 * socket is ready, and this node's own statement, if it is one of them,
 * runs in this backend (in a subtransaction, so its error is its own) once
 * the others are sent: a statement that lasts, a benchmark of a whole
 * duration, runs on every node during the same time.  The waits are
 * interruptible; the connections are closed on every path, an error or a
 * cancel included.  What goes wrong on a node (no mapping, unreachable,
 * the statement's error) is returned, not raised, so that a cluster call
 * names the node and goes on with the others.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/resowner.h"
#include "utils/wait_event.h"

#include "catalog.h"
#include "compat.h"
#include "remote.h"

#define NODE_QUERY_COLS 4

/*
 * What each session runs before its statement, in the same message
 * (postgres_fdw's configure_remote_session); the call's result is its
 * statement's, the last.
 */
#define NODE_SESSION_SETUP \
	"SET search_path = pg_catalog, pg_temp; SET datestyle = ISO; " \
	"SET intervalstyle = postgres; SET extra_float_digits = 3; "
#define NODES_QUERY_COLS 5

PG_FUNCTION_INFO_V1(petagen_node_query);
PG_FUNCTION_INFO_V1(petagen_nodes_query);

/* Where one node's call is. */
typedef enum NodeStep
{
	NODE_CONNECTING,			/* PQconnectPoll until the connection is made */
	NODE_SENDING,				/* the statement sent, flushing it */
	NODE_READING,				/* reading its results */
	NODE_LOCAL,					/* this node: run in this backend */
	NODE_DONE
} NodeStep;

/* One node's call: its statement, its connection, what came back. */
typedef struct NodeCall
{
	const char *name;			/* the foreign server, or this node's name */
	const char *query;
	NodeStep	step;
	int			wait;			/* the socket events the step waits for */
	PGconn	   *conn;
	RemoteConninfo info;		/* how it connects */
	PGresult   *last;			/* the last result read */
	bool		reached;		/* connected (or this node) */
	char	   *value;			/* the first value of the result, or NULL */
	char	   *error;			/* what went wrong, or NULL */
} NodeCall;

/* End a call with an error, closing its connection. */
static void
node_call_fail(NodeCall *c, char *error)
{
	c->error = error;
	PQclear(c->last);
	c->last = NULL;
	PQfinish(c->conn);
	c->conn = NULL;
	c->step = NODE_DONE;
}

/* End a call with its last result: the first value, or its error. */
static void
node_call_finish(NodeCall *c)
{
	PGresult   *last = c->last;

	if (last == NULL)
		c->error = pstrdup("the node returned no result");
	else if (PQresultStatus(last) != PGRES_TUPLES_OK &&
			 PQresultStatus(last) != PGRES_COMMAND_OK)
		c->error = pchomp(PQresultErrorMessage(last));
	else if (PQntuples(last) > 0 && PQnfields(last) > 0 &&
			 !PQgetisnull(last, 0, 0))
		c->value = pstrdup(PQgetvalue(last, 0, 0));
	PQclear(last);
	c->last = NULL;
	PQfinish(c->conn);
	c->conn = NULL;
	c->step = NODE_DONE;
}

/* Flush what is left of the statement; then read its results. */
static void
node_call_flush(NodeCall *c)
{
	int			rc = PQflush(c->conn);

	if (rc < 0)
		node_call_fail(c, pchomp(PQerrorMessage(c->conn)));
	else if (rc > 0)
	{
		c->step = NODE_SENDING;
		c->wait = WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE;
	}
	else
	{
		c->step = NODE_READING;
		c->wait = WL_SOCKET_READABLE;
	}
}

/*
 * The connection is made: refuse one that did not use the password a role
 * that is not a superuser needs (postgres_fdw's rule), else send the
 * statement without blocking.
 */
static void
node_call_connected(NodeCall *c)
{
	char	   *refusal = remote_password_unused(&c->info, c->conn);

	if (refusal)
	{
		node_call_fail(c, refusal);
		return;
	}
	c->reached = true;
	if (PQsetnonblocking(c->conn, 1) != 0 ||
		!PQsendQuery(c->conn, psprintf("%s%s", NODE_SESSION_SETUP, c->query)))
	{
		node_call_fail(c, pchomp(PQerrorMessage(c->conn)));
		return;
	}
	node_call_flush(c);
}

/* Read what arrived; the call ends with its last result. */
static void
node_call_input(NodeCall *c)
{
	if (!PQconsumeInput(c->conn))
	{
		node_call_fail(c, pchomp(PQerrorMessage(c->conn)));
		return;
	}
	while (!PQisBusy(c->conn))
	{
		PGresult   *res = PQgetResult(c->conn);

		if (res == NULL)
		{
			node_call_finish(c);
			return;
		}
		PQclear(c->last);
		c->last = res;
	}
}

/* Take the socket events of a call and move it on. */
static void
node_call_event(NodeCall *c, uint32 events)
{
	PostgresPollingStatusType status;

	switch (c->step)
	{
		case NODE_CONNECTING:
			status = PQconnectPoll(c->conn);
			if (status == PGRES_POLLING_OK)
				node_call_connected(c);
			else if (status == PGRES_POLLING_FAILED)
				node_call_fail(c, pchomp(PQerrorMessage(c->conn)));
			else
				c->wait = status == PGRES_POLLING_READING ?
					WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
			break;
		case NODE_SENDING:
			if ((events & WL_SOCKET_READABLE) && !PQconsumeInput(c->conn))
				node_call_fail(c, pchomp(PQerrorMessage(c->conn)));
			else
				node_call_flush(c);
			break;
		case NODE_READING:
			node_call_input(c);
			break;
		case NODE_LOCAL:
		case NODE_DONE:
			break;
	}
}

/*
 * Start a call to the node of a postgres_fdw server as the calling role
 * with its mapping; a call that cannot start ends with its error.
 */
static void
node_call_start(NodeCall *c)
{
	ForeignServer *server = GetForeignServerByName(c->name, true);
	char	   *refusal;
	int			sqlstate;

	if (server == NULL)
	{
		node_call_fail(c, psprintf("server \"%s\" does not exist", c->name));
		return;
	}
	if (!remote_is_postgres_fdw(server))
	{
		node_call_fail(c, psprintf("server \"%s\" is not a postgres_fdw server", c->name));
		return;
	}
	refusal = remote_conninfo(server, 0, &c->info, &sqlstate);
	if (refusal)
	{
		node_call_fail(c, refusal);
		return;
	}
	c->conn = PQconnectStartParams(c->info.keywords, c->info.values, false);
	if (c->conn == NULL)
		node_call_fail(c, pstrdup("out of memory for the connection"));
	else if (PQstatus(c->conn) == CONNECTION_BAD)
		node_call_fail(c, pchomp(PQerrorMessage(c->conn)));
	else
	{
		c->step = NODE_CONNECTING;
		c->wait = WL_SOCKET_WRITEABLE;
	}
}

/*
 * Run a call's statement on this node, in a subtransaction of its own: its
 * error is the call's, but a cancel goes on up.
 */
static void
node_call_local(NodeCall *c)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	c->reached = true;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		CatalogScope scope;

		catalog_connect(&scope, false);
		if (catalog_exec(c->query, 0, NULL, NULL, NULL, SPI_OK_SELECT) > 0)
			c->value = catalog_text(0, CATALOG_ONLY_COLUMN, cxt);
		catalog_finish(&scope);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(edata);
		c->error = edata->message;
	}
	PG_END_TRY();
	c->step = NODE_DONE;
}

/*
 * Are calls still under way: connecting or sending (sent_only), or also
 * reading?
 */
static bool
node_calls_busy(const NodeCall *calls, int n, bool sent_only)
{
	for (int i = 0; i < n; i++)
		if (calls[i].step == NODE_CONNECTING || calls[i].step == NODE_SENDING ||
			(!sent_only && calls[i].step == NODE_READING))
			return true;
	return false;
}

/*
 * Wait once on set for the latch or any socket a call waits on, and move
 * on the calls whose socket is ready.
 */
static void
node_calls_wait_on(WaitEventSet *set, NodeCall *calls, int n)
{
	WaitEvent  *events = palloc(sizeof(WaitEvent) * (n + 2));
	int			nevents;

	AddWaitEventToSet(set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	for (int i = 0; i < n; i++)
		if (calls[i].conn != NULL && calls[i].step != NODE_DONE)
			AddWaitEventToSet(set, calls[i].wait, PQsocket(calls[i].conn),
							  NULL, &calls[i]);
	nevents = WaitEventSetWait(set, -1L, events, n + 2,
							   compat_wait_event("PetagenNodeCalls"));
	for (int e = 0; e < nevents; e++)
	{
		if (events[e].events & WL_LATCH_SET)
			ResetLatch(MyLatch);
		else if (events[e].user_data != NULL)
			node_call_event(events[e].user_data, events[e].events);
	}
	pfree(events);
}

/*
 * Wait once, interruptibly, for the latch or any socket a call waits on,
 * in a wait event set of its own, freed on every path.
 */
static void
node_calls_wait(NodeCall *calls, int n)
{
	WaitEventSet *set = compat_create_wait_event_set(n + 2);

	PG_TRY();
	{
		node_calls_wait_on(set, calls, n);
	}
	PG_CATCH();
	{
		FreeWaitEventSet(set);
		PG_RE_THROW();
	}
	PG_END_TRY();
	FreeWaitEventSet(set);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Connect to every remote node and send each its statement, then run this
 * node's (if one is), then read every result.
 */
static void
node_calls_drive(NodeCall *calls, int n)
{
	for (int i = 0; i < n; i++)
		if (calls[i].step == NODE_CONNECTING)
			node_call_start(&calls[i]);
	while (node_calls_busy(calls, n, true))
		node_calls_wait(calls, n);
	for (int i = 0; i < n; i++)
		if (calls[i].step == NODE_LOCAL)
			node_call_local(&calls[i]);
	while (node_calls_busy(calls, n, false))
		node_calls_wait(calls, n);
}

/* Close every call's connection and free its last result. */
static void
node_calls_close(NodeCall *calls, int n)
{
	for (int i = 0; i < n; i++)
	{
		PQclear(calls[i].last);
		calls[i].last = NULL;
		PQfinish(calls[i].conn);
		calls[i].conn = NULL;
	}
}

/*
 * Run every call at once (node_calls_drive()); every connection is closed
 * on every path, an error or a cancel included.
 */
static void
node_calls_run(NodeCall *calls, int n)
{
	PG_TRY();
	{
		node_calls_drive(calls, n);
	}
	PG_CATCH();
	{
		node_calls_close(calls, n);
		PG_RE_THROW();
	}
	PG_END_TRY();
	node_calls_close(calls, n);
}

/* Put a call's outcome as a row: reached, ok, error, result (after first). */
static void
node_call_values(const NodeCall *c, Datum *values, bool *nulls)
{
	values[0] = BoolGetDatum(c->reached);
	values[1] = BoolGetDatum(c->error == NULL);
	nulls[2] = c->error == NULL;
	values[2] = c->error ? CStringGetTextDatum(c->error) : (Datum) 0;
	nulls[3] = c->value == NULL;
	values[3] = c->value ? CStringGetTextDatum(c->value) : (Datum) 0;
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
	ForeignServer *server = GetForeignServerByName(name, false);
	NodeCall	call = {0};
	TupleDesc	tupdesc;
	Datum		values[NODE_QUERY_COLS];
	bool		nulls[NODE_QUERY_COLS] = {false};

	if (!remote_is_postgres_fdw(server))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("server \"%s\" is not a postgres_fdw server", name)));
	call.name = name;
	call.query = text_to_cstring(PG_GETARG_TEXT_PP(1));
	call.step = NODE_CONNECTING;
	node_calls_run(&call, 1);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	node_call_values(&call, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* The elements of text[] argument argno, none null; *n of them. */
static char **
node_text_array(FunctionCallInfo fcinfo, int argno, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **texts;

	deconstruct_array(PG_GETARG_ARRAYTYPE_P(argno), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, n);
	texts = palloc(sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		texts[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
	return texts;
}

/*
 * petagen._nodes_query(nodes, kinds, queries): run queries[i] on node
 * nodes[i] of kind kinds[i] ('local': this node; 'postgres_fdw': the node
 * of that server, as the calling role), all at once; a row per node in
 * their order with whether it was reached, whether the query ran, its
 * error and its first value.
 */
Datum
petagen_nodes_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n;
	int			nkinds;
	int			nqueries;
	char	  **names = node_text_array(fcinfo, 0, &n);
	char	  **kinds = node_text_array(fcinfo, 1, &nkinds);
	char	  **queries = node_text_array(fcinfo, 2, &nqueries);
	NodeCall   *calls;

	if (nkinds != n || nqueries != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("nodes, kinds and queries must have as many elements")));
	calls = palloc0(sizeof(NodeCall) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		calls[i].name = names[i] ? names[i] : "";
		calls[i].query = queries[i];
		if (queries[i] == NULL)
		{
			calls[i].step = NODE_DONE;
			calls[i].error = pstrdup("no statement");
		}
		else if (kinds[i] != NULL && strcmp(kinds[i], "local") == 0)
			calls[i].step = NODE_LOCAL;
		else if (kinds[i] != NULL && strcmp(kinds[i], "postgres_fdw") == 0)
			calls[i].step = NODE_CONNECTING;
		else
		{
			calls[i].step = NODE_DONE;
			calls[i].error = kinds[i] == NULL ?
				pstrdup("no longer a node of the table's cluster") :
				psprintf("node kind \"%s\" is not reached this way", kinds[i]);
		}
	}
	node_calls_run(calls, n);

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < n; i++)
	{
		Datum		values[NODES_QUERY_COLS];
		bool		nulls[NODES_QUERY_COLS] = {false};

		values[0] = CStringGetTextDatum(calls[i].name);
		node_call_values(&calls[i], values + 1, nulls + 1);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
