# disinto-c: three cron executables on one static library.
#
#   make            build common/libcommon.a and the executables
#   make test       build and run every test (unit + integration)
#   make test-dialects  the integration tests that read lists, merge or
#                   read CI, against the simulator answering as Forgejo,
#                   Woodpecker 2.x and with a page cap of 30
#   make check      the same tests under AddressSanitizer + UBSan, and the
#                   unit tests under valgrind
#   make faults     run the whole fault matrix (make test runs a sample)
#   make demo       run the end-to-end demo against the forge simulator
#                   (PROTOCOL=checkpoint: with one-shot agent runs)
#   make bench      run the benchmarks
#   make bench-latency  the time the orchestration adds (real time, minutes)
#   make config-doc regenerate docs/CONFIG.md's configuration table
#   make man        regenerate disinto-c.5's list of settings
#   make install    PREFIX=/usr/local DESTDIR= (executables, manual pages)
#   make install-factory FACTORY=/home/you/disinto   (drop-in names)
#   make uninstall-factory FACTORY=/home/you/disinto (the bash scripts back)
#   make fuzz       build the libFuzzer harnesses of tests/fuzz into build/fuzz
#   make fuzz-long  run each harness for FUZZ_RUNS (10 million) executions
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
MANDIR	?= $(PREFIX)/share/man
PKG_CONFIG ?= pkg-config
PKGS	= libcurl libcjson inih libbsd-overlay

