/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Peers: the control path across separate processes, a host and a DPU,
 * each its own DPDK primary as on real hardware (not DPDK multi-process,
 * which test_secondary.c covers): this process is the DPU (server), hosts are
 * children started with posix_spawn() running this same binary with
 * "--child MODE LINK_DIR N".
 *
 * - million: 1,000,000 messages each way, no loss, duplication,
 *   reordering or corruption (sequence number + derived payload).
 * - kill: a host flooding messages is SIGKILLed; the server reports the
 *   disconnection, the messages queued before the kill are received in
 *   order, the connection is released (no fd left behind), and a new host
 *   is served in full.
 */

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <rte_memory.h>

#include "comch_test.h"

extern char **environ;

#define MSG_MIN 8
#define MSG_SPREAD 57

static char link_dir[64];
static const char *self_path;

/* Message i: 8-byte sequence number, then (i % 57) bytes of (i & 0xff). */
static uint32_t
msg_fill(uint8_t *buf, uint64_t seq)
{
	uint32_t len = MSG_MIN + (uint32_t)(seq % MSG_SPREAD);

	memcpy(buf, &seq, sizeof(seq));
	memset(buf + MSG_MIN, (int)(seq & 0xff), len - MSG_MIN);
	return len;
}

/* Returns 0 if @p m is message @p seq. */
static int
msg_check(const struct rte_comch_msg *m, uint64_t seq)
{
	uint8_t want[MSG_MIN + MSG_SPREAD];
	uint32_t len = msg_fill(want, seq);

	if (m->len != len || memcmp(m->data, want, len) != 0) {
		uint64_t got = UINT64_MAX;

		if (m->len >= sizeof(got))
			memcpy(&got, m->data, sizeof(got));
		printf("  message %" PRIu64 ": got seq %" PRIu64 " len %u\n",
			seq, got, m->len);
		return -1;
	}
	return 0;
}

static int child_fp(struct rte_comch_client *cli, const char *mode,
		uint64_t n);
static int child_dpu_flood(const char *dir);
static void fp_on_consumer(struct rte_comch_conn *c, uint32_t id,
		enum rte_comch_consumer_event ev, void *arg);

/* ------------------------------------------------------------- the host */

static int
child_main(const char *mode, const char *dir, uint64_t n)
{
	char vdev[256], prefix[64];
	const char *eal[] = { "child", "-l", "1", "--no-huge", "--no-pci",
		"-m", "64", "--log-level=lib.eal:error",
		"--log-level=lib.telemetry:error", prefix, vdev, NULL };
	struct rte_comch_client_conf conf = { .server_name = "peers",
		.consumer_event_cb = fp_on_consumer };
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	struct rte_comch_conn_stats st;
	struct rte_comch_msg msgs[32];
	uint8_t buf[MSG_MIN + MSG_SPREAD];
	uint64_t sent = 0, recvd = 0, deadline;
	int i, r, err;

	if (strcmp(mode, "dpu-flood") == 0)
		return child_dpu_flood(dir);
	snprintf(prefix, sizeof(prefix), "--file-prefix=peers-child-%d", getpid());
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_h,role=host,path=%s", dir);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	cli = rte_comch_client_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_h"), &conf);
	if (cli == NULL || rte_comch_client_start(cli) < 0)
		return 11;
	deadline = test_deadline(TEST_GUARD_S);
	while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING &&
	       !test_expired(deadline))
		rte_comch_client_poll(cli);
	conn = rte_comch_client_conn(cli);
	if (conn == NULL) {
		printf("child: not connected: %s\n", rte_strerror(-err));
		return 12;
	}

	if (strncmp(mode, "fp-", 3) == 0) {
		int rc = child_fp(cli, mode, n);

		if (rc != 0)
			return rc;
		rte_comch_client_stop(cli);
		rte_comch_client_destroy(cli);
		rte_eal_cleanup();
		return 0;
	}

	if (strcmp(mode, "flood") == 0) {
		/* Until SIGKILLed. */
		for (;;) {
			uint32_t len = msg_fill(buf, sent);

			if (rte_comch_msg_send(conn, buf, len) == 0)
				sent++;
			rte_comch_client_poll(cli);
		}
	}

	if (strcmp(mode, "echo") == 0) {
		deadline = test_deadline(TEST_GUARD_S);
		for (sent = 0; sent < n; sent++) {
			uint32_t len = msg_fill(buf, sent);

			if (rte_comch_msg_send(conn, buf, len) != 0)
				return 13;
			do {
				rte_comch_client_poll(cli);
				r = rte_comch_msg_recv_burst(conn, msgs, 1);
			} while (r == 0 && !test_expired(deadline));
			if (r != 1 || msg_check(&msgs[0], sent) != 0)
				return 14;
		}
	} else { /* stream: n each way, both at once */
		deadline = test_deadline(120);
		while ((sent < n || recvd < n) && !test_expired(deadline)) {
			while (sent < n) {
				uint32_t len = msg_fill(buf, sent);

				if (rte_comch_msg_send(conn, buf, len) != 0)
					break;
				sent++;
			}
			r = rte_comch_msg_recv_burst(conn, msgs, RTE_DIM(msgs));
			if (r < 0) {
				printf("child: receive: %s\n", rte_strerror(-r));
				return 15;
			}
			for (i = 0; i < r; i++)
				if (msg_check(&msgs[i], recvd++) != 0)
					return 16;
			rte_comch_client_poll(cli);
		}
		if (sent != n || recvd != n)
			return 17;
		/* Everything sent is confirmed consumed before leaving. */
		do {
			rte_comch_conn_stats_get(conn, &st);
		} while (st.msgs_in_flight != 0 && !test_expired(deadline));
		if (st.msgs_in_flight != 0 || st.msgs_recv != n ||
		    st.msgs_sent != n)
			return 18;
	}
	rte_comch_client_stop(cli);
	rte_comch_client_destroy(cli);
	rte_eal_cleanup();
	return 0;
}

