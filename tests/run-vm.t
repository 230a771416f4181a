#!/usr/bin/env bash
# tracer inside Debian's own kernels: for each kernel, fetch it (tests/vm/
# fetch-kernel), build the companion module for it if kmod/ has one, pack
# tracer and the guest tests into an initramfs, boot it under qemu, and judge
# what comes back: the guest's own checks, a clean kernel log, and the traces
# it recorded, read here with `tracer report` and babeltrace2.
# A kernel is skipped only when apt cannot provide it (no such package, no
# network); every other failure is a failure.
set -u
export BUILD=${BUILD:-build}
TRACER=$BUILD/tracer
VM=tests/vm
# The newest Debian 12 cloud kernel of each series: the backported 6.12 and
# the release's own 6.1 (its verifier and kfunc rules are the older ones).
kernel_patterns=('6\.12\.[0-9]+\+deb12-cloud-amd64' '6\.1\.0-[0-9]+-cloud-amd64')

n=0
check() { # check DESCRIPTION COMMAND...: one TAP line, and the command's status
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		return 1
	fi
}
skip() { # skip DESCRIPTION REASON
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
diag() { sed 's/^/# /' "$@"; }

# Seconds since $1 (a `date +%s.%N`), to one decimal.
since() { echo "$(date +%s.%N) $1" | awk '{ printf "%.1f", $1 - $2 }'; }

for tool in qemu-system-x86_64 pahole zstd lz4 babeltrace2 /bin/busybox; do
	command -v "$tool" >/dev/null ||
		{ echo "Bail out! $tool is missing: run ./setup --deps-only"; exit 1; }
done
[ -x "$TRACER" ] && [ -x "$BUILD/tests/helpers/getppid_n" ] ||
	{ echo "Bail out! $TRACER or its test helpers are not built: run make"; exit 1; }

# --- host-side checks of one VM run (globals: kver, run) -------------------------

# Compiler warnings are shown even when the module builds.
module_built() {
	"$VM/build-module" "$vm" >"$vm/build-module.log" 2>&1
	local status=$?
	diag "$vm/build-module.log"
	return $status
}

# The guest check that was running at line LINE of the console, and when:
# the guest writes "tracer-vm: check: WHAT" to the kernel log as each check
# begins, so the last one before LINE names it.  LINE's own kernel time
# stamp, if it has one, says when the kernel spoke.
running_check() { # running_check LINE
	tr -d '\r' <"$run/console" | head -n "$1" | awk -v line="$1" '
		function stamp(s) {
			if (!match(s, /^\[ *[0-9]+\.[0-9]+\]/))
				return ""
			s = substr(s, RSTART + 1, RLENGTH - 2)
			sub(/^ */, "", s)
			return s
		}
		/tracer-vm: check: / { what = $0; sub(/.*tracer-vm: check: /, "", what); began = stamp($0) }
		NR == line { at = stamp($0) }
		END {
			if (what == "") { print "# before the first guest check"; exit }
			printf "# while the guest ran the check \"%s\" (begun at guest uptime %s s)", what, began
			if (at != "")
				printf "; the kernel spoke at %s s", at
			print ""
		}'
}

booted_and_completed() {
	grep -a -q '^@@DONE' "$run/results" && return 0
	echo "# no completion marker; the console ends with:"
	tail -n 15 "$run/console" | diag
	running_check "$(wc -l <"$run/console")"
	return 1
}

# A WARN() reaches the console as it happens (loglevel=5), and /init dumps dmesg there.
# A report is shown whole (its call trace, registers and what came just
# before): a crash that happens once in many runs must be readable from
# the one log that has it.
kernel_log_clean() {
	[ -s "$run/console" ] || return 1
	local first
	first=$(grep -a -n -m1 -E 'Oops|WARNING:|BUG:|Call Trace|Kernel panic|kernel stack overflow' \
		"$run/console" | cut -d: -f1)
	[ -z "$first" ] && return 0
	echo "# the kernel's report, from line $first of the console:"
	running_check "$first"
	tr -d '\r' <"$run/console" | sed -n "$((first > 20 ? first - 20 : 1)),$((first + 120))p" | diag
	impossible_rflags
	return 1
}

# A report whose RFLAGS no 64-bit code can hold says so: VM (bit 17) or a
# reserved bit (3, 5, 15, 22 and up) set.  iret and popf never load them,
# and the kernel never gives them to sysret, so neither the guest's code
# nor its memory put them there: the emulated CPU's state went wrong (a
# double fault at a pushf, then, is qemu's #GP on an IOPL-sensitive
# instruction "in virtual-8086 mode", whose delivery faults again).
impossible_rflags() {
	local flags
	for flags in $(tr -d '\r' <"$run/console" | grep -a -o 'EFLAGS: [0-9a-f]*' | cut -d' ' -f2 | sort -u); do
		(((0x$flags & 0xffffffffffc28028) != 0)) &&
			echo "# RFLAGS $flags has bits no 64-bit x86 code can set: the emulated CPU's state, not the guest, went wrong"
	done
	return 0
}

# The guest's "ok - X" / "not ok - X" lines, as TAP lines of this script.
relay_guest_checks() {
	[ -e "$run/results" ] || return 0
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) n=$((n + 1)); echo "ok $n - $kver, in the VM: ${line#ok - }" ;;
		"not ok - "*) n=$((n + 1)); echo "not ok $n - $kver, in the VM: ${line#not ok - }" ;;
		"# "*) echo "$line" ;;
		esac
	done < <(tr -d '\r' <"$run/results")
}

