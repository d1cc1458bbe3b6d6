/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Contexts and tasks.
 *
 * A context (a Comch server, client, consumer or producer) is configured
 * while idle, started, connected to a progress engine that makes it work,
 * and stopped. States:
 *
 *   idle --start--> starting --ready--> running --stop/fatal--> stopping --drained--> idle
 *   (a context that is ready at once goes idle -> running)
 *
 * Tasks are allocated from a context's pool (sized by its *_set_conf()),
 * submitted, and complete through the completion or error callback given
 * in that configuration, from doca_pe_progress(); the application then
 * frees or resubmits them.
 */

#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_task;
struct doca_devinfo;

enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,
	DOCA_CTX_STATE_STARTING = 1,
	DOCA_CTX_STATE_RUNNING = 2,
	DOCA_CTX_STATE_STOPPING = 3,
};

/* Called on every state change of a context (from doca_ctx_start/stop()
 * for the changes they make at once, from doca_pe_progress() for the
 * others). */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data,
						  struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state,
						  enum doca_ctx_states next_state);

/* DOCA_SUCCESS: running now; DOCA_ERROR_IN_PROGRESS: starting, running
 * later (state callback); DOCA_ERROR_BAD_STATE: not idle, or not connected
 * to a progress engine. */
DOCA_STABLE
doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/* DOCA_SUCCESS: idle now; DOCA_ERROR_IN_PROGRESS: stopping until its tasks
 * are flushed (their error callbacks run with DOCA_ERROR_IO_FAILED);
 * DOCA_ERROR_BAD_STATE: already idle; DOCA_ERROR_IN_USE: producers or
 * consumers still use the connection(s). */
DOCA_STABLE
doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

DOCA_STABLE
doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);
DOCA_STABLE
doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);
DOCA_STABLE
doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);
DOCA_STABLE
doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);
DOCA_STABLE
doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/* Submit: DOCA_SUCCESS, or the task stays the application's:
 * DOCA_ERROR_AGAIN (no room now: retry after progress), DOCA_ERROR_BAD_STATE
 * (context not running), DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE
doca_error_t doca_task_submit(struct doca_task *task);
/* Same as doca_task_submit() here (no batching to flush). */
DOCA_STABLE
doca_error_t doca_task_try_submit(struct doca_task *task);
/* Give an allocated, not submitted (or completed) task back to its pool. */
DOCA_STABLE
void doca_task_free(struct doca_task *task);
/* Status of a completed task: DOCA_SUCCESS or why it failed. */
DOCA_STABLE
doca_error_t doca_task_get_status(const struct doca_task *task);
DOCA_STABLE
void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);
DOCA_STABLE
union doca_data doca_task_get_user_data(const struct doca_task *task);
DOCA_STABLE
struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
