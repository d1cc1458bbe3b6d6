/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm fast path: registered memory, consumers and producers.
 * Layout and protocol: comch_shm.h. The producer's CPU plays the hardware:
 * it copies each payload once, straight into the consumer's posted buffer.
 *
 * Who writes what in a consumer ring:
 *   post_prod, slot{buf_off, buf_len, post_seq}: the consumer;
 *   claim: producers (CAS), and the consumer when it stops (CAS);
 *   slot{done_seq, len, producer_id, imm_len, imm}: the producer that
 *     claimed the slot.
 * Every value one side reads that the other wrote is checked against its
 * own private copies (depth, mask, memory size, posted lengths, accepted
 * immediate data); a failed check breaks the connection (-EPROTO).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "comch_shm_priv.h"

/* Slots peeked and claimed per CAS. */
#define SHM_SEND_CHUNK 32

static inline bool
shm_conn_down(const struct shm_conn *sc)
{
	return __atomic_load_n(&sc->peer_gone, __ATOMIC_RELAXED) ||
		__atomic_load_n(&sc->broken, __ATOMIC_RELAXED) != 0;
}

static inline void
shm_conn_break(struct shm_conn *sc)
{
	__atomic_store_n(&sc->broken, -EPROTO, __ATOMIC_RELAXED);
}

static size_t
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
	sm = rte_zmalloc_socket("comch_shm_mem", sizeof(*sm), 0, mem->socket_id);
	if (sm == NULL)
		return -ENOMEM;
	ret = shm_memfd_create("comch-mem", mem->size, &sm->fd, &addr);
	if (ret < 0) {
		SHM_LOG(ERR, "cannot create %zu bytes of registered memory: %s",
			mem->size, strerror(-ret));
		rte_free(sm);
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
	rte_free(sm);
}

/* ---------------------------------------------------------- consumers */

