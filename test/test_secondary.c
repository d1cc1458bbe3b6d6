/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Roles of the secondary-process suite; test_secondary.py starts them and
 * drives the scenario (it reads the lines each role prints, and writes a
 * line to a role's stdin when the role waits for one).
 *
 *   dpu LINKDIR        the peer: an emulated DPU (its own primary,
 *                      --no-huge) serving "sec". Per host connection it
 *                      creates NB_DPU_QUEUES consumer/producer pairs and
 *                      echoes every message back to the consumer named in
 *                      its immediate data, in order, and every control
 *                      message back as it came. Prints connections,
 *                      consumer events of the host, completions given up
 *                      (a dead producer's), and checks its consumers all
 *                      come back at teardown. "mark X" on stdin is printed
 *                      back; it exits when stdin closes.
 *   primary LINKDIR    the host primary (hugepages): one client connected
 *                      to "sec", polled until stdin closes; then it stops.
 *   evil PREFIX DEV CONN
 *                      a secondary that sends malformed and misdirected
 *                      requests to the library's rte_mp action (see
 *                      run_evil()).
 *   secondary PREFIX DEV CONN INDEX COUNT MODE
 *                      a host secondary: attaches to connection CONN,
 *                      checks what a secondary sees and may not do, makes
 *                      a consumer and a producer, sends COUNT messages to
 *                      the DPU's INDEX-th consumer and checks every echo
 *                      (order, content). MODE: "normal"; "pause" (waits
 *                      for a line on stdin before tearing down); "crash"
 *                      (dies inside a send, between claiming the peer's
 *                      buffers and filling them); "exit" (exits without
 *                      tearing anything down); "until-gone" (sends until
 *                      the primary is gone, then checks every call fails
 *                      cleanly and tears down); "churn" (makes and
 *                      unmakes its objects with some traffic each time,
 *                      until killed); "ctrl" (sends COUNT control
 *                      messages on the connection, each echoed by the DPU,
 *                      checks every echo, then waits for a line on stdin
 *                      and detaches); "ctrl-busy" (checks that another
 *                      secondary's control messages have the connection:
 *                      -EBUSY).
 *
 * Every role prints "FAIL ..." and exits non-zero when a check fails.
 */

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>

#include <rte_lcore.h>
#include <rte_memory.h>

#include "comch_test.h"
#include "comch_mp.h"
#include "comch_private.h"
#include "comch_shm.h"

#define NB_DPU_QUEUES 2
#define DPU_POSTS 64
#define SEC_POSTS 64
#define MSG_SIZE 64
#define GUARD_S 60

#define SAY(...) do { printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* Immediate data of a test message: who to echo to, and its number. */
struct tmsg_imm {
	uint32_t reply_to;
	uint32_t seq;
	uint32_t sender;
};

/* Payload byte i of message @p seq from sender @p who. */
static inline uint8_t
tmsg_byte(uint32_t who, uint32_t seq, uint32_t i)
{
	return (uint8_t)(who * 131 + seq * 7 + i);
}

/* Whether stdin has been closed (or has a line): polled, never blocks. */
static bool
stdin_event(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* ================================================================= dpu */

struct dpu_queue {
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	/* Completions not echoed yet (the target had no buffer): kept in
	 * order, so the echoes to one consumer stay in send order. */
	struct rte_comch_completion pend[DPU_POSTS];
	uint32_t pend_head, pend_len;
};

static struct {
	struct rte_comch_server *srv;
	struct rte_comch_conn *conn;
	struct dpu_queue q[NB_DPU_QUEUES];
	bool lost;
	int fail;
} dpu;

static void
dpu_on_connect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, void *a __rte_unused)
{
	struct rte_comch_consumer_conf cc = { .nb_posts = DPU_POSTS };
	uint32_t i, k, len = MSG_SIZE;
	void *b;

	if (dpu.conn != NULL) {
		SAY("FAIL dpu: a second connection");
		dpu.fail = 1;
		return;
	}
	dpu.conn = c;
	dpu.lost = false;
	for (i = 0; i < NB_DPU_QUEUES; i++) {
		struct dpu_queue *q = &dpu.q[i];

		memset(q, 0, sizeof(*q));
		q->mem = rte_comch_mem_create(rte_comch_get_dev_id_by_name(
				"comch_shm_dpu"), DPU_POSTS * MSG_SIZE, SOCKET_ID_ANY);
		cc.mem = q->mem;
		q->cons = q->mem != NULL ? rte_comch_consumer_create(c, &cc) : NULL;
		q->prod = rte_comch_producer_create(c, NULL);
		if (q->cons == NULL || q->prod == NULL ||
		    rte_comch_consumer_start(q->cons) < 0 ||
		    rte_comch_producer_start(q->prod) < 0) {
			SAY("FAIL dpu: queue %u: %s", i, rte_strerror(rte_errno));
			dpu.fail = 1;
			return;
		}
		for (k = 0; k < DPU_POSTS; k++) {
			b = (uint8_t *)rte_comch_mem_addr(q->mem) + k * MSG_SIZE;
			rte_comch_consumer_post_burst(q->cons, &b, &len, 1);
		}
	}
	SAY("dpu: connected %u", rte_comch_conn_id(c));
}

static void
dpu_on_disconnect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c __rte_unused, int err,
		void *a __rte_unused)
{
	dpu.lost = true;
	SAY("dpu: lost %d", err);
}

