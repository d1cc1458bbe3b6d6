/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef RTE_COMCH_PMD_H
#define RTE_COMCH_PMD_H

/**
 * @file
 *
 * Comch driver API: what a PMD implements and the library helpers it calls.
 * Not for applications.
 *
 * Division of labour:
 * - the library owns the objects (servers, clients, connections,
 *   producers, consumers), validates arguments, runs the state machine
 *   and the callbacks, counts statistics, and owns everything about
 *   processes: which process may do what, the requests between a
 *   secondary process and the primary, and the reclaim of a dead
 *   secondary's objects;
 * - the driver owns the transport: how a client reaches a server, how
 *   control messages and fast-path data travel, how a lost peer is
 *   detected.
 *
 * Events flow from driver to library only from inside the driver's
 * server_poll/client_poll ops, through the rte_comch_pmd_*() helpers below.
 * The send/receive ops never call back: a violation they detect is recorded
 * by the driver and reported at the next poll. This keeps every user
 * callback on the polling lcore, inside a poll call.
 *
 * Every op but info_get is optional: a NULL slot makes the library return
 * -ENOTSUP for what needs it (a driver without servers leaves the server
 * ops NULL). Each op says in which process the library calls it:
 *
 * | ops | process |
 * |-----|---------|
 * | info_get, rep_name, dev_close, fp_stats | any |
 * | server_*, client_*, conn_close, msg_send, msg_recv_burst, conn_in_flight | the primary (it owns the link) |
 * | consumer_announce, consumer_withdraw | the primary, for a consumer of any process |
 * | mem_create, mem_destroy | the process that creates the memory |
 * | consumer_*, producer_* (create, start, stop, destroy) | the object's owner process |
 * | remote_add, remote_del | every process with producers on the connection |
 * | producer_repair | the primary, for a producer whose process died |
 * | conn_orphan | a secondary, when the primary died |
 * | event_arm, event_disarm, event_wake, event_stats | the process that owns the event's object |
 *
 * The driver never asks which kind of process it runs in: it is called
 * where the work is. Only producer_repair and conn_orphan exist because
 * of secondary processes; what crosses processes (the descriptions of
 * consumers, struct rte_comch_pmd_xfer) is typed and carried by the
 * library.
 *
 * Memory: struct rte_comch_dev_data (and the driver's data at
 * dev_private, sized at allocation) is shared by every process and holds
 * no pointer into process memory and no fd; struct rte_comch_dev is per
 * process. Connections, producers and consumers are in shared memory
 * (rte_malloc, allocated by the primary) and refer to their device by
 * id; a field that holds a per-process value (an fd, a mapping) says
 * "owner process only".
 */

#include <sys/queue.h>

#include <rte_common.h>
#include <rte_compat.h>
#include <rte_dev.h>
#include <rte_spinlock.h>

#include "rte_comch.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_comch_dev;
struct rte_comch_relay;

/** Device data shared by all processes (in the "rte_comch_dev_data" memzone). */
struct rte_comch_dev_data {
	char dev_name[RTE_DEV_NAME_MAX_LEN]; /**< Unique name. */
	int16_t dev_id;      /**< Index in the device arrays. */
	int16_t numa_node;   /**< Socket of the device's shared regions. */
	uint8_t role;        /**< enum rte_comch_role. */
	uint8_t in_use;      /**< Slot allocated. */
	uint32_t next_conn_id; /**< Connection id generator (atomic add). */
	void *dev_private;   /**< Driver data shared by every process
			      *   (rte_malloc memory of the primary, sized at
			      *   allocation): no fd, no per-process pointer. */
	uint64_t reserved[3];
} __rte_cache_aligned;

/** Producers and consumers per connection and side, in any driver. */
#define RTE_COMCH_MAX_FP_OBJECTS 256

