#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 Comch on DPDK authors
"""
Unmodified DPDK programs over net_comch (Debian's dpdk-testpmd,
dpdk-proc-info, dpdk-dumpcap and the telemetry client), each a process of
its own with the drivers loaded from the build tree:

  counts     host txonly and flowgen -> DPU rxonly: what the host counts as
             sent is exactly what the DPU counts as received; the host
             restarts its port in between; mempools full after the stop
  pipeline   host io and macswap forwarding between two host functions
             through the DPU pipeline sample and back: every frame the
             host sent reaches the DPU, none dropped, mempools full
  secondary  a host testpmd primary and a secondary (--num-procs=2) each
             polling its queues; the secondary SIGKILLed, the primary's
             port carrying on, a new secondary, a clean exit, exact counts
  tools      dpdk-proc-info (stats, xstats) and telemetry /ethdev/* on
             testpmd, dpdk-dumpcap (pcapng) on the pipeline sample

Usage: test_net_comch_apps.py BUILD_DIR [CASE...]
(NCM_CORE=1: the programs dump core into the logs folder when they crash)
Deadlines are failure guards; nothing here asserts timing. The cases that
need secondary processes are skipped without hugepages.
"""

import ctypes
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import pty
import termios

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
ONLY = sys.argv[2:]
SHM = f"{B}/drivers/comch/shm/librte_comch_shm.so"
NET = f"{B}/drivers/net/comch/librte_net_comch.so"


def world_writable_above(path):
    """EAL refuses a -d path with a world-writable folder above it (a
    build tree in a clone under /tmp)."""
    d = os.path.dirname(path)
    while d not in ("", "/"):
        if os.stat(d).st_mode & 0o002:
            return True
        d = os.path.dirname(d)
    return False


# The drivers: with -d, as a user would; preloaded where EAL would refuse.
PRELOAD_DRV = world_writable_above(NET)
DRV = [] if PRELOAD_DRV else ["-d", SHM, "-d", NET]
TESTPMD = shutil.which("dpdk-testpmd")
PID = os.getpid()
TMP = tempfile.mkdtemp(prefix="ncm-apps.")
os.chmod(TMP, 0o700)
LINK = f"{TMP}/link"
os.mkdir(LINK, 0o700)
QUIET = ["--log-level=lib.eal:error", "--log-level=lib.telemetry:error"]
failures = []


def sanitizer_preload():
    """Under a sanitizer build (-Db_sanitize=address,undefined) the drivers
    need the ASan runtime loaded first in Debian's programs, which are
    not built with it: preload it there (LSan off: they are not ours)."""
    out = subprocess.run(["readelf", "-d", NET], capture_output=True, text=True).stdout
    libs = [l for l in ("libasan.so", "libubsan.so") if l in out]
    if not libs:
        return {}
    paths = [subprocess.run(["gcc", f"-print-file-name={l}"], capture_output=True,
                            text=True).stdout.strip() for l in libs]
    opts = os.environ.get("ASAN_OPTIONS", "")
    return {"LD_PRELOAD": " ".join(paths),
            "ASAN_OPTIONS": (opts + ":" if opts else "") + "detect_leaks=0"}


DEBIAN_ENV = dict(os.environ, **sanitizer_preload())
if PRELOAD_DRV:
    DEBIAN_ENV["LD_PRELOAD"] = " ".join(filter(None, [DEBIAN_ENV.get("LD_PRELOAD"), SHM, NET]))


