# A leaf load builds each leaf's btree on ycsb_key alone (the primary key,
# a unique index or not) from the rows as it wrote them, without reading
# the leaf back; every other index of the leaf is built from the heap.  On
# a server at wal_level = minimal:
#
#  - the canonical table (primary key on a varchar key) and a table with an
#    int primary key: the load is exact (check_load_exact: bt_index_check
#    with heapallindexed), bt_index_check with checkunique passes where
#    amcheck has it (17+), and no leaf's heap was read while its indexes
#    were built (pg_statio_user_tables counts no heap block, once the
#    workers' statistics are in: their inserts are counted);
#  - each such index is the index REINDEX builds: every page of it
#    (bt_metap, bt_page_stats and bt_page_items of every block) is the same
#    before and after a REINDEX of it (where the server has pageinspect);
#  - a table whose leaves have, besides the primary key, indexes that are
#    not on the key alone (an expression, a predicate, an INCLUDE column,
#    another column, a hash index) and a plain btree on the key: the load
#    is exact, every btree passes bt_index_check with heapallindexed, the
#    plain btree on the key is REINDEX's too, and the other indexes were
#    built from the heap (heap blocks were read);
#  - keys in collation "C" (of the ordered and scrambled modes, zero-padded
#    or not): the primary key, a descending index and a text_pattern_ops
#    index on the key are fed their keys sorted (the server log at DEBUG1
#    says so), the load is exact and each index is REINDEX's; in collation
#    "C.utf8", which does not compare as bytes, the primary key is fed its
#    keys in the order written, and is REINDEX's;
#  - rows whose keys the toaster compressed: the primary key is built from
#    the heap, and is REINDEX's;
#  - a worker killed (SIGKILL) with its leaf written and indexed but not
#    committed (petagen.debug_pause before_commit): the leaves in flight are
#    empty after the restart, resume() finishes the job, the load is exact
#    and no file is left outside every relation.
# A leaf load cannot write a key twice (leaf loads refuse the hashed key
# modes, the only ones with duplicates), so the unique check of these
# builds, btbuild()'s, meets no duplicate here.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(amcheck));

my $rows = 40000;

my $node = PostgreSQL::Test::Cluster->new('keyindex');
$node->init;
$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
autovacuum = off
wal_level = minimal
max_wal_senders = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION petagen; CREATE EXTENSION amcheck');
# pageinspect, for the comparison with REINDEX, where the server has it
my $pageinspect = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_available_extensions WHERE name = 'pageinspect'");
$node->safe_psql('postgres', q{
CREATE EXTENSION pageinspect;
-- every page of btree idx, as pageinspect shows it
CREATE FUNCTION idx_pages(idx regclass) RETURNS text LANGUAGE sql AS $$
  SELECT (SELECT m::text FROM bt_metap(idx::text) m) || ' ' || md5(string_agg(s::text || ' '
           || (SELECT string_agg(i::text, ',' ORDER BY i.itemoffset)
               FROM bt_page_items(idx::text, b) i), '|' ORDER BY b))
  FROM generate_series(1, pg_relation_size(idx) / current_setting('block_size')::int - 1) b,
       bt_page_stats(idx::text, b) s
$$;
}) if $pageinspect;
$node->safe_psql('postgres', q{
-- the btree indexes of the leaves of table t (if key_only, those on
-- ycsb_key alone)
CREATE FUNCTION leaf_btrees(t regclass, key_only bool) RETURNS SETOF regclass
LANGUAGE sql AS $$
  SELECT i.indexrelid::regclass FROM pg_partition_tree(t) p
  JOIN pg_index i ON i.indrelid = p.relid JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_attribute a ON a.attrelid = p.relid AND a.attname = 'ycsb_key'
  WHERE p.isleaf AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree')
    AND (NOT key_only OR (i.indnatts = 1 AND i.indkey[0] = a.attnum
                          AND i.indexprs IS NULL AND i.indpred IS NULL))
$$;
});
my $checkunique = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_proc WHERE proname = 'bt_index_check' AND pronargs = 3");

