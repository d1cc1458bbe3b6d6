#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run the test suites (meson test). Run devtools/setup.sh first.
#
#   devtools/test.sh [meson test arguments]   the suites, on build/
#   devtools/test.sh --sanitize [...]          the same under AddressSanitizer
#                                              and UndefinedBehaviorSanitizer,
#                                              on build-asan/ (configured with
#                                              -Db_sanitize=address,undefined
#                                              and -DRTE_COMCH_DEBUG)
set -euo pipefail

cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || { echo "test: run devtools/setup.sh first"; exit 1; }
if [ "${1:-}" = "--sanitize" ]; then
	shift
	# The fast path's debug checks (RTE_COMCH_DEBUG) are compiled here
	# too, so some build runs them.
	if [ ! -f build-asan/build.ninja ]; then
		meson setup build-asan -Db_sanitize=address,undefined \
			-Db_lundef=false -Dc_args=-DRTE_COMCH_DEBUG > /dev/null
	else
		meson configure build-asan -Dc_args=-DRTE_COMCH_DEBUG > /dev/null
	fi
	ninja -C build-asan > build-asan/ninja.log 2>&1 ||
		{ cat build-asan/ninja.log; exit 1; }
	# Any report fails the test that caused it.
	export ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1
	export LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp:print_suppressions=0
	export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
	exec meson test -C build-asan --print-errorlogs "$@"
fi
meson test -C build --print-errorlogs "$@"
