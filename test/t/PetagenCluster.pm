# A petagen cluster for TAP tests: N PostgreSQL instances on this machine,
# each holding some leaves of the same hash-partitioned usertable as local
# tables and reaching the others through postgres_fdw (scripts/cluster.sql,
# the same SQL scripts/cluster.sh runs).
package PetagenCluster;

use strict;
use warnings;
use Exporter 'import';
use Cwd 'abs_path';
use File::Basename 'dirname';
use PostgreSQL::Test::Cluster;
use PetagenTest;

our @EXPORT = qw(petagen_cluster node_leaves cluster_script);

my $scripts = abs_path(dirname(__FILE__) . '/../../scripts');

# The path of scripts/cluster$name.sql, for psql's \i.
sub cluster_script
{
	my ($name) = @_;
	return "$scripts/cluster$name.sql";
}

# Start $nodes instances node1 .. nodeN (cluster_name = the node name, every
# connection logged) and build a usertable of $parts hash leaves on each,
# leaf r local on node (r % $nodes) + 1.  Returns the nodes, node1 first.
sub petagen_cluster
{
	my (%opt) = @_;
	my $n = $opt{nodes} // 3;
	my $parts = $opt{parts} // 12;
	my @nodes;

	skip_unless_contrib('postgres_fdw');

	for my $i (1 .. $n)
	{
		my $node = PostgreSQL::Test::Cluster->new("node$i");
		$node->init;
		$node->append_conf(
			'postgresql.conf', qq{
cluster_name = 'node$i'
max_worker_processes = 16
log_connections = on
});
		$node->start;
		push @nodes, $node;
	}
	my $ports = join(',', map { $_->port } @nodes);
	for my $i (1 .. $n)
	{
		$nodes[ $i - 1 ]->safe_psql(
			'postgres',
			'\\i ' . cluster_script(''),
			extra_params => [
				'-v', "self=$i", '-v', "nodes=$n", '-v', "parts=$parts",
				'-v', 'host=' . $nodes[ $i - 1 ]->host,
				'-v', "ports=$ports"
			]);
	}
	return @nodes;
}

# The usertable leaves that node number $i (1-based) of $nodes stores.
sub node_leaves
{
	my ($i, $nodes, $parts) = @_;
	return map { "usertable_p$_" } grep { $_ % $nodes + 1 == $i } 0 .. $parts - 1;
}

1;
