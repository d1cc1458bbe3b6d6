/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm fast path: registered memory, consumers and producers, and
 * the peer's consumers as producers see them. Layout and protocol:
 * comch_shm.h. The producer's CPU plays the hardware: it copies each
 * payload once, straight into the consumer's posted buffer.
 *
 * Who writes what in a consumer ring:
 *   post_prod, slot{buf_off, buf_len, post_seq}: the consumer;
 *   claim: producers (CAS), and the consumer when it stops (CAS);
 *   slot{done_seq, len, producer_id, imm_len, imm}: the producer that
 *     claimed the slot;
 *   slot{abort_seq}: the producing side's primary process, for a slot a
 *     dead producer claimed (comch_shm_mp.c).
 * Every value one side reads that the other wrote is checked against its
 * own private copies (depth, mask, memory size, posted lengths, accepted
 * immediate data); a failed check breaks the connection (-EPROTO).
 *
 * Producers and consumers may belong to a secondary process: everything
 * here runs in the owner process, and uses only this process's mappings
 * (the object's own, and the view of the peer's consumers).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_tailq.h>

#include "comch_shm_priv.h"

/* Slots peeked and claimed per CAS (at most 32: see SHM_CLAIM_REC). */
#define SHM_SEND_CHUNK 32

size_t
shm_cons_ring_size(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		(size_t)rte_align32pow2(depth) * sizeof(struct shm_post_slot),
		(size_t)sysconf(_SC_PAGESIZE));
}

/* ------------------------------------------------------------ memory */

int
shm_mem_create(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_mem *mem)
{
	struct shm_mem *sm;
	void *addr;
	int ret;

	mem->size = RTE_ALIGN_CEIL(mem->size, (size_t)sysconf(_SC_PAGESIZE));
	sm = calloc(1, sizeof(*sm));
	if (sm == NULL)
		return -ENOMEM;
	ret = shm_memfd_create("comch-mem", mem->size, &sm->fd, &addr);
	if (ret < 0) {
		SHM_LOG(ERR, "cannot create %zu bytes of registered memory: %s",
			mem->size, strerror(-ret));
		free(sm);
		return ret;
	}
	mem->addr = addr;
	mem->drv = sm;
	return 0;
}

void
shm_mem_destroy(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_mem *mem)
{
	struct shm_mem *sm = mem->drv;

	munmap(mem->addr, mem->size);
	close(sm->fd);
	free(sm);
}

/* ---------------------------------------------------------- consumers */

int
shm_consumer_create(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	void *ring;
	int ret;

	c->depth = cons->nb_posts;
	c->mask = rte_align32pow2(c->depth) - 1;
	c->imm_max = cons->imm_data_len;
	c->mem_base = cons->mem->addr;
	c->mem_size = cons->mem->size;
	c->sc = cons->conn->drv;
	c->cons = cons;
	c->ring_fd = -1;
	/* Private to this process: process memory, first touched by the
	 * lcore creating the consumer. */
	c->posted = calloc(c->mask + 1, sizeof(*c->posted));
	if (c->posted == NULL)
		return -ENOMEM;
	c->ring_size = shm_cons_ring_size(c->depth);
	ret = shm_memfd_create("comch-consumer", c->ring_size, &c->ring_fd,
			&ring);
	if (ret < 0) {
		free(c->posted);
		c->posted = NULL;
		return ret;
	}
	c->hdr = ring;
	c->slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
	return 0;
}

int
shm_consumer_start(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_mem *sm = cons->mem->drv;
	int ret;

	if (shm_conn_down(c->sc))
		return -ECONNRESET;
	/* A restarted consumer continues from where it stopped. */
	__atomic_store_n(&c->hdr->claim, c->post_idx, __ATOMIC_RELAXED);
	__atomic_store_n(&c->hdr->post_prod, c->post_idx, __ATOMIC_RELEASE);
	ret = shm_consumer_announce(cons, c->ring_fd, sm->fd, c->mem_size);
	if (ret == -ENOSPC)
		return ret; /* the DPU's quota (logged) */
	if (ret < 0) {
		SHM_LOG(ERR, "%s: connection %u: cannot announce consumer %u: %s",
			cdev->data->dev_name, cons->conn->id, cons->id,
			strerror(-ret));
		return ret == -ENOMEM || ret == -EMFILE ? ret : -ECONNRESET;
	}
	c->stopping = false;
	c->running = true;
	return 0;
}

