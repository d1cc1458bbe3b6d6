/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm and secondary processes.
 *
 * The link socket is the primary's. A consumer of a secondary is
 * announced to the peer through the primary: the secondary sends its ring
 * and memory fds with SHM_MP_ANNOUNCE, the primary checks them (sealed
 * memfds of the sizes declared) and sends CONSUMER_ADD; SHM_MP_WITHDRAW
 * sends CONSUMER_DEL. A secondary's producers reach the peer's consumers
 * through this process's view (struct shm_view): rte_comch_conn_remote_
 * consumers() compares it with the generations the primary publishes and
 * asks for the fds of each new consumer (SHM_MP_REMOTE_GET), which the
 * primary kept open when the peer announced it; both are checked again
 * before they are mapped.
 *
 * When a secondary dies, the primary withdraws its consumers and repairs
 * what its producers may have left half done: a producer publishes the
 * slots it is claiming (its claim record) before its compare-and-swap
 * takes them, and clears the record once every claimed slot is complete.
 * A dead producer's record names at most 32 slots of one consumer; each
 * of them that was claimed, is neither complete nor given up, and that no
 * live producer's record covers, can only be the dead one's (or one the
 * consumer cancelled by stopping, for which giving up changes nothing), so
 * the primary gives it up (abort_seq) and the peer's consumer returns it
 * unfilled. While a live producer's record covers one, the primary waits
 * for it to move on (the library retries).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "comch_shm_priv.h"

static bool
shm_primary(void)
{
	return rte_eal_process_type() == RTE_PROC_PRIMARY;
}

static const char *
shm_dev_name(const struct rte_comch_conn *conn)
{
	struct rte_comch_dev *dev = rte_comch_pmd_dev(conn->dev_id);

	return dev != NULL ? dev->data->dev_name : "?";
}

/* ------------------------------------------------ consumer announcements */

/* Primary: CONSUMER_ADD for @p cons, of any process. */
static int
shm_announce_now(struct rte_comch_consumer *cons, int ring_fd, int mem_fd,
		uint64_t mem_size)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_conn *sc = cons->conn->drv;
	int fds[2] = { ring_fd, mem_fd };
	struct shm_msg msg;
	int ret;

	uint64_t bytes = shm_cons_ring_size(cons->nb_posts) + mem_size;

	if (shm_conn_down(sc))
		return -ECONNRESET;
	/* Twice would contradict what the peer knows: it would close the
	 * connection, for every process. */
	if (c->announced)
		return -EALREADY;
	rte_spinlock_lock(&sc->outbox_lock);
	/* What the DPU allows on this connection (host side; ACCEPT). */
	if (sc->max_own_consumers != 0 &&
	    (sc->nb_own_consumers >= sc->max_own_consumers ||
	     bytes > sc->max_own_map - sc->own_map)) {
		rte_spinlock_unlock(&sc->outbox_lock);
		SHM_LOG(ERR, "%s: connection %u: consumer %u: the DPU allows %u consumers using %" PRIu64 " MiB on this connection (its max_consumers, max_map_mb); %u use %" PRIu64 " MiB",
			shm_dev_name(cons->conn), cons->conn->id, cons->id,
			sc->max_own_consumers, sc->max_own_map >> 20,
			sc->nb_own_consumers, sc->own_map >> 20);
		return -ENOSPC;
	}
	shm_msg_init(&msg, SHM_MSG_CONSUMER_ADD);
	msg.consumer.consumer_id = cons->id;
	msg.consumer.nb_posts = cons->nb_posts;
	msg.consumer.imm_len = cons->imm_data_len;
	msg.consumer.ring_size = shm_cons_ring_size(cons->nb_posts);
	msg.consumer.mem_size = mem_size;
	/* Queued if the peer is not reading now: never waits for it. */
	ret = shm_conn_post_locked(sc, &msg, fds, 2);
	if (ret == 0) {
		c->announced = true;
		c->announced_bytes = bytes;
		sc->nb_own_consumers++;
		sc->own_map += bytes;
	}
	rte_spinlock_unlock(&sc->outbox_lock);
	return ret;
}

