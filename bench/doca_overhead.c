/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Per-message cost of the vendor API layer (compat/doca) against
 * rte_comch_* at 64 B, in the same run. Two ways (bench/doca_overhead.sh
 * runs both and writes the summary):
 *
 * pair: two processes, the DPU receiving and the host sending 64 B
 *   messages one way as fast as they go (back pressure included), each on
 *   its own core, as an application runs; the DPU prints the rate between
 *   its first and last message. The same program, the same devices, the
 *   API chosen by an argument:
 *     comch-bench-doca-overhead pair dpu|host rte|doca ctrl|fp N
 *
 * local: one process, one thread, both ends (the DPU and a host device
 *   of the emulated BlueField): the thread sends a batch, then makes both
 *   ends progress, and so on, until N messages arrived. The time per
 *   message is the CPU work of one message end to end (send, completion,
 *   delivery, and on the fast path the repost) with nothing to hide it:
 *   the upper bound of the layer's cost. Variants run interleaved, REPS
 *   times each; the medians are printed.
 *
 *   ctrl-rte   rte_comch_msg_send(), the server polled in callback mode
 *   ctrl-doca  doca_comch_client_task_send_alloc_init() + doca_task_submit(),
 *              completion callback frees the task; the server's receive event
 *   fp-rte     rte_comch_producer_send_burst() of 1; consumer poll, repost
 *              (every receiver reads the 64 bytes it got, as applications do)
 *   fp-doca    producer send task per message; consumer post-recv task
 *              completion (copy into the doca_buf), reset, resubmit
 *   fp-rte32   the same as fp-rte with bursts of 32 (what the vendor API
 *              cannot express; for reference)
 *
 * Usage: comch-bench-doca-overhead local [N [REPS]]   (default 200000, 7)
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_comch.h>
#include <rte_eal.h>
#include <rte_cycles.h>
#include <rte_memory.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define MSG 64
#define BATCH 32
#define LBATCH 256   /* local mode: messages per side turn */
#define QUEUE 256
#define POSTS 256
#define BUFSZ 2048

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)
#define OK(x) do { doca_error_t e_ = (x); if (e_ != DOCA_SUCCESS && e_ != DOCA_ERROR_IN_PROGRESS) \
	DIE("%s: %s", #x, doca_error_get_name(e_)); } while (0)

static uint64_t n_msgs = 200000;
/* Receivers read every message (as an application does): its 8 words. */
static volatile uint64_t sink;

static inline void
touch(const void *p)
{
	const uint64_t *w = p;
	uint64_t x = 0;
	int i;

	for (i = 0; i < MSG / 8; i++)
		x += w[i];
	sink += x;
}
/* Local mode splits the work by side, in the thread's CPU time: the
 * sending side (send, its completions) and the receiving side (delivery,
 * repost), in runs of their own (split on) so that the totals carry no
 * clock reads; the reads' own cost is measured and taken off. */
static double cpu_send, cpu_recv;
static uint64_t turns;
static bool split;
static double cpu_now(void);
#define SIDE(acc, stmt) do { \
	if (split) { \
		double t0_ = cpu_now(); \
		stmt; \
		(acc) += cpu_now() - t0_; \
		turns++; \
	} else { \
		stmt; \
	} \
} while (0)
static volatile uint64_t received;
static char payload[MSG];

/* Local mode measures the thread's CPU time: a shared machine's other
 * jobs preempt it without counting. */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ------------------------------------------------------------- rte side */

static struct rte_comch_server *rsrv;
static struct rte_comch_client *rcli;
static struct rte_comch_conn *rsrv_conn, *rcli_conn;
static uint32_t rte_consumer_id;

static void
r_connect(struct rte_comch_server *s, struct rte_comch_conn *c, void *a)
{
	(void)s;
	(void)a;
	rsrv_conn = c;
}

static void
r_msg(struct rte_comch_conn *c, const struct rte_comch_msg *m, void *a)
{
	(void)c;
	(void)a;
	touch(m->data);
	received++;
}

static void
r_consumer(struct rte_comch_conn *c, uint32_t id, enum rte_comch_consumer_event e, void *a)
{
	(void)c;
	(void)a;
	if (e == RTE_COMCH_CONSUMER_CREATED)
		rte_consumer_id = id;
}

