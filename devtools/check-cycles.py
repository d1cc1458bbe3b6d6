#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
#
# No import cycles between the files of one component: draws who calls
# whom (file A uses a function or variable defined in file B) from the
# object files of a build, and fails when some files call each other round
# a cycle. Run by the 'layers' test; by hand:
#
#   devtools/check-cycles.py BUILD_DIR
#
# Components: lib/comch, drivers/comch/shm, drivers/net/comch,
# app/comch-perf; and the vendor API layer's three libraries (compat/doca)
# when the build has them (-Ddoca_compat=false leaves them out).
import os
import subprocess
import sys

COMPONENTS = {
    "lib/comch": "lib/comch/librte_comch.so.*.p",
    "drivers/comch/shm": "drivers/comch/shm/librte_comch_shm.so.*.p",
    "drivers/net/comch": "drivers/net/comch/librte_net_comch.so.*.p",
    "app/comch-perf": "app/dpdk-comch-perf.p",
}

OPTIONAL = {
    "compat/doca common": "compat/doca/libdoca_common.so.*.p",
    "compat/doca comch": "compat/doca/libdoca_comch.so.*.p",
    "compat/doca argp": "compat/doca/libdoca_argp.so.*.p",
}


def objects(build, pattern):
    import glob
    dirs = glob.glob(os.path.join(build, pattern))
    objs = []
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith(".c.o") and "pmd_info" not in f:
                objs.append(os.path.join(d, f))
    return objs


def symbols(obj):
    """(defined, used) global symbols of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRGS":
            defined.add(parts[2])
    return defined, used


def source_name(obj):
    base = os.path.basename(obj)
    return base[:-2] if base.endswith(".o") else base


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sccs


def main():
    if len(sys.argv) != 2:
        print(__doc__ or "usage: check-cycles.py BUILD_DIR")
        return 2
    build = sys.argv[1]
    bad = 0
    for comp, pattern in list(COMPONENTS.items()) + list(OPTIONAL.items()):
        objs = objects(build, pattern)
        if not objs and comp in OPTIONAL:
            continue
        if not objs:
            print(f"check-cycles: no objects for {comp} under {build}")
            bad += 1
            continue
        syms = {source_name(o): symbols(o) for o in objs}
        owner = {}
        for name, (defined, _) in syms.items():
            for s in defined:
                owner[s] = name
        graph = {name: set() for name in syms}
        for name, (_, used) in syms.items():
            for s in used:
                if s in owner and owner[s] != name:
                    graph[name].add(owner[s])
        found = cycles(graph)
        for scc in found:
            edges = [f"{a} -> {b}" for a in scc for b in sorted(graph[a])
                     if b in scc]
            print(f"check-cycles: {comp}: files that call each other: "
                  f"{', '.join(scc)} ({'; '.join(edges)})")
        if found:
            bad += 1
        else:
            print(f"check-cycles: {comp}: {len(objs)} files, no cycle")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
