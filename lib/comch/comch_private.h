/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PRIVATE_H
#define COMCH_PRIVATE_H

/*
 * The library's internal declarations, by layer (see
 * doc/guides/prog_guide/comch_design.md): a file calls only into its own
 * layer or those below it.
 *
 *   3  public API    rte_comch.c comch_server.c comch_client.c comch_conn.c
 *                    comch_fp.c comch_telemetry.c
 *   2  processes     comch_proc.h: the table a process chooses at its first
 *                    device; comch_primary.c, comch_secondary.c, and the
 *                    primary's service to secondaries (comch_serve.c)
 *   1  bookkeeping   comch_local.c: what the primary does for itself and
 *                    for a secondary alike (producer/consumer blocks,
 *                    control messages); comch_remote.c: the peer's
 *                    consumers; comch_relay.c: a secondary's control
 *                    messages
 *   0  foundations   comch_dev.c (device table), comch_registry.c,
 *                    comch_state.c, comch_log
 *
 * Drivers sit below the library and call it back only through the
 * rte_comch_pmd_*() helpers (layer 3 and 1).
 */

#include <rte_log.h>
#include <rte_spinlock.h>

#include "rte_comch_pmd.h"

extern int rte_comch_logtype;

#define COMCH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rte_comch_logtype, "comch: " fmt "\n", \
		## __VA_ARGS__)

/* ------------------------------------------------ 0: the device table */

/** Per-process device table, indexed by dev_id. */
extern struct rte_comch_dev rte_comch_devices[RTE_COMCH_MAX_DEVS];

/** Attached device for @p dev_id, or NULL. */
struct rte_comch_dev *comch_dev_get(int16_t dev_id);

/** Information about an attached device (what rte_comch_info_get()
 * returns). */
int comch_dev_info(const struct rte_comch_dev *dev,
		struct rte_comch_dev_info *info);

/** The shared device data of every device: reserved (the primary) or
 * found, once. NULL on failure (rte_errno set, logged). */
struct rte_comch_dev_data *comch_dev_data_table(bool reserve);

/** Point a device's fast-path slot back at the dummy functions. */
void comch_fp_ops_reset(int16_t dev_id);

/* --------------------------------------------- 0: the state machine */

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

/* ------------------------------------------------- 0: the registry */

/*
 * This process's servers and clients per device: for telemetry (its own
 * thread) and for finding a connection by id (a secondary names it so).
 * comch_registry_lock guards the lists, each server's connection list and
 * each client's connection pointer; it is taken on the control path only.
 */
extern rte_spinlock_t comch_registry_lock;
void comch_registry_add_server(struct rte_comch_server *srv);
void comch_registry_del_server(struct rte_comch_server *srv);
void comch_registry_add_client(struct rte_comch_client *cli);
void comch_registry_del_client(struct rte_comch_client *cli);
/** Under comch_registry_lock: the connection of this process by id. */
struct rte_comch_conn *comch_conn_find_locked(int16_t dev_id,
		uint32_t conn_id);
/** Ids of this process's connections on a device from @p start on: the
 * @p max smallest, ascending; returns how many there are. */
uint32_t comch_conn_ids(int16_t dev_id, uint32_t start, uint32_t *ids,
		uint32_t max);
/** Every server and client of a device, for telemetry: @p fn is called
 * with comch_registry_lock held. */
void comch_registry_walk(int16_t dev_id,
		void (*srv_fn)(struct rte_comch_server *srv, void *arg),
		void (*cli_fn)(struct rte_comch_client *cli, void *arg),
		void *arg);

/* ------------------------------------------ object flags (layer 3) */

/** Teardown requested from a callback is deferred until the poll that
 * runs it returns. */
#define COMCH_F_IN_POLL         RTE_BIT32(0)
#define COMCH_F_RELEASE_PENDING RTE_BIT32(1)
#define COMCH_F_STOP_PENDING    RTE_BIT32(2)

/** Owner of a producer or consumer that the primary itself created. */
#define COMCH_OWNER_PRIMARY 0

enum comch_fp_kind {
	COMCH_FP_CONSUMER = 1,
	COMCH_FP_PRODUCER = 2,
};

/* ------------------------------------------ 1: the primary's bookkeeping */

