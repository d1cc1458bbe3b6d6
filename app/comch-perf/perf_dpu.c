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

#define DPU_MAX_CONNS 64
#define DPU_END_WAIT_S 10

struct dpu_conn {
	struct rte_comch_conn *conn;
	enum perf_test test;
	uint32_t size;
	uint32_t burst;
	bool touch;
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	uint32_t peer_consumer;
	bool peer_known;
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
	struct rte_comch_server *srv;
	struct dpu_conn *conns[DPU_MAX_CONNS];
	unsigned int served;
};

static void
dpu_say(const struct dpu_ctx *x, const char *fmt, ...)
	__rte_format_printf(2, 3);

static void
dpu_say(const struct dpu_ctx *x, const char *fmt, ...)
{
	va_list ap;

	/* Results own stdout in JSON mode; events go to stderr then. */
	va_start(ap, fmt);
	vfprintf(x->o->json ? stderr : stdout, fmt, ap);
	va_end(ap);
	fflush(x->o->json ? stderr : stdout);
}

static void
dpu_fp_teardown(struct dpu_conn *d)
{
	struct rte_comch_completion cpl[64];

	if (d->prod != NULL) {
		rte_comch_producer_stop(d->prod);
		rte_comch_producer_destroy(d->prod);
		d->prod = NULL;
	}
	if (d->cons != NULL) {
		if (rte_comch_consumer_state(d->cons) == RTE_COMCH_STATE_RUNNING)
			rte_comch_consumer_stop(d->cons);
		while (rte_comch_consumer_state(d->cons) != RTE_COMCH_STATE_IDLE &&
		       rte_comch_consumer_poll_burst(d->cons, cpl, RTE_DIM(cpl)) >= 0)
			;
		rte_comch_consumer_destroy(d->cons);
		d->cons = NULL;
	}
	if (d->mem != NULL) {
		rte_comch_mem_destroy(d->mem);
		d->mem = NULL;
	}
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
	d->reply_pending = rte_comch_msg_send(d->conn, &d->reply,
			sizeof(d->reply)) == -EAGAIN;
}

static int
dpu_fp_setup(struct dpu_ctx *x, struct dpu_conn *d)
{
	struct rte_comch_consumer_conf conf = { 0 };
	uint32_t n = perf_nb_posts(d->size), i, len = d->size;
	void *buf;

	d->mem = rte_comch_mem_create(x->dev_id, (size_t)n * d->size,
			(int)rte_socket_id());
	if (d->mem == NULL)
		return -rte_errno;
	conf.mem = d->mem;
	conf.nb_posts = n;
	d->cons = rte_comch_consumer_create(d->conn, &conf);
	if (d->cons == NULL)
		return -rte_errno;
	if (rte_comch_consumer_start(d->cons) < 0)
		return -EIO;
	for (i = 0; i < n; i++) {
		buf = (uint8_t *)rte_comch_mem_addr(d->mem) + (size_t)i * d->size;
		if (rte_comch_consumer_post_burst(d->cons, &buf, &len, 1) != 1)
			return -EIO;
	}
	if (d->test == PERF_FP_LAT) {
		d->prod = rte_comch_producer_create(d->conn, NULL);
		if (d->prod == NULL || rte_comch_producer_start(d->prod) < 0)
			return -EIO;
	}
	return 0;
}

static void
dpu_on_perf_msg(struct dpu_ctx *x, struct dpu_conn *d, const struct perf_msg *p)
{
	if (p->type == PERF_MSG_BEGIN && p->test < PERF_TEST__MAX &&
	    p->size != 0 && p->burst != 0 && p->burst <= 1024) {
		dpu_fp_teardown(d);
		d->test = (enum perf_test)p->test;
		d->size = p->size;
		d->burst = p->burst;
		d->touch = p->touch != 0;
		d->msgs = 0;
		d->bytes = 0;
		d->end_pending = false;
		if ((d->test == PERF_FP_TPUT || d->test == PERF_FP_LAT) &&
		    dpu_fp_setup(x, d) < 0) {
			dpu_say(x, "dpu: cannot prepare %s size %u\n",
				perf_test_name(d->test), d->size);
			dpu_fp_teardown(d);
			return; /* no READY: the host gives up */
		}
		dpu_reply(d, PERF_MSG_READY);
	} else if (p->type == PERF_MSG_END) {
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
	rte_comch_conn_user_data_set(conn, (uint64_t)(uintptr_t)d);
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

	dpu_say(x, "dpu: host of connection %u %s\n", rte_comch_conn_id(conn),
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

	if (d == NULL)
		return;
	d->peer_known = ev == RTE_COMCH_CONSUMER_CREATED;
	d->peer_consumer = id;
}

/* Fast-path receive (and echo for fp-lat), then give the buffers back. */
static void
dpu_fp_poll(struct dpu_conn *d)
{
	struct rte_comch_completion cpl[64];
	struct rte_comch_send_op op;
	void *bufs[64];
	uint32_t lens[64];
	int n, i, k;

	n = rte_comch_consumer_poll_burst(d->cons, cpl,
			(uint16_t)RTE_MIN(d->burst, 64u));
	if (n <= 0)
		return;
	for (i = 0; i < n; i++) {
		if (d->touch) {
			const uint64_t *w = cpl[i].buf;
			uint32_t j;

			for (j = 0; j < cpl[i].len / 8; j++)
				d->touch_sum += w[j];
		}
		d->bytes += cpl[i].len;
		if (d->test == PERF_FP_LAT && d->peer_known) {
			op = (struct rte_comch_send_op){ .data = cpl[i].buf,
				.len = cpl[i].len };
			do {
				k = rte_comch_producer_send_burst(d->prod,
						d->peer_consumer, &op, 1);
			} while (k == 0 && !perf_quit);
		}
		bufs[i] = cpl[i].buf;
		lens[i] = d->size;
	}
	d->msgs += (uint64_t)n;
	rte_comch_consumer_post_burst(d->cons, bufs, lens, (uint16_t)n);
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
		bool one_host)
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
	unsigned int i;

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
	       !(one_host && x.served > 0)) {
		rte_comch_server_poll(x.srv);
		for (i = 0; i < DPU_MAX_CONNS; i++) {
			struct dpu_conn *d = x.conns[i];

			if (d == NULL)
				continue;
			if (d->cons != NULL)
				dpu_fp_poll(d);
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
	dpu_say(&x, "dpu: done, served %u host(s)\n", x.served);
	return 0;
}
