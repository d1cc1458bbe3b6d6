/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch fast path (frame format: net_comch.h).
 *
 * Tx gathers up to NCM_FRAMES_PER_MSG frames (their mbuf segments, as
 * they are) into one message for the queue's producer, which copies them
 * once into the next buffer the peer's consumer for this queue posted;
 * then it frees what was sent. Rx takes the completions of the queue's
 * consumer, copies each frame once into mbufs of the queue's mempool and
 * posts the buffer again at once.
 *
 * No lock, no system call, no allocation but mbufs, no log. What the peer
 * wrote is trusted only as far as it was checked: a completion's length
 * (at most the posted length) and immediate data (the frame lengths) are
 * private copies made by the library; the lengths must add up to the
 * message's length, or the message is dropped whole; the payload is read
 * once, by the copy into the mbufs.
 */

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "net_comch_priv.h"

/* Bytes of a message prefetched before its frames are copied. */
#define NCM_PREFETCH_MAX 1024u
/* Mbuf segments gathered per send. */
#define NCM_TX_SEGS 128

/* ----------------------------------------------------------------- rx */

/* Copy @p len bytes at @p src into a chain starting with @p head
 * (allocated, reset), allocating further segments. Returns 0, or -1 if
 * the mempool ran dry (the chain is freed). */
static int
ncm_rx_chain(struct ncm_rxq *q, struct rte_mbuf *head, const uint8_t *src,
		uint32_t len)
{
	struct rte_mbuf *m = head;
	uint32_t left = len, n;

	head->pkt_len = len;
	for (;;) {
		n = RTE_MIN(left, q->room);
		rte_memcpy(rte_pktmbuf_mtod(m, void *), src, n);
		m->data_len = (uint16_t)n;
		src += n;
		left -= n;
		if (left == 0)
			return 0;
		m->next = rte_pktmbuf_alloc(q->mp);
		if (unlikely(m->next == NULL)) {
			rte_pktmbuf_free(head);
			return -1;
		}
		m = m->next;
		head->nb_segs++;
	}
}

/* The frames of a completion: checked once, when first seen. Returns
 * their number, 0 for a message to drop whole (counted). */
static inline unsigned int
ncm_rx_frames(struct ncm_rxq *q, const struct rte_comch_completion *c)
{
	unsigned int n;

	if (unlikely(c->status != 0)) {
		q->st.cancelled++;
		return 0;
	}
	n = ncm_frames_check(c->imm, c->imm_len, c->len);
	if (unlikely(n == 0))
		q->st.malformed++;
	return n;
}

/*
 * Frames [*next, nb_frames) of completion @p c (payload from *off) into
 * @p pkts, at most @p room. Advances *next and *off; returns the mbufs
 * written.
 */
static inline uint16_t
ncm_rx_unpack(struct ncm_rxq *q, const struct rte_comch_completion *c,
		unsigned int nb_frames, uint16_t *next, uint32_t *off,
		struct rte_mbuf **pkts, uint16_t room, uint64_t *bytes)
{
	const unaligned_uint16_t *lens = (const unaligned_uint16_t *)c->imm;
	unsigned int n = RTE_MIN(nb_frames - *next, (unsigned int)room), k;
	struct rte_mbuf *m[NCM_FRAMES_PER_MSG];
	uint16_t out = 0;

