#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Before/after in one run: dpdk-comch-perf of two git revisions, the runs
# of the two interleaved (A, B, A, B, ...) so that a shared machine's
# drift hits both alike. See --help.
set -u -o pipefail

usage() {
	cat <<'EOF'
Usage: bench/ab.sh [-n ROUNDS] REV_A REV_B

Builds dpdk-comch-perf of git revisions REV_A and REV_B (worktrees under
bench/out/ab/, each built with the same meson options, the DPDK SDK
headers of .deps/), then runs each measurement ROUNDS times (default 7)
for A and for B in turn, across two processes (DPU role on CPU_A, host
role on CPU_B), and prints per measurement the median of A, the median of
B, B/A of the medians and the median of the per-round ratios B/A (the
one to read: the runs of a round are next to each other in time):

  ctrl_rtt_p50_us     control round trip, 64 B (lower is better)
  fp_rtt_p50_us       fast-path round trip, 64 B
  fp_64B_rate         fast-path one way, 64 B, Mmsg/s (higher is better)
  fp_64KiB_bw         fast-path one way, 64 KiB, GB/s

Environment: CPU_A, CPU_B (default 0 and 1), DURATION (seconds per
measurement, default 2). Output lands in bench/out/ab/<UTC time>/.
EOF
}

rounds=7
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	-n) rounds=$2; shift 2 ;;
	-*) echo "ab: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { usage >&2; exit 2; }
cd "$(dirname "$0")/.."
root=$(pwd)
CPU_A=${CPU_A:-0}
CPU_B=${CPU_B:-1}
DURATION=${DURATION:-2}
OUT=$root/bench/out/ab/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"

build_rev() {  # build_rev NAME REV: prints the perf binary's path
	local name=$1 rev=$2 wt=$root/bench/out/ab/wt-$1
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
	echo "$wt/build/app/dpdk-comch-perf"
}

A=$(build_rev a "$1") || { echo "ab: cannot build $1 (see $OUT/build-a.log)"; exit 1; }
B=$(build_rev b "$2") || { echo "ab: cannot build $2 (see $OUT/build-b.log)"; exit 1; }
echo "# A = $1 ($(git rev-parse --short "$1")), B = $2 ($(git rev-parse --short "$2"))"
echo "# $rounds rounds, DPU on core $CPU_A, host on core $CPU_B, $DURATION s each"

EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:error --log-level=lib.telemetry:error --log-level=pmd.comch.shm:error --log-level=lib.comch:error"

one_run() {  # one_run TAG PERF ARGS...: JSON lines into $OUT/TAG.json
	local tag=$1 perf=$2 link dpu
	shift 2
	link=$(mktemp -d /tmp/comch-ab.XXXXXX)
	taskset -c "$CPU_A" "$perf" -l "$CPU_A" $EAL --file-prefix ab-dpu-$$ \
		--vdev=comch_shm0,role=dpu,path="$link" -- --role=dpu \
		> "$OUT/$tag.dpu.log" 2>&1 &
	dpu=$!
	taskset -c "$CPU_B" "$perf" -l "$CPU_B" $EAL --file-prefix ab-host-$$ \
		--vdev=comch_shm1,role=host,path="$link" -- --role=host "$@" \
		--duration="$DURATION" --warmup=0.5 --json \
		>> "$OUT/$tag.json" 2>> "$OUT/$tag.host.log"
	kill -INT $dpu 2> /dev/null
	wait $dpu 2> /dev/null
	rm -rf "$link" /var/run/dpdk/ab-dpu-$$ /var/run/dpdk/ab-host-$$
}

for r in $(seq 1 "$rounds"); do
	for v in a b; do
		perf=$A
		[ $v = b ] && perf=$B
		one_run $v "$perf" --test=ctrl-lat,fp-lat --size=64
		one_run $v "$perf" --test=fp-tput --size=64,65536
	done
	echo "# round $r/$rounds done"
done

python3 - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]

def figures(tag):
    f = {}
    for line in open(f"{out}/{tag}.json"):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("lcore", "all") != "all":
            continue
        t, size = r["test"], r.get("size")
        # both key sets: before and after the units change of comch-perf
        if t.endswith("lat"):
            p50 = r.get("lat_p50_ns", r.get("lat_ns", {}).get("p50"))
            key = "ctrl_rtt_p50_us" if t == "ctrl-lat" else "fp_rtt_p50_us"
            f.setdefault(key, []).append(p50 / 1000.0)
        elif t == "fp-tput" and size == 64:
            rate = r.get("rate_mmsg_per_s", r.get("mpps"))
            f.setdefault("fp_64B_rate", []).append(rate)
        elif t == "fp-tput" and size == 65536:
            bw = r.get("bw_gbyte_per_s")
            if bw is None:
                bw = r["gbps"] / 8
            f.setdefault("fp_64KiB_bw", []).append(bw)
    return f

a, b = figures("a"), figures("b")
# This kind of machine switches between a fast and a slow mode for
# seconds at a time: medians of A and of B can land in different modes.
# The runs of a round are next to each other in time, so the median of
# the per-round ratios B/A is the figure to read.
print(f"{'figure':18} {'A':>10} {'B':>10} {'B/A':>7} {'B/A paired':>11}")
for k in ("ctrl_rtt_p50_us", "fp_rtt_p50_us", "fp_64B_rate", "fp_64KiB_bw"):
    if k not in a or k not in b:
        print(f"{k:18} missing")
        continue
    ma, mb = statistics.median(a[k]), statistics.median(b[k])
    pairs = [y / x for x, y in zip(a[k], b[k]) if x > 0]
    print(f"{k:18} {ma:10.3f} {mb:10.3f} {mb / ma:7.3f} {statistics.median(pairs):11.3f}")
print(f"({len(a.get('fp_64B_rate', []))} rounds; latency: lower is better, rate and bandwidth: higher)")
PY
