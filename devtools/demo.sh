#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job (README Quick start, line 1), about half a minute:
#  1. an emulated DPU process (core 0) and a host process (core 1) exchange
#     control messages with the control-path samples, print what they
#     exchanged and the round-trip latency;
#  2. dpdk-comch-perf in pair mode prints control-path latency and
#     fast-path rate and bandwidth for a few sizes.
# Run devtools/setup.sh first.
set -euo pipefail

cd "$(dirname "$0")/.."
B=build/examples
P=build/app/dpdk-comch-perf
[ -x $B/dpdk-comch-ctrl-server ] && [ -x $P ] ||
	{ echo "demo: run devtools/setup.sh first"; exit 1; }

link=$(mktemp -d /tmp/comch-demo.XXXXXX)
srv_pid=
trap '[ -n "$srv_pid" ] && kill $srv_pid 2>/dev/null; rm -rf "$link"' EXIT
EAL="--no-pci --no-huge -m 256 --no-telemetry --log-level=lib.eal:warning --log-level=pmd.comch.shm:warning --log-level=lib.comch:warning"

echo "== control path: DPU and host processes exchange messages"
$B/dpdk-comch-ctrl-server -l 0 $EAL --file-prefix comch-demo-dpu \
	--vdev=comch_shm0,role=dpu,path=$link -- --timeout 30 &
srv_pid=$!
$B/dpdk-comch-ctrl-client -l 1 $EAL --file-prefix comch-demo-host \
	--vdev=comch_shm1,role=host,path=$link -- \
	--text "Hello from the host" --rounds 100000
wait $srv_pid
srv_pid=

echo
echo "== dpdk-comch-perf, DPU and host sides on lcores 0 and 1"
$P -l 0,1 $EAL --file-prefix comch-demo-perf -- --role=pair \
	--test=ctrl-lat --size=64 --duration=1 --warmup=0.2 | grep -v '^dpu:'
$P -l 0,1 $EAL --file-prefix comch-demo-perf -- --role=pair \
	--test=fp-lat,fp-tput --size=64,4096,65536,1048576 \
	--duration=1 --warmup=0.2 | grep -v '^dpu:'
