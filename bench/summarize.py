#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarize a bench/run.sh output folder.

Prints "name: value unit" lines (medians over repetitions) for comch-perf
and its peers (memif, UCX, xcore, and the optional shared_* reference
figures), then ratios ours/peer and the goals. With --plot, draws rate and
bandwidth against size (rate_bw.png) and the round-trip percentiles
(latency.png) with gnuplot.

Units as dpdk-comch-perf's: Mmsg/s, GB/s (1e9 bytes/s), us for round
trips.
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
    # our peers, one file per repetition; the optional reference figures
    # of ../shared/bench/peers (and older runs' peers_*.txt) as shared_*
    files = [(p, "") for pat in ("comch_scale_*.txt", "memif_*.txt",
                                 "ucx_*.txt", "xcore_*.txt")
             for p in glob.glob(os.path.join(out, pat))]
    files += [(p, "shared_") for pat in ("shared_peers.txt", "peers_*.txt")
              for p in glob.glob(os.path.join(out, pat))]
    for path, prefix in sorted(files):
        for line in open(path):
            m = re.match(r"^([A-Za-z0-9_]+): ([-0-9.eE+]+|nan) (\S+)$", line.strip())
            if m and m.group(2) != "nan":
                add(prefix + m.group(1), float(m.group(2)), m.group(3))
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
    ("comch_fp_tput_64B_rate", "memif_copy_64B_rate", "fast path 64 B vs memif copy mode (goal >= 2)"),
    ("comch_fp_tput_64B_rate", "memif_zc_64B_rate", "fast path 64 B vs memif zero-copy"),
    ("comch_fp_tput_64B_rate", "ucx_am_bw_64B_rate", "fast path 64 B vs UCX ucp_am_bw (goal >= 2)"),
    ("comch_fp_tput_64B_rate", "ucx_tag_bw_64B_rate", "fast path 64 B vs UCX tag_bw"),
    ("comch_fp_tput_64KiB_bw", "ucx_am_bw_64KiB_bw", "fast path 64 KiB vs UCX ucp_am_bw"),
    ("comch_fp_tput_64B_rate", "xcore_64B_rate", "fast path 64 B vs the cross-core one-copy limit"),
    ("comch_fp_tput_4KiB_bw", "xcore_4KiB_bw", "fast path 4 KiB vs the cross-core one-copy limit"),
    ("comch_fp_tput_64KiB_bw", "xcore_64KiB_bw", "fast path 64 KiB vs the cross-core one-copy limit"),
    ("comch_fp_tput_64KiB_touch_bw", "xcore_64KiB_touch_bw", "fast path 64 KiB --touch vs the limit with the reader reading"),
    ("comch_fp_tput_1MiB_bw", "xcore_1MiB_bw", "fast path 1 MiB vs the cross-core one-copy limit"),
    ("comch_fp_tput_1MiB_touch_bw", "xcore_1MiB_touch_bw", "fast path 1 MiB --touch vs the limit with the reader reading"),
    ("comch_fp_tput_64KiB_bw", "memcpy_64KiB_bw", "fast path 64 KiB vs single-core memcpy (goal >= 0.6)"),
    ("comch_fp_tput_1MiB_bw", "memcpy_1MiB_bw", "fast path 1 MiB vs single-core memcpy (goal >= 0.6)"),
    ("ucx_tag_lat_64B_rtt_p50", "comch_ctrl_lat_64B_rtt_p50", "UCX tag_lat round trip / control 64 B round trip (goal >= 1)"),
    ("ucx_tag_lat_64B_rtt_p50", "comch_fp_lat_64B_rtt_p50", "UCX tag_lat round trip / fast path 64 B round trip"),
    ("comch_ctrl_lat_64B_rtt_p50", "shared_uds_seqpacket_spin_64B_rtt_median", "control 64 B round trip vs busy-polling UDS (goal <= 0.1; reference peers)"),
    ("comch_fp_tput_64B_rate", "shared_spsc_ring_8B_burst32_rate", "fast path 64 B vs a raw SPSC ring, 8 B (reference peers)"),
    ("memif_copy_64B_rate", "shared_dpdk_memif_copy_64B_rx_rate", "our memif copy figure vs the reference peers' (same method)"),
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


