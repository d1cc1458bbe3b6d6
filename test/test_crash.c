/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Crash loop: the other side is SIGKILLed at a random point of its life
 * (EAL start-up, connect, control traffic, consumer creation, fast-path
 * traffic, consumer teardown), 30 times as the host and 20 times as the
 * DPU. The survivor (this process) must report the loss, free everything
 * (fd count back to where it was, resident memory not growing across
 * iterations) and accept the next connection.
 *
 * Nothing confirmed is lost or duplicated: the child publishes how many
 * control messages it received in order (and whether it ever saw a gap or
 * a duplicate) in a shared page; after the kill, what this side sent,
 * minus what is still in flight, must not exceed what the child received.
 */

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <rte_memory.h>

#include "comch_test.h"

extern char **environ;

#define HOST_KILLS 30
#define DPU_KILLS 20

/* Resident memory growth allowed between iteration 10 and the last. Under
 * AddressSanitizer freed memory sits in its quarantine and resident memory
 * grows by design; LeakSanitizer checks for leaks there instead. */
#ifdef __SANITIZE_ADDRESS__
#define RSS_GROWTH_KIB LONG_MAX
#else
#define RSS_GROWTH_KIB 2048
#endif

/* What the child publishes (a file in /dev/shm both map). */
struct crash_board {
	volatile uint64_t received;   /* control messages, in order */
	volatile uint64_t bad;        /* gaps or duplicates seen */
	volatile uint32_t phase;      /* how far it got, for the log */
};

static const char *self_path;
static char link_dir[64];
static char board_path[64];
static struct crash_board *board;

static struct crash_board *
board_map(const char *path, bool create)
{
	int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0),
			0600);
	void *p;

	if (fd < 0 || (create && ftruncate(fd, 4096) < 0))
		return NULL;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------------ the child */

static uint32_t peer_consumer = UINT32_MAX;
static struct rte_comch_conn *child_conn;

static void
child_on_consumer(struct rte_comch_conn *c, uint32_t id,
		enum rte_comch_consumer_event e, void *a __rte_unused)
{
	child_conn = c;
	peer_consumer = e == RTE_COMCH_CONSUMER_CREATED ? id : UINT32_MAX;
}

static void
child_on_connect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, void *a __rte_unused)
{
	child_conn = c;
}

/* Take control messages in order, publish the count. */
static void
child_recv(struct crash_board *b)
{
	struct rte_comch_msg m[32];
	uint64_t seq;
	int n, i;

	if (child_conn == NULL)
		return;
	n = rte_comch_msg_recv_burst(child_conn, m, 32);
	for (i = 0; i < n; i++) {
		memcpy(&seq, m[i].data, sizeof(seq));
		if (m[i].len != sizeof(seq) || seq != b->received)
			b->bad++;
		b->received++;
	}
}

/* Churn: a consumer comes and goes, a producer sends to the peer's. */
static void
child_churn(int16_t dev, struct crash_board *b, uint64_t *round)
{
	static struct rte_comch_consumer *cons;
	static struct rte_comch_producer *prod;
	static struct rte_comch_mem *mem;
	struct rte_comch_consumer_conf cc = { .nb_posts = 8 };
	struct rte_comch_completion cpl[8];
	struct rte_comch_send_op op = { .data = "payload", .len = 7 };

	if (child_conn == NULL)
		return;
	(*round)++;
	if (mem == NULL)
		mem = rte_comch_mem_create(dev, 8 * 64, SOCKET_ID_ANY);
	if (cons == NULL && (*round % 64) == 1) {
		b->phase = 3;
		cc.mem = mem;
		cons = rte_comch_consumer_create(child_conn, &cc);
		if (cons != NULL)
			rte_comch_consumer_start(cons);
	} else if (cons != NULL && (*round % 64) == 40) {
		b->phase = 5;
		rte_comch_consumer_stop(cons);
		while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE &&
		       rte_comch_consumer_poll_burst(cons, cpl, 8) >= 0)
			;
		rte_comch_consumer_destroy(cons);
		cons = NULL;
	}
	if (cons != NULL) {
		void *buf = rte_comch_mem_addr(mem);
		uint32_t len = 64;

		rte_comch_consumer_poll_burst(cons, cpl, 8);
		rte_comch_consumer_post_burst(cons, &buf, &len, 1);
	}
	if (prod == NULL) {
		prod = rte_comch_producer_create(child_conn, NULL);
		if (prod != NULL)
			rte_comch_producer_start(prod);
	}
	if (prod != NULL && peer_consumer != UINT32_MAX) {
		b->phase = 4;
		rte_comch_producer_send_burst(prod, peer_consumer, &op, 1);
	}
}

