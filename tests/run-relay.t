#!/usr/bin/env bash
# tracer record --relay: the trace streamed to LTTng's own relay daemon
# (lttng-relayd, on loopback ports of the test's own), kernel and
# user-space events, read back by
# babeltrace2 from the relay's output directory and live through its
# lttng-live protocol; the relay killed while recording; two recorders as
# two sessions; bad URLs and unreachable relays refused in one line.
set -u
TEST_NAME=relay
. "$(dirname "$0")/lib.sh"
require_root "recording needs root here"
for tool in lttng-relayd babeltrace2 ss; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool is not installed (setup installs lttng-tools, babeltrace2, iproute2)"
		exit 0
	fi
done
keep_tracefs_as_found
tracer=$(realpath "$TRACER")
getppid=$(realpath "$GETPPID")

# The relay: ports of our own (three in a row from a free-looking base), its
# output in $work/relay, killed at exit.  Each relayd leaves its health
# socket in /var/run/lttng/relayd: removed, and the directories if they
# were not there before and are empty.
relay_out=$work/relay
[ -d /var/run/lttng ] || at_exit "rmdir /var/run/lttng 2>/dev/null; true"
[ -d /var/run/lttng/relayd ] || at_exit "rmdir /var/run/lttng/relayd 2>/dev/null; true"
start_relay() {
	local base
	for base in $((20000 + RANDOM % 20000)) $((20000 + RANDOM % 20000)) $((20000 + RANDOM % 20000)); do
		CONTROL=$base DATA=$((base + 1)) LIVE=$((base + 2))
		lttng-relayd -o "$relay_out" -C "tcp://127.0.0.1:$CONTROL" -D "tcp://127.0.0.1:$DATA" \
			-L "tcp://127.0.0.1:$LIVE" >"$work/relayd.log" 2>&1 &
		RELAYD=$!
		at_exit "kill $RELAYD 2>/dev/null; wait $RELAYD 2>/dev/null; rm -f /var/run/lttng/relayd/health-$RELAYD"
		# Listening on all three, or gone (a port was taken): then the next base.
		wait_until 30 sh -c "! kill -0 $RELAYD 2>/dev/null || [ \$(ss -Hltn '( sport = :$CONTROL or sport = :$DATA or sport = :$LIVE )' | wc -l) = 3 ]"
		kill -0 "$RELAYD" 2>/dev/null && return 0
	done
	return 1
}
start_relay || { echo "1..0 # SKIP lttng-relayd did not start: $(tail -n 1 "$work/relayd.log")"; exit 0; }
URL=net://127.0.0.1:$CONTROL:$DATA

