-- petagen.cluster_start(rows, ...): start() on every node of the table's
-- cluster, with the same arguments; first check() on every node, and no
-- node starts unless all are ready.  Each step reaches every node at once.  Returns the cluster job's id.
CREATE OR REPLACE FUNCTION @extschema@.cluster_start(
    rows numeric,
    workers integer DEFAULT 4,
    "table" regclass DEFAULT 'usertable'::text::regclass,
    keys text DEFAULT 'scrambled',
    seed bigint DEFAULT 0,
    fieldlength integer DEFAULT 100,
    prefix text DEFAULT 'user',
    zeropadding integer DEFAULT 1,
    chunk_rows bigint DEFAULT NULL,
    disk_reserve text DEFAULT NULL,
    max_rate text DEFAULT NULL,
    frozen boolean DEFAULT false,
    indexes text DEFAULT 'maintain',
    force boolean DEFAULT false,
    method text DEFAULT 'auto',
    fieldlengthdistribution text DEFAULT 'constant',
    minfieldlength integer DEFAULT 1,
    first numeric DEFAULT 0)
RETURNS bigint
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tab regclass;
    qualified text;
    args text;
    mine text := (SELECT extversion FROM pg_extension WHERE extname = 'petagen');
    n record;
    r record;
    info json;
    problems text[] := '{}';
    nodes text[];
    jobs bigint[];
    kinds text[];
    hosts text[];
    ports integer[];
    started boolean[];
    failed_node text;
    failed_error text;
BEGIN
    IF "table" IS NULL THEN
        RAISE EXCEPTION 'argument "table" of petagen.cluster_start() must not be null' USING ERRCODE = '22004';
    END IF;
    tab := "table";
    SELECT format('%I.%I', s.nspname, c.relname) INTO qualified
    FROM pg_class AS c JOIN pg_namespace AS s ON s.oid = c.relnamespace WHERE c.oid = tab;
    args := format('%s, workers => %s, "table" => %L, keys => %s, seed => %s, fieldlength => %s,'
                   ' prefix => %s, zeropadding => %s, chunk_rows => %s, disk_reserve => %s,'
                   ' max_rate => %s, frozen => %s, indexes => %s, method => %s,'
                   ' fieldlengthdistribution => %s, minfieldlength => %s, first => %s',
                   quote_nullable(rows), quote_nullable(workers), qualified, quote_nullable(keys),
                   quote_nullable(seed), quote_nullable(fieldlength), quote_nullable(prefix),
                   quote_nullable(zeropadding), quote_nullable(chunk_rows),
                   quote_nullable(disk_reserve), quote_nullable(max_rate), quote_nullable(frozen),
                   quote_nullable(indexes), quote_nullable(method),
                   quote_nullable(fieldlengthdistribution), quote_nullable(minfieldlength),
                   quote_nullable(first));

    SELECT array_agg(c.node ORDER BY c.i), array_agg(c.kind ORDER BY c.i),
           array_agg(c.host ORDER BY c.i), array_agg(c.port ORDER BY c.i)
      INTO nodes, kinds, hosts, ports
      FROM @extschema@._cluster_nodes(tab) WITH ORDINALITY AS c(node, kind, host, port, i);

    -- Every node first: reachable, the same petagen, the role an operator
    -- there, and check() without an error.
    FOR n IN SELECT * FROM @extschema@.nodes(tab) LOOP
        IF NOT n.reachable THEN
            problems := problems || format('node "%s" is unreachable: %s', n.node, n.error);
        ELSIF n.petagen IS NULL THEN
            problems := problems || format('node "%s" has no petagen', n.node);
        ELSIF n.petagen <> mine THEN
            problems := problems || format('node "%s" runs petagen %s, this node %s', n.node, n.petagen, mine);
        ELSIF NOT n.operator THEN
            problems := problems || format('role "%s" is not a member of petagen_operator on node "%s"',
                                           current_user, n.node);
        END IF;
    END LOOP;
    IF cardinality(problems) = 0 THEN
        FOR r IN
            SELECT o.* FROM @extschema@._cluster_run(nodes, kinds, hosts, ports, array_fill(format(
                'SELECT coalesce(pg_catalog.string_agg(c.object || '': '' || c.finding, ''; ''), '''')'
                ' FROM @extschema@.check(%s) AS c WHERE c.severity = ''error''', args),
                ARRAY[cardinality(nodes)])) AS o
        LOOP
            IF NOT r.ok THEN
                problems := problems || format('node "%s": check() failed: %s', r.node, r.error);
            ELSIF r.result <> '' AND NOT coalesce(force, false) THEN
                problems := problems || format('node "%s": check() reports %s', r.node, r.result);
            END IF;
        END LOOP;
    END IF;
    IF cardinality(problems) = 0 AND nodes IS NULL THEN
        RAISE EXCEPTION 'table % has no node to load', tab USING ERRCODE = '55000';
    END IF;
    IF cardinality(problems) > 0 THEN
        RAISE EXCEPTION 'no node started: %', problems[1] USING ERRCODE = '55000',
            DETAIL = array_to_string(problems, E'\n'),
            HINT = 'SELECT * FROM petagen.nodes(''' || qualified || ''') shows every node.';
    END IF;

    -- Then start() on every node at once; if one fails, stop the others.
    SELECT array_agg(o.result::bigint ORDER BY o.i),
           array_agg(o.ok ORDER BY o.i),
           (array_agg(o.node ORDER BY o.i) FILTER (WHERE NOT o.ok))[1],
           (array_agg(o.error ORDER BY o.i) FILTER (WHERE NOT o.ok))[1]
      INTO jobs, started, failed_node, failed_error
      FROM @extschema@._cluster_run(nodes, kinds, hosts, ports, array_fill(
               format('SELECT @extschema@.start(%s, force => %L)', args, force),
               ARRAY[cardinality(nodes)])) WITH ORDINALITY AS o(node, reached, ok, error, result, i);
    IF failed_node IS NOT NULL THEN
        PERFORM @extschema@._cluster_run(nodes, kinds, hosts, ports,
            ARRAY(SELECT CASE WHEN started[i] THEN format('SELECT @extschema@.stop(%s)', jobs[i]) END
                    FROM generate_subscripts(nodes, 1) AS i ORDER BY i));
        RAISE EXCEPTION 'node "%" did not start: %', failed_node, failed_error USING ERRCODE = '55000',
            DETAIL = coalesce((SELECT format('The jobs started on the other nodes were stopped: %s.',
                                             string_agg(format('%s on node "%s"', u.j, u.x), ', '))
                                 FROM unnest(jobs, nodes, started) AS u(j, x, ok) WHERE u.ok
                               HAVING count(*) > 0), 'No other node started a job.');
    END IF;
    RETURN @extschema@._cluster_record(tab, nodes, jobs);
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_start(numeric, integer, regclass, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text, text, integer, numeric) IS
    'start() with the same arguments on every node of the table''s cluster, once every node is reachable, runs this petagen, lets the role run load jobs and check() reports no error there; returns the cluster job id (petagen.cluster_jobs maps it to each node''s job)';
REVOKE ALL ON FUNCTION @extschema@.cluster_start(numeric, integer, regclass, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text, text, integer, numeric) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.cluster_start(numeric, integer, regclass, text, bigint, integer, text, integer, bigint, text, text, boolean, text, boolean, text, text, integer, numeric) TO petagen_operator;
