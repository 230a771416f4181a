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

# --- the control socket (item 10) -----------------------------------------------------

# Serves DIR/.tracer/control as USER (root or nobody), answering REPLY once;
# returns when it listens.
serve_control() { # serve_control USER DIR REPLY
	mkdir -p "$2/.tracer" && chown -R "$1" "$2" || return 1
	coproc SERVER { unshare -n setpriv --reuid="$1" --regid="$(id -g "$1")" --clear-groups \
		"$CONTROL_SERVER" "$2/.tracer/control" "$3" 2>>"$work/server.err"; }
	local ready
	read -r -t 10 ready <&"${SERVER[0]}" && [ "$ready" = ready ] ||
		{ echo "# the control server did not start"; return 1; }
}

ESCAPES=$'\e]0;owned\a\e[2J\e[31m'

hostile_control_socket() {
	local dir=$work/hostile
	chmod o+x "$work" && serve_control nobody "$dir" "snapshot 1: ${ESCAPES}all is well" || return 1
	refuses_promptly 1 "^tracer snapshot: the control socket of $(literally "$dir") is served by uid $(id -u nobody), not by root or you: not asked" \
		snapshot -o "$dir" &&
		! grep -q $'\e' "$work/stdout" "$work/stderr" && [ ! -s "$work/stdout" ]
}
check "a control socket served by another user (nobody): refused, exit 1, nothing of its reply printed" \
	hostile_control_socket

# Even a recorder's own reply reaches the terminal only as printable text.
escapes_not_printed() {
	local dir=$work/rooted
	serve_control root "$dir" "snapshot 1: ${ESCAPES}in $dir/snapshot-1" || return 1
	timeout 10 "$TRACER" snapshot -o "$dir" >"$work/stdout" 2>"$work/stderr"
	local got=$?
	[ "$got" = 0 ] && ! grep -q $'\e' "$work/stdout" &&
		grep -qx "snapshot 1: ?]0;owned??\[2J?\[31min $(literally "$dir")/snapshot-1" "$work/stdout" ||
		{ echo "# exit $got"; diag "$work/stdout" "$work/stderr"; return 1; }
}
check "a root recorder's reply with escape codes: printed with '?' for each unprintable byte" \
	escapes_not_printed

# --- export outputs (item 11) -----------------------------------------------------------

"$TRACER" record -e syscalls:sys_enter_getppid -o "$work/t" -- "$GETPPID" 1000 2>"$work/record.log" ||
	{ diag "$work/record.log"; echo "1..$n"; exit 1; }

foreign_file_replaced() {
	local file=$work/foreign.txt
	echo "nobody's words" >"$file" && chown nobody:nogroup "$file" && chmod 644 "$file" &&
		"$TRACER" export --format text -o "$file" "$work/t" 2>"$work/export.err" &&
		"$TRACER" report "$work/t" | cmp -s - "$file" &&
		[ "$(stat -c '%u %a' "$file")" = "$(id -u) 600" ] ||
		{ stat -c '# %U %a %s bytes' "$file"; diag "$work/export.err"; return 1; }
}
check "export over another user's 0644 file: a new 0600 file of the exporter, with the events" \
	foreign_file_replaced

# A signal that ends export (here SIGXFSZ, the file size limit passed, as
# deterministic as a Ctrl-C is not) takes its new file with it: nothing
# hidden is left beside FILE, and an old FILE stays as it was.
killed_export() {
	local file=$work/killed.jsonl status
	echo "the old words" >"$file" || return 1
	{ (ulimit -f 8 && exec "$TRACER" export --format jsonl -o "$file" "$work/t" 2>"$work/export.err"); } \
		2>/dev/null # not bash's word that the limit ended it
	status=$?
	[ "$status" = $((128 + $(kill -l XFSZ))) ] && [ "$(cat "$file")" = "the old words" ] &&
		[ -z "$(find "$work" -maxdepth 1 -name '.killed.jsonl.*')" ] ||
		{ echo "# exit $status"; ls -la "$work" | diag -; diag "$work/export.err"; return 1; }
}
check "export ended by a signal (SIGXFSZ) mid-file: no new file left beside, the old one whole" \
	killed_export

# Pages of 4 KiB the files hold, as tmpfs counts them.
pages_kb() { stat -c %s "$@" | awk '{ kb += int(($1 + 4095) / 4096) * 4 } END { print kb }'; }

# Export --format ctf into a tmpfs of SIZE_KB: exit 1, one line matching
# PATTERN, and the tmpfs left empty.
ctf_into_small_disk() { # ctf_into_small_disk SIZE_KB PATTERN
	local small=$work/small-$1
	mkdir "$small" && mount -t tmpfs -o "size=$1k" tracer-hostile-test "$small" || return 1
	at_exit "umount $small"
	timeout 60 "$TRACER" export --format ctf -o "$small/copy" "$work/t" 2>"$work/ctf.err"
	local got=$?
	[ "$got" = 1 ] && [ "$(wc -l <"$work/ctf.err")" = 1 ] && [ -z "$(ls -A "$small")" ] &&
		grep -qE "$2" "$work/ctf.err" ||
		{ echo "# exit $got"; diag "$work/ctf.err"; find "$small" | diag; return 1; }
}

# The metadata and .tracer/ fit with 8 KiB to spare; the streams do not.
ctf_cut_short() {
	local meta_kb streams_kb
	meta_kb=$(pages_kb "$work/t/metadata" "$work/t"/.tracer/*)
	streams_kb=$(pages_kb "$work/t"/channel*)
	[ "$streams_kb" -gt 8 ] || { echo "# streams of $streams_kb KiB fit in 8"; return 1; }
	ctf_into_small_disk $((meta_kb + 8)) \
		"^tracer export: writing $(literally "$work/small-$((meta_kb + 8))/copy") failed: No space left on device$" &&
		ctf_into_small_disk 4 "^tracer export: cannot copy the trace's metadata into .*: No space left on device$"
}
check "a ctf export that fills the disk, in its streams or its metadata: one line, exit 1, nothing left" \
	ctf_cut_short

echo "1..$n"
