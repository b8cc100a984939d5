# Helpers shared by petagen's TAP tests.
package PetagenTest;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use Time::HiRes qw(usleep);

our @EXPORT = qw(usertable_sql poll_after_crash);

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
