# petagen — PGXS build.  `make && make install`, then README's test command.
EXTENSION = petagen
MODULE_big = petagen
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c)))
# The released install script is a file of its own.  The install script of
# the current version is assembled from sql/parts/, in order: generator, load
# jobs, benchmarks, charts; the update script from sql/updates/.  Each
# definition of a function is written once, in sql/objects/<name>/<V>.sql (V:
# the release it first appeared in), which each script includes with a line
# `--#include objects/<name>/<V>.sql` (docs/development.md).
DATA = sql/petagen--0.1.sql
DATA_built = sql/petagen--0.2.sql sql/petagen--0.1--0.2.sql

REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --temp-instance=./tmp_check_regress \
	--temp-config=test/regress.conf
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

# Headers are included by their path under src/: "job/jobdef.h".
PG_CPPFLAGS += -I$(srcdir)/src
SHLIB_LINK += -lxxhash
# Benchmarks' client sessions and cluster calls connect with libpq, as
# dblink and postgres_fdw do.
PG_CPPFLAGS += -I$(libpq_srcdir)
SHLIB_LINK_INTERNAL += $(libpq)
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers
# The project's own build (scripts/build.sh) and CI make warnings errors; a
# packager's plain `make` with a newer compiler does not.
ifdef PETAGEN_WERROR
PG_CFLAGS += -Werror
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)

include $(PGXS)

# Copies its input files, each `--#include objects/x/V.sql` line replaced by
# the file sql/objects/x/V.sql.
sql_include = awk '/^--\#include /{f="sql/"$$2; while ((getline l < f) > 0) print l; \
	close(f); next} {print}'
sql_objects = $(wildcard sql/objects/*/*.sql)

sql/petagen--0.2.sql: $(sort $(wildcard sql/parts/*.sql)) $(sql_objects)
	$(sql_include) $(filter-out $(sql_objects),$^) > $@

sql/petagen--0.1--0.2.sql: sql/updates/petagen--0.1--0.2.sql.in $(sql_objects)
	$(sql_include) $< > $@

# The src/*.h headers are internal to the module.
$(OBJS): $(wildcard src/*.h src/*/*.h)

# The PGXN release zip of the committed tree at HEAD, petagen-<version>.zip
# with every file under petagen-<version>/: the version is the extension's
# (petagen.control), made three-part as PGXN wants (0.2 -> 0.2.0), as in
# META.json.
dist_version = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" \
	$(srcdir)/petagen.control | sed 's/^[0-9]*\.[0-9]*$$/&.0/')
.PHONY: dist
dist:
	git -C $(srcdir) archive --format=zip --prefix=petagen-$(dist_version)/ \
		-o $(abspath petagen-$(dist_version).zip) HEAD
