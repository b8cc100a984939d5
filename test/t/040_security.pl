# Security: attacks a hostile member of petagen_operator (mallory, with
# CREATE on schema public, which is in everyone's search_path here) can
# try, each shown to fail.
#  1. The job catalog: every direct write is refused, and a create_sql that
#     is not a CREATE INDEX of its own table is never run, even when it got
#     into job_indexes (as only the catalog owner could now write it).
#  2. search_path: operators and aggregates mallory puts in public never run
#     when the superuser calls start/status/wait/stop/resume/verify/check/
#     bench, nor in its workers.
#  3. Jobs belong to their owner: mallory cannot stop, resume or wait for
#     the superuser's job, and a superuser resuming mallory's job gets
#     workers that run as mallory.
#  4. wait() reports an end only once petagen.jobs has it: the last worker
#     is held on the job's row lock while it records the end.
# Jobs that must stay running for a while are throttled (max_rate => '1kB':
# after its first batch of rows a worker waits for many minutes), so no
# step depends on the machine's speed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use PetagenTest;

my $node = PostgreSQL::Test::Cluster->new('security');
$node->init;
$node->start;
my $su = $node->safe_psql('postgres', 'SELECT current_user');

# A careless default: in database sec everyone's search_path puts public,
# where mallory may create objects, before pg_catalog.
$node->safe_psql('postgres', q{
CREATE DATABASE sec;
ALTER DATABASE sec SET search_path = public, pg_catalog;
});

# Run SQL in sec as $role with a safe search_path (the test's own queries).
sub q_as
{
	my ($role, $sql) = @_;
	return $node->safe_psql('sec', "SET search_path = pg_catalog, pg_temp;\n$sql",
		extra_params => [ '-U', $role ]);
}

# Run SQL in sec as $role with the database's search_path (the attack's
# setting: no aggregate or operator of the traps in it); (rc, stdout, stderr).
sub attack_as
{
	my ($role, $sql) = @_;
	my ($rc, $out, $err) = $node->psql('sec', $sql, extra_params => [ '-U', $role ]);
	return ($rc, $out, $err);
}

# Poll a query (as the superuser, safe search_path) until it returns 't'.
sub poll
{
	my ($sql, $what) = @_;
	foreach (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return if q_as($su, $sql) eq 't';
		usleep(100_000);
	}
	die "timed out waiting for $what";
}

q_as($su, qq{
CREATE EXTENSION petagen;
CREATE ROLE mallory LOGIN IN ROLE petagen_operator;
CREATE ROLE escalate_me NOLOGIN;
GRANT CREATE ON SCHEMA public TO mallory;
SET search_path = public;
SELECT petagen.create_table('su_t');
} . join('', map { ycsb_table_sql("public.$_") } qw(w9 ia_t r_t)));

