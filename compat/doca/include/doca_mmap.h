/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Memory maps: a range of the application's memory, registered for the
 * devices added to it. Comch consumers receive into buffers of an mmap;
 * producers send from buffers of an mmap.
 */

#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_dev;

DOCA_STABLE
doca_error_t doca_mmap_create(struct doca_mmap **mmap);
/* DOCA_ERROR_IN_USE while buffers of it are held. */
DOCA_STABLE
doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
/* Configuration (before start). */
DOCA_STABLE
doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
DOCA_STABLE
doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);
DOCA_STABLE
doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);
DOCA_STABLE
doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);
DOCA_STABLE
doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_STABLE
doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);
/* Start: the range and at least one device must be set. */
DOCA_STABLE
doca_error_t doca_mmap_start(struct doca_mmap *mmap);
DOCA_STABLE
doca_error_t doca_mmap_stop(struct doca_mmap *mmap);
DOCA_STABLE
doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);
DOCA_STABLE
doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);
DOCA_STABLE
doca_error_t doca_mmap_get_permissions(const struct doca_mmap *mmap, uint32_t *access_mask);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
