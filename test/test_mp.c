/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Control path across separate processes, each its own DPDK primary as a
 * real host and DPU are: this process is the DPU (server), hosts are
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

#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

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

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

/* ------------------------------------------------------------- the host */

static int
child_main(const char *mode, const char *dir, uint64_t n)
{
	char vdev[256], prefix[64];
	const char *eal[] = { "child", "-l", "1", "--no-huge", "--no-pci",
		"-m", "64", "--log-level=lib.eal:error",
		"--log-level=lib.telemetry:error", prefix, vdev, NULL };
	struct rte_comch_client_conf conf = { .server_name = "mp" };
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	struct rte_comch_conn_stats st;
	struct rte_comch_msg msgs[32];
	uint8_t buf[MSG_MIN + MSG_SPREAD];
	uint64_t sent = 0, recvd = 0, deadline;
	int i, r, err;

	snprintf(prefix, sizeof(prefix), "--file-prefix=mp-child-%d", getpid());
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_h,role=host,path=%s", dir);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	cli = rte_comch_client_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_h"), &conf);
	if (cli == NULL || rte_comch_client_start(cli) < 0)
		return 11;
	deadline = test_deadline(30);
	while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING &&
	       !test_expired(deadline))
		rte_comch_client_poll(cli);
	conn = rte_comch_client_conn(cli);
	if (conn == NULL) {
		printf("child: not connected: %s\n", rte_strerror(-err));
		return 12;
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
		deadline = test_deadline(60);
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
	uint64_t dl = test_deadline(30);

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
	fds_before = count_fds();
	pid = spawn_child("flood", 0);
	CHECK(pid > 0, "spawn");
	CHECK_OK(wait_connected(1));

	dl = test_deadline(60);
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
	printf("  host killed after %" PRIu64 " messages were delivered, %u connections\n", recvd, rte_comch_server_conn_count(mp_srv));
	CHECK_OK(rte_comch_server_disconnect(mp_srv, ev.conn));
	CHECK_EQ(rte_comch_server_conn_count(mp_srv), 0);
	CHECK_OK(child_status(pid, &status));
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d",
		status);
	CHECK_EQ(count_fds(), fds_before);

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
	CHECK_EQ(count_fds(), fds_before);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{ "million", test_million },
		{ "kill", test_kill },
	};
	struct rte_comch_server_conf conf = {
		.name = "mp", .recv_queue_len = 256,
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.cb_arg = &ev,
	};
	char vdev[256];
	const char *extra[] = { vdev, NULL };
	int ret;

	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2], argv[3], strtoull(argv[4], NULL, 10));

	self_path = argv[0];
	if (test_mkdtemp(link_dir, sizeof(link_dir)) < 0)
		return 1;
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_d,role=dpu,path=%s",
		link_dir);
	if (test_eal_init(argv[0], "mp", "0", extra) < 0)
		return 1;
	mp_srv = rte_comch_server_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_d"), &conf);
	if (mp_srv == NULL || rte_comch_server_start(mp_srv) < 0)
		return 1;
	ret = test_run_cases("mp", cases, RTE_DIM(cases));
	rte_comch_server_stop(mp_srv);
	rte_comch_server_destroy(mp_srv);
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
