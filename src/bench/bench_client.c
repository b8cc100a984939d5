/*-------------------------------------------------------------------------
 * bench_client.c
 *		A benchmark's client sessions: with clients => N, each worker of a
 *		run drives its share of N sessions to this server over libpq, as
 *		N real clients would, and measures every operation as the SPI path
 *		does; and the checks bench() makes before it starts them.
 *-------------------------------------------------------------------------
 */

#include "postgres.h"

#include <poll.h>
#include <sys/resource.h>

#include "access/xact.h"
#include "bench/bench.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "pgstat.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/backend_status.h"
#include "postmaster/postmaster.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "catalog.h"
#include "compat.h"
#include "launch.h"
#include "remote.h"


/*-------------------------------------------------------------------------
 *		Client sessions over libpq (bench_client.c).
 *
 * With clients => N, worker w of W drives the sessions w * N / W up to
 * (w + 1) * N / W, each a libpq connection to this server, its own
 * backend, as a real client's would be.  A worker connects its sessions
 * before it reports ready (so connecting is not measured), a few at a time
 * (non-blocking libpq, poll() over the sockets being connected, interrupts
 * checked between waits), then runs every session asynchronously: each
 * session has at most one operation in flight, the worker waits on a
 * WaitEventSet over all its sockets and its latch, and starts a session's
 * next operation as soon as the last one ended (a closed loop) or at its
 * intended start (a paced run: session s of N is intended at start + (i +
 * s / N) * N / target_rate, the SPI path's schedule with sessions for
 * workers).  Each session is in pipeline mode: an operation is its
 * statements sent in one go and a Sync, so it is one implicit transaction
 * (a read-modify-write's read and update together) and one round trip; a
 * statement is prepared in a session when it first runs there, in the same
 * pipeline.  Statements, keys, values, dataintegrity, operationcount,
 * warm-up and the figures are the SPI path's (bench_worker.c): the same
 * statements name the same target leaves, keys are drawn and routed by the
 * worker, and an operation is timed from its intended start and from the
 * moment the worker sends it to the moment its Sync's result arrives.  A
 * statement that fails counts as an error and the session goes on; a
 * session whose connection breaks counts its operation as an error and
 * ends.
 *
 * Sessions connect over the server's first Unix-domain socket directory
 * and port, to the run's database, as the run's role, without a password,
 * with the connection options fixed here: the caller chooses none of
 * them, so a role can only ever be itself, whatever the server's own
 * identity (peer authentication as its OS user, its .pgpass) would let
 * libpq do.  pg_hba.conf decides whether the server's OS user may
 * connect locally as that role (docs/benchmarks.md gives the line).
 * When the target leaves are foreign tables of one postgres_fdw server
 * (the leaves of another node of a cluster), the sessions connect to that
 * server instead, as postgres_fdw would (remote.c: the server's options,
 * the calling role's user mapping, its password rule, USAGE on the
 * server), with the run's application_name and search_path, and name the
 * table each leaf is there (its schema_name and table_name options).
 * Local and foreign leaves together, leaves of several servers and
 * servers of another wrapper are refused before anything starts.
 * Every connection takes an external file descriptor of fd.c's budget
 * (AcquireExternalFD(), as dblink and postgres_fdw do) and a
 * before_shmem_exit callback closes them all however the worker leaves:
 * the run's end, an error, or the SIGTERM of a cancelled or terminated
 * caller (bench.c).  Before it closes a session with an operation in
 * flight, the callback sends that session's backend a cancel request
 * (libpq's PQcancel(), a connection of its own to the server), so that a
 * long statement stops at once rather than at its next read from the
 * closed connection; the requests go one session after another, for at
 * most BENCH_CANCEL_TIMEOUT_NS in all (PQcancel() blocks while it sends
 * one: on the server's own socket that is a fork of the postmaster, and
 * the libpq of PostgreSQL 15 and 16 has no request that does not block).
 * The sessions' backends then end as a client's do when its connection
 * closes.  bench() checks before starting anything that the server has
 * the connections and each worker the file descriptors.
 *-------------------------------------------------------------------------
 */

/* Sessions a worker connects at a time. */
#define BENCH_CONNECT_AT_ONCE	16
/* How long a worker may take to connect all its sessions. */
#define BENCH_CONNECT_TIMEOUT_NS	(UINT64CONST(300) * 1000000000)
/* How long a worker that ends may spend on its cancel requests. */
#define BENCH_CANCEL_TIMEOUT_NS	(UINT64CONST(5) * 1000000000)
/* The most a worker waits in one go, to check the end of the run. */
#define BENCH_CLIENT_MAX_WAIT_MS	100
/* Options a session to another node sets besides the server's and mapping's. */
#define BENCH_REMOTE_OPTIONS	2
/* The search_path of every session. */
#define BENCH_SEARCH_PATH		"-c search_path=pg_catalog,pg_temp"
/* Statements an operation sends: a read-modify-write's, each prepared. */
#define BENCH_MAX_PIPELINE		4
/* Statements per target: select, scan, insert, then one update per field. */
#define BENCH_STMT_SELECT		0
#define BENCH_STMT_SCAN			1
#define BENCH_STMT_INSERT		2
#define BENCH_STMT_UPDATE		3
/*
 * External descriptors a worker takes besides its sessions: its latch's
 * wait set and signal descriptor, and the wait set of its sessions.
 */
#define BENCH_OWN_EXTERNAL_FDS	3
/* A statement's name in a session. */
#define BENCH_STMT_NAME_LEN		16

/* A session's connection, as it goes. */
typedef enum BenchSessionState
{
	BENCH_S_NEW,
	BENCH_S_CONNECTING,
	BENCH_S_IDLE,				/* between operations */
	BENCH_S_BUSY,				/* an operation in flight */
	BENCH_S_DONE				/* no more operations */
} BenchSessionState;

