/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch rx interrupts in a secondary process: the primary has a DPU
 * port (two rx queues, intr_conf.rxq) and a host port on one connection;
 * a secondary takes the DPU port's rx queue 1 over and sleeps on it in
 * rte_epoll_wait(), the way l3fwd-power would; the primary sends on the
 * host port's queue 1.
 *
 *   test_net_comch_intr_mp            the primary (starts the secondary)
 *   test_net_comch_intr_mp secondary PREFIX PORT
 *
 * The secondary tells the primary what it waits for on stdout, one line
 * each ("ready", "armed N", "got N", "done"); the primary answers by
 * sending. Each round: the secondary enables the interrupt, checks its fd
 * is quiet with nothing sent, says "armed N"; the primary sends packet N;
 * the secondary must wake for queue 1 (failure guard TEST_GUARD_S), and receive
 * packet N. Needs hugepages (a secondary shares the primary's memory):
 * exits 77 (skipped) without.
 */

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_mbuf.h>

#include "comch_test.h"

#define ROUNDS 20
#define QUEUE 1
#define HELLO UINT32_MAX   /* the seq of the packets before "ready" */
#define PKT_LEN 100
#define PROTO_FD 3 /* the secondary's lines to the primary */
/* argv strings for rte_eal_init(), which does not write them */
#define ARG(s) ((char *)(uintptr_t)(s))

static int
fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static struct rte_mbuf *
pkt_make(struct rte_mempool *mp, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;
	uint32_t k;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, PKT_LEN);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	for (k = 0; k < PKT_LEN; k++)
		p[k] = (uint8_t)(seq * 7 + k);
	memcpy(p, &seq, sizeof(seq));
	return m;
}

/* The seq packet @p m carries, or -1 if its content is not that packet's. */
static int64_t
pkt_seq(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t seq, k;

	if (m->pkt_len != PKT_LEN || m->nb_segs != 1)
		return -1;
	memcpy(&seq, p, sizeof(seq));
	for (k = sizeof(seq); k < PKT_LEN; k++)
		if (p[k] != (uint8_t)(seq * 7 + k))
			return -1;
	return seq;
}

/* ---------------------------------------------------------- secondary */

static void
xstats_print(uint16_t port)
{
	struct rte_eth_xstat xs[128];
	struct rte_eth_xstat_name nm[128];
	int n = rte_eth_xstats_get(port, xs, 128), i;

	rte_eth_xstats_get_names(port, nm, 128);
	for (i = 0; i < n; i++)
		if (xs[i].value != 0)
			printf("port %u %s %" PRIu64 "\n", port, nm[i].name, xs[i].value);
}

/* Receive packet @p want on (port, QUEUE), skipping HELLO ones (failure
 * guard TEST_GUARD_S). */
static int
sec_recv(uint16_t port, uint32_t want)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	struct rte_mbuf *m[32];
	bool got = false;
	uint16_t n, k;
	int64_t s;

	while (!got && !test_expired(dl)) {
		n = rte_eth_rx_burst(port, QUEUE, m, RTE_DIM(m));
		for (k = 0; k < n; k++) {
			s = pkt_seq(m[k]);
			CHECK(s >= 0, "packet %u: wrong content", k);
			CHECK(s == HELLO || s == want, "packet %" PRId64 ", %u expected",
				s, want);
			got |= s == want;
		}
		rte_pktmbuf_free_bulk(m, n);
	}
	CHECK(got, "packet %u never came", want);
	return 0;
}

