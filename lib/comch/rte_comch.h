/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef RTE_COMCH_H
#define RTE_COMCH_H

/**
 * @file
 *
 * Comch device class: the BlueField host <-> DPU comm channel for DPDK.
 *
 * A comch device is one end of the host/DPU link. On the DPU it serves one
 * or more host PCI functions (the vendor SDK's *representors*); on the
 * host it is attached as exactly one function (function 0 of the host
 * device).
 *
 * - A **server** runs on the DPU, on (device, function, name), and accepts
 *   clients of that host function only.
 * - A **client** runs on the host, on (device, server name), and owns
 *   exactly one connection once started and accepted.
 * - A **connection** carries reliable, ordered, bounded control messages.
 *
 * Threading: every object (server, client, connection) is owned by the lcore
 * that polls it. Nothing progresses behind the application's back; callbacks
 * run inside rte_comch_server_poll() / rte_comch_client_poll() on the
 * calling lcore. Objects of one device may be polled on different lcores,
 * each object on one lcore only; no function of this API takes a lock on the
 * message path.
 *
 * Object states follow the vendor SDK: idle -> starting -> running ->
 * stopping -> idle (see enum rte_comch_state).
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 */

#include <stdbool.h>
#include <stdint.h>

#include <errno.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_common.h>
#include <rte_compat.h>

#include "rte_comch_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Maximum number of comch devices in one process. */
#define RTE_COMCH_MAX_DEVS 64

/** Storage size for an object name, terminating NUL included. A device may
 * cap names lower: see rte_comch_caps.max_name_len. */
#define RTE_COMCH_NAME_MAX 64

/** Storage size for a representor (host function) name such as "pf0vf1". */
#define RTE_COMCH_FUNCTION_NAME_MAX 16

/** Role of a comch device: which end of the link it is. */
enum rte_comch_role {
	RTE_COMCH_ROLE_HOST = 0, /**< Host side: clients only. */
	RTE_COMCH_ROLE_DPU = 1,  /**< DPU side: servers only. */
};

/** Device supports servers (DPU role). */
#define RTE_COMCH_CAPA_SERVER   RTE_BIT32(0)
/** Device supports clients (host role). */
#define RTE_COMCH_CAPA_CLIENT   RTE_BIT32(1)
/** Device supports fast-path producers. */
#define RTE_COMCH_CAPA_PRODUCER RTE_BIT32(2)
/** Device supports fast-path consumers. */
#define RTE_COMCH_CAPA_CONSUMER RTE_BIT32(3)
/** Device supports event mode: objects created with RTE_COMCH_F_EVENT give
 * an fd to sleep on (see "Event mode" below). */
#define RTE_COMCH_CAPA_EVENT    RTE_BIT32(4)

/** Flag of a server, client or consumer configuration: the object can
 * sleep (event mode). It gets an event (rte_comch_server_event(),
 * rte_comch_client_event(), rte_comch_consumer_event()), and so does each
 * connection of a server or client that receives by burst
 * (rte_comch_conn_event()). Needs RTE_COMCH_CAPA_EVENT. */
#define RTE_COMCH_F_EVENT       RTE_BIT32(0)

/** Capabilities of a comch device. */
struct rte_comch_caps {
	uint32_t flags;              /**< RTE_COMCH_CAPA_* */
	uint32_t max_name_len;       /**< Server name bound, NUL included. */
	uint32_t max_msg_size;       /**< Largest control message (bytes). */
	uint32_t default_msg_size;   /**< Used when a config says 0. */
	uint32_t max_recv_queue_len; /**< Deepest control receive queue. */
	uint32_t default_recv_queue_len; /**< Used when a config says 0. */
	uint32_t max_clients;        /**< Per server; 0 means unlimited. */
	uint32_t max_send_burst;     /**< Fast path: most messages one send call
				      *   takes (sends complete when it returns). */
	uint32_t max_posts;          /**< Fast path: buffers a consumer posts at
				      *   once (rte_comch_consumer_conf.nb_posts). */
	uint64_t max_buf_size;       /**< Fast path: largest buffer (bytes). */
	uint32_t max_imm_len;        /**< Fast path: immediate data bound (bytes). */
	uint32_t max_consumers;      /**< Fast path: consumers per connection and side. */
	uint32_t max_producers;      /**< Fast path: producers per connection and side. */
	uint32_t reserved32;
	uint64_t max_mem_size;       /**< Fast path: largest registered memory (bytes). */
	uint64_t reserved[4];
};

/** Information about a comch device. */
struct rte_comch_dev_info {
	const char *dev_name;    /**< Device name, e.g. "comch_shm0". */
	const char *driver_name; /**< Driver name, e.g. "comch_shm". */
	enum rte_comch_role role; /**< Which end of the link. */
	int numa_node;           /**< NUMA socket of the device's shared regions. */
	uint16_t nb_functions;        /**< Host functions served (DPU) or 1 (host). */
	struct rte_comch_caps caps; /**< What the device can do. */
};

/**
 * State of a server, client, producer or consumer.
 *
 * | from     | event                         | to       |
 * |----------|-------------------------------|----------|
 * | idle     | start                         | starting |
 * | starting | transport ready               | running  |
 * | starting | start failed (async)          | idle     |
 * | starting | stop                          | idle     |
 * | running  | stop                          | stopping, idle once drained |
 * | running  | fatal error (peer gone, ...)  | stopping |
 * | stopping | stop / drained                | idle     |
 *
 * Configuration (callbacks, user data) and destroy: idle only.
 * Sending: running, and stopping while draining.
 */
enum rte_comch_state {
	RTE_COMCH_STATE_IDLE = 0,
	RTE_COMCH_STATE_STARTING,
	RTE_COMCH_STATE_RUNNING,
	RTE_COMCH_STATE_STOPPING,
};

struct rte_comch_server;
struct rte_comch_client;
struct rte_comch_conn;

/**
 * A control message being delivered. @c data points to a private copy that
 * stays valid only until the next receive call on the same connection (or,
 * in callback mode, until the callback returns). The peer cannot change it
 * meanwhile; @c len is validated, the content is the peer's to choose.
 */
struct rte_comch_msg {
	const void *data; /**< Message bytes. */
	uint32_t len;     /**< Length in bytes, at most the connection's max. */
};

/** Per-connection statistics. */
struct rte_comch_conn_stats {
	uint64_t msgs_sent;   /**< Control messages accepted by send. */
	uint64_t bytes_sent;  /**< Their payload bytes. */
	uint64_t msgs_recv;   /**< Control messages delivered to the application. */
	uint64_t bytes_recv;  /**< Their payload bytes. */
	uint64_t msgs_in_flight; /**< Sent but not yet confirmed consumed by the peer. */
};

/** Connection established on a server; @p conn is valid until released
 * with rte_comch_server_disconnect(). */
typedef void (*rte_comch_connect_cb_t)(struct rte_comch_server *srv,
		struct rte_comch_conn *conn, void *arg);