/**
 * Consumer ids. A consumer id names one consumer for the whole life of its
 * connection: ids are handed out in increasing order from 1, never twice
 * on a connection and side (a consumer that stops and starts again keeps
 * its id), and 0 is never an id. No two live consumers of a connection
 * share a slot, id % RTE_COMCH_MAX_FP_OBJECTS, so a driver may index a
 * table of RTE_COMCH_MAX_FP_OBJECTS entries by the slot and compare the
 * whole id. After UINT32_MAX consumers the connection has no id left:
 * creating one more fails with ENOSPC (reconnect).
 */
#define RTE_COMCH_CONSUMER_SLOT(id) ((id) & (RTE_COMCH_MAX_FP_OBJECTS - 1))

/**
 * What describes a consumer to the peer's producers: fds and a few
 * numbers whose meaning the driver defines (sizes). A driver fills one
 * when its consumer starts (consumer_start) and receives one for each of
 * the peer's consumers (remote_add); the library carries it between
 * processes (EAL's multi-process channel duplicates the fds) and closes
 * the fds it received once the op that used them returned (an op keeps
 * what it needs by duplicating).
 */
struct rte_comch_pmd_xfer {
	int fds[4];           /**< Valid: nb_fds first. */
	uint32_t nb_fds;
	uint32_t reserved;
	uint64_t val[6];      /**< Driver-defined. */
};

/* ------------------------------------------------------------ driver ops */

/** Report capabilities and functions (caps, nb_functions at least). Mandatory. */
typedef int (*rte_comch_info_get_t)(const struct rte_comch_dev *dev,
		struct rte_comch_dev_info *info);
/** Name of a host function of the device. */
typedef int (*rte_comch_function_name_t)(const struct rte_comch_dev *dev,
		uint16_t function_id, char *buf, size_t size);
/** Free this process's state of the device (from rte_comch_pmd_release(),
 * in every process; the library frees dev_private afterwards in the
 * primary). */
typedef int (*rte_comch_dev_close_t)(struct rte_comch_dev *dev);

/** Attach transport state to a new server (name registration: -EEXIST). */
typedef int (*rte_comch_server_create_t)(struct rte_comch_dev *dev,
		struct rte_comch_server *srv);
/** Detach transport state from an idle server. */
typedef void (*rte_comch_server_destroy_t)(struct rte_comch_dev *dev,
		struct rte_comch_server *srv);
/** Begin (start) or end (stop) accepting clients. */
typedef int (*rte_comch_server_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_server *srv);
/** Progress transport events of a server; returns events handled. */
typedef int (*rte_comch_server_poll_t)(struct rte_comch_dev *dev,
		struct rte_comch_server *srv);

/** Attach/detach transport state of a client. */
typedef int (*rte_comch_client_create_t)(struct rte_comch_dev *dev,
		struct rte_comch_client *cli);
typedef void (*rte_comch_client_destroy_t)(struct rte_comch_dev *dev,
		struct rte_comch_client *cli);
/** Begin connecting; completion is reported from client_poll. */
typedef int (*rte_comch_client_start_t)(struct rte_comch_dev *dev,
		struct rte_comch_client *cli);
/** Abandon a connection attempt that has not completed. */
typedef void (*rte_comch_client_abort_t)(struct rte_comch_dev *dev,
		struct rte_comch_client *cli);
/** Progress transport events of a client; returns events handled. */
typedef int (*rte_comch_client_poll_t)(struct rte_comch_dev *dev,
		struct rte_comch_client *cli);

/** Close a connection's transport (peer is told) and free driver state,
 * this process's view of the peer's consumers included. */
typedef void (*rte_comch_conn_close_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn);
/** Queue one control message; 0, -EAGAIN or -ECONNRESET. */
typedef int (*rte_comch_msg_send_t)(struct rte_comch_conn *conn,
		const void *data, uint32_t len);
/** Receive a burst of private copies (valid until the next call); count,
 * or -ECONNRESET once lost and drained. */
typedef int (*rte_comch_msg_recv_burst_t)(struct rte_comch_conn *conn,
		struct rte_comch_msg *msgs, uint16_t nb_msgs);
/** Messages sent on @p conn and not yet taken by the peer (any thread of
 * the primary: reads only). */