/* Primary: CONSUMER_DEL for @p cons if the peer knows it. */
static void
shm_withdraw_now(struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_conn *sc = cons->conn->drv;
	struct shm_msg msg;
	int ret;

	if (!c->announced)
		return;
	c->announced = false;
	shm_msg_init(&msg, SHM_MSG_CONSUMER_DEL);
	msg.consumer.consumer_id = cons->id;
	rte_spinlock_lock(&sc->outbox_lock);
	sc->nb_own_consumers--;
	sc->own_map -= c->announced_bytes;
	/* The peer must learn it (its producers would go on sending):
	 * queued behind what waits; a peer that reads nothing is cut off
	 * by the outbox's bound, and one we cannot queue for is too. */
	ret = shm_conn_post_locked(sc, &msg, NULL, 0);
	rte_spinlock_unlock(&sc->outbox_lock);
	if (ret == -ENOMEM || ret == -EMFILE)
		shm_conn_fail_local(sc, ret, "cannot queue a withdrawal");
}

int
shm_consumer_announce(struct rte_comch_consumer *cons, int ring_fd,
		int mem_fd, uint64_t mem_size)
{
	struct shm_mp_req req = { .op = SHM_MP_ANNOUNCE, .mem_size = mem_size };
	struct shm_mp_rep rep;
	int fds[2] = { ring_fd, mem_fd };
	int rep_fds[RTE_COMCH_PMD_MP_FDS], nb_rep_fds, ret;
	size_t rep_len;

	if (shm_primary())
		return shm_announce_now(cons, ring_fd, mem_fd, mem_size);
	ret = rte_comch_pmd_mp_request(cons->conn, cons, NULL, &req,
			sizeof(req), fds, 2, &rep, &rep_len, rep_fds, &nb_rep_fds);
	while (nb_rep_fds > 0)
		close(rep_fds[--nb_rep_fds]);
	return ret;
}

void
shm_consumer_withdraw(struct rte_comch_consumer *cons)
{
	struct shm_mp_req req = { .op = SHM_MP_WITHDRAW };
	struct shm_mp_rep rep;
	int rep_fds[RTE_COMCH_PMD_MP_FDS], nb_rep_fds;
	size_t rep_len;

	if (shm_primary()) {
		shm_withdraw_now(cons);
		return;
	}
	/* A gone primary took the link with it: nothing to withdraw. */
	rte_comch_pmd_mp_request(cons->conn, cons, NULL, &req, sizeof(req),
			NULL, 0, &rep, &rep_len, rep_fds, &nb_rep_fds);
	while (nb_rep_fds > 0)
		close(rep_fds[--nb_rep_fds]);
}

/* ----------------------------------------------------------------- views */

struct shm_view *
shm_view_get(struct rte_comch_dev *cdev, struct rte_comch_conn *conn,
		bool create)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_view *v;

	if (shm_primary())
		return ((struct shm_conn *)conn->drv)->view;
	pthread_mutex_lock(&sd->views_lock);
	TAILQ_FOREACH(v, &sd->views, next)
		if (v->conn == conn)
			break;
	if (v == NULL && create) {
		v = shm_view_create(conn);
		if (v != NULL)
			TAILQ_INSERT_TAIL(&sd->views, v, next);
	}
	pthread_mutex_unlock(&sd->views_lock);
	return v;
}