static void
rte_setup(int16_t dpu, int16_t host)
{
	struct rte_comch_server_conf sc = {
		.name = "bench_rte", .recv_queue_len = QUEUE, .connect_cb = r_connect, .msg_cb = r_msg,
	};
	struct rte_comch_client_conf cc = {
		.server_name = "bench_rte", .recv_queue_len = QUEUE, .consumer_event_cb = r_consumer,
	};

	rsrv = rte_comch_server_create(dpu, &sc);
	rcli = rte_comch_client_create(host, &cc);
	if (rsrv == NULL || rcli == NULL || rte_comch_server_start(rsrv) != 0 || rte_comch_client_start(rcli) != 0)
		DIE("rte setup");
	while (rte_comch_client_state(rcli, NULL) != RTE_COMCH_STATE_RUNNING || rsrv_conn == NULL) {
		rte_comch_server_poll(rsrv);
		rte_comch_client_poll(rcli);
	}
	rcli_conn = rte_comch_client_conn(rcli);
}

static double
run_ctrl_rte(void)
{
	uint64_t sent = 0;
	double t0;
	int i;

	received = 0;
	cpu_send = cpu_recv = 0;
	t0 = now_ns();
	while (received < n_msgs) {
		SIDE(cpu_send, {
			for (i = 0; i < LBATCH && sent < n_msgs; i++) {
				if (rte_comch_msg_send(rcli_conn, payload, MSG) != 0)
					break;
				sent++;
			}
			rte_comch_client_poll(rcli);
		});
		SIDE(cpu_recv, while (rte_comch_server_poll(rsrv) > 0));
	}
	return (now_ns() - t0) / (double)n_msgs;
}

static struct rte_comch_mem *rmem;
static struct rte_comch_consumer *rcons;
static struct rte_comch_producer *rprod;

static void
rte_fp_setup(int16_t dpu, bool wait_id)
{
	struct rte_comch_consumer_conf cc;
	void *bufs[POSTS];
	uint32_t lens[POSTS];
	int i;

	rmem = rte_comch_mem_create(dpu, (size_t)POSTS * BUFSZ, SOCKET_ID_ANY);
	cc = (struct rte_comch_consumer_conf){ .mem = rmem, .nb_posts = POSTS };
	rcons = rte_comch_consumer_create(rsrv_conn, &cc);
	if (rcons == NULL || rte_comch_consumer_start(rcons) != 0)
		DIE("rte consumer");
	if (wait_id) {
		rprod = rte_comch_producer_create(rcli_conn, NULL);
		if (rprod == NULL || rte_comch_producer_start(rprod) != 0)
			DIE("rte producer");
	}
	for (i = 0; i < POSTS; i++) {
		bufs[i] = (char *)rte_comch_mem_addr(rmem) + (size_t)i * BUFSZ;
		lens[i] = BUFSZ;
	}
	if (rte_comch_consumer_post_burst(rcons, bufs, lens, POSTS) != POSTS)
		DIE("post");
	while (wait_id && rte_consumer_id == 0)
		rte_comch_client_poll(rcli);
}

static double
run_fp_rte(uint16_t burst)
{
	struct rte_comch_send_op ops[BATCH];
	struct rte_comch_completion cpl[BATCH];
	uint32_t lens[BATCH];
	void *bufs[BATCH];
	uint64_t sent = 0, got = 0;
	double t0;
	int i, n, k;

	for (i = 0; i < BATCH; i++)
		ops[i] = (struct rte_comch_send_op){ .data = payload, .len = MSG };
	cpu_send = cpu_recv = 0;
	t0 = now_ns();
	while (got < n_msgs) {
		SIDE(cpu_send, {
			for (i = 0; i < LBATCH / burst && sent < n_msgs; i++) {
				k = rte_comch_producer_send_burst(rprod, rte_consumer_id, ops, burst);
				if (k <= 0)
					break;
				sent += (uint64_t)k;
			}
		});
		SIDE(cpu_recv, {
			do {
				n = rte_comch_consumer_poll_burst(rcons, cpl, BATCH);
				for (i = 0; i < n; i++) {
					touch(cpl[i].buf);
					bufs[i] = cpl[i].buf;
					lens[i] = BUFSZ;
				}
				if (n > 0)
					rte_comch_consumer_post_burst(rcons, bufs, lens, (uint16_t)n);
				got += (uint64_t)(n > 0 ? n : 0);
			} while (n == BATCH);
		});
	}
	return (now_ns() - t0) / (double)n_msgs;
}

