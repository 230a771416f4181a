#!/usr/bin/env bash
# The files the recorder writes, against another local user: the recorder
# runs as root, a user created for this test plants links and swaps
# directories where it may write (a sticky world-writable directory, as
# /tmp is, and a directory of its own there).  No planted link is followed,
# nothing that is not a trace is replaced, traces are private (0700/0600)
# and, under sudo, belong to the user who ran it.
set -u
TEST_NAME=files
. "$(dirname "$0")/lib.sh"	# $work: root's, 0700
require_root "recording with BPF needs root here"
keep_tracefs_as_found
shared=$(mktemp -d /tmp/tracer-files-shared.XXXXXX)
at_exit 'rm -rf "$shared"'
user=trf$$_$RANDOM

if ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
	echo "1..0 # SKIP needs useradd and setpriv to act as another user"
	exit 0
fi
useradd --system --no-create-home --no-user-group --shell /usr/sbin/nologin "$user" ||
	{ echo "Bail out! useradd $user failed"; exit 1; }
at_exit 'userdel "$user"'
uid=$(id -u "$user")
gid=$(id -g "$user")
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"; }

chmod 1777 "$shared"
home=$shared/home	# the user's: it may rename what is in it
as_user mkdir "$home"

# What the user must not be able to damage through the recorder.
echo precious >"$work/victim"
victim_intact() { [ "$(cat "$work/victim")" = precious ] || { echo "# the victim file was written"; return 1; }; }

record() { # record DIR [ARGS...]: a few getppid events into DIR
	local dir=$1
	shift
	"$TRACER" record -e syscalls:sys_enter_getppid -o "$dir" "$@" -- "$GETPPID" 3 2>"$work/record.log"
}

events_in() { "$TRACER" report "$1" 2>/dev/null | grep -c 'sys_enter_getppid: '; }

# --- links and swapped directories ------------------------------------------------

# While the command runs, the user moves the recorder's directory away and
# puts its own in its place, with links to the victim: what is written
# after that (the streams, to the end) must still go to the recorder's
# own directory, wherever it is now.
swap='mv "$1" "$1.moved" && mkdir -p "$1/.tracer" &&
	for f in metadata channel0_0 channel0_1 .tracer/events; do ln -s "$2" "$1/$f"; done'
directory_swapped_while_recording() {
	"$TRACER" record -e syscalls:sys_enter_getppid -o "$home/swapped" -- sh -c \
		"setpriv --reuid=$uid --regid=$gid --clear-groups sh -c '$swap' sh $home/swapped $work/victim &&
		 $GETPPID 3" 2>"$work/swap.log"
	local got=$?
	victim_intact && [ "$got" = 0 ] && [ -L "$home/swapped/metadata" ] &&
		[ "$(events_in "$home/swapped.moved")" -ge 3 ] ||
		{ echo "# exit $got"; diag "$work/swap.log"; return 1; }
}
check "a directory swapped in while recording: nothing written through its links" \
	directory_swapped_while_recording

# A link where the output directory goes, to a directory with a file the
# recorder would write: --force must not follow it.
link_as_the_output_directory() {
	mkdir "$work/linked"
	echo precious >"$work/linked/metadata"
	as_user ln -s "$work/linked" "$home/link"
	record "$home/link" -f
	local got=$?
	[ "$got" = 2 ] && grep -q 'is a symbolic link' "$work/record.log" &&
		[ "$(cat "$work/linked/metadata")" = precious ] && [ ! -e "$work/linked/.tracer" ] ||
		{ echo "# exit $got"; diag "$work/record.log"; return 1; }
}
check "--force on a link to a directory: refused, nothing written there" link_as_the_output_directory

# The user's own directory made to look like a trace, its files links to
# the victim: --force refuses it (not a trace: the files are links) and
# the user's files stay.
links_inside_a_fake_trace() {
	as_user mkdir -p "$home/fake/.tracer"
	as_user ln -s "$work/victim" "$home/fake/metadata"
	as_user ln -s "$work/victim" "$home/fake/channel0_0"
	as_user touch "$home/fake/.tracer/events"
	record "$home/fake" -f
	local got=$?
	victim_intact && [ "$got" = 2 ] && grep -q 'is not a trace' "$work/record.log" &&
		[ -L "$home/fake/metadata" ] && [ -L "$home/fake/channel0_0" ] ||
		{ echo "# exit $got"; diag "$work/record.log"; return 1; }
}
check "--force on a directory of links to another file: refused, links and target intact" \
	links_inside_a_fake_trace

# --- what --force replaces ------------------------------------------------------------

force_keeps_what_is_not_a_trace() {
	as_user mkdir "$home/thesis"
	echo "\\documentclass{article}" | as_user tee "$home/thesis/thesis.tex" >/dev/null
	record "$home/thesis" -f
	local got=$?
	[ "$got" = 2 ] && grep -q 'is not a trace.*--force replaces only a trace directory' "$work/record.log" &&
		[ "$(ls -A "$home/thesis")" = thesis.tex ] && [ -s "$home/thesis/thesis.tex" ] ||
		{ echo "# exit $got"; diag "$work/record.log"; return 1; }
}
check "--force on a directory that is not a trace: refused, its files kept" force_keeps_what_is_not_a_trace

