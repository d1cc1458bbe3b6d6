# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 Comch on DPDK authors
#
# Sourced by the shell tests: lcores IDS ("0", "0,1") prints the EAL
# argument for those lcores, by the rule of test/comch_lcores.py: one
# lcore floats over every CPU this test may use, several get one each.

lcores() {
	local cpus out="" id k=0 own
	cpus=$(taskset -pc $$ | sed 's/.*: //')
	case "$1" in
	*,*)
		own=($(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))'))
		for id in ${1//,/ }; do
			out="$out${out:+,}$id@${own[$((k % ${#own[@]}))]}"
			k=$((k + 1))
		done ;;
	*)	out="$1@($cpus)" ;;
	esac
	echo "--lcores=$out"
}
