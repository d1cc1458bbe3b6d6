#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job: an emulated DPU process (core 0) and a host process (core 1)
# exchange control messages over comch_shm; both print what they exchanged
# and the host prints the round-trip latency. Run devtools/setup.sh first.
set -euo pipefail

cd "$(dirname "$0")/.."
B=build/examples
[ -x $B/dpdk-comch-ctrl-server ] || { echo "demo: run devtools/setup.sh first"; exit 1; }

link=$(mktemp -d /tmp/comch-demo.XXXXXX)
trap 'kill $srv_pid 2>/dev/null || true; rm -rf "$link"' EXIT
EAL="--no-pci --no-huge -m 64 --log-level=lib.eal:warning"

$B/dpdk-comch-ctrl-server -l 0 $EAL --file-prefix comch-demo-dpu \
	--vdev=comch_shm0,role=dpu,path=$link -- --timeout 30 &
srv_pid=$!
$B/dpdk-comch-ctrl-client -l 1 $EAL --file-prefix comch-demo-host \
	--vdev=comch_shm1,role=host,path=$link -- \
	--text "Hello from the host" --rounds 100000
wait $srv_pid
