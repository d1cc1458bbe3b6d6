/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The host side: connections (clients in a primary, attached in a
 * secondary), the life of one test (BEGIN/READY, streams, forwarding
 * lcores, END/RESULT, report) whatever its engine, and --hold. Control
 * messages are the same calls in a secondary: the library relays them
 * through the primary.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "perf_session.h"

/* How long the host waits for the DPU to answer (room to send, READY,
 * its consumers, the results, its last messages) before it gives up on
 * a DPU that is alive but does not answer (a dead one is seen at once,
 * by its connection): generous, as a loaded machine can keep the DPU's
 * lcore off its core for seconds. */
#define DPU_ANSWER_S 60
/* A window that measured nothing by its end waits for a message as long
 * again, or this long at least. */
#define WINDOW_GRACE_S 10

/* A secondary process: connections are the primary's (--hold). */
static bool
in_secondary(void)
{
	return rte_eal_process_type() != RTE_PROC_PRIMARY;
}

static uint64_t
deadline(double s)
{
	return rte_get_timer_cycles() + (uint64_t)(s * (double)rte_get_timer_hz());
}

/* One receive pass on a connection: keeps perf messages, counts the
 * rest. */
static int
perf_conn_recv(struct perf_conn *pc, uint64_t *traffic)
{
	struct rte_comch_msg msgs[32];
	int n, i;

	if (pc->cli != NULL)
		rte_comch_client_poll(pc->cli);
	n = rte_comch_msg_recv_burst(pc->conn, msgs, RTE_DIM(msgs));
	for (i = 0; i < n; i++) {
		struct perf_msg p;

		if (perf_msg_parse(&msgs[i], &p)) {
			pc->last = p;
			pc->have_last = true;
		} else if (traffic != NULL) {
			(*traffic)++;
		}
	}
	return n;
}

static int
conn_send_perf(struct perf_session *s, struct perf_conn *pc,
		enum perf_msg_type type, uint64_t msgs)
{
	struct perf_msg m = { .magic = PERF_MAGIC, .type = type,
		.test = s->test, .size = s->size, .burst = s->burst,
		.touch = s->o->touch, .queues = s->o->queues, .msgs = msgs };
	uint64_t dl = deadline(DPU_ANSWER_S);
	int ret;

	/* -EBUSY: in a secondary, the last one's relay is being freed */
	while (((ret = rte_comch_msg_send(pc->conn, &m, sizeof(m))) == -EAGAIN ||
		ret == -EBUSY) && rte_get_timer_cycles() < dl && !perf_quit)
		perf_conn_recv(pc, NULL);
	return ret;
}

/* Wait until every connection answered @p type. */
static int
conns_wait(struct perf_session *s, enum perf_msg_type type)
{
	uint64_t dl = deadline(DPU_ANSWER_S);
	unsigned int i, ready;

	for (i = 0; i < s->nb_conns; i++)
		s->conns[i].have_last = false;
	do {
		ready = 0;
		for (i = 0; i < s->nb_conns; i++) {
			struct perf_conn *pc = &s->conns[i];

			if (!(pc->have_last && pc->last.type == type) &&
			    perf_conn_recv(pc, NULL) < 0)
				return -ECONNRESET;
			if (pc->have_last && pc->last.type == PERF_MSG_REFUSED) {
				int err = pc->last.msgs > 0 &&
					pc->last.msgs < 4096 ?
					(int)pc->last.msgs : EPROTO;

				fprintf(stderr, "host: the DPU refused %s size %u with %u queue(s) on connection %u: %s\n",
					perf_test_name(s->test), s->size,
					s->o->queues,
					rte_comch_conn_id(pc->conn),
					rte_strerror(err));
				return -err;
			}
			ready += pc->have_last && pc->last.type == type;
		}
		if (ready == s->nb_conns)
			return 0;
	} while (!perf_quit && rte_get_timer_cycles() < dl);
	return perf_quit ? -EINTR : -ETIMEDOUT;
}

