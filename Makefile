# disinto-c: three cron executables on one static library.
#
#   make            build common/libcommon.a and the executables
#   make test       build and run every test (unit + integration)
#   make check      the same tests under AddressSanitizer + UBSan
#   make faults     run the whole fault matrix (make test runs a sample)
#   make demo       run the end-to-end demo against the forge simulator
#   make bench      run the benchmarks
#   make readme     regenerate README.md's configuration table
#   make install    PREFIX=/usr/local DESTDIR=
#   make install-factory FACTORY=/home/you/disinto   (drop-in names)
#
# O names the output root: objects, the library and the executables are
# built below it (O=. keeps the in-tree layout that FACTORY_ROOT derivation
# expects: dev-poll/dev-poll has the factory root as grandparent).

O	?= .
CC	?= cc
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
PKG_CONFIG ?= pkg-config
PKGS	= libcurl libcjson inih libbsd-overlay

CFLAGS	?= -O2 -g
WARN	= -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Wstrict-prototypes \
	  -Wmissing-prototypes -Wshadow -Wpointer-arith -Wsign-compare -Werror
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
ALL_CFLAGS = $(WARN) $(PKG_CFLAGS) -Icommon $(CFLAGS)
LDLIBS	= $(PKG_LIBS)

SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=all

PROGS	= dev-poll review-poll supervisor-poll

# --version prints VERSION and the commit the build comes from (empty,
# "built outside git", when the source is not a git checkout).
VERSION	= 0.1.0
GIT_COMMIT := $(shell test -e .git && git describe --always --dirty \
	--abbrev=12 --exclude='*' 2>/dev/null)
VERSION_DEFS = -DDISINTO_VERSION='"$(VERSION)"' -DDISINTO_COMMIT='"$(GIT_COMMIT)"'

.DEFAULT_GOAL := all

LIB_SRC	= $(sort $(wildcard common/*.c))
LIB_OBJ	= $(LIB_SRC:%.c=$(O)/%.o)
LIB	= $(O)/common/libcommon.a

# Each executable: every .c in its directory (exactly one holds main).
# All of them but main.o also go into an archive (dev-poll/libdevpoll.a,
# ...) that the unit tests of the executable's decisions link.
define prog_rules
$(1)_SRC = $$(sort $$(wildcard $(1)/*.c))
$(1)_OBJ = $$($(1)_SRC:%.c=$(O)/%.o)
$(1)_LIB = $(O)/$(1)/lib$(subst -,,$(1)).a
$(O)/$(1)/$(1): $$($(1)_OBJ) $(LIB)
	$$(CC) $$(ALL_CFLAGS) $$(LDFLAGS) -o $$@ $$($(1)_OBJ) $(LIB) $$(LDLIBS)
$$($(1)_LIB): $$(filter-out $(O)/$(1)/main.o,$$($(1)_OBJ))
	rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach p,$(PROGS),$(eval $(call prog_rules,$(p))))
PROG_LIBS = $(foreach p,$(PROGS),$($(p)_LIB))

BINS	= $(foreach p,$(PROGS),$(O)/$(p)/$(p))

UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN = $(UNIT_SRC:%.c=$(O)/%)
TOOL_SRC = $(sort $(wildcard tests/tools/*.c))
TOOL_BIN = $(TOOL_SRC:%.c=$(O)/%)

all: $(BINS)

$(O)/%.o: %.c $(wildcard common/*.h) $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# version.o is rebuilt whenever the version or the commit changes.
$(O)/common/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(GIT_COMMIT)' | cmp -s - $@ || \
		echo '$(VERSION) $(GIT_COMMIT)' >$@

$(O)/common/version.o: common/version.c common/version.h $(O)/common/version.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(VERSION_DEFS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

$(O)/tests/unit/%: tests/unit/%.c tests/unit/check.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# test_dev_*, test_review_*, test_supervisor_*: an executable's decisions,
# linked with its archive.
define unit_prog_rule
$(O)/tests/unit/test_$(2)_%: tests/unit/test_$(2)_%.c tests/unit/check.h $$($(1)_LIB) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) -Itests/unit -I$(1) $$(LDFLAGS) -o $$@ $$< $$($(1)_LIB) $(LIB) $$(LDLIBS)
endef
$(eval $(call unit_prog_rule,dev-poll,dev))
$(eval $(call unit_prog_rule,review-poll,review))
$(eval $(call unit_prog_rule,supervisor-poll,supervisor))

$(O)/tests/tools/%: tests/tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

test-bins: $(BINS) $(UNIT_BIN) $(TOOL_BIN)

test: test-bins
	O=$(O) tests/run

check:
	$(MAKE) O=build/san CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" test

# Every endpoint of every world of tests/integration/faults x every fault
# (test_faults.sh runs a sample of it in make test).  FM_JOBS worlds at
# once.
faults: test-bins
	O=$(O) tests/integration/faults/run --all

demo: $(BINS) $(TOOL_BIN)
	O=$(O) tests/demo

bench: $(BINS) $(TOOL_BIN)
	O=$(O) tests/bench

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR)
	for p in $(PROGS); do install -m 0755 $(O)/$$p/$$p $(DESTDIR)$(BINDIR)/$$p; done

# Drop-in for the bash scripts: install the executables under the names
# the existing crontab lines call, in an existing factory checkout.
install-factory: $(BINS)
	@test -n "$(FACTORY)" || { echo "usage: make install-factory FACTORY=/path/to/disinto"; exit 2; }
	install -d $(FACTORY)/dev $(FACTORY)/review $(FACTORY)/supervisor
	install -m 0755 $(O)/dev-poll/dev-poll $(FACTORY)/dev/dev-poll.sh
	install -m 0755 $(O)/review-poll/review-poll $(FACTORY)/review/review-poll.sh
	install -m 0755 $(O)/supervisor-poll/supervisor-poll $(FACTORY)/supervisor/supervisor-poll.sh

# README.md's configuration table, generated from common/config.c's table.
readme: $(O)/tests/tools/conf-tool
	$(O)/tests/tools/conf-tool doc >README.table.tmp
	awk -v t=README.table.tmp '/^<!-- config-table begin/ { print; \
		while ((getline l < t) > 0) print l; skip = 1; next } \
		/^<!-- config-table end/ { skip = 0 } !skip' README.md \
		>README.md.tmp
	mv README.md.tmp README.md
	rm -f README.table.tmp

format-check:
	clang-format --dry-run --Werror common/*.[ch] $(foreach p,$(PROGS),$(p)/*.[ch]) \
		tests/unit/*.[ch] $(wildcard tests/tools/*.c)

clean:
	rm -f $(LIB_OBJ) $(LIB) $(BINS) $(PROG_LIBS) $(UNIT_BIN) $(TOOL_BIN) $(O)/common/version.stamp
	rm -f $(foreach p,$(PROGS),$($(p)_OBJ))
	rm -rf build

FORCE:

.PHONY: all test test-bins check demo bench install install-factory readme format-check clean FORCE
.PHONY: faults
