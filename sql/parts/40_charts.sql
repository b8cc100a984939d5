
-- Pictures ----------------------------------------------------------------
-- Charts are standalone SVG documents, 800 x 480 and ASCII only, drawn from
-- petagen.bench_results and petagen.progress_log.  The chart_* functions only
-- gather data; all SVG comes from the _svg_* helpers below (_svg_panel draws a
-- line chart; chart_matrix draws its heatmap cells itself).  Every label is
-- user data and goes through _svg_escape().

--#include objects/_svg_escape/0.2.sql

--#include objects/_svg_number/0.2.sql

--#include objects/_svg_ticks/0.2.sql

--#include objects/_svg_scale/0.2.sql

--#include objects/_svg_color/0.2.sql

--#include objects/_svg_ramp/0.2.sql

--#include objects/_svg_document/0.2.sql

--#include objects/_svg_tint/0.2.sql

--#include objects/_svg_bands/0.2.sql

--#include objects/_svg_panel/0.2.sql
--#include objects/_svg_bars/0.2.sql

--#include objects/chart_bench/0.2.sql

--#include objects/chart_sweep/0.2.sql

--#include objects/chart_capacity/0.2.sql

--#include objects/load_rates/0.2.sql

--#include objects/chart_load/0.2.sql

--#include objects/chart_samples/0.2.sql

--#include objects/bench_matrix/0.2.sql

--#include objects/chart_matrix/0.2.sql

