/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Devices: the per-process table, the shared device data and the queries.
 *
 * The shared part (struct rte_comch_dev_data) of every device lives in one
 * memzone so a secondary process finds the primary's devices by the same
 * ids; the per-process part (ops, driver state) is rebuilt in each process
 * when the driver probes there.
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
#include <rte_memzone.h>
#include <rte_string_fns.h>

#include "comch_private.h"

/* Default: what a user must act on (NOTICE and above); routine events
 * (connects, clean closes) are DEBUG, the rest INFO. */
RTE_LOG_REGISTER(rte_comch_logtype, lib.comch, NOTICE);

#define COMCH_MZ_DEV_DATA "rte_comch_dev_data"

struct rte_comch_dev rte_comch_devices[RTE_COMCH_MAX_DEVS];

/* Why the last probes failed, per device name (rte_comch_devargs_check()).
 * Probes run one at a time (EAL init, or rte_vdev_init() under the vdev
 * bus's lock). */
#define COMCH_PROBE_ERRORS 8
static struct {
	char name[RTE_DEV_NAME_MAX_LEN];
	char why[256];
} comch_probe_errors[COMCH_PROBE_ERRORS];
static unsigned int comch_probe_error_next;
static struct rte_comch_dev_data *comch_dev_data;
bool comch_in_secondary;

static int
comch_dev_data_prepare(void)
{
	const struct rte_memzone *mz;
	size_t size = sizeof(*comch_dev_data) * RTE_COMCH_MAX_DEVS;

	if (comch_dev_data != NULL)
		return 0;
	comch_in_secondary = rte_eal_process_type() != RTE_PROC_PRIMARY;
	if (!comch_in_secondary) {
		mz = rte_memzone_lookup(COMCH_MZ_DEV_DATA);
		if (mz == NULL)
			mz = rte_memzone_reserve(COMCH_MZ_DEV_DATA, size,
					rte_socket_id(), 0);
		if (mz != NULL && mz->addr != NULL)
			memset(mz->addr, 0, size);
	} else {
		mz = rte_memzone_lookup(COMCH_MZ_DEV_DATA);
	}
	if (mz == NULL) {
		COMCH_LOG(ERR, "cannot %s memzone %s: %s",
			rte_eal_process_type() == RTE_PROC_PRIMARY ?
			"reserve" : "find", COMCH_MZ_DEV_DATA,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	comch_dev_data = mz->addr;
	return 0;
}

bool
comch_secondary_refuses(const char *what)
{
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		return false;
	COMCH_LOG(ERR, "%s: not supported in a secondary process; the primary process owns the link (servers, clients, connections and control messages); a secondary attaches to a connection and runs producers and consumers on it",
		what);
	rte_errno = ENOTSUP;
	return true;
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

struct rte_comch_dev *
rte_comch_pmd_allocate(const char *name, int numa_node)
{
	struct rte_comch_dev *dev;
	struct rte_comch_dev_data *data = NULL;
	int16_t i, dev_id = -1;
	int ret;

	if (name == NULL || name[0] == '\0' ||
	    strnlen(name, RTE_DEV_NAME_MAX_LEN) >= RTE_DEV_NAME_MAX_LEN) {
		rte_errno = EINVAL;
		return NULL;
	}
	ret = comch_dev_data_prepare();
	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	if (rte_comch_pmd_get_dev_by_name(name) != NULL) {
		COMCH_LOG(ERR, "device %s already exists", name);
		rte_errno = EEXIST;
		return NULL;
	}
	/* Multi-process: the primary answers secondaries, a secondary
	 * registers with the primary (both once, at the first device). */
	if (!comch_in_secondary) {
		comch_mp_primary_init();
	} else {
		ret = comch_mp_secondary_init();
		if (ret < 0) {
			rte_errno = -ret;
			return NULL;
		}
	}

	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		for (i = 0; i < RTE_COMCH_MAX_DEVS; i++) {
			if (!comch_dev_data[i].in_use) {
				dev_id = i;
				break;
			}
		}
		if (dev_id < 0) {
			COMCH_LOG(ERR, "no free device slot for %s (max %d)",
				name, RTE_COMCH_MAX_DEVS);
			rte_errno = ENOSPC;
			return NULL;
		}
		data = &comch_dev_data[dev_id];
		memset(data, 0, sizeof(*data));
		rte_strscpy(data->dev_name, name, sizeof(data->dev_name));
		data->dev_id = dev_id;
		data->numa_node = numa_node;
		data->in_use = 1;
	} else {
		/* Secondary: attach to the primary's slot of that name. */
		for (i = 0; i < RTE_COMCH_MAX_DEVS; i++) {
			if (comch_dev_data[i].in_use &&
			    strcmp(comch_dev_data[i].dev_name, name) == 0) {
				dev_id = i;
				data = &comch_dev_data[i];
				break;
			}
		}
		if (data == NULL) {
			COMCH_LOG(ERR, "device %s not found in the primary process",
				name);
			rte_errno = ENODEV;
			return NULL;
		}
	}

	dev = &rte_comch_devices[dev_id];
	memset(dev, 0, sizeof(*dev));
	dev->data = data;
	dev->attached = 1;
	return dev;
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
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		memset(dev->data, 0, sizeof(*dev->data));
	memset(dev, 0, sizeof(*dev));
	if (rte_comch_dev_count() == 0) {
		if (comch_in_secondary)
			comch_mp_secondary_fini();
		else
			comch_mp_primary_fini();
	}
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
	int ret;

	if (dev == NULL || info == NULL)
		return -EINVAL;
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

int
rte_comch_rep_name(int16_t dev_id, uint16_t rep_id, char *buf, size_t size)
{
	struct rte_comch_dev *dev = comch_dev_get(dev_id);

	if (dev == NULL || buf == NULL)
		return -EINVAL;
	return dev->dev_ops->rep_name(dev, rep_id, buf, size);
}

int
rte_comch_rep_get_by_name(int16_t dev_id, const char *name, uint16_t *rep_id)
{
	struct rte_comch_dev_info info;
	char buf[RTE_COMCH_REP_NAME_MAX];
	uint16_t i;
	int ret;

	if (name == NULL || rep_id == NULL)
		return -EINVAL;
	ret = rte_comch_info_get(dev_id, &info);
	if (ret < 0)
		return ret;
	for (i = 0; i < info.nb_reps; i++) {
		if (rte_comch_rep_name(dev_id, i, buf, sizeof(buf)) == 0 &&
		    strcmp(buf, name) == 0) {
			*rep_id = i;
			return 0;
		}
	}
	return -ENOENT;
}
