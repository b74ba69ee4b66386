# Each libFuzzer harness (tests/fuzz/fuzz_<target>.c, built by make test
# into build/fuzz when clang has libFuzzer) runs for FUZZ_SECONDS (3)
# from its seeds in tests/fuzz/corpus/<target>/; one line per harness.
# A crash keeps its input in build/fuzz/artifacts/ for "make fuzz-long"
# or a rerun: build/fuzz/fuzz_<target> build/fuzz/artifacts/<file>.
. "$(dirname "$0")/lib/common.sh"
t_setup

FZ=$TOP/build/fuzz
secs=${FUZZ_SECONDS:-3}
mkdir -p "$FZ/artifacts"
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	t=${t#fuzz_}
	h=$FZ/fuzz_$t
	if [ ! -x "$h" ]; then
		echo "# fuzz_$t not built (no clang with libFuzzer): skipped"
		continue
	fi
	mkdir -p "$T/corpus/$t"
	if "$h" -max_total_time="$secs" -timeout=10 \
	    -artifact_prefix="$FZ/artifacts/$t-" "$T/corpus/$t" \
	    "$TOP/tests/fuzz/corpus/$t" >"$T/$t.log" 2>&1; then
		ok "fuzz_$t: $(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$T/$t.log") runs without a failure"
	else
		fail "fuzz_$t" "$(grep -m1 -E 'broken|ERROR|SUMMARY' "$T/$t.log")"
		grep -E '^(#|==|SUMMARY|artifact_prefix|Test unit written)' \
		    "$T/$t.log" | tail -15 | sed 's/^/#   /'
	fi
done
