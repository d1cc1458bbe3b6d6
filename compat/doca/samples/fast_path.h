/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* The fast path both sides of the data-path sample run once connected. */

#ifndef FAST_PATH_H
#define FAST_PATH_H

#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

/* The consumer events of the server or client: the id the peer of that
 * connection announced is kept in the connection's user data (0 until it
 * announced one; ids are never 0), so that each connection has its own:
 * consumer ids are per connection, and a server's other connections
 * cannot change where fp_run() sends. The programs using these leave the
 * connection's user data to them. */
void fp_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id);
void fp_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn,
			 uint32_t id);

/* Create a consumer and a producer on @p conn; send @p count messages
 * "<text> #<i>" (immediate data: i) to the peer's consumer while
 * receiving @p count from the peer, checking their order and content;
 * stop and destroy both. @p who names the side in what it prints. */
doca_error_t fp_run(const char *who, struct doca_pe *pe, struct doca_dev *dev, struct doca_comch_connection *conn,
		    const char *text, uint32_t count);

#endif /* FAST_PATH_H */