/* -------------------------------------------------- fast-path helpers */

#define FP_BUF 64
#define FP_POSTS 256

/* A started consumer with all its buffers posted. */
struct fp_rx {
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	uint64_t next;       /* next sequence expected */
	int bad;
};

static int
fp_rx_open(struct fp_rx *rx, int16_t dev, struct rte_comch_conn *conn)
{
	struct rte_comch_consumer_conf conf = { .nb_posts = FP_POSTS };
	void *bufs[FP_POSTS];
	uint32_t lens[FP_POSTS];
	int i;

	memset(rx, 0, sizeof(*rx));
	rx->mem = rte_comch_mem_create(dev, FP_POSTS * FP_BUF, SOCKET_ID_ANY);
	if (rx->mem == NULL)
		return -1;
	conf.mem = rx->mem;
	rx->cons = rte_comch_consumer_create(conn, &conf);
	if (rx->cons == NULL || rte_comch_consumer_start(rx->cons) != 0)
		return -1;
	for (i = 0; i < FP_POSTS; i++) {
		bufs[i] = (uint8_t *)rte_comch_mem_addr(rx->mem) + i * FP_BUF;
		lens[i] = FP_BUF;
	}
	return rte_comch_consumer_post_burst(rx->cons, bufs, lens, FP_POSTS) ==
		FP_POSTS ? 0 : -1;
}

/* Take completions, check order and content, repost. Returns the number
 * taken or a negative errno from the poll. */
static int
fp_rx_poll(struct fp_rx *rx)
{
	struct rte_comch_completion cpl[32];
	uint32_t len = FP_BUF;
	int n, i;

	n = rte_comch_consumer_poll_burst(rx->cons, cpl, RTE_DIM(cpl));
	for (i = 0; i < n; i++) {
		struct rte_comch_msg m = { .data = cpl[i].buf, .len = cpl[i].len };
		uint64_t seq;

		memcpy(&seq, cpl[i].imm, sizeof(seq));
		if (cpl[i].status != 0 || cpl[i].imm_len != sizeof(seq) ||
		    seq != rx->next || msg_check(&m, rx->next) != 0)
			rx->bad++;
		rx->next++;
		rte_comch_consumer_post_burst(rx->cons, &cpl[i].buf, &len, 1);
	}
	return n;
}

