/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* The host side: connect, then run every (test, size) against the DPU. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "perf.h"

#define HOST_WAIT_S 10

struct host_ctx {
	const struct perf_opts *o;
	int16_t dev_id;
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	uint32_t peer_consumer;
	bool peer_known;
	struct perf_msg last;   /* last perf message from the DPU */
	bool have_last;
	uint8_t *src;           /* payload source, largest size */
	struct perf_hist hist;
	uint64_t tsc_hz;
};

static void
host_on_consumer(struct rte_comch_conn *conn __rte_unused, uint32_t id,
		enum rte_comch_consumer_event ev, void *arg)
{
	struct host_ctx *h = arg;

	h->peer_known = ev == RTE_COMCH_CONSUMER_CREATED;
	h->peer_consumer = id;
}

/* Receive control messages: perf messages are kept, test traffic counted.
 * Returns messages taken, or a negative errno. */
static int
host_recv(struct host_ctx *h, uint64_t *traffic)
{
	struct rte_comch_msg msgs[32];
	int n, i;

	rte_comch_client_poll(h->cli);
	n = rte_comch_msg_recv_burst(h->conn, msgs, RTE_DIM(msgs));
	for (i = 0; i < n; i++) {
		const struct perf_msg *p = perf_msg_parse(&msgs[i]);

		if (p != NULL) {
			h->last = *p;
			h->have_last = true;
		} else if (traffic != NULL) {
			(*traffic)++;
		}
	}
	return n;
}

static int
host_send_perf(struct host_ctx *h, enum perf_msg_type type,
		enum perf_test test, uint32_t size, uint64_t msgs)
{
	struct perf_msg m = { .magic = PERF_MAGIC, .type = type, .test = test,
		.size = size, .burst = h->o->burst, .touch = h->o->touch,
		.msgs = msgs };
	uint64_t dl = rte_get_timer_cycles() + HOST_WAIT_S * rte_get_timer_hz();
	int ret;

	while ((ret = rte_comch_msg_send(h->conn, &m, sizeof(m))) == -EAGAIN &&
	       rte_get_timer_cycles() < dl && !perf_quit)
		host_recv(h, NULL);
	return ret;
}

static int
host_wait_perf(struct host_ctx *h, enum perf_msg_type type)
{
	uint64_t dl = rte_get_timer_cycles() + HOST_WAIT_S * rte_get_timer_hz();

	h->have_last = false;
	while (!perf_quit && rte_get_timer_cycles() < dl) {
		if (host_recv(h, NULL) < 0)
			return -ECONNRESET;
		if (h->have_last && h->last.type == type)
			return 0;
	}
	return perf_quit ? -EINTR : -ETIMEDOUT;
}

/* The measurement window: warmup first, then --duration or --count. */
struct window {
	uint64_t warm_end;   /* TSC */
	uint64_t end;        /* TSC, UINT64_MAX with --count */
	uint64_t t0, t1;     /* measured interval */
	uint64_t msgs;       /* messages in the interval */
	uint64_t sent;       /* all messages */
	bool measuring;
};

static void
window_init(struct host_ctx *h, struct window *w)
{
	uint64_t now = rte_rdtsc();

	memset(w, 0, sizeof(*w));
	w->warm_end = now + (uint64_t)(h->o->warmup * (double)h->tsc_hz);
	w->end = h->o->count != 0 ? UINT64_MAX :
		w->warm_end + (uint64_t)(h->o->duration * (double)h->tsc_hz);
}

/* Account @p n messages sent at @p now; false when the run is over. */
static inline bool
window_step(const struct host_ctx *h, struct window *w, uint64_t now,
		uint64_t n)
{
	w->sent += n;
	if (!w->measuring) {
		if (now < w->warm_end)
			return true;
		w->measuring = true;
		w->t0 = now;
		return true;
	}
	w->msgs += n;
	w->t1 = now;
	if (h->o->count != 0)
		return w->msgs < h->o->count && !perf_quit;
	return now < w->end && !perf_quit;
}

static int
run_ctrl_lat(struct host_ctx *h, uint32_t size, struct window *w)
{
	struct rte_comch_msg m;
	uint64_t t0, now, seq = 0;
	int n;

	do {
		memcpy(h->src, &seq, sizeof(seq));
		t0 = rte_rdtsc();
		if (rte_comch_msg_send(h->conn, h->src, size) != 0)
			return -EIO;
		do {
			n = rte_comch_msg_recv_burst(h->conn, &m, 1);
		} while (n == 0 && !perf_quit);
		if (n < 0)
			return n;
		now = rte_rdtsc();
		if (w->measuring)
			perf_hist_add(&h->hist, (now - t0) * 1000000000 / h->tsc_hz);
		seq++;
	} while (window_step(h, w, now, 1));
	return 0;
}

