/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch control: the port's connection (primary) and the queues'
 * producers and consumers (every process), both driven by one periodic
 * EAL alarm per port and process. See net_comch_priv.h for who holds
 * what.
 *
 * The connection, in the primary (a table, ncm_next[]):
 *
 *   STOPPED --start--> WAITING --connected--> HANDSHAKE --agreed--> RUNNING
 *                                                 \--disagreed--> REFUSED
 *   HANDSHAKE/RUNNING/REFUSED --lost or stop--> RELEASING --released--> STOPPED
 *   (and on to WAITING at once if the port is still started)
 *
 * A queue's producer or consumer exists only while the port is RUNNING on
 * the connection of generation port->gen. Every change of connection
 * changes gen; each process then releases what it holds of the old one,
 * and the primary releases the connection once no process holds anything
 * on it (the library refuses earlier).
 */

#include <errno.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "net_comch_priv.h"

/* Here, not in net_comch.c: net_comch.c calls this file, and a file calls
 * only the files below it (devtools/check-cycles.py). */
RTE_LOG_REGISTER(ncm_logtype, pmd.net.comch, NOTICE);

/* ------------------------------------------------------ state machine */

enum ncm_event {
	NCM_EV_START,
	NCM_EV_STOP,
	NCM_EV_CONNECTED,
	NCM_EV_AGREED,
	NCM_EV_DISAGREED,
	NCM_EV_LOST,
	NCM_EV_RELEASED,
	NCM_EV_MAX
};

#define NCM_ST_NONE NCM_ST_MAX /* not allowed: a bug */