typedef uint64_t (*rte_comch_conn_in_flight_t)(struct rte_comch_conn *conn);

/** Create (allocate and map) or destroy registered memory: set mem->addr
 * and round mem->size up as needed; place it on mem->socket_id unless it
 * is SOCKET_ID_ANY (the library checked it names a socket). */
typedef int (*rte_comch_mem_create_t)(struct rte_comch_dev *dev,
		struct rte_comch_mem *mem);
typedef void (*rte_comch_mem_destroy_t)(struct rte_comch_dev *dev,
		struct rte_comch_mem *mem);
/** Consumer or producer control, in the owner process. create
 * initialises the driver state at fp.drv (the priv_size given to
 * rte_comch_pmd_probe() for that kind, zeroed, allocated with the object
 * by the library); stop ends what the fast path may still do; destroy
 * undoes create (the library frees the memory). */
typedef int (*rte_comch_consumer_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_consumer *cons);
typedef int (*rte_comch_producer_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_producer *prod);
/** Owner process: make a consumer ready to receive and describe it for
 * the announcement to the peer in @p announce (fds: the consumer's own,
 * lent; the library then has consumer_announce called in the primary). */
typedef int (*rte_comch_consumer_start_t)(struct rte_comch_dev *dev,
		struct rte_comch_consumer *cons,
		struct rte_comch_pmd_xfer *announce);
/** Primary: tell the peer about a consumer of any process (@p announce:
 * what consumer_start described, fds lent for the call; when the consumer
 * is a secondary's, the fds crossed processes: check them as the peer
 * will). 0, -ENOSPC (beyond what the peer allows), -ECONNRESET, -EINVAL
 * (@p announce does not hold). Must not wait for the peer. */
typedef int (*rte_comch_consumer_announce_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons,
		const struct rte_comch_pmd_xfer *announce);
/** Primary: tell the peer a consumer of any process is gone (after its
 * stop, or its owner died). Must not wait for the peer. */
typedef void (*rte_comch_consumer_withdraw_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons);
/** Messages and bytes a producer sent or a consumer received so far
 * (read from another thread or process for telemetry: plain 64-bit
 * loads). */
typedef void (*rte_comch_fp_stats_t)(struct rte_comch_dev *dev, void *fp_drv,
		uint64_t *msgs, uint64_t *bytes);
/**
 * Any process: make the peer's consumer @p id (incarnation @p gen, see
 * struct rte_comch_remote) reachable by this process's producers, from
 * what describes it: in the primary, what the driver itself received
 * from the peer (rte_comch_pmd_remote_consumer_add()); in a secondary,
 * the same, carried over by the library. Everything in @p x is the peer's
 * to choose: check it, then map it. 0, -EPROTO (@p why says what is
 * wrong), or another negative errno (this process's resources).
 */
typedef int (*rte_comch_remote_add_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn, uint32_t id, uint32_t gen,
		const struct rte_comch_pmd_xfer *x, char *why, size_t why_len);
/** Any process: the peer's consumer @p id is gone for this process's
 * producers (they fail with -ENOENT from now on); unmap it once none
 * uses it. */
typedef void (*rte_comch_remote_del_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn, uint32_t id);
/** Primary: the process that owned @p prod died, maybe in the middle of a
 * send: finish what it left half done so that the peer's consumers go
 * on. Called with the connection's producers fixed (see
 * rte_comch_pmd_conn_producers()); live producers have reclaiming ==
 * false. 0 when done, or -EAGAIN to be called again (about a millisecond
 * later) while a live producer may still own part of it. */
typedef int (*rte_comch_producer_repair_t)(struct rte_comch_dev *dev,
		struct rte_comch_producer *prod);
/** Secondary: the primary, and the link with it, is gone: every
 * fast-path call on @p conn must now fail with -ECONNRESET (completions
 * already written are still returned). */
typedef void (*rte_comch_conn_orphan_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn);

