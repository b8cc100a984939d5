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
#    leaves' TOAST tables and read back as the generator makes them; no
#    page of a TOAST table goes through shared buffers
#    (pg_statio_all_tables, and pg_buffercache where the server has it);
#    the TOAST tables pass verify_heapam and pg_check_frozen, their pages
#    are all-frozen in the map, their indexes pass bt_index_check with
#    heapallindexed;
#  - rows whose values the toaster compresses (pglz, or lz4 where the
#    server has it), moves out of line, or both, are stored exactly as a
#    chunk load of the same rows stores them (pg_column_size and
#    pg_column_compression of every value, the TOAST tables' chunks) and
#    read back the same;
#  - a CHECK constraint is enforced row by row: a row in the middle of a
#    leaf, after pages of the leaf went to storage, fails the job with
#    23514 and the leaf stays empty, no file of it left behind;
#  - at wal_level = replica every page goes to WAL (the WAL the load
#    writes is at least 80% of the size of the leaves' heaps: a full-page
#    image leaves out the page's free space), at minimal almost nothing
#    does;
#  - a leaf of more pages than a segment file holds (one row a page,
#    fillfactor 10) is written into two segment files, the first full:
#    every page there, all-visible and all-frozen, the rows exact;
#  - the pages go past the page cache (O_DIRECT) where the filesystem
#    allows it, and check() and status_details() say so: the worker of a
#    leaf held at its commit by a reader shows "O_DIRECT writes";
#  - on a tablespace whose filesystem refuses O_DIRECT (a ramfs that
#    scripts/test.sh mounts, PETAGEN_TEST_NODIRECT, or /dev/shm where it
#    refuses), the pages go through the page cache, check() and
#    status_details() say "buffered: no O_DIRECT", and every leaf holds the
#    same pages as the same load written past the page cache: the same
#    rows at the same TIDs, the same number of pages, the same map;
#  - the stopped cluster passes pg_checksums --check.
# A standby fed by that WAL is TAP 083's.
use strict;
use warnings;
use Fcntl qw(O_WRONLY O_CREAT O_DIRECT);
use File::Path qw(rmtree);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

skip_unless_contrib(qw(pg_visibility amcheck));

# A directory the tests may write whose filesystem refuses O_DIRECT, or
# undef: open(2) fails there with EINVAL.
sub nodirect_dir
{
	foreach my $dir (grep { defined $_ && $_ ne '' } $ENV{PETAGEN_TEST_NODIRECT}, '/dev/shm')
	{
		next unless -d $dir && -w $dir;
		my $probe = "$dir/petagen_odirect_probe_$$";
		my $ok = sysopen(my $fh, $probe, O_WRONLY | O_CREAT | O_DIRECT, 0600);
		my $refused = !$ok && $!{EINVAL};
		close $fh if $ok;
		unlink $probe;
		return $dir if $refused;
	}
	return undef;
}
my $nodirect = nodirect_dir();

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
	toast_unbuffered($node, 'wide', "$wal_level, wide");
	check_load_exact($node, $job, 'wide', $wide_rows, "$wal_level, wide",
		", fieldlength => $wide_length");
	cmp_ok( $node->safe_psql('postgres',
			"SELECT sum(pg_relation_size(c.reltoastrelid)) FROM pg_partition_tree('wide') t"
			  . " JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf"),
		'>', $wide_rows * $wide_length,
		"$wal_level, wide: the long values are in the leaves' TOAST tables");
	pages_sound($node, 'wide', "$wal_level, wide");
	check_toast_pages($node, 'wide', "$wal_level, wide");
	toasted_as_insert($node, $wal_level);

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

	segments($node, $wal_level);
	my $writer = $node->safe_psql('postgres',
		"SELECT finding FROM petagen.check($rows, 2, 'plain', method => 'leaf')"
		  . " WHERE finding LIKE 'leaf method: %O_DIRECT%'");
	is($writer, 'leaf method: O_DIRECT writes, past the page cache',
		"$wal_level: check() says the leaves are written with O_DIRECT");
	$node->safe_psql('postgres', "SELECT petagen.create_table('held')");
	is(writer_shown($node, 'held'), 'O_DIRECT writes',
		"$wal_level: status_details() says the leaf is written with O_DIRECT");

  SKIP:
	{
		skip 'no filesystem here refuses O_DIRECT (scripts/test.sh mounts a ramfs when run as root)', 10
		  unless defined $nodirect;
		fallback($node, $wal_level);
	}

	$node->stop;
	command_ok([ 'pg_checksums', '--check', '-D', $node->data_dir ],
		"$wal_level: pg_checksums --check passes");
}

