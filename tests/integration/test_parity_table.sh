#!/bin/sh
# docs/PARITY.md, the parity tables against upstream's pollers: every
# table has rows, every row a parity mark (=, ≈, documented) and an
# upstream file:line, every "ours" cell names files that define the
# functions it names (a line starting with the name and "(", the return
# type on the line above, as the house style writes a definition), and a
# documented row says why.  The counts of each table are printed.
. "$(dirname "$0")/lib/common.sh"
t_setup
P=$TOP/docs/PARITY.md
check "docs/PARITY.md is in the tree" test -s "$P"

# rows FILE: "TABLE<TAB>UPSTREAM<TAB>OURS<TAB>PARITY<TAB>WHY" for every
# row of every table under a "## " heading.
rows() {
	awk -F'|' '
	/^## / { t = substr($0, 4); head = 0; next }
	/^\|/ {
		if (!head) { head = 1; next }	# the header row
		if ($2 ~ /^-+$/) next		# the separator row
		for (i = 2; i <= 6; i++) {
			gsub(/^ +| +$/, "", $i)
			gsub(/`/, "", $i)
		}
		printf "%s\t%s\t%s\t%s\t%s\n", t, $2, $4, $5, $6
		next
	}
	{ head = 0 }' "$1"
}

# defines FILE FUNC: FILE (from the top) has a definition of FUNC.
defines() {
	[ -f "$TOP/$1" ] && awk -v f="$2" '
	    index($0, f "(") == 1 && prev ~ /^[a-z]/ && prev !~ /;$/ { found = 1 }
	    { prev = $0 }
	    END { exit !found }' "$TOP/$1"
}

# problems FILE: one line per cell that breaks a rule.
problems() {
	rows "$1" | while IFS='	' read -r tab up ours par why; do
		case $up in
		*/*.sh:[0-9]*) ;;
		*) echo "$tab: '$up': not an upstream file:line" ;;
		esac
		case $par in
		'='|'≈'|documented) ;;
		*) echo "$tab $up: parity '$par' is none of = ≈ documented" ;;
		esac
		[ "$par" != documented ] || [ -n "$why" ] ||
		    echo "$tab $up: documented without a reason"
		[ -n "$ours" ] || echo "$tab $up: no function of ours"
		echo "$ours" | tr ',' '\n' | while read -r ref; do
			[ -n "$ref" ] || continue
			file=${ref%%:*} fn=${ref#*:}
			defines "$file" "$fn" ||
			    echo "$tab $up: '$ref': $file defines no $fn"
		done
	done
}

# counts FILE: per table, its rows and how many of each mark.
counts() {
	rows "$1" | awk -F'\t' '
	!($1 in n) { order[++k] = $1 }
	{ n[$1]++; c[$1, $4]++ }
	END {
		for (i = 1; i <= k; i++) {
			t = order[i]
			printf "%s: %d rows, %d =, %d ≈, %d documented\n", t,
			    n[t], c[t, "="], c[t, "≈"], c[t, "documented"]
		}
	}'
}

TABLES="dev/dev-poll.sh at 2394908
review/review-poll.sh at 2394908
dev/dev-poll.sh at 2308c4c
review/review-poll.sh at 2308c4c"
echo "$TABLES" | while read -r t; do
	n=$(rows "$P" | awk -F'\t' -v t="$t" '$1 == t' | wc -l)
	check "the table '$t' has rows" test "$n" -gt 0
done
check_eq "every row names an upstream line, a mark and functions of ours that exist" \
    "$(problems "$P")" ""
counts "$P" | sed 's/^/# /'

# The checks themselves: a function that is not defined, a declaration
# taken for a definition, a bad mark and a reason missing are caught.
cat >"$T/bad.md" <<'EOF'
## dev/dev-poll.sh at 0000000

| upstream | decision | ours | parity | how / why |
|---|---|---|---|---|
| dev/dev-poll.sh:1 | a | dev-poll/schedule.c:no_such_function | = | |
| dev/dev-poll.sh:2 | b | dev-poll/schedule.c:dp_backlog | same | |
| dev/dev-poll.sh:3 | c | dev-poll/schedule.c:dp_backlog | documented | |
| dev/dev-poll.sh:4 | d | dev-poll/dev-poll.h:dp_backlog | = | |
| dev/dev-poll.sh:5 | e | dev-poll/schedule.c:dp_backlog | ≈ | how |
EOF
check_eq "the faults of a bad table are found" "$(problems "$T/bad.md" | wc -l)" 4
check_eq "a bad table is counted" "$(counts "$T/bad.md")" \
    "dev/dev-poll.sh at 0000000: 5 rows, 2 =, 1 ≈, 1 documented"
