#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Install this source tree into a temporary prefix, then use it the way an
# application outside the tree does (doc/guides/prog_guide/using_comch.md):
#
#  1. meson setup/ninja/meson install of a second build into <tmp>/prefix,
#     its driver symlinked into <tmp>/pmds (-Dpmd_dir), never the system's;
#     the installed headers, libraries, sonames and symlinks are checked,
#     and where the default and -Dpmd_dir=none put the symlink (DESTDIR);
#  2. test/outside/comch_outside.c built with nothing but
#     `cc $(pkg-config --cflags --libs libcomch)`, and with the vendor-style
#     test/outside/meson.build (dependency('libcomch')); the two run as a
#     DPU and a host process that exchange and check control messages;
#  3. the same program linked without the driver: without -d, EAL init
#     fails and the program prints the hint; with -d <libdir>/driver or
#     -d <the PMD directory>, the two processes work again.
#
# Every wait is on a condition with a deadline (the programs' --timeout);
# there is no sleep. Temporary folders are removed on exit.
#
# Usage: test_install.sh <source root> <build root> <b_sanitize> <dpdk_sdk> <werror>
set -u
src=${1:?usage: $0 SRC BUILD SANITIZE SDK WERROR}
outer=${2:?}
sanitize=${3:?}
sdk=${4-}
werror=${5:-false}

if [ "$sanitize" != none ]; then
	# The installed copy this test builds is a fresh, uninstrumented build
	# whatever the outer one is, so running it here would repeat the plain
	# run; instrumenting it instead would make `cc $(pkg-config ...)` fail
	# to link (the __asan_ symbols come only with -fsanitize), which is not
	# what an application outside the tree does.
	echo "skip: the install test builds and installs its own uninstrumented copy; it runs in the plain build"
	exit 77
fi

for tool in meson ninja pkg-config cc readelf ldd timeout; do
	command -v $tool > /dev/null || { echo "FAIL: $tool not found"; exit 1; }
done

# In the build tree, not /tmp: EAL's -d refuses a library below a
# world-writable folder ("directory path /tmp is world-writable").
tmp=$(mktemp -d "$outer/install-test.XXXXXX") || exit 1
# The link sockets: a short path (a UNIX socket address holds 107 bytes).
sock=$(mktemp -d /tmp/comch-install.XXXXXX) || exit 1
if [ "$(id -u)" -eq 0 ]; then
	rundir=/var/run/dpdk
else
	rundir=${XDG_RUNTIME_DIR:-/tmp}/dpdk
