-- petagen 0.1 -> 0.2.  Every change to petagen--0.2.sql since 0.1 appears
-- here too, so that ALTER EXTENSION petagen UPDATE gives what a fresh 0.2 has.
\echo Use "ALTER EXTENSION petagen UPDATE TO '0.2'" to load this file. \quit