# A trace the guest recorded and sent back, with its CTF metadata.
came_back() { # came_back TRACE
	[ -e "$run/traces/$1/metadata" ] || { echo "# the VM sent no $1 trace"; return 1; }
}

report_of() { # report_of TRACE: tracer report's lines in $run/TRACE.report
	came_back "$1" || return 1
	"$TRACER" report --raw "$run/traces/$1" >"$run/$1.report" 2>"$run/$1.report-err" ||
		{ diag "$run/$1.report-err"; return 1; }
}

getppid_exact_in_report() { # getppid_exact_in_report TRACE
	report_of "$1" || return 1
	local events who
	events=$(grep -c ' syscalls:sys_enter_getppid: ' "$run/$1.report")
	who=$(grep ' syscalls:sys_enter_getppid: ' "$run/$1.report" | awk '{ print $1, $2 }' | sort -u)
	[ "$events" = 1000 ] && [ "$(echo "$who" | wc -l)" = 1 ] && [ "${who% *}" = getppid_n ] ||
		{ echo "# $events events from: $who"; return 1; }
}

# babeltrace2's output in $run/TRACE.bt.  It reads the trace without error:
# its only messages are its warnings about discarded events (a trace in
# discard mode may lose some), and they say what the packets count.
babeltrace2_of() { # babeltrace2_of TRACE
	came_back "$1" || return 1
	babeltrace2 "$run/traces/$1" >"$run/$1.bt" 2>"$run/$1.bt-err" ||
		{ head -n 20 "$run/$1.bt-err" | diag; return 1; }
	local counted='^WARNING: Tracer discarded [0-9]+ events? between .* within stream .*\.$'
	local uncounted='^WARNING: Tracer may have discarded events between .* within stream .*\.$'
	! grep -v -E -e "$counted" -e "$uncounted" "$run/$1.bt-err" >"$run/$1.bt-other" ||
		{ head -n 20 "$run/$1.bt-other" | diag; return 1; }
	local warned in_packets
	warned="$(grep -E "$counted" "$run/$1.bt-err" | awk '{ n += $4 } END { print n + 0 }')"
	warned="$warned $(grep -c -E "$uncounted" "$run/$1.bt-err")"
	in_packets=$("$VM/discarded-events" "$run/traces/$1") || return 1
	[ "$warned" = "$in_packets" ] || {
		echo "# babeltrace2 warns of $warned (events discarded, streams beginning with a loss), the packets count $in_packets"
		return 1
	}
}

getppid_exact_in_babeltrace2() { # getppid_exact_in_babeltrace2 TRACE
	babeltrace2_of "$1" || return 1
	local events pids report_pid
	events=$(grep -c ' syscalls:sys_enter_getppid: ' "$run/$1.bt")
	pids=$(grep ' syscalls:sys_enter_getppid: ' "$run/$1.bt" | grep -o 'common_pid = [0-9]*' | sort -u)
	report_pid=$(grep -m1 ' syscalls:sys_enter_getppid: ' "$run/$1.report" | awk '{ print $2 }')
	[ "$events" = 1000 ] && [ "$pids" = "common_pid = $report_pid" ] ||
		{ echo "# $events events, $pids (report: $report_pid)"; return 1; }
}

# The guest's filtered recording: close(100900 + i) for i < 100 but 50.
filter_exact_in_report() { # filter_exact_in_report TRACE
	report_of "$1" || return 1
	local events
	events=$(grep -c ' syscalls:sys_enter_close: ' "$run/$1.report")
	[ "$events" = 99 ] || { echo "# $events events"; return 1; }
}

# The recorder's summary names every loss by cause; report shows each one.
nothing_lost() { # nothing_lost TRACE
	[ -s "$run/traces/$1.log" ] && [ -s "$run/$1.report" ] || return 1
	{ grep -i 'lost' "$run/traces/$1.log"; grep 'LOST' "$run/$1.report"; } >"$run/lost"
	[ ! -s "$run/lost" ] || { head -n 5 "$run/lost" | diag; return 1; }
}

