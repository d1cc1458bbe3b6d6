#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The vendor API layer's per-message cost against rte_comch_* at 64 B,
# in one run (bench/doca_overhead.c says what each number is):
#  - pair: DPU and host processes, one way, the DPU on CPU_A and the host
#    on CPU_B, rte and doca interleaved, REPS times, the median rate;
#  - local: one thread, both ends, ns of CPU work per message.
# Usage: bench/doca_overhead.sh [REPS]    (default 5; N=2000000 per run)
# Environment: BUILD (build), CPU_A (0), CPU_B (1), N.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
REPS=${1:-5}
N=${N:-2000000}
CPU_A=${CPU_A:-0}
CPU_B=${CPU_B:-1}
B=$BUILD/bench/comch-bench-doca-overhead
[ -x "$B" ] || { echo "build first: $B missing"; exit 1; }
dir=$(mktemp -d /tmp/doca-overhead.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export DOCA_COMCH_EMU="dpu 03:00.0 pf0=03:00.1 path=$dir/link"

# run API PATH: one pair; prints the DPU's rate (Mmsg/s) or nothing.
run() {
	local api=$1 path=$2 dpid out
	out=$dir/$api-$path.out
	: > "$out"
	timeout 120 taskset -c "$CPU_A" "$B" pair dpu "$api" "$path" "$N" - > "$out" 2>&1 &
	dpid=$!
	for _ in $(seq 1 600); do
		grep -q listening "$out" && break
		timeout 0.1 tail -f /dev/null 2> /dev/null
	done
	timeout 120 taskset -c "$CPU_B" "$B" pair host "$api" "$path" "$N" - > "$dir/host.out" 2>&1
	wait $dpid
	sed -n 's/^rate \([0-9.]*\) Mmsg\/s$/\1/p' "$out"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A rates
for r in $(seq 1 "$REPS"); do
	for path in ctrl fp; do
		for api in rte doca; do
			v=$(run $api $path)
			[ -n "$v" ] || { echo "run $r $api $path: no rate"; cat "$dir/$api-$path.out" "$dir/host.out"; }
			rates[$api-$path]+="$v "
		done
	done
done
best() {
	sort -g | tail -n 1
}

echo "pair: DPU (CPU $CPU_A) receives, host (CPU $CPU_B) sends 64 B one way, $N messages per run, $REPS interleaved runs"
echo "      (median, and best: on a shared machine other jobs only ever slow a run down)"
for path in ctrl fp; do
	rte=$(echo ${rates[rte-$path]} | tr ' ' '\n' | median)
	doca=$(echo ${rates[doca-$path]} | tr ' ' '\n' | median)
	rteb=$(echo ${rates[rte-$path]} | tr ' ' '\n' | best)
	docab=$(echo ${rates[doca-$path]} | tr ' ' '\n' | best)
	awk -v p=$path -v a="$rte" -v b="$doca" -v ab="$rteb" -v bb="$docab" -v ra="${rates[rte-$path]}" \
	    -v rb="${rates[doca-$path]}" 'BEGIN {
		printf "  %-4s median: rte_comch %6.2f Mmsg/s, vendor API %6.2f Mmsg/s, cost per message %+.1f %%\n",
			p, a, b, (a / b - 1) * 100
		printf "       best:   rte_comch %6.2f Mmsg/s, vendor API %6.2f Mmsg/s, cost per message %+.1f %%\n",
			ab, bb, (ab / bb - 1) * 100
		printf "       runs: rte %s| doca %s\n", ra, rb }'
done
echo "local: one thread, both ends (CPU work per message, nothing hidden)"
taskset -c "$CPU_A" "$B" local 300000 9 | sed 's/^/  /'