static void
dpu_on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event ev, void *a __rte_unused)
{
	SAY("dpu: consumer-%s %u", ev == RTE_COMCH_CONSUMER_CREATED ?
		"created" : "destroyed", id);
}

/* Echo what one queue received; returns work done. */
static int
dpu_queue_poll(struct dpu_queue *q)
{
	struct rte_comch_completion cpl[32];
	struct rte_comch_send_op op;
	struct tmsg_imm imm;
	uint32_t len = MSG_SIZE, aborted = 0;
	int n, i, k, work = 0;

	/* First what waits, in order. */
	while (q->pend_len != 0) {
		struct rte_comch_completion *p = &q->pend[q->pend_head];

		memcpy(&imm, p->imm, sizeof(imm));
		op = (struct rte_comch_send_op){ .data = p->buf, .len = p->len,
			.imm = p->imm, .imm_len = p->imm_len };
		k = rte_comch_producer_send_burst(q->prod, imm.reply_to, &op, 1);
		if (k == 0)
			return work;  /* no buffer there yet: again later */
		if (k < 0 && k != -ENOENT)
			return work;  /* the connection is lost */
		/* Sent, or its consumer is gone (dropped): buffer back. */
		rte_comch_consumer_post_burst(q->cons, &p->buf, &len, 1);
		q->pend_head = (q->pend_head + 1) % DPU_POSTS;
		q->pend_len--;
		work++;
	}
	n = rte_comch_consumer_poll_burst(q->cons, cpl, RTE_DIM(cpl));
	for (i = 0; i < n; i++) {
		if (cpl[i].status != 0) {
			/* Given up: its producer died before filling it. */
			aborted++;
			rte_comch_consumer_post_burst(q->cons, &cpl[i].buf, &len, 1);
			continue;
		}
		if (cpl[i].imm_len != sizeof(imm) || cpl[i].len != MSG_SIZE) {
			SAY("FAIL dpu: malformed message (imm %u, len %u)",
				cpl[i].imm_len, cpl[i].len);
			dpu.fail = 1;
			continue;
		}
		q->pend[(q->pend_head + q->pend_len) % DPU_POSTS] = cpl[i];
		q->pend_len++;
	}
	if (aborted != 0)
		SAY("dpu: aborted %u consumer %u", aborted,
			rte_comch_consumer_id(q->cons));
	return work + (n > 0 ? n : 0);
}

/* The host is gone: every consumer must come back to idle. */
static void
dpu_teardown(void)
{
	struct rte_comch_completion cpl[64];
	uint64_t dl = test_deadline(GUARD_S);
	uint32_t i;

	for (i = 0; i < NB_DPU_QUEUES; i++) {
		struct dpu_queue *q = &dpu.q[i];

		rte_comch_producer_stop(q->prod);
		rte_comch_producer_destroy(q->prod);
		rte_comch_consumer_stop(q->cons);
		while (rte_comch_consumer_state(q->cons) != RTE_COMCH_STATE_IDLE &&
		       !test_expired(dl))
			rte_comch_consumer_poll_burst(q->cons, cpl, RTE_DIM(cpl));
		if (rte_comch_consumer_state(q->cons) != RTE_COMCH_STATE_IDLE) {
			SAY("FAIL dpu: consumer %u never came back to idle",
				rte_comch_consumer_id(q->cons));
			dpu.fail = 1;
			return;
		}
		rte_comch_consumer_destroy(q->cons);
		rte_comch_mem_destroy(q->mem);
	}
	rte_comch_server_disconnect(dpu.srv, dpu.conn);
	dpu.conn = NULL;
	SAY("dpu: teardown ok");
}

/* Every control message back as it came (one at a time: the host waits
 * for each echo). */
static int
dpu_ctrl_echo(void)
{
	struct rte_comch_msg m[8];
	int n, i;

	n = rte_comch_msg_recv_burst(dpu.conn, m, RTE_DIM(m));
	for (i = 0; i < n; i++) {
		if (rte_comch_msg_send(dpu.conn, m[i].data, m[i].len) < 0) {
			SAY("FAIL dpu: cannot echo a control message");
			dpu.fail = 1;
		}
	}
	return n > 0 ? n : 0;
}

/* A line on stdin: "mark X" is printed back as "dpu: mark X" (after
 * everything printed before it). Returns false at the end of stdin. */
static bool
dpu_command(void)
{
	char line[64];

	if (fgets(line, sizeof(line), stdin) == NULL)
		return false;
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "mark ", 5) == 0)
		SAY("dpu: %s", line);
	return true;
}