static void
shm_consumer_idle(struct shm_consumer *c)
{
	c->stopping = false;
	__atomic_store_n(&c->cons->state, RTE_COMCH_STATE_IDLE,
			__ATOMIC_RELEASE);
}

int
shm_consumer_stop(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	uint32_t claim;

	c->running = false;
	/* Take every buffer no producer claimed yet: from now on none can be
	 * claimed. A claim the peer made impossible (beyond what we posted)
	 * means it broke the rules: cancel all then. */
	claim = __atomic_load_n(&c->hdr->claim, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&c->hdr->claim, &claim, c->post_idx,
			false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		;
	if (claim - c->cons_idx > c->post_idx - c->cons_idx) {
		shm_conn_break(c->sc, SHM_BROKEN_POSTS);
		claim = c->cons_idx;
	}
	c->cancel_from = claim;
	c->cancel_to = c->post_idx;
	c->stop_deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * SHM_STOP_GRACE_MS / 1000;
	c->stopping = true;
	shm_consumer_withdraw(cons);
	if (c->cons_idx == c->post_idx)
		shm_consumer_idle(c);
	return 0;
}

int
shm_consumer_destroy(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;

	munmap(c->hdr, c->ring_size);
	close(c->ring_fd);
	free(c->posted);
	c->posted = NULL;
	c->hdr = NULL;
	c->ring_fd = -1;
	return 0;
}

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

		if (__atomic_load_n(&slot->done_seq, __ATOMIC_ACQUIRE) != idx + 1) {
			/* Not written: given up (its producer died), cancelled
			 * by stop, or never will be (peer gone while
			 * stopping), or not yet. */
			if (__atomic_load_n(&slot->abort_seq, __ATOMIC_ACQUIRE) !=
			    idx + 1 &&
			    !(c->stopping &&
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
			imm_len = __atomic_load_n(&slot->imm_len, __ATOMIC_RELAXED);
			if (unlikely(len > p->len || imm_len > c->imm_max)) {
				/* The peer broke the rules: the connection is
				 * lost; a stopping consumer still gets every
				 * buffer back, as cancelled. */
				shm_conn_break(c->sc, SHM_BROKEN_COMPLETION);
				down = true;
				if (!c->stopping)
					break;
				shm_cpl_cancelled(out, p);
				c->cons_idx++;
				n++;
				continue;
			}
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

int
shm_producer_create(struct rte_comch_dev *cdev, struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;
	struct shm_view *v;

	v = shm_view_get(cdev, prod->conn, true);
	if (v == NULL)
		return -ENOMEM;
	p->sc = prod->conn->drv;
	p->view = v;
	p->id = (uint16_t)prod->id;
	p->fence = !shm_membarrier_init();
	/* A secondary reaps its view against its own producers (the primary
	 * against the connection's, of every process). */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		pthread_mutex_lock(&v->lock);
		v->prods[v->nb_prods++] = p;
		pthread_mutex_unlock(&v->lock);
	}
	return 0;
}

int
shm_producer_start(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;

	if (shm_conn_down(p->sc))
		return -ECONNRESET;
	p->running = true;
	return 0;
}

int
shm_producer_stop(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;

	p->running = false;
	return 0;
}

int
shm_producer_destroy(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;
	struct shm_view *v = p->view;
	uint32_t i;

	/* In the primary, shm_fp_release() reaps once it is freed. */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		pthread_mutex_lock(&v->lock);
		for (i = 0; i < v->nb_prods; i++) {
			if (v->prods[i] == p) {
				v->prods[i] = v->prods[--v->nb_prods];
				break;
			}
		}
		shm_view_reap(v);
		pthread_mutex_unlock(&v->lock);
	}
	p->view = NULL;
	return 0;
}

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
		if (ops[i].len > blen[i] || ops[i].imm_len > r->imm_max)
			break;
	}
	return (int)i;
}

/* Claim up to @p want of @p r's posted slots from *@p c for the messages
 * at @p ops: 0 nothing posted ("again"), > 0 claimed [*c, *c + k) with
 * their offsets and lengths, -EMSGSIZE the next message does not fit,
 * -EPROTO the consumer broke the rules. The claim record says what is
 * being taken before the CAS takes it (see SHM_CLAIM_REC). */