def die_with_parent():
    """In the child: killed when the test dies (a failed run leaves no
    busy-polling testpmd behind on a shared machine)."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.environ.get("NCM_CORE"):
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)
        os.chdir(TMP)


def hugepages():
    try:
        with open("/proc/meminfo") as f:
            free = int(re.search(r"HugePages_Free:\s+(\d+)", f.read()).group(1))
        return free >= 256 and os.access("/dev/hugepages", os.W_OK)
    except (OSError, AttributeError):
        return False


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def wait(cond, what, seconds=60):
    """Poll @cond until true; @seconds is a failure guard only."""
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            raise Fail("timed out waiting for " + what)
        time.sleep(0.05)


class Proc:
    """A DPDK program on a pseudo-terminal (testpmd's command line wants
    one, and its output comes line by line), output kept and logged."""

    def __init__(self, name, argv, env=None):
        self.name = name
        self.log = open(f"{TMP}/{name}.log", "w")
        master, slave = pty.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self.p = subprocess.Popen(argv, stdin=slave, stdout=slave,
                                  stderr=slave, preexec_fn=die_with_parent,
                                  close_fds=True, env=env)
        os.close(slave)
        self.fd = master
        self.out = ""
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                break
            if not data:
                break
            text = data.decode(errors="replace").replace("\r", "")
            with self.lock:
                self.out += text
            self.log.write(text)
            self.log.flush()

    def text(self, start=0):
        with self.lock:
            return self.out[start:]

    def mark(self):
        with self.lock:
            return len(self.out)

    def expect(self, pattern, start=0, seconds=60):
        rx = re.compile(pattern)
        wait(lambda: rx.search(self.text(start)) or self.p.poll() is not None,
             f"{self.name}: /{pattern}/", seconds)
        m = rx.search(self.text(start))
        check(m, f"{self.name} exited ({self.p.returncode}) before /{pattern}/")
        return m

    def alive(self):
        return self.p.poll() is None

    def finish(self, seconds=60):
        try:
            self.p.wait(seconds)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise Fail(f"{self.name} did not exit")
        self.reader.join(5)
        return self.p.returncode

    def kill(self):
        if self.alive():
            self.p.kill()
        self.p.wait()
        self.reader.join(5)


class Testpmd(Proc):
    """dpdk-testpmd in interactive mode."""

    def __init__(self, name, eal, args=()):
        super().__init__(name, [TESTPMD] + QUIET + DRV + list(eal) + ["--", "-i"] + list(args),
                         env=DEBIAN_ENV)
        self.expect(r"testpmd> ", seconds=120)

    def cmd(self, c, seconds=60):
        m = self.mark()
        os.write(self.fd, (c + "\n").encode())
        self.expect(r"testpmd> ", m, seconds)
        return self.text(m)

    def port_stats(self, port):
        t = self.cmd(f"show port stats {port}")
        rx = int(re.search(r"RX-packets:\s*(\d+)", t).group(1))
        tx = int(re.search(r"TX-packets:\s*(\d+)", t).group(1))
        return rx, tx

    def xstats(self, port):
        t = self.cmd(f"show port xstats {port}")
        return {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+)\s*$", t, re.M)}

    def link_up(self, port):
        return "Link status: up" in self.cmd(f"show port info {port}")

    def mempools_full(self, allow_lost=0):
        """Every mempool has all its objects (in the common pool or the
        lcore caches), but for @allow_lost."""
        t = self.cmd("dump_mempool")
        pools = re.split(r"^mempool <", t, flags=re.M)[1:]
        check(pools, "no mempool in dump_mempool")
        for p in pools:
            name = p.split(">", 1)[0]
            size = int(re.search(r"^  size=(\d+)", p, re.M).group(1))
            common = int(re.search(r"common_pool_count=(\d+)", p).group(1))
            cache = re.search(r"total_cache_count=(\d+)", p)
            free = common + (int(cache.group(1)) if cache else 0)
            check(size - allow_lost <= free <= size, f"mempool {name}: {free} of {size} free")
        return len(pools)

    def quit(self):
        if self.alive():
            try:
                os.write(self.fd, b"quit\n")
            except OSError:
                pass
        return self.finish()


def fwd_stats(text):
    """Accumulated TX/RX-packets and dropped of testpmd's 'stop'."""
    acc = text.split("Accumulated forward statistics for all ports")[-1]
    return {
        "rx": int(re.search(r"RX-packets:\s*(\d+)", acc).group(1)),
        "rx_dropped": int(re.search(r"RX-dropped:\s*(\d+)", acc).group(1)),
        "tx": int(re.search(r"TX-packets:\s*(\d+)", acc).group(1)),
        "tx_dropped": int(re.search(r"TX-dropped:\s*(\d+)", acc).group(1)),
    }