# No page of the TOAST tables of $table's leaves on $node went through
# shared buffers: to be checked before anything reads them.
sub toast_unbuffered
{
	my ($node, $table, $what) = @_;
	is(toast_blocks_read($node, $table, $what),
		'0', "$what: no page of a TOAST table went through shared buffers");
  SKIP:
	{
		my $buffers = toast_buffers($node, $table);
		skip 'no pg_buffercache', 1 unless defined $buffers;
		is($buffers, '0', "$what: no shared buffer holds a page of a TOAST table");
	}
}

# A new 8-leaf table $table on $node whose rows the toaster treats in
# every way: field0 (3,000 characters, storage EXTENDED) does not compress
# and goes out of line, field1 (storage EXTERNAL) goes out of line
# uncompressed, twice (field0 twice over after its first 400 characters,
# generated: pglz gives up on a value with nothing to compress in its
# first kilobyte) compresses, with lz4 where the server has it, and still
# goes out of line, and main_pad (a default of 16,000 bytes, storage
# MAIN) compresses in line.
sub toasty_table
{
	my ($node, $table, $lz4) = @_;
	my $alter = 'ALTER COLUMN field1 SET STORAGE EXTERNAL, ALTER COLUMN main_pad SET STORAGE MAIN'
	  . ($lz4 ? ', ALTER COLUMN twice SET COMPRESSION lz4' : '');
	$node->safe_psql('postgres', qq{
SELECT petagen.create_table('$table', fields => 2, fieldlength => $wide_length);
ALTER TABLE $table ADD COLUMN twice text
    GENERATED ALWAYS AS (left(field0, 400) || field0 || field0) STORED,
  ADD COLUMN main_pad text DEFAULT repeat('petagen ', 2000);
DO \$\$ DECLARE r record; BEGIN
  FOR r IN SELECT relid FROM pg_partition_tree('$table') LOOP
    EXECUTE format('ALTER TABLE %s $alter', r.relid::regclass);
  END LOOP;
END \$\$;});
}

# The rows of the TOAST tables of $table's leaves on $node: how many, of
# how many values, and each chunk's sequence number and length.
sub toast_chunks
{
	my ($node, $table) = @_;
	my $union = $node->safe_psql('postgres',
		"SELECT string_agg(format('SELECT tableoid, chunk_id, chunk_seq,"
		  . " octet_length(chunk_data) AS len FROM %s', c.reltoastrelid::regclass), ' UNION ALL ')"
		  . " FROM pg_partition_tree('$table') p JOIN pg_class c ON c.oid = p.relid WHERE p.isleaf");
	return $node->safe_psql('postgres',
		"SELECT count(*), count(DISTINCT (tableoid, chunk_id)),"
		  . " md5(string_agg(chunk_seq || ':' || len, ',' ORDER BY chunk_seq, len)) FROM ($union) x");
}

