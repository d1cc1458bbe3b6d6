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
trap 'rm -rf "$out"' EXIT
fail=0

check() {  # check FILE EXPECTED_OBJECTS COUNT
	python3 - "$1" "$2" "$3" <<'PY' || fail=1
import json, sys
path, expected, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
objs = [json.loads(l) for l in open(path) if l.startswith("{")]
ok = len(objs) == expected
for o in objs:
    good = (o["sent"] == o["peer_received"] and
            o["peer_bytes"] == o["peer_received"] * o["size"] and
            o["msgs"] >= count and o["msgs"] <= o["sent"] and
            (("lat_ns" in o) == o["test"].endswith("lat")))
    if "lat_ns" in o:
        l = o["lat_ns"]
        good = good and 0 < l["p50"] <= l["p90"] <= l["p99"] <= l["p999"] <= l["max"]
    if not good:
        print("FAIL inconsistent:", o)
    ok = ok and good
print(("ok" if ok else "FAIL") + f" {path}: {len(objs)} results")
sys.exit(0 if ok else 1)
PY
}

# pair: every test, two sizes, by count
"$PERF" -l 0,1 $EAL --file-prefix perft-pair-$$ -- --role=pair \
	--test=ctrl-lat,ctrl-tput,fp-lat,fp-tput --size=64,1000 --count=20000 \
	--warmup=0 --json > "$out/pair.json" 2> "$out/pair.err" || {
	echo "FAIL pair run"; cat "$out/pair.err"; fail=1; }
check "$out/pair.json" 8 20000

# --touch and a large size
"$PERF" -l 0,1 $EAL --file-prefix perft-touch-$$ -- --test=fp-tput \
	--size=1048576 --count=200 --warmup=0 --touch --json \
	> "$out/touch.json" 2> "$out/touch.err" || { echo "FAIL touch run"; fail=1; }
check "$out/touch.json" 1 200

# two processes: dpu serves two hosts in a row, then is stopped by SIGINT
link=$out/link
mkdir "$link"
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

# bad options fail with a message, --help succeeds
if "$PERF" -l 0 $EAL --file-prefix perft-bad-$$ -- --burst=0 2> "$out/bad.err"; then
	echo "FAIL --burst=0 accepted"; fail=1
fi
grep -q -- "--burst=0: expected an integer" "$out/bad.err" || { echo "FAIL no message for --burst=0"; fail=1; }
"$PERF" -l 0 $EAL --file-prefix perft-help-$$ -- --help | grep -q -- "--role=ROLE" ||
	{ echo "FAIL --help"; fail=1; }
exit $fail
