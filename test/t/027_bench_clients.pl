# petagen.bench(clients => N): runs through N libpq client sessions from
# the run's workers.  A few hundred sessions over 2 workers complete exact
# operation counts of every kind, each session in a backend of its own;
# sessions are closed after the run, and after the caller is cancelled or
# terminated, their operations in flight cancelled; a paced run keeps service times beside its
# latencies; bad inputs are refused before anything starts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = usertable_node('clients',
	"max_worker_processes = 16\nmax_connections = 400\n"
	  . "log_statement = none\nlog_connections = off\nlog_disconnections = off\n");
my $job = $node->safe_psql('postgres', 'SELECT petagen.start(20000, workers => 2)');
wait_done($node, $job, 'load done');

# Client backends other than psql's own: what a run must leave behind.
my $sessions_sql = q{SELECT count(*) FROM pg_stat_activity
  WHERE backend_type = 'client backend' AND application_name LIKE 'petagen bench%'};

# Every row read over libpq is the generator's (before any update but
# these, which write the generator's values).
my ($integrity) = run_bench($node,
	"'ycsb-a', workers => 2, clients => 20, operationcount => 2000, dataintegrity => true",
	'operations, errors, integrity_errors');
is($integrity, '2000|0|0', 'dataintegrity over libpq: no mismatch');

# 300 sessions over 2 workers: exactly operationcount operations of each
# kind, every key found, no error, recorded as the libpq path.
for my $kind (qw(select update ycsb-a ycsb-b ycsb-d ycsb-e ycsb-f))
{
	my ($out) = run_bench($node,
		"'$kind', workers => 2, clients => 300, operationcount => 3000",
		'operations, errors, not_found, clients, path');
	is($out, '3000|0|0|300|libpq', "$kind: 3000 operations over 300 sessions");
}
is($node->safe_psql('postgres', $sessions_sql), '0', 'no session left after the runs');

# The sessions are backends of their own, as many as asked, during a run.
# Once every session waits in an update for a row another transaction
# holds, the caller is cancelled (then terminated): each session's backend
# must stop within seconds, while the rows are still held, which it only
# does if it was sent a cancel request: a backend waiting for a lock does
# not notice that its client closed the connection.
my ($rc, $err);
my $stuck_sql = $sessions_sql . q{ AND state = 'active' AND wait_event_type = 'Lock'};
for my $how (qw(cancel terminate))
{
	my $bench = $node->background_psql('postgres', on_error_stop => 0);
	my $caller = $bench->query_safe('SELECT pg_backend_pid()');
	$bench->query_until(qr/started/,
		"\\echo started\nSELECT petagen.bench('ycsb-a', workers => 2, clients => 200, duration => '5 min');\n");
	ok( $node->poll_query_until('postgres', $sessions_sql, '200'),
		"$how: 200 client backends while the run goes");
	ok( $node->poll_query_until('postgres',
			q{SELECT phase = 'measuring' AND operations > 0 AND workers = 2 AND clients = 200
  FROM petagen.bench_status()}),
		"$how: bench_status() shows the run through its sessions, and how many");
	my $locker = $node->background_psql('postgres');
	$locker->query_safe(
		'BEGIN; SELECT count(*) FROM (SELECT 1 FROM usertable FOR UPDATE) AS locked');
	ok($node->poll_query_until('postgres', $stuck_sql, '200'),
		"$how: every session waits in an update for a locked row");
	$node->safe_psql('postgres', "SELECT pg_${how}_backend($caller)");
	ok(count_within($node, $sessions_sql, '0', 30),
		"$how: no session left within seconds, the rows still locked");
	ok( $node->poll_query_until('postgres',
			q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'petagen bench worker'}, '0'),
		"$how: no worker left after the caller");
	$locker->query_safe('ROLLBACK');
	$locker->quit;
	eval { $bench->quit };
}

# A role's sessions are that role's, whoever the server is; a role that
# cannot log in is refused before anything starts.
$node->safe_psql('postgres',
	q{CREATE ROLE bencher LOGIN; GRANT petagen_operator TO bencher;
	  GRANT SELECT, UPDATE, INSERT ON ALL TABLES IN SCHEMA public TO bencher;
	  CREATE ROLE nologin NOLOGIN; GRANT bencher TO nologin;});
my $bench = $node->background_psql('postgres', on_error_stop => 0);
my $caller = $bench->query_safe('SET ROLE bencher; SELECT pg_backend_pid()');
$bench->query_until(qr/started/,
	"\\echo started\nSELECT petagen.bench('select', workers => 2, clients => 20, duration => '5 min');\n");