def comch(n, role, extra=""):
    return f"--vdev=comch_shm{n},role={role},path={LINK}{extra}"


def port(n, dev, server, extra=""):
    return f"--vdev=net_comch{n},comch=comch_shm{dev},server={server}{extra}"


def eal(prefix, lcores, huge=False):
    a = ["-l", lcores, "--no-pci", "--file-prefix", f"ncm-{prefix}-{PID}"]
    if huge:
        a += ["--base-virtaddr=0x200000000000"]
    else:
        a += ["--no-huge", "-m", "512"]
    return a


# ---------------------------------------------------------------- cases

def case_counts():
    dpu = Testpmd("counts-dpu", eal("cd", "0,1") + [comch(0, "dpu"), port(0, 0, "cnt")],
                  ["--forward-mode=rxonly", "--total-num-mbufs=8192"])
    host = Testpmd("counts-host", eal("ch", "0,1") + [comch(1, "host"), port(1, 1, "cnt")],
                   ["--forward-mode=txonly", "--total-num-mbufs=8192"])
    try:
        wait(lambda: host.link_up(0) and dpu.link_up(0), "link up")
        dpu.cmd("start")
        for mode in ("txonly", "flowgen"):
            host.cmd(f"set fwd {mode}")
            host.cmd("start")
            wait(lambda: host.port_stats(0)[1] >= 200000, f"{mode}: 200000 sent")
            t = host.cmd("stop")
            sent = fwd_stats(t)["tx"]
            _, port_tx = host.port_stats(0)
            wait(lambda: dpu.port_stats(0)[0] == port_tx,
                 f"{mode}: the DPU receives the {port_tx} frames the host sent")
            print(f"  {mode}: host sent {sent} (port: {port_tx}), DPU received {dpu.port_stats(0)[0]}")
            check(sent == port_tx, f"{mode}: testpmd counted {sent}, the port {port_tx}")
            # the host port restarts: the link goes down and up
            host.cmd("port stop 0")
            check(host.mempools_full() >= 1, "host mempools")
            wait(lambda: not dpu.link_up(0), "DPU link down after the host's stop")
            host.cmd("port start 0")
            wait(lambda: dpu.link_up(0) and host.link_up(0), "link up again")
            host.cmd("clear port stats 0")
            dpu.cmd("stop")
            dpu.cmd("clear port stats 0")
            dpu.cmd("start")
        t = dpu.cmd("stop")
        check(fwd_stats(t)["rx_dropped"] == 0, "DPU rxonly dropped nothing")
        xs = host.xstats(0)
        check("tx_q0_peer_no_buffer" in xs and "rx_q0_no_mbuf" in xs,
              "net_comch xstats in testpmd")
        dpu.cmd("port stop 0")
        check(dpu.mempools_full() >= 1, "DPU mempools")
    finally:
        check(host.quit() == 0, "host testpmd exit status")
        check(dpu.quit() == 0, "DPU testpmd exit status")


def pipeline_sample():
    return f"{B}/examples/dpdk-comch-pipeline"


