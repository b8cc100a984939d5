# Helpers shared by petagen's TAP tests.
package PetagenTest;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(usleep);

our @EXPORT = qw(petagen_node usertable_node wait_done bench_node
  skip_unless_contrib ycsb_table_sql seqscan_psql try_sql error_of set_setting
  set_debug_pause wait_for_debug_pause poll_after_crash check_load_exact
  rows_off_frozen_pages check_leaf_pages check_toast_pages toast_blocks_read
  toast_buffers routing_dir routing_files orphan_files count_within run_bench
  last_integrity_errors bench_with_stall);

# A started node $name: initdb with the options @init, then the
# postgresql.conf lines $conf when given.
sub petagen_node
{
	my ($name, $conf, @init) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(@init);
	$node->append_conf('postgresql.conf', $conf) if defined $conf;
	$node->start;
	return $node;
}

# petagen_node(@_) with the extension and the canonical table usertable of
# petagen.create_table().
sub usertable_node
{
	my $node = petagen_node(@_);
	$node->safe_psql('postgres',
		q{CREATE EXTENSION petagen; SELECT petagen.create_table('usertable');});
	return $node;
}

# Test $name: job $job of $node ends done within $timeout (default 120s).
sub wait_done
{
	my ($node, $job, $name, $timeout) = @_;
	$timeout //= '120s';
	is($node->safe_psql('postgres', "SELECT petagen.wait($job, '$timeout')"), 'done', $name);
}

# The node of the benchmark tests: usertable loaded with $rows rows by two
# workers (test 'load done'), up to 16 worker processes.  Returns the node
# and the load job.
sub bench_node
{
	my ($name, $rows) = @_;
	my $node = usertable_node($name, "max_worker_processes = 16\n");
	my $job = $node->safe_psql('postgres', "SELECT petagen.start($rows, workers => 2)");
	wait_done($node, $job, 'load done');
	return ($node, $job);
}

# Skip the whole test unless this server has the contrib modules @modules
# (the pgserver wheel's PostgreSQL 16 has none of its own: scripts/deps.sh).
sub skip_unless_contrib
{
	my @modules = @_;
	my $probe = PostgreSQL::Test::Cluster->new('contrib_probe');
	my $extdir = $probe->config_data('--sharedir') . '/extension';
	my @missing = grep { !-f "$extdir/$_.control" } @modules;
	plan skip_all => "needs the contrib module(s) @missing, not installed in $extdir"
	  if @missing;
}

# Test tables come from petagen.create_table() (the canonical, hash
# partitioned table) or, when a test needs a plain table of that shape, from
# this: SQL that creates table $name with create_table()'s columns (a
# varchar(64) primary key ycsb_key, $fields (default 1) varchar(100) fields
# field0 ..) and no partitions.  Tables of any other shape are written out
# where they are used, with the reason.
sub ycsb_table_sql
{
	my ($name, $fields) = @_;
	my $cols = join('', map { ", field$_ varchar(100)" } 0 .. ($fields // 1) - 1);
	return "CREATE TABLE $name (ycsb_key varchar(64) PRIMARY KEY$cols);\n";
}

# Run $sql on $node with index scans off, so that the heap itself is read.
sub seqscan_psql
{
	my ($node, $sql) = @_;
	return $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off;"
		  . " SET enable_indexonlyscan = off; $sql");
}

# psql with VERBOSITY verbose: (exit code, stderr) of $sql on $node.
sub try_sql
{
	my ($node, $sql) = @_;
	my ($ret, $stdout, $stderr) =
	  $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	return ($ret, $stderr);
}

# The SQLSTATE and message of the error $sql raises on $node.
sub error_of
{
	my ($node, $sql) = @_;
	my ($rc, $err) = try_sql($node, $sql);
	return $err =~ /ERROR:  (\w{5}: [^\n]*)/ ? $1 : "no error (rc $rc)";
}

# Run petagen.bench($args) on $node as a test that it ran: the columns
# $columns of its petagen.bench_results row joined by |, and what psql
# printed on stderr.
sub run_bench
{
	my ($node, $args, $columns) = @_;
	my ($rc, $stdout, $stderr) = $node->psql('postgres',
		"SELECT id AS bench_run FROM petagen.bench($args) \\gset\n"
		  . "SELECT $columns FROM petagen.bench_results WHERE id = :bench_run");
	is($rc, 0, "bench($args) ran") or diag($stderr);
	return ($stdout, $stderr);
}

# The integrity_errors of the last benchmark run on $node (empty: null).
sub last_integrity_errors
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT integrity_errors FROM petagen.bench_results ORDER BY id DESC LIMIT 1');
}

