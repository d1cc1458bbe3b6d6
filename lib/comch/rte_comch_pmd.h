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
 * Multi-process (see also "Running as a secondary process" in the
 * programmer's guide):
 *
 * - struct rte_comch_dev_data lives in a memzone shared by all processes
 *   and holds no pointers into per-process memory and no fds; struct
 *   rte_comch_dev (ops, per-process driver state) is per process and found
 *   by dev_id in every process.
 * - Connections, producers and consumers live in rte_malloc memory (the
 *   same address in every process) and refer to their device by dev_id.
 *   The primary process owns the link: servers, clients and connections
 *   are created, polled and released there only.
 * - A secondary process attaches to a connection of the primary and runs
 *   producers and consumers on it. It never takes a lock the primary takes
 *   and never allocates shared memory: it asks the primary (one rte_mp
 *   action, lib/comch/comch_mp.c), which allocates, links, unlinks and
 *   frees fast-path objects for it, each tagged with its owner. So a
 *   secondary killed at any instruction leaves no lock held and no list
 *   half-edited, and the primary reclaims what it owned.
 * - Per-process state (fds, mappings, the driver's view of the peer's
 *   consumers, registered memory) is in process memory of the process it
 *   belongs to. A field of a shared object that holds such a value says
 *   "owner process only".
 *
 * Which driver op runs where:
 *
 * | ops | process |
 * |-----|---------|
 * | info_get, rep_name, dev_close | every process |
 * | server_*, client_*, conn_close, msg_*, conn_in_flight | primary |
 * | mem_create, mem_destroy | the process creating the memory |
 * | consumer_*, producer_* (create, start, stop, destroy), fp_* | the owner of the object |
 * | conn_remote_consumers | any (a secondary also maps what it lists) |
 * | consumer_reclaim, producer_reclaim, fp_release, mp_request | primary |
 * | conn_detach, conn_orphan | secondary |
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
/** Consumer control, in the owner process. create initialises the driver
 * state at cons->fp.drv (consumer_priv_size bytes, zeroed, allocated with
 * the consumer by the library); start tells the peer; stop cancels
 * unclaimed posts and tells the peer; destroy undoes create (the library
 * frees the memory). */
typedef int (*rte_comch_consumer_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_consumer *cons);
/** Producer control, in the owner process (as for consumers). */
typedef int (*rte_comch_producer_ctl_t)(struct rte_comch_dev *dev,
		struct rte_comch_producer *prod);
/** Messages and bytes a producer sent or a consumer received so far
 * (read from another thread or process for telemetry: plain 64-bit
 * loads). */
typedef void (*rte_comch_fp_stats_t)(struct rte_comch_dev *dev, void *fp_drv,
		uint64_t *msgs, uint64_t *bytes);
/** Live remote consumers of a connection (see the API function). */
typedef int (*rte_comch_conn_remote_consumers_t)(struct rte_comch_conn *conn,
		uint32_t *ids, uint32_t nb_ids);

/** Primary: the owner of a consumer died: undo what the peer knows of it
 * (withdraw it). Called without locks, before the library frees it. */
typedef void (*rte_comch_consumer_reclaim_t)(struct rte_comch_dev *dev,
		struct rte_comch_consumer *cons);
/** Primary: the owner of a producer died; repair what it may have left
 * half done. Called with conn->fp_lock held; other producers of the
 * connection with reclaiming == false are alive. Returns 0 when done, or
 * -EAGAIN when it must wait for a live producer (the library calls again
 * about a millisecond later). */
typedef int (*rte_comch_producer_reclaim_t)(struct rte_comch_dev *dev,
		struct rte_comch_producer *prod);
/** Primary: a producer or consumer of @p conn (of any process) was freed
 * (unlinked from the connection's lists). */
typedef void (*rte_comch_fp_release_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn);
/**
 * Primary: a driver request from a secondary process (sent with
 * rte_comch_pmd_mp_request()). The library checked that @p conn is
 * attached by the sender and, when @p cons or @p prod is not NULL, that
 * the sender owns it; the driver checks @p req.
 *
 * @param req, req_len
 *   The driver's request bytes (as sent; validate every field).
 * @param fds, nb_fds
 *   File descriptors sent with it; the library closes them after the call
 *   (duplicate what must be kept).
 * @param rep
 *   Reply bytes (up to RTE_COMCH_PMD_MP_DATA_MAX); *rep_len says how many.
 * @param rep_fds
 *   Up to RTE_COMCH_PMD_MP_FDS fds to send back, which the library closes
 *   once sent (give duplicates of fds the driver keeps); *nb_rep_fds says
 *   how many.
 * @return
 *   0 or a negative errno for the requester.
 */
typedef int (*rte_comch_mp_request_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons,
		struct rte_comch_producer *prod, const void *req, size_t req_len,
		const int *fds, int nb_fds, void *rep, size_t *rep_len,
		int *rep_fds, int *nb_rep_fds);
/** Secondary: this process detaches from @p conn (it has no producer or
 * consumer on it any more): free its per-process state of the
 * connection. */
typedef void (*rte_comch_conn_detach_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn);
/** Secondary: the primary process is gone; every fast-path call on
 * @p conn must now fail with -ECONNRESET (completions already written
 * are still returned). */
typedef void (*rte_comch_conn_orphan_t)(struct rte_comch_dev *dev,
		struct rte_comch_conn *conn);

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

	/* Multi-process. */
	rte_comch_consumer_reclaim_t consumer_reclaim;
	rte_comch_producer_reclaim_t producer_reclaim;
	rte_comch_fp_release_t fp_release;
	rte_comch_mp_request_t mp_request;
	rte_comch_conn_detach_t conn_detach;
	rte_comch_conn_orphan_t conn_orphan;

	/* Bytes of driver state allocated with each producer and consumer
	 * (at fp.drv, cache aligned). */
	size_t producer_priv_size;
	size_t consumer_priv_size;

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

/**
 * Consumer ids. A consumer id names one consumer for the whole life of its
 * connection: ids are handed out in increasing order from 1, never twice
 * on a connection and side (a consumer that stops and starts again keeps
 * its id), and 0 is never an id. No two live consumers of a connection
 * share a slot, id % COMCH_MAX_FP_OBJECTS, so a driver may index a table
 * of COMCH_MAX_FP_OBJECTS entries by the slot and compare the whole id.
 * After UINT32_MAX consumers the connection has no id left: creating one
 * more fails with ENOSPC (reconnect).
 */
#define COMCH_CONSUMER_SLOT(id) ((id) & (COMCH_MAX_FP_OBJECTS - 1))

/*
 * Connections, producers and consumers are in rte_malloc memory: the
 * primary creates and frees them; a secondary reads the fields marked
 * "shared" and writes only the state of the producers and consumers it
 * owns. Everything else is the primary's.
 */
struct rte_comch_conn {
	TAILQ_ENTRY(rte_comch_conn) next;   /**< In the server's list. */
	struct rte_comch_server *server;    /**< Owner on the DPU side, or NULL. */
	struct rte_comch_client *client;    /**< Owner on the host side, or NULL. */
	int16_t dev_id;                     /**< Shared: the device. */
	uint32_t id;                        /**< Shared: unique per device. */
	uint32_t max_msg_size;              /**< Shared: negotiated. */
	enum rte_comch_state state;         /**< Shared: running, or stopping once lost. */
	int lost_err;                       /**< Why it was lost (negative errno). */
	uint32_t flags;                     /**< COMCH_F_*. */
	/* Producers and consumers of every process are created and
	 * destroyed on their own lcores or for secondaries by the mp
	 * thread, and reclaimed by the interrupt thread: fp_lock guards the
	 * id maps, the lists, the counts and closing. Only the primary
	 * takes it. */
	rte_spinlock_t fp_lock;
	uint32_t nb_fp_objects;             /**< Shared: producers + consumers. */
	uint32_t nb_attached;               /**< Shared: secondaries attached. */
	bool closing;                       /**< Being released: no new ones. */
	uint64_t consumer_slots[COMCH_MAX_FP_OBJECTS / 64]; /**< Slots in use. */
	uint64_t next_consumer_id;          /**< Above UINT32_MAX: used up. */
	uint64_t producer_ids[COMCH_MAX_FP_OBJECTS / 64];
	TAILQ_HEAD(, rte_comch_consumer) consumers; /**< Under fp_lock. */
	TAILQ_HEAD(, rte_comch_producer) producers; /**< Under fp_lock. */
	uint64_t user_data;                 /**< Shared (read only in secondaries). */
	uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv; /**< Shared. */
	void *drv;                          /**< Driver connection state. */
};

TAILQ_HEAD(rte_comch_conn_list, rte_comch_conn);

/** Registered memory: process memory of the process that created it. */
struct rte_comch_mem {
	struct rte_comch_dev *dev;
	void *addr;                         /**< Set by the driver. */
	size_t size;                        /**< Page aligned. */
	int socket_id;
	uint32_t nb_users;                  /**< Consumers using it (atomic). */
	void *drv;                          /**< Driver state (fd, ...). */
};

/** Owner of a producer or consumer created by the primary process. */
#define COMCH_OWNER_PRIMARY 0

struct rte_comch_consumer {
	struct rte_comch_fp_obj fp;         /**< First: read by the inlines. */
	TAILQ_ENTRY(rte_comch_consumer) next; /**< In conn->consumers. */
	struct rte_comch_conn *conn;
	struct rte_comch_mem *mem;          /**< Owner process only. */
	uint32_t id;
	uint32_t nb_posts;                  /**< Resolved. */
	uint32_t imm_data_len;              /**< Resolved (0 for none). */
	uint32_t owner;                     /**< COMCH_OWNER_PRIMARY or a secondary's token. */
	int32_t owner_pid;                  /**< For telemetry and logs. */
	bool reclaiming;                    /**< Owner died; being reclaimed. */
	enum rte_comch_state state;         /**< Written by the owning lcore. */
};

struct rte_comch_producer {
	struct rte_comch_fp_obj fp;         /**< First: read by the inlines. */
	TAILQ_ENTRY(rte_comch_producer) next; /**< In conn->producers. */
	struct rte_comch_conn *conn;
	uint32_t id;
	uint32_t owner;                     /**< COMCH_OWNER_PRIMARY or a secondary's token. */
	int32_t owner_pid;                  /**< For telemetry and logs. */
	bool reclaiming;                    /**< Owner died; being reclaimed. */
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

/** Report a lost connection (peer gone without closing: -ECONNRESET, or
 * protocol violation: -EPROTO) from a poll op. At most once per
 * connection, and not after rte_comch_pmd_conn_closed(). */
__rte_internal
void rte_comch_pmd_conn_lost(struct rte_comch_conn *conn, int err);

/** Report a connection the peer closed on purpose, from a poll op: for
 * the application the same as lost with -ECONNRESET (the callbacks get
 * that error), logged as a routine close (debug level). At most once per
 * connection. */
__rte_internal
void rte_comch_pmd_conn_closed(struct rte_comch_conn *conn);

/** Report a consumer the peer created or destroyed on @p conn (from a poll
 * op of the connection's server or client). */
__rte_internal
void rte_comch_pmd_consumer_event(struct rte_comch_conn *conn,
		uint32_t consumer_id, enum rte_comch_consumer_event event);

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

/** Largest driver payload of a request or reply between processes. */
#define RTE_COMCH_PMD_MP_DATA_MAX 192
/** Most fds one such request or reply carries. */
#define RTE_COMCH_PMD_MP_FDS 4

/**
 * Secondary process: send a driver request to the primary process, whose
 * driver's mp_request op answers it, about @p conn (attached by this
 * process) and at most one producer or consumer this process owns.
 *
 * @param conn
 *   An attached connection.
 * @param cons
 *   A consumer of this process on @p conn, or NULL.
 * @param prod
 *   A producer of this process on @p conn, or NULL.
 * @param req
 *   Request bytes.
 * @param req_len
 *   Their number, at most RTE_COMCH_PMD_MP_DATA_MAX.
 * @param fds
 *   Fds to send with it (not closed).
 * @param nb_fds
 *   Their number, at most RTE_COMCH_PMD_MP_FDS.
 * @param[out] rep
 *   Receives the reply bytes (room for RTE_COMCH_PMD_MP_DATA_MAX).
 * @param[out] rep_len
 *   Receives their number.
 * @param[out] rep_fds
 *   Receives the fds sent back (room for RTE_COMCH_PMD_MP_FDS); the caller
 *   owns them.
 * @param[out] nb_rep_fds
 *   Receives their number.
 * @return
 *   0 or the driver's negative errno; -ENODEV when the primary is gone or
 *   does not answer; -EINVAL on bad arguments.
 */
__rte_internal
int rte_comch_pmd_mp_request(struct rte_comch_conn *conn,
		struct rte_comch_consumer *cons, struct rte_comch_producer *prod,
		const void *req, size_t req_len, const int *fds, int nb_fds,
		void *rep, size_t *rep_len, int *rep_fds, int *nb_rep_fds);

#ifdef __cplusplus
}
#endif

#endif /* RTE_COMCH_PMD_H */
