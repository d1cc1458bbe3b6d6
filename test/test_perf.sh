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

check() {  # check FILE EXPECTED_TOTALS COUNT [csv]
	python3 - "$1" "$2" "$3" "${4:-json}" <<'PY' || fail=1
import csv, json, sys
path, expected, count, form = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ok = True
if form == "csv":
    # one header line, then rows of as many fields; empty: does not apply
    rows = list(csv.reader(open(path)))
    head = rows[0] if rows else []
    ok = head[:3] == ["test", "role", "lcore"] and len(set(head)) == len(head)
    for r in rows[1:]:
        if len(r) != len(head) or r == head:
            print("FAIL csv row shape:", r)
            ok = False
    def num(v):
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return {"true": True, "false": False}.get(v, v)
    objs = [{k: num(v) for k, v in zip(head, r) if v != ""} for r in rows[1:]]
else:
    objs = [json.loads(l) for l in open(path) if l.startswith("{")]
totals = [o for o in objs if o["lcore"] == "all"]
ok = ok and len(totals) == expected
LAT = ["lat_min_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns"]
for o in objs:
    lat, conn = o["test"].endswith("lat"), o["test"] == "conn-rate"
    idle = o["test"] == "idle"
    # the fields of its kind and no other: latency tests latency only,
    # throughput tests rate and bandwidth, conn-rate its own rate
    good = (all((k in o) == lat for k in LAT + ["lat_mean_ns"]) and
            all((k in o) == (not lat and not conn and not idle)
                for k in ("rate_mmsg_per_s", "bw_gbyte_per_s", "burst")) and
            ("conn_per_s" in o) == conn and ("cpu_pct" in o) == idle and
            all((k in o) == (o["test"] == "fp-bidir")
                for k in ("rx_rate_mmsg_per_s", "rx_bw_gbyte_per_s", "rx_msgs")))
    if o["lcore"] != "all":
        # a per-lcore line: its share of the messages, no peer view
        good = good and o["msgs"] <= o["sent"] and "peer_received" not in o
    elif conn:
        good = good and o["msgs"] >= count and o["sent"] >= o["msgs"] and o["conn_per_s"] > 0
    elif idle:
        # nothing sent; CPU use of both sides, in % of one core
        good = (good and o["sent"] == 0 and "peer_received" not in o and
                0 <= o["cpu_pct"] <= 100 * o.get("lcores", 1) and
                0 <= o["peer_cpu_pct"] and o["seconds"] > 0)
    else:
        good = (good and o["sent"] == o["peer_received"] and
                o["peer_bytes"] == o["peer_received"] * o["size"] and
                o["msgs"] >= count and o["msgs"] <= o["sent"])
    if o["test"] == "fp-bidir" and o["lcore"] == "all":
        good = good and o["received"] == o["peer_sent"] and o["received"] > 0
    if "rate_mmsg_per_s" in o and o["seconds"] > 0:
        # the units: Mmsg/s = 1e6 msgs/s, GB/s = 1e9 bytes/s (6 decimals)
        rate = o["msgs"] / o["seconds"] / 1e6
        good = (good and abs(o["rate_mmsg_per_s"] - rate) <= 1e-3 * rate + 1e-5 and
                abs(o["bw_gbyte_per_s"] - rate * o["size"] / 1e3) <=
                1e-3 * rate * o["size"] / 1e3 + 1e-5)
    if lat:
        l = [o[k] for k in LAT]
        good = (good and 0 < l[0] and l == sorted(l) and
                l[0] <= o["lat_mean_ns"] <= l[-1])
    if not good:
        print("FAIL inconsistent:", o)
    ok = ok and good
print(("ok" if ok else "FAIL") + f" {path}: {len(totals)} results")
sys.exit(0 if ok else 1)
PY
}

# pair: every test, two sizes, by count
"$PERF" -l 0,1 $EAL --file-prefix perft-pair-$$ -- --role=pair \
	--test=ctrl-lat,ctrl-tput,fp-lat,fp-tput,fp-bidir \
	--size=64,1000 --count=20000 --warmup=0 --json \
	> "$out/pair.json" 2> "$out/pair.err" || {
	echo "FAIL pair run"; cat "$out/pair.err"; fail=1; }
check "$out/pair.json" 10 20000
# conn-rate by a smaller count, here and below: each connection takes
# turns of EAL's interrupt thread, which shares the cores with all else;
# on a loaded 2-core machine one took up to 70 ms, and 20,000 of them
# outlasted the suite's timeout
"$PERF" -l 0,1 $EAL --file-prefix perft-conn-$$ -- --role=pair \
	--test=conn-rate --count=200 --warmup=0 --json \
	> "$out/conn.json" 2> "$out/conn.err" || {
	echo "FAIL conn-rate run"; cat "$out/conn.err"; fail=1; }
