/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * What the vendor-API programs of this folder share: opening a device by
 * PCI address and a representor by PCI address, the -p/-r/-t parameters,
 * waiting for a context state. Written against the DOCA API only: these
 * programs build with nothing but pkg-config's doca-comch, doca-argp and
 * doca-common, as programs written for the vendor's SDK do.
 */

#ifndef SAMPLES_COMMON_H
#define SAMPLES_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#define SAMPLE_PCI_LEN DOCA_DEVINFO_PCI_ADDR_SIZE
#define SAMPLE_TEXT_LEN 4096

struct sample_cfg {
	char pci[SAMPLE_PCI_LEN];        /* -p: the device */
	char rep_pci[SAMPLE_PCI_LEN];    /* -r: the representor (DPU side) */
	char text[SAMPLE_TEXT_LEN];      /* -t: the text to send */
	char file[4096];                 /* -f: a file (file transfer) */
	int count;                       /* -n: how many (where a program repeats) */
};

typedef doca_error_t (*sample_cap_t)(const struct doca_devinfo *devinfo);

/* Register -p, -r (if @p with_rep), -t, and (if @p with_file) -f, -n. */
doca_error_t sample_register_params(bool with_rep, bool with_file);

/* Open the device at @p pci that passes @p cap (may be NULL). */
doca_error_t sample_open_dev(const char *pci, sample_cap_t cap, struct doca_dev **dev);

/* Open the representor of @p dev at @p pci. */
doca_error_t sample_open_rep(struct doca_dev *dev, const char *pci, struct doca_dev_rep **rep);

/* Progress @p pe until @p ctx is in @p state, or @p seconds passed
 * (DOCA_ERROR_TIME_OUT). */
doca_error_t sample_wait_state(struct doca_pe *pe, struct doca_ctx *ctx, enum doca_ctx_states state,
			       double seconds);

/* Seconds since some fixed point. */
double sample_now(void);

/* CRC-32 (IEEE) of @p len bytes, continuing @p crc (start with 0). */
uint32_t sample_crc32(uint32_t crc, const void *data, size_t len);

#endif /* SAMPLES_COMMON_H */