sched_exec_in_report() { # sched_exec_in_report TRACE
	report_of "$1" || return 1
	grep ' sched:sched_process_exec: ' "$run/$1.report" | grep -q 'filename=/bin/true' ||
		{ grep -m3 'sched_process_exec' "$run/$1.report" | diag; return 1; }
}

# Merged, the report never goes back in time, and neither does any CPU.
report_in_time_order() { # report_in_time_order TRACE
	[ -s "$run/$1.report" ] || return 1
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { ts = $(i + 1); sub(":", "", ts);
		if (ts + 0 < last + 0 || ts + 0 < cpu_last[$i] + 0) { print "# back in time: " $0; exit 1 }
		last = ts; cpu_last[$i] = ts } }' "$run/$1.report"
}

sched_in_babeltrace2() { # sched_in_babeltrace2 TRACE
	babeltrace2_of "$1" &&
		grep ' sched:sched_process_exec: ' "$run/$1.bt" | grep -q 'filename = "/bin/true"'
}

# Both backends record the same getppid events with the same fields:
# payloads as babeltrace2 prints them (the last of its { } groups, after
# the packet's and the event header's), without the pid and the context
# (flags and preempt count say when a reschedule was pending), are the
# same multiset.
backends_agree() {
	babeltrace2_of getppid && babeltrace2_of getppid-kmod || return 1
	local t
	for t in getppid getppid-kmod; do
		grep ' syscalls:sys_enter_getppid: ' "$run/$t.bt" |
			sed -E 's/.*\}, \{ /{ /; s/common_(flags|preempt_count|pid) = [0-9]+//g' |
			sort | uniq -c >"$run/$t.payloads"
	done
	diff "$run/getppid.payloads" "$run/getppid-kmod.payloads" | head -n 6 | diag
	cmp -s "$run/getppid.payloads" "$run/getppid-kmod.payloads"
}

# The channels trace: getppid_n's 1000 calls in channel0, its exit in
# channel rare, in report and in babeltrace2, nothing lost.
channels_in_report_and_babeltrace2() {
	report_of channels && babeltrace2_of channels && nothing_lost channels || return 1
	local calls exits bt_exits
	calls=$(grep -c ' syscalls:sys_enter_getppid: ' "$run/channels.report")
	exits=$(grep ' sched:sched_process_exit: ' "$run/channels.report" | grep -c 'comm=getppid_n ')
	bt_exits=$(grep ' sched:sched_process_exit: ' "$run/channels.bt" | grep -c 'comm = "getppid_n"')
	[ "$calls" = 1000 ] && [ "$exits" = 1 ] && [ "$bt_exits" = 1 ] &&
		{ [ -s "$run/traces/channels/rare_0" ] || [ -s "$run/traces/channels/rare_1" ]; } ||
		{ echo "# $calls calls, $exits exits (babeltrace2: $bt_exits)"; ls "$run/traces/channels" | diag; return 1; }
}

# A flight recorder's snapshot (flight-kmod/snapshot-N) holds the newest
# numbered calls, contiguous, ending with LAST, at least 500 of the 700
# its 64 KiB hold; babeltrace2 reads as many.
newest_calls() { # newest_calls SNAPSHOT LAST
	local dir=$run/traces/flight-kmod/$1 count first last bt
	[ -e "$dir/metadata" ] || { echo "# the VM sent no flight-kmod/$1"; return 1; }
	"$TRACER" report --raw "$dir" | grep -o 'sys_enter_close: .* fd=0x[0-9a-f]*' | sed 's/.*fd=//' |
		while read -r hex; do echo $((hex)); done >"$run/$1.fds"
	count=$(wc -l <"$run/$1.fds") first=$(head -n 1 "$run/$1.fds") last=$(tail -n 1 "$run/$1.fds")
	bt=$(babeltrace2 "$dir" 2>/dev/null | grep -c ' syscalls:sys_enter_close: ')
	[ "$last" = "$2" ] && [ "$count" -ge 500 ] && [ $((last - first + 1)) = "$count" ] &&
		[ "$bt" = "$count" ] || { echo "# $1: $count calls, $first to $last (want ...$2); babeltrace2: $bt"; return 1; }
}

# The summary's figures: events in the snapshots, overwritten, not
# written while frozen, and task records made.
summary_figure() { # summary_figure LOG WHAT
	case $2 in
	in) sed -n 's/^tracer record: [0-9]* snapshots*, \([0-9]*\) events, .*/\1/p' "$1" ;;
	overwritten) grep -o '[0-9]* overwritten' "$1" | awk '{ n += $1 } END { print n + 0 }' ;;
	frozen) grep -o '[0-9]* not written while the buffers were frozen' "$1" |
		awk '{ n += $1 } END { print n + 0 }' ;;
	tasks) sed -n 's/^  task records: \([0-9]*\) .*/\1/p' "$1" ;;
	esac
}

