/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: the peer's consumers, and the announcements of ours.
 *
 * Ours: a consumer's ring and memory are announced with CONSUMER_ADD (and
 * withdrawn with CONSUMER_DEL) on the link socket, by the process that
 * owns the link, for a consumer of any process (the library brings a
 * secondary's description over, fds included): queued in the outbox,
 * never waiting for the peer, within the quotas the DPU gave in ACCEPT.
 *
 * Theirs: the link owner's poll receives CONSUMER_ADD/DEL and reports
 * them to the library, which publishes them to every process (struct
 * rte_comch_remote) and has each process that sends on the connection map
 * them: shm_remote_add(), the one function that checks a description
 * (fds, sizes, bounds, seals) and maps it, whether it came from the peer
 * or from the primary.
 *
 * Views. Each process keeps its own view of the peer's consumers per
 * connection its producers use (process memory): a mapping per consumer,
 * published to its producers by slot. The link owner's view is pinned
 * for the life of the connection; another process's lives while it has
 * producers or mappings there.
 *
 * Reclamation: a mapping the library withdraws is unpublished and put on
 * the view's retired list; it is freed once no producer can be using it.
 * A producer announces the consumer id it sends to in its hazard word
 * before it looks the mapping up, and clears it when the send returns
 * (comch_shm_rxtx.c). The reaper unpublishes first, then runs
 * membarrier() (so every thread of this process has passed a full
 * barrier: either its hazard is visible now, or its lookup comes after
 * the unpublishing and finds nothing), then frees the retired mappings no
 * hazard names. It reads the hazards of every producer of the connection,
 * whatever its process: more than it needs for this process's mappings,
 * and exactly what keeps the link owner's mapping of a consumer a dead
 * producer was sending to until its send is finished (below). Where
 * membarrier() cannot be registered, producers fence after storing their
 * hazard instead.
 *
 * A producer's process dies in the middle of a send (a secondary, killed):
 * the buffers it claimed and did not complete would stall the peer's
 * consumer for good. The primary finishes the send (shm_producer_repair):
 * it reads the consumer's claim counter C, notes which live producers are
 * sending to that consumer now (their hazard words), and waits until each
 * of them moved on. Every buffer below C was claimed by a send in
 * progress or done when C was read, so then every buffer below C that is
 * still not complete was claimed by a producer that will never complete
 * it: the primary aborts each (a compare-and-swap of its completion word,
 * which never overwrites a real completion), and the consumer returns it
 * unfilled. The peer learns nothing about processes: it sees aborted
 * transfers.
 */

#include <errno.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_tailq.h>

#include "comch_shm_priv.h"

/* ------------------------------------------------------- announcements */

int
shm_consumer_announce(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons,
		const struct rte_comch_pmd_xfer *x)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_conn *sc = conn->drv;
	uint64_t ring_size = shm_cons_ring_size(cons->nb_posts);
	uint64_t mem_size = x->val[SHM_XFER_MEM_SIZE];
	uint32_t flags = (uint32_t)x->val[SHM_XFER_FLAGS];
	char why[SHM_REASON_MAX];
	struct shm_msg msg;
	uint64_t bytes;
	int ret;

	/* What goes to the peer is checked as the peer will check it: the
	 * description came from the consumer's process, maybe another. */
	if ((flags & ~SHM_F_EVENT) != 0 ||
	    x->nb_fds != ((flags & SHM_F_EVENT) ? 4u : 2u) ||
	    x->val[SHM_XFER_NB_POSTS] != cons->nb_posts ||
	    x->val[SHM_XFER_MAX_IMM_LEN] != cons->max_imm_len ||
	    x->val[SHM_XFER_RING_SIZE] != ring_size || mem_size == 0 ||
	    mem_size > SHM_MAX_MEM_SIZE) {
		SHM_LOG(ERR, "%s: connection %u: consumer %u: its description does not hold",
			shm_dev_name(conn), conn->id, cons->id);
		return -EINVAL;
	}
	ret = shm_fd_check(x->fds[0], ring_size, why, sizeof(why));
	if (ret == 0)
		ret = shm_fd_check(x->fds[1], mem_size, why, sizeof(why));
	if (ret == 0 && (flags & SHM_F_EVENT))
		ret = shm_event_fds_check(x->fds[2], x->fds[3], why,
				sizeof(why));
	if (ret < 0) {
		SHM_LOG(ERR, "%s: connection %u: consumer %u: %s",
			shm_dev_name(conn), conn->id, cons->id, why);
		return -EINVAL;
	}
	if (shm_conn_down(sc))
		return -ECONNRESET;
	/* Twice would contradict what the peer knows: it would close the
	 * connection, for every process. */
	if (c->announced)
		return -EALREADY;
	bytes = shm_consumer_map_bytes(ring_size, mem_size, flags);
	rte_spinlock_lock(&sc->outbox_lock);
	/* What the DPU allows on this connection (host side; ACCEPT). */
	if (sc->max_own_consumers != 0 &&
	    (sc->nb_own_consumers >= sc->max_own_consumers ||
	     bytes > sc->max_own_map - sc->own_map)) {
		rte_spinlock_unlock(&sc->outbox_lock);
		SHM_LOG(ERR, "%s: connection %u: consumer %u: the DPU allows %u consumers using %" PRIu64 " MiB on this connection (its max_consumers, max_map_mb); %u use %" PRIu64 " MiB",
			shm_dev_name(conn), conn->id, cons->id,
			sc->max_own_consumers, sc->max_own_map >> 20,
			sc->nb_own_consumers, sc->own_map >> 20);
		return -ENOSPC;
	}
	shm_msg_init(&msg, SHM_MSG_CONSUMER_ADD);
	msg.consumer.consumer_id = cons->id;
	msg.consumer.nb_posts = cons->nb_posts;
	msg.consumer.max_imm_len = cons->max_imm_len;
	msg.consumer.ring_size = ring_size;
	msg.consumer.mem_size = mem_size;
	msg.consumer.flags = flags;
	/* Queued if the peer is not reading now: never waits for it. */
	ret = shm_conn_post_locked(sc, &msg, x->fds, (int)x->nb_fds);
	if (ret == 0) {
		c->announced = true;
		c->announced_bytes = bytes;
		sc->nb_own_consumers++;
		sc->own_map += bytes;
	}
	rte_spinlock_unlock(&sc->outbox_lock);
	if (ret < 0) {
		/* a DPU program may try once per host request: rate-limited */
		static struct shm_ratelimit rl;

		if (shm_ratelimit_ok(&rl, "consumers not announced"))
			SHM_LOG(ERR, "%s: connection %u: cannot announce consumer %u: %s",
				shm_dev_name(conn), conn->id, cons->id,
				strerror(-ret));
		return ret == -ENOMEM || ret == -EMFILE ? ret : -ECONNRESET;
	}
	return 0;
}

