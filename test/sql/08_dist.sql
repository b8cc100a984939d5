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

-- Hotspot (YCSB's HotspotIntegerGenerator): hotspotopnfraction of the draws
-- fall in the first hotspotdatafraction of the items, within 0.02; the hot
-- and the cold set are each drawn uniformly.
WITH d AS (SELECT petagen.draw('hotspot', 10000, 200000, 11) AS k)
SELECT abs(count(*) FILTER (WHERE k < 2000) / 200000.0 - 0.8) < 0.02 AS hot_share_default,
       min(k) = 0 AND max(k) = 9999 AS in_range,
       count(DISTINCT k) FILTER (WHERE k < 2000) = 2000 AS every_hot_item_drawn
FROM d;
WITH d AS (SELECT petagen.draw('hotspot', 10000, 200000, 12, hotspotdatafraction => 0.1,
                               hotspotopnfraction => 0.5) AS k)
SELECT abs(count(*) FILTER (WHERE k < 1000) / 200000.0 - 0.5) < 0.02 AS hot_share_given,
       abs(count(*) FILTER (WHERE k BETWEEN 1000 AND 5499) / 200000.0 - 0.25) < 0.02 AS cold_uniform
FROM d;
-- No hot items, or only hot ones: never a division by zero (YCSB's would be).
SELECT min(k) AS no_hot_set_min, (SELECT max(k) FROM petagen.draw('hotspot', 10, 1000, 1, hotspotdatafraction => 1) AS k) AS all_hot_max
FROM petagen.draw('hotspot', 10, 1000, 1, hotspotdatafraction => 0) AS k;

-- Sequential (YCSB's SequentialGenerator): 0, 1, ..., items-1, then it wraps.
SELECT array_agg(k) AS wraps FROM petagen.draw('sequential', 5, 12) AS k;

-- Exponential (CoreWorkload's ExponentialGenerator use): newest key number
-- minus an exponential draw, drawn again below 0.  exponentialpercentile %
-- of the draws fall in the newest items * exponentialfrac key numbers,
-- within 0.01; with the default frac, conditioned on not being drawn again
-- as YCSB's retry loop does: 0.95 / (1 - 0.05^(9999 / 8571.43)).
WITH d AS (SELECT petagen.draw('exponential', 10000, 200000, 13, exponentialfrac => 0.1) AS k)
SELECT abs(count(*) FILTER (WHERE k > 8999) / 200000.0 - 0.95) < 0.01 AS percentile_share,
       min(k) >= 0 AND max(k) = 9999 AS in_range
FROM d;
WITH d AS (SELECT petagen.draw('exponential', 10000, 200000, 14) AS k)
SELECT abs(count(*) FILTER (WHERE k > 9999 - 8571.428571) / 200000.0
           - 0.95 / (1 - 0.05 ^ (9999 / 8571.428571))) < 0.01 AS default_percentile_share
FROM d;
WITH d AS (SELECT petagen.draw('exponential', 10000, 200000, 15, exponentialpercentile => 50,
                               exponentialfrac => 0.01) AS k)
SELECT abs(count(*) FILTER (WHERE k > 9899) / 200000.0 - 0.5) < 0.01 AS median_share
FROM d;

-- Bad input.
SELECT petagen.draw('pareto', 10, 1);
SELECT petagen.draw('hotspot', 10, 1, hotspotdatafraction => 1.5);
SELECT petagen.draw('hotspot', 10, 1, hotspotopnfraction => -1);
SELECT petagen.draw('exponential', 10, 1, exponentialpercentile => 0);
SELECT petagen.draw('exponential', 10, 1, exponentialfrac => 2);
SELECT petagen.draw('hotspot', 10, 1, hotspotdatafraction => NULL);
SELECT petagen.draw('zipfian', 10, 1, 0, 1.0);
SELECT petagen.draw('zipfian', 10, 1, 0, 0);
SELECT petagen.draw('uniform', 0, 1);
SELECT petagen.draw('uniform', 10, -1);
SELECT petagen.draw(NULL, 10, 1);
