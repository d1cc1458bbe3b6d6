/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch queue objects: each queue's producer or consumer, created in
 * the process that polls the queue and released when the connection
 * changes or another process takes the queue over; which process owns
 * which queue (pids in the port's shared data, changed by compare-and-
 * swap); the barrier that lets the alarm take an object away from under
 * the burst functions without a lock on their side. Run from every
 * process's alarm (net_comch_ctrl.c). See net_comch_priv.h for who holds
 * what.
 */

#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "net_comch_priv.h"

/* Here, in the lowest file that logs: a file calls only the files below
 * it (devtools/check-cycles.py). */
RTE_LOG_REGISTER(ncm_logtype, pmd.net.comch, NOTICE);

/* ------------------------------------------------------------ barrier */

static long
ncm_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* Every thread of this process that was inside a burst has either made
 * its in_burst store visible, or will see active cleared: see
 * struct ncm_lq. */
static void
ncm_barrier(struct ncm_proc *pp)
{
	if (pp->membarrier &&
	    ncm_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
		return;
	/* Only reached without membarrier: the bursts fence themselves. */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void
ncm_membarrier_init(struct ncm_proc *pp)
{
	long q = ncm_membarrier(MEMBARRIER_CMD_QUERY);
	unsigned int i;

	pp->membarrier = q >= 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		ncm_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
	if (!pp->membarrier) {
		NCM_LOG(INFO, "%s: no membarrier(PRIVATE_EXPEDITED): the bursts fence",
			ncm_name(pp));
		for (i = 0; i < NCM_MAX_QUEUES; i++) {
			pp->rxl[i].fence = 1;
			pp->txl[i].fence = 1;
		}
	}
}

/* ------------------------------------------------------- queue objects */

static bool
ncm_cas32(int32_t *p, int32_t from, int32_t to)
{
	return __atomic_compare_exchange_n(p, &from, to, false,
			__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static struct ncm_rxq *
ncm_rxq(struct ncm_proc *pp, uint16_t i)
{
	struct rte_eth_dev_data *d = pp->dev->data;

	return i < d->nb_rx_queues && d->rx_queues != NULL ?
		d->rx_queues[i] : NULL;
}

static struct ncm_txq *
ncm_txq(struct ncm_proc *pp, uint16_t i)
{
	struct rte_eth_dev_data *d = pp->dev->data;

	return i < d->nb_tx_queues && d->tx_queues != NULL ?
		d->tx_queues[i] : NULL;
}

/* The consumer of rx queue @p i: stopping, then (from later ticks, as its
 * buffers come back) gone. Returns true once gone. */
bool
ncm_rx_release(struct ncm_proc *pp, uint16_t i)
{
	struct ncm_lq *l = &pp->rxl[i];
	struct ncm_rxq *q = ncm_rxq(pp, i);
	struct rte_comch_consumer *cons = l->obj;
	struct rte_comch_completion cpl[NCM_BURST];
	unsigned int k;
	int n;

	if (!l->stopping) {
		/* Completions taken, not turned into mbufs yet: dropped. */
		for (k = 0; k < l->cpl_n && q != NULL; k++) {
			const struct rte_comch_completion *c =
				&l->cpl[l->cpl_head + k];
			unsigned int nf = ncm_frames_check(c->imm, c->imm_len,
					c->len);

			if (c->status == 0)
				q->st.flushed += k == 0 && l->cur_frames !=
					NCM_UNCHECKED ? (uint64_t)(l->cur_frames -
					l->cur_next) : nf;
		}
		l->cpl_n = 0;
		l->cur_frames = NCM_UNCHECKED;
		l->cur_next = 0;
		l->cur_off = 0;
		rte_comch_consumer_stop(cons);
		l->stopping = 1;
	}
	do {
		n = rte_comch_consumer_poll_burst(cons, cpl, NCM_BURST);
		for (k = 0; k < (unsigned int)RTE_MAX(n, 0) && q != NULL; k++)
			if (cpl[k].status == 0)
				q->st.flushed += RTE_MAX(cpl[k].imm_len / 2, 1u);
	} while (n > 0);
	if (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE)
		return false;
	ncm_intr_consumer_removed(pp, i, cons);
	rte_comch_consumer_destroy(cons);
	rte_comch_mem_destroy(l->mem);
	l->obj = NULL;
	l->mem = NULL;
	l->stopping = 0;
	l->held = 0;
	if (q != NULL) {
		__atomic_store_n(&q->cons_id, 0, __ATOMIC_RELEASE);
		ncm_cas32(&q->owner, pp->pid, 0);
	}
	return true;
}

void
ncm_tx_release(struct ncm_proc *pp, uint16_t i)
{
	struct ncm_lq *l = &pp->txl[i];
	struct ncm_txq *q = ncm_txq(pp, i);

	rte_comch_producer_stop(l->obj);
	rte_comch_producer_destroy(l->obj);
	l->obj = NULL;
	l->peer_id = 0;
	l->held = 0;
	if (q != NULL)
		ncm_cas32(&q->owner, pp->pid, 0);
}

static int
ncm_rx_create(struct ncm_proc *pp, uint16_t i, struct ncm_rxq *q,
		uint32_t gen)
{
	struct ncm_port *port = pp->port;
	struct ncm_lq *l = &pp->rxl[i];
	uint32_t stride = RTE_ALIGN_CEIL(port->conf.buf_size, 64);
	struct rte_comch_consumer_conf cc = { .nb_posts = q->nb_bufs,
		.max_imm_len = 2 * NCM_FRAMES_PER_MSG };
	struct rte_comch_consumer *cons = NULL;
	struct rte_comch_mem *mem;
	void *bufs[NCM_BURST];
	uint32_t k, posted;
	int ret, n;

	mem = rte_comch_mem_create(pp->comch_id, (size_t)stride * q->nb_bufs,
			q->socket_id);
	if (mem == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	cc.mem = mem;
	if (pp->rx_ih != NULL)
		cc.flags = RTE_COMCH_F_EVENT; /* rx interrupts */
	cons = rte_comch_consumer_create(pp->conn, &cc);
	if (cons == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	ret = rte_comch_consumer_start(cons);
	if (ret < 0)
		goto fail;
	for (k = 0; k < RTE_DIM(l->lens); k++)
		l->lens[k] = port->conf.buf_size;
	l->cpl_n = 0;
	l->cur_frames = NCM_UNCHECKED;
	l->cur_next = 0;
	l->cur_off = 0;
	for (posted = 0; posted < q->nb_bufs; posted += (uint32_t)n) {
		uint32_t c = RTE_MIN(q->nb_bufs - posted, (uint32_t)NCM_BURST);

		for (k = 0; k < c; k++)
			bufs[k] = RTE_PTR_ADD(rte_comch_mem_addr(mem),
				(size_t)(posted + k) * stride);
		n = rte_comch_consumer_post_burst(cons, bufs, l->lens,
				(uint16_t)c);
		if (n <= 0) {
			ret = n < 0 ? n : -ENOSPC;
			rte_comch_consumer_stop(cons);
			goto fail_started;
		}
	}
	l->obj = cons;
	l->mem = mem;
	l->gen = gen;
	l->buf_size = port->conf.buf_size;
	l->held = 1;
	l->wanted = 0;
	__atomic_store_n(&q->cons_gen, gen, __ATOMIC_RELAXED);
	__atomic_store_n(&q->cons_id, rte_comch_consumer_id(cons),
			__ATOMIC_RELEASE);
	__atomic_store_n(&l->active, 1, __ATOMIC_RELEASE);
	ret = ncm_intr_consumer_added(pp, i, cons);
	if (ret < 0)
		NCM_LOG(ERR, "%s: rx queue %u: no interrupt for its consumer: %s",
			ncm_name(pp), i, rte_strerror(-ret));
	return 0;

fail_started:
	/* Nothing was received yet: the posted buffers come back at once. */
	{
		struct rte_comch_completion cpl[NCM_BURST];
		uint64_t dl = rte_get_timer_cycles() + ncm_ms(3000);

		while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE &&
		       rte_get_timer_cycles() < dl)
			rte_comch_consumer_poll_burst(cons, cpl, NCM_BURST);
	}
fail:
	if (cons != NULL && rte_comch_consumer_destroy(cons) < 0)
		mem = NULL; /* still in use: leave both rather than crash */
	rte_comch_mem_destroy(mem);
	ncm_cas32(&q->owner, pp->pid, 0);
	return ret;
}

static int
ncm_tx_create(struct ncm_proc *pp, uint16_t i, struct ncm_txq *q,
		uint32_t gen)
{
	struct ncm_lq *l = &pp->txl[i];
	struct rte_comch_producer *prod;
	int ret;

	prod = rte_comch_producer_create(pp->conn, NULL);
	if (prod == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	ret = rte_comch_producer_start(prod);
	if (ret < 0) {
		rte_comch_producer_destroy(prod);
		goto fail;
	}
	l->obj = prod;
	l->gen = gen;
	l->buf_size = pp->port->conf.buf_size;
	l->peer_id = 0;
	l->held = 1;
	l->wanted = 0;
	__atomic_store_n(&l->active, 1, __ATOMIC_RELEASE);
	return 0;
fail:
	ncm_cas32(&q->owner, pp->pid, 0);
	return ret;
}

/* Log a queue object that could not be made, once per connection and
 * queue. */
static void
ncm_create_failed(struct ncm_proc *pp, const char *what, uint16_t i,
		uint32_t *logged_gen, uint32_t gen, int err)
{
	if (*logged_gen == gen + 1)
		return;
	*logged_gen = gen + 1;
	if (err == -ENOSPC)
		NCM_LOG(ERR, "%s: %s queue %u: the comch device refused another %s (ENOSPC): the DPU's limit on consumers or mapped memory per connection (comch_shm: max_consumers, max_map_mb) or the library's on producers; use fewer queues, fewer or smaller buffers, or raise the limit",
			ncm_name(pp), what, i, what[0] == 'r' ? "consumer" :
			"producer");
	else
		NCM_LOG(ERR, "%s: %s queue %u: cannot create its %s: %s",
			ncm_name(pp), what, i,
			what[0] == 'r' ? "consumer" : "producer",
			strerror(-err));
}

/* Is @p id among the peer's live consumers, as this process sees them
 * (a secondary maps them by listing)? @p ids caches one listing per
 * tick. */
bool
ncm_peer_live(struct ncm_proc *pp, uint32_t id, uint32_t *ids, int *nb)
{
	int k;

	if (*nb < 0)
		*nb = RTE_MIN(rte_comch_conn_remote_consumers(pp->conn, ids,
				NCM_MAX_QUEUES), NCM_MAX_QUEUES);
	for (k = 0; k < *nb; k++)
		if (ids[k] == id)
			return true;
	return false;
}

/* Is pid @p pid gone? (Its comch objects are the library's to reclaim;
 * a pid reused within a tick is not a concern at these rates.) */
static bool
ncm_pid_gone(int32_t pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

/* Primary: forget owners and takeover requests of processes that died. */
void
ncm_reap_dead(struct ncm_proc *pp)
{
	uint64_t now = rte_get_timer_cycles();
	uint16_t i;
	int32_t o;

	if (now < pp->next_liveness)
		return;
	pp->next_liveness = now + ncm_ms(100);
	for (i = 0; i < NCM_MAX_QUEUES; i++) {
		struct ncm_rxq *rq = ncm_rxq(pp, i);
		struct ncm_txq *tq = ncm_txq(pp, i);

		if (rq == NULL && tq == NULL)
			break;
		if (rq != NULL) {
			o = __atomic_load_n(&rq->owner, __ATOMIC_ACQUIRE);
			if (o != pp->pid && ncm_pid_gone(o) &&
			    ncm_cas32(&rq->owner, o, 0)) {
				NCM_LOG(INFO, "%s: rx queue %u: process %d is gone; the queue is the primary's again",
					ncm_name(pp), i, o);
				__atomic_store_n(&rq->cons_id, 0, __ATOMIC_RELEASE);
			}
			o = __atomic_load_n(&rq->takeover, __ATOMIC_ACQUIRE);
			if (ncm_pid_gone(o))
				ncm_cas32(&rq->takeover, o, 0);
		}
		if (tq != NULL) {
			o = __atomic_load_n(&tq->owner, __ATOMIC_ACQUIRE);
			if (o != pp->pid && ncm_pid_gone(o) &&
			    ncm_cas32(&tq->owner, o, 0))
				NCM_LOG(INFO, "%s: tx queue %u: process %d is gone; the queue is the primary's again",
					ncm_name(pp), i, o);
			o = __atomic_load_n(&tq->takeover, __ATOMIC_ACQUIRE);
			if (ncm_pid_gone(o))
				ncm_cas32(&tq->takeover, o, 0);
		}
	}
}

/* Must this process let go of its object for a queue? */
static bool
ncm_must_release(struct ncm_proc *pp, const struct ncm_lq *l, int32_t takeover,
		uint32_t gen, bool ready)
{
	if (l->gen != gen || !ready)
		return true;
	/* The primary gives a queue up to a secondary that polls it. */
	return rte_eal_process_type() == RTE_PROC_PRIMARY && takeover != 0 &&
		takeover != pp->pid;
}

/* Secondary: this process's handle on the connection of @p gen. */
static bool
ncm_secondary_conn(struct ncm_proc *pp, uint32_t gen, uint32_t conn_id,
		bool want)
{
	if (pp->attached && pp->conn_gen != gen) {
		rte_comch_conn_detach(pp->conn);
		pp->attached = false;
		pp->conn = NULL;
	}
	if (pp->attached || !want)
		return pp->attached;
	if (pp->comch_id < 0) {
		int id = rte_comch_get_dev_id_by_name(pp->port->conf.comch);

		if (id < 0) {
			if (!pp->comch_missing_logged)
				NCM_LOG(ERR, "%s: comch device %s is not in this process: load its driver here too (e.g. -d librte_comch_shm.so) to poll queues",
					ncm_name(pp), pp->port->conf.comch);
			pp->comch_missing_logged = true;
			return false;
		}
		pp->comch_id = (int16_t)id;
	}
	pp->conn = rte_comch_conn_attach(pp->comch_id, conn_id);
	if (pp->conn == NULL)
		return false; /* gone meanwhile: the next generation */
	pp->attached = true;
	pp->conn_gen = gen;
	return true;
}

/*
 * The queue objects of this process: release what belongs to an old
 * connection (or was given up), create what is wanted. Returns true while
 * something is in progress.
 */
bool
ncm_queues_tick(struct ncm_proc *pp)
{
	struct ncm_port *port = pp->port;
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	uint32_t gen, conn_id, ids[NCM_MAX_QUEUES];
	bool ready, deactivated = false, busy = false, want = false, have;
	int nb_ids = -1;
	uint16_t i;

	gen = __atomic_load_n(&port->gen, __ATOMIC_ACQUIRE);
	ready = __atomic_load_n(&port->ready, __ATOMIC_ACQUIRE);
	conn_id = __atomic_load_n(&port->conn_id, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&port->gen, __ATOMIC_ACQUIRE) != gen)
		return true; /* changing under us: next tick */

	/* 1. Take away what must go: clear active, then one barrier. */
	for (i = 0; i < NCM_MAX_QUEUES; i++) {
		struct ncm_rxq *rq = ncm_rxq(pp, i);
		struct ncm_txq *tq = ncm_txq(pp, i);
		struct ncm_lq *rl = &pp->rxl[i], *tl = &pp->txl[i];

		if (rl->held && rl->active && ncm_must_release(pp, rl,
				rq != NULL ? rq->takeover : 0, gen, ready)) {
			__atomic_store_n(&rl->active, 0, __ATOMIC_RELEASE);
			deactivated = true;
		}
		if (tl->held && tl->active && ncm_must_release(pp, tl,
				tq != NULL ? tq->takeover : 0, gen, ready)) {
			__atomic_store_n(&tl->active, 0, __ATOMIC_RELEASE);
			deactivated = true;
		}
		want |= rl->wanted || tl->wanted;
	}
	if (deactivated)
		ncm_barrier(pp);
	for (i = 0; i < NCM_MAX_QUEUES; i++) {
		struct ncm_lq *rl = &pp->rxl[i], *tl = &pp->txl[i];

		if (rl->held && !rl->active) {
			if (__atomic_load_n(&rl->in_burst, __ATOMIC_ACQUIRE) ||
			    !ncm_rx_release(pp, i))
				busy = true;
		}
		if (tl->held && !tl->active) {
			if (__atomic_load_n(&tl->in_burst, __ATOMIC_ACQUIRE))
				busy = true;
			else
				ncm_tx_release(pp, i);
		}
	}
	have = false;
	for (i = 0; i < NCM_MAX_QUEUES; i++)
		have |= pp->rxl[i].held || pp->txl[i].held;

	/* 2. The connection handle of this process. */
	if (primary) {
		if (!ready || pp->conn == NULL)
			return busy;
	} else {
		if (have && pp->conn_gen != gen)
			return true; /* still releasing the old one */
		if (!ncm_secondary_conn(pp, gen, conn_id, ready && want) ||
		    !ready)
			return busy || want;
	}

	/* 3. Create what is missing. */
	for (i = 0; i < NCM_MAX_QUEUES; i++) {
		struct ncm_rxq *rq = ncm_rxq(pp, i);
		struct ncm_txq *tq = ncm_txq(pp, i);
		struct ncm_lq *rl = &pp->rxl[i], *tl = &pp->txl[i];
		int ret;

		if (rq == NULL && tq == NULL)
			break;
		if (rq != NULL && !rl->held) {
			int32_t t = __atomic_load_n(&rq->takeover,
					__ATOMIC_ACQUIRE);

			if (primary ? t == 0 : rl->wanted && (t == 0 || t == pp->pid)) {
				if (ncm_cas32(&rq->owner, 0, pp->pid)) {
					ret = ncm_rx_create(pp, i, rq, gen);
					if (ret < 0)
						ncm_create_failed(pp, "rx", i,
							&rl->fail_gen, gen, ret);
					else if (t == pp->pid)
						ncm_cas32(&rq->takeover, t, 0);
				} else if (!primary && t == 0) {
					/* The primary holds it: ask. */
					ncm_cas32(&rq->takeover, 0, pp->pid);
				}
				busy |= !rl->held && !primary;
			}
		}
		if (tq != NULL && !tl->held) {
			int32_t t = __atomic_load_n(&tq->takeover,
					__ATOMIC_ACQUIRE);

			if (primary ? t == 0 : tl->wanted && (t == 0 || t == pp->pid)) {
				if (ncm_cas32(&tq->owner, 0, pp->pid)) {
					ret = ncm_tx_create(pp, i, tq, gen);
					if (ret < 0)
						ncm_create_failed(pp, "tx", i,
							&tl->fail_gen, gen, ret);
					else if (t == pp->pid)
						ncm_cas32(&tq->takeover, t, 0);
				} else if (!primary && t == 0) {
					ncm_cas32(&tq->takeover, 0, pp->pid);
				}
				busy |= !tl->held && !primary;
			}
		}
		/* 4. The peer's consumer for a tx queue we hold, mapped in
		 * this process before the burst may use it. */
		if (tq != NULL && tl->held && tl->active) {
			uint32_t want_id = __atomic_load_n(&tq->peer_gen,
					__ATOMIC_ACQUIRE) == gen ?
				__atomic_load_n(&tq->peer_id, __ATOMIC_ACQUIRE) : 0;

			if (want_id == tl->peer_id)
				continue;
			if (want_id == 0 || ncm_peer_live(pp, want_id, ids, &nb_ids))
				__atomic_store_n(&tl->peer_id, want_id,
						__ATOMIC_RELEASE);
			else
				busy = true;
		}
	}
	return busy;
}
