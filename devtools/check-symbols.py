#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
#
# The exported symbols, as DPDK's buildtools/check-symbols.sh and
# devtools/check-symbol-maps.sh check theirs: each version.map lists its
# symbols sorted and once, in the node its header says
# (__rte_experimental: EXPERIMENTAL, __rte_internal: INTERNAL), and the
# built library exports exactly what its map lists. Run by the 'symbols'
# test; by hand:
#
#   devtools/check-symbols.py SOURCE_DIR [BUILD_DIR]
#
# Without BUILD_DIR only the maps and the headers are checked.
import glob
import os
import re
import subprocess
import sys

LIBS = [
    # map, headers, library (glob under the build dir)
    ("lib/comch/version.map",
     ["lib/comch/rte_comch.h", "lib/comch/rte_comch_core.h",
      "lib/comch/rte_comch_pmd.h"],
     "lib/comch/librte_comch.so.*.*"),
    ("drivers/comch/shm/version.map", [],
     "drivers/comch/shm/librte_comch_shm.so.*.*"),
    ("drivers/net/comch/version.map", [],
     "drivers/net/comch/librte_net_comch.so.*.*"),
]

errors = []


def fail(msg):
    errors.append(msg)
    print("check-symbols: " + msg)


def parse_map(path):
    """{node: [symbols in order]} of a version script."""
    nodes, node, glob_ = {}, None, False
    for raw in open(path):
        line = raw.split("#")[0].strip()
        if not line:
            continue
        m = re.match(r"^(\w+)\s*\{$", line)
        if m:
            node, glob_ = m.group(1), False
            nodes.setdefault(node, [])
            continue
        if line.startswith("}"):
            node = None
            continue
        if line in ("global:", "local:"):
            glob_ = line == "global:"
            continue
        if line.startswith("local:"):
            continue
        if node is not None and glob_:
            nodes[node].append(line.rstrip(";").strip())
    return nodes


def header_tags(paths):
    """{symbol: 'EXPERIMENTAL' or 'INTERNAL'} from the declarations."""
    tags = {}
    for p in paths:
        text = open(p).read()
        for m in re.finditer(r"__rte_(experimental|internal)\s*\n"
                             r"([^;{]*?)\b(rte_comch_\w+)\s*\(", text):
            tags[m.group(3)] = m.group(1).upper()
        # The fast-path table (the core header's variables) is the
        # library's own: INTERNAL, as dmadev's rte_dma_fp_objs.
        if p.endswith("_core.h"):
            for m in re.finditer(r"^extern (?!\"C\")[^;{]*?\b(rte_comch_\w+)\s*(\[\])?;",
                                 text, re.M):
                tags[m.group(1)] = "INTERNAL"
    return tags


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib],
                         capture_output=True, text=True, check=True).stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            syms.add(parts[2].split("@")[0])
    return syms


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: check-symbols.py SOURCE_DIR [BUILD_DIR]")
        return 2
    src = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) == 3 else None
    for map_rel, headers, lib_glob in LIBS:
        nodes = parse_map(os.path.join(src, map_rel))
        listed = {}
        for node, syms in nodes.items():
            if syms != sorted(syms):
                fail(f"{map_rel}: {node} is not sorted (LC_ALL=C sort)")
            for s in syms:
                if s in listed:
                    fail(f"{map_rel}: {s} in {listed[s]} and {node}")
                listed[s] = node
        for sym, tag in header_tags([os.path.join(src, h)
                                     for h in headers]).items():
            if listed.get(sym) != tag:
                fail(f"{map_rel}: {sym} is __rte_{tag.lower()} in its header "
                     f"but in {listed.get(sym, 'no node')}")
        if build is None:
            continue
        libs = [l for l in glob.glob(os.path.join(build, lib_glob))
                if not l.endswith(".p")]
        if not libs:
            fail(f"no library for {map_rel} under {build}")
            continue
        have = exported(libs[0])
        for s in sorted(set(listed) - have):
            fail(f"{map_rel}: {s} is listed but {os.path.basename(libs[0])} "
                 "does not define it")
        for s in sorted(have - set(listed)):
            fail(f"{os.path.basename(libs[0])} exports {s}, which "
                 f"{map_rel} does not list")
    if errors:
        return 1
    print("check-symbols: maps sorted, nodes match the headers, "
          "exports match the maps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