static void
fp_rx_close(struct fp_rx *rx)
{
	struct rte_comch_completion cpl[32];
	uint64_t dl = test_deadline(TEST_GUARD_S);

	if (rx->cons == NULL)
		return;
	if (rte_comch_consumer_state(rx->cons) == RTE_COMCH_STATE_RUNNING)
		rte_comch_consumer_stop(rx->cons);
	while (rte_comch_consumer_state(rx->cons) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl))
		rte_comch_consumer_poll_burst(rx->cons, cpl, RTE_DIM(cpl));
	rte_comch_consumer_destroy(rx->cons);
	rte_comch_mem_destroy(rx->mem);
	rx->cons = NULL;
}

/* Send messages [*next, limit) as far as the consumer has buffers. */
static int
fp_tx(struct rte_comch_producer *prod, uint32_t consumer_id, uint64_t *next,
		uint64_t limit)
{
	uint8_t bufs[16][MSG_MIN + MSG_SPREAD];
	struct rte_comch_send_op ops[16];
	uint64_t seqs[16];
	int i, n = (int)RTE_MIN((uint64_t)16, limit - *next);

	for (i = 0; i < n; i++) {
		seqs[i] = *next + (uint64_t)i;
		ops[i].data = bufs[i];
		ops[i].len = msg_fill(bufs[i], seqs[i]);
		ops[i].imm = &seqs[i];
		ops[i].imm_len = sizeof(seqs[i]);
	}
	n = rte_comch_producer_send_burst(prod, consumer_id, ops, (uint16_t)n);
	if (n > 0)
		*next += (uint64_t)n;
	return n;
}

/* The peer's consumer, from the consumer events (one at a time here). */
static uint32_t fp_peer_consumer = UINT32_MAX;
static struct rte_comch_conn *fp_conn;

static void
fp_on_consumer(struct rte_comch_conn *c, uint32_t id,
		enum rte_comch_consumer_event ev, void *arg __rte_unused)
{
	fp_conn = c;
	fp_peer_consumer = ev == RTE_COMCH_CONSUMER_CREATED ? id : UINT32_MAX;
}

/* Host side of the fast-path cases: "fp-stream N" sends N to the DPU's
 * consumer and receives N into its own; "fp-flood" sends until killed. */
static int
child_fp(struct rte_comch_client *cli, const char *mode, uint64_t n)
{
	struct rte_comch_conn *conn = rte_comch_client_conn(cli);
	struct rte_comch_producer *prod;
	struct fp_rx rx;
	uint64_t sent = 0, dl = test_deadline(120);
	bool flood = strcmp(mode, "fp-flood") == 0;

	if (fp_rx_open(&rx, (int16_t)rte_comch_get_dev_id_by_name("comch_shm_h"),
			conn) != 0)
		return 20;
	prod = rte_comch_producer_create(conn, NULL);
	if (prod == NULL || rte_comch_producer_start(prod) != 0)
		return 21;
	while (fp_peer_consumer == UINT32_MAX && !test_expired(dl))
		rte_comch_client_poll(cli);
	if (fp_peer_consumer == UINT32_MAX)
		return 22;
	while ((flood || sent < n || rx.next < n) && !test_expired(dl)) {
		if (flood || sent < n) {
			if (fp_tx(prod, fp_peer_consumer, &sent,
					flood ? UINT64_MAX : n) < 0)
				return 23;
		}
		if (!flood && fp_rx_poll(&rx) < 0)
			return 24;
		rte_comch_client_poll(cli);
	}
	if (sent != n || rx.next != n || rx.bad != 0)
		return 25;
	rte_comch_producer_stop(prod);
	rte_comch_producer_destroy(prod);
	fp_rx_close(&rx);
	return 0;
}

/* DPU side run by a child, so the DPU can be the one killed: serves
 * "mpd" on its own link folder and floods the host's consumer. */
