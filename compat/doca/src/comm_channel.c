/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The comm-channel endpoint API, built on the Comch core: a service
 * endpoint is a doca_comch_server, a client endpoint a doca_comch_client,
 * each on a progress engine private to the endpoint, whose callbacks are
 * this file's: they queue received messages and peer events for
 * doca_comm_channel_ep_recvfrom(). A peer address wraps a connection.
 *
 * Every call takes the endpoint's lock: while an event channel is armed,
 * the wait source's watcher (dc_wait.h) may probe the endpoint from its
 * own thread (ep_probe_*: progress the private engine, look at the
 * queues). With lib/comch event mode the probes go (dc_wait.h says how).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <doca_comm_channel.h>

#include "comch_priv.h"
#include "dc_wait.h"

#define EP_MIN_MSG 64
#define EP_MIN_QUEUE 16
#define EP_MAX_SEND_QUEUE 8192
#define EP_DEFAULT_QUEUE 64
#define EP_MAX_NAME 64
/* doca_pe_progress() turns of one ep_progress(): the work one call of the
 * application's does on the channel's behalf is bounded, whatever the
 * peers send. */
#define EP_PROGRESS_TURNS 8

enum ep_role {
	EP_IDLE = 0,
	EP_SERVICE,
	EP_CLIENT,
};

enum ep_peer_state {
	PEER_CONNECTING,     /* client: handshake in progress */
	PEER_PENDING,        /* service: accepted, the next recvfrom completes it */
	PEER_CONNECTED,
	PEER_LOST,           /* the other side left or died */
	PEER_ABORTED,        /* client: the connection failed */
};

struct doca_comm_channel_addr_t {
	TAILQ_ENTRY(doca_comm_channel_addr_t) next;
	struct doca_comm_channel_ep_t *ep;
	struct doca_comch_connection *conn;
	enum ep_peer_state state;
	uint64_t user_data;
	uint32_t sends;              /* send tasks not yet called back */
	uint64_t snap[5];            /* update_info(): sent, sent bytes, recv, recv bytes, in flight */
};

/* A received message, or (reset) the news that its peer is gone. */
struct ep_msg {
	TAILQ_ENTRY(ep_msg) next;
	struct doca_comm_channel_addr_t *peer;
	bool reset;
	uint32_t len;
	uint8_t data[];
};

struct doca_comm_channel_ep_t {
	pthread_mutex_t lock;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	uint16_t max_msg;
	uint16_t send_queue;
	uint16_t recv_queue;
	enum ep_role role;
	struct doca_pe *pe;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	struct doca_comm_channel_addr_t *client_peer;
	TAILQ_HEAD(, doca_comm_channel_addr_t) peers;
	TAILQ_HEAD(, ep_msg) rxq;
	/* Messages in rxq; at recv_queue, the endpoint stops taking from the
	 * rings, so a peer that sends faster than the application reads
	 * meets back pressure in its own ring. */
	uint32_t rxq_len;
	uint32_t nb_pending;         /* service: PEER_PENDING peers */
	uint32_t send_free;          /* send tasks free */
	bool service_changed;        /* a client came or went since the last update */
	struct doca_comm_channel_addr_t **snapshot;
	uint32_t snapshot_len;
	uint32_t snapshot_pending;
	struct dc_wait *w_send;
	struct dc_wait *w_recv;
	struct dc_wait *w_service;
};

/* ------------------------------------------------------------ capabilities */