# Leaf load of $rows rows into $table (more start() arguments in $args);
# returns the job once it is done.
sub leaf_load
{
	my ($table, $args) = @_;
	$args //= '';
	my $job = $node->safe_psql('postgres',
		qq{SELECT petagen.start($rows, workers => 2, "table" => '$table', method => 'leaf'$args)});
	is($node->safe_psql('postgres', "SELECT petagen.wait($job, '300s')"),
		'done', "$table: the leaf load is done");
	return $job;
}

# Blocks of the main fork of $table's leaves read (or found in shared
# buffers), once the statistics of the workers that wrote its $rows rows
# are in: per leaf, the heap blocks pg_statio_user_tables counts beyond the
# pages of the visibility map, which index_build() reads to count the
# all-visible pages on some majors (index_update_stats()), once for each
# of the leaf's $builds indexes (default 1).
sub heap_blocks_read
{
	my ($table, $builds) = @_;
	$builds //= 1;
	my $leaves = "FROM pg_partition_tree('$table') p JOIN %s s ON s.relid = p.relid WHERE p.isleaf";
	ok( $node->poll_query_until('postgres',
			'SELECT sum(n_tup_ins) '
			  . sprintf($leaves, 'pg_stat_user_tables'), $rows),
		"$table: the workers' statistics count every row inserted");
	return $node->safe_psql('postgres',
		'SELECT sum(greatest(heap_blks_read + heap_blks_hit'
		  . " - $builds * pg_relation_size(p.relid, 'vm') / current_setting('block_size')::int, 0)) "
		  . sprintf($leaves, 'pg_statio_user_tables'));
}

# Every page of the $n btrees of $table's leaves on ycsb_key alone is the
# same before and after a REINDEX of it (where pageinspect is installed).
sub same_as_reindex
{
	my ($table, $n) = @_;
  SKIP:
	{
		skip 'pageinspect is not installed', 2 unless $pageinspect;
		compare_with_reindex($table, $n);
	}
}

# same_as_reindex()'s comparison.
sub compare_with_reindex
{
	my ($table, $n) = @_;
	my $pages = "SELECT string_agg(idx::text || ' ' || idx_pages(idx), E'\\n' ORDER BY idx::text)"
	  . " FROM leaf_btrees('$table', true) idx";
	my $before = $node->safe_psql('postgres', $pages);
	is(scalar(() = $before =~ /\n/g) + 1, $n, "$table: $n indexes to compare");
	my @idx = split /\n/, $node->safe_psql('postgres',
		"SELECT idx FROM leaf_btrees('$table', true) idx");
	$node->safe_psql('postgres', "REINDEX INDEX $_") foreach @idx;
	is($node->safe_psql('postgres', $pages), $before,
		"$table: every page of each index on the key is the one REINDEX builds");
}

# bt_index_check with heapallindexed (and checkunique where amcheck has it)
# on every btree of $table's leaves: $n of them.
sub btrees_check
{
	my ($table, $n) = @_;
	my $args = $checkunique ? 'true, true' : 'true';
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM (SELECT bt_index_check(idx, $args)"
			  . " FROM leaf_btrees('$table', false) idx) c"),
		$n, "$table: bt_index_check with heapallindexed"
		  . ($checkunique ? ' and checkunique' : '') . " passes on its $n btrees");
}

# The canonical table: its primary key fed from the rows as written.
$node->safe_psql('postgres', "SELECT petagen.create_table('fed')");
my $job = leaf_load('fed');
is(heap_blocks_read('fed'), '0',
	'fed: no block of a leaf\'s heap was read to build its primary key');
check_load_exact($node, $job, 'fed', $rows, 'fed');
btrees_check('fed', 8);
same_as_reindex('fed', 8);

