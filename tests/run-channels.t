#!/usr/bin/env bash
# record --channel: events sent to a channel (-e EVENT@NAME) have buffers
# of their own.  In overwrite mode a flood in the default channel never
# overwrites a rare event in another (and does without the channel); a
# discard channel of a flight recorder loses nothing across snapshots
# while the flood beside it overwrites; each channel's geometry is in the
# metadata and in its packets, read here from the stream files' bytes.
# Leaves tracefs mounted or not, as it found it.
set -u
TEST_NAME=channels
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found

# A small overwriting default channel, flooded by getppid().
FLOOD=(--flight-recorder --buffer-size 64K --subbuf-size 16K -e syscalls:sys_enter_getppid)

# 20 short processes exit, then 200,000 getppid() calls (about 17 MiB of
# records) on the same CPU: the exits are long overwritten in 64 KiB.
EXITS_THEN_FLOOD="for i in \$(seq 20); do /bin/true; done; $GETPPID 200000"

# The exits of /bin/true in a trace, as report and as babeltrace2 see them.
exits_in_report() { "$TRACER" report --raw "$1" | grep -c ' sched:sched_process_exit: .*comm=true '; }
exits_in_babeltrace2() { babeltrace2 "$1" | grep ' sched:sched_process_exit: ' | grep -c 'comm = "true"'; }

# "N overwritten" of the summary's lines for one channel.
overwritten() { # overwritten LOG CHANNEL
	grep " lost: .*(channel $2)\$" "$1" | grep -o '[0-9]* overwritten' |
		awk '{ n += $1 } END { print n + 0 }'
}

flood_spares_the_rare_channel() {
	local log=$work/rare.log trace=$work/rare/snapshot-1 calls
	"$TRACER" record -o "$work/rare" "${FLOOD[@]}" --channel rare:64K:8K \
		-e 'sched:sched_process_exit@rare' -- taskset -c 0 sh -c "$EXITS_THEN_FLOOD" 2>"$log" ||
		{ diag "$log"; return 1; }
	[ "$(exits_in_report "$trace")" = 20 ] && [ "$(exits_in_babeltrace2 "$trace")" = 20 ] ||
		{ echo "# report: $(exits_in_report "$trace"), babeltrace2: $(exits_in_babeltrace2 "$trace") exits of true"; return 1; }
	calls=$("$TRACER" report --raw "$trace" | grep -c ' syscalls:sys_enter_getppid: ')
	[ "$(overwritten "$log" channel0)" -gt 0 ] && [ "$calls" -gt 0 ] && [ "$calls" -lt 200000 ] ||
		{ echo "# the flood did not overwrite: $calls calls in the snapshot"; diag "$log"; return 1; }
	[ "$(overwritten "$log" rare)" = 0 ] || { diag "$log"; return 1; }
}
check "overwrite: 200,000 getppid() in channel0 overwrite their oldest, the 20 exits in channel rare all stay (report, babeltrace2)" \
	flood_spares_the_rare_channel

one_channel_loses_them() {
	local log=$work/one.log
	"$TRACER" record -o "$work/one" "${FLOOD[@]}" -e sched:sched_process_exit \
		-- taskset -c 0 sh -c "$EXITS_THEN_FLOOD" 2>"$log" || { diag "$log"; return 1; }
	[ "$(exits_in_report "$work/one/snapshot-1")" = 0 ] ||
		{ echo "# $(exits_in_report "$work/one/snapshot-1") exits left"; return 1; }
}
check "... and without the channel the same flood overwrites all 20 exits" one_channel_loses_them

# Each stream file's packets, from their bytes (include/tracer/layout.h):
# every packet names the file's channel as its stream_id and is at most
# the channel's sub-buffer.  Prints "FILE: N packets" per file.
packets_fit() { # packets_fit TRACE CHANNEL ID SUBBUF
	python3 - "$@" <<'EOF'
import glob, os, struct, sys
trace, channel, stream_id, subbuf = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
files = sorted(glob.glob(os.path.join(trace, channel + "_[0-9]*")))
ok = bool(files)
for path in files:
    data, at, n = open(path, "rb").read(), 0, 0
    while at < len(data):
        magic, sid = struct.unpack_from("<II", data, at)
        packet_size = struct.unpack_from("<Q", data, at + 40)[0] // 8
        if magic != 0xC1FC1FC1 or sid != stream_id or not 0 < packet_size <= subbuf:
            print("# %s: offset %d: magic %#x, stream_id %d, %d bytes" % (path, at, magic, sid, packet_size))
            ok = False
            break
        at, n = at + packet_size, n + 1
    print("# %s: %d packets" % (os.path.basename(path), n))
sys.exit(0 if ok else 1)
EOF
}

