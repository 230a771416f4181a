#!/usr/bin/env bash
# tracer report on hostile trace directories, each made from a real recorded
# trace by one edit: lengths, formats, records, file types and packet order
# that a damaged disk or an attacker could leave.  Every one must give exit
# code 1 (never a signal, never a hang) and one line naming the file and,
# where there is one, the offset; what lies before the damage still prints.
set -u
TEST_NAME=report-hostile
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found

# Two real traces: 1000 getppid events on CPU 0 in 4 KiB packets (one event
# class, several packets), and a shell's sched events (several classes,
# __data_loc strings).
taskset -c 0 "$TRACER" record -e syscalls:sys_enter_getppid --subbuf-size 4K --buffer-size 64K \
	-o "$work/getppid" -- "$GETPPID" 1000 2>"$work/record.log" &&
	"$TRACER" record -e sched:sched_process_exec -e sched:sched_process_fork \
		-e sched:sched_switch -o "$work/sched" -- /bin/sh -c /bin/true 2>>"$work/record.log" ||
	{ diag "$work/record.log"; echo "1..0 # SKIP cannot record a trace"; exit 0; }

hostile() { # hostile BASE NAME: a copy of a recorded trace to damage
	rm -rf "${work:?}/$2"
	cp -r "$work/$1" "$work/$2"
	echo "$work/$2"
}

# Runs report on a damaged trace: exit code 1 within 10 s (124 is the
# guard expiring: a hang), PATTERN on one of at most MAX error lines.
report_refuses() { # report_refuses DIR PATTERN [MAX]
	timeout 10 "$TRACER" report "$1" >"$work/out" 2>"$work/err"
	local got=$? lines
	lines=$(wc -l <"$work/err")
	[ "$got" = 1 ] && grep -q -- "$2" "$work/err" && [ "$lines" -le "${3:-1}" ] ||
		{ echo "# exit $got (124: hung), $lines error lines"; diag "$work/err"; return 1; }
}

printed() { grep -c "$1" "$work/out"; }

# Python edits of one file: the bytes are "d", a bytearray, written back.
edit() { # edit FILE PYTHON
	python3 - "$1" "$2" <<'EOF'
import re, struct, sys
path, code = sys.argv[1], sys.argv[2]
d = bytearray(open(path, "rb").read())
exec(code)
open(path, "wb").write(d)
EOF
}

# Packet header fields by byte offset within a packet (layout.h); records
# start with a 24-byte event header.
TS_BEGIN=16 TS_END=24 CONTENT=32 PACKET_SIZE=40 SEQ=48

# --- .tracer/events lengths (finding 7) -----------------------------------------

format_length_past_the_file() {
	local t len
	# The last: the file's own size, one past what follows the first line.
	for len in 18446744073709551615 1099511627776 $(stat -c %s "$work/getppid/.tracer/events"); do
		t=$(hostile getppid "len$len")
		edit "$t/.tracer/events" "d[:] = re.sub(rb' [0-9]+\n', b' $len\n', d, count=1)"
		report_refuses "$t" "len$len/\.tracer/events: offset 0: format length $len runs past the end of the file" ||
			return 1
	done
	for len in 18446744073709551616 -1 0x10; do
		t=$(hostile getppid "len$len")
		edit "$t/.tracer/events" "d[:] = re.sub(rb' [0-9]+\n', b' $len\n', d, count=1)"
		report_refuses "$t" "\.tracer/events: offset 0: not an \"event ID SYSTEM NAME LENGTH\" line" || return 1
	done
}
check ".tracer/events: lengths of SIZE_MAX, 1 TiB or not a number are refused at their offset" \
	format_length_past_the_file

later_entry_damaged() {
	local t
	t=$(hostile sched bad-second-entry)
	edit "$t/.tracer/events" "
m = list(re.finditer(rb'event [0-9]+ sched \S+ ([0-9]+)\n', d))[1]
d[m.start(1):m.end(1)] = b'99999999'"
	local offset
	offset=$(grep -b -o '^event [0-9]* sched [a-z_]* 99999999' "$t/.tracer/events" | cut -d: -f1)
	report_refuses "$t" "\.tracer/events: offset $offset: format length 99999999 runs past" 20 &&
		[ "$(printed 'sched_process_exec:')" -ge 1 ] || { diag "$work/out"; return 1; }
}
check ".tracer/events: a damaged later entry leaves the events before it readable" later_entry_damaged

# --- formats (finding 8) ----------------------------------------------------------

# Replaces the format of the first event by TEXT, with its length.
set_format() { # set_format DIR PYTHON-BYTES
	edit "$1/.tracer/events" "
m = re.match(rb'(event [0-9]+ \S+ \S+ )([0-9]+)\n', d)
old = int(m.group(2))
new = $2
d[:] = m.group(1) + str(len(new)).encode() + b'\n' + new + d[m.end() + old:]"
}

FORMAT="d[m.end():m.end() + old]"

