#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Telemetry from a second process: a dpdk-comch-perf DPU serves a host that
# runs fp-tput; while it runs, this script queries both processes'
# telemetry sockets (as dpdk-telemetry.py does) and checks the JSON shape
# and the counts: /comch/list, /comch/info, /comch/connections, /comch/stats,
# and that bad parameters are refused.
# Usage: test_telemetry.sh <path to dpdk-comch-perf>
set -u
PERF=${1:?usage: $0 dpdk-comch-perf}
EAL="--no-pci --no-huge -m 256 --log-level=lib.eal:error --log-level=lib.telemetry:error --log-level=pmd.comch.shm:warning"
out=$(mktemp -d /tmp/comch-tel.XXXXXX)
link=$out/link
mkdir -m 0700 "$link"  # the link folder: this user's alone
dpu_prefix=tel-dpu-$$
host_prefix=tel-host-$$
trap 'kill $dpu $host 2>/dev/null; rm -rf "$out"' EXIT

"$PERF" -l 0 $EAL --file-prefix $dpu_prefix --vdev=comch_shm0,role=dpu,path=$link \
	-- --role=dpu > "$out/dpu.log" 2>&1 &
dpu=$!
mkfifo "$out/cmds"
"$PERF" -l 1,0 $EAL --file-prefix $host_prefix --vdev=comch_shm1,role=host,path=$link \
	-- --role=host -i --warmup=0 < "$out/cmds" > "$out/host.log" 2>&1 &
host=$!
exec 3> "$out/cmds"
printf 'set test fp-tput\nstart\n' >&3

python3 - "$dpu_prefix" "$host_prefix" <<'PY'
import json, socket, sys, time

def query(prefix, cmd):
    path = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(path)
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit(f"FAIL no telemetry socket at {path}")
    s.recv(4096)                      # the greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 20).decode())
    s.close()
    return reply[cmd.split(",")[0]]

fail = []
def check(cond, what):
    if not cond:
        fail.append(what)
        print("FAIL", what)
    else:
        print("ok", what)

# wait for the host to be connected and sending (deadline: 60 s)
for _ in range(600):
    conns = query(sys.argv[1], "/comch/stats,0")
    if conns and any(k.startswith("consumer_") and k.endswith("_msgs") and v > 0
                     for c in conns.values() for k, v in c.items()):
        break
    time.sleep(0.1)

check(query(sys.argv[1], "/comch/list") == [0], "dpu /comch/list is [0]")
info = query(sys.argv[1], "/comch/info,0")
check(info["role"] == "dpu" and info["driver"] == "comch_shm" and
      info["functions"] == ["pf0"] and info["caps"]["server"] == 1 and
      info["caps"]["max_msg_size"] == 4080 and
      info["caps"]["max_buf_size"] == 1 << 30, "dpu /comch/info,0 shape")
conns = query(sys.argv[1], "/comch/connections,0")
check(len(conns) == 1, "dpu has one connection")
c = list(conns.values())[0]
check(c["side"] == "server" and c["server"] == "comch_perf" and
      c["function"] == "pf0" and c["state"] == "running" and
      "user_data" in c, "dpu connection fields")
st = list(query(sys.argv[1], "/comch/stats,0").values())[0]
check(st["msgs_recv"] >= 1 and st["msgs_sent"] >= 1, "dpu control counters")

# A reply is not a snapshot of a running producer or consumer: _msgs and
# _bytes may be read on either side of one burst (documented). So ask until
# one reply has them agree; counting bytes wrongly never agrees. Each
# counter only grows.
def counted(prefix, key):
    last = None
    for _ in range(200):
        s = list(query(prefix, "/comch/stats,0").values())[0]
        m, b = s.get(key + "_msgs", 0), s.get(key + "_bytes", 0)
        if last is not None and (m < last[0] or b < last[1]):
            return s, False
        last = (m, b)
        if m > 0 and b == m * 64:
            return s, True
    return s, False

# consumer ids start at 1 (never 0); producer ids at 0
cons = [k[:-5] for k in st if k.startswith("consumer_") and k.endswith("_msgs")]
check(len(cons) == 1 and "consumer_0_msgs" not in st, "dpu consumer id is not 0")
check(len(cons) == 1 and counted(sys.argv[1], cons[0])[1],
      "dpu consumer counters: bytes = msgs x 64, growing")
hst, ok = counted(sys.argv[2], "producer_0")
check(hst["side"] == "client" and ok,
      "host producer counters: bytes = msgs x 64, growing")
hinfo = query(sys.argv[2], "/comch/info,0")
check(hinfo["role"] == "host" and hinfo["function"] == ["pf0"], "host /comch/info")
for bad in ["/comch/info,abc", "/comch/info,", "/comch/info,9", "/comch/info,-1",
            "/comch/info,0x0", "/comch/stats,1 ", "/comch/list,0"]:
    check(query(sys.argv[1], bad) is None, f"refused {bad!r}")
sys.exit(1 if fail else 0)
PY
rc=$?
printf 'stop\nquit\n' >&3
exec 3>&-
wait $host || { echo "FAIL host exit status"; cat "$out/host.log"; rc=1; }
kill -INT $dpu
wait $dpu
grep -q "LOST" "$out/host.log" && { echo "FAIL the run lost messages"; rc=1; }
exit $rc