# Mallory's traps: every one records who ran it in public.trap.
q_as('mallory', q{
CREATE TABLE public.trap (who name, what text);
GRANT INSERT ON public.trap TO PUBLIC;
} . ycsb_table_sql('public.m_t') . q{
CREATE FUNCTION public.trap_eq(a regclass, b oid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.trap VALUES (current_user, 'regclass = oid');
RETURN a::oid OPERATOR(pg_catalog.=) b; END $$;
CREATE OPERATOR public.= (LEFTARG = regclass, RIGHTARG = oid, FUNCTION = public.trap_eq);
CREATE FUNCTION public.trap_eq(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.trap VALUES (current_user, 'text = text');
RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.trap_eq);
CREATE FUNCTION public.trap_ne(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.trap VALUES (current_user, 'text <> text');
RETURN a OPERATOR(pg_catalog.<>) b; END $$;
CREATE OPERATOR public.<> (LEFTARG = text, RIGHTARG = text, FUNCTION = public.trap_ne);
CREATE FUNCTION public.trap_eq(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.trap VALUES (current_user, 'bigint = bigint');
RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE OPERATOR public.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.trap_eq);
CREATE FUNCTION public.trap_sum(s bigint, v bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.trap VALUES (current_user, 'sum(bigint)');
RETURN coalesce(s, 0) OPERATOR(pg_catalog.+) v; END $$;
CREATE AGGREGATE public.sum(bigint) (SFUNC = public.trap_sum, STYPE = bigint);
CREATE FUNCTION public.trap_count(s bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.trap VALUES (current_user, 'count(*)');
RETURN s OPERATOR(pg_catalog.+) 1; END $$;
CREATE AGGREGATE public.count(*) (SFUNC = public.trap_count, STYPE = bigint, INITCOND = '0');
});
# The traps work: an unqualified comparison in a superuser session runs one.
my ($rc) = attack_as($su, q{SELECT 'su_t'::regclass = 'su_t'::regclass::oid});
is(q_as($su, 'SELECT count(*) FROM public.trap'), '1',
	'setup: a trap runs for a superuser who compares a regclass with an oid');
q_as($su, 'TRUNCATE public.trap');

# 2. search_path: the superuser runs every job function in sec.
my $job = q_as($su, q{SELECT petagen.start(2000, workers => 2, "table" => 'public.su_t', chunk_rows => 500)});
($rc, my $out, my $err) = attack_as($su, qq{
SELECT petagen.wait($job);
SELECT state FROM petagen.status($job);
SELECT petagen.stop($job);
SELECT bool_and(ok) FROM petagen.verify('su_t', 2000);
SELECT bool_and(ok) FROM petagen.verify($job);
SELECT 1 FROM (SELECT array_agg(severity) FROM petagen.check(2000, 1, 'su_t')) AS c;
SELECT operations > 0 FROM petagen.bench('select', 1, '1 s', "table" => 'su_t');
});
is($rc, 0, 'the superuser runs start/wait/status/stop/verify/check/bench in sec') or diag($err);
is($out, "done\ndone\ndone\nt\nt\n1\nt", 'with the expected answers');
# resume() of a stopped job, whose workers start with sec's search_path.
my $rjob = q_as($su, q{
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
    prefix, zeropadding, started_by, state)
VALUES ('public.r_t', 300, 2, 100, 'scrambled', 0, 100, 'user', 1, current_user::regrole, 'stopped')
RETURNING job});
($rc, $out, $err) = attack_as($su, qq{SELECT petagen.resume($rjob); SELECT petagen.wait($rjob);});
is($out, "$rjob\ndone", 'the superuser resumes a job in sec') or diag($err);
is(q_as($su, q{SELECT coalesce(string_agg(DISTINCT who || ': ' || what, ', '), 'none') FROM public.trap}),
	'none', 'no operator or aggregate of mallory ran, in the session or the workers');

# 1. The catalog: mallory can read it, and no more.
my $stopped = q_as($su, q{
INSERT INTO petagen.jobs ("table", rows, workers, chunk_rows, keys, seed, fieldlength,
    prefix, zeropadding, started_by, state)
VALUES ('public.ia_t', 100, 1, 100, 'scrambled', 0, 100, 'user', 1, current_user::regrole, 'stopped')
RETURNING job});
foreach my $write (
	"INSERT INTO petagen.job_indexes (job, on_table, index_name, stage, create_sql)"
	  . " VALUES ($job, 'public.su_t', 'x', 0, 'ALTER ROLE escalate_me SUPERUSER')",
	"UPDATE petagen.jobs SET indexes = 'after' WHERE job = $stopped",
	"UPDATE petagen.jobs SET started_by = 'mallory' WHERE job = $stopped",
	"INSERT INTO petagen.chunks VALUES ($stopped, 0, 100, 100, 1, 0, 0, 0, 1)",
	"DELETE FROM petagen.chunk_intents",
	"DELETE FROM petagen.progress_log",
	"INSERT INTO petagen.bench_results (kind, workers, duration, warmup, \"table\", target,"
	  . " target_node, distribution, operations, tps, errors, not_found, started_at)"
	  . " VALUES ('select', 1, '1s', '0s', 't', '{}', 'local', 'uniform', 1, 1, 0, 0, now())")
{
	my ($wrc, $wout, $werr) = attack_as('mallory', "SET search_path = pg_catalog; $write");
	like($werr, qr/permission denied for table/, "mallory may not: $write");
}
is(q_as('mallory', "SELECT state FROM petagen.jobs WHERE job = $stopped"), 'stopped',
	'mallory may read the catalog');

# A create_sql that is not an index of its table never runs, even when it
# got into the catalog (here written by the superuser, the catalog owner).
q_as($su, qq{
UPDATE petagen.jobs SET indexes = 'after' WHERE job = $stopped;
INSERT INTO petagen.job_indexes (job, on_table, index_name, stage, create_sql)
VALUES ($stopped, 'public.ia_t', 'ia_t_pkey', 0, 'ALTER ROLE escalate_me SUPERUSER');
});
is(q_as($su, "SELECT petagen.resume($stopped); SELECT petagen.wait($stopped)"), "$stopped\nfailed",
	'a job whose create_sql is not a CREATE INDEX fails');
like(q_as($su, "SELECT last_error FROM petagen.jobs WHERE job = $stopped"),
	qr/the recorded definition of index "ia_t_pkey" is not an index of table ia_t/,
	'its error says why');
is(q_as($su, q{SELECT rolsuper FROM pg_roles WHERE rolname = 'escalate_me'}), 'f',
	'and the forged statement did not run');

# 3. Jobs belong to their owner.
($rc, $out, $err) = attack_as('mallory', "SELECT petagen.stop($rjob)");
like($err, qr/permission denied for load job $rjob/, 'mallory may not stop the superuser\'s job');
($rc, $out, $err) = attack_as('mallory', "SELECT petagen.resume($stopped)");
like($err, qr/permission denied for load job $stopped/, 'nor resume it');
($rc, $out, $err) = attack_as('mallory', "SELECT petagen.wait($rjob)");
like($err, qr/permission denied for load job $rjob/, 'nor wait for it');

# Mallory's own job, stopped while throttled, resumed by the superuser.
my $mjob = q_as('mallory', q{SELECT petagen.start(100000, workers => 1, "table" => 'public.m_t', max_rate => '1kB')});
is(q_as('mallory', "SELECT petagen.stop($mjob)"), 'stopped', 'mallory stops her own job');
is(q_as($su, "SELECT petagen.resume($mjob)"), $mjob, 'the superuser resumes it');
my $worker_sql = qq{FROM pg_stat_activity a JOIN petagen.status_workers($mjob) s ON s.pid = a.pid
	WHERE s.worker = 0 AND a.backend_type = 'petagen worker'};
poll("SELECT count(*) = 1 $worker_sql", 'the resumed worker');
is(q_as($su, "SELECT a.usename $worker_sql"),
	'mallory', 'its worker runs as mallory, the job\'s owner, not as the superuser');
is(q_as($su, "SELECT petagen.stop($mjob)"), 'stopped', 'the superuser stops it');

# 4. wait() and the catalog.  A throttled job is stopped while a second
# session holds its row lock: the last worker blocks recording the end.
my $wjob = q_as($su, q{SELECT petagen.start(100000, workers => 1, "table" => 'public.w9', max_rate => '1kB')});
my $locker = $node->background_psql('sec');
$locker->query_safe("SET search_path = pg_catalog; BEGIN;"
	  . " SELECT FROM petagen.jobs WHERE job = $wjob FOR NO KEY UPDATE");
my $stopper = $node->background_psql('sec');
$stopper->query_until(qr/stopping/, "\\echo stopping\nSELECT petagen.stop($wjob);\n");
poll(q{SELECT count(*) = 1 FROM pg_stat_activity
       WHERE backend_type = 'petagen worker' AND wait_event_type = 'Lock'},
	'the last worker to block on the job row');
my $waited = q_as($su, "SELECT petagen.wait($wjob, '1 s')");
my $catalog = q_as($su, "SELECT state FROM petagen.jobs WHERE job = $wjob");
is($catalog, 'running', 'while the end is not committed, the catalog says running');
unlike($waited, qr/^(done|failed|stopped)$/,
	"and wait() does not report an end yet (it said $waited)");
$locker->query_safe('COMMIT');
$locker->quit;
$stopper->quit;
is(q_as($su, "SELECT petagen.wait($wjob)"), 'stopped', 'once it is committed, wait() says stopped');
is(q_as($su, "SELECT state FROM petagen.jobs WHERE job = $wjob"), 'stopped',
	'and so does the catalog');

is(q_as($su, q{SELECT coalesce(string_agg(DISTINCT who || ': ' || what, ', '), 'none') FROM public.trap}),
	'none', 'no trap of mallory ever ran');
is(q_as($su, q{SELECT string_agg(rolname, ',') FROM pg_roles WHERE rolsuper AND rolname IN ('mallory', 'escalate_me')}),
	'', 'mallory and escalate_me are not superusers');

$node->stop;
done_testing();
