#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Comch against its peers, in one run, on cores 0 and 1.
#
# Each repetition runs dpdk-comch-perf across two processes (DPU role on
# core 0, host role on core 1; the host's fast-path tests also from a DPDK
# secondary process of a --hold primary) and then the peers of
# ../shared/bench/peers
# (cache-line and SPSC limits, memcpy, Unix sockets, UCX shared memory,
# DPDK memif), so that drift of this shared machine hits both alike.
# Prints "name: value unit" lines (medians over repetitions), then ratios
# ours/peer. Everything lands in bench/out/<UTC time>/.
#
# Usage: bench/run.sh [REPS]      (default 3; set up with devtools/setup.sh)
# Env:   PEERS_DIR (default ../shared/bench/peers), DURATION (s, default 2)
set -u -o pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
REPS=${1:-3}
DURATION=${DURATION:-2}
PEERS_DIR=${PEERS_DIR:-$root/../shared/bench/peers}
PERF=$root/build/app/dpdk-comch-perf
OUT=$root/bench/out/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
[ -x "$PERF" ] || { echo "bench: build first (devtools/setup.sh)"; exit 1; }
[ -x "$PEERS_DIR/run_peers.sh" ] || { echo "bench: no peers at $PEERS_DIR"; exit 1; }
# the plots need gnuplot (the peers script installs its own tools)
if ! command -v gnuplot >/dev/null && [ "$(id -u)" -eq 0 ]; then
	{ apt-get update -q > /dev/null 2>&1
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox > /dev/null 2>&1; } ||
		echo "# bench: cannot install gnuplot-nox; no plots" >&2
fi

EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:warning --log-level=pmd.comch.shm:warning --log-level=lib.telemetry:warning"
# a primary that secondaries attach to (hugepages, a fixed base address)
EALH="--no-pci -m 64 --base-virtaddr=0x200000000000 --log-level=lib.eal:warning --log-level=pmd.comch.shm:warning --log-level=lib.telemetry:warning"
FP_SIZES=64,4096,65536,1048576