/* Secondary: map the peer's consumer @p id as the primary has it. */
static int
shm_view_map(struct shm_view *v, uint32_t id, struct shm_remote_cons **out)
{
	struct rte_comch_conn *conn = v->conn;
	struct shm_mp_req req = { .op = SHM_MP_REMOTE_GET, .consumer_id = id };
	struct shm_mp_rep rep;
	struct shm_remote_cons *r;
	int fds[RTE_COMCH_PMD_MP_FDS], nfds = 0, ret;
	char why[SHM_REASON_MAX] = "malformed answer";
	void *ring = NULL, *mem = NULL;
	size_t rep_len;

	*out = NULL;
	ret = rte_comch_pmd_mp_request(conn, NULL, NULL, &req, sizeof(req),
			NULL, 0, &rep, &rep_len, fds, &nfds);
	if (ret == -ENOENT)
		goto out;  /* withdrawn meanwhile */
	if (ret < 0)
		goto out;
	/* What the primary checked when the peer announced it, checked
	 * again: the fds are mapped here. */
	ret = -EPROTO;
	if (rep_len != sizeof(rep) || nfds != 2 || rep.gen == 0 ||
	    rep.nb_posts == 0 || rep.nb_posts > SHM_MAX_POSTS ||
	    rep.imm_len > SHM_MAX_IMM || rep.mem_size == 0 ||
	    rep.mem_size > SHM_MAX_MEM_SIZE ||
	    rep.ring_size != shm_cons_ring_size(rep.nb_posts) ||
	    shm_map_sealed(fds[0], rep.ring_size, &ring, why, sizeof(why)) < 0)
		goto bad;
	if (shm_map_sealed(fds[1], rep.mem_size, &mem, why, sizeof(why)) < 0) {
		munmap(ring, rep.ring_size);
		goto bad;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		munmap(ring, rep.ring_size);
		munmap(mem, rep.mem_size);
		ret = -ENOMEM;
		goto out;
	}
	r->hdr = ring;
	r->slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
	r->mem = mem;
	r->mem_size = rep.mem_size;
	r->depth = rep.nb_posts;
	r->mask = rte_align32pow2(rep.nb_posts) - 1;
	r->imm_max = rep.imm_len;
	r->id = id;
	r->gen = rep.gen;
	r->ring_map_size = rep.ring_size;
	r->ring_fd = -1;
	r->mem_fd = -1;
	*out = r;
	ret = 0;
	goto out;
bad:
	SHM_LOG(ERR, "%s: connection %u: cannot map the peer's consumer %u from the primary: %s",
		shm_dev_name(conn), conn->id, id, why);
out:
	while (nfds > 0)
		close(fds[--nfds]);
	return ret;
}

int
shm_view_sync(struct rte_comch_dev *cdev __rte_unused, struct shm_view *v)
{
	struct shm_conn *sc = v->conn->drv;
	struct shm_remote_cons *cur, *r;
	uint32_t slot, gen;
	int ret = 0;

	pthread_mutex_lock(&v->lock);
	for (slot = 0; slot < COMCH_MAX_FP_OBJECTS && ret == 0; slot++) {
		gen = __atomic_load_n(&sc->remote_gen[slot], __ATOMIC_ACQUIRE);
		cur = v->remote[slot];
		if ((cur == NULL && gen == 0) || (cur != NULL && cur->gen == gen))
			continue;
		if (cur != NULL)
			shm_view_retire(v, cur);
		if (gen == 0)
			continue;
		ret = shm_view_map(v, __atomic_load_n(&sc->remote_id[slot],
				__ATOMIC_RELAXED), &r);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret == 0)
			__atomic_store_n(&v->remote[slot], r, __ATOMIC_RELEASE);
	}
	shm_view_reap(v);
	pthread_mutex_unlock(&v->lock);
	return ret;
}

void
shm_conn_detach(struct rte_comch_dev *cdev, struct rte_comch_conn *conn)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_view *v;

	pthread_mutex_lock(&sd->views_lock);
	TAILQ_FOREACH(v, &sd->views, next)
		if (v->conn == conn)
			break;
	if (v != NULL)
		TAILQ_REMOVE(&sd->views, v, next);
	pthread_mutex_unlock(&sd->views_lock);
	/* No producer of this process is left on it (the library checked). */
	shm_view_free(v);
}

void
shm_conn_orphan(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_conn *conn)
{
	struct shm_conn *sc = conn->drv;

	/* The primary, and the link with it, is gone: for every process. */
	__atomic_store_n(&sc->peer_gone, true, __ATOMIC_RELEASE);
}

/* ------------------------------------------------- the primary's answers */

static int
shm_mp_announce(struct rte_comch_consumer *cons, const struct shm_mp_req *req,
		const int *fds, int nb_fds)
{
	char why[SHM_REASON_MAX];
	int ret;

	if (cons == NULL || nb_fds != 2 || req->mem_size == 0 ||
	    req->mem_size > SHM_MAX_MEM_SIZE)
		return -EINVAL;
	/* Our own secondary, but what goes to the peer is checked as the
	 * peer will check it. */
	ret = shm_fd_check(fds[0], shm_cons_ring_size(cons->nb_posts), why,
			sizeof(why));
	if (ret == 0)
		ret = shm_fd_check(fds[1], req->mem_size, why, sizeof(why));
	if (ret < 0) {
		SHM_LOG(ERR, "%s: connection %u: consumer %u of a secondary process: %s",
			shm_dev_name(cons->conn), cons->conn->id, cons->id, why);
		return -EINVAL;
	}
	return shm_announce_now(cons, fds[0], fds[1], req->mem_size);
}