static int
child_dpu_flood(const char *dir)
{
	char vdev[256], prefix[64];
	const char *eal[] = { "child", "-l", "1", "--no-huge", "--no-pci",
		"-m", "64", "--log-level=lib.eal:error",
		"--log-level=lib.telemetry:error", prefix, vdev, NULL };
	struct rte_comch_server_conf conf = { .name = "mpd",
		.consumer_event_cb = fp_on_consumer };
	struct rte_comch_server *srv;
	struct rte_comch_producer *prod = NULL;
	uint64_t sent = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=peers-dpu-%d", getpid());
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_dd,role=dpu,path=%s", dir);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 30;
	srv = rte_comch_server_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_dd"), &conf);
	if (srv == NULL || rte_comch_server_start(srv) != 0)
		return 31;
	for (;;) {    /* until SIGKILLed */
		rte_comch_server_poll(srv);
		if (prod == NULL && fp_peer_consumer != UINT32_MAX) {
			prod = rte_comch_producer_create(fp_conn, NULL);
			if (prod == NULL || rte_comch_producer_start(prod) != 0)
				return 32;
		}
		if (prod != NULL && fp_peer_consumer != UINT32_MAX)
			fp_tx(prod, fp_peer_consumer, &sent, UINT64_MAX);
	}
	return 0;
}

/* ------------------------------------------------------------- the DPU */

struct mp_events {
	struct rte_comch_conn *conn;
	unsigned int connects, disconnects;
	int err;
};

static void
on_connect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, void *arg)
{
	struct mp_events *e = arg;

	e->conn = c;
	e->connects++;
}

static void
on_disconnect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c __rte_unused, int err, void *arg)
{
	struct mp_events *e = arg;

	e->disconnects++;
	e->err = err;
}

static struct rte_comch_server *mp_srv;
static struct mp_events ev;

static pid_t
spawn_child(const char *mode, uint64_t n)
{
	char nbuf[32];
	char *argv[] = { (char *)(uintptr_t)self_path,
		(char *)(uintptr_t)"--child", (char *)(uintptr_t)mode, link_dir,
		nbuf, NULL };
	pid_t pid;

	snprintf(nbuf, sizeof(nbuf), "%" PRIu64, n);
	if (posix_spawn(&pid, self_path, NULL, NULL, argv, environ) != 0)
		return -1;
	return pid;
}

static int
wait_connected(unsigned int connects)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);

	while (ev.connects < connects && !test_expired(dl))
		rte_comch_server_poll(mp_srv);
	CHECK_EQ(ev.connects, connects);
	return 0;
}

static int
child_status(pid_t pid, int *status)
{
	CHECK_EQ(waitpid(pid, status, 0), pid);
	return 0;
}

static int
test_million(void)
{
	const uint64_t n = 1000000;
	struct rte_comch_msg msgs[32];
	struct rte_comch_conn_stats st;
	uint8_t buf[MSG_MIN + MSG_SPREAD];
	uint64_t sent = 0, recvd = 0, dl;
	pid_t pid;
	int r, i, status;

	memset(&ev, 0, sizeof(ev));
	pid = spawn_child("stream", n);
	CHECK(pid > 0, "spawn");
	CHECK_OK(wait_connected(1));

	dl = test_deadline(120);
	while ((recvd < n || sent < n) && !test_expired(dl)) {
		while (sent < n) {
			uint32_t len = msg_fill(buf, sent);

			if (rte_comch_msg_send(ev.conn, buf, len) != 0)
				break;
			sent++;
		}
		r = rte_comch_msg_recv_burst(ev.conn, msgs, RTE_DIM(msgs));
		CHECK(r >= 0, "receive: %s", rte_strerror(-r));
		for (i = 0; i < r; i++)
			CHECK_OK(msg_check(&msgs[i], recvd++));
		rte_comch_server_poll(mp_srv);
	}
	CHECK_EQ(recvd, n);
	CHECK_EQ(sent, n);
	/* The host leaves once all it sent was consumed. */
	while (ev.disconnects == 0 && !test_expired(dl)) {
		r = rte_comch_msg_recv_burst(ev.conn, msgs, RTE_DIM(msgs));
		CHECK(r <= 0, "message after the last one");
		rte_comch_server_poll(mp_srv);
	}
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(rte_comch_msg_recv_burst(ev.conn, msgs, 1), -ECONNRESET);
	CHECK_OK(rte_comch_conn_stats_get(ev.conn, &st));
	CHECK_EQ(st.msgs_recv, n);
	CHECK_EQ(st.msgs_sent, n);
	CHECK_EQ(st.msgs_in_flight, 0);
	CHECK_OK(rte_comch_server_disconnect(mp_srv, ev.conn));
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"host exited with status %d", status);
	return 0;
}