/* One client session and its operation in flight. */
typedef struct BenchSession
{
	PGconn	   *conn;
	BenchSessionState state;
	PostgresPollingStatusType polling;	/* while connecting */
	int			number;			/* of the run's sessions */
	int			pos;			/* its socket's event in the wait set */
	bool		writing;		/* waits for its socket to take more */
	bool	   *prepared;		/* by statement */
	BenchPace	pace;
	/* the operation in flight */
	BenchOp		op;
	BenchKey	key;
	uint64		insert_no;		/* an insert's logical number */
	uint64		intended;
	uint64		t0;
	int			nsent;			/* statements sent: > 0 query, < 0 prepare */
	int			sent[BENCH_MAX_PIPELINE];
	int			nresults;		/* results read */
	bool		found;
	bool		failed;
	int			mismatches;
} BenchSession;

/* A worker's sessions. */
typedef struct BenchClients
{
	int			n;
	BenchSession *sessions;
	int			per_target;		/* statements per target */
	char	  **sql;			/* by statement; NULL: not this run's */
	int		   *nparams;
	WaitEventSet *set;
	WaitEvent  *events;
	int			nevents;
	MemoryContext opcxt;		/* an operation's parameters */
	const char *const *keywords;	/* the sessions' connection options */
	const char *const *values;
	RemoteConninfo *remote;		/* to another node: its options; else NULL */
	char	   *role;
} BenchClients;

/* The first Unix-domain socket directory of the server, or NULL if none. */
static char *
bench_socket_dir(void)
{
	List	   *dirs;
	char	   *raw;

	if (Unix_socket_directories == NULL)
		return NULL;
	raw = pstrdup(Unix_socket_directories);
	if (!SplitDirectoriesString(raw, ',', &dirs) || dirs == NIL)
		return NULL;
	return linitial(dirs);
}

/* The sessions a worker of nworkers drives at most. */
static int
bench_sessions_per_worker(int clients, int nworkers)
{
	return (clients + nworkers - 1) / nworkers;
}

/* Client backends open now: all, the current role's and this database's. */
static void
bench_count_backends(int *all, int *role, int *database)
{
	*all = *role = *database = 0;
	for (int i = 1; i <= pgstat_fetch_stat_numbackends(); i++)
	{
		LocalPgBackendStatus *entry = compat_local_beentry(i);

		if (entry == NULL || entry->backendStatus.st_backendType != B_BACKEND)
			continue;
		(*all)++;
		*role += entry->backendStatus.st_userid == GetUserId() ? 1 : 0;
		*database += entry->backendStatus.st_databaseid == MyDatabaseId ? 1 : 0;
	}
}

/* The connection limits of the current role and database (-1: none). */
static void
bench_connection_limits(int *role, int *database)
{
	HeapTuple	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));

	*role = -1;
	*database = -1;
	if (HeapTupleIsValid(tuple))
	{
		*role = ((Form_pg_authid) GETSTRUCT(tuple))->rolconnlimit;
		ReleaseSysCache(tuple);
	}
	tuple = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	if (HeapTupleIsValid(tuple))
	{
		*database = ((Form_pg_database) GETSTRUCT(tuple))->datconnlimit;
		ReleaseSysCache(tuple);
	}
}

/* Raise an error if a connection limit of limit, in_use taken, has no room for clients more. */
static void
bench_check_limit(int clients, int limit, int in_use, const char *what,
				  const char *name, const char *command)
{
	if (limit < 0 || clients <= limit - in_use)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_TOO_MANY_CONNECTIONS),
			 errmsg("%s \"%s\" has no room for %d client sessions", what, name, clients),
			 errdetail("Its connection limit is %d, and %d of its sessions are open.",
					   limit, in_use),
			 errhint("Raise it with %s ... CONNECTION LIMIT, or pass fewer clients.", command)));
}

/*
 * Raise an error unless the server holds clients more sessions: the
 * connections free to a role without reserved ones, and, for a role
 * that is not a superuser, the role's and the database's connection
 * limits.
 */
static void
bench_check_connections(int clients)
{
	const char *reserved_guc = GetConfigOption("reserved_connections", true, false);
	int			reserved = atoi(GetConfigOption("superuser_reserved_connections", false, false)) +
	(reserved_guc ? atoi(reserved_guc) : 0);
	int			in_use;
	int			role_in_use;
	int			db_in_use;
	int			role_limit;
	int			db_limit;
	int			available;

	bench_count_backends(&in_use, &role_in_use, &db_in_use);
	available = MaxConnections - reserved - in_use;
	if (clients > available)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_CONNECTIONS),
				 errmsg("the server has no room for %d client sessions", clients),
				 errdetail("\"max_connections\" is %d, %d of them are reserved and %d in use: %d are free.",
						   MaxConnections, reserved, in_use, Max(available, 0)),
				 errhint("You may need to increase \"max_connections\", or pass fewer clients.")));
	if (superuser())
		return;
	bench_connection_limits(&role_limit, &db_limit);
	bench_check_limit(clients, role_limit, role_in_use, "role",
					  GetUserNameFromId(GetUserId(), false), "ALTER ROLE");
	bench_check_limit(clients, db_limit, db_in_use, "database",
					  get_database_name(MyDatabaseId), "ALTER DATABASE");
}

/*
 * Raise an error unless a worker may hold its sessions' sockets: fd.c
 * lends a process external descriptors (libpq's) up to a third of what it
 * may open, which max_files_per_process and the open files limit bound;
 * the worker's own take BENCH_OWN_EXTERNAL_FDS of them.
 */
