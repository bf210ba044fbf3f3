# pgbench_lab: PGXS build.  PG_CONFIG picks the server (scripts/test.sh
# builds once per supported major).
EXTENSION = pgbench_lab
EXTVERSION = 0.1

MODULE_big = pgbench_lab
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))

# The install script is assembled from one fragment per part: first
# sql/data/ (schemas, tables, row-level security: what an upgrade keeps),
# then sql/code/ (functions, procedures, views: what an upgrade replaces).
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
EXTRA_CLEAN = sql/$(EXTENSION)--$(EXTVERSION).sql

TESTS = $(sort $(wildcard test/sql/*.sql))
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=pg_prewarm --load-extension=pgbench_lab

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Werror

# The client path (src/client_libpq.c) links libpq, as contrib/dblink and
# postgres_fdw do under PGXS (libpq_srcdir comes from Makefile.global; the
# reference is expanded after PGXS is included).
SHLIB_LINK_INTERNAL = $(libpq)
PG_CPPFLAGS += -I$(libpq_srcdir)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Servers built with a newer gcc carry warning flags that Debian 12's gcc
# does not know; drop them so -Werror stays meaningful.
override CFLAGS := $(filter-out -Wmissing-variable-declarations,$(CFLAGS))

sql/$(EXTENSION)--$(EXTVERSION).sql: $(sort $(wildcard sql/data/*.sql)) $(sort $(wildcard sql/code/*.sql))
	cat $^ > $@

.PHONY: pgspot
pgspot: sql/$(EXTENSION)--$(EXTVERSION).sql
	pgspot --ignore PS017 $<

# Every name in the SQL texts of src/ and in the install script's function
# bodies is qualified with its schema (test/lint/sqlnames.py says why).
.PHONY: sqlnames
sqlnames: sql/$(EXTENSION)--$(EXTVERSION).sql
	python3 test/lint/sqlnames.py

# The pg_regress and real-server suites with the extension built under
# AddressSanitizer (see scripts/asan.sh); ASAN_PG picks the major.
.PHONY: asan
asan:
	scripts/asan.sh $(or $(ASAN_PG),18)
