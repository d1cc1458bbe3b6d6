# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 Comch on DPDK authors
"""EAL lcores for the programs a test starts: each lcore on every CPU the
test may use, never pinned. On a shared machine whose cores are not
isolated the kernel can leave a thread pinned to one busy core off it for
seconds (measured on a 2-core CI machine under load: 6 to 10 s pinned,
0.16 s free to use both), and whatever waits on it runs into its guard.
The same rule as test_lcores_arg() in comch_test.h."""

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
    """--lcores for lcore ids @ids ("0", "0,1"), each floating."""
    return "--lcores=" + ",".join(f"{i}@{cpus()}" for i in ids.split(","))