static int
child_main(const char *role, const char *dir, const char *bpath)
{
	char vdev[256], prefix[64];
	const char *eal[] = { "child", "-l", "1", "--no-huge", "--no-pci",
		"-m", "64", "--log-level=lib.eal:error",
		"--log-level=lib.telemetry:error",
		"--log-level=lib.comch:error", "--log-level=pmd.comch.shm:error",
		prefix, vdev, NULL };
	struct crash_board *b = board_map(bpath, false);
	bool dpu = strcmp(role, "dpu") == 0;
	uint64_t round = 0;
	int16_t dev;

	if (b == NULL)
		return 10;
	snprintf(prefix, sizeof(prefix), "--file-prefix=crash-%d", getpid());
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_c,role=%s,path=%s",
		dpu ? "dpu" : "host", dir);
	b->phase = 1;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 11;
	dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_c");
	b->phase = 2;
	if (dpu) {
		struct rte_comch_server_conf sc = { .name = "crash",
			.connect_cb = child_on_connect,
			.consumer_event_cb = child_on_consumer };
		struct rte_comch_server *srv = rte_comch_server_create(dev, &sc);

		if (srv == NULL || rte_comch_server_start(srv) < 0)
			return 12;
		for (;;) {     /* until SIGKILLed */
			rte_comch_server_poll(srv);
			child_recv(b);
			child_churn(dev, b, &round);
		}
	} else {
		struct rte_comch_client_conf cc = { .server_name = "crash",
			.consumer_event_cb = child_on_consumer };
		struct rte_comch_client *cli = rte_comch_client_create(dev, &cc);
		int err;

		if (cli == NULL)
			return 13;
		for (;;) {     /* until SIGKILLed */
			if (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_IDLE)
				rte_comch_client_start(cli);
			rte_comch_client_poll(cli);
			child_conn = rte_comch_client_conn(cli);
			child_recv(b);
			child_churn(dev, b, &round);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ survivor */

static struct {
	struct rte_comch_conn *conn;
	unsigned int connects, lost;
	int err;
	uint32_t consumer;
	bool consumer_known;
} sv;

static void
on_connect(struct rte_comch_server *s __rte_unused, struct rte_comch_conn *c,
		void *a __rte_unused)
{
	sv.conn = c;
	sv.connects++;
}

static void
on_disconnect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c __rte_unused, int err,
		void *a __rte_unused)
{
	sv.lost++;
	sv.err = err;
}

static void
on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event e, void *a __rte_unused)
{
	sv.consumer_known = e == RTE_COMCH_CONSUMER_CREATED;
	sv.consumer = id;
}

/* The survivor's side of one connection: control messages with sequence
 * numbers to the child, a consumer the child's producer fills, and a
 * producer to the child's consumer. */
struct side {
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	uint64_t seq;
};

static void
side_traffic(struct side *sd, int16_t dev, struct rte_comch_conn *conn)
{
	struct rte_comch_consumer_conf cc = { .nb_posts = 16 };
	struct rte_comch_send_op op = { .data = "from-survivor", .len = 13 };
	struct rte_comch_completion cpl[16];
	uint32_t lens[16];
	void *bufs[16];
	int n, i;

	if (rte_comch_msg_send(conn, &sd->seq, sizeof(sd->seq)) == 0)
		sd->seq++;
	if (sd->cons == NULL) {
		sd->mem = rte_comch_mem_create(dev, 16 * 64, SOCKET_ID_ANY);
		cc.mem = sd->mem;
		sd->cons = sd->mem ? rte_comch_consumer_create(conn, &cc) : NULL;
		if (sd->cons != NULL && rte_comch_consumer_start(sd->cons) == 0) {
			for (i = 0; i < 16; i++) {
				bufs[i] = (uint8_t *)rte_comch_mem_addr(sd->mem) + i * 64;
				lens[i] = 64;
			}
			rte_comch_consumer_post_burst(sd->cons, bufs, lens, 16);
		}
		sd->prod = rte_comch_producer_create(conn, NULL);
		if (sd->prod != NULL)
			rte_comch_producer_start(sd->prod);
	}
	if (sd->cons != NULL) {
		n = rte_comch_consumer_poll_burst(sd->cons, cpl, 16);
		for (i = 0; i < n; i++) {
			lens[i] = 64;
			bufs[i] = cpl[i].buf;
		}
		if (n > 0)
			rte_comch_consumer_post_burst(sd->cons, bufs, lens,
					(uint16_t)n);
	}
	if (sd->prod != NULL && sv.consumer_known)
		rte_comch_producer_send_burst(sd->prod, sv.consumer, &op, 1);
}

