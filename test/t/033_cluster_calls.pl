# One node drives a three-node postgres_fdw cluster: nodes() lists this node
# and the foreign servers of usertable's leaves; cluster_start() refuses,
# naming the node and starting nowhere, when a node has no user mapping for
# the role, has no petagen or another version, or does not let the role run
# load jobs; a role that is not a superuser cannot ride on a node's own
# identity, nor act on another role's cluster job.  Then one
# cluster_start() loads every node (held by petagen.debug_pause so that
# cluster_status() is read mid-load), a stopped node shows `unreachable`
# while the others go on, cluster_resume() finishes it and cluster_verify()
# proves every key exactly once; cluster_forget() removes every node's job.
# A node throttled far below the others is named straggler with what its
# worker waits on.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;
use PetagenCluster;

my ($n, $parts, $rows) = (3, 12, 300000);
my @nodes = petagen_cluster(nodes => $n, parts => $parts);
my $node1 = $nodes[0];

# Run $sql on node1 (as $role if given), psql's unaligned output.
sub on1
{
	my ($sql, $role) = @_;
	$sql = "SET ROLE $role; $sql" if $role;
	return $node1->safe_psql('postgres', $sql);
}

# The jobs of every node, "node1:N node2:N node3:N" ("-": no petagen).
sub job_counts
{
	my @counts;
	for my $node (@nodes)
	{
		my $has = $node->safe_psql('postgres', "SELECT to_regclass('petagen.jobs') IS NOT NULL");
		push @counts, $node->name . ':'
		  . ($has eq 't' ? $node->safe_psql('postgres', 'SELECT count(*) FROM petagen.jobs') : '-');
	}
	return join(' ', @counts);
}

# The error of cluster_start() on node1 (as $role if given).
sub start_error
{
	my ($role) = @_;
	my $set = $role ? "SET ROLE $role; " : '';
	return error_of($node1,
		"${set}SELECT petagen.cluster_start($rows, workers => 2, chunk_rows => 25000, method => 'chunk')");
}

is( on1("SELECT node, reachable, petagen, operator, error IS NULL FROM petagen.nodes('usertable')"),
	"node1|t|0.2|t|t\nnode2|t|0.2|t|t\nnode3|t|0.2|t|t",
	'nodes(): this node and the two servers of the foreign leaves, reachable, petagen 0.2, operator');

# No user mapping for the role on node3's server.
on1('DROP USER MAPPING FOR CURRENT_USER SERVER node3');
like(
	start_error(),
	qr/^55000: no node started: node "node3" is unreachable: no user mapping for role "\w+" on server "node3"/,
	'cluster_start() refuses: no user mapping for node3, named');
is(job_counts(), 'node1:0 node2:0 node3:0', 'no node started a job');
on1('CREATE USER MAPPING FOR CURRENT_USER SERVER node3');

# No petagen on node2.
$nodes[1]->safe_psql('postgres', 'DROP EXTENSION petagen CASCADE');
like(start_error(), qr/^55000: no node started: node "node2" has no petagen/,
	'cluster_start() refuses: node2 has no petagen, named');
is(job_counts(), 'node1:0 node2:- node3:0', 'no other node started a job');

# Another petagen version on node2.
$nodes[1]->safe_psql('postgres', "CREATE EXTENSION petagen VERSION '0.1'");
like(start_error(), qr/^55000: no node started: node "node2" runs petagen 0\.1, this node 0\.2/,
	'cluster_start() refuses: node2 runs petagen 0.1, named');
is(job_counts(), 'node1:0 node2:0 node3:0', 'no node started a job');
$nodes[1]->safe_psql('postgres', 'ALTER EXTENSION petagen UPDATE');

# A role that is not a superuser: an operator on node1 and node2 only,
# reaching node2 and node3 with a password they ask for.
for my $node (@nodes)
{
	my $servers = join(', ', grep { $_ ne $node->name } map { "node$_" } 1 .. $n);
	$node->safe_psql('postgres', qq{
CREATE ROLE alice LOGIN PASSWORD 'alice-secret';
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO alice;
GRANT USAGE ON FOREIGN SERVER $servers TO alice;});
	$node->safe_psql('postgres', 'GRANT petagen_operator TO alice') unless $node == $nodes[2];
	my $hba = $node->data_dir . '/pg_hba.conf';
	my $conf = slurp_file($hba);
	open(my $fh, '>', $hba) or die $!;
	print $fh "local all alice scram-sha-256\n$conf";
	close $fh;
	$node->reload;
}
on1(q{CREATE USER MAPPING FOR alice SERVER node2 OPTIONS (user 'alice', password 'alice-secret');
      CREATE USER MAPPING FOR alice SERVER node3 OPTIONS (user 'alice', password 'alice-secret');});