void
shm_consumer_withdraw(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_conn *sc = conn->drv;
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
	 * by the outbox's bound, and one we cannot queue for is too. If
	 * the announcement itself still waits, the peer never learns of
	 * the consumer, only that its id was used (a CONSUMER_SKIP). */
	ret = shm_conn_cancel_add_locked(sc, cons->id) ? 0 :
		shm_conn_post_locked(sc, &msg, NULL, 0);
	rte_spinlock_unlock(&sc->outbox_lock);
	if (ret == -ENOMEM || ret == -EMFILE)
		shm_conn_fail_local(sc, ret, "cannot queue a withdrawal");
}

/* --------------------------------------------------------------- views */

static void
shm_remote_free(struct shm_remote_cons *r)
{
	munmap(r->hdr, r->ring_map_size);
	munmap(r->mem, r->mem_size);
	shm_peer_ev_free(r->ev);
	free(r);
}

static struct shm_view *
shm_view_find(struct shm_dev *sd, const struct rte_comch_conn *conn)
{
	struct shm_view *v;

	TAILQ_FOREACH(v, &sd->views, next)
		if (v->conn == conn)
			return v;
	return NULL;
}

/* Under sd->views_lock. */
static struct shm_view *
shm_view_get(struct shm_dev *sd, struct rte_comch_conn *conn)
{
	struct shm_view *v = shm_view_find(sd, conn);

	if (v != NULL)
		return v;
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return NULL;
	pthread_mutex_init(&v->lock, NULL);
	TAILQ_INIT(&v->retired);
	v->conn = conn;
	TAILQ_INSERT_TAIL(&sd->views, v, next);
	return v;
}

