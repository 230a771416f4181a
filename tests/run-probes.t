#!/bin/bash
# Uprobes and uretprobes on this kernel (probes.h): the helper `probed N`
# calls tr_probed(i, 2i + 1) for i = 1..N, which returns 3i + 1.  Every
# call is recorded once at its entry with those arguments and once at its
# return with that value, in report and in babeltrace2; a --filter on an
# argument selects exactly its calls; and wrong specs are refused in one
# line before anything is recorded.
TEST_NAME=probes
. "$(dirname "$0")/lib.sh"
require_root "needs root for BPF and uprobes"
PROBED=$BUILD/tests/helpers/probed
N=1000

# values EVENT FIELD FILE: the FIELD values of EVENT's lines in report's
# (FIELD=0xHEX) or babeltrace2's (FIELD = DEC) text, in decimal, sorted.
values() {
	grep " $1: " "$3" | grep -oE "\b$2( = |=)(0x)?[0-9a-f]+" | sed 's/.*= *//' |
		while read -r v; do echo $((v)); done | sort -n
}
expected() { # expected FORMULA: FORMULA of i for i = 1..N, sorted
	for ((i = 1; i <= N; i++)); do echo $(($1)); done | sort -n
}

every_call_with_its_arguments() {
	"$TRACER" record -o "$work/t" -e "uprobe:$PROBED:tr_probed" \
		-e "uretprobe:$PROBED:tr_probed" -- "$PROBED" $N >/dev/null 2>"$work/record.log" ||
		{ diag "$work/record.log"; return 1; }
	"$TRACER" report "$work/t" >"$work/report.txt" 2>"$work/report.err" &&
		babeltrace2 "$work/t" >"$work/bt.txt" 2>"$work/bt.err" ||
		{ diag "$work/report.err" "$work/bt.err"; return 1; }
	expected i >"$work/arg1"
	expected '2 * i + 1' >"$work/arg2"
	expected '3 * i + 1' >"$work/ret"
	local file ok=0
	for file in report.txt bt.txt; do
		values uprobe:tr_probed arg1 "$work/$file" | cmp -s - "$work/arg1" &&
			values uprobe:tr_probed arg2 "$work/$file" | cmp -s - "$work/arg2" &&
			values uretprobe:tr_probed ret "$work/$file" | cmp -s - "$work/ret" ||
			{ echo "# $file: $(grep -c ' uprobe:tr_probed: ' "$work/$file") entries, $(grep -c ' uretprobe:tr_probed: ' "$work/$file") returns"; ok=1; }
	done
	return $ok
}
check "uprobe and uretprobe: each of $N calls once, with its arguments and return value (report, babeltrace2)" \
	every_call_with_its_arguments

filter_on_an_argument() {
	"$TRACER" record -o "$work/f" -e "uprobe:$PROBED:tr_probed" --filter 'arg1 <= 10' \
		-- "$PROBED" $N >/dev/null 2>"$work/f.log" || { diag "$work/f.log"; return 1; }
	"$TRACER" report "$work/f" >"$work/f.txt" &&
		[ "$(values uprobe:tr_probed arg1 "$work/f.txt" | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 10 " ]
}
check "--filter 'arg1 <= 10' records exactly the calls 1 to 10" filter_on_an_argument

refuses() { # refuses PATTERN SPEC: exit 2, one line matching PATTERN, no trace
	rm -rf "$out"
	"$TRACER" record -e "$2" -o "$out" -- /bin/true >"$work/stdout" 2>"$work/stderr"
	local got=$?
	[ "$got" = 2 ] && [ "$(wc -l <"$work/stderr")" = 1 ] && grep -q -- "$1" "$work/stderr" &&
		[ ! -e "$out" ] || { echo "# exit $got"; diag "$work/stderr"; return 1; }
}
check "a function the file lacks: refused, the closest named" \
	refuses "has no function 'tr_probe'; did you mean tr_probed?" "uprobe:$PROBED:tr_probe"
check "a file that is not there: refused" \
	refuses "$work/nosuch: No such file or directory" "uprobe:$work/nosuch:main"
check "a file that is no ELF: refused" refuses "is not an ELF file" "uprobe:$0:main"
check "no function in the spec: refused with the form" \
	refuses "as uretprobe:PATH:FUNCTION" "uretprobe:$PROBED"

echo "1..$n"