SIZES = [64, 4096, 65536, 1 << 20]

# rate_bw.dat columns (after size and its name): (key suffix, per size)
SERIES = [
    "comch_fp_tput_{n}", "comch_fp_tput_{n}_touch", "xcore_{n}",
    "xcore_{n}_touch", "memif_copy_{n}", "memif_zc_{n}", "ucx_am_bw_{n}",
    "ucx_tag_bw_{n}",
]


def draw(out, med):
    def get(key):
        v = med.get(key)
        return "?" if v is None else f"{v[1]:.6g}"

    # one row per size: size, its name, then rate and bandwidth of each
    # series ("?" where a series has no figure at that size)
    with open(os.path.join(out, "rate_bw.dat"), "w") as f:
        for s in SIZES:
            n = size_name(s)
            row = []
            for k in SERIES:
                row += [get(k.format(n=n) + "_rate"), get(k.format(n=n) + "_bw")]
            row.append(get(f"memcpy_{n}_bw"))
            f.write(f"{s} {n} " + " ".join(row) + "\n")
    qs = [("min", "min"), ("p50", "p50"), ("p90", "p90"), ("p99", "p99"),
          ("p999", "p99.9"), ("mean", "mean")]
    with open(os.path.join(out, "latency.dat"), "w") as f:
        for i, (q, label) in enumerate(qs):
            c = get(f"comch_ctrl_lat_64B_rtt_{q}")
            p = get(f"comch_fp_lat_64B_rtt_{q}")
            u = get(f"ucx_tag_lat_64B_rtt_{q}") if q in ("p50", "mean") else "?"
            f.write(f"{i} {label} {c} {p} {u}\n")
    # column of series i: rate 3 + 2 i, bandwidth 4 + 2 i; memcpy last
    col = {k.split("_{n}")[0] + k.split("{n}")[1]: 3 + 2 * i
           for i, k in enumerate(SERIES)}
    memcpy_col = 3 + 2 * len(SERIES)
    styles = [
        # series, title, style (lines for sweeps over sizes, points alone)
        ("comch_fp_tput", "comch fast path", "lp lw 2.5 lc rgb '#1f5fbf' dt 1 pt 7 ps 1.3"),
        ("comch_fp_tput_touch", "comch fast path --touch", "lp lw 2.5 lc rgb '#1f5fbf' dt 2 pt 6 ps 1.3"),
        ("xcore", "one-copy limit (xcore)", "lp lw 2 lc rgb '#2a9d3a' dt 1 pt 5 ps 1.1"),
        ("xcore_touch", "one-copy limit, reader reads (xcore)", "lp lw 2 lc rgb '#2a9d3a' dt 2 pt 4 ps 1.1"),
        ("memif_copy", "DPDK memif copy (testpmd)", "p lc rgb '#d62728' pt 9 ps 2.2"),
        ("memif_zc", "DPDK memif zero-copy (testpmd)", "p lc rgb '#d62728' pt 8 ps 2.2"),
        ("ucx_am_bw", "UCX ucp_am_bw (posix)", "lp lw 1.5 lc rgb '#9467bd' dt 3 pt 13 ps 1.8"),
        ("ucx_tag_bw", "UCX tag_bw (posix)", "lp lw 1.5 lc rgb '#9467bd' dt 4 pt 12 ps 1.8"),
    ]

    # only what this run measured: gnuplot refuses a plot with no points
    def has(path, c):
        for line in open(path):
            v = line.split()
            if len(v) >= c and v[c - 1] != "?":
                return True
        return False

    rb = os.path.join(out, "rate_bw.dat")
    lat = os.path.join(out, "latency.dat")

    def plots(offset, extra):
        lines = [f"'{rb}' u 1:{col[k] + offset} w {st} t '{t}'"
                 for k, t, st in styles if has(rb, col[k] + offset)]
        return ", \\\n     ".join(lines + extra)

    script = ""
    rate, bw = plots(0, []), plots(1, [
        f"'{rb}' u 1:{memcpy_col} w l lw 1.5 lc rgb '#7f7f7f' dt 5 t 'memcpy, one core (xcore)'"]
        if has(rb, memcpy_col) else [])
    if rate or bw:
        script += f"""
set terminal pngcairo size 1400,620 font 'sans,10' noenhanced
set output '{out}/rate_bw.png'
set datafile missing '?'
set logscale x 2
set logscale y 10
set xrange [40:1700000]
set xtics ('64 B' 64, '256 B' 256, '1 KiB' 1024, '4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
set grid xtics ytics mytics lc rgb '#dddddd'
set xlabel 'message size'
set format y '%g'
set ytics 10
set ytics add (0.002, 0.005, 0.02, 0.05, 0.2, 0.5, 2, 5, 20, 50, 200, 500)
set multiplot layout 1,2 title 'one producer core -> one consumer core, two processes on two cores; medians of the run'
set ylabel 'messages per second (Mmsg/s, log)'
set title 'rate'
# the lines fall to the right: the key goes where they are not
set key inside bottom left box opaque samplen 3 spacing 1.1
{"plot " + rate if rate else ""}
set ylabel 'bandwidth (GB/s = 1e9 B/s, log)'
set title 'bandwidth'
set key inside bottom right box opaque samplen 3 spacing 1.1
{"plot " + bw if bw else ""}
unset multiplot
"""
    lat_plots = []
    for c, title, style in (
            (3, "comch control path (ctrl-lat)", "lw 2.5 lc rgb '#d95f02' dt 1 pt 7 ps 1.4"),
            (4, "comch fast path (fp-lat)", "lw 2.5 lc rgb '#1f5fbf' dt 2 pt 5 ps 1.4")):
        if has(lat, c):
            # percentiles as a line (rows 0-4), the mean a point apart (row 5)
            lat_plots += [f"'{lat}' every ::0::4 u 1:{c} w lp {style} t '{title}'",
                          f"'{lat}' every ::5::5 u 1:{c} w p {style} notitle"]
    if has(lat, 5):
        lat_plots.append(f"'{lat}' u 1:5 w p lc rgb '#9467bd' pt 13 ps 2.2 t 'UCX tag_lat (2 x one-way)'")
    if lat_plots:
        lat_join = ", \\\n     ".join(lat_plots)
        script += f"""
set terminal pngcairo size 900,520 font 'sans,10' noenhanced
set output '{out}/latency.png'
set datafile missing '?'
unset logscale x
set logscale y 10
set format y '%g'
set ytics 10
set ytics add (0.002, 0.005, 0.02, 0.05, 0.2, 0.5, 2, 5, 20, 50, 200, 500)
set grid xtics ytics mytics lc rgb '#dddddd'
set xrange [-0.5:5.5]
set xtics ('min' 0, 'p50' 1, 'p90' 2, 'p99' 3, 'p99.9' 4, 'mean' 5)
set arrow from 4.5, graph 0 to 4.5, graph 1 nohead dt 3 lc rgb '#999999'
set xlabel 'percentile of the round trips (and the mean)'
set ylabel 'round trip (us, log)'
set key inside top left box opaque
set title '64-byte round trip, two processes on two cores'
plot {lat_join}
"""
    with open(os.path.join(out, "plots.gp"), "w") as f:
        f.write(script)
    if script:
        subprocess.run(["gnuplot", os.path.join(out, "plots.gp")], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
