/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Event mode against a hostile host that speaks the wire protocol by hand
 * (evil_peer.h). The DPU side (this process: a device with a short
 * periodic check, wake_check_ms=50) sleeps on a consumer or its server;
 * the host:
 *
 * - cannot write the arm word: the arm page it is given maps only
 *   read-only, and write() and a writable reopen fail;
 * - never kicks: the DPU still wakes (the periodic check: a rescue);
 * - kicks in a storm: the DPU's wake-ups stay bounded (the kicks are set
 *   aside for a while) and a real completion in the storm is delivered;
 * - shuts its kick socket down: its connection is closed with the reason;
 * - sends EVENT with bad fds, twice, without saying SHM_F_EVENT, or a
 *   CONSUMER_ADD whose fds do not match its flags: its connection is
 *   closed with the reason, nothing else is disturbed;
 * - dies: the server and the consumer asleep on it wake, and learn it.
 *
 * Another DPU device with a periodic check of an hour, whose event-mode
 * server exists before this one's, must not hold this one's check back
 * (never_kicks would wait an hour for its rescue).
 *
 * Counts of wake-ups are bounds on what the DPU spends, not timings.
 */

#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>

#include <rte_memory.h>

#include "evil_peer.h"

static char link_dir[64];
static int16_t dpu;
static struct rte_comch_server *srv;

static struct {
	unsigned int connects, disconnects;
	int last_err;
	struct rte_comch_conn *conn;
} sv;

static void
on_connect(struct rte_comch_server *s __rte_unused, struct rte_comch_conn *c,
		void *a __rte_unused)
{
	sv.connects++;
	sv.conn = c;
}

static void
on_disconnect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c __rte_unused, int err,
		void *a __rte_unused)
{
	sv.disconnects++;
	sv.last_err = err;
}

static int
readable_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

#define WAKES(ev) CHECK(readable_fd(rte_comch_event_fd(ev), TEST_GUARD_S * 1000), \
	"%s did not wake", #ev)

/* Receive one protocol message from the DPU (polling its server), with
 * up to 4 fds. Returns its type, or -1. */
static int
evil_recv(struct evil *e, struct shm_msg *m, int *fds, int *nfds)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	uint64_t dl = test_deadline(TEST_GUARD_S);
	ssize_t n;

	*nfds = 0;
	do {
		rte_comch_server_poll(srv);
		n = recvmsg(e->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EAGAIN && !test_expired(dl));
	if (n != (ssize_t)sizeof(*m))
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_type == SCM_RIGHTS) {
		*nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)*nfds);
	}
	return m->type;
}

/* A handshake saying (or not) SHM_F_EVENT. */
static int
evil_open_flags(struct evil *e, uint32_t flags)
{
	struct shm_msg m;
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int err;

	memset(&sv, 0, sizeof(sv));
	memset(e, 0, sizeof(*e));
	shm_ring_geom_init(&e->rx, 16, SHM_DEFAULT_MSG_SIZE);
	e->sock = raw_connect(link_dir);
	if (e->sock < 0 || sealed_memfd(e->rx.mailbox_size, true, &e->mb_fd,
			&e->mb) < 0)
		return -1;
	hello_init(&m, 16, e->rx.mailbox_size);
	m.hello.flags = flags;
	if (raw_send(e->sock, &m, sizeof(m), &e->mb_fd, 1) < 0 ||
	    raw_answer(e, srv, &err) != SHM_MSG_ACCEPT)
		return -1;
	while (sv.conn == NULL && !test_expired(dl))
		rte_comch_server_poll(srv);
	return sv.conn != NULL ? 0 : -1;
}

/* The server must report the evil connection lost with -EPROTO and the
 * log say @p why; then it is released. */
static int
expect_refused(const char *why)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);

	while (sv.disconnects == 0 && !test_expired(dl))
		rte_comch_server_poll(srv);
	CHECK_EQ(sv.disconnects, 1);
	CHECK_EQ(sv.last_err, -EPROTO);
	CHECK(test_log_has(why), "log lacks \"%s\"", why);
	return 0;
}

static int
release(struct evil *e)
{
	if (sv.conn != NULL)
		CHECK_OK(rte_comch_server_disconnect(srv, sv.conn));
	sv.conn = NULL;
	evil_close(e);
	return 0;
}

/* The DPU's consumer with events on the evil connection, as the host
 * sees it: the ring and memory mapped, the arm page and kick socket. */
