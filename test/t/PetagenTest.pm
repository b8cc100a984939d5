# Helpers shared by petagen's TAP tests.
package PetagenTest;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(usertable_sql);

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

1;
