#!/usr/bin/env bash
# tracer record --relay: the trace streamed to LTTng's own relay daemon
# (lttng-relayd, on loopback ports of the test's own), kernel and
# user-space events, read back by
# babeltrace2 from the relay's output directory and live through its
# lttng-live protocol; the relay killed while recording; two recorders as
# two sessions; bad URLs and unreachable relays refused in one line;
# relays that misbehave (fakes): too slow, refusing, not reading.
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
# The recorder has a /tmp of its own (an empty tmpfs in a mount namespace of
# its own; its directory is under the one /tmp hides): what it leaves there
# is its alone, whatever other tests make or remove in the machine's /tmp.
relay_only() {
	local dir
	mkdir "$work/cwd"
	(cd "$work/cwd" && unshare -m sh -c 'mount -t tmpfs tmpfs /tmp && "$@"; status=$?; ls -A /tmp >&3; exit $status' \
		sh "$tracer" record -e syscalls:sys_enter_getppid --relay "$URL" \
		--relay-session alone -- "$getppid" 700) >/dev/null 2>"$work/err" 3>"$work/tmp-left" ||
		{ diag "$work/err"; return 1; }
	dir=$(session_dir alone)
	[ -z "$(ls -A "$work/cwd")" ] && [ ! -s "$work/tmp-left" ] && [ -n "$dir" ] &&
		[ "$(calls_in "$dir")" = 700 ] &&
		grep -q ' events, [0-9.]* MiB in the relay ' "$work/err" ||
		{ diag "$work/err" "$work/tmp-left"; ls -A "$work/cwd" | diag; return 1; }
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

# Fake relays that misbehave, run as nobody: enough of the protocol for
# one recorder (user/record/relayd.c), each misbehaving as its MODE says.  Each
# writes its two ports to PORTS, and touches PORTS.N when command N comes.
# Their directory is theirs, outside $work (which the user nobody cannot
# enter).
fakes=$(mktemp -d /tmp/tracer-fake-relays.XXXXXX)
at_exit "rm -rf $fakes"
chown nobody:nogroup "$fakes"
cat >"$fakes/relay.py" <<'PY'
# trickle        ADD_STREAM's 12-byte reply, a byte every 4 s (48 s)
# trickle-index  ... SEND_INDEX's 4-byte reply (16 s), each time
# close-refuse   every CLOSE_STREAM answered with an error
# no-read        the data connection never read
import os, socket, struct, sys, threading, time
mode, ports = sys.argv[1], sys.argv[2]
OK = 10
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
    s.listen(1)
open(ports + ".tmp", "w").write("%d:%d" % tuple(s.getsockname()[1] for s in socks))
os.rename(ports + ".tmp", ports)
received = {}  # stream handle: the last net_seq_num whose bytes came
handles = 0

def read(conn, n):
    got = b""
    while len(got) < n:
        more = conn.recv(n - len(got))
        if not more:
            os._exit(0)
        got += more
    return got

def data():
    conn, _ = socks[1].accept()
    while True:
        _, stream, seq, size, _ = struct.unpack(">QQQII", read(conn, 32))
        read(conn, size)
        received[stream] = seq

if mode != "no-read":
    threading.Thread(target=data, daemon=True).start()
control, _ = socks[0].accept()
while True:
    _, size, cmd, _ = struct.unpack(">QQII", read(control, 24))
    payload = read(control, size)
    open("%s.%d" % (ports, cmd), "w").close()
    if cmd == 5:                              # VERSION
        reply = struct.pack(">II", 2, 13)
    elif cmd == 2:                            # CREATE_SESSION
        reply = struct.pack(">QI", 1, OK)
    elif cmd == 1:                            # ADD_STREAM
        handles += 1
        reply = struct.pack(">QI", handles, OK)
    elif cmd == 6:                            # SEND_METADATA: no reply
        continue
    elif cmd == 8:                            # DATA_PENDING: 1 while bytes are missing
        stream, last = struct.unpack(">QQ", payload[:16])
        reply = struct.pack(">I", 0 if received.get(stream, -1) >= last else 1)
    elif cmd == 7:                            # CLOSE_STREAM
        reply = struct.pack(">I", OK + 1 if mode == "close-refuse" else OK)
    else:                                     # STREAMS_SENT, SEND_INDEX
        reply = struct.pack(">I", OK)
    if (mode, cmd) in (("trickle", 1), ("trickle-index", 13)):
        for byte in reply:
            time.sleep(4)
            control.sendall(bytes([byte]))
    else:
        control.sendall(reply)
PY

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# The system's python3, which nobody may run (a user's pyenv, say, it may not).
fake_python=/usr/bin/python3
as_nobody "$fake_python" -c '' 2>/dev/null || fake_python=

# misbehaving_relay MODE: one started, its URL in FAKE_URL, its files FAKE.*.
misbehaving_relay() {
	rm -f "$fakes"/ports*
	FAKE=$fakes/ports
	as_nobody "$fake_python" "$fakes/relay.py" "$1" "$FAKE" 2>>"$fakes/log" &
	at_exit "kill $! 2>/dev/null"
	wait_until 30 test -s "$FAKE" || return 1
	FAKE_URL=net://127.0.0.1:$(cat "$FAKE")
}

# ends_with CODE PATTERN: the recorder's stderr ($work/err) has one line
# matching PATTERN (extended regex), and it exited CODE ($got).
ends_with() {
	[ "$got" = "$1" ] && [ "$(grep -cE -- "$2" "$work/err")" = 1 ] ||
		{ echo "# exit $got"; diag "$work/err"; return 1; }
}

# check_fake DESCRIPTION FUNCTION: check, or skip without the fakes' python3.
check_fake() {
	if [ -n "$fake_python" ]; then check "$@"; else skip "$1" "nobody cannot run /usr/bin/python3"; fi
}

# stopped_within SECONDS PID: PID (a child) ended, as SIGINTs sent to it
# every 50 ms asked, within SECONDS; its status in $got.
stopped_within() {
	wait_until "$1" sh -c "kill -INT $2 2>/dev/null; ! kill -0 $2 2>/dev/null" ||
		{ echo "# still running $1 s after SIGINT"; kill -KILL "$2"; }
	wait "$2"
	got=$?
}

# A relay that trickles its reply, a byte every 4 s: the command's one
# deadline (30 s) ends it, where a timeout per recv() never would.
relay_trickles() {
	misbehaving_relay trickle || return 1
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/trickle" --relay "$FAKE_URL" \
		-- "$getppid" 10 >/dev/null 2>"$work/err"
	got=$?
	ends_with 1 "^tracer record: --relay $(literally "$FAKE_URL"): the relay did not take the session's streams \(timed out after 30 s\)$" &&
		[ "$(wc -l <"$work/err")" = 1 ]
}
check_fake "a relay that trickles its reply: exit 1 at the command's deadline, one line" relay_trickles

# SIGINT while setting up, the relay trickling: the wait ends at once.
stop_while_trickling() {
	misbehaving_relay trickle || return 1
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/stopped" --relay "$FAKE_URL" \
		-- "$getppid" 10 >/dev/null 2>"$work/err" &
	local rec=$!
	wait_until 60 test -e "$FAKE.1" || { kill -KILL "$rec"; return 1; }
	stopped_within 20 "$rec"
	ends_with 1 "^tracer record: --relay $(literally "$FAKE_URL"): the relay did not take the session's streams \(stopped waiting at a signal\)$" &&
		[ "$(wc -l <"$work/err")" = 1 ]
}
check_fake "SIGINT while the relay trickles its first reply: the recording ends, exit 1, one line" stop_while_trickling

# Recording, the relay trickling each index's reply: SIGINT ends the
# recording; the streaming waits on no longer than a second one.
stop_while_streaming() {
	misbehaving_relay trickle-index || return 1
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/streaming" --relay "$FAKE_URL" \
		>/dev/null 2>"$work/err" &
	local rec=$!
	wait_until 60 test -e "$FAKE.13" || { kill -KILL "$rec"; return 1; }
	stopped_within 20 "$rec"
	ends_with 1 "^tracer record: the relay $(literally "$FAKE_URL") was too slow \(stopped waiting at a signal\) after 0 packets: streaming ended; the local trace goes on, complete$" &&
		[ -s "$work/streaming/metadata" ]
}
check_fake "SIGINT while the relay trickles an index's reply: the recording ends, exit 1, one line" stop_while_streaming

close_refused() {
	misbehaving_relay close-refuse || return 1
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/refused" --relay "$FAKE_URL" \
		-- "$getppid" 10 >/dev/null 2>"$work/err"
	got=$?
	ends_with 1 "^tracer record: the relay $(literally "$FAKE_URL") did not close every stream cleanly: what it received is written$"
}
check_fake "a relay that refuses CLOSE_STREAM: exit 1, one line" close_refused

# The data connection never read: its bytes fit the sockets' buffers, but
# the relay never says it has them (DATA_PENDING), so exit 1 at the deadline.
relay_never_reads() {
	misbehaving_relay no-read || return 1
	"$tracer" record -e syscalls:sys_enter_getppid -o "$work/unread" --relay "$FAKE_URL" \
		-- "$getppid" 10 >/dev/null 2>"$work/err"
	got=$?
	ends_with 1 "^tracer record: the relay $(literally "$FAKE_URL") did not confirm it received every packet \(timed out after 30 s\): what it received is written$"
}
check_fake "a relay that never reads the data: exit 1 at the deadline, one line" relay_never_reads

echo "1..$n"
