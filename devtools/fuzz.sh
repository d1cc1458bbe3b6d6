#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the libFuzzer targets (clang, ASan+UBSan) into build-fuzz/ and run
# each for SECONDS (default 300; CI runs 20), starting from the seed corpus
# in test/fuzz/corpus/<target>/ (copied: the repository is not changed).
# Findings land in build-fuzz/findings/<target>/; the exit status is the
# number of targets that found something.
#
# Usage: devtools/fuzz.sh [SECONDS] [TARGET...]
#   targets: devargs wire rings net_comch
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-300}
shift || true
targets=${*:-devargs wire rings net_comch}
case "$secs" in ''|*[!0-9]*) echo "fuzz: SECONDS must be a whole number"; exit 2 ;; esac

if ! command -v clang-14 >/dev/null ||
   ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "fuzz: needs clang-14 and libclang-rt-14-dev (apt-get install as root)"
		exit 2
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q > /dev/null
	apt-get install -y -q --no-install-recommends clang-14 \
		libclang-rt-14-dev > /dev/null || exit 2
fi
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang-14 meson setup build-fuzz -Dfuzz=true -Dexamples=false \
		-Db_sanitize=address,undefined -Db_lundef=false > /dev/null || exit 2
fi
ninja -C build-fuzz > build-fuzz/ninja.log 2>&1 || { cat build-fuzz/ninja.log; exit 2; }

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
failed=0
for t in $targets; do
	corpus=$(mktemp -d /tmp/comch-fuzz-$t.XXXXXX)
	cp test/fuzz/corpus/$t/* "$corpus"/
	mkdir -p build-fuzz/findings/$t
	# -timeout: an input still running after 60 s is a hang (a guard:
	# on a busy machine one handshake may wait seconds for a CPU)
	if build-fuzz/test/fuzz/fuzz_$t -max_total_time="$secs" -timeout=60 \
		-artifact_prefix=build-fuzz/findings/$t/ "$corpus" \
		> build-fuzz/findings/$t.log 2>&1; then
		echo "ok fuzz/$t: $(grep DONE build-fuzz/findings/$t.log | tail -1 | tr -s ' \t' ' ')"
	else
		echo "FAILED fuzz/$t (see build-fuzz/findings/$t.log and the inputs there)"
		grep -E "ERROR|SUMMARY" build-fuzz/findings/$t.log | head -5
		failed=$((failed + 1))
	fi
	rm -rf "$corpus"
done
exit $failed
