# The recipe check()'s hint gives for lowering petagen.disk_reserve works
# as written on every major, in a session that has not loaded petagen
# (no shared_preload_libraries): before 17, ALTER SYSTEM and SHOW of a
# petagen.* setting fail there until LOAD 'petagen'.  The statements are
# taken from the hint itself and run, one at a time, in a new session.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('recipe');
$node->init;
$node->start;
$node->safe_psql('postgres',
	"CREATE EXTENSION petagen; SELECT petagen.create_table('t')");

# A reserve no filesystem has: the space finding is an error with its hint.
my $hint = $node->safe_psql('postgres',
	"SELECT hint FROM petagen.check_details(1000, 1, 't', disk_reserve => '1000PB')"
	  . " WHERE finding LIKE 'space:%' AND severity = 'error' LIMIT 1");
my @recipe = $hint =~ /(LOAD '[^']+';|ALTER SYSTEM SET petagen\.disk_reserve = '[^']+';|SELECT pg_reload_conf\(\);)/g;
is(scalar(@recipe), 3, "the space hint gives the three statements: $hint");

# A new session runs them as the hint says; psql sends each on its own.
my ($ret, $stdout, $stderr) = $node->psql('postgres', join("\n", @recipe));
is($ret, 0, 'the recipe runs as written in a session that had not loaded petagen')
  or diag $stderr;
$node->poll_query_until('postgres',
	"SELECT current_setting('petagen.disk_reserve', true) = '100MB'")
  or die 'the setting did not take effect';
is($node->safe_psql('postgres', 'SHOW petagen.disk_reserve'),
	'100MB', 'SHOW as the first statement of a new session sees the setting');
is( $node->safe_psql('postgres',
		"SELECT petagen.key(0) IS NOT NULL; SHOW petagen.disk_reserve"),
	"t\n100MB", 'the library, once loaded, takes the value set');

$node->stop;
done_testing();
