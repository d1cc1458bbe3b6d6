/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "samples_common.h"

DOCA_LOG_REGISTER(SAMPLES_COMMON);

static doca_error_t
copy_arg(char *dst, size_t size, const char *src, const char *what)
{
	if (strlen(src) >= size) {
		DOCA_LOG_ERR("%s \"%.32s...\" is too long (at most %zu characters)", what, src, size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(dst, src);
	return DOCA_SUCCESS;
}

static doca_error_t
pci_cb(void *param, void *config)
{
	return copy_arg(((struct sample_cfg *)config)->pci, SAMPLE_PCI_LEN, param, "PCI address");
}

static doca_error_t
rep_cb(void *param, void *config)
{
	return copy_arg(((struct sample_cfg *)config)->rep_pci, SAMPLE_PCI_LEN, param, "representor PCI address");
}

static doca_error_t
text_cb(void *param, void *config)
{
	return copy_arg(((struct sample_cfg *)config)->text, SAMPLE_TEXT_LEN, param, "text");
}

static doca_error_t
file_cb(void *param, void *config)
{
	return copy_arg(((struct sample_cfg *)config)->file, sizeof(((struct sample_cfg *)config)->file), param,
			"file name");
}

static doca_error_t
count_cb(void *param, void *config)
{
	int n = *(int *)param;

	if (n <= 0) {
		DOCA_LOG_ERR("count %d: expected a positive number", n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct sample_cfg *)config)->count = n;
	return DOCA_SUCCESS;
}

static doca_error_t
add_param(const char *s, const char *l, const char *args, const char *descr, enum doca_argp_type type,
	  doca_argp_param_cb_t cb)
{
	struct doca_argp_param *p;
	doca_error_t ret;

	ret = doca_argp_param_create(&p);
	if (ret != DOCA_SUCCESS)
		return ret;
	doca_argp_param_set_short_name(p, s);
	doca_argp_param_set_long_name(p, l);
	doca_argp_param_set_arguments(p, args);
	doca_argp_param_set_description(p, descr);
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, type);
	return doca_argp_register_param(p);
}

doca_error_t
sample_register_params(bool with_rep, bool with_file)
{
	doca_error_t ret;

	ret = add_param("p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comch device PCI address", DOCA_ARGP_TYPE_STRING,
			pci_cb);
	if (ret == DOCA_SUCCESS && with_rep)
		ret = add_param("r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comch device representor PCI address",
				DOCA_ARGP_TYPE_STRING, rep_cb);
	if (ret == DOCA_SUCCESS)
		ret = add_param("t", "text", "<TEXT>", "Text to send to the other side", DOCA_ARGP_TYPE_STRING,
				text_cb);
	if (ret == DOCA_SUCCESS && with_file)
		ret = add_param("f", "file", "<PATH>", "File to send (client) or to write (server)",
				DOCA_ARGP_TYPE_STRING, file_cb);
	if (ret == DOCA_SUCCESS && with_file)
		ret = add_param("n", "count", "<N>", "How many times / how many messages", DOCA_ARGP_TYPE_INT,
				count_cb);
	return ret;
}

doca_error_t
sample_open_dev(const char *pci, sample_cap_t cap, struct doca_dev **dev)
{
	struct doca_devinfo **list;
	uint32_t nb, i;
	uint8_t equal;
	doca_error_t ret;

	ret = doca_devinfo_create_list(&list, &nb);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to list devices: %s", doca_error_get_descr(ret));
		return ret;
	}
	ret = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < nb; i++) {
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &equal) != DOCA_SUCCESS || !equal)
			continue;
		if (cap != NULL && cap(list[i]) != DOCA_SUCCESS)
			continue;
		ret = doca_dev_open(list[i], dev);
		break;
	}
	doca_devinfo_destroy_list(list);
	if (ret != DOCA_SUCCESS)
		DOCA_LOG_ERR("No suitable device at PCI address %s: %s", pci, doca_error_get_descr(ret));
	return ret;
}

doca_error_t
sample_open_rep(struct doca_dev *dev, const char *pci, struct doca_dev_rep **rep)
{
	struct doca_devinfo_rep **list;
	uint32_t nb, i;
	uint8_t equal;
	doca_error_t ret;

	ret = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &nb);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to list representors: %s", doca_error_get_descr(ret));
		return ret;
	}
	ret = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < nb; i++) {
		if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &equal) == DOCA_SUCCESS && equal) {
			ret = doca_dev_rep_open(list[i], rep);
			break;
		}
	}
	doca_devinfo_rep_destroy_list(list);
	if (ret != DOCA_SUCCESS)
		DOCA_LOG_ERR("No representor at PCI address %s: %s", pci, doca_error_get_descr(ret));
	return ret;
}

double
sample_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

doca_error_t
sample_wait_state(struct doca_pe *pe, struct doca_ctx *ctx, enum doca_ctx_states state, double seconds)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10000 };
	double deadline = sample_now() + seconds;
	enum doca_ctx_states cur;

	for (;;) {
		(void)doca_ctx_get_state(ctx, &cur);
		if (cur == state)
			return DOCA_SUCCESS;
		if (sample_now() > deadline)
			return DOCA_ERROR_TIME_OUT;
		if (doca_pe_progress(pe) == 0)
			nanosleep(&ts, NULL);
	}
}

uint32_t
sample_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	int k;

	crc = ~crc;
	while (len-- > 0) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320U & (0U - (crc & 1U)));
	}
	return ~crc;
}