def case_pipeline():
    dpu = Proc("pipeline-dpu", [pipeline_sample()] + QUIET + eal("pd", "0") +
               [comch(0, "dpu", ",functions=[pf0,pf0vf1]"),
                port(0, 0, "p", ",function=pf0"), port(1, 0, "p", ",function=pf0vf1"),
                "--", "--stats-file", f"{TMP}/pipeline.json"])
    dpu.expect(r"pipeline: forwarding")
    host = Testpmd("pipeline-host", eal("ph", "0,1") +
                   [comch(1, "host", ",function=pf0"), comch(2, "host", ",function=pf0vf1"),
                    port(1, 1, "p"), port(2, 2, "p")],
                   ["--total-num-mbufs=8192"])
    sent = [0, 0]
    try:
        wait(lambda: host.link_up(0) and host.link_up(1), "host links up")
        for mode in ("io", "macswap"):
            host.cmd("clear port stats all")
            host.cmd(f"set fwd {mode}")
            host.cmd("start tx_first")
            wait(lambda: host.port_stats(0)[0] >= 50000 and host.port_stats(1)[0] >= 50000,
                 f"{mode}: 50000 frames around the loop each way")
            st = fwd_stats(host.cmd("stop"))
            tx0 = host.port_stats(0)[1]
            tx1 = host.port_stats(1)[1]
            rx = host.port_stats(0)[0] + host.port_stats(1)[0]
            sent[0] += tx0
            sent[1] += tx1
            print(f"  {mode}: host sent {tx0} + {tx1}, received {rx}, dropped {st['tx_dropped']}")
            check(st["tx_dropped"] == 0, f"{mode}: the host dropped {st['tx_dropped']}")
            # what is still in the loop is at most the bursts tx_first sent
            check(0 <= tx0 + tx1 - rx <= 64, f"{mode}: {tx0 + tx1 - rx} frames in flight")
        host.cmd("port stop all")
        check(host.mempools_full() >= 1, "host mempools")
    finally:
        check(host.quit() == 0, "host testpmd exit status")
        dpu.p.send_signal(signal.SIGINT)
        rc = dpu.finish()
        print("  " + "\n  ".join(l for l in dpu.text().splitlines() if l.startswith("pipeline:")))
        check(rc == 0, f"pipeline sample exit status {rc}")
        with open(f"{TMP}/pipeline.json") as f:
            s = json.load(f)
        check(s["mempool_free"] == s["mempool_size"], f"pipeline mempool {s}")
        check(s["dropped"] == 0, f"pipeline dropped {s['dropped']}")
        # every frame the host sent on port i crossed the pipeline
        check(s["streams"][0]["forwarded"] == sent[0] and
              s["streams"][1]["forwarded"] == sent[1],
              f"pipeline forwarded {s['streams']}, the host sent {sent}")


def case_secondary():
    if not hugepages():
        print("  skipped: needs hugepages")
        return
    q = ["--rxq=2", "--txq=2", "--total-num-mbufs=8192"]
    dpu = Testpmd("sec-dpu", eal("sd", "0,1") + [comch(0, "dpu"), port(0, 0, "sec", ",queues=2")],
                  ["--forward-mode=rxonly"] + q)
    prim = Testpmd("sec-host", eal("sh", "0,1", huge=True) +
                   [comch(1, "host"), port(1, 1, "sec", ",queues=2")],
                   ["--forward-mode=txonly", "--num-procs=2", "--proc-id=0"] + q)
    sec = None
    try:
        wait(lambda: prim.link_up(0) and dpu.link_up(0), "link up")
        dpu.cmd("start")
        prim.cmd("start")
        for round_ in range(2):
            # its own lcore ids (on the same CPUs): processes sharing a
            # mempool must not share an lcore id (its mempool cache)
            sec_eal = eal("sh", "0,1", huge=True)
            sec_eal[1] = "2@0,3@1"
            sec_eal[0] = "--lcores"
            sec = Testpmd(f"sec-2nd-{round_}", sec_eal + ["--proc-type=secondary"],
                          ["--forward-mode=txonly", "--num-procs=2", "--proc-id=1"] + q)
            sec.cmd("start")
            base = dpu.xstats(0)
            wait(lambda: dpu.xstats(0)["rx_q1_packets"] > base["rx_q1_packets"] + 10000,
                 "the secondary's queue 1 reaches the DPU")
            wait(lambda: dpu.xstats(0)["rx_q0_packets"] > base["rx_q0_packets"],
                 "the primary's queue 0 too")
            if round_ == 0:
                sec.kill()  # SIGKILL in the middle of sending
                base = dpu.xstats(0)
                wait(lambda: dpu.xstats(0)["rx_q0_packets"] > base["rx_q0_packets"] + 10000,
                     "the primary's queue 0 carries on after the secondary's death")
                wait(lambda: prim.link_up(0), "the primary's link")
            else:
                sec.cmd("stop")
                check(sec.quit() == 0, "secondary exit status")
        prim.cmd("stop")
        _, sent = prim.port_stats(0)
        wait(lambda: dpu.port_stats(0)[0] >= sent, "the DPU receives what the host sent")
        got = dpu.port_stats(0)[0]
        print(f"  host sent {sent} (both processes), DPU received {got}")
        # a process SIGKILLed between a copy and its counter may have
        # sent a few frames it never counted: at most one burst
        check(got - sent <= 32, f"DPU received {got}, host counted {sent}")
        prim.cmd("port stop 0")
        # the port holds no mbuf; the SIGKILLed testpmd held the burst it
        # had allocated and not given to tx yet (at most 32, testpmd's)
        check(prim.mempools_full(allow_lost=32) >= 1, "host mempools")
    finally:
        if sec is not None:
            sec.kill()
        check(prim.quit() == 0, "host primary exit status")
        check(dpu.quit() == 0, "DPU exit status")


