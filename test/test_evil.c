/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Evil peer: a host that speaks the comch_shm wire protocol by hand
 * (drivers/comch/shm/comch_shm.h), completes the handshake, then breaks
 * one rule per case: malformed or out-of-order socket messages, fds of the
 * wrong kind or size, corrupted ring indices, message lengths, consumer
 * announcements, posted-buffer descriptors and completion records.
 *
 * For every case the DPU side (this process's comch_shm_dpu device and
 * server) must stay up, refuse or close only that connection with a logged
 * reason, and then serve a well-behaved client (a real comch_shm host
 * device) with full, ordered delivery. No fd may be left behind.
 *
 * The cases net_* (test_evil_net.c) do the same to a net_comch port.
 */

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_memory.h>
#include <rte_pause.h>

#include "evil_peer.h"
#include "test_evil.h"

char link_dir[64];
static int16_t dpu, host;
static struct rte_comch_server *srv;

/* Server events. */
static struct {
	unsigned int connects, disconnects;
	int last_err;
	struct rte_comch_conn *last_conn;
	struct rte_comch_conn *unreleased; /* had producers/consumers */
	uint32_t consumer_created;
	uint32_t consumer_id;
} ev;

static void
on_connect(struct rte_comch_server *s __rte_unused, struct rte_comch_conn *c,
		void *a __rte_unused)
{
	ev.connects++;
	ev.last_conn = c;
}

static void
on_disconnect(struct rte_comch_server *s, struct rte_comch_conn *c, int err,
		void *a __rte_unused)
{
	ev.disconnects++;
	ev.last_err = err;
	/* With producers or consumers left the case releases it after
	 * destroying them (teardown order). */
	if (rte_comch_server_disconnect(s, c) == -EBUSY)
		ev.unreleased = c;
	else if (c == ev.last_conn)
		ev.last_conn = NULL;
}

static void
on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event e, void *a __rte_unused)
{
	if (e == RTE_COMCH_CONSUMER_CREATED) {
		ev.consumer_created++;
		ev.consumer_id = id;
	}
}

/* Poll until @p done says so; @p seconds is only a failure guard. */
static void
poll_for(double seconds, bool (*done)(void))
{
	uint64_t dl = test_deadline(seconds);

	while (!done() && !test_expired(dl))
		rte_comch_server_poll(srv);
}

/* Poll until this process holds @p want fds again (the DPU let go of a
 * socket it accepted); failure guard TEST_GUARD_S. Returns the count last seen. */
static int
wait_fds(int want)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int n;

	while ((n = test_count_fds()) != want && !test_expired(dl))
		rte_comch_server_poll(srv);
	return n;
}

static bool
lost_one(void)
{
	return ev.disconnects > 0;
}

/* The server must have closed the evil connection with -EPROTO and said
 * why in the log. */
static int
expect_broken(const char *log)
{
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(ev.last_err, -EPROTO);
	CHECK(log == NULL || test_log_has(log), "log lacks \"%s\"", log);
	return 0;
}

/* Release a lost connection that still had producers/consumers (they are
 * gone now), and check the server holds nothing any more. */
static int
expect_released(void)
{
	if (ev.unreleased != NULL) {
		CHECK_OK(rte_comch_server_disconnect(srv, ev.unreleased));
		ev.unreleased = NULL;
		ev.last_conn = NULL;
	}
	CHECK_EQ(rte_comch_server_conn_count(srv), 0);
	return 0;
}

/* ------------------------------------------- the well-behaved client */

static int
good_client_check(void)
{
	struct rte_comch_client_conf conf = { .server_name = "evil" };
	struct rte_comch_client *cli = rte_comch_client_create(host, &conf);
	struct rte_comch_msg m;
	uint64_t dl = test_deadline(TEST_GUARD_S);
	uint32_t i, v;
	int err, n;

	CHECK(cli != NULL, "client");
	CHECK_OK(rte_comch_client_start(cli));
	while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING &&
	       !test_expired(dl)) {
		rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
	}
	CHECK_EQ(rte_comch_client_state(cli, &err), RTE_COMCH_STATE_RUNNING);
	/* the server reports a connection before it answers ACCEPT */
	CHECK(ev.last_conn != NULL, "server saw no connection");
	for (i = 0; i < 1000; i++) {
		CHECK_OK(rte_comch_msg_send(rte_comch_client_conn(cli), &i,
				sizeof(i)));
		n = rte_comch_msg_recv_burst(ev.last_conn, &m, 1);
		CHECK_EQ(n, 1);
		memcpy(&v, m.data, sizeof(v));
		CHECK_EQ(v, i);
	}
	CHECK_OK(rte_comch_client_stop(cli));
	CHECK_OK(rte_comch_client_destroy(cli));
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_EQ(ev.last_err, 0); /* closed on purpose */
	return 0;
}