static int
run_ctrl_tput(struct host_ctx *h, uint32_t size, struct window *w)
{
	uint64_t k;
	int ret;

	do {
		for (k = 0; k < h->o->burst; k++) {
			ret = rte_comch_msg_send(h->conn, h->src, size);
			if (ret == -EAGAIN)
				break;
			if (ret < 0)
				return ret;
		}
		if (k < h->o->burst)
			rte_comch_client_poll(h->cli);
	} while (window_step(h, w, rte_rdtsc(), k));
	return 0;
}

static int
run_fp_tput(struct host_ctx *h, struct rte_comch_producer *prod,
		uint32_t size, struct window *w)
{
	struct rte_comch_send_op ops[1024];
	uint32_t i;
	int n;

	for (i = 0; i < h->o->burst; i++)
		ops[i] = (struct rte_comch_send_op){ .data = h->src, .len = size };
	do {
		n = rte_comch_producer_send_burst(prod, h->peer_consumer, ops,
				(uint16_t)h->o->burst);
		if (n < 0)
			return n;
	} while (window_step(h, w, rte_rdtsc(), (uint64_t)n));
	return 0;
}

static int
run_fp_lat(struct host_ctx *h, struct rte_comch_producer *prod,
		struct rte_comch_consumer *cons, uint32_t size, struct window *w)
{
	struct rte_comch_send_op op = { .data = h->src, .len = size };
	struct rte_comch_completion cpl;
	uint64_t t0, now;
	int n;

	do {
		t0 = rte_rdtsc();
		do {
			n = rte_comch_producer_send_burst(prod, h->peer_consumer,
					&op, 1);
		} while (n == 0 && !perf_quit);
		if (n < 0)
			return n;
		do {
			n = rte_comch_consumer_poll_burst(cons, &cpl, 1);
		} while (n == 0 && !perf_quit);
		if (n < 0)
			return n;
		now = rte_rdtsc();
		rte_comch_consumer_post_burst(cons, &cpl.buf, &size, 1);
		if (w->measuring)
			perf_hist_add(&h->hist, (now - t0) * 1000000000 / h->tsc_hz);
	} while (window_step(h, w, now, 1));
	return 0;
}

static void
host_fp_teardown(struct rte_comch_producer *prod,
		struct rte_comch_consumer *cons, struct rte_comch_mem *mem)
{
	struct rte_comch_completion cpl[64];

	if (prod != NULL) {
		rte_comch_producer_stop(prod);
		rte_comch_producer_destroy(prod);
	}
	if (cons != NULL) {
		if (rte_comch_consumer_state(cons) == RTE_COMCH_STATE_RUNNING)
			rte_comch_consumer_stop(cons);
		while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE &&
		       rte_comch_consumer_poll_burst(cons, cpl, RTE_DIM(cpl)) >= 0)
			;
		rte_comch_consumer_destroy(cons);
	}
	rte_comch_mem_destroy(mem);
}