/** What an event belongs to. */
enum rte_comch_event_kind {
	RTE_COMCH_EVENT_SERVER = 1,
	RTE_COMCH_EVENT_CLIENT,
	RTE_COMCH_EVENT_CONN,
	RTE_COMCH_EVENT_CONSUMER,
};

/**
 * Head of an event (event mode, rte_comch_event_*()): the driver creates
 * one for each object created with RTE_COMCH_F_EVENT (server, client,
 * consumer: conf_flags) and for each connection of such a server or
 * client, allocates it in the process that owns the object (process
 * memory, with its own state after this head), points the object's
 * @c event at it, and frees it with the object. The library checks the
 * arguments and the object's state, then calls the event ops.
 */
struct rte_comch_event {
	int16_t dev_id;      /**< The object's device. */
	uint8_t kind;        /**< enum rte_comch_event_kind. */
	uint8_t reserved8;
	int fd;              /**< What the application sleeps on. */
	int32_t owner_pid;   /**< The process the fd belongs to. */
	uint32_t reserved32;
	void *obj;           /**< The server, client, connection or consumer. */
};

/** Arm @p ev: 0 (sleep), 1 (work is there), -ECONNRESET (lost, nothing
 * left), as rte_comch_event_arm(). */
typedef int (*rte_comch_event_arm_t)(struct rte_comch_dev *dev,
		struct rte_comch_event *ev);
/** Disarm @p ev. */
typedef void (*rte_comch_event_disarm_t)(struct rte_comch_dev *dev,
		struct rte_comch_event *ev);
/** Make @p ev's fd readable (any thread of the owner process). */
typedef int (*rte_comch_event_wake_t)(struct rte_comch_dev *dev,
		struct rte_comch_event *ev);
/** Counters of @p ev (any thread of the owner process). */
typedef void (*rte_comch_event_stats_t)(struct rte_comch_dev *dev,
		const struct rte_comch_event *ev,
		struct rte_comch_event_stats *stats);

/** Operations of a comch driver: every one but info_get is optional. */
struct rte_comch_dev_ops {
	rte_comch_info_get_t info_get;
	rte_comch_function_name_t function_name;
	rte_comch_dev_close_t dev_close;

	rte_comch_server_create_t server_create;
	rte_comch_server_destroy_t server_destroy;
	rte_comch_server_ctl_t server_start;
	rte_comch_server_ctl_t server_stop;
	rte_comch_server_poll_t server_poll;

	rte_comch_client_create_t client_create;
	rte_comch_client_destroy_t client_destroy;
	rte_comch_client_start_t client_start;
	rte_comch_client_abort_t client_abort;
	rte_comch_client_poll_t client_poll;

	rte_comch_conn_close_t conn_close;
	rte_comch_msg_send_t msg_send;
	rte_comch_msg_recv_burst_t msg_recv_burst;
	rte_comch_conn_in_flight_t conn_in_flight;

	rte_comch_mem_create_t mem_create;
	rte_comch_mem_destroy_t mem_destroy;
	rte_comch_consumer_ctl_t consumer_create;
	rte_comch_consumer_start_t consumer_start;
	rte_comch_consumer_ctl_t consumer_stop;
	rte_comch_consumer_ctl_t consumer_destroy;
	rte_comch_consumer_announce_t consumer_announce;
	rte_comch_consumer_withdraw_t consumer_withdraw;
	rte_comch_producer_ctl_t producer_create;
	rte_comch_producer_ctl_t producer_start;
	rte_comch_producer_ctl_t producer_stop;
	rte_comch_producer_ctl_t producer_destroy;
	rte_comch_fp_stats_t fp_stats;
	rte_comch_remote_add_t remote_add;
	rte_comch_remote_del_t remote_del;

	rte_comch_producer_repair_t producer_repair;
	rte_comch_conn_orphan_t conn_orphan;

	/* Event mode (with RTE_COMCH_CAPA_EVENT). */
	rte_comch_event_arm_t event_arm;
	rte_comch_event_disarm_t event_disarm;
	rte_comch_event_wake_t event_wake;
	rte_comch_event_stats_t event_stats;

