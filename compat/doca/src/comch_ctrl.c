/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch control path on rte_comch_*: servers, clients, connections,
 * send tasks, message / connection / consumer events.
 *
 * Every rte_comch_* object is polled from the context's progress, on the
 * engine's thread; rte_comch callbacks (connect, disconnect, message,
 * consumer events) run inside that poll and call the application's
 * callbacks directly: no copy, no queue. A send is tried at submit; when
 * the peer's queue is full (-EAGAIN) the task waits on its connection, in
 * order, with a copy of the message, and is retried at each progress: the
 * application sees back pressure as tasks that complete later and, once
 * all are in flight, DOCA_ERROR_NO_MEMORY from alloc_init, as on the
 * hardware.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "comch_priv.h"

/* The event objects the callbacks receive: this layer has nothing to put
 * in them, but promises non-NULL. */
struct doca_comch_event_msg_recv {
	uint8_t unused;
};
struct doca_comch_event_connection_status_changed {
	uint8_t unused;
};
struct doca_comch_event_consumer {
	uint8_t unused;
};
static struct doca_comch_event_msg_recv dcc_msg_event;
static struct doca_comch_event_connection_status_changed dcc_conn_event;
static struct doca_comch_event_consumer dcc_cons_event;

#define DCC_RETRY_NS 10000000ULL    /* a client asks again every 10 ms */

/* ----------------------------------------------------------- capabilities */

static doca_error_t
dcc_caps(const struct doca_devinfo *devinfo, void *out, struct rte_comch_caps *caps)
{
	if (devinfo == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(devinfo, caps);
	return DOCA_SUCCESS;
}

#define DCC_CAP_GETTER(fn, expr) \
	DC_EXPORT doca_error_t \
	fn(const struct doca_devinfo *devinfo, uint32_t *out) \
	{ \
		struct rte_comch_caps caps; \
		doca_error_t ret = dcc_caps(devinfo, out, &caps); \
		if (ret == DOCA_SUCCESS) \
			*out = (uint32_t)(expr); \
		return ret; \
	}

DCC_CAP_GETTER(doca_comch_cap_get_max_name_len, caps.max_name_len)
DCC_CAP_GETTER(doca_comch_cap_get_max_msg_size, caps.max_msg_size)
DCC_CAP_GETTER(doca_comch_cap_get_max_recv_queue_size, caps.max_recv_queue_len)
DCC_CAP_GETTER(doca_comch_cap_get_max_clients, caps.max_clients)
DCC_CAP_GETTER(doca_comch_cap_get_max_send_tasks, DC_MAX_SEND_TASKS)

static doca_error_t
dcc_cap_flag(const struct doca_devinfo *devinfo, uint32_t flag)
{
	struct rte_comch_caps caps;

	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(devinfo, &caps);
	return (caps.flags & flag) != 0 ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DC_EXPORT doca_error_t
doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
	return dcc_cap_flag(devinfo, RTE_COMCH_CAPA_SERVER);
}

DC_EXPORT doca_error_t
doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
	return dcc_cap_flag(devinfo, RTE_COMCH_CAPA_CLIENT);
}

/* ------------------------------------------------------------ send tasks */

/* Queue @p t behind the connection's waiting sends, with a copy of its
 * message (the application may reuse its buffer once submit returned). */
static void
dcc_send_queue(struct doca_comch_task_send *t)
{
	struct dc_task_pool *pool = t->base.pool;
	struct dcc_common *c = container_of(pool->ctx, struct dcc_common, ctx);
	size_t idx = (size_t)((char *)t - pool->mem) / sizeof(*t);

	t->copy = c->send_copies + idx * c->eff_msg_size;
	if (!t->copied) {
		if (t->len != 0)
			memcpy(t->copy, t->msg, t->len);
		t->msg = t->copy;
		t->copied = true;
	}
	TAILQ_INSERT_TAIL(&t->conn->pending, t, next);
	t->conn->nb_pending++;
}

