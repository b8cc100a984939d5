# Extension versioning: petagen 0.1 (the released script) with data in its
# tables, upgraded by ALTER EXTENSION petagen UPDATE, equals a fresh install
# of the default version on a second node, object for object (functions with
# their whole definitions, tables, columns, constraints, indexes, grants,
# comments, event triggers, roles and memberships, ...), and keeps its data.
# The comparison is generic: it reads the catalogs, names no petagen object,
# so every later change to the scripts is held to it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

# Every object of the extension and of its schema, one sorted line each.
my $catalog_sql = q{
WITH ext AS (SELECT oid, extnamespace FROM pg_extension WHERE extname = 'petagen'),
members AS (
    SELECT d.classid, d.objid FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid
      AND d.deptype = 'e'),
rels AS (SELECT c.* FROM pg_class c, ext WHERE c.relnamespace = ext.extnamespace),
roles AS (SELECT * FROM pg_roles WHERE rolname !~ '^pg_' AND oid <> 10)
SELECT l FROM (
    SELECT format('extension %s %s schema %s relocatable %s', e.extname, e.extversion,
                  e.extnamespace::regnamespace, e.extrelocatable)
    FROM pg_extension e WHERE e.extname = 'petagen'
    UNION ALL
    SELECT format('config dump %s where %L', c::regclass, w)
    FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS u(c, w)
    WHERE e.extname = 'petagen'
    UNION ALL
    SELECT format('schema %s owner %s acl %s comment %L', n.nspname, n.nspowner::regrole,
                  n.nspacl, obj_description(n.oid, 'pg_namespace'))
    FROM pg_namespace n, ext WHERE n.oid = ext.extnamespace
    UNION ALL
    SELECT format('member %s %s comment %L', i.type, i.identity, d.description)
    FROM members m
    CROSS JOIN LATERAL pg_identify_object(m.classid, m.objid, 0) AS i
    LEFT JOIN pg_description d
        ON d.classoid = m.classid AND d.objoid = m.objid AND d.objsubid = 0
    UNION ALL
    -- A NULL ACL is the owner's default privileges, which a REVOKE writes out:
    -- ACLs are compared as what they grant.
    SELECT format('function %s owner %s acl %s%s', p.oid::regprocedure, p.proowner::regrole,
                  coalesce(p.proacl, acldefault('f', p.proowner)), E'\n' || CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END)
    FROM pg_proc p, ext WHERE p.pronamespace = ext.extnamespace
    UNION ALL
    SELECT format('relation %s kind %s owner %s persistence %s acl %s options %s rls %s/%s comment %L',
                  c.oid::regclass, c.relkind, c.relowner::regrole, c.relpersistence,
                  coalesce(c.relacl, acldefault((CASE WHEN c.relkind = 'S' THEN 's' ELSE 'r' END)::"char", c.relowner)),
                  c.reloptions, c.relrowsecurity, c.relforcerowsecurity,
                  obj_description(c.oid, 'pg_class'))
    FROM rels c
    UNION ALL
    SELECT format('column %s #%s %s %s not null %s default %s identity %L generated %L acl %s comment %L',
                  a.attrelid::regclass,
                  row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum),
                  a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                  pg_get_expr(ad.adbin, ad.adrelid), a.attidentity, a.attgenerated, a.attacl,
                  col_description(a.attrelid, a.attnum))
    FROM rels c JOIN pg_attribute a ON a.attrelid = c.oid
    LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
    WHERE a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT format('constraint %s on %s%s: %s deferrable %s/%s', co.conname,
                  co.conrelid::regclass, co.contypid::regtype, pg_get_constraintdef(co.oid),
                  co.condeferrable, co.condeferred)
    FROM pg_constraint co, ext WHERE co.connamespace = ext.extnamespace
    UNION ALL
    SELECT format('index %s', pg_get_indexdef(c.oid)) FROM rels c WHERE c.relkind IN ('i', 'I')
    UNION ALL
    SELECT format('sequence %s type %s start %s increment %s min %s max %s cache %s cycle %s',
                  s.seqrelid::regclass, s.seqtypid::regtype, s.seqstart, s.seqincrement,
                  s.seqmin, s.seqmax, s.seqcache, s.seqcycle)
    FROM pg_sequence s JOIN rels c ON c.oid = s.seqrelid
    UNION ALL
    SELECT format('view %s: %s', c.oid::regclass, pg_get_viewdef(c.oid))
    FROM rels c WHERE c.relkind IN ('v', 'm')
    UNION ALL
    SELECT format('trigger %s enabled %s', pg_get_triggerdef(t.oid), t.tgenabled)
    FROM pg_trigger t JOIN rels c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal
    UNION ALL
    SELECT format('policy %s on %s cmd %s permissive %s roles %s using %s check %s',
                  p.polname, p.polrelid::regclass, p.polcmd, p.polpermissive,
                  p.polroles::regrole[], pg_get_expr(p.polqual, p.polrelid),
                  pg_get_expr(p.polwithcheck, p.polrelid))
    FROM pg_policy p JOIN rels c ON c.oid = p.polrelid
    UNION ALL
    SELECT format('type %s kind %s base %s not null %s default %L acl %s labels %s',
                  t.oid::regtype, t.typtype, t.typbasetype::regtype, t.typnotnull,
                  t.typdefault, t.typacl,
                  (SELECT string_agg(enumlabel, ',' ORDER BY enumsortorder)
                   FROM pg_enum WHERE enumtypid = t.oid))
    FROM pg_type t, ext WHERE t.typnamespace = ext.extnamespace
    UNION ALL
    SELECT format('event trigger %s on %s function %s enabled %s tags %s', t.evtname,
                  t.evtevent, t.evtfoid::regprocedure, t.evtenabled, t.evttags)
    FROM pg_event_trigger t JOIN members m
        ON m.classid = 'pg_event_trigger'::regclass AND m.objid = t.oid
    UNION ALL
    SELECT format('default acl for %s in %s on %s: %s', d.defaclrole::regrole,
                  d.defaclnamespace::regnamespace, d.defaclobjtype, d.defaclacl)
    FROM pg_default_acl d
    UNION ALL
    SELECT format('role %s super %s inherit %s createrole %s createdb %s login %s replication %s bypassrls %s connlimit %s config %s',
                  r.rolname, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb,
                  r.rolcanlogin, r.rolreplication, r.rolbypassrls, r.rolconnlimit, r.rolconfig)
    FROM roles r
    UNION ALL
    SELECT format('membership %s in %s admin %s', m.member::regrole, m.roleid::regrole,
                  m.admin_option)
    FROM pg_auth_members m
    WHERE m.member IN (SELECT oid FROM roles) OR m.roleid IN (SELECT oid FROM roles)
) AS x(l)
ORDER BY l COLLATE "C"
};