	/* Fast path: copied into rte_comch_fp_ops[] of this process by
	 * rte_comch_pmd_probing_finish(). */
	rte_comch_fp_send_t fp_send;
	rte_comch_fp_sendv_t fp_sendv;
	rte_comch_fp_post_t fp_post;
	rte_comch_fp_poll_t fp_poll;
};

/** Per-process view of a device. */
struct rte_comch_dev {
	struct rte_comch_dev_data *data;      /**< Shared part. */
	const struct rte_comch_dev_ops *dev_ops; /**< Driver ops (this process). */
	struct rte_device *device;            /**< Bus device. */
	void *process_private;                /**< Driver state of this process. */
	size_t producer_priv_size;            /**< Driver state per producer. */
	size_t consumer_priv_size;            /**< Driver state per consumer. */
	uint8_t attached;                     /**< Slot used in this process. */
} __rte_cache_aligned;

/* ------------------------------------------------------ library objects */

/*
 * The objects as drivers see them. Connections, producers and consumers
 * are in shared memory (rte_malloc): the primary allocates and frees
 * them; fields under "library" are the library's.
 */
/**
 * The peer's consumers on a connection, as the library publishes them to
 * every process (it learns of them from the driver of the primary,
 * rte_comch_pmd_remote_consumer_add() and _del()). By slot
 * (RTE_COMCH_CONSUMER_SLOT): the id of the live consumer and its
 * incarnation gen (never 0), or gen 0 when the slot is free; gen is
 * written last (release), after id. A driver's fast path uses a mapping
 * of consumer id only while gen[slot] is the one remote_add was given,
 * and tells "not announced yet" (an id above max_id) from "gone".
 */
struct rte_comch_remote {
	uint32_t gen[RTE_COMCH_MAX_FP_OBJECTS];
	uint32_t id[RTE_COMCH_MAX_FP_OBJECTS];
	uint32_t max_id;                    /**< Highest id announced (or
					     *   skipped) so far. */
	uint32_t next_gen;                  /**< The library's. */
};

struct rte_comch_remote_keep;

struct rte_comch_conn {
	/* Read by drivers. */
	int16_t dev_id;                     /**< The device. */
	uint32_t id;                        /**< Unique per device. */
	uint32_t max_msg_size;              /**< Negotiated. */
	enum rte_comch_state state;         /**< Running, or stopping once lost. */
	struct rte_comch_server *server;    /**< Owner on the DPU side, or NULL. */
	struct rte_comch_client *client;    /**< Owner on the host side, or NULL. */
	void *drv;                          /**< Driver connection state. */
	struct rte_comch_remote remote;     /**< The peer's consumers. */
	/* Library. */
	TAILQ_ENTRY(rte_comch_conn) next;   /**< In the server's list. */
	uint32_t flags;
	/* Producers and consumers of every process are created and
	 * destroyed on their owners' lcores or, for secondaries, by the
	 * primary's multi-process thread, and reclaimed by its interrupt
	 * thread: fp_lock guards the id maps, the lists, the counts and
	 * closing. Only the primary takes it. */
	rte_spinlock_t fp_lock;
	uint32_t nb_fp_objects;             /**< Producers + consumers. */
	uint32_t nb_attached;               /**< Secondary processes attached. */
	bool closing;                       /**< Being released: no new ones. */
	uint64_t consumer_slots[RTE_COMCH_MAX_FP_OBJECTS / 64];
	uint64_t next_consumer_id;          /**< Above UINT32_MAX: used up. */
	uint64_t producer_ids[RTE_COMCH_MAX_FP_OBJECTS / 64];
	TAILQ_HEAD(, rte_comch_consumer) consumers;
	TAILQ_HEAD(, rte_comch_producer) producers;
	struct rte_comch_relay *relay;    /**< Control messages of a
					     *   secondary, or NULL (primary
					     *   only, comch_relay.c). */
	/* What describes each of the peer's consumers (fds), kept by the
	 * primary for secondaries (comch_remote.c), under remote_lock. */
	rte_spinlock_t remote_lock;
	struct rte_comch_remote_keep *remote_keep; /**< Primary only. */
	struct rte_comch_event *event;      /**< The driver's, or NULL
					     *   (primary only). */
	uint64_t user_data;
	uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
};