/** Connection down on a server. @p err says why: 0, the client closed
 * it on purpose (stopped or destroyed its client: "closed"); otherwise
 * it was lost: -ECONNRESET, the client went away without closing (its
 * process died); -EPROTO, it broke the protocol; -ENOMEM, -EMFILE,
 * -ENFILE, this process ran out of a resource it needed to follow the
 * client. Either way sends now fail with
 * -ECONNRESET; messages already queued can still be received. The
 * application must release @p conn with rte_comch_server_disconnect(),
 * from this callback or later. */
typedef void (*rte_comch_disconnect_cb_t)(struct rte_comch_server *srv,
		struct rte_comch_conn *conn, int err, void *arg);

/** Control message delivered in callback mode (see struct rte_comch_msg
 * for the lifetime of @p msg). */
typedef void (*rte_comch_msg_cb_t)(struct rte_comch_conn *conn,
		const struct rte_comch_msg *msg, void *arg);

/** Client changed state; @p err is 0 or why: -ENOENT: no such server
 * (yet); -ECONNREFUSED: nothing listens for this function (yet); -EAGAIN:
 * the DPU is busy with other handshakes (retry); -EBUSY: the server or the
 * function is full; -EPROTO: refused by the server (e.g. a configuration
 * mismatch); -EMFILE / -ENOMEM: the DPU is out of resources;
 * -ECONNRESET: the server is gone; or the error of a connection that went
 * down (see rte_comch_disconnect_cb_t: 0 when the server closed it on
 * purpose, rte_comch_server_disconnect() or rte_comch_server_stop()).
 * Retry on -ENOENT, -ECONNREFUSED, -EAGAIN. */
typedef void (*rte_comch_client_state_cb_t)(struct rte_comch_client *cli,
		enum rte_comch_state prev, enum rte_comch_state next, int err,
		void *arg);

/** What happened to a consumer of the peer. */
enum rte_comch_consumer_event {
	RTE_COMCH_CONSUMER_CREATED = 1,   /**< Producers may send to it. */
	RTE_COMCH_CONSUMER_DESTROYED = 2, /**< Sends to it now fail with -ENOENT. */
};

/** The peer created or destroyed a consumer on @p conn: the way producers
 * learn consumer ids. Runs in the poll of the connection's server or
 * client. */
typedef void (*rte_comch_consumer_event_cb_t)(struct rte_comch_conn *conn,
		uint32_t consumer_id, enum rte_comch_consumer_event event,
		void *arg);

/** Server configuration. */
struct rte_comch_server_conf {
	uint16_t function_id;         /**< Host function served (rte_comch_function_get_by_name()). */
	const char *name;        /**< Unique per (device, function); copied. */
	uint32_t max_msg_size;   /**< Must equal the client's; 0: device default. */
	uint32_t recv_queue_len; /**< Per connection; 0: device default. */
	uint32_t max_clients;    /**< 0: device limit. */
	rte_comch_connect_cb_t connect_cb;       /**< Optional. */
	rte_comch_disconnect_cb_t disconnect_cb; /**< Optional. */
	rte_comch_msg_cb_t msg_cb; /**< Optional: NULL means receive by burst. */
	rte_comch_consumer_event_cb_t consumer_event_cb; /**< Optional. */
	void *cb_arg;            /**< Passed to every callback. */
	uint32_t flags;          /**< RTE_COMCH_F_EVENT, or 0. */
};

/** Client configuration. */
struct rte_comch_client_conf {
	const char *server_name; /**< Server to reach; copied. */
	uint32_t max_msg_size;   /**< Must equal the server's; 0: device default. */
	uint32_t recv_queue_len; /**< 0: device default. */
	rte_comch_client_state_cb_t state_cb; /**< Optional. */
	rte_comch_msg_cb_t msg_cb; /**< Optional: NULL means receive by burst. */
	rte_comch_consumer_event_cb_t consumer_event_cb; /**< Optional. */
	void *cb_arg;            /**< Passed to every callback. */
	uint32_t flags;          /**< RTE_COMCH_F_EVENT, or 0. */
};

/* ---------------------------------------------------------------- devices */

/**
 * Number of comch devices attached in this process.
 *
 * @return
 *   The count, 0 when none.
 */
__rte_experimental
uint16_t rte_comch_dev_count(void);

/**
 * Whether @p dev_id names an attached device.
 *
 * @param dev_id
 *   Device identifier.
 * @return
 *   true if valid.
 */
__rte_experimental
bool rte_comch_is_valid_dev(int16_t dev_id);

/**
 * Next attached device at or after @p start_dev_id.
 *
 * @param start_dev_id
 *   First identifier to look at.
 * @return
 *   The device identifier, or -1 when there is none.
 */
__rte_experimental
int16_t rte_comch_next_dev(int16_t start_dev_id);

/** Iterate over attached comch devices. */
#define RTE_COMCH_FOREACH_DEV(p) \
	for (p = rte_comch_next_dev(0); p != -1; p = rte_comch_next_dev(p + 1))

/**
 * What to tell a user whose comch --vdev EAL could not parse.
 *
 * When no comch driver is in the process (an application linked without
 * --no-as-needed, or a driver not in EAL's PMD directory), rte_eal_init()
 * fails with "failed to parse device comch_...", which does not say why.
 * Call this before rte_eal_init() (which rewrites argv when it fails) and
 * print @p buf if rte_eal_init() fails.
 *
 * @param argc, argv
 *   The arguments about to be given to rte_eal_init().
 * @param[out] buf
 *   Receives the hint (a line, no newline: how to link the driver, or
 *   load it with -d, naming its file when it is installed beside this
 *   library), or "" when no comch --vdev is given.
 * @param size
 *   Size of @p buf (PATH_MAX + 256 bytes is enough).
 * @return
 *   1 if a hint was written, 0 if none applies, -EINVAL if @p buf is NULL
 *   or @p size is 0.
 */
__rte_experimental
int rte_comch_devargs_hint(int argc, char * const *argv, char *buf,
		size_t size);

/**
 * Check the comch devices asked for on the EAL command line.
 *
 * EAL goes on when a --vdev fails to probe (the driver logs why, EAL
 * says "Bus (vdev) probe failed" and rte_eal_init() succeeds). A program
 * that then carried on with some default device would serve or reach the
 * wrong place. Call this after rte_eal_init(): every --vdev whose name
 * starts with "comch_" (all comch vdev drivers are named so) must have
 * become a comch device.
 *
 * @param[out] why
 *   On failure, receives the driver's reason for the first device that
 *   was not created (e.g. "comch_shm0: role=bogus: accepted values are
 *   dpu, host"), NUL-terminated; may be NULL.
 * @param size
 *   Size of @p why.
 * @return
 *   The number of comch vdevs asked for (>= 0): --vdev arguments, and
 *   rte_vdev_init() calls that succeeded; 0 when none was, so the program
 *   may create a default device. -ENODEV if one of them did not become a
 *   device (print @p why and exit).
 */
__rte_experimental
int rte_comch_devargs_check(char *why, size_t size);

/**
 * Find a device by name.
 *
 * @param name
 *   Device name as given to --vdev, e.g. "comch_shm0".
 * @return
 *   The device identifier (>= 0), or -EINVAL if @p name is NULL,
 *   -ENODEV if no such device is attached.
 */
__rte_experimental
int rte_comch_get_dev_id_by_name(const char *name);

