#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Comch against its peers, in one run, from a clone: see bench/run.sh --help
# and doc/guides/perf.md.
set -u -o pipefail

usage() {
	cat <<'EOF'
Usage: bench/run.sh [REPS]        (REPS: repetitions, default 3)

Runs dpdk-comch-perf and its peers on two cores, interleaved: each
repetition runs, in this order,
  comch   dpdk-comch-perf across two processes (DPU role on CPU_A, host role
          on CPU_B): control round trip and one-way rate at 64 B, fast-path
          round trip at 64 B, fast-path one way at 64 B, 4 KiB, 64 KiB and
          1 MiB with and without --touch, 256 connections x 4 queues,
          connect + disconnect rate, a host secondary process against a
          primary (interleaved, needs hugepages), and pair mode at 64 B
  memif   DPDK memif between two dpdk-testpmd processes (server rxonly,
          forwarding on CPU_A; client txonly 64 B, forwarding on CPU_B),
          copy mode then zero-copy; the figure is the median of the
          server's per-second Rx-pps (needs hugepages)
  ucx     ucx_perftest over shared memory (UCX_TLS=posix,self), server on
          CPU_A, client on CPU_B: tag_lat 64 B (round trip = 2 x its
          one-way figure), ucp_am_bw and tag_bw at 64 B and 64 KiB
  xcore   build/bench/comch-bench-xcore: the cross-core one-copy limit
          (writer on CPU_A copies into 16 shared slots, reader on CPU_B
          takes them, with and without reading the payload) and
          single-core memcpy, at 64 B, 4 KiB, 64 KiB and 1 MiB
so that drift of a shared machine hits all of them alike. Then, once and
only if PEERS_DIR holds run_peers.sh, the extra reference figures of that
folder (by default cache-line ping-pong, SPSC ring, Unix sockets), its
names prefixed shared_. Without that folder nothing is missing.

Prints "name: value unit" lines (medians over repetitions), ratios and
goals; with gnuplot, rate_bw.png and latency.png. Everything lands in
bench/out/<UTC time>/. Missing tools are installed with apt-get when run
as root (gnuplot-nox, dpdk-dev for dpdk-testpmd, librte-net-memif23,
ucx-utils); a section whose tool is missing is skipped with a note.

Needs: build/ (devtools/setup.sh or meson setup build && ninja -C build),
hugepages for memif and the secondary-process case (devtools/setup.sh).

Environment:
  SECTIONS     sections to run each repetition (default "comch memif ucx xcore")
  DURATION     seconds per comch-perf measurement (default 2)
  MEMIF_SECS   seconds per memif mode (default 6; the first sample is dropped)
  UCX_ITERS    iterations scale for ucx_perftest (default 1: 1e6 tag_lat,
               5e6 at 64 B, 2e5 at 64 KiB)
  XCORE_TRIALS trials per xcore figure (default 5, 300 ms each)
  CPU_A CPU_B  the two cores (default 0 and 1)
  BUILD        the meson build folder (default build)
  PEERS_DIR    optional reference peers (default ../shared/bench/peers)
  SHARED_PEERS 0: never run PEERS_DIR's script (default: when present)
  SHARED_SECTIONS  its sections (default "physical uds")
EOF
}

