# Smoke test: a fresh node can load petagen and generate rows.
# Pattern for later TAP tests: one PostgreSQL::Test::Cluster node per
# instance, safe_psql for setup, is() on query results.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('smoke');
$node->init;
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION petagen');

# YCSB's hashed key for sequence number 0 (both Java and go-ycsb agree).
is($node->safe_psql('postgres', q{SELECT petagen.key(0, 'ycsb')}),
	'user6284781860667377211', 'ycsb key of seq 0');

# rows() over a small plain table: 1000 rows, 1000 distinct keys.
$node->safe_psql('postgres', ycsb_table_sql('t3', 2));
is( $node->safe_psql(
		'postgres',
		'SELECT count(*), count(DISTINCT ycsb_key) '
		  . 'FROM petagen.rows(NULL::t3, 0, 1000)'),
	'1000|1000',
	'rows() yields 1000 rows with distinct keys');

$node->stop;
done_testing();