TAILQ_HEAD(rte_comch_conn_list, rte_comch_conn);

/** Registered memory: process memory of the process that created it. */
struct rte_comch_mem {
	struct rte_comch_dev *dev;
	void *addr;                         /**< Set by the driver. */
	size_t size;                        /**< Page aligned by the driver. */
	int socket_id;                      /**< Where the driver places it. */
	uint32_t nb_users;                  /**< Consumers using it (atomic). */
	void *drv;                          /**< Driver state (fd, ...). */
};

struct rte_comch_consumer {
	struct rte_comch_fp_obj fp;         /**< First: read by the inlines. */
	/* Read by drivers. */
	struct rte_comch_conn *conn;
	struct rte_comch_mem *mem;          /**< Owner process only. */
	uint32_t id;
	uint32_t nb_posts;                  /**< Resolved. */
	uint32_t max_imm_len;               /**< Resolved (0 for none). */
	uint32_t conf_flags;                /**< RTE_COMCH_F_*. */
	enum rte_comch_state state;         /**< Written by the owning lcore. */
	struct rte_comch_event *event;      /**< The driver's, or NULL
					     *   (owner process only). */
	/* Library. */
	TAILQ_ENTRY(rte_comch_consumer) next;
	uint32_t owner;                     /**< 0: the primary, else a
					     *   secondary's token. */
	int32_t owner_pid;                  /**< For telemetry and logs. */
	bool reclaiming;                    /**< Owner died; being reclaimed. */
};

struct rte_comch_producer {
	struct rte_comch_fp_obj fp;         /**< First: read by the inlines. */
	/* Read by drivers. */
	struct rte_comch_conn *conn;
	uint32_t id;
	enum rte_comch_state state;
	bool reclaiming;                    /**< Owner died; being reclaimed. */
	/* Library. */
	TAILQ_ENTRY(rte_comch_producer) next;
	uint32_t owner;
	int32_t owner_pid;
};

/** Connections of a server, for its driver's poll: iterate with
 * RTE_COMCH_SERVER_FOREACH_CONN. */
#define RTE_COMCH_SERVER_FOREACH_CONN(conn, srv) \
	TAILQ_FOREACH(conn, &(srv)->conns, next)

struct rte_comch_server {
	/* Read by drivers. */
	struct rte_comch_dev *dev;
	enum rte_comch_state state;
	uint16_t function_id;
	char name[RTE_COMCH_NAME_MAX];
	uint32_t max_msg_size;              /**< Resolved (never 0). */
	uint32_t recv_queue_len;            /**< Resolved (never 0). */
	uint32_t max_clients;               /**< 0: unlimited. */
	uint32_t nb_conns;
	struct rte_comch_conn_list conns;
	void *drv;                          /**< Driver server state. */
	uint32_t conf_flags;                /**< RTE_COMCH_F_*. */
	struct rte_comch_event *event;      /**< The driver's, or NULL. */
	/* Library. */
	TAILQ_ENTRY(rte_comch_server) next;
	uint32_t flags;
	uint32_t nb_relays;                 /**< Connections with a relay. */
	rte_comch_connect_cb_t connect_cb;
	rte_comch_disconnect_cb_t disconnect_cb;
	rte_comch_msg_cb_t msg_cb;
	rte_comch_consumer_event_cb_t consumer_event_cb;
	void *cb_arg;
};

struct rte_comch_client {
	/* Read by drivers. */
	struct rte_comch_dev *dev;
	enum rte_comch_state state;
	char server_name[RTE_COMCH_NAME_MAX];
	uint32_t max_msg_size;              /**< Resolved (never 0). */
	uint32_t recv_queue_len;            /**< Resolved (never 0). */
	struct rte_comch_conn *conn;
	void *drv;                          /**< Driver client state. */
	uint32_t conf_flags;                /**< RTE_COMCH_F_*. */
	struct rte_comch_event *event;      /**< The driver's, or NULL. */
	/* Library. */
	TAILQ_ENTRY(rte_comch_client) next;
	uint32_t flags;
	int last_err;
	rte_comch_client_state_cb_t state_cb;
	rte_comch_msg_cb_t msg_cb;
	rte_comch_consumer_event_cb_t consumer_event_cb;
	void *cb_arg;
};

