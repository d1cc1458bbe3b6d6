/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef CTRL_COMMON_H
#define CTRL_COMMON_H

/* Helpers shared by the control-path client and server samples. */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_errno.h>

static volatile bool force_quit;

static void
ctrl_signal_handler(int sig)
{
	if (sig == SIGINT || sig == SIGTERM)
		force_quit = true;
}

/*
 * The comch device to use: the one named by --dev, else the first device of
 * the wanted role given with --vdev, else a comch_shm device this sample
 * creates with default devargs (so "-l 0 --no-huge" is enough to try it).
 */
static int16_t
ctrl_find_dev(const char *name, enum rte_comch_role role,
		const char *default_vdev, const char *default_args)
{
	struct rte_comch_dev_info info;
	int16_t id;
	int ret;

	if (name != NULL) {
		ret = rte_comch_get_dev_id_by_name(name);
		if (ret < 0)
			printf("no comch device named %s\n", name);
		return (int16_t)ret;
	}
	RTE_COMCH_FOREACH_DEV(id) {
		if (rte_comch_info_get(id, &info) == 0 && info.role == role)
			return id;
	}
	ret = rte_vdev_init(default_vdev, default_args);
	if (ret < 0) {
		printf("cannot create %s,%s: %s\n", default_vdev, default_args,
			rte_strerror(-ret));
		return -1;
	}
	return (int16_t)rte_comch_get_dev_id_by_name(default_vdev);
}

static uint64_t
ctrl_deadline(double seconds)
{
	return rte_get_timer_cycles() +
		(uint64_t)(seconds * (double)rte_get_timer_hz());
}

#endif /* CTRL_COMMON_H */
