#!/usr/bin/env bash
# README's first command, ./setup, as a newcomer runs it: in a fresh copy
# of the tree (nothing built), it builds, records, prints the start of the
# report, and exits 0.
set -u
work=$(mktemp -d /tmp/tracer-setup-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP ./setup records with BPF, which needs root here"
	exit 0
fi

git ls-files -z | xargs -0 cp --parents -t "$work"
(cd "$work" && ./setup) >"$work/setup.out" 2>&1
status=$?
if [ "$status" = 0 ] && grep -q ' sched:sched_[a-z_]*: ' "$work/setup.out" &&
	grep -q 'setup: the whole report' "$work/setup.out"; then
	echo "ok 1 - ./setup in a fresh tree builds, records, reports and exits 0"
else
	echo "not ok 1 - ./setup in a fresh tree builds, records, reports and exits 0"
	echo "# exit $status"
	tail -n 15 "$work/setup.out" | sed 's/^/# /'
fi
echo "1..1"