ok( $node->poll_query_until('postgres',
		$sessions_sql . q{ AND usename = 'bencher' AND datname = 'postgres'}, '20'),
	"a role's sessions connect as that role");
is( $node->safe_psql('postgres', $sessions_sql . q{ AND usename <> 'bencher'}),
	'0', 'and as no other');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($caller)");
ok($node->poll_query_until('postgres', $sessions_sql, '0'), 'its sessions end with the run');
eval { $bench->quit };
like(
	error_of($node,
		"SET ROLE nologin; SELECT petagen.bench('select', workers => 2, clients => 2)"),
	qr/^42501: role "nologin" cannot log in/,
	'a role without LOGIN is refused (before 17 already for its workers)');

# Sessions authenticate as a client's would: a role the server's local
# authentication asks a password of cannot run through clients, and the
# hint says what pg_hba.conf needs.
my $hba = slurp_file($node->data_dir . '/pg_hba.conf');
$node->safe_psql('postgres',
	q{SET password_encryption = 'scram-sha-256';
	  CREATE ROLE pwuser LOGIN PASSWORD 'secret'; GRANT petagen_operator TO pwuser;
	  GRANT SELECT ON ALL TABLES IN SCHEMA public TO pwuser;});
open(my $fh, '>', $node->data_dir . '/pg_hba.conf') or die $!;
print $fh "local all pwuser scram-sha-256\n$hba";
close $fh;
$node->reload;
($rc, $err) = try_sql($node,
	"SET ROLE pwuser; SELECT petagen.bench('select', workers => 2, clients => 4)");
like($err, qr/ERROR:  55000: benchmark worker \d could not start: client session \d+ could not connect as role "pwuser": .*password/,
	'a session refused by pg_hba.conf stops the run before it starts');
like($err, qr/HINT:  pg_hba.conf must let the server's operating system user connect over the socket in ".*" as role "pwuser" without a password/,
	'the hint says what pg_hba.conf needs');
unlike($err, qr/secret/, 'no password is shown');
is($node->safe_psql('postgres', $sessions_sql), '0', 'no session left after the refusal');

# A paced run: latency from the intended start, service time beside it.
my ($paced) = run_bench($node,
	"'select', workers => 2, clients => 40, duration => '2 s', target_rate => 2000",
	q{errors, target_rate, path, (operation_stats->'read'->>'count')::bigint > 0,
	  (operation_stats->'read'->>'service_p50_us')::float8
	    <= (operation_stats->'read'->>'p50_us')::float8});
is($paced, '0|2000|libpq|t|t', 'a paced run over libpq keeps its service times');

# Bad inputs, refused before anything starts.
is( error_of($node, "SELECT petagen.bench('select', workers => 4, clients => 3)"),
	'22023: clients must be at least workers (4)',
	'fewer clients than workers refused');
like(
	error_of($node, "SELECT petagen.bench('select', workers => 8, clients => 1000)"),
	qr/^53300: the server has no room for 1000 client sessions/,
	'more sessions than max_connections refused');
($rc, $err) = try_sql($node,
	"SELECT petagen.bench('select', workers => 8, clients => 1000)");
like($err, qr/HINT:  You may need to increase "max_connections"/, 'the hint names the setting');
$node->safe_psql('postgres',
	q{CREATE ROLE limited LOGIN CONNECTION LIMIT 5; GRANT petagen_operator TO limited;
	  GRANT SELECT ON ALL TABLES IN SCHEMA public TO limited;});
like(
	error_of($node,
		"SET ROLE limited; SELECT petagen.bench('select', workers => 2, clients => 10)"),
	qr/^53300: role "limited" has no room for 10 client sessions/,
	"more sessions than the role's connection limit refused");

# A worker holds no more sessions than fd.c lends it descriptors.
$node->append_conf('postgresql.conf', "max_files_per_process = 100\n");
$node->restart;
($rc, $err) = try_sql($node,
	"SELECT petagen.bench('select', workers => 2, clients => 100)");
like($err, qr/ERROR:  53400: a worker cannot hold 50 client sessions/,
	'more sessions than a worker has descriptors for refused');
like($err, qr/HINT:  Pass more workers \(at most \d+ sessions each\), or raise "max_files_per_process"/,
	'the hint says what to change');
is($node->safe_psql('postgres', $sessions_sql), '0', 'no session after the refusals');

done_testing();