/**
 * Get device information and capabilities.
 *
 * @param dev_id
 *   Device identifier.
 * @param[out] info
 *   Filled on success.
 * @return
 *   0 on success, -EINVAL if @p info is NULL or @p dev_id is invalid.
 */
__rte_experimental
int rte_comch_info_get(int16_t dev_id, struct rte_comch_dev_info *info);

/**
 * Find a representor (host function) of a device by name.
 *
 * @param dev_id
 *   Device identifier.
 * @param name
 *   Function name, e.g. "pf0" or "pf0vf1".
 * @param[out] function_id
 *   Its identifier, in [0, nb_functions).
 * @return
 *   0 on success, -EINVAL on NULL arguments or an invalid device,
 *   -ENOENT if the device does not serve that function.
 */
__rte_experimental
int rte_comch_function_get_by_name(int16_t dev_id, const char *name,
		uint16_t *function_id);

/**
 * Name of a representor.
 *
 * @param dev_id
 *   Device identifier.
 * @param function_id
 *   Representor identifier.
 * @param[out] buf
 *   Receives the NUL-terminated name.
 * @param size
 *   Size of @p buf; RTE_COMCH_FUNCTION_NAME_MAX always suffices.
 * @return
 *   0 on success, -EINVAL on an invalid device, function or NULL @p buf,
 *   -ENOSPC if @p size is too small.
 */
__rte_experimental
int rte_comch_function_name(int16_t dev_id, uint16_t function_id, char *buf,
		size_t size);

/* ---------------------------------------------------------------- servers */

/**
 * Create a server (DPU role). It is idle until rte_comch_server_start().
 * Memory comes from the NUMA socket of the calling lcore.
 *
 * @param dev_id
 *   DPU-role device.
 * @param conf
 *   Configuration; the name is copied.
 * @return
 *   The server, or NULL with rte_errno set to:
 *   - EINVAL: NULL argument, invalid device, empty name or bad function_id;
 *   - ENOTSUP: the device cannot host servers (host role), or this is a
 *     secondary process;
 *   - ENAMETOOLONG: name does not fit in caps.max_name_len (NUL included);
 *   - ERANGE: max_msg_size or recv_queue_len beyond the capability;
 *   - EEXIST: a server of that name already exists on (device, function);
 *   - ENOMEM: out of memory.
 */
__rte_experimental
struct rte_comch_server *
rte_comch_server_create(int16_t dev_id,
		const struct rte_comch_server_conf *conf);

/**
 * Start accepting clients. The server is running when this returns.
 *
 * @param srv
 *   The server.
 * @return
 *   0 on success, -EINVAL if @p srv is NULL, -EBUSY if not idle, or a
 *   negative errno from the transport (logged).
 */
__rte_experimental
int rte_comch_server_start(struct rte_comch_server *srv);

/**
 * Stop the server: stop accepting, disconnect and release every connection
 * (clients are notified; disconnect_cb is not called, the application
 * asked for it) and return to idle. Connection pointers are invalid
 * afterwards.
 *
 * @param srv
 *   The server.
 * @return
 *   0 on success, -EINVAL if @p srv is NULL, -EBUSY if idle or if a
 *   connection still has fast-path objects.
 */
__rte_experimental
int rte_comch_server_stop(struct rte_comch_server *srv);

/**
 * Destroy an idle server.
 *
 * @param srv
 *   The server, or NULL (no-op).
 * @return
 *   0 on success, -EBUSY if not idle.
 */
__rte_experimental
int rte_comch_server_destroy(struct rte_comch_server *srv);

/**
 * Make progress: accept pending clients, detect lost ones, and in callback
 * mode deliver received control messages. Callbacks run on the calling
 * lcore, which must be the only one polling @p srv.
 *
 * @param srv
 *   The server.
 * @return
 *   Number of events and messages handled (>= 0), or -EINVAL if @p srv is
 *   NULL.
 */
__rte_experimental
int rte_comch_server_poll(struct rte_comch_server *srv);

/**
 * Disconnect a connection and release it. The client is notified (its
 * state goes to stopping with -ECONNRESET). Also the way to release a
 * connection reported by disconnect_cb. @p conn is invalid afterwards.
 *
 * @param srv
 *   The server owning @p conn.
 * @param conn
 *   The connection.
 * @return
 *   0 on success, -EINVAL if an argument is NULL or @p conn belongs to
 *   another server, -EBUSY if the connection has fast-path objects.
 */
__rte_experimental
int rte_comch_server_disconnect(struct rte_comch_server *srv,
		struct rte_comch_conn *conn);

/**
 * Current state of a server.
 *
 * @param srv
 *   The server.
 * @return
 *   The state; RTE_COMCH_STATE_IDLE for NULL.
 */
__rte_experimental
enum rte_comch_state rte_comch_server_state(const struct rte_comch_server *srv);

/**
 * Number of connections a server holds (including lost ones not yet
 * released).
 *
 * @param srv
 *   The server.
 * @return
 *   The count (0 for NULL).
 */
__rte_experimental
uint32_t rte_comch_server_conn_count(const struct rte_comch_server *srv);

/* ---------------------------------------------------------------- clients */

/**
 * Create a client (host role). It is idle until rte_comch_client_start().
 *
 * @param dev_id
 *   Host-role device.
 * @param conf
 *   Configuration; the server name is copied.
 * @return
 *   The client, or NULL with rte_errno set to:
 *   - EINVAL: NULL argument, invalid device or empty name;
 *   - ENOTSUP: the device cannot host clients (DPU role), or this is a
 *     secondary process;
 *   - ENAMETOOLONG: name does not fit in caps.max_name_len;
 *   - ERANGE: max_msg_size or recv_queue_len beyond the capability;
 *   - ENOMEM: out of memory.
 */
__rte_experimental
struct rte_comch_client *
rte_comch_client_create(int16_t dev_id,
		const struct rte_comch_client_conf *conf);

/**
 * Start connecting. Connection completes asynchronously, reported by
 * state_cb from rte_comch_client_poll(): starting -> running on success,
 * starting -> idle with the reason on failure (-ENOENT when the server does
 * not exist yet; start again to retry).
 *
 * @param cli
 *   The client.
 * @return
 *   0 if the attempt started, -EINVAL if @p cli is NULL, -EBUSY if not
 *   idle, -ENOMEM, -EPERM if the transport will not reach the DPU there
 *   (comch_shm: the link folder or socket is not this user's alone;
 *   logged).
 */
__rte_experimental
int rte_comch_client_start(struct rte_comch_client *cli);

/**
 * Stop the client: the server is notified and the connection released.
 * The client is idle afterwards and may be started again.
 *
 * @param cli
 *   The client.
 * @return
 *   0 on success, -EINVAL if @p cli is NULL, -EBUSY if idle or if the
 *   connection has fast-path objects.
 */
__rte_experimental
int rte_comch_client_stop(struct rte_comch_client *cli);

/**
 * Destroy an idle client.
 *
 * @param cli
 *   The client, or NULL (no-op).
 * @return
 *   0 on success, -EBUSY if not idle.
 */
__rte_experimental
int rte_comch_client_destroy(struct rte_comch_client *cli);

/**
 * Make progress: complete the connection, detect a lost server, and in
 * callback mode deliver received control messages.
 *
 * @param cli
 *   The client.
 * @return
 *   Number of events and messages handled (>= 0), or -EINVAL.
 */