/* -------------------------------------------------- driver-facing helpers */

/**
 * What a driver's probe does in the primary process (create the device:
 * parse devargs, fill dev->data->dev_private, set up the link) and in a
 * secondary (attach: read dev->data->dev_private). Both set
 * dev->dev_ops and dev->process_private.
 */
struct rte_comch_pmd_probe_ops {
	int (*create)(struct rte_comch_dev *dev, void *arg);
	int (*attach)(struct rte_comch_dev *dev, void *arg);
};

/**
 * Probe a device: in the primary process allocate a device slot named
 * @p name with @p priv_size bytes of zeroed shared driver data
 * (dev->data->dev_private, on @p numa_node) and call ops->create; in a
 * secondary process find the primary's device of that name and call
 * ops->attach. On success the fast path is published
 * (rte_comch_pmd_probing_finish()); on failure everything is released and
 * the reason recorded for rte_comch_devargs_check() (give it with
 * rte_comch_pmd_probe_failed()).
 *
 * @param name
 *   Unique device name.
 * @param numa_node
 *   Socket for shared regions (SOCKET_ID_ANY allowed).
 * @param priv_size
 *   Bytes of shared driver data.
 * @param producer_priv_size, consumer_priv_size
 *   Bytes of driver state the library allocates with each producer and
 *   consumer (at fp.drv, cache aligned, shared memory).
 * @param ops
 *   What to do in each kind of process.
 * @param arg
 *   Passed to the ops (e.g. the bus device).
 * @return
 *   0, or a negative errno.
 */
__rte_internal
int rte_comch_pmd_probe(const char *name, int numa_node, size_t priv_size,
		size_t producer_priv_size, size_t consumer_priv_size,
		const struct rte_comch_pmd_probe_ops *ops, void *arg);

/**
 * Release a device slot: calls dev_close, then (primary) frees the shared
 * driver data.
 *
 * @param dev
 *   The device.
 * @return
 *   0, or -EINVAL.
 */
__rte_internal
int rte_comch_pmd_release(struct rte_comch_dev *dev);

/**
 * Publish the driver's fast-path functions (dev_ops->fp_*) in this
 * process's rte_comch_fp_ops[] slot (rte_comch_pmd_probe() does).
 *
 * @param dev
 *   The device, with dev_ops set.
 */
__rte_internal
void rte_comch_pmd_probing_finish(struct rte_comch_dev *dev);

/** Find a device by name (NULL if absent). */
__rte_internal
struct rte_comch_dev *rte_comch_pmd_get_dev_by_name(const char *name);

/**
 * Record why a probe of @p dev_name failed, in words for the user (the
 * driver logs it too). rte_comch_devargs_check() hands it to the
 * application, so a program can make it the last thing it prints.
 *
 * @param dev_name
 *   The device name (e.g. "comch_shm0").
 * @param fmt
 *   printf-style reason, e.g. "comch_shm0: role=bogus: accepted values
 *   are dpu, host".
 */
__rte_internal
void rte_comch_pmd_probe_failed(const char *dev_name, const char *fmt, ...)
	__rte_format_printf(2, 3);

/**
 * This process's view of a device, by id (also in a secondary process).
 *
 * @param dev_id
 *   Device identifier.
 * @return
 *   The device, or NULL if none is attached with that id.
 */
__rte_internal
struct rte_comch_dev *rte_comch_pmd_dev(int16_t dev_id);

/**
 * Allocate a connection for @p srv or @p cli (exactly one non-NULL) with
 * @p drv_size bytes of zeroed driver state at conn->drv, on the calling
 * lcore's socket. Its id is taken from the device.
 */
