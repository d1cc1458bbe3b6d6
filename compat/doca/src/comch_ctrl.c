/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch control path on rte_comch_*: capabilities, send tasks, what
 * servers and clients share, connections, message and consumer events.
 * The server is in comch_server.c, the client in comch_client.c.
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
struct doca_comch_event_consumer {
	uint8_t unused;
};
static struct doca_comch_event_msg_recv dcc_msg_event;
static struct doca_comch_event_consumer dcc_cons_event;

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
int
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
void
dcc_conn_fail_pending(struct doca_comch_connection *conn, doca_error_t status)
{
	struct doca_comch_task_send *t;

	while ((t = TAILQ_FIRST(&conn->pending)) != NULL) {
		TAILQ_REMOVE(&conn->pending, t, next);
		conn->nb_pending--;
		dc_task_complete(&t->base, status);
	}
}

doca_error_t
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

doca_error_t
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

doca_error_t
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

doca_error_t
dcc_get_msg_size(const struct dcc_common *c, uint32_t *size)
{
	struct rte_comch_caps caps;

	if (c == NULL || size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(c->dev->info, &caps);
	*size = c->max_msg_size != 0 ? c->max_msg_size : caps.default_msg_size;
	return DOCA_SUCCESS;
}

doca_error_t
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

doca_error_t
dcc_get_queue_size(const struct dcc_common *c, uint32_t *size)
{
	struct rte_comch_caps caps;

	if (c == NULL || size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(c->dev->info, &caps);
	*size = c->recv_queue_size != 0 ? c->recv_queue_size : caps.default_recv_queue_len;
	return DOCA_SUCCESS;
}

doca_error_t
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
doca_error_t
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

void
dcc_common_free(struct dcc_common *c)
{
	dc_ctx_fini(&c->ctx);
	dc_task_pool_free(c->send_pool);
	free(c->send_copies);
}

struct dcc_common *
dcc_conn_owner(const struct doca_comch_connection *conn)
{
	return conn->server != NULL ? &conn->server->c : &conn->client->c;
}

struct doca_comch_connection *
dcc_conn_of(const struct rte_comch_conn *rc)
{
	return (struct doca_comch_connection *)(uintptr_t)rte_comch_conn_user_data_get(rc);
}

struct doca_comch_connection *
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
void
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

void
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
