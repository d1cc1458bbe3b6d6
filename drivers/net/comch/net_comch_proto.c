/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The port handshake (see net_comch.h): building our messages, checking
 * the peer's. No state but struct ncm_proto; no I/O.
 */

#include <stdio.h>
#include <string.h>

#include "net_comch.h"

static inline void
ncm_hdr_init(struct ncm_msg_hdr *h, uint16_t type)
{
	h->magic = NCM_PROTO_MAGIC;
	h->version = NCM_PROTO_VERSION;
	h->type = type;
}

void
ncm_proto_init(struct ncm_proto *p, uint16_t nb_queues, uint16_t nb_rxq,
		uint16_t nb_txq, uint32_t buf_size, uint16_t mtu,
		const uint8_t mac[6])
{
	RTE_BUILD_BUG_ON(sizeof(struct ncm_msg_hello) != NCM_MSG_HELLO_SIZE);
	RTE_BUILD_BUG_ON(sizeof(struct ncm_msg_queue) != NCM_MSG_QUEUE_SIZE);

	memset(p, 0, sizeof(*p));
	ncm_hdr_init(&p->mine.hdr, NCM_MSG_HELLO);
	p->mine.nb_queues = nb_queues;
	p->mine.nb_rxq = nb_rxq;
	p->mine.nb_txq = nb_txq;
	p->mine.buf_size = buf_size;
	p->mine.mtu = mtu;
	memcpy(p->mine.mac, mac, sizeof(p->mine.mac));
}

void
ncm_proto_queue_msg(struct ncm_msg_queue *m, uint16_t qid,
		uint32_t consumer_id)
{
	memset(m, 0, sizeof(*m));
	ncm_hdr_init(&m->hdr, NCM_MSG_QUEUE);
	m->qid = qid;
	m->consumer_id = consumer_id;
}

/* Our HELLO against the peer's: 0, or -1 with the first difference in
 * @p why. */
static int
ncm_hello_agree(const struct ncm_msg_hello *me, const struct ncm_msg_hello *peer,
		char *why, size_t size)
{
	if (peer->nb_queues != me->nb_queues) {
		snprintf(why, size, "the peer's port has queues=%u, this one queues=%u; give both ends the same queues devarg",
			peer->nb_queues, me->nb_queues);
		return -1;
	}
	if (peer->buf_size != me->buf_size) {
		snprintf(why, size, "the peer's port has buf_size=%u, this one buf_size=%u; give both ends the same buf_size devarg",
			peer->buf_size, me->buf_size);
		return -1;
	}
	if (me->nb_txq > peer->nb_rxq) {
		snprintf(why, size, "this port has %u tx queues, the peer's port %u rx queues: tx queue i sends to the peer's rx queue i; configure at least as many rx queues there",
			me->nb_txq, peer->nb_rxq);
		return -1;
	}
	if (peer->nb_txq > me->nb_rxq) {
		snprintf(why, size, "the peer's port has %u tx queues, this one %u rx queues: the peer's tx queue i sends to rx queue i here; configure at least as many rx queues here",
			peer->nb_txq, me->nb_rxq);
		return -1;
	}
	return 0;
}

int
ncm_proto_input(struct ncm_proto *p, const void *data, uint32_t len,
		char *why, size_t size)
{
	union ncm_msg m;

	/* One copy, then only the copy is read. */
	if (len < sizeof(m.hdr)) {
		snprintf(why, size, "a message of %u bytes, shorter than a header",
			len);
		return NCM_PROTO_VIOLATION;
	}
	memcpy(&m, data, RTE_MIN((size_t)len, sizeof(m)));
	if (m.hdr.magic != NCM_PROTO_MAGIC) {
		snprintf(why, size, "not a net_comch port (magic 0x%08x); is the peer another kind of comch application?",
			m.hdr.magic);
		return NCM_PROTO_VIOLATION;
	}
	if (m.hdr.version != NCM_PROTO_VERSION) {
		snprintf(why, size, "protocol version %u, this port speaks %u",
			m.hdr.version, NCM_PROTO_VERSION);
		return NCM_PROTO_VIOLATION;
	}
	switch (m.hdr.type) {
	case NCM_MSG_HELLO:
		if (len != sizeof(m.hello)) {
			snprintf(why, size, "HELLO of %u bytes, expected %zu",
				len, sizeof(m.hello));
			return NCM_PROTO_VIOLATION;
		}
		if (p->hello_seen) {
			snprintf(why, size, "a second HELLO");
			return NCM_PROTO_VIOLATION;
		}
		p->peer = m.hello;
		p->hello_seen = true;
		if (ncm_hello_agree(&p->mine, &p->peer, why, size) < 0)
			return NCM_PROTO_DISAGREED;
		p->agreed = true;
		return NCM_PROTO_AGREED;
	case NCM_MSG_QUEUE:
		if (len != sizeof(m.queue)) {
			snprintf(why, size, "QUEUE of %u bytes, expected %zu",
				len, sizeof(m.queue));
			return NCM_PROTO_VIOLATION;
		}
		if (!p->hello_seen) {
			snprintf(why, size, "QUEUE before HELLO");
			return NCM_PROTO_VIOLATION;
		}
		if (!p->agreed)
			return NCM_PROTO_IGNORED;
		if (m.queue.qid >= p->peer.nb_rxq || m.queue.consumer_id == 0) {
			snprintf(why, size, "QUEUE for rx queue %u, consumer %u: the peer has %u rx queues and consumer ids start at 1",
				m.queue.qid, m.queue.consumer_id, p->peer.nb_rxq);
			return NCM_PROTO_VIOLATION;
		}
		/* The peer's rx queues beyond our tx queues are unused. */
		if (m.queue.qid < p->mine.nb_txq)
			p->peer_cons[m.queue.qid] = m.queue.consumer_id;
		return NCM_PROTO_QUEUE;
	default:
		snprintf(why, size, "unknown message type %u", m.hdr.type);
		return NCM_PROTO_VIOLATION;
	}
}