# 6.1: one snapshot at the end, with the newest calls.  From 6.2 the
# trigger's first, ending with its call (the second run's calls may all
# come while the buffers are frozen for it: the VM is slow to snapshot).
# Either way the snapshots, what was overwritten and what was not written
# while frozen add up to all 8000 calls and the task records.
flight_kmod_snapshots() {
	local want=2 log=$run/traces/flight-kmod.log in over frozen tasks
	case $kver in 6.1.*) want=1 ;; esac
	[ "$(ls -d "$run/traces/flight-kmod"/snapshot-* 2>/dev/null | wc -l)" = "$want" ] ||
		{ ls "$run/traces/flight-kmod" | diag; return 1; }
	if [ "$want" = 2 ]; then
		newest_calls snapshot-1 104999 || return 1
	else
		newest_calls snapshot-1 102999 || return 1
	fi
	in=$(summary_figure "$log" in) over=$(summary_figure "$log" overwritten)
	frozen=$(summary_figure "$log" frozen) tasks=$(summary_figure "$log" tasks)
	[ -n "$in" ] && [ -n "$tasks" ] && [ $((in + over + frozen)) = $((8000 + tasks)) ] ||
		{ echo "# $in in snapshots + $over overwritten + $frozen frozen != 8000 calls + $tasks task records"; diag "$log"; return 1; }
}

# Processes that run one after the other, each on the other CPU: their
# execs, recorded on their CPUs, merge in the order they ran (the module's
# clock agrees across CPUs whose TSCs do not).
execs_in_order() {
	report_of exec-order || return 1
	grep ' sched:sched_process_exec: .*filename=/bin/true ' "$run/exec-order.report" |
		grep -o ' pid=[0-9]*' | cut -d= -f2 >"$run/exec-order.pids"
	[ "$(wc -l <"$run/exec-order.pids")" = 40 ] && sort -n -u -c "$run/exec-order.pids" ||
		{ echo "# $(wc -l <"$run/exec-order.pids") execs, in this order:"; echo "# $(tr '\n' ' ' <"$run/exec-order.pids")"; return 1; }
}

# opens TRACE ENTRY RETURN RETURN-TAIL BT-EVENT BT-PATTERN: a trace of
# getppid_n opening /tmp/kprobe-target 1000 times, by probes on
# do_sys_openat2's entry and return.  Each entry carries dfd (AT_FDCWD)
# and the path by the names BTF gives them; each open returned fd 3 (it
# closes each): 1000 or more of the opener's returns end in RETURN-TAIL;
# its every entry has its return; babeltrace2 has 1000 BT-EVENT records
# matching BT-PATTERN.
opens() {
	local trace=$1 entry=$2 return=$3 tail=$4 bt_event=$5 pattern=$6
	report_of "$trace" && babeltrace2_of "$trace" || return 1
	local report=$run/$trace.report pid named entries returns fd3 in_bt
	pid=$(grep " $entry:do_sys_openat2: .*filename=/tmp/kprobe-target " "$report" |
		awk '{ print $2 }' | sort -u)
	named=$(grep -c " $entry:do_sys_openat2: .* dfd=-100 filename=/tmp/kprobe-target how=0x" "$report")
	entries=$(awk -v p="$pid" -v e=" $entry:do_sys_openat2: " '$2 == p && index($0, e)' "$report" | wc -l)
	returns=$(awk -v p="$pid" -v e=" $return:do_sys_openat2: " '$2 == p && index($0, e)' "$report" | wc -l)
	fd3=$(grep " $return:do_sys_openat2: .*$tail" "$report" | awk -v p="$pid" '$2 == p' | wc -l)
	in_bt=$(grep " $bt_event:do_sys_openat2: " "$run/$trace.bt" | grep -c -- "$pattern")
	echo "# pid $pid: $named entries with the file, $entries in all, $returns returns ($fd3 ending '$tail'), $in_bt in babeltrace2"
	[ "$named" = 1000 ] && [ "$entries" = "$returns" ] && [ "$fd3" -ge 1000 ] && [ "$in_bt" = 1000 ]
}

# kprobe and kretprobe (TRACE): the return records ret alone.
kprobes_exact() {
	opens "$1" kprobe kretprobe ' ret=3$' kprobe 'dfd = -100,.* filename = "/tmp/kprobe-target"'
}

# fentry (by --function) and fexit (TRACE), which records the arguments too.
fentry_exact() {
	opens "$1" fentry fexit ' dfd=-100 filename=/tmp/kprobe-target how=0x[0-9a-f]* ret=3$' \
		fexit 'dfd = -100,.* ret = 3, filename = "/tmp/kprobe-target" }'
}

