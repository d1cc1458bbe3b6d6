/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Connections (layer 3): the public functions (user data, statistics,
 * control messages, listing, attaching, the peer's consumers), and the
 * helpers a driver uses to report connection events.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "comch_proc.h"

/* Messages taken per receive call when delivering through a callback. */
#define COMCH_DISPATCH_BURST 32

int
rte_comch_conn_user_data_set(struct rte_comch_conn *conn, uint64_t user_data)
{
	if (conn == NULL)
		return -EINVAL;
	if (comch_proc->link_only("connection user data (set)") < 0)
		return -ENOTSUP;
	conn->user_data = user_data;
	return 0;
}

uint64_t
rte_comch_conn_user_data_get(const struct rte_comch_conn *conn)
{
	return conn == NULL ? 0 : conn->user_data;
}

uint32_t
rte_comch_conn_id(const struct rte_comch_conn *conn)
{
	return conn == NULL ? UINT32_MAX : conn->id;
}

uint32_t
rte_comch_conn_max_msg_size(const struct rte_comch_conn *conn)
{
	return conn == NULL ? 0 : conn->max_msg_size;
}

int
rte_comch_conn_stats_get(struct rte_comch_conn *conn,
		struct rte_comch_conn_stats *stats)
{
	if (conn == NULL || stats == NULL)
		return -EINVAL;
	if (comch_proc->conn_usable(conn, "connection statistics") < 0)
		return -EINVAL;
	return comch_proc->conn_stats(conn, stats);
}

int
rte_comch_conn_stats_reset(struct rte_comch_conn *conn)
{
	if (conn == NULL)
		return -EINVAL;
	if (comch_proc->link_only("connection statistics reset") < 0)
		return -ENOTSUP;
	conn->msgs_sent = 0;
	conn->bytes_sent = 0;
	conn->msgs_recv = 0;
	conn->bytes_recv = 0;
	return 0;
}

/* Send and receive are allowed while running, and while stopping so that
 * what was queued before the peer left can still be drained; a connection
 * the application released (pending release inside a poll) is gone. */
static inline int
comch_conn_usable(const struct rte_comch_conn *conn)
{
	if (unlikely(conn->flags & COMCH_F_RELEASE_PENDING))
		return -ENOTCONN;
	if (unlikely(!comch_state_allows(conn->state, COMCH_OP_SEND)))
		return -ENOTCONN;
	return 0;
}

int
rte_comch_msg_send(struct rte_comch_conn *conn, const void *data, uint32_t len)
{
	int ret;

	if (unlikely(conn == NULL || (data == NULL && len != 0)))
		return -EINVAL;
	if (unlikely(len > conn->max_msg_size))
		return -EMSGSIZE;
	ret = comch_conn_usable(conn);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(conn->state == RTE_COMCH_STATE_STOPPING))
		return -ECONNRESET;
	return comch_proc->msg_send(conn, data, len);
}

int
rte_comch_msg_recv_burst(struct rte_comch_conn *conn,
		struct rte_comch_msg *msgs, uint16_t nb_msgs)
{
	int ret;

	if (unlikely(conn == NULL || msgs == NULL))
		return -EINVAL;
	ret = comch_conn_usable(conn);
	if (unlikely(ret < 0))
		return ret;
	return comch_proc->msg_recv(conn, msgs, nb_msgs);
}

int
rte_comch_conn_list(int16_t dev_id, uint32_t *ids, uint32_t nb_ids)
{
	if (comch_dev_get(dev_id) == NULL || (ids == NULL && nb_ids != 0))
		return -EINVAL;
	return comch_proc->conn_list(dev_id, ids, nb_ids);
}