geometry_in_metadata_and_packets() {
	local trace=$work/rare/snapshot-1
	grep -q 'tracer_channel_0 = "channel0: 65536 bytes per CPU, sub-buffers of 16384, overwrite";' "$trace/metadata" &&
		grep -q 'tracer_channel_1 = "rare: 65536 bytes per CPU, sub-buffers of 8192, overwrite";' "$trace/metadata" ||
		{ grep tracer_channel "$trace/metadata" | diag; return 1; }
	packets_fit "$trace" channel0 0 16384 && packets_fit "$trace" rare 1 8192
}
check "each channel's geometry: in the metadata, and its packets (stream_id, size) in its stream files" \
	geometry_in_metadata_and_packets

# The fds of the close() calls in a trace, one per line.
fds_of() { # fds_of TRACE
	"$TRACER" report --raw "$1" | grep -o 'sys_enter_close: .* fd=0x[0-9a-f]*' |
		sed 's/.*fd=//' | while read -r hex; do echo $((hex)); done
}

# Three rounds of 1000 numbered close() calls (channel seq, discard, room
# for all of them) and 50,000 getppid() (channel0, overwritten), each
# round ending in a snapshot the command asks for; the end takes one more.
discard_channel_across_snapshots() {
	local log=$work/seq.log round="taskset -c 0 $GETPPID 1000 0 / seq; $GETPPID 50000; $TRACER snapshot -o $work/seq >/dev/null"
	"$TRACER" record -o "$work/seq" "${FLOOD[@]}" --channel seq:1M:discard \
		-e 'syscalls:sys_enter_close@seq' --filter 'fd >= 100000 && fd < 110000' \
		-- sh -c "$round && $round && $round" 2>"$log" || { diag "$log"; return 1; }
	grep -q '^tracer record: 4 snapshots, ' "$log" || { diag "$log"; return 1; }
	for snapshot in "$work"/seq/snapshot-*; do
		fds_of "$snapshot"
	done | sort -n | uniq -c | awk '{ print $1, $2 }' >"$work/seq.counts"
	# Every fd from 100000 to 100999, three times each.
	seq 100000 100999 | sed 's/^/3 /' | cmp -s - "$work/seq.counts" ||
		{ echo "# not every call three times:"; head -n 5 "$work/seq.counts" | diag; return 1; }
	[ "$(overwritten "$log" channel0)" -gt 0 ] && ! grep -q '(channel seq)' "$log" ||
		{ diag "$log"; return 1; }
}
check "discard channel of a flight recorder: 3 x 1000 calls across 4 snapshots, each exactly once a round, none lost, while channel0 overwrites" \
	discard_channel_across_snapshots

# ARGS | the message
bad_channels=(
	"-e sched:sched_switch@nosuch|--event 'sched:sched_switch@nosuch': no --channel nosuch"
	"--channel rare -e sched:sched_switch|--channel 'rare': not NAME:SIZE[:SUBBUF][:MODE]"
	"--channel a.b:64K -e sched:sched_switch|--channel 'a.b:64K': a channel name has 1 to 31 letters, digits, '-' or '_'"
	"--channel rare:64K:4K:fast -e sched:sched_switch|--channel 'rare:64K:4K:fast': MODE must be discard or overwrite"
	"--channel rare:64K:128K -e sched:sched_switch|--channel rare: bad buffer geometry (65536 bytes, sub-buffers of 131072)"
	"--channel channel0:64K -e sched:sched_switch|--channel 'channel0:64K': channel0 is the default channel"
	"--channel a:64K --channel a:8K -e sched:sched_switch|--channel 'a:8K': channel a is defined twice"
	"--channel ust:64K -e sched:sched_switch@ust|--channel 'ust:64K': channel ust holds user-space events"
	"--channel a:64K -e sched:sched_switch -e sched:sched_switch@a|-e sched:sched_switch sends sched:sched_switch to another channel"
)
for c in "${bad_channels[@]}"; do
	IFS='|' read -r args message <<<"$c"
	read -r -a argv <<<"$args"
	check "record $args refused" refused 2 "$(literally "tracer record: $message")" \
		record "${argv[@]}" -o "$out" -- /bin/true
done

too_many() {
	local argv=() i
	for i in 1 2 3 4 5 6 7 8; do
		argv+=(--channel "c$i:64K")
	done
	refused 2 "at most 7 channels besides channel0" record "${argv[@]}" -e sched:sched_switch -o "$out"
}
check "an eighth channel besides channel0 is refused" too_many

echo "1..$n"