/* ------------------------------------------------------------ doca side */

static struct doca_pe *spe, *cpe;
static struct doca_comch_server *dsrv;
static struct doca_comch_client *dcli;
static struct doca_comch_connection *dsrv_conn, *dcli_conn;
static uint32_t doca_consumer_id;

static void
d_sent(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void
d_msg(struct doca_comch_event_msg_recv *e, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	(void)e;
	(void)len;
	(void)c;
	touch(buf);
	received++;
}

static void
d_connect(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c, uint8_t ok)
{
	(void)e;
	(void)ok;
	dsrv_conn = c;
}

static void
d_disconnect(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c, uint8_t ok)
{
	(void)e;
	(void)c;
	(void)ok;
}

static void
d_new_consumer(struct doca_comch_event_consumer *e, struct doca_comch_connection *c, uint32_t id)
{
	(void)e;
	(void)c;
	doca_consumer_id = id;
}

static void
d_expired_consumer(struct doca_comch_event_consumer *e, struct doca_comch_connection *c, uint32_t id)
{
	(void)e;
	(void)c;
	(void)id;
}

static void
doca_setup(struct doca_dev *dpu, struct doca_dev_rep *rep, struct doca_dev *host)
{
	enum doca_ctx_states st;

	OK(doca_pe_create(&spe));
	OK(doca_pe_create(&cpe));
	OK(doca_comch_server_create(dpu, rep, "bench_doca", &dsrv));
	OK(doca_comch_server_set_recv_queue_size(dsrv, QUEUE));
	OK(doca_comch_server_task_send_set_conf(dsrv, d_sent, d_sent, 16));
	OK(doca_comch_server_event_msg_recv_register(dsrv, d_msg));
	OK(doca_comch_server_event_connection_status_changed_register(dsrv, d_connect, d_disconnect));
	OK(doca_pe_connect_ctx(spe, doca_comch_server_as_ctx(dsrv)));
	OK(doca_ctx_start(doca_comch_server_as_ctx(dsrv)));
	OK(doca_comch_client_create(host, "bench_doca", &dcli));
	OK(doca_comch_client_set_recv_queue_size(dcli, QUEUE));
	OK(doca_comch_client_task_send_set_conf(dcli, d_sent, d_sent, QUEUE));
	OK(doca_comch_client_event_msg_recv_register(dcli, d_msg));
	OK(doca_comch_client_event_consumer_register(dcli, d_new_consumer, d_expired_consumer));
	OK(doca_pe_connect_ctx(cpe, doca_comch_client_as_ctx(dcli)));
	OK(doca_ctx_start(doca_comch_client_as_ctx(dcli)));
	do {
		doca_pe_progress(cpe);
		doca_pe_progress(spe);
		doca_ctx_get_state(doca_comch_client_as_ctx(dcli), &st);
	} while (st != DOCA_CTX_STATE_RUNNING || dsrv_conn == NULL);
	OK(doca_comch_client_get_connection(dcli, &dcli_conn));
}

static double
run_ctrl_doca(void)
{
	struct doca_comch_task_send *t;
	uint64_t sent = 0;
	double t0;
	int i;

	received = 0;
	cpu_send = cpu_recv = 0;
	t0 = now_ns();
	while (received < n_msgs) {
		SIDE(cpu_send, {
			for (i = 0; i < LBATCH && sent < n_msgs; i++) {
				if (doca_comch_client_task_send_alloc_init(dcli, dcli_conn, payload, MSG, &t) !=
				    DOCA_SUCCESS)
					break;
				if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS) {
					doca_task_free(doca_comch_task_send_as_task(t));
					break;
				}
				sent++;
			}
			doca_pe_progress(cpe);
		});
		SIDE(cpu_recv, while (doca_pe_progress(spe) != 0));
	}
	return (now_ns() - t0) / (double)n_msgs;
}

