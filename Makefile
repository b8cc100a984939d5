# petagen — PGXS build.  `make && make install`, then README's test command.
EXTENSION = petagen
MODULE_big = petagen
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))
DATA = $(wildcard sql/petagen--*.sql)

REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --temp-instance=./tmp_check_regress \
	--temp-config=test/regress.conf
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

SHLIB_LINK += -lxxhash
PG_CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers


PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The src/*.h headers are internal to the module.
$(OBJS): $(wildcard src/*.h)