format_libtraceevent_cannot_parse() {
	local t
	t=$(hostile getppid no-name)
	set_format "$t" "$FORMAT.replace(b'name: ', b'nome: ')"
	report_refuses "$t" "\.tracer/events: offset 0: the format of event 0 (syscalls:sys_enter_getppid): .*; its records are skipped" 2 &&
		grep -q "channel0_0: record at offset [0-9]*: event id 0 has no usable format" "$work/err" || return 1
	t=$(hostile getppid cut-format)
	set_format "$t" "$FORMAT[:$FORMAT.index(b'offset:8') + 4]"
	report_refuses "$t" "the format of event 0 .*a field line is not" 2 || return 1
	t=$(hostile getppid binary-format)
	set_format "$t" "$FORMAT.replace(b'__syscall_nr', b'__sys\\x00call_nr')"
	report_refuses "$t" "the format of event 0 .*not printable text" 2
}
check "formats libtraceevent cannot parse, cut mid-field or binary: the event is unknown, no crash" \
	format_libtraceevent_cannot_parse

print_format_abuse() {
	local t
	# a print fmt libtraceevent would recurse on, divide by zero in, or read
	# a wide string for: its fields still print, plainly
	t=$(hostile getppid print-fmt)
	set_format "$t" "$FORMAT.replace(b'print fmt: \"\"', b'print fmt: \"%ls %d %d\", ' + b'(' * 10000 + b'REC->__syscall_nr' + b')' * 10000 + b', REC->__syscall_nr / 0, REC->__syscall_nr')"
	timeout 10 "$TRACER" report "$t" >"$work/out" 2>"$work/err"
	local got=$?
	[ "$got" = 0 ] && [ "$(printed '__syscall_nr=110$')" = 1000 ] ||
		{ echo "# exit $got"; diag "$work/err"; return 1; }
}
check "print formats with deep nesting, division by zero or %ls print the fields plainly" \
	print_format_abuse

# --- records against their format (finding 9) ---------------------------------------

field_offsets_past_the_record() {
	local t
	t=$(hostile getppid pid-far)
	set_format "$t" "$FORMAT.replace(b'common_pid;\toffset:4;', b'common_pid;\toffset:268435456;')"
	report_refuses "$t" "the format of event 0 .*: a field line is not" 2 || return 1
	t=$(hostile getppid pid-64k)
	set_format "$t" "$FORMAT.replace(b'common_pid;\toffset:4;', b'common_pid;\toffset:65535;')"
	report_refuses "$t" "the format of event 0 .*: a field lies beyond the first 64 KiB of its record" 2 || return 1
	# a field inside 64 KiB but past these 12-byte records: each is skipped
	t=$(hostile getppid nr-past)
	set_format "$t" "$FORMAT.replace(b'__syscall_nr;\toffset:8;', b'__syscall_nr;\toffset:4000;')"
	report_refuses "$t" "channel0_0: record at offset [0-9]*: field __syscall_nr (bytes 4000 to 4004) lies past the record's 12 bytes; record skipped" 1000 &&
		[ ! -s "$work/out" ]
}
check "fields past the record: common_pid at 268435456 or 65535, a field past a 12-byte record" \
	field_offsets_past_the_record