is( on1("SELECT node, reachable, operator FROM petagen.nodes('usertable')", 'alice'),
	"node1|t|t\nnode2|t|t\nnode3|t|f",
	'nodes() as alice: every node reached with her password, an operator on node1 and node2');
like(
	start_error('alice'),
	qr/^55000: no node started: role "alice" is not a member of petagen_operator on node "node3"/,
	'cluster_start() as alice refuses: not an operator on node3, named');
is(job_counts(), 'node1:0 node2:0 node3:0', 'no node started a job');

# Without a password in her mapping she cannot ride on the server's identity.
on1(q{ALTER USER MAPPING FOR alice SERVER node2 OPTIONS (DROP password)});
like(
	on1("SELECT error FROM petagen.nodes('usertable') WHERE node = 'node2'", 'alice'),
	qr/^password is required: the user mapping of role "alice" for server "node2" holds no password/,
	'a mapping without a password: refused before connecting');
# With a password, but a node that does not ask for it (trust).
on1(q{ALTER USER MAPPING FOR alice SERVER node2 OPTIONS (ADD password 'wrong', SET user 'postgres')});
like(
	on1("SELECT error FROM petagen.nodes('usertable') WHERE node = 'node2'", 'alice'),
	qr/^password is required: server "node2" did not ask role "alice" for its password/,
	'a node that does not ask for the password: refused after connecting');
is( on1("SELECT count(*) FROM petagen.cluster_jobs"), '0', 'no cluster job recorded');

# The load, held before the commit of chunk 2 on every node.
set_debug_pause($_, 'before_commit:2') for @nodes;
my $cj = on1("SELECT petagen.cluster_start($rows, workers => 2, chunk_rows => 25000, method => 'chunk')");
my %job = map { split /\|/ } split /\n/,
  on1("SELECT node, job FROM petagen.cluster_jobs WHERE cluster_job = $cj ORDER BY node");
is(join(' ', sort keys %job), 'node1 node2 node3', 'the cluster job maps each node to its job');
wait_for_debug_pause($nodes[ $_ - 1 ], $job{"node$_"}, 2) for 1 .. $n;

# Held, their recent rates fall to 0/s within seconds (the rate is measured
# over the last 3-6 s); then every node is running and none straggles.
my $held = join("\n",
	(map { "node$_ running t 0/s petagen.debug_pause: ..." } 1 .. $n),
	'total running t 0/s 3 nodes');
ok( $node1->poll_query_until(
		'postgres',
		"SELECT string_agg(concat_ws(' ', node, state, progress IS NOT NULL, rate, note),"
		  . " E'\\n' ORDER BY node) FROM petagen.cluster_status($cj)",
		$held),
	'cluster_status(): every node running, held, and the total');

# alice may not act on the cluster job of another role.
like(
	error_of($node1, "SET ROLE alice; SELECT * FROM petagen.cluster_stop($cj)"),
	qr/^42501: permission denied for cluster job $cj/,
	'cluster_stop() of another role\'s cluster job: refused');
is( on1("SELECT string_agg(node || ':' || state, ' ') FROM petagen.cluster_alter($cj, max_rate => '50MB')"),
	'node1:running node2:running node3:running', 'cluster_alter(): every node\'s job altered');
is( join(' ', map { $nodes[ $_ - 1 ]->safe_psql('postgres', "SELECT max_rate FROM petagen.jobs WHERE job = " . $job{"node$_"}) } 1 .. $n),
	join(' ', (50 * 1024 * 1024) x $n), 'each node\'s job has the new max_rate');

# node3 stops: unreachable, with the error, while the others go on.
$nodes[2]->stop('immediate');
like(
	on1("SELECT string_agg(node || ' ' || state || ' ' || coalesce(note, ''), E'\\n' ORDER BY node)"
		  . " FROM petagen.cluster_status()"),
	qr/^node1 running petagen\.debug_pause: \.\.\.\nnode2 running petagen\.debug_pause: \.\.\.\nnode3 unreachable could not connect: No such file or directory\ntotal running 3 nodes, 1 unreachable$/,
	'cluster_status(): node3 unreachable with its error, node1 and node2 running');
