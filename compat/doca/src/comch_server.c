/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch control path on rte_comch_*: the server (the DPU's side):
 * its context ops, its connections' release once no send task names
 * them, and the doca_comch_server_* calls. See comch_ctrl.c for how
 * every object is polled and how sends wait.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "comch_priv.h"

/* The event object the connection callback receives: nothing in it,
 * but not NULL. */
struct doca_comch_event_connection_status_changed {
	uint8_t unused;
};
static struct doca_comch_event_connection_status_changed dcc_conn_event;

static struct doca_comch_server *
dcc_server_of(struct doca_ctx *ctx)
{
	return container_of(ctx, struct doca_comch_server, c.ctx);
}

/* The server released @p conn (or is releasing all): it stays allocated,
 * marked, until dcc_server_reap() finds no send task on it (the
 * application was told: disconnection callback, or its own disconnect). */
static void
dcc_server_released(struct doca_comch_server *s, struct doca_comch_connection *conn)
{
	s->c.last_rc = NULL;
	conn->released = true;
	TAILQ_REMOVE(&s->conns, conn, next);
	TAILQ_INSERT_TAIL(&s->released, conn, next);
}

/* Does a task of the server's send pool still name @p conn? */
static bool
dcc_conn_has_tasks(const struct doca_comch_server *s, const struct doca_comch_connection *conn)
{
	const struct dc_task_pool *pool = s->c.send_pool;
	uint32_t i;

	if (pool == NULL || pool->nb_free == pool->conf.num)
		return false;
	for (i = 0; i < pool->conf.num; i++) {
		const struct doca_comch_task_send *t =
			(const struct doca_comch_task_send *)(const void *)(pool->mem + (size_t)i * pool->type->size);

		if (t->base.state != DC_TASK_FREE && t->conn == conn)
			return true;
	}
	return false;
}

/* Free released connections nothing refers to any more; outside the
 * poll (lib/comch may still name them inside it). */
static void
dcc_server_reap(struct doca_comch_server *s)
{
	struct doca_comch_connection *conn, *tmp;

	DC_TAILQ_FOREACH_SAFE(conn, &s->released, next, tmp) {
		if (dcc_conn_has_tasks(s, conn))
			continue;
		TAILQ_REMOVE(&s->released, conn, next);
		free(conn);
	}
}

/* Retry the waiting sends of a server's connections, or of a client's
 * connection, without polling for anything new (comm_channel.c, while
 * its received backlog is full). */
void
dcc_flush_sends(struct doca_comch_server *server, struct doca_comch_client *client)
{
	struct doca_comch_connection *conn;

	if (server != NULL) {
		TAILQ_FOREACH(conn, &server->conns, next)
			if (!TAILQ_EMPTY(&conn->pending) && !conn->lost)
				dcc_conn_flush(conn);
	}
	if (client != NULL && client->conn != NULL && !client->conn->released &&
	    !TAILQ_EMPTY(&client->conn->pending) && !client->conn->lost)
		dcc_conn_flush(client->conn);
}

DC_EXPORT void
dcc_conn_try_release(struct doca_comch_connection *conn)
{
	struct doca_comch_server *s = conn->server;

	if (!conn->lost || conn->released || conn->nb_fp != 0)
		return;
	if (s != NULL) {
		/* Inside the poll this is deferred by lib/comch until it
		 * returns. Should it refuse (an object of lib/comch still on
		 * it), the connection is left there, cut off from this one,
		 * which is freed soon: nothing may lead back to it. */
		if (rte_comch_server_disconnect(s->rte, conn->rte) != 0) {
			DC_ERR("comch server %s: cannot release a lost connection; it is left as it is",
			       s->c.name);
			rte_comch_conn_user_data_set(conn->rte, 0);
		}
		dcc_server_released(s, conn);
	}
	/* A client's connection goes with the client's stop (progress). */
}

static void
dcc_on_connect(struct rte_comch_server *srv, struct rte_comch_conn *rc, void *arg)
{
	struct doca_comch_server *s = arg;
	struct doca_comch_connection *conn = dcc_conn_new(rc);

	if (conn == NULL) {
		DC_ERR("comch server %s: out of memory for a new connection; refusing it", s->c.name);
		rte_comch_server_disconnect(srv, rc);
		return;
	}
	conn->server = s;
	TAILQ_INSERT_TAIL(&s->conns, conn, next);
	if (s->connect_cb != NULL)
		s->connect_cb(&dcc_conn_event, conn, 1);
}

static void
dcc_on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *rc, int err, void *arg)
{
	struct doca_comch_server *s = arg;
	struct doca_comch_connection *conn = dcc_conn_of(rc);

	if (conn == NULL) {
		rte_comch_server_disconnect(srv, rc);
		return;
	}
	/* Closed by the client (err 0) or lost: the vendor API tells both
	 * the same way, through the disconnection event. */
	DC_DBG("comch server %s: connection %u %s%s", s->c.name, rte_comch_conn_id(rc),
	       err == 0 ? "closed by the client" : "lost: ", err == 0 ? "" : strerror(-err));
	conn->lost = true;
	dcc_conn_fail_pending(conn, DOCA_ERROR_CONNECTION_RESET);
	if (s->disconnect_cb != NULL)
		s->disconnect_cb(&dcc_conn_event, conn, 1);
	dcc_conn_try_release(conn);
}