def case_tools():
    if not hugepages():
        print("  skipped: needs hugepages")
        return
    # DPU: the pipeline sample (it serves pdump); host: testpmd looping
    # frames through it; both primaries that secondaries attach to
    dpu = Proc("tools-dpu", [pipeline_sample()] + QUIET + eal("td", "0", huge=True) +
               [comch(0, "dpu", ",functions=[pf0,pf0vf1]"),
                port(0, 0, "t", ",function=pf0"), port(1, 0, "t", ",function=pf0vf1")])
    dpu.expect(r"pipeline: forwarding")
    host = Testpmd("tools-host", eal("th", "0,1", huge=True) +
                   [comch(1, "host", ",function=pf0"), comch(2, "host", ",function=pf0vf1"),
                    port(1, 1, "t"), port(2, 2, "t")], ["--total-num-mbufs=8192"])
    prefix = f"ncm-th-{PID}"
    dc = None
    try:
        wait(lambda: host.link_up(0) and host.link_up(1), "links up")
        host.cmd("start tx_first")
        wait(lambda: host.port_stats(0)[1] > 10000, "traffic")
        # dpdk-proc-info: a secondary reading the port's stats, then its
        # xstats (one kind per run: proc-info shows the first asked for)
        out = ""
        for what in ("--stats", "--xstats"):
            pi = subprocess.run(["dpdk-proc-info"] + QUIET + DRV +
                                ["--no-pci", "--file-prefix", prefix, "--", what],
                                capture_output=True, text=True, timeout=120,
                                env=DEBIAN_ENV, preexec_fn=die_with_parent)
            out += pi.stdout + pi.stderr
            open(f"{TMP}/proc-info.log", "w").write(out)
            check(pi.returncode == 0, f"proc-info {what} exit status {pi.returncode}")
        m = re.search(r"TX-packets:\s*(\d+)", out)
        check(m and int(m.group(1)) > 10000, "proc-info: TX-packets")
        check(re.search(r"tx_q0_peer_no_buffer:\s*\d+", out), "proc-info: net_comch xstats")
        # telemetry: /ethdev/* on the host's testpmd
        r = telemetry(prefix, ["/ethdev/list", "/ethdev/stats,0", "/ethdev/xstats,0",
                               "/ethdev/link_status,0", "/ethdev/info,0"])
        check(r["/ethdev/list"] == [0, 1], f"/ethdev/list {r['/ethdev/list']}")
        check(r["/ethdev/stats,0"]["opackets"] > 10000, "/ethdev/stats opackets")
        check("tx_q0_peer_no_buffer" in r["/ethdev/xstats,0"], "/ethdev/xstats")
        check(r["/ethdev/link_status,0"]["status"] == "UP", "/ethdev/link_status")
        check(r["/ethdev/info,0"]["name"] == "net_comch1", "/ethdev/info")
        # dpdk-dumpcap: a secondary of the DPU sample capturing on its
        # port. It stops on SIGINT once the traffic has stopped: in DPDK
        # 22.11 a dumpcap that exits while frames flow can free its pool
        # under the primary's capture callback (the primary then crashes
        # in rte_pcapng_copy()), whatever the port.
        pcap = f"{TMP}/cap.pcapng"
        env = dict(DEBIAN_ENV)
        if not PRELOAD_DRV:
            env["LD_PRELOAD"] = " ".join(filter(None, [DEBIAN_ENV.get("LD_PRELOAD"), SHM, NET]))
        dc = Proc("dumpcap", ["dpdk-dumpcap", "--file-prefix", f"ncm-td-{PID}", "-i",
                              "net_comch0", "-w", pcap], env=env)
        wait(lambda: os.path.exists(pcap) and pcapng_packets(pcap) >= 1000,
             "dumpcap captures 1000 frames")
        host.cmd("stop")
        # the frames still in the loop (at most 64) cross the DPU once
        last = -1
        for _ in range(120):
            if last == pcapng_packets(pcap):
                break
            last = pcapng_packets(pcap)
            time.sleep(0.5)
        dc.p.send_signal(signal.SIGINT)
        rc = dc.finish()
        check(rc == 0, f"dumpcap exit status {rc}: {dc.text()[-500:]}")
        n = pcapng_packets(pcap)
        print(f"  proc-info TX-packets {m.group(1)}, telemetry ok, dumpcap captured {n} frames")
        check(n >= 1000, f"dumpcap captured {n} frames")
    finally:
        if dc is not None:
            dc.kill()
        check(host.quit() == 0, "host exit status")
        dpu.p.send_signal(signal.SIGINT)
        rc = dpu.finish()
        check(rc == 0, f"pipeline exit status {rc}")


