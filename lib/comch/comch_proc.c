/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The seam (layer 2): which side of comch_proc.h this process takes,
 * chosen once, at its first device. The primary's table is the default
 * until then (nothing of it runs before a device exists).
 */

#include <rte_eal.h>
#include <rte_errno.h>

#include "comch_proc.h"

const struct comch_proc_ops *comch_proc = &comch_primary_ops;

int
comch_proc_choose(void)
{
	static bool chosen;
	bool primary;

	if (chosen)
		return 0;
	primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	if (comch_dev_data_table(primary) == NULL)
		return -rte_errno;
	comch_proc = primary ? &comch_primary_ops : &comch_secondary_ops;
	chosen = true;
	return 0;
}
