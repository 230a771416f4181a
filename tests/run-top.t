#!/usr/bin/env bash
# tracer top: --batch against workloads with known truth (tests/helpers/
# topcheck: exactly K getppid() calls a second, read() on a pipe written
# MS ms later, N fchdir(-1) that fail), the screen driven through tmux
# (views, sort, pause, resize, quit, SIGTERM, a terminal too small), losses
# shown when the buffers are tiny, --record's trace, and bad input.  Every
# wait is for a condition, with a guard far beyond what it needs.
set -u
TEST_NAME=top
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found

# topcheck under a name of this run's own: --comm counts it, not the
# topcheck of another run of this file on the same machine.
TOPCHECK_COMM=topcheck$$
TOPCHECK=$work/$TOPCHECK_COMM
cp "$BUILD/tests/helpers/topcheck" "$TOPCHECK" || exit 1

# A field of the JSON lines of FILE, by a Python expression over the list
# of snapshots `s` (python3 reads JSON here; the tracer writes it).
json() { # json FILE EXPRESSION
	python3 -c '
import json, sys
s = [json.loads(line) for line in open(sys.argv[1])]
def row(snap, view, key, value):
    return next((r for r in snap["views"][view] if r[key] == value), None)
print(eval(sys.argv[2]))' "$1" "$2"
}

