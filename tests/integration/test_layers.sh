# The layers of common/ (docs/LAYOUT.md): a file includes headers of
# its own folder and of the folders above it in the list, never of one
# below; each folder holds what docs/LAYOUT.md says; no two source files of
# the tree share a name; common/ names no tool; every static function of
# common/ is named either without a module's prefix or with its own
# file's.
. "$(dirname "$0")/lib/common.sh"
python3 - "$TOP" <<'PY'
import glob, os, re, sys
top = sys.argv[1]
os.chdir(top)
order = ["base", "parse", "config", "forge", "run", "agent", "act", "world",
         "tick"]
allowed = {("common/agent/agent_hooks.c", "act")}


def ok(name):
    print("ok - " + name)


def fail(name, why):
    print("not ok - " + name)
    print("#   " + why)


dirs = sorted(d for d in os.listdir("common")
              if os.path.isdir(os.path.join("common", d)))
if dirs == sorted(order):
    ok("common/ has the layers' folders")
else:
    fail("common/ has the layers' folders", "got %s" % dirs)
loose = glob.glob("common/*.[ch]")
if not loose:
    ok("no source file outside a layer")
else:
    fail("no source file outside a layer", " ".join(sorted(loose)))

layer = {}
for d in order:
    for h in glob.glob("common/%s/*.h" % d):
        layer[os.path.basename(h)[:-2]] = d
bad = []
for f in sorted(glob.glob("common/*/*.[ch]")):
    me = f.split("/")[1]
    for inc in re.findall(r'#include "([a-z0-9_]+)\.h"', open(f).read()):
        if inc not in layer or (f, layer[inc]) in allowed:
            continue
        if order.index(layer[inc]) > order.index(me):
            bad.append("%s includes %s.h (%s)" % (f, inc, layer[inc]))
if not bad:
    ok("no include reaches a layer below")
else:
    fail("no include reaches a layer below", "; ".join(bad))

# Files of one name with one meaning: each executable's own main, metrics,
# launch, one-shot, repository, prompt, PR list and status line; and
# dev-poll's use of the back-off of run/.
same = ("main.c", "promfile.c", "launch.c", "oneshot.c", "repo.c", "prompt.c",
        "prs.c", "statusline.c", "backoff.c")
names = {}
for f in glob.glob("common/*/*.c") + glob.glob("*-poll/*.c"):
    b = os.path.basename(f)
    if b not in same or f.startswith("common/"):
        names.setdefault(b, []).append(f)
dup = {b: v for b, v in names.items() if len(v) > 1}
if not dup:
    ok("no two source files share a name")
else:
    fail("no two source files share a name", str(dup))

# common/ names no tool and includes nothing of the executables': the
# tools' table is pollers/'s, each tool's description its main.c.  Only
# the names of run files (runfiles.c) and the settings' documentation
# (config.c) spell a tool's name.
tools = re.compile(r'"[^"\n]*\b(dev|review|supervisor)-poll\b[^"\n]*"')
ours = {os.path.basename(h) for h in glob.glob("common/*/*.h")}
ours.add("template_builtin.inc")  # formulas/embed's, of formulas/*.md
named = []
for f in sorted(glob.glob("common/*/*.[ch]")):
    text = open(f).read()
    for inc in re.findall(r'#include "([^"]+)"', text):
        if inc not in ours:
            named.append("%s includes %s" % (f, inc))
    if f in ("common/run/runfiles.c", "common/config/config.c",
             "common/parse/marks.c"):
        continue
    for m in tools.finditer(re.sub(r"/\*.*?\*/", "", text, flags=re.S)):
        named.append("%s: %s" % (f, m.group(0)))
if not named:
    ok("common/ names no tool")
else:
    fail("common/ names no tool", "; ".join(named))

mods = {os.path.basename(f)[:-2] for f in glob.glob("common/*/*.c")}
borrowed = []
for f in sorted(glob.glob("common/*/*.c")):
    me = os.path.basename(f)[:-2]
    text = open(f).read()
    for fn in set(re.findall(r"^static [^;(]*?\b([a-z][a-z0-9_]*)\(", text,
                             re.M)):
        for m in mods:
            if m != me and fn.startswith(m + "_") and not me.startswith(m + "_"):
                borrowed.append("%s: %s" % (f, fn))
if not borrowed:
    ok("no static function borrows another module's prefix")
else:
    fail("no static function borrows another module's prefix",
         "; ".join(borrowed))
PY

# The build writes into the tree only files git ignores, and git tracks
# none of them: a tracked build output makes the tree "dirty" at the
# first build, and the next make (one a test starts) then relinks the
# executables while other tests run them.
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	tracked=$(git -C "$TOP" ls-files -ci --exclude-standard | tr '\n' ' ')
	check_eq "git tracks no file it ignores" "$tracked" ""
	for f in common/base/version.stamp dev-poll/dev-poll review-poll/review-poll \
	    supervisor-poll/supervisor-poll common/base/version.o \
	    formulas/embed formulas/template_builtin.inc formulas/templates.list \
	    tests/unit/test_pulls build/x; do
		check "build output $f is ignored" \
		    git -C "$TOP" check-ignore -q --no-index "$f"
	done
else
	echo "# not a git checkout: the ignored build outputs not checked"
fi