__rte_experimental
int rte_comch_client_poll(struct rte_comch_client *cli);

/**
 * Current state of a client.
 *
 * @param cli
 *   The client.
 * @param[out] last_err
 *   If not NULL, receives the error of the last transition (0 if none).
 * @return
 *   The state; RTE_COMCH_STATE_IDLE for NULL.
 */
__rte_experimental
enum rte_comch_state rte_comch_client_state(const struct rte_comch_client *cli,
		int *last_err);

/**
 * The client's connection.
 *
 * @param cli
 *   The client.
 * @return
 *   The connection while running (or stopping after the server left),
 *   else NULL.
 */
__rte_experimental
struct rte_comch_conn *rte_comch_client_conn(const struct rte_comch_client *cli);

/* ------------------------------------------------------------ connections */

/**
 * Set the connection's opaque user data (default 0).
 *
 * @param conn
 *   The connection.
 * @param user_data
 *   Any value.
 * @return
 *   0, -EINVAL if @p conn is NULL, -ENOTSUP in a secondary process.
 */
__rte_experimental
int rte_comch_conn_user_data_set(struct rte_comch_conn *conn,
		uint64_t user_data);

/**
 * Get the connection's user data.
 *
 * @param conn
 *   The connection.
 * @return
 *   The value; 0 for NULL.
 */
__rte_experimental
uint64_t rte_comch_conn_user_data_get(const struct rte_comch_conn *conn);

/**
 * Connection identifier, unique per device while the connection exists;
 * the same number appears in logs and telemetry.
 *
 * @param conn
 *   The connection.
 * @return
 *   The identifier; UINT32_MAX for NULL.
 */
__rte_experimental
uint32_t rte_comch_conn_id(const struct rte_comch_conn *conn);

/**
 * Negotiated maximum control message size of a connection.
 *
 * @param conn
 *   The connection.
 * @return
 *   Bytes; 0 for NULL.
 */
__rte_experimental
uint32_t rte_comch_conn_max_msg_size(const struct rte_comch_conn *conn);

/**
 * Read connection statistics (in a secondary process: from the primary).
 *
 * @param conn
 *   The connection.
 * @param[out] stats
 *   Filled on success.
 * @return
 *   0, -EINVAL on NULL arguments, -ENODEV in a secondary whose primary is
 *   gone.
 */
__rte_experimental
int rte_comch_conn_stats_get(struct rte_comch_conn *conn,
		struct rte_comch_conn_stats *stats);

/**
 * Reset the sent/received counters (not msgs_in_flight, which is a level).
 *
 * @param conn
 *   The connection.
 * @return
 *   0, -EINVAL if @p conn is NULL, -ENOTSUP in a secondary process.
 */
__rte_experimental
int rte_comch_conn_stats_reset(struct rte_comch_conn *conn);

/**
 * Send one control message. Never blocks and never drops: a full queue is
 * reported and the message is not sent. In the primary process, call it
 * on the lcore that polls the connection's server or client.
 *
 * In a secondary process (on an attached connection), the message goes
 * to the primary through a relay queue in shared memory (16 messages);
 * the primary sends it on at its next poll of the connection's server or
 * client, in order. So it is slower (a poll of the primary away), and
 * -EAGAIN means the relay queue is full. One process at a time uses a
 * connection's relay: the first secondary that sends or receives on it,
 * until it detaches or dies.
 *
 * @param conn
 *   The connection.
 * @param data
 *   Message bytes (may be NULL when @p len is 0).
 * @param len
 *   Length, at most rte_comch_conn_max_msg_size().
 * @return
 *   0 when queued;
 *   -EINVAL: NULL @p conn, or NULL @p data with non-zero @p len;
 *   -EMSGSIZE: @p len above the connection's max message size;
 *   -EAGAIN: the peer's receive queue is full; retry after it consumed;
 *   -ENOTCONN: the connection is not running;
 *   -ECONNRESET: the peer is gone;
 *   -EBUSY: (secondary) another secondary uses the connection's relay,
 *   or gave it up a moment ago (retry);
 *   -ENODEV: (secondary) the primary is gone.
 */
__rte_experimental
int rte_comch_msg_send(struct rte_comch_conn *conn, const void *data,
		uint32_t len);

/**
 * Receive up to @p nb_msgs control messages, in send order. Each message
 * is a private copy, valid until the next receive call on this connection
 * (the peer cannot change it meanwhile). Messages returned by the previous
 * call are released first and confirmed to the sender (they leave its
 * msgs_in_flight).
 *
 * In a secondary process (on an attached connection), the first call
 * makes this process the connection's receiver: from then on, until it
 * detaches or dies, the primary's poll relays the connection's incoming
 * messages to it and the primary's application receives none (its
 * receive calls return 0, its msg_cb is not called).
 *
 * @param conn
 *   The connection.
 * @param[out] msgs
 *   Receives the messages.
 * @param nb_msgs
 *   Capacity of @p msgs.
 * @return
 *   Number of messages (0 when none), or
 *   -EINVAL: NULL argument;
 *   -ENOTCONN: the connection is not established;
 *   -ECONNRESET: the peer is gone and every queued message was delivered;
 *   -EBUSY: (secondary) another secondary uses the connection's relay;
 *   -ENODEV: (secondary) the primary is gone.
 */
__rte_experimental
int rte_comch_msg_recv_burst(struct rte_comch_conn *conn,
		struct rte_comch_msg *msgs, uint16_t nb_msgs);

/**
 * Ids of the connections the primary process holds on a device (as a
 * server or as a client), ascending. Works in the primary and in a
 * secondary process (which asks the primary).
 *
 * @param dev_id
 *   Device identifier.
 * @param[out] ids
 *   Receives up to @p nb_ids ids.
 * @param nb_ids
 *   Capacity of @p ids.
 * @return
 *   Number of connections (may exceed @p nb_ids), or -EINVAL (invalid
 *   device, NULL @p ids with non-zero @p nb_ids), -ENODEV (secondary: the
 *   primary is gone).
 */
__rte_experimental
int rte_comch_conn_list(int16_t dev_id, uint32_t *ids, uint32_t nb_ids);

/**
 * Secondary process: attach to a connection the primary process holds, to
 * run producers and consumers on it from this process's lcores. The
 * primary does not release the connection while a secondary is attached
 * (its rte_comch_server_disconnect() and rte_comch_client_stop() return
 * -EBUSY); a secondary that exits or dies is detached, and its producers
 * and consumers destroyed, by the primary.
 *
 * On an attached connection a secondary may create, use and destroy
 * producers and consumers, list the peer's consumers
 * (rte_comch_conn_remote_consumers(), which also makes them reachable
 * from this process), send and receive control messages (relayed by the
 * primary: see rte_comch_msg_send()), and read the id, user data and
 * statistics. User data changes and statistics resets stay with the
 * primary (-ENOTSUP).
 *
 * @param dev_id
 *   Device identifier (the same as in the primary).
 * @param conn_id
 *   Connection id (rte_comch_conn_list(), rte_comch_conn_id() in the
 *   primary, or telemetry).
 * @return
 *   The connection, valid in this process until rte_comch_conn_detach(),
 *   or NULL with rte_errno set: ENOTSUP (this is the primary process),
 *   EINVAL (invalid device), ENOENT (no such connection), ENOTCONN (it is
 *   being released or was lost), EEXIST (already attached by this
 *   process), ENODEV (the primary is gone), ENOMEM.
 */
