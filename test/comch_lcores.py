# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 Comch on DPDK authors
"""EAL lcores for the programs a test starts, by the rule of
test_lcores_arg() in comch_test.h: one lcore floats over every CPU the
test may use (a thread pinned to one busy core of a shared machine can
be left off it for seconds: 6 to 10 s measured on the 2-core CI machine
under load, 0.16 s floating); several lcores of one process, which wait
on each other, get one CPU each (floating, they can share a CPU and each
hand-over waits for the scheduler)."""

import os


def cpus():
    """The CPUs this process may use, as an EAL cpu set: "(0-1)"."""
    ids = sorted(os.sched_getaffinity(0))
    ranges, first = [], ids[0]
    for a, b in zip(ids, ids[1:] + [None]):
        if b != a + 1:
            ranges.append(f"{first}-{a}")
            first = b
    return "(" + ",".join(ranges) + ")"


def lcores(ids):
    """--lcores for lcore ids @ids ("0", "0,1")."""
    ids = ids.split(",")
    if len(ids) == 1:
        return f"--lcores={ids[0]}@{cpus()}"
    own = sorted(os.sched_getaffinity(0))
    return "--lcores=" + ",".join(f"{i}@{own[k % len(own)]}"
                                  for k, i in enumerate(ids))
