#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The vendor API layer as an application written for the vendor's SDK
# uses it (doc/guides/prog_guide/doca_porting.md):
#
#  1. meson install of a second build into <tmp>/prefix; the doca-common,
#     doca-comch, doca-argp (and doca-comm-channel) pkg-config modules and
#     the headers under <includedir>/doca are checked;
#  2. the programs of compat/doca/samples are built with nothing but
#     `cc $(pkg-config --cflags --libs doca-comch doca-argp)`, and with
#     test/outside_doca/meson.build (dependency('doca-comch'), ...),
#     unchanged, from a copy outside the tree; they link the DOCA
#     libraries only (no DPDK library directly);
#  3. the installed programs run as DPU and host processes, the emulated
#     device configured in a file named by DOCA_COMCH_EMU_CONF.
#
# Usage: test_doca_install.sh <source root> <build root> <b_sanitize> <dpdk_sdk> <werror>
set -u
src=${1:?usage: $0 SRC BUILD SANITIZE SDK WERROR}
outer=${2:?}
sanitize=${3:?}
sdk=${4-}
werror=${5:-false}

if [ "$sanitize" != none ]; then
	# As test_install.sh: the copy built here is uninstrumented anyway.
	echo "skip: the install test builds and installs its own uninstrumented copy; it runs in the plain build"
	exit 77
fi
for tool in meson ninja pkg-config cc readelf timeout; do
	command -v $tool > /dev/null || { echo "FAIL: $tool not found"; exit 1; }
done

tmp=$(mktemp -d "$outer/doca-install-test.XXXXXX") || exit 1
link=$(mktemp -d /tmp/doca-install.XXXXXX) || exit 1
trap 'rm -rf "$tmp" "$link"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

run() {
	local log=$1
	shift
	if ! "$@" > "$log" 2>&1; then
		cat "$log"
		fail "$*"
	fi
}

# ----------------------------------------------------------------- install
prefix=$tmp/prefix
opts=(-Dprefix="$prefix" -Dpmd_dir=none -Dexamples=false -Dtests=false -Dwerror="$werror")
[ -n "$sdk" ] && opts+=(-Ddpdk_sdk="$sdk")
run "$tmp/setup.log" meson setup "$tmp/build" "$src" "${opts[@]}"
run "$tmp/ninja.log" ninja -C "$tmp/build"
run "$tmp/install.log" meson install -C "$tmp/build" --no-rebuild
pc=$(find "$prefix" -name doca-comch.pc)
[ -n "$pc" ] || fail "doca-comch.pc not installed"
export PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
for m in doca-common doca-comch doca-argp doca-comm-channel; do
	pkg-config --exists $m || fail "pkg-config does not find $m"
done
inc=$(pkg-config --variable=includedir doca-common)/doca
for h in doca_argp.h doca_buf.h doca_buf_inventory.h doca_cc.h doca_cc_consumer.h doca_cc_producer.h \
	 doca_comch.h doca_comch_consumer.h doca_comch_producer.h doca_comm_channel.h doca_ctx.h \
	 doca_dev.h doca_error.h doca_log.h doca_mmap.h doca_pe.h doca_types.h doca_version.h; do
	[ -f "$inc/$h" ] || fail "$h not installed in $inc"
done
libdir=$(pkg-config --variable=libdir doca-comch)
echo "ok installed; pkg-config finds doca-common, doca-comch, doca-argp, doca-comm-channel"

# -------------------------------------------------------- the applications
app=$tmp/app
mkdir -p "$app"
cp "$src"/compat/doca/samples/*.[ch] "$src"/test/outside_doca/meson.build "$app/"
run "$tmp/cc.log" cc -Wall -o "$tmp/cc_ctrl_client" "$app/comch_ctrl_client.c" "$app/samples_common.c" \
	$(pkg-config --cflags --libs doca-comch doca-argp)
run "$tmp/app-setup.log" meson setup "$tmp/app-build" "$app"
run "$tmp/app-ninja.log" ninja -C "$tmp/app-build"
needed=$(readelf -d "$tmp/app-build/doca_comch_data_server" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in
*libdoca_comch.so*) ;;
*) fail "the program does not link libdoca_comch: $needed" ;;
esac
case "$needed" in
*librte_*) fail "the program links DPDK directly: $needed" ;;
esac
echo "ok built with cc and pkg-config, and with a vendor-style meson.build (dependency('doca-comch'))"

# ------------------------------------------------------------------ runs
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cat > "$tmp/emu.conf" <<CONF
# One emulated BlueField: the DPU at 03:00.0 serves the host function pf0
# (PCI address 03:00.1 on the host, and of its representor on the DPU).
dpu 03:00.0 pf0=03:00.1 path=$link/sock
CONF
export DOCA_COMCH_EMU_CONF=$tmp/emu.conf
unset DOCA_COMCH_EMU
A=$tmp/app-build
pair() {
	local name=$1 s=$2 c=$3 es=$4 ec=$5 spid src crc
	timeout 120 $A/$s > "$tmp/$name.srv" 2>&1 &
	spid=$!
	timeout 120 $c > "$tmp/$name.cli" 2>&1
	crc=$?
	wait $spid
	src=$?
	if [ $src -ne 0 ] || [ $crc -ne 0 ] || ! grep -qF "$es" "$tmp/$name.srv" ||
	   ! grep -qF "$ec" "$tmp/$name.cli"; then
		echo "--- server ($src)"; cat "$tmp/$name.srv"
		echo "--- client ($crc)"; cat "$tmp/$name.cli"
		fail "$name"
	fi
	echo "ok $name"
}
pair "control path: meson-built DPU, cc-built host" \
	"doca_comch_ctrl_server -p 03:00.0 -r 03:00.1 -t pong" "$tmp/cc_ctrl_client -p 03:00.1 -t ping" \
	'server: message from the client: "ping"' 'client: answer from the server: "pong"'
pair "fast path" \
	"doca_comch_data_server -p 03:00.0 -r 03:00.1 -n 1000" "$A/doca_comch_data_client -p 03:00.1 -n 1000" \
	'server: received 1000 messages' 'client: received 1000 messages'
exit 0
