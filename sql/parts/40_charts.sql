
-- Pictures ----------------------------------------------------------------
-- Charts are standalone SVG documents, 800 x 480 and ASCII only, drawn from
-- petagen.bench_results and petagen.progress_log.  The chart_* functions only
-- gather data; all SVG comes from the _svg_* helpers below (_svg_panel draws a
-- line chart; chart_matrix draws its heatmap cells itself).  Every label is
-- user data and goes through _svg_escape().

--#include objects/_svg_escape.sql

--#include objects/_svg_number.sql

--#include objects/_svg_ticks.sql

--#include objects/_svg_scale.sql

--#include objects/_svg_color.sql

--#include objects/_svg_ramp.sql

--#include objects/_svg_document.sql

--#include objects/_svg_tint.sql

--#include objects/_svg_bands.sql

--#include objects/_svg_panel.sql
--#include objects/_svg_bars.sql

--#include objects/chart_bench.sql

--#include objects/chart_sweep.sql

--#include objects/load_rates.sql

--#include objects/chart_load.sql

--#include objects/chart_samples.sql

--#include objects/bench_matrix.sql

--#include objects/chart_matrix.sql