struct evil_cons {
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_event *ev;
	uint32_t id, nb_posts;
	void *ring, *memmap;
	size_t ring_size, mem_size;
	int fds[4];
};

static int
evil_cons_open(struct evil *e, struct evil_cons *x, uint32_t nb_posts)
{
	struct rte_comch_consumer_conf conf = { .nb_posts = nb_posts,
		.flags = RTE_COMCH_F_EVENT };
	struct shm_msg m;
	void *bufs[64];
	uint32_t lens[64], i;
	int nfds, type;

	memset(x, 0, sizeof(*x));
	x->mem = rte_comch_mem_create(dpu, 1 << 16, SOCKET_ID_ANY);
	CHECK(x->mem != NULL, "mem");
	conf.mem = x->mem;
	x->cons = rte_comch_consumer_create(sv.conn, &conf);
	CHECK(x->cons != NULL, "consumer: %s", rte_strerror(rte_errno));
	x->ev = rte_comch_consumer_event(x->cons);
	CHECK(x->ev != NULL, "event");
	CHECK_OK(rte_comch_consumer_start(x->cons));
	/* EVENT first if the server has events; skip it. */
	do
		type = evil_recv(e, &m, x->fds, &nfds);
	while (type == SHM_MSG_EVENT && (close(x->fds[0]), close(x->fds[1]), 1));
	CHECK_EQ(type, SHM_MSG_CONSUMER_ADD);
	CHECK_EQ(nfds, 4);
	CHECK_EQ(m.consumer.flags, SHM_F_EVENT);
	x->id = m.consumer.consumer_id;
	x->nb_posts = nb_posts;
	x->ring_size = m.consumer.ring_size;
	x->mem_size = m.consumer.mem_size;
	x->ring = mmap(NULL, x->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			x->fds[0], 0);
	x->memmap = mmap(NULL, x->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			x->fds[1], 0);
	CHECK(x->ring != MAP_FAILED && x->memmap != MAP_FAILED, "maps");
	for (i = 0; i < nb_posts; i++) {
		bufs[i] = (char *)rte_comch_mem_addr(x->mem) + i * 1024;
		lens[i] = 1024;
	}
	CHECK_EQ(rte_comch_consumer_post_burst(x->cons, bufs, lens,
			(uint16_t)nb_posts), (int)nb_posts);
	return 0;
}

/* The host completes posted buffer @p idx as a producer would (claim,
 * payload, completion word), without kicking. */
static void
evil_complete(struct evil_cons *x, uint32_t idx)
{
	struct shm_cons_hdr *h = x->ring;
	struct shm_post_slot *s = RTE_PTR_ADD(x->ring,
		sizeof(*h) + (size_t)(idx & (rte_align32pow2(x->nb_posts) - 1)) *
		sizeof(*s));
	union shm_cpl w = { .done_seq = idx + 1, .len = 4 };

	__atomic_store_n(&h->claim, idx + 1, __ATOMIC_RELEASE);
	memcpy((char *)x->memmap + s->buf_off, "evil", 4);
	s->imm_len = 0;
	__atomic_store_n(&s->cpl, w.word, __ATOMIC_RELEASE);
}

static int
evil_cons_close(struct evil_cons *x)
{
	struct rte_comch_completion cpl[64];
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int i;

	if (rte_comch_consumer_state(x->cons) == RTE_COMCH_STATE_RUNNING)
		CHECK_OK(rte_comch_consumer_stop(x->cons));
	while (rte_comch_consumer_state(x->cons) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl)) {
		rte_comch_consumer_poll_burst(x->cons, cpl, 64);
		rte_comch_server_poll(srv);
	}
	CHECK_OK(rte_comch_consumer_destroy(x->cons));
	CHECK_OK(rte_comch_mem_destroy(x->mem));
	munmap(x->ring, x->ring_size);
	munmap(x->memmap, x->mem_size);
	for (i = 0; i < 4; i++)
		if (x->fds[i] > 0)
			close(x->fds[i]);
	return 0;
}

/* ---------------------------------------------------------------- cases */