static inline int
shm_claim(struct shm_producer *p, const struct shm_remote_cons *r,
		uint32_t *c, uint32_t want, const struct rte_comch_send_op *ops,
		uint64_t *off, uint32_t *blen)
{
	uint32_t prod, avail, now;
	int k;

	for (;;) {
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
		__atomic_store_n(&p->claim_rec,
			SHM_CLAIM_REC(COMCH_CONSUMER_SLOT(r->id), (uint32_t)k,
				r->gen, *c),
			__ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&r->hdr->claim, c,
				*c + (uint32_t)k, false, __ATOMIC_ACQ_REL,
				__ATOMIC_ACQUIRE))
			return k;
	}
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

/* A send of contiguous messages (@p vops NULL) or of gathered ones (@p ops
 * NULL): the same claim, then one copy per message or per piece. */
static __rte_always_inline int
shm_send(struct shm_producer *p, uint32_t consumer_id,
		const struct rte_comch_send_op *ops,
		const struct rte_comch_sendv_op *vops, uint16_t nb_ops)
{
	struct shm_conn *sc = p->sc;
	const struct shm_remote_cons *r;
	struct rte_comch_send_op vlen[SHM_SEND_CHUNK];
	const struct rte_comch_send_op *cops;
	uint64_t off[SHM_SEND_CHUNK];
	uint32_t blen[SHM_SEND_CHUNK];
	uint32_t slot = COMCH_CONSUMER_SLOT(consumer_id);
	uint32_t c, i, want;
	int sent = 0, k;

	if (unlikely(!p->running))
		return -EBUSY;
	if (unlikely(shm_conn_down(sc)))
		return -ECONNRESET;
	/* Hazard first, then the lookup: an entry found now is not freed
	 * before the hazard is cleared (see struct shm_view). The fence is
	 * the reaper's membarrier(), or ours where there is none. */
	__atomic_store_n(&p->hazard, SHM_HAZARD_BUSY | consumer_id,
			__ATOMIC_RELAXED);
	if (unlikely(p->fence))
		rte_smp_mb();
	else
		rte_compiler_barrier();
	/* Only the consumer of that id, in the incarnation the primary
	 * publishes, is reachable: a consumer id is never reused, so a send
	 * meant for a destroyed consumer finds nothing. An id above every
	 * one the peer announced may be announced soon (the application
	 * learned it from the peer's data, ahead of the link socket):
	 * "again", like a consumer with no buffer. */
	r = __atomic_load_n(&p->view->remote[slot], __ATOMIC_ACQUIRE);
	if (unlikely(r == NULL || r->id != consumer_id || r->gen !=
		     __atomic_load_n(&sc->remote_gen[slot],
				     __ATOMIC_ACQUIRE))) {
		__atomic_store_n(&p->hazard, 0, __ATOMIC_RELEASE);
		if (consumer_id > __atomic_load_n(&sc->remote_max_id,
				__ATOMIC_ACQUIRE))
			return 0;
		return -ENOENT;
	}

	c = __atomic_load_n(&r->hdr->claim, __ATOMIC_ACQUIRE);
	while (sent < nb_ops) {
		want = RTE_MIN((uint32_t)SHM_SEND_CHUNK, (uint32_t)(nb_ops - sent));
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
		k = shm_claim(p, r, &c, want, cops, off, blen);
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
			struct shm_post_slot *slot = &r->slots[(c + i) & r->mask];

			p->cnt.bytes += op->len;
			if (vops != NULL) {
				const struct rte_comch_sendv_op *v = &vops[sent + i];
				uint8_t *dst = r->mem + off[i];
				uint32_t left = op->len, n;
				uint16_t j;

				/* Never beyond the length the claim checked,
				 * whatever the pieces say now. */
				for (j = 0; j < v->nb_segs && left != 0; j++) {
					n = RTE_MIN(v->segs[j].len, left);
					if (n == 0)
						continue;
					memcpy(dst, v->segs[j].data, n);
					dst += n;
					left -= n;
				}
			} else if (op->len != 0) {
				memcpy(r->mem + off[i], op->data, op->len);
			}
			slot->len = op->len;
			slot->producer_id = p->id;
			slot->imm_len = (uint8_t)op->imm_len;
			if (op->imm_len != 0)
				memcpy(slot->imm, op->imm, op->imm_len);
			__atomic_store_n(&slot->done_seq, c + i + 1,
					__ATOMIC_RELEASE);
		}
		c += (uint32_t)k;
		sent += k;
		p->cnt.msgs += (uint64_t)k;
	}
	/* Every slot claimed is complete: nothing in progress, and r is
	 * not used any more. */
	__atomic_store_n(&p->claim_rec, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&p->hazard, 0, __ATOMIC_RELEASE);
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