DC_EXPORT doca_error_t
doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len)
{
	if (max_service_name_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_service_name_len = EP_MAX_NAME;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo, uint32_t *max_message_size)
{
	return doca_comch_cap_get_max_msg_size(devinfo, max_message_size);
}

DC_EXPORT doca_error_t
doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo, uint32_t *max_send_queue_size)
{
	if (devinfo == NULL || max_send_queue_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_send_queue_size = EP_MAX_SEND_QUEUE;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size)
{
	return doca_comch_cap_get_max_recv_queue_size(devinfo, max_recv_queue_size);
}

DC_EXPORT doca_error_t
doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo, uint32_t *max_num_connections)
{
	if (devinfo == NULL || max_num_connections == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (doca_comch_cap_server_is_supported(devinfo) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_SUPPORTED;
	return doca_comch_cap_get_max_clients(devinfo, max_num_connections);
}

/* ------------------------------------------------------------- internals */

/*
 * Progress the private engine: at most EP_PROGRESS_TURNS turns. While the
 * received backlog is at its bound (one turn may take what the rings
 * hold, so it stays below recv_queue + one turn's take), nothing new is
 * taken: only the waiting sends are retried and their completions run,
 * so an application that answers what it read is never left without
 * send tasks by its own backlog.
 */
static void
ep_progress(struct doca_comm_channel_ep_t *ep)
{
	unsigned int i;

	if (ep->pe == NULL)
		return;
	for (i = 0; i < EP_PROGRESS_TURNS; i++) {
		if (ep->rxq_len >= ep->recv_queue) {
			dcc_flush_sends(ep->srv, ep->cli);
			dc_pe_complete(ep->pe);
			return;
		}
		if (doca_pe_progress(ep->pe) == 0)
			break;
	}
}

static void
ep_msg_unlink(struct doca_comm_channel_ep_t *ep, struct ep_msg *m)
{
	TAILQ_REMOVE(&ep->rxq, m, next);
	ep->rxq_len--;
}

static struct ep_msg *
ep_msg_new(struct doca_comm_channel_addr_t *peer, const void *data, uint32_t len, bool reset)
{
	struct ep_msg *m = malloc(sizeof(*m) + len);

	if (m == NULL)
		return NULL;
	m->peer = peer;
	m->reset = reset;
	m->len = len;
	if (len != 0)
		memcpy(m->data, data, len);
	TAILQ_INSERT_TAIL(&peer->ep->rxq, m, next);
	peer->ep->rxq_len++;
	return m;
}

static struct doca_comm_channel_addr_t *
ep_peer_new(struct doca_comm_channel_ep_t *ep, struct doca_comch_connection *conn, enum ep_peer_state state)
{
	struct doca_comm_channel_addr_t *peer = calloc(1, sizeof(*peer));

	if (peer == NULL)
		return NULL;
	peer->ep = ep;
	peer->conn = conn;
	peer->state = state;
	if (conn != NULL)
		conn->ep_peer = peer;
	TAILQ_INSERT_TAIL(&ep->peers, peer, next);
	return peer;
}

/* The peer is gone: after its messages, recvfrom reports it once. */
static void
ep_peer_lost(struct doca_comm_channel_addr_t *peer)
{
	if (peer->state == PEER_LOST || peer->state == PEER_ABORTED)
		return;
	if (peer->state == PEER_PENDING)
		peer->ep->nb_pending--;
	peer->state = PEER_LOST;
	peer->ep->service_changed = true;
	if (ep_msg_new(peer, NULL, 0, true) == NULL)
		DC_ERR("comm channel: out of memory to report a lost peer");
}

static void
ep_peer_free(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	struct ep_msg *m, *tmp;

	DC_TAILQ_FOREACH_SAFE(m, &ep->rxq, next, tmp) {
		if (m->peer == peer) {
			ep_msg_unlink(ep, m);
			free(m);
		}
	}
	if (peer->state == PEER_PENDING)
		ep->nb_pending--;
	if (peer->conn != NULL)
		peer->conn->ep_peer = NULL;
	if (ep->client_peer == peer)
		ep->client_peer = NULL;
	TAILQ_REMOVE(&ep->peers, peer, next);
	free(peer);
}

static struct doca_comm_channel_ep_t *
ep_of_ctx_data(union doca_data ud)
{
	return ud.ptr;
}

/* Callbacks of the private engine: they run in ep_progress(), on the
 * application's thread or the watcher's, always under ep->lock. */
static void
ep_on_msg(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
	  struct doca_comch_connection *conn)
{
	struct doca_comm_channel_addr_t *peer = conn->ep_peer;

	(void)event;
	if (peer != NULL && ep_msg_new(peer, buf, len, false) == NULL)
		DC_ERR("comm channel: out of memory: a message of %u bytes is dropped", len);
}

static void
ep_on_connect(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
	      uint8_t ok)
{
	struct doca_comm_channel_ep_t *ep;
	union doca_data ud;

	(void)event;
	(void)ok;
	doca_ctx_get_user_data(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn)), &ud);
	ep = ep_of_ctx_data(ud);
	if (ep_peer_new(ep, conn, PEER_PENDING) == NULL) {
		DC_ERR("comm channel: out of memory for a new client; disconnecting it");
		doca_comch_server_disconnect(ep->srv, conn);
		return;
	}
	ep->nb_pending++;
	ep->service_changed = true;
}

/* The server frees the connection once this returns (comch_ctrl.c): the
 * peer forgets it. */