static void
bench_check_descriptors(int clients, int nworkers)
{
	int			per_worker = bench_sessions_per_worker(clients, nworkers);
	int			most = max_safe_fds / 3 - BENCH_OWN_EXTERNAL_FDS;
	struct rlimit rlim;

	if (per_worker <= most)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rlim) != 0)
		rlim.rlim_cur = RLIM_INFINITY;
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("a worker cannot hold %d client sessions", per_worker),
			 errdetail("A process of this server may hold %d connections of its own; \"max_files_per_process\" is %s and the open files limit (ulimit -n) is %s.",
					   Max(most, 0), GetConfigOption("max_files_per_process", false, false),
					   rlim.rlim_cur == RLIM_INFINITY ? "unlimited" :
					   psprintf(UINT64_FORMAT, (uint64) rlim.rlim_cur)),
			 errhint("Pass more workers (at most %d sessions each), or raise \"max_files_per_process\" (and the server's open files limit) to more than three times the sessions of a worker.",
					 Max(most, 0))));
}

/*
 * Raise an error unless the current role may log in: its sessions do,
 * even where a worker could run as a role without LOGIN (17+).
 */
static void
bench_check_login(void)
{
	HeapTuple	tuple = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	bool		canlogin = HeapTupleIsValid(tuple) &&
	((Form_pg_authid) GETSTRUCT(tuple))->rolcanlogin;

	if (HeapTupleIsValid(tuple))
		ReleaseSysCache(tuple);
	if (!canlogin)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("role \"%s\" cannot log in, and client sessions log in as it",
						GetUserNameFromId(GetUserId(), false)),
				 errhint("Run bench() with clients as a role with LOGIN, or without clients.")));
}

/*
 * The postgres_fdw server the client sessions of def connect to: that of
 * its target leaves when they are foreign tables of one, InvalidOid when
 * they are local; an error for what sessions cannot reach.
 */
static Oid
bench_client_server(const BenchDef *def)
{
	Oid			server = InvalidOid;
	int			foreign = 0;

	for (int i = 0; i < def->ntargets; i++)
	{
		Oid			relid = def->targets[i].relid;
		Oid			this;

		if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
			continue;
		this = GetForeignTable(relid)->serverid;
		if (foreign++ > 0 && this != server)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("client sessions cannot reach target leaves on several servers in one run"),
					 errdetail("Leaf \"%s\" is a foreign table of server \"%s\", and another target leaf of server \"%s\".",
							   get_rel_name(relid), GetForeignServer(this)->servername,
							   GetForeignServer(server)->servername),
					 errhint("Run one bench() per server, with target => the leaves of that server.")));
		server = this;
	}
	if (foreign == 0)
		return InvalidOid;
	if (foreign < def->ntargets)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("client sessions cannot reach local and foreign target leaves in one run"),
				 errhint("Run the local leaves and those of server \"%s\" in runs of their own (target => ...), or leave clients out: through SPI foreign leaves are queried through postgres_fdw.",
						 GetForeignServer(server)->servername)));
	if (!remote_is_postgres_fdw(GetForeignServer(server)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("client sessions cannot reach server \"%s\": it is not a postgres_fdw server",
						GetForeignServer(server)->servername),
				 errhint("Leave clients out to query the target leaves through their foreign-data wrapper.")));
	return server;
}

/*
 * Raise an error unless the calling role may connect to server as
 * postgres_fdw would; the connection options in *info.
 */
static void
bench_check_remote(Oid server, RemoteConninfo *info)
{
	ForeignServer *fs = GetForeignServer(server);
	int			sqlstate;
	char	   *error = remote_conninfo(fs, BENCH_REMOTE_OPTIONS, info, &sqlstate);

	if (error != NULL)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("client sessions cannot connect to server \"%s\": %s", fs->servername, error),
				 errdetail("The target leaves are foreign tables of server \"%s\": client sessions connect to it as the calling role through its user mapping, as postgres_fdw does.",
						   fs->servername),
				 errhint("Grant the role USAGE on the server and create its user mapping, with a password for a role that is not a superuser; or leave clients out to run through SPI.")));
}

/*
 * Find the server def's client sessions connect to (def->client_server),
 * and raise an error unless they may: as soon as the target leaves are
 * known, before anything reaches them.
 */
void
bench_check_client_server(BenchDef *def)
{
	RemoteConninfo info;

	def->client_server = bench_client_server(def);
	if (OidIsValid(def->client_server))
		bench_check_remote(def->client_server, &info);
}

/*
 * Raise an error unless bench() may open clients sessions from nworkers
 * workers (to the server bench_check_client_server() found).
 */
void
bench_check_clients(BenchDef *def, int clients, int nworkers)
{
	if (clients < nworkers)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clients must be at least workers (%d)", nworkers),
				 errdetail("Each worker drives at least one client session."),
				 errhint("Pass clients => %d or more, or fewer workers.", nworkers)));
	if (OidIsValid(def->client_server))
	{
		bench_check_descriptors(clients, nworkers);
		return;
	}
	if (bench_socket_dir() == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("client sessions need a Unix-domain socket of this server"),
				 errdetail("\"unix_socket_directories\" is empty."),
				 errhint("Set \"unix_socket_directories\" and restart the server.")));
	bench_check_login();
	bench_check_connections(clients);
	bench_check_descriptors(clients, nworkers);
}

/* Close session s's connection, if open. */
static void
bench_session_close(BenchSession *s)
{
	if (s->conn == NULL)
		return;
	PQfinish(s->conn);
	s->conn = NULL;
	ReleaseExternalFD();
}

/*
 * Send a cancel request to the backend of session s, whose operation is in
 * flight; nothing is raised, what fails is left to the closed connection.
 */
static void
bench_session_cancel(BenchSession *s)
{
	PGcancel   *cancel = PQgetCancel(s->conn);
	char		errbuf[256];

	if (cancel == NULL)
		return;
	(void) PQcancel(cancel, errbuf, sizeof(errbuf));
	PQfreeCancel(cancel);
}

