#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Secondary processes, end to end: an emulated DPU (test_comch_secondary dpu,
its own process), a host primary holding one connection to it, and host
secondaries attached to that connection, each running its own
producer/consumer pair on its own lcore against the DPU (which echoes
every message back). Scenarios, in order, on the same connection:

  two    two secondaries at once: every message echoed in order; the
         primary's telemetry (read from this process, as dpdk-telemetry.py
         does) shows each one's producer and consumer with exact counts and
         its pid; after they detach, nothing is left
  evil   a secondary sends malformed and misdirected requests to the
         library's rte_mp action: each refused as documented, no fd kept
  kill   one of two secondaries SIGKILLed mid-stream: the other finishes
         unaffected, the DPU is told its consumer is gone, the primary
         reclaims everything it owned, and the DPU's consumer it was
         sending to still works
  churn  secondaries killed at random points while they make and unmake
         their objects, ten times: reclaimed each time, no fd kept, the
         DPU's consumers still work
  crash  a secondary dies inside a send, between claiming four of the
         DPU's buffers and filling them: the primary gives up exactly those
         four (the DPU gets them back unfilled) and the DPU's consumer
         carries on
  exit   a secondary exits without tearing anything down: reclaimed
  gone   the primary is SIGKILLed under a running secondary: its fast-path
         calls return -ECONNRESET, its control calls -ENODEV, and it tears
         down cleanly; the DPU sees the connection lost and its consumers
         all come back

