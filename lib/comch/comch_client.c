/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Clients (host role): one connection each. */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "comch_obj.h"

struct rte_comch_client *
rte_comch_client_create(int16_t dev_id, const struct rte_comch_client_conf *conf)
{
	struct rte_comch_client *cli;
	struct rte_comch_caps caps;
	struct rte_comch_dev *dev;
	uint32_t max_msg, rq;
	int ret;

	if (conf == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (comch_proc->link_only("client") < 0)
		return NULL;
	max_msg = conf->max_msg_size;
	rq = conf->recv_queue_len;
	dev = comch_obj_check(dev_id, RTE_COMCH_CAPA_CLIENT, "client",
			conf->server_name, &max_msg, &rq, &caps);
	if (dev == NULL)
		return NULL;
	/* A client needs these; the rest of its ops are optional. */
	if (COMCH_OBJ_OP(dev, client_create, "client") < 0 ||
	    COMCH_OBJ_OP(dev, client_start, "client") < 0 ||
	    COMCH_OBJ_OP(dev, client_poll, "client") < 0)
		return NULL;

	cli = rte_zmalloc_socket("comch_client", sizeof(*cli),
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (cli == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	cli->dev = dev;
	cli->state = RTE_COMCH_STATE_IDLE;
	rte_strscpy(cli->server_name, conf->server_name,
			sizeof(cli->server_name));
	cli->max_msg_size = max_msg;
	cli->recv_queue_len = rq;
	cli->state_cb = conf->state_cb;
	cli->msg_cb = conf->msg_cb;
	cli->consumer_event_cb = conf->consumer_event_cb;
	cli->cb_arg = conf->cb_arg;

	ret = dev->dev_ops->client_create(dev, cli);
	if (ret < 0) {
		rte_free(cli);
		rte_errno = -ret;
		return NULL;
	}
	comch_registry_add_client(cli);
	return cli;
}

int
rte_comch_client_start(struct rte_comch_client *cli)
{
	int ret;

	if (cli == NULL)
		return -EINVAL;
	if (!comch_state_allows(cli->state, COMCH_OP_START)) {
		COMCH_LOG(ERR, "client of %s: cannot start in state %s",
			cli->server_name, rte_comch_state_name(cli->state));
		return -EBUSY;
	}
	ret = cli->dev->dev_ops->client_start == NULL ? -ENOTSUP :
		cli->dev->dev_ops->client_start(cli->dev, cli);
	if (ret < 0)
		return ret;
	cli->last_err = 0;
	comch_state_apply(&cli->state, COMCH_EV_START);
	return 0;
}

static int
comch_client_do_stop(struct rte_comch_client *cli)
{
	if (cli->state == RTE_COMCH_STATE_STARTING) {
		if (cli->dev->dev_ops->client_abort != NULL)
			cli->dev->dev_ops->client_abort(cli->dev, cli);
		comch_state_apply(&cli->state, COMCH_EV_STOP);
		return 0;
	}
	comch_state_apply(&cli->state, COMCH_EV_STOP);
	if (cli->conn != NULL)
		comch_conn_release(cli->conn);
	comch_state_apply(&cli->state, COMCH_EV_DRAINED);
	return 0;
}

int
rte_comch_client_stop(struct rte_comch_client *cli)
{
	if (cli == NULL)
		return -EINVAL;
	if (!comch_state_allows(cli->state, COMCH_OP_STOP)) {
		COMCH_LOG(ERR, "client of %s: cannot stop in state %s",
			cli->server_name, rte_comch_state_name(cli->state));
		return -EBUSY;
	}
	if (cli->conn != NULL &&
	    comch_conn_close_begin(cli->conn, cli->server_name,
			"stop the client") < 0)
		return -EBUSY;
	if (cli->flags & COMCH_F_IN_POLL) {
		/* Inside a callback: stop when the poll returns. */
		cli->flags |= COMCH_F_STOP_PENDING;
		if (cli->conn != NULL)
			cli->conn->flags |= COMCH_F_RELEASE_PENDING;
		return 0;
	}
	return comch_client_do_stop(cli);
}

int
rte_comch_client_destroy(struct rte_comch_client *cli)
{
	int ret;

	if (cli == NULL)
		return 0;
	ret = comch_obj_destroy_check(cli->state, cli->flags, "client of",
			cli->server_name);
	if (ret < 0)
		return ret;
	comch_registry_del_client(cli);
	if (cli->dev->dev_ops->client_destroy != NULL)
		cli->dev->dev_ops->client_destroy(cli->dev, cli);
	rte_free(cli);
	return 0;
}

int
rte_comch_client_poll(struct rte_comch_client *cli)
{
	int n;

	if (cli == NULL)
		return -EINVAL;
	if (cli->state == RTE_COMCH_STATE_IDLE)
		return 0;
	cli->flags |= COMCH_F_IN_POLL;
	n = cli->dev->dev_ops->client_poll(cli->dev, cli);
	/* control messages of a secondary process, to and fro */
	n += comch_relay_poll_client(cli);
	if (cli->msg_cb != NULL && cli->conn != NULL &&
	    !(cli->conn->flags & COMCH_F_RELEASE_PENDING))
		n += comch_conn_dispatch(cli->conn, cli->msg_cb, cli->cb_arg);
	cli->flags &= ~COMCH_F_IN_POLL;
	if (cli->flags & COMCH_F_STOP_PENDING) {
		cli->flags &= ~COMCH_F_STOP_PENDING;
		comch_client_do_stop(cli);
	}
	return n;
}

enum rte_comch_state
rte_comch_client_state(const struct rte_comch_client *cli, int *last_err)
{
	if (cli == NULL) {
		if (last_err != NULL)
			*last_err = 0;
		return RTE_COMCH_STATE_IDLE;
	}
	if (last_err != NULL)
		*last_err = cli->last_err;
	return cli->state;
}

struct rte_comch_conn *
rte_comch_client_conn(const struct rte_comch_client *cli)
{
	if (cli == NULL || (cli->conn != NULL &&
	    (cli->conn->flags & COMCH_F_RELEASE_PENDING)))
		return NULL;
	return cli->conn;
}
