#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run test suites again and again, to find tests that fail only sometimes.
#
#   devtools/repeat.sh [options] SUITE [SUITE...]
#
#   -n N        runs of each suite (default 30)
#   --load      keep both cores busy meanwhile (one CPU hog per core,
#               at normal priority: the tests compete with them)
#   --sanitize  use build-asan/ (devtools/test.sh --sanitize builds it)
#   --keep-going  do not stop at the first failure
#
# SUITE is a meson test name (meson test -C build --list). Every failed
# run's log is kept in repeat-logs/<suite>.<run>.log; the last line says
# "<suite>: N passed, N failed". Exits non-zero if any run failed.
set -uo pipefail

cd "$(dirname "$0")/.."
runs=30
load=false
builddir=build
keep_going=false
suites=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) runs=$2; shift 2 ;;
	-n*) runs=${1#-n}; shift ;;
	--load) load=true; shift ;;
	--sanitize) builddir=build-asan; shift ;;
	--keep-going) keep_going=true; shift ;;
	-h|--help) sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "repeat: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) suites+=("$1"); shift ;;
	esac
done
if [ ${#suites[@]} -eq 0 ]; then
	echo "repeat: name at least one suite (meson test -C $builddir --list)" >&2
	exit 2
fi
case "$runs" in
''|*[!0-9]*|0) echo "repeat: -n needs a positive number, not '$runs'" >&2; exit 2 ;;
esac
[ -f $builddir/build.ninja ] || { echo "repeat: $builddir/ is not built; run devtools/setup.sh" >&2; exit 2; }
ninja -C $builddir > /dev/null || exit 2

if [ $builddir = build-asan ]; then
	export ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1
	export LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp:print_suppressions=0
	export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
fi

hogs=()
stop_hogs() {
	for p in "${hogs[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
}
trap stop_hogs EXIT
if $load; then
	for c in $(seq 1 "$(nproc)"); do
		(while :; do :; done) &
		hogs+=($!)
	done
	echo "repeat: ${#hogs[@]} CPU hogs running"
fi

mkdir -p repeat-logs
total_fail=0
for s in "${suites[@]}"; do
	pass=0
	fail=0
	for i in $(seq 1 "$runs"); do
		log=repeat-logs/$s.$i.log
		if meson test -C $builddir --no-rebuild --print-errorlogs "$s" > "$log" 2>&1; then
			pass=$((pass + 1))
			rm -f "$log"
		else
			fail=$((fail + 1))
			echo "repeat: $s run $i FAILED (log: $log)"
			grep -m5 -E 'FAIL|Assertion|ERROR' "$log" | sed 's/^/    /'
			$keep_going || break
		fi
	done
	echo "$s: $pass passed, $fail failed"
	total_fail=$((total_fail + fail))
done
[ $total_fail -eq 0 ]