	if (unlikely(rte_pktmbuf_alloc_bulk(q->mp, m, n) != 0)) {
		/* Dropped, as a NIC drops without descriptors. */
		q->st.no_mbuf += n;
		for (k = 0; k < n; k++)
			*off += rte_le_to_cpu_16(lens[*next + k]);
		*next += (uint16_t)n;
		return 0;
	}
	for (k = 0; k < n; k++) {
		uint32_t len = rte_le_to_cpu_16(lens[*next + k]);
		const uint8_t *src = (const uint8_t *)c->buf + *off;
		struct rte_mbuf *mb = m[k];

		*off += len;
		mb->port = q->port_id;
		if (likely(len <= q->room)) {
			rte_memcpy(rte_pktmbuf_mtod(mb, void *), src, len);
			mb->data_len = (uint16_t)len;
			mb->pkt_len = len;
		} else if (!q->scatter) {
			q->st.too_long++;
			rte_pktmbuf_free(mb);
			continue;
		} else if (ncm_rx_chain(q, mb, src, len) < 0) {
			q->st.no_mbuf++;
			continue;
		}
		*bytes += len;
		pkts[out++] = mb;
	}
	*next += (uint16_t)n;
	return out;
}

/* The frames were just written by the peer's core: ask for the lines of
 * a message at once rather than miss on each in turn (not more: too many
 * prefetches in flight stall the core). */
static __rte_always_inline void
ncm_rx_prefetch(const struct rte_comch_completion *c)
{
	uint32_t o, end = RTE_MIN(c->len, NCM_PREFETCH_MAX);

	for (o = 0; o < end; o += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(RTE_PTR_ADD(c->buf, o));
}

/* Polls of the consumer per rx burst, at most. */
#define NCM_RX_POLLS 4

uint16_t
ncm_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ncm_rxq *q = queue;
	struct ncm_lq *l = &ncm_proc_of(q->port_id)->rxl[q->qid];
	void *repost[NCM_BURST];
	unsigned int nr = 0, polls = 0;
	uint64_t bytes = 0;
	uint16_t nb_rx = 0, asked = 0;
	int n = 0;

	if (unlikely(!ncm_enter(l)))
		goto out;
	while (nb_rx < nb) {
		struct rte_comch_completion *c;

		if (l->cpl_n == 0) {
			/* As many messages as frames wanted (each holds one
			 * at least); what is left stays for the next call. */
			if (polls == NCM_RX_POLLS || (polls != 0 && n < asked))
				break;
			asked = RTE_MIN((uint16_t)(nb - nb_rx), (uint16_t)NCM_BURST);
			n = rte_comch_consumer_poll_burst(l->obj, l->cpl, asked);
			polls++;
			if (n <= 0)
				break; /* nothing, or the connection is lost (the alarm sees it) */
			ncm_rx_prefetch(&l->cpl[0]);
			l->cpl_head = 0;
			l->cpl_n = (uint16_t)n;
		}
		c = &l->cpl[l->cpl_head];
		if (l->cur_frames == NCM_UNCHECKED) {
			/* One message ahead: its lines arrive while this
			 * one's are copied. */
			if (l->cpl_n > 1)
				ncm_rx_prefetch(c + 1);
			l->cur_frames = (uint16_t)ncm_rx_frames(q, c);
		}
		if (l->cur_frames != 0)
			nb_rx += ncm_rx_unpack(q, c, l->cur_frames, &l->cur_next,
					&l->cur_off, &pkts[nb_rx], nb - nb_rx,
					&bytes);
		if (l->cur_next < l->cur_frames)
			break; /* no room for the rest of it: the next call */
		/* The buffer goes back at once (its frames are in mbufs
		 * now); fewer only if the connection was lost meanwhile. */
		repost[nr++] = c->buf;
		if (nr == NCM_BURST) {
			rte_comch_consumer_post_burst(l->obj, repost, l->lens,
					(uint16_t)nr);
			nr = 0;
		}
		l->cpl_head++;
		l->cpl_n--;
		l->cur_frames = NCM_UNCHECKED;
		l->cur_next = 0;
		l->cur_off = 0;
	}
	if (nr != 0)
		rte_comch_consumer_post_burst(l->obj, repost, l->lens,
				(uint16_t)nr);
	q->st.pkts += nb_rx;
	q->st.bytes += bytes;
out:
	ncm_leave(l);
	return nb_rx;
}

/* ----------------------------------------------------------------- tx */