/* Run one evil case, then check the server is intact. */
static int
run_case(const char *name, int (*fn)(void))
{
	int ret;

	printf("  case %s\n", name);
	memset(&ev, 0, sizeof(ev));
	test_log_reset();
	ret = fn();
	if (ret == 0)
		ret = expect_released();
	if (ret != 0) {
		printf("  FAIL in case %s\n", name);
		return ret;
	}
	CHECK_EQ(rte_comch_server_state(srv), RTE_COMCH_STATE_RUNNING);
	memset(&ev, 0, sizeof(ev));
	if (good_client_check() != 0) {
		printf("  FAIL: the good client after case %s\n", name);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------- socket cases */

/* Refused handshakes: no connection appears, a REJECT or a closed socket
 * comes back. */
static int
refused(const struct shm_msg *m, size_t len, const int *fds, int nfds,
		int want_err)
{
	int fds0 = test_count_fds();
	struct evil e = { .sock = raw_connect(link_dir) };
	int err = 0, t;

	CHECK(e.sock >= 0, "connect");
	CHECK_OK(raw_send(e.sock, m, len, fds, nfds));
	t = raw_answer(&e, srv, &err);
	CHECK(t != SHM_MSG_ACCEPT, "accepted");
	if (want_err != 0) {
		CHECK_EQ(t, SHM_MSG_REJECT);
		CHECK_EQ(err, want_err);
	}
	close(e.sock);
	/* refused: no connection, and the DPU let go of the socket */
	CHECK_EQ(wait_fds(fds0), fds0);
	CHECK_EQ(ev.connects, 0);
	return 0;
}

static int
case_bad_hellos(void)
{
	struct shm_msg m;
	int fd, pipefd[2], diskfd;
	void *map;
	char path[128];
	struct shm_ring_geom g;

	shm_ring_geom_init(&g, 16, SHM_DEFAULT_MSG_SIZE);
	CHECK_OK(sealed_memfd(g.mailbox_size, true, &fd, &map));

	hello_init(&m, 16, g.mailbox_size);
	CHECK_OK(refused(&m, 10, &fd, 1, 0));                /* short */
	CHECK_OK(refused(&m, sizeof(m), NULL, 0, 0));        /* no fd */
	{
		int two[2] = { fd, fd };

		CHECK_OK(refused(&m, sizeof(m), two, 2, 0)); /* two fds */
	}
	m.magic ^= 1;
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, 0));         /* magic */
	hello_init(&m, 16, g.mailbox_size);
	m.version = 99;
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, 0));         /* version */
	hello_init(&m, 16, g.mailbox_size);
	m.type = 99;
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, 0));         /* type */
	hello_init(&m, 16, g.mailbox_size);
	m.type = SHM_MSG_ACCEPT;                             /* out of order */
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, 0));
	hello_init(&m, 16, g.mailbox_size);
	memset(m.hello.server_name, 'x', sizeof(m.hello.server_name));
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, 0));         /* no NUL */
	hello_init(&m, 0, g.mailbox_size);
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, EINVAL));    /* depth 0 */
	hello_init(&m, 100000, g.mailbox_size);
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, EINVAL));    /* depth huge */
	hello_init(&m, 17, g.mailbox_size);                  /* size mismatch */
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, EPROTO));
	CHECK(test_log_has("expected"), "no size reason logged");
	close(fd);
	munmap(map, g.mailbox_size);

	/* fds of the wrong kind */
	hello_init(&m, 16, g.mailbox_size);
	CHECK_OK(sealed_memfd(g.mailbox_size, false, &fd, &map)); /* unsealed */
	CHECK_OK(refused(&m, sizeof(m), &fd, 1, EPROTO));
	CHECK(test_log_has("not sealed"), "no seal reason logged");
	close(fd);
	munmap(map, g.mailbox_size);
	CHECK_OK(pipe(pipefd));
	CHECK_OK(refused(&m, sizeof(m), &pipefd[0], 1, EPROTO)); /* a pipe */
	close(pipefd[0]);
	close(pipefd[1]);
	snprintf(path, sizeof(path), "%s/disk", link_dir);
	diskfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(diskfd >= 0 && ftruncate(diskfd, (off_t)g.mailbox_size) == 0,
		"disk file");
	CHECK_OK(refused(&m, sizeof(m), &diskfd, 1, EPROTO));   /* a file */
	CHECK(test_log_has("not a memfd") || test_log_has("not sealed"),
		"no reason logged for a plain file");
	close(diskfd);
	unlink(path);

	/* peer gone during the handshake */
	{
		int fds0 = test_count_fds();
		int s = raw_connect(link_dir);

		CHECK(s >= 0, "connect");
		close(s);
		CHECK_EQ(wait_fds(fds0), fds0);
		CHECK_EQ(ev.connects, 0);
	}
	return 0;
}

