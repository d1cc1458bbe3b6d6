#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Short dpdk-comch-perf runs of each test type in pair mode, and one across
# two processes: every counter is consistent (sent = received by the peer,
# bytes = messages x size, the measured count as asked). No timing is
# asserted.
# Usage: test_perf.sh <path to dpdk-comch-perf>
set -u
PERF=${1:?usage: $0 dpdk-comch-perf}
EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:error --log-level=lib.telemetry:error --log-level=pmd.comch.shm:warning"
out=$(mktemp -d /tmp/comch-perf-test.XXXXXX)
trap 'rm -rf "$out"; rm -f /dev/hugepages/perft-hold-$$map_*; rm -rf /var/run/dpdk/perft-*-$$' EXIT
fail=0

check() {  # check FILE EXPECTED_TOTALS COUNT
	python3 - "$1" "$2" "$3" <<'PY' || fail=1
import json, sys
path, expected, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
objs = [json.loads(l) for l in open(path) if l.startswith("{")]
totals = [o for o in objs if o["lcore"] == "all"]
ok = len(totals) == expected
for o in objs:
    if o["lcore"] != "all":
        # a per-lcore line: its share of the messages, no peer view
        good = o["msgs"] <= o["sent"] and "peer_received" not in o
    elif o["test"] == "conn-rate":
        good = o["msgs"] >= count and o["sent"] >= o["msgs"]
    else:
        good = (o["sent"] == o["peer_received"] and
                o["peer_bytes"] == o["peer_received"] * o["size"] and
                o["msgs"] >= count and o["msgs"] <= o["sent"] and
                (("lat_ns" in o) == o["test"].endswith("lat")))
    if o["test"] == "fp-bidir" and o["lcore"] == "all":
        good = good and o["received"] == o["peer_sent"] and o["received"] > 0
    if "lat_ns" in o:
        l = o["lat_ns"]
        good = good and 0 < l["p50"] <= l["p90"] <= l["p99"] <= l["p999"] <= l["max"]
    if not good:
        print("FAIL inconsistent:", o)
    ok = ok and good
print(("ok" if ok else "FAIL") + f" {path}: {len(totals)} results")
sys.exit(0 if ok else 1)
PY
}

# pair: every test, two sizes, by count
"$PERF" -l 0,1 $EAL --file-prefix perft-pair-$$ -- --role=pair \
	--test=ctrl-lat,ctrl-tput,fp-lat,fp-tput,fp-bidir,conn-rate \
	--size=64,1000 --count=20000 --warmup=0 --json \
	> "$out/pair.json" 2> "$out/pair.err" || {
	echo "FAIL pair run"; cat "$out/pair.err"; fail=1; }
check "$out/pair.json" 11 20000

# several connections and queues: 8 x 4 streams, all delivered
"$PERF" -l 0,1 $EAL --file-prefix perft-multi-$$ -- --connections=8 \
	--queues=4 --test=fp-tput,fp-bidir,ctrl-tput --count=50000 --warmup=0 \
	--json > "$out/multi.json" 2> "$out/multi.err" || {
	echo "FAIL multi run"; cat "$out/multi.err"; fail=1; }
check "$out/multi.json" 3 50000

# --touch and a large size
"$PERF" -l 0,1 $EAL --file-prefix perft-touch-$$ -- --test=fp-tput \
	--size=1048576 --count=200 --warmup=0 --touch --json \
	> "$out/touch.json" 2> "$out/touch.err" || { echo "FAIL touch run"; fail=1; }
check "$out/touch.json" 1 200

# two processes: dpu serves two hosts in a row, then is stopped by SIGINT
link=$out/link
mkdir -m 0700 "$link"  # the link folder: this user's alone
"$PERF" -l 0 $EAL --file-prefix perft-dpu-$$ --vdev=comch_shm0,role=dpu,path=$link \
	-- --role=dpu > "$out/dpu.log" 2>&1 &
dpu=$!
for i in 1 2; do
	"$PERF" -l 1 $EAL --file-prefix perft-host-$$ \
		--vdev=comch_shm1,role=host,path=$link -- --role=host \
		--test=fp-tput,ctrl-lat --count=5000 --warmup=0 --json \
		> "$out/host$i.json" 2> "$out/host$i.err" || {
		echo "FAIL host run $i"; cat "$out/host$i.err"; fail=1; }
	check "$out/host$i.json" 2 5000
done
kill -INT $dpu
wait $dpu || { echo "FAIL dpu exit status"; fail=1; }
grep -q "served 2 host(s)" "$out/dpu.log" || { echo "FAIL dpu did not serve 2 hosts"; cat "$out/dpu.log"; fail=1; }