# Three recordings of 1, 2 and 3 events: the newest in DIR, the one before in DIR.old.
force_keeps_the_previous_trace_as_old() {
	local i
	for i in 1 2 3; do
		"$TRACER" record -f -e syscalls:sys_enter_getppid -o "$work/t" -- "$GETPPID" "$i" \
			2>"$work/record.log" || { diag "$work/record.log"; return 1; }
	done
	[ "$(events_in "$work/t")" = 3 ] && [ "$(events_in "$work/t.old")" = 2 ] ||
		{ echo "# $(events_in "$work/t") and $(events_in "$work/t.old") events"; return 1; }
}
check "--force moves the previous trace to DIR.old, replacing an older DIR.old" \
	force_keeps_the_previous_trace_as_old

force_keeps_an_old_that_holds_more() {
	touch "$work/t.old/notes.txt"
	record "$work/t" -f
	local got=$?
	[ "$got" = 2 ] && grep -q 't.old holds more than a previous trace' "$work/record.log" &&
		[ -e "$work/t.old/notes.txt" ] && [ "$(events_in "$work/t.old")" = 2 ] &&
		[ "$(events_in "$work/t")" = 3 ] || { echo "# exit $got"; diag "$work/record.log"; return 1; }
}
check "--force when DIR.old holds more than a trace: refused, both kept" force_keeps_an_old_that_holds_more

# The user's link in place of DIR.old, to a root trace it wants removed.
force_with_a_link_as_old() {
	record "$work/target" || return 1
	record "$home/mine" || return 1
	as_user ln -s "$work/target" "$home/mine.old"
	record "$home/mine" -f
	local got=$?
	[ "$got" = 2 ] && grep -q 'mine.old is a symbolic link' "$work/record.log" &&
		[ "$(events_in "$work/target")" = 3 ] && [ "$(events_in "$home/mine")" = 3 ] ||
		{ echo "# exit $got"; diag "$work/record.log"; return 1; }
}
check "--force when DIR.old is a link: refused, neither it nor its target touched" force_with_a_link_as_old

second_recorder_on_the_same_directory() {
	"$TRACER" record -a -e syscalls:sys_enter_getppid -o "$work/busy" 2>"$work/first.log" &
	local first=$!
	wait_recording "$first" "$work/first.log" || { kill "$first"; wait "$first"; return 1; }
	record "$work/busy" -f
	local got=$?
	"$GETPPID" 5
	kill -INT "$first"
	wait "$first" || { diag "$work/first.log"; return 1; }
	[ "$got" = 1 ] && grep -q 'busy is being written by another recorder' "$work/record.log" &&
		[ ! -e "$work/busy.old" ] && [ "$(events_in "$work/busy")" -ge 5 ] ||
		{ echo "# exit $got"; diag "$work/record.log"; return 1; }
}
check "a second recorder with --force on a trace being recorded: refused, the first unharmed" \
	second_recorder_on_the_same_directory

# --- permissions and owner ----------------------------------------------------------------

private_trace() {
	(umask 022 && record "$work/private") || return 1
	local loose
	loose=$(find "$work/private" \( -type d ! -perm 700 \) -o \( -type f ! -perm 600 \))
	[ -z "$loose" ] && [ "$(find "$work/private" -type f | wc -l)" -ge 4 ] ||
		{ echo "# not private:"; ls -lR "$work/private" | diag; return 1; }
}
check "a trace is private: directories 0700, files 0600, whatever the umask" private_trace

owned_by_the_sudo_user() {
	SUDO_UID=$uid SUDO_GID=$gid record "$shared/sudo" || return 1
	local foreign
	foreign=$(find "$shared/sudo" ! -user "$uid" -o ! -group "$gid")
	[ -z "$foreign" ] && [ "$(as_user "$TRACER" report "$shared/sudo" | grep -c 'sys_enter_getppid: ')" = 3 ] ||
		{ ls -lR "$shared/sudo" | diag; return 1; }
}
check "under sudo the trace belongs to the user who ran sudo, who can read it" owned_by_the_sudo_user

exports_owned_by_the_sudo_user() {
	SUDO_UID=$uid SUDO_GID=$gid "$TRACER" export --format jsonl -o "$shared/sudo.jsonl" "$shared/sudo" &&
		SUDO_UID=$uid SUDO_GID=$gid "$TRACER" export --format ctf -o "$shared/sudo.ctf" "$shared/sudo" ||
		return 1
	local foreign
	foreign=$(find "$shared/sudo.jsonl" "$shared/sudo.ctf" ! -user "$uid" -o ! -group "$gid")
	[ -z "$foreign" ] && [ "$(as_user grep -c sys_enter_getppid "$shared/sudo.jsonl")" = 3 ] &&
		[ "$(as_user "$TRACER" report "$shared/sudo.ctf" | grep -c 'sys_enter_getppid: ')" = 3 ] ||
		{ ls -lR "$shared/sudo.jsonl" "$shared/sudo.ctf" | diag; return 1; }
}
check "under sudo what export writes, a file or a CTF copy, belongs to the user who ran sudo" \
	exports_owned_by_the_sudo_user

echo "1..$n"