/* After the handshake the socket carries only consumer announcements. */
static int
case_bytes_after_handshake(void)
{
	struct evil e;

	CHECK_OK(evil_open(&e, link_dir, srv));
	CHECK_EQ(ev.connects, 1);
	CHECK_OK(raw_send(e.sock, "junk", 4, NULL, 0));
	CHECK_OK(expect_broken("malformed or unexpected message"));
	evil_close(&e);
	return 0;
}

static int
case_hello_again(void)
{
	struct evil e;
	struct shm_msg m;

	CHECK_OK(evil_open(&e, link_dir, srv));
	hello_init(&m, 16, e.rx.mailbox_size);
	CHECK_OK(raw_send(e.sock, &m, sizeof(m), &e.mb_fd, 1));
	CHECK_OK(expect_broken("malformed or unexpected message"));
	evil_close(&e);
	return 0;
}

/* BYE then end of file is a clean close ("closed", at debug level); end
 * of file alone means the peer died ("lost"); BYE carrying an fd breaks
 * the protocol. The DPU reports the first with err 0, the second with
 * -ECONNRESET. */
static int
case_close_or_die(void)
{
	int logtype = rte_log_register("lib.comch");
	struct shm_msg m;
	struct evil e;
	int fd;

	rte_log_set_level(logtype, RTE_LOG_DEBUG);
	memset(&m, 0, sizeof(m));
	m.magic = SHM_PROTO_MAGIC;
	m.version = SHM_PROTO_VERSION;
	m.type = SHM_MSG_BYE;

	CHECK_OK(evil_open(&e, link_dir, srv));
	CHECK_OK(raw_send(e.sock, &m, sizeof(m), NULL, 0));
	evil_close(&e);
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(ev.last_err, 0);
	CHECK(test_log_has("closed by the peer") && !test_log_has("lost"),
		"BYE logged as a clean close");
	CHECK_OK(expect_released());

	memset(&ev, 0, sizeof(ev));
	test_log_reset();
	CHECK_OK(evil_open(&e, link_dir, srv));
	evil_close(&e);
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(ev.last_err, -ECONNRESET);
	CHECK(test_log_has("lost: the peer went away without closing"),
		"end of file logged as lost");
	CHECK_OK(expect_released());

	memset(&ev, 0, sizeof(ev));
	test_log_reset();
	CHECK_OK(evil_open(&e, link_dir, srv));
	fd = dup(e.mb_fd);
	CHECK_OK(raw_send(e.sock, &m, sizeof(m), &fd, 1));
	close(fd);
	CHECK_OK(expect_broken("malformed or unexpected message"));
	evil_close(&e);
	rte_log_set_level(logtype, RTE_LOG_NOTICE);
	return 0;
}

/* ---------------------------------------------- ring and mailbox cases */

static struct shm_mailbox_hdr *
srv_hdr(struct evil *e)
{
	return e->srv_mb;
}

/* The server receives from its own mailbox, which we write, until that
 * fails (failure guard). */
static int
server_receive(void)
{
	struct rte_comch_msg m[8];
	int n = 0;
	uint64_t dl = test_deadline(TEST_GUARD_S);

	while (ev.last_conn != NULL && !test_expired(dl)) {
		n = rte_comch_msg_recv_burst(ev.last_conn, m, 8);
		if (n < 0)
			break;
		rte_comch_server_poll(srv);
	}
	return n;
}

static struct shm_ctrl_slot *
srv_slot(struct evil *e, uint32_t n)
{
	return RTE_PTR_ADD(e->srv_mb, sizeof(struct shm_mailbox_hdr) +
			(size_t)(n % 16) * e->tx.slot_size);
}

/* Sequence numbers that are not the next one are not messages: nothing is
 * delivered, the connection stays, and the right one is taken. */