/* The arm page maps read-only for the host, and it sees the arms. */
static int
test_arm_page_readonly(void)
{
	struct evil_cons x;
	struct evil e;
	char path[64];
	const volatile uint64_t *arm;
	uint64_t w0;
	void *p;
	int fd, seals;

	CHECK_OK(evil_open_flags(&e, 0));
	if (evil_cons_open(&e, &x, 4) < 0)
		return -1;
	seals = fcntl(x.fds[2], F_GET_SEALS);
	CHECK(seals >= 0 && (seals & F_SEAL_FUTURE_WRITE) &&
		(seals & F_SEAL_SEAL), "seals 0x%x", seals);
	p = mmap(NULL, SHM_ARM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			x.fds[2], 0);
	CHECK(p == MAP_FAILED && errno == EPERM, "mapped for writing");
	CHECK(pwrite(x.fds[2], "x", 1, 0) < 0 && errno == EPERM,
		"written through the fd");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", x.fds[2]);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0, "reopen");
	CHECK(pwrite(fd, "x", 1, 0) < 0 && errno == EPERM,
		"written through a reopened fd");
	close(fd);
	p = mmap(NULL, SHM_ARM_PAGE_SIZE, PROT_READ, MAP_SHARED, x.fds[2], 0);
	CHECK(p != MAP_FAILED, "read-only mapping");
	CHECK(mprotect(p, SHM_ARM_PAGE_SIZE, PROT_READ | PROT_WRITE) < 0,
		"made writable");
	arm = p;
	w0 = *arm;
	CHECK_EQ(rte_comch_event_arm(x.ev), 0);
	CHECK((*arm & SHM_ARM_ARMED) && *arm != w0, "the arm is not seen");
	CHECK_OK(rte_comch_event_disarm(x.ev));
	CHECK(!(*arm & SHM_ARM_ARMED), "the disarm is not seen");
	munmap(p, SHM_ARM_PAGE_SIZE);
	if (evil_cons_close(&x) < 0)
		return -1;
	return release(&e);
}

/* A host that completes and never kicks: the periodic check wakes the
 * consumer (a rescue). */
static int
test_never_kicks(void)
{
	struct rte_comch_completion cpl[4];
	struct rte_comch_event_stats st;
	struct evil_cons x;
	struct evil e;

	CHECK_OK(evil_open_flags(&e, 0));
	if (evil_cons_open(&e, &x, 4) < 0)
		return -1;
	CHECK_EQ(rte_comch_event_arm(x.ev), 0);
	evil_complete(&x, 0);
	WAKES(x.ev);
	CHECK_EQ(rte_comch_event_arm(x.ev), 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(x.cons, cpl, 4), 1);
	CHECK(cpl[0].status == 0 && cpl[0].len == 4, "completion");
	CHECK_OK(rte_comch_event_stats_get(x.ev, &st));
	CHECK_EQ(st.rescues, 1);
	CHECK_EQ(rte_comch_event_arm(x.ev), 0);
	if (evil_cons_close(&x) < 0)
		return -1;
	return release(&e);
}

struct storm {
	int fd;
	volatile bool stop;
	uint64_t sent;
};

static void *
storm_main(void *arg)
{
	struct storm *s = arg;

	while (!s->stop)
		if (send(s->fd, "k", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
			s->sent++;
	return NULL;
}

/* A host that kicks in a storm: wake-ups bounded, work delivered. */
static int
test_kick_storm(void)
{
	struct rte_comch_completion cpl[4];
	struct rte_comch_event_stats st;
	struct storm s = { 0 };
	struct evil_cons x;
	struct epoll_event out;
	struct evil e;
	pthread_t t;
	uint64_t end, guard, t0, wakeups = 0, half;
	double secs;
	int ep, got = 0;

	CHECK_OK(evil_open_flags(&e, 0));
	if (evil_cons_open(&e, &x, 4) < 0)
		return -1;
	ep = epoll_create1(0);
	struct epoll_event in = { .events = EPOLLIN };
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, rte_comch_event_fd(x.ev), &in));
	s.fd = x.fds[3];
	CHECK_OK(pthread_create(&t, NULL, storm_main, &s));
	/* A second at least; then on until the completion came and the
	 * storm was set aside once (a loaded machine may have given this
	 * thread little of that second), for TEST_GUARD_S at most. */
	t0 = rte_get_timer_cycles();
	end = test_deadline(1.0);
	half = test_deadline(0.5);
	guard = test_deadline(TEST_GUARD_S);
	for (;;) {
		if (half != 0 && test_expired(half)) {
			evil_complete(&x, 0);   /* real work amid the storm */
			half = 0;
		}
		if (rte_comch_event_arm(x.ev) == 0) {
			if (epoll_wait(ep, &out, 1, 100) > 0)
				wakeups++;
		}
		got += RTE_MAX(rte_comch_consumer_poll_burst(x.cons, cpl, 4), 0);
		if (half == 0 && test_expired(end)) {
			CHECK_OK(rte_comch_event_stats_get(x.ev, &st));
			if ((got >= 1 && st.backoffs >= 1) || test_expired(guard))
				break;
		}
	}
	secs = (double)(rte_get_timer_cycles() - t0) /
		(double)rte_get_timer_hz();
	s.stop = true;
	pthread_join(t, NULL);
	close(ep);
	CHECK_OK(rte_comch_event_stats_get(x.ev, &st));
	printf("  storm: %" PRIu64 " kicks sent, %" PRIu64 " taken, %" PRIu64
		" wake-ups, %" PRIu64 " spurious, %" PRIu64 " set-asides in %.1f s\n",
		s.sent, st.kicks, wakeups, st.spurious, st.backoffs, secs);
	CHECK_EQ(got, 1);
	CHECK(st.backoffs >= 1, "never set aside");
	/* At most SHM_EV_STORM (16) for nothing per set-aside, which last
	 * at least one check (50 ms) each: far below what the storm sends
	 * (1,000 a second). */
	CHECK(wakeups < (uint64_t)(1000 * secs), "%" PRIu64
		" wake-ups in %.1f s", wakeups, secs);
	if (evil_cons_close(&x) < 0)
		return -1;
	return release(&e);
}