# The rows of toasty_table()'s shape stored by a leaf load on $node as an
# INSERT (a chunk load of the same rows) stores them: every value
# compressed, with the same method, or not, in line or out of line alike
# (pg_column_size, pg_column_compression), the TOAST tables' rows of the
# same number of values, the same chunks, and the rows read back the same.
sub toasted_as_insert
{
	my ($node, $what) = @_;
	my $n = 1000;
	my $lz4 = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression'"
		  . " AND 'lz4' = ANY (enumvals)");
	my %job;
	foreach my $method ('leaf', 'chunk')
	{
		toasty_table($node, "toasty_$method", $lz4);
		$job{$method} = $node->safe_psql('postgres',
			qq{SELECT petagen.start($n, workers => 2, "table" => 'toasty_$method',}
			  . qq{ method => '$method', fieldlength => $wide_length)});
		wait_done($node, $job{$method}, "$what, toasty $method: the job is done", '300s');
	}
	toast_unbuffered($node, 'toasty_leaf', "$what, toasty");
	my $stored = sub {
		my ($t) = @_;
		return join(', ', map { "pg_column_size($t.$_), pg_column_compression($t.$_)" }
			  qw(field0 field1 twice main_pad));
	};
	is( seqscan_psql($node,
			"SELECT count(*) FROM toasty_leaf l FULL JOIN toasty_chunk c USING (ycsb_key)"
			  . " WHERE ROW(" . $stored->('l') . ") IS DISTINCT FROM ROW(" . $stored->('c') . ")"),
		'0', "$what, toasty: every value is stored as an INSERT stores it");
	is( seqscan_psql($node,
			"SELECT count(*) FILTER (WHERE pg_column_compression(twice) = '"
			  . ($lz4 ? 'lz4' : 'pglz') . "'), count(*) FILTER (WHERE"
			  . " pg_column_compression(main_pad) IS NOT NULL), count(*) FILTER (WHERE"
			  . " pg_column_compression(field0) IS NULL) FROM toasty_leaf"),
		"$n|$n|$n", "$what, toasty: the values compress as the columns say");
	my $chunks = toast_chunks($node, 'toasty_leaf');
	like($chunks, qr/^\d+\|@{[3 * $n]}\|[0-9a-f]{32}$/,
		"$what, toasty: three values of each row are in the TOAST tables");
	is($chunks, toast_chunks($node, 'toasty_chunk'),
		"$what, toasty: the TOAST tables hold the chunks an INSERT writes");
	is( seqscan_psql($node,
			"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM toasty_leaf t"),
		seqscan_psql($node,
			"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM toasty_chunk t"),
		"$what, toasty: every value reads back as the chunk load's");
	is( $node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE ok) FROM petagen.verify($job{leaf}::bigint)"),
		'8', "$what, toasty: verify() is ok on every leaf");
	pages_sound($node, 'toasty_leaf', "$what, toasty");
	check_toast_pages($node, 'toasty_leaf', "$what, toasty");
	$node->safe_psql('postgres', 'DROP TABLE toasty_leaf, toasty_chunk');
}

# A leaf of more pages than a segment file holds, on $node: one leaf,
# fillfactor 10 (one canonical row a page), a few thousand rows more than
# a segment's pages.
sub segments
{
	my ($node, $what) = @_;
	my $per_seg = $node->safe_psql('postgres',
		"SELECT pg_size_bytes(current_setting('segment_size'))"
		  . " / current_setting('block_size')::int");
	my $n = $per_seg + 3000;
	my $cols = join('', map { ", field$_ varchar(100)" } 0 .. 9);
	$node->safe_psql('postgres', qq{
CREATE TABLE seg (ycsb_key varchar(64) PRIMARY KEY$cols) PARTITION BY HASH (ycsb_key);
CREATE TABLE seg_0 PARTITION OF seg FOR VALUES WITH (MODULUS 1, REMAINDER 0)
  WITH (fillfactor = 10);});
	my ($job) = leaf_load($node, 'seg', $n);
	is($node->safe_psql('postgres', "SELECT petagen.wait($job, '300s')"),
		'done', "$what, segments: the job is done");
	is( seqscan_psql($node,
			"SELECT count(*), count(DISTINCT (ctid::text::point)[0]) FROM seg"),
		"$n|$n", "$what, segments: $n rows, one a page");
	is( seqscan_psql($node,
			"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM seg t"),
		$node->safe_psql('postgres',
			"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key))"
			  . " FROM petagen.rows(NULL::seg, 0, $n) t"),
		"$what, segments: content equals the generator's");
	is( $node->safe_psql('postgres',
			"SELECT pg_relation_size('seg_0') / current_setting('block_size')::int,"
			  . " (pg_stat_file(pg_relation_filepath('seg_0'))).size"
			  . "   = pg_size_bytes(current_setting('segment_size')),"
			  . " (pg_stat_file(pg_relation_filepath('seg_0') || '.1')).size"
			  . "   / current_setting('block_size')::int,"
			  . " pg_stat_file(pg_relation_filepath('seg_0') || '.2', true) IS NULL"),
		"$n|t|3000|t",
		"$what, segments: the first segment file is full, the second holds the rest");
	is( $node->safe_psql('postgres',
			"SELECT all_visible || '|' || all_frozen FROM pg_visibility_map_summary('seg_0')"),
		"$n|$n", "$what, segments: every page is all-visible and all-frozen");
	is( $node->safe_psql('postgres',
			"SELECT (SELECT count(*) FROM verify_heapam('seg_0')),"
			  . " (SELECT count(*) FROM pg_check_frozen('seg_0')),"
			  . " (SELECT count(*) FROM (SELECT bt_index_check(indexrelid, true)"
			  . "  FROM pg_index WHERE indrelid = 'seg_0'::regclass) c)"),
		'0|0|1', "$what, segments: verify_heapam, pg_check_frozen and bt_index_check pass");
	$node->safe_psql('postgres', 'DROP TABLE seg');
}