# An int primary key, hash partitioned.
my $fields = join('', map { ", field$_ text" } 0 .. 9);
$node->safe_psql('postgres',
	"CREATE TABLE intkey (ycsb_key int PRIMARY KEY$fields) PARTITION BY HASH (ycsb_key);"
	  . join('', map { "CREATE TABLE intkey_$_ PARTITION OF intkey FOR VALUES WITH (MODULUS 8, REMAINDER $_);" } 0 .. 7));
$job = leaf_load('intkey');
is(heap_blocks_read('intkey'), '0',
	'intkey: no block of a leaf\'s heap was read to build its primary key');
check_load_exact($node, $job, 'intkey', $rows, 'intkey');
btrees_check('intkey', 8);
same_as_reindex('intkey', 8);

# Indexes that are not on the key alone, built from the heap, beside two
# that are (the primary key and a plain btree on the key).
$node->safe_psql('postgres', q{
SELECT petagen.create_table('mixed');
CREATE INDEX mixed_lower ON mixed (lower(ycsb_key));
CREATE INDEX mixed_partial ON mixed (ycsb_key) WHERE field0 > 'm';
CREATE UNIQUE INDEX mixed_incl ON mixed (ycsb_key) INCLUDE (field1);
CREATE INDEX mixed_field ON mixed (field2);
CREATE INDEX mixed_hash ON mixed USING hash (ycsb_key);
CREATE INDEX mixed_plain ON mixed (ycsb_key);
});
$job = leaf_load('mixed');
cmp_ok(heap_blocks_read('mixed'), '>', 0,
	'mixed: the indexes not on the key alone were built from the heap');
is(seqscan_psql($node, 'SELECT count(*) FROM mixed'), $rows,
	'mixed: a sequential scan counts exactly the key space');
is( $node->safe_psql('postgres',
		'SELECT count(*) FROM petagen.verify(' . $job . '::bigint) WHERE ok'),
	'8', 'mixed: verify() is ok on every leaf');
btrees_check('mixed', 8 * 6);
is( $node->safe_psql('postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM mixed WHERE ycsb_key = ANY (SELECT ycsb_key FROM mixed ORDER BY ycsb_key LIMIT 100)}),
	'100', 'mixed: the hash index finds the keys');
same_as_reindex('mixed', 16);

# Keys in collation "C", which compares as bytes: the primary key, a
# descending index and a text_pattern_ops index on the key are fed their
# keys sorted, for keys of every width (the ordered mode's, from one digit
# up, where "user1" sorts before "user10", zero-padded or not, and the
# scrambled mode's, zero-padded beyond their 19 digits or not).  In a
# collation that does not ("C.utf8" of the C library), the primary key is
# fed its keys in the order written.  Either way each index is REINDEX's.
$node->append_conf('postgresql.conf', 'log_min_messages = debug1');
$node->reload;

# Create table $name with its key in collation $collation, hash partitioned.
sub collated_table
{
	my ($name, $collation) = @_;
	$node->safe_psql('postgres',
		"CREATE TABLE $name (ycsb_key varchar(64) COLLATE \"$collation\" PRIMARY KEY$fields)"
		  . " PARTITION BY HASH (ycsb_key);"
		  . join('', map { "CREATE TABLE ${name}_$_ PARTITION OF $name FOR VALUES WITH (MODULUS 8, REMAINDER $_);" } 0 .. 7));
}

# Leaf load into $table with key arguments $args; the indexes fed their
# keys sorted and in the order written, as the server log tells.
sub fed_how
{
	my ($table, $args) = @_;
	my $offset = -s $node->logfile;
	my $job = leaf_load($table, $args);
	my $log = slurp_file($node->logfile, $offset);
	my $sorted = () = $log =~ /of leaf "${table}_\d" is fed its keys sorted/g;
	my $written = () = $log =~ /of leaf "${table}_\d" is fed its keys in the order written/g;
	return ($job, "$sorted sorted, $written as written");
}

my $variant = 0;
foreach my $keys (
	'',
	", keys => 'ordered'",
	", keys => 'ordered', zeropadding => 3",
	", zeropadding => 25")
{
	my $t = 'bytes' . $variant++;
	collated_table($t, 'C');
	$node->safe_psql('postgres',
		"CREATE UNIQUE INDEX ${t}_desc ON $t (ycsb_key DESC);"
		  . "CREATE INDEX ${t}_pattern ON $t (ycsb_key text_pattern_ops);");
	my ($job, $how) = fed_how($t, $keys);
	is($how, '24 sorted, 0 as written', "$t$keys: every index on the key is fed its keys sorted");
	is(heap_blocks_read($t, 3), '0',
		"$t$keys: no block of a leaf's heap was read to build its indexes");
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM petagen.verify(${job}::bigint) WHERE ok"),
		'8', "$t$keys: verify() is ok on every leaf");
	is( seqscan_psql($node,
			"SELECT count(*), md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM $t t"),
		$node->safe_psql('postgres',
			"SELECT count(*), md5(string_agg(md5(t::text), '' ORDER BY ycsb_key))"
			  . " FROM petagen.rows(NULL::$t, 0, $rows$keys) t"),
		"$t$keys: content equals the generator's");
	btrees_check($t, 24);
	same_as_reindex($t, 24);
}