static void
ep_on_disconnect(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		 uint8_t ok)
{
	struct doca_comm_channel_addr_t *peer = conn->ep_peer;

	(void)event;
	(void)ok;
	if (peer == NULL)
		return;
	ep_peer_lost(peer);
	peer->conn = NULL;
	conn->ep_peer = NULL;
}

/* Unlink a peer from its connection before the connection goes. */
static void
ep_peer_detach(struct doca_comm_channel_addr_t *peer)
{
	if (peer->conn != NULL)
		peer->conn->ep_peer = NULL;
	peer->conn = NULL;
}

static void
ep_on_client_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		   enum doca_ctx_states next)
{
	struct doca_comm_channel_ep_t *ep = ep_of_ctx_data(ud);
	struct doca_comm_channel_addr_t *peer = ep->client_peer;
	struct doca_comch_connection *conn;

	(void)ctx;
	if (peer == NULL)
		return;
	if (next == DOCA_CTX_STATE_RUNNING) {
		if (doca_comch_client_get_connection(ep->cli, &conn) == DOCA_SUCCESS) {
			peer->conn = conn;
			conn->ep_peer = peer;
			peer->state = PEER_CONNECTED;
		}
	} else if (prev == DOCA_CTX_STATE_STARTING && next == DOCA_CTX_STATE_IDLE) {
		peer->state = PEER_ABORTED;
		DC_ERR("comm channel: connect failed: %s (as documented, connect fails when the service does not listen yet)",
		       strerror(-dcc_client_last_error(ep->cli)));
	} else if (next == DOCA_CTX_STATE_STOPPING && prev == DOCA_CTX_STATE_RUNNING) {
		ep_peer_lost(peer);
	}
}

static void
ep_on_sent(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct doca_comm_channel_ep_t *ep = ep_of_ctx_data(ctx_ud);
	struct doca_comm_channel_addr_t *peer = task_ud.ptr;

	if (peer != NULL)
		peer->sends--;
	ep->send_free++;
	doca_task_free(doca_comch_task_send_as_task(task));
}

/* Probes: does the channel have something for the application? They run
 * with ep->lock held (watcher or arm). */
static bool
ep_probe_recv(void *obj)
{
	struct doca_comm_channel_ep_t *ep = obj;

	if (TAILQ_EMPTY(&ep->rxq))
		ep_progress(ep);
	return !TAILQ_EMPTY(&ep->rxq);
}

static bool
ep_can_send(const struct doca_comm_channel_ep_t *ep)
{
	if (ep->send_free == 0)
		return false;
	if (ep->role == EP_CLIENT)
		return ep->client_peer != NULL && ep->client_peer->state != PEER_CONNECTING;
	return true;
}

static bool
ep_probe_send(void *obj)
{
	struct doca_comm_channel_ep_t *ep = obj;

	if (!ep_can_send(ep))
		ep_progress(ep);
	return ep_can_send(ep);
}

static bool
ep_probe_service(void *obj)
{
	struct doca_comm_channel_ep_t *ep = obj;

	if (!ep->service_changed)
		ep_progress(ep);
	return ep->service_changed;
}

static doca_error_t
ep_waits_create(struct doca_comm_channel_ep_t *ep)
{
	ep->w_send = dc_wait_create("comm channel send", ep_probe_send, ep, &ep->lock);
	ep->w_recv = dc_wait_create("comm channel recv", ep_probe_recv, ep, &ep->lock);
	if (ep->role == EP_SERVICE)
		ep->w_service = dc_wait_create("comm channel service", ep_probe_service, ep, &ep->lock);
	if (ep->w_send == NULL || ep->w_recv == NULL || (ep->role == EP_SERVICE && ep->w_service == NULL))
		return DOCA_ERROR_OPERATING_SYSTEM;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------- endpoint */

DC_EXPORT doca_error_t
doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep)
{
	struct doca_comm_channel_ep_t *e;
	doca_error_t ret;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ret = dc_env_init();
	if (ret != DOCA_SUCCESS)
		return ret;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_init(&e->lock, NULL);
	TAILQ_INIT(&e->peers);
	TAILQ_INIT(&e->rxq);
	e->send_queue = EP_DEFAULT_QUEUE;
	e->recv_queue = EP_DEFAULT_QUEUE;
	*ep = e;
	return DOCA_SUCCESS;
}

