#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# testpmd over net_comch against testpmd over net_memif (copy and
# zero-copy): the same Debian dpdk-testpmd, the same cores, interleaved in
# one run. For each queue count and frame size, one receiver (rxonly, its
# forwarding lcore on CPU_A) and one sender (txonly, on CPU_B); the figure
# is the median of the receiver's per-second Rx-pps samples (the first
# non-zero one, the start, dropped), the median over REPS repetitions.
# Also the cross-core one-copy limit at the same sizes
# (build/bench/comch-bench-xcore, reader reading: what rx does).
#
#   bench/net_comch.sh [REPS]          (default 3)
#
# Knobs (environment): SIZES (frame bytes, default "64 256 1500 9000"),
# QUEUES (default "1 2"), SECS (per run, default 8), CPU_A, CPU_B (0, 1),
# BUILD (build). Needs dpdk-testpmd, librte-net-memif23 and hugepages
# (devtools/setup.sh). Output: bench/out/net-<UTC time>/ with the logs,
# results.txt (one line per run) and summary.md (the table for
# doc/guides/perf.md).
set -uo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
SIZES=${SIZES:-64 256 1500 9000}
QUEUES=${QUEUES:-1 2}
SECS=${SECS:-8}
CPU_A=${CPU_A:-0}
CPU_B=${CPU_B:-1}
BUILD=${BUILD:-build}
OUT=bench/out/net-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
D="-d $BUILD/drivers/comch/shm/librte_comch_shm.so -d $BUILD/drivers/net/comch/librte_net_comch.so"
LINK=$(mktemp -d /tmp/comch-bench-net.XXXXXX)
chmod 700 "$LINK"
PRE=bench-net-$$
trap 'rm -rf "$LINK" /var/run/dpdk/$PRE-*; rm -f /dev/hugepages/$PRE-*' EXIT

command -v dpdk-testpmd > /dev/null || { echo "net_comch bench: needs dpdk-testpmd (devtools/setup.sh)"; exit 2; }
[ -f "$BUILD/drivers/net/comch/librte_net_comch.so" ] || { echo "net_comch bench: build first (meson setup $BUILD && ninja -C $BUILD)"; exit 2; }
[ "$(awk '/HugePages_Free/{print $2}' /proc/meminfo)" -ge 256 ] || { echo "net_comch bench: needs 256 free hugepages"; exit 2; }

# Median of the receiver's Rx-pps samples in Mpps (the first dropped).
rx_pps_median() {
	grep -a -o 'Rx-pps: *[0-9]*' "$1" | awk '{print $2}' | python3 -c '
import statistics, sys
v = [int(x) for x in sys.stdin.read().split()]
v = [x for x in v if x > 0][1:]
print(f"{statistics.median(v) / 1e6:.4f}" if v else "")'
}