uint16_t
ncm_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ncm_txq *q = queue;
	struct ncm_lq *l = &ncm_proc_of(q->port_id)->txl[q->qid];
	struct rte_comch_sendv_op ops[NCM_BURST];
	struct rte_comch_seg segs[NCM_TX_SEGS];
	uint16_t lens[NCM_BURST][NCM_FRAMES_PER_MSG];
	uint16_t frames[NCM_BURST];
	uint32_t msg_len[NCM_BURST];
	uint64_t bytes = 0;
	uint16_t done = 0, nb_sent = 0;
	uint32_t peer, bs;

	if (unlikely(!ncm_enter(l)))
		goto out;
	peer = l->peer_id;
	if (unlikely(peer == 0)) {
		q->st.peer_not_ready += nb;
		goto out;
	}
	bs = l->buf_size;
	while (done < nb) {
		unsigned int nops = 0, nsegs = 0, k, f = 0;
		uint16_t i = done;
		int sent;

		/* Messages of consecutive frames that fit the peer's buffers. */
		while (i < nb) {
			const struct rte_mbuf *mb = pkts[i], *s;
			uint32_t len = mb->pkt_len;

			if (unlikely(len > bs))
				break;
			if (f == 0 || f == NCM_FRAMES_PER_MSG ||
			    msg_len[nops - 1] + len > bs) {
				/* A new message. */
				if (nops == NCM_BURST)
					break;
				ops[nops].segs = &segs[nsegs];
				ops[nops].nb_segs = 0;
				ops[nops].imm = lens[nops];
				msg_len[nops] = 0;
				frames[nops] = 0;
				nops++;
				f = 0;
			}
			if (nsegs + mb->nb_segs > NCM_TX_SEGS)
				break;
			if (unlikely(mb->nb_segs > 1))
				q->st.gathered++;
			for (s = mb; s != NULL; s = s->next) {
				segs[nsegs].data = rte_pktmbuf_mtod(s, const void *);
				segs[nsegs].len = s->data_len;
				nsegs++;
			}
			ops[nops - 1].nb_segs += mb->nb_segs;
			lens[nops - 1][f++] = rte_cpu_to_le_16((uint16_t)len);
			ops[nops - 1].imm_len = 2u * f;
			frames[nops - 1] = f;
			msg_len[nops - 1] += len;
			i++;
		}
		if (nops != 0 && frames[nops - 1] == 0)
			nops--; /* opened, then nothing fitted in it */
		if (nops == 0) {
			/* Longer than any buffer of the peer: it never fits. */
			q->st.oversize++;
			rte_pktmbuf_free(pkts[done++]);
			continue;
		}
		sent = rte_comch_producer_sendv_burst(l->obj, peer, ops,
				(uint16_t)nops);
		if (unlikely(sent < 0)) {
			if (sent == -EMSGSIZE) {
				/* The peer posted a buffer smaller than it
				 * agreed to: this message cannot go. */
				q->st.oversize += frames[0];
				rte_pktmbuf_free_bulk(&pkts[done], frames[0]);
				done += frames[0];
				continue;
			}
			/* -ENOENT: the peer's consumer went (a new one is
			 * on its way); -ECONNRESET: the alarm sees it. */
			q->st.peer_not_ready += (uint64_t)(nb - done);
			break;
		}
		for (k = 0, f = 0; k < (unsigned int)sent; k++) {
			f += frames[k];
			bytes += msg_len[k];
		}
		rte_pktmbuf_free_bulk(&pkts[done], f);
		done += (uint16_t)f;
		nb_sent += (uint16_t)f;
		if ((unsigned int)sent < nops) {
			/* The peer has no more posted buffer: back-pressure. */
			q->st.peer_no_buffer += (uint64_t)(nb - done);
			break;
		}
	}
	q->st.pkts += nb_sent;
	q->st.bytes += bytes;
out:
	ncm_leave(l);
	return done;
}