static struct doca_comch_consumer *dcons;
static struct doca_comch_producer *dprod;
static struct doca_buf *dsend_buf;
static uint64_t fp_got;

static void
d_recv(struct doca_comch_consumer_task_post_recv *t, union doca_data a, union doca_data b)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);
	void *data;

	(void)a;
	(void)b;
	fp_got++;
	doca_buf_get_data(buf, &data);
	touch(data);
	doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(t));
	doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
d_recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
d_psent(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void
doca_fp_setup(struct doca_dev *dpu, struct doca_dev *host)
{
	static char rmem_local[POSTS * BUFSZ], smem_local[BUFSZ];
	struct doca_comch_consumer_task_post_recv *rt;
	struct doca_buf_inventory *rinv, *sinv;
	struct doca_mmap *rmm, *smm;
	struct doca_buf *b;
	enum doca_ctx_states st;
	int i;

	OK(doca_mmap_create(&rmm));
	OK(doca_mmap_set_memrange(rmm, rmem_local, sizeof(rmem_local)));
	OK(doca_mmap_add_dev(rmm, dpu));
	OK(doca_mmap_start(rmm));
	OK(doca_buf_inventory_create(POSTS, &rinv));
	OK(doca_buf_inventory_start(rinv));
	OK(doca_comch_consumer_create(dsrv_conn, rmm, &dcons));
	OK(doca_comch_consumer_task_post_recv_set_conf(dcons, d_recv, d_recv_err, POSTS));
	OK(doca_pe_connect_ctx(spe, doca_comch_consumer_as_ctx(dcons)));
	OK(doca_ctx_start(doca_comch_consumer_as_ctx(dcons)));
	do {
		doca_pe_progress(spe);
		doca_ctx_get_state(doca_comch_consumer_as_ctx(dcons), &st);
	} while (st != DOCA_CTX_STATE_RUNNING);
	for (i = 0; i < POSTS; i++) {
		OK(doca_buf_inventory_buf_get_by_addr(rinv, rmm, rmem_local + (size_t)i * BUFSZ, BUFSZ, &b));
		OK(doca_comch_consumer_task_post_recv_alloc_init(dcons, b, &rt));
		OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)));
	}
	OK(doca_mmap_create(&smm));
	OK(doca_mmap_set_memrange(smm, smem_local, sizeof(smem_local)));
	OK(doca_mmap_add_dev(smm, host));
	OK(doca_mmap_start(smm));
	OK(doca_buf_inventory_create(1, &sinv));
	OK(doca_buf_inventory_start(sinv));
	OK(doca_buf_inventory_buf_get_by_data(sinv, smm, smem_local, MSG, &dsend_buf));
	OK(doca_comch_producer_create(dcli_conn, &dprod));
	OK(doca_comch_producer_task_send_set_conf(dprod, d_psent, d_psent, QUEUE));
	OK(doca_pe_connect_ctx(cpe, doca_comch_producer_as_ctx(dprod)));
	OK(doca_ctx_start(doca_comch_producer_as_ctx(dprod)));
	while (doca_consumer_id == 0)
		doca_pe_progress(cpe);
}

static double
run_fp_doca(void)
{
	struct doca_comch_producer_task_send *t;
	uint64_t sent = 0;
	double t0;
	int i;

	fp_got = 0;
	cpu_send = cpu_recv = 0;
	t0 = now_ns();
	while (fp_got < n_msgs) {
		SIDE(cpu_send, {
			for (i = 0; i < LBATCH && sent < n_msgs; i++) {
				if (doca_comch_producer_task_send_alloc_init(dprod, dsend_buf, NULL, 0,
									     doca_consumer_id, &t) != DOCA_SUCCESS) {
					break;
				}
				if (doca_task_submit(doca_comch_producer_task_send_as_task(t)) != DOCA_SUCCESS) {
					doca_task_free(doca_comch_producer_task_send_as_task(t));
					break;
				}
				sent++;
			}
			doca_pe_progress(cpe);
		});
		SIDE(cpu_recv, while (doca_pe_progress(spe) != 0));
	}
	return (now_ns() - t0) / (double)n_msgs;
}

/* ------------------------------------------------------------ pair mode */