static const uint8_t ncm_next[NCM_ST_MAX][NCM_EV_MAX] = {
	[NCM_ST_STOPPED] = {
		[NCM_EV_START] = NCM_ST_WAITING, [NCM_EV_STOP] = NCM_ST_STOPPED,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE, [NCM_EV_LOST] = NCM_ST_NONE,
		[NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_WAITING] = {
		[NCM_EV_START] = NCM_ST_WAITING, [NCM_EV_STOP] = NCM_ST_STOPPED,
		[NCM_EV_CONNECTED] = NCM_ST_HANDSHAKE,
		[NCM_EV_AGREED] = NCM_ST_NONE, [NCM_EV_DISAGREED] = NCM_ST_NONE,
		[NCM_EV_LOST] = NCM_ST_NONE, [NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_HANDSHAKE] = {
		[NCM_EV_START] = NCM_ST_HANDSHAKE,
		[NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE,
		[NCM_EV_AGREED] = NCM_ST_RUNNING,
		[NCM_EV_DISAGREED] = NCM_ST_REFUSED,
		[NCM_EV_LOST] = NCM_ST_RELEASING,
		[NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_RUNNING] = {
		[NCM_EV_START] = NCM_ST_RUNNING, [NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE,
		[NCM_EV_LOST] = NCM_ST_RELEASING, [NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_REFUSED] = {
		[NCM_EV_START] = NCM_ST_REFUSED, [NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE,
		[NCM_EV_LOST] = NCM_ST_RELEASING, [NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_RELEASING] = {
		[NCM_EV_START] = NCM_ST_RELEASING,
		[NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE, [NCM_EV_LOST] = NCM_ST_RELEASING,
		[NCM_EV_RELEASED] = NCM_ST_STOPPED },
};

static const char * const ncm_state_names[NCM_ST_MAX] = {
	[NCM_ST_STOPPED] = "stopped", [NCM_ST_WAITING] = "waiting",
	[NCM_ST_HANDSHAKE] = "handshake", [NCM_ST_RUNNING] = "running",
	[NCM_ST_REFUSED] = "refused", [NCM_ST_RELEASING] = "releasing",
};

const char *
ncm_state_name(enum ncm_state st)
{
	return st < NCM_ST_MAX ? ncm_state_names[st] : "?";
}

static const char *
ncm_name(const struct ncm_proc *pp)
{
	return pp->dev->data->name;
}

static uint64_t
ncm_ms(uint64_t ms)
{
	return rte_get_timer_hz() * ms / 1000;
}

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

static void
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
static bool
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

static void
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
static bool
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
static void
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
static bool
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

/* ---------------------------------------------------------- primary */

static void
ncm_on_connect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		void *arg)
{
	struct ncm_proc *pp = arg;

	/* max_clients is 1, so this is the only one; refuse any other. */
	if (pp->state == NCM_ST_WAITING && pp->conn == NULL &&
	    pp->new_conn == NULL)
		pp->new_conn = conn;
	else
		rte_comch_server_disconnect(srv, conn);
}

static void
ncm_on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		int err, void *arg)
{
	struct ncm_proc *pp = arg;

	if (conn == pp->conn || conn == pp->new_conn) {
		pp->lost_conn = conn;
		pp->lost_err = err;
	} else {
		rte_comch_server_disconnect(srv, conn);
	}
}

static void
ncm_on_consumer(struct rte_comch_conn *conn __rte_unused,
		uint32_t id __rte_unused,
		enum rte_comch_consumer_event ev __rte_unused, void *arg)
{
	struct ncm_proc *pp = arg;

	pp->peers_changed = true;
}

static void
ncm_link_set(struct ncm_proc *pp, bool up)
{
	struct rte_eth_link link = {
		.link_speed = up ? RTE_ETH_SPEED_NUM_UNKNOWN : RTE_ETH_SPEED_NUM_NONE,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_status = up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN,
	};

	if (up == pp->link_up)
		return;
	pp->link_up = up;
	rte_eth_linkstatus_set(pp->dev, &link);
	NCM_LOG(INFO, "%s: link %s", ncm_name(pp), up ? "up" : "down");
	if (pp->dev->data->dev_conf.intr_conf.lsc)
		pp->lsc_pending = true;
}

/* Entry actions of each state. Returns 0, or a negative errno when the
 * comch side refused (start only). */
static int
ncm_enter_state(struct ncm_proc *pp, enum ncm_state next)
{
	struct ncm_port *port = pp->port;
	struct rte_eth_dev_data *d = pp->dev->data;
	uint16_t i;
	int ret;

	switch (next) {
	case NCM_ST_WAITING:
		if (pp->srv != NULL &&
		    rte_comch_server_state(pp->srv) == RTE_COMCH_STATE_IDLE) {
			ret = rte_comch_server_start(pp->srv);
			if (ret < 0)
				return ret;
		}
		pp->retry_at = 0;
		break;
	case NCM_ST_HANDSHAKE:
		__atomic_store_n(&port->conn_id, rte_comch_conn_id(pp->conn),
				__ATOMIC_RELEASE);
		__atomic_add_fetch(&port->gen, 1, __ATOMIC_RELEASE);
		port->nb_connects++;
		ncm_proto_init(&pp->proto, port->conf.nb_queues,
			d->nb_rx_queues, d->nb_tx_queues, port->conf.buf_size,
			d->mtu, d->mac_addrs[0].addr_bytes);
		pp->hello_sent = false;
		pp->hello_deadline = rte_get_timer_cycles() +
			ncm_ms(NCM_HELLO_TIMEOUT_MS);
		for (i = 0; i < d->nb_rx_queues; i++)
			((struct ncm_rxq *)d->rx_queues[i])->announced = 0;
		NCM_LOG(DEBUG, "%s: connection %u established", ncm_name(pp),
			port->conn_id);
		break;
	case NCM_ST_RUNNING:
		__atomic_store_n(&port->ready, 1, __ATOMIC_RELEASE);
		break;
	case NCM_ST_RELEASING:
		__atomic_store_n(&port->ready, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&port->gen, 1, __ATOMIC_RELEASE);
		for (i = 0; i < d->nb_tx_queues; i++)
			__atomic_store_n(&((struct ncm_txq *)d->tx_queues[i])->peer_id,
					0, __ATOMIC_RELEASE);
		ncm_link_set(pp, false);
		break;
	case NCM_ST_STOPPED:
		if (pp->started)
			break; /* released a lost connection: on to WAITING */
		if (pp->srv != NULL &&
		    rte_comch_server_state(pp->srv) != RTE_COMCH_STATE_IDLE)
			rte_comch_server_stop(pp->srv);
		if (pp->cli != NULL &&
		    rte_comch_client_state(pp->cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(pp->cli);
		break;
	default:
		break;
	}
	return 0;
}

static int
ncm_event(struct ncm_proc *pp, enum ncm_event ev)
{
	enum ncm_state next = ncm_next[pp->state][ev];
	int ret;

	if (next == NCM_ST_NONE) {
		NCM_LOG(ERR, "%s: event %d in state %s (a bug)", ncm_name(pp),
			ev, ncm_state_name(pp->state));
		return -EINVAL;
	}
	if (next == pp->state)
		return 0;
	ret = ncm_enter_state(pp, next);
	if (ret < 0)
		return ret;
	pp->state = next;
	pp->port->state = (uint8_t)next;
	return 0;
}

/* Host: connect, retrying while there is no DPU or no such server. */
static void
ncm_client_tick(struct ncm_proc *pp)
{
	enum rte_comch_state st;
	int err = 0;

	st = rte_comch_client_state(pp->cli, &err);
	if (st == RTE_COMCH_STATE_IDLE) {
		if (pp->state != NCM_ST_WAITING ||
		    rte_get_timer_cycles() < pp->retry_at)
			return;
		err = rte_comch_client_start(pp->cli);
		if (err < 0) {
			pp->retry_at = rte_get_timer_cycles() + ncm_ms(NCM_RETRY_MS);
			return;
		}
	}
	rte_comch_client_poll(pp->cli);
	st = rte_comch_client_state(pp->cli, &err);
	switch (st) {
	case RTE_COMCH_STATE_RUNNING:
		if (pp->state == NCM_ST_WAITING) {
			pp->conn = rte_comch_client_conn(pp->cli);
			ncm_event(pp, NCM_EV_CONNECTED);
		}
		break;
	case RTE_COMCH_STATE_STOPPING:
		if (pp->state != NCM_ST_WAITING && pp->state != NCM_ST_RELEASING) {
			NCM_LOG(INFO, "%s: connection %u lost: %s", ncm_name(pp),
				pp->port->conn_id, strerror(-err));
			ncm_event(pp, NCM_EV_LOST);
		}
		break;
	case RTE_COMCH_STATE_IDLE:
		/* The attempt failed: say why once, retry. */
		if (err != pp->last_client_err) {
			if (err == -ENOENT || err == -ECONNREFUSED ||
			    err == -EAGAIN || err == -EBUSY)
				NCM_LOG(DEBUG, "%s: server \"%s\" not reachable yet (%s); retrying every %d ms",
					ncm_name(pp), pp->port->conf.server,
					strerror(-err), NCM_RETRY_MS);
			else
				NCM_LOG(ERR, "%s: server \"%s\" refused the connection: %s; retrying every %d ms",
					ncm_name(pp), pp->port->conf.server,
					strerror(-err), NCM_RETRY_MS);
			pp->last_client_err = err;
		}
		pp->retry_at = rte_get_timer_cycles() + ncm_ms(NCM_RETRY_MS);
		break;
	default:
		break;
	}
}

/* Control messages of the connection. */
static void
ncm_msgs_tick(struct ncm_proc *pp)
{
	struct rte_comch_msg msgs[8];
	char why[256];
	int n, k, ev;

	for (;;) {
		n = rte_comch_msg_recv_burst(pp->conn, msgs, RTE_DIM(msgs));
		if (n == -ECONNRESET) {
			if (pp->state != NCM_ST_RELEASING) {
				NCM_LOG(INFO, "%s: connection %u lost",
					ncm_name(pp), pp->port->conn_id);
				ncm_event(pp, NCM_EV_LOST);
			}
			return;
		}
		if (n <= 0)
			return;
		for (k = 0; k < n && pp->state != NCM_ST_RELEASING; k++) {
			ev = ncm_proto_input(&pp->proto, msgs[k].data,
					msgs[k].len, why, sizeof(why));
			switch (ev) {
			case NCM_PROTO_VIOLATION:
				NCM_LOG(ERR, "%s: connection %u: the peer broke the port protocol: %s; closing the connection",
					ncm_name(pp), pp->port->conn_id, why);
				pp->port->nb_refused++;
				ncm_event(pp, NCM_EV_LOST);
				break;
			case NCM_PROTO_AGREED:
				NCM_LOG(DEBUG, "%s: connection %u: handshake done",
					ncm_name(pp), pp->port->conn_id);
				ncm_event(pp, NCM_EV_AGREED);
				pp->peers_changed = true;
				break;
			case NCM_PROTO_DISAGREED:
				NCM_LOG(ERR, "%s: connection %u: the two ends disagree: %s; the link stays down",
					ncm_name(pp), pp->port->conn_id, why);
				pp->port->nb_refused++;
				ncm_event(pp, NCM_EV_DISAGREED);
				break;
			case NCM_PROTO_QUEUE:
				pp->peers_changed = true;
				break;
			default:
				break;
			}
		}
		if (pp->state == NCM_ST_RELEASING)
			return;
	}
}

/* Tell the peer which consumer each rx queue has (once HELLO went). */
static void
ncm_announce_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	uint32_t gen = pp->port->gen;
	uint16_t i;

	if (!pp->hello_sent) {
		if (rte_comch_msg_send(pp->conn, &pp->proto.mine,
				sizeof(pp->proto.mine)) != 0)
			return; /* -EAGAIN: next tick; -ECONNRESET: seen there */
		pp->hello_sent = true;
	}
	if (pp->state != NCM_ST_RUNNING)
		return;
	for (i = 0; i < d->nb_rx_queues; i++) {
		struct ncm_rxq *q = d->rx_queues[i];
		struct ncm_msg_queue m;
		uint32_t id;

		if (__atomic_load_n(&q->cons_gen, __ATOMIC_ACQUIRE) != gen)
			continue;
		id = __atomic_load_n(&q->cons_id, __ATOMIC_ACQUIRE);
		if (id == 0 || id == q->announced)
			continue;
		ncm_proto_queue_msg(&m, i, id);
		if (rte_comch_msg_send(pp->conn, &m, sizeof(m)) != 0)
			return;
		q->announced = id;
	}
}

/* The peer's consumer of each tx queue, once announced and live. */
static void
ncm_peers_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	uint32_t ids[NCM_MAX_QUEUES], gen = pp->port->gen;
	int nb_ids = -1;
	uint16_t i;

	if (pp->state != NCM_ST_RUNNING || !pp->peers_changed)
		return;
	pp->peers_changed = false;
	for (i = 0; i < d->nb_tx_queues; i++) {
		struct ncm_txq *q = d->tx_queues[i];
		uint32_t id = pp->proto.peer_cons[i];

		if (id != 0 && !ncm_peer_live(pp, id, ids, &nb_ids))
			id = 0;
		__atomic_store_n(&q->peer_gen, gen, __ATOMIC_RELAXED);
		__atomic_store_n(&q->peer_id, id, __ATOMIC_RELEASE);
	}
}

/* Up: running, and every tx queue has the peer's consumer, and those of
 * this process already use it. */
static void
ncm_link_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	bool up = pp->state == NCM_ST_RUNNING && pp->hello_sent;
	uint16_t i;

	for (i = 0; i < d->nb_tx_queues && up; i++) {
		struct ncm_txq *q = d->tx_queues[i];
		const struct ncm_lq *l = &pp->txl[i];

		up = q->peer_gen == pp->port->gen && q->peer_id != 0 &&
			(!l->held || !l->active || l->peer_id == q->peer_id);
	}
	ncm_link_set(pp, up);
}

/* Release the connection once no process holds anything on it. */
static void
ncm_release_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	uint16_t i;
	int ret = 0;

	for (i = 0; i < d->nb_rx_queues; i++)
		if (((struct ncm_rxq *)d->rx_queues[i])->owner != 0)
			return;
	for (i = 0; i < d->nb_tx_queues; i++)
		if (((struct ncm_txq *)d->tx_queues[i])->owner != 0)
			return;
	if (pp->conn != NULL) {
		if (pp->srv != NULL)
			ret = rte_comch_server_disconnect(pp->srv, pp->conn);
		else
			ret = rte_comch_client_stop(pp->cli);
		if (ret == -EBUSY)
			return; /* a secondary still attached: it detaches */
		NCM_LOG(DEBUG, "%s: connection %u released", ncm_name(pp),
			pp->port->conn_id);
	}
	pp->conn = NULL;
	pp->lost_conn = NULL;
	ncm_event(pp, NCM_EV_RELEASED);
	if (pp->started)
		ncm_event(pp, NCM_EV_START);
}

static bool
ncm_primary_tick(struct ncm_proc *pp)
{
	bool busy;

	if (pp->srv != NULL && rte_comch_server_state(pp->srv) ==
	    RTE_COMCH_STATE_RUNNING)
		rte_comch_server_poll(pp->srv);
	if (pp->cli != NULL && pp->state != NCM_ST_STOPPED)
		ncm_client_tick(pp);
	if (pp->new_conn != NULL && pp->lost_conn != pp->new_conn) {
		pp->conn = pp->new_conn;
		pp->new_conn = NULL;
		ncm_event(pp, NCM_EV_CONNECTED);
	}
	if (pp->lost_conn != NULL) {
		if (pp->lost_conn == pp->new_conn) {
			/* Lost before we took it. */
			rte_comch_server_disconnect(pp->srv, pp->new_conn);
			pp->new_conn = NULL;
			pp->lost_conn = NULL;
		} else if (pp->state != NCM_ST_RELEASING) {
			NCM_LOG(INFO, "%s: connection %u lost: %s", ncm_name(pp),
				pp->port->conn_id, strerror(-pp->lost_err));
			ncm_event(pp, NCM_EV_LOST);
		}
	}
	if (pp->state == NCM_ST_HANDSHAKE && !pp->proto.hello_seen &&
	    rte_get_timer_cycles() > pp->hello_deadline) {
		NCM_LOG(ERR, "%s: connection %u: no HELLO from the peer within %d ms (is it a net_comch port?); closing the connection",
			ncm_name(pp), pp->port->conn_id, NCM_HELLO_TIMEOUT_MS);
		pp->port->nb_refused++;
		ncm_event(pp, NCM_EV_LOST);
	}
	if (pp->conn != NULL && (pp->state == NCM_ST_HANDSHAKE ||
	    pp->state == NCM_ST_RUNNING || pp->state == NCM_ST_REFUSED)) {
		ncm_msgs_tick(pp);
		if (pp->state != NCM_ST_RELEASING)
			ncm_announce_tick(pp);
	}
	ncm_reap_dead(pp);
	ncm_peers_tick(pp);
	busy = ncm_queues_tick(pp);
	ncm_link_tick(pp);
	if (pp->state == NCM_ST_RELEASING)
		ncm_release_tick(pp);
	return busy || pp->state == NCM_ST_HANDSHAKE ||
		pp->state == NCM_ST_RELEASING ||
		(pp->state == NCM_ST_WAITING && pp->cli != NULL);
}

/* -------------------------------------------------------------- alarm */

static void ncm_alarm(void *arg);

/* The comch device may be removed before the port (rte_eal_cleanup()
 * removes vdevs in command-line order): then nothing of it is touched. */
static bool
ncm_comch_gone(struct ncm_proc *pp)
{
	if (pp->comch_id < 0)
		return false;
	if (!pp->comch_gone && rte_comch_get_dev_id_by_name(pp->port->conf.comch) !=
	    pp->comch_id) {
		NCM_LOG(NOTICE, "%s: comch device %s was removed before the port; close the port first",
			ncm_name(pp), pp->port->conf.comch);
		pp->comch_gone = true;
	}
	return pp->comch_gone;
}

static void
ncm_tick_locked(struct ncm_proc *pp, bool *busy)
{
	*busy = false;
	if (ncm_comch_gone(pp))
		return;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		*busy = ncm_primary_tick(pp);
	else
		*busy = ncm_queues_tick(pp);
}

/* Report a link change outside the lock: an application's callback may
 * call back into the port. */
static void
ncm_report(struct ncm_proc *pp)
{
	bool lsc;

	pthread_mutex_lock(&pp->lock);
	lsc = pp->lsc_pending;
	pp->lsc_pending = false;
	pthread_mutex_unlock(&pp->lock);
	if (lsc)
		rte_eth_dev_callback_process(pp->dev, RTE_ETH_EVENT_INTR_LSC,
				NULL);
}

static void
ncm_alarm(void *arg)
{
	struct ncm_proc *pp = arg;
	bool busy = false, on;

	pthread_mutex_lock(&pp->lock);
	if (pp->alarm_on)
		ncm_tick_locked(pp, &busy);
	on = pp->alarm_on;
	pthread_mutex_unlock(&pp->lock);
	ncm_report(pp);
	if (on)
		rte_eal_alarm_set(busy ? NCM_TICK_BUSY_US : NCM_TICK_IDLE_US,
				ncm_alarm, pp);
}

void
ncm_ctrl_tick(struct ncm_proc *pp)
{
	bool busy;

	pthread_mutex_lock(&pp->lock);
	ncm_tick_locked(pp, &busy);
	pthread_mutex_unlock(&pp->lock);
	ncm_report(pp);
}

/* ---------------------------------------------------------- dev ops */

int
ncm_ctrl_init(struct ncm_proc *pp)
{
	struct ncm_port *port = pp->port;
	pthread_mutexattr_t a;
	int ret;

	pthread_mutexattr_init(&a);
	pthread_mutex_init(&pp->lock, &a);
	pthread_mutexattr_destroy(&a);
	pp->pid = (int32_t)getpid();
	pp->comch_id = -1;
	pp->state = NCM_ST_STOPPED;
	ncm_membarrier_init(pp);
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		pp->comch_id = (int16_t)rte_comch_get_dev_id_by_name(port->conf.comch);
		if (port->role == RTE_COMCH_ROLE_DPU) {
			struct rte_comch_server_conf sc = {
				.function_id = port->function_id,
				.name = port->conf.server,
				.max_clients = 1,
				.connect_cb = ncm_on_connect,
				.disconnect_cb = ncm_on_disconnect,
				.consumer_event_cb = ncm_on_consumer,
				.cb_arg = pp,
			};

			pp->srv = rte_comch_server_create(pp->comch_id, &sc);
			if (pp->srv == NULL) {
				ret = -rte_errno;
				NCM_LOG(ERR, "%s: cannot create server \"%s\" on %s function %s: %s%s",
					ncm_name(pp), port->conf.server,
					port->conf.comch, port->conf.function,
					strerror(rte_errno), rte_errno == EEXIST ?
					" (another port or application serves that name there)" : "");
				return ret;
			}
		} else {
			struct rte_comch_client_conf cc = {
				.server_name = port->conf.server,
				.consumer_event_cb = ncm_on_consumer,
				.cb_arg = pp,
			};

			pp->cli = rte_comch_client_create(pp->comch_id, &cc);
			if (pp->cli == NULL) {
				ret = -rte_errno;
				NCM_LOG(ERR, "%s: cannot create a client of \"%s\" on %s: %s",
					ncm_name(pp), port->conf.server,
					port->conf.comch, strerror(rte_errno));
				return ret;
			}
		}
	}
	pp->alarm_on = true;
	ret = rte_eal_alarm_set(NCM_TICK_IDLE_US, ncm_alarm, pp);
	if (ret < 0) {
		pp->alarm_on = false;
		NCM_LOG(ERR, "%s: cannot set the control alarm: %s",
			ncm_name(pp), strerror(-ret));
		if (pp->srv != NULL)
			rte_comch_server_destroy(pp->srv);
		if (pp->cli != NULL)
			rte_comch_client_destroy(pp->cli);
		pp->srv = NULL;
		pp->cli = NULL;
		return ret;
	}
	return 0;
}

int
ncm_ctrl_start(struct ncm_proc *pp)
{
	int ret;

	pthread_mutex_lock(&pp->lock);
	pp->started = true;
	ret = ncm_event(pp, NCM_EV_START);
	if (ret < 0)
		pp->started = false;
	pthread_mutex_unlock(&pp->lock);
	if (ret < 0)
		NCM_LOG(ERR, "%s: cannot start server \"%s\": %s",
			ncm_name(pp), pp->port->conf.server, strerror(-ret));
	return ret;
}

/* Give the release a bounded time to finish here (secondaries release on
 * their own alarms); whatever is left, the alarm finishes. */
static void
ncm_settle(struct ncm_proc *pp, double seconds)
{
	uint64_t dl = rte_get_timer_cycles() + (uint64_t)(seconds *
			(double)rte_get_timer_hz());

	for (;;) {
		ncm_ctrl_tick(pp);
		if (pp->state == NCM_ST_STOPPED || rte_get_timer_cycles() > dl)
			break;
		rte_delay_us_sleep(1000);
	}
}

int
ncm_ctrl_stop(struct ncm_proc *pp)
{
	pthread_mutex_lock(&pp->lock);
	pp->started = false;
	ncm_event(pp, NCM_EV_STOP);
	pthread_mutex_unlock(&pp->lock);
	ncm_settle(pp, 3);
	if (pp->state != NCM_ST_STOPPED)
		NCM_LOG(NOTICE, "%s: stopped; another process still holds queues of connection %u: it is released when they let go",
			ncm_name(pp), pp->port->conn_id);
	return 0;
}

void
ncm_ctrl_fini(struct ncm_proc *pp)
{
	uint16_t i;

	if (rte_eal_process_type() == RTE_PROC_PRIMARY &&
	    pp->state != NCM_ST_STOPPED) {
		ncm_settle(pp, 5);
		if (pp->state != NCM_ST_STOPPED)
			NCM_LOG(WARNING, "%s: closing while another process holds queues: stop it first",
				ncm_name(pp));
	}
	pthread_mutex_lock(&pp->lock);
	pp->alarm_on = false;
	pthread_mutex_unlock(&pp->lock);
	rte_eal_alarm_cancel(ncm_alarm, pp);
	/* What this process still holds (a secondary's queues): its
	 * lcores are done with the port. */
	pthread_mutex_lock(&pp->lock);
	if (ncm_comch_gone(pp)) {
		pthread_mutex_unlock(&pp->lock);
		pthread_mutex_destroy(&pp->lock);
		return;
	}
	for (i = 0; i < NCM_MAX_QUEUES; i++) {
		struct ncm_lq *rl = &pp->rxl[i], *tl = &pp->txl[i];

		if (rl->held) {
			uint64_t dl = rte_get_timer_cycles() + ncm_ms(3000);

			__atomic_store_n(&rl->active, 0, __ATOMIC_RELEASE);
			while (!ncm_rx_release(pp, i) &&
			       rte_get_timer_cycles() < dl)
				rte_delay_us_sleep(1000);
		}
		if (tl->held) {
			__atomic_store_n(&tl->active, 0, __ATOMIC_RELEASE);
			ncm_tx_release(pp, i);
		}
	}
	if (pp->attached)
		rte_comch_conn_detach(pp->conn);
	pp->attached = false;
	pp->conn = NULL;
	if (pp->srv != NULL) {
		if (rte_comch_server_state(pp->srv) != RTE_COMCH_STATE_IDLE)
			rte_comch_server_stop(pp->srv);
		rte_comch_server_destroy(pp->srv);
		pp->srv = NULL;
	}
	if (pp->cli != NULL) {
		if (rte_comch_client_state(pp->cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(pp->cli);
		rte_comch_client_destroy(pp->cli);
		pp->cli = NULL;
	}
	pthread_mutex_unlock(&pp->lock);
	pthread_mutex_destroy(&pp->lock);
}
