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
 * - the library owns the objects (server, client, connection), validates
 *   arguments, runs the state machine (comch_state.c) and the callbacks,
 *   and counts statistics;
 * - the driver owns the transport: how a client reaches a server, how
 *   control messages travel, how a lost peer is detected.
 *
 * Events flow from driver to library only from inside the driver's
 * server_poll/client_poll ops, through the rte_comch_pmd_*() helpers below.
 * The send/receive ops never call back: a violation they detect is recorded
 * by the driver and reported at the next poll. This keeps every user
 * callback on the polling lcore, inside a poll call.
 *
 * Multi-process: struct rte_comch_dev_data lives in a memzone shared by all
 * processes and holds no pointers into per-process memory and no fds;
 * struct rte_comch_dev (ops, per-process driver state) is per process.
 * Today a secondary attaches to devices for queries only; object creation
 * is refused (comch_secondary_refuses()). Design for producers and
 * consumers in a secondary, on a connection the primary established:
 * connections, producers, consumers and remote-consumer entries are
 * already in rte_malloc memory (same address in every process) while fds
 * and mappings are per process; a secondary finds a connection in a shared
 * table by id, asks the primary over rte_mp to announce its consumer
 * (CONSUMER_ADD with the secondary's two fds) and for the fds of a remote
 * consumer it sends to (the primary keeps them open), maps them into a
 * per-process cache, and registers its pid so the primary reclaims its
 * objects (and tells the peer) when it dies.
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

/** Device data shared by all processes (in the "rte_comch_dev_data" memzone). */
struct rte_comch_dev_data {
	char dev_name[RTE_DEV_NAME_MAX_LEN]; /**< Unique name. */
	int16_t dev_id;      /**< Index in the device arrays. */
	int16_t numa_node;   /**< Socket of the device's shared regions. */
	uint8_t role;        /**< enum rte_comch_role. */
	uint8_t in_use;      /**< Slot allocated. */
	uint32_t next_conn_id; /**< Connection id generator (atomic add). */
	uint64_t reserved[4];
} __rte_cache_aligned;

/* ------------------------------------------------------------ driver ops */

/** Report capabilities and reps (caps, nb_reps, numa_node at least). */
typedef int (*rte_comch_info_get_t)(const struct rte_comch_dev *dev,
		struct rte_comch_dev_info *info);
/** Name of a rep. */
typedef int (*rte_comch_rep_name_t)(const struct rte_comch_dev *dev,
		uint16_t rep_id, char *buf, size_t size);
/** Release all device resources (called from rte_comch_pmd_release()). */
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

/** Close a connection's transport (peer is told) and free driver state. */
typedef void (*rte_comch_conn_close_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn);
/** Queue one control message; 0, -EAGAIN or -ECONNRESET. */
typedef int (*rte_comch_msg_send_t)(struct rte_comch_conn *conn,
		const void *data, uint32_t len);
/** Receive a burst; count, or -ECONNRESET once lost and drained. */
typedef int (*rte_comch_msg_recv_burst_t)(struct rte_comch_conn *conn,
		struct rte_comch_msg *msgs, uint16_t nb_msgs);
/** Messages sent on @p conn and not yet consumed by the peer. */
typedef uint64_t (*rte_comch_conn_in_flight_t)(struct rte_comch_conn *conn);

/** Create (allocate and map) or destroy registered memory: set mem->addr. */
typedef int (*rte_comch_mem_create_t)(struct rte_comch_dev *dev,
		struct rte_comch_mem *mem);
typedef void (*rte_comch_mem_destroy_t)(struct rte_comch_dev *dev,
		struct rte_comch_mem *mem);
/** Consumer control: create sets cons->fp.drv; start tells the peer; stop
 * cancels unclaimed posts and tells the peer; destroy frees. */
typedef int (*rte_comch_consumer_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_consumer *cons);
/** Producer control: create sets prod->fp.drv. */
typedef int (*rte_comch_producer_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_producer *prod);
/** Messages and bytes a producer sent or a consumer received so far
 * (read from another thread for telemetry: plain 64-bit loads). */
typedef void (*rte_comch_fp_stats_t)(struct rte_comch_dev *dev, void *fp_drv,
		uint64_t *msgs, uint64_t *bytes);
/** Live remote consumers of a connection (see the API function). */
typedef int (*rte_comch_conn_remote_consumers_t)(struct rte_comch_conn *conn,
		uint32_t *ids, uint32_t nb_ids);

/**
 * Operations of a comch driver. Every slot is mandatory; the library fills
 * none with defaults, so a driver without servers points server ops at
 * functions returning -ENOTSUP (the library also checks caps.flags first).
 */
struct rte_comch_dev_ops {
	rte_comch_info_get_t info_get;
	rte_comch_rep_name_t rep_name;
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
	rte_comch_consumer_ctl_t consumer_start;
	rte_comch_consumer_ctl_t consumer_stop;
	rte_comch_consumer_ctl_t consumer_destroy;
	rte_comch_producer_ctl_t producer_create;
	rte_comch_producer_ctl_t producer_start;
	rte_comch_producer_ctl_t producer_stop;
	rte_comch_producer_ctl_t producer_destroy;
	rte_comch_conn_remote_consumers_t conn_remote_consumers;
	rte_comch_fp_stats_t fp_stats;

	/* Fast path: copied into rte_comch_fp_ops[] of this process by
	 * rte_comch_pmd_probing_finish(). */
	rte_comch_fp_send_t fp_send;
	rte_comch_fp_post_t fp_post;
	rte_comch_fp_poll_t fp_poll;
};

/** Per-process view of a device. */
struct rte_comch_dev {
	struct rte_comch_dev_data *data;      /**< Shared part. */
	const struct rte_comch_dev_ops *dev_ops; /**< Driver ops (this process). */
	struct rte_device *device;            /**< Bus device. */
	void *process_private;                /**< Driver state of this process. */
	uint8_t attached;                     /**< Slot used in this process. */
} __rte_cache_aligned;

/* ------------------------------------------------------ library objects */

/** Object flags used by the library to defer teardown requested from a
 * callback until the poll that runs it returns. */
#define COMCH_F_IN_POLL         RTE_BIT32(0)
#define COMCH_F_RELEASE_PENDING RTE_BIT32(1)
#define COMCH_F_STOP_PENDING    RTE_BIT32(2)

/** Producers and consumers per connection and side, in any driver. */
#define COMCH_MAX_FP_OBJECTS 256

struct rte_comch_conn {
	TAILQ_ENTRY(rte_comch_conn) next;   /**< In the server's list. */
	struct rte_comch_dev *dev;
	struct rte_comch_server *server;    /**< Owner on the DPU side, or NULL. */
	struct rte_comch_client *client;    /**< Owner on the host side, or NULL. */
	uint32_t id;                        /**< Unique per device. */
	uint32_t max_msg_size;              /**< Negotiated. */
	enum rte_comch_state state;         /**< running, or stopping once lost. */
	int lost_err;                       /**< Why it was lost (negative errno). */
	uint32_t flags;                     /**< COMCH_F_*. */
	uint32_t nb_fp_objects;             /**< Producers + consumers on it. */
	/* Producers and consumers are created and destroyed on their own
	 * lcores: fp_lock guards the id maps, nb_fp_objects and closing. */
	rte_spinlock_t fp_lock;
	bool closing;                       /**< Being released: no new ones. */
	uint64_t consumer_ids[COMCH_MAX_FP_OBJECTS / 64];
	uint64_t producer_ids[COMCH_MAX_FP_OBJECTS / 64];
	TAILQ_HEAD(, rte_comch_consumer) consumers; /**< Under fp_lock. */
	TAILQ_HEAD(, rte_comch_producer) producers; /**< Under fp_lock. */
	uint64_t user_data;
	uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
	void *drv;                          /**< Driver connection state. */
};

TAILQ_HEAD(rte_comch_conn_list, rte_comch_conn);

struct rte_comch_mem {
	struct rte_comch_dev *dev;
	void *addr;                         /**< Set by the driver. */
	size_t size;                        /**< Page aligned. */
	int socket_id;
	uint32_t nb_users;                  /**< Consumers using it (atomic). */
	void *drv;                          /**< Driver state (fd, ...). */
};

struct rte_comch_consumer {
	struct rte_comch_fp_obj fp;         /**< First: read by the inlines. */
	TAILQ_ENTRY(rte_comch_consumer) next; /**< In conn->consumers. */
	struct rte_comch_conn *conn;
	struct rte_comch_mem *mem;
	uint32_t id;
	uint32_t nb_posts;                  /**< Resolved. */
	uint32_t imm_data_len;              /**< Resolved (0 for none). */
	enum rte_comch_state state;         /**< Written by the owning lcore. */
};

struct rte_comch_producer {
	struct rte_comch_fp_obj fp;         /**< First: read by the inlines. */
	TAILQ_ENTRY(rte_comch_producer) next; /**< In conn->producers. */
	struct rte_comch_conn *conn;
	uint32_t id;
	enum rte_comch_state state;
};

struct rte_comch_server {
	TAILQ_ENTRY(rte_comch_server) next; /**< In the device's registry. */
	struct rte_comch_dev *dev;
	enum rte_comch_state state;
	uint32_t flags;                     /**< COMCH_F_*. */
	uint16_t rep_id;
	char name[RTE_COMCH_NAME_MAX];
	uint32_t max_msg_size;              /**< Resolved (never 0). */
	uint32_t recv_queue_len;            /**< Resolved (never 0). */
	uint32_t max_clients;               /**< 0: unlimited. */
	rte_comch_connect_cb_t connect_cb;
	rte_comch_disconnect_cb_t disconnect_cb;
	rte_comch_msg_cb_t msg_cb;
	rte_comch_consumer_event_cb_t consumer_event_cb;
	void *cb_arg;
	struct rte_comch_conn_list conns;
	uint32_t nb_conns;
	void *drv;                          /**< Driver server state. */
};

struct rte_comch_client {
	TAILQ_ENTRY(rte_comch_client) next; /**< In the device's registry. */
	struct rte_comch_dev *dev;
	enum rte_comch_state state;
	uint32_t flags;                     /**< COMCH_F_*. */
	int last_err;
	char server_name[RTE_COMCH_NAME_MAX];
	uint32_t max_msg_size;              /**< Resolved (never 0). */
	uint32_t recv_queue_len;            /**< Resolved (never 0). */
	rte_comch_client_state_cb_t state_cb;
	rte_comch_msg_cb_t msg_cb;
	rte_comch_consumer_event_cb_t consumer_event_cb;
	void *cb_arg;
	struct rte_comch_conn *conn;
	void *drv;                          /**< Driver client state. */
};

/* -------------------------------------------------- driver-facing helpers */

/**
 * Allocate a device slot (primary) and name it.
 *
 * @param name
 *   Unique device name.
 * @param numa_node
 *   Socket for shared regions (SOCKET_ID_ANY allowed).
 * @return
 *   The device, or NULL with rte_errno set (EEXIST, ENOSPC, ENOMEM, EINVAL).
 */
__rte_internal
struct rte_comch_dev *rte_comch_pmd_allocate(const char *name, int numa_node);

/**
 * Release a device slot; calls dev_close if ops were set.
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
 * process's rte_comch_fp_ops[] slot. Call at the end of a successful probe,
 * in every process.
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

/** Report a lost connection (peer gone or protocol violation) from a poll
 * op. Called at most once per connection. */
__rte_internal
void rte_comch_pmd_conn_lost(struct rte_comch_conn *conn, int err);

/** Report a consumer the peer created or destroyed on @p conn (from a poll
 * op of the connection's server or client). */
__rte_internal
void rte_comch_pmd_consumer_event(struct rte_comch_conn *conn,
		uint32_t consumer_id, enum rte_comch_consumer_event event);

#ifdef __cplusplus
}
#endif

#endif /* RTE_COMCH_PMD_H */
