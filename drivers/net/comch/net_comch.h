/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef NET_COMCH_H
#define NET_COMCH_H

/*
 * net_comch port protocol: the control messages the two ports of one comch
 * connection exchange (rte_comch_msg_send), so that each knows which of
 * the peer's consumers is queue i without guessing.
 *
 *   both ends, once connected:    HELLO(queues, nb_rxq, nb_txq, buf_size, ...)
 *   for each rx queue, whenever   QUEUE(qid, consumer id)
 *   its consumer is (re)created:
 *
 * Each side checks the peer's HELLO against its own (net_comch_proto.c):
 * the `queues` devargs and the posted buffer sizes must be equal, and each
 * side's tx queues must have rx queues on the other side. A disagreement
 * keeps the link down and is logged on both sides, naming both values. A
 * message that breaks the protocol (size, magic, version, type, order,
 * queue id) closes the connection.
 *
 * Every message is a fixed-size struct; everything in it is the peer's to
 * choose and is checked before use.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#define NCM_PROTO_MAGIC   0x4d434e43u /* "CNCM" in memory order */
#define NCM_PROTO_VERSION 1

/** Queue pairs per port, in any case (comch's producers/consumers per
 * connection and side). */
#define NCM_MAX_QUEUES 256

/*
 * Frames on the fast path. Tx queue i sends to the consumer the peer
 * announced for its rx queue i. One comch message (one posted buffer of
 * buf_size bytes) carries 1 to NCM_FRAMES_PER_MSG frames, one after the
 * other without padding; its immediate data is their lengths, one
 * little-endian uint16_t each (so imm_len = 2 x frames). The lengths add
 * up to the message's length exactly. Small frames thus share a buffer
 * (one posted buffer and one completion for up to 16 frames); a frame of
 * buf_size bytes fills one alone.
 */
#define NCM_FRAMES_PER_MSG 16

/**
 * The frames of a message, from its immediate data @p imm (a private copy
 * of @p imm_len bytes) and its length @p len (at most the posted length):
 * their number, or 0 for a message to drop whole (lengths missing, odd,
 * too many, or not adding up to @p len).
 */
static inline unsigned int
ncm_frames_check(const void *imm, uint32_t imm_len, uint32_t len)
{
	const uint8_t *p = (const uint8_t *)imm;
	unsigned int n = imm_len / 2, k;
	uint32_t sum = 0;

	if (imm_len == 0 || (imm_len & 1) != 0 || n > NCM_FRAMES_PER_MSG)
		return 0;
	for (k = 0; k < n; k++)
		sum += (uint32_t)p[2 * k] | (uint32_t)p[2 * k + 1] << 8;
	return sum == len ? n : 0;
}

enum ncm_msg_type {
	NCM_MSG_HELLO = 1,
	NCM_MSG_QUEUE = 2,
};

struct ncm_msg_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
};

struct ncm_msg_hello {
	struct ncm_msg_hdr hdr;
	uint16_t nb_queues;    /**< The `queues` devarg. */
	uint16_t nb_rxq;       /**< Rx queues configured. */
	uint16_t nb_txq;       /**< Tx queues configured. */
	uint16_t mtu;          /**< Informational. */
	uint32_t buf_size;     /**< Posted buffer size: the largest frame. */
	uint32_t reserved;
	uint8_t mac[6];        /**< Informational. */
	uint16_t reserved16;
};

struct ncm_msg_queue {
	struct ncm_msg_hdr hdr;
	uint16_t qid;          /**< The sender's rx queue ... */
	uint16_t reserved;
	uint32_t consumer_id;  /**< ... is this consumer of the sender. */
};

union ncm_msg {
	struct ncm_msg_hdr hdr;
	struct ncm_msg_hello hello;
	struct ncm_msg_queue queue;
};

/* What the sizes above must be on the wire. */
#define NCM_MSG_HELLO_SIZE 32
#define NCM_MSG_QUEUE_SIZE 16

/*
 * One side's view of the handshake (net_comch_proto.c). Pure data: the
 * fuzz target drives it without a port.
 */
struct ncm_proto {
	struct ncm_msg_hello mine;      /**< What we sent. */
	struct ncm_msg_hello peer;      /**< The peer's HELLO, once seen. */
	bool hello_seen;
	bool agreed;                    /**< The HELLOs agree. */
	/** The peer's consumer for each of our tx queues (its rx queue of
	 * the same id); 0: not announced. Only [0, mine.nb_txq) is used. */
	uint32_t peer_cons[NCM_MAX_QUEUES];
};

/** What a message did (ncm_proto_input()). */
enum ncm_proto_event {
	NCM_PROTO_VIOLATION = -1, /**< Broke the protocol: close. */
	NCM_PROTO_AGREED = 1,     /**< A HELLO that agrees with ours. */
	NCM_PROTO_DISAGREED,      /**< A HELLO that does not: link stays down. */
	NCM_PROTO_QUEUE,          /**< peer_cons[] changed. */
	NCM_PROTO_IGNORED,        /**< A QUEUE after a disagreement. */
};

/** Fill @p p->mine and reset the rest. */
void ncm_proto_init(struct ncm_proto *p, uint16_t nb_queues, uint16_t nb_rxq,
		uint16_t nb_txq, uint32_t buf_size, uint16_t mtu,
		const uint8_t mac[6]);

/** Build a QUEUE message. */
void ncm_proto_queue_msg(struct ncm_msg_queue *m, uint16_t qid,
		uint32_t consumer_id);

/**
 * Take one message from the peer.
 *
 * @param why
 *   Receives, for NCM_PROTO_VIOLATION and NCM_PROTO_DISAGREED, what is
 *   wrong, in words for the user (printable: nothing of the peer's bytes
 *   but numbers).
 * @return
 *   An enum ncm_proto_event.
 */
int ncm_proto_input(struct ncm_proto *p, const void *data, uint32_t len,
		char *why, size_t size);

#endif /* NET_COMCH_H */
