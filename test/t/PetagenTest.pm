# Helpers shared by petagen's TAP tests.
package PetagenTest;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use Time::HiRes qw(usleep);

our @EXPORT = qw(usertable_sql set_debug_pause wait_for_debug_pause poll_after_crash);

# SQL that creates the canonical YCSB table $name: varchar(64) primary key,
# ten varchar(100) fields, hash-partitioned into 8 leaves ${name}_0 .. _7.
sub usertable_sql
{
	my ($name) = @_;
	return qq{
CREATE TABLE $name (ycsb_key varchar(64) PRIMARY KEY,
    field0 varchar(100), field1 varchar(100), field2 varchar(100),
    field3 varchar(100), field4 varchar(100), field5 varchar(100),
    field6 varchar(100), field7 varchar(100), field8 varchar(100),
    field9 varchar(100)) PARTITION BY HASH (ycsb_key);
DO \$\$
BEGIN
    FOR i IN 0..7 LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF $name'
                       ' FOR VALUES WITH (MODULUS 8, REMAINDER %s)', '${name}_' || i, i);
    END LOOP;
END
\$\$;
};
}

# Set petagen.debug_pause (for tests; '' releases every held worker) with
# ALTER SYSTEM and a reload, and wait until a new session sees it: workers
# started from then on pause where it says, running ones at their next check.
sub set_debug_pause
{
	my ($node, $value) = @_;
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"LOAD 'petagen'; ALTER SYSTEM SET petagen.debug_pause = '$value';"
		  . " SELECT pg_reload_conf();");
	die "could not set petagen.debug_pause to '$value': $stderr" if $ret != 0;
	$node->poll_query_until('postgres',
		"SELECT coalesce(current_setting('petagen.debug_pause', true), '') = '$value'")
	  or die "petagen.debug_pause = '$value' did not take effect after a reload";
}

# Wait until $n workers of $job are held by petagen.debug_pause; dies with
# the job's status rows if they are not within the harness timeout.
sub wait_for_debug_pause
{
	my ($node, $job, $n) = @_;
	return
	  if $node->poll_query_until('postgres',
		"SELECT count(*) FROM petagen.status($job)"
		  . " WHERE worker IS NOT NULL AND reason LIKE 'petagen.debug_pause:%'",
		$n);
	die "job $job: not $n workers held by petagen.debug_pause; status():\n"
	  . $node->safe_psql('postgres',
		"SELECT worker, state, keys_done, reason, last_error FROM petagen.status($job)");
}

# poll_query_until for a server restarting after a crash: the query goes on
# psql's command line, not its stdin, so a psql that exits at once (the
# server is in recovery) cannot make IPC::Run die of a broken pipe.  True
# once $query on database postgres returns $expected, false after 180 s.
sub poll_after_crash
{
	my ($node, $query, $expected) = @_;
	foreach (1 .. 1800)
	{
		my ($stdout, $stderr) = ('', '');
		IPC::Run::run([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', $query ],
			'>', \$stdout, '2>', \$stderr);
		chomp $stdout;
		return 1 if $stdout eq $expected;
		usleep(100_000);
	}
	return 0;
}

1;
