#!/usr/bin/env bash
# record --filter: a table of filters against a workload with known field
# values (tests/helpers/filter_load), each count checked three ways: what
# the workload's definition says, what tracer recorded, and what the
# kernel's own filter passed in an ftrace instance of this test's, with
# the same expression, at the same time.  Then bad filters: one line
# naming the column, exit 2, no trace written; strings longer than the
# operands, against the same instance.  Leaves tracefs mounted or not, as
# it found it.
set -u
TEST_NAME=filter
. "$(dirname "$0")/lib.sh"
require_root "recording with BPF needs root here"
use_tracefs

LOAD=$BUILD/tests/helpers/filter_load
N=300
NAMES=(fl-alpha fl-beta fl-gamma fl-alphabet)

# Counts I in 0..N-1 for which the shell test PREDICATE holds of what the
# workload's i-th step carries (filter_load.c): lseek(-1, i, i % 3), so
# $offset and $whence, while named $comm, then a rename from $comm to
# $newcomm.
expected() { # expected PREDICATE
	local i offset whence comm=filter_load newcomm count=0
	for ((i = 0; i < N; i++)); do
		offset=$i whence=$((i % 3)) newcomm=${NAMES[i % 4]}
		eval "$1" && count=$((count + 1))
		comm=$newcomm
	done
	echo "$count"
}

use_instance filter
echo 4096 >"$instance/buffer_size_kb"
# Only this test's processes in the instance (this shell's and what it
# forks, event-fork): another run of this test beside it does the same
# system calls.
echo $$ >"$instance/set_event_pid" && echo 1 >"$instance/options/event-fork" ||
	{ echo "1..0 # SKIP this kernel's ftrace instances have no set_event_pid or event-fork"; exit 0; }