struct rte_comch_conn *
rte_comch_conn_attach(int16_t dev_id, uint32_t conn_id)
{
	if (comch_dev_get(dev_id) == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	return comch_proc->conn_attach(dev_id, conn_id);
}

int
rte_comch_conn_detach(struct rte_comch_conn *conn)
{
	if (conn == NULL)
		return -EINVAL;
	return comch_proc->conn_detach(conn);
}

int
rte_comch_conn_remote_consumers(struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids)
{
	int ret;

	if (conn == NULL || (ids == NULL && nb_ids != 0))
		return -EINVAL;
	if (comch_proc->conn_usable(conn, "remote consumers") < 0)
		return -EINVAL;
	ret = comch_proc->remote_sync(conn);
	if (ret < 0)
		return ret;
	return comch_remote_list(conn, ids, nb_ids);
}

/*
 * Deliver what waits on @p conn to @p cb, at most one receive queue's worth
 * (its depth, at least a burst) per call: an honest peer has no more
 * than that queued, so all of it goes in one call, while a peer that
 * refills the queue as fast as it is read holds its server's (client's)
 * poll for a bounded number of messages, not for as long as it keeps up:
 * the other connections are dispatched meanwhile. What is left is
 * delivered by the next poll, and an armed event finds it (the driver's
 * look for work after arming), so it does not sleep through it.
 */
int
comch_conn_dispatch(struct rte_comch_conn *conn, rte_comch_msg_cb_t cb,
		void *arg)
{
	struct rte_comch_msg msgs[COMCH_DISPATCH_BURST];
	uint32_t depth = conn->server != NULL ? conn->server->recv_queue_len :
		conn->client->recv_queue_len;
	uint32_t budget = RTE_MAX(depth, (uint32_t)COMCH_DISPATCH_BURST);
	uint32_t total = 0;
	int n, i;

	do {
		n = rte_comch_msg_recv_burst(conn, msgs,
			RTE_MIN(budget - total, (uint32_t)RTE_DIM(msgs)));
		for (i = 0; i < n; i++) {
			cb(conn, &msgs[i], arg);
			/* The callback may release the connection: deliver
			 * nothing more on it. */
			if (conn->flags & COMCH_F_RELEASE_PENDING)
				return (int)total + i + 1;
		}
		if (n > 0)
			total += n;
	} while (n > 0 && total < budget);
	return (int)total;
}

/* -EBUSY with a log line if @p conn has producers or consumers (of any
 * process) or attached secondaries; read without the lock. */
int
comch_conn_busy(const struct rte_comch_conn *conn, const char *who,
		const char *what)
{
	uint32_t fp = __atomic_load_n(&conn->nb_fp_objects, __ATOMIC_ACQUIRE);
	uint32_t att = __atomic_load_n(&conn->nb_attached, __ATOMIC_ACQUIRE);

	if (fp != 0) {
		COMCH_LOG(ERR, "%s: cannot %s, connection %u has %u producers/consumers (of any process); destroy them first",
			who, what, conn->id, fp);
		return -EBUSY;
	}
	if (att != 0) {
		COMCH_LOG(ERR, "%s: cannot %s, %u secondary process(es) are attached to connection %u; they must detach first (rte_comch_conn_detach())",
			who, what, att, conn->id);
		return -EBUSY;
	}
	return 0;
}

int
comch_conn_close_begin(struct rte_comch_conn *conn, const char *who,
		const char *what)
{
	int ret = 0;

	rte_spinlock_lock(&conn->fp_lock);
	if (conn->nb_fp_objects != 0 || conn->nb_attached != 0)
		ret = -EBUSY;
	else
		conn->closing = true;
	rte_spinlock_unlock(&conn->fp_lock);
	if (ret < 0)
		comch_conn_busy(conn, who, what);
	return ret;
}

void
comch_conn_release(struct rte_comch_conn *conn)
{
	struct rte_comch_server *srv = conn->server;
	struct rte_comch_client *cli = conn->client;
	struct rte_comch_dev *dev;

	/* Out of sight of telemetry first, then closed. Callers checked
	 * nb_fp_objects == 0 under the lock with closing set, so no producer
	 * or consumer can appear any more. */
	rte_spinlock_lock(&comch_registry_lock);
	if (srv != NULL) {
		TAILQ_REMOVE(&srv->conns, conn, next);
		srv->nb_conns--;
	}
	if (cli != NULL && cli->conn == conn)
		cli->conn = NULL;
	rte_spinlock_unlock(&comch_registry_lock);
	comch_relay_free(conn);
	comch_remote_release(conn);
	dev = comch_dev_get(conn->dev_id);
	if (dev->dev_ops->conn_close != NULL)
		dev->dev_ops->conn_close(dev, conn);
	rte_free(conn);
}

/* ------------------------------------------------------- driver helpers */

struct rte_comch_conn *
rte_comch_pmd_conn_alloc(struct rte_comch_dev *dev,
		struct rte_comch_server *srv, struct rte_comch_client *cli,
		uint32_t max_msg_size, size_t drv_size)
{
	struct rte_comch_conn *conn;
	size_t head = RTE_ALIGN_CEIL(sizeof(*conn), RTE_CACHE_LINE_SIZE);

	if (dev == NULL || (srv == NULL) == (cli == NULL)) {
		rte_errno = EINVAL;
		return NULL;
	}
	conn = rte_zmalloc_socket("comch_conn", head + drv_size,
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (conn == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	conn->dev_id = dev->data->dev_id;
	conn->server = srv;
	conn->client = cli;
	conn->max_msg_size = max_msg_size;
	conn->state = RTE_COMCH_STATE_STARTING;
	conn->id = __atomic_fetch_add(&dev->data->next_conn_id, 1,
			__ATOMIC_RELAXED);
	conn->drv = drv_size != 0 ? RTE_PTR_ADD(conn, head) : NULL;
	rte_spinlock_init(&conn->fp_lock);
	rte_spinlock_init(&conn->remote_lock);
	TAILQ_INIT(&conn->consumers);
	TAILQ_INIT(&conn->producers);
	return conn;
}

void
rte_comch_pmd_conn_free(struct rte_comch_conn *conn)
{
	rte_free(conn);
}

void
rte_comch_pmd_server_connected(struct rte_comch_server *srv,
		struct rte_comch_conn *conn)
{
	comch_state_apply(&conn->state, COMCH_EV_READY);
	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_INSERT_TAIL(&srv->conns, conn, next);
	srv->nb_conns++;
	rte_spinlock_unlock(&comch_registry_lock);
	COMCH_LOG(DEBUG, "server %s: connection %u established",
		srv->name, conn->id);
	if (srv->connect_cb != NULL)
		srv->connect_cb(srv, conn, srv->cb_arg);
}

void
rte_comch_pmd_client_connected(struct rte_comch_client *cli,
		struct rte_comch_conn *conn)
{
	enum rte_comch_state prev = cli->state;

	comch_state_apply(&conn->state, COMCH_EV_READY);
	if (comch_state_apply(&cli->state, COMCH_EV_READY) < 0) {
		COMCH_LOG(ERR, "client of %s: connected in state %s",
			cli->server_name, rte_comch_state_name(cli->state));
		return;
	}
	rte_spinlock_lock(&comch_registry_lock);
	cli->conn = conn;
	rte_spinlock_unlock(&comch_registry_lock);
	cli->last_err = 0;
	COMCH_LOG(DEBUG, "client of %s: connection %u established",
		cli->server_name, conn->id);
	if (cli->state_cb != NULL)
		cli->state_cb(cli, prev, cli->state, 0, cli->cb_arg);
}

void
rte_comch_pmd_client_failed(struct rte_comch_client *cli, int err)
{
	enum rte_comch_state prev = cli->state;

	if (comch_state_apply(&cli->state, COMCH_EV_START_FAILED) < 0)
		return;
	cli->last_err = err;
	if (cli->state_cb != NULL)
		cli->state_cb(cli, prev, cli->state, err, cli->cb_arg);
}

/* Why a connection went down, in the log's words. */
static const char *
comch_down_why(int err, bool clean)
{
	if (clean)
		return "closed by the peer";
	if (err == -EPROTO)
		return "lost: the peer broke the protocol";
	if (err != -ECONNRESET)
		return "closed: this process ran out of a resource to follow the peer";
	return "lost: the peer went away without closing";
}

/* The connection is down (@p clean: the peer closed it on purpose). */
static void
comch_conn_down(struct rte_comch_conn *conn, int err, bool clean)
{
	struct rte_comch_server *srv = conn->server;
	struct rte_comch_client *cli = conn->client;
	enum rte_comch_state prev;

	rte_comch_msg_cb_t msg_cb = srv != NULL ? srv->msg_cb : cli->msg_cb;

	if (conn->state != RTE_COMCH_STATE_RUNNING)
		return;
	/* Callback mode: what the peer queued before leaving is delivered
	 * before the loss is reported (burst mode: receive returns it until
	 * -ECONNRESET). */
	if (msg_cb != NULL && !(conn->flags & COMCH_F_RELEASE_PENDING))
		comch_conn_dispatch(conn, msg_cb,
				srv != NULL ? srv->cb_arg : cli->cb_arg);
	if (comch_state_apply(&conn->state, COMCH_EV_FATAL) < 0)
		return;
	if (srv != NULL) {
		rte_log(clean ? RTE_LOG_DEBUG : RTE_LOG_INFO, rte_comch_logtype,
			"comch: server %s: connection %u %s\n", srv->name,
			conn->id, comch_down_why(err, clean));
		if (srv->disconnect_cb != NULL &&
		    !(conn->flags & COMCH_F_RELEASE_PENDING))
			srv->disconnect_cb(srv, conn, err, srv->cb_arg);
		return;
	}
	prev = cli->state;
	if (comch_state_apply(&cli->state, COMCH_EV_FATAL) < 0)
		return;
	cli->last_err = err;
	rte_log(clean ? RTE_LOG_DEBUG : RTE_LOG_INFO, rte_comch_logtype,
		"comch: client of %s: connection %u %s\n", cli->server_name,
		conn->id, comch_down_why(err, clean));
	if (cli->state_cb != NULL)
		cli->state_cb(cli, prev, cli->state, err, cli->cb_arg);
}

void
rte_comch_pmd_conn_lost(struct rte_comch_conn *conn, int err)
{
	comch_conn_down(conn, err, false);
}

void
rte_comch_pmd_conn_closed(struct rte_comch_conn *conn)
{
	comch_conn_down(conn, 0, true);
}