/* Unlink and free @p v, every mapping in it: no producer of this process
 * uses it (under sd->views_lock). */
static void
shm_view_free(struct shm_dev *sd, struct shm_view *v)
{
	struct shm_remote_cons *r;
	uint32_t i;

	TAILQ_REMOVE(&sd->views, v, next);
	for (i = 0; i < RTE_COMCH_MAX_FP_OBJECTS; i++)
		if (v->remote[i] != NULL)
			shm_remote_free(v->remote[i]);
	while ((r = TAILQ_FIRST(&v->retired)) != NULL) {
		TAILQ_REMOVE(&v->retired, r, next);
		shm_remote_free(r);
	}
	pthread_mutex_destroy(&v->lock);
	free(v);
}

/* Free @p v if nothing keeps it (under sd->views_lock). */
static void
shm_view_put(struct shm_dev *sd, struct shm_view *v)
{
	bool unused;

	pthread_mutex_lock(&v->lock);
	unused = !v->pinned && v->nb_prods == 0 && v->nb_live == 0;
	pthread_mutex_unlock(&v->lock);
	if (unused)
		shm_view_free(sd, v);
}

struct shm_view *
shm_view_hold(struct shm_dev *sd, struct rte_comch_conn *conn)
{
	struct shm_view *v;

	pthread_mutex_lock(&sd->views_lock);
	v = shm_view_get(sd, conn);
	if (v != NULL) {
		pthread_mutex_lock(&v->lock);
		v->nb_prods++;
		pthread_mutex_unlock(&v->lock);
	}
	pthread_mutex_unlock(&sd->views_lock);
	return v;
}

static void shm_view_reap(struct shm_view *v);

void
shm_view_release(struct shm_dev *sd, struct shm_view *v)
{
	pthread_mutex_lock(&sd->views_lock);
	pthread_mutex_lock(&v->lock);
	v->nb_prods--;
	shm_view_reap(v);
	pthread_mutex_unlock(&v->lock);
	shm_view_put(sd, v);
	pthread_mutex_unlock(&sd->views_lock);
}

struct shm_view *
shm_view_pin(struct shm_dev *sd, struct rte_comch_conn *conn)
{
	struct shm_view *v;

	pthread_mutex_lock(&sd->views_lock);
	v = shm_view_get(sd, conn);
	if (v != NULL)
		v->pinned = true;
	pthread_mutex_unlock(&sd->views_lock);
	return v;
}

void
shm_view_unpin(struct shm_dev *sd, struct shm_view *v)
{
	if (v == NULL)
		return;
	/* The connection closes: no producer is left on it (the library
	 * checked), nor a dead one waiting to be finished. */
	pthread_mutex_lock(&sd->views_lock);
	shm_view_free(sd, v);
	pthread_mutex_unlock(&sd->views_lock);
}

void
shm_views_free(struct shm_dev *sd)
{
	struct shm_view *v;

	pthread_mutex_lock(&sd->views_lock);
	while ((v = TAILQ_FIRST(&sd->views)) != NULL)
		shm_view_free(sd, v);
	pthread_mutex_unlock(&sd->views_lock);
}

/* ---------------------------------------------------------- reclamation */

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
	state = q >= 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		shm_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 ?
		1 : -1;
	if (state < 0)
		SHM_LOG(NOTICE, "membarrier() unavailable: producers fence on every send");
	__atomic_store_n(&shm_membarrier_state, state, __ATOMIC_RELEASE);
	return state > 0;
}

/* Whether a producer of the connection, of any process, is sending to
 * consumer @p id. */
static bool
shm_id_in_use(const struct shm_conn *sc, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < RTE_COMCH_MAX_FP_OBJECTS; i++)
		if (SHM_HAZARD_NAMES(__atomic_load_n(&sc->hazard[i].word,
				__ATOMIC_ACQUIRE), id))
			return true;
	return false;
}

/* Free the retired mappings no producer is sending to (under v->lock).
 * A view no producer of this process holds frees them all, unless it is
 * the link owner's. */
