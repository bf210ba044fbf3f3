# pgbench_lab: PGXS build.  PG_CONFIG picks the server (scripts/test.sh
# builds once per supported major).
EXTENSION = pgbench_lab
EXTVERSION = 0.3

MODULE_big = pgbench_lab
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))

# The install script is assembled from one fragment per part: first
# sql/data/ (schemas, tables, row-level security: what an upgrade keeps),
# then sql/code/ (functions, procedures, views: what an upgrade replaces),
# whose folders hold the parts (api, internal, export, experiments,
# reports) and whose files run in the order of their numbered names,
# whatever their folder.  The update script from the last release is
# assembled the same way: a hand-written prelude (sql/upgrade/) that brings
# the kept objects to this version's shape and drops every function,
# procedure and view of the old one, then sql/code/ again.  Released
# scripts stay as they were shipped (sql/pgbench_lab--0.1.sql,
# sql/pgbench_lab--0.2.sql and the update between them), so that old
# versions can still be installed and updated (test/t/test_upgrade.py).
PGBL_RELEASED = 0.2
PGBL_INSTALL_SQL = sql/$(EXTENSION)--$(EXTVERSION).sql
PGBL_UPDATE_SQL = sql/$(EXTENSION)--$(PGBL_RELEASED)--$(EXTVERSION).sql
DATA_built = $(PGBL_INSTALL_SQL) $(PGBL_UPDATE_SQL)
DATA = sql/$(EXTENSION)--0.1.sql sql/$(EXTENSION)--0.1--0.2.sql sql/$(EXTENSION)--0.2.sql
EXTRA_CLEAN = $(PGBL_INSTALL_SQL) $(PGBL_UPDATE_SQL) $(PGBL_INSTALL_SQL).tmp $(PGBL_UPDATE_SQL).tmp

TESTS = $(sort $(wildcard test/sql/*.sql))
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=pg_prewarm --load-extension=pgbench_lab
# The expected outputs hold no progress NOTICEs, however slow the machine:
# a call that runs past pgbench_lab.progress_after would give some.
installcheck: export PGOPTIONS += -c pgbench_lab.progress_after=-1

PG_CPPFLAGS = -I$(srcdir)/src -DPGBL_VERSION=\"$(EXTVERSION)\"
# Warnings are errors in the project's own builds only (scripts/ pass
# PG_CFLAGS=-Werror); a packager's build with another compiler is not failed
# by a new warning.

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

# Each object depends on the headers it includes: gcc writes src/*.d as it
# compiles, so that a changed header rebuilds every file that uses it (a
# stale object built against an older struct crashed a worker once).
ifeq ($(GCC),yes)
override CFLAGS += -MMD -MP
-include $(OBJS:.o=.d)
endif
EXTRA_CLEAN += $(OBJS:.o=.d)

# sql/code/'s files in the order of their names, folders aside.
PGBL_CODE_SQL = $(foreach f,$(sort $(foreach f,$(wildcard sql/code/*/*.sql),$(notdir $(f))@$(f))),$(lastword $(subst @, ,$(f))))

# The fragments are joined by sql/run_options.awk, which writes the run
# options (src/run_options.h) where a fragment has a marker
# (@RUN_OPTIONS_TAIL@...: the script says which), so that no declaration
# restates them.  Plain awk: mawk on Debian.
PGBL_AWK = awk
PGBL_RUN_OPTIONS = sql/run_options.awk src/run_spec.h src/run_options.h
PGBL_JOIN_SQL = $(PGBL_AWK) -f $(PGBL_RUN_OPTIONS) $(filter-out $(PGBL_SCRIPT_FILES),$(filter %.sql,$^)) > $@.tmp && mv $@.tmp $@

# the files a fragment writes whole (@SCRIPT_FILE name weight path@)
PGBL_SCRIPT_FILES = $(sort $(wildcard sql/tpcc/*.sql))

$(PGBL_INSTALL_SQL): $(PGBL_RUN_OPTIONS) $(PGBL_SCRIPT_FILES) $(sort $(wildcard sql/data/*.sql)) $(PGBL_CODE_SQL)
	$(PGBL_JOIN_SQL)

# The files of sql/data/ that the last release did not have: the update
# creates them whole, after its prelude (changes to the files it had are
# in the prelude).
PGBL_NEW_DATA = sql/data/11_run_errors.sql sql/data/17_capture.sql

$(PGBL_UPDATE_SQL): $(PGBL_RUN_OPTIONS) $(PGBL_SCRIPT_FILES) sql/upgrade/$(PGBL_RELEASED)--$(EXTVERSION).sql $(PGBL_NEW_DATA) $(PGBL_CODE_SQL)
	$(PGBL_JOIN_SQL)

.PHONY: pgspot
pgspot: $(PGBL_INSTALL_SQL) $(PGBL_UPDATE_SQL)
	pgspot --ignore PS017 $(PGBL_INSTALL_SQL)
	pgspot --ignore PS017 $(PGBL_UPDATE_SQL)

# Every name in the SQL texts of src/ and in the install script's function
# bodies is qualified with its schema (test/lint/sqlnames.py says why).
.PHONY: sqlnames
sqlnames: $(PGBL_INSTALL_SQL) $(PGBL_UPDATE_SQL)
	python3 test/lint/sqlnames.py

# The pg_regress and real-server suites with the extension built under
# AddressSanitizer (see scripts/asan.sh); ASAN_PG picks the major.
.PHONY: asan
asan:
	scripts/asan.sh $(or $(ASAN_PG),18)

# The source archive PGXN takes, pgbench_lab-VERSION.zip (VERSION from
# META.json): what git holds at HEAD, less what .gitattributes marks
# export-ignore (the project's own test and packaging tools).
PGBL_DIST_VERSION = $(shell sed -nE 's/^   "version": "([^"]+)",?$$/\1/p' $(srcdir)/META.json)
PGBL_DIST = $(EXTENSION)-$(PGBL_DIST_VERSION)

.PHONY: dist
dist:
	git -C $(srcdir) archive --format zip --prefix=$(PGBL_DIST)/ -o $(abspath $(PGBL_DIST).zip) HEAD