/* ------------------------------------------------------------- session */

/* A secondary: attach to the first --connections connections of the
 * primary (started with --role=host --hold). */
static int
session_attach(struct perf_session *s, const struct perf_opts *o,
		int16_t dev_id)
{
	uint32_t ids[PERF_MAX_CONNS];
	unsigned int i;
	int n;

	n = rte_comch_conn_list(dev_id, ids, o->connections);
	if (n < 0 || (uint32_t)n < o->connections) {
		fprintf(stderr, "host: the primary holds %d connection(s), --connections=%u; start it with --role=host --hold --connections=N\n",
			n < 0 ? 0 : n, o->connections);
		return n < 0 ? n : -ENOENT;
	}
	for (i = 0; i < o->connections; i++) {
		struct perf_conn *pc = &s->conns[i];

		pc->conn = rte_comch_conn_attach(dev_id, ids[i]);
		if (pc->conn == NULL) {
			fprintf(stderr, "host: cannot attach to connection %u: %s\n",
				ids[i], rte_strerror(rte_errno));
			return -rte_errno;
		}
		s->nb_conns++;
	}
	return 0;
}

int
perf_session_open(struct perf_session *s, const struct perf_opts *o,
		int16_t dev_id)
{
	struct rte_comch_client_conf conf = {
		.server_name = o->name,
		.recv_queue_len = 1024,
		/* event mode: the clients and their connections can sleep
		 * (wake-lat, idle) */
		.flags = o->event ? RTE_COMCH_F_EVENT : 0,
	};
	size_t max_size = 64;
	unsigned int i, lcore;
	uint64_t dl, next_say;
	int err;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->dev_id = dev_id;
	s->tsc_hz = rte_get_tsc_hz();
	for (i = 0; i < o->nb_sizes; i++)
		max_size = RTE_MAX(max_size, (size_t)o->sizes[i]);
	s->src_size = max_size;
	s->src = rte_zmalloc_socket("perf_src", max_size, RTE_CACHE_LINE_SIZE,
			(int)rte_socket_id());
	s->conns = rte_zmalloc_socket("perf_conns",
			sizeof(*s->conns) * o->connections, RTE_CACHE_LINE_SIZE,
			(int)rte_socket_id());
	if (s->src == NULL || s->conns == NULL)
		return -ENOMEM;
	/* Forwarding lcores: every lcore but this one (which drives the
	 * session) and the EAL main lcore (which, in pair mode, serves as
	 * the DPU). None left: this lcore forwards itself. */
	RTE_LCORE_FOREACH_WORKER(lcore)
		if (lcore != rte_lcore_id())
			s->fwd_lcores[s->nb_fwd++] = lcore;
	if (s->nb_fwd == 0) {
		s->fwd_lcores[s->nb_fwd++] = rte_lcore_id();
		s->main_forwards = true;
	}

	if (in_secondary())
		return session_attach(s, o, dev_id);
	/* The DPU side may come up after us: retry while it is not there. */
	dl = deadline(30);
	next_say = deadline(1);
	for (i = 0; i < o->connections; i++) {
		struct perf_conn *pc = &s->conns[i];

		pc->cli = rte_comch_client_create(dev_id, &conf);
		if (pc->cli == NULL)
			return -rte_errno;
		s->nb_conns++;
		for (;;) {
			err = rte_comch_client_start(pc->cli);
			if (err < 0)
				return err;
			do
				rte_comch_client_poll(pc->cli);
			while (rte_comch_client_state(pc->cli, &err) ==
			       RTE_COMCH_STATE_STARTING && !perf_quit);
			if (rte_comch_client_state(pc->cli, NULL) ==
			    RTE_COMCH_STATE_RUNNING)
				break;
			if (perf_quit || rte_get_timer_cycles() > dl ||
			    (err != -ENOENT && err != -ECONNREFUSED &&
			     err != -EAGAIN)) {
				fprintf(stderr, "host: cannot connect to \"%s\": %s\n",
					o->name, rte_strerror(-err));
				return err != 0 ? err : -EINTR;
			}
			/* At most a line a second while the DPU is not there. */
			if (rte_get_timer_cycles() >= next_say) {
				fprintf(stderr, "host: waiting for %s \"%s\" (%.0f s of 30 s)\n",
					err == -ENOENT ?
					"the DPU to create server" :
					"a DPU process to serve this function, for server",
					o->name, 30 - (double)(dl -
					rte_get_timer_cycles()) /
					(double)rte_get_timer_hz());
				next_say = rte_get_timer_cycles() +
					rte_get_timer_hz();
			}
			rte_delay_ms(10);
		}
		pc->conn = rte_comch_client_conn(pc->cli);
	}
	return 0;
}