# Set petagen setting $name (petagen.$name) to $value, spelled as SHOW
# spells it, with ALTER SYSTEM and a reload, and wait until a new session
# sees it: workers see it at their next check.
sub set_setting
{
	my ($node, $name, $value) = @_;
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"LOAD 'petagen'; ALTER SYSTEM SET petagen.$name = '$value';"
		  . " SELECT pg_reload_conf();");
	die "could not set petagen.$name to '$value': $stderr" if $ret != 0;
	$node->poll_query_until('postgres',
		"SELECT coalesce(current_setting('petagen.$name', true), '') = '$value'")
	  or die "petagen.$name = '$value' did not take effect after a reload";
}

# Set petagen.debug_pause (for tests; '' releases every held worker): workers
# started from then on pause where it says, running ones at their next check.
sub set_debug_pause
{
	my ($node, $value) = @_;
	set_setting($node, 'debug_pause', $value);
}

# Wait until $n workers of $job are held by petagen.debug_pause; dies with
# the job's status rows if they are not within the harness timeout.
sub wait_for_debug_pause
{
	my ($node, $job, $n) = @_;
	return
	  if $node->poll_query_until('postgres',
		"SELECT count(*) FROM petagen.status_workers($job)"
		  . " WHERE worker IS NOT NULL AND reason LIKE 'petagen.debug_pause:%'",
		$n);
	die "job $job: not $n workers held by petagen.debug_pause; status():\n"
	  . $node->safe_psql('postgres',
		"SELECT worker, phase, state, done, reason, last_error"
		  . " FROM petagen.status_details($job)");
}

# Poll $query on $node every 0.1 s until it returns $expected: true if it
# did within $seconds, false after.  For deadlines a test asserts ("the
# workers are gone within a few seconds"), where poll_query_until's three
# minutes would hide the defect.
sub count_within
{
	my ($node, $query, $expected, $seconds) = @_;
	foreach (1 .. $seconds * 10)
	{
		return 1 if $node->safe_psql('postgres', $query) eq $expected;
		usleep(100_000);
	}
	return 0;
}