__rte_experimental
struct rte_comch_conn *rte_comch_conn_attach(int16_t dev_id, uint32_t conn_id);

/**
 * Secondary process: detach from a connection, once this process has
 * destroyed its producers and consumers on it. @p conn is invalid in this
 * process afterwards.
 *
 * @param conn
 *   A connection from rte_comch_conn_attach().
 * @return
 *   0 (also when the primary is gone), -EINVAL (NULL, or not attached by
 *   this process), -ENOTSUP (this is the primary process), -EBUSY (this
 *   process still has producers or consumers on it).
 */
__rte_experimental
int rte_comch_conn_detach(struct rte_comch_conn *conn);

/**
 * Name of a state, for logs.
 *
 * @param state
 *   A state.
 * @return
 *   A static string ("idle", "starting", "running", "stopping", "?").
 */
__rte_experimental
const char *rte_comch_state_name(enum rte_comch_state state);

/* ------------------------------------------------------------- fast path */

/**
 * @name Fast path: registered memory, consumers and producers
 *
 * A **consumer** receives into buffers it posts from **registered memory**;
 * a **producer** of the peer sends to a consumer by its id, and the payload
 * is copied once, by the sending side (the "hardware" of the emulation),
 * directly into the next buffer that consumer posted. Per consumer, buffers
 * fill in send order; with several producers sending to one consumer, each
 * producer's order is kept.
 *
 * Threading: each producer and consumer is owned by one lcore (the one that
 * calls its fast-path functions); any number may exist per connection, on
 * any lcores, with no lock and no shared written cache line between two
 * producer/consumer pairs. The connection itself stays with the lcore
 * polling its server or client, which is where consumer events arrive.
 *
 * Registered memory is exposed to the peer in whole for as long as a
 * consumer uses it: a well-behaved peer writes only into posted buffers,
 * a hostile one could write anywhere in it. Keep nothing else there.
 * @{
 */

struct rte_comch_mem;
struct rte_comch_consumer;
struct rte_comch_producer;

/** Consumer configuration. */
struct rte_comch_consumer_conf {
	struct rte_comch_mem *mem; /**< Where posted buffers must lie (required). */
	uint32_t nb_posts;     /**< Buffers posted at once, at most
				*   caps.max_posts; 0: 256. */
	uint32_t max_imm_len;  /**< Immediate data accepted per message, at
				*   most caps.max_imm_len; 0: 32 (the default
				*   and the cap). RTE_COMCH_IMM_NONE: none. */
	uint32_t flags;        /**< RTE_COMCH_F_EVENT, or 0. */
};

/** max_imm_len value for a consumer that accepts no immediate data. */
#define RTE_COMCH_IMM_NONE UINT32_MAX

/** Producer configuration (reserved for future use; may be NULL). */
struct rte_comch_producer_conf {
	uint64_t reserved[2];
};

/** One message to send. */
struct rte_comch_send_op {
	const void *data;    /**< Payload, may be NULL when @c len is 0. */
	uint32_t len;        /**< Payload bytes (up to caps.max_buf_size). */
	uint32_t imm_len;    /**< Immediate data bytes, at most the consumer's. */
	const void *imm;     /**< Immediate data. */
};

/** One piece of a gathered message (rte_comch_producer_sendv_burst()). */
struct rte_comch_seg {
	const void *data;    /**< Bytes, may be NULL when @c len is 0. */
	uint32_t len;        /**< Their number. */
};

/** One message gathered from pieces: they land one after the other in
 * one posted buffer, as if they had been one contiguous payload. */
struct rte_comch_sendv_op {
	const struct rte_comch_seg *segs; /**< The pieces, in order. */
	uint16_t nb_segs;    /**< Their number (0: an empty payload). */
	uint16_t reserved;
	uint32_t imm_len;    /**< Immediate data bytes, at most the consumer's. */
	const void *imm;     /**< Immediate data. */
};

/** A posted buffer coming back to its consumer. */
struct rte_comch_completion {
	void *buf;           /**< The buffer as posted. */
	uint32_t len;        /**< Bytes written into it (0 if cancelled). */
	int16_t status;      /**< 0: filled; -ECANCELED: returned unfilled,
			      *   by stop, or the device aborted the
			      *   transfer (its producer died mid-send). */
	uint16_t producer_id; /**< Sending producer, as the peer says. */
	uint32_t imm_len;    /**< Immediate data bytes. */
	uint8_t imm[RTE_COMCH_IMM_DATA_MAX]; /**< Immediate data. */
};

/**
 * Take a stable copy of a completed buffer's payload.
 *
 * The payload stays where the peer wrote it, in registered memory the
 * peer maps: a peer may write there again at any time, also after the
 * buffer completed. What an application may rely on: the completion's
 * fields (len, status, producer_id, imm_len, imm) are private copies, and
 * len is at most the posted length; the payload's bytes are whatever is in
 * the buffer when they are read. An application that checks the payload
 * and then uses it must read it once: copy it (this function), then check
 * and use the copy. One that only forwards or sums the bytes (and does
 * not branch on them) may use the buffer in place.
 *
 * @param cpl
 *   A completion with status 0.
 * @param[out] dst
 *   Receives up to @p size bytes of the payload.
 * @param size
 *   Room at @p dst.
 * @return
 *   Bytes copied: the smaller of cpl->len and @p size.
 */
static inline uint32_t
rte_comch_completion_copy(const struct rte_comch_completion *cpl, void *dst,
		uint32_t size)
{
	uint32_t n = cpl->len < size ? cpl->len : size;

	if (n != 0)
		memcpy(dst, cpl->buf, n);
	return n;
}

/**
 * Create registered memory on a device: memory the peer may write into
 * through consumers using it.
 *
 * @param dev_id
 *   Device identifier.
 * @param size
 *   Bytes, at most caps.max_mem_size; rounded up to a page.
 * @param socket_id
 *   NUMA socket to place its pages on (preferred: a full node falls back
 *   to another), or SOCKET_ID_ANY (where they are first touched).
 * @return
 *   The memory (of this process), or NULL with rte_errno set: EINVAL (bad
 *   device, size 0, @p socket_id not a socket of this machine), ENOTSUP
 *   (device without consumers), ERANGE (size beyond the capability),
 *   ENOMEM.
 */
__rte_experimental
struct rte_comch_mem *rte_comch_mem_create(int16_t dev_id, size_t size,
		int socket_id);

/**
 * Address of registered memory in this process.
 *
 * @param mem
 *   The memory.
 * @return
 *   Its first byte, NULL for NULL.
 */
__rte_experimental
void *rte_comch_mem_addr(const struct rte_comch_mem *mem);

/**
 * Size of registered memory.
 *
 * @param mem
 *   The memory.
 * @return
 *   Bytes, 0 for NULL.
 */
__rte_experimental
size_t rte_comch_mem_size(const struct rte_comch_mem *mem);