static int
test_kill(void)
{
	struct rte_comch_msg msgs[32];
	uint64_t recvd = 0, dl;
	int fds_before, r, i, status;
	pid_t pid;

	memset(&ev, 0, sizeof(ev));
	fds_before = test_count_fds();
	pid = spawn_child("flood", 0);
	CHECK(pid > 0, "spawn");
	CHECK_OK(wait_connected(1));

	dl = test_deadline(TEST_GUARD_S);
	while (recvd < 10000 && !test_expired(dl)) {
		r = rte_comch_msg_recv_burst(ev.conn, msgs, RTE_DIM(msgs));
		CHECK(r >= 0, "receive: %s", rte_strerror(-r));
		for (i = 0; i < r; i++)
			CHECK_OK(msg_check(&msgs[i], recvd++));
		rte_comch_server_poll(mp_srv);
	}
	CHECK(recvd >= 10000, "host sent only %" PRIu64, recvd);
	CHECK_OK(kill(pid, SIGKILL));

	/* Reported, and what was queued before the kill still arrives in
	 * order, then -ECONNRESET. */
	while (ev.disconnects == 0 && !test_expired(dl)) {
		r = rte_comch_msg_recv_burst(ev.conn, msgs, RTE_DIM(msgs));
		CHECK(r >= 0, "receive before the loss was reported: %d", r);
		for (i = 0; i < r; i++)
			CHECK_OK(msg_check(&msgs[i], recvd++));
		rte_comch_server_poll(mp_srv);
	}
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(ev.err, -ECONNRESET);
	do {
		r = rte_comch_msg_recv_burst(ev.conn, msgs, RTE_DIM(msgs));
		for (i = 0; i < r; i++)
			CHECK_OK(msg_check(&msgs[i], recvd++));
	} while (r > 0);
	CHECK_EQ(r, -ECONNRESET);
	CHECK_EQ(rte_comch_msg_send(ev.conn, msgs, 0), -ECONNRESET);
	printf("  host killed after %" PRIu64 " messages were delivered\n", recvd);
	CHECK_OK(rte_comch_server_disconnect(mp_srv, ev.conn));
	CHECK_EQ(rte_comch_server_conn_count(mp_srv), 0);
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d",
		status);
	CHECK_EQ(test_count_fds(), fds_before);

	/* A new host is served in full. */
	pid = spawn_child("echo", 1000);
	CHECK(pid > 0, "spawn");
	CHECK_OK(wait_connected(2));
	recvd = 0;
	while (ev.disconnects == 1 && !test_expired(dl)) {
		r = rte_comch_msg_recv_burst(ev.conn, msgs, RTE_DIM(msgs));
		for (i = 0; i < r; i++) {
			CHECK_OK(msg_check(&msgs[i], recvd++));
			CHECK_OK(rte_comch_msg_send(ev.conn, msgs[i].data,
					msgs[i].len));
		}
		rte_comch_server_poll(mp_srv);
	}
	CHECK_EQ(recvd, 1000);
	CHECK_EQ(ev.disconnects, 2);
	CHECK_OK(rte_comch_server_disconnect(mp_srv, ev.conn));
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	CHECK_EQ(test_count_fds(), fds_before);
	return 0;
}

/* 1,000,000 fast-path messages each way through one consumer per side,
 * in order and intact. */