collated_table('collated', 'C.utf8');
my ($collated_job, $collated_how) = fed_how('collated');
is($collated_how, '0 sorted, 8 as written',
	'collated: the primary key is fed its keys in the order written');
check_load_exact($node, $collated_job, 'collated', $rows, 'collated');
btrees_check('collated', 8);
same_as_reindex('collated', 8);

# Wide rows whose long keys the toaster compresses in line (their three
# fields, each under the threshold, do not compress, and the tuple is still
# over the threshold when the key's turn comes): the primary key is built
# from the heap, holding the keys compressed as REINDEX does.
my $squeeze = ', fieldlength => 1000, zeropadding => 40';
$node->safe_psql('postgres',
	"SELECT petagen.create_table('squeezed', fields => 3, fieldlength => 1000)");
$job = leaf_load('squeezed', $squeeze);
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM squeezed WHERE pg_column_compression(ycsb_key) IS NOT NULL"),
	$rows, 'squeezed: every row holds its key compressed');
cmp_ok(heap_blocks_read('squeezed'), '>', 0,
	'squeezed: the primary key was built from the heap');
check_load_exact($node, $job, 'squeezed', $rows, 'squeezed', $squeeze);
same_as_reindex('squeezed', 8);

# A worker killed with its leaf written and indexed, before its commit.
$node->safe_psql('postgres', "SELECT petagen.create_table('killed')");
set_debug_pause($node, 'before_commit:1');
$job = $node->safe_psql('postgres',
	qq{SELECT petagen.start($rows, workers => 2, "table" => 'killed', method => 'leaf')});
wait_for_debug_pause($node, $job, 2);
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM petagen.status_workers($job) WHERE worker = 0");
ok(kill('KILL', $pid), 'killed: SIGKILL sent to worker 0, its leaf indexed');
ok( poll_after_crash(
		$node, "SELECT state FROM petagen.status($job)", 'interrupted'),
	'killed: after the restart the job is interrupted');
is( seqscan_psql($node, "SELECT (SELECT count(*) FROM killed) - (SELECT"
		  . " coalesce(sum(rows_written), 0) FROM petagen.chunks WHERE job = $job)"),
	'0', 'killed: the leaves in flight are empty again');
set_debug_pause($node, '');
is($node->safe_psql('postgres', "SELECT petagen.resume($job)"),
	$job, 'killed: resume() returns the job');
check_load_exact($node, $job, 'killed', $rows, 'killed');
btrees_check('killed', 8);
is(orphan_files($node), '0',
	'killed: no file of the database is left outside every relation');

done_testing();
