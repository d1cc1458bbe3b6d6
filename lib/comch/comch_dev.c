/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The device table of this process, the shared device data, and the
 * fast-path table (layer 0).
 *
 * As with dmadev's rte_dma_fp_objs, the fast-path functions of each device
 * live in a per-process table indexed by device id, so a function pointer
 * is never read from memory shared between processes. Slots of absent
 * devices hold functions that return -ENODEV.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_memzone.h>

#include "comch_private.h"

#define COMCH_MZ_DEV_DATA "rte_comch_dev_data"

/* Default: what a user must act on (NOTICE and above); routine events
 * (connects, clean closes) are DEBUG, the rest INFO. */
RTE_LOG_REGISTER(rte_comch_logtype, lib.comch, NOTICE);

struct rte_comch_dev rte_comch_devices[RTE_COMCH_MAX_DEVS];

static struct rte_comch_dev_data *comch_dev_data;

struct rte_comch_dev_data *
comch_dev_data_table(bool reserve)
{
	const struct rte_memzone *mz;
	size_t size = sizeof(*comch_dev_data) * RTE_COMCH_MAX_DEVS;

	if (comch_dev_data != NULL)
		return comch_dev_data;
	mz = rte_memzone_lookup(COMCH_MZ_DEV_DATA);
	if (mz == NULL && reserve)
		mz = rte_memzone_reserve(COMCH_MZ_DEV_DATA, size,
				rte_socket_id(), 0);
	if (mz == NULL) {
		COMCH_LOG(ERR, "cannot %s memzone %s: %s",
			reserve ? "reserve" : "find", COMCH_MZ_DEV_DATA,
			rte_strerror(rte_errno));
		return NULL;
	}
	if (reserve)
		memset(mz->addr, 0, size);
	comch_dev_data = mz->addr;
	return comch_dev_data;
}


struct rte_comch_dev *
comch_dev_get(int16_t dev_id)
{
	if (dev_id < 0 || dev_id >= RTE_COMCH_MAX_DEVS ||
	    !rte_comch_devices[dev_id].attached)
		return NULL;
	return &rte_comch_devices[dev_id];
}

struct rte_comch_dev *
rte_comch_pmd_dev(int16_t dev_id)
{
	return comch_dev_get(dev_id);
}

struct rte_comch_dev *
rte_comch_pmd_get_dev_by_name(const char *name)
{
	int16_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < RTE_COMCH_MAX_DEVS; i++) {
		struct rte_comch_dev *dev = &rte_comch_devices[i];

		if (dev->attached && dev->data != NULL &&
		    strcmp(dev->data->dev_name, name) == 0)
			return dev;
	}
	return NULL;
}

int
comch_dev_info(const struct rte_comch_dev *dev, struct rte_comch_dev_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	ret = dev->dev_ops->info_get(dev, info);
	if (ret < 0)
		return ret;
	info->dev_name = dev->data->dev_name;
	info->driver_name = "";
	if (dev->device != NULL && rte_dev_driver(dev->device) != NULL)
		info->driver_name = rte_driver_name(rte_dev_driver(dev->device));
	info->role = (enum rte_comch_role)dev->data->role;
	info->numa_node = dev->data->numa_node;
	return 0;
}

/* ----------------------------------------------------- fast-path table */

static int
comch_dummy_send(void *p __rte_unused, uint32_t id __rte_unused,
		const struct rte_comch_send_op *ops __rte_unused,
		uint16_t n __rte_unused)
{
	return -ENODEV;
}

static int
comch_dummy_sendv(void *p __rte_unused, uint32_t id __rte_unused,
		const struct rte_comch_sendv_op *ops __rte_unused,
		uint16_t n __rte_unused)
{
	return -ENODEV;
}

static int
comch_dummy_post(void *c __rte_unused, void * const *bufs __rte_unused,
		const uint32_t *lens __rte_unused, uint16_t n __rte_unused)
{
	return -ENODEV;
}

static int
comch_dummy_poll(void *c __rte_unused,
		struct rte_comch_completion *cpl __rte_unused,
		uint16_t n __rte_unused)
{
	return -ENODEV;
}

#define COMCH_DUMMY_FP { .send = comch_dummy_send, \
	.post = comch_dummy_post, .poll = comch_dummy_poll, \
	.sendv = comch_dummy_sendv }

struct rte_comch_fp_ops rte_comch_fp_ops[RTE_COMCH_MAX_DEVS] = {
	[0 ... RTE_COMCH_MAX_DEVS - 1] = COMCH_DUMMY_FP,
};

void
rte_comch_pmd_probing_finish(struct rte_comch_dev *dev)
{
	struct rte_comch_fp_ops *fp = &rte_comch_fp_ops[dev->data->dev_id];
	static const struct rte_comch_fp_ops dummy = COMCH_DUMMY_FP;

	/* A driver without a fast path keeps the dummies. */
	fp->send = dev->dev_ops->fp_send != NULL ? dev->dev_ops->fp_send :
		dummy.send;
	fp->sendv = dev->dev_ops->fp_sendv != NULL ? dev->dev_ops->fp_sendv :
		dummy.sendv;
	fp->post = dev->dev_ops->fp_post != NULL ? dev->dev_ops->fp_post :
		dummy.post;
	fp->poll = dev->dev_ops->fp_poll != NULL ? dev->dev_ops->fp_poll :
		dummy.poll;
}

void
comch_fp_ops_reset(int16_t dev_id)
{
	static const struct rte_comch_fp_ops dummy = COMCH_DUMMY_FP;

	rte_comch_fp_ops[dev_id] = dummy;
}
