#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate a driver's PMD info C file (read by dpdk-pmdinfo.py).

Usage: gen-pmdinfo-cfile.py <static-lib.a> <output.c> <pmdinfogen.py>

Runs DPDK's pmdinfogen.py (from the SDK of the DPDK we build against) on
the objects of the driver's temporary static library. Meson makes thin
archives, whose members are paths to the objects; regular archives are
extracted first.
"""
import os
import subprocess
import sys
import tempfile


def run_pmdinfogen(pmdinfogen, objs, output):
    subprocess.run([sys.executable, pmdinfogen, "elf"] + objs + [output],
                   check=True)


def main():
    archive, output, pmdinfogen = sys.argv[1:4]
    archive = os.path.abspath(archive)
    with open(archive, "rb") as f:
        thin = f.read(8) == b"!<thin>\n"
    members = subprocess.run(["ar", "t", archive], check=True,
                             capture_output=True, text=True).stdout.split()
    if thin:
        base = os.path.dirname(archive)
        objs = [m if os.path.isabs(m) else os.path.join(base, m)
                for m in members]
        run_pmdinfogen(pmdinfogen, objs, output)
        return
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["ar", "x", archive], cwd=tmp, check=True)
        run_pmdinfogen(pmdinfogen, [os.path.join(tmp, m) for m in members],
                       output)


if __name__ == "__main__":
    main()