/* Leave at once (the peer sees the devices go), without the EAL's
 * runtime folder the layer made. */
static void __attribute__((noreturn))
bench_exit(void)
{
	fflush(stdout);
	rmdir(rte_eal_get_runtime_dir());
	_exit(0);
}

static double t_first, t_last;
static uint64_t pair_n;

static void
pair_count(void)
{
	if (received == 0)
		t_first = now_ns();
	if (++received == pair_n) {
		t_last = now_ns();
		/* messages 2..N arrived in t_last - t_first */
		printf("rate %.3f Mmsg/s\n", (double)(pair_n - 1) / (t_last - t_first) * 1e3);
		bench_exit();   /* the host sees the DPU go and stops */
	}
}

static void
p_rte_msg(struct rte_comch_conn *c, const struct rte_comch_msg *m, void *a)
{
	(void)c;
	(void)m;
	(void)a;
	pair_count();
}

static void
p_doca_msg(struct doca_comch_event_msg_recv *e, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	(void)e;
	(void)buf;
	(void)len;
	(void)c;
	pair_count();
}

static void
p_doca_recv(struct doca_comch_consumer_task_post_recv *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(t));
	doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t));
	pair_count();
}

static void
pair_dpu(bool doca, bool fp, struct doca_dev *dpu, struct doca_dev_rep *rep)
{
	int16_t id = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu_0000_03_00_0");

	if (!doca) {
		struct rte_comch_server_conf sc = {
			.name = "bench_pair", .recv_queue_len = QUEUE, .connect_cb = r_connect,
			.msg_cb = fp ? NULL : p_rte_msg,
		};
		struct rte_comch_completion cpl[BATCH];
		uint32_t lens[BATCH];
		void *bufs[BATCH];
		int n, i;

		rsrv = rte_comch_server_create(id, &sc);
		if (rsrv == NULL || rte_comch_server_start(rsrv) != 0)
			DIE("rte server");
		printf("listening\n");
		fflush(stdout);
		while (rsrv_conn == NULL)
			rte_comch_server_poll(rsrv);
		if (!fp)
			for (;;)
				rte_comch_server_poll(rsrv);
		rte_fp_setup(id, false);
		for (;;) {
			n = rte_comch_consumer_poll_burst(rcons, cpl, BATCH);
			for (i = 0; i < n; i++) {
				bufs[i] = cpl[i].buf;
				lens[i] = BUFSZ;
			}
			if (n > 0)
				rte_comch_consumer_post_burst(rcons, bufs, lens, (uint16_t)n);
			for (i = 0; i < n; i++)
				pair_count();
			rte_comch_server_poll(rsrv);
		}
	}
	OK(doca_pe_create(&spe));
	OK(doca_comch_server_create(dpu, rep, "bench_pair", &dsrv));
	OK(doca_comch_server_set_recv_queue_size(dsrv, QUEUE));
	OK(doca_comch_server_event_msg_recv_register(dsrv, p_doca_msg));
	OK(doca_comch_server_event_connection_status_changed_register(dsrv, d_connect, d_disconnect));
	OK(doca_pe_connect_ctx(spe, doca_comch_server_as_ctx(dsrv)));
	OK(doca_ctx_start(doca_comch_server_as_ctx(dsrv)));
	printf("listening\n");
	fflush(stdout);
	while (dsrv_conn == NULL)
		doca_pe_progress(spe);
	if (fp) {
		static char mem[POSTS * BUFSZ];
		struct doca_comch_consumer_task_post_recv *rt;
		struct doca_buf_inventory *inv;
		struct doca_mmap *mm;
		struct doca_buf *b;
		enum doca_ctx_states st;
		int i;

		OK(doca_mmap_create(&mm));
		OK(doca_mmap_set_memrange(mm, mem, sizeof(mem)));
		OK(doca_mmap_add_dev(mm, dpu));
		OK(doca_mmap_start(mm));
		OK(doca_buf_inventory_create(POSTS, &inv));
		OK(doca_buf_inventory_start(inv));
		OK(doca_comch_consumer_create(dsrv_conn, mm, &dcons));
		OK(doca_comch_consumer_task_post_recv_set_conf(dcons, p_doca_recv, d_recv_err, POSTS));
		OK(doca_pe_connect_ctx(spe, doca_comch_consumer_as_ctx(dcons)));
		OK(doca_ctx_start(doca_comch_consumer_as_ctx(dcons)));
		do {
			doca_pe_progress(spe);
			doca_ctx_get_state(doca_comch_consumer_as_ctx(dcons), &st);
		} while (st != DOCA_CTX_STATE_RUNNING);
		for (i = 0; i < POSTS; i++) {
			OK(doca_buf_inventory_buf_get_by_addr(inv, mm, mem + (size_t)i * BUFSZ, BUFSZ, &b));
			OK(doca_comch_consumer_task_post_recv_alloc_init(dcons, b, &rt));
			OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)));
		}
	}
	for (;;)
		doca_pe_progress(spe);
}