void
perf_session_close(struct perf_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nb_conns; i++) {
		struct perf_conn *pc = &s->conns[i];

		if (pc->cli == NULL) {
			rte_comch_conn_detach(pc->conn);
			continue;
		}
		if (rte_comch_client_state(pc->cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(pc->cli);
		rte_comch_client_destroy(pc->cli);
	}
	rte_free(s->conns);
	rte_free(s->src);
	s->conns = NULL;
	s->src = NULL;
}

static void
streams_teardown(struct perf_session *s)
{
	struct rte_comch_completion cpl[64];
	unsigned int i;

	for (i = 0; s->streams != NULL && i < s->nb_streams; i++) {
		struct perf_stream *st = &s->streams[i];

		if (st->prod != NULL) {
			rte_comch_producer_stop(st->prod);
			rte_comch_producer_destroy(st->prod);
		}
		if (st->cons != NULL) {
			if (rte_comch_consumer_state(st->cons) == RTE_COMCH_STATE_RUNNING)
				rte_comch_consumer_stop(st->cons);
			while (rte_comch_consumer_state(st->cons) != RTE_COMCH_STATE_IDLE &&
			       rte_comch_consumer_poll_burst(st->cons, cpl,
					RTE_DIM(cpl)) >= 0)
				;
			rte_comch_consumer_destroy(st->cons);
		}
		rte_comch_mem_destroy(st->mem);
	}
	rte_free(s->streams);
	rte_free(s->fwd);
	s->streams = NULL;
	s->fwd = NULL;
	s->nb_streams = 0;
}

static int
stream_setup(struct perf_session *s, struct perf_stream *st)
{
	struct rte_comch_consumer_conf cc = { 0 };
	uint32_t n = perf_nb_posts(s->size), i;

	st->prod = rte_comch_producer_create(st->pc->conn, NULL);
	if (st->prod == NULL || rte_comch_producer_start(st->prod) < 0)
		return -EIO;
	if (!(s->e->flags & PERF_E_BOTH_WAYS))
		return 0;
	st->mem = rte_comch_mem_create(s->dev_id, (size_t)n * s->size,
			(int)rte_socket_id());
	cc.mem = st->mem;
	cc.nb_posts = n;
	st->cons = st->mem != NULL ? rte_comch_consumer_create(st->pc->conn, &cc) :
		NULL;
	if (st->cons == NULL || rte_comch_consumer_start(st->cons) < 0)
		return -EIO;
	st->own_consumer = rte_comch_consumer_id(st->cons);
	for (i = 0; i < n; i++) {
		void *b = (uint8_t *)rte_comch_mem_addr(st->mem) + (size_t)i * s->size;

		if (rte_comch_consumer_post_burst(st->cons, &b, &s->size, 1) != 1)
			return -EIO;
	}
	return 0;
}

/* A forwarding lcore: the loop of the running test's engine. */
static int
fwd_run(void *arg)
{
	struct perf_fwd *f = arg;

	f->err = f->s->e->fwd(f);
	__atomic_store_n(&f->done, true, __ATOMIC_RELEASE);
	return 0;
}

/* After READY: the DPU's consumers for the test, in creation order (ids
 * increase: the --queues first from the one READY names), into
 * pc->peer_consumers. In a secondary, listing them also makes them
 * reachable from this process. */
static int
conn_peer_consumers(struct perf_conn *pc, uint32_t first, uint32_t want,
		uint64_t dl)
{
	uint32_t ids[256]; /* caps.max_consumers of comch_shm */
	int n, i;

	for (;;) {
		n = rte_comch_conn_remote_consumers(pc->conn, ids, RTE_DIM(ids));
		if (n < 0)
			return n;
		pc->nb_peer_consumers = 0;
		for (i = 0; i < n && i < (int)RTE_DIM(ids) &&
		     pc->nb_peer_consumers < want; i++)
			if (ids[i] >= first)
				pc->peer_consumers[pc->nb_peer_consumers++] =
					ids[i];
		if (pc->nb_peer_consumers == want)
			return 0;
		/* announced on the link, after READY on the ring maybe */
		if (perf_quit || rte_get_timer_cycles() > dl)
			return -ETIMEDOUT;
		perf_conn_recv(pc, NULL);
	}
}

int
perf_session_start(struct perf_session *s, enum perf_test test, uint32_t size,
		uint32_t burst)
{
	const struct perf_opts *o = s->o;
	const struct perf_engine *e = perf_engine(test);
	bool fp = e->flags & PERF_E_FP;
	unsigned int i, per_conn, f;
	uint64_t dl, now;
	int ret;

	s->test = test;
	s->e = e;
	s->size = size;
	s->burst = burst;
	if (size > s->src_size) {
		uint8_t *src = rte_zmalloc_socket("perf_src", size,
				RTE_CACHE_LINE_SIZE, (int)rte_socket_id());

		if (src == NULL)
			return -ENOMEM;
		rte_free(s->src);
		s->src = src;
		s->src_size = size;
	}
	if (!fp && size > rte_comch_conn_max_msg_size(s->conns[0].conn)) {
		fprintf(stderr, "host: %s size %u skipped: above the control message limit %u\n",
			e->name, size,
			rte_comch_conn_max_msg_size(s->conns[0].conn));
		return -EMSGSIZE;
	}
	per_conn = fp ? o->queues : 1;
	s->nb_streams = s->nb_conns * per_conn;
	s->streams = rte_zmalloc("perf_streams",
			sizeof(*s->streams) * s->nb_streams, RTE_CACHE_LINE_SIZE);
	s->fwd = rte_zmalloc("perf_fwd", sizeof(*s->fwd) * s->nb_fwd,
			RTE_CACHE_LINE_SIZE);
	if (s->streams == NULL || s->fwd == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < s->nb_streams; i++) {
		s->streams[i].pc = &s->conns[i / per_conn];
		s->streams[i].size = size;
		if (fp) {
			ret = stream_setup(s, &s->streams[i]);
			if (ret < 0)
				goto err;
		}
	}
	for (i = 0; i < s->nb_conns; i++) {
		s->conns[i].nb_peer_consumers = 0;
		s->conns[i].have_last = false;
		ret = conn_send_perf(s, &s->conns[i], PERF_MSG_BEGIN, 0);
		if (ret < 0)
			goto err;
	}
	ret = conns_wait(s, PERF_MSG_READY);
	if (ret < 0) {
		fprintf(stderr, "host: the DPU did not get ready for %s size %u: %s\n",
			e->name, size, rte_strerror(-ret));
		goto err;
	}
	if (fp) {
		/* Stream q of a connection sends to the DPU's q-th consumer. */
		dl = deadline(DPU_ANSWER_S);
		for (i = 0; i < s->nb_conns; i++) {
			ret = conn_peer_consumers(&s->conns[i],
					s->conns[i].last.first_consumer, per_conn,
					dl);
			if (ret < 0) {
				fprintf(stderr, "host: the DPU did not announce its %u consumer(s) for %s on connection %u: %s\n",
					per_conn, e->name,
					rte_comch_conn_id(s->conns[i].conn),
					rte_strerror(-ret));
				goto err;
			}
		}
		for (i = 0; i < s->nb_streams; i++)
			s->streams[i].peer_consumer =
				s->streams[i].pc->peer_consumers[i % per_conn];
	}

	/* Streams to forwarding lcores, round robin. */
	for (f = 0; f < s->nb_fwd; f++) {
		struct perf_fwd *fw = &s->fwd[f];

		fw->s = s;
		fw->lcore_id = s->fwd_lcores[f];
		fw->is_main = fw->lcore_id == rte_lcore_id();
		fw->streams = rte_zmalloc("perf_fwd_streams",
				sizeof(*fw->streams) * s->nb_streams, 0);
		if (fw->streams == NULL) {
			ret = -ENOMEM;
			goto err;
		}
		perf_hist_reset(&fw->hist);
	}
	for (i = 0; i < s->nb_streams; i++) {
		struct perf_fwd *fw = &s->fwd[i % s->nb_fwd];

		fw->streams[fw->nb_streams++] = &s->streams[i];
	}
	now = rte_rdtsc();
	s->stop = false;
	s->warm_end = now + (uint64_t)(o->warmup * (double)s->tsc_hz);
	s->end = (o->count != 0 || o->interactive) ? 0 :
		s->warm_end + (uint64_t)(o->duration * (double)s->tsc_hz);
	/* a window that measured nothing by its end waits for a message,
	 * for as long again or WINDOW_GRACE_S at least, then ends anyway */
	s->end_hard = s->end == 0 ? 0 : s->end + (uint64_t)(RTE_MAX(o->duration,
			(double)WINDOW_GRACE_S) * (double)s->tsc_hz);
	s->next_progress = (perf_results_own_stdout(o) ||
			    !isatty(STDOUT_FILENO) || o->interactive) ?
		UINT64_MAX : now + s->tsc_hz;
	s->shown_msgs = 0;
	s->shown_rx = 0;
	s->shown_tsc = now;
	for (f = 0; f < s->nb_fwd; f++) {
		struct perf_fwd *fw = &s->fwd[f];

		if (o->count != 0 && fw->nb_streams != 0)
			fw->count = (o->count + s->nb_fwd - 1) / s->nb_fwd;
		if (fw->nb_streams == 0)
			fw->done = true;
		else if (!fw->is_main)
			rte_eal_remote_launch(fwd_run, fw, fw->lcore_id);
	}
	s->running = true;
	return 0;
err:
	streams_teardown(s);
	return ret;
}

/* Wait for the forwarding lcores (or be one); the connections stay
 * polled meanwhile. */
static void
main_wait(struct perf_session *s)
{
	unsigned int f, done;
	uint64_t now;

	if (s->main_forwards) {
		fwd_run(&s->fwd[0]);
		return;
	}
	do {
		done = 0;
		for (f = 0; f < s->nb_fwd; f++)
			done += __atomic_load_n(&s->fwd[f].done, __ATOMIC_ACQUIRE);
		now = rte_rdtsc();
		/* the end of the window is each lcore's own (fwd_step), but
		 * for a round trip that never ends */
		if (perf_quit || (s->end_hard != 0 && now >= s->end_hard))
			s->stop = true;
		if (now >= s->next_progress)
			perf_progress(s, now);
		perf_session_poll(s);
	} while (done < s->nb_fwd);
}

/* idle: CPU time @p us over @p seconds, in % of one core. */
static double
cpu_pct(uint64_t us, double seconds)
{
	return seconds > 0 ? (double)us / 1e4 / seconds : 0;
}

static void
report(struct perf_session *s, uint64_t peer_msgs, uint64_t peer_bytes,
		uint64_t peer_sent)
{
	struct perf_result r = { .test = s->test, .size = s->size,
		.burst = s->burst, .lcore = -1 };
	static struct perf_hist all;
	bool lat = s->e->flags & PERF_E_LATENCY;
	uint64_t t0 = UINT64_MAX, t1 = 0, cpu_us = 0;
	unsigned int f;

	perf_hist_reset(&all);
	for (f = 0; f < s->nb_fwd; f++) {
		struct perf_fwd *fw = &s->fwd[f];
		struct perf_result l = r;

		if (fw->nb_streams == 0)
			continue;
		l.lcore = (int)fw->lcore_id;
		l.msgs = fw->msgs;
		l.rx_msgs = fw->rx_msgs;
		l.seconds = fw->t1 > fw->t0 ?
			(double)(fw->t1 - fw->t0) / (double)s->tsc_hz : 0;
		l.sent_total = fw->sent;
		l.received = fw->received;
		l.lat = lat ? &fw->hist : NULL;
		l.cpu = cpu_pct(fw->cpu_us, l.seconds);
		l.peer_msgs = UINT64_MAX; /* not per lcore */
		if (s->nb_fwd > 1)
			perf_report(s->o, "host", &l);
		r.msgs += fw->msgs;
		r.rx_msgs += fw->rx_msgs;
		r.sent_total += fw->sent;
		r.received += fw->received;
		cpu_us += fw->cpu_us;
		if (fw->t0 != 0 && fw->t0 < t0)
			t0 = fw->t0;
		if (fw->t1 > t1)
			t1 = fw->t1;
		if (lat)
			perf_hist_merge(&all, &fw->hist);
	}
	r.seconds = t1 > t0 ? (double)(t1 - t0) / (double)s->tsc_hz : 0;
	r.cpu = cpu_pct(cpu_us, r.seconds);
	/* idle: the DPU's process, once (every connection reports it) */
	if ((s->e->flags & PERF_E_IDLE) && s->conns[0].last.sent != 0)
		r.peer_cpu = cpu_pct(s->conns[0].last.bytes,
				(double)s->conns[0].last.sent / 1e6);
	r.peer_msgs = peer_msgs;
	r.peer_bytes = peer_bytes;
	r.peer_sent = peer_sent;
	r.lat = lat ? &all : NULL;
	perf_report(s->o, "host", &r);
}

int
perf_session_stop(struct perf_session *s)
{
	uint64_t peer_msgs = 0, peer_bytes = 0, peer_sent = 0, sent = 0, rcvd = 0;
	uint64_t dl;
	unsigned int i, f;
	int ret = 0;

	if (!s->running)
		return -EINVAL;
	s->stop = true;
	for (f = 0; f < s->nb_fwd; f++) {
		if (!s->fwd[f].is_main && s->fwd[f].nb_streams != 0)
			rte_eal_wait_lcore(s->fwd[f].lcore_id);
		if (s->fwd[f].err < 0 && ret == 0) {
			ret = s->fwd[f].err;
			fprintf(stderr, "host: %s size %u failed on lcore %u: %s\n",
				s->e->name, s->size,
				s->fwd[f].lcore_id, rte_strerror(-ret));
		}
	}
	if (s->next_progress != UINT64_MAX)
		printf("\r%*s\r", 78, "");
	for (i = 0; i < s->nb_conns; i++)
		s->conns[i].sent = 0;
	for (i = 0; i < s->nb_streams; i++) {
		s->streams[i].pc->sent += s->streams[i].sent;
		sent += s->streams[i].sent;
	}
	for (i = 0; i < s->nb_conns && ret == 0; i++) {
		s->conns[i].have_last = false;
		ret = conn_send_perf(s, &s->conns[i], PERF_MSG_END,
				s->conns[i].sent);
	}
	if (ret == 0)
		ret = conns_wait(s, PERF_MSG_RESULT);
	if (ret < 0) {
		fprintf(stderr, "host: no result from the DPU: %s\n",
			rte_strerror(-ret));
		goto out;
	}
	for (i = 0; i < s->nb_conns; i++) {
		peer_msgs += s->conns[i].last.msgs;
		peer_bytes += s->conns[i].last.bytes;
		peer_sent += s->conns[i].last.sent;
	}
	/* Both streaming: take what the DPU sent before it stopped. */
	if (s->e->flags & PERF_E_BIDIR) {
		for (i = 0; i < s->nb_streams; i++)
			rcvd += s->streams[i].received;
		dl = deadline(DPU_ANSWER_S);
		while (rcvd < peer_sent && rte_get_timer_cycles() < dl) {
			for (i = 0; i < s->nb_streams; i++) {
				struct rte_comch_completion cpl[64];
				int n = rte_comch_consumer_poll_burst(
						s->streams[i].cons, cpl, 64);
				uint32_t k;

				for (k = 0; n > 0 && k < (uint32_t)n; k++)
					rte_comch_consumer_post_burst(
						s->streams[i].cons, &cpl[k].buf,
						&s->size, 1);
				if (n > 0)
					rcvd += (uint64_t)n;
			}
		}
		for (f = 0; f < s->nb_fwd; f++)
			s->fwd[f].received = 0;
		s->fwd[0].received = rcvd;
	}
	report(s, peer_msgs, peer_bytes, peer_sent);
	if (peer_msgs != sent ||
	    ((s->e->flags & PERF_E_BIDIR) && rcvd != peer_sent))
		ret = -EIO;
out:
	streams_teardown(s);
	s->running = false;
	return ret;
}

/* ------------------------------------------------------------- the run */

int
perf_host_run(const struct perf_opts *o, int16_t dev_id)
{
	const struct perf_engine *e;
	struct perf_session *s;
	unsigned int t, z;
	int ret;

	s = rte_zmalloc("perf_session", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	ret = perf_session_open(s, o, dev_id);
	for (t = 0; t < o->nb_tests && ret == 0 && !perf_quit; t++) {
		e = perf_engine(o->tests[t]);
		if (e->run != NULL) {
			/* its own run, once: sizes do not apply */
			struct perf_result r = { .test = o->tests[t],
				.lcore = -1 };

			s->test = o->tests[t];
			s->e = e;
			ret = e->run(s, &r);
			if (ret == 0)
				perf_report(o, "host", &r);
			continue;
		}
		for (z = 0; z < o->nb_sizes && ret == 0 && !perf_quit; z++) {
			ret = perf_session_start(s, o->tests[t], o->sizes[z],
					o->burst);
			if (ret == -EMSGSIZE) {
				ret = 0;
				continue;
			}
			if (ret == 0) {
				main_wait(s);
				ret = perf_session_stop(s);
			}
		}
	}
	perf_session_close(s);
	rte_free(s);
	return ret;
}

int
perf_hold_run(const struct perf_opts *o, int16_t dev_id)
{
	uint64_t end = o->duration > 0 ? rte_get_timer_cycles() +
		(uint64_t)(o->duration * (double)rte_get_timer_hz()) : UINT64_MAX;
	struct perf_session *s;
	unsigned int i;
	int ret;

	s = rte_zmalloc("perf_session", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	ret = perf_session_open(s, o, dev_id);
	if (ret == 0) {
		printf("host: holding %u connection(s) to \"%s\" for secondary processes (ids",
			s->nb_conns, o->name);
		for (i = 0; i < s->nb_conns; i++)
			printf(" %u", rte_comch_conn_id(s->conns[i].conn));
		printf(")\n");
		fflush(stdout);
	}
	/* The control path only: polling the clients moves the control
	 * messages of the secondaries (the library's relay) and follows the
	 * DPU; every 100 us, so a secondary's BEGIN or END waits that long
	 * at most, and the core is the secondaries' the rest of the time. */
	while (ret == 0 && !perf_quit && rte_get_timer_cycles() < end) {
		for (i = 0; i < s->nb_conns; i++)
			perf_conn_recv(&s->conns[i], NULL);
		rte_delay_us_sleep(100);
	}
	/* Secondaries still attached keep the connections busy: stop
	 * those first. */
	perf_session_close(s);
	rte_free(s);
	return ret;
}
