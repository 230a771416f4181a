#!/bin/bash
# Uprobes and uretprobes on this kernel (events/probes.h), on the helper `probed
# N`: for i = 1..N it calls tr_probed(i, 2i + 1), which returns 3i + 1,
# and tr_named(NAME, -i), NAME cycling through alpha, beta, gamma, which
# returns -2i.  Every call is recorded once at its entry with those
# arguments, named and typed by the helper's DWARF, and once at its return
# with that value, in report and in babeltrace2; without debug
# information the registers come raw; an argument selection, an offset
# into the function and a --filter on an argument or a string select
# exactly what they should; and wrong specs are refused in one line before
# anything is recorded.  The helper's USDT probe tracer_test:step passes
# i, -i and i as a byte, tracer_test:named NAME and i.
TEST_NAME=probes
. "$(dirname "$0")/lib.sh"
require_root "needs root for BPF and uprobes"
PROBED=$BUILD/tests/helpers/probed
N=1000

# values EVENT FIELD FILE: the FIELD values of EVENT's lines in report's
# (FIELD=VALUE) or babeltrace2's (FIELD = VALUE) text, as integers in
# decimal or strings as they are, sorted.
values() {
	grep " $1: " "$3" | grep -oE "\b$2( = |=)(\"[a-z()]*\"|[a-z()]+|-?(0x)?[0-9a-fA-F]+)" |
		sed 's/^[^=]*= *//; s/"//g' | while read -r v; do
			if [[ $v =~ ^-?(0x[0-9a-fA-F]+|[0-9]+)$ ]]; then echo $((v)); else echo "$v"; fi
		done | sort
}
expected() { # expected FORMULA: FORMULA of i for i = 1..N, sorted
	for ((i = 1; i <= N; i++)); do echo $(($1)); done | sort
}
expected_names() {
	for ((i = 1; i <= N; i++)); do
		case $((i % 3)) in 0) echo alpha ;; 1) echo beta ;; 2) echo gamma ;; esac
	done | sort
}
# same EVENT FIELD FILE EXPECTED: FIELD of EVENT in FILE is EXPECTED, or say so.
same() {
	values "$1" "$2" "$3" | cmp -s - "$4" ||
		{ echo "# $(basename "$3"): $1 $2: $(values "$1" "$2" "$3" | head -3 | tr '\n' ' ')..."; return 1; }
}
# in_both DIR 'EVENT FIELD EXPECTED'...: each FIELD of EVENT in DIR's report
# and babeltrace2 text is as the file $work/EXPECTED says.
in_both() {
	local dir=$1 file what event field expected ok=0
	shift
	for file in "$work/$dir.txt" "$work/$dir.bt"; do
		for what; do
			read -r event field expected <<<"$what"
			same "$event" "$field" "$file" "$work/$expected" || ok=1
		done
	done
	return $ok
}
record() { # record DIR SPEC...: record the helper's N calls with those -e
	local dir=$1 spec args=()
	shift
	for spec; do args+=(-e "$spec"); done
	"$TRACER" record -o "$work/$dir" "${args[@]}" -- "$PROBED" $N >/dev/null \
		2>"$work/$dir.log" || { diag "$work/$dir.log"; return 1; }
	"$TRACER" report "$work/$dir" >"$work/$dir.txt" 2>"$work/$dir.err" &&
		babeltrace2 "$work/$dir" >"$work/$dir.bt" 2>"$work/$dir.bterr" ||
		{ diag "$work/$dir.err" "$work/$dir.bterr"; return 1; }
}

every_call_with_its_arguments() {
	record t "uprobe:$PROBED:tr_probed" "uretprobe:$PROBED:tr_probed" \
		"uprobe:$PROBED:tr_named" "uretprobe:$PROBED:tr_named" || return 1
	expected i >"$work/a"
	expected '2 * i + 1' >"$work/b"
	expected '3 * i + 1' >"$work/sum"
	expected -i >"$work/delta"
	expected '-2 * i' >"$work/twice"
	expected_names >"$work/names"
	in_both t "uprobe:tr_probed a a" "uprobe:tr_probed b b" "uretprobe:tr_probed ret sum" \
		"uprobe:tr_named name names" "uprobe:tr_named delta delta" \
		"uretprobe:tr_named ret twice"
}
check "uprobes and uretprobes: each of $N calls once, its arguments by name (integers, signed, strings) and its return value (report, babeltrace2)" \
	every_call_with_its_arguments