static void
pair_host(bool doca, bool fp, struct doca_dev *host)
{
	int16_t id = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_host_0000_03_00_1");
	enum doca_ctx_states st;
	int i;

	if (!doca) {
		struct rte_comch_client_conf cc = {
			.server_name = "bench_pair", .recv_queue_len = QUEUE, .consumer_event_cb = r_consumer,
		};
		struct rte_comch_send_op op = { .data = payload, .len = MSG };
		int err;

		rcli = rte_comch_client_create(id, &cc);
		if (rcli == NULL || rte_comch_client_start(rcli) != 0)
			DIE("rte client");
		while (rte_comch_client_state(rcli, &err) != RTE_COMCH_STATE_RUNNING) {
			rte_comch_client_poll(rcli);
			if (rte_comch_client_state(rcli, &err) == RTE_COMCH_STATE_IDLE)
				rte_comch_client_start(rcli);   /* no server yet: again */
		}
		rcli_conn = rte_comch_client_conn(rcli);
		if (!fp) {
			while (rte_comch_client_state(rcli, NULL) == RTE_COMCH_STATE_RUNNING) {
				for (i = 0; i < BATCH; i++)
					if (rte_comch_msg_send(rcli_conn, payload, MSG) != 0)
						break;
				rte_comch_client_poll(rcli);
			}
			bench_exit();
		}
		rprod = rte_comch_producer_create(rcli_conn, NULL);
		if (rprod == NULL || rte_comch_producer_start(rprod) != 0)
			DIE("rte producer");
		while (rte_consumer_id == 0)
			rte_comch_client_poll(rcli);
		for (;;) {
			for (i = 0; i < BATCH; i++)
				if (rte_comch_producer_send_burst(rprod, rte_consumer_id, &op, 1) != 1)
					break;
			if (rte_comch_client_poll(rcli) < 0 ||
			    rte_comch_client_state(rcli, NULL) != RTE_COMCH_STATE_RUNNING)
				bench_exit();
		}
	}
	OK(doca_pe_create(&cpe));
	OK(doca_comch_client_create(host, "bench_pair", &dcli));
	OK(doca_comch_client_set_recv_queue_size(dcli, QUEUE));
	OK(doca_comch_client_task_send_set_conf(dcli, d_sent, d_sent, QUEUE));
	OK(doca_comch_client_event_msg_recv_register(dcli, d_msg));
	OK(doca_comch_client_event_consumer_register(dcli, d_new_consumer, d_expired_consumer));
	OK(doca_pe_connect_ctx(cpe, doca_comch_client_as_ctx(dcli)));
	OK(doca_ctx_start(doca_comch_client_as_ctx(dcli)));
	do {
		doca_pe_progress(cpe);
		doca_ctx_get_state(doca_comch_client_as_ctx(dcli), &st);
	} while (st != DOCA_CTX_STATE_RUNNING);
	OK(doca_comch_client_get_connection(dcli, &dcli_conn));
	if (fp) {
		static char smem[BUFSZ];
		struct doca_buf_inventory *sinv;
		struct doca_mmap *smm;

		OK(doca_mmap_create(&smm));
		OK(doca_mmap_set_memrange(smm, smem, sizeof(smem)));
		OK(doca_mmap_add_dev(smm, host));
		OK(doca_mmap_start(smm));
		OK(doca_buf_inventory_create(1, &sinv));
		OK(doca_buf_inventory_start(sinv));
		OK(doca_buf_inventory_buf_get_by_data(sinv, smm, smem, MSG, &dsend_buf));
		OK(doca_comch_producer_create(dcli_conn, &dprod));
		OK(doca_comch_producer_task_send_set_conf(dprod, d_psent, d_psent, QUEUE));
		OK(doca_pe_connect_ctx(cpe, doca_comch_producer_as_ctx(dprod)));
		OK(doca_ctx_start(doca_comch_producer_as_ctx(dprod)));
		while (doca_consumer_id == 0)
			doca_pe_progress(cpe);
	}
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			struct doca_task *t;

			if (fp) {
				struct doca_comch_producer_task_send *pt;

				if (doca_comch_producer_task_send_alloc_init(dprod, dsend_buf, NULL, 0, doca_consumer_id,
									     &pt) != DOCA_SUCCESS)
					break;
				t = doca_comch_producer_task_send_as_task(pt);
			} else {
				struct doca_comch_task_send *ct;

				if (doca_comch_client_task_send_alloc_init(dcli, dcli_conn, payload, MSG, &ct) !=
				    DOCA_SUCCESS)
					break;
				t = doca_comch_task_send_as_task(ct);
			}
			if (doca_task_submit(t) != DOCA_SUCCESS) {
				doca_task_free(t);
				break;
			}
		}
		doca_pe_progress(cpe);
		doca_ctx_get_state(doca_comch_client_as_ctx(dcli), &st);
		if (st != DOCA_CTX_STATE_RUNNING)
			bench_exit();
	}
}

