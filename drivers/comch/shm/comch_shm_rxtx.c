/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: the message path, the only file whose speed matters: control
 * message rings (send, receive, in flight) and the fast path (a
 * consumer's post and poll, a producer's send, contiguous or gathered).
 * The producer's CPU plays the hardware: it copies each payload once,
 * straight into the consumer's posted buffer. Layouts: comch_shm.h.
 *
 * Control rings. For a message from A to B, the ring lives in B's
 * mailbox:
 *   A writes slot[n & mask] = {len, data}, then the slot's seq = n + 1
 *     (release);
 *   B polls the slot at its private index n: seq (acquire) must be
 *     exactly n + 1, else there is no message yet; it reads len once into
 *     a private copy and checks len <= max_msg; it looks at most depth
 *     slots ahead;
 *   B releases consumed slots by writing tx_cons = cons (release) into A's
 *     mailbox; A reads it from its own mailbox and checks it moved forward
 *     by no more than it sent.
 *
 * Who writes what in a consumer ring:
 *   post_prod, slot{buf_off, buf_len, post_seq}: the consumer;
 *   claim: producers (CAS), and the consumer when it stops (CAS);
 *   slot{producer_id, imm_len, imm, completion word}: the producer that
 *     claimed the slot (the completion word last, in one store), or the
 *     producing side's primary aborting a dead producer's claim (CAS on
 *     the completion word, comch_shm_peer.c).
 *
 * Every value one side reads that the other wrote is checked against its
 * own private copies (depth, mask, memory size, posted lengths, accepted
 * immediate data); a failed check marks the connection broken (-EPROTO):
 * the next poll reports it and every later call returns -ECONNRESET.
 *
 * A producer announces the consumer it sends to in its hazard word
 * (struct shm_hazard) before it looks the mapping up, and clears it when
 * the send returns: one store each way, no fence where membarrier() is
 * available (see comch_shm_peer.c).
 *
 * Event mode: a side that published work for a peer that may sleep on it
 * (a message, a freed slot, a completion) fences, reads the peer's arm
 * word, and kicks only if it is armed for that and not kicked yet
 * (shm_kick_check()): nothing more when the peer has no events, a fence
 * and a read of the peer's line when it has.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "comch_shm_priv.h"

/* Slots peeked and claimed per CAS. */
#define SHM_SEND_CHUNK 32

/* ------------------------------------------------------ control rings */

static inline struct shm_ctrl_slot *
shm_slot(struct shm_mailbox_hdr *mb, const struct shm_ring_geom *g,
		uint32_t idx)
{
	return RTE_PTR_ADD(mb, sizeof(*mb) +
			(size_t)(idx & g->mask) * g->slot_size);
}

/* ------------------------------------------------------------- kicks */

