/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The comm-channel endpoint API (the oldest generation, deprecated by the
 * vendor, still in use): one endpoint per side, socket-like calls, a peer
 * address per connection, event channels to epoll.
 *
 * The service (DPU) listens on a name; clients (host) connect to it. The
 * service learns of new clients through doca_comm_channel_ep_recvfrom(),
 * which also returns messages from any peer. Every call is non-blocking:
 * DOCA_ERROR_AGAIN means "nothing now": arm the matching event channel
 * (doca_comm_channel_ep_event_handle_arm_send/_recv()), epoll it, call
 * again. Nothing happens between calls: the work of the endpoint is done
 * inside them (and, while an event channel is armed, on the endpoint's
 * behalf so that the channel can fire; see doca_porting.md).
 */

#ifndef DOCA_COMM_CHANNEL_H_
#define DOCA_COMM_CHANNEL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_dev;
struct doca_dev_rep;

/* No flags are defined for sendto/recvfrom. */
enum doca_comm_channel_msg_flags {
	DOCA_CC_MSG_FLAG_NONE = 0,
};

/* An endpoint: a service or a client. */
struct doca_comm_channel_ep_t;
/* A peer: one connection of an endpoint. */
struct doca_comm_channel_addr_t;

/* An fd to epoll. */
typedef doca_event_handle_t doca_event_channel_t;

/* ---------------------------------------------------------- capabilities */

/* Service names, NUL included. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo, uint32_t *max_message_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo,
						       uint32_t *max_send_queue_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo,
						       uint32_t *max_recv_queue_size);
/* DOCA_ERROR_NOT_SUPPORTED on a host device. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo,
							       uint32_t *max_num_connections);

/* -------------------------------------------------------------- endpoint */

DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep);
/* Disconnects every peer, closes the event channels, frees the endpoint. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep);

/* Properties: set before listen/connect (DOCA_ERROR_BAD_STATE after). The
 * getters return what is used: queue sizes round up to a power of two
 * (at least 16); the message size is at least 64 bytes. Both sides must
 * use the same message size. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *ep, struct doca_dev *device);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *ep, struct doca_dev_rep *device_rep);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t max_msg_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t send_queue_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t recv_queue_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *ep, struct doca_dev **device);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *ep, struct doca_dev_rep **device_rep);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t *max_msg_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *send_queue_size);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *recv_queue_size);

/* Service: listen on @p name (device and representor set).
 * DOCA_ERROR_BAD_STATE: no device or representor; DOCA_ERROR_NOT_SUPPORTED:
 * a host device; DOCA_ERROR_NOT_PERMITTED: already listening or
 * connected; DOCA_ERROR_CONNECTION_ABORTED: the name could not be taken. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name);

/* Client: start connecting to the service @p name; @p peer_addr is the
 * connection, established when doca_comm_channel_peer_addr_update_info()
 * stops returning DOCA_ERROR_CONNECTION_INPROGRESS. As documented, a
 * connect before the service listens fails: update_info then returns
 * DOCA_ERROR_CONNECTION_ABORTED. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep, const char *name,
					  struct doca_comm_channel_addr_t **peer_addr);

/* Send @p len bytes to @p peer_addr. DOCA_ERROR_AGAIN: the peer's queue is
 * full, or (client) the connection is not established yet: arm send and
 * wait; DOCA_ERROR_INVALID_VALUE: @p len above the message size;
 * DOCA_ERROR_NOT_CONNECTED: no such peer; DOCA_ERROR_CONNECTION_RESET: the
 * peer is gone (disconnect it). */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep, const void *msg, size_t len,
					 int flags, struct doca_comm_channel_addr_t *peer_addr);

/* Receive the next message from any peer into @p msg (room: *@p len;
 * a longer message is cut, as on a SOCK_SEQPACKET socket); *@p len
 * receives its length, *@p peer_addr its sender. On a service this also
 * completes the handshakes of new clients. DOCA_ERROR_AGAIN: nothing now;
 * DOCA_ERROR_CONNECTION_RESET: *@p peer_addr is gone (every message it
 * sent before was returned first; disconnect it); DOCA_ERROR_NOT_CONNECTED:
 * neither listening nor connected. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep, void *msg, size_t *len,
					   int flags, struct doca_comm_channel_addr_t **peer_addr);

/* Disconnect and free @p peer_addr (the peer is told). On a client, the
 * endpoint may connect again afterwards. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep,
					     struct doca_comm_channel_addr_t *peer_addr);

/* ------------------------------------------------------- event channels */

/* The send and receive event channels (after listen or connect). Arm one,
 * epoll it, and it becomes readable once a send may succeed (send) or a
 * message or a lost peer is waiting (receive); it stays readable until
 * armed again. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *local_ep,
						    doca_event_channel_t *send_event_channel,
						    doca_event_channel_t *recv_event_channel);
/* Service only: readable when a client connected or disconnected since
 * the last doca_comm_channel_ep_update_service_state_info(), which
 * re-arms it. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_service_event_channel(struct doca_comm_channel_ep_t *local_ep,
							    doca_event_channel_t *service_event_channel);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *local_ep);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *local_ep);

/* --------------------------------------------------------- service state */

/* Service only: snapshot the connected peers and the pending connections
 * (clients accepted whose handshake the next recvfrom completes). Frees
 * the array of the previous snapshot. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *local_ep);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_peer_addr_list(const struct doca_comm_channel_ep_t *local_ep,
						     struct doca_comm_channel_addr_t ***peer_addr_array,
						     uint32_t *peer_addr_array_len);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_ep_get_pending_connections(const struct doca_comm_channel_ep_t *local_ep,
							  uint32_t *pending_connections);

/* ------------------------------------------------------------- peer addr */

/* Opaque value of the application, 0 until set. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr,
						       uint64_t user_context);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr,
						       uint64_t *user_data);
/* Snapshot the peer's statistics for the getters below.
 * DOCA_ERROR_CONNECTION_INPROGRESS: not established yet;
 * DOCA_ERROR_CONNECTION_ABORTED: it failed or was lost. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_get_send_messages(const struct doca_comm_channel_addr_t *peer_addr,
							   uint64_t *send_messages);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_get_send_bytes(const struct doca_comm_channel_addr_t *peer_addr,
							uint64_t *send_bytes);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_get_recv_messages(const struct doca_comm_channel_addr_t *peer_addr,
							   uint64_t *recv_messages);
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_get_recv_bytes(const struct doca_comm_channel_addr_t *peer_addr,
							uint64_t *recv_bytes);
/* Sent but not yet taken by the peer. */
DOCA_EXPERIMENTAL
doca_error_t doca_comm_channel_peer_addr_get_send_in_flight_messages(const struct doca_comm_channel_addr_t *peer_addr,
								     uint64_t *send_in_flight_messages);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMM_CHANNEL_H_ */