static int
run_secondary(char *prog, const char *prefix, uint16_t port)
{
	char prefix_arg[128];
	char *argv[] = { prog, ARG("-l"), ARG("1"), ARG("--no-pci"), ARG("--proc-type=secondary"),
		prefix_arg, ARG("--log-level=lib.eal:error"), NULL };
	struct rte_epoll_event ev[4];
	struct rte_mbuf *m[32];
	uint64_t dl;
	uint32_t r;
	int fd, n, k;
	bool hello = false;

	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s", prefix);
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		printf("FAIL secondary: cannot initialise EAL: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	CHECK(rte_eth_dev_is_valid_port(port), "port %u in the secondary",
		port);
	CHECK_OK(rte_eth_dev_rx_intr_ctl_q(port, QUEUE, RTE_EPOLL_PER_THREAD,
		RTE_INTR_EVENT_ADD, (void *)(uintptr_t)(QUEUE + 1)));
	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(port, QUEUE);
	CHECK(fd >= 0, "queue %u fd in the secondary", QUEUE);
	/* Polling the queue takes it over from the primary; the first packet
	 * through our consumer says the host sends to it now. */
	dl = test_deadline(TEST_GUARD_S);
	while (!hello && !test_expired(dl)) {
		n = rte_eth_rx_burst(port, QUEUE, m, RTE_DIM(m));
		hello = n > 0;
		rte_pktmbuf_free_bulk(m, (unsigned int)n);
	}
	CHECK(hello, "no packet on queue %u: not taken over", QUEUE);
	dprintf(PROTO_FD, "ready\n");
	for (r = 0; r < ROUNDS; ) {
		/* HELLOs the primary sent before it read "ready": taken here
		 * (any other packet would be one too many) */
		do {
			n = rte_eth_rx_burst(port, QUEUE, m, RTE_DIM(m));
			for (k = 0; k < n; k++)
				CHECK(pkt_seq(m[k]) == HELLO,
					"round %u: a packet nobody sent", r);
			rte_pktmbuf_free_bulk(m, (unsigned int)n);
		} while (n > 0);
		CHECK_OK(rte_eth_dev_rx_intr_enable(port, QUEUE));
		/* one of them still on its way (round 0 only): again */
		if (rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev), 0) > 0) {
			CHECK(r == 0, "round %u: woken with nothing sent", r);
			CHECK_OK(rte_eth_dev_rx_intr_disable(port, QUEUE));
			continue;
		}
		CHECK(!fd_readable(fd), "round %u: fd readable, nothing sent", r);
		dprintf(PROTO_FD, "armed %u\n", r);
		/* failure guard TEST_GUARD_S: the packet wakes the sleeper */
		n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev), TEST_GUARD_S * 1000);
		if (n != 1) {
			/* why: the packet came and no wake-up, or it went
			 * elsewhere */
			CHECK_OK(rte_eth_dev_rx_intr_disable(port, QUEUE));
			xstats_print(port);
			xstats_print(port + 1);
			CHECK(0, "round %u: not woken (%d); the packet %s", r,
				n, sec_recv(port, r) == 0 ?
				"was there: a wake-up lost" : "never came");
		}
		CHECK(ev[0].epdata.data == (void *)(uintptr_t)(QUEUE + 1),
			"round %u: woken for something else", r);
		CHECK_OK(rte_eth_dev_rx_intr_disable(port, QUEUE));
		CHECK_OK(sec_recv(port, r));
		dprintf(PROTO_FD, "got %u\n", r);
		r++;
	}
	CHECK_OK(rte_eth_dev_rx_intr_ctl_q(port, QUEUE, RTE_EPOLL_PER_THREAD,
		RTE_INTR_EVENT_DEL, NULL));
	/* this process's queue objects go with its port, before the comch
	 * device they are on (EAL's cleanup removes the comch device first:
	 * it was made first) */
	CHECK_OK(rte_eth_dev_close(port));
	dprintf(PROTO_FD, "done\n");
	rte_eal_cleanup();
	return 0;
}

/* ------------------------------------------------------------ primary */

static int
port_open(const char *name, const char *args, struct rte_mempool *mp,
		bool rx_intr)
{
	struct rte_eth_conf conf = { .intr_conf.rxq = rx_intr };
	uint16_t port, q;

	if (rte_vdev_init(name, args) < 0 ||
	    rte_eth_dev_get_port_by_name(name, &port) != 0 ||
	    rte_eth_dev_configure(port, 2, 2, &conf) != 0)
		return -1;
	for (q = 0; q < 2; q++)
		if (rte_eth_rx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL,
				mp) != 0 ||
		    rte_eth_tx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL) != 0)
			return -1;
	return rte_eth_dev_start(port) == 0 ? port : -1;
}