static int
case_seq_wrong(void)
{
	struct rte_comch_msg m[8];
	struct evil e;
	uint32_t k, v = 42;

	CHECK_OK(evil_open(&e, link_dir, srv));
	for (k = 0; k < 16; k++) {
		srv_slot(&e, k)->len = 4;
		srv_slot(&e, k)->seq = k == 0 ? 0 : 1; /* 0: not yet; 1: wrong */
	}
	srv_slot(&e, 0)->seq = 17;     /* one ring ahead */
	CHECK_EQ(rte_comch_msg_recv_burst(ev.last_conn, m, 8), 0);
	srv_slot(&e, 0)->seq = UINT32_MAX;
	CHECK_EQ(rte_comch_msg_recv_burst(ev.last_conn, m, 8), 0);
	memcpy(srv_slot(&e, 0)->data, &v, sizeof(v));
	__atomic_store_n(&srv_slot(&e, 0)->seq, 1, __ATOMIC_RELEASE);
	CHECK_EQ(rte_comch_msg_recv_burst(ev.last_conn, m, 8), 1);
	CHECK_EQ(m[0].len, 4);
	CHECK_EQ(*(const uint32_t *)m[0].data, 42);
	/* not broken: the server can still send on it */
	CHECK_OK(rte_comch_msg_send(ev.last_conn, &v, sizeof(v)));
	CHECK_EQ(ev.disconnects, 0);
	evil_close(&e);
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_EQ(ev.last_err, -ECONNRESET);
	return 0;
}

static int
case_len_beyond_max(void)
{
	struct evil e;
	struct shm_ctrl_slot *slot;

	CHECK_OK(evil_open(&e, link_dir, srv));
	slot = srv_slot(&e, 0);
	slot->len = SHM_MAX_MSG_SIZE + 1;
	__atomic_store_n(&slot->seq, 1, __ATOMIC_RELEASE);
	CHECK_EQ(server_receive(), -ECONNRESET);
	CHECK_OK(expect_broken("broke the ring protocol"));
	evil_close(&e);
	return 0;
}

/* The server sends into our mailbox and reads how far we consumed from
 * its own: we claim to have consumed more than it sent. */
static int
case_tx_cons_bogus(void)
{
	struct evil e;
	uint32_t v = 7;
	int ret, i;

	CHECK_OK(evil_open(&e, link_dir, srv));
	srv_hdr(&e)->tx_cons = 5000;
	for (i = 0, ret = 0; i < 64 && ret == 0; i++)
		ret = rte_comch_msg_send(ev.last_conn, &v, sizeof(v));
	CHECK_EQ(ret, -ECONNRESET);
	CHECK_OK(expect_broken("broke the ring protocol"));
	evil_close(&e);
	return 0;
}

/* ------------------------------------------------- fast-path cases */

static int
case_bad_consumer_adds(void)
{
	static const struct { uint32_t id, posts, imm; int64_t ring_adj, mem;
		int nfds; } bad[] = {
		{ 0, 8, 32, 0, 4096, 2 },     /* id 0: never a consumer id */
		{ 1, 0, 32, 0, 4096, 2 },     /* no posts */
		{ 1, 9000, 32, 0, 4096, 2 },  /* too many posts */
		{ 1, 8, 33, 0, 4096, 2 },     /* imm too long */
		{ 1, 8, 32, 4096, 4096, 2 },  /* ring size wrong */
		{ 1, 8, 32, 0, 8192, 2 },     /* memory size wrong */
		{ 1, 8, 32, 0, 4096, 1 },     /* one fd */
	};
	size_t i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		struct evil e;
		int fds[2];
		void *ring, *mem;
		size_t rs = ring_size_of(8);

		memset(&ev, 0, sizeof(ev));
		CHECK_OK(evil_open(&e, link_dir, srv));
		CHECK_OK(sealed_memfd(rs, true, &fds[0], &ring));
		CHECK_OK(sealed_memfd(4096, true, &fds[1], &mem));
		CHECK_OK(send_consumer_add(&e, bad[i].id, bad[i].posts, bad[i].imm,
				(uint64_t)((int64_t)rs + bad[i].ring_adj),
				(uint64_t)bad[i].mem, fds, bad[i].nfds));
		CHECK_OK(expect_broken("malformed or unexpected message"));
		CHECK_OK(expect_released());
		CHECK_EQ(ev.consumer_created, 0);
		close(fds[0]);
		close(fds[1]);
		munmap(ring, rs);
		munmap(mem, 4096);
		evil_close(&e);
	}
	/* DEL of a consumer that does not exist */
	{
		struct evil e;
		struct shm_msg m;

		memset(&ev, 0, sizeof(ev));
		CHECK_OK(evil_open(&e, link_dir, srv));
		memset(&m, 0, sizeof(m));
		m.magic = SHM_PROTO_MAGIC;
		m.version = SHM_PROTO_VERSION;
		m.type = SHM_MSG_CONSUMER_DEL;
		m.consumer.consumer_id = 5;
		CHECK_OK(raw_send(e.sock, &m, sizeof(m), NULL, 0));
		CHECK_OK(expect_broken("malformed or unexpected message"));
		CHECK_OK(expect_released());
		evil_close(&e);
	}
	return 0;
}