# run MODE SIZE QUEUES REP: one receiver/sender pair, one line in results.txt
run() {
	local mode=$1 size=$2 q=$3 round=$4 srv cli rate bsz mb pkt s c seg="" mtu=""
	local tag=${mode}_${size}B_${q}q_$round
	if [ "$size" -gt 1500 ]; then
		bsz=9216; mb=9344; pkt=9216
	else
		bsz=2048; mb=2176; pkt=1518
	fi
	case $mode in
	comch)
		s="$D --vdev=comch_shm0,role=dpu,path=$LINK --vdev=net_comch0,comch=comch_shm0,server=b,queues=$q,buf_size=$bsz"
		c="$D --vdev=comch_shm1,role=host,path=$LINK --vdev=net_comch1,comch=comch_shm1,server=b,queues=$q,buf_size=$bsz"
		mtu="--max-pkt-len=$pkt" ;;
	memif_copy)
		s="--vdev=net_memif0,role=server,socket=$LINK/m.sock,bsize=$bsz"
		c="--vdev=net_memif0,role=client,socket=$LINK/m.sock,bsize=$bsz" ;;
	memif_zc)
		s="--vdev=net_memif0,role=server,socket=$LINK/m.sock,bsize=$bsz"
		c="--vdev=net_memif0,role=client,socket=$LINK/m.sock,bsize=$bsz,zero-copy=yes"
		seg="--single-file-segments" ;;
	esac
	# memif takes frames up to bsize whatever its MTU (it reports 1518
	# as its largest frame, so no --max-pkt-len there); --txpkts after
	# --mbuf-size, which testpmd checks it against
	local common="--nb-cores=1 --rxq=$q --txq=$q --stats-period=1 --total-num-mbufs=16384 --mbuf-size=$mb $mtu"
	# shellcheck disable=SC2086
	taskset -c "$CPU_A,$CPU_B" dpdk-testpmd -l "$CPU_A,$CPU_B" --main-lcore="$CPU_B" \
		--no-pci --file-prefix $PRE-s $s --log-level=lib.eal:error -- \
		--forward-mode=rxonly $common < /dev/null > "$OUT/$tag.rx.log" 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		grep -aq "Port 0: " "$OUT/$tag.rx.log" && break
		kill -0 $srv 2> /dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	taskset -c "$CPU_A,$CPU_B" dpdk-testpmd -l "$CPU_A,$CPU_B" --main-lcore="$CPU_A" \
		--no-pci $seg --file-prefix $PRE-c $c --log-level=lib.eal:error -- \
		--forward-mode=txonly $common --txpkts="$size" < /dev/null > "$OUT/$tag.tx.log" 2>&1 &
	cli=$!
	sleep "$SECS"
	# the figure first: a stopping memif testpmd may crash its peer
	rate=$(rx_pps_median "$OUT/$tag.rx.log")
	kill -INT $srv 2> /dev/null; wait $srv 2> /dev/null
	kill -INT $cli 2> /dev/null; wait $cli 2> /dev/null
	rm -rf /var/run/dpdk/$PRE-s /var/run/dpdk/$PRE-c "$LINK"/*
	rm -f /dev/hugepages/$PRE-*
	echo "$mode $size $q $round ${rate:-nan}" >> "$OUT/results.txt"
	echo "  $tag: ${rate:-no samples} Mpps"
}

{
	echo "# bench/net_comch.sh $REPS at $(git rev-parse --short HEAD 2>/dev/null), $(date -u +%FT%TZ)"
	echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cpus, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# sizes: $SIZES; queues: $QUEUES; $SECS s per run; receiver on cpu $CPU_A, sender on cpu $CPU_B"
} | tee "$OUT/header.txt"
for round in $(seq 1 "$REPS"); do
	for q in $QUEUES; do
		for size in $SIZES; do
			for mode in comch memif_copy memif_zc; do
				run $mode "$size" "$q" "$round"
			done
		done
	done
done
"$BUILD/bench/comch-bench-xcore" --cpus="$CPU_A,$CPU_B" --sizes="${SIZES// /,}" \
	--mode=notouch,touch > "$OUT/xcore.txt" 2>&1

python3 - "$OUT" <<'PY'
import collections, re, statistics, sys
out = sys.argv[1]
r = collections.defaultdict(dict)  # (mode, size, q) -> {round: Mpps}
for line in open(f"{out}/results.txt"):
    mode, size, q, round_, rate = line.split()
    if rate != "nan":
        r[(mode, int(size), int(q))][int(round_)] = float(rate)
xc, xt = {}, {}
for line in open(f"{out}/xcore.txt"):
    m = re.match(r"xcore_(\d+)B(_touch)?_bw: ([\d.]+) GB/s", line)
    if m:
        (xt if m.group(2) else xc)[int(m.group(1))] = float(m.group(3)) * 8
nan = float("nan")
med = lambda k: statistics.median(r[k].values()) if r.get(k) else nan
def ratio(size, q, other):
    """Median over repetitions of the ratio within each repetition: runs
    next to each other see the same machine."""
    a, b = r.get(("comch", size, q), {}), r.get((other, size, q), {})
    v = [a[i] / b[i] for i in a if i in b and b[i] > 0]
    return statistics.median(v) if v else nan
rows = ["| queues | frame | net_comch Mpps | Gbit/s | memif copy Mpps | Gbit/s | memif zero-copy Mpps | Gbit/s | comch / copy | comch / zc | xcore limit Gbit/s (reader reading) | comch / limit |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
for size, q in sorted({(k[1], k[2]) for k in r}, key=lambda t: (t[1], t[0])):
    c, m, z = (med((mo, size, q)) for mo in ("comch", "memif_copy", "memif_zc"))
    g = lambda mpps: mpps * size * 8 / 1000
    lim, limt = xc.get(size), xt.get(size)
    rows.append(f"| {q} | {size} B | {c:.2f} | {g(c):.1f} | {m:.2f} | {g(m):.1f} | {z:.2f} | {g(z):.1f} | "
                f"{ratio(size, q, 'memif_copy'):.2f} | {ratio(size, q, 'memif_zc'):.2f} | " +
                (f"{lim:.1f} ({limt:.1f}) | {g(c) / lim:.0%}" if lim and limt else " | ") + " |")
rows.append("")
rows.append("Mpps: median over repetitions; ratios: median over repetitions of the ratio within each.")
open(f"{out}/summary.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
echo "net_comch bench: $OUT"
