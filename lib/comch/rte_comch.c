/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Devices (layer 3): the public queries, and the driver helpers that
 * allocate and release them.
 *
 * The shared part (struct rte_comch_dev_data) of every device lives in one
 * memzone so a secondary process finds the primary's devices by the same
 * ids; the per-process part (ops, driver state) is rebuilt in each process
 * when the driver probes there. How a slot is found and what the driver
 * does with it depends on the process: the seam (comch_proc.h) says.
 */

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_string_fns.h>

#include "comch_proc.h"

/* Why the last probes failed, per device name (rte_comch_devargs_check()).
 * Probes run one at a time (EAL init, or rte_vdev_init() under the vdev
 * bus's lock). */
#define COMCH_PROBE_ERRORS 8
static struct {
	char name[RTE_DEV_NAME_MAX_LEN];
	char why[256];
} comch_probe_errors[COMCH_PROBE_ERRORS];
static unsigned int comch_probe_error_next;

int
rte_comch_pmd_probe(const char *name, int numa_node, size_t priv_size,
		size_t producer_priv_size, size_t consumer_priv_size,
		const struct rte_comch_pmd_probe_ops *ops, void *arg)
{
	struct rte_comch_dev *dev;
	bool first;
	int ret;

	if (name == NULL || name[0] == '\0' || ops == NULL ||
	    strnlen(name, RTE_DEV_NAME_MAX_LEN) >= RTE_DEV_NAME_MAX_LEN)
		return -EINVAL;
	ret = comch_proc_choose();
	if (ret < 0)
		return ret;
	if (rte_comch_pmd_get_dev_by_name(name) != NULL) {
		COMCH_LOG(ERR, "device %s already exists", name);
		return -EEXIST;
	}
	first = rte_comch_dev_count() == 0;
	if (first) {
		ret = comch_proc->dev_first();
		if (ret < 0)
			return ret;
	}
	dev = comch_proc->dev_slot(name, numa_node, priv_size);
	if (dev == NULL) {
		ret = -rte_errno;
		if (first)
			comch_proc->dev_last();
		return ret;
	}
	dev->producer_priv_size = producer_priv_size;
	dev->consumer_priv_size = consumer_priv_size;
	/* The driver creates the device in the primary, attaches to it in a
	 * secondary. */
	ret = comch_proc->dev_probe(dev, ops, arg);
	if (ret == 0 && (dev->dev_ops == NULL || dev->dev_ops->info_get == NULL))
		ret = -EINVAL;
	if (ret < 0) {
		rte_comch_pmd_release(dev);
		return ret;
	}
	rte_comch_pmd_probing_finish(dev);
	return 0;
}

int
rte_comch_pmd_release(struct rte_comch_dev *dev)
{
	int ret = 0;

	if (dev == NULL || !dev->attached)
		return -EINVAL;
	comch_fp_ops_reset(dev->data->dev_id);
	if (dev->dev_ops != NULL && dev->dev_ops->dev_close != NULL)
		ret = dev->dev_ops->dev_close(dev);
	comch_proc->dev_slot_free(dev);
	memset(dev, 0, sizeof(*dev));
	if (rte_comch_dev_count() == 0)
		comch_proc->dev_last();
	return ret;
}

void
rte_comch_pmd_probe_failed(const char *dev_name, const char *fmt, ...)
{
	unsigned int i;
	va_list ap;

	if (dev_name == NULL)
		return;
	for (i = 0; i < COMCH_PROBE_ERRORS; i++)
		if (strcmp(comch_probe_errors[i].name, dev_name) == 0)
			break;
	if (i == COMCH_PROBE_ERRORS)
		i = comch_probe_error_next++ % COMCH_PROBE_ERRORS;
	rte_strscpy(comch_probe_errors[i].name, dev_name,
			sizeof(comch_probe_errors[i].name));
	va_start(ap, fmt);
	vsnprintf(comch_probe_errors[i].why, sizeof(comch_probe_errors[i].why),
			fmt, ap);
	va_end(ap);
}

/* A device name that belongs to a comch driver: every comch vdev driver
 * is named comch_<transport>, and the vdev bus matches devices to
 * drivers by that prefix. */
static bool
comch_devargs_name(const char *name)
{
	return strncmp(name, "comch_", 6) == 0;
}