# The counts of EVENT under "(FILTER) && GUARD" in tracer's recording of
# the workload and in the instance at the same time; GUARD keeps the
# other events of this test's processes out of the instance, and the
# rename of the workload's exec out of both.  Prints "tracer ftrace".
both_count() { # both_count EVENT FILTER GUARD
	local dir=$instance/events/${1%%:*}/${1#*:} out=$work/f$n ours theirs
	echo "($2) && $3" >"$dir/filter" || return 1
	echo >"$instance/trace"
	echo 1 >"$dir/enable"
	"$TRACER" record -o "$out" -e "$1" --filter "($2) && $3" -- "$LOAD" "$N" 2>"$out.log" ||
		{ echo 0 >"$dir/enable"; diag "$out.log"; return 1; }
	echo 0 >"$dir/enable"
	echo 0 >"$dir/filter"
	ours=$("$TRACER" report "$out" | grep -c ":${1#*:}: ")
	theirs=$(grep -vc '^#' "$instance/trace")
	echo "$ours $theirs"
}

LSEEK_GUARD='fd == 4294967295'
RENAME_GUARD='newcomm ~ "fl-*"'

# EVENT @ FILTER @ the workload's predicate [@ tracer only]
# "tracer only": ftrace is no oracle for a glob anchored at the end of a
# char array field: it matches the pattern against the whole array, NULs
# included (seen on 6.18: "*bet" matches no "fl-alphabet"), where tracer
# matches the string the array holds.
cases=(
	"syscalls:sys_enter_lseek@offset < 10@[ \$offset -lt 10 ]"
	"syscalls:sys_enter_lseek@offset >= 290@[ \$offset -ge 290 ]"
	"syscalls:sys_enter_lseek@whence == 1@[ \$whence = 1 ]"
	"syscalls:sys_enter_lseek@whence != 1@[ \$whence != 1 ]"
	"syscalls:sys_enter_lseek@offset & 4@(( offset & 4 ))"
	"syscalls:sys_enter_lseek@!(offset < 100)@[ \$offset -ge 100 ]"
	"syscalls:sys_enter_lseek@offset < 10 || offset > 289@[ \$offset -lt 10 ] || [ \$offset -gt 289 ]"
	"syscalls:sys_enter_lseek@(whence == 0 || whence == 2) && offset <= 30@[ \$whence != 1 ] && [ \$offset -le 30 ]"
	"syscalls:sys_enter_lseek@offset == 0x10@[ \$offset = 16 ]"
	"syscalls:sys_enter_lseek@fd == 4294967295@true"
	"syscalls:sys_enter_lseek@offset > 1000@false"
	"syscalls:sys_enter_lseek@comm == \"fl-beta\"@[ \$comm = fl-beta ]"
	"syscalls:sys_enter_lseek@CPU < 1024 && common_pid != 0@true"
	"syscalls:sys_enter_lseek@common_flags < 255 && common_preempt_count < 255 && offset < 7@[ \$offset -lt 7 ]"
	"syscalls:sys_enter_lseek@common_flags < 256@false"
	"task:task_rename@newcomm == \"fl-alpha\"@[ \$newcomm = fl-alpha ]"
	"task:task_rename@newcomm ~ \"*alpha*\"@[[ \$newcomm == *alpha* ]]"
	"task:task_rename@newcomm ~ \"fl-?eta\"@[[ \$newcomm == fl-?eta ]]"
	"task:task_rename@newcomm ~ \"fl-alpha\"@[ \$newcomm = fl-alpha ]"
	"task:task_rename@newcomm ~ \"*\"@true"
	"task:task_rename@!(newcomm ~ \"*bet\")@[[ \$newcomm != *bet ]]@tracer only"
	"task:task_rename@newcomm != \"fl-alpha\" && oldcomm ~ \"fl-*\"@[ \$newcomm != fl-alpha ] && [[ \$comm == fl-* ]]"
)

agree() { # agree EVENT FILTER PREDICATE GUARD [tracer only]
	local want got
	want=$(expected "$3")
	got=$(both_count "$1" "$2" "$4") || return 1
	[ -z "$5" ] || got="${got% *} $want"
	[ "$got" = "$want $want" ] || { echo "# tracer ftrace: $got, expected $want"; return 1; }
}

for c in "${cases[@]}"; do
	IFS='@' read -r event filter predicate only <<<"$c"
	guard=$LSEEK_GUARD
	[ "$event" = task:task_rename ] && guard=$RENAME_GUARD
	check "--filter '$filter' on $event: ${only:-tracer, ftrace} and the workload agree" \
		agree "$event" "$filter" "$predicate" "$guard" "$only"
done

# --- filters meet each other and the system call programs --------------------------

# Counts EVENT in a recording of the workload with ARGS.
count_with() { # count_with EVENT ARGS...
	local event=$1 out
	out=$(mktemp -u "$work/w.XXXXXX")
	shift
	"$TRACER" record -o "$out" "$@" -- "$LOAD" "$N" 2>"$out.log" || { diag "$out.log"; return 1; }
	"$TRACER" report "$out" | { grep -c ":$event: " || :; }
}

two_filters_or() {
	local got
	got=$(count_with sys_enter_lseek -e syscalls:sys_enter_lseek --filter 'offset < 5' \
		-e 'syscalls:sys_enter_lsee*' --filter 'offset > 294') && [ "$got" = 10 ] ||
		{ echo "# $got events"; return 1; }
}
check "an event two -e select with their own filters passes either (5 + 5 events)" two_filters_or

unfiltered_wins() {
	local got
	got=$(count_with sys_enter_lseek -e syscalls:sys_enter_lseek --filter 'offset < 5' \
		-e syscalls:sys_enter_lseek) && [ "$got" = "$N" ] || { echo "# $got events"; return 1; }
}
check "an event one -e selects without a filter is recorded whole" unfiltered_wins

dynamic_string() {
	local got none
	got=$(count_with sched_process_exec -e sched:sched_process_exec \
		--filter 'filename ~ "*/filter_load" && filename != "/nowhere"') &&
		none=$(count_with sched_process_exec -e sched:sched_process_exec --filter 'filename ~ "*/nowhere"') &&
		[ "$got" = 1 ] && [ "$none" = 0 ] || { echo "# $got and $none events"; return 1; }
}
check "a __data_loc string field: the command's exec matches by its path, and nothing else" dynamic_string

# More than 64 system call events go through the raw sys_enter program
# (bpf/record.bpf.c), which builds the record itself: the same filter there.
syscall_program_filter() {
	local out=$work/sys all lseek beta
	"$TRACER" record -o "$out" -e 'syscalls:sys_enter_*' \
		--filter '__syscall_nr == 8 && comm ~ "fl-*"' -- "$LOAD" "$N" 2>"$out.log" ||
		{ diag "$out.log"; return 1; }
	all=$("$TRACER" report "$out" | grep -c 'syscalls:')
	lseek=$("$TRACER" report "$out" | grep -c ':sys_enter_lseek: ')
	beta=$(expected '[[ $comm == fl-* ]]')
	[ "$all" = "$beta" ] && [ "$lseek" = "$beta" ] || { echo "# $all events, $lseek lseek, expected $beta"; return 1; }
}
check "with every sys_enter_* event (the raw system call program), only the filter's lseek calls" \
	syscall_program_filter

rejects_all_costs_nothing() {
	local out=$work/none
	"$TRACER" record -o "$out" -e syscalls:sys_enter_lseek --filter 'offset > 1000000' \
		-- "$LOAD" "$N" 2>"$out.log" || { diag "$out.log"; return 1; }
	[ "$("$TRACER" report "$out" | grep -c 'sys_enter_lseek')" = 0 ] &&
		grep -q '^tracer record: [0-9]* events' "$out.log" && ! grep -q 'sys_enter_lseek' "$out.log" &&
		! grep -qi lost "$out.log" ||
		{ diag "$out.log"; return 1; }
}
check "a filter that rejects everything: no call recorded, nothing counted as lost" rejects_all_costs_nothing

# --- bad filters ---------------------------------------------------------------

# FILTER @ the message after "--filter 'FILTER': " (a glob of it)
bad=(
	"offst < 3@column 1: syscalls:sys_enter_lseek has no field 'offst'; did you mean offset?"
	"offset <@column 9: a value is missing here"
	"offset ~ \"a*\"@column 8: 'offset' is an integer: it takes ==, !=, <, <=, >, >= or &"
	"whence == 1 &&@column 15: the filter ends where a field name should come"
	"(whence == 1@column 13: ')' expected, to close the '(' at column 1"
	"offset == abc@column 11: 'abc' is not an unsigned integer"
	"fd == -1@column 7: '-1' is not an unsigned integer"
	"offset < 3 foo@column 12: unexpected 'foo' after a complete expression"
	"comm == bash@column 9: a string is quoted, as in \"bash\""
	"offset = 3@column 8: an operator (==, !=, <, <=, >, >=, &, ~) should follow 'offset'"
)
for c in "${bad[@]}"; do
	IFS='@' read -r filter message <<<"$c"
	check "--filter '$filter' refused: $message" \
		refused 2 "^$(literally "tracer record: --filter '$filter': $message")\$" \
		record -o "$out" -e syscalls:sys_enter_lseek --filter "$filter" -- true
done

check "a filter applies to every event of a glob, and names the one that lacks its field" \
	refused 2 "^tracer record: --filter 'prev_pid == 1' \(for sched:[a-z_]*, one of -e sched:\*\): column 1: sched:[a-z_]* has no field 'prev_pid'" \
	record -o "$out" -e 'sched:*' --filter 'prev_pid == 1' -- true

check "--filter before any -e is refused" \
	refused 2 "it filters the events of the -e before it, and none came before" \
	record --filter 'x == 1' -e sched:sched_switch -o "$out"

# --- strings longer than a filter's operands -----------------------------------------

# A copy of true at a path of LENGTH bytes ($work/ddd.../mytrue, directories
# of 100 bytes at most), printed.
long_true() { # long_true LENGTH
	local n=$(($1 - ${#work} - 8)) dirs=
	while [ "$n" -gt 100 ]; do
		dirs+=$(printf 'd%.0s' $(seq 99))/
		n=$((n - 100))
	done
	dirs+=$(printf 'd%.0s' $(seq "$n"))
	mkdir -p "$work/$dirs" && cp "$(type -P true)" "$work/$dirs/mytrue" && echo "$work/$dirs/mytrue"
}

# The counts of sched_process_exec under FILTER in tracer's recording of
# PATH's exec and in the instance at the same time.  Prints "tracer ftrace".
exec_count() { # exec_count PATH FILTER
	local dir=$instance/events/sched/sched_process_exec out=$work/x$n ours theirs
	echo "$2" >"$dir/filter" || return 1
	echo >"$instance/trace"
	echo 1 >"$dir/enable"
	"$TRACER" record -o "$out" -e sched:sched_process_exec --filter "$2" -- "$1" 2>"$out.log" ||
		{ echo 0 >"$dir/enable"; echo 0 >"$dir/filter"; diag "$out.log"; return 1; }
	echo 0 >"$dir/enable"
	echo 0 >"$dir/filter"
	ours=$("$TRACER" report "$out" | grep -c ':sched_process_exec: ')
	theirs=$(grep -vc '^#' "$instance/trace")
	echo "$ours $theirs"
}

exec_agrees() { # exec_agrees PATH FILTER EXPECTED
	local got
	got=$(exec_count "$1" "$2") && [ "$got" = "$3 $3" ] ||
		{ echo "# tracer ftrace: $got, expected $3"; return 1; }
}

# The whole field is compared, as ftrace does: a path longer than the
# longest operand (63 bytes) is not equal to its first 63 bytes, and a
# glob sees its tail (at 300 bytes, past several windows of the matcher).
for length in 87 300; do
	path=$(long_true "$length") || { echo "# no path of $length bytes"; exit 1; }
	prefix=${path:0:63}
	long_cases=(
		"filename == \"$prefix\"@0"
		"filename ~ \"$prefix\"@0"
		"filename ~ \"*/mytrue\"@1"
		"filename != \"$prefix\" && filename ~ \"*/my*ue\"@1"
		"filename ~ \"${path:0:20}*/mytrue\"@1"
	)
	for c in "${long_cases[@]}"; do
		IFS='@' read -r filter count <<<"$c"
		check "--filter '${filter//$work/\$work}' on the exec of a $length-byte path: tracer and ftrace pass $count" \
			exec_agrees "$path" "$filter" "$count"
	done
done

# Nesting is bounded: the parser recursed once per '(' and '!', and these crashed it.
check "--filter of 30,000 '(': refused in one line, no crash" \
	refused 2 "^tracer record: --filter '\({80}\.\.\.': column 65: more than 64 '\(' and '!' one inside another\$" \
	record -o "$out" -e syscalls:sys_enter_lseek --filter "$(printf '(%.0s' $(seq 30000))" -- true
check "--filter of 100,000 '!': refused in one line, no crash" \
	refused 2 "^tracer record: --filter '!{80}\.\.\.': column 65: more than 64 '\(' and '!' one inside another\$" \
	record -o "$out" -e syscalls:sys_enter_lseek --filter "$(printf '!%.0s' $(seq 100000))offset == 1" -- true

echo "1..$n"
