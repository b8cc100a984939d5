-- Key modes: fixed keys for every mode, and the upstream clients' vectors.
CREATE EXTENSION petagen;

-- Fixed keys at the interesting key numbers, every mode, default options.
SELECT s, petagen.key(s, 'ordered') AS ordered,
       petagen.key(s, 'scrambled') AS scrambled,
       petagen.key(s, 'ycsb') AS ycsb,
       petagen.key(s, 'go-ycsb') AS go_ycsb
FROM unnest(ARRAY[0, 1, 255, 256, 2147483647, 2147483648, 4294967295,
                  4294967296, 9223372036854775806, 9223372036854775807]::bigint[]) s;

-- The default mode is scrambled with prefix user and no padding.
SELECT petagen.key(42) = petagen.key(42, 'scrambled', 'user', 1) AS default_is_scrambled;

-- Zero padding and prefix, YCSB-style: padding counts digits, never truncates.
SELECT petagen.key(42, 'ordered', zeropadding => 8),
       petagen.key(123456789, 'ordered', zeropadding => 4),
       petagen.key(7, 'ordered', prefix => 'k'),
       petagen.key(7, 'ordered', prefix => ''),
       petagen.key(0, 'ycsb', zeropadding => 25),
       petagen.key(0, 'go-ycsb', zeropadding => 25),
       petagen.key(3, 'scrambled', zeropadding => 22);

-- Byte-identical to the Java YCSB client and go-ycsb (vectors computed by
-- running their own code, see test/vectors/NOTES.md): no mismatch.
CREATE TABLE vectors (mode text, zeropadding int, seq bigint, key text);
\copy vectors FROM 'test/vectors/keys.tsv' WITH (FORMAT csv, DELIMITER E'\t', HEADER true)
SELECT mode, count(*) AS vectors,
       count(*) FILTER (WHERE petagen.key(seq,
                                          CASE WHEN mode LIKE 'ordered%' THEN 'ordered' ELSE mode END,
                                          'user', zeropadding) <> key) AS mismatches
FROM vectors GROUP BY mode ORDER BY mode;

-- seq() inverts ordered and scrambled keys, at the edges of the key space.
SELECT s, petagen.seq(petagen.key(s, 'ordered'), 'ordered') = s AS ordered_ok,
       petagen.seq(petagen.key(s, 'scrambled'), 'scrambled') = s AS scrambled_ok,
       petagen.seq(petagen.key(s, 'ordered', 'x', 30), 'ordered', 'x', 30) = s AS padded_ok
FROM unnest(ARRAY[0, 1, 255, 256, 2147483648, 4294967296,
                  9223372036854775806, 9223372036854775807]::bigint[]) s;

-- key() and seq() are strict: NULL in, NULL out.
SELECT petagen.key(NULL) IS NULL AS key_null, petagen.seq(NULL) IS NULL AS seq_null;
