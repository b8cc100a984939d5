-- petagen.draw(): the key choosers of petagen.bench().  The scrambled
-- zipfian generator gives its most popular 1% of keys the share YCSB's own
-- generator does: 0.2149 (sd 0.0009) for 10,000 items and 200,000 draws,
-- measured with YCSB 0.17.0's ScrambledZipfianGenerator (test/vectors/NOTES.md).
-- Only booleans and counts are printed, so the output is deterministic.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS petagen;
RESET client_min_messages;

-- Zipfian: share of the top 1% of items within 0.01 of YCSB's.
WITH d AS (SELECT petagen.draw('zipfian', 10000, 200000, 42) AS k),
     c AS (SELECT k, count(*) AS n FROM d GROUP BY k),
     top AS (SELECT n FROM c ORDER BY n DESC LIMIT 100)
SELECT abs(sum(n) / 200000.0 - 0.2149) < 0.01 AS top1_share_as_ycsb,
       (SELECT min(k) >= 0 AND max(k) < 10000 FROM d) AS in_range
FROM top;

-- The popular items are scattered, not clustered at 0 (scrambled).
WITH c AS (SELECT k, count(*) AS n FROM petagen.draw('zipfian', 10000, 100000, 1) AS k GROUP BY k)
SELECT (SELECT k FROM c ORDER BY n DESC LIMIT 1) <> 0 AS scattered;

-- A fixed seed gives the same draws; another seed others.
SELECT (SELECT array_agg(k) FROM petagen.draw('zipfian', 1000000, 1000, 7) AS k) =
       (SELECT array_agg(k) FROM petagen.draw('zipfian', 1000000, 1000, 7) AS k) AS same_seed_same_draws,
       (SELECT array_agg(k) FROM petagen.draw('uniform', 1000000, 1000, 7) AS k) <>
       (SELECT array_agg(k) FROM petagen.draw('uniform', 1000000, 1000, 8) AS k) AS other_seed_other_draws;

-- Uniform: every item about as likely; the top 1% hold about 1%.
WITH d AS (SELECT petagen.draw('uniform', 1000, 200000, 3) AS k),
     c AS (SELECT k, count(*) AS n FROM d GROUP BY k)
SELECT count(*) = 1000 AS every_item_drawn,
       min(k) = 0 AND max(k) = 999 AS in_range,
       (SELECT sum(n) FROM (SELECT n FROM c ORDER BY n DESC LIMIT 10) t) / 200000.0 < 0.013 AS flat
FROM c;

-- Latest: the newest item (items - 1) is the most popular, then the one before.
WITH c AS (SELECT k, count(*) AS n FROM petagen.draw('latest', 10000, 100000, 5) AS k GROUP BY k)
SELECT array_agg(k ORDER BY n DESC) FILTER (WHERE k >= 9998) AS newest_first,
       (SELECT k FROM c ORDER BY n DESC LIMIT 1) = 9999 AS newest_most_popular,
       min(k) >= 0 AND max(k) <= 9999 AS in_range
FROM c;

-- Another zipfian constant computes its own zeta: less skew than 0.99.
WITH c AS (SELECT k, count(*) AS n FROM petagen.draw('zipfian', 10000, 100000, 9, 0.5) AS k GROUP BY k)
SELECT (SELECT sum(n) FROM (SELECT n FROM c ORDER BY n DESC LIMIT 100) t) / 100000.0
       BETWEEN 0.011 AND 0.2 AS milder_skew
FROM (SELECT 1) one;

-- One item, and no draws.
SELECT array_agg(DISTINCT k) AS only_item FROM petagen.draw('zipfian', 1, 100) AS k;
SELECT count(*) AS none FROM petagen.draw('uniform', 10, 0);

-- Bad input.
SELECT petagen.draw('pareto', 10, 1);
SELECT petagen.draw('zipfian', 10, 1, 0, 1.0);
SELECT petagen.draw('zipfian', 10, 1, 0, 0);
SELECT petagen.draw('uniform', 0, 1);
SELECT petagen.draw('uniform', 10, -1);
SELECT petagen.draw(NULL, 10, 1);