raw_registers_without_debug_information() {
	cp "$PROBED" "$work/stripped" && strip --strip-debug "$work/stripped" || return 1
	PROBED=$work/stripped record s "uprobe:$work/stripped:tr_probed" \
		"uretprobe:$work/stripped:tr_probed" || return 1
	expected i >"$work/a"
	expected '3 * i + 1' >"$work/sum"
	grep -q "has no debug information for tr_probed: its registers are recorded raw" "$work/s.log" &&
		same uprobe:tr_probed arg1 "$work/s.txt" "$work/a" &&
		same uretprobe:tr_probed ret "$work/s.bt" "$work/sum" ||
		{ diag "$work/s.log"; return 1; }
}
check "without debug information: said, and the raw registers recorded (arg1, ret)" \
	raw_registers_without_debug_information

raw_register_as_a_string() {
	PROBED=$work/stripped record rs "uprobe:$work/stripped:tr_named(arg1:string, arg2)" || return 1
	expected_names >"$work/names"
	in_both rs "uprobe:tr_named arg1 names"
}
check "without debug information, arg1:string: the string the register points to" \
	raw_register_as_a_string

# Stripped, its debug information in a file of its own named by its
# build-id (TRACER_DEBUG_DIR/.build-id/NN/REST.debug, as -dbgsym packages
# lay it out under /usr/lib/debug): the arguments by name again.
separate_debug_information() {
	local id
	cp "$PROBED" "$work/split" && objcopy --only-keep-debug "$work/split" "$work/split.debug" &&
		strip --strip-debug "$work/split" || return 1
	id=$(readelf -n "$work/split" | awk '/Build ID:/ { print $3 }')
	[ ${#id} -gt 2 ] || { echo "# no build-id in the helper"; return 1; }
	mkdir -p "$work/debug/.build-id/${id:0:2}" &&
		mv "$work/split.debug" "$work/debug/.build-id/${id:0:2}/${id:2}.debug" || return 1
	TRACER_DEBUG_DIR=$work/debug PROBED=$work/split record d "uprobe:$work/split:tr_probed" \
		"uretprobe:$work/split:tr_probed" || return 1
	expected i >"$work/a"
	expected '2 * i + 1' >"$work/b"
	expected '3 * i + 1' >"$work/sum"
	! grep -q "has no debug information" "$work/d.log" &&
		in_both d "uprobe:tr_probed a a" "uprobe:tr_probed b b" "uretprobe:tr_probed ret sum" ||
		{ diag "$work/d.log"; return 1; }
}
check "stripped, with its debug information in a .build-id file: the arguments by name" \
	separate_debug_information

selected_arguments() {
	record sel "uprobe:$PROBED:tr_named(delta)" || return 1
	expected -i >"$work/delta"
	same uprobe:tr_named delta "$work/sel.txt" "$work/delta" &&
		! grep -q 'name=' "$work/sel.txt" && ! grep -q 'name = ' "$work/sel.bt"
}
check "FUNCTION(delta) records that argument and no other" selected_arguments

filters_on_arguments() {
	"$TRACER" record -o "$work/f" -e "uprobe:$PROBED:tr_probed" --filter 'a <= 10' \
		-e "uprobe:$PROBED:tr_named" --filter 'name == "gamma" && delta > -30' \
		-- "$PROBED" $N >/dev/null 2>"$work/f.log" || { diag "$work/f.log"; return 1; }
	"$TRACER" report "$work/f" >"$work/f.txt" &&
		[ "$(values uprobe:tr_probed a "$work/f.txt" | sort -n | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 10 " ] &&
		[ "$(values uprobe:tr_named delta "$work/f.txt" | sort -n | tr '\n' ' ')" = "-29 -26 -23 -20 -17 -14 -11 -8 -5 -2 " ]
}
check "--filter on an integer argument and on a string argument records exactly the calls that pass" \
	filters_on_arguments

# The offsets into tr_probed where a line of its source starts (DWARF's line table).
line_offsets() {
	local start address
	start=$((16#$(nm "$PROBED" | awk '$3 == "tr_probed" { print $1 }')))
	objdump --dwarf=decodedline "$PROBED" | awk '$3 ~ /^0x/ { print $3 }' |
		while read -r address; do
			((address > start && address < start + 64)) && echo $((address - start))
		done | sort -un
}
offset_into_the_function() {
	local at bad offsets
	offsets=$(line_offsets)
	at=$(head -1 <<<"$offsets")
	bad=$(for ((o = 1; o < 64; o++)); do grep -qx $o <<<"$offsets" || { echo $o; break; }; done)
	[ -n "$at" ] && [ -n "$bad" ] || { echo "# no line offsets in tr_probed"; return 1; }
	record off "uprobe:$PROBED:tr_probed+$at" || return 1
	[ "$(grep -c " uprobe:tr_probed_$at: " "$work/off.txt")" = $N ] &&
		[ "$(grep -c " uprobe:tr_probed_$at: " "$work/off.bt")" = $N ] ||
		{ echo "# +$at: $(grep -c " uprobe:tr_probed_$at: " "$work/off.txt") events"; return 1; }
	refuses "tr_probed+$bad: no line of tr_probed's source starts there" "uprobe:$PROBED:tr_probed+$bad"
}

usdt_probe_with_its_arguments() {
	record u "usdt:$PROBED:tracer_test:step" || return 1
	expected i >"$work/i"
	expected -i >"$work/minus"
	expected 'i & 255' >"$work/byte"
	in_both u "sdt_tracer_test:step arg1 i" "sdt_tracer_test:step arg2 minus" \
		"sdt_tracer_test:step arg3 byte"
}
check "USDT: each of $N probe hits once, its arguments sized and signed as its note says (report, babeltrace2)" \
	usdt_probe_with_its_arguments

# A note gives sizes, not types: arg1:string reads the pointer's string.
usdt_string_argument() {
	record us "usdt:$PROBED:tracer_test:named(arg1:string, arg2)" || return 1
	expected_names >"$work/names"
	expected i >"$work/i"
	in_both us "sdt_tracer_test:named arg1 names" "sdt_tracer_test:named arg2 i"
}
check "USDT: arg1:string records the string each of $N hits passes (report, babeltrace2)" \
	usdt_string_argument

# An argument at base, index and scale: libbpf 1.7 fetches it, older ones
# cannot (attaching fails with ENOENT): said in one line before anything.
usdt_indexed_argument() {
	local spec
	spec=$(grep -o 'tracer_test:indexed	.*arguments: .*' <("$TRACER" list --usdt "$PROBED"))
	if [[ $spec != *'(%'*,* ]]; then
		record ix "usdt:$PROBED:tracer_test:indexed(arg1:string)" || return 1
		expected_names >"$work/names"
		in_both ix "sdt_tracer_test:indexed arg1 names"
	elif pkg-config --atleast-version=1.7 libbpf; then
		record ix "usdt:$PROBED:tracer_test:indexed(arg1:string)" || return 1
		expected_names >"$work/names"
		in_both ix "sdt_tracer_test:indexed arg1 names"
	else
		refuses "indexed: argument 1 is at '8@(%.*' (base, index and scale), which libbpf 1\.[0-6] cannot fetch" \
			"usdt:$PROBED:tracer_test:indexed(arg1:string)" 1
	fi
}

listed_usdt_probes() {
	"$TRACER" list --usdt "$PROBED" >"$work/list" 2>&1 &&
		grep -q "^usdt:$PROBED:tracer_test:step	event sdt_tracer_test:step, arguments: -8@" "$work/list" &&
		! "$TRACER" list --usdt /bin/true 2>"$work/none" &&
		grep -qx "tracer list: /bin/true has no USDT probes" "$work/none" ||
		{ diag "$work/list" "$work/none"; return 1; }
}
check "tracer list --usdt: the probes of a file, or that it has none" listed_usdt_probes

only_the_process_of_p() {
	"$PROBED" $N "$work/go" >/dev/null &
	local target=$! other
	"$PROBED" $N "$work/go" >/dev/null &
	other=$!
	"$TRACER" record -e "uprobe:$PROBED:tr_named" -p "$target" -o "$work/p" 2>"$work/p.log" &
	local recorder=$!
	wait_recording "$recorder" "$work/p.log" ||
		{ kill "$recorder" "$target" "$other"; wait; return 1; }
	touch "$work/go"
	wait "$target" "$other"
	kill -INT "$recorder"
	wait "$recorder" || { diag "$work/p.log"; return 1; }
	"$TRACER" report "$work/p" >"$work/p.txt" || return 1
	local pids
	pids=$(grep ' uprobe:tr_named: ' "$work/p.txt" | awk '{ print $2 }' | sort -u | tr '\n' ' ')
	[ "$(grep -c ' uprobe:tr_named: ' "$work/p.txt")" = $N ] && [ "$pids" = "$target " ] ||
		{ echo "# pids $pids, target $target"; diag "$work/p.log"; return 1; }
}
check "-p PID: every call of that process, none of another running the same program" \
	only_the_process_of_p

refuses() { # refuses PATTERN SPEC [STATUS]: exit STATUS (2), one line matching PATTERN, no trace
	rm -rf "$out"
	"$TRACER" record -e "$2" -o "$out" -- /bin/true >"$work/stdout" 2>"$work/stderr"
	local got=$?
	[ "$got" = "${3:-2}" ] && [ "$(wc -l <"$work/stderr")" = 1 ] && grep -q -- "$1" "$work/stderr" &&
		[ ! -e "$out" ] || { echo "# exit $got"; diag "$work/stderr"; return 1; }
}
check "FUNCTION+OFFSET where a line starts: every call; elsewhere: refused" offset_into_the_function
check "a function the file lacks: refused, the closest named" \
	refuses "has no function 'tr_probe'; did you mean tr_probed?" "uprobe:$PROBED:tr_probe"
check "an argument the function lacks: refused, its arguments named" \
	refuses "tr_named has no argument 'nam'; it has name, delta" "uprobe:$PROBED:tr_named(nam)"
check "a file that is not there: refused" \
	refuses "$work/nosuch: No such file or directory" "uprobe:$work/nosuch:main"
check "a file that is no ELF: refused" refuses "is not an ELF file" "uprobe:$0:main"
check "no function in the spec: refused with the form" \
	refuses "as uretprobe:PATH:FUNCTION" "uretprobe:$PROBED"
check "a USDT probe the file lacks: refused, the closest named" \
	refuses "has no USDT probe tracer_test:stp; did you mean tracer_test:step?" \
	"usdt:$PROBED:tracer_test:stp"
check "a USDT probe without its provider: refused with the form" \
	refuses "as usdt:PATH:PROVIDER:NAME" "usdt:$PROBED:step"
check "a USDT argument of 4 bytes as a string: refused, as no pointer" \
	refuses "step: argument arg2 is a 4-byte integer, not a pointer" "usdt:$PROBED:tracer_test:step(arg2:string)"
check "USDT: an argument at base, index and scale recorded, or refused in one line where libbpf cannot fetch it" \
	usdt_indexed_argument
check "a type other than string: refused" \
	refuses "step: 'arg1:int': string is the only type" "usdt:$PROBED:tracer_test:step(arg1:int)"
# Kernel functions this kernel cannot probe: the line says what it lacks
# (tests/run-vm.t records them on kernels that can).
hooks_on() { cat /sys/kernel/tracing/available_filter_functions >/dev/null 2>&1; }
if [ -e /sys/bus/event_source/devices/kprobe ]; then
	skip "kprobe: and kretprobe: refused in one line" "this kernel has kprobes (tests/run-vm.t records them)"
else
	check "kprobe: and kretprobe: refused in one line, what works here named" \
		eval 'refuses "this kernel has no kprobes (built without CONFIG_KPROBES); tracepoints (tracer list), uprobe:, uretprobe: and usdt: record here" kprobe:vfs_read 1 &&
		refuses "this kernel has no kprobes" "kretprobe:vfs_*" 1'
fi
if hooks_on; then
	skip "fentry: and fexit: refused in one line" "this kernel's function hooks work (tests/run-vm.t records fentry)"
else
	check "fentry: and fexit: refused in one line" \
		eval 'refuses "this kernel refuses fentry and fexit (its function hooks are off" fentry:vfs_read 1 &&
		refuses "this kernel refuses fentry and fexit" "fexit:vfs_*" 1'
fi
# --function, and an -e naming no tracepoint but a function, as --function.
functions_refused() {
	"$TRACER" record --function 'vfs_rea*' -o "$work/fn" -- /bin/true 2>"$work/stderr"
	local got=$?
	[ "$got" = 1 ] && [ "$(wc -l <"$work/stderr")" = 1 ] &&
		grep -q -- "--function vfs_rea\*: this kernel can probe no function" "$work/stderr" &&
		refuses "this kernel can probe no function: it has no kprobes" vfs_read 1 &&
		refuses "unknown event 'vfs_raed'; did you mean" vfs_raed 2 ||
		{ echo "# exit $got"; diag "$work/stderr"; return 1; }
}
list_functions_refused() {
	"$TRACER" list --functions 'vfs_*' >"$work/stdout" 2>"$work/stderr"
	local got=$?
	[ "$got" = 1 ] && [ ! -s "$work/stdout" ] && [ "$(wc -l <"$work/stderr")" = 1 ] &&
		grep -q "this kernel can probe no function" "$work/stderr" ||
		{ echo "# exit $got"; diag "$work/stderr"; return 1; }
}
if [ -e /sys/bus/event_source/devices/kprobe ] || hooks_on; then
	skip "--function, and -e FUNCTION: refused in one line" "this kernel can probe functions (tests/run-vm.t does)"
	skip "list --functions: refused in one line" "this kernel can probe functions (tests/run-vm.t lists them)"
else
	check "--function, and -e FUNCTION: refused in one line; a name close to no function and no tracepoint: the closest tracepoint" \
		functions_refused
	check "list --functions: refused in one line" list_functions_refused
fi
check "arguments of a uretprobe: refused" \
	refuses "it records the return value" "uretprobe:$PROBED:tr_named(name)"

echo "1..$n"
