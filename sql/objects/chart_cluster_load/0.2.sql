-- petagen.chart_cluster_load(cluster_job): every node's load rate and rows
-- written over the time since the cluster job started, one line per node,
-- so that a node loading slower than the others shows at a glance.  Each
-- node's history is its own job's load_rates() (its progress_log), from 0
-- when the job was started to the live rate now if it loads (a node too
-- slow to have committed its first chunk has no progress_log row yet), read
-- on the node through _on_node(); a node that cannot be reached (or whose
-- job is gone) is named in the subtitle and left out.
CREATE OR REPLACE FUNCTION @extschema@.chart_cluster_load(cluster_job bigint)
RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tab text;
    origin double precision;
    span double precision;
    unit text;
    div double precision;
    hist jsonb;
    nodes bigint;
    missing text;
    s text[];
    ts double precision[];
    rps double precision[];
    total double precision[];
BEGIN
    -- every node's load_rates() as [[epoch, rows/s, rows written], ...], or null
    SELECT jsonb_object_agg(m.node, CASE WHEN x.ok THEN x.result::jsonb END), count(*)
      INTO hist, nodes
      FROM @extschema@._cluster_members(cluster_job, 'petagen.chart_cluster_load()', false) AS m,
           LATERAL @extschema@._on_node(m.node, m.kind, m.host, m.port, format(
               'SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_array(p.t, p.r, p.w) ORDER BY p.t),'
               ' ''[]'')::text FROM ('
               ' SELECT extract(epoch FROM j.created_at) AS t, 0::float8 AS r, 0::float8 AS w'
               ' FROM @extschema@.jobs AS j WHERE j.job = %1$s'
               ' UNION ALL SELECT extract(epoch FROM r.logged_at), r.rows_per_s, r.rows_written'
               ' FROM @extschema@.load_rates(%1$s) AS r'
               ' UNION ALL SELECT extract(epoch FROM pg_catalog.now()), d.rows_per_s, d.rows_written'
               ' FROM @extschema@.status_details(%1$s) AS d WHERE d.worker IS NULL AND d.phase = ''loading'''
               ' AND d.state IN (''running'', ''throttled'', ''paused'')) AS p',
               m.job)) AS x;
    SELECT c."table"::text, extract(epoch FROM min(c.created_at) OVER ())
      INTO tab, origin
      FROM @extschema@.cluster_jobs AS c
     WHERE c.cluster_job = chart_cluster_load.cluster_job LIMIT 1;
    SELECT string_agg(e.key, ', ' ORDER BY e.key) INTO missing
      FROM jsonb_each(hist) AS e WHERE jsonb_typeof(e.value) <> 'array';
    SELECT array_agg(e.key ORDER BY e.key, p.o), array_agg((p.v->>0)::float8 - origin ORDER BY e.key, p.o),
           array_agg((p.v->>1)::float8 ORDER BY e.key, p.o), array_agg((p.v->>2)::float8 ORDER BY e.key, p.o)
      INTO s, ts, rps, total
      FROM jsonb_each(hist) AS e,
           LATERAL jsonb_array_elements(e.value) WITH ORDINALITY AS p(v, o)
     WHERE jsonb_typeof(e.value) = 'array';
    span := (SELECT max(t) FROM unnest(ts) AS t);
    IF span IS NULL THEN
        RAISE EXCEPTION 'cluster job % has no progress_log rows on any node yet', cluster_job
            USING ERRCODE = '55000',
            HINT = 'A node''s first progress_log rows appear when its first chunk commits, a leaf job''s when it starts routing: try again in a moment.';
    END IF;
    SELECT u, d INTO unit, div
      FROM (VALUES ('h', 3600.0, 7200.0), ('min', 60.0, 120.0), ('s', 1.0, 0.0)) AS v(u, d, above)
     WHERE span >= above ORDER BY above DESC LIMIT 1;
    ts := ARRAY(SELECT t / div FROM unnest(ts) WITH ORDINALITY AS u(t, o) ORDER BY o);
    RETURN @extschema@._svg_document(format('Cluster job %s: load rate per node', cluster_job),
        format('%s on %s nodes%s', tab, nodes, coalesce('; no history from ' || missing, '')),
        @extschema@._svg_panel(90, 56, 560, 180, NULL, 'rows/s', s, ts, rps, xmin => 0, ymin => 0)
        || @extschema@._svg_panel(90, 280, 560, 140, format('time since the cluster job started (%s)', unit),
                                 'rows written', s, ts, total, xmin => 0, ymin => 0));
END
$$;
COMMENT ON FUNCTION @extschema@.chart_cluster_load(bigint) IS
    'an SVG chart of a cluster job: each node''s rows/s and rows written over time, one line per node';
REVOKE ALL ON FUNCTION @extschema@.chart_cluster_load(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.chart_cluster_load(bigint) TO pg_monitor, petagen_operator;