/* ---------------------------------------------------------------- main */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct doca_dev *
open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t nb, i;
	uint8_t eq;

	OK(doca_devinfo_create_list(&list, &nb));
	for (i = 0; i < nb; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			OK(doca_dev_open(list[i], &dev));
	doca_devinfo_destroy_list(list);
	if (dev == NULL)
		DIE("no device %s", pci);
	return dev;
}

int
main(int argc, char **argv)
{
	struct doca_devinfo_rep **reps;
	struct doca_dev_rep *rep;
	struct doca_dev *dpu, *host;
	double v[5][64], m[5], vs[5][64], vr[5][64], ms[5], mr[5], clk[64], clock_cost, t;
	const char *only;
	char conf[256];
	int reps_n = 7, r, k, nb_rep;
	uint32_t nb;
	static const char *const names[] = { "ctrl-rte", "ctrl-doca", "fp-rte", "fp-doca", "fp-rte32" };

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(payload, 'x', sizeof(payload));
	if (argc == 7 && strcmp(argv[1], "pair") == 0) {
		bool is_dpu = strcmp(argv[2], "dpu") == 0, doca = strcmp(argv[3], "doca") == 0;
		bool fp = strcmp(argv[4], "fp") == 0;

		/* DOCA_COMCH_EMU comes from the caller (both sides agree). */
		pair_n = strtoull(argv[5], NULL, 10);
		(void)argv[6];
		if (pair_n < 2)
			DIE("N >= 2");
		if (is_dpu) {
			dpu = open_dev("03:00.0");
			OK(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nb));
			OK(doca_dev_rep_open(reps[0], &rep));
			pair_dpu(doca, fp, dpu, rep);
		}
		pair_host(doca, fp, open_dev("03:00.1"));
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "local") != 0)
		DIE("usage: %s local [N [REPS<=64]] | pair dpu|host rte|doca ctrl|fp N -", argv[0]);
	if (argc > 2)
		n_msgs = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		reps_n = atoi(argv[3]);
	if (reps_n < 1 || reps_n > 64 || n_msgs == 0)
		DIE("usage: %s local [N [REPS<=64]]", argv[0]);
	snprintf(conf, sizeof(conf), "dpu 03:00.0 pf0=03:00.1 path=/tmp/doca-bench-%d", (int)getpid());
	setenv("DOCA_COMCH_EMU", conf, 0);

	dpu = open_dev("03:00.0");
	host = open_dev("03:00.1");
	OK(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nb));
	OK(doca_dev_rep_open(reps[0], &rep));
	doca_devinfo_rep_destroy_list(reps);
	/* The same two devices, through lib/comch directly (the layer's
	 * device names: comch_shm_<role>_<pci>). */
	rte_setup((int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu_0000_03_00_0"),
		  (int16_t)rte_comch_get_dev_id_by_name("comch_shm_host_0000_03_00_1"));
	rte_fp_setup((int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu_0000_03_00_0"), true);
	doca_setup(dpu, rep, host);
	doca_fp_setup(dpu, host);
	nb_rep = reps_n;

	/* Warm-up, then interleaved repetitions, on CPU time. */
	bench_clock = CLOCK_THREAD_CPUTIME_ID;
	only = getenv("BENCH_ONLY");   /* e.g. "ctrl-doca": that one only (profiling) */
	if (only == NULL || strcmp(only, "ctrl-rte") == 0)
		run_ctrl_rte();
	if (only == NULL || strcmp(only, "ctrl-doca") == 0)
		run_ctrl_doca();
	if (only == NULL || strcmp(only, "fp-rte") == 0)
		run_fp_rte(1);
	if (only == NULL || strcmp(only, "fp-doca") == 0)
		run_fp_doca();
	/* What one clock read costs (taken off the split). */
	for (r = 0; r < 64; r++) {
		t = cpu_now();
		for (k = 0; k < 1000; k++)
			cpu_now();
		clk[r] = (cpu_now() - t) / 1000;
	}
	clock_cost = median(clk, 64);
	for (r = 0; r < 2 * nb_rep; r++) {
		split = r % 2 == 1;
		for (k = 0; k < 5; k++) {
			if (only != NULL && strcmp(only, names[k]) != 0) {
				v[k][r / 2] = vs[k][r / 2] = vr[k][r / 2] = 0;
				continue;
			}
			turns = 0;
			switch (k) {
			case 0: t = run_ctrl_rte(); break;
			case 1: t = run_ctrl_doca(); break;
			case 2: t = run_fp_rte(1); break;
			case 3: t = run_fp_doca(); break;
			default: t = run_fp_rte(BATCH); break;
			}
			if (!split) {
				v[k][r / 2] = t;
				continue;
			}
			/* each side's turn: two reads, half of one inside */
			vs[k][r / 2] = (cpu_send - (double)turns / 2 * clock_cost) / (double)n_msgs;
			vr[k][r / 2] = (cpu_recv - (double)turns / 2 * clock_cost) / (double)n_msgs;
		}
	}
	for (k = 0; k < 5; k++) {
		m[k] = median(v[k], nb_rep);
		ms[k] = median(vs[k], nb_rep);
		mr[k] = median(vr[k], nb_rep);
	}
	printf("64 B messages, %lu per run, median of %d interleaved runs; ns of CPU time per message: both ends, and\n"
	       "(runs of their own) the sending side (send, its completions) and the receiving side (delivery, repost),\n"
	       "up to %d messages a turn, a clock read (%.0f ns) taken off each turn:\n",
	       (unsigned long)n_msgs, nb_rep, LBATCH, clock_cost);
	printf("  %-10s %8s %8s %8s\n", "", "total", "sender", "receiver");
	for (k = 0; k < 5; k++)
		printf("  %-10s %8.1f %8.1f %8.1f\n", names[k], m[k], ms[k], mr[k]);
	printf("overhead of the vendor API layer, both ends: control path %+.1f %%, fast path %+.1f %% (vs bursts of 32: %+.1f %%)\n",
	       (m[1] / m[0] - 1) * 100, (m[3] / m[2] - 1) * 100, (m[3] / m[4] - 1) * 100);
	printf("  sender side:   control path %+.1f %%, fast path %+.1f %%\n", (ms[1] / ms[0] - 1) * 100,
	       (ms[3] / ms[2] - 1) * 100);
	printf("  receiver side: control path %+.1f %%, fast path %+.1f %%\n", (mr[1] / mr[0] - 1) * 100,
	       (mr[3] / mr[2] - 1) * 100);
	/* The link folder of this run's emulated device (its config). */
	snprintf(conf, sizeof(conf), "/tmp/doca-bench-%d/pf0.sock", (int)getpid());
	unlink(conf);
	snprintf(conf, sizeof(conf), "/tmp/doca-bench-%d", (int)getpid());
	rmdir(conf);
	bench_exit();   /* the emulated devices go with the process */
}