CFLAGS	?= -O2 -g
WARN	= -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Wstrict-prototypes \
	  -Wmissing-prototypes -Wshadow -Wpointer-arith -Wsign-compare -Werror
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
# common/ is grouped by layer, a folder each (docs/LAYOUT.md); every
# folder is on the include path, so a header is named by its file name.
COMMON_DIRS = $(sort $(patsubst %/,%,$(dir $(wildcard common/*/*.h))))
ALL_CFLAGS = $(WARN) $(PKG_CFLAGS) $(addprefix -I,$(COMMON_DIRS)) -Ipollers \
	     $(CFLAGS)
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

HOSTCC	?= $(CC)
HOSTCFLAGS ?= -O2
TEMPLATES = $(filter-out formulas/README.md,$(sort $(wildcard formulas/*.md)))
EMBED	= $(O)/formulas/embed
TEMPLATE_INC = $(O)/formulas/template_builtin.inc

LIB_SRC	= $(sort $(wildcard common/*/*.c))
LIB_OBJ	= $(LIB_SRC:%.c=$(O)/%.o)
LIB	= $(O)/common/libcommon.a

# What the executables share outside common/ (pollers/: the one place
# that knows them all), linked into each.
POLLERS_SRC = $(sort $(wildcard pollers/*.c))
POLLERS_OBJ = $(POLLERS_SRC:%.c=$(O)/%.o)

# Each executable: every .c in its directory (exactly one holds main).
# All of them but main.o, with pollers/, also go into an archive (dev-poll/libdevpoll.a,
# ...) that the unit tests of the executable's decisions link.
define prog_rules
$(1)_SRC = $$(sort $$(wildcard $(1)/*.c))
$(1)_OBJ = $$($(1)_SRC:%.c=$(O)/%.o)
$(1)_LIB = $(O)/$(1)/lib$(subst -,,$(1)).a
$(O)/$(1)/$(1): $$($(1)_OBJ) $(POLLERS_OBJ) $(LIB)
	$$(CC) $$(ALL_CFLAGS) $$(LDFLAGS) -o $$@ $$($(1)_OBJ) $(POLLERS_OBJ) $(LIB) $$(LDLIBS)
$$($(1)_LIB): $$(filter-out $(O)/$(1)/main.o,$$($(1)_OBJ)) $(POLLERS_OBJ)
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

$(O)/%.o: %.c $(wildcard common/*/*.h) $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# version.o is rebuilt whenever the version or the commit changes.
$(O)/common/base/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(GIT_COMMIT)' | cmp -s - $@ || \
		echo '$(VERSION) $(GIT_COMMIT)' >$@

$(O)/common/base/version.o: common/base/version.c common/base/version.h $(O)/common/base/version.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(VERSION_DEFS) -c -o $@ $<

# The prompt templates are compiled in: formulas/embed, built for the host,
# turns formulas/*.md into the table common/parse/template.c includes (from
# $(O)/formulas, never from the source tree, so another build root's copy
# is never picked up).  The list of files is a stamp of its own, so that a
# template removed is removed from the table too.
$(EMBED): formulas/embed.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(WARN) $(HOSTCFLAGS) -o $@ $<

$(O)/formulas/templates.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(TEMPLATES)' | cmp -s - $@ || echo '$(TEMPLATES)' >$@

$(TEMPLATE_INC): $(EMBED) $(TEMPLATES) $(O)/formulas/templates.list
	$(EMBED) $(TEMPLATES) >$@.tmp
	mv $@.tmp $@

$(O)/common/parse/template.o: $(TEMPLATE_INC)
$(O)/common/parse/template.o: ALL_CFLAGS += -I$(O)/formulas

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

$(O)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB)
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

test: test-bins fuzz-if-clang
	O=$(O) tests/run

# The integration tests that read lists, merge or read CI, run again with
# the forge simulator answering as other servers than make test's (Gitea
# 1.2x, Woodpecker 3.x, pages of 50), each where that server differs:
# Forgejo (it reads "sort" on the issue list) for the backlog and merges,
# Gitea 1.23 (its combined commit status) and Forgejo for the CI rule,
# Woodpecker 2.x (its field names, statuses and log answers) for the CI
# readers and a merge, and Gitea with [api] MAX_RESPONSE_ITEMS = 30 for the
# list readers and a merge (tests/dialects; make test runs a sample of each
# in test_forge_dialects.sh).  About 3 minutes on 2 cores.
DIALECTS = \
	forgejo:3:50=test_dev_backlog,test_forge_backlog_order,test_forge_branch_gone,test_forge_merge_answer,test_dev_merge.sh,test_dev_pr_closed,test_ci_combine \
	gitea-1.23:3:50=test_ci_combine \
	gitea:2:50=test_dev_woodpecker,test_supervisor_ci,test_ci_bulk,test_dev_merge.sh \
	gitea:3:30=test_forge_client,test_dev_backlog,test_supervisor_lists,test_review_pages,test_supervisor_sweep,test_dev_merge.sh
test-dialects: test-bins
	O=$(O) tests/dialects $(DIALECTS)

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

# Every endpoint of every world of tests/integration/faults x every fault
# (test_faults.sh runs a sample of it in make test).  FM_JOBS worlds at
# once.
faults: test-bins
	O=$(O) tests/integration/faults/run --all

# make demo PROTOCOL=markers: the same loop under another agent protocol.
PROTOCOL ?= phase
demo: $(BINS) $(TOOL_BIN)
	O=$(O) PROTOCOL=$(PROTOCOL) tests/demo

bench: $(BINS) $(TOOL_BIN)
	O=$(O) tests/bench
	python3 tests/tools/factory-day.py

# The time the orchestration adds: the factory-day model (merged per day
# under a 1-minute and a 10-minute timer), then the demo's chain in real
# time under a timer: BENCH_TICK=10 for a quick run, BENCH_TICK=600 for
# upstream's crontab; BENCH_WEBHOOK=0 without the forge's status webhook
# (tests/bench-latency lists the settings).  A chain that does not end
# within the limit is reported as far as it went, and the target fails.
bench-latency: $(BINS) $(TOOL_BIN)
	python3 tests/tools/factory-day.py
	O=$(O) tests/bench-latency

# The manual pages: one per executable (section 8) and the configuration
# (section 5).
MAN8	= $(foreach p,$(PROGS),$(p)/$(p).8)
MAN5	= disinto-c.5

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man5
	for p in $(PROGS); do install -m 0755 $(O)/$$p/$$p $(DESTDIR)$(BINDIR)/$$p; done
	install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5

# Drop-in for the bash scripts: the executables under the names the
# existing crontab lines call, in an existing factory (README.md,
# "Installing in place of the bash scripts").  Each executable goes
# beside its script (dev/dev-poll beside dev/dev-poll.sh), and the script
# becomes a launcher of a few lines of sh that execs it with its
# arguments: so cron's direct call and upstream's `bash dev/dev-poll.sh`
# both run it, and the executable's own place tells it the factory
# (FACTORY_ROOT's default) and the other tools (the webhook's wakes).
# The executables beside the scripts are in the checkout's own
# .git/info/exclude (their lines go with uninstall-factory).
#
# In a git checkout a replaced script stays tracked and the checkout clean
# and pullable: the checkout's own attribute file ($GIT_DIR/info/attributes,
# never committed) gives the path the filter "disinto-c", whose smudge
# writes the launcher (kept in $GIT_DIR/disinto-c/bin/) wherever git
# writes that file and whose clean says the file holds what the index
# holds.  So `git status` shows nothing, and `git pull` succeeds even when
# upstream changed the script: the index takes upstream's new script, the
# launcher stays in the work tree.  The filter is required: if it cannot
# run, git fails loudly instead of putting the bash script back.
# Elsewhere (no git, or a script git does not track) the replaced script
# is kept in .disinto-c/backup/ (in the git directory when there is one).
# uninstall-factory puts the scripts back: git's own, or the backups.
FACTORY_NAMES = dev-poll:dev/dev-poll.sh review-poll:review/review-poll.sh \
	supervisor-poll:supervisor/supervisor-poll.sh

define FACTORY_SH
set -eu
action=$1 f=$2 o=$3
shift 3
me="make $action-factory"
if [ -z "$f" ]; then
	echo "usage: $me FACTORY=/path/to/disinto" >&2
	exit 2
fi
if [ ! -d "$f" ]; then
	echo "$me: '$f': not a directory" >&2
	exit 2
fi
f=$(cd "$f" && pwd -P)
gd= prefix= attrs=
if git -C "$f" rev-parse --show-toplevel >/dev/null 2>&1; then
	gd=$(cd "$f" && cd "$(git rev-parse --git-common-dir)" && pwd -P)
	prefix=$(git -C "$f" rev-parse --show-prefix)
	store=$gd/disinto-c
	attrs=$gd/info/attributes
	case $prefix in *[!A-Za-z0-9._/-]*)
		echo "$me: '$prefix': an unusual directory name in git" >&2
		exit 2 ;;
	esac
else
	store=$f/.disinto-c
fi

tracked() {
	[ -n "$gd" ] && git -C "$f" ls-files --error-unmatch -- "$1" >/dev/null 2>&1
}
marked() {
	[ -n "$gd" ] && [ -f "$attrs" ] &&
	    grep -qxF "/$prefix$1 filter=disinto-c" "$attrs"
}
# put SRC DST: copy SRC to DST (mode 0755) through a temporary name, so
# that a cron tick never runs half a file.
put() {
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2.tmp.$$"
	chmod 0755 "$2.tmp.$$"
	mv -f "$2.tmp.$$" "$2"
}

# The filter works in the factory's own checkout only: the attributes
# file is the clone's, read in every linked worktree too (a factory that
# develops itself has its agents' worktrees there), where git runs the
# filter in that worktree's top directory and it passes the script
# through untouched, so the agent sees and commits the real script.
filter_on() {
	q=$(printf '%s' "$store" | sed "s/'/'\\\\''/g")
	t=$(cd "$(git -C "$f" rev-parse --show-toplevel)" && pwd -P |
	    sed "s/'/'\\\\''/g")
	here="[ \"\$(pwd -P)\" = '$t' ]"
	git -C "$f" config filter.disinto-c.smudge \
	    "if $here; then cat '$q/bin/'%f; else cat; fi"
	git -C "$f" config filter.disinto-c.clean \
	    "if $here; then git cat-file blob :%f; else cat; fi"
	git -C "$f" config filter.disinto-c.required true
}
filter_off() {
	if [ -f "$attrs" ] && ! grep -q ' filter=disinto-c$' "$attrs"; then
		git -C "$f" config --remove-section filter.disinto-c 2>/dev/null || :
		[ -s "$attrs" ] || rm -f "$attrs"
	fi
}

# launcher PROG OUT: the script that runs the executable PROG beside it
# with its own arguments (nothing else is put into it).
launcher() {
	{
		echo '#!/bin/sh'
		echo "# disinto-c (make install-factory): runs the executable $1"
		echo '# beside this script; make uninstall-factory gives the bash'
		echo '# script back.'
		echo 'case $0 in */*) d=${0%/*} ;; *) d=. ;; esac'
		echo "exec \"\$d/$1\" \"\$@\""
	} >"$2"
}
# exclude_line ADD|DEL LINE: the line in the checkout's own exclude file.
exclude_line() {
	ex=$gd/info/exclude
	if [ "$1" = ADD ]; then
		mkdir -p "$gd/info"
		grep -qxF "$2" "$ex" 2>/dev/null && return 0
		[ ! -s "$ex" ] || [ -z "$(tail -c 1 "$ex")" ] || echo >>"$ex"
		echo "$2" >>"$ex"
	elif [ -f "$ex" ] && grep -qxF "$2" "$ex"; then
		grep -vxF "$2" "$ex" >"$ex.tmp" || :
		mv -f "$ex.tmp" "$ex"
	fi
}
# beside PROG REL: the executable's path beside the script REL.
beside() {
	echo "$(dirname "$2")/$1"
}
# install_bin BIN PROG REL: the executable beside the script.
install_bin() {
	exe=$(beside "$2" "$3")
	if tracked "$exe"; then
		echo "$me: '$f/$exe' is tracked by git: not replaced" >&2
		exit 1
	fi
	[ -z "$gd" ] || exclude_line ADD "/$prefix$exe"
	put "$1" "$f/$exe"
}

install_tracked() {	# LAUNCHER REL
	if ! marked "$2" && ! git -C "$f" diff --quiet HEAD -- "$2"; then
		echo "$me: '$f/$2' has local changes: commit, stash or check it out first" >&2
		exit 1
	fi
	put "$1" "$store/bin/$prefix$2"
	filter_on
	mkdir -p "$gd/info"
	if ! marked "$2"; then
		# A last line without its newline gets one first.
		[ ! -s "$attrs" ] || [ -z "$(tail -c 1 "$attrs")" ] ||
		    echo >>"$attrs"
		echo "/$prefix$2 filter=disinto-c" >>"$attrs"
	fi
	rm -f "$f/$2"
	git -C "$f" checkout -- "$2"
}
install_other() {	# LAUNCHER REL
	b=$store/backup/$2
	if [ ! -e "$b" ] && [ ! -e "$b.absent" ]; then
		mkdir -p "$(dirname "$b")"
		if [ -e "$f/$2" ]; then
			cp -p "$f/$2" "$b"
		elif [ -d "$(dirname "$f/$2")" ]; then
			: >"$b.absent"
		else
			echo "$(dirname "$2")" >"$b.absent"
		fi
	fi
	put "$1" "$f/$2"
}
uninstall_one() {	# PROG REL
	exe=$(beside "$1" "$2")
	if [ -f "$f/$exe" ] && ! tracked "$exe"; then
		rm -f "$f/$exe"
		[ -z "$gd" ] || exclude_line DEL "/$prefix$exe"
	fi
	shift
	b=$store/backup/$1
	if marked "$1"; then
		grep -vxF "/$prefix$1 filter=disinto-c" "$attrs" >"$attrs.tmp" || :
		mv -f "$attrs.tmp" "$attrs"
		rm -f "$store/bin/$prefix$1" "$f/$1"
		if tracked "$1"; then
			git -C "$f" checkout -- "$1"
			echo "restored $f/$1 from git"
		else
			echo "removed $f/$1 (git no longer has it)"
		fi
	elif [ -e "$b" ]; then
		mv -f "$b" "$f/$1"
		echo "restored $f/$1 from $b"
	elif [ -e "$b.absent" ]; then
		rm -f "$f/$1"
		[ ! -s "$b.absent" ] || rmdir "$f/$(cat "$b.absent")" 2>/dev/null || :
		rm -f "$b.absent"
		echo "removed $f/$1 (there was none)"
	else
		echo "$me: '$f/$1' was not installed: left alone"
	fi
}

# The metrics files the executables write (metrics/*.prom) are not in
# upstream's .gitignore: the checkout's own exclude file (never committed)
# keeps them out of git status.  It stays after uninstall-factory, with
# the files.
exclude_metrics() {
	ex=$gd/info/exclude
	mkdir -p "$gd/info"
	grep -qxF "/${prefix}metrics/*.prom" "$ex" 2>/dev/null && return 0
	[ ! -s "$ex" ] || [ -z "$(tail -c 1 "$ex")" ] || echo >>"$ex"
	echo "/${prefix}metrics/*.prom" >>"$ex"
}

# The upstream the factory is a checkout of, told from its files before
# anything is installed: "2394908" (supervisor/supervisor-poll.sh and
# lib/agent-session.sh: tmux sessions and phase files), "main" (upstream's
# newer main: supervisor/supervisor-run.sh and no supervisor-poll.sh but
# one of ours, dev/dev-agent.sh driving one-shot `claude -p` runs through
# lib/agent-sdk.sh), or nothing: said before anything is installed, and
# recorded in .disinto-c/upstream of the factory (kept out of git status
# with the manual pages) once the install went through, where the tools
# read it; an unrecognised factory has no such file.
ours() {
	grep -q '^# disinto-c (make install-factory)' "$1" 2>/dev/null
}
upstream_kind() {
	if [ -f "$f/lib/agent-session.sh" ] &&
	    [ -f "$f/supervisor/supervisor-poll.sh" ]; then
		echo 2394908
	elif [ ! -e "$f/lib/agent-session.sh" ] &&
	    [ -f "$f/supervisor/supervisor-run.sh" ] &&
	    { [ ! -e "$f/supervisor/supervisor-poll.sh" ] ||
		ours "$f/supervisor/supervisor-poll.sh"; } &&
	    grep -qE 'claude -p|lib/agent-sdk\.sh' "$f/dev/dev-agent.sh" \
		2>/dev/null; then
		echo main
	fi
}
upstream_say() {
	case $1 in
	2394908) echo "upstream: 2394908 (supervisor-poll.sh, lib/agent-session.sh)" ;;
	main) echo "upstream: main (supervisor-run.sh, one-shot claude -p dev-agent.sh)" ;;
	*) echo "upstream: not recognised (neither supervisor-poll.sh with lib/agent-session.sh nor supervisor-run.sh with a one-shot dev-agent.sh): nothing recorded" ;;
	esac
}
upstream_record() {
	u=$f/.disinto-c/upstream
	if [ "$action" = uninstall ] || [ -z "$kind" ]; then
		rm -f "$u"
		return 0
	fi
	mkdir -p "$f/.disinto-c"
	echo "$kind" >"$u.tmp.$$"
	mv -f "$u.tmp.$$" "$u"
	echo "recorded the upstream in $u"
}
kind=
if [ "$action" = install ]; then
	kind=$(upstream_kind)
	upstream_say "$kind"
