#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Provide the DPDK driver SDK headers (bus_vdev_driver.h, dev_driver.h,
# ethdev_driver.h, ethdev_vdev.h, ...) and buildtools/pmdinfogen.py matching
# the DPDK found by pkg-config.
#
# Debian's libdpdk-dev does not install the driver SDK headers. They come from
# the Debian source package of exactly the installed version, downloaded with
# a private apt configuration (the machine's apt sources are only read, never
# changed) and extracted with dpkg-source so Debian's patches apply.
#
# Usage: devtools/get-dpdk-sdk.sh <output-dir>
# Prints nothing on success when the output is already up to date.
# Result: <output-dir>/include/*.h and <output-dir>/buildtools/pmdinfogen.py,
# plus <output-dir>/VERSION holding the DPDK version they belong to.
set -euo pipefail

out=${1:?usage: $0 <output-dir>}
mkdir -p "$out"
out=$(cd "$out" && pwd)

die() { echo "get-dpdk-sdk: error: $*" >&2; exit 1; }

SDK_HEADERS="bus_vdev_driver.h bus_pci_driver.h dev_driver.h ethdev_driver.h ethdev_vdev.h"

pc_version=$(pkg-config --modversion libdpdk 2>/dev/null) ||
	die "pkg-config cannot find libdpdk; install libdpdk-dev (devtools/setup.sh does)"

# 1. The DPDK installation may already ship the SDK headers.
incdir=$(pkg-config --variable=includedir libdpdk)
have_all=1
for h in $SDK_HEADERS; do
	[ -f "$incdir/dpdk/$h" ] || [ -f "$incdir/$h" ] || have_all=0
done

if [ -f "$out/VERSION" ] && [ "$(cat "$out/VERSION")" = "$pc_version" ] &&
   [ -f "$out/include/bus_vdev_driver.h" ] && [ -f "$out/include/ethdev_vdev.h" ]; then
	exit 0
fi

if [ "$have_all" = 1 ] && [ -n "$(find "$incdir" -name pmdinfogen.py 2>/dev/null)" ]; then
	mkdir -p "$out/include" "$out/buildtools"
	echo "$pc_version" > "$out/VERSION"
	exit 0
fi

# 2. Otherwise: the Debian source package of exactly the installed version.
command -v dpkg-query >/dev/null || die "no SDK headers in $incdir and not a Debian system;
  build DPDK $pc_version from source and install it with its driver SDK headers"
deb_version=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
	die "libdpdk-dev is not installed (dpkg-query found nothing)"
upstream=${deb_version%%-*}
case "$pc_version" in
"$upstream"|"$upstream".*) ;;
*) die "pkg-config libdpdk is $pc_version but libdpdk-dev is $deb_version;
  the SDK headers must match the libraries: point PKG_CONFIG_PATH at one DPDK" ;;
esac
command -v dpkg-source >/dev/null || die "dpkg-source missing: apt-get install dpkg-dev"

work=$(mktemp -d "${TMPDIR:-/tmp}/comch-sdk.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sources" "$work/lists/partial" "$work/archives/partial" "$work/src"

# Derive deb-src entries from the configured Debian sources (deb822 and
# one-line formats), into a private folder.
found_src=0
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed -E 's/^Types:.*/Types: deb-src/' "$f" > "$work/sources/$(basename "$f")"
	found_src=1
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	grep -E '^deb ' "$f" | sed -E 's/^deb /deb-src /' > "$work/sources/$(basename "$f").list" || true
	found_src=1
done
[ "$found_src" = 1 ] || die "no apt sources found in /etc/apt to derive deb-src entries from"

APT=(apt-get -q -o Dir::Etc::SourceList=/dev/null
	-o Dir::Etc::SourceParts="$work/sources"
	-o Dir::State::Lists="$work/lists"
	-o Dir::Cache::Archives="$work/archives"
	-o Debug::NoLocking=1)

echo "get-dpdk-sdk: downloading Debian source package dpdk=$deb_version (about 15 MB)"
"${APT[@]}" update > "$work/update.log" 2>&1 ||
	{ cat "$work/update.log" >&2; die "apt-get update with deb-src entries failed"; }
(cd "$work/src" && "${APT[@]}" source --download-only "dpdk=$deb_version") \
	> "$work/source.log" 2>&1 ||
	{ cat "$work/source.log" >&2; die "cannot download source package dpdk=$deb_version"; }
dsc=$(ls "$work"/src/dpdk_*.dsc 2>/dev/null | head -1)
[ -n "$dsc" ] || die "no .dsc downloaded for dpdk=$deb_version"
(cd "$work/src" && dpkg-source --no-check -x "$dsc" tree) > "$work/extract.log" 2>&1 ||
	{ cat "$work/extract.log" >&2; die "dpkg-source -x failed"; }

tree="$work/src/tree"
srcver=$(cat "$tree/VERSION")
case "$pc_version" in
"$srcver"|"$srcver".*) ;;
*) die "source package VERSION $srcver does not match installed DPDK $pc_version" ;;
esac

rm -rf "$out/include" "$out/buildtools"
mkdir -p "$out/include" "$out/buildtools"
cp "$tree/drivers/bus/vdev/bus_vdev_driver.h" \
   "$tree/drivers/bus/pci/bus_pci_driver.h" \
   "$tree/lib/eal/include/bus_driver.h" \
   "$tree/lib/eal/include/dev_driver.h" \
   "$tree/lib/ethdev/ethdev_driver.h" "$tree/lib/ethdev/ethdev_vdev.h" "$out/include/"
cp "$tree/buildtools/pmdinfogen.py" "$tree/buildtools/coff.py" "$out/buildtools/"
cp "$tree/usertools/dpdk-pmdinfo.py" "$out/buildtools/" 2>/dev/null || true
echo "$pc_version" > "$out/VERSION"
echo "get-dpdk-sdk: SDK headers for DPDK $pc_version in $out"
