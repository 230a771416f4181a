#!/usr/bin/env bash
# Probe targets, control sockets and export outputs that another local
# user or a damaged disk could leave: a FIFO named as a probe's file, an
# ELF file cut short, a control socket served by another user, a file
# owned by another user where export writes, and a disk that fills during
# a ctf export.  Each must end promptly (never a hang) in one clear line,
# follow nobody else's socket, and leave what it writes private and whole.
set -u
TEST_NAME=hostile-inputs
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF and running programs as nobody need root here"
keep_tracefs_as_found
PROBED=$BUILD/tests/helpers/probed
CONTROL_SERVER=$BUILD/tests/helpers/control_server

# tracer ARGS exits CODE within 10 s (124 is the guard expiring: a hang)
# with one line on stderr matching PATTERN (extended regex).
refuses_promptly() { # refuses_promptly CODE PATTERN ARGS...
	local code=$1 pattern=$2
	shift 2
	timeout -k 5 10 "$TRACER" "$@" >"$work/stdout" 2>"$work/stderr"
	local got=$? lines
	lines=$(wc -l <"$work/stderr")
	[ "$got" = "$code" ] && [ "$lines" = 1 ] && grep -qE -- "$pattern" "$work/stderr" ||
		{ echo "# exit $got (124: hung), $lines lines"; diag "$work/stderr"; return 1; }
}

# --- probe targets (issue 32, item 9) ---------------------------------------------

fifo_targets() {
	local fifo=$work/fifo
	mkfifo "$fifo" &&
		refuses_promptly 1 "^tracer list: $(literally "$fifo"): not a regular file$" list --usdt "$fifo" &&
		refuses_promptly 2 "^tracer record: $(literally "$fifo"): not a regular file$" \
			record -e "uprobe:$fifo:f" -o "$work/fifo.trace" -- true &&
		refuses_promptly 2 "^tracer record: $(literally "$fifo"): not a regular file$" \
			record -e "usdt:$fifo:p:n" -o "$work/fifo.trace" -- true &&
		[ ! -e "$work/fifo.trace" ]
}
check "a FIFO as a probe's file: list --usdt and record -e uprobe:/usdt: end at once, one line" \
	fifo_targets

# The helper cut short by its last 100 bytes: its section headers (at the
# end, as ld writes them) are no longer whole.
truncated_elf() {
	local cut=$work/probed.cut damaged
	head -c $(($(stat -c %s "$PROBED") - 100)) "$PROBED" >"$cut" || return 1
	damaged="^tracer (list|record): $(literally "$cut") is a damaged ELF file: its headers or sections lie past its end \(cut short\?\)$"
	refuses_promptly 1 "$damaged" list --usdt "$cut" &&
		refuses_promptly 2 "$damaged" record -e "uprobe:$cut:tr_probed" -o "$work/cut.trace" -- true &&
		refuses_promptly 2 "$damaged" record -e "usdt:$cut:tracer_test:step" -o "$work/cut.trace" -- true
}
check "an ELF file cut short is said to be damaged, not to lack the probe" truncated_elf

echo "1..$n"