/* A host that shuts its kick socket down breaks the protocol. */
static int
test_kick_shutdown(void)
{
	struct evil_cons x;
	struct evil e;

	CHECK_OK(evil_open_flags(&e, 0));
	if (evil_cons_open(&e, &x, 4) < 0)
		return -1;
	CHECK_EQ(rte_comch_event_arm(x.ev), 0);
	test_log_reset();
	CHECK_OK(shutdown(x.fds[3], SHUT_WR));
	WAKES(x.ev);
	CHECK_EQ(rte_comch_event_arm(x.ev), -ECONNRESET);
	if (expect_refused("shut down the kick socket") < 0)
		return -1;
	if (evil_cons_close(&x) < 0)
		return -1;
	return release(&e);
}

/* EVENT with @p page / @p kick (closed here); refused with @p why. */
static int
bad_event(uint32_t hello_flags, int page, int kick, int nfds, int times,
		const char *why)
{
	struct shm_msg m;
	struct evil e;
	int fds[2] = { page, kick }, i;

	CHECK_OK(evil_open_flags(&e, hello_flags));
	test_log_reset();
	memset(&m, 0, sizeof(m));
	m.magic = SHM_PROTO_MAGIC;
	m.version = SHM_PROTO_VERSION;
	m.type = SHM_MSG_EVENT;
	for (i = 0; i < times; i++)
		CHECK_OK(raw_send(e.sock, &m, sizeof(m), fds, nfds));
	if (page >= 0)
		close(page);
	if (kick >= 0)
		close(kick);
	if (expect_refused(why) < 0)
		return -1;
	return release(&e);
}

/* A good arm page, or one missing F_SEAL_FUTURE_WRITE. */
static int
arm_page(bool future_write)
{
	int fd = memfd_create("evil-arm", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, SHM_ARM_PAGE_SIZE) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		(future_write ? F_SEAL_FUTURE_WRITE : 0)) < 0)
		return -1;
	return fd;
}

static int
kick_sock(int type)
{
	int sv2[2];

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv2) < 0)
		return -1;
	/* keep sv2[0] open for the life of the test: a leak of one fd per
	 * case is not checked here */
	return sv2[1];
}

static int
test_bad_event_fds(void)
{
	int p[2];

	if (bad_event(SHM_F_EVENT, arm_page(false), kick_sock(SOCK_SEQPACKET),
			2, 1, "F_SEAL_FUTURE_WRITE") < 0)
		return -1;
	CHECK_OK(pipe(p));
	close(p[0]);
	if (bad_event(SHM_F_EVENT, arm_page(true), p[1], 2, 1,
			"kick fd is not a socket") < 0)
		return -1;
	if (bad_event(SHM_F_EVENT, arm_page(true), kick_sock(SOCK_DGRAM), 2, 1,
			"not SOCK_SEQPACKET") < 0)
		return -1;
	if (bad_event(SHM_F_EVENT, arm_page(true), -1, 1, 1,
			"without its two fds") < 0)
		return -1;
	if (bad_event(0, arm_page(true), kick_sock(SOCK_SEQPACKET), 2, 1,
			"did not say SHM_F_EVENT") < 0)
		return -1;
	if (bad_event(SHM_F_EVENT, arm_page(true), kick_sock(SOCK_SEQPACKET),
			2, 2, "EVENT twice") < 0)
		return -1;
	return 0;
}

