/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: our own fast-path objects, control side. Registered memory
 * (a memfd on the socket asked for), consumers (their ring: a memfd the
 * peer's producers map once the peer is told, comch_shm_peer.c) and
 * producers (their hazard word and their process's view of the peer's
 * consumers). Everything here runs in the process that owns the object;
 * the fast path itself is comch_shm_rxtx.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_memory.h>

#include "comch_shm_priv.h"

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
	ret = shm_memfd_create("comch-mem", mem->size, mem->socket_id, &sm->fd,
			&addr);
	if (ret < 0) {
		/* a DPU program may try once per host request: rate-limited */
		static struct shm_ratelimit rl;

		if (shm_ratelimit_ok(&rl, "registered memory not created"))
			SHM_LOG(ERR, "cannot create %zu bytes of registered memory%s: %s",
				mem->size, mem->socket_id == SOCKET_ID_ANY ?
				"" : " on that socket", strerror(-ret));
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
shm_consumer_create(struct rte_comch_dev *cdev,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	void *ring;
	int ret;

	c->depth = cons->nb_posts;
	c->mask = rte_align32pow2(c->depth) - 1;
	c->max_imm_len = cons->max_imm_len;
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
	ret = shm_memfd_create("comch-consumer", c->ring_size, SOCKET_ID_ANY,
			&c->ring_fd, &ring);
	if (ret < 0) {
		free(c->posted);
		c->posted = NULL;
		return ret;
	}
	c->hdr = ring;
	c->slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
	/* Event mode: its arm page and kick socket. */
	ret = shm_event_consumer_create(cdev->process_private, cons);
	if (ret < 0) {
		munmap(ring, c->ring_size);
		close(c->ring_fd);
		c->ring_fd = -1;
		free(c->posted);
		c->posted = NULL;
		return ret;
	}
	return 0;
}

/* Ready to receive; the announcement describes the ring and the memory
 * (the library has the primary send it). */
int
shm_consumer_start(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons, struct rte_comch_pmd_xfer *x)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_mem *sm = cons->mem->drv;

	if (shm_conn_down(c->sc))
		return -ECONNRESET;
	/* A restarted consumer continues from where it stopped. */
	__atomic_store_n(&c->hdr->claim, c->post_idx, __ATOMIC_RELAXED);
	__atomic_store_n(&c->hdr->post_prod, c->post_idx, __ATOMIC_RELEASE);
	x->fds[0] = c->ring_fd;
	x->fds[1] = sm->fd;
	x->nb_fds = 2;
	x->val[SHM_XFER_NB_POSTS] = c->depth;
	x->val[SHM_XFER_MAX_IMM_LEN] = c->max_imm_len;
	x->val[SHM_XFER_RING_SIZE] = c->ring_size;
	x->val[SHM_XFER_MEM_SIZE] = c->mem_size;
	shm_event_consumer_xfer(c, x);
	c->stopping = false;
	c->running = true;
	return 0;
}

int
shm_consumer_stop(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	uint32_t claim, tries = 0;
	bool taken;

	c->running = false;
	/* Take every buffer no producer claimed yet: from now on none can be
	 * claimed. A claim the peer made impossible (beyond what we posted)
	 * means it broke the rules: cancel all then. So does a claim that
	 * keeps moving: honest producers move it forward only, to post_idx
	 * at most, so our exchange fails at most once a buffer posted. */
	claim = __atomic_load_n(&c->hdr->claim, __ATOMIC_RELAXED);
	do {
		taken = __atomic_compare_exchange_n(&c->hdr->claim, &claim,
				c->post_idx, false, __ATOMIC_ACQ_REL,
				__ATOMIC_RELAXED);
	} while (!taken && ++tries <= c->depth);
	if (!taken) {
		__atomic_store_n(&c->hdr->claim, c->post_idx, __ATOMIC_RELEASE);
		shm_conn_break(c->sc, SHM_BROKEN_POSTS);
		claim = c->cons_idx;
	} else if (claim - c->cons_idx > c->post_idx - c->cons_idx) {
		shm_conn_break(c->sc, SHM_BROKEN_POSTS);
		claim = c->cons_idx;
	}
	c->cancel_from = claim;
	c->cancel_to = c->post_idx;
	c->stop_deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * SHM_STOP_GRACE_MS / 1000;
	c->stopping = true;
	if (c->cons_idx == c->post_idx) {
		c->stopping = false;
		__atomic_store_n(&cons->state, RTE_COMCH_STATE_IDLE,
				__ATOMIC_RELEASE);
	}
	return 0;
}

int
shm_consumer_destroy(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;

	shm_event_consumer_destroy(cons);
	munmap(c->hdr, c->ring_size);
	close(c->ring_fd);
	free(c->posted);
	c->posted = NULL;
	c->hdr = NULL;
	c->ring_fd = -1;
	return 0;
}

/* ---------------------------------------------------------- producers */

int
shm_producer_create(struct rte_comch_dev *cdev, struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;
	struct shm_conn *sc = prod->conn->drv;

	p->view = shm_view_hold(cdev->process_private, prod->conn);
	if (p->view == NULL)
		return -ENOMEM;
	p->sc = sc;
	p->pub = &prod->conn->remote;
	p->id = (uint16_t)prod->id;
	p->hazard = &sc->hazard[prod->id].word;
	__atomic_store_n(p->hazard, 0, __ATOMIC_RELEASE);
	p->fence = !shm_membarrier_init();
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
shm_producer_destroy(struct rte_comch_dev *cdev,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;

	/* Not sending (it is idle): its hazard is clear. */
	shm_view_release(cdev->process_private, p->view);
	p->view = NULL;
	return 0;
}

void
shm_fp_stats(struct rte_comch_dev *cdev __rte_unused, void *fp_drv,
		uint64_t *msgs, uint64_t *bytes)
{
	const struct shm_fp_counters *cnt = fp_drv;

	*msgs = __atomic_load_n(&cnt->msgs, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&cnt->bytes, __ATOMIC_RELAXED);
}