static doca_error_t
dcc_send_submit(struct doca_task *task)
{
	struct doca_comch_task_send *t = (struct doca_comch_task_send *)task;
	struct doca_comch_connection *conn = t->conn;
	int ret;

	if (unlikely(conn->released))
		return DOCA_ERROR_NOT_CONNECTED;
	if (unlikely(conn->lost)) {
		dc_task_complete(task, DOCA_ERROR_CONNECTION_RESET);
		return DOCA_SUCCESS;
	}
	if (unlikely(!TAILQ_EMPTY(&conn->pending))) {
		dcc_send_queue(t);   /* keep the order */
		return DOCA_SUCCESS;
	}
	ret = rte_comch_msg_send(conn->rte, t->msg, t->len);
	if (likely(ret == 0)) {
		dc_task_complete(task, DOCA_SUCCESS);
		return DOCA_SUCCESS;
	}
	if (ret == -EAGAIN) {
		dcc_send_queue(t);
		return DOCA_SUCCESS;
	}
	if (ret == -ECONNRESET) {
		dc_task_complete(task, DOCA_ERROR_CONNECTION_RESET);
		return DOCA_SUCCESS;
	}
	return dc_errno(ret);
}

static void
dcc_send_invoke(struct doca_task *task, dc_fn_t fn, union doca_data tud, union doca_data cud)
{
	((doca_comch_task_send_completion_cb_t)fn)((struct doca_comch_task_send *)task, tud, cud);
}

static const struct dc_task_type dcc_send_type = {
	.name = "comch send",
	.size = sizeof(struct doca_comch_task_send),
	.submit = dcc_send_submit,
	.invoke = dcc_send_invoke,
};

/* Retry a connection's waiting sends, in order. */
static int
dcc_conn_flush(struct doca_comch_connection *conn)
{
	struct doca_comch_task_send *t;
	int ret, n = 0;

	while ((t = TAILQ_FIRST(&conn->pending)) != NULL) {
		ret = rte_comch_msg_send(conn->rte, t->msg, t->len);
		if (ret == -EAGAIN)
			break;
		TAILQ_REMOVE(&conn->pending, t, next);
		conn->nb_pending--;
		dc_task_complete(&t->base, ret == 0 ? DOCA_SUCCESS : dc_errno(ret));
		n++;
	}
	return n;
}

/* Fail a connection's waiting sends with @p status. */
static void
dcc_conn_fail_pending(struct doca_comch_connection *conn, doca_error_t status)
{
	struct doca_comch_task_send *t;

	while ((t = TAILQ_FIRST(&conn->pending)) != NULL) {
		TAILQ_REMOVE(&conn->pending, t, next);
		conn->nb_pending--;
		dc_task_complete(&t->base, status);
	}
}

static doca_error_t
dcc_send_alloc(struct dcc_common *c, struct doca_comch_connection *peer, const void *msg, uint32_t len,
	       struct doca_comch_task_send **task)
{
	struct doca_comch_task_send *t;
	struct doca_task *base;
	doca_error_t ret;

