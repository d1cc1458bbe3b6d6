#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The fast path's CPU cost per message, before and after: builds
# bench/fpcost.c (this checkout's) against the library and driver of two
# git revisions, then runs them in turn (alternating which goes first)
# RUNS times (default 5) on one core
# and prints each run's best cycles per message at 64 B and 64 KiB, then
# the best of all runs per revision and the ratio B/A. On a shared
# machine the best of many rounds is the figure that other processes
# disturb least (see bench/fpcost.c).
#
#   bench/fpcost.sh [-n RUNS] REV_A REV_B
#
# Worktrees and builds land in bench/out/fpcost/. Environment: CPU (core,
# default 1), ROUNDS (per run, default 200).
set -u -o pipefail
runs=5
[ "${1:-}" = -n ] && { runs=$2; shift 2; }
[ $# -eq 2 ] || { sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
cd "$(dirname "$0")/.."
root=$(pwd)
CPU=${CPU:-1}
ROUNDS=${ROUNDS:-200}
OUT=$root/bench/out/fpcost
mkdir -p "$OUT"

build_rev() {  # build_rev NAME REV: prints the binary's path
	local name=$1 rev=$2 wt=$OUT/wt-$1
	if [ -d "$wt" ]; then
		git -C "$wt" checkout -q --detach "$rev" || return 1
	else
		git worktree add -q --detach "$wt" "$rev" || return 1
	fi
	rm -rf "$wt/.deps"
	cp -r "$root/.deps" "$wt/.deps"
	[ -f "$wt/build/build.ninja" ] ||
		meson setup "$wt/build" "$wt" -Dtests=false -Dexamples=false \
			> "$OUT/build-$name.log" 2>&1 || return 1
	ninja -C "$wt/build" app/dpdk-comch-perf >> "$OUT/build-$name.log" 2>&1 ||
		return 1
	# shellcheck disable=SC2046
	cc -O2 -DALLOW_EXPERIMENTAL_API -o "$OUT/fpcost-$name" \
		"$root/bench/fpcost.c" -I"$wt/lib/comch" \
		$(pkg-config --cflags libdpdk) \
		-Wl,--no-as-needed "$wt"/build/drivers/comch/shm/librte_comch_shm.so \
		"$wt"/build/lib/comch/librte_comch.so -Wl,--as-needed \
		$(pkg-config --libs libdpdk) -lrte_bus_vdev \
		-Wl,-rpath,"$wt/build/lib/comch:$wt/build/drivers/comch/shm" \
		>> "$OUT/build-$name.log" 2>&1 || return 1
	echo "$OUT/fpcost-$name"
}

A=$(build_rev a "$1") || { echo "fpcost: cannot build $1 (see $OUT/build-a.log)"; exit 1; }
B=$(build_rev b "$2") || { echo "fpcost: cannot build $2 (see $OUT/build-b.log)"; exit 1; }
echo "# A = $1 ($(git rev-parse --short "$1")), B = $2 ($(git rev-parse --short "$2")), core $CPU, $ROUNDS rounds a run"
EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:error --log-level=lib.telemetry:error"
: > "$OUT/runs.txt"
for r in $(seq 1 "$runs"); do
	order="a b"
	[ $((r % 2)) -eq 0 ] && order="b a"  # neither always goes first
	for v in $order; do
		bin=$A
		[ $v = b ] && bin=$B
		taskset -c "$CPU" "$bin" -l "$CPU" $EAL --file-prefix fpcost-$$ -- \
			"$ROUNDS" | sed "s/^/$v /" | tee -a "$OUT/runs.txt"
		rm -rf /var/run/dpdk/fpcost-$$
	done
done
python3 - "$OUT/runs.txt" <<'PY'
import re, sys
best = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w) fpcost_(\d+)_cycles: ([\d.]+)", line)
    if m:
        k = (m[1], int(m[2]))
        best[k] = min(best.get(k, 1e18), float(m[3]))
for size in sorted({s for _, s in best}):
    a, b = best.get(("a", size)), best.get(("b", size))
    if a and b:
        print(f"fpcost_{size}: A {a:.2f} cycles/msg, B {b:.2f}, B/A {b / a:.3f}")
PY
