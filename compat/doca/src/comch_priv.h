/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The Comch core of libdoca_comch: one implementation of servers,
 * clients, connections, consumers and producers over rte_comch_*. The
 * three vendor generations are faces of it: doca_comch_* (comch_ctrl.c,
 * comch_server.c, comch_client.c, comch_fp.c), doca_cc_* (cc_alias.c,
 * thin aliases) and the endpoint API
 * doca_comm_channel_* (comm_channel.c, built on the core's objects).
 */

#ifndef COMCH_PRIV_H
#define COMCH_PRIV_H

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>

#include "dc_priv.h"

struct doca_comch_connection {
	struct rte_comch_conn *rte;
	struct doca_comch_server *server;   /* exactly one of these two */
	struct doca_comch_client *client;
	union doca_data user_data;
	TAILQ_ENTRY(doca_comch_connection) next;
	/* Sends submitted while the peer's queue was full, in order. */
	TAILQ_HEAD(, doca_comch_task_send) pending;
	uint32_t nb_pending;     /* tasks in pending */
	uint32_t nb_fp;          /* producers and consumers on it */
	bool lost;               /* the peer left: sends fail */
	bool released;           /* its rte_comch_conn is gone */
	struct rte_comch_conn_stats snap;
	/* For the endpoint API (comm_channel.c). */
	void *ep_peer;
};

struct doca_comch_task_send {
	struct doca_task base;
	struct doca_comch_connection *conn;
	const void *msg;
	uint32_t len;
	bool copied;             /* msg points to copy[] */
	TAILQ_ENTRY(doca_comch_task_send) next;
	uint8_t *copy;           /* max_msg_size bytes, for a queued send */
};

/* What a server and a client share. */
struct dcc_common {
	struct doca_ctx ctx;
	struct doca_dev *dev;
	char name[RTE_COMCH_NAME_MAX];
	uint32_t max_msg_size;   /* 0 until set: the device default */
	uint32_t recv_queue_size;
	doca_comch_event_msg_recv_cb_t recv_cb;
	doca_comch_event_consumer_cb_t new_consumer_cb;
	doca_comch_event_consumer_cb_t expired_consumer_cb;
	struct dc_task_conf send_conf;
	struct dc_task_pool *send_pool;
	uint8_t *send_copies;    /* send_conf.num x max message size */
	uint32_t eff_msg_size;   /* the size in use (device default resolved) */
	/* The connection of the last message (saves a lookup per message). */
	const struct rte_comch_conn *last_rc;
	struct doca_comch_connection *last_conn;
};

struct doca_comch_server {
	struct dcc_common c;
	struct doca_dev_rep *rep;
	doca_comch_event_connection_status_changed_cb_t connect_cb;
	doca_comch_event_connection_status_changed_cb_t disconnect_cb;
	struct rte_comch_server *rte;
	TAILQ_HEAD(, doca_comch_connection) conns;      /* not released */
	/* Released, freed at the next progress that finds none of the
	 * server's send tasks on it (or at stop): after the disconnection
	 * callback returned, or doca_comch_server_disconnect(). */
	TAILQ_HEAD(, doca_comch_connection) released;
};

struct doca_comch_client {
	struct dcc_common c;
	struct rte_comch_client *rte;
	struct doca_comch_connection *conn;   /* from running until idle */
	bool retry;              /* keep asking while no server (default) */
	uint64_t retry_at;       /* ns: next attempt */
	int last_err;
};

/* The producer's and consumer's shared part. */
struct dcc_fp {
	struct doca_ctx ctx;
	struct doca_comch_connection *conn;
	struct dc_task_conf conf;
	struct dc_task_pool *pool;
};

struct doca_comch_consumer_task_post_recv {
	struct doca_task base;
	struct doca_buf *buf;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[RTE_COMCH_IMM_DATA_MAX];
	char *dst;               /* where the data goes: the buffer's tail */
	void *bounce;            /* the same offset in the consumer's region */
	uint32_t room;           /* bytes posted */
};

struct doca_comch_consumer {
	struct dcc_fp fp;
	struct doca_mmap *mmap;
	uint32_t id;
	uint32_t imm_len;        /* accepted immediate data */
	struct rte_comch_mem *mem;           /* the peer writes here ... */
	struct rte_comch_consumer *rte;
	/* ... into the same offsets as the posted buffers in the mmap:
	 * region address minus mmap address, taken once at start. */
	intptr_t bounce_delta;
	struct doca_comch_consumer_task_post_recv **posted;   /* ring, posting order */
	uint32_t ring_size;      /* power of two >= conf.num */
	uint32_t head, tail;     /* posted[tail .. head) are submitted */
	/* posted[tail .. staged) are with the peer; posted[staged .. head)
	 * are submitted and go to lib/comch in one burst at the next progress
	 * (or when a burst is full), as a doorbell would batch them. */
	uint32_t staged;
};

struct doca_comch_producer_task_send {
	struct doca_task base;
	const struct doca_buf *buf;
	uint32_t consumer_id;
	uint32_t imm_len;
	uint8_t imm[RTE_COMCH_IMM_DATA_MAX];
};

struct doca_comch_producer {
	struct dcc_fp fp;
	struct rte_comch_producer *rte;
};

/* comch_ctrl.c: what servers and clients share (for comch_server.c and
 * comch_client.c). */
/* Retry a connection's waiting sends, in order. */
int dcc_conn_flush(struct doca_comch_connection *conn);
/* Fail a connection's waiting sends with @p status. */
void dcc_conn_fail_pending(struct doca_comch_connection *conn, doca_error_t status);
doca_error_t dcc_send_alloc(struct dcc_common *c, struct doca_comch_connection *peer, const void *msg, uint32_t len,
	       struct doca_comch_task_send **task);
doca_error_t dcc_configurable(const struct dcc_common *c);
doca_error_t dcc_set_msg_size(struct dcc_common *c, uint32_t size);
doca_error_t dcc_get_msg_size(const struct dcc_common *c, uint32_t *size);
doca_error_t dcc_set_queue_size(struct dcc_common *c, uint32_t size);
doca_error_t dcc_get_queue_size(const struct dcc_common *c, uint32_t *size);
doca_error_t dcc_send_set_conf(struct dcc_common *c, doca_comch_task_send_completion_cb_t ok,
		  doca_comch_task_send_completion_cb_t err, uint32_t num);
/* At start: the send pool and the room for queued messages. */
doca_error_t dcc_common_start(struct dcc_common *c);
void dcc_common_free(struct dcc_common *c);
struct dcc_common *dcc_conn_owner(const struct doca_comch_connection *conn);
struct doca_comch_connection *dcc_conn_of(const struct rte_comch_conn *rc);
struct doca_comch_connection *dcc_conn_new(struct rte_comch_conn *rc);
/* rte_comch message callback: the application's, directly. The message is
 * a private copy of lib/comch, valid during the callback. */
void dcc_on_msg(struct rte_comch_conn *rc, const struct rte_comch_msg *msg, void *arg);
void dcc_on_consumer(struct rte_comch_conn *rc, uint32_t id, enum rte_comch_consumer_event ev, void *arg);

/* comch_server.c */
doca_error_t dcc_consumer_register(struct dcc_common *c, doca_comch_event_consumer_cb_t new_cb,
		      doca_comch_event_consumer_cb_t expired_cb);

/* Internal: a client that does not retry (the endpoint API's connect). */
void dcc_client_set_retry(struct doca_comch_client *client, bool retry);
/* Internal: the error of a client's failed start (negative errno). */
int dcc_client_last_error(const struct doca_comch_client *client);
/* Internal: release a lost connection once nothing uses it. */
void dcc_conn_try_release(struct doca_comch_connection *conn);

/* Internal: retry waiting sends only (no poll for messages or clients). */
void dcc_flush_sends(struct doca_comch_server *server, struct doca_comch_client *client);

/* For tests: released connections not freed yet. */
static inline uint32_t
dcc_server_nb_released(const struct doca_comch_server *server)
{
	const struct doca_comch_connection *conn;
	uint32_t n = 0;

	TAILQ_FOREACH(conn, &server->released, next)
		n++;
	return n;
}

#endif /* COMCH_PRIV_H */