# interactive: commands from a pipe, one fp-tput run between start and stop
"$PERF" -l 0 $EAL --file-prefix perft-idpu-$$ --vdev=comch_shm0,role=dpu,path=$link \
	-- --role=dpu > "$out/idpu.log" 2>&1 &
dpu=$!
printf 'set test fp-tput\nset size 256\nset burst 8\nstart\nshow stats\nstop\nset burst 0\nquit\n' |
	"$PERF" -l 1,0 $EAL --file-prefix perft-ihost-$$ \
		--vdev=comch_shm1,role=host,path=$link -- --role=host -i --warmup=0 \
		> "$out/ihost.log" 2>&1 || { echo "FAIL interactive exit status"; fail=1; }
kill -INT $dpu
wait $dpu
for want in "running fp-tput, size 256, burst 8" "fp-tput size 256: sent" \
	    "fp-tput   all      size      256  burst    8" "burst: 1 to 1024"; do
	grep -qF "$want" "$out/ihost.log" ||
		{ echo "FAIL interactive: no \"$want\""; cat "$out/ihost.log"; fail=1; }
done
if grep -q LOST "$out/ihost.log"; then echo "FAIL interactive lost messages"; fail=1; fi

# a secondary process runs the fast-path tests on the connections of a
# primary started with --hold (needs hugepages: secondaries share the
# primary's memory)
if [ -d /dev/hugepages ] && [ "$(cat /proc/sys/vm/nr_hugepages)" -gt 0 ]; then
	hold_prefix=perft-hold-$$
	EALH="--no-pci -m 64 --base-virtaddr=0x200000000000 --log-level=lib.eal:error --log-level=lib.telemetry:error --log-level=pmd.comch.shm:warning --log-level=lib.comch:info"
	"$PERF" -l 0 $EAL --file-prefix perft-sdpu-$$ --vdev=comch_shm0,role=dpu,path=$link \
		-- --role=dpu > "$out/sdpu.log" 2>&1 &
	dpu=$!
	"$PERF" -l 1 $EALH --file-prefix $hold_prefix --vdev=comch_shm1,role=host,path=$link \
		-- --role=host --hold --connections=2 > "$out/hold.log" 2>&1 &
	hold=$!
	for i in $(seq 300); do  # until it says so (a failure guard, not a timing)
		grep -q "holding 2 connection" "$out/hold.log" && break
		kill -0 $hold 2>/dev/null || break
		sleep 0.1
	done
	"$PERF" -l 0,1 $EALH --proc-type=secondary --file-prefix $hold_prefix -- \
		--test=fp-lat,fp-tput,fp-bidir --size=64,1000 --count=20000 \
		--warmup=0 --connections=2 --queues=2 --json \
		> "$out/sec.json" 2> "$out/sec.err" || {
		echo "FAIL secondary run"; cat "$out/hold.log" "$out/sec.err"; fail=1; }
	check "$out/sec.json" 6 20000
	# what a secondary may not do is refused with a message
	if "$PERF" -l 0 $EALH --proc-type=secondary --file-prefix $hold_prefix -- \
		--test=ctrl-lat 2> "$out/sec-bad.err"; then
		echo "FAIL a secondary accepted ctrl-lat"; fail=1
	fi
	grep -q -- "--test=ctrl-lat: a secondary process runs fp-lat" "$out/sec-bad.err" ||
		{ echo "FAIL no message for ctrl-lat in a secondary"; cat "$out/sec-bad.err"; fail=1; }
	kill -INT $hold
	wait $hold || { echo "FAIL hold exit status"; cat "$out/hold.log"; fail=1; }
	grep -q "detached from connection 1" "$out/hold.log" ||
		{ echo "FAIL the secondary did not detach"; cat "$out/hold.log"; fail=1; }
	kill -INT $dpu
	wait $dpu || { echo "FAIL dpu exit status"; fail=1; }
else
	echo "no hugepages: the secondary case is skipped"
fi

# bad options fail with a message, --help succeeds
if "$PERF" -l 0 $EAL --file-prefix perft-bad-$$ -- --burst=0 2> "$out/bad.err"; then
	echo "FAIL --burst=0 accepted"; fail=1
fi
grep -q -- "--burst=0: expected an integer" "$out/bad.err" || { echo "FAIL no message for --burst=0"; fail=1; }
"$PERF" -l 0 $EAL --file-prefix perft-help-$$ -- --help | grep -q -- "--role=ROLE" ||
	{ echo "FAIL --help"; fail=1; }
exit $fail