static bool
consumer_known(void)
{
	return ev.consumer_created > 0;
}

/* Our consumer (a valid announcement), whose ring we then corrupt while
 * the server's producer sends to it. */
static int
case_corrupt_posts(void)
{
	static const char * const what[] = { "post_prod beyond depth",
		"post_seq wrong", "offset beyond memory" };
	unsigned int k;

	for (k = 0; k < RTE_DIM(what); k++) {
		struct rte_comch_send_op op = { .data = "x", .len = 1 };
		struct rte_comch_producer *prod;
		struct shm_cons_hdr *hdr;
		struct shm_post_slot *slots;
		struct evil e;
		size_t rs = ring_size_of(8);
		int fds[2], n;
		void *ring, *mem;

		printf("    %s\n", what[k]);
		memset(&ev, 0, sizeof(ev));
		CHECK_OK(evil_open(&e, link_dir, srv));
		CHECK_OK(sealed_memfd(rs, true, &fds[0], &ring));
		CHECK_OK(sealed_memfd(4096, true, &fds[1], &mem));
		CHECK_OK(send_consumer_add(&e, 1, 8, 32, rs, 4096, fds, 2));
		poll_for(TEST_GUARD_S, consumer_known);
		CHECK_EQ(ev.consumer_created, 1);
		hdr = ring;
		slots = RTE_PTR_ADD(ring, sizeof(*hdr));
		/* one valid post first */
		slots[0].buf_off = 0;
		slots[0].buf_len = 64;
		slots[0].post_seq = 0;
		if (k == 0) {
			hdr->post_prod = 100;
		} else if (k == 1) {
			slots[0].post_seq = 7;
			hdr->post_prod = 1;
		} else {
			slots[0].buf_off = 4090;
			hdr->post_prod = 1;
		}
		prod = rte_comch_producer_create(ev.last_conn, NULL);
		CHECK(prod != NULL && rte_comch_producer_start(prod) == 0,
			"producer");
		n = rte_comch_producer_send_burst(prod, ev.consumer_id, &op, 1);
		CHECK_EQ(n, -ECONNRESET);
		CHECK_OK(expect_broken("broke the ring protocol"));
		/* teardown still completes: producer, then the connection */
		CHECK_OK(rte_comch_producer_stop(prod));
		CHECK_OK(rte_comch_producer_destroy(prod));
		CHECK_OK(expect_released());
		close(fds[0]);
		close(fds[1]);
		munmap(ring, rs);
		munmap(mem, 4096);
		evil_close(&e);
	}
	return 0;
}

/*
 * Our consumer, valid, whose claim word a thread of ours keeps moving
 * while the server's producer sends to it, as a consumer that also
 * produces into itself would: the claim goes forward one buffer at a
 * time, the posts stay ahead of it, every slot the producer may look at
 * says what it should, and the producer's exchange finds the claim moved
 * each time. The send must still return ("again", 0, or what it took)
 * while the claim moves, not once it stops: the thread moves it until
 * the send returned, or gives up after a failure guard (then the send
 * never returned while it moved: the lcore that sends would be held as
 * long as the peer liked), and the moves break no rule: the connection
 * stays. On 2 cores one such thread rarely holds a send for long (its
 * stores leave the exchange a window every few thousand moves); two
 * threads on cores of their own would.
 */
#define CLAIM_DEPTH 8

static struct {
	struct shm_cons_hdr *hdr;
	struct shm_post_slot *slots;
	volatile bool stop, gave_up;
	volatile uint64_t moves;
} claimer;