int
rte_comch_devargs_check(char *why, size_t size)
{
	struct rte_devargs *da;
	unsigned int i;
	int n = 0;

	RTE_EAL_DEVARGS_FOREACH("vdev", da) {
		if (!comch_devargs_name(da->name))
			continue;
		n++;
		if (rte_comch_pmd_get_dev_by_name(da->name) != NULL)
			continue;
		if (why != NULL && size > 0) {
			for (i = 0; i < COMCH_PROBE_ERRORS; i++)
				if (strcmp(comch_probe_errors[i].name,
					   da->name) == 0)
					break;
			if (i < COMCH_PROBE_ERRORS)
				snprintf(why, size, "%s",
					comch_probe_errors[i].why);
			else
				snprintf(why, size, "%s: the device was not created (see the driver's log above)",
					da->name);
		}
		return -ENODEV;
	}
	return n;
}

/* Where the comch_shm driver is, if it was installed beside this library
 * (as meson install does). */
static void
comch_driver_path(char *path, size_t size)
{
	char lib[PATH_MAX], cand[PATH_MAX + 32];
	Dl_info dli;

	snprintf(path, size, "<dir>/librte_comch_shm.so");
	if (dladdr((void *)(uintptr_t)rte_comch_devargs_hint, &dli) == 0 ||
	    dli.dli_fname == NULL)
		return;
	snprintf(lib, sizeof(lib), "%s", dli.dli_fname);
	snprintf(cand, sizeof(cand), "%s/librte_comch_shm.so", dirname(lib));
	if (access(cand, R_OK) == 0 && strlen(cand) < size)
		memcpy(path, cand, strlen(cand) + 1);
}

int
rte_comch_devargs_hint(int argc, char * const *argv, char *buf, size_t size)
{
	char path[PATH_MAX];
	const char *v;
	int i;

	if (buf == NULL || size == 0)
		return -EINVAL;
	buf[0] = '\0';
	for (i = 1; argv != NULL && i < argc; i++) {
		v = argv[i];
		if (v == NULL)
			continue;
		if (strncmp(v, "--vdev=", 7) == 0)
			v += 7;
		else if (strcmp(v, "--vdev") == 0 && i + 1 < argc &&
			 argv[i + 1] != NULL)
			v = argv[++i];
		else
			continue;
		if (!comch_devargs_name(v))
			continue;
		comch_driver_path(path, sizeof(path));
		snprintf(buf, size, "hint: if EAL could not parse %.*s, no comch driver is loaded: link librte_comch_shm with -Wl,--no-as-needed (pkg-config --libs libcomch does) or load it with -d %s",
			(int)strcspn(v, ","), v, path);
		return 1;
	}
	return 0;
}

uint16_t
rte_comch_dev_count(void)
{
	uint16_t n = 0;
	int16_t i;

	for (i = 0; i < RTE_COMCH_MAX_DEVS; i++)
		n += rte_comch_devices[i].attached;
	return n;
}

bool
rte_comch_is_valid_dev(int16_t dev_id)
{
	return comch_dev_get(dev_id) != NULL;
}

int16_t
rte_comch_next_dev(int16_t start_dev_id)
{
	int16_t i;

	if (start_dev_id < 0)
		start_dev_id = 0;
	for (i = start_dev_id; i < RTE_COMCH_MAX_DEVS; i++)
		if (rte_comch_devices[i].attached)
			return i;
	return -1;
}

int
rte_comch_get_dev_id_by_name(const char *name)
{
	struct rte_comch_dev *dev;

	if (name == NULL)
		return -EINVAL;
	dev = rte_comch_pmd_get_dev_by_name(name);
	if (dev == NULL)
		return -ENODEV;
	return dev->data->dev_id;
}

int
rte_comch_info_get(int16_t dev_id, struct rte_comch_dev_info *info)
{
	struct rte_comch_dev *dev = comch_dev_get(dev_id);

	if (dev == NULL || info == NULL)
		return -EINVAL;
	return comch_dev_info(dev, info);
}

int
rte_comch_function_name(int16_t dev_id, uint16_t function_id, char *buf, size_t size)
{
	struct rte_comch_dev *dev = comch_dev_get(dev_id);

	if (dev == NULL || buf == NULL)
		return -EINVAL;
	if (dev->dev_ops->function_name == NULL)
		return -ENOTSUP;
	return dev->dev_ops->function_name(dev, function_id, buf, size);
}

int
rte_comch_function_get_by_name(int16_t dev_id, const char *name, uint16_t *function_id)
{
	struct rte_comch_dev_info info;
	char buf[RTE_COMCH_FUNCTION_NAME_MAX];
	uint16_t i;
	int ret;

	if (name == NULL || function_id == NULL)
		return -EINVAL;
	ret = rte_comch_info_get(dev_id, &info);
	if (ret < 0)
		return ret;
	for (i = 0; i < info.nb_functions; i++) {
		if (rte_comch_function_name(dev_id, i, buf, sizeof(buf)) == 0 &&
		    strcmp(buf, name) == 0) {
			*function_id = i;
			return 0;
		}
	}
	return -ENOENT;
}
