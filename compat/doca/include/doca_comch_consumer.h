/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast path, receiving side: a consumer on a running connection posts
 * receive tasks, each with a doca_buf of its mmap; a producer of the peer
 * sends to the consumer's id and fills the next posted buffer, in order.
 *
 * Where the data lands: after the buffer's data section (see doca_buf.h);
 * data_len grows by the bytes received. The immediate data and the
 * sending producer's id are in the completed task.
 */

#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_task;
struct doca_devinfo;
struct doca_mmap;
struct doca_comch_connection;

struct doca_comch_consumer;

/* A consumer on @p comch_connection receiving into @p buf_mmap (started,
 * with the connection's device added). DOCA_ERROR_BAD_STATE: the
 * connection is not running. Its id is known at once, never 0. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
					struct doca_mmap *buf_mmap, struct doca_comch_consumer **consumer);
/* An idle consumer only. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
						       uint32_t *max_num_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
						      uint32_t *max_buf_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
						       uint32_t *max_consumers);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len);
/* Immediate data this consumer accepts (default: the maximum, 32). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
						  uint32_t *imm_data_len);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len);
DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/* ------------------------------------------------------- post-recv task */

struct doca_comch_consumer_task_post_recv;

/* Completion: the buffer was filled. Error: DOCA_ERROR_IO_FAILED (flushed
 * by a stop), DOCA_ERROR_CONNECTION_RESET (the connection was lost). */
typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(
	struct doca_comch_consumer_task_post_recv *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer,
	doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks);
/* @p buf must lie in the consumer's mmap, with room after its data. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
							   struct doca_buf *buf,
							   struct doca_comch_consumer_task_post_recv **task);
DOCA_EXPERIMENTAL
struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task);
DOCA_EXPERIMENTAL
void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
						struct doca_buf *buf);
/* Who wrote the buffer; 0 before completion. */
DOCA_EXPERIMENTAL
uint32_t doca_comch_consumer_task_post_recv_get_producer_id(const struct doca_comch_consumer_task_post_recv *task);
/* The immediate data received (valid until the task is freed or resubmitted). */
DOCA_EXPERIMENTAL
const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(const struct doca_comch_consumer_task_post_recv *task);
DOCA_EXPERIMENTAL
uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(const struct doca_comch_consumer_task_post_recv *task);
/* The generic task of a typed one. Inline (the task starts with it): it
 * runs once per message. The library exports it too. */
#ifndef DOCA_COMPAT_BUILDING
static inline struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	return (struct doca_task *)(void *)task;
}
#else
DOCA_EXPERIMENTAL
struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