# What status_details() says of the one worker of a leaf load of $table
# on $node while it waits to commit its first leaf, held by a reader of the
# table; the load is then let through and checked.
sub writer_shown
{
	my ($node, $table) = @_;
	my $reader = $node->background_psql('postgres');
	$reader->query_safe("BEGIN; SELECT count(*) FROM $table");
	my $job = $node->safe_psql('postgres',
		"SELECT petagen.start($rows, workers => 1, \"table\" => '$table', method => 'leaf')");
	# pg_class, not pg_partition_tree(), which would queue for the leaf's lock
	$node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
		  . " WHERE NOT l.granted AND c.relname LIKE '${table}_p%'")
	  or die "the worker of job $job never waited for a leaf of $table";
	my $shown = $node->safe_psql('postgres',
		"SELECT reason FROM petagen.status_details($job) WHERE worker = 0");
	$reader->query_safe('COMMIT');
	$reader->quit;
	check_load_exact($node, $job, $table, $rows, $table);
	return $shown;
}

# Per leaf of $table on $node, in the order of their names: its size, its
# all-frozen pages and a hash of its rows with their TIDs.
sub leaf_pages
{
	my ($node, $table) = @_;
	return seqscan_psql($node,
		"SELECT string_agg(format('%s %s %s %s', p.ord, pg_relation_size(p.relid),"
		  . " (SELECT all_frozen FROM pg_visibility_map_summary(p.relid)),"
		  . " (SELECT md5(string_agg(ctid::text || ' ' || t::text, ',' ORDER BY ctid))"
		  . "  FROM $table t WHERE t.tableoid = p.relid)), ' ' ORDER BY p.ord)"
		  . " FROM (SELECT relid, row_number() OVER (ORDER BY relid::text) AS ord"
		  . "  FROM pg_partition_tree('$table') WHERE isleaf) p");
}

# The leaf load of the plain table again, on a tablespace whose filesystem
# refuses O_DIRECT, on $node: the page cache's writer, said so, and the
# same pages as past the page cache.
sub fallback
{
	my ($node, $what) = @_;
	my $dir = "$nodirect/petagen_ts_${what}_$$";
	mkdir $dir or die "could not create $dir: $!";
	$node->safe_psql('postgres', "CREATE TABLESPACE nodirect LOCATION '$dir'");
	$node->safe_psql('postgres',
		"SELECT petagen.create_table('slow', tablespaces => ARRAY['nodirect'])");
	is( $node->safe_psql('postgres',
			"SELECT object || ': ' || finding FROM petagen.check($rows, 2, 'slow', method => 'leaf')"
			  . " WHERE finding LIKE 'leaf method: %O_DIRECT%'"),
		'slow_p0: leaf method: buffered: no O_DIRECT for 8 of 8 leaves',
		"$what, no O_DIRECT: check() says the leaves are written through the page cache");
	is(writer_shown($node, 'slow'), 'buffered: no O_DIRECT',
		"$what, no O_DIRECT: status_details() says so while the leaf is written");
	pages_sound($node, 'slow', "$what, no O_DIRECT");
	# The leaves of the same load past the page cache, leaf by leaf.
	my $plain = leaf_pages($node, 'plain');
	like($plain, qr/^(\d+ [1-9]\d* [1-9]\d* [0-9a-f]{32} ?){8}$/,
		"$what, no O_DIRECT: the leaves past the page cache are described");
	is(leaf_pages($node, 'slow'), $plain,
		"$what, no O_DIRECT: each leaf has the pages, TIDs and rows of the same leaf written past the page cache");
	$node->safe_psql('postgres', 'DROP TABLE slow; DROP TABLESPACE nodirect');
	rmtree($dir);
}

run_cases('minimal');
run_cases('replica');

done_testing();
