/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Progress engine, context state machine, task pools.
 *
 * Threading: an engine and its contexts belong to the thread that calls
 * doca_pe_progress(). Completions are queued on the engine (from a
 * submit, or from a context's progress) and their callbacks run from the
 * next doca_pe_progress(): a send completes after the call that submitted
 * it returned, as on the hardware.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dc_priv.h"
#include "dc_wait.h"

/* ------------------------------------------------------- state machine */

/* The vendor's context states and what moves between them. */
static const struct {
	enum doca_ctx_states from;
	enum dc_ctx_event ev;
	enum doca_ctx_states to;
} dc_ctx_transitions[] = {
	{ DOCA_CTX_STATE_IDLE, DC_EV_START_DONE, DOCA_CTX_STATE_RUNNING },
	{ DOCA_CTX_STATE_IDLE, DC_EV_START_PENDING, DOCA_CTX_STATE_STARTING },
	{ DOCA_CTX_STATE_STARTING, DC_EV_READY, DOCA_CTX_STATE_RUNNING },
	{ DOCA_CTX_STATE_STARTING, DC_EV_START_FAILED, DOCA_CTX_STATE_IDLE },
	{ DOCA_CTX_STATE_STARTING, DC_EV_STOP_DONE, DOCA_CTX_STATE_IDLE },
	{ DOCA_CTX_STATE_RUNNING, DC_EV_STOP_DONE, DOCA_CTX_STATE_IDLE },
	{ DOCA_CTX_STATE_RUNNING, DC_EV_STOP_PENDING, DOCA_CTX_STATE_STOPPING },
	{ DOCA_CTX_STATE_RUNNING, DC_EV_FATAL, DOCA_CTX_STATE_STOPPING },
	{ DOCA_CTX_STATE_STOPPING, DC_EV_DRAINED, DOCA_CTX_STATE_IDLE },
	{ DOCA_CTX_STATE_STOPPING, DC_EV_STOP_DONE, DOCA_CTX_STATE_IDLE },
};

static const char *
dc_state_name(enum doca_ctx_states s)
{
	static const char *const names[] = { "idle", "starting", "running", "stopping" };

	return (unsigned int)s < RTE_DIM(names) ? names[s] : "?";
}

DC_EXPORT int
dc_ctx_next_state(enum doca_ctx_states from, enum dc_ctx_event ev)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(dc_ctx_transitions); i++)
		if (dc_ctx_transitions[i].from == from && dc_ctx_transitions[i].ev == ev)
			return (int)dc_ctx_transitions[i].to;
	return -1;
}

DC_EXPORT uint32_t
dc_ctx_allowed_ops(enum doca_ctx_states state)
{
	return (unsigned int)state < RTE_DIM(dc_ctx_allowed) ? dc_ctx_allowed[state] : 0;
}

DC_EXPORT bool
dc_ctx_event(struct doca_ctx *ctx, enum dc_ctx_event ev)
{
	enum doca_ctx_states prev = ctx->state;
	int next = dc_ctx_next_state(prev, ev);

	if (next < 0) {
		DC_ERR("%s: event %d in state %s: not a transition of the state machine (bug)",
		       ctx->ops->name, (int)ev, dc_state_name(prev));
		return false;
	}
	if (ctx->pe != NULL)
		ctx->pe->nb_stopping += (next == DOCA_CTX_STATE_STOPPING) - (prev == DOCA_CTX_STATE_STOPPING);
	ctx->state = (enum doca_ctx_states)next;
	if (ctx->state_cb != NULL)
		ctx->state_cb(ctx->user_data, ctx, prev, ctx->state);
	return true;
}

DC_EXPORT void
dc_ctx_init(struct doca_ctx *ctx, const struct dc_ctx_ops *ops)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = ops;
	ctx->state = DOCA_CTX_STATE_IDLE;
}

DC_EXPORT void
dc_ctx_fini(struct doca_ctx *ctx)
{
	if (ctx->pe != NULL)
		TAILQ_REMOVE(&ctx->pe->ctxs, ctx, pe_next);
	ctx->pe = NULL;
}