static doca_error_t
ep_configurable(struct doca_comm_channel_ep_t *ep)
{
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ep->role != EP_IDLE) {
		DC_ERR("comm channel: set endpoint properties before listen/connect");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *ep, struct doca_dev *device)
{
	doca_error_t ret = ep_configurable(ep);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (device == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ep->dev = device;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *ep, struct doca_dev_rep *device_rep)
{
	doca_error_t ret = ep_configurable(ep);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (device_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ep->rep = device_rep;
	return DOCA_SUCCESS;
}

static uint16_t
ep_queue_size(uint16_t v, uint32_t max)
{
	uint32_t s = rte_align32pow2(RTE_MAX(v, (uint16_t)EP_MIN_QUEUE));

	return (uint16_t)RTE_MIN(s, max);
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t max_msg_size)
{
	doca_error_t ret = ep_configurable(ep);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (max_msg_size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	ep->max_msg = RTE_MAX(max_msg_size, (uint16_t)EP_MIN_MSG);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t send_queue_size)
{
	doca_error_t ret = ep_configurable(ep);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (send_queue_size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	ep->send_queue = ep_queue_size(send_queue_size, EP_MAX_SEND_QUEUE);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t recv_queue_size)
{
	doca_error_t ret = ep_configurable(ep);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (recv_queue_size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	ep->recv_queue = ep_queue_size(recv_queue_size, 8192);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *ep, struct doca_dev **device)
{
	if (ep == NULL || device == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*device = ep->dev;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *ep, struct doca_dev_rep **device_rep)
{
	if (ep == NULL || device_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*device_rep = ep->rep;
	return DOCA_SUCCESS;
}

/* The message size in use: as set, else the device default. */
static uint16_t
ep_msg_size(const struct doca_comm_channel_ep_t *ep)
{
	uint32_t max;

	if (ep->max_msg != 0)
		return ep->max_msg;
	if (ep->dev == NULL || doca_comch_cap_get_max_msg_size(ep->dev->info, &max) != DOCA_SUCCESS)
		return 4080;
	return (uint16_t)RTE_MIN(max, (uint32_t)UINT16_MAX);
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t *max_msg_size)
{
	if (ep == NULL || max_msg_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_msg_size = ep_msg_size(ep);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *send_queue_size)
{
	if (ep == NULL || send_queue_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*send_queue_size = ep->send_queue;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *recv_queue_size)
{
	if (ep == NULL || recv_queue_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*recv_queue_size = ep->recv_queue;
	return DOCA_SUCCESS;
}

/* Configure the context of a service or client: our callbacks, sizes. */
static doca_error_t
ep_ctx_setup(struct doca_comm_channel_ep_t *ep, struct doca_ctx *ctx)
{
	union doca_data ud = { .ptr = ep };
	doca_error_t ret;

	ret = doca_pe_create(&ep->pe);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_set_user_data(ctx, ud);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(ep->pe, ctx);
	ep->send_free = ep->send_queue;
	return ret;
}

static void
ep_teardown(struct doca_comm_channel_ep_t *ep)
{
	struct doca_ctx *ctx = ep->srv != NULL ? doca_comch_server_as_ctx(ep->srv) :
		ep->cli != NULL ? doca_comch_client_as_ctx(ep->cli) : NULL;
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	if (ctx != NULL) {
		doca_ctx_get_state(ctx, &st);
		if (st != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(ctx);
		do {
			doca_pe_progress(ep->pe);
			doca_ctx_get_state(ctx, &st);
		} while (st != DOCA_CTX_STATE_IDLE);
	}
	if (ep->srv != NULL)
		doca_comch_server_destroy(ep->srv);
	if (ep->cli != NULL)
		doca_comch_client_destroy(ep->cli);
	if (ep->pe != NULL)
		doca_pe_destroy(ep->pe);
	ep->srv = NULL;
	ep->cli = NULL;
	ep->pe = NULL;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name)
{
	struct doca_comch_server *srv = NULL;
	doca_error_t ret;

	if (local_ep == NULL || name == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (local_ep->role != EP_IDLE) {
		ret = DOCA_ERROR_NOT_PERMITTED;
		goto out;
	}
	if (local_ep->dev == NULL || local_ep->rep == NULL) {
		DC_ERR("comm channel: listen: set the device and its representor first");
		ret = DOCA_ERROR_BAD_STATE;
		goto out;
	}
	ret = doca_comch_server_create(local_ep->dev, local_ep->rep, name, &srv);
	if (ret != DOCA_SUCCESS)
		goto out;
	local_ep->srv = srv;
	ret = doca_comch_server_set_max_msg_size(srv, ep_msg_size(local_ep));
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_set_recv_queue_size(srv, local_ep->recv_queue);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_task_send_set_conf(srv, ep_on_sent, ep_on_sent, local_ep->send_queue);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_msg_recv_register(srv, ep_on_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_connection_status_changed_register(srv, ep_on_connect,
										 ep_on_disconnect);
	if (ret == DOCA_SUCCESS)
		ret = ep_ctx_setup(local_ep, doca_comch_server_as_ctx(srv));
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_start(doca_comch_server_as_ctx(srv));
	if (ret != DOCA_SUCCESS) {
		ep_teardown(local_ep);
		if (ret == DOCA_ERROR_ALREADY_EXIST || ret == DOCA_ERROR_IN_USE)
			ret = DOCA_ERROR_CONNECTION_ABORTED;
		goto out;
	}
	local_ep->role = EP_SERVICE;
	ret = ep_waits_create(local_ep);
out:
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep, const char *name,
			     struct doca_comm_channel_addr_t **peer_addr)
{
	struct doca_comch_client *cli = NULL;
	struct doca_comm_channel_addr_t *peer;
	doca_error_t ret;

	if (local_ep == NULL || name == NULL || peer_addr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (local_ep->role == EP_SERVICE || local_ep->client_peer != NULL) {
		ret = DOCA_ERROR_NOT_PERMITTED;
		goto out;
	}
	if (local_ep->dev == NULL) {
		DC_ERR("comm channel: connect: set the device first");
		ret = DOCA_ERROR_BAD_STATE;
		goto out;
	}
	if (local_ep->cli == NULL) {
		ret = doca_comch_client_create(local_ep->dev, name, &cli);
		if (ret != DOCA_SUCCESS)
			goto out;
		local_ep->cli = cli;
		dcc_client_set_retry(cli, false);
		ret = doca_comch_client_set_max_msg_size(cli, ep_msg_size(local_ep));
		if (ret == DOCA_SUCCESS)
			ret = doca_comch_client_set_recv_queue_size(cli, local_ep->recv_queue);
		if (ret == DOCA_SUCCESS)
			ret = doca_comch_client_task_send_set_conf(cli, ep_on_sent, ep_on_sent,
								   local_ep->send_queue);
		if (ret == DOCA_SUCCESS)
			ret = doca_comch_client_event_msg_recv_register(cli, ep_on_msg);
		if (ret == DOCA_SUCCESS)
			ret = doca_ctx_set_state_changed_cb(doca_comch_client_as_ctx(cli), ep_on_client_state);
		if (ret == DOCA_SUCCESS)
			ret = ep_ctx_setup(local_ep, doca_comch_client_as_ctx(cli));
		if (ret != DOCA_SUCCESS) {
			ep_teardown(local_ep);
			goto out;
		}
	} else if (strcmp(name, local_ep->cli->c.name) != 0) {
		DC_ERR("comm channel: connect: this endpoint connects to \"%s\"; use another endpoint for \"%s\"",
		       local_ep->cli->c.name, name);
		ret = DOCA_ERROR_NOT_PERMITTED;
		goto out;
	}
	peer = ep_peer_new(local_ep, NULL, PEER_CONNECTING);
	if (peer == NULL) {
		ret = DOCA_ERROR_NO_MEMORY;
		goto out;
	}
	local_ep->client_peer = peer;
	local_ep->send_free = local_ep->send_queue;
	ret = doca_ctx_start(doca_comch_client_as_ctx(local_ep->cli));
	if (ret != DOCA_ERROR_IN_PROGRESS && ret != DOCA_SUCCESS) {
		ep_peer_free(local_ep, peer);
		goto out;
	}
	if (local_ep->role == EP_IDLE) {
		local_ep->role = EP_CLIENT;
		ret = ep_waits_create(local_ep);
		if (ret != DOCA_SUCCESS)
			goto out;
	}
	*peer_addr = peer;
	ret = DOCA_SUCCESS;
out:
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

static bool
ep_owns(const struct doca_comm_channel_ep_t *ep, const struct doca_comm_channel_addr_t *peer)
{
	const struct doca_comm_channel_addr_t *p;

	TAILQ_FOREACH(p, &ep->peers, next)
		if (p == peer)
			return true;
	return false;
}

/* A send task for @p peer, or why not: the peer's state first. */
static doca_error_t
ep_send_alloc(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer, const void *msg,
	      size_t len, struct doca_comch_task_send **task)
{
	doca_error_t ret;

	switch (peer->state) {
	case PEER_CONNECTING:
		return DOCA_ERROR_AGAIN;
	case PEER_LOST:
		return DOCA_ERROR_CONNECTION_RESET;
	case PEER_ABORTED:
		return DOCA_ERROR_NOT_CONNECTED;
	default:
		break;
	}
	if (peer->conn == NULL)
		return DOCA_ERROR_CONNECTION_RESET;
	ret = ep->role == EP_SERVICE ?
		doca_comch_server_task_send_alloc_init(ep->srv, peer->conn, msg, (uint32_t)len, task) :
		doca_comch_client_task_send_alloc_init(ep->cli, peer->conn, msg, (uint32_t)len, task);
	/* A released connection is one whose peer is gone. */
	if (ret == DOCA_ERROR_NOT_CONNECTED && ep->role == EP_SERVICE)
		ret = DOCA_ERROR_CONNECTION_RESET;
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep, const void *msg, size_t len, int flags,
			    struct doca_comm_channel_addr_t *peer_addr)
{
	struct doca_comch_task_send *task;
	union doca_data ud = { .ptr = peer_addr };
	doca_error_t ret;

	if (local_ep == NULL || msg == NULL || flags != DOCA_CC_MSG_FLAG_NONE)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (peer_addr == NULL || !ep_owns(local_ep, peer_addr)) {
		ret = DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}
	if (len > ep_msg_size(local_ep)) {
		ret = DOCA_ERROR_INVALID_VALUE;
		goto out;
	}
	/* Progress first, then look at the peer: a peer that left during the
	 * progress is reported as gone (CONNECTION_RESET), like any other. */
	if (peer_addr->state == PEER_CONNECTING || local_ep->send_free == 0)
		ep_progress(local_ep);
	ret = ep_send_alloc(local_ep, peer_addr, msg, len, &task);
	if (ret == DOCA_ERROR_NO_MEMORY) {
		/* No task for this peer: its sends may have completed since. */
		ep_progress(local_ep);
		ret = ep_send_alloc(local_ep, peer_addr, msg, len, &task);
	}
	if (ret == DOCA_ERROR_NO_MEMORY) {
		ret = DOCA_ERROR_AGAIN;   /* the send queue (or this peer's share) is full */
		goto out;
	}
	if (ret != DOCA_SUCCESS)
		goto out;
	doca_task_set_user_data(doca_comch_task_send_as_task(task), ud);
	ret = doca_task_submit(doca_comch_task_send_as_task(task));
	if (ret != DOCA_SUCCESS) {
		doca_task_free(doca_comch_task_send_as_task(task));
		goto out;
	}
	local_ep->send_free--;
	peer_addr->sends++;
out:
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

/* The next handshake recvfrom completes: every pending client. */
static void
ep_complete_handshakes(struct doca_comm_channel_ep_t *ep)
{
	struct doca_comm_channel_addr_t *peer;

	if (ep->nb_pending == 0)
		return;
	TAILQ_FOREACH(peer, &ep->peers, next) {
		if (peer->state == PEER_PENDING) {
			peer->state = PEER_CONNECTED;
			ep->nb_pending--;
		}
	}
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep, void *msg, size_t *len, int flags,
			      struct doca_comm_channel_addr_t **peer_addr)
{
	struct ep_msg *m;
	doca_error_t ret;

	if (local_ep == NULL || msg == NULL || len == NULL || peer_addr == NULL ||
	    flags != DOCA_CC_MSG_FLAG_NONE)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (local_ep->role == EP_IDLE) {
		ret = DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}
	if (TAILQ_EMPTY(&local_ep->rxq))
		ep_progress(local_ep);
	if (local_ep->role == EP_SERVICE)
		ep_complete_handshakes(local_ep);
	m = TAILQ_FIRST(&local_ep->rxq);
	if (m == NULL) {
		ret = DOCA_ERROR_AGAIN;
		goto out;
	}
	ep_msg_unlink(local_ep, m);
	*peer_addr = m->peer;
	if (m->reset) {
		ret = DOCA_ERROR_CONNECTION_RESET;
	} else {
		if (m->len < *len)
			*len = m->len;
		memcpy(msg, m->data, *len);
		ret = DOCA_SUCCESS;
	}
	free(m);
out:
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep, struct doca_comm_channel_addr_t *peer_addr)
{
	doca_error_t ret = DOCA_SUCCESS;

	if (local_ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (peer_addr == NULL || !ep_owns(local_ep, peer_addr)) {
		ret = DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}
	if (local_ep->role == EP_SERVICE) {
		if (peer_addr->conn != NULL && !peer_addr->conn->released)
			ret = doca_comch_server_disconnect(local_ep->srv, peer_addr->conn);
		if (ret != DOCA_SUCCESS)
			goto out;
		/* Released: the server frees it at a coming progress. */
		ep_peer_detach(peer_addr);
		/* Block until its sends are called back (flushed ones too). */
		while (peer_addr->sends != 0)
			doca_pe_progress(local_ep->pe);
	} else {
		struct doca_ctx *ctx = doca_comch_client_as_ctx(local_ep->cli);
		enum doca_ctx_states st;

		doca_ctx_get_state(ctx, &st);
		if (st != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(ctx);
		do {
			doca_pe_progress(local_ep->pe);
			doca_ctx_get_state(ctx, &st);
		} while (st != DOCA_CTX_STATE_IDLE);
	}
	ep_peer_free(local_ep, peer_addr);
out:
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep)
{
	struct doca_comm_channel_addr_t *peer;
	struct ep_msg *m;

	if (local_ep == NULL)
		return DOCA_ERROR_NOT_CONNECTED;
	/* The watcher must not probe what is being freed. */
	dc_wait_destroy(local_ep->w_send);
	dc_wait_destroy(local_ep->w_recv);
	dc_wait_destroy(local_ep->w_service);
	pthread_mutex_lock(&local_ep->lock);
	/* The server or client frees its connections as it stops: the peers
	 * let go of them first (they stay until the sends are called back). */
	TAILQ_FOREACH(peer, &local_ep->peers, next)
		ep_peer_detach(peer);
	ep_teardown(local_ep);
	while ((peer = TAILQ_FIRST(&local_ep->peers)) != NULL)
		ep_peer_free(local_ep, peer);
	while ((m = TAILQ_FIRST(&local_ep->rxq)) != NULL) {
		ep_msg_unlink(local_ep, m);
		free(m);
	}
	free(local_ep->snapshot);
	pthread_mutex_unlock(&local_ep->lock);
	pthread_mutex_destroy(&local_ep->lock);
	free(local_ep);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------- event channels */

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *local_ep,
				       doca_event_channel_t *send_event_channel,
				       doca_event_channel_t *recv_event_channel)
{
	doca_error_t ret = DOCA_SUCCESS;

	if (local_ep == NULL || (send_event_channel == NULL && recv_event_channel == NULL))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (local_ep->role == EP_IDLE || local_ep->w_send == NULL) {
		ret = DOCA_ERROR_BAD_STATE;
	} else {
		if (send_event_channel != NULL)
			*send_event_channel = dc_wait_fd(local_ep->w_send);
		if (recv_event_channel != NULL)
			*recv_event_channel = dc_wait_fd(local_ep->w_recv);
	}
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_service_event_channel(struct doca_comm_channel_ep_t *local_ep,
					       doca_event_channel_t *service_event_channel)
{
	doca_error_t ret = DOCA_SUCCESS;

	if (local_ep == NULL || service_event_channel == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (local_ep->role == EP_CLIENT)
		ret = DOCA_ERROR_NOT_SUPPORTED;
	else if (local_ep->role == EP_IDLE || local_ep->w_service == NULL)
		ret = DOCA_ERROR_BAD_STATE;
	else
		*service_event_channel = dc_wait_fd(local_ep->w_service);
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

static doca_error_t
ep_arm(struct doca_comm_channel_ep_t *ep, bool send)
{
	doca_error_t ret = DOCA_SUCCESS;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&ep->lock);
	if (ep->w_send == NULL)
		ret = DOCA_ERROR_BAD_STATE;
	else
		dc_wait_arm(send ? ep->w_send : ep->w_recv);
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *local_ep)
{
	return ep_arm(local_ep, true);
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *local_ep)
{
	return ep_arm(local_ep, false);
}

/* -------------------------------------------------------- service state */

DC_EXPORT doca_error_t
doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *local_ep)
{
	struct doca_comm_channel_addr_t *peer;
	doca_error_t ret = DOCA_SUCCESS;
	uint32_t n = 0;

	if (local_ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&local_ep->lock);
	if (local_ep->role != EP_SERVICE) {
		ret = local_ep->role == EP_CLIENT ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_BAD_STATE;
		goto out;
	}
	ep_progress(local_ep);
	free(local_ep->snapshot);
	local_ep->snapshot = NULL;
	TAILQ_FOREACH(peer, &local_ep->peers, next)
		n += peer->state == PEER_CONNECTED;
	local_ep->snapshot = calloc(n + 1, sizeof(*local_ep->snapshot));
	if (local_ep->snapshot == NULL) {
		ret = DOCA_ERROR_NO_MEMORY;
		goto out;
	}
	n = 0;
	TAILQ_FOREACH(peer, &local_ep->peers, next)
		if (peer->state == PEER_CONNECTED)
			local_ep->snapshot[n++] = peer;
	local_ep->snapshot_len = n;
	local_ep->snapshot_pending = local_ep->nb_pending;
	local_ep->service_changed = false;
	/* The service channel re-arms with each update. */
	dc_wait_arm(local_ep->w_service);
out:
	pthread_mutex_unlock(&local_ep->lock);
	return ret;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_peer_addr_list(const struct doca_comm_channel_ep_t *local_ep,
					struct doca_comm_channel_addr_t ***peer_addr_array,
					uint32_t *peer_addr_array_len)
{
	if (local_ep == NULL || peer_addr_array == NULL || peer_addr_array_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (local_ep->role != EP_SERVICE)
		return DOCA_ERROR_NOT_SUPPORTED;
	*peer_addr_array = local_ep->snapshot;
	*peer_addr_array_len = local_ep->snapshot_len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_ep_get_pending_connections(const struct doca_comm_channel_ep_t *local_ep,
					     uint32_t *pending_connections)
{
	if (local_ep == NULL || pending_connections == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (local_ep->role != EP_SERVICE)
		return DOCA_ERROR_NOT_SUPPORTED;
	*pending_connections = local_ep->snapshot_pending;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------ peer addr */

DC_EXPORT doca_error_t
doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr, uint64_t user_context)
{
	if (peer_addr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	peer_addr->user_data = user_context;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr, uint64_t *user_data)
{
	if (peer_addr == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = peer_addr->user_data;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr)
{
	struct doca_comm_channel_ep_t *ep;
	struct doca_comch_task_send *t;
	struct rte_comch_conn_stats st;
	doca_error_t ret = DOCA_SUCCESS;
	uint64_t queued = 0;

	if (peer_addr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ep = peer_addr->ep;
	pthread_mutex_lock(&ep->lock);
	ep_progress(ep);
	switch (peer_addr->state) {
	case PEER_CONNECTING:
		ret = DOCA_ERROR_CONNECTION_INPROGRESS;
		break;
	case PEER_LOST:
	case PEER_ABORTED:
		ret = DOCA_ERROR_CONNECTION_ABORTED;
		break;
	default:
		if (peer_addr->conn == NULL || rte_comch_conn_stats_get(peer_addr->conn->rte, &st) != 0) {
			ret = DOCA_ERROR_CONNECTION_ABORTED;
			break;
		}
		/* In flight: in the peer's queue, not yet taken, and what
		 * still waits here for room in it. */
		TAILQ_FOREACH(t, &peer_addr->conn->pending, next)
			queued++;
		peer_addr->snap[0] = st.msgs_sent;
		peer_addr->snap[1] = st.bytes_sent;
		peer_addr->snap[2] = st.msgs_recv;
		peer_addr->snap[3] = st.bytes_recv;
		peer_addr->snap[4] = st.msgs_in_flight + queued;
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

#define EP_PEER_GETTER(fn, i) \
	DC_EXPORT doca_error_t \
	fn(const struct doca_comm_channel_addr_t *peer_addr, uint64_t *out) \
	{ \
		if (peer_addr == NULL || out == NULL) \
			return DOCA_ERROR_INVALID_VALUE; \
		*out = peer_addr->snap[i]; \
		return DOCA_SUCCESS; \
	}

EP_PEER_GETTER(doca_comm_channel_peer_addr_get_send_messages, 0)
EP_PEER_GETTER(doca_comm_channel_peer_addr_get_send_bytes, 1)
EP_PEER_GETTER(doca_comm_channel_peer_addr_get_recv_messages, 2)
EP_PEER_GETTER(doca_comm_channel_peer_addr_get_recv_bytes, 3)
EP_PEER_GETTER(doca_comm_channel_peer_addr_get_send_in_flight_messages, 4)