static int
run_dpu(const char *prog, const char *linkdir)
{
	char vdev[256];
	const char *extra[] = { vdev, NULL };
	struct rte_comch_server_conf sc = { .name = "sec",
		.connect_cb = dpu_on_connect, .disconnect_cb = dpu_on_disconnect,
		.consumer_event_cb = dpu_on_consumer };
	uint32_t i;
	int work;

	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_dpu,role=dpu,path=%s",
		linkdir);
	if (test_eal_init(prog, "secdpu", "0", extra) < 0)
		return 10;
	dpu.srv = rte_comch_server_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu"), &sc);
	if (dpu.srv == NULL || rte_comch_server_start(dpu.srv) < 0)
		return 11;
	SAY("dpu: ready");
	while (!dpu.fail) {
		work = rte_comch_server_poll(dpu.srv);
		if (dpu.conn != NULL && !dpu.lost)
			work += dpu_ctrl_echo();
		if (dpu.conn != NULL && !dpu.lost)
			for (i = 0; i < NB_DPU_QUEUES; i++)
				work += dpu_queue_poll(&dpu.q[i]);
		if (dpu.conn != NULL && dpu.lost)
			dpu_teardown();
		if (work == 0) {
			if (stdin_event() && !dpu_command())
				break;
			sched_yield();
		}
	}
	if (dpu.conn != NULL && !dpu.fail) {
		SAY("FAIL dpu: still connected at the end");
		dpu.fail = 1;
	}
	rte_comch_server_stop(dpu.srv);
	rte_comch_server_destroy(dpu.srv);
	rte_eal_cleanup();
	return dpu.fail;
}

/* ============================================================= primary */

static int
run_primary(const char *prog, const char *linkdir, const char *prefix)
{
	char vdev[256], pfx[128];
	/* A fixed base far from libraries, stacks and the sanitizers' shadow
	 * memory, so that the secondaries can map the primary's memory at
	 * the same addresses. */
	const char *argv[] = { prog, "--lcores=0@(0-1)", "--no-pci", "-m", "64",
		"--base-virtaddr=0x200000000000", pfx, vdev,
		"--log-level=lib.eal:error", "--log-level=lib.telemetry:error",
		NULL };
	struct rte_comch_client_conf cc = { .server_name = "sec" };
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	uint64_t dl = test_deadline(GUARD_S);
	int16_t dev;
	int err, ret;

	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", prefix);
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_host,role=host,path=%s",
		linkdir);
	if (rte_eal_init((int)RTE_DIM(argv) - 1, (char **)(uintptr_t)argv) < 0)
		return 10;
	dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_host");
	cli = rte_comch_client_create(dev, &cc);
	if (cli == NULL)
		return 11;
	do {
		rte_comch_client_start(cli);
		while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING)
			rte_comch_client_poll(cli);
	} while (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_RUNNING &&
		 !test_expired(dl));
	conn = rte_comch_client_conn(cli);
	if (conn == NULL) {
		SAY("FAIL primary: cannot connect: %d", err);
		return 12;
	}
	/* A secondary attaches to it in the primary: refused. */
	if (rte_comch_conn_attach(dev, rte_comch_conn_id(conn)) != NULL ||
	    rte_errno != ENOTSUP) {
		SAY("FAIL primary: rte_comch_conn_attach in the primary");
		return 13;
	}
	SAY("primary: conn %d %u", dev, rte_comch_conn_id(conn));
	/* The control path only: the secondaries' traffic does not need
	 * this process, so it polls gently. */
	while (!stdin_event()) {
		rte_comch_client_poll(cli);
		rte_delay_us_sleep(200);
	}
	ret = rte_comch_client_stop(cli);
	if (ret < 0) {
		SAY("FAIL primary: stop: %s", rte_strerror(-ret));
		return 14;
	}
	rte_comch_client_destroy(cli);
	rte_eal_cleanup();
	SAY("primary: stopped");
	return 0;
}

/* =========================================================== secondary */

enum sec_mode { SEC_NORMAL, SEC_PAUSE, SEC_CRASH, SEC_EXIT, SEC_UNTIL_GONE,
	SEC_CHURN, SEC_CTRL, SEC_CTRL_BUSY };

struct sec {
	int16_t dev;
	uint32_t conn_id, index;
	uint64_t count;
	enum sec_mode mode;
	struct rte_comch_conn *conn;
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	uint32_t target;
	uint64_t sent, received;
};

/* What a secondary sees of the primary's device, and what it may not do. */
static int
sec_checks(struct sec *s)
{
	struct rte_comch_server_conf sc = { .name = "x" };
	struct rte_comch_client_conf cc = { .server_name = "x" };
	struct rte_comch_dev_info info;
	uint32_t ids[8];
	uint32_t v = 0;
	int n;

	CHECK_EQ(rte_comch_dev_count(), 1);
	CHECK_EQ(rte_comch_get_dev_id_by_name("comch_shm_host"), s->dev);
	CHECK_OK(rte_comch_info_get(s->dev, &info));
	CHECK_EQ(info.role, RTE_COMCH_ROLE_HOST);
	CHECK(info.caps.flags & RTE_COMCH_CAPA_PRODUCER, "caps");
	test_log_reset();
	CHECK(rte_comch_client_create(s->dev, &cc) == NULL &&
	      rte_errno == ENOTSUP, "client in a secondary");
	CHECK(test_log_has("not supported in a secondary process"),
		"no log line says why");
	CHECK(rte_comch_server_create(s->dev, &sc) == NULL &&
	      rte_errno == ENOTSUP, "server in a secondary");
	n = rte_comch_conn_list(s->dev, ids, RTE_DIM(ids));
	CHECK(n == 1 && ids[0] == s->conn_id, "conn list: %d", n);
	CHECK(rte_comch_conn_attach(s->dev, s->conn_id + 1000) == NULL &&
	      rte_errno == ENOENT, "attach to no connection");

	s->conn = rte_comch_conn_attach(s->dev, s->conn_id);
	CHECK(s->conn != NULL, "attach: %s", rte_strerror(rte_errno));
	CHECK_EQ(rte_comch_conn_id(s->conn), s->conn_id);
	CHECK(rte_comch_conn_attach(s->dev, s->conn_id) == NULL &&
	      rte_errno == EEXIST, "second attach");
	/* above the connection's size: refused before anything is read */
	CHECK_EQ(rte_comch_msg_send(s->conn, &v, 5000), -EMSGSIZE);
	CHECK_EQ(rte_comch_conn_user_data_set(s->conn, v), -ENOTSUP);
	return 0;
}