DC_EXPORT doca_error_t
doca_ctx_start(struct doca_ctx *ctx)
{
	doca_error_t ret;

	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(ctx, DC_OP_START)) {
		DC_ERR("%s: start: the context is %s, not idle", ctx->ops->name, dc_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe == NULL) {
		DC_ERR("%s: start: connect the context to a progress engine first (doca_pe_connect_ctx)",
		       ctx->ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	ret = ctx->ops->start(ctx);
	if (ret == DOCA_SUCCESS)
		dc_ctx_event(ctx, DC_EV_START_DONE);
	else if (ret == DOCA_ERROR_IN_PROGRESS)
		dc_ctx_event(ctx, DC_EV_START_PENDING);
	return ret;
}

DC_EXPORT doca_error_t
doca_ctx_stop(struct doca_ctx *ctx)
{
	doca_error_t ret;

	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(ctx, DC_OP_STOP)) {
		DC_ERR("%s: stop: the context is already idle", ctx->ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->state == DOCA_CTX_STATE_STOPPING)
		return DOCA_ERROR_IN_PROGRESS;
	ret = ctx->ops->stop(ctx);
	if (ret == DOCA_SUCCESS)
		dc_ctx_event(ctx, DC_EV_STOP_DONE);
	else if (ret == DOCA_ERROR_IN_PROGRESS && ctx->state == DOCA_CTX_STATE_RUNNING)
		dc_ctx_event(ctx, DC_EV_STOP_PENDING);
	return ret;
}

DC_EXPORT doca_error_t
doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
	if (ctx == NULL || state == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*state = ctx->state;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(ctx, DC_OP_CONFIGURE))
		return DOCA_ERROR_BAD_STATE;
	ctx->state_cb = cb;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(ctx, DC_OP_CONFIGURE))
		return DOCA_ERROR_BAD_STATE;
	ctx->user_data = user_data;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data)
{
	if (ctx == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = ctx->user_data;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks)
{
	if (ctx == NULL || num_inflight_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_inflight_tasks = ctx->inflight;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ tasks */

DC_EXPORT struct dc_task_pool *
dc_task_pool_create(struct doca_ctx *ctx, const struct dc_task_type *type, const struct dc_task_conf *conf)
{
	struct dc_task_pool *pool;
	uint32_t i;

	pool = calloc(1, sizeof(*pool));
	if (pool == NULL)
		return NULL;
	pool->mem = calloc(conf->num, type->size);
	if (pool->mem == NULL && conf->num != 0) {
		free(pool);
		return NULL;
	}
	pool->type = type;
	pool->ctx = ctx;
	pool->conf = *conf;
	for (i = conf->num; i-- > 0;) {
		struct doca_task *t = (struct doca_task *)(void *)(pool->mem + (size_t)i * type->size);

		t->pool = pool;
		t->next = pool->free;
		pool->free = t;
	}
	pool->nb_free = conf->num;
	return pool;
}

DC_EXPORT void
dc_task_pool_free(struct dc_task_pool *pool)
{
	if (pool == NULL)
		return;
	free(pool->mem);
	free(pool);
}

DC_EXPORT doca_error_t
doca_task_submit(struct doca_task *task)
{
	struct doca_ctx *ctx;
	doca_error_t ret;

	if (task == NULL || task->state != DC_TASK_ALLOCATED)
		return DOCA_ERROR_INVALID_VALUE;
	ctx = task->pool->ctx;
	if (!dc_ctx_allows(ctx, DC_OP_SUBMIT))
		return DOCA_ERROR_BAD_STATE;
	task->state = DC_TASK_SUBMITTED;
	ctx->inflight++;
	ret = task->pool->type->submit(task);
	if (ret != DOCA_SUCCESS) {
		task->state = DC_TASK_ALLOCATED;
		ctx->inflight--;
	}
	return ret;
}

DC_EXPORT doca_error_t
doca_task_try_submit(struct doca_task *task)
{
	return doca_task_submit(task);
}

DC_EXPORT void
doca_task_free(struct doca_task *task)
{
	struct dc_task_pool *pool;

	if (task == NULL || task->state != DC_TASK_ALLOCATED)
		return;   /* free or in flight: the layer's, not the caller's */
	pool = task->pool;
	task->state = DC_TASK_FREE;
	task->next = pool->free;
	pool->free = task;
	pool->nb_free++;
}

DC_EXPORT doca_error_t
doca_task_get_status(const struct doca_task *task)
{
	return task != NULL ? task->status : DOCA_ERROR_INVALID_VALUE;
}

DC_EXPORT void
doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
	if (task != NULL)
		task->user_data = user_data;
}

DC_EXPORT union doca_data
doca_task_get_user_data(const struct doca_task *task)
{
	union doca_data none = { .u64 = 0 };

	return task != NULL ? task->user_data : none;
}

DC_EXPORT struct doca_ctx *
doca_task_get_ctx(const struct doca_task *task)
{
	return task != NULL ? task->pool->ctx : NULL;
}

/* ----------------------------------------------------------------- engine */

DC_EXPORT doca_error_t
doca_pe_create(struct doca_pe **pe)
{
	struct doca_pe *p;
	doca_error_t ret;

	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* A program may create its engine before listing devices. */
	ret = dc_env_init();
	if (ret != DOCA_SUCCESS)
		return ret;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	TAILQ_INIT(&p->ctxs);
	*pe = p;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_pe_destroy(struct doca_pe *pe)
{
	struct doca_ctx *ctx;

	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	TAILQ_FOREACH(ctx, &pe->ctxs, pe_next) {
		if (ctx->state != DOCA_CTX_STATE_IDLE) {
			DC_ERR("progress engine: destroy: a %s is not idle; stop it first", ctx->ops->name);
			return DOCA_ERROR_IN_USE;
		}
	}
	while ((ctx = TAILQ_FIRST(&pe->ctxs)) != NULL) {
		TAILQ_REMOVE(&pe->ctxs, ctx, pe_next);
		ctx->pe = NULL;
	}
	if (pe->wait != NULL)
		dc_wait_destroy(pe->wait);
	free(pe);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	if (pe == NULL || ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->pe != NULL || !dc_ctx_allows(ctx, DC_OP_CONFIGURE)) {
		DC_ERR("%s: connect: the context is already connected or not idle", ctx->ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	ctx->pe = pe;
	TAILQ_INSERT_TAIL(&pe->ctxs, ctx, pe_next);
	return DOCA_SUCCESS;
}

/* Run the callbacks of the completions queued before this call; those
 * queued by the callbacks themselves wait for the next progress. */
static int
dc_pe_drain(struct doca_pe *pe)
{
	uint32_t n = pe->cq_len, done = 0;
	struct doca_task *t;

	while (done < n && (t = pe->cq_head) != NULL) {
		struct dc_task_pool *pool = t->pool;
		struct doca_ctx *ctx = pool->ctx;
		dc_fn_t fn = t->status == DOCA_SUCCESS ? pool->conf.ok_cb : pool->conf.err_cb;

		pe->cq_head = t->next;
		if (pe->cq_head == NULL)
			pe->cq_tail = NULL;
		pe->cq_len--;
		t->next = NULL;
		t->state = DC_TASK_ALLOCATED;   /* the application's again */
		ctx->inflight--;
		if (fn != NULL)
			pool->type->invoke(t, fn, t->user_data, ctx->user_data);
		done++;
	}
	return (int)done;
}

DC_EXPORT int
dc_pe_complete(struct doca_pe *pe)
{
	int n;

	if (pe == NULL || pe->in_progress || pe->cq_head == NULL)
		return 0;
	pe->in_progress = true;
	n = dc_pe_drain(pe);
	pe->in_progress = false;
	return n;
}

DC_EXPORT uint8_t
doca_pe_progress(struct doca_pe *pe)
{
	struct doca_ctx *ctx, *tmp;
	int n = 0;

	if (pe == NULL)
		return 0;
	if (pe->in_progress)
		return 0;   /* called from one of its own callbacks */
	pe->in_progress = true;
	DC_TAILQ_FOREACH_SAFE(ctx, &pe->ctxs, pe_next, tmp) {
		if (ctx->state != DOCA_CTX_STATE_IDLE)
			n += ctx->ops->progress(ctx);
	}
	if (pe->cq_head != NULL)
		n += dc_pe_drain(pe);
	if (pe->nb_stopping != 0) {
		DC_TAILQ_FOREACH_SAFE(ctx, &pe->ctxs, pe_next, tmp) {
			if (ctx->state == DOCA_CTX_STATE_STOPPING && ctx->ops->drained(ctx)) {
				dc_ctx_event(ctx, DC_EV_DRAINED);
				n++;
			}
		}
	}
	pe->in_progress = false;
	return n > 0;
}

DC_EXPORT doca_error_t
doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
	const struct doca_ctx *ctx;
	size_t n = 0;

	if (pe == NULL || num_inflight_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	TAILQ_FOREACH(ctx, &pe->ctxs, pe_next)
		n += ctx->inflight;
	*num_inflight_tasks = n;
	return DOCA_SUCCESS;
}

/* The notification handle: a wait source without a probe (its callbacks
 * are the application's, to run on its thread), so bounded polling until
 * lib/comch has event mode; see dc_wait.h. */
static doca_error_t
dc_pe_wait(struct doca_pe *pe)
{
	if (pe->wait == NULL) {
		pe->wait = dc_wait_create("progress engine", NULL, pe, NULL);
		if (pe->wait == NULL)
			return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle)
{
	struct doca_pe *p = (struct doca_pe *)(uintptr_t)pe;
	doca_error_t ret;

	if (pe == NULL || handle == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ret = dc_pe_wait(p);
	if (ret != DOCA_SUCCESS)
		return ret;
	*handle = dc_wait_fd(p->wait);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_pe_request_notification(struct doca_pe *pe)
{
	doca_error_t ret;

	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ret = dc_pe_wait(pe);
	if (ret != DOCA_SUCCESS)
		return ret;
	dc_wait_arm(pe->wait);
	if (dc_pe_has_completions(pe))
		dc_wait_kick(pe->wait);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
	if (pe == NULL || pe->wait == NULL || handle != dc_wait_fd(pe->wait))
		return DOCA_ERROR_INVALID_VALUE;
	dc_wait_clear(pe->wait);
	return DOCA_SUCCESS;
}