check "$out/conn.json" 1 200

# the same as CSV: one header line, rows of as many fields, the same keys
"$PERF" -l 0,1 $EAL --file-prefix perft-csv-$$ -- --role=pair \
	--test=ctrl-lat,ctrl-tput,fp-lat,fp-tput,fp-bidir,conn-rate \
	--size=64,1000 --count=200 --warmup=0 --csv \
	> "$out/pair.csv" 2> "$out/pair-csv.err" || {
	echo "FAIL csv run"; cat "$out/pair-csv.err"; fail=1; }
check "$out/pair.csv" 11 200 csv
# event mode (pair: both sides asleep between messages; nothing sent in
# idle, whose figure is CPU use): the same checks, by duration
"$PERF" -l 0,1 $EAL --file-prefix perft-ev-$$ -- --role=pair --event \
	--test=ctrl-lat,wake-lat,idle --size=64 --duration=0.5 --warmup=0.1 \
	--json > "$out/event.json" 2> "$out/event.err" || {
	echo "FAIL event run"; cat "$out/event.err"; fail=1; }
check "$out/event.json" 3 1
# a window shorter than one round trip (each wake-lat message follows a
# 100 us pause) still measures one: the window waits for it
"$PERF" -l 0,1 $EAL --file-prefix perft-short-$$ -- --role=pair --event \
	--test=wake-lat --duration=0.00001 --warmup=0 \
	--json > "$out/short.json" 2> "$out/short.err" || {
	echo "FAIL short-window run"; cat "$out/short.err"; fail=1; }
check "$out/short.json" 1 1
# wake-lat and idle sleep in epoll: without --event they are refused
if "$PERF" -l 0,1 $EAL --file-prefix perft-noev-$$ -- --role=pair \
	--test=wake-lat > "$out/noev.out" 2>&1 ||
   ! grep -q -- "--test=wake-lat: sleeps in epoll: add --event" "$out/noev.out"; then
	echo "FAIL wake-lat without --event not refused"; cat "$out/noev.out"; fail=1
else
	echo "ok wake-lat without --event refused"
fi
# the DPU's --max-size: a larger fast-path message is refused, with why,
# and that size skipped (as a size above a device's buffers)
"$PERF" -l 0,1 $EAL --file-prefix perft-max-$$ -- --role=pair \
	--test=fp-tput --size=64,8192 --max-size=4096 --count=100 --json \
	> "$out/max.json" 2> "$out/max.err"
if [ "$(grep -c '"size": 64,' "$out/max.json")" != 1 ] ||
   grep -q '"size": 8192' "$out/max.json" ||
   ! grep -q "the DPU refused fp-tput size 8192 .*: Message too long" "$out/max.err"; then
	echo "FAIL a message above --max-size not refused"; cat "$out/max.json" "$out/max.err"; fail=1
else
	echo "ok a message above --max-size refused, that size skipped"
fi
# the DPU's --max-mem: queues whose memory does not fit are refused (the
# host says why and exits non-zero)
if "$PERF" -l 0,1 $EAL --file-prefix perft-mem-$$ -- --role=pair \
	--test=fp-tput --size=1048576 --queues=4 --max-mem=8388608 --count=100 \
	> "$out/mem.out" 2>&1 ||
   ! grep -q "the DPU refused fp-tput size 1048576 with 4 queue(s) .*: No space left on device" "$out/mem.out" ||
   ! grep -q "memory is bounded by --max-mem" "$out/mem.out"; then
	echo "FAIL queues beyond --max-mem not refused"; cat "$out/mem.out"; fail=1
else
	echo "ok queues beyond --max-mem refused"
fi
python3 - "$out/pair.json" "$out/pair.csv" "$out/event.json" "$out/conn.json" <<'PY' || fail=1
import json, sys
keys = set()
for f in (sys.argv[1], sys.argv[3], sys.argv[4]):
    for l in open(f):
        if l.startswith("{"):
            keys |= set(json.loads(l))
head = open(sys.argv[2]).readline().strip().split(",")
if set(head) != keys:
    print("FAIL the CSV columns are not the JSON keys:", sorted(set(head) ^ keys))
    sys.exit(1)
print("ok csv columns = json keys")
PY

# text: a header row before the first result of each kind, aligned rows,
# latency columns only for round trips; the DPU's events between them
"$PERF" -l 0,1 $EAL --file-prefix perft-text-$$ -- --role=pair \
	--test=ctrl-lat,fp-lat,fp-tput,ctrl-tput,fp-bidir,conn-rate \
	--size=64,1000 --count=200 --warmup=0 \
	> "$out/pair.txt" 2> "$out/pair-txt.err" || {
	echo "FAIL text run"; cat "$out/pair-txt.err"; fail=1; }
