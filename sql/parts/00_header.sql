/* petagen--0.2.sql: YCSB-shaped data generated inside the server. */

\echo Use "CREATE EXTENSION petagen" to load this file. \quit
