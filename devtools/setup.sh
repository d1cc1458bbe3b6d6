#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Set up everything needed to build and run Comch on DPDK, then build.
# Idempotent: a second run only rebuilds what changed.
#
#   1. Debian packages (as root; otherwise says what to install)
#   2. hugepages and hugetlbfs at /dev/hugepages (as root; multi-process
#      runs need them, single-process runs accept --no-huge)
#   3. DPDK driver SDK headers matching the installed DPDK (.deps/dpdk-sdk)
#   4. meson + ninja into build/ (-Dwerror=true when CI is set)
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

PACKAGES="libdpdk-dev dpdk-dev meson ninja-build pkg-config gcc
	python3-pyelftools dpkg-dev"
NR_HUGEPAGES=${COMCH_HUGEPAGES:-512}

say() { echo "setup: $*"; }

missing=()
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		say "missing packages: ${missing[*]}"
		say "run as root: apt-get update && apt-get install -y ${missing[*]}"
		exit 1
	fi
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q > /dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" > /dev/null
fi

if [ "$(id -u)" -eq 0 ]; then
	cur=$(cat /proc/sys/vm/nr_hugepages)
	if [ "$cur" -lt "$NR_HUGEPAGES" ]; then
		echo "$NR_HUGEPAGES" > /proc/sys/vm/nr_hugepages || true
		say "hugepages: $(cat /proc/sys/vm/nr_hugepages) x 2 MiB reserved"
	fi
	if ! grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages || say "warning: cannot mount hugetlbfs at /dev/hugepages"
	fi
else
	if [ "$(cat /proc/sys/vm/nr_hugepages)" -eq 0 ]; then
		say "note: no hugepages reserved; multi-process runs need them. As root:"
		say "  echo $NR_HUGEPAGES > /proc/sys/vm/nr_hugepages; mount -t hugetlbfs nodev /dev/hugepages"
		say "single-process runs work with --no-huge"
	fi
fi

devtools/get-dpdk-sdk.sh "$root/.deps/dpdk-sdk"

werror=false
[ -n "${CI:-}" ] && werror=true
if [ ! -f build/build.ninja ]; then
	meson setup build -Dwerror=$werror > build-setup.log 2>&1 ||
		{ cat build-setup.log; rm -f build-setup.log; exit 1; }
	rm -f build-setup.log
elif [ "$(meson introspect build --buildoptions 2>/dev/null |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="werror"][0])' 2>/dev/null)" != "$( [ $werror = true ] && echo True || echo False)" ]; then
	meson configure build -Dwerror=$werror > /dev/null
fi
ninja -C build > build/ninja.log 2>&1 || { cat build/ninja.log; exit 1; }
say "built in $root/build"