/*
 * Cancel every operation in flight (for BENCH_CANCEL_TIMEOUT_NS at most),
 * then close every session's connection; before_shmem_exit callback.
 */
static void
bench_clients_close(int code, Datum arg)
{
	BenchClients *c = (BenchClients *) DatumGetPointer(arg);
	uint64		deadline = bench_now_ns() + BENCH_CANCEL_TIMEOUT_NS;

	for (int i = 0; i < c->n && bench_now_ns() < deadline; i++)
		if (c->sessions[i].conn != NULL && c->sessions[i].state == BENCH_S_BUSY)
		{
			bench_session_cancel(&c->sessions[i]);
			bench_session_close(&c->sessions[i]);
		}
	for (int i = 0; i < c->n; i++)
		bench_session_close(&c->sessions[i]);
}

/* A libpq message without its trailing newline. */
static char *
bench_pq_message(const char *msg)
{
	char	   *copy = pstrdup(msg ? msg : "");
	int			len = strlen(copy);

	while (len > 0 && copy[len - 1] == '\n')
		copy[--len] = '\0';
	return copy;
}

/* Keep a libpq message as the worker's last error, without its trailing newline. */
static void
bench_set_error(BenchCtx *ctx, const char *msg)
{
	char	   *error = ctx->slot->error;
	int			len;

	strlcpy(error, msg ? msg : "", BENCH_TEXT_LEN);
	len = strlen(error);
	while (len > 0 && error[len - 1] == '\n')
		error[--len] = '\0';
}

/*
 * Raise the error of a session that could not connect: the server's
 * reason in the message, since bench() shows a worker's message and hint.
 */
static void
bench_connect_failed(BenchClients *c, BenchSession *s)
{
	char	   *msg = bench_pq_message(PQerrorMessage(s->conn));
	bool		auth = PQconnectionNeedsPassword(s->conn) ||
	strstr(msg, "authentication") != NULL || strstr(msg, "pg_hba.conf") != NULL;

	if (c->remote != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("client session %d could not connect to server \"%s\" as role \"%s\": %s",
						s->number, c->remote->server->servername, c->role, msg),
				 auth ? errhint("Client sessions connect with the options of server \"%s\" and the user mapping of role \"%s\", as postgres_fdw does.",
								c->remote->server->servername, c->role) : 0));
	ereport(ERROR,
			(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
			 errmsg("client session %d could not connect as role \"%s\": %s",
					s->number, c->role, msg),
			 auth ? errhint("pg_hba.conf must let the server's operating system user connect over the socket in \"%s\" as role \"%s\" without a password, for instance with \"local all all peer map=petagen\" and \"petagen postgres %s\" in pg_ident.conf.",
							c->values[0], c->role, c->role) : 0));
}

/* Start connecting session s with the run's connection options. */
static void
bench_session_start(BenchClients *c, BenchSession *s)
{
	if (!AcquireExternalFD())
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("a worker has no file descriptor left for client session %d", s->number),
				 errhint("Pass more workers, or raise \"max_files_per_process\".")));
	s->conn = PQconnectStartParams(c->keywords, c->values, 0);
	if (s->conn == NULL)
	{
		ReleaseExternalFD();
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	}
	s->state = BENCH_S_CONNECTING;
	s->polling = PGRES_POLLING_WRITING;
}

/*
 * Go on connecting session s after its socket was ready; raise an error if
 * it failed, or if postgres_fdw's password rule refuses the connection.
 */
static void
bench_session_poll(BenchClients *c, BenchSession *s)
{
	char	   *refusal;

	if (PQstatus(s->conn) != CONNECTION_BAD)
		s->polling = PQconnectPoll(s->conn);
	if (s->polling == PGRES_POLLING_FAILED || PQstatus(s->conn) == CONNECTION_BAD)
		bench_connect_failed(c, s);
	if (s->polling != PGRES_POLLING_OK)
		return;
	if (c->remote != NULL && (refusal = remote_password_unused(c->remote, s->conn)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
				 errmsg("client session %d: %s", s->number, refusal),
				 errhint("Set a password in the user mapping of role \"%s\" for server \"%s\" and have the server ask for it.",
						 c->role, c->remote->server->servername)));
	if (PQsetnonblocking(s->conn, 1) != 0 || PQenterPipelineMode(s->conn) != 1)
		bench_connect_failed(c, s);
	s->state = BENCH_S_IDLE;
}

/*
 * Wait (briefly) for the sockets of the sessions being connected and
 * go on with those ready.
 */
static void
bench_sessions_poll(BenchClients *c)
{
	struct pollfd *fds = palloc(sizeof(struct pollfd) * c->n);
	int		   *which = palloc(sizeof(int) * c->n);
	int			n = 0;

	for (int i = 0; i < c->n; i++)
	{
		BenchSession *s = &c->sessions[i];

		if (s->state != BENCH_S_CONNECTING)
			continue;
		fds[n].fd = PQsocket(s->conn);
		fds[n].events = s->polling == PGRES_POLLING_READING ? POLLIN : POLLOUT;
		fds[n].revents = 0;
		which[n++] = i;
	}
	if (n > 0 && poll(fds, n, 10) < 0 && errno != EINTR)
		ereport(ERROR,
				(errcode_for_socket_access(),
				 errmsg("could not poll the client sessions' sockets: %m")));
	for (int i = 0; i < n; i++)
		if (fds[i].revents != 0)
			bench_session_poll(c, &c->sessions[which[i]]);
	pfree(fds);
	pfree(which);
}

/*
 * The name foreign leaf relid has on its server, quoted: postgres_fdw's
 * schema_name and table_name options, else its own.
 */
