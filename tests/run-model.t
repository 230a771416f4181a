#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Exhaustive Spin verification of tests/model/ringbuf.pml, the model of
# include/tracer/ringbuf.h.  Prints TAP.
#
#   "verify" tests: pan must report "errors: 0" and a complete search.
#   "broken" tests: a deliberately broken variant; pan must report errors
#                   and the violated assertion must be one of the expected.
#   "reach"  tests: a probe asserts false at an interesting state; pan must
#                   reach it (so the verify tests are not vacuous).
#
# Environment: MODEL_JOBS (parallel pan runs, default 2), MODEL_FULL=1 (also
# the larger, slower configurations), MODEL_MEMLIM (MiB per pan, default
# 4096), TMPDIR.

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
model=$here/model/ringbuf.pml
jobs_max=${MODEL_JOBS:-2}
memlim=${MODEL_MEMLIM:-4096}
depth=200000

if ! command -v spin >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
	echo "1..0 # SKIP spin or gcc not installed"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-model.XXXXXX") || exit 1
# shellcheck disable=SC2317  # (called by the trap)
cleanup() {
	local p f
	for p in $(jobs -p); do
		kill "$p" 2>/dev/null
	done
	for f in "$tmp"/*/pan.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Assertions a data-level failure may show (A1-A5 of the model).
data='ghost_held|h_seq|h_content|h_tsb|rec_pos|rec_done|r_last|r_v>0|e_size|r_chk|r_n==rec_unread|records_overrun==0|nread'
ow=-DMODE_OVERWRITE

# kind | description | spin flags | assertion pattern (broken/reach)
tests=(
"verify|overwrite mode: 4 events + 1 nested interrupt (event, flush or lost_big)|$ow -DN_OUT=4 -DN_IRQ=1|"
"verify|overwrite mode: 2 events + 2 nested interrupts|$ow -DN_OUT=2 -DN_IRQ=2|"
"verify|discard mode: 2 events + 2 nested interrupts|-DN_OUT=2 -DN_IRQ=2|"
"verify|discard mode: 4 events + 1 nested interrupt (event, flush or lost_big)|-DN_OUT=4 -DN_IRQ=1|"
"verify|overwrite mode: two concurrent writer threads (user space)|$ow -DCONCURRENT_WRITERS -DN_OUT=2 -DN_IRQ=1|"
"verify|discard mode: two concurrent writer threads (user space)|-DCONCURRENT_WRITERS -DN_OUT=2 -DN_IRQ=1|"
"verify|overwrite mode: a concurrent flush from another CPU|$ow -DN_OUT=1 -DN_IRQ=1 -DNFLUSH=1|"
"verify|discard mode: a concurrent flush from another CPU|-DN_OUT=1 -DN_IRQ=1 -DNFLUSH=1|"
"broken|BUG_PUSH_ONE_STEP (overwrite): the one-step trb_push_reader is caught|$ow -DBUG_PUSH_ONE_STEP|consumed"
"broken|BUG_NO_WRAP_CHECK (overwrite): the K42 race is caught|$ow -DBUG_NO_WRAP_CHECK|$data"
"broken|BUG_READER_IGNORES_NOREF (overwrite): the reader takes a sub-buffer being written|$ow -DBUG_READER_IGNORES_NOREF|$data"
"broken|BUG_DELIVER_NO_UNIQUE (discard): a double delivery is caught|-DBUG_DELIVER_NO_UNIQUE|$data"
"broken|BUG_DELIVER_NO_UNIQUE (overwrite): a double delivery is caught|$ow -DBUG_DELIVER_NO_UNIQUE|$data"
"reach|reachable: a writer enters a sub-buffer in its second lap (wrap)|-DREACH_WRAP|reach_hit"
"reach|reachable: the reader reads a second-lap packet|-DREACH_READ2|reach_hit"
"reach|reachable: Eq. 3 refuses a writer (lost_wrap)|-DREACH_LOST_WRAP|reach_hit"
"reach|reachable: an interrupt delivers while the outer writer is mid-event|-DREACH_NESTED_SWITCH|reach_hit"
"reach|reachable: a record commits alignment padding before it|-DREACH_PADDING|reach_hit"
"reach|reachable: overwrite mode overwrites unread records (overrun)|$ow -DREACH_OVERRUN|reach_hit"
)
if [ "${MODEL_FULL:-0}" = 1 ]; then
	tests+=(
"verify|overwrite mode: 3 events + 2 nested interrupts|$ow -DN_OUT=3 -DN_IRQ=2|"
"verify|discard mode: 3 events + 2 nested interrupts|-DN_OUT=3 -DN_IRQ=2|"
"verify|overwrite mode: two concurrent writer threads, 3 + 1 events|$ow -DCONCURRENT_WRITERS -DN_OUT=3 -DN_IRQ=1|"
"verify|overwrite mode: a concurrent flush, 2 events + 1 interrupt|$ow -DN_OUT=2 -DN_IRQ=1 -DNFLUSH=1|"
"broken|BUG_PUSH_ONE_STEP without the push check (overwrite): records stranded|$ow -DBUG_PUSH_ONE_STEP -DNO_PUSH_CHECK|nread"
	)
fi

# Build and run test $1 in $tmp/$1.
run_one() {
	local i=$1 kind flags opt hash start end
	IFS='|' read -r kind _ flags _ <<<"${tests[$i]}"
	mkdir -p "$tmp/$i" && cd "$tmp/$i" || return
	cp "$model" ringbuf.pml
	# Probes stop early: compile them fast, with a small hash table.
	if [ "$kind" = reach ]; then opt=-O0 hash=-w20; else opt=-O2 hash=-w24; fi
	# shellcheck disable=SC2086
	if ! spin -a $flags ringbuf.pml >spin.log 2>&1; then
		echo "spin -a failed" >fail.log
		return
	fi
	if ! gcc $opt -DSAFETY -DCOLLAPSE -DMEMLIM="$memlim" -o pan pan.c \
	     >gcc.log 2>&1; then
		echo "gcc failed" >fail.log
		return
	fi
	start=$(date +%s.%N)
	./pan -m"$depth" "$hash" -n >pan.out 2>&1 &
	echo $! >pan.pid
	wait $!
	echo $? >pan.rc
	rm -f pan.pid
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f\n", e - s }' >pan.time
}

# Run everything, at most $jobs_max at a time (slowest first: the order given).
for i in "${!tests[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
	run_one "$i" &
done
wait

echo "1..${#tests[@]}"
failed=0
for i in "${!tests[@]}"; do
	IFS='|' read -r kind desc flags pattern <<<"${tests[$i]}"
	d=$tmp/$i
	n=$((i + 1))
	out=$d/pan.out
	why='' errors='' violated=''
	if [ -f "$d/fail.log" ]; then
		why=$(cat "$d/fail.log")
	elif [ ! -f "$out" ] || ! grep -q 'states, stored' "$out"; then
		why="pan did not finish"
	else
		errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$out" | tail -1)
		violated=$(grep -m1 '^pan:[0-9]*:' "$out")
		case $kind in
		verify)
			if [ "${errors:-x}" != 0 ]; then
				why="errors: ${errors:-?}: $violated"
			elif grep -q 'Search not completed\|max search depth too small\|out of memory\|hash table is full' "$out"; then
				why="search incomplete"
			fi
			;;
		broken|reach)
			if [ "${errors:-0}" -lt 1 ]; then
				why="errors: 0: the model did not catch it"
			elif ! grep -Eq "assertion violated.*($pattern)" "$out"; then
				why="failed for another reason: $violated"
			fi
			;;
		esac
	fi
	if [ -z "$why" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		echo "#   $why"
		failed=1
		# A verify failure: show the counterexample's protocol steps.
		if [ "$kind" = verify ] && [ -f "$d/ringbuf.pml.trail" ]; then
			# shellcheck disable=SC2086
			(cd "$d" && spin -t $flags ringbuf.pml 2>&1) |
				grep -E '^ *MSG:|assertion violated' | head -80 |
				sed 's/^ */#     /'
		fi
	fi
	if [ -f "$out" ]; then
		states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" | head -1)
		mem=$(sed -n 's/^ *\([0-9.]*\)[[:space:]]*total actual memory usage.*/\1/p' "$out" | head -1)
		echo "#   flags: $flags; states: ${states:-?}; pan time: $(cat "$d/pan.time" 2>/dev/null)s; memory: ${mem:-?} MB; errors: ${errors:-?}"
		if [ -n "$violated" ]; then echo "#   $violated"; fi
	fi
done
exit $failed
