#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarize a bench/run.sh output folder.

Prints "name: value unit" lines (medians over repetitions) for comch-perf
and the peers, then ratios ours/peer. With --plot, draws rate and
bandwidth against size (rate_bw.png) and the latency percentiles
(latency.png) with gnuplot.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys


def size_name(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return f"{n}B"


def load(out):
    vals = {}  # name -> (unit, [values])

    def add(name, value, unit):
        vals.setdefault(name, (unit, []))[1].append(value)

    for path in sorted(glob.glob(os.path.join(out, "comch_*.json"))):
        for line in open(path):
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("lcore", "all") != "all":
                continue
            t = r["test"].replace("-", "_")
            role = "" if r["role"] == "host" else "_" + r["role"]
            if r["test"] == "conn-rate":
                add(f"comch_conn_rate_{r.get('connections', 1)}conns",
                    r["conn_per_s"], "per_s")
                continue
            if r.get("connections", 1) > 1 or r.get("queues", 1) > 1:
                role += f"_{r['connections']}x{r['queues']}"
            touch = "_touch" if r.get("touch") else ""
            base = f"comch{role}_{t}_{size_name(r['size'])}{touch}"
            if r["test"].endswith("lat"):
                for q in ("min", "mean", "p50", "p90", "p99", "p999", "max"):
                    add(f"{base}_rtt_{q}", r[f"lat_{q}_ns"] / 1000.0, "us")
            else:
                add(f"{base}_rate", r["rate_mmsg_per_s"], "Mmsg/s")
                add(f"{base}_bw", r["bw_gbyte_per_s"], "GB/s")
            if r["sent"] != r.get("peer_received", r["sent"]):
                add(f"{base}_lost", r["sent"] - r["peer_received"], "msgs")
    for path in sorted(glob.glob(os.path.join(out, "comch_scale_*.txt")) +
                       glob.glob(os.path.join(out, "peers_*.txt"))):
        for line in open(path):
            m = re.match(r"^([A-Za-z0-9_]+): ([-0-9.eE+]+) (\S+)$", line.strip())
            if m:
                add(m.group(1), float(m.group(2)), m.group(3))
    return vals


def paired_ratios(out):
    """Secondary / primary for each interleaved pair (cmp_* roles, in run
    order): {name: [ratios]} for rates, bandwidths and round-trip p50."""
    seq = {}  # (role, test, size) -> [value in run order]
    for path in sorted(glob.glob(os.path.join(out, "comch_*.json"))):
        for line in open(path):
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("lcore", "all") != "all" or not r["role"].startswith("cmp_"):
                continue
            v = r["lat_p50_ns"] if "lat_p50_ns" in r else r["rate_mmsg_per_s"]
            seq.setdefault((r["role"], r["test"], r["size"]), []).append(v)
    ratios = {}
    for (role, test, size), prim in seq.items():
        if role != "cmp_primary":
            continue
        sec = seq.get(("cmp_secondary", test, size), [])
        name = f"{test.replace('-', '_')}_{size_name(size)}"
        ratios[name] = [b / a for a, b in zip(prim, sec) if a > 0]
    return ratios


def medians(out):
    vals = load(out)
    return {k: (u, statistics.median(v), len(v)) for k, (u, v) in vals.items()}


RATIOS = [
    ("comch_cmp_secondary_fp_tput_64B_rate", "comch_cmp_primary_fp_tput_64B_rate", "fast path 64 B: a secondary process vs a primary, interleaved"),
    ("comch_cmp_secondary_fp_tput_64KiB_bw", "comch_cmp_primary_fp_tput_64KiB_bw", "fast path 64 KiB: a secondary process vs a primary, interleaved"),
    ("comch_cmp_secondary_fp_lat_64B_rtt_p50", "comch_cmp_primary_fp_lat_64B_rtt_p50", "fast path 64 B round trip p50: secondary vs primary, interleaved"),
    ("comch_fp_tput_64B_rate", "dpdk_memif_copy_64B_rx_rate", "fast path 64 B vs memif copy mode (goal >= 2)"),
    ("comch_fp_tput_64B_rate", "ucx_ucp_am_bw_64B_rate", "fast path 64 B vs UCX ucp_am_bw (goal >= 2)"),
    ("comch_fp_tput_64B_rate", "spsc_ring_8B_burst32_rate", "fast path 64 B vs raw SPSC ring, 8 B"),
    ("comch_fp_tput_64KiB_bw", "memcpy_64KiB", "fast path 64 KiB vs single-core memcpy (goal >= 0.6)"),
    ("comch_fp_tput_64KiB_touch_bw", "memcpy_64KiB", "fast path 64 KiB --touch vs memcpy"),
    ("comch_fp_tput_1MiB_bw", "memcpy_1MiB", "fast path 1 MiB vs memcpy (goal >= 0.6)"),
    ("comch_fp_tput_1MiB_touch_bw", "memcpy_1MiB", "fast path 1 MiB --touch vs memcpy"),
    ("ucx_tag_lat_64B_rtt_median", "comch_ctrl_lat_64B_rtt_p50", "UCX tag_lat RTT / control 64 B RTT (goal >= 1)"),
    ("comch_ctrl_lat_64B_rtt_p50", "uds_seqpacket_spin_64B_rtt_median", "control 64 B RTT vs busy-polling UDS RTT (goal <= 0.1)"),
]

GOALS = [
    ("comch_conn_rate_256conns", ">=", 5000, "connect + disconnect per second, 256 idle connections open"),
    ("comch_idle_conn_rss", "<=", 256, "resident KiB per idle connection (DPU process)"),
]


def main():
    args = sys.argv[1:]
    plot = "--plot" in args
    out = [a for a in args if a != "--plot"][0]
    med = medians(out)
    if plot:
        return draw(out, med)
    for k in sorted(med):
        u, v, n = med[k]
        print(f"{k}: {v:.4g} {u}")
    print("# ratios (medians of this run)")
    for a, b, what in RATIOS:
        if a in med and b in med and med[b][1] != 0:
            print(f"ratio_{a}__{b}: {med[a][1] / med[b][1]:.3f}  # {what}")
    pairs = paired_ratios(out)
    if pairs:
        print("# a secondary process vs a primary, ratio per interleaved pair"
              " (rate; round trip for *_lat: below 1 is faster)")
        for name, rs in sorted(pairs.items()):
            if rs:
                print(f"pair_ratio_secondary_primary_{name}: median {statistics.median(rs):.3f}"
                      f" min {min(rs):.3f} max {max(rs):.3f} n {len(rs)}")
    print("# absolute goals")
    for name, op, bound, what in GOALS:
        if name in med:
            v = med[name][1]
            ok = v >= bound if op == ">=" else v <= bound
            print(f"goal_{name}: {v:.4g} {op} {bound} {'met' if ok else 'MISSED'}  # {what}")
    return 0


def draw(out, med):
    sizes = [64, 4096, 65536, 1 << 20]
    with open(os.path.join(out, "rate_bw.dat"), "w") as f:
        for s in sizes:
            n = size_name(s)
            row = [med.get(k, (0, "?", 0))[1] for k in (
                f"comch_fp_tput_{n}_rate", f"comch_fp_tput_{n}_bw",
                f"comch_fp_tput_{n}_touch_bw", f"memcpy_{n}")]
            f.write(f"{s} {n} " + " ".join(str(v) for v in row) + "\n")
    with open(os.path.join(out, "latency.dat"), "w") as f:
        for i, q in enumerate(("p50", "p90", "p99", "p999")):
            c = med.get(f"comch_ctrl_lat_64B_rtt_{q}", (0, 0, 0))[1]
            p = med.get(f"comch_fp_lat_64B_rtt_{q}", (0, 0, 0))[1]
            f.write(f"{i} {q} {c} {p}\n")
    script = f"""
set terminal pngcairo size 900,500
set output '{out}/rate_bw.png'
set datafile missing '?'
set logscale x 2
set xlabel 'message size'
set ylabel 'Mmsg/s'
set y2label 'GB/s'
set y2tics
set key top center
set title 'comch fast path, one producer lcore -> one consumer lcore, two processes'
set yrange [0:*]
set y2range [0:*]
plot '{out}/rate_bw.dat' u 1:3:xtic(2) w lp t 'rate (Mmsg/s)', \\
     '' u 1:4 axes x1y2 w lp t 'bandwidth (GB/s)', \\
     '' u 1:5 axes x1y2 w lp t 'bandwidth --touch (GB/s)', \\
     '' u 1:6 axes x1y2 w lp t 'memcpy single core (GB/s)'
set output '{out}/latency.png'
unset logscale
unset y2tics
unset y2label
set xlabel 'percentile'
set ylabel 'round trip (us)'
set yrange [0:*]
set style data histogram
set style fill solid 0.6
set title 'comch 64-byte round trip, two processes'
plot '{out}/latency.dat' u 3:xtic(2) t 'control path', '' u 4 t 'fast path'
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