# poll_query_until for a server restarting after a crash: the query goes on
# psql's command line, not its stdin, so a psql that exits at once (the
# server is in recovery) cannot make IPC::Run die of a broken pipe.  True
# once $query on database $db (default postgres) returns $expected, false
# after 180 s.
sub poll_after_crash
{
	my ($node, $query, $expected, $db) = @_;
	foreach (1 .. 1800)
	{
		my ($stdout, $stderr) = ('', '');
		IPC::Run::run([ 'psql', '-XAtq', '-d', $node->connstr($db // 'postgres'), '-c', $query ],
			'>', \$stdout, '2>', \$stderr);
		chomp $stdout;
		return 1 if $stdout eq $expected;
		usleep(100_000);
	}
	return 0;
}

# The checks every exactly-once load job $job of the 8-leaf $table (key
# numbers 0 .. $rows-1, petagen's default row options or those $gen_args
# gives rows(), e.g. ", fieldlength => 4000") must pass once it is done: verify() is ok on every leaf; a sequential scan counts exactly the
# key space, no key twice, the generator's content; and bt_index_check
# (amcheck, created by the test) with heapallindexed passes on every leaf index.
sub check_load_exact
{
	my ($node, $job, $table, $rows, $what, $gen_args) = @_;
	$gen_args //= '';
	is($node->safe_psql('postgres', "SELECT petagen.wait($job, '180s')"),
		'done', "$what: the job is done");
	is( $node->safe_psql('postgres',
			"SELECT count(*), count(*) FILTER (WHERE ok) FROM petagen.verify(${job}::bigint)"),
		'8|8', "$what: verify() is ok on every leaf");
	is(seqscan_psql($node, "SELECT count(*) FROM $table"),
		$rows, "$what: a sequential scan counts exactly the key space");
	is( seqscan_psql($node,
			"SELECT count(*) FROM (SELECT ycsb_key FROM $table GROUP BY 1 HAVING count(*) > 1) d"),
		'0', "$what: no key is there twice");
	is( seqscan_psql($node,
			"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key)) FROM $table t"),
		$node->safe_psql('postgres',
			"SELECT md5(string_agg(md5(t::text), '' ORDER BY ycsb_key))"
			  . " FROM petagen.rows(NULL::$table, 0, $rows$gen_args) t"),
		"$what: content equals the generator's (a plain load's)");
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM (SELECT bt_index_check(i.indexrelid, true)"
			  . " FROM pg_partition_tree('$table') t JOIN pg_index i ON i.indrelid = t.relid"
			  . " WHERE t.isleaf) c"),
		'8', "$what: bt_index_check with heapallindexed passes on every leaf index");
}

# Rows of the leaves of $table on $node on pages that are not all-frozen
# (pg_visibility, created by the test).  Read-only: a hot standby runs it.
sub rows_off_frozen_pages
{
	my ($node, $table) = @_;
	return seqscan_psql($node,
		"SELECT coalesce(sum(r.n), 0) FROM (SELECT tableoid, (ctid::text::point)[0]::bigint AS blkno,"
		  . " count(*) AS n FROM $table GROUP BY 1, 2) r,"
		  . " pg_visibility_map(r.tableoid, r.blkno) m WHERE NOT m.all_frozen");
}

# The checks of the pages of every leaf of $table on $node after a load
# that writes them frozen (amcheck and pg_visibility, created by the test;
# read-only, so a hot standby runs them too): verify_heapam, TOAST
# included, finds nothing; every row is on an all-frozen page;
# pg_check_frozen and pg_check_visible find no tuple the visibility map
# wrongly covers; and the map marks no page all-visible that is not
# all-frozen or lacks PD_ALL_VISIBLE.  (From 16 on heap_multi_insert
# extends a leaf by many pages at once; the ones its last rows did not
# reach stay empty and out of the map, so the map need not cover every
# page.)
sub check_leaf_pages
{
	my ($node, $table, $what) = @_;
	my $leaves = "pg_partition_tree('$table') p";
	is( $node->safe_psql('postgres',
			"SELECT count(*) FROM $leaves, verify_heapam(p.relid, check_toast => true)"
			  . " WHERE p.isleaf"),
		'0', "$what: verify_heapam finds no corruption in any leaf");
	is(rows_off_frozen_pages($node, $table), '0', "$what: every row is on an all-frozen page");
	is( $node->safe_psql('postgres',
			"SELECT (SELECT count(*) FROM $leaves, pg_check_frozen(p.relid) WHERE p.isleaf),"
			  . " (SELECT count(*) FROM $leaves, pg_check_visible(p.relid) WHERE p.isleaf)"),
		'0|0', "$what: pg_check_frozen and pg_check_visible find no tuple");
	is( $node->safe_psql('postgres',
			"SELECT count(*) FILTER (WHERE v.all_visible AND NOT (v.all_frozen AND v.pd_all_visible)),"
			  . " count(*) FILTER (WHERE v.all_frozen) > 0"
			  . " FROM $leaves, pg_visibility(p.relid) v WHERE p.isleaf"),
		'0|t', "$what: every all-visible page of the map is all-frozen and PD_ALL_VISIBLE");
}

# The checks of the TOAST tables of the leaves of $table on $node after a
# leaf load that stored values of every leaf there (amcheck and
# pg_visibility, created by the test; read-only, so a hot standby runs
# them too): verify_heapam finds nothing in any of them, pg_check_frozen
# no tuple, every page is all-visible and all-frozen in the visibility map,
# and each TOAST index passes bt_index_check with heapallindexed.
sub check_toast_pages
{
	my ($node, $table, $what) = @_;
	my $toast = "WITH t AS MATERIALIZED (SELECT c.reltoastrelid AS oid,"
	  . " pg_relation_size(c.reltoastrelid) / current_setting('block_size')::int AS blocks"
	  . " FROM pg_partition_tree('$table') p JOIN pg_class c ON c.oid = p.relid"
	  . " WHERE p.isleaf) ";
	is( $node->safe_psql('postgres',
			"$toast SELECT (SELECT count(*) FROM t, verify_heapam(t.oid)),"
			  . " (SELECT count(*) FROM t, pg_check_frozen(t.oid)),"
			  . " (SELECT count(*) FROM t, pg_visibility_map_summary(t.oid) s WHERE NOT"
			  . "  (t.blocks > 0 AND s.all_visible = t.blocks AND s.all_frozen = t.blocks)),"
			  . " (SELECT count(*) FROM (SELECT bt_index_check(i.indexrelid, true)"
			  . "  FROM t JOIN pg_index i ON i.indrelid = t.oid) c)"),
		'0|0|0|8',
		"$what: every leaf's TOAST table is sound, all-frozen, and its index complete");
}

# Blocks of the main forks of the TOAST tables of $table's leaves on $node
# read or found in shared buffers, once the statistics of the workers that
# stored values in each of them are in (their inserts are counted): what
# pg_statio_all_tables counts beyond the pages of their visibility maps,
# which index_build() reads on some majors (index_update_stats()).
sub toast_blocks_read
{
	my ($node, $table, $what) = @_;
	my $toast = "FROM pg_partition_tree('$table') p JOIN pg_class c ON c.oid = p.relid"
	  . " JOIN %s s ON s.relid = c.reltoastrelid WHERE p.isleaf";
	ok( $node->poll_query_until('postgres',
			'SELECT bool_and(n_tup_ins > 0) ' . sprintf($toast, 'pg_stat_all_tables')),
		"$what: the workers' statistics count the rows of every TOAST table");
	return $node->safe_psql('postgres',
		'SELECT sum(greatest(heap_blks_read + heap_blks_hit'
		  . " - pg_relation_size(c.reltoastrelid, 'vm') / current_setting('block_size')::int, 0)) "
		  . sprintf($toast, 'pg_statio_all_tables'));
}

# Shared buffers holding a page of the main fork of the TOAST table of a
# leaf of $table on $node, or undef where the server has no pg_buffercache
# (created here if it has).
sub toast_buffers
{
	my ($node, $table) = @_;
	return undef
	  unless $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_buffercache'");
	$node->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS pg_buffercache');
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_buffercache b JOIN pg_class c"
		  . " ON b.relfilenode = pg_relation_filenode(c.reltoastrelid)"
		  . " JOIN pg_partition_tree('$table') p ON p.relid = c.oid"
		  . " WHERE p.isleaf AND b.relforknumber = 0"
		  . " AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())");
}