static int
side_teardown(struct side *sd)
{
	struct rte_comch_completion cpl[16];
	uint64_t dl = test_deadline(TEST_GUARD_S);

	if (sd->prod != NULL) {
		rte_comch_producer_stop(sd->prod);
		CHECK_OK(rte_comch_producer_destroy(sd->prod));
	}
	if (sd->cons != NULL) {
		rte_comch_consumer_stop(sd->cons);
		while (rte_comch_consumer_state(sd->cons) != RTE_COMCH_STATE_IDLE &&
		       !test_expired(dl))
			rte_comch_consumer_poll_burst(sd->cons, cpl, 16);
		CHECK_OK(rte_comch_consumer_destroy(sd->cons));
	}
	CHECK_OK(rte_comch_mem_destroy(sd->mem));
	memset(sd, 0, sizeof(*sd));
	return 0;
}

/* Sent, confirmed and in flight against what the child received. */
static int
check_accounting(struct rte_comch_conn *conn, const struct side *sd)
{
	struct rte_comch_conn_stats st;
	uint64_t confirmed;

	CHECK_OK(rte_comch_conn_stats_get(conn, &st));
	CHECK_EQ(st.msgs_sent, sd->seq);
	confirmed = st.msgs_sent - st.msgs_in_flight;
	CHECK(confirmed <= board->received,
		"confirmed %" PRIu64 " but the child received %" PRIu64,
		confirmed, board->received);
	CHECK(board->received <= st.msgs_sent, "child received more than sent");
	CHECK_EQ(board->bad, 0);
	return 0;
}

static pid_t
spawn(const char *role, const char *dir)
{
	char *argv[] = { (char *)(uintptr_t)self_path, (char *)(uintptr_t)"--child",
		(char *)(uintptr_t)role, (char *)(uintptr_t)dir, board_path, NULL };
	pid_t pid;

	memset((void *)board, 0, sizeof(*board));
	if (posix_spawn(&pid, self_path, NULL, NULL, argv, environ) != 0)
		return -1;
	return pid;
}

static int
reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		"child ended otherwise (status %d, phase %u)", status, board->phase);
	return 0;
}

/* Let the child live for a random while, polling the survivor's side: one
 * time in five it dies during its start-up, otherwise 0..max_ms after its
 * EAL is up (connect, traffic, consumer churn). */
static void
run_for(double max_ms, void (*step)(void *), void *arg)
{
	uint64_t dl;

	if (rand() % 5 != 0) {
		dl = test_deadline(TEST_GUARD_S);
		while (board->phase < 2 && !test_expired(dl))
			step(arg);
	}
	dl = test_deadline((double)(rand() % 1000) * max_ms / 1e6);
	while (!test_expired(dl))
		step(arg);
}

struct host_killer {
	struct rte_comch_server *srv;
	int16_t dev;
	struct side sd;
};

static void
host_killer_step(void *arg)
{
	struct host_killer *k = arg;

	rte_comch_server_poll(k->srv);
	if (sv.conn != NULL && sv.lost == 0)
		side_traffic(&k->sd, k->dev, sv.conn);
}

static int
test_kill_hosts(void)
{
	struct rte_comch_server_conf sc = { .name = "crash",
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.consumer_event_cb = on_consumer };
	struct host_killer k = { 0 };
	int fds0, fds, i, connected = 0;
	long rss10 = 0, rss;
	uint64_t dl;
	pid_t pid;

	k.dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	k.srv = rte_comch_server_create(k.dev, &sc);
	CHECK(k.srv != NULL && rte_comch_server_start(k.srv) == 0, "server");
	fds0 = test_count_fds();
	for (i = 0; i < HOST_KILLS; i++) {
		memset(&sv, 0, sizeof(sv));
		pid = spawn("host", link_dir);
		CHECK(pid > 0, "spawn");
		run_for(150, host_killer_step, &k);   /* 0..150 ms */
		CHECK_OK(reap(pid));
		if (sv.conn != NULL) {
			connected++;
			dl = test_deadline(TEST_GUARD_S);
			while (sv.lost == 0 && !test_expired(dl))
				rte_comch_server_poll(k.srv);
			CHECK_EQ(sv.lost, 1);
			CHECK_EQ(sv.err, -ECONNRESET);
			CHECK_OK(check_accounting(sv.conn, &k.sd));
			CHECK_OK(side_teardown(&k.sd));
			CHECK_OK(rte_comch_server_disconnect(k.srv, sv.conn));
		}
		CHECK_EQ(rte_comch_server_conn_count(k.srv), 0);
		/* accepted sockets still waiting for HELLO are dropped by the
		 * interrupt thread; give it a moment */
		dl = test_deadline(TEST_GUARD_S);
		while ((fds = test_count_fds()) != fds0 && !test_expired(dl))
			rte_comch_server_poll(k.srv);
		CHECK_EQ(fds, fds0);
		rss = test_rss_kib();
		if (i == 9)
			rss10 = rss;
		if (i > 9)
			CHECK(rss - rss10 < RSS_GROWTH_KIB,
				"resident memory grew by %ld KiB", rss - rss10);
		printf("  host %2d killed in phase %u%s\n", i, board->phase,
			sv.conn != NULL ? ", after connecting" : "");
	}
	CHECK(connected > 0, "no child ever connected");
	CHECK_OK(rte_comch_server_stop(k.srv));
	CHECK_OK(rte_comch_server_destroy(k.srv));
	return 0;
}

