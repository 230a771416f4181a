#!/usr/bin/env bash
# The fuzzers, built with libFuzzer, AddressSanitizer and UBSan:
# report_fuzz over the trace reader and report (a trace directory's files),
# format_fuzz over the format sanitizer (what it accepts, libtraceevent must
# parse), filter_fuzz over the --filter compiler (a refusal is one line,
# what it accepts the interpreter runs as written).  Every input that ever
# made one fail replays cleanly; then each fuzzes from its seeds (small
# recorded traces, tracefs formats, expressions).  In the test command the
# search is the same every time (seed 1, a fixed number of inputs: about
# 30 s, 10 s and 5 s here), so it never fails by chance; with FUZZ_SECONDS
# (`make fuzz`) it runs that long from a random seed, formats and filters
# for a third of it each, and keeps the corpora.  Speeds are printed.
set -u
TEST_NAME=fuzz
. "$(dirname "$0")/lib.sh"
fuzz_seconds=${FUZZ_SECONDS:-}
fuzz=$(dirname "$0")/fuzz
corpora=${FUZZ_CORPUS:-$work}

for fuzzer in report_fuzz format_fuzz filter_fuzz; do
	if [ ! -x "$BUILD/fuzz/$fuzzer" ]; then
		echo "1..0 # SKIP $BUILD/fuzz/$fuzzer is not built (make $BUILD/fuzz/$fuzzer)"
		exit 0
	fi
done

# libtraceevent is not instrumented; what it leaks on its own error paths
# is not ours to fix.  The report's output and errors go to /dev/null.
export LSAN_OPTIONS="suppressions=$fuzz/lsan.supp:print_suppressions=0"
FLAGS=(-close_fd_mask=3 -timeout=10 -rss_limit_mb=2048)

replays() { # replays FUZZER CRASHERS
	"$BUILD/fuzz/$1" "${FLAGS[@]}" "$fuzz/$2"/* >"$work/replay.log" 2>&1 ||
		{ grep -v '^Executed\|^Running' "$work/replay.log" | tail -40 | diag; return 1; }
	echo "# $(ls "$fuzz/$2" | wc -l) inputs"
}
check "every input that made report_fuzz fail replays cleanly" replays report_fuzz crashers
check "every input that made format_fuzz fail replays cleanly" replays format_fuzz format-crashers
check "every input that made filter_fuzz fail replays cleanly" replays filter_fuzz filter-crashers

# A new failing input is left in $BUILD/fuzz/ to be added to the crashers.
fuzzes() { # fuzzes FUZZER LIMIT SEEDS CRASHERS: LIMIT is -runs=N or -max_total_time=S
	local corpus=$corpora/${1%_fuzz} got runs speed
	mkdir -p "$corpus"
	"$BUILD/fuzz/$1" "${FLAGS[@]}" "$2" -print_final_stats=1 \
		-artifact_prefix="$BUILD/fuzz/" "$corpus" "$fuzz/$3" "$fuzz/$4" >"$work/fuzz.log" 2>&1
	got=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log")
	echo "# $1 $2: ${runs:-?} executions, ${speed:-?} per second; corpus of $(ls "$corpus" | wc -l)"
	[ "$got" = 0 ] || {
		grep -A40 -m1 'ERROR\|runtime error\|refused\|out-of-memory\|timeout' "$work/fuzz.log" | diag
		grep 'Test unit written to' "$work/fuzz.log" | diag
		return 1
	}
}
if [ -n "$fuzz_seconds" ]; then
	report_limit=-max_total_time=$fuzz_seconds format_limit=-max_total_time=$((fuzz_seconds / 3))
	filter_limit=$format_limit
else
	FLAGS+=(-seed=1)
	report_limit=-runs=60000 format_limit=-runs=250000 filter_limit=-runs=100000
fi
check "fuzzing the trace reader and report ($report_limit): no crash, leak, hang or overflow" \
	fuzzes report_fuzz "$report_limit" corpus crashers
check "fuzzing the format sanitizer ($format_limit): libtraceevent parses what it accepts" \
	fuzzes format_fuzz "$format_limit" format-corpus format-crashers
check "fuzzing the --filter compiler ($filter_limit): one-line refusals, well-formed programs" \
	fuzzes filter_fuzz "$filter_limit" filter-corpus filter-crashers

echo "1..$n"