static void
shm_view_reap(struct shm_view *v)
{
	const struct shm_conn *sc = v->conn->drv;
	struct shm_remote_cons *r, *tmp;

	/* The link owner's keeps what a dead producer was sending to. */
	bool check = v->nb_prods != 0 || v->pinned;

	if (TAILQ_EMPTY(&v->retired))
		return;
	if (v->nb_prods != 0 && shm_membarrier_init())
		shm_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	RTE_TAILQ_FOREACH_SAFE(r, &v->retired, next, tmp) {
		if (check && shm_id_in_use(sc, r->id))
			continue;
		TAILQ_REMOVE(&v->retired, r, next);
		__atomic_store_n(&v->nb_retired, v->nb_retired - 1,
				__ATOMIC_RELAXED);
		shm_remote_free(r);
	}
}

void
shm_view_reap_tick(struct shm_view *v, uint64_t now)
{
	if (v == NULL ||
	    __atomic_load_n(&v->nb_retired, __ATOMIC_RELAXED) == 0 ||
	    now < v->next_reap)
		return;
	v->next_reap = now + rte_get_tsc_hz() / 1000;
	pthread_mutex_lock(&v->lock);
	shm_view_reap(v);
	pthread_mutex_unlock(&v->lock);
}

/* ----------------------------------------------- the peer's consumers */

/*
 * Check what describes one of the peer's consumers and map it: the one
 * place that does, for the peer's CONSUMER_ADD and for what the primary
 * hands a secondary. 0 with *@p out, -EPROTO with @p why, or another
 * negative errno (this process's).
 */
static int
shm_remote_map(uint32_t id, uint32_t gen, const struct rte_comch_pmd_xfer *x,
		struct shm_remote_cons **out, char *why, size_t why_len)
{
	uint64_t nb_posts = x->val[SHM_XFER_NB_POSTS];
	uint64_t max_imm = x->val[SHM_XFER_MAX_IMM_LEN];
	uint64_t ring_size = x->val[SHM_XFER_RING_SIZE];
	uint64_t mem_size = x->val[SHM_XFER_MEM_SIZE];
	uint64_t flags = x->val[SHM_XFER_FLAGS];
	struct shm_peer_ev *ev = NULL;
	void *ring = NULL, *mem = NULL;
	struct shm_remote_cons *r;
	int ret;

