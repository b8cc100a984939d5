-- pgbench script for the demo: read one row by a random existing key.
\set seq random(0, :rows - 1)
SELECT * FROM usertable WHERE ycsb_key = petagen.key(:seq);