int
shm_consumer_create(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c;
	void *ring;
	int ret;

	c = rte_zmalloc_socket("comch_shm_consumer", sizeof(*c),
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (c == NULL)
		return -ENOMEM;
	c->depth = cons->nb_posts;
	c->mask = rte_align32pow2(c->depth) - 1;
	c->imm_max = cons->imm_data_len;
	c->mem_base = cons->mem->addr;
	c->mem_size = cons->mem->size;
	c->sc = cons->conn->drv;
	c->cons = cons;
	c->posted = rte_zmalloc_socket("comch_shm_posted",
			sizeof(*c->posted) * (c->mask + 1), RTE_CACHE_LINE_SIZE,
			rte_socket_id());
	c->ring_size = shm_cons_ring_size(c->depth);
	ret = c->posted == NULL ? -ENOMEM :
		shm_memfd_create("comch-consumer", c->ring_size, &c->ring_fd,
				&ring);
	if (ret < 0) {
		rte_free(c->posted);
		rte_free(c);
		return ret;
	}
	c->hdr = ring;
	c->slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
	cons->fp.drv = c;
	return 0;
}

int
shm_consumer_start(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_mem *sm = cons->mem->drv;
	struct shm_msg msg;
	int fds[2] = { c->ring_fd, sm->fd };
	int ret;

	if (shm_conn_down(c->sc))
		return -ECONNRESET;
	/* A restarted consumer continues from where it stopped. */
	__atomic_store_n(&c->hdr->claim, c->post_idx, __ATOMIC_RELAXED);
	__atomic_store_n(&c->hdr->post_prod, c->post_idx, __ATOMIC_RELEASE);
	shm_msg_init(&msg, SHM_MSG_CONSUMER_ADD);
	msg.consumer.consumer_id = cons->id;
	msg.consumer.nb_posts = c->depth;
	msg.consumer.imm_len = c->imm_max;
	msg.consumer.ring_size = c->ring_size;
	msg.consumer.mem_size = c->mem_size;
	ret = shm_msg_send_wait(c->sc->sock, &msg, fds, 2,
			SHM_ANNOUNCE_WAIT_MS);
	if (ret < 0) {
		SHM_LOG(ERR, "%s: connection %u: cannot announce consumer %u: %s",
			cdev->data->dev_name, cons->conn->id, cons->id,
			strerror(-ret));
		return ret == -EAGAIN ? -EAGAIN : -ECONNRESET;
	}
	c->announced = true;
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
	struct shm_msg msg;
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
		shm_conn_break(c->sc);
		claim = c->cons_idx;
	}
	c->cancel_from = claim;
	c->cancel_to = c->post_idx;
	c->stopping = true;
	if (c->announced && !shm_conn_down(c->sc)) {
		shm_msg_init(&msg, SHM_MSG_CONSUMER_DEL);
		msg.consumer.consumer_id = cons->id;
		/* The peer must learn it, or a later consumer with the same
		 * id would contradict what it knows: a link too congested
		 * to say so is broken. */
		if (shm_msg_send_wait(c->sc->sock, &msg, NULL, 0,
				SHM_ANNOUNCE_WAIT_MS) < 0) {
			SHM_LOG(ERR, "connection %u: cannot withdraw consumer %u; closing the connection",
				cons->conn->id, cons->id);
			shm_conn_break(c->sc);
		}
	}
	c->announced = false;
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
	rte_free(c->posted);
	rte_free(c);
	cons->fp.drv = NULL;
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
			/* Not written: cancelled by stop, or never will be
			 * (peer gone while stopping), or not yet. */
			if (!(c->stopping &&
			      (idx - c->cancel_from < c->cancel_to - c->cancel_from ||
			       down)))
				break;
			shm_cpl_cancelled(out, p);
		} else {
			len = __atomic_load_n(&slot->len, __ATOMIC_RELAXED);
			imm_len = __atomic_load_n(&slot->imm_len, __ATOMIC_RELAXED);
			if (unlikely(len > p->len || imm_len > c->imm_max)) {
				/* The peer broke the rules: the connection is
				 * lost; a stopping consumer still gets every
				 * buffer back, as cancelled. */
				shm_conn_break(c->sc);
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
shm_producer_create(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_producer *prod)
{
	struct shm_conn *sc = prod->conn->drv;
	struct shm_producer *p;

	p = rte_zmalloc_socket("comch_shm_producer", sizeof(*p),
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (p == NULL)
		return -ENOMEM;
	p->sc = sc;
	p->id = (uint16_t)prod->id;
	rte_spinlock_lock(&sc->remote_lock);
	sc->nb_producers++;
	rte_spinlock_unlock(&sc->remote_lock);
	prod->fp.drv = p;
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

static void
shm_remote_free(struct shm_remote_cons *r)
{
	munmap(r->hdr, r->ring_map_size);
	munmap(r->mem, r->mem_size);
	rte_free(r);
}

int
shm_producer_destroy(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;
	struct shm_conn *sc = p->sc;
	struct shm_remote_cons_list list;
	struct shm_remote_cons *r;

	TAILQ_INIT(&list);
	rte_spinlock_lock(&sc->remote_lock);
	/* The last producer gone: nobody can hold a retired consumer. */
	if (--sc->nb_producers == 0)
		TAILQ_CONCAT(&list, &sc->retired, next);
	rte_spinlock_unlock(&sc->remote_lock);
	while ((r = TAILQ_FIRST(&list)) != NULL) {
		TAILQ_REMOVE(&list, r, next);
		shm_remote_free(r);
	}
	rte_free(p);
	prod->fp.drv = NULL;
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

int
shm_fp_send(void *producer, uint32_t consumer_id,
		const struct rte_comch_send_op *ops, uint16_t nb_ops)
{
	struct shm_producer *p = producer;
	struct shm_conn *sc = p->sc;
	const struct shm_remote_cons *r;
	uint64_t off[SHM_SEND_CHUNK];
	uint32_t blen[SHM_SEND_CHUNK];
	uint32_t c, prod, avail, want, i;
	int sent = 0, k;

	if (unlikely(!p->running))
		return -EBUSY;
	if (unlikely(shm_conn_down(sc)))
		return -ECONNRESET;
	if (unlikely(consumer_id >= COMCH_MAX_FP_OBJECTS))
		return -ENOENT;
	r = __atomic_load_n(&sc->remote_cons[consumer_id], __ATOMIC_ACQUIRE);
	if (unlikely(r == NULL || !__atomic_load_n(&r->alive, __ATOMIC_ACQUIRE)))
		return -ENOENT;

	c = __atomic_load_n(&r->hdr->claim, __ATOMIC_ACQUIRE);
	while (sent < nb_ops) {
		/* Claim: peek, then one CAS for the whole chunk. What looks
		 * wrong is the peer's fault only if nobody moved the claim
		 * meanwhile: with several producers, c may just be stale. */
		for (;;) {
			prod = __atomic_load_n(&r->hdr->post_prod,
					__ATOMIC_ACQUIRE);
			avail = prod - c;
			k = 0;
			if (likely(avail <= r->depth)) {
				if (avail == 0)
					return sent;
				want = RTE_MIN(RTE_MIN(avail,
						(uint32_t)SHM_SEND_CHUNK),
						(uint32_t)(nb_ops - sent));
				k = shm_peek(r, c, want, &ops[sent], off, blen);
			}
			if (unlikely(avail > r->depth || k < 0)) {
				uint32_t now = __atomic_load_n(&r->hdr->claim,
						__ATOMIC_ACQUIRE);

				if (now != c) {
					c = now;
					continue;
				}
				shm_conn_break(sc);
				return sent != 0 ? sent : -ECONNRESET;
			}
			if (k == 0)
				return sent != 0 ? sent : -EMSGSIZE;
			if (__atomic_compare_exchange_n(&r->hdr->claim, &c,
					c + (uint32_t)k, false, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE))
				break;
		}

		/* The slots [c, c + k) are ours: copy, then complete. */
		for (i = 0; i < (uint32_t)k; i++) {
			const struct rte_comch_send_op *op = &ops[sent + i];
			struct shm_post_slot *slot = &r->slots[(c + i) & r->mask];

			p->cnt.bytes += op->len;
			if (op->len != 0)
				memcpy(r->mem + off[i], op->data, op->len);
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
	return sent;
}

/* ------------------------------------------- the peer's consumers (events) */

static void
shm_remote_retire(struct shm_conn *sc, struct shm_remote_cons *r)
{
	bool free_now;

	__atomic_store_n(&r->alive, false, __ATOMIC_RELEASE);
	__atomic_store_n(&sc->remote_cons[r->id], NULL, __ATOMIC_RELEASE);
	sc->nb_remote_alive--;
	rte_spinlock_lock(&sc->remote_lock);
	free_now = sc->nb_producers == 0;
	if (!free_now)
		TAILQ_INSERT_TAIL(&sc->retired, r, next);
	rte_spinlock_unlock(&sc->remote_lock);
	if (free_now)
		shm_remote_free(r);
}

static int
shm_consumer_add(struct shm_conn *sc, const struct shm_msg_consumer *m,
		const int *fds, int nfds)
{
	struct shm_remote_cons *r;
	void *ring = NULL, *mem = NULL;
	char why[SHM_REASON_MAX] = "bad CONSUMER_ADD";
	size_t ring_size;

	if (nfds != 2 || m->consumer_id >= COMCH_MAX_FP_OBJECTS ||
	    sc->remote_cons[m->consumer_id] != NULL ||
	    m->nb_posts == 0 || m->nb_posts > SHM_MAX_POSTS ||
	    m->imm_len > SHM_MAX_IMM || m->mem_size == 0 ||
	    m->mem_size > SHM_MAX_MEM_SIZE)
		goto bad;
	ring_size = shm_cons_ring_size(m->nb_posts);
	if (m->ring_size != ring_size ||
	    shm_map_sealed(fds[0], ring_size, &ring, why, sizeof(why)) < 0)
		goto bad;
	if (shm_map_sealed(fds[1], m->mem_size, &mem, why, sizeof(why)) < 0) {
		munmap(ring, ring_size);
		goto bad;
	}
	r = rte_zmalloc("comch_shm_remote_cons", sizeof(*r), RTE_CACHE_LINE_SIZE);
	if (r == NULL) {
		munmap(ring, ring_size);
		munmap(mem, m->mem_size);
		return -ENOMEM;
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
	r->alive = true;
	__atomic_store_n(&sc->remote_cons[r->id], r, __ATOMIC_RELEASE);
	sc->nb_remote_alive++;
	rte_comch_pmd_consumer_event(sc->conn, r->id, RTE_COMCH_CONSUMER_CREATED);
	return 0;
bad:
	SHM_LOG(ERR, "%s: connection %u: peer announced a consumer wrongly: %s",
		sc->conn->dev->data->dev_name, sc->conn->id, why);
	return -EPROTO;
}

int
shm_conn_consumer_msg(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds)
{
	struct shm_remote_cons *r;
	int ret, i;

	if (msg->type == SHM_MSG_CONSUMER_ADD) {
		ret = shm_consumer_add(sc, &msg->consumer, fds, nfds);
	} else if (msg->type == SHM_MSG_CONSUMER_DEL && nfds == 0 &&
		   msg->consumer.consumer_id < COMCH_MAX_FP_OBJECTS &&
		   (r = sc->remote_cons[msg->consumer.consumer_id]) != NULL) {
		shm_remote_retire(sc, r);
		rte_comch_pmd_consumer_event(sc->conn, msg->consumer.consumer_id,
				RTE_COMCH_CONSUMER_DESTROYED);
		ret = 0;
	} else {
		ret = -EPROTO;
	}
	/* Mappings keep what they need; the fds themselves are done. */
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

void
shm_conn_remote_free_all(struct shm_conn *sc)
{
	struct shm_remote_cons *r;
	uint32_t i;

	for (i = 0; i < COMCH_MAX_FP_OBJECTS; i++) {
		r = sc->remote_cons[i];
		if (r != NULL) {
			sc->remote_cons[i] = NULL;
			shm_remote_free(r);
		}
	}
	while ((r = TAILQ_FIRST(&sc->retired)) != NULL) {
		TAILQ_REMOVE(&sc->retired, r, next);
		shm_remote_free(r);
	}
	sc->nb_remote_alive = 0;
}

int
shm_conn_remote_consumers(struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids)
{
	struct shm_conn *sc = conn->drv;
	uint32_t i, n = 0;

	for (i = 0; i < COMCH_MAX_FP_OBJECTS; i++) {
		if (__atomic_load_n(&sc->remote_cons[i], __ATOMIC_ACQUIRE) == NULL)
			continue;
		if (n < nb_ids)
			ids[n] = i;
		n++;
	}
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
