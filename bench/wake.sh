#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Event mode against its goals, in one run: see bench/wake.sh --help and
# doc/guides/perf.md ("Event mode").
set -u -o pipefail

usage() {
	cat <<'USAGE'
Usage: bench/wake.sh [REPS]        (REPS: repetitions, default 5)

Each repetition runs, interleaved, on two cores (DPU role on CPU_A, host
role on CPU_B, two processes):
  wake    dpdk-comch-perf --event --test=wake-lat: control round trip,
          64 B, both sides asleep in epoll between messages (the host
          idles 100 us before each), DURATION seconds
  uds     build/bench/comch-bench-uds: a blocking Unix-socket round trip,
          64 B, the same 100 us idle before each message
then once:
  idle    dpdk-comch-perf --event --test=idle for IDLE seconds: CPU use
          of the host's sleeping lcore and of the DPU process, from /proc
  busy    the same without --event (both sides poll): the reference
Prints "name: value unit" lines (medians over repetitions) and the
ratio wake/uds of the p50 round trips (goal: at most 1.2).
Environment: CPU_A, CPU_B (default 0 and 1), DURATION (default 2), IDLE
(default 10). Output lands in bench/out/wake/<UTC time>/.
USAGE
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
reps=${1:-5}
case "$reps" in ''|*[!0-9]*|0) usage >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
root=$(pwd)
CPU_A=${CPU_A:-0}
CPU_B=${CPU_B:-1}
DURATION=${DURATION:-2}
IDLE=${IDLE:-10}
PERF=$root/build/app/dpdk-comch-perf
UDS=$root/build/bench/comch-bench-uds
[ -x "$PERF" ] && [ -x "$UDS" ] || { echo "wake: run devtools/setup.sh first" >&2; exit 1; }
OUT=$root/bench/out/wake/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:error --log-level=lib.telemetry:error"

# perf NAME DPU_ARGS HOST_ARGS...: DPU and host processes, the host's
# JSON kept.
perf() {
	local name=$1 dargs=$2 dir dpu
	shift 2
	dir=$(mktemp -d /tmp/comch-wake.XXXXXX)
	# shellcheck disable=SC2086
	"$PERF" -l "$CPU_A" $EAL --file-prefix wake-d-$$ \
		--vdev=comch_shm0,role=dpu,path="$dir" -- --role=dpu $dargs \
		> "$OUT/$name.dpu" 2>&1 &
	dpu=$!
	timeout 120 "$PERF" -l "$CPU_B" $EAL --file-prefix wake-h-$$ \
		--vdev=comch_shm1,role=host,path="$dir" -- --role=host --json \
		"$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
	kill -INT $dpu 2> /dev/null
	wait $dpu
	rm -rf "$dir"
}

for r in $(seq 1 "$reps"); do
	perf wake.$r --event --event --test=wake-lat --duration="$DURATION" --warmup=0.5
	"$UDS" 20000 100 "$CPU_A" "$CPU_B" > "$OUT/uds.$r.txt"
done
perf idle --event --event --test=idle --duration="$IDLE" --warmup=0.5
perf busy "" --test=idle --duration="$IDLE" --warmup=0.5

python3 - "$OUT" "$reps" <<'PY' | tee "$OUT/summary.txt"
import json, re, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def js(name):
    with open(f"{out}/{name}.json") as f:
        return [json.loads(l) for l in f if l.startswith("{")][-1]
w50 = [js(f"wake.{r}")["lat_p50_ns"] / 1e3 for r in range(1, reps + 1)]
w99 = [js(f"wake.{r}")["lat_p99_ns"] / 1e3 for r in range(1, reps + 1)]
u50, u99 = [], []
for r in range(1, reps + 1):
    t = open(f"{out}/uds.{r}.txt").read()
    u50.append(float(re.search(r"p50 ([0-9.]+)", t).group(1)))
    u99.append(float(re.search(r"p99 ([0-9.]+)", t).group(1)))
med = statistics.median
print(f"wake_lat_64B_rtt_p50: {med(w50):.2f} us")
print(f"wake_lat_64B_rtt_p99: {med(w99):.2f} us")
print(f"uds_block_64B_rtt_p50: {med(u50):.2f} us")
print(f"uds_block_64B_rtt_p99: {med(u99):.2f} us")
ratios = [a / b for a, b in zip(w50, u50)]
print(f"wake_over_uds_p50: {med(ratios):.2f} (median of per-round ratios; goal <= 1.2)")
print("# per round wake p50: " + " ".join(f"{v:.2f}" for v in w50))
print("# per round uds p50:  " + " ".join(f"{v:.2f}" for v in u50))
for name in ("idle", "busy"):
    o = js(name)
    print(f"{name}_host_lcore_cpu: {o['cpu_pct']:.2f} %")
    print(f"{name}_dpu_process_cpu: {o['peer_cpu_pct']:.2f} %")
PY
echo "wake: output in $OUT"