static int
test_fp_million(void)
{
	const uint64_t n = 1000000;
	int16_t dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_d");
	struct rte_comch_producer *prod;
	struct fp_rx rx;
	uint64_t sent = 0, dl;
	int status, r;
	pid_t pid;

	memset(&ev, 0, sizeof(ev));
	fp_peer_consumer = UINT32_MAX;
	pid = spawn_child("fp-stream", n);
	CHECK(pid > 0, "spawn");
	CHECK_OK(wait_connected(1));
	CHECK_OK(fp_rx_open(&rx, dev, ev.conn));
	prod = rte_comch_producer_create(ev.conn, NULL);
	CHECK(prod != NULL, "producer");
	CHECK_OK(rte_comch_producer_start(prod));
	dl = test_deadline(120);
	while (fp_peer_consumer == UINT32_MAX && !test_expired(dl))
		rte_comch_server_poll(mp_srv);
	CHECK(fp_peer_consumer != UINT32_MAX, "host consumer never announced");
	while ((sent < n || rx.next < n) && !test_expired(dl)) {
		if (sent < n) {
			r = fp_tx(prod, fp_peer_consumer, &sent, n);
			CHECK(r >= 0, "send: %s", rte_strerror(-r));
		}
		CHECK(fp_rx_poll(&rx) >= 0, "poll");
		rte_comch_server_poll(mp_srv);
	}
	CHECK_EQ(sent, n);
	CHECK_EQ(rx.next, n);
	CHECK_EQ(rx.bad, 0);
	/* The host destroys its objects and leaves. */
	while (ev.disconnects == 0 && !test_expired(dl))
		rte_comch_server_poll(mp_srv);
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(fp_peer_consumer, UINT32_MAX);
	CHECK_OK(rte_comch_producer_stop(prod));
	CHECK_OK(rte_comch_producer_destroy(prod));
	fp_rx_close(&rx);
	CHECK_OK(rte_comch_server_disconnect(mp_srv, ev.conn));
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"host exited with status %d", status);
	return 0;
}

/* Host SIGKILLed while its producer streams into our consumer: what it
 * wrote arrives in order, then -ECONNRESET; our producer fails with
 * -ECONNRESET; teardown completes and leaves no fd behind. */
static int
test_fp_kill_host(void)
{
	int16_t dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_d");
	struct rte_comch_producer *prod;
	struct fp_rx rx;
	uint64_t sent = 0, dl;
	int fds_before, status, r;
	pid_t pid;

	memset(&ev, 0, sizeof(ev));
	fp_peer_consumer = UINT32_MAX;
	fds_before = test_count_fds();
	pid = spawn_child("fp-flood", 0);
	CHECK(pid > 0, "spawn");
	CHECK_OK(wait_connected(1));
	CHECK_OK(fp_rx_open(&rx, dev, ev.conn));
	prod = rte_comch_producer_create(ev.conn, NULL);
	CHECK(prod != NULL && rte_comch_producer_start(prod) == 0, "producer");
	dl = test_deadline(TEST_GUARD_S);
	while (rx.next < 10000 && !test_expired(dl)) {
		CHECK(fp_rx_poll(&rx) >= 0, "poll");
		rte_comch_server_poll(mp_srv);
	}
	CHECK(rx.next >= 10000, "only %" PRIu64 " received", rx.next);
	CHECK(fp_peer_consumer != UINT32_MAX, "host consumer unknown");
	CHECK(fp_tx(prod, fp_peer_consumer, &sent, 10) > 0, "send before kill");
	CHECK_OK(kill(pid, SIGKILL));
	while (ev.disconnects == 0 && !test_expired(dl)) {
		fp_rx_poll(&rx);
		rte_comch_server_poll(mp_srv);
	}
	CHECK_EQ(ev.disconnects, 1);
	do {
		r = fp_rx_poll(&rx);
	} while (r > 0);
	CHECK_EQ(r, -ECONNRESET);
	CHECK_EQ(rx.bad, 0);
	printf("  host killed after %" PRIu64 " fast-path messages\n", rx.next);
	CHECK_EQ(fp_tx(prod, 0, &sent, sent + 1), -ECONNRESET);
	CHECK_EQ(rte_comch_server_disconnect(mp_srv, ev.conn), -EBUSY);
	CHECK_OK(rte_comch_producer_stop(prod));
	CHECK_OK(rte_comch_producer_destroy(prod));
	fp_rx_close(&rx);
	CHECK_OK(rte_comch_server_disconnect(mp_srv, ev.conn));
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d",
		status);
	CHECK_EQ(test_count_fds(), fds_before);
	return 0;
}

