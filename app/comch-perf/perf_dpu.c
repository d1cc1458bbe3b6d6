/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The DPU side: serve hosts. Each connection gets a struct dpu_conn (its
 * user data, perf_dpu.h); BEGIN prepares what the test needs (queues, and
 * what its engine's dpu_begin asks for), test traffic is counted and
 * handed to the engine's hooks (echoes, sends), END is answered with
 * RESULT once everything sent was received. A host that leaves or dies is
 * reported and released; the next one is served.
 *
 * One loop serves every host, and nothing in it waits for one of them:
 * - control messages are taken per connection, and not at all while a
 *   reply or echo to that host is still waiting for room in its queue
 *   (an echo the host has no room for is kept, up to DPU_ECHO_BACKLOG);
 * - a fast-path echo the host has no buffer for keeps the buffer it came
 *   in, and that queue takes nothing more until it went out;
 * - queues are torn down asynchronously: stopping consumers are polled
 *   by the loop until idle (the driver bounds how long a host may hold
 *   buffers it claimed), and what waits for the teardown (RESULT, the
 *   next BEGIN, the release of a lost connection) follows then.
 * So a host that never reads, never posts or never fills stalls itself
 * only, and SIGINT and --duration are honoured at any time.
 *
 * With --event the loop sleeps in epoll when a turn did nothing and no
 * connection has work that no event announces (a send waiting for the
 * host's buffers, queues being torn down, a RESULT or BEGIN due, an END
 * awaited): on the server's event, each connection's and each
 * consumer's, armed first (dpu_sleep()).
 */

#include <errno.h>
#include <inttypes.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "perf_dpu.h"

static void
dpu_say(const struct dpu_ctx *x, const char *fmt, ...)
	__rte_format_printf(2, 3);

static void
dpu_say(const struct dpu_ctx *x, const char *fmt, ...)
{
	va_list ap;

	/* Results own stdout with --json and --csv; events go to stderr. */
	va_start(ap, fmt);
	vfprintf(perf_results_own_stdout(x->o) ? stderr : stdout, fmt, ap);
	va_end(ap);
	fflush(perf_results_own_stdout(x->o) ? stderr : stdout);
}

/* Whether a line of @p g's kind may be printed now (one a second); when
 * it may, first how many were not. */
static bool
dpu_gate_open(struct dpu_ctx *x, struct dpu_gate *g)
{
	uint64_t now = rte_get_timer_cycles();

	if (g->last != 0 && now - g->last < rte_get_timer_hz()) {
		g->quiet++;
		return false;
	}
	g->last = now;
	if (g->quiet != 0)
		dpu_say(x, "dpu: (%u like the next not shown)\n", g->quiet);
	g->quiet = 0;
	return true;
}

/* ------------------------------------------------------------- sleeping */

/* --event: sleep on @p ev too (0, or a negative errno). */
static int
dpu_sleep_on(struct dpu_ctx *x, struct rte_comch_event *ev)
{
	struct epoll_event e = { .events = EPOLLIN };

	if (x->ep < 0)
		return 0;
	if (ev == NULL)
		return -rte_errno;
	return epoll_ctl(x->ep, EPOLL_CTL_ADD, rte_comch_event_fd(ev), &e) < 0 ?
		-errno : 0;
}

/* Nothing to do for @p d but what an event announces. */
static bool
dpu_conn_quiet(const struct dpu_conn *d)
{
	uint32_t i;

	if (d->lost || d->stopping || d->result_due || d->begin_due ||
	    d->sending || d->end_pending)
		return false;
	for (i = 0; i < d->nb_queues; i++)
		if (d->q[i].nb_held != 0)
			return false;   /* no event for the host's posts */
	return true;
}

/* Arm the server's, every connection's and every consumer's event: 1 if
 * one found work, else 0. An event whose arm fails (its connection lost)
 * is the server poll's to report. */
static int
dpu_arm(struct dpu_ctx *x)
{
	unsigned int i;
	uint32_t q;

	if (rte_comch_event_arm(rte_comch_server_event(x->srv)) > 0)
		return 1;
	for (i = 0; i < x->nb_slots; i++) {
		struct dpu_conn *d = x->conns[i];

		if (d == NULL)
			continue;
		if (rte_comch_event_arm(rte_comch_conn_event(d->conn)) > 0)
			return 1;
		for (q = 0; q < d->nb_queues; q++)
			if (d->q[q].cons != NULL &&
			    rte_comch_event_arm(
				rte_comch_consumer_event(d->q[q].cons)) > 0)
				return 1;
	}
	return 0;
}

/* A turn did nothing: sleep until an event, or @p timeout_ms. */
static void
dpu_sleep(struct dpu_ctx *x, int timeout_ms)
{
	struct epoll_event out[16];
	unsigned int i;

	for (i = 0; i < x->nb_slots; i++)
		if (x->conns[i] != NULL && !dpu_conn_quiet(x->conns[i]))
			return;
	if (dpu_arm(x) != 0)
		return;
	x->sleeps++;
	(void)epoll_wait(x->ep, out, RTE_DIM(out), timeout_ms);
}

/* ------------------------------------------------------------- queues */

/* Every queue costs this process file descriptors (a consumer ring and
 * its memory, with comch_shm, and copies of both while the announcement
 * waits for a host that has not read it; in event mode also its epoll
 * instance, arm page and kick socket pair, and copies of the arm page and
 * kick socket) and memory. */
#define DPU_FDS_PER_QUEUE(event) ((event) ? 10 : 4)

/* What hosts may make this process hold: queues within half of its file
 * descriptors (raised to the hard limit first: perf_main.c), messages
 * within --max-size and the device's buffers. */
static void
dpu_limits(struct dpu_ctx *x)
{
	struct rte_comch_dev_info info;
	struct rlimit rl;
	uint64_t budget = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		budget = rl.rlim_cur / 2 / DPU_FDS_PER_QUEUE(x->o->event);
	x->queue_budget = (uint32_t)RTE_MIN(budget, (uint64_t)UINT32_MAX);
	x->max_hosts = DPU_MAX_CONNS;
	x->max_size = x->o->max_size;
	x->mem_budget = x->o->max_mem;
	if (rte_comch_info_get(x->dev_id, &info) == 0) {
		if (info.caps.max_clients != 0)
			x->max_hosts = RTE_MIN(info.caps.max_clients,
					(uint32_t)DPU_MAX_CONNS);
		x->max_size = RTE_MIN(x->max_size,
				(uint64_t)info.caps.max_buf_size);
	}
	/* --role=pair: both ends are ours, the host opens --connections */
	if (x->pair)
		x->max_hosts = RTE_MAX(x->o->connections, 1u);
}

/*
 * Why a host may not have @p queues queues of @p size messages now, or
 * NULL. Hosts are served first come, first served, but every other host
 * that could still come keeps room for one queue (of messages up to 128
 * KiB, for memory, within half of --max-mem): one host cannot take what
 * its siblings need to be served at all.
 */
static const char *
dpu_admit(const struct dpu_ctx *x, uint32_t queues, uint32_t size)
{
	uint32_t others = x->max_hosts > x->hosts_with_queues + 1 ?
		x->max_hosts - x->hosts_with_queues - 1 : 0;
	uint64_t mem = queues * perf_queue_mem(size), reserve;

	if (x->queues_in_use > x->queue_budget ||
	    (uint64_t)queues + others > x->queue_budget - x->queues_in_use)
		return "the DPU keeps room for its other hosts (its queues are bounded by half of ulimit -n)";
	/* at most half of --max-mem is kept for hosts still to come */
	reserve = RTE_MIN((uint64_t)others * PERF_DPU_MEM_RESERVE,
			x->mem_budget / 2);
	if (x->mem_in_use > x->mem_budget ||
	    mem + reserve > x->mem_budget - x->mem_in_use)
		return "the DPU keeps room for its other hosts (its queues' memory is bounded by --max-mem)";
	return NULL;
}

static void
dpu_hold(struct dpu_ctx *x, struct dpu_conn *d, uint32_t queues)
{
	d->x = x;
	d->queues_held = queues;
	d->mem_held = queues * perf_queue_mem(d->size);
	x->queues_in_use += queues;
	x->mem_in_use += d->mem_held;
	x->hosts_with_queues++;
}

/* The queues of @p d are gone. */
static void
dpu_release(struct dpu_conn *d)
{
	if (d->queues_held == 0)
		return;
	d->x->queues_in_use -= d->queues_held;
	d->x->mem_in_use -= d->mem_held;
	d->x->hosts_with_queues--;
	d->queues_held = 0;
	d->mem_held = 0;
}

/* Begin tearing the queues down: producers go at once, consumers stop
 * and are drained by dpu_fp_drain() from the loop. */
static void
dpu_fp_stop(struct dpu_conn *d)
{
	uint32_t i;

	d->sending = false;
	d->stopping = true;
	for (i = 0; i < d->nb_queues; i++) {
		struct dpu_queue *q = &d->q[i];

		if (q->prod != NULL) {
			rte_comch_producer_stop(q->prod);
			rte_comch_producer_destroy(q->prod);
			q->prod = NULL;
		}
		/* held echoes are dropped: their buffers are not posted
		 * any more, nothing to give back */
		q->nb_held = 0;
		if (q->cons != NULL &&
		    rte_comch_consumer_state(q->cons) == RTE_COMCH_STATE_RUNNING)
			rte_comch_consumer_stop(q->cons);
	}
}

/* Poll stopping consumers; true once every queue is gone. */
static bool
dpu_fp_drain(struct dpu_conn *d)
{
	struct rte_comch_completion cpl[DPU_BURST];
	bool done = true;
	uint32_t i;

	for (i = 0; i < d->nb_queues; i++) {
		struct dpu_queue *q = &d->q[i];

		if (q->cons != NULL) {
			rte_comch_consumer_poll_burst(q->cons, cpl, RTE_DIM(cpl));
			if (rte_comch_consumer_state(q->cons) !=
			    RTE_COMCH_STATE_IDLE) {
				done = false;
				continue;
			}
			rte_comch_consumer_destroy(q->cons);
			q->cons = NULL;
		}
		rte_comch_mem_destroy(q->mem);
		q->mem = NULL;
	}
	if (done) {
		memset(d->q, 0, sizeof(d->q[0]) * d->nb_queues);
		d->nb_queues = 0;
		d->stopping = false;
		dpu_release(d);
	}
	return done;
}

static int
dpu_queue_setup(struct dpu_ctx *x, struct dpu_conn *d, struct dpu_queue *q)
{
	struct rte_comch_consumer_conf conf = {
		.flags = x->o->event ? RTE_COMCH_F_EVENT : 0 };
	uint32_t n = perf_nb_posts(d->size), i, len = d->size;
	void *buf;
	int ret;

	q->mem = rte_comch_mem_create(x->dev_id, (size_t)n * d->size,
			(int)rte_socket_id());
	if (q->mem == NULL)
		return -rte_errno;
	conf.mem = q->mem;
	conf.nb_posts = n;
	q->cons = rte_comch_consumer_create(d->conn, &conf);
	if (q->cons == NULL)
		return -rte_errno;
	ret = rte_comch_consumer_start(q->cons);
	if (ret < 0)
		return ret;
	/* its fd leaves the set by itself when the consumer is destroyed */
	if (x->ep >= 0) {
		ret = dpu_sleep_on(x, rte_comch_consumer_event(q->cons));
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < n; i++) {
		buf = (uint8_t *)rte_comch_mem_addr(q->mem) + (size_t)i * d->size;
		if (rte_comch_consumer_post_burst(q->cons, &buf, &len, 1) != 1)
			return -EIO;
	}
	if (d->e->flags & PERF_E_BOTH_WAYS) {
		q->prod = rte_comch_producer_create(d->conn, NULL);
		if (q->prod == NULL)
			return -rte_errno;
		ret = rte_comch_producer_start(q->prod);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
dpu_fp_setup(struct dpu_ctx *x, struct dpu_conn *d, uint32_t queues)
{
	int ret;

	for (d->nb_queues = 0; d->nb_queues < queues; d->nb_queues++) {
		ret = dpu_queue_setup(x, d, &d->q[d->nb_queues]);
		if (ret < 0) {
			d->nb_queues++; /* tear that one down too */
			return ret;
		}
	}
	return 0;
}

/* ---------------------------------------------------- control messages */

/* Send the reply, or keep it for the next turn (the host's queue is
 * full). */
static void
dpu_reply(struct dpu_conn *d, enum perf_msg_type type)
{
	memset(&d->reply, 0, sizeof(d->reply));
	d->reply.magic = PERF_MAGIC;
	d->reply.type = type;
	d->reply.test = d->test;
	d->reply.size = d->size;
	d->reply.msgs = type == PERF_MSG_REFUSED ? (uint64_t)d->refused :
		d->msgs;
	d->reply.bytes = d->bytes;
	d->reply.sent = d->sent;
	/* the host sends to our consumers from this one on, in order */
	if (type == PERF_MSG_READY && d->nb_queues != 0)
		d->reply.first_consumer = rte_comch_consumer_id(d->q[0].cons);
	/* idle: this process's CPU use since READY, from /proc */
	if (type == PERF_MSG_READY && d->e != NULL &&
	    (d->e->flags & PERF_E_IDLE)) {
		d->cpu0_us = perf_cpu_us(false);
		d->wall0_us = perf_cycles_to(rte_get_timer_cycles(),
				rte_get_timer_hz(), 1000000);
	}
	if (type == PERF_MSG_RESULT && d->e != NULL &&
	    (d->e->flags & PERF_E_IDLE)) {
		d->reply.bytes = perf_cpu_us(false) - d->cpu0_us;
		d->reply.sent = perf_cycles_to(rte_get_timer_cycles(),
				rte_get_timer_hz(), 1000000) - d->wall0_us;
	}
	d->reply_pending = rte_comch_msg_send(d->conn, &d->reply,
			sizeof(d->reply)) == -EAGAIN;
}

/* Refuse a BEGIN (@p err: why), saying so at most once a second per
 * host. */
static void
dpu_refuse(struct dpu_ctx *x, struct dpu_conn *d, int err, const char *why)
{
	uint64_t now = rte_get_timer_cycles();

	if (now - d->unexpected_said >= rte_get_timer_hz()) {
		d->unexpected_said = now;
		dpu_say(x, "dpu: connection %u: refused %s size %u, %u queue(s): %s\n",
			rte_comch_conn_id(d->conn),
			d->e != NULL ? d->e->name : "?", d->size, d->begin_queues,
			why);
	}
	d->refused = err;
	dpu_reply(d, PERF_MSG_REFUSED);
}

/* A BEGIN (a private, checked copy) once the connection has no queues. */
static void
dpu_begin(struct dpu_ctx *x, struct dpu_conn *d, const struct perf_msg *p)
{
	const char *why;
	int ret;

	d->test = (enum perf_test)p->test;
	d->e = perf_engine(d->test);
	d->size = p->size;
	d->burst = p->burst;
	d->touch = p->touch != 0;
	d->msgs = 0;
	d->bytes = 0;
	d->sent = 0;
	d->end_pending = false;
	d->begin_queues = p->queues;
	if ((d->e->flags & PERF_E_FP) && d->size > x->max_size) {
		dpu_refuse(x, d, EMSGSIZE, "larger than the DPU serves (its --max-size, within the device's buffers)");
		return;
	}
	why = (d->e->flags & PERF_E_FP) ? dpu_admit(x, p->queues, d->size) :
		NULL;
	if (why != NULL) {
		dpu_refuse(x, d, ENOSPC, why);
		return;
	}
	if (d->e->dpu_begin != NULL) {
		ret = d->e->dpu_begin(x, d);
		if (ret < 0) {
			dpu_refuse(x, d, -ret, rte_strerror(-ret));
			return;
		}
	}
	if (d->e->flags & PERF_E_FP) {
		dpu_hold(x, d, p->queues);
		ret = dpu_fp_setup(x, d, p->queues);
		if (ret < 0) {
			dpu_refuse(x, d, -ret, rte_strerror(-ret));
			dpu_fp_stop(d);
			return;
		}
	}
	dpu_reply(d, PERF_MSG_READY);
	d->sending = d->e->dpu_send != NULL;
}

/* A perf message out of place: said once a second per host at most, with
 * how many came since. */
static void
dpu_unexpected(struct dpu_ctx *x, struct dpu_conn *d, uint32_t type)
{
	uint64_t now = rte_get_timer_cycles();

	d->unexpected++;
	if (now - d->unexpected_said < rte_get_timer_hz())
		return;
	d->unexpected_said = now;
	dpu_say(x, "dpu: connection %u: unexpected perf message %u (%" PRIu64 " so far)\n",
		rte_comch_conn_id(d->conn), type, d->unexpected);
}

static void
dpu_on_perf_msg(struct dpu_ctx *x, struct dpu_conn *d, const struct perf_msg *p)
{
	if (p->type == PERF_MSG_BEGIN && perf_engine(p->test) != NULL &&
	    p->size != 0 && p->burst != 0 && p->burst <= 1024 &&
	    p->queues != 0 && p->queues <= PERF_MAX_QUEUES &&
	    !d->begin_due) {
		if (d->nb_queues == 0 && !d->stopping) {
			dpu_begin(x, d, p);
			return;
		}
		dpu_fp_stop(d);
		d->begin = *p;
		d->begin_due = true;
	} else if (p->type == PERF_MSG_END) {
		d->sending = false;
		d->end_pending = true;
		d->end_expect = p->msgs;
		d->end_deadline = rte_get_timer_cycles() +
			DPU_END_WAIT_S * rte_get_timer_hz();
	} else {
		dpu_unexpected(x, d, p->type);
	}
}

/* Control messages of one connection: nothing is taken while the host
 * has no room for what we owe it. */
static void
dpu_ctrl_poll(struct dpu_ctx *x, struct dpu_conn *d)
{
	const struct perf_engine *e = d->e;
	struct rte_comch_msg m[DPU_BURST];
	struct perf_msg p;
	uint16_t room;
	int n, i;

	if (d->reply_pending) {
		d->reply_pending = rte_comch_msg_send(d->conn, &d->reply,
				sizeof(d->reply)) == -EAGAIN;
		if (d->reply_pending)
			return;
	}
	if (e != NULL && e->dpu_ctrl_flush != NULL && !e->dpu_ctrl_flush(d))
		return;
	room = e != NULL && e->dpu_ctrl_room != 0 ? e->dpu_ctrl_room : DPU_BURST;
	n = rte_comch_msg_recv_burst(d->conn, m, room);
	for (i = 0; i < n; i++) {
		if (perf_msg_parse(&m[i], &p)) {
			dpu_on_perf_msg(x, d, &p);
			continue;
		}
		d->msgs++;
		d->bytes += m[i].len;
		if (d->e != NULL && d->e->dpu_ctrl_msg != NULL)
			d->e->dpu_ctrl_msg(d, &m[i]);
	}
}

/* ------------------------------------------------------------ callbacks */

static void
dpu_on_connect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, void *arg)
{
	struct dpu_ctx *x = arg;
	struct dpu_conn *d;
	unsigned int i;

	for (i = 0; i < DPU_MAX_CONNS && x->conns[i] != NULL; i++)
		;
	d = i < DPU_MAX_CONNS ? calloc(1, sizeof(*d)) : NULL;
	if (d == NULL) {
		dpu_say(x, "dpu: too many hosts, refusing connection %u\n",
			rte_comch_conn_id(conn));
		rte_comch_server_disconnect(x->srv, conn);
		return;
	}
	d->conn = conn;
	x->conns[i] = d;
	if (x->ep >= 0 && dpu_sleep_on(x, rte_comch_conn_event(conn)) < 0)
		dpu_say(x, "dpu: connection %u: cannot sleep on its event: polling\n",
			rte_comch_conn_id(conn));
	if (i >= x->nb_slots)
		x->nb_slots = i + 1;
	rte_comch_conn_user_data_set(conn, (uint64_t)(uintptr_t)d);
	if (dpu_gate_open(x, &x->events))
		dpu_say(x, "dpu: host connected (connection %u)\n",
			rte_comch_conn_id(conn));
}

static void
dpu_on_disconnect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, int err, void *arg)
{
	struct dpu_ctx *x = arg;
	struct dpu_conn *d = (struct dpu_conn *)(uintptr_t)
		rte_comch_conn_user_data_get(conn);

	if (dpu_gate_open(x, err != 0 && err != -ECONNRESET ? &x->faults :
			&x->events))
		dpu_say(x, "dpu: host of connection %u %s\n",
			rte_comch_conn_id(conn),
			err == 0 ? "closed" :
			err == -ECONNRESET ? "lost (it went away without closing)" :
			err == -EPROTO ? "broke the protocol" :
			"was dropped: this process ran out of resources");
	if (d != NULL)
		d->lost = true;   /* released from the main loop */
}

static void
dpu_on_consumer(struct rte_comch_conn *conn, uint32_t id,
		enum rte_comch_consumer_event ev, void *arg __rte_unused)
{
	struct dpu_conn *d = (struct dpu_conn *)(uintptr_t)
		rte_comch_conn_user_data_get(conn);
	unsigned int i;

	if (d == NULL)
		return;
	if (ev == RTE_COMCH_CONSUMER_CREATED) {
		if (d->nb_peer_consumers < PERF_MAX_QUEUES)
			d->peer_consumers[d->nb_peer_consumers++] = id;
		return;
	}
	for (i = 0; i < d->nb_peer_consumers; i++) {
		if (d->peer_consumers[i] == id) {
			memmove(&d->peer_consumers[i], &d->peer_consumers[i + 1],
				(d->nb_peer_consumers - i - 1) * sizeof(id));
			d->nb_peer_consumers--;
			return;
		}
	}
}

/* ----------------------------------------------------------- fast path */

/* Fast-path receive on one queue (the engine may keep a buffer, for an
 * echo), then give the buffers back. */
static void
dpu_fp_poll(struct dpu_conn *d, struct dpu_queue *q)
{
	const struct perf_engine *e = d->e;
	struct rte_comch_completion cpl[DPU_BURST];
	void *bufs[DPU_BURST];
	uint32_t lens[DPU_BURST];
	uint16_t nb_repost = 0, max;
	int n, i;

	if (e->dpu_fp_flush != NULL && !e->dpu_fp_flush(d, q))
		return; /* the host takes nothing back: nothing more from it */
	max = dpu_turn_msgs(d, DPU_RX, RTE_MIN(d->burst, (uint32_t)DPU_BURST));
	if (max == 0)
		return;
	n = rte_comch_consumer_poll_burst(q->cons, cpl, max);
	if (n <= 0)
		return;
	dpu_turn_spend(d, DPU_RX, (uint32_t)n);
	for (i = 0; i < n; i++) {
		/* Given back unfilled (aborted, its producer died): not a
		 * message. */
		if (cpl[i].status == 0) {
			d->msgs++;
			if (d->touch) {
				const uint64_t *w = cpl[i].buf;
				uint32_t j;

				for (j = 0; j < cpl[i].len / 8; j++)
					d->touch_sum += w[j];
			}
			d->bytes += cpl[i].len;
			if (e->dpu_cpl != NULL && e->dpu_cpl(d, q, &cpl[i]))
				continue;
		}
		bufs[nb_repost] = cpl[i].buf;
		lens[nb_repost++] = d->size;
	}
	if (nb_repost != 0)
		rte_comch_consumer_post_burst(q->cons, bufs, lens, nb_repost);
	if (e->dpu_fp_flush != NULL)
		e->dpu_fp_flush(d, q);
}

/* ----------------------------------------------------------- the loop */

static void
dpu_free(struct dpu_conn *d)
{
	unsigned int i;

	for (i = 0; i < DPU_ECHO_BACKLOG; i++)
		free(d->echo[i].data);
	free(d);
}

/* One turn for one connection; false once it is released. */
static bool
dpu_conn_turn(struct dpu_ctx *x, unsigned int slot)
{
	struct dpu_conn *d = x->conns[slot];
	uint32_t i, q;

	if (d->lost && d->nb_queues != 0 && !d->stopping)
		dpu_fp_stop(d);
	if (d->stopping && !dpu_fp_drain(d))
		return true;
	if (d->lost) {
		rte_comch_server_disconnect(x->srv, d->conn);
		dpu_free(d);
		x->conns[slot] = NULL;
		x->served++;
		return false;
	}
	if (d->result_due) {
		d->result_due = false;
		dpu_reply(d, PERF_MSG_RESULT);
	}
	if (d->begin_due && !d->reply_pending) {
		d->begin_due = false;
		dpu_begin(x, d, &d->begin);
	}
	/* the queues take turns at going first: the turn's bytes may run
	 * out before the last */
	d->turn_left[DPU_RX] = DPU_TURN_BYTES;
	d->turn_left[DPU_TX] = DPU_TURN_BYTES;
	for (i = 0; i < d->nb_queues && !d->stopping &&
	     (d->turn_left[DPU_RX] != 0 || d->turn_left[DPU_TX] != 0); i++) {
		q = (d->next_q + i) % d->nb_queues;
		if (d->q[q].cons != NULL)
			dpu_fp_poll(d, &d->q[q]);
		if (d->sending)
			d->e->dpu_send(x, d, q);
	}
	if (d->nb_queues != 0)
		d->next_q = (d->next_q + 1) % d->nb_queues;
	dpu_ctrl_poll(x, d);
	if (d->end_pending && (d->msgs >= d->end_expect ||
	    rte_get_timer_cycles() > d->end_deadline)) {
		d->end_pending = false;
		d->result_due = true;
		dpu_fp_stop(d);
	}
	return true;
}

int
perf_dpu_run(const struct perf_opts *o, int16_t dev_id, double serve_for,
		const volatile bool *until)
{
	struct dpu_ctx x = { .o = o, .dev_id = dev_id, .pair = until != NULL,
			      .ep = -1 };
	struct rte_comch_server_conf conf = {
		.name = o->name,
		.recv_queue_len = 1024,
		.connect_cb = dpu_on_connect,
		.disconnect_cb = dpu_on_disconnect,
		.consumer_event_cb = dpu_on_consumer,
		.cb_arg = &x,
		.flags = o->event ? RTE_COMCH_F_EVENT : 0,
	};
	uint64_t end = serve_for > 0 ? rte_get_timer_cycles() +
		(uint64_t)(serve_for * (double)rte_get_timer_hz()) : UINT64_MAX;
	unsigned int i;
	bool busy;

	dpu_limits(&x);
	x.srv = rte_comch_server_create(dev_id, &conf);
	if (x.srv == NULL || rte_comch_server_start(x.srv) < 0) {
		fprintf(stderr, "dpu: cannot start server \"%s\": %s\n", o->name,
			rte_strerror(rte_errno));
		rte_comch_server_destroy(x.srv);
		return -rte_errno;
	}
	if (o->event) {
		x.ep = epoll_create1(EPOLL_CLOEXEC);
		if (x.ep < 0 ||
		    dpu_sleep_on(&x, rte_comch_server_event(x.srv)) < 0) {
			fprintf(stderr, "dpu: event mode: cannot sleep on the server's event\n");
			rte_comch_server_stop(x.srv);
			rte_comch_server_destroy(x.srv);
			if (x.ep >= 0)
				close(x.ep);
			return -EIO;
		}
	}
	dpu_say(&x, "dpu: serving \"%s\"%s%s\n", o->name,
		serve_for > 0 ? "" : " until SIGINT",
		o->event ? " (event mode: asleep while idle)" : "");
	while (!perf_quit && rte_get_timer_cycles() < end &&
	       !(until != NULL && *until)) {
		uint64_t work = 0, now;

		busy = rte_comch_server_poll(x.srv) > 0;
		for (i = 0; i < x.nb_slots; i++)
			if (x.conns[i] != NULL) {
				work -= x.conns[i]->msgs + x.conns[i]->sent;
				if (dpu_conn_turn(&x, i))
					work += x.conns[i]->msgs +
						x.conns[i]->sent;
				else
					busy = true;   /* released */
			}
		if (x.ep < 0 || busy || work != 0)
			continue;
		/* In pair mode the host's end (until) is seen within 50 ms. */
		now = rte_get_timer_cycles();
		if (now >= end)
			break;
		dpu_sleep(&x, until != NULL ? 50 : end == UINT64_MAX ? -1 :
			(int)RTE_MIN((end - now) * 1000 / rte_get_timer_hz() + 1,
				(uint64_t)INT32_MAX));
	}
	/* Leaving: every connection goes, its queues first (bounded by the
	 * driver; the server keeps being polled meanwhile). */
	do {
		busy = false;
		rte_comch_server_poll(x.srv);
		for (i = 0; i < x.nb_slots; i++) {
			if (x.conns[i] == NULL)
				continue;
			x.conns[i]->lost = true;
			busy |= dpu_conn_turn(&x, i);
		}
	} while (busy);
	rte_comch_server_stop(x.srv);
	rte_comch_server_destroy(x.srv);
	if (x.ep >= 0)
		close(x.ep);
	free(x.src);
	if (x.events.quiet + x.faults.quiet != 0)
		dpu_say(&x, "dpu: (%u connection events not shown)\n",
			x.events.quiet + x.faults.quiet);
	if (o->event)
		dpu_say(&x, "dpu: done, served %u host(s), slept %" PRIu64 " times\n",
			x.served, x.sleeps);
	else
		dpu_say(&x, "dpu: done, served %u host(s)\n", x.served);
	return 0;
}