static doca_error_t
dcc_server_start(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = dcc_server_of(ctx);
	struct rte_comch_server_conf conf = {
		.name = s->c.name,
		.max_msg_size = s->c.max_msg_size,
		.recv_queue_len = s->c.recv_queue_size,
		.connect_cb = dcc_on_connect,
		.disconnect_cb = dcc_on_disconnect,
		.msg_cb = dcc_on_msg,
		.consumer_event_cb = dcc_on_consumer,
		.cb_arg = s,
	};
	struct doca_comch_connection *conn;
	doca_error_t ret;
	int err;

	while ((conn = TAILQ_FIRST(&s->released)) != NULL) {
		TAILQ_REMOVE(&s->released, conn, next);
		free(conn);
	}
	/* The device numbers its functions as it likes: ask it by name. */
	err = rte_comch_function_get_by_name(dc_dev_id(s->c.dev), s->rep->info->function, &conf.function_id);
	if (err < 0) {
		DC_ERR("comch server %s: the DPU device %s does not serve function %s (representor %s): %s",
		       s->c.name, s->c.dev->info->pci, s->rep->info->function, s->rep->info->pci, strerror(-err));
		return DOCA_ERROR_NOT_FOUND;
	}
	ret = dcc_common_start(&s->c);
	if (ret != DOCA_SUCCESS)
		return ret;
	s->rte = rte_comch_server_create(dc_dev_id(s->c.dev), &conf);
	if (s->rte == NULL) {
		DC_ERR("comch server %s: cannot create: %s", s->c.name, rte_strerror(rte_errno));
		return dc_errno(-rte_errno);
	}
	err = rte_comch_server_start(s->rte);
	if (err < 0) {
		DC_ERR("comch server %s: cannot start: %s", s->c.name, rte_strerror(-err));
		rte_comch_server_destroy(s->rte);
		s->rte = NULL;
		return dc_errno(err);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_server_stop(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = dcc_server_of(ctx);
	struct doca_comch_connection *conn;
	int ret;

	TAILQ_FOREACH(conn, &s->conns, next) {
		if (conn->nb_fp != 0) {
			DC_ERR("comch server %s: stop: a connection still has %u producers/consumers; destroy them first",
			       s->c.name, conn->nb_fp);
			return DOCA_ERROR_IN_USE;
		}
	}
	while ((conn = TAILQ_FIRST(&s->conns)) != NULL) {
		dcc_conn_fail_pending(conn, DOCA_ERROR_IO_FAILED);
		dcc_server_released(s, conn);
	}
	ret = rte_comch_server_stop(s->rte);
	if (ret == 0)
		ret = rte_comch_server_destroy(s->rte);
	if (ret < 0)
		DC_WARN("comch server %s: stop: %s", s->c.name, rte_strerror(-ret));
	s->rte = NULL;
	return ctx->inflight != 0 ? DOCA_ERROR_IN_PROGRESS : DOCA_SUCCESS;
}

static int
dcc_server_progress(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = dcc_server_of(ctx);
	struct doca_comch_connection *conn, *tmp;
	int n = 0;

	if (s->rte == NULL)
		return 0;
	n = rte_comch_server_poll(s->rte);
	DC_TAILQ_FOREACH_SAFE(conn, &s->conns, next, tmp) {
		if (!TAILQ_EMPTY(&conn->pending) && !conn->lost)
			n += dcc_conn_flush(conn);
	}
	if (!TAILQ_EMPTY(&s->released))
		dcc_server_reap(s);
	return n;
}

static bool
dcc_server_drained(struct doca_ctx *ctx)
{
	return ctx->inflight == 0;
}

static const struct dc_ctx_ops dcc_server_ops = {
	.name = "comch server",
	.start = dcc_server_start,
	.stop = dcc_server_stop,
	.progress = dcc_server_progress,
	.drained = dcc_server_drained,
};

DC_EXPORT doca_error_t
doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
			 struct doca_comch_server **comch_server)
{
	struct rte_comch_caps caps;
	struct doca_comch_server *s;

	if (dev == NULL || repr == NULL || name == NULL || comch_server == NULL || name[0] == '\0')
		return DOCA_ERROR_INVALID_VALUE;
	if (!dev->info->dpu) {
		DC_ERR("comch server %s: device %s is a host device; servers run on the DPU device (%s)", name,
		       dev->info->pci, dc_devinfo_dpu_pci(dev->info));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (repr->info->dpu != dev->info) {
		DC_ERR("comch server %s: representor %s is not one of device %s", name, repr->info->pci,
		       dev->info->pci);
		return DOCA_ERROR_INVALID_VALUE;
	}
	dc_devinfo_caps(dev->info, &caps);
	if (strlen(name) >= caps.max_name_len) {
		DC_ERR("comch server: name \"%.40s...\" longer than %u characters", name, caps.max_name_len - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return DOCA_ERROR_NO_MEMORY;
	dc_ctx_init(&s->c.ctx, &dcc_server_ops);
	s->c.dev = dev;
	s->rep = repr;
	snprintf(s->c.name, sizeof(s->c.name), "%s", name);
	TAILQ_INIT(&s->conns);
	TAILQ_INIT(&s->released);
	*comch_server = s;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
	struct doca_comch_connection *conn;

	if (comch_server == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(&comch_server->c.ctx, DC_OP_DESTROY)) {
		DC_ERR("comch server %s: destroy: stop it first", comch_server->c.name);
		return DOCA_ERROR_BAD_STATE;
	}
	while ((conn = TAILQ_FIRST(&comch_server->released)) != NULL) {
		TAILQ_REMOVE(&comch_server->released, conn, next);
		free(conn);
	}
	dcc_common_free(&comch_server->c);
	free(comch_server);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size)
{
	return dcc_set_msg_size(comch_server != NULL ? &comch_server->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	return dcc_get_msg_size(comch_server != NULL ? &comch_server->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size)
{
	return dcc_set_queue_size(comch_server != NULL ? &comch_server->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	return dcc_get_queue_size(comch_server != NULL ? &comch_server->c : NULL, size);
}

DC_EXPORT doca_error_t
doca_comch_server_get_device(const struct doca_comch_server *comch_server, struct doca_dev **dev)
{
	if (comch_server == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev = comch_server->c.dev;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server, struct doca_dev_rep **repr)
{
	if (comch_server == NULL || repr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*repr = comch_server->rep;
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_ctx *
doca_comch_server_as_ctx(struct doca_comch_server *comch_server)
{
	return comch_server != NULL ? &comch_server->c.ctx : NULL;
}

DC_EXPORT doca_error_t
doca_comch_server_disconnect(struct doca_comch_server *comch_server, struct doca_comch_connection *connection)
{
	int ret;

	if (comch_server == NULL || connection == NULL || connection->server != comch_server)
		return DOCA_ERROR_INVALID_VALUE;
	if (connection->released)
		return DOCA_ERROR_NOT_CONNECTED;
	if (connection->nb_fp != 0) {
		DC_ERR("comch server %s: disconnect: the connection has %u producers/consumers; destroy them first",
		       comch_server->c.name, connection->nb_fp);
		return DOCA_ERROR_IN_USE;
	}
	dcc_conn_fail_pending(connection, DOCA_ERROR_IO_FAILED);
	ret = rte_comch_server_disconnect(comch_server->rte, connection->rte);
	if (ret < 0)
		return dc_errno(ret);
	dcc_server_released(comch_server, connection);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
				     doca_comch_task_send_completion_cb_t task_completion_cb,
				     doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
	return dcc_send_set_conf(comch_server != NULL ? &comch_server->c : NULL, task_completion_cb,
				 task_error_cb, num_send_tasks);
}

DC_EXPORT doca_error_t
doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server, struct doca_comch_connection *peer,
				       const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	if (comch_server == NULL || (peer != NULL && peer->server != comch_server))
		return DOCA_ERROR_INVALID_VALUE;
	return dcc_send_alloc(&comch_server->c, peer, msg, len, task);
}

DC_EXPORT doca_error_t
doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
					  doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	doca_error_t ret = dcc_configurable(comch_server != NULL ? &comch_server->c : NULL);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (recv_event_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	comch_server->c.recv_cb = recv_event_cb;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	doca_error_t ret = dcc_configurable(comch_server != NULL ? &comch_server->c : NULL);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (connect_event_cb == NULL || disconnect_event_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	comch_server->connect_cb = connect_event_cb;
	comch_server->disconnect_cb = disconnect_event_cb;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_event_connection_register(struct doca_comch_server *comch_server,
					    doca_comch_event_connection_status_changed_cb_t connect_event_cb,
					    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	return doca_comch_server_event_connection_status_changed_register(comch_server, connect_event_cb,
									  disconnect_event_cb);
}

doca_error_t
dcc_consumer_register(struct dcc_common *c, doca_comch_event_consumer_cb_t new_cb,
		      doca_comch_event_consumer_cb_t expired_cb)
{
	doca_error_t ret = dcc_configurable(c);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (new_cb == NULL || expired_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	c->new_consumer_cb = new_cb;
	c->expired_consumer_cb = expired_cb;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
					  doca_comch_event_consumer_cb_t new_consumer_event_cb,
					  doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	return dcc_consumer_register(comch_server != NULL ? &comch_server->c : NULL, new_consumer_event_cb,
				     expired_consumer_event_cb);
}