static void *
claimer_main(void *arg __rte_unused)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	uint32_t v = 0, s;

	while (!claimer.stop) {
		/* the claim moves on (what a producer's exchange does),
		 * then the slot it left is posted again at the far end of
		 * the window [v, v + depth): what a producer may look at
		 * says what it should at every moment */
		v++;
		__atomic_store_n(&claimer.hdr->claim, v, __ATOMIC_RELEASE);
		s = v + CLAIM_DEPTH - 1;
		claimer.slots[s % CLAIM_DEPTH].buf_off = (s % CLAIM_DEPTH) * 64;
		claimer.slots[s % CLAIM_DEPTH].buf_len = 64;
		__atomic_store_n(&claimer.slots[s % CLAIM_DEPTH].post_seq, s,
			__ATOMIC_RELEASE);
		__atomic_store_n(&claimer.hdr->post_prod, v + CLAIM_DEPTH,
			__ATOMIC_RELEASE);
		claimer.moves++;
		if ((v & 0xfff) == 0 && test_expired(dl)) {
			claimer.gave_up = true;
			break;
		}
	}
	return NULL;
}

static int
case_claim_moves(void)
{
	struct rte_comch_send_op op = { .data = "x", .len = 1 };
	struct rte_comch_producer *prod;
	size_t rs = ring_size_of(CLAIM_DEPTH);
	void *ring, *mem;
	struct evil e;
	cpu_set_t cpus;
	pthread_t t;
	int fds[2], n;
	uint32_t i, at;

	memset(&ev, 0, sizeof(ev));
	CHECK_OK(evil_open(&e, link_dir, srv));
	CHECK_OK(sealed_memfd(rs, true, &fds[0], &ring));
	CHECK_OK(sealed_memfd(4096, true, &fds[1], &mem));
	CHECK_OK(send_consumer_add(&e, 1, CLAIM_DEPTH, 32, rs, 4096, fds, 2));
	poll_for(TEST_GUARD_S, consumer_known);
	CHECK_EQ(ev.consumer_created, 1);
	claimer.hdr = ring;
	claimer.slots = RTE_PTR_ADD(ring, sizeof(*claimer.hdr));
	for (i = 0; i < CLAIM_DEPTH; i++) {
		claimer.slots[i].buf_off = i * 64;
		claimer.slots[i].buf_len = 64;
		claimer.slots[i].post_seq = i;
	}
	claimer.hdr->post_prod = CLAIM_DEPTH;
	prod = rte_comch_producer_create(ev.last_conn, NULL);
	CHECK(prod != NULL && rte_comch_producer_start(prod) == 0, "producer");
	claimer.stop = false;
	claimer.gave_up = false;
	claimer.moves = 0;
	CHECK_OK(pthread_create(&t, NULL, claimer_main, NULL));
	/* on a CPU of its own, not on our lcore's (which it inherits) */
	CPU_ZERO(&cpus);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (i != (uint32_t)sched_getcpu())
			CPU_SET(i, &cpus);
	(void)pthread_setaffinity_np(t, sizeof(cpus), &cpus);
	/* the send begins once the claim is moving */
	while (claimer.moves == 0 && !claimer.gave_up)
		rte_pause();
	n = rte_comch_producer_send_burst(prod, ev.consumer_id, &op, 1);
	claimer.stop = true;
	pthread_join(t, NULL);
	CHECK(!claimer.gave_up,
		"the send returned only once the claim stopped moving");
	CHECK(n == 0 || n == 1, "send: %d", n);
	CHECK_EQ(ev.disconnects, 0);
	/* once the claim holds still the send goes through, from it (the
	 * send above may have taken the buffer after the last move) */
	at = claimer.hdr->claim;
	CHECK_EQ(rte_comch_producer_send_burst(prod, ev.consumer_id, &op, 1), 1);
	CHECK_EQ(claimer.hdr->claim, at + 1);
	CHECK_OK(rte_comch_producer_stop(prod));
	CHECK_OK(rte_comch_producer_destroy(prod));
	evil_close(&e);
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_EQ(ev.disconnects, 1);
	CHECK_OK(expect_released());
	close(fds[0]);
	close(fds[1]);
	munmap(ring, rs);
	munmap(mem, 4096);
	return 0;
}

/* The CONSUMER_ADD the server sends when a consumer of it starts: its
 * ring, mapped (written to @p ring, size in *@p ring_size), and its fds
 * (to close). */