fi

for pair in "$@"; do
	prog=${pair%%:*} rel=${pair#*:}
	case $action in
	install)
		bin=$o/$prog/$prog
		if [ ! -x "$bin" ]; then
			echo "$me: '$bin' is not built" >&2
			exit 1
		fi
		mkdir -p "$store"
		launcher "$prog" "$store/launcher.$$"
		# The executable first where the launcher takes the place of
		# a script that cron may be running; after the backup of the
		# script (which notes whether its directory was there) else.
		if tracked "$rel"; then
			install_bin "$bin" "$prog" "$rel"
			install_tracked "$store/launcher.$$" "$rel"
		else
			install_other "$store/launcher.$$" "$rel"
			install_bin "$bin" "$prog" "$rel"
		fi
		rm -f "$store/launcher.$$"
		echo "installed $f/$rel: $("$f/$rel" --version)" ;;
	uninstall)
		uninstall_one "$prog" "$rel" ;;
	esac
done
# The manual pages --help names, in the factory (kept out of git status):
# --help then says `man -M $f/.disinto-c/man 8 dev-poll`.
man_pages() {
	md=$f/.disinto-c/man
	if [ "$action" = uninstall ]; then
		rm -rf "$md"
		rmdir "$f/.disinto-c" 2>/dev/null || :
		return 0
	fi
	for p in $FACTORY_MAN; do
		d=$md/man${p##*.}
		mkdir -p "$d"
		cp "$p" "$d/${p##*/}.tmp.$$"
		mv -f "$d/${p##*/}.tmp.$$" "$d/${p##*/}"
	done
	if [ -n "$gd" ] && ! grep -qxF "/${prefix}.disinto-c/" "$gd/info/exclude" 2>/dev/null; then
		mkdir -p "$gd/info"
		[ ! -s "$gd/info/exclude" ] || [ -z "$(tail -c 1 "$gd/info/exclude")" ] ||
		    echo >>"$gd/info/exclude"
		echo "/${prefix}.disinto-c/" >>"$gd/info/exclude"
	fi
	echo "installed the manual pages in $md"
}
upstream_record
man_pages
if [ "$action" = install ] && [ -n "$gd" ]; then
	exclude_metrics
fi
if [ "$action" = uninstall ]; then
	[ -z "$gd" ] || filter_off
	[ ! -d "$store" ] || find "$store" -depth -type d -empty -delete
fi
endef

install-factory: $(BINS)
install-factory uninstall-factory: export FACTORY_SH_TEXT = $(value FACTORY_SH)
install-factory uninstall-factory: export FACTORY_MAN = $(MAN8) $(MAN5)
install-factory uninstall-factory:
	@sh -c "$$FACTORY_SH_TEXT" sh $(@:-factory=) '$(FACTORY)' '$(O)' $(FACTORY_NAMES)

# docs/CONFIG.md's configuration table, generated from common/config/config.c's
# table.
config-doc: $(O)/tests/tools/conf-tool
	$(O)/tests/tools/conf-tool doc >docs/CONFIG.table.tmp
	awk -v t=docs/CONFIG.table.tmp '/^<!-- config-table begin/ { print; \
		while ((getline l < t) > 0) print l; skip = 1; next } \
		/^<!-- config-table end/ { skip = 0 } !skip' docs/CONFIG.md \
		>docs/CONFIG.md.tmp
	mv docs/CONFIG.md.tmp docs/CONFIG.md
	rm -f docs/CONFIG.table.tmp

# disinto-c.5's list of settings, generated from the same table.
man: $(O)/tests/tools/conf-tool
	$(O)/tests/tools/conf-tool man >disinto-c.table.tmp
	awk -v t=disinto-c.table.tmp '/^\.\\" config-table begin/ { print; \
		while ((getline l < t) > 0) print l; skip = 1; next } \
		/^\.\\" config-table end/ { skip = 0 } !skip' disinto-c.5 \
		>disinto-c.5.tmp
	mv disinto-c.5.tmp disinto-c.5
	rm -f disinto-c.table.tmp
	python3 tests/tools/runfiles-man.py docs/CONFIG.md >disinto-c.table.tmp
	awk -v t=disinto-c.table.tmp '/^\.\\" runfiles-table begin/ { print; \
		while ((getline l < t) > 0) print l; skip = 1; next } \
		/^\.\\" runfiles-table end/ { skip = 0 } !skip' disinto-c.5 \
		>disinto-c.5.tmp
	mv disinto-c.5.tmp disinto-c.5
	rm -f disinto-c.table.tmp

# The systemd units, with the executables' directory put into ExecStart.
UNIT_FILES = $(sort $(wildcard contrib/systemd/*.service contrib/systemd/*.timer contrib/systemd/*.socket))

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

$(O)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz $(LDFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(LIB) $(LDLIBS)

# The verdict reader is review-poll's: its archive too.
$(O)/fuzz_verdict: tests/fuzz/fuzz_verdict.c $(wildcard tests/fuzz/*.h) \
		$(review-poll_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -Ireview-poll $(LDFLAGS) \
		-fsanitize=fuzzer -o $@ $< $(review-poll_LIB) $(LIB) $(LDLIBS)

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
	clang-format --dry-run --Werror common/*/*.[ch] $(foreach p,$(PROGS),$(p)/*.[ch]) pollers/*.[ch] formulas/*.c \
		tests/unit/*.[ch] $(wildcard tests/tools/*.c) \
		$(wildcard tests/fuzz/*.[ch])

clean:
	rm -f $(LIB_OBJ) $(LIB) $(BINS) $(PROG_LIBS) $(UNIT_BIN) $(TOOL_BIN) $(O)/common/base/version.stamp
	rm -f $(foreach p,$(PROGS),$($(p)_OBJ)) $(POLLERS_OBJ)
	rm -f $(EMBED) $(TEMPLATE_INC) $(O)/formulas/templates.list
	rm -rf build

FORCE:

.PHONY: all test test-bins check demo bench bench-latency install install-factory uninstall-factory config-doc man format-check clean FORCE
.PHONY: install-systemd fuzz fuzz-bins fuzz-if-clang fuzz-long valgrind faults
.PHONY: test-dialects