$nodes[2]->start;

# Released, resumed where it was interrupted, waited for and verified.
set_debug_pause($_, '') for @nodes;
is( on1("SELECT node, job IS NOT NULL, error IS NULL FROM petagen.cluster_resume($cj)"),
	"node1|t|t\nnode2|t|t\nnode3|t|t", 'cluster_resume(): every node answers');
is( on1("SELECT node, state FROM petagen.cluster_wait($cj)"),
	"node1|done\nnode2|done\nnode3|done", 'cluster_wait() without a timeout: every node done');
is( on1("SELECT count(*), count(DISTINCT node), bool_and(ok), sum(expected), sum(present),"
		  . " sum(missing) + sum(extra) + sum(duplicated) FROM petagen.cluster_verify($cj)"),
	"$parts|$n|t|$rows|$rows|0",
	'cluster_verify(): every leaf on its node, every key exactly once');
is(on1("SELECT count(*), count(DISTINCT ycsb_key) FROM usertable"),
	"$rows|$rows", 'positive control: the table holds the key space once');

# A node down is a row of its own, not ok, with the error; each other node
# still verifies its own leaves.
$nodes[1]->stop;
is( on1("SELECT string_agg(node || ':' || ok || ':' || failed, ' ') FROM"
		  . " (SELECT node, bool_and(ok) AS ok, bool_or(error IS NOT NULL) AS failed"
		  . " FROM petagen.cluster_verify($cj) GROUP BY node ORDER BY node) AS v"),
	'node1:true:false node2:false:true node3:true:false',
	'cluster_verify(): node2 down is reported, not skipped; node1 and node3 verify their leaves');
$nodes[1]->start;

is( on1("SELECT node, state FROM petagen.cluster_status($cj) WHERE node = 'total'"),
	'total|done', 'cluster_status(): done');
is( on1("SELECT string_agg(node || ':' || state, ' ' ORDER BY node) FROM petagen.cluster_forget($cj)"),
	'node1:done node2:done node3:done', 'cluster_forget(): every node\'s job forgotten');
is(job_counts(), 'node1:0 node2:0 node3:0', 'no node keeps a job');
is(on1("SELECT count(*) FROM petagen.cluster_jobs"), '0', 'the cluster job is gone');

# A straggler: every node throttled to 2MB/s, node2 to 200kB/s; its rate
# over the last 5 s (petagen.straggler_window; 036 checks the window) is a
# tenth of the median, and its worker waits on the throttle's sleep.  (The
# key space already loaded is refused by each node's check().)
set_setting($node1, 'straggler_window', '5s');
like(
	error_of($node1, "SELECT petagen.cluster_start($rows, workers => 1, method => 'chunk')"),
	qr/^55000: no node started: node "node1": check\(\) reports usertable_p\d+: keys: \d+ of the \d+ key numbers probed are already in the table/,
	'cluster_start() of keys already there: refused by check(), naming the node');
$cj = on1("SELECT petagen.cluster_start($rows, first => $rows, workers => 1, chunk_rows => 5000,"
	  . " method => 'chunk', max_rate => '2MB')");
my $job2 = on1("SELECT job FROM petagen.cluster_jobs WHERE cluster_job = $cj AND node = 'node2'");
$nodes[1]->safe_psql('postgres', "SELECT petagen.alter($job2, max_rate => '200kB')");
my $io = $node1->safe_psql('postgres', 'SHOW server_version_num') >= 160000
  ? ', (write [0-9.]+ ms|no io timing)' : '';
ok( $node1->poll_query_until(
		'postgres',
		"SELECT count(*) FROM petagen.cluster_status($cj)"
		  . " WHERE node = 'node2' AND note ~ '^straggler [0-9]+% of median: sleep [0-9]+%$io\$'",
		'1'),
	"cluster_status(): node2 is named straggler, its worker sleeping");
is( on1("SELECT string_agg(node, ' ' ORDER BY node) FROM petagen.cluster_status($cj)"
		  . " WHERE note LIKE 'straggler%'"),
	'node2', 'cluster_status(): only node2 straggles');
is( on1("SELECT string_agg(node || ':' || (error IS NULL), ' ' ORDER BY node) FROM petagen.cluster_stop($cj)"),
	'node1:true node2:true node3:true', 'cluster_stop(): every node stopped');

done_testing();
