# disinto-c: three cron executables on one static library.
#
#   make            build common/libcommon.a and the executables
#   make test       build and run every test (unit + integration)
#   make check      the same tests under AddressSanitizer + UBSan, and the
#                   unit tests under valgrind
#   make demo       run the end-to-end demo against the forge simulator
#   make bench      run the benchmarks
#   make fuzz       build the libFuzzer harnesses of tests/fuzz into build/fuzz
#   make fuzz-long  run each harness for FUZZ_RUNS (10 million) executions
#   make install    PREFIX=/usr/local DESTDIR=
#   make install-factory FACTORY=/home/you/disinto   (drop-in names)
#   make install-systemd  the units of contrib/systemd into SYSTEMDDIR
#
# O names the output root: objects, the library and the executables are
# built below it (O=. keeps the in-tree layout that FACTORY_ROOT derivation
# expects: dev-poll/dev-poll has the factory root as grandparent).

O	?= .
CC	?= cc
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
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

.DEFAULT_GOAL := all

LIB_SRC	= $(sort $(wildcard common/*.c))
LIB_OBJ	= $(LIB_SRC:%.c=$(O)/%.o)
LIB	= $(O)/common/libcommon.a

# Each executable: every .c in its directory (exactly one holds main).
define prog_rules
$(1)_SRC = $$(sort $$(wildcard $(1)/*.c))
$(1)_OBJ = $$($(1)_SRC:%.c=$(O)/%.o)
$(O)/$(1)/$(1): $$($(1)_OBJ) $(LIB)
	$$(CC) $$(ALL_CFLAGS) $$(LDFLAGS) -o $$@ $$($(1)_OBJ) $(LIB) $$(LDLIBS)
endef
$(foreach p,$(PROGS),$(eval $(call prog_rules,$(p))))

BINS	= $(foreach p,$(PROGS),$(O)/$(p)/$(p))

UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN = $(UNIT_SRC:%.c=$(O)/%)
TOOL_SRC = $(sort $(wildcard tests/tools/*.c))
TOOL_BIN = $(TOOL_SRC:%.c=$(O)/%)

all: $(BINS)

$(O)/%.o: %.c $(wildcard common/*.h) $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

$(O)/tests/unit/%: tests/unit/%.c tests/unit/check.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/tools/%: tests/tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

test-bins: $(BINS) $(UNIT_BIN) $(TOOL_BIN)

test: test-bins fuzz-if-clang
	O=$(O) tests/run

check:
	$(MAKE) O=build/san CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" test
	$(MAKE) valgrind

# The unit test programs of the plain build under valgrind's memcheck
# (valgrind cannot run the sanitizer build).  Forked children are left
# alone: those that exec report nothing of their own, and the code they
# run before exec is checked by the sanitizer build.
VALGRIND = valgrind -q --error-exitcode=1 --leak-check=full \
	   --errors-for-leak-kinds=definite,indirect,possible \
	   --child-silent-after-fork=yes
valgrind: $(UNIT_BIN)
	O=$(O) TEST_WRAP="$(VALGRIND)" tests/run unit/

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

# The systemd units, with the executables' directory put into ExecStart.
UNIT_FILES = $(sort $(wildcard contrib/systemd/*.service contrib/systemd/*.timer))

install-systemd:
	install -d $(DESTDIR)$(SYSTEMDDIR)
	for u in $(UNIT_FILES); do \
		d=$(DESTDIR)$(SYSTEMDDIR)/$${u##*/}; \
		sed 's|@BINDIR@|$(BINDIR)|g' $$u >$$d && chmod 0644 $$d || exit 1; \
	done

# libFuzzer harnesses: every tests/fuzz/fuzz_<target>.c, seeds in
# tests/fuzz/corpus/<target>/.  The library is built again with clang's
# coverage instrumentation and the sanitizers, below build/fuzz.
# make test builds them when clang has libFuzzer, and
# tests/integration/test_fuzz.sh runs each for a few seconds.
FUZZ_CC	?= clang
FUZZ_O	= build/fuzz
FUZZ_CFLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	      -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_LDFLAGS = -fsanitize=address,undefined
FUZZ_RUNS ?= 10000000
FUZZ_SRC = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=$(O)/%)

fuzz:
	$(MAKE) O=$(FUZZ_O) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS)" \
		LDFLAGS="$(FUZZ_LDFLAGS)" fuzz-bins

fuzz-bins: $(FUZZ_BIN)

$(O)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz $(LDFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(LIB) $(LDLIBS)

fuzz-if-clang:
	@mkdir -p $(FUZZ_O)
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, long n);' \
	    'int LLVMFuzzerTestOneInput(const char *d, long n)' \
	    '{ (void)d; (void)n; return 0; }' | $(FUZZ_CC) -x c \
	    -fsanitize=fuzzer -o $(FUZZ_O)/probe - >/dev/null 2>&1; then \
		$(MAKE) fuzz; \
	else \
		echo "# $(FUZZ_CC) has no libFuzzer: fuzz harnesses not built"; \
	fi

fuzz-long: fuzz
	tests/fuzz/long $(FUZZ_RUNS) $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_O)/%)

format-check:
	clang-format --dry-run --Werror common/*.[ch] $(foreach p,$(PROGS),$(p)/*.[ch]) \
		tests/unit/*.[ch] $(wildcard tests/tools/*.c) \
		$(wildcard tests/fuzz/*.[ch])

clean:
	rm -f $(LIB_OBJ) $(LIB) $(BINS) $(UNIT_BIN) $(TOOL_BIN)
	rm -f $(foreach p,$(PROGS),$($(p)_OBJ))
	rm -rf build

.PHONY: all test test-bins check demo bench install install-factory format-check clean
.PHONY: install-systemd fuzz fuzz-bins fuzz-if-clang fuzz-long valgrind
