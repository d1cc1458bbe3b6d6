# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 Comch on DPDK authors
#
# Sourced by the shell tests: lcores IDS ("0", "0,1") prints the EAL
# argument that puts each of those lcores on every CPU this test may use,
# never pinned (why: test/comch_lcores.py).

lcores() {
	local cpus out="" id
	cpus=$(taskset -pc $$ | sed 's/.*: //')
	for id in ${1//,/ }; do
		out="$out${out:+,}$id@($cpus)"
	done
	echo "--lcores=$out"
}