static int
sec_setup(struct sec *s)
{
	struct rte_comch_consumer_conf cc = { .nb_posts = SEC_POSTS };
	uint64_t dl = test_deadline(GUARD_S);
	uint32_t ids[8], k, len = MSG_SIZE;
	void *b;
	int n;

	s->mem = rte_comch_mem_create(s->dev, SEC_POSTS * MSG_SIZE,
			SOCKET_ID_ANY);
	CHECK(s->mem != NULL, "mem: %s", rte_strerror(rte_errno));
	cc.mem = s->mem;
	s->cons = rte_comch_consumer_create(s->conn, &cc);
	CHECK(s->cons != NULL, "consumer: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_consumer_start(s->cons));
	for (k = 0; k < SEC_POSTS; k++) {
		b = (uint8_t *)rte_comch_mem_addr(s->mem) + k * MSG_SIZE;
		CHECK_EQ(rte_comch_consumer_post_burst(s->cons, &b, &len, 1), 1);
	}
	s->prod = rte_comch_producer_create(s->conn, NULL);
	CHECK(s->prod != NULL, "producer: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_producer_start(s->prod));
	/* The DPU's consumers, made reachable from this process. */
	do
		n = rte_comch_conn_remote_consumers(s->conn, ids, RTE_DIM(ids));
	while (n >= 0 && n < NB_DPU_QUEUES && !test_expired(dl));
	CHECK(n >= NB_DPU_QUEUES, "remote consumers: %d", n);
	s->target = ids[s->index];
	SAY("sec%u: running consumer %u producer %u target %u", s->index,
		rte_comch_consumer_id(s->cons), rte_comch_producer_id(s->prod),
		s->target);
	return 0;
}

/* Take echoes: each must be the next one, unchanged. Returns the number
 * taken, or a negative errno from the poll. */
static int
sec_receive(struct sec *s)
{
	struct rte_comch_completion cpl[32];
	struct tmsg_imm imm;
	uint32_t i, j, len = MSG_SIZE;
	int n;

	n = rte_comch_consumer_poll_burst(s->cons, cpl, RTE_DIM(cpl));
	for (i = 0; n > 0 && i < (uint32_t)n; i++) {
		const uint8_t *p = cpl[i].buf;

		memcpy(&imm, cpl[i].imm, sizeof(imm));
		if (cpl[i].status != 0 || cpl[i].len != MSG_SIZE ||
		    cpl[i].imm_len != sizeof(imm) || imm.seq != s->received ||
		    imm.sender != s->index) {
			SAY("FAIL sec%u: echo %" PRIu64 ": status %d len %u seq %u sender %u reply_to %u (consumer %u)",
				s->index, s->received, cpl[i].status,
				cpl[i].len, imm.seq, imm.sender, imm.reply_to,
				rte_comch_consumer_id(s->cons));
			return -EIO;
		}
		for (j = 0; j < MSG_SIZE; j++) {
			if (p[j] != tmsg_byte(s->index, imm.seq, j)) {
				SAY("FAIL sec%u: echo %u: byte %u", s->index,
					imm.seq, j);
				return -EIO;
			}
		}
		s->received++;
		rte_comch_consumer_post_burst(s->cons, &cpl[i].buf, &len, 1);
	}
	return n;
}

/* Send the next messages (at most SEC_POSTS unanswered, so every echo
 * has a buffer). Returns the number sent or a negative errno. */
static int
sec_send(struct sec *s, uint8_t (*payload)[MSG_SIZE])
{
	struct rte_comch_send_op ops[16];
	struct tmsg_imm imm[16];
	uint32_t n, i, j;
	int k;

	n = (uint32_t)RTE_MIN(RTE_MIN(s->count - s->sent,
			(uint64_t)SEC_POSTS - (s->sent - s->received)),
			(uint64_t)RTE_DIM(ops));
	for (i = 0; i < n; i++) {
		uint32_t seq = (uint32_t)(s->sent + i);

		for (j = 0; j < MSG_SIZE; j++)
			payload[i][j] = tmsg_byte(s->index, seq, j);
		imm[i] = (struct tmsg_imm){ .reply_to =
			rte_comch_consumer_id(s->cons), .seq = seq,
			.sender = s->index };
		ops[i] = (struct rte_comch_send_op){ .data = payload[i],
			.len = MSG_SIZE, .imm = &imm[i], .imm_len = sizeof(imm[i]) };
	}
	k = n == 0 ? 0 : rte_comch_producer_send_burst(s->prod, s->target, ops,
			(uint16_t)n);
	if (k > 0)
		s->sent += (uint64_t)k;
	return k;
}

/* Die inside a send: the first payload cannot be read, so the producer
 * faults after claiming the peer's buffers and before filling any. */
static void
sec_crash(struct sec *s)
{
	struct rte_comch_send_op ops[4];
	struct tmsg_imm imm = { .reply_to = rte_comch_consumer_id(s->cons) };
	void *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	uint32_t i;

	for (i = 0; i < RTE_DIM(ops); i++)
		ops[i] = (struct rte_comch_send_op){ .data = bad,
			.len = MSG_SIZE, .imm = &imm, .imm_len = sizeof(imm) };
	SAY("sec%u: crashing", s->index);
	/* Core dumps of a test's deliberate crash help no one. */
	signal(SIGSEGV, SIG_DFL);
	rte_comch_producer_send_burst(s->prod, s->target, ops, RTE_DIM(ops));
	SAY("FAIL sec%u: survived the crash", s->index);
	_exit(20);
}

/* The primary is gone: everything fails cleanly, teardown completes. */
static int
sec_primary_gone(struct sec *s, int err)
{
	struct rte_comch_completion cpl[32];
	struct rte_comch_send_op op = { .data = cpl, .len = 8 };
	struct rte_comch_conn_stats st;
	uint64_t dl = test_deadline(GUARD_S);
	uint32_t ids[4];
	int n;

	CHECK(err == -ECONNRESET, "first failure %d, not -ECONNRESET", err);
	CHECK_EQ(rte_comch_producer_send_burst(s->prod, s->target, &op, 1),
		-ECONNRESET);
	/* Completions written before are still returned, then -ECONNRESET. */
	do
		n = rte_comch_consumer_poll_burst(s->cons, cpl, RTE_DIM(cpl));
	while (n > 0 && !test_expired(dl));
	CHECK_EQ(n, -ECONNRESET);
	CHECK_EQ(rte_comch_conn_list(s->dev, ids, RTE_DIM(ids)), -ENODEV);
	CHECK_EQ(rte_comch_conn_stats_get(s->conn, &st), -ENODEV);
	CHECK(rte_comch_producer_create(s->conn, NULL) == NULL &&
	      rte_errno == ENODEV, "producer after the primary");
	CHECK(rte_comch_conn_attach(s->dev, s->conn_id) == NULL, "attach");
	SAY("sec%u: primary gone, calls fail cleanly", s->index);
	return 0;
}

static int
sec_teardown(struct sec *s)
{
	struct rte_comch_completion cpl[32];
	uint64_t dl = test_deadline(GUARD_S);

	CHECK_OK(rte_comch_producer_stop(s->prod));
	CHECK_OK(rte_comch_producer_destroy(s->prod));
	CHECK_OK(rte_comch_consumer_stop(s->cons));
	while (rte_comch_consumer_state(s->cons) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl))
		rte_comch_consumer_poll_burst(s->cons, cpl, RTE_DIM(cpl));
	CHECK_EQ(rte_comch_consumer_state(s->cons), RTE_COMCH_STATE_IDLE);
	if (s->mode != SEC_UNTIL_GONE)
		CHECK_EQ(rte_comch_conn_detach(s->conn), -EBUSY);
	CHECK_OK(rte_comch_consumer_destroy(s->cons));
	CHECK_OK(rte_comch_mem_destroy(s->mem));
	CHECK_OK(rte_comch_conn_detach(s->conn));
	return 0;
}

static int
sec_traffic(struct sec *s)
{
	static uint8_t payload[16][MSG_SIZE];
	uint64_t dl = test_deadline(GUARD_S), shown = 0;
	int k, r;

	while (s->received < s->count) {
		if (s->mode == SEC_CRASH && s->received >= 100)
			sec_crash(s);
		k = sec_send(s, payload);
		r = sec_receive(s);
		if (k < 0 || r < 0) {
			if (s->mode == SEC_UNTIL_GONE)
				return sec_primary_gone(s, k < 0 ? k : r);
			SAY("FAIL sec%u: send %d receive %d after %" PRIu64 " echoes",
				s->index, k, r, s->received);
			return -1;
		}
		if (k == 0 && r == 0) {
			if (s->mode != SEC_UNTIL_GONE && test_expired(dl)) {
				SAY("FAIL sec%u: stuck at %" PRIu64 " of %" PRIu64 " echoes",
					s->index, s->received, s->count);
				return -1;
			}
			sched_yield();
		}
		if (s->received >= shown + 1000) {
			shown = s->received;
			SAY("sec%u: progress %" PRIu64, s->index, s->received);
		}
	}
	SAY("sec%u: done %" PRIu64, s->index, s->received);
	return 0;
}

/* Until killed: objects made and unmade, with some traffic each time, so
 * that a kill lands anywhere in their lives. */
static int
sec_churn(struct sec *s)
{
	static uint8_t payload[16][MSG_SIZE];
	uint64_t rounds = 0;

	SAY("sec%u: churning", s->index);
	for (;;) {
		s->sent = 0;
		s->received = 0;
		s->count = 200;
		if (sec_setup(s) < 0)
			return -1;
		while (s->received < s->count) {
			if (sec_send(s, payload) < 0 || sec_receive(s) < 0)
				return -1;
		}
		if (sec_teardown(s) < 0)
			return -1;
		s->conn = rte_comch_conn_attach(s->dev, s->conn_id);
		CHECK(s->conn != NULL, "attach again");
		if (++rounds % 10 == 0)
			SAY("sec%u: churned %" PRIu64, s->index, rounds);
	}
}

/* Control messages from a secondary, through the library: each echoed
 * by the DPU, in order, unchanged; then, after a line on stdin, the
 * connection is the primary's again (detach). "ctrl-busy": another
 * secondary has the connection's control messages. */
static int
sec_ctrl(struct sec *s)
{
	uint64_t dl = test_deadline(GUARD_S);
	struct rte_comch_msg m[4];
	uint32_t k, v, got;
	char line[16];
	int n;

	if (s->mode == SEC_CTRL_BUSY) {
		v = 1;
		CHECK_EQ(rte_comch_msg_send(s->conn, &v, sizeof(v)), -EBUSY);
		CHECK_EQ(rte_comch_msg_recv_burst(s->conn, m, 1), -EBUSY);
		CHECK_OK(rte_comch_conn_detach(s->conn));
		SAY("sec%u: ctrl busy ok", s->index);
		return 0;
	}
	for (k = 0; k < s->count; k++) {
		v = s->index << 24 | k;
		/* -EBUSY: the last secondary's relay is being freed by the
		 * primary's next poll */
		while (((n = rte_comch_msg_send(s->conn, &v, sizeof(v))) ==
			-EAGAIN || (n == -EBUSY && k == 0)) && !test_expired(dl))
			sched_yield();
		CHECK_OK(n);
		do
			n = rte_comch_msg_recv_burst(s->conn, m, RTE_DIM(m));
		while (n == 0 && !test_expired(dl));
		CHECK(n == 1, "echo %u: %d messages", k, n);
		CHECK_EQ(m[0].len, sizeof(v));
		memcpy(&got, m[0].data, sizeof(got));
		CHECK_EQ(got, v);
	}
	SAY("sec%u: ctrl done %" PRIu64, s->index, s->count);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return -1;
	CHECK_OK(rte_comch_conn_detach(s->conn));
	rte_eal_cleanup();
	SAY("sec%u: ok", s->index);
	return 0;
}

static int
run_secondary(const char *prog, int argc, char **argv)
{
	static const char * const modes[] = { "normal", "pause", "crash",
		"exit", "until-gone", "churn", "ctrl", "ctrl-busy" };
	char pfx[128], lcores[32], line[16];
	const char *eal[] = { prog, lcores, "--proc-type=secondary", pfx,
		"--no-pci", "--no-telemetry", "--log-level=lib.eal:error", NULL };
	struct sec s = { 0 };
	unsigned int m;

	if (argc != 6)
		return 2;
	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", argv[0]);
	s.dev = (int16_t)atoi(argv[1]);
	s.conn_id = (uint32_t)strtoul(argv[2], NULL, 10);
	s.index = (uint32_t)atoi(argv[3]);
	s.count = strtoull(argv[4], NULL, 10);
	for (m = 0; m < RTE_DIM(modes) && strcmp(argv[5], modes[m]) != 0; m++)
		;
	if (m == RTE_DIM(modes) || s.index >= NB_DPU_QUEUES)
		return 2;
	s.mode = (enum sec_mode)m;
	/* Its own lcore id, on whichever CPU is free. */
	snprintf(lcores, sizeof(lcores), "--lcores=%u@(0-1)", 2 + s.index);

	test_log_capture_init();
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	if (sec_checks(&s) < 0)
		return 1;
	if (s.mode == SEC_CHURN)
		return sec_churn(&s) < 0 ? 1 : 0;
	if (s.mode == SEC_CTRL || s.mode == SEC_CTRL_BUSY)
		return sec_ctrl(&s) < 0 ? 1 : 0;
	if (sec_setup(&s) < 0 || sec_traffic(&s) < 0)
		return 1;
	if (s.mode == SEC_EXIT) {
		/* Leaves everything behind on purpose (hence no leak check
		 * at exit): the primary must reclaim it. */
		SAY("sec%u: exiting without teardown", s.index);
		_exit(0);
	}
	if (s.mode == SEC_PAUSE && fgets(line, sizeof(line), stdin) == NULL)
		return 3;
	if (sec_teardown(&s) < 0)
		return 1;
	rte_eal_cleanup();
	SAY("sec%u: ok", s.index);
	return 0;
}

/* ================================================== an evil secondary */

/* The size of a consumer ring of @p depth posts (comch_shm.h). */
static size_t
ring_size_of(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		(size_t)rte_align32pow2(depth) * sizeof(struct shm_post_slot),
		(size_t)sysconf(_SC_PAGESIZE));
}