/* DPU SIGKILLed while its producer streams into our (host) consumer. */
static int
test_fp_kill_dpu(void)
{
	struct rte_comch_client_conf conf = { .server_name = "mpd" };
	struct rte_comch_client *cli;
	char dir[64], vdev_args[256];
	int16_t dev;
	struct fp_rx rx;
	uint64_t dl;
	int fds_before, status, err, r;
	pid_t pid;

	CHECK_OK(test_mkdtemp(dir, sizeof(dir)));
	snprintf(vdev_args, sizeof(vdev_args), "role=host,path=%s", dir);
	CHECK_OK(rte_vdev_init("comch_shm_hh", vdev_args));
	dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_hh");
	fds_before = test_count_fds();
	{
		char *argv[] = { (char *)(uintptr_t)self_path,
			(char *)(uintptr_t)"--child",
			(char *)(uintptr_t)"dpu-flood", dir,
			(char *)(uintptr_t)"0", NULL };

		CHECK_OK(posix_spawn(&pid, self_path, NULL, NULL, argv, environ));
	}
	cli = rte_comch_client_create(dev, &conf);
	CHECK(cli != NULL, "client");
	dl = test_deadline(TEST_GUARD_S);
	do {    /* the DPU process needs a moment to come up */
		CHECK_OK(rte_comch_client_start(cli));
		do
			rte_comch_client_poll(cli);
		while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING);
	} while (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_RUNNING &&
		 (err == -ENOENT || err == -ECONNREFUSED) && !test_expired(dl));
	CHECK_EQ(rte_comch_client_state(cli, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_OK(fp_rx_open(&rx, dev, rte_comch_client_conn(cli)));
	while (rx.next < 10000 && !test_expired(dl)) {
		CHECK(fp_rx_poll(&rx) >= 0, "poll");
		rte_comch_client_poll(cli);
	}
	CHECK(rx.next >= 10000, "only %" PRIu64 " received", rx.next);
	CHECK_OK(kill(pid, SIGKILL));
	while (rte_comch_client_state(cli, NULL) == RTE_COMCH_STATE_RUNNING &&
	       !test_expired(dl)) {
		fp_rx_poll(&rx);
		rte_comch_client_poll(cli);
	}
	CHECK_EQ(rte_comch_client_state(cli, &err), RTE_COMCH_STATE_STOPPING);
	CHECK_EQ(err, -ECONNRESET);
	do {
		r = fp_rx_poll(&rx);
	} while (r > 0);
	CHECK_EQ(r, -ECONNRESET);
	CHECK_EQ(rx.bad, 0);
	printf("  DPU killed after %" PRIu64 " fast-path messages\n", rx.next);
	CHECK_EQ(rte_comch_client_stop(cli), -EBUSY);
	fp_rx_close(&rx);
	CHECK_OK(rte_comch_client_stop(cli));
	CHECK_OK(rte_comch_client_destroy(cli));
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d",
		status);
	CHECK_EQ(test_count_fds(), fds_before);
	CHECK_OK(rte_vdev_uninit("comch_shm_hh"));
	rmdir(dir);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{ "million", test_million },
		{ "kill", test_kill },
		{ "fp_million", test_fp_million },
		{ "fp_kill_host", test_fp_kill_host },
		{ "fp_kill_dpu", test_fp_kill_dpu },
	};
	struct rte_comch_server_conf conf = {
		.name = "peers", .recv_queue_len = 256,
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.consumer_event_cb = fp_on_consumer, .cb_arg = &ev,
	};
	char vdev[256];
	const char *extra[] = { vdev, NULL };
	int ret;

	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		test_child_dies_with_parent();
	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2], argv[3], strtoull(argv[4], NULL, 10));

	self_path = argv[0];
	if (test_mkdtemp(link_dir, sizeof(link_dir)) < 0)
		return 1;
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_d,role=dpu,path=%s",
		link_dir);
	if (test_eal_init(argv[0], "peers", "0", extra) < 0)
		return 1;
	mp_srv = rte_comch_server_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_d"), &conf);
	if (mp_srv == NULL || rte_comch_server_start(mp_srv) < 0)
		return 1;
	ret = test_run_cases("peers", cases, RTE_DIM(cases));
	rte_comch_server_stop(mp_srv);
	rte_comch_server_destroy(mp_srv);
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
