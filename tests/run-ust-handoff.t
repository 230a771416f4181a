#!/usr/bin/env bash
# libtracer-ust's handoff is a privilege boundary (issue 32): the recorder
# (tracer record, tracer ust dump) runs as root, and programs linked with
# the library, or their users, may be hostile.  A user who takes the
# registry's address first, or makes the socket a root program inherits,
# receives nothing from it; a memfd shrunk under a recorder's mapping
# kills neither record nor ust dump; a descriptor a program swaps behind
# its /proc link is never opened by root (no hang on a FIFO), with or
# without pidfd_getfd(); and a rewritten sub-buffer table makes neither
# the library's writer nor its dump step outside the buffer.
set -u
TEST_NAME=ust-handoff
. "$(dirname "$0")/lib.sh"
require_root "the hostile programs run as nobody, against root's recorder and programs"
HANOI=$BUILD/examples/hanoi
HOSTILE=$BUILD/tests/helpers/ust_hostile
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
# The hostile programs, run as nobody, reach what they are given in here.
chmod 711 "$work"

# Until FILE says "ready" (a program set itself up), at most 10 s.
wait_ready() {
	local i
	for i in $(seq 200); do
		grep -q '^ready$' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# In a network namespace of its own (so the registry's address is free),
# a squatter run by USER takes it as TYPE before a root hanoi starts:
# how many descriptors it received.
squatted() { # squatted USER TYPE
	local as=()
	[ "$1" = root ] || as=("${AS_NOBODY[@]}")
	rm -rf "$work/squat.out" "$work/hanoi-squatted"
	unshare -n bash -c '
		. "$1/wait_ready.sh"
		"${@:6}" "$2" squat "$3" >"$1/squat.out" 2>"$1/squat.err" &
		squatter=$!
		wait_ready "$1/squat.out" && "$4" "$5" >/dev/null 2>"$1/hanoi.err"
		kill -TERM "$squatter"
		wait "$squatter"' _ "$work" "$HOSTILE" "$2" "$HANOI" "$work/hanoi-squatted" "${as[@]}"
	sed -n 's/^received //p' "$work/squat.out"
}
declare -f wait_ready >"$work/wait_ready.sh"

check "a squatter run as nobody, a datagram socket: a root hanoi hands it nothing" \
	eval '[ "$(squatted nobody dgram)" = 0 ] || { diag "$work/squat.out" "$work/squat.err"; false; }'
# What refuses nobody is its credentials: root listening the same way gets them.
listening() {
	local nobody root
	nobody=$(squatted nobody seqpacket)
	root=$(squatted root seqpacket)
	[ "$nobody" = 0 ] && [ "$root" = 5 ] ||
		{ echo "# nobody received $nobody, root $root"; diag "$work/squat.err"; return 1; }
}
check "listening as a recorder does: hanoi hands nobody nothing, root its 5 descriptions and buffers" listening

# The socket a recorder gives its command is checked the same way: one
# that nobody made, handed to a root hanoi, receives nothing.
inherited() {
	local received
	received=$(unshare -n "$HOSTILE" pair "$HANOI" "$work/hanoi-pair" 2>"$work/pair.err" | sed -n 's/^received //p')
	[ "$received" = 0 ] || { echo "# received $received"; diag "$work/pair.err"; return 1; }
}
check "TRACER_UST_FD, a socket pair nobody made: a root hanoi hands it nothing" inherited

# The command hands its recorder a memfd, not sealed, then shrinks it once
# the recorder has it: the recorder refused it, and is alive to say so.
shrunk_under_record() {
	"$TRACER" record -e 'ust:*:*' -o "$work/shrink" -- unshare -n "${AS_NOBODY[@]}" "$HOSTILE" shrink \
		>/dev/null 2>"$work/rec.err"
	local status=$?
	[ "$status" = 0 ] &&
		grep -qx "  user space: refused 1 descriptors that were not libtracer-ust's sealed memory (not read)" \
			"$work/rec.err" ||
		{ echo "# exit $status"; diag "$work/rec.err"; return 1; }
}
check "record: a memfd not sealed, shrunk once handed over: refused, the recorder lives" shrunk_under_record

# A process holding a memfd, not sealed, that it shrinks as soon as a dump
# has opened and closed it: the dump refused it, and lives.
shrunk_under_dump() {
	unshare -n "${AS_NOBODY[@]}" "$HOSTILE" unsealed >"$work/unsealed.out" 2>&1 &
	local pid=$! status
	wait_ready "$work/unsealed.out" || { diag "$work/unsealed.out"; return 1; }
	"$TRACER" ust dump "$pid" -o "$work/unsealed-dump" 2>"$work/dump.err"
	status=$?
	kill "$pid"
	wait "$pid"
	[ "$status" = 0 ] &&
		grep -qx "tracer ust dump: 1 descriptors of process $pid were not libtracer-ust's sealed memory: refused, not read" \
			"$work/dump.err" && grep -q "(0 buffers)" "$work/dump.err" ||
		{ echo "# exit $status"; diag "$work/dump.err"; return 1; }
}
check "ust dump: a memfd not sealed, shrunk once opened: refused, the dump lives" shrunk_under_dump

# A file whose /proc link reads as a libtracer-ust buffer's: named
# "memfd:tracer-ust (deleted)" at the root of a tmpfs that is then
# detached, so that its path is "/memfd:tracer-ust (deleted)".  A program
# run as nobody holds it (read-only, not blocking); what it says at the
# end is how often another process opened it.  HOW: fifo or file.
hold_disguised() { # hold_disguised HOW (sets pid)
	mkdir -p "$work/m" && mount -t tmpfs -o mode=755 disguise "$work/m" || return 1
	at_exit "umount -l '$work/m' 2>/dev/null"
	local name="$work/m/memfd:tracer-ust (deleted)"
	if [ "$1" = fifo ]; then mkfifo -m 666 "$name"; else echo "root's alone" >"$name"; fi
	# The holder's shell truncates hold.out only once it runs: a "ready" left
	# by the one before must not pass for this one's (the tmpfs would be
	# detached before this one opened its file).
	rm -f "$work/hold.out"
	unshare -n "${AS_NOBODY[@]}" "$HOSTILE" hold "$name" >"$work/hold.out" 2>&1 &
	pid=$!
	wait_ready "$work/hold.out" && umount -l "$work/m" &&
		ls -l "/proc/$pid/fd" | grep -q ' -> /memfd:tracer-ust (deleted)$' ||
		{ diag "$work/hold.out"; return 1; }
}

# Its end (in this shell, which waits for it): opens, how often it saw its file opened.
stop_holder() {
	kill "$pid"
	wait "$pid"
	opens=$(sed -n 's/^opened //p' "$work/hold.out")
}

fifo_dump() {
	local status opens
	hold_disguised fifo || return 1
	timeout 20 "$TRACER" ust dump "$pid" -o "$work/fifo-dump" 2>"$work/dump.err"
	status=$?
	stop_holder
	[ "$status" = 0 ] && [ "$opens" = 0 ] &&
		grep -qx "tracer ust dump: 1 descriptors of process $pid were not libtracer-ust's sealed memory: refused, not read" \
			"$work/dump.err" ||
		{ echo "# exit $status (124: it hung)"; diag "$work/dump.err" "$work/hold.out"; return 1; }
}
check "ust dump: a FIFO behind a buffer's /proc link is not opened, no hang, refused" fifo_dump

# Where the kernel has no pidfd_getfd() (before 5.6; here a seccomp filter
# says ENOSYS), the link is opened instead, without blocking, and checked:
# said in one line, no hang on the FIFO, and a real program still dumped.
without_getfd() {
	local status ticker opens i
	hold_disguised fifo || return 1
	timeout 20 "$HOSTILE" without-pidfd-getfd "$TRACER" ust dump "$pid" -o "$work/fifo-dump2" 2>"$work/dump.err"
	status=$?
	stop_holder
	"$BUILD/tests/helpers/ustcheck" ticks 1000 10 2>/dev/null &
	ticker=$!
	# Until its first tick made its buffer, at most 10 s.
	for i in $(seq 200); do
		ls -l "/proc/$ticker/fd" 2>/dev/null | grep -q ' -> /memfd:tracer-ust (deleted)$' && break
		sleep 0.05
	done
	"$HOSTILE" without-pidfd-getfd "$TRACER" ust dump "$ticker" -o "$work/ticks-dump" 2>>"$work/dump.err"
	kill "$ticker"
	wait "$ticker"
	[ "$status" = 0 ] &&
		[ "$(grep -c "^tracer ust dump: note: this kernel cannot hand over another process's descriptors (pidfd_getfd, Linux 5.6): libtracer-ust's are opened through /proc, then checked$" "$work/dump.err")" = 2 ] &&
		grep -qx "tracer ust dump: 1 descriptors of process $pid were not libtracer-ust's sealed memory: refused, not read" \
			"$work/dump.err" &&
		grep -q "^tracer ust dump: [1-9][0-9]* events of process $ticker (1 buffers)" "$work/dump.err" ||
		{ echo "# exit $status (124: it hung)"; diag "$work/dump.err"; return 1; }
}
check "without pidfd_getfd: said once, a FIFO behind the link refused without a hang, a program dumped" without_getfd

file_record() {
	local status opens
	hold_disguised file || return 1
	"$TRACER" record -e 'ust:*:*' -p "$pid" --duration 1 -o "$work/file-rec" >/dev/null 2>"$work/rec.err"
	status=$?
	stop_holder
	[ "$status" = 0 ] && [ "$opens" = 0 ] &&
		grep -qx "  user space: refused 1 descriptors that were not libtracer-ust's sealed memory (not read)" \
			"$work/rec.err" ||
		{ echo "# exit $status"; diag "$work/rec.err" "$work/hold.out"; return 1; }
}
check "record -p: root's file behind a buffer's /proc link is not opened (read-write), refused" file_record

# Whoever holds a buffer's memfd may rewrite its sub-buffer table: the
# writer still writes inside its buffer, and a dump refuses the packets it
# names (a flight recorder's are left, a discard channel's said -EPROTO).
rewritten() {
	local status
	"$HOSTILE" rewrite 20000 "$work/rewritten" >"$work/rewrite.out" 2>"$work/rewrite.err"
	status=$?
	[ "$status" = 0 ] && printf 'wrote 40000\ndump: Protocol error\n' | cmp -s - "$work/rewrite.out" ||
		{ echo "# exit $status"; diag "$work/rewrite.out" "$work/rewrite.err"; return 1; }
}
check "a sub-buffer table rewritten to name sub-buffers far outside: the writer goes on inside, a dump refuses" rewritten

# A set-user-ID root program linked with the library, run by nobody, who
# names the crash dumps' directory: root writes no dump where nobody says.
setuid_environment() {
	local dir status
	dir=$(mktemp -d /tmp/tracer-setuid.XXXXXX) && chmod 755 "$dir" || return 1
	at_exit "rm -rf '$dir'"
	cp "$BUILD/tests/helpers/ustcheck" "$dir/ustcheck" && chmod 4755 "$dir/ustcheck" || return 1
	{ TRACER_UST_CRASH_DIR=$dir/crash "${AS_NOBODY[@]}" "$dir/ustcheck" crash 20; } 2>/dev/null
	status=$?
	[ "$status" = 139 ] && [ ! -e "$dir/crash" ] ||
		{ echo "# exit $status (139: SIGSEGV)"; ls -la "$dir" | diag -; return 1; }
}
check "a set-user-ID program: its user's TRACER_UST_CRASH_DIR ignored (no dump as root there)" setuid_environment

echo "1..$n"