static int
link_up(uint16_t port)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(port, &l) == 0 &&
		l.link_status == RTE_ETH_LINK_UP;
}

/* Send packet @p seq on (port, QUEUE) once the port takes it (failure
 * guard TEST_GUARD_S). */
static int
send_one(uint16_t port, struct rte_mempool *mp, uint32_t seq)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	struct rte_mbuf *m = pkt_make(mp, seq);

	CHECK(m != NULL, "mbuf");
	while (rte_eth_tx_burst(port, QUEUE, &m, 1) == 0) {
		if (test_expired(dl)) {
			rte_pktmbuf_free(m);
			CHECK(0, "packet %u not taken", seq);
		}
	}
	return 0;
}

/* Free hugepages for @p n 2 MiB pages, and a hugetlbfs to put them in. */
static bool
hugepages_free(unsigned int n)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
			"r");
	unsigned int free_pages = 0;

	if (f == NULL)
		return false;
	if (fscanf(f, "%u", &free_pages) != 1)
		free_pages = 0;
	fclose(f);
	return free_pages >= n && access("/dev/hugepages", W_OK) == 0;
}

/* The secondary's next line, or NULL at its end or after @p guard
 * seconds (a failure guard); while waiting, HELLO packets go out if
 * @p port >= 0. */
static char *
next_line(FILE *f, char *buf, size_t size, double guard, int port,
		struct rte_mempool *mp)
{
	uint64_t dl = test_deadline(guard);
	struct pollfd p = { .fd = fileno(f), .events = POLLIN };

	while (!test_expired(dl)) {
		if (poll(&p, 1, port >= 0 ? 1 : 100) == 1)
			return fgets(buf, (int)size, f);
		if (port >= 0) {
			/* not taken while the queue changes hands: next time */
			struct rte_mbuf *m = pkt_make(mp, HELLO);

			if (m != NULL && rte_eth_tx_burst((uint16_t)port, QUEUE,
					&m, 1) == 0)
				rte_pktmbuf_free(m);
		}
	}
	return NULL;
}

static char prefix[64]; /* the primary's --file-prefix */

/* The primary's hugepage files: memory reserved up front (-m) is never
 * given back, so EAL leaves them, as it does when a check fails before
 * rte_eal_cleanup(). */
static void
hugepage_files_remove(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir("/dev/hugepages");
	size_t n = strlen(prefix);

	if (d == NULL || n == 0) {
		if (d != NULL)
			closedir(d);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, n) != 0 ||
		    strncmp(e->d_name + n, "map_", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "/dev/hugepages/%s", e->d_name);
		unlink(path);
	}
	closedir(d);
}

