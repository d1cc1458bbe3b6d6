/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Event mode (layer 3): the public rte_comch_*_event() and
 * rte_comch_event_*() functions. The library checks the arguments, the
 * process and the object's state, and what only it knows (a relay of a
 * secondary's control messages needs the poll); the driver owns the
 * mechanism (the fd, the arm word the peer reads, the kicks): see
 * rte_comch_pmd.h, struct rte_comch_event, and the driver guide.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "comch_proc.h"

/* The event of an object, or NULL with rte_errno set and a log line. */
static struct rte_comch_event *
comch_event_of(struct rte_comch_event *ev, const char *what, uint32_t id)
{
	if (ev == NULL) {
		COMCH_LOG(ERR, "%s %u: no event: create it with RTE_COMCH_F_EVENT on a device with RTE_COMCH_CAPA_EVENT",
			what, id);
		rte_errno = ENOTSUP;
	}
	return ev;
}

struct rte_comch_event *
rte_comch_server_event(struct rte_comch_server *srv)
{
	if (srv == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (srv->event == NULL) {
		COMCH_LOG(ERR, "server %s: no event: create it with RTE_COMCH_F_EVENT",
			srv->name);
		rte_errno = ENOTSUP;
	}
	return srv->event;
}

struct rte_comch_event *
rte_comch_client_event(struct rte_comch_client *cli)
{
	if (cli == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (cli->event == NULL) {
		COMCH_LOG(ERR, "client of %s: no event: create it with RTE_COMCH_F_EVENT",
			cli->server_name);
		rte_errno = ENOTSUP;
	}
	return cli->event;
}

struct rte_comch_event *
rte_comch_conn_event(struct rte_comch_conn *conn)
{
	rte_comch_msg_cb_t cb;

	if (conn == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (comch_proc->link_only("connection events") < 0)
		return NULL;
	cb = conn->server != NULL ? conn->server->msg_cb : conn->client->msg_cb;
	if (conn->event == NULL && cb != NULL) {
		COMCH_LOG(ERR, "connection %u: no event of its own: with a msg_cb, its messages wake its %s's event",
			conn->id, conn->server != NULL ? "server" : "client");
		rte_errno = ENOTSUP;
		return NULL;
	}
	return comch_event_of(conn->event, "connection", conn->id);
}

struct rte_comch_event *
rte_comch_consumer_event(struct rte_comch_consumer *cons)
{
	if (cons == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* Its fd and state are the owner process's. */
	if (cons->owner_pid != (int32_t)getpid()) {
		COMCH_LOG(ERR, "consumer %u: belongs to process %d; its event is there",
			cons->id, (int)cons->owner_pid);
		rte_errno = EINVAL;
		return NULL;
	}
	return comch_event_of(cons->event, "consumer", cons->id);
}

int
rte_comch_event_fd(const struct rte_comch_event *ev)
{
	return ev == NULL ? -EINVAL : ev->fd;
}

/* What the library knows about the object: -ENOTCONN when idle, 1 when
 * its poll has work the driver cannot see, else 0. */
static int
comch_event_obj_check(const struct rte_comch_event *ev)
{
	const struct rte_comch_server *srv;
	const struct rte_comch_client *cli;
	const struct rte_comch_conn *conn;
	const struct rte_comch_consumer *cons;

	switch (ev->kind) {
	case RTE_COMCH_EVENT_SERVER:
		srv = ev->obj;
		if (srv->state == RTE_COMCH_STATE_IDLE)
			return -ENOTCONN;
		/* A secondary's control messages move in the poll. */
		return srv->nb_relays != 0 ? 1 : 0;
	case RTE_COMCH_EVENT_CLIENT:
		cli = ev->obj;
		if (cli->state == RTE_COMCH_STATE_IDLE)
			return -ENOTCONN;
		return cli->conn != NULL && comch_relay_active(cli->conn) ?
			1 : 0;
	case RTE_COMCH_EVENT_CONN:
		conn = ev->obj;
		return (conn->flags & COMCH_F_RELEASE_PENDING) ? -ENOTCONN : 0;
	case RTE_COMCH_EVENT_CONSUMER:
		cons = ev->obj;
		return __atomic_load_n(&cons->state, __ATOMIC_RELAXED) ==
			RTE_COMCH_STATE_IDLE ? -ENOTCONN : 0;
	default:
		return -EINVAL;
	}
}

int
rte_comch_event_arm(struct rte_comch_event *ev)
{
	struct rte_comch_dev *dev;
	int ret;

	if (ev == NULL)
		return -EINVAL;
	dev = comch_dev_get(ev->dev_id);
	if (dev == NULL || dev->dev_ops->event_arm == NULL)
		return -EINVAL;
	ret = comch_event_obj_check(ev);
	if (ret != 0)
		return ret;
	return dev->dev_ops->event_arm(dev, ev);
}

int
rte_comch_event_disarm(struct rte_comch_event *ev)
{
	struct rte_comch_dev *dev;

	if (ev == NULL)
		return -EINVAL;
	dev = comch_dev_get(ev->dev_id);
	if (dev == NULL)
		return -EINVAL;
	if (dev->dev_ops->event_disarm != NULL)
		dev->dev_ops->event_disarm(dev, ev);
	return 0;
}

int
rte_comch_event_wake(struct rte_comch_event *ev)
{
	struct rte_comch_dev *dev;

	if (ev == NULL)
		return -EINVAL;
	dev = comch_dev_get(ev->dev_id);
	if (dev == NULL || dev->dev_ops->event_wake == NULL)
		return -EINVAL;
	return dev->dev_ops->event_wake(dev, ev);
}

int
rte_comch_event_stats_get(const struct rte_comch_event *ev,
		struct rte_comch_event_stats *stats)
{
	struct rte_comch_dev *dev;

	if (ev == NULL || stats == NULL)
		return -EINVAL;
	dev = comch_dev_get(ev->dev_id);
	if (dev == NULL)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	if (dev->dev_ops->event_stats != NULL)
		dev->dev_ops->event_stats(dev, ev, stats);
	return 0;
}

/* Check @p flags of a configuration for @p dev: 0, or -EINVAL / -ENOTSUP
 * with a log line. */
int
comch_event_flags_check(const struct rte_comch_dev *dev, uint32_t flags,
		const char *what)
{
	struct rte_comch_dev_info info;

	if (flags & ~RTE_COMCH_F_EVENT) {
		COMCH_LOG(ERR, "%s: unknown flags 0x%x (known: RTE_COMCH_F_EVENT)",
			what, flags & ~RTE_COMCH_F_EVENT);
		return -EINVAL;
	}
	if (flags == 0)
		return 0;
	comch_dev_info(dev, &info);
	if (!(info.caps.flags & RTE_COMCH_CAPA_EVENT) ||
	    dev->dev_ops->event_arm == NULL) {
		COMCH_LOG(ERR, "%s: device %s has no event mode (RTE_COMCH_CAPA_EVENT)",
			what, info.dev_name);
		return -ENOTSUP;
	}
	return 0;
}