def pcapng_packets(path):
    """Enhanced packet blocks in a pcapng file."""
    n = 0
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            break
        n += btype == 6
        off += blen
    return n


def telemetry(prefix, cmds):
    """The replies of DPDK telemetry (v2 socket) to @cmds."""
    path = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
    if os.getuid() != 0:
        path = f"{os.environ.get('XDG_RUNTIME_DIR', '/tmp')}/dpdk/{prefix}/dpdk_telemetry.v2"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    info = json.loads(s.recv(16384).decode())
    out = {}
    for c in cmds:
        s.send(c.encode())
        reply = json.loads(s.recv(info["max_output_len"]).decode())
        out[c] = reply[c.split(",")[0]]
    s.close()
    return out


CASES = [("counts", case_counts), ("pipeline", case_pipeline),
         ("secondary", case_secondary), ("tools", case_tools)]


def main():
    if TESTPMD is None:
        print("dpdk-testpmd not found: install dpdk-dev (devtools/setup.sh does)")
        return 77
    if PRELOAD_DRV:
        print(f"note: {B} is below a world-writable folder, where EAL refuses -d: drivers preloaded")
    for name, fn in CASES:
        if ONLY and name not in ONLY:
            continue
        print(f"== apps/{name}", flush=True)
        try:
            fn()
            print(f"ok apps/{name}", flush=True)
        except (Fail, OSError, subprocess.SubprocessError, KeyError, ValueError,
                AttributeError, json.JSONDecodeError) as e:
            print(f"  FAIL: {type(e).__name__}: {e}")
            print(f"FAILED apps/{name} (logs in {TMP})", flush=True)
            failures.append(name)
    if not failures:
        shutil.rmtree(TMP, ignore_errors=True)
    for d in os.listdir("/var/run/dpdk") if os.path.isdir("/var/run/dpdk") else []:
        if d.startswith("ncm-") and d.endswith(f"-{PID}"):
            shutil.rmtree(f"/var/run/dpdk/{d}", ignore_errors=True)
    print(f"apps: {len(failures)} failed" + (f": {' '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