/**
 * Free registered memory.
 *
 * @param mem
 *   The memory, or NULL (no-op).
 * @return
 *   0, or -EBUSY while consumers use it.
 */
__rte_experimental
int rte_comch_mem_destroy(struct rte_comch_mem *mem);

/**
 * Create a consumer on an established connection. It is idle until
 * rte_comch_consumer_start(). Its id names it for the whole life of the
 * connection, among the consumers of every process on this side: ids are
 * never reused on a connection (a send to the id of a destroyed consumer
 * fails with -ENOENT, whatever was created since), they increase in
 * creation order, and 0 is never an id ("no consumer").
 *
 * @param conn
 *   A running connection (in a secondary process: attached with
 *   rte_comch_conn_attach()).
 * @param conf
 *   Configuration.
 * @return
 *   The consumer, or NULL with rte_errno set: EINVAL (NULL argument, no
 *   memory, memory of another device, connection not attached by this
 *   secondary), ENOTCONN (connection not running), ERANGE (nb_posts or
 *   max_imm_len beyond the capability), ENOSPC (the connection has
 *   caps.max_consumers consumers, or used up its ids: UINT32_MAX
 *   consumers were created on it; reconnect), ENOMEM, ENODEV (secondary: the
 *   primary is gone).
 */
__rte_experimental
struct rte_comch_consumer *
rte_comch_consumer_create(struct rte_comch_conn *conn,
		const struct rte_comch_consumer_conf *conf);

/**
 * Start a consumer: the peer is told (RTE_COMCH_CONSUMER_CREATED) and may
 * send once buffers are posted. Running when this returns.
 *
 * @param cons
 *   The consumer.
 * The peer learns of it without the caller waiting for the peer: an
 * announcement the link cannot take now is queued and sent as the peer
 * reads (comch_shm); one still queued when the consumer stops is taken
 * back, and the peer learns only that the id was used (a send to it then
 * fails with -ENOENT).
 *
 * @return
 *   0; -EINVAL for NULL; -EBUSY if not idle; -ECONNRESET if the
 *   connection is lost; -ENOSPC if the peer's limit on consumers (or on
 *   their memory) for this connection is reached (logged; comch_shm: the
 *   DPU's max_consumers and max_map_mb); -ENOMEM / -EMFILE if this process
 *   is out of memory or fds.
 */
__rte_experimental
int rte_comch_consumer_start(struct rte_comch_consumer *cons);

/**
 * Stop a consumer: buffers no producer has claimed come back from
 * rte_comch_consumer_poll_burst() with status -ECANCELED, buffers being
 * written come back filled; the consumer is stopping until every posted
 * buffer came back, then idle. The peer is told
 * (RTE_COMCH_CONSUMER_DESTROYED), or, if it never learned of the consumer
 * (comch_shm: its announcement was still queued), only that its id was
 * used.
 *
 * @param cons
 *   The consumer.
 * @return
 *   0; -EINVAL for NULL; -EBUSY if idle.
 */
__rte_experimental
int rte_comch_consumer_stop(struct rte_comch_consumer *cons);

/**
 * Destroy an idle consumer.
 *
 * @param cons
 *   The consumer, or NULL (no-op).
 * @return
 *   0, or -EBUSY if not idle (stop it and poll until idle).
 */
__rte_experimental
int rte_comch_consumer_destroy(struct rte_comch_consumer *cons);

/**
 * Consumer id, as the peer sees it in its consumer events: unique on its
 * connection for the connection's whole life, never 0.
 *
 * @param cons
 *   The consumer.
 * @return
 *   The id; UINT32_MAX for NULL.
 */
__rte_experimental
uint32_t rte_comch_consumer_id(const struct rte_comch_consumer *cons);

/**
 * State of a consumer.
 *
 * @param cons
 *   The consumer.
 * @return
 *   The state (idle for NULL).
 */
__rte_experimental
enum rte_comch_state rte_comch_consumer_state(const struct rte_comch_consumer *cons);

/**
 * Create a producer on an established connection. It is idle until
 * rte_comch_producer_start(); its id is unique per connection (among the
 * producers of every process).
 *
 * @param conn
 *   A running connection (in a secondary process: attached with
 *   rte_comch_conn_attach()).
 * @param conf
 *   Configuration, or NULL.
 * @return
 *   The producer, or NULL with rte_errno set: EINVAL (NULL connection, or
 *   not attached by this secondary), ENOTCONN (connection not running),
 *   ENOSPC (the connection has caps.max_producers producers), ENOMEM,
 *   ENODEV (secondary: the primary is gone).
 */
__rte_experimental
struct rte_comch_producer *
rte_comch_producer_create(struct rte_comch_conn *conn,
		const struct rte_comch_producer_conf *conf);

/**
 * Start a producer (running when this returns).
 *
 * @param prod
 *   The producer.
 * @return
 *   0; -EINVAL for NULL; -EBUSY if not idle; -ECONNRESET if the
 *   connection is lost.
 */
__rte_experimental
int rte_comch_producer_start(struct rte_comch_producer *prod);

/**
 * Stop a producer. Sends complete synchronously, so it is idle at once.
 *
 * @param prod
 *   The producer.
 * @return
 *   0; -EINVAL for NULL; -EBUSY if idle.
 */
__rte_experimental
int rte_comch_producer_stop(struct rte_comch_producer *prod);

/**
 * Destroy an idle producer.
 *
 * @param prod
 *   The producer, or NULL (no-op).
 * @return
 *   0, or -EBUSY if not idle.
 */
__rte_experimental
int rte_comch_producer_destroy(struct rte_comch_producer *prod);

/**
 * Producer id, as the consumer sees it in its completions.
 *
 * @param prod
 *   The producer.
 * @return
 *   The id; UINT32_MAX for NULL.
 */
__rte_experimental
uint32_t rte_comch_producer_id(const struct rte_comch_producer *prod);

/**
 * State of a producer.
 *
 * @param prod
 *   The producer.
 * @return
 *   The state (idle for NULL).
 */
__rte_experimental
enum rte_comch_state rte_comch_producer_state(const struct rte_comch_producer *prod);

/**
 * Ids of the peer's live consumers on a connection (those producers may
 * send to), as of the last poll of the connection's server or client.
 *
 * In a secondary process this is how producers learn consumer ids (the
 * consumer events run in the primary): the call lists what the primary
 * knows now and maps every listed consumer into this process, so this
 * process's producers can send to it from then on. A consumer the peer
 * created later is reachable after the next call.
 *
 * @param conn
 *   The connection.
 * @param[out] ids
 *   Receives up to @p nb_ids ids, ascending.
 * @param nb_ids
 *   Capacity of @p ids.
 * @return
 *   Number of live remote consumers (may exceed @p nb_ids), or -EINVAL
 *   (NULL, or not attached by this secondary); in a secondary also
 *   -ENODEV (the primary is gone) or -ENOMEM / -EPROTO (a consumer could
 *   not be mapped; logged).
 */
__rte_experimental
int rte_comch_conn_remote_consumers(struct rte_comch_conn *conn,
		uint32_t *ids, uint32_t nb_ids);

/** @} */

/* ------------------------------------------------------------ event mode */

