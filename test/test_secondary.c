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
 * This file has the dispatch and the two peers of the scenario (the DPU,
 * the host primary); test_secondary_host.c the secondary,
 * test_secondary_evil.c the evil one.
 */

#include <sched.h>

#include <rte_lcore.h>
#include <rte_memory.h>

#include "comch_test.h"
#include "test_secondary.h"

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

int
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

int
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