void
shm_kick(struct shm_peer_ev *pe, uint64_t w)
{
	uint64_t old = __atomic_load_n(&pe->kicked, __ATOMIC_RELAXED);
	const char b = 'K';

	/* One kick per value of the arm word, among this process's threads:
	 * whoever moves kicked to it sends. A full queue means the peer has
	 * kicks to read already; a peer that shut its socket down is gone
	 * for our purposes: nothing here waits or fails. */
	if (old == w || !__atomic_compare_exchange_n(&pe->kicked, &old, w,
			false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	(void)send(pe->fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* ------------------------------------------------------------ the rings */

void
shm_conn_confirm(struct shm_conn *sc)
{
	if (sc->rx_held == 0)
		return;
	sc->rx_cons += sc->rx_held;
	sc->rx_held = 0;
	__atomic_store_n(&sc->remote->tx_cons, sc->rx_cons, __ATOMIC_RELEASE);
	/* Room for a sender that sleeps until there is. */
	if (sc->peer_events)
		shm_kick_conn(sc, SHM_ARM_ROOM);
}

int
shm_msg_send_op(struct rte_comch_conn *conn, const void *data, uint32_t len)
{
	struct shm_conn *sc = conn->drv;
	struct shm_ctrl_slot *slot;
	uint32_t cons;

	if (unlikely(__atomic_load_n(&sc->peer_gone, __ATOMIC_RELAXED) ||
		     __atomic_load_n(&sc->broken, __ATOMIC_RELAXED)))
		return -ECONNRESET;
	if (sc->tx_prod - sc->tx_cons >= sc->tx.depth) {
		cons = __atomic_load_n(&sc->local->tx_cons, __ATOMIC_ACQUIRE);
		/* The peer may only move forward, and not past what we
		 * produced. */
		if (unlikely(cons - sc->tx_cons > sc->tx_prod - sc->tx_cons)) {
			shm_conn_break(sc, SHM_BROKEN_CTRL_RING);
			return -ECONNRESET;
		}
		sc->tx_cons = cons;
		if (sc->tx_prod - cons >= sc->tx.depth) {
			/* An armed event waits for room now. */
			sc->tx_blocked = true;
			return -EAGAIN;
		}
	}
	if (unlikely(sc->tx_blocked))
		sc->tx_blocked = false;
	slot = shm_slot(sc->remote, &sc->tx, sc->tx_prod);
	slot->len = len;
	if (len != 0)
		memcpy(slot->data, data, len);
	sc->tx_prod++;
	/* Published by the sequence number in the slot itself: the receiver
	 * polls one cache line, not an index and then the slot. */
	__atomic_store_n(&slot->seq, sc->tx_prod, __ATOMIC_RELEASE);
	if (sc->peer_events)
		shm_kick_conn(sc, SHM_ARM_ARMED);
	return 0;
}

int
shm_msg_recv_burst(struct rte_comch_conn *conn, struct rte_comch_msg *msgs,
		uint16_t nb_msgs)
{
	struct shm_conn *sc = conn->drv;
	const struct shm_ctrl_slot *slot;
	uint32_t max, len, i, used = 0;

	if (unlikely(sc->broken))
		return -ECONNRESET;
	/* The application is done with the last burst: confirm it. A
	 * message counts as delivered (out of the sender's in-flight count)
	 * only once the application called again, so a receiver killed
	 * while it handles a burst never leaves the sender believing it was
	 * handled. */
	shm_conn_confirm(sc);
	/* Message n sits in slot n & mask with seq n + 1. Whatever the peer
	 * writes, at most depth slots from our private index are looked at,
	 * and a slot whose seq is not exactly the expected one is simply not
	 * a message (yet). Each message is copied once into private memory:
	 * the peer may rewrite its slot at any time, and an application that
	 * checks a message and reads it again must see the same bytes. */
	max = RTE_MIN((uint32_t)nb_msgs, sc->rx.depth);
	for (i = 0; i < max; i++) {
		slot = shm_slot(sc->local, &sc->rx, sc->rx_cons + i);
		if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) !=
		    sc->rx_cons + i + 1)
			break;
		len = __atomic_load_n(&slot->len, __ATOMIC_RELAXED);
		if (unlikely(len > sc->rx.max_msg)) {
			shm_conn_break(sc, SHM_BROKEN_CTRL_RING);
			break;
		}
		if (len > SHM_RX_ARENA - used)
			break; /* the next call takes it */
		if (len != 0)
			memcpy(sc->rx_arena + used, slot->data, len);
		msgs[i].data = sc->rx_arena + used;
		msgs[i].len = len;
		used += RTE_ALIGN_CEIL(len, 8);
	}
	sc->rx_held = i;
	if (unlikely(i == 0 && (sc->broken || sc->peer_gone)))
		return -ECONNRESET;
	return (int)i;
}

/* Read from any thread (telemetry, the mp thread): reads only. What the
 * peer wrote counts only if it is plausible (no further than sent);
 * otherwise the last validated value does. */
uint64_t
shm_conn_in_flight(struct rte_comch_conn *conn)
{
	struct shm_conn *sc = conn->drv;
	uint32_t prod = __atomic_load_n(&sc->tx_prod, __ATOMIC_RELAXED);
	uint32_t known = __atomic_load_n(&sc->tx_cons, __ATOMIC_RELAXED);
	uint32_t cons = __atomic_load_n(&sc->local->tx_cons, __ATOMIC_ACQUIRE);

	if (cons - known > prod - known)
		cons = known;
	return prod - cons;
}

/* ---------------------------------------------------------- consumers */

int
shm_fp_post(void *consumer, void * const *bufs, const uint32_t *lens,
		uint16_t nb_bufs)
{
	struct shm_consumer *c = consumer;
	uint32_t room, i, idx;

	if (unlikely(!c->running))
		return -EBUSY;
	if (unlikely(shm_conn_down(c->sc)))
		return -ECONNRESET;
	room = c->depth - (c->post_idx - c->cons_idx);
	if (nb_bufs > room)
		nb_bufs = (uint16_t)room;
	for (i = 0; i < nb_bufs; i++) {
		uintptr_t off = (uintptr_t)bufs[i] - (uintptr_t)c->mem_base;
		uint32_t len = lens[i];
		struct shm_post_slot *slot;

		if (len == 0 && bufs[i] == NULL)
			off = 0;
		else if ((uintptr_t)bufs[i] < (uintptr_t)c->mem_base ||
			 len > SHM_MAX_BUF_SIZE || len > c->mem_size ||
			 off > c->mem_size - len)
			break;
		idx = c->post_idx + i;
		slot = &c->slots[idx & c->mask];
		slot->buf_off = off;
		slot->buf_len = len;
		slot->post_seq = idx;
		c->posted[idx & c->mask].buf = bufs[i];
		c->posted[idx & c->mask].len = len;
	}
	if (i == 0)
		return nb_bufs == 0 ? 0 : -EINVAL;
	c->post_idx += i;
	__atomic_store_n(&c->hdr->post_prod, c->post_idx, __ATOMIC_RELEASE);
	return (int)i;
}

static inline void
shm_cpl_cancelled(struct rte_comch_completion *out,
		const struct shm_posted *p)
{
	out->buf = p->buf;
	out->len = 0;
	out->status = -ECANCELED;
	out->producer_id = UINT16_MAX;
	out->imm_len = 0;
}

static inline void
shm_consumer_idle(struct shm_consumer *c)
{
	c->stopping = false;
	__atomic_store_n(&c->cons->state, RTE_COMCH_STATE_IDLE,
			__ATOMIC_RELEASE);
}

int
shm_fp_poll(void *consumer, struct rte_comch_completion *cpl, uint16_t nb_cpl)
{
	struct shm_consumer *c = consumer;
	bool down = shm_conn_down(c->sc);
	uint16_t n = 0;

	while (n < nb_cpl && c->cons_idx != c->post_idx) {
		uint32_t idx = c->cons_idx;
		const struct shm_posted *p = &c->posted[idx & c->mask];
		struct shm_post_slot *slot = &c->slots[idx & c->mask];
		struct rte_comch_completion *out = &cpl[n];
		uint32_t len, imm_len;

		/* The producer writes the completion word in one 64-bit
		 * store: once its done_seq half is seen (acquire), its len
		 * half is too (an aligned 64-bit store is single-copy
		 * atomic). */
		if (__atomic_load_n(&slot->done_seq, __ATOMIC_ACQUIRE) !=
		    idx + 1) {
			/* Not written: cancelled by stop, or never will be
			 * (peer gone while stopping), or not yet. */
			if (!(c->stopping &&
			      (idx - c->cancel_from < c->cancel_to - c->cancel_from ||
			       down))) {
				/* A stop waits a bounded time for buffers
				 * the peer claimed: a peer that never
				 * fills them breaks the rules. */
				if (likely(!c->stopping) ||
				    rte_get_timer_cycles() < c->stop_deadline)
					break;
				shm_conn_break(c->sc, SHM_BROKEN_STALLED);
				down = true;
			}
			shm_cpl_cancelled(out, p);
		} else {
			len = __atomic_load_n(&slot->len, __ATOMIC_RELAXED);
			imm_len = __atomic_load_n(&slot->imm_len,
					__ATOMIC_RELAXED);
			if (unlikely(len > p->len || imm_len > c->max_imm_len)) {
				/* Aborted by the producing side; or the peer
				 * broke the rules: the connection is lost, a
				 * stopping consumer still gets every buffer
				 * back, as cancelled. */
				if (len != SHM_LEN_ABORTED) {
					shm_conn_break(c->sc,
						SHM_BROKEN_COMPLETION);
					down = true;
					if (!c->stopping)
						break;
				}
				shm_cpl_cancelled(out, p);
			} else {
				out->buf = p->buf;
				out->len = len;
				out->status = 0;
				c->cnt.msgs++;
				c->cnt.bytes += len;
				out->producer_id = slot->producer_id;
				out->imm_len = imm_len;
				if (imm_len != 0)
					memcpy(out->imm, slot->imm, imm_len);
			}
		}
		c->cons_idx++;
		n++;
	}
	if (unlikely(c->stopping) && c->cons_idx == c->post_idx)
		shm_consumer_idle(c);
	/* Down before, or broken by what this call found. */
	if (unlikely(n == 0 && !c->stopping && shm_conn_down(c->sc)))
		return -ECONNRESET;
	return n;
}

/* ---------------------------------------------------------- producers */

/* Peek up to @p n posted slots starting at @p c: copy offsets and lengths
 * privately, check them, stop at the first message that does not fit.
 * Returns the number usable, or -1 if the consumer broke the rules. */
static inline int
shm_peek(const struct shm_remote_cons *r, uint32_t c, uint32_t n,
		const struct rte_comch_send_op *ops, uint64_t *off,
		uint32_t *blen)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const volatile struct shm_post_slot *slot =
			&r->slots[(c + i) & r->mask];

		off[i] = slot->buf_off;
		blen[i] = slot->buf_len;
		if (unlikely(slot->post_seq != c + i || off[i] > r->mem_size ||
			     blen[i] > r->mem_size - off[i]))
			return -1;
		if (ops[i].len > blen[i] || ops[i].imm_len > r->max_imm_len)
			break;
	}
	return (int)i;
}

