# The direct writer of leaf loads (leafload.c): a leaf's heap pages are
# built in backend memory and go to storage in bulk, with the visibility
# map built alongside.  On a cluster with data checksums, at wal_level =
# minimal and at wal_level = replica:
#
#  - every heap page of every leaf is all-visible and all-frozen in the
#    visibility map (pg_visibility_map_summary counts exactly the leaf's
#    pages; pg_class.relpages and reltuples are unset, as TRUNCATE leaves
#    them, or agree with the files and the rows), pg_check_frozen finds
#    nothing, verify_heapam (with TOAST) and
#    bt_index_check with heapallindexed pass, and the exactly-once checks
#    of a leaf job hold;
#  - rows over TOAST_TUPLE_THRESHOLD (two 3,000-character fields) go to the
#    leaves' TOAST tables and read back as the generator makes them;
#  - a CHECK constraint is enforced row by row: a row in the middle of a
#    leaf, after pages of the leaf went to storage, fails the job with
#    23514 and the leaf stays empty, no file of it left behind;
#  - at wal_level = replica every page goes to WAL (the WAL the load
#    writes is at least 80% of the size of the leaves' heaps: a full-page
#    image leaves out the page's free space), at minimal almost nothing
#    does;
#  - the stopped cluster passes pg_checksums --check.
# A standby fed by that WAL is TAP 083's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(pg_visibility amcheck));

my $rows = 100000;
my $wide_rows = 2000;
my $wide_length = 3000;

# A node with data checksums at $wal_level, its extensions created.
sub start_node
{
	my ($wal_level) = @_;
	my $node = PostgreSQL::Test::Cluster->new($wal_level);
	$node->init(extra => ['--data-checksums']);
	$node->append_conf('postgresql.conf', qq{
autovacuum = off
wal_level = $wal_level
max_wal_senders = 0
# the leaves are small: sync them at commit rather than log them then
wal_skip_threshold = 0
});
	$node->start;
	$node->safe_psql('postgres',
		'CREATE EXTENSION petagen; CREATE EXTENSION pg_visibility; CREATE EXTENSION amcheck');
	return $node;
}

# Leaf load of $n rows into $table (more start() arguments in $opts) on
# $node; waits for the job.  Returns the job and the bytes of WAL written.
sub leaf_load
{
	my ($node, $table, $n, $opts) = @_;
	$opts = $opts ? ", $opts" : '';
	my $lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	my $job = $node->safe_psql('postgres',
		qq{SELECT petagen.start($n, workers => 2, "table" => '$table', method => 'leaf'$opts)});
	$node->safe_psql('postgres', "SELECT petagen.wait($job, '300s')");
	my $wal = $node->safe_psql('postgres',
		"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')::bigint");
	return ($job, $wal);
}

# What the direct writer promises for every leaf of $table on $node.
sub pages_sound
{
	my ($node, $table, $what) = @_;
	my $leaves = "WITH l AS MATERIALIZED (SELECT c.oid, c.relpages, c.reltuples,"
	  . " pg_relation_size(c.oid) / current_setting('block_size')::int AS blocks"
	  . " FROM pg_partition_tree('$table') t JOIN pg_class c ON c.oid = t.relid"
	  . " WHERE t.isleaf) SELECT count(*) FROM l";
	is( $node->safe_psql('postgres',
			"$leaves, pg_visibility_map_summary(l.oid) s WHERE NOT (l.blocks > 0 AND"
			  . " s.all_visible = l.blocks AND s.all_frozen = l.blocks)"),
		'0', "$what: every page of every leaf is all-visible and all-frozen");
	# Either as TRUNCATE leaves them (never analyzed: the planner counts
	# the pages) or exact.
	is( $node->safe_psql('postgres',
			"$leaves WHERE NOT (l.relpages = 0 AND l.reltuples = -1) AND NOT"
			  . " (l.relpages = l.blocks AND l.reltuples ="
			  . "  (SELECT count(*) FROM $table x WHERE x.tableoid = l.oid))"),
		'0', "$what: relpages and reltuples of every leaf are unset or exact");
	is($node->safe_psql('postgres', "$leaves, pg_check_frozen(l.oid)"),
		'0', "$what: pg_check_frozen finds no unfrozen tuple");
	is( $node->safe_psql('postgres',
			"$leaves, verify_heapam(l.oid, check_toast => true)"),
		'0', "$what: verify_heapam (TOAST included) finds no corruption");
}

