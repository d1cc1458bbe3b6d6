/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Buffers: a window [head, head + len) of an mmap, with a data section
 * [data, data + data_len) inside it.
 *
 * As a source (a producer's send), a task reads the data section. As a
 * destination (a consumer's receive), a task writes after the data
 * section, into [data + data_len, head + len), and grows data_len by what
 * it wrote.
 */

#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;

/* Reference count: a buffer goes back to its inventory at 0. */
DOCA_STABLE
doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_STABLE
doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_STABLE
doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

DOCA_STABLE
doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);
DOCA_STABLE
doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);
DOCA_STABLE
doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);
DOCA_STABLE
doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);
/* The data section must lie inside [head, head + len). */
DOCA_STABLE
doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);
DOCA_STABLE
doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);
/* data_len = 0 (data stays where it is). */
DOCA_STABLE
doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