case "${1:-}" in
-h|--help) usage; exit 0 ;;
esac
REPS=${1:-3}
if ! [[ "$REPS" =~ ^[1-9][0-9]*$ ]] || [ $# -gt 1 ]; then
	echo "bench: expected REPS, a positive integer; see --help" >&2
	exit 1
fi

cd "$(dirname "$0")/.."
root=$(pwd)
SECTIONS=${SECTIONS:-comch memif ucx xcore}
DURATION=${DURATION:-2}
MEMIF_SECS=${MEMIF_SECS:-6}
UCX_ITERS=${UCX_ITERS:-1}
XCORE_TRIALS=${XCORE_TRIALS:-5}
CPU_A=${CPU_A:-0}
CPU_B=${CPU_B:-1}
BUILD=${BUILD:-$root/build}
PEERS_DIR=${PEERS_DIR:-$root/../shared/bench/peers}
SHARED_PEERS=${SHARED_PEERS:-auto}
SHARED_SECTIONS=${SHARED_SECTIONS:-physical uds}
PERF=$BUILD/app/dpdk-comch-perf
XCORE=$BUILD/bench/comch-bench-xcore
OUT=$root/bench/out/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
[ -x "$PERF" ] && [ -x "$XCORE" ] ||
	{ echo "bench: build first: meson setup build && ninja -C build (or devtools/setup.sh)" >&2; exit 1; }
t_start=$(date +%s)
# the DPDK runtime folders of this run's processes (their --file-prefix)
trap 'rm -rf /var/run/dpdk/bench-*-$$ /var/run/dpdk/bench-memif-$$-*' EXIT

has() { [[ " $SECTIONS " == *" $1 "* ]]; }
note() { echo "# bench: $*" | tee -a "$OUT/notes.txt" >&2; }
hugepages() { [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" -gt 0 ]; }

# --------------------------------------------------------------- tools
missing=()
command -v gnuplot > /dev/null || missing+=(gnuplot-nox)
if has memif; then
	command -v dpdk-testpmd > /dev/null || missing+=(dpdk-dev)
	dpkg-query -W -f='${Status}' librte-net-memif23 2>/dev/null |
		grep -q "ok installed" || missing+=(librte-net-memif23)
fi
if has ucx; then
	command -v ucx_perftest > /dev/null || missing+=(ucx-utils)
fi
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "# bench: installing ${missing[*]}"
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q "${missing[@]}"; } > "$OUT/apt.log" 2>&1 ||
			note "cannot install ${missing[*]} (see $OUT/apt.log)"
	else
		note "missing ${missing[*]}; install them (as root: apt-get install ${missing[*]})"
	fi
fi
if has memif && ! { command -v dpdk-testpmd > /dev/null && hugepages; }; then
	note "memif skipped: needs dpdk-testpmd, librte-net-memif23 and hugepages (devtools/setup.sh)"
	SECTIONS=${SECTIONS//memif/}
fi
if has ucx && ! command -v ucx_perftest > /dev/null; then
	note "ucx skipped: needs ucx_perftest (ucx-utils)"
	SECTIONS=${SECTIONS//ucx/}
fi

# ------------------------------------------------------------- comch
EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:warning --log-level=pmd.comch.shm:warning --log-level=lib.telemetry:warning --log-level=lib.comch:warning"
# a primary that secondaries attach to (hugepages, a fixed base address)
EALH="--no-pci -m 64 --base-virtaddr=0x200000000000 --log-level=lib.eal:warning --log-level=pmd.comch.shm:warning --log-level=lib.telemetry:warning --log-level=lib.comch:warning"
FP_SIZES=64,4096,65536,1048576

# One comch repetition: DPU server on CPU_A, host runs the tests on CPU_B.
comch_rep() {
	local round=$1 link dpu_pid
	link=$(mktemp -d /tmp/comch-bench.XXXXXX)
	taskset -c "$CPU_A" "$PERF" -l "$CPU_A" $EAL --file-prefix bench-dpu-$$ \
		--vdev=comch_shm0,role=dpu,path="$link",max_conns=300,max_consumers=64 -- --role=dpu \
		> "$OUT/comch_dpu_$round.log" 2>&1 &
	dpu_pid=$!
	host() {  # host ARGS...: one host process on CPU_B, JSON appended
		taskset -c "$CPU_B" "$PERF" -l "$CPU_B" $EAL --file-prefix bench-host-$$ \
			--vdev=comch_shm1,role=host,path="$link" -- --role=host "$@" \
			--json >> "$OUT/comch_$round.json" 2>> "$OUT/comch_host_$round.log"
	}
	for args in "--test=ctrl-lat,ctrl-tput --size=64" \
		    "--test=fp-lat --size=64" \
		    "--test=fp-tput --size=$FP_SIZES" \
		    "--test=fp-tput --size=$FP_SIZES --touch"; do
		# shellcheck disable=SC2086
		host $args --duration="$DURATION" --warmup=0.5 ||
			note "comch host run failed: $args"
	done
	# scale: 256 connections x 4 producer/consumer pairs
	host --connections=256 --queues=4 --test=fp-tput --size=64 \
		--duration="$DURATION" --warmup=0.5 || note "comch scale run failed"
	# a secondary process against a primary: the same fast-path tests,
	# interleaved (primary run, secondary run, three times); the --hold
	# primary idles on CPU_B beside the runs
	if hugepages; then
		local hold_pid k
		taskset -c "$CPU_B" "$PERF" -l "$CPU_B" $EALH --file-prefix bench-hold-$$ \
			--vdev=comch_shm1,role=host,path="$link" -- --role=host \
			--hold > "$OUT/comch_hold_$round.log" 2>&1 &
		hold_pid=$!
		for _ in $(seq 300); do  # until it says so (a failure guard)
			grep -q holding "$OUT/comch_hold_$round.log" && break
			kill -0 $hold_pid 2>/dev/null || break
			sleep 0.1
		done
		for k in 1 2 3; do
			for args in "--test=fp-lat --size=64" \
				    "--test=fp-tput --size=64,65536"; do
				# shellcheck disable=SC2086
				taskset -c "$CPU_B" "$PERF" -l "$CPU_B" $EAL \
					--file-prefix bench-host-$$ \
					--vdev=comch_shm1,role=host,path="$link" -- \
					--role=host $args --duration=1 --warmup=0.3 --json \
					2>> "$OUT/comch_host_$round.log" |
					sed 's/"role": "host"/"role": "cmp_primary"/' \
					>> "$OUT/comch_$round.json"
				# shellcheck disable=SC2086
				taskset -c "$CPU_B" "$PERF" -l "$CPU_B" $EALH --proc-type=secondary \
					--file-prefix bench-hold-$$ -- $args \
					--duration=1 --warmup=0.3 --json \
					2>> "$OUT/comch_sec_$round.log" |
					sed 's/"role": "host"/"role": "cmp_secondary"/' \
					>> "$OUT/comch_$round.json"
			done
		done
		kill -INT $hold_pid 2>/dev/null
		wait $hold_pid 2>/dev/null
		rm -f /dev/hugepages/bench-hold-$$map_*
	fi
	# connect + disconnect rate while 256 idle connections exist, and the
	# DPU's resident memory per idle connection (read while they are
	# open: the run connects them first, then measures for 3 s)
	local rss0 rss1 host_pid
	rss0=$(awk '/VmRSS/{print $2}' /proc/$dpu_pid/status)
	host --connections=256 --test=conn-rate --duration=3 --warmup=0.5 &
	host_pid=$!
	sleep 2.5
	rss1=$(awk '/VmRSS/{print $2}' /proc/$dpu_pid/status)
	wait $host_pid || note "comch conn-rate run failed"
	echo "comch_idle_conn_rss: $(( (rss1 - rss0) / 256 )) KiB" >> "$OUT/comch_scale_$round.txt"
	kill -INT $dpu_pid 2>/dev/null
	wait $dpu_pid 2>/dev/null
	rm -rf "$link"
	# pair mode (both roles in one process), for reference
	"$PERF" -l "$CPU_A,$CPU_B" $EAL --file-prefix bench-pair-$$ -- --role=pair \
		--test=fp-tput --size=64 --duration="$DURATION" --json 2>/dev/null |
		sed 's/"role": "host"/"role": "pair"/' >> "$OUT/comch_$round.json"
}

# ------------------------------------------------------------- memif
# Median of the server's per-second Rx-pps samples, in Mmsg/s (the
# first non-zero sample covers the start: dropped).
rx_pps_median() {
	grep -a -o 'Rx-pps: *[0-9]*' "$1" | awk '{print $2}' |
		python3 -c '
import statistics, sys
v = [int(x) for x in sys.stdin.read().split()]
v = [x for x in v if x > 0][1:]
print(f"{statistics.median(v) / 1e6:.4f}" if v else "")'
}

memif_mode() {  # memif_mode REP copy|zc
	local round=$1 mode=$2 sock srv cli pre=bench-memif-$$ zc="" seg="" rate
	sock=/tmp/comch-bench-memif-$$.sock
	if [ "$mode" = zc ]; then
		zc=",zero-copy=yes"
		seg="--single-file-segments"
	fi
	# each testpmd: a main lcore (sleeps, prints the stats) and one
	# forwarding lcore: the server forwards on CPU_A, the client on CPU_B
	taskset -c "$CPU_A,$CPU_B" dpdk-testpmd -l "$CPU_A,$CPU_B" --main-lcore="$CPU_B" \
		--no-pci --file-prefix $pre-s --vdev=net_memif0,role=server,socket=$sock \
		-- --forward-mode=rxonly --nb-cores=1 --stats-period=1 \
		--total-num-mbufs=16384 < /dev/null > "$OUT/memif_${mode}_server_$round.log" 2>&1 &
	srv=$!
	for _ in $(seq 100); do  # until it listens (a failure guard)
		grep -aq "Start automatic\|Port 0: " "$OUT/memif_${mode}_server_$round.log" && break
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	taskset -c "$CPU_A,$CPU_B" dpdk-testpmd -l "$CPU_A,$CPU_B" --main-lcore="$CPU_A" \
		--no-pci $seg --file-prefix $pre-c \
		--vdev=net_memif0,role=client,socket=$sock$zc \
		-- --forward-mode=txonly --txpkts=64 --nb-cores=1 --stats-period=1 \
		--total-num-mbufs=16384 < /dev/null > "$OUT/memif_${mode}_client_$round.log" 2>&1 &
	cli=$!
	sleep "$MEMIF_SECS"
	# read the figure first: in DPDK 22.11 the other side of a stopping
	# memif testpmd may crash at teardown; stop the receiver first
	rate=$(rx_pps_median "$OUT/memif_${mode}_server_$round.log")
	kill -INT $srv 2>/dev/null
	wait $srv 2>/dev/null
	echo "# memif $mode: server exit status $?" >> "$OUT/memif_$round.txt"
	kill -INT $cli 2>/dev/null
	wait $cli 2>/dev/null
	echo "# memif $mode: client exit status $?" >> "$OUT/memif_$round.txt"
	rm -f "$sock" /dev/hugepages/$pre-smap_* /dev/hugepages/$pre-cmap_*
	rm -rf /var/run/dpdk/$pre-s /var/run/dpdk/$pre-c
	if [ -z "$rate" ]; then
		note "memif $mode: no Rx-pps samples (see $OUT/memif_${mode}_*_$round.log)"
		return
	fi
	{
		echo "memif_${mode}_64B_rate: $rate Mmsg/s"
		python3 -c "print(f'memif_${mode}_64B_bw: {$rate * 64 / 1e3:.4f} GB/s')"
	} >> "$OUT/memif_$round.txt"
}

memif_rep() {
	memif_mode "$1" copy
	memif_mode "$1" zc
}

# --------------------------------------------------------------- ucx
UCX_PORT=$(( 20000 + $$ % 20000 ))

ucx_test() {  # ucx_test REP TEST SIZE ITERS
	local round=$1 test=$2 size=$3 iters=$4 srv line log
	log=$OUT/ucx_${test}_${size}_$round.log
	UCX_TLS=posix,self taskset -c "$CPU_A" ucx_perftest -p $UCX_PORT \
		> "$log.server" 2>&1 &
	srv=$!
	for _ in $(seq 100); do  # until it listens (a failure guard)
		ss -Hltn "sport = :$UCX_PORT" 2>/dev/null | grep -q . && break
		kill -0 $srv 2>/dev/null || break
		sleep 0.05
	done
	UCX_TLS=posix,self taskset -c "$CPU_B" ucx_perftest 127.0.0.1 -p $UCX_PORT \
		-t "$test" -s "$size" -n "$iters" -f > "$log" 2>&1 ||
		note "ucx_perftest $test $size failed (see $log)"
	wait $srv 2>/dev/null
	# the last line: iterations, latency 50%/average/overall (us, one
	# way for *_lat), bandwidth average/overall (MiB/s), rate average/overall
	line=$(awk 'NF == 8 && $1 ~ /^[0-9]+$/ {l = $0} END {print l}' "$log")
	[ -n "$line" ] || return
	python3 - "$test" "$size" $line >> "$OUT/ucx_$round.txt" <<'PY'
import sys
test, size = sys.argv[1], int(sys.argv[2])
it, p50, avg, overall, bw_avg, bw_all, rate_avg, rate_all = map(float, sys.argv[3:11])
n = {64: "64B", 65536: "64KiB"}.get(size, f"{size}B")
if test.endswith("_lat"):
    # perftest's latency is half a round trip
    print(f"ucx_{test}_{n}_rtt_p50: {2 * p50:.4f} us")
    print(f"ucx_{test}_{n}_rtt_mean: {2 * avg:.4f} us")
else:
    name = test.replace("ucp_", "")
    print(f"ucx_{name}_{n}_rate: {rate_all / 1e6:.4f} Mmsg/s")
    print(f"ucx_{name}_{n}_bw: {rate_all * size / 1e9:.4f} GB/s")
PY
}

ucx_rep() {
	local round=$1 k=$UCX_ITERS
	ucx_test "$round" tag_lat 64 $((1000000 * k))
	ucx_test "$round" ucp_am_bw 64 $((5000000 * k))
	ucx_test "$round" ucp_am_bw 65536 $((200000 * k))
	ucx_test "$round" tag_bw 64 $((5000000 * k))
	ucx_test "$round" tag_bw 65536 $((200000 * k))
}

# ------------------------------------------------------------- xcore
xcore_rep() {
	"$XCORE" --cpus="$CPU_A,$CPU_B" --trials="$XCORE_TRIALS" \
		> "$OUT/xcore_$1.txt" 2>> "$OUT/xcore_$1.log" ||
		note "xcore failed (see $OUT/xcore_$1.log)"
}

# ---------------------------------------------------------------- run
{
	echo "# bench/run.sh $REPS, $(date -u +%FT%TZ), $(uname -n) $(uname -r)"
	echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cpus; cores $CPU_A and $CPU_B"
	echo "# git: $(git -C "$root" describe --always --dirty 2>/dev/null)"
	echo "# sections: $SECTIONS"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
for round in $(seq 1 "$REPS"); do
	for sec in comch memif ucx xcore; do
		has $sec || continue
		echo "# repetition $round/$REPS: $sec ($(( $(date +%s) - t_start )) s)"
		"${sec}_rep" "$round"
	done
done
if [ "$SHARED_PEERS" != 0 ] && [ -x "$PEERS_DIR/run_peers.sh" ]; then
	echo "# extra: reference peers of $PEERS_DIR, once"
	mkdir -p "$OUT/shared_peers"
	SECTIONS="$SHARED_SECTIONS" WORK_DIR="$OUT/shared_peers" \
		OUT_FILE="$OUT/shared_peers.txt" CPU_A=$CPU_A CPU_B=$CPU_B \
		"$PEERS_DIR/run_peers.sh" > /dev/null 2>&1 ||
		note "the reference peers reported an error (see $OUT/shared_peers.txt)"
fi
echo "# done in $(( $(date +%s) - t_start )) s" | tee -a "$OUT/machine.txt"

python3 "$root/bench/summarize.py" "$OUT" | tee "$OUT/summary.txt"
if command -v gnuplot > /dev/null; then
	python3 "$root/bench/summarize.py" --plot "$OUT" && echo "# plots: $OUT/*.png"
fi