struct dpu_killer {
	struct rte_comch_client *cli;
	int16_t dev;
	struct side sd;
};

static void
dpu_killer_step(void *arg)
{
	struct dpu_killer *k = arg;
	int err;

	if (rte_comch_client_state(k->cli, &err) == RTE_COMCH_STATE_IDLE)
		rte_comch_client_start(k->cli);
	rte_comch_client_poll(k->cli);
	if (rte_comch_client_state(k->cli, NULL) == RTE_COMCH_STATE_RUNNING)
		side_traffic(&k->sd, k->dev, rte_comch_client_conn(k->cli));
}

static int
test_kill_dpus(void)
{
	struct rte_comch_client_conf cc = { .server_name = "crash",
		.consumer_event_cb = on_consumer };
	struct dpu_killer k = { 0 };
	char dir[64], args[128];
	int fds0, i, err, connected = 0;
	long rss10 = 0, rss;
	uint64_t dl;
	pid_t pid;

	CHECK_OK(test_mkdtemp(dir, sizeof(dir)));
	snprintf(args, sizeof(args), "role=host,path=%s", dir);
	CHECK_OK(rte_vdev_init("comch_shm_host", args));
	k.dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_host");
	k.cli = rte_comch_client_create(k.dev, &cc);
	CHECK(k.cli != NULL, "client");
	fds0 = test_count_fds();
	for (i = 0; i < DPU_KILLS; i++) {
		memset(&sv, 0, sizeof(sv));
		pid = spawn("dpu", dir);
		CHECK(pid > 0, "spawn");
		run_for(150, dpu_killer_step, &k);
		connected += rte_comch_client_state(k.cli, NULL) ==
			RTE_COMCH_STATE_RUNNING;
		CHECK_OK(reap(pid));
		if (k.sd.cons != NULL || k.sd.prod != NULL ||
		    rte_comch_client_conn(k.cli) != NULL) {
			dl = test_deadline(TEST_GUARD_S);
			while (rte_comch_client_state(k.cli, NULL) ==
			       RTE_COMCH_STATE_RUNNING && !test_expired(dl))
				rte_comch_client_poll(k.cli);
			CHECK_EQ(rte_comch_client_state(k.cli, &err),
				RTE_COMCH_STATE_STOPPING);
			CHECK_EQ(err, -ECONNRESET);
			CHECK_OK(check_accounting(rte_comch_client_conn(k.cli),
					&k.sd));
			CHECK_OK(side_teardown(&k.sd));
		}
		if (rte_comch_client_state(k.cli, NULL) != RTE_COMCH_STATE_IDLE)
			CHECK_OK(rte_comch_client_stop(k.cli));
		CHECK_EQ(test_count_fds(), fds0);
		rss = test_rss_kib();
		if (i == 9)
			rss10 = rss;
		if (i > 9)
			CHECK(rss - rss10 < RSS_GROWTH_KIB,
				"resident memory grew by %ld KiB", rss - rss10);
		printf("  DPU %2d killed in phase %u\n", i, board->phase);
	}
	CHECK(connected > 0, "never connected to a DPU");
	CHECK_OK(rte_comch_client_destroy(k.cli));
	CHECK_OK(rte_vdev_uninit("comch_shm_host"));
	rmdir(dir);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{ "kill_hosts", test_kill_hosts },
		{ "kill_dpus", test_kill_dpus },
	};
	char vdev[256];
	const char *extra[] = { vdev, "--log-level=lib.comch:warning", NULL };
	int ret;

	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		test_child_dies_with_parent();
	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2], argv[3], argv[4]);
	self_path = argv[0];
	srand(20261122);
	snprintf(board_path, sizeof(board_path), "/dev/shm/comch-crash-%d",
		(int)getpid());
	board = board_map(board_path, true);
	if (board == NULL || test_mkdtemp(link_dir, sizeof(link_dir)) < 0)
		return 1;
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_dpu,role=dpu,path=%s",
		link_dir);
	if (test_eal_init(argv[0], "crash", "0", extra) < 0)
		return 1;
	ret = test_run_cases("crash", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	unlink(board_path);
	rmdir(link_dir);
	return ret;
}