lines() { [ -s "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

# --- batch: known truth --------------------------------------------------------------

# One top for the three workloads, one after the other, stopped once the
# last one shows: what it printed is in $work/truth.json.
start_truth() {
	"$TRACER" top --batch --output json --comm "$TOPCHECK_COMM" >"$work/truth.json" 2>"$work/truth.err" &
	truth=$!
	wait_until 120 lines "$work/truth.json" 1 || return 1
	# perf counts the failing calls too, at the same time: an oracle of its own.
	"$TOPCHECK" rate 2000 6 && "$TOPCHECK" wait 100 5 >"$work/wait.out" &&
		perf stat -x, -o "$work/perf.fchdir" -e syscalls:sys_exit_fchdir --filter 'ret < 0' -- \
		"$TOPCHECK" fail 777 >/dev/null || return 1
	wait_until 120 grep -q '"name":"fchdir","nr":81,"count":777' "$work/truth.json"
	local found=$?
	kill -INT "$truth"
	wait "$truth" || return 1
	return $found
}
check "top --batch --output json runs beside three known workloads" start_truth ||
	{ diag "$work/truth.err"; tail -n 3 "$work/truth.json" | cut -c1-2000 | diag; }

# The intervals wholly inside the run of `rate 2000 6` (the first and the
# last with getppid calls are partly outside): each shows 2000/s within 5%.
getppid_rate() {
	json "$work/truth.json" '" ".join("%.0f" % row(x, "syscalls", "name", "getppid")["per_s"]
		for x in s if row(x, "syscalls", "name", "getppid") and row(x, "syscalls", "name", "getppid")["per_s"] > 0)' \
		>"$work/rates"
	local rates inner
	read -r -a rates <"$work/rates"
	inner=("${rates[@]:1:${#rates[@]}-2}")
	echo "# getppid/s by interval: ${rates[*]}"
	[ "${#inner[@]}" -ge 3 ] || return 1
	for r in "${inner[@]}"; do
		[ "$r" -ge 1900 ] && [ "$r" -le 2100 ] || return 1
	done
}
check "2000 getppid() a second show as 2000/s (within 5%) in every whole interval" getppid_rate

# A field of a system call's row in the last snapshot, as a whole number.
last_syscall() { # last_syscall NAME KEY
	json "$work/truth.json" "int(row(s[-1], 'syscalls', 'name', '$1')['$2'])"
}

getppid_count() {
	local count
	count=$(last_syscall getppid count)
	echo "# $count getppid() counted of 12000"
	[ "$count" = 12000 ]
}
check "... and their count is exactly 2000 x 6" getppid_count

# read() blocked on the pipe for 100 ms or more each time, however late
# either thread ran: topcheck (static, its pipe's reads its only ones)
# says for each read() what its latency lies between (the writer's clock
# from seeing it blocked to writing; the reader's around the call).  Top's
# count is the workload's, its average between the bounds' averages, its
# p99 (the value at rank n - n/100, shown as the top of its 3%-wide
# bucket, or the max) between the bounds' values at that rank.
read_latency() {
	local verdict
	verdict=$(python3 - "$work/wait.out" "$(last_syscall read count)" "$(last_syscall read avg_ns)" \
		"$(last_syscall read p99_ns)" <<-'EOF'
		import sys
		bounds = [tuple(map(int, l.split()[1:])) for l in open(sys.argv[1]) if l.startswith("read ")]
		count, avg, p99 = map(int, sys.argv[2:])
		n = len(bounds)
		rank = n - n // 100
		lows, highs = sorted(b[0] for b in bounds), sorted(b[1] for b in bounds)
		avg_low, avg_high = sum(lows) // n, -(-sum(highs) // n)
		p99_low, p99_high = lows[rank - 1], highs[rank - 1] + highs[rank - 1] // 32
		print("%d calls of %d, average %d in [%d, %d], p99 %d in [%d, %d] ns: %s" % (count, n, avg,
		      avg_low, avg_high, p99, p99_low, p99_high, n > 0 and min(lows) >= 100000000 and count == n
		      and avg_low <= avg <= avg_high and p99_low <= p99 <= p99_high))
		EOF
	)
	echo "# read(): $verdict"
	[ "${verdict##* }" = True ]
}
check "read() on a pipe written 100 ms after it blocks: top's count, average and p99 latency within what the workload measured" read_latency

fchdir_errors() {
	local errors
	errors=$(last_syscall fchdir errors)
	echo "# fchdir(-1): $errors errors of 777"
	[ "$errors" = 777 ]
}
check "777 failing fchdir(-1) show exactly 777 errors" fchdir_errors

fchdir_as_perf_counts() {
	local perf errors
	perf=$(awk -F, '/sys_exit_fchdir/ { print $1 }' "$work/perf.fchdir")
	errors=$(last_syscall fchdir errors)
	echo "# perf stat counted ${perf:-nothing} failed fchdir exits, top $errors errors"
	[ "${perf:-x}" = "$errors" ]
}
check "... as many as perf stat counts on the same tracepoint at the same time" fchdir_as_perf_counts

nothing_late_or_lost() {
	local lost
	lost=$(json "$work/truth.json" 'sum(s[-1]["lost"][k] for k in ("full", "wrap", "big", "busy", "late", "unread_packets"))')
	[ "$lost" = 0 ] || { echo "# $lost lost or late"; return 1; }
}
check "... with nothing lost and nothing out of time order" nothing_late_or_lost

# --- sampling ------------------------------------------------------------------------

# --sample 25 reads a quarter of the (4 KiB, so many) sub-buffers: the
# count of a known 20000 x 6 calls is estimated within twice the 95% bound
# it shows (four standard errors), and that bound says something (under 25%).
sampled_estimate() {
	"$TRACER" top --batch --output json --comm "$TOPCHECK_COMM" --sample 25 --subbuf-size 4K \
		--buffer-size 256K -e raw_syscalls:sys_enter >"$work/sample.json" 2>"$work/sample.err" &
	local top=$! verdict
	wait_until 120 lines "$work/sample.json" 1 || return 1
	"$TOPCHECK" rate 20000 6
	wait_until 120 lines "$work/sample.json" 9
	kill -INT "$top"
	wait "$top" || return 1
	verdict=$(json "$work/sample.json" '(lambda r, x: "%.0f %.2f %s %s" % (r["count"], r["count_error_percent"],
		abs(r["count"] - 120000) <= 2 * r["count_error_percent"] / 100 * r["count"] and 0 < r["count_error_percent"] < 25,
		x["sample_percent"]))(row(s[-1], "syscalls", "name", "getppid"), s[-1])')
	echo "# estimate, its 95% bound (%), within twice it, share read: $verdict"
	[ "${verdict#* * }" = "True 25" ]
}
check "--sample 25: a known count estimated within its error bound" sampled_estimate ||
	diag "$work/sample.err"

# --- losses ------------------------------------------------------------------------

# 8 KiB per CPU cannot take a flood of system calls between flushes.
tiny_buffers_lose() {
	"$TRACER" top --batch --output json --buffer-size 8K --subbuf-size 4K \
		-e raw_syscalls:sys_enter >"$work/tiny.json" 2>"$work/tiny.err" &
	local top=$! full
	wait_until 120 lines "$work/tiny.json" 1 || return 1
	"$TOPCHECK" rate 200000 2
	wait_until 120 lines "$work/tiny.json" 4
	kill -INT "$top"
	wait "$top" || return 1
	full=$(json "$work/tiny.json" 's[-1]["lost"]["full"]')
	echo "# $full lost to full buffers"
	[ "$full" -gt 0 ]
}
check "tiny buffers: what they lost shows, by cause, in the JSON" tiny_buffers_lose ||
	diag "$work/tiny.err"

