/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch control path on rte_comch_*: the client (the host's side):
 * its context ops (connecting, retrying while the server is not there)
 * and the doca_comch_client_* calls. See comch_ctrl.c for how every
 * object is polled and how sends wait.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "comch_priv.h"

#define DCC_RETRY_NS 10000000ULL    /* a client asks again every 10 ms */

static struct doca_comch_client *
dcc_client_of(struct doca_ctx *ctx)
{
	return container_of(ctx, struct doca_comch_client, c.ctx);
}

static bool
dcc_client_retryable(int err)
{
	return err == -ENOENT || err == -ECONNREFUSED || err == -EAGAIN;
}

static void
dcc_on_client_state(struct rte_comch_client *cli, enum rte_comch_state prev, enum rte_comch_state next, int err,
		    void *arg)
{
	struct doca_comch_client *c = arg;
	struct doca_comch_connection *conn;

	if (next == RTE_COMCH_STATE_RUNNING) {
		c->c.last_rc = NULL;
		free(c->conn);
		c->conn = NULL;
		conn = dcc_conn_new(rte_comch_client_conn(cli));
		if (conn == NULL) {
			DC_ERR("comch client %s: out of memory for the connection", c->c.name);
			c->last_err = -ENOMEM;
			return;   /* progress stops it */
		}
		conn->client = c;
		c->conn = conn;
		c->last_err = 0;
		dc_ctx_event(&c->c.ctx, DC_EV_READY);
	} else if (prev == RTE_COMCH_STATE_STARTING && next == RTE_COMCH_STATE_IDLE) {
		c->last_err = err;
		if (c->retry && dcc_client_retryable(err)) {
			DC_DBG("comch client %s: no server yet (%s); asking again", c->c.name, strerror(-err));
			c->retry_at = dc_now_ns() + DCC_RETRY_NS;
		}
	} else if (next == RTE_COMCH_STATE_STOPPING && c->conn != NULL) {
		DC_DBG("comch client %s: %s%s", c->c.name,
		       err == 0 ? "the server closed the connection" : "the connection was lost: ",
		       err == 0 ? "" : strerror(-err));
		c->conn->lost = true;
		dcc_conn_fail_pending(c->conn, DOCA_ERROR_CONNECTION_RESET);
		if (c->c.ctx.state == DOCA_CTX_STATE_RUNNING)
			dc_ctx_event(&c->c.ctx, DC_EV_FATAL);
	}
}

static doca_error_t
dcc_client_start(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = dcc_client_of(ctx);
	struct rte_comch_client_conf conf = {
		.server_name = c->c.name,
		.max_msg_size = c->c.max_msg_size,
		.recv_queue_len = c->c.recv_queue_size,
		.state_cb = dcc_on_client_state,
		.msg_cb = dcc_on_msg,
		.consumer_event_cb = dcc_on_consumer,
		.cb_arg = c,
	};
	doca_error_t ret;
	int err;

	ret = dcc_common_start(&c->c);
	if (ret != DOCA_SUCCESS)
		return ret;
	free(c->conn);
	c->conn = NULL;
	c->last_err = 0;
	c->retry_at = 0;
	c->rte = rte_comch_client_create(dc_dev_id(c->c.dev), &conf);
	if (c->rte == NULL) {
		DC_ERR("comch client %s: cannot create: %s", c->c.name, rte_strerror(rte_errno));
		return dc_errno(-rte_errno);
	}
	err = rte_comch_client_start(c->rte);
	if (err < 0) {
		DC_ERR("comch client %s: cannot start: %s", c->c.name, rte_strerror(-err));
		rte_comch_client_destroy(c->rte);
		c->rte = NULL;
		return dc_errno(err);
	}
	return DOCA_ERROR_IN_PROGRESS;
}

/* Back to idle: the rte_comch client goes; the connection's memory stays
 * until the next start or destroy (the application may hold it). */
static void
dcc_client_teardown(struct doca_comch_client *c)
{
	c->c.last_rc = NULL;
	if (c->rte != NULL) {
		if (rte_comch_client_state(c->rte, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(c->rte);
		rte_comch_client_destroy(c->rte);
		c->rte = NULL;
	}
	if (c->conn != NULL)
		c->conn->released = true;
}

static doca_error_t
dcc_client_stop(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = dcc_client_of(ctx);
	int ret;

	if (c->conn != NULL && c->conn->nb_fp != 0) {
		DC_ERR("comch client %s: stop: the connection still has %u producers/consumers; destroy them first",
		       c->c.name, c->conn->nb_fp);
		return DOCA_ERROR_IN_USE;
	}
	if (c->conn != NULL)
		dcc_conn_fail_pending(c->conn, DOCA_ERROR_IO_FAILED);
	if (c->rte != NULL && rte_comch_client_state(c->rte, NULL) != RTE_COMCH_STATE_IDLE) {
		ret = rte_comch_client_stop(c->rte);
		if (ret < 0) {
			DC_ERR("comch client %s: stop: %s", c->c.name, rte_strerror(-ret));
			return dc_errno(ret);
		}
	}
	dcc_client_teardown(c);
	return ctx->inflight != 0 && ctx->state == DOCA_CTX_STATE_RUNNING ? DOCA_ERROR_IN_PROGRESS :
									   DOCA_SUCCESS;
}

static int
dcc_client_progress(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = dcc_client_of(ctx);
	enum rte_comch_state st;
	int n, err;

	if (c->rte == NULL)
		return 0;
	n = rte_comch_client_poll(c->rte);
	st = rte_comch_client_state(c->rte, NULL);
	if (ctx->state == DOCA_CTX_STATE_STARTING && st == RTE_COMCH_STATE_IDLE) {
		if (c->retry_at != 0) {
			if (dc_now_ns() < c->retry_at)
				return n;
			c->retry_at = 0;
			err = rte_comch_client_start(c->rte);
			if (err == 0)
				return n + 1;
			c->last_err = err;
		}
		DC_ERR("comch client %s: cannot connect: %s", c->c.name, strerror(-c->last_err));
		dcc_client_teardown(c);
		dc_ctx_event(ctx, DC_EV_START_FAILED);
		return n + 1;
	}
	if (c->conn == NULL)
		return n;
	if (ctx->state == DOCA_CTX_STATE_RUNNING && c->last_err == -ENOMEM) {
		/* no memory for the connection: treat as lost */
		dc_ctx_event(ctx, DC_EV_FATAL);
	}
	if (!TAILQ_EMPTY(&c->conn->pending) && !c->conn->lost)
		n += dcc_conn_flush(c->conn);
	return n;
}

static bool
dcc_client_drained(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = dcc_client_of(ctx);

	/* Stopping after the server left: the connection goes once the
	 * application destroyed its producers and consumers. */
	if (c->conn != NULL && !c->conn->released) {
		if (c->conn->nb_fp != 0)
			return false;
		dcc_client_teardown(c);
	}
	if (ctx->inflight != 0)
		return false;
	dcc_client_teardown(c);
	return true;
}

static const struct dc_ctx_ops dcc_client_ops = {
	.name = "comch client",
	.start = dcc_client_start,
	.stop = dcc_client_stop,
	.progress = dcc_client_progress,
	.drained = dcc_client_drained,
};

DC_EXPORT doca_error_t
doca_comch_client_create(struct doca_dev *dev, const char *name, struct doca_comch_client **comch_client)
{
	struct rte_comch_caps caps;
	struct doca_comch_client *c;

	if (dev == NULL || name == NULL || comch_client == NULL || name[0] == '\0')
		return DOCA_ERROR_INVALID_VALUE;
	if (dev->info->dpu) {
		DC_ERR("comch client %s: device %s is the DPU device; clients run on a host device", name,
		       dev->info->pci);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	dc_devinfo_caps(dev->info, &caps);
	if (strlen(name) >= caps.max_name_len) {
		DC_ERR("comch client: server name \"%.40s...\" longer than %u characters", name,
		       caps.max_name_len - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	dc_ctx_init(&c->c.ctx, &dcc_client_ops);
	c->c.dev = dev;
	c->retry = true;
	snprintf(c->c.name, sizeof(c->c.name), "%s", name);
	*comch_client = c;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
	if (comch_client == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(&comch_client->c.ctx, DC_OP_DESTROY)) {
		DC_ERR("comch client %s: destroy: stop it first", comch_client->c.name);
		return DOCA_ERROR_BAD_STATE;
	}
	free(comch_client->conn);
	dcc_common_free(&comch_client->c);
	free(comch_client);
	return DOCA_SUCCESS;
}

void
dcc_client_set_retry(struct doca_comch_client *client, bool retry)
{
	client->retry = retry;
}

int
dcc_client_last_error(const struct doca_comch_client *client)
{
	return client->last_err;
}

DC_EXPORT doca_error_t
doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size)
{
	return dcc_set_msg_size(comch_client != NULL ? &comch_client->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	return dcc_get_msg_size(comch_client != NULL ? &comch_client->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size)
{
	return dcc_set_queue_size(comch_client != NULL ? &comch_client->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	return dcc_get_queue_size(comch_client != NULL ? &comch_client->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_client_get_device(const struct doca_comch_client *comch_client, struct doca_dev **dev)
{
	if (comch_client == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev = comch_client->c.dev;
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_ctx *
doca_comch_client_as_ctx(struct doca_comch_client *comch_client)
{
	return comch_client != NULL ? &comch_client->c.ctx : NULL;
}

DC_EXPORT doca_error_t
doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
				 struct doca_comch_connection **connection)
{
	if (comch_client == NULL || connection == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (comch_client->c.ctx.state != DOCA_CTX_STATE_RUNNING || comch_client->conn == NULL)
		return DOCA_ERROR_BAD_STATE;
	*connection = comch_client->conn;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
				     doca_comch_task_send_completion_cb_t task_completion_cb,
				     doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
	return dcc_send_set_conf(comch_client != NULL ? &comch_client->c : NULL, task_completion_cb,
				 task_error_cb, num_send_tasks);
}

DC_EXPORT doca_error_t
doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client, struct doca_comch_connection *peer,
				       const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	if (comch_client == NULL || (peer != NULL && peer->client != comch_client))
		return DOCA_ERROR_INVALID_VALUE;
	return dcc_send_alloc(&comch_client->c, peer, msg, len, task);
}

DC_EXPORT doca_error_t
doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
					  doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	doca_error_t ret = dcc_configurable(comch_client != NULL ? &comch_client->c : NULL);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (recv_event_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	comch_client->c.recv_cb = recv_event_cb;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
					  doca_comch_event_consumer_cb_t new_consumer_event_cb,
					  doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	return dcc_consumer_register(comch_client != NULL ? &comch_client->c : NULL, new_consumer_event_cb,
				     expired_consumer_event_cb);
}

/* Used by comch_fp.c: is the connection's owner running? */
DC_EXPORT bool dcc_conn_running(const struct doca_comch_connection *conn);
DC_EXPORT bool
dcc_conn_running(const struct doca_comch_connection *conn)
{
	return !conn->released && !conn->lost && dcc_conn_owner(conn)->ctx.state == DOCA_CTX_STATE_RUNNING;
}