static int
evil_consumer_ring(struct evil *e, void **ring, size_t *ring_size, int *fds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct shm_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int n;

	do
		n = (int)recvmsg(e->sock, &mh, MSG_DONTWAIT);
	while (n < 0 && errno == EAGAIN && !test_expired(dl));
	CHECK_EQ(n, (int)sizeof(m));
	CHECK_EQ(m.type, SHM_MSG_CONSUMER_ADD);
	memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&mh)), 2 * sizeof(int));
	*ring_size = m.consumer.ring_size;
	*ring = mmap(NULL, *ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			fds[0], 0);
	CHECK(*ring != MAP_FAILED, "map ring");
	return 0;
}

/* A started consumer of the server with @p nb_posts buffers of 64 bytes
 * posted, and its ring as we (its peer) see it. */
struct evil_cons {
	struct evil e;
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct shm_post_slot *slots;
	void *ring;
	size_t ring_size;
	int fds[2];
};

static int
evil_cons_open(struct evil_cons *x, uint32_t nb_posts, uint32_t imm)
{
	struct rte_comch_consumer_conf cc = { .nb_posts = nb_posts,
		.max_imm_len = imm };
	uint32_t len = 64, i;
	void *buf;

	memset(&ev, 0, sizeof(ev));
	CHECK_OK(evil_open(&x->e, link_dir, srv));
	x->mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	cc.mem = x->mem;
	x->cons = rte_comch_consumer_create(ev.last_conn, &cc);
	CHECK(x->cons != NULL && rte_comch_consumer_start(x->cons) == 0,
		"consumer");
	for (i = 0; i < nb_posts; i++) {
		buf = (uint8_t *)rte_comch_mem_addr(x->mem) + i * 64;
		CHECK_EQ(rte_comch_consumer_post_burst(x->cons, &buf, &len, 1), 1);
	}
	CHECK_OK(evil_consumer_ring(&x->e, &x->ring, &x->ring_size, x->fds));
	x->slots = RTE_PTR_ADD(x->ring, sizeof(struct shm_cons_hdr));
	return 0;
}

/* Stop the consumer: its one posted buffer comes back cancelled, and it
 * is idle. */
static int
evil_cons_stop(struct evil_cons *x)
{
	struct rte_comch_completion cpl[4];

	CHECK_OK(rte_comch_consumer_stop(x->cons));
	CHECK_EQ(rte_comch_consumer_poll_burst(x->cons, cpl, 4), 1);
	CHECK_EQ(cpl[0].status, -ECANCELED);
	CHECK_EQ(rte_comch_consumer_state(x->cons), RTE_COMCH_STATE_IDLE);
	return 0;
}

/* Destroy the consumer, hang up, and check the server let go of the
 * connection. */
static int
evil_cons_close(struct evil_cons *x)
{
	CHECK_OK(rte_comch_consumer_destroy(x->cons));
	CHECK_OK(rte_comch_mem_destroy(x->mem));
	munmap(x->ring, x->ring_size);
	close(x->fds[0]);
	close(x->fds[1]);
	evil_close(&x->e);
	poll_for(TEST_GUARD_S, lost_one);
	CHECK_OK(expect_released());
	return 0;
}

/* The server's consumer: we act as a producer writing completions with a
 * length beyond the posted buffer, or immediate data beyond the maximum. */
static int
case_corrupt_completions(void)
{
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct rte_comch_completion cpl[4];
		struct evil_cons x;

		printf("    completion %s\n", k == 0 ? "len beyond the buffer" :
			"imm_len beyond the maximum");
		CHECK_OK(evil_cons_open(&x, 1, 8));
		x.slots[0].len = k == 0 ? 65 : 1;
		x.slots[0].imm_len = k == 0 ? 0 : 9;
		__atomic_store_n(&x.slots[0].done_seq, 1, __ATOMIC_RELEASE);
		CHECK_EQ(rte_comch_consumer_poll_burst(x.cons, cpl, 4),
			-ECONNRESET);
		CHECK_OK(expect_broken("broke the ring protocol"));
		/* teardown still completes: the buffer comes back cancelled */
		CHECK_OK(evil_cons_stop(&x));
		CHECK_OK(evil_cons_close(&x));
	}
	return 0;
}

/* The server's consumer: the peer aborts transfers it claimed (a
 * completion with len SHM_LEN_ABORTED, as the producing side's primary
 * writes for a producer that died). Only the exact index + 1 does
 * anything: the buffer comes back unfilled, in order, and the connection
 * carries on. */