# fentry and fexit on a module's function, dummy's ndo_get_stats64: each
# of getppid_n's 100 reads of a dummy0 statistics file called it once;
# both records carry the device and the statistics by the names the
# module's BTF gives them (report, and the entries in babeltrace2).
module_function_exact() {
	report_of modfunc && babeltrace2_of modfunc || return 1
	local report=$run/modfunc.report entries exits in_bt
	entries=$(grep -c ' fentry:dummy_get_stats64: .*dev=0x[0-9a-f]* stats=0x[0-9a-f]*$' "$report")
	exits=$(grep -c ' fexit:dummy_get_stats64: .*dev=0x[0-9a-f]* stats=0x[0-9a-f]*' "$report")
	in_bt=$(grep ' fentry:dummy_get_stats64: ' "$run/modfunc.bt" | grep -c 'dev = .*stats = ')
	echo "# $entries entries, $exits exits, $in_bt entries in babeltrace2"
	[ "$entries" = 100 ] && [ "$exits" = 100 ] && [ "$in_bt" = 100 ]
}

# The helper probed's 100 calls (TRACE): each tr_probed(a, b) entry once
# with b = 2a + 1, each return with its value, each USDT step hit (report),
# and the entries in babeltrace2.
uprobes_exact() {
	report_of "$1" && babeltrace2_of "$1" || return 1
	local report=$run/$1.report entries returns steps in_bt
	entries=$(grep ' uprobe:tr_probed: ' "$report" | grep -oE ' a=[0-9]+ b=[0-9]+$' |
		awk '{ split($1, a, "="); split($2, b, "=") }
		     b[2] == 2 * a[2] + 1 && !seen[a[2]]++ { n++ } END { print n + 0 }')
	returns=$(grep -cE ' uretprobe:tr_probed: .* ret=[0-9]+$' "$report")
	steps=$(grep -c ' sdt_tracer_test:step: ' "$report")
	in_bt=$(grep ' uprobe:tr_probed: ' "$run/$1.bt" | grep -c ' a = [0-9]*, b = [0-9]* }')
	echo "# $entries entries with b = 2a + 1, $returns returns, $steps USDT hits, $in_bt entries in babeltrace2"
	[ "$entries" = 100 ] && [ "$returns" = 100 ] && [ "$steps" = 100 ] && [ "$in_bt" = 100 ]
}

# TRACE's probes wrote through the module (its metadata says so), and CHECK TRACE passes.
through_the_module() {
	grep -q 'tracer_backend = "kmod"' "$run/traces/$1/metadata" ||
		{ grep 'tracer_backend' "$run/traces/$1/metadata" | diag; return 1; }
	"$2" "$1"
}

# Whether kprobe programs may call the module's kfuncs on kernel $kver (6.10+).
kfuncs_in_kprobes() {
	local major=${kver%%.*} minor
	minor=${kver#*.}
	minor=${minor%%.*}
	[ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 10 ]; }
}

# The glob trace: every get*id system call's kprobe, and the getp*id ones'
# fentry, each an event class of its own; getppid's 1000 calls by both
# (the shell's own getppid too), and id's calls of others.
globs_expand_and_record() {
	report_of glob || return 1
	local classes fclasses kpp fpp others
	classes=$(grep -c 'name = "kprobe:__do_sys_get[a-z]*id"' "$run/traces/glob/metadata")
	fclasses=$(grep -c 'name = "fentry:__do_sys_getp[a-z]*id"' "$run/traces/glob/metadata")
	kpp=$(grep -c ' kprobe:__do_sys_getppid: ' "$run/glob.report")
	fpp=$(grep -c ' fentry:__do_sys_getppid: ' "$run/glob.report")
	others=$(grep ' kprobe:__do_sys_get[a-oq-z]*id: ' "$run/glob.report" | wc -l)
	echo "# $classes kprobe and $fclasses fentry classes; getppid $kpp by kprobe, $fpp by fentry; $others calls of other get*id"
	[ "$classes" -ge 4 ] && [ "$fclasses" -ge 2 ] && [ "$kpp" -ge 1000 ] && [ "$kpp" -le 1002 ] &&
		[ "$fpp" = "$kpp" ] && [ "$others" -ge 1 ]
}

# Records of EVENT in TRACE's babeltrace2 text with the hard-interrupt
# flag (0x08) in common_flags.
in_hard_irq() { # in_hard_irq TRACE EVENT
	grep ":$2: " "$run/$1.bt" | grep -o 'common_flags = [0-9]*' |
		awk '{ if (int($3 / 8) % 2) n++ } END { print n + 0 }'
}

# The trace keeps the interrupt context: getppid_n sleeps between its
# calls, so timer interrupts wake it (sched_waking in a hard interrupt),
# while sched_switch never runs in one.
interrupt_context_kept() { # interrupt_context_kept TRACE
	babeltrace2_of "$1" || return 1
	local in_irq switch_in_irq
	in_irq=$(in_hard_irq "$1" sched_waking)
	switch_in_irq=$(in_hard_irq "$1" sched_switch)
	echo "# $in_irq sched_waking in hard interrupts; $switch_in_irq sched_switch"
	grep -q 'tracer_common_context = "\(derived\|from the kernel\)' "$run/traces/$1/metadata" &&
		[ "$in_irq" -gt 0 ] && [ "$switch_in_irq" = 0 ]
}

# --- the module's self-tests ---

# The self-test's NMI storm (tracer/nmi_storm): "cpu N sent S handled H
# written W failed F" per CPU; the sum of one of them.
storm_sum() { # storm_sum TRACE FIELD
	awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) n += $(i + 1) } END { print n + 0 }' \
		"$run/traces/$1.storm"
}