data_loc_past_the_record() {
	local t stream offset
	t=$(hostile sched loc-past)
	# the first sched_process_exec record (event 0), in whichever packet
	# it is (a flush under load may end the first packet before it): its
	# filename locator (payload offset 8) made to point 64 KiB on
	read -r stream offset < <(python3 - "$t" <<'EOF'
import glob, struct, sys
for path in sorted(glob.glob(sys.argv[1] + "/channel0_*")):
    d, base = open(path, "rb").read(), 0
    while base + 104 <= len(d):
        content, size = (x // 8 for x in struct.unpack_from("<QQ", d, base + 32))
        o = base + 104
        while o + 24 <= base + content:
            ts, id, length = struct.unpack_from("<QII", d, o)
            if id == 0:
                print(path.rsplit("/", 1)[1], o)
                sys.exit()
            o = (o + 24 + length + 7) & ~7
        if size <= 0:
            break
        base += size
EOF
)
	[ -n "$offset" ] || { echo "# no sched_process_exec record in the trace"; return 1; }
	edit "$t/$stream" "struct.pack_into('<I', d, $offset + 24 + 8, 0xffffffff)"
	report_refuses "$t" "$stream: record at offset $offset: the data of field filename (bytes 65535 to 131070) lies past the record's [0-9]* bytes; record skipped" &&
		[ "$(printed 'sched_switch:')" -ge 1 ]
}
check "a __data_loc locator past its record: the record is skipped, the others print" \
	data_loc_past_the_record

record_shorter_than_format() {
	local t
	t=$(hostile sched short-switch)
	edit "$t/.tracer/events" "d[:] = d.replace(b'next_prio;\toffset:60;', b'next_prio;\toffset:64;')"
	report_refuses "$t" "record at offset [0-9]*: field next_prio (bytes 64 to 68) lies past the record's 64 bytes; record skipped" 1000 &&
		[ "$(printed 'sched_switch:')" = 0 ] && [ "$(printed 'sched_process_exec:')" -ge 1 ]
}
check "records shorter than their format are skipped, one line each" record_shorter_than_format

# --- files that are not regular (finding 10) -----------------------------------------

not_regular_files() {
	local t
	t=$(hostile getppid fifo-events)
	rm "$t/.tracer/events" && mkfifo "$t/.tracer/events"
	report_refuses "$t" "fifo-events/\.tracer/events: not a regular file" || return 1
	t=$(hostile getppid fifo-stream)
	rm "$t/channel0_1" && mkfifo "$t/channel0_1"
	report_refuses "$t" "channel0_1: not a regular file; this stream is skipped" &&
		[ "$(printed getppid)" = 1000 ] || return 1
	t=$(hostile getppid link-stream)
	rm "$t/channel0_1" && ln -s /dev/zero "$t/channel0_1"
	report_refuses "$t" "channel0_1: a symbolic link, not followed; this stream is skipped" || return 1
	t=$(hostile getppid link-events)
	ln -sf /etc/passwd "$t/.tracer/events"
	report_refuses "$t" "link-events/\.tracer/events: a symbolic link, not followed"
}
check "a FIFO or symbolic link for .tracer/events or a stream: refused, no hang" \
	not_regular_files

# --- packet order (finding 11) ---------------------------------------------------------

packets() { echo $(($(stat -c %s "$1") / 4096)); }

# The first packets hold the state dump: the repeat comes after them.
repeated_packet() {
	local t
	t=$(hostile getppid repeated)
	[ "$(packets "$t/channel0_0")" -ge 6 ] || { echo "# too few packets"; return 1; }
	edit "$t/channel0_0" "d[16384:20480] = d[12288:16384]"
	report_refuses "$t" "channel0_0: packet at offset 16384: packet_seq_num 3 after 3: packet repeated or out of order; the rest of this stream is skipped" &&
		! grep -q LOST "$work/out" && [ "$(printed getppid)" -gt 0 ] && [ "$(printed getppid)" -lt 1000 ]
}
check "a repeated packet: reported at its offset, the packets before it print, no LOST" repeated_packet

packets_out_of_order() {
	local t
	t=$(hostile getppid swapped)
	edit "$t/channel0_0" "d[4096:8192], d[8192:12288] = d[8192:12288], d[4096:8192]"
	report_refuses "$t" "channel0_0: packet at offset 8192: packet_seq_num 1 after 2: packet repeated or out of order" || return 1
	t=$(hostile getppid back-in-time)
	edit "$t/channel0_0" "
end0 = struct.unpack_from('<Q', d, $TS_END)[0]
first = struct.unpack_from('<Q', d, 4096 + 104)[0]
struct.pack_into('<Q', d, 4096 + $TS_BEGIN, end0 - 1)
assert first >= end0 - 1"
	report_refuses "$t" "channel0_0: packet at offset 4096: packet begins at [0-9]* ns, before the previous one ended ([0-9]* ns)"
}
check "packets out of order or going back in time: reported at their offset" packets_out_of_order

misaligned_packet_size() {
	local t
	t=$(hostile getppid misaligned)
	edit "$t/channel0_0" "
content = struct.unpack_from('<Q', d, $CONTENT)[0]
struct.pack_into('<Q', d, $PACKET_SIZE, (content + 3) & ~3)"
	report_refuses "$t" "channel0_0: packet at offset 0: packet size is not its content rounded up to 4 KiB"
}
check "a packet_size not rounded to 4 KiB is refused" misaligned_packet_size

# --- channels: .tracer/channels and the packets' stream_id -----------------------

packet_of_another_channel() {
	local t
	t=$(hostile getppid other-channel)
	edit "$t/channel0_0" "struct.pack_into('<I', d, 4096 + 4, 1)"
	report_refuses "$t" "channel0_0: packet at offset 4096: packet of another channel; the rest of this stream is skipped"
}
check "a packet whose stream_id is another channel's is refused at its offset" packet_of_another_channel

# A channel that is not "channel ID NAME", an id out of range, a name that
# would be a path: one line, the channels before it read.
channels_file_damaged() {
	local t line
	for line in 'channel 1 ../../etc' 'channel 8 high' 'channel 0 again' 'chanel 1 x' 'channel 1 x y'; do
		t=$(hostile getppid channels)
		printf 'channel 0 channel0\n%s\n' "$line" >"$t/.tracer/channels"
		report_refuses "$t" ".tracer/channels: '$line' is not a new \"channel ID NAME\"; the channels after it are not read" &&
			[ "$(printed ' syscalls:sys_enter_getppid: ')" = 1000 ] || { echo "# with '$line'"; return 1; }
	done
}
check ".tracer/channels damaged: one line naming it, channel0's 1000 events still print" channels_file_damaged

echo "1..$n"
