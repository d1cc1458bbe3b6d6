/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Progress engine: the one place where connected contexts make progress
 * and where task completions and events reach the application's
 * callbacks, on the thread that calls doca_pe_progress().
 *
 * Sleeping: doca_pe_get_notification_handle() gives an fd to epoll.
 * doca_pe_request_notification() arms it; it becomes readable once a
 * connected context may have work; then doca_pe_clear_notification() and
 * doca_pe_progress(). (The vendor documents Comch contexts as not
 * supporting event-triggered completions; this layer supports them.)
 */

#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;

DOCA_STABLE
doca_error_t doca_pe_create(struct doca_pe **pe);
/* DOCA_ERROR_IN_USE while contexts connected to it are not idle. */
DOCA_STABLE
doca_error_t doca_pe_destroy(struct doca_pe *pe);
/* Connect an idle context (once; a context belongs to one engine). */
DOCA_STABLE
doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);
/* Make progress once: 1 if a callback ran or a context changed, else 0. */
DOCA_STABLE
uint8_t doca_pe_progress(struct doca_pe *pe);
DOCA_STABLE
doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

DOCA_STABLE
doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe,
					     doca_notification_handle_t *handle);
DOCA_STABLE
doca_error_t doca_pe_request_notification(struct doca_pe *pe);
DOCA_STABLE
doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