# The session directory the relay made for NAME (HOST/NAME-DATE).
session_dir() { ls -d "$relay_out"/*/"$1"-* 2>/dev/null | head -n 1; }
# babeltrace2's count of getppid() calls in a trace directory.
calls_in() { babeltrace2 "$1" 2>/dev/null | grep -c 'syscalls:sys_enter_getppid'; }

# -o and --relay: the relay's files are the local ones, byte for byte, and
# babeltrace2 reads the 1000 calls from them.
both() {
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/both" --relay "$URL" \
		-- "$getppid" 1000 >/dev/null 2>"$work/err" || { diag "$work/err"; return 1; }
	local dir f
	dir=$(session_dir both)
	[ -n "$dir" ] && cmp "$work/both/metadata" "$dir/metadata" || { diag "$work/err"; return 1; }
	for f in "$work"/both/channel0_*; do
		cmp "$f" "$dir/$(basename "$f")" || return 1
	done
	babeltrace2 "$dir" >"$work/both.txt" 2>"$work/bt.err" &&
		[ "$(grep -c 'syscalls:sys_enter_getppid' "$work/both.txt")" = 1000 ] &&
		diff <(babeltrace2 "$work/both" 2>&1) "$work/both.txt" >/dev/null &&
		grep -q "^  relay: [0-9]* packets to $URL, in $(hostname | cut -c1-63)/both-" "$work/err" ||
		{ diag "$work/err" "$work/bt.err"; return 1; }
}
check "-o and --relay: the relay's copy is the local one byte for byte, babeltrace2 reads it" both

# User-space events too: each buffer a stream of the relay's as it is
# found, the events' metadata before their packets; the same bytes.
ust_streams() {
	"$tracer" record -e ust:ust:step -e syscalls:sys_enter_getppid -o "$work/ust" --relay "$URL" \
		-- "$(realpath "$BUILD/tests/helpers/ustcheck")" alternate 300 >/dev/null 2>"$work/err" ||
		{ diag "$work/err"; return 1; }
	local dir f
	dir=$(session_dir ust)
	for f in "$work"/ust/ust_* "$work/ust/metadata"; do
		cmp "$f" "$dir/$(basename "$f")" || { diag "$work/err"; return 1; }
	done
	[ "$(babeltrace2 "$dir" 2>"$work/bt.err" | grep -c ' ust:step: ')" = 300 ] &&
		[ "$(calls_in "$dir")" = 300 ] || { diag "$work/err" "$work/bt.err"; return 1; }
}
check "-e ust: with --relay: the buffers' streams and their metadata at the relay, the same bytes" ust_streams

# --relay alone: no trace directory, nothing left in /tmp, the relay has it all.
relay_only() {
	local before after dir
	before=$(ls -d /tmp/tracer-relay-* 2>/dev/null | wc -l)
	mkdir "$work/cwd"
	(cd "$work/cwd" && "$tracer" record -e syscalls:sys_enter_getppid --relay "$URL" \
		--relay-session alone -- "$getppid" 700) >/dev/null 2>"$work/err" ||
		{ diag "$work/err"; return 1; }
	after=$(ls -d /tmp/tracer-relay-* 2>/dev/null | wc -l)
	dir=$(session_dir alone)
	[ -z "$(ls -A "$work/cwd")" ] && [ "$before" = "$after" ] && [ -n "$dir" ] &&
		[ "$(calls_in "$dir")" = 700 ] &&
		grep -q ' events, [0-9.]* MiB in the relay ' "$work/err" ||
		{ diag "$work/err"; ls -A "$work/cwd" | diag; return 1; }
}
check "--relay without -o: no directory here or in /tmp, the relay has the trace" relay_only

# Live: babeltrace2 attached through lttng-live sees each getppid() while
# the recording goes on.  The command makes calls until the reader shows
# one (it has attached: what came before, it never shows), then 5 more,
# each only once the reader has printed the one before, by its thread id,
# within 10 s (100 flush periods); else it fails.
live() {
	local rec reader
	"$tracer" record -e syscalls:sys_enter_getppid --relay "$URL" --relay-live \
		--relay-session live -- sh -c "
			seen() { # seen PID TRIES: the reader printed PID's call, tried every 50 ms
				n=0
				until grep -q 'sys_enter_getppid: .* tid = '\$1' }' '$work/live.txt'; do
					n=\$((n + 1)); [ \$n -lt \$2 ] || return 1; sleep 0.05
				done
			}
			n=0
			until '$getppid' 1 & seen \$! 6; do n=\$((n + 1)); [ \$n -lt 200 ] || exit 8; done
			for i in 1 2 3 4 5; do
				'$getppid' 1 & seen \$! 200 || exit 9
			done" >/dev/null 2>"$work/err" &
	rec=$!
	wait_until 60 sh -c "[ -n \"\$(ls -d '$relay_out'/*/live-* 2>/dev/null)\" ]" || { kill "$rec"; return 1; }
	stdbuf -oL babeltrace2 --input-format=lttng-live \
		"net://127.0.0.1:$LIVE/host/$(hostname | cut -c1-63)/live" >"$work/live.txt" 2>"$work/live.err" &
	reader=$!
	wait "$rec" || { echo "# the command exited $?"; diag "$work/err" "$work/live.err"; kill "$reader"; return 1; }
	# The session closed: the reader ends by itself.
	wait_until 60 sh -c "! kill -0 $reader 2>/dev/null" || { kill "$reader"; return 1; }
	wait "$reader"
}
check "--relay-live: babeltrace2's lttng-live sees each event while recording, within 10 s" live

