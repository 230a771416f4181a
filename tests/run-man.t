#!/usr/bin/env bash
# The man pages (make man: build/man/, made from the commands' option
# tables by cli/man/man_pages.c, and those written by hand in cli/man/):
# each lints clean (mandoc -T lint, groff -ww); every option of every
# table is named in its command's --help (by one of its spellings: top's
# help says -f and -v only) and in its page (by all of them); and every
# tracer page a SEE ALSO names exists.
set -u
TEST_NAME=man
. "$(dirname "$0")/lib.sh"

MAN=$BUILD/man
MAN_PAGES=$BUILD/cli/man/man_pages
pages=("$MAN"/tracer.1 "$MAN"/tracer-*.1)
written=(cli/man/*.[37])

lints_clean() { # lints_clean PAGE: neither mandoc nor groff says a word
	mandoc -T lint "$1" >"$work/lint" 2>&1 && groff -ww -man -z "$1" >>"$work/lint" 2>&1 &&
		[ ! -s "$work/lint" ] || { diag "$work/lint"; return 1; }
}

# The page's text as typed: roff's \- as -, no font changes.
page_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1"; }

# named TEXT SPELLING: SPELLING appears in TEXT as an option, not inside a longer one.
named() { grep -qE -- "(^|[^-[:alnum:]])$(literally "$2")([^-[:alnum:]]|\$)" <<<"$1"; }

options_named() { # options_named COMMAND: its help names each option, its page all spellings
	local cmd=$1 help page line missing=0 spelling any
	help=$("$TRACER" "$cmd" --help) && page=$(page_text "$MAN/tracer-$cmd.1") || return 1
	while read -r line; do
		set -- $line
		[ "$1" = "$cmd" ] || continue
		shift
		any=0
		for spelling in "$@"; do
			named "$help" "$spelling" && any=1
			named "$page" "$spelling" || { echo "# tracer-$cmd.1 does not name $spelling"; missing=1; }
		done
		[ "$any" = 1 ] || { echo "# tracer $cmd --help names none of $*"; missing=1; }
	done <"$work/options"
	[ "$missing" = 0 ]
}

check "man_pages --options lists the tables' options" \
	eval '"$MAN_PAGES" --options >"$work/options" && [ -s "$work/options" ]'
for page in "${pages[@]}" "${written[@]}"; do
	check "$(basename "$page") lints clean" lints_clean "$page"
done
for cmd in $(cut -d' ' -f1 "$work/options" | uniq); do
	check "tracer $cmd: every option in --help and in tracer-$cmd.1" options_named "$cmd"
done
check "a page for each command, and tracer.1" \
	eval '[ "${#pages[@]}" = $(($(cut -d" " -f1 "$work/options" | uniq | wc -l) + 1)) ]'

# The tracer pages the SEE ALSOs name (\fBNAME\fR(N), or .BR NAME (N)), as NAME.N.
named_pages() {
	sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$@" | grep -oE 'tracer(\\-[a-z]+)?(\\fR| )\([0-9]\)' |
		sed -E 's/\\-/-/; s/(\\fR| )\(([0-9])\)/.\2/' | sort -u
}
see_also_exists() {
	local page missing=0
	for page in $(named_pages "${pages[@]}" "${written[@]}"); do
		[ -e "$MAN/$page" ] || [ -e "cli/man/$page" ] || { echo "# no page $page"; missing=1; }
	done
	[ "$missing" = 0 ] && [ -n "$(named_pages "${pages[@]}")" ]
}
check "every tracer page a SEE ALSO names exists" see_also_exists

echo "1..$n"