# At least 100,000 NMIs came, and every record they wrote decodes in
# report and babeltrace2, next to the BPF programs' ones.
nmi_records_decode() {
	[ -s "$run/traces/nmi.storm" ] || { echo "# the VM sent no NMI storm counts"; return 1; }
	report_of nmi && babeltrace2_of nmi || return 1
	[ ! -s "$run/nmi.report-err" ] || { diag "$run/nmi.report-err"; return 1; }
	local handled written in_report in_bt
	handled=$(storm_sum nmi handled)
	written=$(storm_sum nmi written)
	in_report=$(grep -c ' tracer:nmi_test: ' "$run/nmi.report")
	in_bt=$(grep -c ' tracer:nmi_test: ' "$run/nmi.bt")
	echo "# $handled NMIs wrote $written records: $in_report in report, $in_bt in babeltrace2"
	[ "$handled" -ge 100000 ] && [ "$in_report" = "$written" ] && [ "$in_bt" = "$written" ]
}

# Every record the writers attempted is in the trace or counted lost; the
# task records (tracer:task_state) too, which report shows when asked.
counts_add_up() { # counts_add_up TRACE
	[ -s "$run/traces/$1.counts" ] && [ -s "$run/$1.report" ] || return 1
	local recorded attempted lost
	recorded=$("$TRACER" report --event '*' "$run/traces/$1" 2>/dev/null | wc -l)
	attempted=$(awk '{ for (i = 1; i < NF; i++) if ($i == "attempted") a += $(i + 1) } END { print a + 0 }' \
		"$run/traces/$1.counts")
	lost=$(awk '{ for (i = 1; i < NF; i++) if ($i ~ /^(lost_|overrun)/) l += $(i + 1) } END { print l + 0 }' \
		"$run/traces/$1.counts")
	echo "# recorded $recorded + lost $lost, attempted $attempted"
	[ "$((recorded + lost))" = "$attempted" ] && [ "$attempted" -gt 0 ]
}

# Each tracepoint hit is recorded once.  sched_stat_runtime counts its
# runtime in ns: the module's perf events (6.1) sampled it once per ns, the
# same record 400 times (perf_event_max_sample_rate / HZ) until perf
# throttled the event.  A task's vruntime grows with each update_curr(), so
# two records of one CPU with the same pid, runtime and vruntime are one hit
# written twice.  Exit 2: this kernel's sched_stat_runtime has no vruntime
# (6.8 and later) to tell hits apart.
each_hit_once() { # each_hit_once TRACE
	report_of "$1" || return 1
	awk '/ sched:sched_stat_runtime: / {
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) cpu = $i
		rec = $0; sub(/^.* sched:sched_stat_runtime: */, "", rec)
		if (rec !~ / vruntime=/) { no_vruntime++; next }
		n++; if (rec == last[cpu]) repeats++; last[cpu] = rec }
		END { printf "# %d sched_stat_runtime records, %d repeat the one before on their CPU\n", n, repeats
		exit n ? repeats > 0 : no_vruntime ? 2 : 1 }' "$run/$1.report"
}

check_each_hit_once() { # check_each_hit_once TRACE
	local what="$kver: $1 has each sched_stat_runtime hit once, not once per ns of runtime"
	each_hit_once "$1"
	case $? in
	0) check "$what" true ;;
	2) skip "$what" "this kernel's sched_stat_runtime has no vruntime to tell hits apart" ;;
	*) check "$what" false ;;
	esac
}

# The hotplug trace decodes in report, without a complaint.
hotplug_decodes() {
	report_of hotplug || return 1
	[ ! -s "$run/hotplug.report-err" ] || { head -n 20 "$run/hotplug.report-err" | diag; return 1; }
}