/* Looks at the claim one send makes before it answers "again": each
 * look after the first follows a claim that moved. Other producers of
 * ours move it, and so can the consumer's process, which may write its
 * ring: without a bound, a peer that keeps moving the claim would keep
 * a send (and the lcore polling every other connection) in this loop. */
#define SHM_CLAIM_TRIES 32

/* Claim up to @p want of @p r's posted slots from *@p c for the messages
 * at @p ops: 0 nothing posted, or the claim kept moving ("again"), > 0
 * claimed [*c, *c + k) with their offsets and lengths, -EMSGSIZE the
 * next message does not fit, -EPROTO the consumer broke the rules. */
static inline int
shm_claim(const struct shm_remote_cons *r, uint32_t *c, uint32_t want,
		const struct rte_comch_send_op *ops, uint64_t *off,
		uint32_t *blen)
{
	uint32_t prod, avail, now, tries;
	int k;

	for (tries = 0; tries < SHM_CLAIM_TRIES; tries++) {
		prod = __atomic_load_n(&r->hdr->post_prod, __ATOMIC_ACQUIRE);
		avail = prod - *c;
		k = -1;
		if (likely(avail <= r->depth)) {
			if (avail == 0)
				return 0;
			k = shm_peek(r, *c, RTE_MIN(avail, want), ops, off, blen);
		}
		if (unlikely(k < 0)) {
			/* What looks wrong is the peer's fault only if
			 * nobody moved the claim meanwhile: with several
			 * producers, *c may just be stale. */
			now = __atomic_load_n(&r->hdr->claim, __ATOMIC_ACQUIRE);
			if (now != *c) {
				*c = now;
				continue;
			}
			return -EPROTO;
		}
		if (k == 0)
			return -EMSGSIZE;
		if (__atomic_compare_exchange_n(&r->hdr->claim, c,
				*c + (uint32_t)k, false, __ATOMIC_ACQ_REL,
				__ATOMIC_ACQUIRE))
			return k;
	}
	return 0;
}