# The relay killed while recording: said once, exit 1, the local trace
# complete, the relay's readable up to where it was.
relay_killed() {
	local relay_pid=$RELAYD got
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/killed" --relay "$URL" -- sh -c "
		'$getppid' 1000
		until [ -e '$work/go' ]; do sleep 0.05; done
		'$getppid' 1000" >/dev/null 2>"$work/err" &
	local rec=$!
	# The first thousand at the relay, then it dies, then the second thousand.
	wait_until 60 sh -c "[ \$(babeltrace2 '$relay_out'/*/killed-* 2>/dev/null | grep -c sys_enter_getppid) -ge 1000 ]" ||
		echo "# the first thousand calls did not reach the relay in 60 s"
	kill -9 "$relay_pid"
	wait "$relay_pid" 2>/dev/null
	touch "$work/go"
	wait "$rec"
	got=$?
	[ "$got" = 1 ] &&
		[ "$(grep -c 'went away' "$work/err")" = 1 ] &&
		grep -q 'streaming ended; the local trace goes on, complete' "$work/err" &&
		[ "$("$TRACER" report "$work/killed" | grep -c 'syscalls:sys_enter_getppid:')" -ge 2000 ] &&
		babeltrace2 "$relay_out"/*/killed-* >/dev/null 2>"$work/bt.err" ||
		{ echo "# exit $got"; diag "$work/err" "$work/bt.err"; return 1; }
}
check "the relay killed while recording: one line, exit 1, the local trace whole" relay_killed
start_relay || { echo "# lttng-relayd did not start again"; exit 1; }
URL=net://127.0.0.1:$CONTROL:$DATA

# Two recorders at once, two sessions of the same relay, both complete.
two_sessions() {
	"$tracer" record -e syscalls:sys_enter_getppid --relay "$URL" --relay-session one \
		-- "$getppid" 400 >/dev/null 2>"$work/one.err" &
	local first=$!
	"$tracer" record -e syscalls:sys_enter_getppid --relay "$URL" --relay-session two \
		-- "$getppid" 600 >/dev/null 2>"$work/two.err" || { diag "$work/two.err"; return 1; }
	wait "$first" || { diag "$work/one.err"; return 1; }
	local one two
	one=$(calls_in "$(session_dir one)")
	two=$(calls_in "$(session_dir two)")
	[ "$one" = 400 ] && [ "$two" = 600 ] || { echo "# one $one, two $two"; return 1; }
}
check "two recorders, two sessions of one relay, each complete" two_sessions

check "--relay with a URL that is not lttng's: exit 2, one line" \
	refused 2 '--relay tcp://127.0.0.1: an lttng relay URL is net://' \
	record -e sched:sched_switch -o "$out" --relay tcp://127.0.0.1 -d 1
check "--relay with a port out of range: exit 2, one line" \
	refused 2 'ports 1 to 65535' record -e sched:sched_switch -o "$out" --relay net://127.0.0.1:70000 -d 1
check "--relay to a port nobody listens on: exit 1, one line, no directory" \
	refused 1 'cannot connect to 127.0.0.1 port 1: Connection refused' \
	record -e sched:sched_switch -o "$out" --relay net://127.0.0.1:1:2 -d 1
check "--relay-live without --relay: exit 2, one line" \
	refused 2 'go with --relay' record -e sched:sched_switch -o "$out" --relay-live -d 1
check "--relay with --flight-recorder: exit 2, one line" \
	refused 2 'not streamed yet' record -e sched:sched_switch -o "$out" --relay "$URL" --flight-recorder -d 1

# A relay that answers the version with another major: refused, naming both.
fake_relay() {
	python3 - "$work/fake.ports" <<'PY' &
import socket, struct, sys
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
    s.listen(1)
open(sys.argv[1] + ".tmp", "w").write("%d:%d" % tuple(s.getsockname()[1] for s in socks))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
socks[0].settimeout(60)
control, _ = socks[0].accept()
control.settimeout(60)
got = b""
while len(got) < 32:
    got += control.recv(32 - len(got))
control.sendall(struct.pack(">II", 3, 0))
control.recv(1)
PY
	local fake=$!
	wait_until 30 test -s "$work/fake.ports"
	refused 1 'the relay speaks protocol 3\.0; tracer speaks 2\.8 to 2\.x' \
		record -e sched:sched_switch -o "$out" --relay "net://127.0.0.1:$(cat "$work/fake.ports")" -d 1
	local got=$?
	kill "$fake" 2>/dev/null
	wait "$fake" 2>/dev/null
	return $got
}
check "a relay of another protocol version: exit 1, one line naming both" fake_relay

echo "1..$n"