# After 5 offline/online cycles, CPU 1 records all of the 1000
# close(100000 + i) calls made there: fd 100000 to 100999, once each.
cpu1_complete_after_hotplug() {
	report_of hotplug-close || return 1
	# fd= is 8 hex digits: as strings, they compare as numbers do.
	awk '/ syscalls:sys_enter_close: / { for (i = 1; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) cpu = $i
			if ($i ~ /^fd=0x/ && $i >= "fd=0x000186a0") print cpu, $i } }' \
		"$run/hotplug-close.report" | sort >"$run/hotplug-close.fds"
	printf '[001] fd=0x%08x\n' $(seq 100000 100999) | sort >"$run/hotplug-close.expected"
	diff "$run/hotplug-close.expected" "$run/hotplug-close.fds" | head -n 6 | diag
	cmp -s "$run/hotplug-close.expected" "$run/hotplug-close.fds"
}

# The narrowed clock wrapped at least 1000 times on each CPU; its task, timer
# and NMI readers never saw it go back, nor jump by a wrap while its updates
# came in time.  A reading an interrupt delayed too long to time it is
# checked for order only; at least half of each reader's must be timed.  Exit 2: some update came more than half a wrap late (the
# guest kernel held its timer off that long; guest time does not depend on
# the host, tests/vm/run), so jumps prove nothing.
clock_held() {
	[ -s "$run/traces/selftest/clock" ] || { echo "# the VM sent no clock self-test results"; return 1; }
	diag "$run/traces/selftest/clock"
	awk '/^cpu / { for (i = 3; i < NF; i += 2) v[$i] = $(i + 1);
		if (v["wraps"] < 1000 || v["task_reads"] < 1 || v["nmi_reads"] < 1) bad = 1;
		for (k in v) if (k ~ /_backwards$/ && v[k] != 0) bad = 1;
		for (k in v) if (k ~ /_jumps$/ && v[k] != 0) jumps = 1;
		for (k in v) if (k ~ /_untimed$/ && 2 * v[k] > v[substr(k, 1, index(k, "_")) "reads"]) bad = 1;
		late += v["late_updates"]; cpus++ }
		END { exit bad || !cpus ? 1 : jumps ? (late ? 2 : 1) : 0 }' "$run/traces/selftest/clock"
}

check_clock() {
	local what="$kver: the clock wrapped 1000+ times, never back, never a jump, in task, timer and NMI readers"
	clock_held
	case $? in
	0) check "$what" true ;;
	2) skip "$what" "the VM ran the clock update more than half a wrap late" ;;
	*) check "$what" false ;;
	esac
}

# Guest uptimes at /init and after the tests, from the console markers.
guest_times() {
	tr -d '\r' <"$run/console" | awk '/@@INIT uptime=/ { split($0, a, "uptime="); init = a[2] + 0 }
		/@@TESTS-DONE uptime=/ { split($0, a, "uptime="); done = a[2] + 0 }
		END { printf "boot to /init %.1f s, guest tests %.1f s", init, done - init }'
}

# --- each kernel ------------------------------------------------------------------

# Two runs at once (make check in two shells) would share $BUILD/vm: take turns.
mkdir -p "$BUILD/vm"
exec 9>"$BUILD/vm/.lock"
flock 9