static int
shm_mp_remote_get(struct rte_comch_conn *conn, uint32_t id,
		struct shm_mp_rep *rep, int *rep_fds, int *nb_rep_fds)
{
	struct shm_conn *sc = conn->drv;
	struct shm_view *v = sc->view;
	struct shm_remote_cons *r;
	uint32_t slot = COMCH_CONSUMER_SLOT(id);
	int ret = -ENOENT;

	if (id == 0)
		return -EINVAL;
	pthread_mutex_lock(&v->lock);
	r = v->remote[slot];
	if (r != NULL && r->id == id && r->ring_fd >= 0 &&
	    r->gen == __atomic_load_n(&sc->remote_gen[slot], __ATOMIC_ACQUIRE)) {
		/* Duplicates: the entry may be retired (and its fds closed)
		 * before the reply is sent. */
		rep_fds[0] = dup(r->ring_fd);
		rep_fds[1] = dup(r->mem_fd);
		if (rep_fds[0] < 0 || rep_fds[1] < 0) {
			if (rep_fds[0] >= 0)
				close(rep_fds[0]);
			if (rep_fds[1] >= 0)
				close(rep_fds[1]);
			ret = -EMFILE;
		} else {
			*nb_rep_fds = 2;
			rep->gen = r->gen;
			rep->nb_posts = r->depth;
			rep->imm_len = r->imm_max;
			rep->ring_size = r->ring_map_size;
			rep->mem_size = r->mem_size;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&v->lock);
	return ret;
}

int
shm_mp_request(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons,
		struct rte_comch_producer *prod __rte_unused, const void *req_data,
		size_t req_len, const int *fds, int nb_fds, void *rep_data,
		size_t *rep_len, int *rep_fds, int *nb_rep_fds)
{
	struct shm_mp_req req;
	struct shm_mp_rep rep;
	int ret;

	RTE_BUILD_BUG_ON(sizeof(struct shm_mp_req) > RTE_COMCH_PMD_MP_DATA_MAX);
	RTE_BUILD_BUG_ON(sizeof(struct shm_mp_rep) > RTE_COMCH_PMD_MP_DATA_MAX);
	*rep_len = 0;
	*nb_rep_fds = 0;
	if (req_len != sizeof(req))
		return -EINVAL;
	memcpy(&req, req_data, sizeof(req));
	memset(&rep, 0, sizeof(rep));
	switch (req.op) {
	case SHM_MP_ANNOUNCE:
		return shm_mp_announce(cons, &req, fds, nb_fds);
	case SHM_MP_WITHDRAW:
		if (cons == NULL || nb_fds != 0)
			return -EINVAL;
		shm_withdraw_now(cons);
		return 0;
	case SHM_MP_REMOTE_GET:
		if (nb_fds != 0)
			return -EINVAL;
		ret = shm_mp_remote_get(conn, req.consumer_id, &rep, rep_fds,
				nb_rep_fds);
		if (ret == 0) {
			memcpy(rep_data, &rep, sizeof(rep));
			*rep_len = sizeof(rep);
		}
		return ret;
	default:
		return -EINVAL;
	}
}

/* ------------------------------------------------------------- reclaim */

void
shm_consumer_reclaim(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_consumer *cons)
{
	shm_withdraw_now(cons);
}

/* The entry of the primary's view for the peer's consumer in @p slot
 * whose generation ends in @p gen18: alive, or retired. Under v->lock. */
static struct shm_remote_cons *
shm_view_find(struct shm_view *v, uint32_t slot, uint32_t gen18)
{
	struct shm_remote_cons *r = v->remote[slot];

	if (r != NULL && (r->gen & SHM_CLAIM_GEN_MASK) == gen18)
		return r;
	TAILQ_FOREACH(r, &v->retired, next)
		if (COMCH_CONSUMER_SLOT(r->id) == slot &&
		    (r->gen & SHM_CLAIM_GEN_MASK) == gen18)
			return r;
	return NULL;
}

int
shm_producer_reclaim(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;
	struct shm_conn *sc = prod->conn->drv;
	struct shm_view *v = sc->view;
	struct rte_comch_producer *q;
	struct shm_remote_cons *r;
	uint32_t lo, k, slot, gen18, claim, n, i, j, nb_live = 0;
	uint32_t live_lo[COMCH_MAX_FP_OBJECTS], live_k[COMCH_MAX_FP_OBJECTS];
	uint64_t rec, rec2;
	int ret = 0;

	rec = __atomic_load_n(&p->claim_rec, __ATOMIC_ACQUIRE);
	if (!(rec & SHM_CLAIM_BUSY) || shm_conn_down(sc))
		return 0; /* nothing in progress, or the peer cancels all */
	slot = SHM_CLAIM_SLOT(rec);
	k = SHM_CLAIM_K(rec);
	gen18 = SHM_CLAIM_GEN(rec);
	lo = SHM_CLAIM_LO(rec);

	pthread_mutex_lock(&v->lock);
	r = shm_view_find(v, slot, gen18);
	if (r == NULL) {
		pthread_mutex_unlock(&v->lock);
		SHM_LOG(WARNING, "%s: connection %u: producer %u died sending to a consumer that is no longer mapped",
			shm_dev_name(prod->conn), prod->conn->id, prod->id);
		return 0;
	}
	/* Only slots claimed by someone can be the dead producer's. The
	 * claim index is the peer's to write: it only bounds the loop. */
	claim = __atomic_load_n(&r->hdr->claim, __ATOMIC_ACQUIRE);
	n = RTE_MIN(claim - lo, k);
	/* Live producers' records, read after the claim: one that claimed a
	 * slot below it published its record before its CAS, and keeps it
	 * until that slot is complete. (Caller holds conn->fp_lock.) */
	TAILQ_FOREACH(q, &prod->conn->producers, next) {
		if (q->reclaiming)
			continue;
		rec2 = __atomic_load_n(&((struct shm_producer *)q->fp.drv)->claim_rec,
				__ATOMIC_ACQUIRE);
		if ((rec2 & SHM_CLAIM_BUSY) && SHM_CLAIM_SLOT(rec2) == slot &&
		    SHM_CLAIM_GEN(rec2) == gen18) {
			live_lo[nb_live] = SHM_CLAIM_LO(rec2);
			live_k[nb_live++] = SHM_CLAIM_K(rec2);
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t idx = lo + i;
		struct shm_post_slot *slot = &r->slots[idx & r->mask];

		if (__atomic_load_n(&slot->done_seq, __ATOMIC_ACQUIRE) == idx + 1 ||
		    __atomic_load_n(&slot->abort_seq, __ATOMIC_RELAXED) == idx + 1)
			continue;
		for (j = 0; j < nb_live; j++)
			if (idx - live_lo[j] < live_k[j])
				break;
		if (j < nb_live) {
			ret = -EAGAIN; /* maybe a live producer's: wait */
			break;
		}
		__atomic_store_n(&slot->abort_seq, idx + 1, __ATOMIC_RELEASE);
		SHM_LOG(INFO, "%s: connection %u: gave up slot %u of the peer's consumer %u, claimed by dead producer %u",
			shm_dev_name(prod->conn), prod->conn->id, idx, r->id,
			prod->id);
	}
	pthread_mutex_unlock(&v->lock);
	return ret;
}

void
shm_fp_release(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_conn *conn)
{
	struct shm_conn *sc = conn->drv;
	struct shm_view *v = sc->view;

	/* A producer gone (a dead one's reclaim done, maybe): what only it
	 * kept retired can go (lock order: fp_lock, the view's). */
	if (v == NULL || __atomic_load_n(&v->nb_retired, __ATOMIC_RELAXED) == 0)
		return;
	rte_spinlock_lock(&conn->fp_lock);
	pthread_mutex_lock(&v->lock);
	shm_view_reap(v);
	pthread_mutex_unlock(&v->lock);
	rte_spinlock_unlock(&conn->fp_lock);
}
