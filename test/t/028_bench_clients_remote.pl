# petagen.bench(clients => N) against the leaves of another node: on a
# two-node postgres_fdw cluster, a run whose target leaves are node2's
# foreign tables connects its sessions to node2 (its server's options, the
# role's user mapping), runs exact operation counts of every kind on the
# tables there, and its sessions are node2's backends, none on node1;
# they end with a cancelled caller.  What sessions cannot reach is refused
# before anything starts: local and foreign leaves together, a role
# without USAGE on the server or a user mapping, a role that is not a
# superuser without a password its server asks for (no password ever
# shown).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;
use PetagenCluster;

my @nodes = petagen_cluster(nodes => 2, parts => 4);
my ($node1, $node2) = @nodes;
for my $node (@nodes)
{
	my $job = $node->safe_psql('postgres', 'SELECT petagen.start(20000, workers => 2)');
	wait_done($node, $job, $node->name . ': its leaves loaded');
}
my $remote = q{target => '{usertable_p1,usertable_p3}'};
my $sessions_sql = q{SELECT count(*) FROM pg_stat_activity
  WHERE backend_type = 'client backend' AND application_name LIKE 'petagen bench%'};

# Exact operation counts of every kind on node2's tables, every key found,
# every row read the generator's, recorded as the libpq path to node2.
my $rows_sql = q{SELECT (SELECT count(*) FROM usertable_p1) + (SELECT count(*) FROM usertable_p3)};
my $before = $node2->safe_psql('postgres', $rows_sql);
for my $kind (qw(select update ycsb-a ycsb-d ycsb-e ycsb-f))
{
	my ($out) = run_bench($node1,
		"'$kind', workers => 2, clients => 20, operationcount => 1000, dataintegrity => true, $remote",
		'operations, errors, not_found, integrity_errors, clients, path, target_node');
	is($out, '1000|0|0|0|20|libpq|node2', "$kind: 1000 operations over 20 sessions to node2");
}
cmp_ok($node2->safe_psql('postgres', $rows_sql), '>', $before,
	"ycsb-d and ycsb-e inserted into node2's tables");

# The sessions are node2's backends while a run goes, none on node1, and
# end with the cancelled caller.
my $bench = $node1->background_psql('postgres', on_error_stop => 0);
my $caller = $bench->query_safe('SELECT pg_backend_pid()');
$bench->query_until(qr/started/,
	"\\echo started\nSELECT petagen.bench('select', workers => 2, clients => 30, duration => '5 min', $remote);\n");
ok($node2->poll_query_until('postgres', $sessions_sql, '30'), '30 sessions on node2');
is($node1->safe_psql('postgres', $sessions_sql), '0', 'none on node1');
ok( $node1->poll_query_until('postgres',
		q{SELECT clients = 30 AND operations > 0 FROM petagen.bench_status()}),
	'bench_status() on node1 shows the run');
$node1->safe_psql('postgres', "SELECT pg_cancel_backend($caller)");
ok(count_within($node2, $sessions_sql, '0', 30), "no session left on node2 after the cancel");
eval { $bench->quit };

# Refused before anything starts.
like(
	error_of($node1,
		q{SELECT petagen.bench('select', workers => 2, clients => 4, target => '{usertable_p0,usertable_p1}')}),
	qr/^0A000: client sessions cannot reach local and foreign target leaves in one run/,
	'local and foreign leaves together refused');
$node1->safe_psql('postgres',
	q{CREATE ROLE bob LOGIN; GRANT petagen_operator TO bob;
	  GRANT SELECT ON ALL TABLES IN SCHEMA public TO bob;});
like(
	error_of($node1, "SET ROLE bob; SELECT petagen.bench('select', workers => 2, clients => 4, $remote)"),
	qr/^42501: client sessions cannot connect to server "node2": permission denied for foreign server "node2"/,
	'a role without USAGE on the server refused');
$node1->safe_psql('postgres', 'GRANT USAGE ON FOREIGN SERVER node2 TO bob');
like(
	error_of($node1, "SET ROLE bob; SELECT petagen.bench('select', workers => 2, clients => 4, $remote)"),
	qr/^42704: client sessions cannot connect to server "node2": no user mapping for role "bob" on server "node2"/,
	'a role without a user mapping refused');
$node1->safe_psql('postgres', q{CREATE USER MAPPING FOR bob SERVER node2 OPTIONS (user 'postgres')});
like(
	error_of($node1, "SET ROLE bob; SELECT petagen.bench('select', workers => 2, clients => 4, $remote)"),
	qr/^2F003: client sessions cannot connect to server "node2": password is required: the user mapping of role "bob" for server "node2" holds no password/,
	'a mapping without a password refused for a role that is not a superuser');
# A password the node (trust) does not ask for: refused once connected
# (by postgres_fdw's own rule first, when the run looks for its keys in
# the leaves), and the password is never shown.
$node1->safe_psql('postgres',
	q{ALTER USER MAPPING FOR bob SERVER node2 OPTIONS (ADD password 'bob-secret')});
my ($rc, $err) = try_sql($node1,
	"SET ROLE bob; SELECT petagen.bench('select', workers => 2, clients => 4, $remote)");
like($err, qr/ERROR:  2F003: /, 'a node that does not ask for the password refused');
unlike($err, qr/bob-secret/, 'no password is shown');
is($node2->safe_psql('postgres', $sessions_sql), '0', 'no session left on node2');
is( $node1->safe_psql('postgres',
		q{SELECT count(*) FROM petagen.bench_results WHERE run_by::text = 'bob'}),
	'0', 'nothing recorded by the refused runs');

done_testing();