for pattern in "${kernel_patterns[@]}"; do
	started=$(date +%s.%N)
	vm=$("$VM/fetch-kernel" "$pattern" 2>"$BUILD/vm-fetch.log")
	status=$?
	if [ "$status" = 75 ]; then
		skip "kernel $pattern" "$(tail -n 1 "$BUILD/vm-fetch.log")"
		continue
	fi
	kver=$(basename "$vm")
	check "kernel $pattern: fetched ${kver:-nothing}" [ "$status" = 0 ] || { diag "$BUILD/vm-fetch.log"; continue; }
	rm -f "$BUILD/vm-fetch.log"
	times="fetch $(since "$started") s"
	run=$vm/run

	if [ -e kmod/Kbuild ]; then
		started=$(date +%s.%N)
		check "$kver: the companion module builds, with BTF" module_built
		times="$times, module $(since "$started") s"
	fi
	started=$(date +%s.%N)
	check "$kver: initramfs with tracer and its libraries" "$VM/mkinitramfs" "$vm" || continue
	times="$times, initramfs $(since "$started") s"

	started=$(date +%s.%N)
	VM_SMP=2 "$VM/run" "$vm" 2>"$vm/run.log" || echo "# qemu failed or timed out"
	diag "$vm/run.log" "$run/qemu.log"
	times="$times, qemu $(since "$started") s ($(guest_times))"
	check "$kver: boots, runs the guest tests, powers off" booted_and_completed
	check "$kver: no Oops, WARNING, BUG, Call Trace or panic in the kernel log" kernel_log_clean
	relay_guest_checks
	[ -e "$vm/dkms/tracer.ko" ] ||
		skip "$kver, in the VM: the module DKMS built loads, records and unloads" \
			"no module of tracer-modules-dkms for it: tests/run-packages.t builds one where DKMS can (not 6.1: no BTF)"

	backends=bpf
	[ -e "$vm/kmod/tracer.ko" ] && backends="bpf kmod"
	for backend in $backends; do
		suffix=${backend/bpf/}
		g=getppid${suffix:+-$suffix}
		sc=sched${suffix:+-$suffix}
		check "$kver, $backend: report shows exactly 1000 getppid events, all from getppid_n" getppid_exact_in_report "$g"
		check "$kver, $backend: babeltrace2 reads the same 1000 events from the same pid" getppid_exact_in_babeltrace2 "$g"
		check "$kver, $backend: no event lost" nothing_lost "$g"
		check "$kver, $backend: sched:* trace has the exec of /bin/true" sched_exec_in_report "$sc"
		check "$kver, $backend: report's timestamps never go back, per CPU or merged" report_in_time_order "$sc"
		check "$kver, $backend: babeltrace2 reads the sched:* trace without error" sched_in_babeltrace2 "$sc"
		check "$kver, $backend: --filter passes exactly the 99 close() calls it selects" \
			filter_exact_in_report "filter${suffix:+-$suffix}"
	done
	check "$kver, bpf: a channel's trace: 1000 calls in channel0, the exit in rare (report, babeltrace2)" \
		channels_in_report_and_babeltrace2
	check "$kver, bpf: kprobe and kretprobe on do_sys_openat2: each of 1000 opens with dfd and filename by name, and fd 3 returned (report, babeltrace2)" \
		kprobes_exact kprobe
	check "$kver, bpf: fentry (by --function) and fexit on do_sys_openat2: each of 1000 opens with its arguments, fexit with fd 3 returned (report, babeltrace2)" \
		fentry_exact fentry
	check "$kver, bpf: globs: a kprobe class per get*id call, an fentry copy per getp*id; 1000 getppid by each, id's calls too" \
		globs_expand_and_record
	check "$kver, bpf: fentry and fexit on a module's function (dummy): 100 calls with their arguments by the module's BTF (report, babeltrace2)" \
		module_function_exact
	if [ "$backends" = "bpf kmod" ]; then
		check "$kver, kmod: flight recorder snapshots hold the newest calls, contiguous (report, babeltrace2), and all add up" \
			flight_kmod_snapshots
		check "$kver, kmod: 40 processes run in turn on alternate CPUs merge in the order they ran" execs_in_order
		check "$kver, kmod: fentry and fexit through the module: each of 1000 opens, fexit with fd 3 returned (report, babeltrace2)" \
			through_the_module fentry-kmod fentry_exact
		if kfuncs_in_kprobes; then
			check "$kver, kmod: kprobe and kretprobe through the module: each of 1000 opens, fd 3 returned (report, babeltrace2)" \
				through_the_module kprobe-kmod kprobes_exact
			check "$kver, kmod: uprobe, uretprobe and USDT through the module: each of 100 calls, with its arguments and return value (report, babeltrace2)" \
				through_the_module uprobe-kmod uprobes_exact
		else
			skip "$kver, kmod: kprobes, uprobes and USDT through the module" \
				"before Linux 6.10 no kprobe program may call module kfuncs (the guest checks that record refuses them)"
		fi
		check "$kver: both backends record the same getppid payloads" backends_agree
		check "$kver: 100,000+ NMIs, and their records decode in report and babeltrace2" nmi_records_decode
		check "$kver: per-CPU timestamps never go back with NMIs writing" report_in_time_order nmi
		check "$kver: hard-interrupt context kept in common_flags" interrupt_context_kept irqctx
		check_each_hit_once irqctx
		check "$kver: recorded + lost == attempted with NMIs writing" counts_add_up nmi
		check "$kver: the CPU hotplug trace decodes in report" hotplug_decodes
		check "$kver: babeltrace2 reads the CPU hotplug trace" babeltrace2_of hotplug
		check "$kver: per-CPU timestamps never go back across CPU hotplug" report_in_time_order hotplug
		check "$kver: recorded + lost == attempted across CPU hotplug" counts_add_up hotplug
		check "$kver: CPU 1 records all its events after 5 offline/online cycles" cpu1_complete_after_hotplug
		check "$kver: and none is lost" nothing_lost hotplug-close
	fi
	[ -e "$vm/kmod/tracer.ko" ] && check_clock
	echo "# $kver: $times"
done

echo "1..$n"
