#!/usr/bin/env bash
# The command line: every bad value is refused with one line naming the
# option, exit 2, and nothing created (a table, one row per value); help
# and version; the recorder's exit status, signals and terminal.
set -u
TEST_NAME=cli
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
keep_tracefs_as_found

# table COMMAND...: runs the rows on stdin, "CODE|PATTERN|ARGS" with ARGS
# as the shell splits them, each as tracer COMMAND... ARGS.
table() {
	local code pattern args what
	while IFS='|' read -r code pattern args; do
		eval "set -- $args"
		what=${args//-o \"\$out\" /}
		check "tracer ${what% -- /bin/true}: exit $code" refused "$code" "$pattern" "$@"
	done
}

no_pid=$(($(cat /proc/sys/kernel/pid_max) + 1))
ncpu=$(getconf _NPROCESSORS_CONF)
long_spec=$(printf '%0100000d' 0 | tr 0 a)
"$TRACER" record -e sched:sched_process_exec -e sched:sched_process_exit -e syscalls:sys_enter_getppid \
	-o "$work/trace" -- "$GETPPID" 3 2>"$work/trace.log" || { diag "$work/trace.log"; exit 1; }

# Every record row ends with a command, so that a value wrongly accepted
# still ends the recording.
table <<'EOF'
2|^tracer record: --pid 'abc': must be a whole number from 1 to [0-9]+$|record -o "$out" -e sched:sched_switch -p abc -- /bin/true
2|^tracer record: --pid '0': must be a whole number from 1 to|record -o "$out" -e sched:sched_switch -p 0 -- /bin/true
2|^tracer record: --pid '-5': must be a whole number from 1 to|record -o "$out" -e sched:sched_switch -p -5 -- /bin/true
2|^tracer record: --pid '99999999999': must be a whole number from 1 to|record -o "$out" -e sched:sched_switch --pid 99999999999 -- /bin/true
2|^tracer record: --pid '[0-9]+': no such process$|record -o "$out" -e sched:sched_switch -p $no_pid -- /bin/true
2|^tracer record: --duration '-1': not a number of seconds|record -o "$out" -e sched:sched_switch --duration -1 -- /bin/true
2|^tracer record: --duration 'abc': not a number of seconds|record -o "$out" -e sched:sched_switch -d abc -- /bin/true
2|^tracer record: --duration 'nan': not a number of seconds|record -o "$out" -e sched:sched_switch -d nan -- /bin/true
2|^tracer record: --duration 'inf': not a number of seconds|record -o "$out" -e sched:sched_switch -d inf -- /bin/true
2|^tracer record: --duration '1e400': not a number of seconds|record -o "$out" -e sched:sched_switch -d 1e400 -- /bin/true
2|^tracer record: --duration '0': must be more than 0 and at most|record -o "$out" -e sched:sched_switch -d 0 -- /bin/true
2|^tracer record: --duration '1234567890': must be more than 0 and at most|record -o "$out" -e sched:sched_switch -d 1234567890 -- /bin/true
2|^tracer record: --flush-ms '-1': must be a whole number from 1 to 60000$|record -o "$out" -e sched:sched_switch --flush-ms -1 -- /bin/true
2|^tracer record: --flush-ms '0': must be a whole number from 1 to 60000$|record -o "$out" -e sched:sched_switch --flush-ms 0 -- /bin/true
2|^tracer record: --flush-ms '10ms': must be a whole number|record -o "$out" -e sched:sched_switch --flush-ms 10ms -- /bin/true
2|^tracer record: --buffer-size '18014398509486080K': too large$|record -o "$out" -e sched:sched_switch --buffer-size 18014398509486080K -- /bin/true
2|^tracer record: --buffer-size '4294967300M': not a power of two|record -o "$out" -e sched:sched_switch --buffer-size 4294967300M -- /bin/true
2|^tracer record: --buffer-size '4100K': not a power of two|record -o "$out" -e sched:sched_switch --buffer-size 4100K -- /bin/true
2|^tracer record: --buffer-size '4MB': not a size|record -o "$out" -e sched:sched_switch --buffer-size 4MB -- /bin/true
2|^tracer record: --buffer-size '': not a size|record -o "$out" -e sched:sched_switch --buffer-size '' -- /bin/true
2|^tracer record: --subbuf-size '-4096': not a size|record -o "$out" -e sched:sched_switch --subbuf-size -4096 -- /bin/true
2|a BPF buffer holds at most 512 MiB per CPU|record -o "$out" -e sched:sched_switch --backend bpf --buffer-size 512M --subbuf-size 8M -- /bin/true
2|^tracer record: --cpu '': not a CPU list|record -o "$out" -e sched:sched_switch -C '' -- /bin/true
2|^tracer record: --cpu '0-': not a CPU list|record -o "$out" -e sched:sched_switch -C 0- -- /bin/true
2|^tracer record: --cpu '0,': not a CPU list|record -o "$out" -e sched:sched_switch -C 0, -- /bin/true
2|^tracer record: --cpu '1-0': not a CPU list|record -o "$out" -e sched:sched_switch -C 1-0 -- /bin/true
2|^tracer record: --cpu ' 0': not a CPU list|record -o "$out" -e sched:sched_switch -C ' 0' -- /bin/true
2|^tracer record: --cpu '[0-9]+': CPUs go from 0 to [0-9]+$|record -o "$out" -e sched:sched_switch -C $ncpu -- /bin/true
2|^tracer record: --comm '': a command name has 1 to 15 characters$|record -o "$out" -e sched:sched_switch --comm '' -- /bin/true
2|^tracer record: --comm 'sixteen_chars_ab': a command name has 1 to 15|record -o "$out" -e sched:sched_switch --comm sixteen_chars_ab -- /bin/true
2|^tracer record: --mode 'fast': must be discard or overwrite$|record -o "$out" -e sched:sched_switch --mode fast -- /bin/true
2|^tracer record: --backend 'gpu': must be auto, bpf or kmod$|record -o "$out" -e sched:sched_switch --backend gpu -- /bin/true
2|^tracer record: --output '': empty$|record -e sched:sched_switch -o '' -- /bin/true
2|^tracer record: --event '': empty|record -o "$out" -e '' -- /bin/true
2|^tracer record: --event 'sched:sched_sw\[itch': not a valid glob|record -o "$out" -e 'sched:sched_sw[itch' -- /bin/true
2|^tracer record: unknown event 'a{32}\.\.\.' \(100000 characters|record -o "$out" -e $long_spec -- /bin/true
2|^tracer record: no event given|record -o "$out" -- /bin/true
2|^tracer report: --pid 'abc': must be a whole number|report --pid abc "$work/trace"
2|^tracer report: --pid '0': must be a whole number|report --pid 0 "$work/trace"
2|^tracer report: --event '\[': not a valid glob|report --event '[' "$work/trace"
2|^tracer report: --event 'sched:\[!a': not a valid glob|report --event 'sched:[!a' "$work/trace"
2|^tracer report: --cpu '0-': not a CPU list|report --cpu 0- "$work/trace"
2|^tracer report: --cpu '4096': CPUs go from 0 to 4095$|report --cpu 4096 "$work/trace"
2|^tracer report: one trace directory at a time|report "$work/trace" "$work/trace"
2|^tracer list: GLOB '\[': not a valid glob|list '['
2|^tracer list: one glob at most|list 'sched:*' 'irq:*'
2|^tracer help: no command 'nosuch'|help nosuch
2|^tracer: unknown command 'nosuch'|nosuch
EOF

# getopt's own messages name the whole command, and point to --help.
bad_option() { # bad_option ARGS...: getopt's line with the command's name, then the --help hint
	rm -rf "$out"
	"$TRACER" "$@" >/dev/null 2>"$work/stderr"
	local got=$?
	[ "$got" = 2 ] && [ "$(wc -l <"$work/stderr")" = 2 ] &&
		head -1 "$work/stderr" | grep -qE "^tracer $1: (unrecognized option|option requires an argument)" &&
		tail -1 "$work/stderr" | grep -qx "tracer $1 --help lists the options" && [ ! -e "$out" ] ||
		{ echo "# exit $got"; diag "$work/stderr"; return 1; }
}
check "record --bogus: getopt's message names 'tracer record'" bad_option record --bogus -e sched:sched_switch -o "$out" -- /bin/true
check "record -p without a value: 'tracer record'" bad_option record -e sched:sched_switch -o "$out" -p
check "report --bogus: getopt's message names 'tracer report'" bad_option report --bogus "$work/trace"
check "list --bogus: getopt's message names 'tracer list'" bad_option list --bogus

# --- --force validates everything first ---------------------------------------------

force_with_a_bad_value_keeps_the_trace() {
	cp -a "$work/trace" "$work/kept"
	"$TRACER" record -f -C "$ncpu" -e sched:sched_switch -o "$work/kept" -- /bin/true 2>"$work/err"
	local got=$?
	[ "$got" = 2 ] && diff -r "$work/trace" "$work/kept" >/dev/null ||
		{ echo "# exit $got"; diag "$work/err"; return 1; }
}
check "--force -C <no such CPU>: refused, the existing trace kept as it was" force_with_a_bad_value_keeps_the_trace

# --- help and version ------------------------------------------------------------------

prints() { # prints PATTERN ARGS...: exit 0, stdout matching, stderr empty
	local pattern=$1
	shift
	"$TRACER" "$@" >"$work/stdout" 2>"$work/stderr" && grep -qE -- "$pattern" "$work/stdout" &&
		[ ! -s "$work/stderr" ] || { diag "$work/stdout" "$work/stderr"; return 1; }
}
check "tracer --version" prints '^tracer [0-9]+\.[0-9]+' --version
check "tracer help" prints '^usage: tracer COMMAND' help
check "tracer help record" prints '^usage: tracer record' help record
check "tracer list --help" prints '^usage: tracer list' list --help
check "tracer report -h" prints '^usage: tracer report' report -h

# --- report and list -------------------------------------------------------------------

report_events_given_twice_select_both() {
	"$TRACER" report --event sched_process_exec --event 'sched:sched_process_exit' "$work/trace" \
		>"$work/both.txt" || return 1
	[ "$(grep -c ' sched:sched_process_exec: ' "$work/both.txt")" -ge 1 ] &&
		[ "$(grep -c ' sched:sched_process_exit: ' "$work/both.txt")" -ge 1 ] &&
		! grep -q 'sys_enter_getppid' "$work/both.txt" || { diag "$work/both.txt"; return 1; }
}
check "report --event given twice: the events matching either" report_events_given_twice_select_both

list_without_privileges() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TRACER" list >"$work/stdout" 2>"$work/stderr"
	local got=$?
	[ "$got" = 1 ] && grep -q 'not permitted: run as root' "$work/stderr" ||
		{ echo "# exit $got"; diag "$work/stderr"; return 1; }
}
check "list as an unprivileged user: the permission problem, exit 1" list_without_privileges

# --- the recorder's exit status and signals ------------------------------------------------

exit_status() { # exit_status CODE SHELL-COMMAND: tracer record -- sh -c SHELL-COMMAND exits CODE
	rm -rf "$out"
	"$TRACER" record -e sched:sched_process_exit -o "$out" -- sh -c "$2" 2>"$work/stderr"
	local got=$?
	[ "$got" = "$1" ] && grep -q '1  sched:sched_process_exit' "$work/stderr" ||
		{ echo "# exit $got"; diag "$work/stderr"; return 1; }
}
check "the command's exit code is tracer's" exit_status 3 'exit 3'
check "a command killed by SIGSEGV: exit 139, as shells report it" exit_status 139 'kill -SEGV $$'
check "a command killed by SIGKILL: exit 137" exit_status 137 'kill -KILL $$'

# Starts a system-wide recorder into $out, recording when it returns: every
# event attached (its first link comes before the state dump and the event's
# own, so a call made once a link exists may be missed).
start_recorder() {
	rm -rf "$out" "$work/recorder.log"
	"$TRACER" record -a -e syscalls:sys_enter_getppid -o "$out" 2>"$work/recorder.log" &
	recorder=$!
	wait_recording "$recorder" "$work/recorder.log" || { kill "$recorder"; wait "$recorder"; return 1; }
}

sigterm_prints_the_summary() {
	start_recorder || return 1
	"$GETPPID" 10
	kill -TERM "$recorder"
	wait "$recorder"
	local got=$?
	[ "$got" = 0 ] && grep -qE '^tracer record: [0-9]+ events' "$work/recorder.log" &&
		"$TRACER" report "$out" | grep -q sys_enter_getppid ||
		{ echo "# exit $got"; diag "$work/recorder.log"; return 1; }
}
check "SIGTERM stops the recording with its summary, exit 0" sigterm_prints_the_summary

sigusr2_does_not_end_the_recording() {
	start_recorder || return 1
	kill -USR2 "$recorder"
	"$GETPPID" 10
	kill -0 "$recorder" || { wait "$recorder"; echo "# the recorder died: exit $?"; return 1; }
	kill -INT "$recorder"
	wait "$recorder"
	local got=$?
	[ "$got" = 0 ] && grep -qE '^tracer record: [0-9]+ events' "$work/recorder.log" ||
		{ echo "# exit $got"; diag "$work/recorder.log"; return 1; }
}
check "SIGUSR2 does not end the recording" sigusr2_does_not_end_the_recording

# Ctrl-C while some 800 tracepoints attach (taken when the first link
# exists): the recording ends as any other, exit 0 and its summary, and
# says it stopped while attaching (unless attaching won the race).
sigint_while_attaching() {
	rm -rf "$out"
	"$TRACER" record -a -e 'xfs:*' -e 'ext4:*' -o "$out" 2>"$work/recorder.log" &
	recorder=$!
	wait_attached "$recorder" && kill -INT "$recorder"
	wait "$recorder"
	local got=$?
	grep -m1 -E 'stopped while attaching|recording [0-9]+ tracepoints' "$work/recorder.log" | diag
	[ "$got" = 0 ] && grep -qE '^tracer record: [0-9]+ events' "$work/recorder.log" &&
		"$TRACER" report "$out" >/dev/null ||
		{ echo "# exit $got"; diag "$work/recorder.log"; return 1; }
}
check "SIGINT while attaching: exit 0, its summary, a trace report reads" sigint_while_attaching

# --- the status line -------------------------------------------------------------------------

# In the foreground of a terminal (script(1) gives one) the status line is
# drawn, and erased at the end so the summary starts on a clean line.
status_line_erased_at_the_end() {
	rm -rf "$out"
	script -qec "$TRACER record -e syscalls:sys_enter_getppid -o $out -- $GETPPID 1500 1" \
		/dev/null >"$work/tty.out" 2>&1 || return 1
	grep -q $'\r\033\[Ktracer record: [0-9]* events' "$work/tty.out" &&
		grep -q ' 1500  syscalls:sys_enter_getppid' "$work/tty.out" &&
		grep -q '^\[ [0-9.]* s ' <(tr '\r' '\n' <"$work/tty.out") ||
		{ cat -A "$work/tty.out" | head -5 | diag; return 1; }
}
check "on a terminal the status line is drawn, then erased before the summary" status_line_erased_at_the_end

# A background job (bash with job control puts it in its own process
# group) must not draw over the shell's prompt.
no_status_line_in_the_background() {
	rm -rf "$out"
	script -qec "bash -mc '$TRACER record -e syscalls:sys_enter_getppid -o $out -- $GETPPID 1500 1 & wait \$!'" \
		/dev/null >"$work/bg.out" 2>&1 || return 1
	grep -q 'tracer record: [0-9]* events' "$work/bg.out" &&
		grep -q ' 1500  syscalls:sys_enter_getppid' "$work/bg.out" && ! grep -q 'events/s' "$work/bg.out" ||
		{ cat -A "$work/bg.out" | head -5 | diag; return 1; }
}
check "in the background of a terminal no status line is drawn" no_status_line_in_the_background

echo "1..$n"