# --- --record ------------------------------------------------------------------------

record_too() {
	"$TRACER" top --batch --iterations 2 --record "$work/rec" >"$work/rec.out" 2>"$work/rec.err" || return 1
	local switches bt
	switches=$("$TRACER" report "$work/rec" | grep -c ' sched:sched_switch: ')
	bt=$(babeltrace2 "$work/rec" 2>/dev/null | grep -c ' sched:sched_switch: ')
	echo "# the trace: $switches switches, babeltrace2 reads $bt"
	[ "$switches" -gt 0 ] && [ "$switches" = "$bt" ] && grep -q '^--- tracer top: interval 2 ' "$work/rec.out" &&
		grep -q "^tracer top: .* events, .* in $work/rec" "$work/rec.err"
}
check "top --record DIR writes the trace record would (report and babeltrace2 read it)" record_too ||
	diag "$work/rec.err"

# --- bad input -----------------------------------------------------------------------

check "an unknown event is refused with a close name" \
	refused 2 "unknown event.*sched:sched_switch" top --batch -e sched:sched_swich
check "no terminal and no --batch: a clear error" \
	refused 2 "needs a terminal.*--batch" top </dev/null
check "--output without --batch is refused" refused 2 "add --batch" top --output json
check "--interval out of range is refused" refused 2 "^tracer top: --interval" top --batch --interval 0.01

# --- the screen, through tmux ----------------------------------------------------------

if ! command -v tmux >/dev/null; then
	for what in views sort pause filter help resize quit sigterm small reset lost; do
		skip "the screen: $what" "tmux is not installed"
	done
	echo "1..$n"
	exit 0
fi

# tmux servers of our own, whatever the user runs: one per screen, so
# that a server still exiting never meets the next session.
export TMUX_TMPDIR=$work
unset TMUX
screens=0
t() { tmux -L "screen$screens" "$@"; }
at_exit 't kill-server 2>/dev/null'

# Starts top ARGS... in a detached tmux session of WIDTH x HEIGHT; once top
# ends, the pane says how (EXIT=status) and whether the terminal is sane.
screen_start() { # screen_start WIDTH HEIGHT ARGS...
	local w=$1 h=$2
	shift 2
	t kill-server 2>/dev/null
	screens=$((screens + 1))
	t -f /dev/null new-session -d -s top -x "$w" -y "$h" \
		"TERM=screen $TRACER top $* 2>$work/screen.err; echo EXIT=\$?; stty -a | grep -q ' icanon .* echo ' && echo SANE; sleep 600"
}
pane() { t capture-pane -p -t top; }
pane_has() { pane | grep -qE -- "$1"; }
# This screen's top: the child of its pane's shell (not another run's top).
top_pid() { pgrep -x -P "$(t display-message -p -t top '#{pane_pid}')" tracer; }

screen_views() {
	screen_start 120 30 --interval 0.5 || return 1
	wait_until 120 pane_has 'interval [0-9]+ ' || return 1
	pane_has '^ *TID +PID COMMAND +CPU%\*' || return 1
	t send-keys -t top s
	wait_until 20 pane_has '^SYSCALL +NR +COUNT\*' || return 1
	t send-keys -t top e
	wait_until 20 pane_has '^EVENT +COUNT\* +RATE/S' || return 1
	wait_until 20 pane_has '^sched:sched_switch +[0-9]+' || return 1
	t send-keys -t top c
	wait_until 20 pane_has '^ *CPU\* +BUSY% +SWITCHES/S' || return 1
	t send-keys -t top Tab
	wait_until 20 pane_has '^ *TID +PID COMMAND'
}
check "the screen: t s e c and Tab switch the view" screen_views || pane | diag

screen_sort() {
	t send-keys -t top s
	wait_until 20 pane_has 'sort: COUNT' || return 1
	t send-keys -t top '>'
	wait_until 20 pane_has 'sort: RATE/S' || return 1
	pane_has '^SYSCALL +NR +COUNT +RATE/S\*' || return 1
	t send-keys -t top '<' '<'
	wait_until 20 pane_has 'sort: NR'
}
check "the screen: < and > change the sort column" screen_sort || pane | diag