	if (unlikely(peer == NULL || task == NULL || (msg == NULL && len != 0)))
		return DOCA_ERROR_INVALID_VALUE;
	if (unlikely(c->send_pool == NULL)) {
		DC_ERR("%s: send: no send tasks (call *_task_send_set_conf() before starting)", c->ctx.ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (unlikely(len > c->eff_msg_size)) {
		DC_ERR("%s: send: %u bytes, above the maximum message size %u", c->ctx.ops->name, len,
		       c->eff_msg_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (unlikely(peer->released))
		return DOCA_ERROR_NOT_CONNECTED;
	/* A server's connection whose peer takes nothing holds at most as
	 * many waiting sends as the pool still has free: the other
	 * connections always find tasks. */
	if (unlikely(peer->server != NULL && peer->nb_pending != 0 &&
		     peer->nb_pending >= c->send_pool->nb_free))
		return DOCA_ERROR_NO_MEMORY;
	ret = dc_task_alloc(c->send_pool, &base);
	if (unlikely(ret != DOCA_SUCCESS))
		return ret;
	t = (struct doca_comch_task_send *)base;
	t->conn = peer;
	t->msg = msg;
	t->len = len;
	t->copied = false;
	*task = t;
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_task *
doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return task != NULL ? &task->base : NULL;
}

/* ------------------------------------------------------ common to both */

static doca_error_t
dcc_configurable(const struct dcc_common *c)
{
	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(&c->ctx, DC_OP_CONFIGURE)) {
		DC_ERR("%s: configure while idle only", c->ctx.ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_set_msg_size(struct dcc_common *c, uint32_t size)
{
	struct rte_comch_caps caps;
	doca_error_t ret = dcc_configurable(c);

	if (ret != DOCA_SUCCESS)
		return ret;
	dc_devinfo_caps(c->dev->info, &caps);
	if (size == 0 || size > caps.max_msg_size) {
		DC_ERR("%s: max message size %u: expected 1 to %u", c->ctx.ops->name, size, caps.max_msg_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c->max_msg_size = size;
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_get_msg_size(const struct dcc_common *c, uint32_t *size)
{
	struct rte_comch_caps caps;

	if (c == NULL || size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(c->dev->info, &caps);
	*size = c->max_msg_size != 0 ? c->max_msg_size : caps.default_msg_size;
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_set_queue_size(struct dcc_common *c, uint32_t size)
{
	struct rte_comch_caps caps;
	doca_error_t ret = dcc_configurable(c);

	if (ret != DOCA_SUCCESS)
		return ret;
	dc_devinfo_caps(c->dev->info, &caps);
	if (size == 0 || size > caps.max_recv_queue_len) {
		DC_ERR("%s: receive queue size %u: expected 1 to %u", c->ctx.ops->name, size,
		       caps.max_recv_queue_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c->recv_queue_size = size;
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_get_queue_size(const struct dcc_common *c, uint32_t *size)
{
	struct rte_comch_caps caps;

	if (c == NULL || size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(c->dev->info, &caps);
	*size = c->recv_queue_size != 0 ? c->recv_queue_size : caps.default_recv_queue_len;
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_send_set_conf(struct dcc_common *c, doca_comch_task_send_completion_cb_t ok,
		  doca_comch_task_send_completion_cb_t err, uint32_t num)
{
	doca_error_t ret = dcc_configurable(c);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (ok == NULL || err == NULL || num == 0 || num > DC_MAX_SEND_TASKS)
		return DOCA_ERROR_INVALID_VALUE;
	c->send_conf = (struct dc_task_conf){ .ok_cb = (dc_fn_t)ok, .err_cb = (dc_fn_t)err, .num = num };
	return DOCA_SUCCESS;
}

/* At start: the send pool and the room for queued messages. */
static doca_error_t
dcc_common_start(struct dcc_common *c)
{
	uint32_t size = 0;

	dcc_get_msg_size(c, &size);
	c->eff_msg_size = size;
	dc_task_pool_free(c->send_pool);
	free(c->send_copies);
	c->send_pool = NULL;
	c->send_copies = NULL;
	if (c->send_conf.num == 0)
		return DOCA_SUCCESS;   /* receives only */
	c->send_pool = dc_task_pool_create(&c->ctx, &dcc_send_type, &c->send_conf);
	c->send_copies = malloc((size_t)c->send_conf.num * size);
	if (c->send_pool == NULL || c->send_copies == NULL) {
		dc_task_pool_free(c->send_pool);
		free(c->send_copies);
		c->send_pool = NULL;
		c->send_copies = NULL;
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

static void
dcc_common_free(struct dcc_common *c)
{
	dc_ctx_fini(&c->ctx);
	dc_task_pool_free(c->send_pool);
	free(c->send_copies);
}

static struct dcc_common *
dcc_conn_owner(const struct doca_comch_connection *conn)
{
	return conn->server != NULL ? &conn->server->c : &conn->client->c;
}

static struct doca_comch_connection *
dcc_conn_of(const struct rte_comch_conn *rc)
{
	return (struct doca_comch_connection *)(uintptr_t)rte_comch_conn_user_data_get(rc);
}

static struct doca_comch_connection *
dcc_conn_new(struct rte_comch_conn *rc)
{
	struct doca_comch_connection *conn = calloc(1, sizeof(*conn));

	if (conn == NULL)
		return NULL;
	conn->rte = rc;
	TAILQ_INIT(&conn->pending);
	rte_comch_conn_user_data_set(rc, (uint64_t)(uintptr_t)conn);
	return conn;
}

/* rte_comch message callback: the application's, directly. The message is
 * a private copy of lib/comch, valid during the callback. */
static void
dcc_on_msg(struct rte_comch_conn *rc, const struct rte_comch_msg *msg, void *arg)
{
	struct dcc_common *c = arg;
	struct doca_comch_connection *conn;
	union {
		const void *in;
		uint8_t *out;
	} data = { .in = msg->data };

	if (likely(rc == c->last_rc)) {
		conn = c->last_conn;
	} else {
		conn = dcc_conn_of(rc);
		c->last_rc = rc;
		c->last_conn = conn;
	}
	if (likely(conn != NULL && c->recv_cb != NULL))
		c->recv_cb(&dcc_msg_event, data.out, msg->len, conn);
}

static void
dcc_on_consumer(struct rte_comch_conn *rc, uint32_t id, enum rte_comch_consumer_event ev, void *arg)
{
	struct dcc_common *c = arg;
	struct doca_comch_connection *conn = dcc_conn_of(rc);
	doca_comch_event_consumer_cb_t cb =
		ev == RTE_COMCH_CONSUMER_CREATED ? c->new_consumer_cb : c->expired_consumer_cb;

	if (conn != NULL && cb != NULL)
		cb(&dcc_cons_event, conn, id);
}

/* ------------------------------------------------------------ connections */

DC_EXPORT doca_error_t
doca_comch_connection_set_user_data(struct doca_comch_connection *connection, union doca_data user_data)
{
	if (connection == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	connection->user_data = user_data;
	return DOCA_SUCCESS;
}

DC_EXPORT union doca_data
doca_comch_connection_get_user_data(const struct doca_comch_connection *connection)
{
	union doca_data none = { .u64 = 0 };

	return connection != NULL ? connection->user_data : none;
}

DC_EXPORT struct doca_comch_server *
doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection)
{
	return connection != NULL ? connection->server : NULL;
}

DC_EXPORT struct doca_comch_client *
doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection)
{
	return connection != NULL ? connection->client : NULL;
}

DC_EXPORT doca_error_t
doca_comch_connection_update_info(struct doca_comch_connection *comch_connection)
{
	int ret;

	if (comch_connection == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (comch_connection->released || comch_connection->lost)
		return DOCA_ERROR_CONNECTION_ABORTED;
	ret = rte_comch_conn_stats_get(comch_connection->rte, &comch_connection->snap);
	return ret == 0 ? DOCA_SUCCESS : dc_errno(ret);
}

DC_EXPORT doca_error_t
doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
				  enum doca_comch_counter counter_type, uint64_t *counter_value)
{
	if (comch_connection == NULL || counter_value == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	switch (counter_type) {
	case DOCA_COMCH_COUNTER_SENT_MESSAGES:
		*counter_value = comch_connection->snap.msgs_sent;
		break;
	case DOCA_COMCH_COUNTER_SENT_BYTES:
		*counter_value = comch_connection->snap.bytes_sent;
		break;
	case DOCA_COMCH_COUNTER_RECV_MESSAGES:
		*counter_value = comch_connection->snap.msgs_recv;
		break;
	case DOCA_COMCH_COUNTER_RECV_BYTES:
		*counter_value = comch_connection->snap.bytes_recv;
		break;
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* ---------------------------------------------------------------- server */

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

static doca_error_t
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

/* ---------------------------------------------------------------- client */

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