static char *
bench_remote_name(Oid relid)
{
	const char *schema = get_namespace_name(get_rel_namespace(relid));
	const char *table = get_rel_name(relid);
	ListCell   *lc;

	foreach(lc, GetForeignTable(relid)->options)
	{
		DefElem    *d = (DefElem *) lfirst(lc);

		if (strcmp(d->defname, "schema_name") == 0)
			schema = defGetString(d);
		else if (strcmp(d->defname, "table_name") == 0)
			table = defGetString(d);
	}
	return quote_qualified_identifier(schema, table);
}

/* The SQL of every statement the run's mix needs on each target. */
static void
bench_clients_statements(BenchCtx *ctx, BenchClients *c)
{
	const double *p = ctx->workload->proportion;
	BenchTarget *targets = bench_targets(ctx->shared);
	int			nstmts;

	c->per_target = BENCH_STMT_UPDATE + ctx->shape.nfields;
	nstmts = c->per_target * ctx->shared->ntargets;
	c->sql = palloc0(sizeof(char *) * nstmts);
	c->nparams = palloc0(sizeof(int) * nstmts);
	for (int t = 0; t < ctx->shared->ntargets; t++)
	{
		char	   *leaf = c->remote != NULL ? bench_remote_name(targets[t].relid) :
		catalog_relation_name(targets[t].relid);
		int			base = t * c->per_target;

		if (p[BENCH_OP_READ] > 0 || p[BENCH_OP_RMW] > 0)
		{
			c->sql[base + BENCH_STMT_SELECT] = bench_select_sql(leaf);
			c->nparams[base + BENCH_STMT_SELECT] = 1;
		}
		if (p[BENCH_OP_SCAN] > 0)
		{
			c->sql[base + BENCH_STMT_SCAN] = bench_scan_sql(leaf);
			c->nparams[base + BENCH_STMT_SCAN] = 2;
		}
		if (p[BENCH_OP_INSERT] > 0)
		{
			c->sql[base + BENCH_STMT_INSERT] = bench_insert_sql(leaf, &ctx->shape);
			c->nparams[base + BENCH_STMT_INSERT] = ctx->shape.nfields + 1;
		}
		if (p[BENCH_OP_UPDATE] > 0 || p[BENCH_OP_RMW] > 0)
			for (int f = 0; f < ctx->shape.nfields; f++)
			{
				c->sql[base + BENCH_STMT_UPDATE + f] =
					bench_update_sql(leaf, ctx->shape.field_base + f);
				c->nparams[base + BENCH_STMT_UPDATE + f] = 2;
			}
	}
}

/*
 * The fixed connection options of sessions to this server, over its
 * first socket directory ("host" first), as role to database dbname.
 */
static void
bench_local_options(BenchCtx *ctx, BenchClients *c, const char *dbname)
{
	static const char *const keywords[] = {"host", "port", "dbname", "user", "application_name",
	"options", "client_encoding", "sslmode", "gssencmode", NULL};
	const char **values = palloc0(sizeof(keywords));

	values[0] = bench_socket_dir();
	values[1] = psprintf("%d", PostPortNumber);
	values[2] = dbname;
	values[3] = c->role;
	values[4] = psprintf("petagen bench " INT64_FORMAT, ctx->shared->run);
	values[5] = BENCH_SEARCH_PATH;
	values[6] = GetDatabaseEncodingName();
	values[7] = "disable";
	values[8] = "disable";
	c->keywords = keywords;
	c->values = values;
}

/*
 * The options of sessions to the target leaves' server: postgres_fdw's
 * for the role, the run's application_name, and the search_path after
 * the server's own options.
 */
static void
bench_remote_options(BenchCtx *ctx, BenchClients *c)
{
	const char *options;

	c->remote = palloc(sizeof(RemoteConninfo));
	bench_check_remote(ctx->shared->client_server, c->remote);
	options = remote_get(c->remote, "options");
	remote_set(c->remote, "application_name",
			   psprintf("petagen bench " INT64_FORMAT, ctx->shared->run));
	remote_set(c->remote, "options", options == NULL ? BENCH_SEARCH_PATH :
			   psprintf("%s %s", options, BENCH_SEARCH_PATH));
	c->keywords = c->remote->keywords;
	c->values = c->remote->values;
}