# Paused, two captures an interval and more apart are the same; going on,
# the interval number moves again.
header() { pane | head -n 1; }
screen_pause() {
	t send-keys -t top p
	wait_until 20 pane_has 'PAUSED' || return 1
	local before after
	before=$(pane)
	sleep 1.5
	after=$(pane)
	[ "$before" = "$after" ] || { echo "# paused, yet the screen changed"; return 1; }
	paused_header=$(header)
	t send-keys -t top p
	wait_until 20 header_moved
}
header_moved() { [ "$(header)" != "$paused_header" ]; }
check "the screen: p pauses (nothing moves) and p again goes on" screen_pause || pane | diag

# f filters the tasks by a part of their name: the recorder's own threads
# (their switches off a CPU are recorded), and no task whose name does not
# hold the text (another tracer on the machine, say tracer.new, may show
# too, and take the rows the recorder's would).
screen_filter() {
	t send-keys -t top t f
	wait_until 20 pane_has 'filter tasks' || return 1
	t send-keys -t top tracer Enter
	wait_until 20 pane_has 'filter: tracer' || return 1
	wait_until 20 eval 'pane | sed -n "5,\$p" | grep -q "^ *[0-9]\+ \+[0-9]\+ [^ ]*tracer"' || return 1
	! pane | sed -n '5,$p' | grep '^ *[0-9]' | grep -vq '^ *[0-9]\+ \+[0-9]\+ [^ ]*tracer' || return 1
	t send-keys -t top f Enter
	wait_until 20 eval '! pane_has "filter: "'
}
check "the screen: f shows only the tasks whose name holds a text" screen_filter || pane | diag

screen_help() {
	t send-keys -t top h
	wait_until 20 pane_has '^ *r +counts begin again' || return 1
	t send-keys -t top x
	wait_until 20 eval '! pane_has "counts begin again"'
}
check "the screen: h shows the keys, any key closes them" screen_help || pane | diag

screen_resize() {
	t resize-window -t top -x 90 -y 18 || return 1
	wait_until 20 eval 'pane | sed -n 18p | grep -q "^q quit"' || return 1
	[ "$(pane | awk '{ if (length > max) max = length } END { print max }')" -le 90 ]
}
check "the screen: a resize redraws it to the new size" screen_resize || pane | diag

screen_quit() {
	t send-keys -t top q
	wait_until 30 pane_has '^EXIT=0' || return 1
	pane_has '^SANE' && ! pane_has 'q quit'
}
check "the screen: q quits, exit 0, the terminal as it was" screen_quit || pane | diag

screen_sigterm() {
	screen_start 100 24 || return 1
	wait_until 120 pane_has 'interval [0-9]+ ' || return 1
	kill -TERM "$(top_pid)"
	wait_until 30 pane_has '^EXIT=0' || return 1
	pane_has '^SANE'
}
check "the screen: SIGTERM ends it with the terminal as it was" screen_sigterm || pane | diag

screen_small() {
	screen_start 40 6 || return 1
	wait_until 60 pane_has 'terminal too small' || return 1
	t send-keys -t top q
	wait_until 30 pane_has '^EXIT=0'
}
check "the screen: a terminal too small says so" screen_small || pane | diag

# r: 300 failing fchdir(-1) counted, then counted again from nothing.
screen_reset() {
	screen_start 120 30 --interval 0.5 --comm "$TOPCHECK_COMM" -e raw_syscalls:sys_enter \
		-e raw_syscalls:sys_exit || return 1
	wait_until 120 pane_has 'interval [0-9]+ ' || return 1
	t send-keys -t top s
	"$TOPCHECK" fail 300 >/dev/null
	wait_until 30 pane_has '^fchdir +81 +300 ' || return 1
	t send-keys -t top r
	wait_until 30 eval '! pane_has "^fchdir "' || return 1
	t send-keys -t top q
	wait_until 30 pane_has '^EXIT=0'
}
check "the screen: r resets the counts" screen_reset || pane | diag

screen_lost() {
	screen_start 160 24 --buffer-size 8K --subbuf-size 4K -e raw_syscalls:sys_enter || return 1
	wait_until 120 pane_has 'interval [0-9]+ ' || return 1
	"$TOPCHECK" rate 200000 2
	wait_until 30 pane_has '^lost [1-9][0-9]* \(buffer full [1-9]' || return 1
	t send-keys -t top q
	wait_until 30 pane_has '^EXIT=0'
}
check "the screen: tiny buffers' losses show in the header" screen_lost || pane | diag

echo "1..$n"