/** Primary: allocate, number and link a producer or consumer of @p owner
 * (zeroed driver state at fp.drv). NULL with rte_errno set (ENOTCONN,
 * ENOSPC, ENOMEM, ENODEV) and a log line. */
void *comch_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t max_imm_len, uint32_t owner,
		int32_t owner_pid);

/** Primary: unlink and free what comch_fp_alloc() returned. */
void comch_fp_free(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		void *obj);

/** Primary: the producer or consumer @p kind/@p id of @p conn if @p owner
 * owns it and it is not being reclaimed, else NULL. */
void *comch_fp_find(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t id, uint32_t owner);

/** Primary: producers and consumers @p owner has on @p conn. */
uint32_t comch_fp_count(struct rte_comch_conn *conn, uint32_t owner);

/** Primary: send / receive control messages on the link (counted). */
int comch_local_msg_send(struct rte_comch_conn *conn, const void *data,
		uint32_t len);
int comch_local_msg_recv(struct rte_comch_conn *conn,
		struct rte_comch_msg *msgs, uint16_t nb_msgs);
/** Primary: statistics of a connection. */
int comch_local_conn_stats(struct rte_comch_conn *conn,
		struct rte_comch_conn_stats *stats);
/** Primary: tell the peer about a consumer / that it is gone. */
int comch_local_announce(struct rte_comch_consumer *cons,
		const struct rte_comch_pmd_xfer *x);
void comch_local_withdraw(struct rte_comch_consumer *cons);

/* ------------------------------------------ 1: the peer's consumers */

/** Ids of the peer's live consumers on @p conn, ascending (any process):
 * returns how many there are, up to @p nb_ids written. */
int comch_remote_list(const struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids);
/** Primary: duplicates of what describes the peer's consumer @p id in
 * incarnation @p gen, for a secondary process: 0, -ENOENT (not that one
 * any more), -EINVAL, -EMFILE. */
int comch_remote_export(struct rte_comch_conn *conn, uint32_t id,
		uint32_t gen, struct rte_comch_pmd_xfer *x);
/** Primary: the connection goes: close what was kept. */
void comch_remote_release(struct rte_comch_conn *conn);

/* --------------------------------------------------- 1: relays */

/*
 * Relays: the control messages of a secondary process on a connection
 * (see comch_relay.c). Created by the primary's multi-process thread for
 * the secondary that first sends or receives, served by the connection's
 * polling lcore (comch_relay_poll_*), given up when the secondary leaves.
 */
struct comch_relay_shm *comch_relay_get(struct rte_comch_conn *conn,
		uint32_t owner, int *err);
void comch_relay_retire(struct rte_comch_conn *conn, uint32_t owner);
int comch_relay_poll_server(struct rte_comch_server *srv);
int comch_relay_poll_client(struct rte_comch_client *cli);
void comch_relay_free(struct rte_comch_conn *conn);
/** Whether a secondary takes the connection's control messages. */
bool comch_relay_active(const struct rte_comch_conn *conn);
/* The secondary's side of its relay: send (-EAGAIN when full), receive
 * into @p arena (comch_relay_arena_size() bytes, the process's own) as
 * private copies, -ECONNRESET once lost and drained. */
int comch_relay_send(struct comch_relay_shm *r, const void *data,
		uint32_t len);
int comch_relay_recv(struct comch_relay_shm *r, uint8_t *arena,
		struct rte_comch_msg *msgs, uint16_t nb_msgs);
size_t comch_relay_arena_size(const struct comch_relay_shm *r);

/* ------------------------------------------------------ 3: internals */

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

/** Check the flags of a configuration (RTE_COMCH_F_*) for @p dev: 0, or
 * -EINVAL (unknown flag) / -ENOTSUP (no event mode) with a log line
 * (comch_event.c). */
int comch_event_flags_check(const struct rte_comch_dev *dev, uint32_t flags,
		const char *what);

/** Deliver received messages of @p conn to @p cb, at most its receive
 * queue's depth (at least a burst) per call; returns count. */
int comch_conn_dispatch(struct rte_comch_conn *conn, rte_comch_msg_cb_t cb,
		void *arg);

#endif /* COMCH_PRIVATE_H */