/* Connect every session of the worker, a few at a time. */
static void
bench_clients_open(BenchClients *c)
{
	uint64		deadline = bench_now_ns() + BENCH_CONNECT_TIMEOUT_NS;
	int			next = 0;

	for (;;)
	{
		int			connecting = 0;

		for (int i = 0; i < c->n; i++)
			connecting += c->sessions[i].state == BENCH_S_CONNECTING ? 1 : 0;
		while (next < c->n && connecting < BENCH_CONNECT_AT_ONCE)
		{
			bench_session_start(c, &c->sessions[next++]);
			connecting++;
		}
		if (connecting == 0)
			return;
		if (bench_now_ns() > deadline)
			ereport(ERROR,
					(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
					 errmsg("client sessions took more than %d seconds to connect",
							(int) (BENCH_CONNECT_TIMEOUT_NS / 1000000000))));
		bench_sessions_poll(c);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Read the table's shape, then connect the worker's share of the run's
 * sessions (worker w of W: sessions w * N / W up to (w + 1) * N / W).
 */
void
bench_clients_connect(BenchCtx *ctx)
{
	BenchShared *shared = ctx->shared;
	int64		first = (int64) ctx->args.index * shared->clients / shared->nworkers;
	int64		last = (int64) (ctx->args.index + 1) * shared->clients / shared->nworkers;
	BenchClients *c = MemoryContextAllocZero(TopMemoryContext, sizeof(BenchClients));
	int			nstmts;

	ctx->clients = c;
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	bench_prepare_shape(ctx);
	c->role = GetUserNameFromId(shared->role, false);
	if (OidIsValid(shared->client_server))
		bench_remote_options(ctx, c);
	else
		bench_local_options(ctx, c, get_database_name(shared->database));
	bench_clients_statements(ctx, c);
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(ctx->cxt);
	c->opcxt = AllocSetContextCreate(ctx->cxt, "petagen bench operation",
									 ALLOCSET_SMALL_SIZES);
	c->n = (int) (last - first);
	c->sessions = MemoryContextAllocZero(TopMemoryContext, sizeof(BenchSession) * Max(c->n, 1));
	nstmts = c->per_target * shared->ntargets;
	for (int i = 0; i < c->n; i++)
	{
		c->sessions[i].number = (int) first + i;
		c->sessions[i].prepared = MemoryContextAllocZero(ctx->cxt, sizeof(bool) * nstmts);
	}
	before_shmem_exit(bench_clients_close, PointerGetDatum(c));
	bench_clients_open(c);
}

/* The text of key number seq, as a statement's parameter; it stays in rg. */
static char *
bench_key_text(BenchCtx *ctx, int64 seq)
{
	rowgen_build_key(&ctx->rg, seq);
	switch (ctx->rg.spec.keys.kind)
	{
		case KEYKIND_INT4:
			return psprintf("%d", DatumGetInt32(ctx->rg.key));
		case KEYKIND_INT8:
			return psprintf(INT64_FORMAT, DatumGetInt64(ctx->rg.key));
		default:
			return text_to_cstring(DatumGetTextPP(ctx->rg.key));
	}
}

/* Send statement stmt with its parameters in session s's pipeline, preparing it first if new there. */
static bool
bench_send(BenchClients *c, BenchSession *s, int stmt, const char *const *params)
{
	char		name[BENCH_STMT_NAME_LEN];

	snprintf(name, sizeof(name), "petagen%d", stmt);
	if (!s->prepared[stmt])
	{
		if (!PQsendPrepare(s->conn, name, c->sql[stmt], c->nparams[stmt], NULL))
			return false;
		s->prepared[stmt] = true;
		s->sent[s->nsent++] = -1 - stmt;
	}
	if (!PQsendQueryPrepared(s->conn, name, c->nparams[stmt], params, NULL, NULL, 0))
		return false;
	s->sent[s->nsent++] = stmt;
	return true;
}

/* An update's new value of a field of row seq: random, or with dataintegrity the generator's. */
static char *
bench_update_value(BenchCtx *ctx, int64 seq, int field)
{
	int			len = ctx->shared->spec.fieldlength;

	if (ctx->workload->dataintegrity)
		return TextDatumGetCString(bench_integrity_value(&ctx->rg, seq, field));
	rowgen_fill_field(ctx->shared->spec.seed ^ (uint64) ctx->shared->run,
					  (int64) ctx->opno++, ctx->args.index, VARDATA(ctx->value), len);
	return pnstrdup(VARDATA(ctx->value), len);
}

/* Send the statements of session s's operation and its Sync; false if the connection failed. */
static bool
bench_send_operation(BenchCtx *ctx, BenchClients *c, BenchSession *s)
{
	int			base = s->key.target * c->per_target;
	const char *params[2];
	bool		ok = true;

	params[0] = bench_key_text(ctx, s->key.seq);
	if (s->op == BENCH_OP_READ || s->op == BENCH_OP_RMW)
		ok = bench_send(c, s, base + BENCH_STMT_SELECT, params);
	if (ok && s->op == BENCH_OP_SCAN)
	{
		params[1] = psprintf(INT64_FORMAT, bench_scan_length(ctx));
		ok = bench_send(c, s, base + BENCH_STMT_SCAN, params);
	}
	if (ok && (s->op == BENCH_OP_UPDATE || s->op == BENCH_OP_RMW))
	{
		int			field = (int) dist_rng_below(&ctx->rng, ctx->shape.nfields);

		params[1] = bench_update_value(ctx, s->key.seq, field);
		ok = bench_send(c, s, base + BENCH_STMT_UPDATE + field, params);
	}
	if (ok && s->op == BENCH_OP_INSERT)
	{
		const char **row = palloc(sizeof(char *) * (ctx->shape.nfields + 1));

		row[0] = params[0];
		rowgen_build_fields(&ctx->rg, s->key.seq);
		for (int f = 0; f < ctx->shape.nfields; f++)
			row[f + 1] = TextDatumGetCString(ctx->rg.values[ctx->shape.field_att[f]]);
		ok = bench_send(c, s, base + BENCH_STMT_INSERT, row);
	}
	return ok && PQpipelineSync(s->conn) == 1;
}

/* Wait for session s's socket to take more (or not). */
static void
bench_session_want_write(BenchClients *c, BenchSession *s, bool writing)
{
	if (s->writing == writing)
		return;
	s->writing = writing;
	ModifyWaitEvent(c->set, s->pos,
					WL_SOCKET_READABLE | (writing ? WL_SOCKET_WRITEABLE : 0), NULL);
}

/* A session whose connection broke: its operation failed, it ends. */
static void
bench_session_lost(BenchCtx *ctx, BenchSession *s)
{
	if (!s->failed)
		bench_set_error(ctx, PQerrorMessage(s->conn));
	s->failed = true;
	bench_session_close(s);
}

/* Record session s's operation, ended at t1. */
static void
bench_session_record(BenchCtx *ctx, BenchSession *s, uint64 t1)
{
	BenchShared *shared = ctx->shared;
	BenchSlot  *slot = ctx->slot;

	if (s->op == BENCH_OP_INSERT && !s->failed)
		bench_publish_insert(shared, s->insert_no, s->key.seq);
	if (s->intended < shared->measure_ns)
		return;
	slot->last_ns = t1;
	if (s->failed)
		measure_error(&slot->measure, s->op, shared->measure_ns, t1);
	else
	{
		slot->integrity_errors += s->mismatches;
		measure_record(&slot->measure, ctx->workload->target_rate > 0, s->op,
					   shared->measure_ns, s->intended, s->t0, t1, s->found);
	}
}

/*
 * The next operation's intended start for session s at now, 0 to start it
 * now; false when the session has no more operation to run.
 */
static bool
bench_session_due(BenchCtx *ctx, BenchSession *s, uint64 now, uint64 *intended)
{
	double		at;

	*intended = 0;
	if (ctx->finished || s->conn == NULL)
		return false;
	if (s->pace.period_ns <= 0)
		return now < ctx->shared->end_ns;
	at = s->pace.first_ns + s->pace.period_ns * (double) s->pace.next;
	if (at >= (double) ctx->shared->end_ns)
		return false;
	*intended = (uint64) at;
	return true;
}

/* Pick, draw and send session s's next operation, intended at intended (0: now). */
static void
bench_session_begin(BenchCtx *ctx, BenchClients *c, BenchSession *s,
					uint64 intended)
{
	MemoryContext old;

	MemoryContextReset(c->opcxt);
	s->nsent = s->nresults = s->mismatches = 0;
	s->failed = false;
	s->found = true;
	PG_TRY();
	{
		s->op = bench_pick_op(ctx);
		s->key = bench_take(ctx, s->op == BENCH_OP_INSERT ? &ctx->inserts : &ctx->reads,
							s->op == BENCH_OP_INSERT);
	}
	PG_CATCH();
	{
		ErrorData  *edata = launch_catch_and_abort(ctx->cxt);
		uint64		t1 = bench_now_ns();

		s->intended = intended ? intended : t1;
		s->failed = true;
		strlcpy(ctx->slot->error, edata->message, BENCH_TEXT_LEN);
		FreeErrorData(edata);
		bench_session_record(ctx, s, t1);
		return;
	}
	PG_END_TRY();
	s->t0 = bench_now_ns();
	s->intended = intended ? intended : s->t0;
	if (!bench_claim(ctx, s->intended))
	{
		ctx->finished = true;
		return;
	}
	if (s->op == BENCH_OP_INSERT)
		s->insert_no = pg_atomic_fetch_add_u64(&ctx->shared->inserts, 1);
	old = MemoryContextSwitchTo(c->opcxt);
	if (!bench_send_operation(ctx, c, s))
	{
		MemoryContextSwitchTo(old);
		bench_session_lost(ctx, s);
		bench_session_record(ctx, s, bench_now_ns());
		return;
	}
	MemoryContextSwitchTo(old);
	s->state = BENCH_S_BUSY;
	bench_session_want_write(c, s, PQflush(s->conn) == 1);
}

/*
 * Start session s's next operation if it is due at now; the time it is
 * due at otherwise (0: never, it is done).
 */
static uint64
bench_session_next(BenchCtx *ctx, BenchClients *c, BenchSession *s, uint64 now)
{
	uint64		intended;

	while (s->state == BENCH_S_IDLE)
	{
		if (!bench_session_due(ctx, s, now, &intended))
		{
			s->state = BENCH_S_DONE;
			return 0;
		}
		if (intended > now)
			return intended;
		if (intended)
			s->pace.next++;
		bench_session_begin(ctx, c, s, intended);
	}
	return 0;
}

/* Is the first row of a result the row of key text key? */
static bool
bench_result_starts_at(PGresult * res, const char *key)
{
	int			col = PQfnumber(res, "ycsb_key");

	return PQntuples(res) > 0 && col >= 0 && !PQgetisnull(res, 0, col) &&
		strcmp(PQgetvalue(res, 0, col), key) == 0;
}

/* Does the first row of a result hold the generator's fields of row seq? */
static bool
bench_result_matches(BenchCtx *ctx, PGresult * res, int64 seq)
{
	char		name[32];

	rowgen_build_fields(&ctx->rg, seq);
	for (int f = 0; f < ctx->shape.nfields; f++)
	{
		text	   *want = DatumGetTextPP(ctx->rg.values[ctx->shape.field_att[f]]);
		int			col;

		snprintf(name, sizeof(name), "field%d", ctx->shape.field_base + f);
		col = PQfnumber(res, name);
		if (col < 0 || PQgetisnull(res, 0, col) ||
			PQgetlength(res, 0, col) != VARSIZE_ANY_EXHDR(want) ||
			memcmp(PQgetvalue(res, 0, col), VARDATA_ANY(want), VARSIZE_ANY_EXHDR(want)) != 0)
			return false;
	}
	return true;
}

/* Take the rows a read or scan of session s returned. */
static void
bench_session_rows(BenchCtx *ctx, BenchSession *s, PGresult * res, bool scan)
{
	char	   *key = bench_key_text(ctx, s->key.seq);
	bool		at_key = bench_result_starts_at(res, key);

	/* a read-modify-write's only rows are its read's */
	s->found = scan ? at_key : PQntuples(res) > 0;
	if (ctx->workload->dataintegrity && at_key && !bench_result_matches(ctx, res, s->key.seq))
		s->mismatches++;
	pfree(key);
}

/* Take one result of session s's operation. */
static void
bench_session_result(BenchCtx *ctx, BenchClients *c, BenchSession *s, PGresult * res)
{
	int			sent = s->nresults < s->nsent ? s->sent[s->nresults] : 0;
	int			kind = sent < 0 ? -1 : sent % c->per_target;

	switch (PQresultStatus(res))
	{
		case PGRES_TUPLES_OK:
			bench_session_rows(ctx, s, res, kind == BENCH_STMT_SCAN);
			break;
		case PGRES_COMMAND_OK:
			if (s->op == BENCH_OP_UPDATE && kind >= BENCH_STMT_UPDATE)
				s->found = atoi(PQcmdTuples(res)) > 0;
			break;
		case PGRES_FATAL_ERROR:
			if (sent < 0)
				s->prepared[-1 - sent] = false;
			if (!s->failed)
				bench_set_error(ctx, PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
			s->failed = true;
			break;
		default:
			/* PGRES_PIPELINE_ABORTED: a statement after a failed one */
			if (sent < 0)
				s->prepared[-1 - sent] = false;
			break;
	}
	s->nresults++;
}

/*
 * Read what session s's socket brought; when its operation ended, record
 * it and start the next one if due.
 */
static void
bench_session_input(BenchCtx *ctx, BenchClients *c, BenchSession *s)
{
	bool		ended = false;
	int			nulls = 0;

	if (!PQconsumeInput(s->conn))
	{
		bench_session_lost(ctx, s);
		ended = true;
	}
	while (!ended && !PQisBusy(s->conn))
	{
		PGresult   *res = PQgetResult(s->conn);

		/* one NULL between two statements' results; two: nothing more yet */
		if (res == NULL && ++nulls > 1)
			break;
		if (res == NULL)
			continue;
		nulls = 0;
		if (PQresultStatus(res) == PGRES_PIPELINE_SYNC)
			ended = true;
		else
			bench_session_result(ctx, c, s, res);
		PQclear(res);
	}
	if (!ended)
		return;
	bench_session_record(ctx, s, bench_now_ns());
	MemoryContextSwitchTo(ctx->cxt);
	s->state = s->conn == NULL ? BENCH_S_DONE : BENCH_S_IDLE;
	bench_session_next(ctx, c, s, bench_now_ns());
}

/* Handle what a session's socket reported. */
static void
bench_session_event(BenchCtx *ctx, BenchClients *c, BenchSession *s, uint32 events)
{
	if (s->conn == NULL)
		return;
	if (events & WL_SOCKET_WRITEABLE)
	{
		int			rc = PQflush(s->conn);

		if (rc < 0)
		{
			bench_session_lost(ctx, s);
			bench_session_record(ctx, s, bench_now_ns());
			s->state = BENCH_S_DONE;
			return;
		}
		bench_session_want_write(c, s, rc == 1);
	}
	if ((events & WL_SOCKET_READABLE) && s->state == BENCH_S_BUSY)
		bench_session_input(ctx, c, s);
	else if (events & WL_SOCKET_READABLE)
	{
		/* an idle session's server went away */
		if (!PQconsumeInput(s->conn))
		{
			bench_session_lost(ctx, s);
			s->state = BENCH_S_DONE;
		}
	}
}

/* Set up the wait set: the latch, the postmaster, every session's socket. */
static void
bench_clients_wait_set(BenchClients *c)
{
	c->set = compat_create_wait_event_set(c->n + 2);
	AddWaitEventToSet(c->set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(c->set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	for (int i = 0; i < c->n; i++)
		c->sessions[i].pos = AddWaitEventToSet(c->set, WL_SOCKET_READABLE,
											   PQsocket(c->sessions[i].conn),
											   NULL, &c->sessions[i]);
	c->nevents = Min(c->n + 2, 64);
	c->events = palloc(sizeof(WaitEvent) * c->nevents);
}

/*
 * Start the operations due at now of the sessions between two; how many
 * sessions are still going, and in *next the earliest start to come.
 */
static int
bench_clients_start_due(BenchCtx *ctx, BenchClients *c, uint64 now, uint64 *next)
{
	int			going = 0;

	*next = 0;
	for (int i = 0; i < c->n; i++)
	{
		BenchSession *s = &c->sessions[i];
		uint64		at = bench_session_next(ctx, c, s, now);

		if (at > 0 && (*next == 0 || at < *next))
			*next = at;
		going += s->state == BENCH_S_IDLE || s->state == BENCH_S_BUSY ? 1 : 0;
	}
	return going;
}

/* How long to wait, in milliseconds, for a start at next (0: none) or the run's end. */
static long
bench_clients_timeout(BenchCtx *ctx, uint64 now, uint64 next)
{
	uint64		until = next > 0 ? next : ctx->shared->end_ns;

	if (until <= now)
		return 0;
	return (long) Min((until - now) / 1000000, BENCH_CLIENT_MAX_WAIT_MS);
}

/*
 * Run the worker's sessions until the run ends: start each one's
 * operations (at their intended starts when paced), wait for any socket
 * or the latch, take what arrived.
 */
void
bench_clients_run(BenchCtx *ctx)
{
	BenchClients *c = ctx->clients;

	bench_clients_wait_set(c);
	for (int i = 0; i < c->n; i++)
		measure_pace_init(&c->sessions[i].pace, ctx->workload->target_rate,
						  ctx->shared->start_ns, c->sessions[i].number,
						  ctx->shared->clients);
	for (;;)
	{
		uint64		now = bench_now_ns();
		uint64		next;
		long		timeout;
		int			n;

		if (bench_clients_start_due(ctx, c, now, &next) == 0)
			break;
		timeout = bench_clients_timeout(ctx, now, next);
		n = WaitEventSetWait(c->set, timeout, c->events, c->nevents,
							 compat_wait_event("PetagenBenchClients"));
		for (int e = 0; e < n; e++)
		{
			if (c->events[e].events & WL_LATCH_SET)
				ResetLatch(MyLatch);
			else if (c->events[e].user_data != NULL)
				bench_session_event(ctx, c, c->events[e].user_data, c->events[e].events);
		}
		if (n == 0 && next > 0 && timeout == 0 && next > bench_now_ns())
			pg_usleep((long) ((next - bench_now_ns()) / 1000));
		CHECK_FOR_INTERRUPTS();
	}
}