# The cases, on a node at $wal_level.
sub run_cases
{
	my ($wal_level) = @_;
	my $node = start_node($wal_level);

	# Canonical rows.
	$node->safe_psql('postgres', "SELECT petagen.create_table('plain')");
	my ($job, $wal) = leaf_load($node, 'plain', $rows);
	check_load_exact($node, $job, 'plain', $rows, "$wal_level, plain");
	pages_sound($node, 'plain', "$wal_level, plain");
	my $heap = $node->safe_psql('postgres',
		"SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree('plain') WHERE isleaf");
	if ($wal_level eq 'replica')
	{
		# full-page images leave out each page's free space
		cmp_ok($wal, '>=', 0.8 * $heap,
			"replica: every heap page is WAL-logged ($wal bytes of WAL, $heap of heap)");
	}
	else
	{
		cmp_ok($wal, '<', $heap / 10,
			"minimal: the heap is not WAL-logged ($wal bytes of WAL, $heap of heap)");
	}

	# Rows that TOAST.
	$node->safe_psql('postgres',
		"SELECT petagen.create_table('wide', fields => 2, fieldlength => $wide_length)");
	($job) = leaf_load($node, 'wide', $wide_rows, "fieldlength => $wide_length");
	check_load_exact($node, $job, 'wide', $wide_rows, "$wal_level, wide",
		", fieldlength => $wide_length");
	cmp_ok( $node->safe_psql('postgres',
			"SELECT sum(pg_relation_size(c.reltoastrelid)) FROM pg_partition_tree('wide') t"
			  . " JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf"),
		'>', $wide_rows * $wide_length,
		"$wal_level, wide: the long values are in the leaves' TOAST tables");
	pages_sound($node, 'wide', "$wal_level, wide");

	# A CHECK constraint that the 50,000th row violates, in the middle of
	# its leaf: one worker, one leaf after the other.
	my $bad = $node->safe_psql('postgres', 'SELECT petagen.key(50000)');
	$node->safe_psql('postgres', "SELECT petagen.create_table('ck');"
		  . "ALTER TABLE ck ADD CONSTRAINT ck_not_one CHECK (ycsb_key <> '$bad')");
	my $bad_leaf = $node->safe_psql('postgres', "SELECT petagen.leaf('ck', '$bad')");
	$job = $node->safe_psql('postgres',
		qq{SELECT petagen.start($rows, workers => 1, "table" => 'ck', method => 'leaf')});
	$node->safe_psql('postgres', "SELECT petagen.wait($job, '300s')");
	like( $node->safe_psql('postgres',
			"SELECT state || ': ' || coalesce(last_error, '') FROM petagen.jobs WHERE job = $job"),
		qr/^failed: new row for relation "$bad_leaf" violates check constraint "ck_not_one"/,
		"$wal_level, check: the job fails on the row that violates the CHECK constraint");
	is($node->safe_psql('postgres', "SELECT count(*) FROM $bad_leaf"),
		'0', "$wal_level, check: the leaf of that row stays empty");
	is(orphan_files($node), '0',
		"$wal_level, check: no file of the failed leaf is left outside every relation");

	$node->stop;
	command_ok([ 'pg_checksums', '--check', '-D', $node->data_dir ],
		"$wal_level: pg_checksums --check passes");
}

run_cases('minimal');
run_cases('replica');

done_testing();
