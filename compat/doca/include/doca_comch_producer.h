/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast path, sending side: a producer on a running connection sends the
 * data section of a doca_buf, with optional immediate data, to a consumer
 * of the peer named by its id (from the consumer events).
 */

#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

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
struct doca_comch_connection;

struct doca_comch_producer;

/* DOCA_ERROR_BAD_STATE: the connection is not running. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
					struct doca_comch_producer **producer);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
						       uint32_t *max_num_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
						      uint32_t *max_buf_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
						       uint32_t *max_producers);
DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

/* ------------------------------------------------------------- send task */

struct doca_comch_producer_task_send;

/* Completion: the data is in the consumer's buffer (the source buffer may
 * be reused). Error: DOCA_ERROR_NOT_FOUND (no such consumer: destroyed),
 * DOCA_ERROR_TOO_BIG (larger than the posted buffer, or immediate data
 * longer than the consumer accepts), DOCA_ERROR_CONNECTION_RESET. */
typedef void (*doca_comch_producer_task_send_completion_cb_t)(struct doca_comch_producer_task_send *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
						    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
						    doca_comch_producer_task_send_completion_cb_t task_error_cb,
						    uint32_t num_send_tasks);
/* @p imm_data (up to 32 bytes) is copied into the task. Submitting returns
 * DOCA_ERROR_AGAIN while the consumer has no buffer posted: submit again
 * later (nothing is sent, nothing is lost). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
						      const struct doca_buf *buf, uint8_t *imm_data,
						      uint32_t imm_data_len, uint32_t consumer_id,
						      struct doca_comch_producer_task_send **task);
DOCA_EXPERIMENTAL
const struct doca_buf *doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL
void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf);
DOCA_EXPERIMENTAL
uint32_t doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL
void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
						   const uint32_t consumer_id);
DOCA_EXPERIMENTAL
uint8_t *doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL
uint32_t doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL
void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
						const uint8_t *imm_data, uint32_t imm_data_len);
/* The generic task of a typed one. Inline (the task starts with it): it
 * runs once per message. The library exports it too. */
#ifndef DOCA_COMPAT_BUILDING
static inline struct doca_task *
doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	return (struct doca_task *)(void *)task;
}
#else
DOCA_EXPERIMENTAL
struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
