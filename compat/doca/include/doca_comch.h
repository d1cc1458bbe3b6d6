/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch (current generation): servers on the DPU, clients on the
 * host, connections between them carrying control messages, and the
 * events that report connections, messages and the peer's consumers.
 *
 * Over rte_comch_*: a server is an rte_comch_server on (device, rep,
 * name), a client an rte_comch_client, a connection an rte_comch_conn.
 * Differences from rte_comch_* (doc/guides/prog_guide/doca_porting.md):
 * sends are tasks that complete through their callbacks from
 * doca_pe_progress(); errors are doca_error_t values.
 */

#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;
struct doca_ctx;
struct doca_task;

/* ------------------------------------------------------------ connection */

/* One client/server pair. On the server it exists from its connect event
 * until its disconnect event (or doca_comch_server_disconnect()); on the
 * client, while the client context is running. */
struct doca_comch_connection;

/* Opaque value of the application, 0 until set. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
						 union doca_data user_data);
DOCA_EXPERIMENTAL
union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);

/* The server (NULL on a client's connection) or client (NULL on a
 * server's) the connection belongs to. */
struct doca_comch_server;
struct doca_comch_client;
DOCA_EXPERIMENTAL
struct doca_comch_server *doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection);
DOCA_EXPERIMENTAL
struct doca_comch_client *doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection);

/* Counters of a connection, read from the snapshot that
 * doca_comch_connection_update_info() takes. */
enum doca_comch_counter {
	DOCA_COMCH_COUNTER_SENT_MESSAGES = 1,
	DOCA_COMCH_COUNTER_SENT_BYTES = 2,
	DOCA_COMCH_COUNTER_RECV_MESSAGES = 3,
	DOCA_COMCH_COUNTER_RECV_BYTES = 4,
};

/* DOCA_ERROR_CONNECTION_ABORTED: the connection was lost. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
					       enum doca_comch_counter counter_type,
					       uint64_t *counter_value);

/* ---------------------------------------------------------- capabilities */

/* Server names, NUL included. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len);
/* Largest control message. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);
/* Deepest receive queue. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size);
/* Clients per server. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients);
/* Send tasks per server or client. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo, uint32_t *max_send_tasks);
/* DOCA_SUCCESS if the device can run a server (a DPU device) / a client (a
 * host device), else DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* ---------------------------------------------------------------- server */

/* A server on the DPU device @p dev, for the host function @p repr, named
 * @p name (unique per representor). DOCA_ERROR_INVALID_VALUE: NULL or
 * empty argument, a name too long; DOCA_ERROR_NOT_SUPPORTED: @p dev is a
 * host device; DOCA_ERROR_NO_MEMORY. A name already served on that
 * representor fails at doca_ctx_start() (DOCA_ERROR_ALREADY_EXIST). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
				      struct doca_comch_server **comch_server);
/* An idle server only (DOCA_ERROR_BAD_STATE otherwise). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);
/* While idle: largest message (must equal the clients'); receive queue
 * depth per connection. DOCA_ERROR_INVALID_VALUE beyond the capability. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
						   uint32_t *size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server, struct doca_dev **dev);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server,
					       struct doca_dev_rep **repr);
DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);
/* Disconnect a client (it is told) and release the connection.
 * DOCA_ERROR_IN_USE: producers or consumers still use it. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
					  struct doca_comch_connection *connection);

/* ---------------------------------------------------------------- client */

/* A client on the host device @p dev for the server named @p name. Its
 * start returns DOCA_ERROR_IN_PROGRESS; it becomes running once the server
 * accepts it (it keeps asking while no such server listens yet). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
				      struct doca_comch_client **comch_client);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
						   uint32_t *size);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client, struct doca_dev **dev);
DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);
/* The client's connection; DOCA_ERROR_BAD_STATE unless running. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
					      struct doca_comch_connection **connection);

/* ------------------------------------------------------------- send task */

/* Sends one control message on a connection. */
struct doca_comch_task_send;

/* Completion (status DOCA_SUCCESS: the message is in the peer's receive
 * queue) and error callbacks: DOCA_ERROR_CONNECTION_RESET (the peer left),
 * DOCA_ERROR_IO_FAILED (flushed by a stop). */
typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task,
						     union doca_data task_user_data,
						     union doca_data ctx_user_data);

/* While idle: the callbacks and how many send tasks may exist at once. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks);

/* A send of @p len bytes at @p msg to @p peer. The bytes are read when the
 * task is submitted. DOCA_ERROR_NO_MEMORY: every send task is in use (back
 * pressure: progress, then retry); DOCA_ERROR_INVALID_VALUE: NULL, or
 * @p len above the maximum message size; DOCA_ERROR_BAD_STATE: not
 * running; DOCA_ERROR_NOT_CONNECTED: @p peer was released. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
						    struct doca_comch_connection *peer, const void *msg,
						    uint32_t len, struct doca_comch_task_send **task);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
						    struct doca_comch_connection *peer, const void *msg,
						    uint32_t len, struct doca_comch_task_send **task);
/* The generic task of a typed one. Inline (the task starts with it): it
 * runs once per message. The library exports it too. */
#ifndef DOCA_COMPAT_BUILDING
static inline struct doca_task *
doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return (struct doca_task *)(void *)task;
}
#else
DOCA_EXPERIMENTAL
struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);
#endif

/* ------------------------------------------------------------ msg events */

struct doca_comch_event_msg_recv;

/* A message arrived. @p recv_buffer is valid during the callback only
 * (copy what must live longer). */
typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event,
					       uint8_t *recv_buffer, uint32_t msg_len,
					       struct doca_comch_connection *comch_connection);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
						       doca_comch_event_msg_recv_cb_t recv_event_cb);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
						       doca_comch_event_msg_recv_cb_t recv_event_cb);

/* ----------------------------------------------------- connection events */

struct doca_comch_event_connection_status_changed;

/* A client connected (connect callback) or left (disconnect callback);
 * @p change_successful is 1. After the disconnect callback returns the
 * connection is released as soon as no producer or consumer uses it. */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(
	struct doca_comch_event_connection_status_changed *event,
	struct doca_comch_connection *comch_connection, uint8_t change_successful);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server,
	doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);
/* The same under its first name. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_connection_register(
	struct doca_comch_server *comch_server,
	doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

/* ------------------------------------------------------- consumer events */

struct doca_comch_event_consumer;

/* The peer started (new) or stopped (expired) the consumer @p id on the
 * connection: the way producers learn where to send. Ids are never 0. */
typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
					       struct doca_comch_connection *comch_connection,
					       uint32_t id);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
