-- The scrambled mode is a bijection: five million distinct keys, each inverted.
SELECT count(DISTINCT k) AS distinct_keys,
       count(*) FILTER (WHERE petagen.seq(k) <> s) AS not_inverted
FROM (SELECT s, petagen.key(s, keys => 'scrambled') k
      FROM generate_series(0, 4999999) s) x;

-- It does not look ordered: neighbours land far apart.
SELECT count(*) FILTER (WHERE petagen.key(s) < petagen.key(s + 1)) BETWEEN 400 AND 600 AS unordered
FROM generate_series(0, 999) s;