static int
case_aborted(void)
{
	static const uint32_t wrong[] = { 0, 2, UINT32_MAX, 0x80000001 };
	struct rte_comch_completion cpl[4];
	struct evil_cons x;
	unsigned int k;

	CHECK_OK(evil_cons_open(&x, 2, 8));
	for (k = 0; k < RTE_DIM(wrong); k++) {
		union shm_cpl w = { .done_seq = wrong[k],
				    .len = SHM_LEN_ABORTED };

		__atomic_store_n(&x.slots[0].cpl, w.word, __ATOMIC_RELEASE);
		CHECK_EQ(rte_comch_consumer_poll_burst(x.cons, cpl, 4), 0);
	}
	/* slot 0 aborted, slot 1 filled: both come back, in order */
	{
		union shm_cpl w = { .done_seq = 1, .len = SHM_LEN_ABORTED };

		__atomic_store_n(&x.slots[0].cpl, w.word, __ATOMIC_RELEASE);
	}
	x.slots[1].len = 5;
	x.slots[1].producer_id = 3;
	__atomic_store_n(&x.slots[1].done_seq, 2, __ATOMIC_RELEASE);
	CHECK_EQ(rte_comch_consumer_poll_burst(x.cons, cpl, 4), 2);
	CHECK_EQ(cpl[0].status, -ECANCELED);
	CHECK_EQ(cpl[0].len, 0);
	CHECK(cpl[0].buf == rte_comch_mem_addr(x.mem), "the first buffer");
	CHECK_EQ(cpl[1].status, 0);
	CHECK_EQ(cpl[1].len, 5);
	CHECK_EQ(cpl[1].producer_id, 3);
	CHECK_EQ(ev.disconnects, 0);
	/* a later use of slot 0 is not given up by the stale mark */
	CHECK_EQ(rte_comch_consumer_post_burst(x.cons, &cpl[0].buf,
		(const uint32_t[]){ 64 }, 1), 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(x.cons, cpl, 4), 0);
	CHECK_OK(evil_cons_stop(&x));
	CHECK_OK(evil_cons_close(&x));
	return 0;
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} cases[] = {
		{ "bad_hellos", case_bad_hellos },
		{ "bytes_after_handshake", case_bytes_after_handshake },
		{ "hello_again", case_hello_again },
		{ "close_or_die", case_close_or_die },
		{ "seq_wrong", case_seq_wrong },
		{ "len_beyond_max", case_len_beyond_max },
		{ "tx_cons_bogus", case_tx_cons_bogus },
		{ "bad_consumer_adds", case_bad_consumer_adds },
		{ "corrupt_posts", case_corrupt_posts },
		{ "claim_moves", case_claim_moves },
		{ "corrupt_completions", case_corrupt_completions },
		{ "aborted", case_aborted },
		{ "net_bad_messages", case_net_bad_messages },
		{ "net_disagree", case_net_disagree },
		{ "net_silent", case_net_silent },
		{ "net_frames", case_net_frames },
		{ "net_ctrl_budget", case_net_ctrl_budget },
		{ "net_refused_unread", case_net_refused_unread },
		{ "net_honest", case_net_honest },
	};
	struct rte_comch_server_conf conf = { .name = "evil",
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.consumer_event_cb = on_consumer };
	static char fds_before[2048], fds_after[2048];
	int fds0, fds1, failed = 0;
	size_t i;

	test_log_capture_init();
	if (test_eal_init(argv[0], "evil", "0", NULL) < 0 ||
	    test_link_pair(link_dir, sizeof(link_dir), &dpu, &host) < 0)
		return 1;
	srv = rte_comch_server_create(dpu, &conf);
	if (srv == NULL || rte_comch_server_start(srv) < 0)
		return 1;
	if (net_evil_init() < 0)
		return 1;
	fds0 = test_count_fds();
	test_describe_fds(fds_before, sizeof(fds_before));
	for (i = 0; i < RTE_DIM(cases); i++) {
		int ret = run_case(cases[i].name, cases[i].fn);

		printf("%s evil/%s\n", ret == 0 ? "ok" : "FAILED", cases[i].name);
		failed += ret != 0;
	}
	/* the DPU drops sockets it accepted asynchronously (interrupt
	 * thread): wait for that, then nothing may be left */
	fds1 = wait_fds(fds0);
	if (fds1 != fds0) {
		test_describe_fds(fds_after, sizeof(fds_after));
		printf("FAILED: %d fds before, %d after\n  before: %s\n  after: %s\n",
			fds0, fds1, fds_before, fds_after);
		failed++;
	}
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	rte_eal_cleanup();
	rmdir(link_dir);
	printf("evil: %zu cases, %d failed\n", RTE_DIM(cases), failed);
	return failed == 0 ? 0 : 1;
}