fi
prefixes=()
cleanup() {
	local p
	rm -rf "$tmp" "$sock"
	for p in "${prefixes[@]}"; do
		rm -rf "${rundir:?}/$p"
	done
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

# run LOG CMD...: run, output to LOG; on failure show LOG and fail.
run() {
	local log=$1
	shift
	if ! "$@" > "$log" 2>&1; then
		cat "$log"
		fail "$*"
	fi
}

needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# ----------------------------------------------------------------- install
build=$tmp/build
prefix=$tmp/prefix
pmds=$tmp/pmds
opts=(-Dprefix="$prefix" -Dpmd_dir="$pmds" -Dexamples=false -Dtests=false
	-Dwerror="$werror")
[ -n "$sdk" ] && opts+=(-Ddpdk_sdk="$sdk")
run "$tmp/setup.log" meson setup "$build" "$src" "${opts[@]}"
run "$tmp/ninja.log" ninja -C "$build"
run "$tmp/install.log" meson install -C "$build" --no-rebuild
echo "ok installed into $prefix"

pcs=$(find "$prefix" -name libcomch.pc)
[ "$(echo "$pcs" | grep -c .)" = 1 ] || fail "expected one libcomch.pc under $prefix, found: $pcs"
export PKG_CONFIG_PATH=$(dirname "$pcs")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
libdir=$(pkg-config --variable=libdir libcomch)
incdir=$(pkg-config --variable=includedir libcomch)
[ -n "$libdir" ] && [ -n "$incdir" ] || fail "libcomch.pc has no libdir or includedir"

for h in rte_comch.h rte_comch_core.h rte_comch_pmd.h; do
	[ -f "$incdir/$h" ] || fail "$h not installed in $incdir"
done
for l in librte_comch librte_comch_shm; do
	[ -f "$libdir/$l.so.23.0" ] || fail "$libdir/$l.so.23.0 not installed"
	for link in "$l.so.23" "$l.so"; do
		[ "$libdir/$link" -ef "$libdir/$l.so.23.0" ] ||
			fail "$libdir/$link does not lead to $l.so.23.0"
	done
	soname=$(readelf -d "$libdir/$l.so.23.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "$soname" = "$l.so.23" ] || fail "$l: soname '$soname', expected $l.so.23 as DPDK 22.11's"
	if readelf -d "$libdir/$l.so.23.0" | grep -E '\((RUNPATH|RPATH)\)' | grep -qF "$tmp"; then
		fail "$l.so.23.0 keeps a run path into the build folder"
	fi
done
[ -L "$pmds/librte_comch_shm.so" ] && [ "$pmds/librte_comch_shm.so" -ef "$libdir/librte_comch_shm.so.23.0" ] ||
	fail "$pmds/librte_comch_shm.so is not a symlink to the installed driver"
# The driver SDK header compiles on its own with the installed flags.
echo '#include <rte_comch_pmd.h>' > "$tmp/sdk.c"
run "$tmp/sdk.log" cc -fsyntax-only -DALLOW_EXPERIMENTAL_API -DALLOW_INTERNAL_API \
	"$tmp/sdk.c" $(pkg-config --cflags libcomch)
echo "ok headers, libraries, sonames, PMD-directory symlink"

# Where the other pmd_dir settings put the symlink, installed under a
# DESTDIR so that nothing is written outside $tmp.
eal_pmd=$(printf '#include <rte_config.h>\nRTE_EAL_PMD_PATH\n' |
	cc -E -P -x c - $(pkg-config --cflags libdpdk) | tail -n 1 | tr -d '"')
[ -n "$eal_pmd" ] || fail "cannot read RTE_EAL_PMD_PATH of the installed DPDK"
run "$tmp/conf-default.log" meson configure "$build" -Dpmd_dir=
run "$tmp/install-default.log" meson install -C "$build" --destdir "$tmp/dest-default"
[ "$tmp/dest-default$eal_pmd/librte_comch_shm.so" -ef "$libdir/librte_comch_shm.so.23.0" ] ||
	fail "pmd_dir='': no symlink in DPDK's PMD directory $eal_pmd (under DESTDIR)"
[ "$(readlink "$tmp/dest-default$eal_pmd/librte_comch_shm.so")" = "$libdir/librte_comch_shm.so.23" ] ||
	fail "pmd_dir='': the symlink does not name the installed path without DESTDIR"
run "$tmp/conf-none.log" meson configure "$build" -Dpmd_dir=none
run "$tmp/install-none.log" meson install -C "$build" --destdir "$tmp/dest-none"
extra=$(find "$tmp/dest-none" -name 'librte_comch_shm*' ! -path "*$libdir/*")
[ -z "$extra" ] || fail "pmd_dir=none still installs $extra"
echo "ok pmd_dir='' links into $eal_pmd, pmd_dir=none links nowhere"

# --------------------------------------------------- outside applications
# The user's build commands: nothing but what pkg-config says.
linked=$tmp/comch_outside
run "$tmp/cc.log" cc -o "$linked" "$src/test/outside/comch_outside.c" \
	$(pkg-config --cflags --libs libcomch)
needed "$linked" | grep -qx 'librte_comch_shm.so.23' ||
	fail "cc \$(pkg-config --cflags --libs libcomch) dropped the driver: $(needed "$linked" | tr '\n' ' ')"
run "$tmp/vendor-setup.log" meson setup "$tmp/vendor" "$src/test/outside"
run "$tmp/vendor-ninja.log" ninja -C "$tmp/vendor"
vendor=$tmp/vendor/comch_outside
needed "$vendor" | grep -qx 'librte_comch_shm.so.23' ||
	fail "dependency('libcomch') dropped the driver"
# Without the driver: librte_comch and DPDK only.
nodrv=$tmp/comch_outside_nodrv
run "$tmp/cc-nodrv.log" cc -o "$nodrv" "$src/test/outside/comch_outside.c" \
	$(pkg-config --cflags libcomch) -L"$libdir" -lrte_comch $(pkg-config --libs libdpdk)
needed "$nodrv" | grep -q 'librte_comch_shm' && fail "$nodrv links the driver"
echo "ok built with cc and pkg-config, with meson and dependency('libcomch'), and without the driver"

# The temporary prefix is not in the loader's paths: as for any such prefix.
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for l in librte_comch.so.23 librte_comch_shm.so.23; do
	where=$(ldd "$linked" | awk -v l=$l '$1 == l { print $3 }')
	[ "$where" -ef "$libdir/$l" ] || fail "$linked loads $l from '$where', not from $libdir"
done

EAL=(--no-huge --no-pci -m 64 --log-level=lib.eal:error --log-level=lib.telemetry:error)
n=0
# pair NAME SERVER_CMD... -- CLIENT_CMD...: a DPU and a host process
# exchange 100 control messages; both must exit 0 and say so.
pair() {
	local name=$1 s_cmd=() c_cmd=() spid src crc
	shift
	while [ "$1" != -- ]; do s_cmd+=("$1"); shift; done
	shift
	c_cmd=("$@")
	n=$((n + 1))
	prefixes+=("inst-s$n-$$" "inst-c$n-$$")
	timeout 120 "${s_cmd[@]}" -l 0 "${EAL[@]}" --file-prefix "inst-s$n-$$" \
		--vdev=comch_shm0,role=dpu,path="$sock/$n" -- --timeout 60 \
		> "$tmp/$name.server" 2>&1 &
	spid=$!
	timeout 120 "${c_cmd[@]}" -l 1 "${EAL[@]}" --file-prefix "inst-c$n-$$" \
		--vdev=comch_shm1,role=host,path="$sock/$n" -- --timeout 60 \
		> "$tmp/$name.client" 2>&1
	crc=$?
	wait $spid
	src=$?
	if [ $src -ne 0 ] || [ $crc -ne 0 ] ||
	   ! grep -q '^server: echoed 100 messages$' "$tmp/$name.server" ||
	   ! grep -q '^client: 100 echoes of 1 to [0-9]* bytes match$' "$tmp/$name.client"; then
		echo "--- server ($src): ${s_cmd[*]}"
		cat "$tmp/$name.server"
		echo "--- client ($crc): ${c_cmd[*]}"
		cat "$tmp/$name.client"
		fail "$name"
	fi
	echo "ok $name"
}

pair "linked: meson-built DPU, cc-built host" "$vendor" -- "$linked"

# Loaded mode. Without -d, EAL cannot parse the comch device: the program
# must fail at EAL init and say how to fix it.
prefixes+=("inst-n-$$")
timeout 60 "$nodrv" -l 0 "${EAL[@]}" --file-prefix "inst-n-$$" \
	--vdev=comch_shm0,role=dpu,path="$sock/n" > "$tmp/nodrv.log" 2>&1
rc=$?
hint="hint: if EAL could not parse comch_shm0, no comch driver is loaded: link librte_comch_shm with -Wl,--no-as-needed (pkg-config --libs libcomch does) or load it with -d $libdir/librte_comch_shm.so"
if [ $rc -eq 0 ] || [ $rc -ge 124 ] || ! grep -qxF "$hint" "$tmp/nodrv.log"; then
	cat "$tmp/nodrv.log"
	fail "without the driver: expected EAL init to fail (rc $rc) with: $hint"
fi
echo "ok without the driver: EAL init fails and the program says how to fix it"

# EAL loads a -d path only when no directory above it is writable by
# others (/tmp is): a clone under /tmp cannot show this part.
insecure=
d=$(dirname "$(readlink -f "$libdir")")
while [ "$d" != / ]; do
	[ -n "$(find "$d" -maxdepth 0 -perm -0002 2> /dev/null)" ] && insecure=$d
	d=$(dirname "$d")
done
if [ -n "$insecure" ]; then
	echo "skipped loaded: -d: EAL refuses drivers below $insecure (writable by others); clone elsewhere to run it"
else
	pair "loaded: -d the driver, -d the PMD directory" \
		"$nodrv" -d "$libdir/librte_comch_shm.so" -- "$nodrv" -d "$pmds"
fi
exit 0