# One comch repetition: DPU server on core 0, host runs the tests on core 1.
comch_rep() {
	local rep=$1 link dpu_pid
	link=$(mktemp -d /tmp/comch-bench.XXXXXX)
	taskset -c 0 "$PERF" -l 0 $EAL --file-prefix bench-dpu-$$ \
		--vdev=comch_shm0,role=dpu,path="$link" -- --role=dpu \
		> "$OUT/comch_dpu_$rep.log" 2>&1 &
	dpu_pid=$!
	for args in "--test=ctrl-lat,ctrl-tput --size=64" \
		    "--test=fp-lat --size=64" \
		    "--test=fp-tput --size=$FP_SIZES" \
		    "--test=fp-tput --size=$FP_SIZES --touch"; do
		# shellcheck disable=SC2086
		taskset -c 1 "$PERF" -l 1 $EAL --file-prefix bench-host-$$ \
			--vdev=comch_shm1,role=host,path="$link" -- --role=host \
			$args --duration=$DURATION --warmup=0.5 --json \
			>> "$OUT/comch_$rep.json" 2>> "$OUT/comch_host_$rep.log" ||
			echo "# comch host run failed: $args" >&2
	done
	# scale: 256 connections x 4 producer/consumer pairs; connect +
	# disconnect rate while 256 idle connections exist, and the DPU's
	# resident memory per idle connection
	taskset -c 1 "$PERF" -l 1 $EAL --file-prefix bench-host-$$ \
		--vdev=comch_shm1,role=host,path="$link" -- --role=host \
		--connections=256 --queues=4 --test=fp-tput --size=64 \
		--duration=$DURATION --warmup=0.5 --json \
		>> "$OUT/comch_$rep.json" 2>> "$OUT/comch_host_$rep.log" ||
		echo "# comch scale run failed" >&2
	# a secondary process against a primary: the same fast-path tests,
	# interleaved (primary run, secondary run, three times) so that this
	# machine's fast/slow modes hit both alike; the --hold primary idles
	# on core 1 beside the runs
	if [ "$(cat /proc/sys/vm/nr_hugepages)" -gt 0 ]; then
		local hold_pid k args
		taskset -c 1 "$PERF" -l 1 $EALH --file-prefix bench-hold-$$ \
			--vdev=comch_shm1,role=host,path="$link" -- --role=host \
			--hold > "$OUT/comch_hold_$rep.log" 2>&1 &
		hold_pid=$!
		for _ in $(seq 300); do
			grep -q holding "$OUT/comch_hold_$rep.log" && break
			sleep 0.1
		done
		for k in 1 2 3; do
			for args in "--test=fp-lat --size=64" \
				    "--test=fp-tput --size=64,65536"; do
				# shellcheck disable=SC2086
				taskset -c 1 "$PERF" -l 1 $EAL --file-prefix bench-host-$$ \
					--vdev=comch_shm1,role=host,path="$link" -- \
					--role=host $args --duration=1 --warmup=0.3 --json \
					2>> "$OUT/comch_host_$rep.log" |
					sed 's/"role": "host"/"role": "cmp_primary"/' \
					>> "$OUT/comch_$rep.json"
				# shellcheck disable=SC2086
				taskset -c 1 "$PERF" -l 1 $EALH --proc-type=secondary \
					--file-prefix bench-hold-$$ -- $args \
					--duration=1 --warmup=0.3 --json \
					2>> "$OUT/comch_sec_$rep.log" |
					sed 's/"role": "host"/"role": "cmp_secondary"/' \
					>> "$OUT/comch_$rep.json"
			done
		done
		kill -INT $hold_pid 2>/dev/null
		wait $hold_pid 2>/dev/null
		rm -f /dev/hugepages/bench-hold-$$map_*
	fi
	local rss0 rss1 host_pid
	rss0=$(awk '/VmRSS/{print $2}' /proc/$dpu_pid/status)
	taskset -c 1 "$PERF" -l 1 $EAL --file-prefix bench-host-$$ \
		--vdev=comch_shm1,role=host,path="$link" -- --role=host \
		--connections=256 --test=conn-rate --duration=3 --warmup=0.5 --json \
		>> "$OUT/comch_$rep.json" 2>> "$OUT/comch_host_$rep.log" &
	host_pid=$!
	sleep 2.5
	rss1=$(awk '/VmRSS/{print $2}' /proc/$dpu_pid/status)
	wait $host_pid
	echo "comch_idle_conn_rss: $(( (rss1 - rss0) / 256 )) KiB" >> "$OUT/comch_scale_$rep.txt"
	kill -INT $dpu_pid 2>/dev/null
	wait $dpu_pid 2>/dev/null
	rm -rf "$link"
	# pair mode (both roles in one process), for reference
	"$PERF" -l 0,1 $EAL --file-prefix bench-pair-$$ -- --role=pair \
		--test=fp-tput --size=64 --duration=$DURATION --json 2>/dev/null |
		sed 's/"role": "host"/"role": "pair"/' >> "$OUT/comch_$rep.json"
}

peers_rep() {
	local rep=$1
	mkdir -p "$OUT/peers_$rep"
	SECTIONS="physical memcpy uds ucx memif" UCX_REPS=1 MEMIF_RUNS=1 \
		MEMIF_SECS=6 WORK_DIR="$OUT/peers_$rep" \
		OUT_FILE="$OUT/peers_$rep.txt" \
		"$PEERS_DIR/run_peers.sh" > /dev/null 2>&1 ||
		echo "# peers repetition $rep reported an error (see $OUT/peers_$rep.txt)" >&2
}

for rep in $(seq 1 "$REPS"); do
	echo "# repetition $rep/$REPS: comch-perf"
	comch_rep "$rep"
	echo "# repetition $rep/$REPS: peers"
	peers_rep "$rep"
done

python3 "$root/bench/summarize.py" "$OUT" | tee "$OUT/summary.txt"
if command -v gnuplot >/dev/null; then
	python3 "$root/bench/summarize.py" --plot "$OUT" && echo "# plots: $OUT/*.png"
fi