/* Send @p req (@p len bytes: more are zeros) to the library's action,
 * with @p nfds fds; the reply in @p reply (if not NULL) and its first fd in
 * @p fd (if not NULL; others are closed). Returns the primary's result,
 * INT_MIN if it does not answer properly. */
static int
evil_call_fd(const struct comch_mp_request *req, int len, const int *fds,
		int nfds, struct comch_mp_reply *reply, int *fd)
{
	struct timespec ts = { .tv_sec = 10 };
	struct rte_mp_reply replies = { 0 };
	struct rte_mp_msg msg = { 0 };
	struct comch_mp_reply r;
	int i, ret = INT_MIN;

	strcpy(msg.name, COMCH_MP_ACTION);
	msg.len_param = len;
	memcpy(msg.param, req, RTE_MIN(sizeof(*req), sizeof(msg.param)));
	msg.num_fds = nfds;
	for (i = 0; i < nfds; i++)
		msg.fds[i] = fds[i];
	if (fd != NULL)
		*fd = -1;
	if (rte_mp_request_sync(&msg, &replies, &ts) == 0 &&
	    replies.nb_received == 1) {
		const struct rte_mp_msg *m = &replies.msgs[0];

		for (i = 0; i < m->num_fds; i++) {
			if (i == 0 && fd != NULL)
				*fd = m->fds[0];
			else
				close(m->fds[i]);
		}
		if (m->len_param == (int)sizeof(r)) {
			memcpy(&r, m->param, sizeof(r));
			ret = r.result;
			if (reply != NULL)
				*reply = r;
		}
	}
	free(replies.msgs);
	return ret;
}