python3 - "$out/pair.txt" <<'PY' || fail=1
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if not l.startswith("dpu:")]
heads = [i for i, l in enumerate(lines) if l.startswith("test ")]
want = [["ctrl-lat"] * 2 + ["fp-lat"] * 2, ["fp-tput"] * 2 + ["ctrl-tput"] * 2,
        ["fp-bidir"] * 2, ["conn-rate"]]
ok = len(heads) == 4
for h, tests in zip(heads, want):
    head = lines[h]
    rows = lines[h + 1:h + 1 + len(tests)]
    ok = ok and [r.split()[0] for r in rows] == tests
    for r in rows:
        ok = ok and len(r.split()) == len(head.split()) and len(r) == len(head)
    if tests[0] == "ctrl-lat":
        ok = ok and head.split()[3:] == ["round-trips", "min(us)", "mean(us)",
            "p50(us)", "p90(us)", "p99(us)", "p99.9(us)", "max(us)"]
    if tests[0] == "fp-tput":
        ok = ok and head.split()[-2:] == ["Mmsg/s", "GB/s"]
    if tests[0] == "conn-rate":
        ok = ok and head.split()[-1] == "conn/s"
if not ok:
    print("FAIL text shape:\n" + "\n".join(lines))
    sys.exit(1)
print("ok text: 4 headers, aligned rows")
PY

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

# a host on one lcore (that lcore forwards, and must also poll its client)
# whose DPU dies during fp-lat: the echo never comes, the host sees the
# connection lost and exits non-zero. fp-tput first: its result row says
# that fp-lat comes next, and 2,000,000 round trips outlast the kill.
"$PERF" -l 0 $EAL --file-prefix perft-kdpu-$$ --vdev=comch_shm0,role=dpu,path=$link \
	-- --role=dpu > "$out/kdpu.log" 2>&1 &
dpu=$!
timeout 300 "$PERF" -l 1 $EAL --file-prefix perft-khost-$$ \
	--vdev=comch_shm1,role=host,path=$link -- --role=host \
	--test=fp-tput,fp-lat --count=2000000 --warmup=0 --csv \
	> "$out/khost.csv" 2> "$out/khost.err" &
khost=$!
for i in $(seq 1200); do  # until the row is out (a failure guard, not a timing)
	grep -q 'fp-tput' "$out/khost.csv" && break
	kill -0 $khost 2>/dev/null || break
	sleep 0.1
done
kill -KILL $dpu
wait $dpu 2>/dev/null
wait $khost
rc=$?
# exit 1 (not a crash, not the guard), having seen it within fp-lat: in
# its loop ("failed on lcore"), or, on a machine so busy that the kill
# came before the loop, in its set-up ("did not get ready")
if [ $rc -ne 1 ] ||
   ! grep -qE 'host: (fp-lat size 64 failed on lcore|the DPU did not .*fp-lat)' \
	"$out/khost.err"; then
	echo "FAIL a single-lcore host whose DPU died in fp-lat: exit status $rc (124: still waiting after 300 s)"
	cat "$out/khost.csv" "$out/khost.err"; fail=1
elif grep -q 'fp-lat' "$out/khost.csv"; then
	echo "FAIL a host whose DPU died reported fp-lat"; fail=1
else
	echo "ok a single-lcore host sees its DPU die in fp-lat: $(grep 'fp-lat' "$out/khost.err")"
fi

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
	    "burst: 1 to 1024"; do
	grep -qF "$want" "$out/ihost.log" ||
		{ echo "FAIL interactive: no \"$want\""; cat "$out/ihost.log"; fail=1; }
done
grep -qE '^test +lcore +size\(B\) +burst +msgs +Mmsg/s +GB/s$' "$out/ihost.log" &&
	grep -qE '^fp-tput +all +256 +8 +[0-9]+ +[0-9.]+ +[0-9.]+$' "$out/ihost.log" ||
	{ echo "FAIL interactive: no result under a header"; cat "$out/ihost.log"; fail=1; }
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
"$PERF" -l 0 $EAL --file-prefix perft-help-$$ -- --help > "$out/help.txt" || fail=1
for want in "--role=ROLE" "--csv" "Mmsg/s (1e6" "GB/s (1e9" "conn_per_s"; do
	grep -qF -- "$want" "$out/help.txt" || { echo "FAIL --help: no \"$want\""; fail=1; }
done
# --json and --csv exclude each other, with a message
if "$PERF" -l 0 $EAL --file-prefix perft-bad-$$ -- --json --csv 2> "$out/bad.err"; then
	echo "FAIL --json --csv accepted"; fail=1
fi
grep -q -- "--json and --csv exclude each other" "$out/bad.err" ||
	{ echo "FAIL no message for --json --csv"; fail=1; }
exit $fail