/* The length of a gathered message (beyond any posted buffer if the
 * pieces add up to more than 32 bits). */
static inline uint32_t
shm_sendv_len(const struct rte_comch_sendv_op *op)
{
	uint64_t len = 0;
	uint16_t j;

	for (j = 0; j < op->nb_segs; j++)
		len += op->segs[j].len;
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

/* Copy a gathered message's pieces one after the other to @p dst, never
 * beyond the @p len the claim checked, whatever the pieces say now. */
static inline void
shm_sendv_copy(uint8_t *dst, const struct rte_comch_sendv_op *v, uint32_t len)
{
	uint32_t n;
	uint16_t j;

	for (j = 0; j < v->nb_segs && len != 0; j++) {
		n = RTE_MIN(v->segs[j].len, len);
		if (n == 0)
			continue;
		memcpy(dst, v->segs[j].data, n);
		dst += n;
		len -= n;
	}
}

/* A send of contiguous messages (@p vops NULL) or of gathered ones (@p ops
 * NULL): the same lookup and claim, then one copy per message or per
 * piece. Inlined into each of the two ops, so the contiguous send pays
 * nothing for the gathered one. */
static __rte_always_inline int
shm_send(struct shm_producer *p, uint32_t consumer_id,
		const struct rte_comch_send_op *ops,
		const struct rte_comch_sendv_op *vops, uint16_t nb_ops)
{
	struct shm_conn *sc = p->sc;
	struct shm_remote_cons *r;
	struct rte_comch_send_op vlen[SHM_SEND_CHUNK];
	const struct rte_comch_send_op *cops;
	uint64_t off[SHM_SEND_CHUNK];
	uint32_t blen[SHM_SEND_CHUNK];
	uint32_t slot = RTE_COMCH_CONSUMER_SLOT(consumer_id);
	uint32_t c, i, want;
	int sent = 0, k;

	if (unlikely(!p->running))
		return -EBUSY;
	if (unlikely(shm_conn_down(sc)))
		return -ECONNRESET;
	/* Hazard first, then the lookup: an entry found now is not freed
	 * before the hazard is cleared (see comch_shm_peer.c). The fence is
	 * the reaper's membarrier(), or ours where there is none. */
	__atomic_store_n(p->hazard, SHM_HAZARD_BUSY |
			((uint64_t)(++p->sends & INT32_MAX) << 32) | consumer_id,
			__ATOMIC_RELEASE);
	if (unlikely(p->fence))
		rte_smp_mb();
	else
		rte_compiler_barrier();
	/* Only the consumer of that id, in the incarnation the library
	 * publishes, is reachable: a consumer id is never reused, so a send
	 * meant for a destroyed consumer finds nothing. An id above every
	 * one the peer announced may be announced soon (the application
	 * learned it from the peer's data, ahead of the link socket):
	 * "again", like a consumer with no buffer. */
	r = __atomic_load_n(&p->view->remote[slot], __ATOMIC_ACQUIRE);
	if (unlikely(r == NULL || r->id != consumer_id || r->gen !=
		     __atomic_load_n(&p->pub->gen[slot], __ATOMIC_ACQUIRE))) {
		__atomic_store_n(p->hazard, 0, __ATOMIC_RELEASE);
		if (consumer_id > __atomic_load_n(&p->pub->max_id,
				__ATOMIC_ACQUIRE))
			return 0;
		return -ENOENT;
	}

	c = __atomic_load_n(&r->hdr->claim, __ATOMIC_ACQUIRE);
	while (sent < nb_ops) {
		want = RTE_MIN((uint32_t)SHM_SEND_CHUNK,
				(uint32_t)(nb_ops - sent));
		if (vops != NULL) {
			/* What the claim checks: each message's length. */
			for (i = 0; i < want; i++) {
				vlen[i].data = NULL;
				vlen[i].len = shm_sendv_len(&vops[sent + i]);
				vlen[i].imm_len = vops[sent + i].imm_len;
				vlen[i].imm = vops[sent + i].imm;
			}
			cops = vlen;
		} else {
			cops = &ops[sent];
		}
		k = shm_claim(r, &c, want, cops, off, blen);
		if (k <= 0) {
			if (k == -EPROTO) {
				shm_conn_break(sc, SHM_BROKEN_POSTS);
				k = -ECONNRESET;
			}
			if (sent == 0 && k < 0)
				sent = k;
			break;
		}

		/* The slots [c, c + k) are ours: copy, then complete. */
		for (i = 0; i < (uint32_t)k; i++) {
			const struct rte_comch_send_op *op = &cops[i];
			struct shm_post_slot *s = &r->slots[(c + i) & r->mask];
			union shm_cpl w = { .done_seq = c + i + 1,
					    .len = op->len };

			p->cnt.bytes += op->len;
			if (vops != NULL)
				shm_sendv_copy(r->mem + off[i], &vops[sent + i],
						op->len);
			else if (op->len != 0)
				memcpy(r->mem + off[i], op->data, op->len);
			s->producer_id = p->id;
			s->imm_len = (uint8_t)op->imm_len;
			if (op->imm_len != 0)
				memcpy(s->imm, op->imm, op->imm_len);
			__atomic_store_n(&s->cpl, w.word, __ATOMIC_RELEASE);
		}
		c += (uint32_t)k;
		sent += k;
		p->cnt.msgs += (uint64_t)k;
	}
	/* A consumer that sleeps until its next completion (event mode):
	 * the completions are published, r is still ours. */
	if (r->ev != NULL && sent > 0)
		shm_kick_check(r->ev, SHM_ARM_ARMED);
	/* Every slot claimed is complete, and r is not used any more. */
	__atomic_store_n(p->hazard, 0, __ATOMIC_RELEASE);
	return sent;
}

int
shm_fp_send(void *producer, uint32_t consumer_id,
		const struct rte_comch_send_op *ops, uint16_t nb_ops)
{
	return shm_send(producer, consumer_id, ops, NULL, nb_ops);
}

int
shm_fp_sendv(void *producer, uint32_t consumer_id,
		const struct rte_comch_sendv_op *ops, uint16_t nb_ops)
{
	return shm_send(producer, consumer_id, NULL, ops, nb_ops);
}