static int
evil_call(const struct comch_mp_request *req, int len, const int *fds, int nfds,
		struct comch_mp_reply *reply)
{
	return evil_call_fd(req, len, fds, nfds, reply, NULL);
}

static void
evil_req(struct comch_mp_request *req, uint16_t type, uint32_t token,
		int16_t dev, uint32_t conn)
{
	memset(req, 0, sizeof(*req));
	req->version = COMCH_MP_VERSION;
	req->type = type;
	req->token = token;
	req->dev_id = dev;
	req->conn_id = conn;
}

/*
 * Malformed and misdirected requests, each refused with the documented
 * error; the primary carries on (the orchestrator then checks it leaked no
 * fd and serves the next secondaries). The process first gets a legitimate
 * identity (A: its device attach registered it, it attaches the
 * connection and owns a producer and a consumer), then a second one (B)
 * with a REGISTER of its own, whose requests the primary must judge on
 * their own.
 */
static int
run_evil(const char *prog, int argc, char **argv)
{
	char pfx[128];
	const char *eal[] = { prog, "--lcores=6@(0-1)", "--proc-type=secondary",
		pfx, "--no-pci", "--log-level=lib.eal:error", NULL };
	struct rte_comch_consumer_conf cc = { .nb_posts = 4 };
	struct rte_comch_consumer *a_cons;
	struct rte_comch_producer *a_prod;
	struct rte_comch_mem *mem;
	struct rte_comch_conn *conn;
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	uint32_t conn_id, tb, b_cons;
	int16_t dev;
	int nulls[5], mfd[2], live_b, i;
	void *addr;

	if (argc != 3)
		return 2;
	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", argv[0]);
	dev = (int16_t)atoi(argv[1]);
	conn_id = (uint32_t)strtoul(argv[2], NULL, 10);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	/* A: legitimate */
	conn = rte_comch_conn_attach(dev, conn_id);
	CHECK(conn != NULL, "attach");
	mem = rte_comch_mem_create(dev, 4096, SOCKET_ID_ANY);
	cc.mem = mem;
	a_cons = rte_comch_consumer_create(conn, &cc);
	a_prod = rte_comch_producer_create(conn, NULL);
	CHECK(a_cons != NULL && a_prod != NULL, "A's objects");
	CHECK_OK(rte_comch_consumer_start(a_cons));

	/* B: a second registration of the same process */
	evil_req(&req, COMCH_MP_REGISTER, 0, 0, 0);
	CHECK_EQ(evil_call_fd(&req, sizeof(req), NULL, 0, &reply, &live_b), 0);
	tb = reply.token;
	CHECK(live_b >= 0, "B's liveness socket");

	/* the message itself */
	evil_req(&req, COMCH_MP_CONN_LIST, tb, dev, 0);
	CHECK_EQ(evil_call(&req, 10, NULL, 0, NULL), -EINVAL);
	CHECK_EQ(evil_call(&req, sizeof(req) + 1, NULL, 0, NULL), -EINVAL);
	for (i = 0; i < 5; i++)
		nulls[i] = open("/dev/null", O_RDONLY);
	CHECK_EQ(evil_call(&req, sizeof(req), nulls, 5, NULL), -EINVAL);
	req.version = COMCH_MP_VERSION + 1;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EPROTO);
	/* who sends it */
	evil_req(&req, COMCH_MP_CONN_LIST, tb + 1000, dev, 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EPERM);
	evil_req(&req, COMCH_MP_CONN_LIST, 0, dev, 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EPERM);
	/* what it names */
	for (i = 0; i < 3; i++) {
		static const int16_t bad_dev[] = { -1, RTE_COMCH_MAX_DEVS, 32767 };

		evil_req(&req, COMCH_MP_CONN_LIST, tb, bad_dev[i], 0);
		CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	}
	evil_req(&req, 0, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	evil_req(&req, COMCH_MP__MAX, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	evil_req(&req, COMCH_MP_CONN_LIST, tb, dev, 0);
	req.arg[0] = UINT32_MAX;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, &reply), 0);
	CHECK_EQ(reply.count, 0);
	evil_req(&req, COMCH_MP_CONN_ATTACH, tb, dev, conn_id + 1000);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	/* a connection B has not attached */
	evil_req(&req, COMCH_MP_FP_ALLOC, tb, dev, conn_id);
	req.kind = COMCH_FP_PRODUCER;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOTCONN);
	evil_req(&req, COMCH_MP_CONN_STATS, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOTCONN);
	evil_req(&req, COMCH_MP_CONN_ATTACH, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EEXIST);
	/* objects: bad kinds and sizes, and A's, which B does not own */
	evil_req(&req, COMCH_MP_FP_ALLOC, tb, dev, conn_id);
	req.kind = 7;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.kind = COMCH_FP_PRODUCER;
	req.arg[0] = 5;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.kind = COMCH_FP_CONSUMER;
	req.arg[0] = 0;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ERANGE);
	req.arg[0] = 1000000;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ERANGE);
	req.arg[0] = 4;
	req.arg[1] = 1000;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ERANGE);
	evil_req(&req, COMCH_MP_FP_FREE, tb, dev, conn_id);
	req.kind = COMCH_FP_PRODUCER;
	req.obj_id = rte_comch_producer_id(a_prod);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	req.obj_id = 9999;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	evil_req(&req, COMCH_MP_WITHDRAW, tb, dev, conn_id);
	req.obj_id = rte_comch_consumer_id(a_cons);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	/* the peer's consumers: 0 is never a consumer id, nor an
	 * incarnation; an id the peer never announced */
	evil_req(&req, COMCH_MP_REMOTE_EXPORT, tb, dev, conn_id);
	req.gen = 1;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.obj_id = 9999;
	req.gen = 0;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.gen = UINT64_MAX;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.gen = 1;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	/* announcements: of no consumer, with a count of fds that is not
	 * what comes with it */
	evil_req(&req, COMCH_MP_ANNOUNCE, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.xfer.nb_fds = 1000;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	/* B's own consumer, announced with fds that are not what they say */
	evil_req(&req, COMCH_MP_FP_ALLOC, tb, dev, conn_id);
	req.kind = COMCH_FP_CONSUMER;
	req.arg[0] = 4;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, &reply), 0);
	addr = (void *)(uintptr_t)reply.addr;
	b_cons = ((struct rte_comch_consumer *)addr)->id;
	evil_req(&req, COMCH_MP_ANNOUNCE, tb, dev, conn_id);
	req.obj_id = b_cons;
	req.xfer.val[0] = 4;                  /* nb_posts */
	req.xfer.val[1] = 0;                  /* max_imm_len */
	req.xfer.val[2] = ring_size_of(4);    /* ring_size */
	req.xfer.val[3] = 4096;               /* mem_size */
	req.xfer.nb_fds = 2;
	CHECK_EQ(evil_call(&req, sizeof(req), nulls, 2, NULL), -EINVAL);
	req.xfer.nb_fds = 1;
	CHECK_EQ(evil_call(&req, sizeof(req), nulls, 1, NULL), -EINVAL);
	mfd[0] = memfd_create("evil", MFD_ALLOW_SEALING);
	mfd[1] = memfd_create("evil", MFD_ALLOW_SEALING);
	CHECK(ftruncate(mfd[0], 4096) == 0 && ftruncate(mfd[1], 4096) == 0,
		"memfds");
	/* right kind, unsealed */
	req.xfer.nb_fds = 2;
	CHECK_EQ(evil_call(&req, sizeof(req), mfd, 2, NULL), -EINVAL);
	req.xfer.val[3] = UINT64_MAX;
	CHECK_EQ(evil_call(&req, sizeof(req), mfd, 2, NULL), -EINVAL);
	evil_req(&req, COMCH_MP_FP_FREE, tb, dev, conn_id);
	req.kind = COMCH_FP_CONSUMER;
	req.obj_id = b_cons;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), 0);
	evil_req(&req, COMCH_MP_CONN_DETACH, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOTCONN);
	for (i = 0; i < 5; i++)
		close(nulls[i]);
	close(mfd[0]);
	close(mfd[1]);
	/* B hangs up; A still works, then tears down */
	close(live_b);
	CHECK_OK(rte_comch_producer_start(a_prod));
	CHECK_OK(rte_comch_producer_stop(a_prod));
	CHECK_OK(rte_comch_producer_destroy(a_prod));
	CHECK_OK(rte_comch_consumer_stop(a_cons));
	CHECK_EQ(rte_comch_consumer_state(a_cons), RTE_COMCH_STATE_IDLE);
	CHECK_OK(rte_comch_consumer_destroy(a_cons));
	CHECK_OK(rte_comch_mem_destroy(mem));
	CHECK_OK(rte_comch_conn_detach(conn));
	rte_eal_cleanup();
	SAY("evil: every request refused as documented");
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "dpu") == 0)
		return run_dpu(argv[0], argv[2]);
	if (argc == 4 && strcmp(argv[1], "primary") == 0)
		return run_primary(argv[0], argv[2], argv[3]);
	if (argc >= 2 && strcmp(argv[1], "secondary") == 0)
		return run_secondary(argv[0], argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "evil") == 0)
		return run_evil(argv[0], argc - 2, argv + 2) == 0 ? 0 : 1;
	fprintf(stderr, "usage: %s dpu LINKDIR | primary LINKDIR PREFIX | secondary PREFIX DEV CONN INDEX COUNT MODE | evil PREFIX DEV CONN\n",
		argv[0]);
	return 2;
}