# The routing directory of leaf job $job in database $db (default
# postgres) of $node, relative to the data directory:
# pg_petagen/<database oid>/<route token in hex>.
sub routing_dir
{
	my ($node, $job, $db) = @_;
	return $node->safe_psql($db // 'postgres',
		"SELECT format('pg_petagen/%s/%s', d.oid, lpad(to_hex(j.route_token), 16, '0'))"
		  . " FROM petagen.jobs j, pg_database d"
		  . " WHERE j.job = $job AND d.datname = current_database()");
}

# The number of range files in the routing directory of leaf job $job in
# database $db (default postgres) of $node; 0 without the directory.
sub routing_files
{
	my ($node, $job, $db) = @_;
	my $dir = routing_dir($node, $job, $db);
	return $node->safe_psql($db // 'postgres',
		"SELECT count(*) FROM pg_ls_dir('$dir', true, false) f WHERE f LIKE 'range.%'");
}

# Files of database $db (default postgres) of $node that no relation uses
# (after a checkpoint, which removes the names of dropped files): what a
# crash leaves of the leaves in flight.
sub orphan_files
{
	my ($node, $db) = @_;
	return $node->safe_psql($db // 'postgres', q{CHECKPOINT;
		SELECT count(*) FROM pg_ls_dir('base/' || (SELECT oid FROM pg_database
		  WHERE datname = current_database())) f
		WHERE f ~ '^\d+$' AND pg_filenode_relation(0, f::oid) IS NULL});
}

# Run petagen.bench($args) on table usertable of $node while the test holds
# a lock on every row of it (FOR UPDATE: the workers prepare their plans,
# then each update waits), from before the run until $stall_s seconds
# after $workers benchmark workers were seen waiting for it; the run's id.
# Only the stall's length is timed, and it is a lower bound.
sub bench_with_stall
{
	my ($node, $args, $workers, $stall_s) = @_;
	my $locker = $node->background_psql('postgres');
	my $bench = $node->background_psql('postgres');

	$locker->query_safe(
		'BEGIN; SELECT count(*) FROM (SELECT 1 FROM usertable FOR UPDATE) AS locked');
	$bench->query_until(qr/started/,
		"\\echo started\nSELECT id FROM petagen.bench($args);\n");
	$node->poll_query_until(
		'postgres', q{SELECT count(*) FROM pg_stat_activity
  WHERE backend_type = 'petagen bench worker' AND wait_event_type = 'Lock'}, $workers)
	  or die "bench($args): not $workers workers waiting for the rows";
	$node->safe_psql('postgres', "SELECT pg_sleep($stall_s)");
	$locker->query_safe('COMMIT');
	$locker->quit;
	$bench->quit;
	return $node->safe_psql('postgres', 'SELECT max(id) FROM petagen.bench_results');
}

1;