static int
run_primary(char *prog)
{
	char prefix_arg[80], port_arg[16], args[256], line[128];
	char link_dir[64];
	/* -m 64 at a fixed base far from libraries, stacks and the
	 * sanitizers' shadow memory: a secondary maps the primary's memory
	 * at the same addresses */
	char *argv[] = { prog, ARG("-l"), ARG("0"), ARG("--no-pci"), ARG("-m"),
		ARG("64"), ARG("--base-virtaddr=0x200000000000"), prefix_arg,
		ARG("--log-level=lib.eal:error"), ARG("--log-level=lib.telemetry:error"),
		NULL };
	struct rte_mempool *mp;
	int16_t dpu, host;
	int d, h, st, pipefd[2];
	uint64_t dl;
	uint32_t r;
	FILE *f;
	pid_t pid;

	if (!hugepages_free(64)) {
		printf("skipped: needs hugepages (a secondary shares the primary's memory)\n");
		return 77;
	}
	snprintf(prefix, sizeof(prefix), "ncmintr-%d", (int)getpid());
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s", prefix);
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		printf("FAIL cannot initialise EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	CHECK_OK(test_link_pair(link_dir, sizeof(link_dir), &dpu, &host));
	mp = rte_pktmbuf_pool_create("mp", 2047, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	CHECK(mp != NULL, "mempool");
	snprintf(args, sizeof(args), "comch=comch_shm_dpu,server=intr,queues=2");
	d = port_open("net_comch_d", args, mp, true);
	snprintf(args, sizeof(args), "comch=comch_shm_host,server=intr,queues=2");
	h = port_open("net_comch_h", args, mp, false);
	CHECK(d >= 0 && h >= 0, "ports");
	dl = test_deadline(TEST_GUARD_S);
	while (!(link_up(d) && link_up(h)) && !test_expired(dl))
		rte_delay_us_sleep(1000);
	CHECK(link_up(d) && link_up(h), "link up");

	snprintf(port_arg, sizeof(port_arg), "%d", d);
	CHECK_OK(pipe(pipefd));
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		test_child_dies_with_parent();
		if (pipefd[0] != PROTO_FD)
			close(pipefd[0]);
		if (pipefd[1] != PROTO_FD) {
			dup2(pipefd[1], PROTO_FD);
			close(pipefd[1]);
		}
		execl(prog, prog, "secondary", prefix, port_arg, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	line[0] = '\0';
	f = fdopen(pipefd[0], "r");
	CHECK(f != NULL, "fdopen");
	/* unbuffered: poll() on its fd must see every line not read yet */
	setvbuf(f, NULL, _IONBF, 0);
	/* HELLO packets until the secondary has one through its consumer;
	 * twice the secondary's own guards, so that its message, not ours,
	 * says what it waited for */
	CHECK(next_line(f, line, sizeof(line), 2 * TEST_GUARD_S, h, mp) != NULL &&
		strcmp(line, "ready\n") == 0, "the secondary: %s", line);
	for (r = 0; r < ROUNDS; r++) {
		char want[32];

		snprintf(want, sizeof(want), "armed %u\n", r);
		CHECK(next_line(f, line, sizeof(line), 2 * TEST_GUARD_S, -1, mp) != NULL &&
			strcmp(line, want) == 0, "the secondary, for %s: %s",
			want, line);
		CHECK_OK(send_one((uint16_t)h, mp, r));
		snprintf(want, sizeof(want), "got %u\n", r);
		CHECK(next_line(f, line, sizeof(line), 2 * TEST_GUARD_S, -1, mp) != NULL &&
			strcmp(line, want) == 0, "the secondary, for %s: %s",
			want, line);
	}
	CHECK(next_line(f, line, sizeof(line), 2 * TEST_GUARD_S, -1, mp) != NULL &&
		strcmp(line, "done\n") == 0, "the secondary: %s", line);
	fclose(f);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		WEXITSTATUS(st) == 0, "the secondary's exit status 0x%x", st);
	CHECK_OK(rte_eth_dev_stop((uint16_t)d));
	CHECK_OK(rte_eth_dev_stop((uint16_t)h));
	rte_eth_dev_close((uint16_t)d);
	rte_eth_dev_close((uint16_t)h);
	rte_vdev_uninit("net_comch_d");
	rte_vdev_uninit("net_comch_h");
	rte_vdev_uninit("comch_shm_host");
	rte_vdev_uninit("comch_shm_dpu");
	rte_eal_cleanup();
	rmdir(link_dir);
	printf("ok: %d rounds woken in the secondary\n", ROUNDS);
	return 0;
}

int
main(int argc, char **argv)
{
	int ret;

	if (argc == 4 && strcmp(argv[1], "secondary") == 0) {
		ret = run_secondary(argv[0], argv[2], (uint16_t)atoi(argv[3]));
		if (ret != 0)
			printf("FAIL secondary\n");
		return ret;
	}
	ret = run_primary(argv[0]);
	if (ret != 77)
		hugepage_files_remove();
	return ret == 77 ? 77 : ret != 0;
}
