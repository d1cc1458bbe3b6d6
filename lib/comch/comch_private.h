/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PRIVATE_H
#define COMCH_PRIVATE_H

#include <rte_log.h>
#include <rte_spinlock.h>

#include "rte_comch_pmd.h"

extern int rte_comch_logtype;
#define RTE_LOGTYPE_COMCH rte_comch_logtype

#define COMCH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rte_comch_logtype, "comch: " fmt "\n", \
		## __VA_ARGS__)

/** Per-process device table, indexed by dev_id. */
extern struct rte_comch_dev rte_comch_devices[RTE_COMCH_MAX_DEVS];

/** Attached device for @p dev_id, or NULL. */
struct rte_comch_dev *comch_dev_get(int16_t dev_id);

/* --------------------------------------------------------- state machine */

/** What happens to an object; the table in comch_state.c says where each
 * event leads from each state. */
enum comch_event {
	COMCH_EV_START,        /**< Application starts the object. */
	COMCH_EV_READY,        /**< Transport ready (connected / listening). */
	COMCH_EV_START_FAILED, /**< Asynchronous start failed. */
	COMCH_EV_STOP,         /**< Application stops the object. */
	COMCH_EV_FATAL,        /**< Peer gone or protocol violation. */
	COMCH_EV_DRAINED,      /**< Nothing outstanding any more. */
	COMCH_EV__MAX
};

/** What the application asks of an object; the table says in which states
 * each is allowed. */
enum comch_op {
	COMCH_OP_CONFIGURE, /**< Change configuration or callbacks. */
	COMCH_OP_START,
	COMCH_OP_STOP,
	COMCH_OP_DESTROY,
	COMCH_OP_SEND,      /**< Submit work (messages, buffers). */
	COMCH_OP__MAX
};

/** Apply @p ev to @p *state. Returns 0, or -EBUSY if @p ev is not allowed
 * in the current state (state unchanged). */
int comch_state_apply(enum rte_comch_state *state, enum comch_event ev);

/** Whether @p op is allowed in @p state. */
bool comch_state_allows(enum rte_comch_state state, enum comch_op op);

const char *comch_event_name(enum comch_event ev);

/* ------------------------------------------------------------- internals */

/** Refuse new producers/consumers on @p conn before releasing it: 0, or
 * -EBUSY if some exist. */
int comch_conn_close_begin(struct rte_comch_conn *conn);

/** Release a connection: driver close, unlink from its owner, free. */
void comch_conn_release(struct rte_comch_conn *conn);

/*
 * Registry of this process's servers and clients per device, for telemetry
 * (which runs on its own thread). comch_registry_lock guards the lists,
 * each server's connection list and each client's connection pointer;
 * it is taken on the control path only (create, destroy, connect, release).
 */
extern rte_spinlock_t comch_registry_lock;
void comch_registry_add_server(struct rte_comch_server *srv);
void comch_registry_del_server(struct rte_comch_server *srv);
void comch_registry_add_client(struct rte_comch_client *cli);
void comch_registry_del_client(struct rte_comch_client *cli);

/** In a secondary process: log that @p what is the primary's and set
 * rte_errno to ENOTSUP; returns true then. */
bool comch_secondary_refuses(const char *what);

/** Point a device's fast-path slot back at the dummy functions. */
void comch_fp_ops_reset(int16_t dev_id);

/** Deliver received messages of @p conn to @p cb; returns count. */
int comch_conn_dispatch(struct rte_comch_conn *conn, rte_comch_msg_cb_t cb,
		void *arg);

#endif /* COMCH_PRIVATE_H */