	if ((flags & ~(uint64_t)SHM_F_EVENT) != 0) {
		snprintf(why, why_len, "unknown flags 0x%" PRIx64, flags);
		return -EPROTO;
	}
	if (x->nb_fds != ((flags & SHM_F_EVENT) ? 4u : 2u)) {
		snprintf(why, why_len, "%u fds, %u expected", x->nb_fds,
			(flags & SHM_F_EVENT) ? 4u : 2u);
		return -EPROTO;
	}
	if (nb_posts == 0 || nb_posts > SHM_MAX_POSTS ||
	    max_imm > SHM_MAX_IMM || mem_size == 0 ||
	    mem_size > SHM_MAX_MEM_SIZE) {
		snprintf(why, why_len, "nb_posts, max_imm_len or mem_size out of range");
		return -EPROTO;
	}
	if (ring_size != shm_cons_ring_size((uint32_t)nb_posts)) {
		snprintf(why, why_len, "ring_size %" PRIu64 ", %zu expected",
			ring_size, shm_cons_ring_size((uint32_t)nb_posts));
		return -EPROTO;
	}
	/* Event mode: its arm page (read-only) and kick socket. */
	if (flags & SHM_F_EVENT) {
		ret = shm_peer_ev_map(x->fds[2], x->fds[3], &ev, why, why_len);
		if (ret < 0)
			return ret;
	}
	ret = shm_map_sealed(x->fds[0], ring_size, &ring, why, why_len);
	if (ret == 0) {
		ret = shm_map_sealed(x->fds[1], mem_size, &mem, why, why_len);
		if (ret < 0)
			munmap(ring, ring_size);
	}
	if (ret < 0) {
		shm_peer_ev_free(ev);
		return ret;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		munmap(ring, ring_size);
		munmap(mem, mem_size);
		shm_peer_ev_free(ev);
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	r->ev = ev;
	r->hdr = ring;
	r->slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
	r->mem = mem;
	r->mem_size = mem_size;
	r->depth = (uint32_t)nb_posts;
	r->mask = rte_align32pow2(r->depth) - 1;
	r->max_imm_len = (uint32_t)max_imm;
	r->id = id;
	r->gen = gen;
	r->ring_map_size = ring_size;
	*out = r;
	return 0;
}

int
shm_remote_add(struct rte_comch_dev *cdev, struct rte_comch_conn *conn,
		uint32_t id, uint32_t gen, const struct rte_comch_pmd_xfer *x,
		char *why, size_t why_len)
{
	struct shm_dev *sd = cdev->process_private;
	uint32_t slot = RTE_COMCH_CONSUMER_SLOT(id);
	struct shm_remote_cons *r, *old;
	struct shm_view *v;
	int ret;

	ret = shm_remote_map(id, gen, x, &r, why, why_len);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&sd->views_lock);
	v = shm_view_get(sd, conn);
	if (v == NULL) {
		pthread_mutex_unlock(&sd->views_lock);
		shm_remote_free(r);
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_lock(&v->lock);
	/* A mapping of a consumer the library has withdrawn since (and
	 * this process not yet heard of) makes room. */
	old = v->remote[slot];
	if (old != NULL) {
		__atomic_store_n(&v->remote[slot], NULL, __ATOMIC_RELEASE);
		TAILQ_INSERT_TAIL(&v->retired, old, next);
		__atomic_store_n(&v->nb_retired, v->nb_retired + 1,
				__ATOMIC_RELAXED);
		v->nb_live--;
	}
	__atomic_store_n(&v->remote[slot], r, __ATOMIC_RELEASE);
	v->nb_live++;
	shm_view_reap(v);
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_unlock(&sd->views_lock);
	return 0;
}

void
shm_remote_del(struct rte_comch_dev *cdev, struct rte_comch_conn *conn,
		uint32_t id)
{
	struct shm_dev *sd = cdev->process_private;
	uint32_t slot = RTE_COMCH_CONSUMER_SLOT(id);
	struct shm_remote_cons *r;
	struct shm_view *v;

	pthread_mutex_lock(&sd->views_lock);
	v = shm_view_find(sd, conn);
	if (v == NULL) {
		pthread_mutex_unlock(&sd->views_lock);
		return;
	}
	pthread_mutex_lock(&v->lock);
	r = v->remote[slot];
	if (r != NULL && r->id == id) {
		/* Unpublished, then freed once no producer sends to it. */
		__atomic_store_n(&v->remote[slot], NULL, __ATOMIC_RELEASE);
		TAILQ_INSERT_TAIL(&v->retired, r, next);
		__atomic_store_n(&v->nb_retired, v->nb_retired + 1,
				__ATOMIC_RELAXED);
		v->nb_live--;
		shm_view_reap(v);
	}
	pthread_mutex_unlock(&v->lock);
	shm_view_put(sd, v);
	pthread_mutex_unlock(&sd->views_lock);
}

/* The link owner's poll: the peer announced a consumer. Within the
 * quotas the host was given in ACCEPT, the library takes it over. */
static int
shm_peer_consumer_add(struct shm_conn *sc, const struct shm_msg_consumer *m,
		const int *fds, int nfds)
{
	struct rte_comch_pmd_xfer x = { .nb_fds = (uint32_t)nfds };
	uint64_t avail = sc->max_peer_map - sc->peer_map;
	char why[SHM_REASON_MAX] = "";
	int ret;

	uint64_t page = (m->flags & SHM_F_EVENT) ? SHM_ARM_PAGE_SIZE : 0;

	if (sc->nb_peer_consumers >= sc->max_peer_consumers ||
	    m->mem_size > avail || m->ring_size > avail - m->mem_size ||
	    page > avail - m->mem_size - m->ring_size) {
		shm_conn_refuse(sc, "CONSUMER_ADD %u beyond the DPU's limits for the connection (%u consumers, %" PRIu64 " MiB; max_consumers, max_map_mb)",
			m->consumer_id, sc->max_peer_consumers,
			sc->max_peer_map >> 20);
		return -EPROTO;
	}
	memcpy(x.fds, fds, sizeof(int) * (size_t)nfds);
	x.val[SHM_XFER_NB_POSTS] = m->nb_posts;
	x.val[SHM_XFER_MAX_IMM_LEN] = m->max_imm_len;
	x.val[SHM_XFER_RING_SIZE] = m->ring_size;
	x.val[SHM_XFER_MEM_SIZE] = m->mem_size;
	x.val[SHM_XFER_FLAGS] = m->flags;
	ret = rte_comch_pmd_remote_consumer_add(sc->conn, m->consumer_id, &x,
			why, sizeof(why));
	if (ret == -EPROTO) {
		shm_conn_refuse(sc, "CONSUMER_ADD %u: %s", m->consumer_id, why);
		return ret;
	}
	if (ret < 0) {
		shm_conn_fail_local(sc, ret, "cannot map a consumer the peer announced");
		return ret;
	}
	sc->nb_peer_consumers++;
	sc->peer_map += shm_consumer_map_bytes(m->ring_size, m->mem_size,
			m->flags);
	return 0;
}

int
shm_peer_consumer_msg(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds)
{
	uint32_t id = msg->consumer.consumer_id;
	struct shm_remote_cons *r;
	uint64_t bytes = 0;
	int ret, i;

	if (msg->type == SHM_MSG_CONSUMER_ADD) {
		ret = shm_peer_consumer_add(sc, &msg->consumer, fds, nfds);
	} else if (nfds != 0) {
		shm_conn_refuse(sc, "CONSUMER_%s %u: with fds",
			msg->type == SHM_MSG_CONSUMER_DEL ? "DEL" : "SKIP", id);
		ret = -EPROTO;
	} else if (msg->type == SHM_MSG_CONSUMER_SKIP) {
		ret = rte_comch_pmd_remote_consumer_skip(sc->conn, id);
		if (ret < 0) {
			shm_conn_refuse(sc, "CONSUMER_SKIP %u", id);
			ret = -EPROTO;
		}
	} else {
		/* What it takes of the quota, from the link owner's own
		 * mapping (read by this lcore only). */
		r = sc->view->remote[RTE_COMCH_CONSUMER_SLOT(id)];
		if (r != NULL && r->id == id)
			bytes = shm_consumer_map_bytes(r->ring_map_size,
					r->mem_size, r->ev != NULL ?
					SHM_F_EVENT : 0);
		ret = rte_comch_pmd_remote_consumer_del(sc->conn, id);
		if (ret < 0) {
			shm_conn_refuse(sc, "CONSUMER_DEL %u: no such consumer",
				id);
			ret = -EPROTO;
		} else {
			sc->nb_peer_consumers--;
			sc->peer_map -= bytes;
		}
	}
	/* The library and the mappings keep what they need. */
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

/* ------------------------------------------------ a dead producer's send */

/* What the primary noted when it began finishing a dead producer's send:
 * the consumer's claim counter then, and the live producers that were
 * sending to it (their ids and hazard words). Process memory. */
struct shm_repair {
	uint32_t claim;
	uint32_t nb;
	uint16_t ids[RTE_COMCH_MAX_FP_OBJECTS];
	uint64_t words[RTE_COMCH_MAX_FP_OBJECTS];
};

struct shm_repair_note {
	struct shm_repair *st;
	const struct shm_conn *sc;
	uint32_t id;
};

static int
shm_repair_note_live(struct rte_comch_producer *q, void *arg)
{
	struct shm_repair_note *n = arg;
	uint64_t w;

	if (q->reclaiming)
		return 0;
	w = __atomic_load_n(&n->sc->hazard[q->id].word, __ATOMIC_ACQUIRE);
	if (SHM_HAZARD_NAMES(w, n->id)) {
		n->st->ids[n->st->nb] = (uint16_t)q->id;
		n->st->words[n->st->nb++] = w;
	}
	return 0;
}

/* The link owner's mapping of the peer's consumer @p id, live or retired
 * (kept: the dead producer's hazard names it). Under v->lock. A consumer
 * withdrawn and announced again keeps its ring: any mapping will do. */
static struct shm_remote_cons *
shm_repair_find(struct shm_view *v, uint32_t id)
{
	struct shm_remote_cons *r = v->remote[RTE_COMCH_CONSUMER_SLOT(id)];

	if (r != NULL && r->id == id)
		return r;
	TAILQ_FOREACH(r, &v->retired, next)
		if (r->id == id)
			return r;
	return NULL;
}

/* Abort every buffer below the claim noted that is claimed and still not
 * complete; how many. */
static uint32_t
shm_repair_abort(const struct shm_remote_cons *r, uint32_t claim)
{
	uint32_t idx, n = 0;

	for (idx = claim - r->depth; idx != claim; idx++) {
		struct shm_post_slot *s = &r->slots[idx & r->mask];
		union shm_cpl w, abort = { .done_seq = idx + 1,
					   .len = SHM_LEN_ABORTED };

		/* The consumer's words only say where to look. */
		if (__atomic_load_n(&s->post_seq, __ATOMIC_ACQUIRE) != idx)
			continue;
		w.word = __atomic_load_n(&s->cpl, __ATOMIC_ACQUIRE);
		if (w.done_seq == idx + 1)
			continue;
		if (__atomic_compare_exchange_n(&s->cpl, &w.word, abort.word,
				false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			n++;
	}
	return n;
}

int
shm_producer_repair(struct rte_comch_dev *cdev,
		struct rte_comch_producer *prod)
{
	struct shm_producer *p = prod->fp.drv;
	struct shm_conn *sc = prod->conn->drv;
	/* Not p->hazard: the process may have died before it set it up. */
	uint64_t *hazard = &sc->hazard[prod->id].word;
	struct shm_view *v = sc->view;
	struct shm_repair_note note;
	struct shm_remote_cons *r;
	uint32_t id, i, n;
	uint64_t h;
	int ret = 0;

	h = __atomic_load_n(hazard, __ATOMIC_ACQUIRE);
	if (!(h & SHM_HAZARD_BUSY) || shm_conn_down(sc) || v == NULL)
		goto done; /* not in a send, or the peer cancels all */
	id = SHM_HAZARD_ID(h);
	pthread_mutex_lock(&v->lock);
	r = shm_repair_find(v, id);
	if (r == NULL) {
		pthread_mutex_unlock(&v->lock);
		SHM_LOG(WARNING, "%s: connection %u: producer %u died sending to consumer %u, which is no longer mapped",
			cdev->data->dev_name, prod->conn->id, prod->id, id);
		goto done;
	}
	if (p->repair == NULL) {
		p->repair = calloc(1, sizeof(*p->repair));
		if (p->repair == NULL) {
			pthread_mutex_unlock(&v->lock);
			return -EAGAIN;
		}
		/* The claim first, then the hazards: a producer that claimed
		 * below it published its hazard before its claim. */
		p->repair->claim = __atomic_load_n(&r->hdr->claim,
				__ATOMIC_ACQUIRE);
		note = (struct shm_repair_note){ .st = p->repair, .sc = sc,
			.id = id };
		rte_comch_pmd_conn_producers(prod->conn, shm_repair_note_live,
				&note);
	}
	for (i = 0; i < p->repair->nb; i++) {
		if (__atomic_load_n(&sc->hazard[p->repair->ids[i]].word,
				__ATOMIC_ACQUIRE) == p->repair->words[i]) {
			ret = -EAGAIN; /* still in the send it was in */
			break;
		}
	}
	if (ret == 0) {
		n = shm_repair_abort(r, p->repair->claim);
		/* The consumer may sleep until those come back. */
		if (n != 0 && r->ev != NULL)
			shm_kick_check(r->ev, SHM_ARM_ARMED);
		if (n != 0)
			SHM_LOG(INFO, "%s: connection %u: aborted %u buffer(s) of the peer's consumer %u, claimed by producer %u whose process died",
				cdev->data->dev_name, prod->conn->id, n, id,
				prod->id);
	}
	pthread_mutex_unlock(&v->lock);
	if (ret < 0)
		return ret;
done:
	free(p->repair);
	p->repair = NULL;
	/* Its send is over: what it kept mapped may go. */
	__atomic_store_n(hazard, 0, __ATOMIC_RELEASE);
	return 0;
}