Usage: test_secondary.py <path to test_comch_secondary>
Needs hugepages (secondaries share the primary's memory): skipped (77)
without.
"""

import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

GUARD = 60  # seconds: failure guard only, nothing is timed


class Proc:
    """A role of the test binary; its output lines are read as they come."""

    def __init__(self, name, args, stdin=False):
        self.name = name
        self.lines = queue.Queue()
        self.seen = []
        self.p = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            line = line.rstrip("\n")
            print(f"[{self.name}] {line}", flush=True)
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, pattern, guard=GUARD):
        """The next line matching @pattern (a FAIL line fails the test).
        The guard is for a stall: @guard seconds without any line (the
        roles print their progress)."""
        rx = re.compile(pattern)
        while True:
            try:
                line = self.lines.get(timeout=guard)
            except queue.Empty:
                raise SystemExit(f"FAIL {self.name}: no line matching {pattern!r}")
            if line is None:
                raise SystemExit(f"FAIL {self.name} ended before {pattern!r}")
            self.seen.append(line)
            if "FAIL" in line:
                raise SystemExit(f"FAIL {self.name}: {line}")
            m = rx.search(line)
            if m:
                return m

    def say(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def close_stdin(self):
        self.p.stdin.close()

    def wait(self, guard=GUARD):
        try:
            return self.p.wait(timeout=guard)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise SystemExit(f"FAIL {self.name} did not exit")


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL {what}")
    print(f"ok {what}", flush=True)


def telemetry(prefix, cmd):
    path = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.recv(4096)                      # the greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 20).decode())
    s.close()
    return reply[cmd.split(",")[0]]


def wait_for(what, fn):
    """Poll @fn until it returns a true value (failure guard only)."""
    end = time.monotonic() + GUARD
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.01)
    raise SystemExit(f"FAIL waiting for {what}")


def fp_objects(conn):
    """{(kind, id): {"msgs":, "bytes":, "pid":}} of a /comch/stats entry."""
    objs = {}
    for k, v in conn.items():
        m = re.fullmatch(r"(producer|consumer)_(\d+)_(msgs|bytes|pid)", k)
        if m:
            objs.setdefault((m[1], int(m[2])), {})[m[3]] = v
    return objs


def main():
    binary = sys.argv[1]
    if (not os.path.isdir("/dev/hugepages") or
            int(open("/proc/sys/vm/nr_hugepages").read()) == 0):
        print("no hugepages: skipped")
        return 77
    work = tempfile.mkdtemp(prefix="comch-sec.")
    prefix = f"sec-{os.getpid()}"
    procs = []

    def start(name, args, stdin=False):
        p = Proc(name, [binary] + args, stdin)
        procs.append(p)
        return p

    def secondary(index, count, mode):
        p = start(f"sec{index}-{mode}", ["secondary", prefix, str(dev),
                  str(conn), str(index), str(count), mode],
                  stdin=mode == "pause")
        if mode == "churn":
            p.expect(f"sec{index}: churning")
            return p
        m = p.expect(r"running consumer (\d+) producer (\d+) target (\d+)")
        p.consumer, p.producer, p.target = map(int, m.groups())
        return p

    def stats():
        return telemetry(prefix, f"/comch/stats,{dev}")[str(conn)]

    def wait_reclaimed(what):
        """Until the primary holds no secondary and no object of one."""
        wait_for(f"the primary to reclaim {what}",
                 lambda: (lambda s: s["attached"] == 0 and
                          not fp_objects(s))(stats()))
        check(True, f"the primary reclaimed {what}")

    try:
        dpu = start("dpu", ["dpu", work], stdin=True)
        dpu.expect("dpu: ready")
        primary = start("primary", ["primary", work, prefix], stdin=True)
        m = primary.expect(r"primary: conn (\d+) (\d+)")
        dev, conn = int(m[1]), int(m[2])
        dpu.expect(r"dpu: connected")

        # -- two: two secondaries at once, exact counts in telemetry
        n = 20000
        a = secondary(0, n, "pause")
        b = secondary(1, n, "pause")
        check(a.target != b.target, "two: each sends to its own DPU consumer")
        a.expect(f"sec0: done {n}")
        b.expect(f"sec1: done {n}")
        st = stats()
        objs = fp_objects(st)
        for p in (a, b):
            pr = objs.get(("producer", p.producer), {})
            co = objs.get(("consumer", p.consumer), {})
            check(pr.get("pid") == p.p.pid and co.get("pid") == p.p.pid,
                  f"two: telemetry names {p.name}'s pid")
            check(pr.get("msgs") == n and pr.get("bytes") == n * 64 and
                  co.get("msgs") == n and co.get("bytes") == n * 64,
                  f"two: telemetry counts of {p.name}: {pr} {co}")
        info = telemetry(prefix, f"/comch/connections,{dev}")[str(conn)]
        check(info["attached"] == 2 and info["side"] == "client" and
              info["state"] == "running", "two: two secondaries attached")
        for p in (a, b):
            p.say("go")
            p.expect(r"sec\d: ok")
            check(p.wait() == 0, f"two: {p.name} exits 0")
        st = stats()
        check(st["attached"] == 0 and not fp_objects(st),
              "two: nothing left after they detached")
        for p in (a, b):
            dpu.expect(f"dpu: consumer-destroyed {p.consumer}")

        # -- ctrl: a secondary's control messages go through the library
        # (relayed by the primary); one secondary at a time has them
        c = start("sec0-ctrl", ["secondary", prefix, str(dev), str(conn),
                  "0", "200", "ctrl"], stdin=True)
        c.expect("sec0: ctrl done 200")
        d = start("sec1-ctrl-busy", ["secondary", prefix, str(dev),
                  str(conn), "1", "0", "ctrl-busy"])
        d.expect("sec1: ctrl busy ok")
        check(d.wait() == 0, "ctrl: another secondary's messages: -EBUSY")
        c.say("go")
        c.expect("sec0: ok")
        check(c.wait() == 0, "ctrl: 200 control messages each way, in order")
        e = start("sec1-ctrl", ["secondary", prefix, str(dev), str(conn),
                  "1", "50", "ctrl"], stdin=True)
        e.expect("sec1: ctrl done 50")
        e.say("go")
        e.expect("sec1: ok")
        check(e.wait() == 0, "ctrl: the next secondary has them once the first detached")
        wait_reclaimed("the control-message secondaries")

        # -- evil: malformed and misdirected requests; the primary refuses
        # each and leaks nothing
        def primary_fd_map():
            """{fd: target} of the primary's fds, epoll fds left out."""
            fds = {}
            for f in os.listdir(f"/proc/{primary.p.pid}/fd"):
                try:
                    t = os.readlink(f"/proc/{primary.p.pid}/fd/{f}")
                except OSError:
                    continue
                if t != "anon_inode:[eventpoll]":
                    fds[int(f)] = t
            return fds

        def primary_fds():
            return len(primary_fd_map())

        def wait_fds_back(what, before):
            """Until the primary holds no more fds than @before (it may
            hold fewer: what an earlier scenario's secondaries left, such
            as their liveness sockets, is closed asynchronously); on
            failure, say which ones it holds now."""
            end = time.monotonic() + GUARD
            while time.monotonic() < end:
                if primary_fds() <= before:
                    check(True, what)
                    return
                time.sleep(0.01)
            now = primary_fd_map()
            raise SystemExit(f"FAIL {what}: {before} fds before, now "
                             f"{len(now)}: {sorted(now.items())}")
        fds_before = primary_fds()
        ev = start("evil", ["evil", prefix, str(dev), str(conn)])
        ev.expect("evil: every request refused as documented")
        check(ev.wait() == 0, "evil: exits 0")
        wait_reclaimed("the evil secondary")
        wait_fds_back("evil: the primary holds no more fds than before",
                      fds_before)

        # -- kill: one of two SIGKILLed mid-stream
        a = secondary(0, 10**12, "normal")
        b = secondary(1, 4 * n, "normal")
        a.expect("sec0: progress")
        b.expect("sec1: progress")
        a.p.kill()
        check(a.wait() == -signal.SIGKILL, "kill: sec0 killed")
        b.expect(f"sec1: done {4 * n}")
        b.expect("sec1: ok")
        check(b.wait() == 0, "kill: the other secondary finished unaffected")
        dpu.expect(f"dpu: consumer-destroyed {a.consumer}")
        wait_reclaimed("the dead secondary")
        c = secondary(0, n, "normal")
        check(c.target == a.target, "kill: next secondary uses the same consumer")
        c.expect("sec0: ok")
        check(c.wait() == 0, "kill: the DPU's consumer still works")

        # -- churn: killed at random points of its objects' lives, ten
        # times; each time the primary reclaims everything and keeps no fd,
        # and the DPU's consumers still work
        rng = random.Random(os.getpid())
        fds_before = primary_fds()
        for i in range(10):
            ch = secondary(i % 2, 0, "churn")
            # a random point, not a synchronisation: any point must do
            time.sleep(rng.uniform(0, 0.3))
            ch.p.kill()
            check(ch.wait() == -signal.SIGKILL, f"churn {i}: killed")
            wait_reclaimed(f"churner {i}")
        wait_fds_back("churn: the primary holds no more fds than before",
                      fds_before)
        for i in range(2):
            c = secondary(i, n, "normal")
            c.expect(f"sec{i}: ok")
            check(c.wait() == 0, f"churn: the DPU's consumer {i} still works")

        # -- crash: dies between claiming and filling the DPU's buffers
        dpu.say("mark crash-start")
        dpu.expect("dpu: mark crash-start")
        dpu.seen.clear()
        x = secondary(0, n, "crash")
        x.expect("sec0: crashing")
        check(x.wait() == -signal.SIGSEGV, "crash: the secondary died in a send")
        wait_reclaimed("the crashed secondary")
        z = secondary(0, n, "normal")
        z.expect("sec0: ok")
        check(z.wait() == 0, "crash: the DPU's consumer carries on")
        # The DPU returns buffers in order: what it gave up came before
        # the next secondary's echoes, so before the mark.
        dpu.say("mark crash-end")
        dpu.expect("dpu: mark crash-end")
        aborted = sum(int(re.search(r"aborted (\d+)", l)[1])
                      for l in dpu.seen if "dpu: aborted" in l)
        check(aborted == 4, f"crash: exactly the 4 claimed buffers given up ({aborted})")

        # -- exit: no teardown at all
        e = secondary(1, n, "exit")
        e.expect("sec1: exiting without teardown")
        check(e.wait() == 0, "exit: exited")
        dpu.expect(f"dpu: consumer-destroyed {e.consumer}")
        wait_reclaimed("the exited secondary")

        # -- gone: the primary dies under a running secondary
        g = secondary(0, 10**12, "until-gone")
        g.expect("sec0: progress")
        primary.p.kill()
        check(primary.wait() == -signal.SIGKILL, "gone: primary killed")
        g.expect("sec0: primary gone, calls fail cleanly")
        g.expect("sec0: ok")
        check(g.wait() == 0, "gone: the secondary tore down and exited 0")
        dpu.expect("dpu: lost")
        dpu.expect("dpu: teardown ok")
        dpu.close_stdin()
        check(dpu.wait() == 0, "gone: the DPU exits cleanly")
        print("secondary: all scenarios passed")
        return 0
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()
                p.p.wait()
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
        # A killed primary leaves its hugepage files behind.
        for f in os.listdir("/dev/hugepages"):
            if f.startswith(prefix + "map_"):
                os.unlink(os.path.join("/dev/hugepages", f))


if __name__ == "__main__":
    sys.exit(main())