/**
 * @name Event mode: sleep until work arrives
 *
 * An object created with RTE_COMCH_F_EVENT (servers, clients, consumers;
 * and the connections of a server or client that receives by burst) has
 * an **event**: an fd the application puts in its own epoll (or
 * rte_epoll) set, and an explicit arm. The rule, enforced by the shape of
 * rte_comch_event_arm():
 *
 * @code
 * for (;;) {
 *         while (poll_the_object() > 0)     // take what is there
 *                 ;
 *         ret = rte_comch_event_arm(ev);    // ask to be woken
 *         if (ret > 0)
 *                 continue;                 // work came meanwhile: poll
 *         if (ret < 0)
 *                 break;                    // nothing will ever wake it
 *         epoll_wait(epfd, events, n, -1);  // sleep: 0 % CPU
 * }
 * @endcode
 *
 * Arming returns whether work is already there, so "arm, then poll once
 * more, then sleep" cannot be skipped: an application that sleeps only
 * when the arm returned 0 never sleeps through work. The fd is readable
 * while the object was kicked since the last arm (level-triggered; the
 * next arm clears it): readable does not always mean work (a wake-up may
 * be spurious), the poll and the next arm say what there is.
 *
 * What wakes each object:
 * - a server: a client arrived or left, a connection's consumer events,
 *   and, if it has a msg_cb, a control message on any of its connections
 *   or room to send on one whose last send returned -EAGAIN;
 * - a client: its connection established or refused, lost, consumer
 *   events, and with a msg_cb its connection's messages and room;
 * - a connection (of a server or client without msg_cb): a control
 *   message to receive, room to send after a send returned -EAGAIN, the
 *   connection lost;
 * - a consumer: a completion (filled, cancelled or aborted), the
 *   connection lost.
 *
 * Threading and processes: an event is used by the lcore that polls its
 * object (rte_comch_event_wake() excepted), in the process that owns it:
 * servers, clients and connections in the primary; a consumer in the
 * process that created it (primary or secondary). While an object sleeps,
 * its peer only writes shared memory and, when the object is armed, sends
 * one small message to its fd ("kick"): kicks coalesce (at most one per
 * arm and kicking process), and the fast path pays nothing for it when
 * the object is not armed beyond one memory fence and one read.
 * @{
 */

struct rte_comch_event;

/** Counters of an event (rte_comch_event_stats_get()). */
struct rte_comch_event_stats {
	uint64_t arms;       /**< rte_comch_event_arm() calls. */
	uint64_t ready;      /**< ... that found work already there (1). */
	uint64_t kicks;      /**< Kicks taken off the fd (the peer's and
			      *   this process's own). */
	uint64_t spurious;   /**< Arms after kicks that brought no work. */
	uint64_t rescues;    /**< Wake-ups by the device's periodic check:
			      *   work found while armed and no kick came
			      *   (0 with a well-behaved peer). */
	uint64_t backoffs;   /**< Times the peer's kicks were set aside for
			      *   a while (a kick storm), the periodic
			      *   check waking the object meanwhile. */
	uint64_t reserved[2];
};

/**
 * The event of a server created with RTE_COMCH_F_EVENT.
 *
 * @param srv
 *   The server.
 * @return
 *   The event, valid until the server is destroyed, or NULL with
 *   rte_errno set: EINVAL (NULL), ENOTSUP (created without
 *   RTE_COMCH_F_EVENT).
 */
__rte_experimental
struct rte_comch_event *rte_comch_server_event(struct rte_comch_server *srv);

/**
 * The event of a client created with RTE_COMCH_F_EVENT.
 *
 * @param cli
 *   The client.
 * @return
 *   The event, valid until the client is destroyed, or NULL with
 *   rte_errno set: EINVAL (NULL), ENOTSUP (created without
 *   RTE_COMCH_F_EVENT).
 */
__rte_experimental
struct rte_comch_event *rte_comch_client_event(struct rte_comch_client *cli);

/**
 * The event of a connection, for an application that receives its
 * control messages by burst (its server or client has no msg_cb) and
 * was created with RTE_COMCH_F_EVENT. With a msg_cb, the connection's
 * messages wake its server's (client's) event instead. Primary process
 * only.
 *
 * @param conn
 *   The connection.
 * @return
 *   The event, valid until the connection is released, or NULL with
 *   rte_errno set: EINVAL (NULL), ENOTSUP (no RTE_COMCH_F_EVENT, a msg_cb,
 *   or a secondary process).
 */
__rte_experimental
struct rte_comch_event *rte_comch_conn_event(struct rte_comch_conn *conn);

/**
 * The event of a consumer created with RTE_COMCH_F_EVENT, in the process
 * that created it.
 *
 * @param cons
 *   The consumer.
 * @return
 *   The event, valid until the consumer is destroyed, or NULL with
 *   rte_errno set: EINVAL (NULL, or a consumer of another process),
 *   ENOTSUP (created without RTE_COMCH_F_EVENT).
 */
__rte_experimental
struct rte_comch_event *
rte_comch_consumer_event(struct rte_comch_consumer *cons);

/**
 * The fd to sleep on: add it to an epoll set for EPOLLIN (level- or
 * edge-triggered). It is an epoll fd itself: do not read, write or close
 * it. An ethdev driver may give it to EAL as a Rx interrupt fd of type
 * RTE_INTR_HANDLE_VDEV with an efd counter size of 0 (EAL does not read
 * it; rte_comch_event_arm() clears it).
 *
 * @param ev
 *   An event.
 * @return
 *   The fd (>= 0), or -EINVAL for NULL.
 */
__rte_experimental
int rte_comch_event_fd(const struct rte_comch_event *ev);

/**
 * Arm: ask to be woken when work arrives, and learn whether it is already
 * there. Clears the fd (kicks taken since the last arm). Call it after
 * polling the object until it had nothing more; sleep only when it
 * returns 0. Costs one or two system calls (no more when nothing came).
 *
 * @param ev
 *   An event.
 * @return
 *   0: armed, nothing there: sleep on the fd;
 *   1: work is there (or the object needs its poll): poll, do not sleep;
 *   -EINVAL: NULL;
 *   -ENOTCONN: the object is idle (not started, stopped, or its start
 *   failed): nothing would wake it;
 *   -ECONNRESET: (connection, consumer) the connection is lost and
 *   everything it held was taken: nothing will wake it.
 */
__rte_experimental
int rte_comch_event_arm(struct rte_comch_event *ev);

/**
 * Disarm: the object is awake and polled (optional: an armed object that
 * is polled anyway costs its peer at most one kick). The fd keeps what it
 * was sent until the next arm.
 *
 * @param ev
 *   An event.
 * @return
 *   0, or -EINVAL for NULL.
 */
__rte_experimental
int rte_comch_event_disarm(struct rte_comch_event *ev);

/**
 * Make the fd readable now, from any thread of the process that owns the
 * event: wakes the lcore sleeping on it (to stop it, for instance). The
 * next arm clears it.
 *
 * @param ev
 *   An event.
 * @return
 *   0, or -EINVAL for NULL.
 */
__rte_experimental
int rte_comch_event_wake(struct rte_comch_event *ev);

/**
 * Read an event's counters (from any thread of its process).
 *
 * @param ev
 *   An event.
 * @param[out] stats
 *   Filled on success.
 * @return
 *   0, or -EINVAL on NULL arguments.
 */
