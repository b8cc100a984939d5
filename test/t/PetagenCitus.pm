# A throwaway Citus cluster for petagen's TAP tests: a coordinator and two
# workers listening on 127.0.0.1, Citus and petagen created on each.
package PetagenCitus;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use Test::More;

our @EXPORT = qw(citus_skip_unless_installed citus_cluster citus_usertable_sql);

# Skip the whole test unless Citus is installed for this server.
sub citus_skip_unless_installed
{
	my $probe = PostgreSQL::Test::Cluster->new('probe');
	my $pkglibdir = $probe->config_data('--pkglibdir');
	plan skip_all => "Citus is not installed in $pkglibdir (scripts/citus.sh)"
	  unless -f "$pkglibdir/citus.so";
}

# A Citus node listening on 127.0.0.1, Citus and petagen created.
sub citus_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'citus'
listen_addresses = '127.0.0.1'
max_worker_processes = 16
restart_after_crash = on
});
	$node->start;
	$node->safe_psql('postgres',
		'CREATE EXTENSION citus; CREATE EXTENSION petagen;');
	return $node;
}

# A coordinator and two workers added to it; returns ($coordinator, @workers).
sub citus_cluster
{
	my ($coord, @workers) = map { citus_node($_) } qw(coord worker1 worker2);
	$coord->safe_psql('postgres',
		"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
	$coord->safe_psql('postgres',
		"SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
	  for @workers;
	return ($coord, @workers);
}

# SQL that creates the canonical YCSB table $name, not partitioned, and
# distributes it by hash on ycsb_key into $shards shards.
sub citus_usertable_sql
{
	my ($name, $shards) = @_;
	return qq{
CREATE TABLE $name (ycsb_key varchar(64) PRIMARY KEY,
    field0 varchar(100), field1 varchar(100), field2 varchar(100),
    field3 varchar(100), field4 varchar(100), field5 varchar(100),
    field6 varchar(100), field7 varchar(100), field8 varchar(100),
    field9 varchar(100));
SELECT create_distributed_table('$name', 'ycsb_key', shard_count => $shards);
};
}

1;