/* CONSUMER_ADD saying SHM_F_EVENT with two fds. */
static int
test_consumer_add_fds(void)
{
	struct evil e;
	void *ring, *mem;
	int fds[2];
	struct shm_msg m;

	CHECK_OK(evil_open_flags(&e, 0));
	test_log_reset();
	CHECK_OK(sealed_memfd(ring_size_of(4), true, &fds[0], &ring));
	CHECK_OK(sealed_memfd(4096, true, &fds[1], &mem));
	memset(&m, 0, sizeof(m));
	m.magic = SHM_PROTO_MAGIC;
	m.version = SHM_PROTO_VERSION;
	m.type = SHM_MSG_CONSUMER_ADD;
	m.consumer.consumer_id = 1;
	m.consumer.nb_posts = 4;
	m.consumer.ring_size = ring_size_of(4);
	m.consumer.mem_size = 4096;
	m.consumer.flags = SHM_F_EVENT;
	CHECK_OK(raw_send(e.sock, &m, sizeof(m), fds, 2));
	close(fds[0]);
	close(fds[1]);
	munmap(ring, ring_size_of(4));
	munmap(mem, 4096);
	if (expect_refused("2 fds, 4 expected") < 0)
		return -1;
	return release(&e);
}

/* The host dies: the server and the consumer asleep on it wake. */
static int
test_peer_dies(void)
{
	struct rte_comch_event *sev = rte_comch_server_event(srv);
	struct evil_cons x;
	struct evil e;
	uint64_t dl;

	CHECK_OK(evil_open_flags(&e, 0));
	if (evil_cons_open(&e, &x, 4) < 0)
		return -1;
	CHECK_EQ(rte_comch_event_arm(x.ev), 0);
	CHECK_EQ(rte_comch_event_arm(sev), 0);
	close(e.sock);    /* no BYE: as a killed process */
	e.sock = -1;
	WAKES(sev);
	dl = test_deadline(TEST_GUARD_S);
	while (sv.disconnects == 0 && !test_expired(dl)) {
		if (rte_comch_event_arm(sev) == 0)
			WAKES(sev);
		rte_comch_server_poll(srv);
	}
	CHECK_EQ(sv.last_err, -ECONNRESET);
	WAKES(x.ev);
	CHECK_EQ(rte_comch_event_arm(x.ev), -ECONNRESET);
	if (evil_cons_close(&x) < 0)
		return -1;
	return release(&e);
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "arm_page_readonly", test_arm_page_readonly },
		{ "never_kicks", test_never_kicks },
		{ "kick_storm", test_kick_storm },
		{ "kick_shutdown", test_kick_shutdown },
		{ "bad_event_fds", test_bad_event_fds },
		{ "consumer_add_fds", test_consumer_add_fds },
		{ "peer_dies", test_peer_dies },
	};
	struct rte_comch_server_conf conf = { .name = "evil",
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.flags = RTE_COMCH_F_EVENT };
	struct rte_comch_server_conf slow_conf = { .name = "slow",
		.flags = RTE_COMCH_F_EVENT };
	struct rte_comch_server *slow_srv;
	char args[256], slow_dir[64];
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "event_hostile", "0", NULL) < 0 ||
	    test_mkdtemp(link_dir, sizeof(link_dir)) < 0 ||
	    test_mkdtemp(slow_dir, sizeof(slow_dir)) < 0)
		return 1;
	/* first: the periodic check of this process starts at an hour */
	snprintf(args, sizeof(args), "role=dpu,path=%s,wake_check_ms=3600000",
		slow_dir);
	if (rte_vdev_init("comch_shm_slow", args) < 0)
		return 1;
	slow_srv = rte_comch_server_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_slow"),
		&slow_conf);
	if (slow_srv == NULL)
		return 1;
	snprintf(args, sizeof(args), "role=dpu,path=%s,wake_check_ms=50",
		link_dir);
	if (rte_vdev_init("comch_shm_dpu", args) < 0)
		return 1;
	dpu = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	srv = rte_comch_server_create(dpu, &conf);
	if (srv == NULL || rte_comch_server_start(srv) < 0)
		return 1;
	ret = test_run_cases("event_hostile", cases, RTE_DIM(cases));
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	rte_comch_server_destroy(slow_srv);
	rte_eal_cleanup();
	rmdir(link_dir);
	rmdir(slow_dir);
	return ret;
}
