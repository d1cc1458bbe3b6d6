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

/** This is a secondary process (set when the first device attaches). */
extern bool comch_in_secondary;

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

/** Refuse new producers/consumers and attachments on @p conn before
 * releasing it: 0, or -EBUSY (logged as "<who>: cannot <what>, ...") if
 * some exist. */
int comch_conn_close_begin(struct rte_comch_conn *conn, const char *who,
		const char *what);

/** The same check without the lock, nothing changed (logged). */
int comch_conn_busy(const struct rte_comch_conn *conn, const char *who,
		const char *what);

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

/* ----------------------------------------------- producers and consumers */

enum comch_fp_kind {
	COMCH_FP_CONSUMER = 1,
	COMCH_FP_PRODUCER = 2,
};

/** Primary: allocate, number and link a producer or consumer of @p owner
 * (zeroed driver state at fp.drv). NULL with rte_errno set (ENOTCONN,
 * ENOSPC, ENOMEM, ENODEV) and a log line. */
void *comch_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t imm_data_len, uint32_t owner,
		int32_t owner_pid);

/** Primary: unlink and free what comch_fp_alloc() returned, then tell the
 * driver (fp_release). */
void comch_fp_free(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		void *obj);

/* --------------------------------------- multi-process (comch_mp.c) */

/** Primary: start answering secondary processes (at the first device). */
void comch_mp_primary_init(void);
/** Primary: the last device is gone; let go of every secondary. */
void comch_mp_primary_fini(void);
/** Secondary: register with the primary (at the first device; again
 * after comch_mp_secondary_fini()). */
int comch_mp_secondary_init(void);
/** Secondary: the last device is gone; hang up on the primary (which
 * reclaims whatever this process left). */
void comch_mp_secondary_fini(void);
/** Secondary: whether the primary process is known to be gone. */
bool comch_mp_primary_gone(void);
/** Secondary: whether this process attached @p conn. */
bool comch_mp_conn_attached(const struct rte_comch_conn *conn);
/** Secondary: ask the primary for a new producer or consumer block. */
void *comch_mp_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t imm_data_len);
/** Secondary: ask the primary to free one (nothing if it is gone). */
void comch_mp_fp_free(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		void *obj);
/** Secondary: connection statistics from the primary. */
int comch_mp_conn_stats(struct rte_comch_conn *conn,
		struct rte_comch_conn_stats *stats);
/** Primary: find a connection of this process by id, under
 * comch_registry_lock (held by the caller). */
struct rte_comch_conn *comch_conn_find_locked(int16_t dev_id,
		uint32_t conn_id);
/** Ids of this process's connections on a device from @p start on: the
 * @p max smallest, ascending; returns how many there are. */
uint32_t comch_conn_ids(int16_t dev_id, uint32_t start, uint32_t *ids,
		uint32_t max);

/** Point a device's fast-path slot back at the dummy functions. */
void comch_fp_ops_reset(int16_t dev_id);

/** Deliver received messages of @p conn to @p cb; returns count. */
int comch_conn_dispatch(struct rte_comch_conn *conn, rte_comch_msg_cb_t cb,
		void *arg);

#endif /* COMCH_PRIVATE_H */
