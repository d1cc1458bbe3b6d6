#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run the whole of CI (.ci/run) again and again, J runs at a time, each in
# its own fresh clone of this repository's HEAD (committed work only): with
# J=2 on a 2-core machine the runs load each other, as a busy CI machine
# would. Stops at the first failed run unless --keep-going.
#
#   devtools/ci-loop.sh [-j J] [-n N] [--keep-going] [--dir DIR]
#
#   -j J          runs at once (default 2), each in DIR/cloneK
#   -n N          runs in each clone (default 15: 30 in all with -j 2)
#   --keep-going  do not stop at the first failure
#   --dir DIR     where the clones and logs go (default: the folder beside
#                 this repository named comch-ci-loop; not below /tmp,
#                 where the install test skips a part)
#
# Each run's output is kept in DIR/cloneK.runI.log; DIR/summary.txt gets one
# line a run: clone, run, exit status, seconds, the "N passed, N failed"
# line and the load average at its end. A clone's first run builds from
# scratch (setup, two builds); its later runs rebuild nothing. Exits
# non-zero if any run failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
jobs=2
runs=15
keep_going=false
dir=$(dirname "$repo")/comch-ci-loop
while [ $# -gt 0 ]; do
	case "$1" in
	-j) jobs=$2; shift 2 ;;
	-n) runs=$2; shift 2 ;;
	--keep-going) keep_going=true; shift ;;
	--dir) dir=$2; shift 2 ;;
	-h|--help) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ci-loop: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
for v in "$jobs" "$runs"; do
	case "$v" in
	''|*[!0-9]*|0) echo "ci-loop: -j and -n need a positive number, not '$v'" >&2; exit 2 ;;
	esac
done

mkdir -p "$dir" || exit 2
dir=$(cd "$dir" && pwd)
summary=$dir/summary.txt
echo "ci-loop: $(git -C "$repo" log -1 --format='%h %s'), $jobs at a time, $runs runs each" | tee -a "$summary"

# One clone's loop; a failed run leaves $dir/failed behind.
loop() {
	local k=$1 clone=$dir/clone$1 i rc start line
	rm -rf "$clone"
	git clone -q "$repo" "$clone" || { touch "$dir/failed"; return; }
	for i in $(seq 1 "$runs"); do
		[ -e "$dir/failed" ] && ! $keep_going && return
		start=$(date +%s)
		(cd "$clone" && bash .ci/run) > "$dir/clone$k.run$i.log" 2>&1
		rc=$?
		line=$(tail -n 1 "$dir/clone$k.run$i.log")
		echo "clone $k run $i: exit $rc, $(( $(date +%s) - start )) s, $line, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$summary"
		[ $rc -eq 0 ] || touch "$dir/failed"
	done
}

rm -f "$dir/failed"
for k in $(seq 1 "$jobs"); do
	loop "$k" &
	sleep 1
done
wait
if [ -e "$dir/failed" ]; then
	echo "ci-loop: some runs failed (logs in $dir)" | tee -a "$summary"
	exit 1
fi
echo "ci-loop: all runs passed" | tee -a "$summary"
