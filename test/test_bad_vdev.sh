#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A comch --vdev that does not probe is fatal for every program of the
# project: it exits non-zero, and the last line it prints is the driver's
# reason. A default device is created only when no comch --vdev is given,
# said in one line naming the path. A comch --vdev of a driver that is not
# loaded gets a hint saying how to load it.
# Usage: test_bad_vdev.sh <build dir>
set -u
B=${1:?usage: $0 build-dir}
dir=$(mktemp -d /tmp/comch-badvdev.XXXXXX)
trap 'rm -rf "$dir"' EXIT
EAL="-l 0 --no-pci --no-huge -m 64 --log-level=lib.eal:error --log-level=lib.telemetry:error"
fail=0
PROGS="examples/dpdk-comch-ctrl-server examples/dpdk-comch-ctrl-client
	examples/dpdk-comch-data-server examples/dpdk-comch-data-client
	examples/dpdk-comch-pipeline app/dpdk-comch-perf"

# expect_fatal NAME PROG LAST_LINE ARGS...: exits non-zero, last line is LAST_LINE
expect_fatal() {
	local name=$1 prog=$2 last=$3 rc got
	shift 3
	timeout 60 "$B/$prog" $EAL --file-prefix badvdev-$$ "$@" > "$dir/out" 2>&1
	rc=$?
	got=$(tail -n 1 "$dir/out")
	if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ "$got" != "$last" ]; then
		echo "FAIL $name: $prog: rc $rc, last line: $got"
		echo "      expected: $last"
		sed 's/^/      | /' "$dir/out"
		fail=1
	else
		echo "ok $name: $(basename "$prog")"
	fi
}

for p in $PROGS; do
	role=dpu
	case $p in *client*) role=host ;; esac
	[ "$p" = app/dpdk-comch-perf ] && extra="-- --role=dpu --duration=1" || extra=""
	# shellcheck disable=SC2086
	expect_fatal bad-role "$p" \
		"comch_shm0: role=bogus: accepted values are dpu, host" \
		--vdev=comch_shm0,role=bogus,path=$dir $extra
	# shellcheck disable=SC2086
	expect_fatal typo "$p" \
		'comch_shm0: unknown devarg "fucntion"; accepted: role, path, functions, function, max_conns, max_pending, handshake_timeout_ms, max_consumers, max_map_mb, wake_check_ms' \
		--vdev=comch_shm0,role=$role,fucntion=pf0,path=$dir $extra
	# the second of two comch devices is bad
	# shellcheck disable=SC2086
	expect_fatal second-bad "$p" \
		"comch_shm1: path=relative: must be an absolute directory path" \
		--vdev=comch_shm0,role=$role,path=$dir --vdev=comch_shm1,role=host,path=relative $extra
	# no driver for that name: EAL refuses it; the hint says what to do
	# shellcheck disable=SC2086
	expect_fatal no-driver "$p" \
		"hint: if EAL could not parse comch_nosuch0, no comch driver is loaded: link librte_comch_shm with -Wl,--no-as-needed (pkg-config --libs libcomch does) or load it with -d <dir>/librte_comch_shm.so" \
		--vdev=comch_nosuch0,role=$role $extra
done

# No comch --vdev at all: a default device, said in one line that names
# the path (the ctrl client gives up at once: nothing serves it).
timeout 60 "$B/examples/dpdk-comch-ctrl-client" $EAL --file-prefix badvdev-$$ \
	-- --timeout 0.1 > "$dir/out" 2>&1
if grep -qx "no comch --vdev given: created comch_shm_host,role=host,path=/tmp/comch (link sockets in /tmp/comch)" "$dir/out" &&
   [ "$(grep -c 'no comch --vdev given' "$dir/out")" -eq 1 ]; then
	echo "ok default device said once"
else
	echo "FAIL default device line"
	sed 's/^/      | /' "$dir/out"
	fail=1
fi
exit $fail
