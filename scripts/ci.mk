# The project's own build (scripts/build.sh: `make -f Makefile -f
# scripts/ci.mk`) against servers built by another compiler, such as the
# wheels of scripts/pg_config.sh; a plain `make` does without it.
# The server's CFLAGS come from the compiler that built it; a newer one may
# list warnings this $(CC) does not know (gcc 12 rejects
# -Wmissing-variable-declarations).  Keep only the -W flags $(CC) accepts.
cc_accepts = $(shell echo 'int x;' | $(CC) -Wall -Werror $(1) -x c -c -o /dev/null - \
	>/dev/null 2>&1 && echo yes)
override CFLAGS := $(foreach f,$(CFLAGS),$(if $(filter -W%,$(filter-out -Wno-%,$(f))),\
	$(if $(call cc_accepts,$(f)),$(f)),$(f)))
