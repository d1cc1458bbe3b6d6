/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The DPU side: serve hosts. Each connection gets a struct dpu_conn (its
 * user data); BEGIN prepares what the test needs, test traffic is counted
 * (and echoed for latency tests), END is answered with RESULT once
 * everything sent was received. A host that leaves or dies is reported
 * and released; the next one is served.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "perf.h"

#define DPU_MAX_CONNS PERF_MAX_CONNS
#define DPU_END_WAIT_S 10

/* One queue: a consumer (fast-path tests) and, for fp-lat and fp-bidir,
 * a producer. */
struct dpu_queue {
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
};

struct dpu_conn {
	struct rte_comch_conn *conn;
	enum perf_test test;
	uint32_t size;
	uint32_t burst;
	uint32_t nb_queues;
	bool touch;
	bool sending;           /* fp-bidir, between READY and END */
	struct dpu_queue q[PERF_MAX_QUEUES];
	uint32_t peer_consumers[PERF_MAX_QUEUES]; /* host consumers, in order */
	unsigned int nb_peer_consumers;
	uint64_t sent;
	uint64_t msgs;
	uint64_t bytes;
	uint64_t touch_sum;
	bool end_pending;
	uint64_t end_expect;
	uint64_t end_deadline;
	struct perf_msg reply;  /* not yet sent (queue was full) */
	bool reply_pending;
	bool lost;
};

struct dpu_ctx {
	const struct perf_opts *o;
	int16_t dev_id;
	uint8_t *src;           /* payload for fp-bidir */
	size_t src_size;
	struct rte_comch_server *srv;
	struct dpu_conn *conns[DPU_MAX_CONNS];
	unsigned int nb_slots;  /* conns[] used below this index */
	unsigned int served;
	uint64_t last_event;    /* TSC of the last connection event printed */
	unsigned int quiet;     /* events not printed since */
};

/* Connection events, but not hundreds a second (conn-rate). */
static bool
dpu_event_loud(struct dpu_ctx *x)
{
	uint64_t now = rte_get_timer_cycles();

	if (now - x->last_event < rte_get_timer_hz()) {
		x->quiet++;
		return false;
	}
	x->last_event = now;
	return true;
}

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

static void
dpu_fp_teardown(struct dpu_conn *d)
{
	struct rte_comch_completion cpl[64];
	uint32_t i;

	d->sending = false;
	for (i = 0; i < d->nb_queues; i++) {
		struct dpu_queue *q = &d->q[i];

		if (q->prod != NULL) {
			rte_comch_producer_stop(q->prod);
			rte_comch_producer_destroy(q->prod);
		}
		if (q->cons != NULL) {
			if (rte_comch_consumer_state(q->cons) == RTE_COMCH_STATE_RUNNING)
				rte_comch_consumer_stop(q->cons);
			while (rte_comch_consumer_state(q->cons) != RTE_COMCH_STATE_IDLE &&
			       rte_comch_consumer_poll_burst(q->cons, cpl,
					RTE_DIM(cpl)) >= 0)
				;
			rte_comch_consumer_destroy(q->cons);
		}
		rte_comch_mem_destroy(q->mem);
		memset(q, 0, sizeof(*q));
	}
	d->nb_queues = 0;
}

static void
dpu_reply(struct dpu_conn *d, enum perf_msg_type type)
{
	memset(&d->reply, 0, sizeof(d->reply));
	d->reply.magic = PERF_MAGIC;
	d->reply.type = type;
	d->reply.test = d->test;
	d->reply.size = d->size;
	d->reply.msgs = d->msgs;
	d->reply.bytes = d->bytes;
	d->reply.sent = d->sent;
	d->reply_pending = rte_comch_msg_send(d->conn, &d->reply,
			sizeof(d->reply)) == -EAGAIN;
}

