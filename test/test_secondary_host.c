/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The secondary-process suite's host secondary (test_secondary.c lists
 * the roles): attaches to the primary's connection, checks what a
 * secondary sees and may not do, and runs one mode: traffic with the
 * DPU's echo, control messages, crashes, kills, churn, a dead primary.
 */

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>

#include <rte_lcore.h>
#include <rte_memory.h>

#include "comch_test.h"
#include "test_secondary.h"

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
		if (k > 0 || r > 0) {
			/* the guard is for a stall: no progress at all */
			dl = test_deadline(GUARD_S);
		} else {
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
		/* the guard is for a stall: each round trip has it whole */
		dl = test_deadline(GUARD_S);
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
		if ((k + 1) % 50 == 0)
			SAY("sec%u: ctrl progress %u", s->index, k + 1);
	}
	SAY("sec%u: ctrl done %" PRIu64, s->index, s->count);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return -1;
	CHECK_OK(rte_comch_conn_detach(s->conn));
	rte_eal_cleanup();
	SAY("sec%u: ok", s->index);
	return 0;
}

int
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

