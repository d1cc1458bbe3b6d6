#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Event mode, longer than CI: the stress test of test/test_event_stress.c
# (two processes sleeping and waking at random while control and
# fast-path messages flow both ways; a stall with work pending fails) with
# MESSAGES messages in all (default 10^8, CI runs 10^7), ROUNDS times
# (default 1). Prints each round's count and time; exits non-zero at the
# first failed round.
#
# Usage: devtools/event-stress.sh [MESSAGES] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000000}
rounds=${2:-1}
case "$n$rounds" in ''|*[!0-9]*) echo "event-stress: numbers only"; exit 2 ;; esac
[ -x build/test/test_comch_event_stress ] ||
	{ echo "event-stress: run devtools/setup.sh first"; exit 1; }
for r in $(seq 1 "$rounds"); do
	echo "event-stress: round $r of $rounds"
	build/test/test_comch_event_stress --messages "$n"
done