__rte_internal
struct rte_comch_conn *rte_comch_pmd_conn_alloc(struct rte_comch_dev *dev,
		struct rte_comch_server *srv, struct rte_comch_client *cli,
		uint32_t max_msg_size, size_t drv_size);

/** Free a connection that was never reported (handshake failed). */
__rte_internal
void rte_comch_pmd_conn_free(struct rte_comch_conn *conn);

/** Report a new connection of a server (from server_poll). The driver must
 * not touch @p conn afterwards in this poll. */
__rte_internal
void rte_comch_pmd_server_connected(struct rte_comch_server *srv,
		struct rte_comch_conn *conn);

/** Report that a client's connection is established (from client_poll). */
__rte_internal
void rte_comch_pmd_client_connected(struct rte_comch_client *cli,
		struct rte_comch_conn *conn);

/** Report that a client's connection attempt failed (from client_poll). */
__rte_internal
void rte_comch_pmd_client_failed(struct rte_comch_client *cli, int err);

/** Report a lost connection (peer gone without closing: -ECONNRESET,
 * protocol violation: -EPROTO, or a resource of this process that ran
 * out: -ENOMEM, -EMFILE) from a poll op. At most once per connection,
 * and not after rte_comch_pmd_conn_closed(). */
__rte_internal
void rte_comch_pmd_conn_lost(struct rte_comch_conn *conn, int err);

/** Report a connection the peer closed on purpose, from a poll op: the
 * callbacks get err 0 (later calls on the connection fail with
 * -ECONNRESET, as for a lost one), logged as a routine close (debug
 * level). At most once per connection. */
__rte_internal
void rte_comch_pmd_conn_closed(struct rte_comch_conn *conn);

/**
 * Report a consumer the peer announced on @p conn (from a poll op of the
 * connection's server or client, in the primary). The library checks the
 * id (not 0, its slot free), has remote_add map it in this process,
 * keeps duplicates of the fds of @p x for secondary processes, publishes
 * it (struct rte_comch_remote) and runs the consumer event.
 *
 * @param conn
 *   The connection.
 * @param id
 *   The consumer id the peer gave.
 * @param x
 *   What describes it (fds lent for the call), as the peer sent it.
 * @param[out] why
 *   On -EPROTO, what is wrong with what the peer sent.
 * @param why_len
 *   Size of @p why.
 * @return
 *   0; -EPROTO (the peer's fault: refuse the connection); -ENOMEM,
 *   -EMFILE (this process's).
 */
__rte_internal
int rte_comch_pmd_remote_consumer_add(struct rte_comch_conn *conn,
		uint32_t id, const struct rte_comch_pmd_xfer *x, char *why,
		size_t why_len);

/**
 * Report a consumer the peer withdrew (from a poll op, in the primary):
 * unpublished, remote_del called, the consumer event run.
 *
 * @return
 *   0, or -ENOENT if the peer has no live consumer of that id (refuse the
 *   connection).
 */
__rte_internal
int rte_comch_pmd_remote_consumer_del(struct rte_comch_conn *conn,
		uint32_t id);

/**
 * Report that the peer used every consumer id up to @p id (from a poll
 * op, in the primary): one it withdrew before announcing it is never
 * announced, and a send to an id at or below the highest used that has
 * no live consumer fails (-ENOENT) instead of waiting for an
 * announcement. No consumer event.
 *
 * @return
 *   0, or -EINVAL for id 0 (refuse the connection).
 */
__rte_internal
int rte_comch_pmd_remote_consumer_skip(struct rte_comch_conn *conn,
		uint32_t id);

/**
 * The producers of a connection, of every process, for producer_repair
 * (the primary, with the connection's producers fixed: inside
 * producer_repair). Calls @p fn for each until it returns non-zero;
 * returns that value or 0.
 */
__rte_internal
int rte_comch_pmd_conn_producers(struct rte_comch_conn *conn,
		int (*fn)(struct rte_comch_producer *prod, void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* RTE_COMCH_PMD_H */
