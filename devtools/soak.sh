#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Soak test: random connects, disconnects, consumer churn and traffic with
# several clients against one server, for MINUTES minutes (default 10, at
# most 60). Prints what was sent, confirmed, received, lost (must be 0) and
# duplicated (must be 0), and fds/memory at start and end.
#
# Usage: devtools/soak.sh [MINUTES] [CLIENTS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
min=${1:-10}
case "$min" in ''|*[!0-9]*) echo "soak: MINUTES must be a whole number"; exit 2 ;; esac
[ "$min" -ge 1 ] && [ "$min" -le 60 ] || { echo "soak: MINUTES in 1..60"; exit 2; }
[ -x build/test/test_comch_soak ] || { echo "soak: run devtools/setup.sh first"; exit 1; }
exec build/test/test_comch_soak -- --duration=$((min * 60)) \
	--clients="${2:-4}" --seed="${3:-$RANDOM}"