__rte_experimental
int rte_comch_event_stats_get(const struct rte_comch_event *ev,
		struct rte_comch_event_stats *stats);

/** @} */

/*
 * The fast-path functions below check their arguments only in a debug
 * build (-DRTE_COMCH_DEBUG): NULL objects and arrays, and a device slot
 * that no driver serves (-ENODEV, as the dummy functions of an absent
 * device do). Release builds trust the caller, as DPDK's fast paths do.
 */

/**
 * Send a burst to a remote consumer: each payload is copied once into the
 * next buffer that consumer posted, with its immediate data; in order. The
 * copy is done when this returns, so the first (return value) source
 * buffers may be reused at once (send completion is synchronous).
 *
 * Must be called on the producer's lcore only.
 *
 * @param prod
 *   A running producer.
 * @param consumer_id
 *   Remote consumer (from a consumer event).
 * @param ops
 *   Messages to send.
 * @param nb_ops
 *   Number of messages.
 * @return
 *   Number of messages sent: fewer than @p nb_ops when the consumer has no
 *   more posted buffer (retry: "again", nothing is dropped), the next
 *   message is refused, or @p nb_ops is above caps.max_send_burst (the
 *   rest is for the next call). 0 ("again") also for an id above every id
 *   the peer announced (or said it used) so far: ids increase, so it may
 *   be announced soon (an id learned from the peer's own data can arrive
 *   before the consumer event). A negative errno when the first message
 *   is refused:
 *   - -EMSGSIZE: payload larger than the posted buffer, or immediate data
 *     longer than the consumer accepts;
 *   - -ENOENT: 0, or an id at or below the highest announced with no live
 *     consumer: it was destroyed, or stopped before the peer announced it
 *     (or it is announced later than a higher id; in
 *     a secondary process also: not listed by
 *     rte_comch_conn_remote_consumers() in this process since it was
 *     created);
 *   - -ECONNRESET: the connection is lost or broken (in a secondary
 *     process also: the primary is gone);
 *   - -EBUSY: the producer is not running.
 */
static inline int
rte_comch_producer_send_burst(struct rte_comch_producer *prod,
		uint32_t consumer_id, const struct rte_comch_send_op *ops,
		uint16_t nb_ops)
{
	const struct rte_comch_fp_obj *obj = (const struct rte_comch_fp_obj *)prod;

#ifdef RTE_COMCH_DEBUG
	if (prod == NULL || ops == NULL)
		return -EINVAL;
	if (obj->dev_id < 0 || obj->dev_id >= RTE_COMCH_MAX_DEVS)
		return -ENODEV;
#endif
	return rte_comch_fp_ops[obj->dev_id].send(obj->drv, consumer_id, ops,
			nb_ops);
}

/**
 * Send a burst of gathered messages to a remote consumer: as
 * rte_comch_producer_send_burst(), but each message's payload is the
 * concatenation of its pieces, copied once, piece after piece, into the
 * next buffer that consumer posted (a packet in several mbufs, or several
 * small packets in one buffer, without a copy into a contiguous buffer
 * first). The payload's length is the sum of the pieces' lengths; the
 * completion is the same as for one contiguous payload of that length.
 *
 * Must be called on the producer's lcore only.
 *
 * @param prod
 *   A running producer.
 * @param consumer_id
 *   Remote consumer (from a consumer event).
 * @param ops
 *   Messages to send.
 * @param nb_ops
 *   Number of messages.
 * @return
 *   As rte_comch_producer_send_burst(): the number of messages sent (0:
 *   "again", also for an id above every announced one), or a negative
 *   errno when the first is refused (-EMSGSIZE: the pieces together are
 *   larger than the posted buffer, or the immediate data too long;
 *   -ENOENT, -ECONNRESET, -EBUSY as there).
 */
static inline int
rte_comch_producer_sendv_burst(struct rte_comch_producer *prod,
		uint32_t consumer_id, const struct rte_comch_sendv_op *ops,
		uint16_t nb_ops)
{
	const struct rte_comch_fp_obj *obj = (const struct rte_comch_fp_obj *)prod;

#ifdef RTE_COMCH_DEBUG
	if (prod == NULL || ops == NULL)
		return -EINVAL;
	if (obj->dev_id < 0 || obj->dev_id >= RTE_COMCH_MAX_DEVS)
		return -ENODEV;
#endif
	return rte_comch_fp_ops[obj->dev_id].sendv(obj->drv, consumer_id, ops,
			nb_ops);
}

/**
 * Post receive buffers. Each must lie inside the consumer's registered
 * memory; a zero-length post (NULL buffer allowed) receives immediate data
 * only. Must be called on the consumer's lcore only.
 *
 * @param cons
 *   A running consumer.
 * @param bufs
 *   Buffers.
 * @param lens
 *   Their sizes (up to caps.max_buf_size).
 * @param nb_bufs
 *   Number of buffers.
 * @return
 *   Number posted (fewer when the consumer already holds nb_posts buffers),
 *   or -EINVAL (first buffer outside the registered memory), -EBUSY (not
 *   running), -ECONNRESET (connection lost).
 */
static inline int
rte_comch_consumer_post_burst(struct rte_comch_consumer *cons,
		void * const *bufs, const uint32_t *lens, uint16_t nb_bufs)
{
	const struct rte_comch_fp_obj *obj = (const struct rte_comch_fp_obj *)cons;

#ifdef RTE_COMCH_DEBUG
	if (cons == NULL || bufs == NULL || lens == NULL)
		return -EINVAL;
	if (obj->dev_id < 0 || obj->dev_id >= RTE_COMCH_MAX_DEVS)
		return -ENODEV;
#endif
	return rte_comch_fp_ops[obj->dev_id].post(obj->drv, bufs, lens,
			nb_bufs);
}

/**
 * Take completed buffers, in the order they were posted. A buffer completes
 * only when a producer wrote into it, or comes back unfilled (status
 * -ECANCELED) when stop cancelled it or the device aborted the transfer
 * into it (the peer's producer died in the middle of it). The payload is
 * in the buffer; the immediate data is copied into the completion. Must be
 * called on the consumer's lcore only.
 *
 * @param cons
 *   A running or stopping consumer.
 * @param[out] cpl
 *   Completions.
 * @param nb_cpl
 *   Capacity of @p cpl.
 * @return
 *   Number of completions, or -ECONNRESET once the connection is lost and
 *   every buffer written before was returned.
 */
static inline int
rte_comch_consumer_poll_burst(struct rte_comch_consumer *cons,
		struct rte_comch_completion *cpl, uint16_t nb_cpl)
{
	const struct rte_comch_fp_obj *obj = (const struct rte_comch_fp_obj *)cons;

#ifdef RTE_COMCH_DEBUG
	if (cons == NULL || cpl == NULL)
		return -EINVAL;
	if (obj->dev_id < 0 || obj->dev_id >= RTE_COMCH_MAX_DEVS)
		return -ENODEV;
#endif
	return rte_comch_fp_ops[obj->dev_id].poll(obj->drv, cpl, nb_cpl);
}

#ifdef __cplusplus
}
#endif

#endif /* RTE_COMCH_H */