static int
dpu_queue_setup(struct dpu_ctx *x, struct dpu_conn *d, struct dpu_queue *q)
{
	struct rte_comch_consumer_conf conf = { 0 };
	uint32_t n = perf_nb_posts(d->size), i, len = d->size;
	void *buf;

	q->mem = rte_comch_mem_create(x->dev_id, (size_t)n * d->size,
			(int)rte_socket_id());
	if (q->mem == NULL)
		return -rte_errno;
	conf.mem = q->mem;
	conf.nb_posts = n;
	q->cons = rte_comch_consumer_create(d->conn, &conf);
	if (q->cons == NULL)
		return -rte_errno;
	if (rte_comch_consumer_start(q->cons) < 0)
		return -EIO;
	for (i = 0; i < n; i++) {
		buf = (uint8_t *)rte_comch_mem_addr(q->mem) + (size_t)i * d->size;
		if (rte_comch_consumer_post_burst(q->cons, &buf, &len, 1) != 1)
			return -EIO;
	}
	if (d->test == PERF_FP_LAT || d->test == PERF_FP_BIDIR) {
		q->prod = rte_comch_producer_create(d->conn, NULL);
		if (q->prod == NULL || rte_comch_producer_start(q->prod) < 0)
			return -EIO;
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

static void
dpu_on_perf_msg(struct dpu_ctx *x, struct dpu_conn *d, const struct perf_msg *p)
{
	if (p->type == PERF_MSG_BEGIN && p->test < PERF_TEST__MAX &&
	    p->size != 0 && p->burst != 0 && p->burst <= 1024 &&
	    p->queues != 0 && p->queues <= PERF_MAX_QUEUES) {
		dpu_fp_teardown(d);
		if (p->test == PERF_FP_BIDIR && p->size > x->src_size) {
			free(x->src);
			x->src = calloc(1, p->size);
			x->src_size = x->src != NULL ? p->size : 0;
			if (x->src == NULL)
				return;
		}
		d->test = (enum perf_test)p->test;
		d->size = p->size;
		d->burst = p->burst;
		d->touch = p->touch != 0;
		d->msgs = 0;
		d->bytes = 0;
		d->sent = 0;
		d->end_pending = false;
		if ((d->test == PERF_FP_TPUT || d->test == PERF_FP_LAT ||
		     d->test == PERF_FP_BIDIR) && dpu_fp_setup(x, d, p->queues) < 0) {
			dpu_say(x, "dpu: cannot prepare %s size %u\n",
				perf_test_name(d->test), d->size);
			dpu_fp_teardown(d);
			return; /* no READY: the host gives up */
		}
		dpu_reply(d, PERF_MSG_READY);
		d->sending = d->test == PERF_FP_BIDIR;
	} else if (p->type == PERF_MSG_END) {
		d->sending = false;
		d->end_pending = true;
		d->end_expect = p->msgs;
		d->end_deadline = rte_get_timer_cycles() +
			DPU_END_WAIT_S * rte_get_timer_hz();
	} else {
		dpu_say(x, "dpu: connection %u: unexpected perf message %u\n",
			rte_comch_conn_id(d->conn), p->type);
	}
}

static void
dpu_on_msg(struct rte_comch_conn *conn, const struct rte_comch_msg *m,
		void *arg)
{
	struct dpu_ctx *x = arg;
	struct dpu_conn *d = (struct dpu_conn *)(uintptr_t)
		rte_comch_conn_user_data_get(conn);
	const struct perf_msg *p = perf_msg_parse(m);

	if (d == NULL)
		return;
	if (p != NULL) {
		dpu_on_perf_msg(x, d, p);
		return;
	}
	d->msgs++;
	d->bytes += m->len;
	if (d->test == PERF_CTRL_LAT) {
		/* The host waits for each echo, so there is room. */
		while (rte_comch_msg_send(conn, m->data, m->len) == -EAGAIN &&
		       !perf_quit)
			;
	}
}

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
	if (i >= x->nb_slots)
		x->nb_slots = i + 1;
	rte_comch_conn_user_data_set(conn, (uint64_t)(uintptr_t)d);
	if (dpu_event_loud(x)) {
		if (x->quiet != 0)
			dpu_say(x, "dpu: (%u connection events not shown)\n",
				x->quiet);
		x->quiet = 0;
		dpu_say(x, "dpu: host connected (connection %u)\n",
			rte_comch_conn_id(conn));
	}
}

static void
dpu_on_disconnect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, int err, void *arg)
{
	struct dpu_ctx *x = arg;
	struct dpu_conn *d = (struct dpu_conn *)(uintptr_t)
		rte_comch_conn_user_data_get(conn);

	if (err != -ECONNRESET || dpu_event_loud(x))
		dpu_say(x, "dpu: host of connection %u %s\n",
			rte_comch_conn_id(conn),
			err == -ECONNRESET ? "left" : "broke the protocol");
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

/* Fast-path receive on one queue (echo for fp-lat: to the consumer the
 * host names in the immediate data), then give the buffers back. */
static void
dpu_fp_poll(struct dpu_conn *d, struct dpu_queue *q)
{
	struct rte_comch_completion cpl[64];
	struct rte_comch_send_op op;
	void *bufs[64];
	uint32_t lens[64], reply_to;
	int n, i, k;

	n = rte_comch_consumer_poll_burst(q->cons, cpl,
			(uint16_t)RTE_MIN(d->burst, 64u));
	if (n <= 0)
		return;
	for (i = 0; i < n; i++) {
		bufs[i] = cpl[i].buf;
		lens[i] = d->size;
		/* Given back unfilled (its producer died): not a message. */
		if (cpl[i].status != 0)
			continue;
		d->msgs++;
		if (d->touch) {
			const uint64_t *w = cpl[i].buf;
			uint32_t j;

			for (j = 0; j < cpl[i].len / 8; j++)
				d->touch_sum += w[j];
		}
		d->bytes += cpl[i].len;
		if (d->test == PERF_FP_LAT && cpl[i].imm_len == sizeof(reply_to)) {
			memcpy(&reply_to, cpl[i].imm, sizeof(reply_to));
			op = (struct rte_comch_send_op){ .data = cpl[i].buf,
				.len = cpl[i].len };
			do {
				k = rte_comch_producer_send_burst(q->prod,
						reply_to, &op, 1);
			} while (k == 0 && !perf_quit);
		}
	}
	rte_comch_consumer_post_burst(q->cons, bufs, lens, (uint16_t)n);
}

/* fp-bidir: queue i sends to the host's i-th consumer. */
static void
dpu_fp_send(struct dpu_ctx *x, struct dpu_conn *d, uint32_t i)
{
	static struct rte_comch_send_op ops[1024];
	int n;

	if (i >= d->nb_peer_consumers)
		return;
	if (ops[0].data != x->src || ops[0].len != d->size) {
		uint32_t k;

		for (k = 0; k < RTE_DIM(ops); k++)
			ops[k] = (struct rte_comch_send_op){ .data = x->src,
				.len = d->size };
	}
	n = rte_comch_producer_send_burst(d->q[i].prod, d->peer_consumers[i],
			ops, (uint16_t)d->burst);
	if (n > 0)
		d->sent += (uint64_t)n;
}

static void
dpu_release(struct dpu_ctx *x, unsigned int i)
{
	struct dpu_conn *d = x->conns[i];

	dpu_fp_teardown(d);
	rte_comch_server_disconnect(x->srv, d->conn);
	free(d);
	x->conns[i] = NULL;
	x->served++;
}

int
perf_dpu_run(const struct perf_opts *o, int16_t dev_id, double serve_for,
		const volatile bool *until)
{
	struct dpu_ctx x = { .o = o, .dev_id = dev_id };
	struct rte_comch_server_conf conf = {
		.name = o->name,
		.recv_queue_len = 1024,
		.connect_cb = dpu_on_connect,
		.disconnect_cb = dpu_on_disconnect,
		.msg_cb = dpu_on_msg,
		.consumer_event_cb = dpu_on_consumer,
		.cb_arg = &x,
	};
	uint64_t end = serve_for > 0 ? rte_get_timer_cycles() +
		(uint64_t)(serve_for * (double)rte_get_timer_hz()) : UINT64_MAX;
	unsigned int i, q;

	x.srv = rte_comch_server_create(dev_id, &conf);
	if (x.srv == NULL || rte_comch_server_start(x.srv) < 0) {
		fprintf(stderr, "dpu: cannot start server \"%s\": %s\n", o->name,
			rte_strerror(rte_errno));
		rte_comch_server_destroy(x.srv);
		return -rte_errno;
	}
	dpu_say(&x, "dpu: serving \"%s\"%s\n", o->name,
		serve_for > 0 ? "" : " until SIGINT");
	while (!perf_quit && rte_get_timer_cycles() < end &&
	       !(until != NULL && *until)) {
		rte_comch_server_poll(x.srv);
		for (i = 0; i < x.nb_slots; i++) {
			struct dpu_conn *d = x.conns[i];

			if (d == NULL)
				continue;
			for (q = 0; q < d->nb_queues; q++) {
				if (d->q[q].cons != NULL)
					dpu_fp_poll(d, &d->q[q]);
				if (d->sending)
					dpu_fp_send(&x, d, q);
			}
			if (d->reply_pending)
				d->reply_pending = rte_comch_msg_send(d->conn,
					&d->reply, sizeof(d->reply)) == -EAGAIN;
			if (d->end_pending && (d->msgs >= d->end_expect ||
			    rte_get_timer_cycles() > d->end_deadline)) {
				d->end_pending = false;
				dpu_fp_teardown(d);
				dpu_reply(d, PERF_MSG_RESULT);
			}
			if (d->lost)
				dpu_release(&x, i);
		}
	}
	for (i = 0; i < DPU_MAX_CONNS; i++)
		if (x.conns[i] != NULL)
			dpu_release(&x, i);
	rte_comch_server_stop(x.srv);
	rte_comch_server_destroy(x.srv);
	free(x.src);
	if (x.quiet != 0)
		dpu_say(&x, "dpu: (%u connection events not shown)\n", x.quiet);
	dpu_say(&x, "dpu: done, served %u host(s)\n", x.served);
	return 0;
}
