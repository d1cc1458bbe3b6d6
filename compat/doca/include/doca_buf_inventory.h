/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* A pool of doca_buf descriptors. */

#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf_inventory;
struct doca_buf;
struct doca_mmap;

DOCA_STABLE
doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **buf_inventory);
/* DOCA_ERROR_IN_USE while buffers of it are held. */
DOCA_STABLE
doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);
DOCA_STABLE
doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);
DOCA_STABLE
doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);
DOCA_STABLE
doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
						 uint32_t *num_of_elements);
DOCA_STABLE
doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
						      uint32_t *num_of_free_elements);

/* A buffer over [addr, addr + len) of a started mmap, data section empty
 * at addr. DOCA_ERROR_NO_MEMORY: the inventory is empty;
 * DOCA_ERROR_INVALID_VALUE: the range is not inside the mmap. */
DOCA_STABLE
doca_error_t doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory,
						struct doca_mmap *mmap, void *addr, size_t len,
						struct doca_buf **buf);
/* The same, with the whole range as data section. */
DOCA_STABLE
doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
						struct doca_mmap *mmap, void *data, size_t data_len,
						struct doca_buf **buf);
/* A buffer over [addr, addr + len) with data section [data, data + data_len). */
DOCA_STABLE
doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
						struct doca_mmap *mmap, void *addr, size_t len,
						void *data, size_t data_len, struct doca_buf **buf);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
