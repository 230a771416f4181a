#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The benchmark suite's statistics on made-up rounds (bench/test_stats.py):
# pairing by round, the interval of a median, the refusal rule.  No root, no
# measurement.  Prints TAP.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not installed"
	exit 0
fi
exec python3 "$here/../bench/test_stats.py"