# The catalog of $node's database postgres, as a list of lines.
sub catalog
{
	my ($node) = @_;
	return split /\n/, $node->safe_psql('postgres', $catalog_sql);
}

# Lines of the first list missing from the second.
sub missing_from
{
	my ($have, $want) = @_;
	my %seen = map { $_ => 1 } @$want;
	return grep { !$seen{$_} } @$have;
}

# Every row of each of the extension's tables, in columns given by the hash
# $cols (table => column list), sorted; without $cols, the columns as now.
sub table_data
{
	my ($node, $cols) = @_;
	my @tables = split /\n/, $node->safe_psql(
		'postgres', q{
SELECT c.oid::regclass || ' ' || string_agg(quote_ident(a.attname), ',' ORDER BY a.attnum)
FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.classid = 'pg_class'::regclass AND c.relkind IN ('r', 'p')
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'petagen')
GROUP BY c.oid});
	my (%data, %columns);
	foreach (@tables)
	{
		my ($table, $list) = split / /;
		next if $cols && !exists $cols->{$table};    # new in the update
		$list = $cols->{$table} if $cols;
		$columns{$table} = $list;
		$data{$table} = $node->safe_psql('postgres', qq{
SELECT count(*) || E'\n' || coalesce(string_agg(r, E'\n' ORDER BY r COLLATE "C"), '')
FROM (SELECT ROW($list)::text AS r FROM $table) AS t});
	}
	return (\%data, \%columns);
}

my $fresh = PostgreSQL::Test::Cluster->new('fresh');
$fresh->init;
$fresh->start;
$fresh->safe_psql('postgres', 'CREATE EXTENSION petagen');
my $default_version = $fresh->safe_psql('postgres',
	q{SELECT extversion FROM pg_extension WHERE extname = 'petagen'});

my $old = PostgreSQL::Test::Cluster->new('upgraded');
$old->init;
$old->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$old->start;
$old->safe_psql('postgres', "CREATE EXTENSION petagen VERSION '0.1'");
is($old->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'petagen'}),
	'0.1', 'the released 0.1 installs');
isnt($default_version, '0.1', "the default version is $default_version");

# Data in 0.1's tables: a small load job and a benchmark run.
$old->safe_psql('postgres', q{SELECT petagen.create_table('usertable')});
my $job = $old->safe_psql('postgres', 'SELECT petagen.start(5000, workers => 2, chunk_rows => 1000)');
wait_done($old, $job, '0.1: a load job ran', '120 s');
is( $old->safe_psql(
		'postgres', q{SELECT count(*) FROM petagen.bench('select', workers => 1, duration => '1 s')}),
	1, '0.1: a benchmark run ran');
my ($before, $columns) = table_data($old);
my $row_lines = 0;
$row_lines += (split /\n/)[0] foreach values %$before;
cmp_ok($row_lines, '>=', 7, "0.1: $row_lines rows in the extension's tables (job, chunks, bench run)");

$old->safe_psql('postgres', 'ALTER EXTENSION petagen UPDATE');
my @upgraded = catalog($old);
my @installed = catalog($fresh);
cmp_ok(scalar @installed, '>', 50, scalar(@installed) . ' catalog lines to compare');
my @extra = missing_from(\@upgraded, \@installed);
my @lacking = missing_from(\@installed, \@upgraded);
is(scalar(@extra) + scalar(@lacking), 0,
	"0.1 + ALTER EXTENSION UPDATE has the catalog of a fresh $default_version")
  or diag(join("\n", (map { "only after the update: $_" } @extra),
		(map { "only in a fresh install: $_" } @lacking)));

my ($after) = table_data($old, $columns);
is_deeply($after, $before, 'the update kept every row of every table');

# The comparison sees a change: one function altered on the upgraded node.
$old->safe_psql('postgres', q{
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION %s SET work_mem = ''1MB''',
        (SELECT min(p.oid::regprocedure::text) FROM pg_proc p
         WHERE p.pronamespace = 'petagen'::regnamespace AND p.prokind = 'f'));
END
$$});
isnt(scalar(missing_from([ catalog($old) ], \@installed)), 0,
	'a function changed after the update is a difference');

# The upgraded extension works: another load, into another table.
$old->safe_psql('postgres', q{SELECT petagen.create_table('second')});
$job = $old->safe_psql('postgres', q{SELECT petagen.start(1000, workers => 1, "table" => 'second')});
wait_done($old, $job, 'after the update a load job runs', '120 s');

$old->stop;
$fresh->stop;
done_testing();