/* ------------------------------------------- the peer's consumers (events) */

void
shm_remote_free(struct shm_remote_cons *r)
{
	munmap(r->hdr, r->ring_map_size);
	munmap(r->mem, r->mem_size);
	if (r->ring_fd >= 0)
		close(r->ring_fd);
	if (r->mem_fd >= 0)
		close(r->mem_fd);
	free(r);
}

void
shm_view_retire(struct shm_view *v, struct shm_remote_cons *r)
{
	__atomic_store_n(&v->remote[COMCH_CONSUMER_SLOT(r->id)], NULL,
			__ATOMIC_RELEASE);
	/* A retired consumer is never handed to a secondary again. */
	if (r->ring_fd >= 0)
		close(r->ring_fd);
	if (r->mem_fd >= 0)
		close(r->mem_fd);
	r->ring_fd = -1;
	r->mem_fd = -1;
	TAILQ_INSERT_TAIL(&v->retired, r, next);
	__atomic_store_n(&v->nb_retired, v->nb_retired + 1, __ATOMIC_RELAXED);
}

static int shm_membarrier_state; /* 0: not tried, 1: registered, -1: none */

static int
shm_membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

bool
shm_membarrier_init(void)
{
	int state = __atomic_load_n(&shm_membarrier_state, __ATOMIC_ACQUIRE);
	int q;

	if (state != 0)
		return state > 0;
	q = shm_membarrier(MEMBARRIER_CMD_QUERY);
	state = q >= 0 &&
		(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		(q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
		shm_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
		shm_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0 ?
		1 : -1;
	if (state < 0)
		SHM_LOG(NOTICE, "membarrier() unavailable: producers fence on every send");
	__atomic_store_n(&shm_membarrier_state, state, __ATOMIC_RELEASE);
	return state > 0;
}

/* Whether a producer's hazard names consumer @p id. */
static inline bool
shm_hazard_on(const struct shm_producer *p, uint32_t id)
{
	return __atomic_load_n(&p->hazard, __ATOMIC_ACQUIRE) ==
		(SHM_HAZARD_BUSY | id);
}

void
shm_view_reap(struct shm_view *v)
{
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	struct shm_remote_cons *r, *tmp;
	struct rte_comch_producer *q;
	uint32_t i;
	bool busy;

	if (TAILQ_EMPTY(&v->retired))
		return;
	/* The primary's view against the producers of every process on the
	 * connection: with secondaries attached (a dead one stays attached
	 * until reclaimed), those of every process registered at probe; a
	 * secondary's view is its own. Without membarrier(), producers fence
	 * themselves. */
	if (shm_membarrier_init())
		shm_membarrier(primary && v->conn->nb_attached != 0 ?
				MEMBARRIER_CMD_GLOBAL_EXPEDITED :
				MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	RTE_TAILQ_FOREACH_SAFE(r, &v->retired, next, tmp) {
		busy = false;
		if (primary) {
			/* caller holds conn->fp_lock */
			TAILQ_FOREACH(q, &v->conn->producers, next)
				busy |= shm_hazard_on(q->fp.drv, r->id);
		} else {
			for (i = 0; i < v->nb_prods; i++)
				busy |= shm_hazard_on(v->prods[i], r->id);
		}
		if (busy)
			continue;
		TAILQ_REMOVE(&v->retired, r, next);
		__atomic_store_n(&v->nb_retired, v->nb_retired - 1,
				__ATOMIC_RELAXED);
		shm_remote_free(r);
	}
}

struct shm_view *
shm_view_create(struct rte_comch_conn *conn)
{
	struct shm_view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	pthread_mutex_init(&v->lock, NULL);
	TAILQ_INIT(&v->retired);
	v->conn = conn;
	return v;
}

/* No producer uses @p v any more (the connection or the attachment is
 * gone). */
void
shm_view_free(struct shm_view *v)
{
	struct shm_remote_cons *r;
	uint32_t i;

	if (v == NULL)
		return;
	for (i = 0; i < COMCH_MAX_FP_OBJECTS; i++)
		if (v->remote[i] != NULL)
			shm_remote_free(v->remote[i]);
	while ((r = TAILQ_FIRST(&v->retired)) != NULL) {
		TAILQ_REMOVE(&v->retired, r, next);
		shm_remote_free(r);
	}
	pthread_mutex_destroy(&v->lock);
	free(v);
}

/* Primary: the peer announced a consumer. Its fds stay open in the entry
 * (secondaries map them from there) until it is retired. 0, or < 0 with
 * the connection refused (the peer's fault) or failed (ours). */
static int
shm_consumer_add(struct shm_conn *sc, const struct shm_msg_consumer *m,
		const int *fds, int nfds)
{
	struct shm_view *v = sc->view;
	struct shm_remote_cons *r;
	void *ring = NULL, *mem = NULL;
	char why[SHM_REASON_MAX];
	uint32_t slot = COMCH_CONSUMER_SLOT(m->consumer_id);
	size_t ring_size;
	int ret;

	/* Consumer ids are never 0, and two live consumers never share a
	 * slot (COMCH_CONSUMER_SLOT). */
	if (nfds != 2 || m->consumer_id == 0 || v->remote[slot] != NULL ||
	    m->nb_posts == 0 || m->nb_posts > SHM_MAX_POSTS ||
	    m->imm_len > SHM_MAX_IMM || m->mem_size == 0 ||
	    m->mem_size > SHM_MAX_MEM_SIZE) {
		shm_conn_refuse(sc, "CONSUMER_ADD %u: %s", m->consumer_id,
			nfds != 2 ? "not two fds" : m->consumer_id == 0 ?
			"id 0" : v->remote[slot] != NULL ? "its slot is taken" :
			"nb_posts, imm_len or mem_size out of range");
		return -EPROTO;
	}
	ring_size = shm_cons_ring_size(m->nb_posts);
	if (m->ring_size != ring_size) {
		shm_conn_refuse(sc, "CONSUMER_ADD %u: ring_size %" PRIu64 ", %zu expected",
			m->consumer_id, m->ring_size, ring_size);
		return -EPROTO;
	}
	/* The quotas the host was given in ACCEPT. */
	if (sc->nb_peer_consumers >= sc->max_peer_consumers ||
	    ring_size + m->mem_size > sc->max_peer_map - sc->peer_map) {
		shm_conn_refuse(sc, "CONSUMER_ADD %u beyond the DPU's limits for the connection (%u consumers, %" PRIu64 " MiB; max_consumers, max_map_mb)",
			m->consumer_id, sc->max_peer_consumers,
			sc->max_peer_map >> 20);
		return -EPROTO;
	}
	ret = shm_map_sealed(fds[0], ring_size, &ring, why, sizeof(why));
	if (ret == 0) {
		ret = shm_map_sealed(fds[1], m->mem_size, &mem, why, sizeof(why));
		if (ret < 0)
			munmap(ring, ring_size);
	}
	if (ret == -EPROTO) {
		shm_conn_refuse(sc, "CONSUMER_ADD %u: %s", m->consumer_id, why);
		return ret;
	}
	r = ret < 0 ? NULL : calloc(1, sizeof(*r));
	if (r == NULL) {
		if (ret == 0) {
			munmap(ring, ring_size);
			munmap(mem, m->mem_size);
			ret = -ENOMEM;
			snprintf(why, sizeof(why), "out of memory");
		}
		shm_conn_fail_local(sc, ret, "cannot map a consumer the peer announced");
		return ret;
	}
	r->hdr = ring;
	r->slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
	r->mem = mem;
	r->mem_size = m->mem_size;
	r->depth = m->nb_posts;
	r->mask = rte_align32pow2(m->nb_posts) - 1;
	r->imm_max = m->imm_len;
	r->id = m->consumer_id;
	r->ring_map_size = ring_size;
	r->ring_fd = fds[0];
	r->mem_fd = fds[1];
	if (++sc->next_gen == 0)
		sc->next_gen = 1;
	r->gen = sc->next_gen;
	sc->nb_peer_consumers++;
	sc->peer_map += ring_size + m->mem_size;
	pthread_mutex_lock(&v->lock);
	__atomic_store_n(&v->remote[slot], r, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&v->lock);
	__atomic_store_n(&sc->remote_id[slot], r->id, __ATOMIC_RELAXED);
	__atomic_store_n(&sc->remote_gen[slot], r->gen, __ATOMIC_RELEASE);
	if (r->id > sc->remote_max_id)
		__atomic_store_n(&sc->remote_max_id, r->id, __ATOMIC_RELEASE);
	rte_comch_pmd_consumer_event(sc->conn, r->id, RTE_COMCH_CONSUMER_CREATED);
	return 0;
}

/* Primary, the connection's polling lcore: CONSUMER_ADD or CONSUMER_DEL.
 * 0, or < 0 with the connection refused or failed (logged). */
int
shm_conn_consumer_msg(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds)
{
	struct shm_view *v = sc->view;
	struct shm_remote_cons *r;
	uint32_t id = msg->consumer.consumer_id;
	uint32_t slot = COMCH_CONSUMER_SLOT(id);
	int ret, i;

	if (msg->type == SHM_MSG_CONSUMER_ADD) {
		ret = shm_consumer_add(sc, &msg->consumer, fds, nfds);
		if (ret == 0)
			return 0; /* the entry keeps the fds */
	} else if (nfds == 0 && (r = v->remote[slot]) != NULL && r->id == id) {
		/* Unpublished, then freed if no producer of any process is
		 * sending to it (the reaper reads the producer list under
		 * fp_lock; lock order: fp_lock, then the view's). */
		__atomic_store_n(&sc->remote_gen[slot], 0, __ATOMIC_RELEASE);
		sc->nb_peer_consumers--;
		sc->peer_map -= r->ring_map_size + r->mem_size;
		rte_spinlock_lock(&sc->conn->fp_lock);
		pthread_mutex_lock(&v->lock);
		shm_view_retire(v, r);
		shm_view_reap(v);
		pthread_mutex_unlock(&v->lock);
		rte_spinlock_unlock(&sc->conn->fp_lock);
		rte_comch_pmd_consumer_event(sc->conn, id,
				RTE_COMCH_CONSUMER_DESTROYED);
		ret = 0;
	} else {
		shm_conn_refuse(sc, "CONSUMER_DEL %u: %s", id, nfds != 0 ?
			"with fds" : "no such consumer");
		ret = -EPROTO;
	}
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

int
shm_conn_remote_consumers(struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids)
{
	struct shm_conn *sc = conn->drv;
	uint32_t all[COMCH_MAX_FP_OBJECTS];
	uint32_t i, j, id, n = 0;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		struct rte_comch_dev *cdev = rte_comch_pmd_dev(conn->dev_id);
		struct shm_view *v = shm_view_get(cdev, conn, true);

		if (v == NULL)
			return -ENOMEM;
		ret = shm_view_sync(cdev, v);
		if (ret < 0)
			return ret;
	}
	/* Slot order is not id order: sort (ascending, as documented). */
	for (i = 0; i < COMCH_MAX_FP_OBJECTS; i++) {
		if (__atomic_load_n(&sc->remote_gen[i], __ATOMIC_ACQUIRE) == 0)
			continue;
		id = __atomic_load_n(&sc->remote_id[i], __ATOMIC_RELAXED);
		for (j = n; j > 0 && all[j - 1] > id; j--)
			all[j] = all[j - 1];
		all[j] = id;
		n++;
	}
	for (i = 0; i < n && i < nb_ids; i++)
		ids[i] = all[i];
	return (int)n;
}

void
shm_fp_stats(struct rte_comch_dev *cdev __rte_unused, void *fp_drv,
		uint64_t *msgs, uint64_t *bytes)
{
	const struct shm_fp_counters *cnt = fp_drv;

	*msgs = __atomic_load_n(&cnt->msgs, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&cnt->bytes, __ATOMIC_RELAXED);
}