static int
host_run_one(struct host_ctx *h, enum perf_test test, uint32_t size)
{
	struct rte_comch_producer *prod = NULL;
	struct rte_comch_consumer *cons = NULL;
	struct rte_comch_mem *mem = NULL;
	struct perf_result r = { .test = test, .size = size,
		.burst = h->o->burst };
	bool fp = test == PERF_FP_TPUT || test == PERF_FP_LAT;
	struct window w;
	uint64_t dl;
	int ret;

	if (!fp && size > rte_comch_conn_max_msg_size(h->conn)) {
		fprintf(stderr, "host: %s size %u skipped: above the control message limit %u\n",
			perf_test_name(test), size,
			rte_comch_conn_max_msg_size(h->conn));
		return 0;
	}
	if (fp) {
		prod = rte_comch_producer_create(h->conn, NULL);
		if (prod == NULL || rte_comch_producer_start(prod) < 0) {
			ret = -EIO;
			goto out;
		}
	}
	if (test == PERF_FP_LAT) {
		struct rte_comch_consumer_conf cc = { .nb_posts = 8 };
		uint32_t i;

		mem = rte_comch_mem_create(h->dev_id, (size_t)8 * size,
				(int)rte_socket_id());
		cc.mem = mem;
		cons = mem != NULL ? rte_comch_consumer_create(h->conn, &cc) : NULL;
		if (cons == NULL || rte_comch_consumer_start(cons) < 0) {
			ret = -EIO;
			goto out;
		}
		for (i = 0; i < 8; i++) {
			void *b = (uint8_t *)rte_comch_mem_addr(mem) + (size_t)i * size;

			rte_comch_consumer_post_burst(cons, &b, &size, 1);
		}
	}

	ret = host_send_perf(h, PERF_MSG_BEGIN, test, size, 0);
	if (ret == 0)
		ret = host_wait_perf(h, PERF_MSG_READY);
	if (ret < 0) {
		fprintf(stderr, "host: the DPU did not get ready for %s size %u: %s\n",
			perf_test_name(test), size, rte_strerror(-ret));
		goto out;
	}
	if (fp) {
		dl = rte_get_timer_cycles() + HOST_WAIT_S * rte_get_timer_hz();
		while (!h->peer_known && !perf_quit && rte_get_timer_cycles() < dl)
			host_recv(h, NULL);
		if (!h->peer_known) {
			ret = -ETIMEDOUT;
			goto out;
		}
	}

	perf_hist_reset(&h->hist);
	window_init(h, &w);
	switch (test) {
	case PERF_CTRL_LAT:
		ret = run_ctrl_lat(h, size, &w);
		break;
	case PERF_CTRL_TPUT:
		ret = run_ctrl_tput(h, size, &w);
		break;
	case PERF_FP_TPUT:
		ret = run_fp_tput(h, prod, size, &w);
		break;
	default:
		ret = run_fp_lat(h, prod, cons, size, &w);
		break;
	}
	if (ret < 0) {
		fprintf(stderr, "host: %s size %u failed: %s\n",
			perf_test_name(test), size, rte_strerror(-ret));
		goto out;
	}
	ret = host_send_perf(h, PERF_MSG_END, test, size, w.sent);
	if (ret == 0)
		ret = host_wait_perf(h, PERF_MSG_RESULT);
	if (ret < 0) {
		fprintf(stderr, "host: no result from the DPU: %s\n",
			rte_strerror(-ret));
		goto out;
	}
	r.msgs = w.msgs;
	r.seconds = w.t1 > w.t0 ? (double)(w.t1 - w.t0) / (double)h->tsc_hz : 0;
	r.sent_total = w.sent;
	r.peer_msgs = h->last.msgs;
	r.peer_bytes = h->last.bytes;
	r.lat = (test == PERF_CTRL_LAT || test == PERF_FP_LAT) ? &h->hist : NULL;
	perf_report(h->o, "host", &r);
	if (r.peer_msgs != r.sent_total)
		ret = -EIO;
out:
	host_fp_teardown(prod, cons, mem);
	h->peer_known = false;
	return ret;
}

int
perf_host_run(const struct perf_opts *o, int16_t dev_id)
{
	struct host_ctx *h;
	struct rte_comch_client_conf conf = {
		.server_name = o->name,
		.recv_queue_len = 1024,
		.consumer_event_cb = host_on_consumer,
	};
	uint32_t max_size = 0;
	uint64_t dl;
	unsigned int t, s;
	int ret = 0, err;

	h = rte_zmalloc_socket("perf_host", sizeof(*h), RTE_CACHE_LINE_SIZE,
			(int)rte_socket_id());
	if (h == NULL)
		return -ENOMEM;
	h->o = o;
	h->dev_id = dev_id;
	h->tsc_hz = rte_get_tsc_hz();
	conf.cb_arg = h;
	for (s = 0; s < o->nb_sizes; s++)
		max_size = RTE_MAX(max_size, o->sizes[s]);
	h->src = rte_zmalloc_socket("perf_src", RTE_MAX(max_size, 64u),
			RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	h->cli = rte_comch_client_create(dev_id, &conf);
	if (h->src == NULL || h->cli == NULL) {
		ret = -ENOMEM;
		goto out;
	}

	/* The DPU side may come up after us: retry while it is not there. */
	dl = rte_get_timer_cycles() + 30 * rte_get_timer_hz();
	for (;;) {
		ret = rte_comch_client_start(h->cli);
		if (ret < 0)
			goto out;
		do
			rte_comch_client_poll(h->cli);
		while (rte_comch_client_state(h->cli, &err) ==
		       RTE_COMCH_STATE_STARTING && !perf_quit);
		if (rte_comch_client_state(h->cli, NULL) == RTE_COMCH_STATE_RUNNING)
			break;
		if (perf_quit || rte_get_timer_cycles() > dl ||
		    (err != -ENOENT && err != -ECONNREFUSED)) {
			fprintf(stderr, "host: cannot connect to \"%s\": %s\n",
				o->name, rte_strerror(-err));
			ret = err;
			goto out;
		}
		rte_delay_ms(10);
	}
	h->conn = rte_comch_client_conn(h->cli);

	for (t = 0; t < o->nb_tests && ret == 0 && !perf_quit; t++)
		for (s = 0; s < o->nb_sizes && ret == 0 && !perf_quit; s++)
			ret = host_run_one(h, o->tests[t], o->sizes[s]);
	rte_comch_client_stop(h->cli);
out:
	rte_comch_client_destroy(h->cli);
	rte_free(h->src);
	rte_free(h);
	return ret;
}
