/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Servers (DPU role), and the creation checks shared with clients. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>
#include <rte_tailq.h>

#include "comch_obj.h"

struct rte_comch_dev *
comch_obj_check(int16_t dev_id, uint32_t capa, const char *what,
		const char *name, uint32_t *max_msg_size,
		uint32_t *recv_queue_len, struct rte_comch_caps *caps)
{
	struct rte_comch_dev_info info;
	struct rte_comch_dev *dev = comch_dev_get(dev_id);
	size_t len;

	if (dev == NULL || name == NULL) {
		COMCH_LOG(ERR, "%s: %s", what, dev == NULL ?
			"invalid device id" : "name is NULL");
		rte_errno = EINVAL;
		return NULL;
	}
	if (rte_comch_info_get(dev_id, &info) < 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	*caps = info.caps;
	if (!(caps->flags & capa)) {
		COMCH_LOG(ERR, "%s: device %s has role %s and cannot host a %s",
			what, info.dev_name,
			info.role == RTE_COMCH_ROLE_DPU ? "dpu" : "host", what);
		rte_errno = ENOTSUP;
		return NULL;
	}
	len = strnlen(name, RTE_COMCH_NAME_MAX);
	if (len == 0) {
		COMCH_LOG(ERR, "%s: empty name", what);
		rte_errno = EINVAL;
		return NULL;
	}
	if (len >= caps->max_name_len || len >= RTE_COMCH_NAME_MAX) {
		COMCH_LOG(ERR, "%s: name \"%.*s...\" longer than %u characters (the device's limit is %u bytes with the NUL)",
			what, 16, name, RTE_MIN(caps->max_name_len,
				(uint32_t)RTE_COMCH_NAME_MAX) - 1,
			caps->max_name_len);
		rte_errno = ENAMETOOLONG;
		return NULL;
	}
	if (*max_msg_size == 0)
		*max_msg_size = caps->default_msg_size;
	if (*max_msg_size > caps->max_msg_size) {
		COMCH_LOG(ERR, "%s %s: max_msg_size %u above the device limit %u",
			what, name, *max_msg_size, caps->max_msg_size);
		rte_errno = ERANGE;
		return NULL;
	}
	if (*recv_queue_len == 0)
		*recv_queue_len = caps->default_recv_queue_len;
	if (*recv_queue_len > caps->max_recv_queue_len) {
		COMCH_LOG(ERR, "%s %s: recv_queue_len %u above the device limit %u",
			what, name, *recv_queue_len, caps->max_recv_queue_len);
		rte_errno = ERANGE;
		return NULL;
	}
	return dev;
}

int
comch_obj_destroy_check(enum rte_comch_state state, uint32_t flags,
		const char *what, const char *name)
{
	if ((flags & COMCH_F_IN_POLL) ||
	    !comch_state_allows(state, COMCH_OP_DESTROY)) {
		COMCH_LOG(ERR, "%s %s: cannot destroy in state %s%s; stop it first",
			what, name, rte_comch_state_name(state),
			(flags & COMCH_F_IN_POLL) ? " from a callback" : "");
		return -EBUSY;
	}
	return 0;
}

struct rte_comch_server *
rte_comch_server_create(int16_t dev_id, const struct rte_comch_server_conf *conf)
{
	struct rte_comch_dev_info info;
	struct rte_comch_caps caps;
	struct rte_comch_server *srv;
	struct rte_comch_dev *dev;
	uint32_t max_msg, rq;
	int ret;

	if (conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (comch_proc->link_only("server") < 0)
		return NULL;
	max_msg = conf->max_msg_size;
	rq = conf->recv_queue_len;
	dev = comch_obj_check(dev_id, RTE_COMCH_CAPA_SERVER, "server",
			conf->name, &max_msg, &rq, &caps);
	if (dev == NULL)
		return NULL;
	/* A server needs these; the rest of its ops are optional. */
	if (COMCH_OBJ_OP(dev, server_create, "server") < 0 ||
	    COMCH_OBJ_OP(dev, server_poll, "server") < 0)
		return NULL;
	rte_comch_info_get(dev_id, &info);
	if (conf->function_id >= info.nb_functions) {
		COMCH_LOG(ERR, "server %s: function_id %u invalid, device %s serves %u functions",
			conf->name, conf->function_id, info.dev_name, info.nb_functions);
		rte_errno = EINVAL;
		return NULL;
	}
	if (caps.max_clients != 0 && conf->max_clients > caps.max_clients) {
		COMCH_LOG(ERR, "server %s: max_clients %u above the device limit %u",
			conf->name, conf->max_clients, caps.max_clients);
		rte_errno = ERANGE;
		return NULL;
	}

	srv = rte_zmalloc_socket("comch_server", sizeof(*srv),
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (srv == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	srv->dev = dev;
	srv->state = RTE_COMCH_STATE_IDLE;
	srv->function_id = conf->function_id;
	rte_strscpy(srv->name, conf->name, sizeof(srv->name));
	srv->max_msg_size = max_msg;
	srv->recv_queue_len = rq;
	srv->max_clients = conf->max_clients != 0 ?
		conf->max_clients : caps.max_clients;
	srv->connect_cb = conf->connect_cb;
	srv->disconnect_cb = conf->disconnect_cb;
	srv->msg_cb = conf->msg_cb;
	srv->consumer_event_cb = conf->consumer_event_cb;
	srv->cb_arg = conf->cb_arg;
	TAILQ_INIT(&srv->conns);

	ret = dev->dev_ops->server_create(dev, srv);
	if (ret < 0) {
		rte_free(srv);
		rte_errno = -ret;
		return NULL;
	}
	comch_registry_add_server(srv);
	return srv;
}

int
rte_comch_server_start(struct rte_comch_server *srv)
{
	int ret;

	if (srv == NULL)
		return -EINVAL;
	ret = comch_state_apply(&srv->state, COMCH_EV_START);
	if (ret < 0) {
		COMCH_LOG(ERR, "server %s: cannot start in state %s",
			srv->name, rte_comch_state_name(srv->state));
		return ret;
	}
	ret = srv->dev->dev_ops->server_start == NULL ? 0 :
		srv->dev->dev_ops->server_start(srv->dev, srv);
	if (ret < 0) {
		comch_state_apply(&srv->state, COMCH_EV_START_FAILED);
		return ret;
	}
	comch_state_apply(&srv->state, COMCH_EV_READY);
	return 0;
}

static int
comch_server_busy(const struct rte_comch_server *srv, const char *what)
{
	char who[RTE_COMCH_NAME_MAX + 8];
	struct rte_comch_conn *conn;
	int ret;

	snprintf(who, sizeof(who), "server %s", srv->name);
	TAILQ_FOREACH(conn, &srv->conns, next) {
		ret = comch_conn_busy(conn, who, what);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int
rte_comch_server_stop(struct rte_comch_server *srv)
{
	struct rte_comch_conn *conn, *tmp;
	int ret;

	if (srv == NULL)
		return -EINVAL;
	if (srv->flags & COMCH_F_IN_POLL) {
		COMCH_LOG(ERR, "server %s: cannot stop from its own callback",
			srv->name);
		return -EBUSY;
	}
	if (!comch_state_allows(srv->state, COMCH_OP_STOP)) {
		COMCH_LOG(ERR, "server %s: cannot stop in state %s",
			srv->name, rte_comch_state_name(srv->state));
		return -EBUSY;
	}
	ret = comch_server_busy(srv, "stop");
	if (ret < 0)
		return ret;
	TAILQ_FOREACH(conn, &srv->conns, next) {
		if (comch_conn_close_begin(conn, srv->name, "stop the server") < 0) {
			/* Raced with a producer/consumer creation. */
			TAILQ_FOREACH(tmp, &srv->conns, next) {
				if (tmp == conn)
					break;
				tmp->closing = false;
			}
			return comch_server_busy(srv, "stop");
		}
	}
	comch_state_apply(&srv->state, COMCH_EV_STOP);
	if (srv->dev->dev_ops->server_stop != NULL)
		srv->dev->dev_ops->server_stop(srv->dev, srv);
	RTE_TAILQ_FOREACH_SAFE(conn, &srv->conns, next, tmp)
		comch_conn_release(conn);
	comch_state_apply(&srv->state, COMCH_EV_DRAINED);
	return 0;
}

int
rte_comch_server_destroy(struct rte_comch_server *srv)
{
	int ret;

	if (srv == NULL)
		return 0;
	ret = comch_obj_destroy_check(srv->state, srv->flags, "server",
			srv->name);
	if (ret < 0)
		return ret;
	comch_registry_del_server(srv);
	if (srv->dev->dev_ops->server_destroy != NULL)
		srv->dev->dev_ops->server_destroy(srv->dev, srv);
	rte_free(srv);
	return 0;
}

int
rte_comch_server_poll(struct rte_comch_server *srv)
{
	struct rte_comch_conn *conn, *tmp;
	int n;

	if (srv == NULL)
		return -EINVAL;
	if (srv->state == RTE_COMCH_STATE_IDLE)
		return 0;
	srv->flags |= COMCH_F_IN_POLL;
	n = srv->dev->dev_ops->server_poll(srv->dev, srv);
	/* control messages of secondary processes, to and fro */
	n += comch_relay_poll_server(srv);
	if (srv->msg_cb != NULL) {
		TAILQ_FOREACH(conn, &srv->conns, next) {
			if (!(conn->flags & COMCH_F_RELEASE_PENDING))
				n += comch_conn_dispatch(conn, srv->msg_cb,
						srv->cb_arg);
		}
	}
	srv->flags &= ~COMCH_F_IN_POLL;
	RTE_TAILQ_FOREACH_SAFE(conn, &srv->conns, next, tmp) {
		if (conn->flags & COMCH_F_RELEASE_PENDING)
			comch_conn_release(conn);
	}
	return n;
}

int
rte_comch_server_disconnect(struct rte_comch_server *srv,
		struct rte_comch_conn *conn)
{
	if (srv == NULL || conn == NULL || conn->server != srv)
		return -EINVAL;
	if (conn->flags & COMCH_F_RELEASE_PENDING)
		return 0;
	if (comch_conn_close_begin(conn, srv->name, "disconnect") < 0)
		return -EBUSY;
	if (srv->flags & COMCH_F_IN_POLL) {
		/* Inside a callback: release when the poll returns. */
		conn->flags |= COMCH_F_RELEASE_PENDING;
		return 0;
	}
	comch_conn_release(conn);
	return 0;
}

enum rte_comch_state
rte_comch_server_state(const struct rte_comch_server *srv)
{
	return srv == NULL ? RTE_COMCH_STATE_IDLE : srv->state;
}

uint32_t
rte_comch_server_conn_count(const struct rte_comch_server *srv)
{
	return srv == NULL ? 0 : srv->nb_conns;
}
