#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The samples across two processes (each its own DPDK primary): both sides
# exit 0 and print what they exchanged.
# Usage: test_examples.sh <build/examples>
set -u
B=${1:?usage: $0 build/examples}
dir=$(mktemp -d /tmp/comch-examples.XXXXXX)
trap 'rm -rf "$dir"' EXIT
EAL="--no-pci --no-huge -m 64 --log-level=lib.eal:error --log-level=lib.telemetry:error"
fail=0

# run_pair NAME SERVER CLIENT SERVER_ARGS CLIENT_ARGS EXPECT_SERVER EXPECT_CLIENT
#          [EXPECT_SERVER_2]
# The two start at once: each side's --timeout (60 s, a guard) covers the
# other's start on a loaded machine (the ctrl client's default is 10 s).
run_pair() {
	local name=$1 srv=$2 cli=$3 sargs=$4 cargs=$5 es=$6 ec=$7 es2=${8:-$6}
	local spid src crc
	$B/$srv -l 0 $EAL --file-prefix ex-s-$$ --vdev=comch_shm0,role=dpu,path=$dir \
		-- $sargs > "$dir/$name.srv" 2>&1 &
	spid=$!
	$B/$cli -l 1 $EAL --file-prefix ex-c-$$ --vdev=comch_shm1,role=host,path=$dir \
		-- $cargs > "$dir/$name.cli" 2>&1
	crc=$?
	wait $spid
	src=$?
	if [ $src -ne 0 ] || [ $crc -ne 0 ] ||
	   ! grep -qF "$es" "$dir/$name.srv" || ! grep -qF "$es2" "$dir/$name.srv" ||
	   ! grep -qF "$ec" "$dir/$name.cli"; then
		echo "FAIL $name: server rc $src, client rc $crc"
		cat "$dir/$name.srv" "$dir/$name.cli"
		fail=1
	else
		echo "ok $name"
	fi
}

run_pair ctrl dpdk-comch-ctrl-server dpdk-comch-ctrl-client \
	"--timeout 60 --text pong" "--text ping --rounds 1000 --timeout 60" \
	'server: received from client: "ping"' 'client: received: "pong"' \
	'closed: received 1001 messages, sent 1001'
run_pair data dpdk-comch-data-server dpdk-comch-data-client \
	"--text from-dpu --timeout 60" "--text from-host --timeout 60" \
	'server: received through the fast path: "from-host"' \
	'client: received through the fast path: "from-dpu"'
# Event mode: the same exchanges with both sides asleep while they wait.
run_pair ctrl-event dpdk-comch-ctrl-server dpdk-comch-ctrl-client \
	"--timeout 60 --text pong --event" \
	"--text ping --rounds 1000 --event --timeout 60" \
	'server: received from client: "ping"' 'client: wake-up round trip, 64 B, 1000 rounds'
run_pair data-event dpdk-comch-data-server dpdk-comch-data-client \
	"--text from-dpu --event --timeout 60" \
	"--text from-host --event --timeout 60" \
	'server: received through the fast path: "from-host"' \
	'client: received through the fast path: "from-dpu"'
# --help is true and exits 0
for p in dpdk-comch-ctrl-server dpdk-comch-ctrl-client dpdk-comch-data-server dpdk-comch-data-client; do
	if ! $B/$p -l 0 $EAL --file-prefix ex-h-$$ -- --help | grep -q -- "--timeout"; then
		echo "FAIL $p --help"
		fail=1
	fi
done
exit $fail
