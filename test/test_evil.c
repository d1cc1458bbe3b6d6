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
 */

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "evil_peer.h"
#include "../drivers/net/comch/net_comch.h"

static char link_dir[64];
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
 * socket it accepted); failure guard 5 s. Returns the count last seen. */
static int
wait_fds(int want)
{
	uint64_t dl = test_deadline(5);
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
	poll_for(5, lost_one);
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
	uint64_t dl = test_deadline(10);
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
	poll_for(5, lost_one);
	CHECK_EQ(ev.last_err, -ECONNRESET);
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
 * the protocol. The DPU reports the first two as -ECONNRESET alike. */
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
	poll_for(5, lost_one);
	CHECK_EQ(ev.disconnects, 1);
	CHECK_EQ(ev.last_err, -ECONNRESET);
	CHECK(test_log_has("closed by the peer") && !test_log_has("lost"),
		"BYE logged as a clean close");
	CHECK_OK(expect_released());

	memset(&ev, 0, sizeof(ev));
	test_log_reset();
	CHECK_OK(evil_open(&e, link_dir, srv));
	evil_close(&e);
	poll_for(5, lost_one);
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

/* The server receives from its own mailbox, which we write. */
static int
server_receive(void)
{
	struct rte_comch_msg m[8];
	int n = 0;
	uint64_t dl = test_deadline(1);

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
	poll_for(5, lost_one);
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
		poll_for(5, consumer_known);
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
	uint64_t dl = test_deadline(5);
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
	poll_for(5, lost_one);
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

/* ------------------------------------------------------------ net_comch
 *
 * A net_comch port on the DPU (server "evilnet", 2 queues, buffers of
 * 2048 bytes), its connection and fast path driven by the port's own alarm;
 * the evil host speaks the wire protocol by hand and breaks the port's
 * protocol (control messages) or writes completions into the port's
 * consumer rings as it likes. The port must close only that connection
 * with a logged reason, never hand out an mbuf longer than its buffers or
 * from another queue, never keep an mbuf, and then serve an honest host.
 */

#define NET_BUF 2048
static struct rte_mempool *net_mp;

static int
net_port_open(const char *name, const char *args)
{
	struct rte_eth_conf conf = { .rxmode.offloads = RTE_ETH_RX_OFFLOAD_SCATTER };
	uint16_t port, q;

	if (rte_vdev_init(name, args) < 0 ||
	    rte_eth_dev_get_port_by_name(name, &port) != 0 ||
	    rte_eth_dev_configure(port, 2, 2, &conf) != 0)
		return -1;
	for (q = 0; q < 2; q++)
		if (rte_eth_rx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL, net_mp) ||
		    rte_eth_tx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL))
			return -1;
	return rte_eth_dev_start(port) == 0 ? port : -1;
}

static int
net_port_close(uint16_t port, const char *name)
{
	CHECK_OK(rte_eth_dev_stop(port));
	CHECK_OK(rte_eth_dev_close(port));
	CHECK_OK(rte_vdev_uninit(name));
	CHECK_EQ(rte_mempool_avail_count(net_mp), net_mp->size);
	return 0;
}

/* The raw handshake with server "evilnet" (the port's alarm answers). */
static int
net_evil_open(struct evil *e)
{
	struct shm_msg m;
	int err;

	memset(e, 0, sizeof(*e));
	shm_ring_geom_init(&e->rx, 16, SHM_DEFAULT_MSG_SIZE);
	e->sock = raw_connect(link_dir);
	CHECK(e->sock >= 0, "connect");
	CHECK_OK(sealed_memfd(e->rx.mailbox_size, true, &e->mb_fd, &e->mb));
	hello_init(&m, 16, e->rx.mailbox_size);
	snprintf(m.hello.server_name, sizeof(m.hello.server_name), "evilnet");
	CHECK_OK(raw_send(e->sock, &m, sizeof(m), &e->mb_fd, 1));
	CHECK_EQ(raw_answer(e, NULL, &err), SHM_MSG_ACCEPT);
	return 0;
}

/* Control message number @p n to the port, written into its mailbox. */
static void
net_evil_msg(struct evil *e, uint32_t n, const void *data, uint32_t len)
{
	struct shm_ctrl_slot *slot = RTE_PTR_ADD(e->srv_mb,
		sizeof(struct shm_mailbox_hdr) + (size_t)(n & e->tx.mask) * e->tx.slot_size);

	memcpy(slot->data, data, len);
	slot->len = len;
	__atomic_store_n(&slot->seq, n + 1, __ATOMIC_RELEASE);
}

static void
net_hello(struct ncm_msg_hello *h, uint16_t queues)
{
	memset(h, 0, sizeof(*h));
	h->hdr.magic = NCM_PROTO_MAGIC;
	h->hdr.version = NCM_PROTO_VERSION;
	h->hdr.type = NCM_MSG_HELLO;
	h->nb_queues = queues;
	h->nb_rxq = 2;
	h->nb_txq = 2;
	h->buf_size = NET_BUF;
	h->mtu = 1500;
}

/* The port hung up on us: read the socket to its end (closing any fds
 * that came with what was on it). */
static int
net_evil_hung_up(struct evil *e)
{
	uint64_t dl = test_deadline(30);
	char buf[512], cbuf[CMSG_SPACE(4 * sizeof(int))];
	ssize_t n;

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;

		n = recvmsg(e->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n == 0)
			return 0;
		if (n < 0 && errno != EAGAIN)
			return 0;
		for (c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c != NULL;
		     c = CMSG_NXTHDR(&mh, c)) {
			int *fds = (int *)CMSG_DATA(c);
			size_t k, nf = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (k = 0; k < nf; k++)
				close(fds[k]);
		}
		CHECK(!test_expired(dl), "the port did not hang up");
		if (n < 0)
			rte_delay_us_sleep(1000);
	}
}

/* Messages that break the port protocol: each closes its connection. */
static int
case_net_bad_messages(void)
{
	static const struct {
		const char *what, *log;
	} bad[] = {
		{ "short", "a message of 2 bytes, shorter than a header" },
		{ "magic", "not a net_comch port (magic 0x12345678)" },
		{ "version", "protocol version 9, this port speaks 1" },
		{ "type", "unknown message type 77" },
		{ "queue_first", "QUEUE before HELLO" },
		{ "hello_size", "HELLO of 31 bytes, expected 32" },
		{ "hello_twice", "a second HELLO" },
		{ "queue_range", "QUEUE for rx queue 2, consumer 7: the peer has 2 rx queues" },
		{ "queue_zero", "QUEUE for rx queue 0, consumer 0" },
	};
	int port, k;

	port = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	CHECK(port >= 0, "port");
	for (k = 0; k < (int)RTE_DIM(bad); k++) {
		struct ncm_msg_hello h;
		struct ncm_msg_queue q = { .hdr = { NCM_PROTO_MAGIC,
			NCM_PROTO_VERSION, NCM_MSG_QUEUE } };
		struct evil e;
		uint32_t n = 0;

		printf("    %s\n", bad[k].what);
		test_log_reset();
		CHECK_OK(net_evil_open(&e));
		net_hello(&h, 2);
		switch (k) {
		case 0:
			net_evil_msg(&e, n++, &h, 2);
			break;
		case 1:
			h.hdr.magic = 0x12345678;
			net_evil_msg(&e, n++, &h, sizeof(h));
			break;
		case 2:
			h.hdr.version = 9;
			net_evil_msg(&e, n++, &h, sizeof(h));
			break;
		case 3:
			h.hdr.type = 77;
			net_evil_msg(&e, n++, &h, sizeof(h));
			break;
		case 4:
			q.consumer_id = 1;
			net_evil_msg(&e, n++, &q, sizeof(q));
			break;
		case 5:
			net_evil_msg(&e, n++, &h, sizeof(h) - 1);
			break;
		case 6:
			net_evil_msg(&e, n++, &h, sizeof(h));
			net_evil_msg(&e, n++, &h, sizeof(h));
			break;
		default:
			net_evil_msg(&e, n++, &h, sizeof(h));
			q.qid = k == 7 ? 2 : 0;
			q.consumer_id = k == 7 ? 7 : 0;
			net_evil_msg(&e, n++, &q, sizeof(q));
			break;
		}
		CHECK(test_log_wait(bad[k].log, 10), "log lacks \"%s\"", bad[k].log);
		CHECK(test_log_has("the peer broke the port protocol"), "protocol");
		CHECK_OK(net_evil_hung_up(&e));
		evil_close(&e);
	}
	return net_port_close((uint16_t)port, "net_comch_evil");
}

/* A HELLO that disagrees: logged, link down, the connection kept (the
 * peer may be reconfigured); it goes when the peer hangs up. */
static int
case_net_disagree(void)
{
	struct ncm_msg_hello h;
	struct rte_eth_link l;
	struct evil e;
	int port;

	port = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	CHECK(port >= 0, "port");
	test_log_reset();
	CHECK_OK(net_evil_open(&e));
	net_hello(&h, 3);
	net_evil_msg(&e, 0, &h, sizeof(h));
	CHECK(test_log_wait("the two ends disagree: the peer's port has queues=3, this one queues=2", 10),
		"disagreement logged");
	CHECK_OK(rte_eth_link_get_nowait((uint16_t)port, &l));
	CHECK_EQ(l.link_status, RTE_ETH_LINK_DOWN);
	CHECK(!test_log_has("broke the port protocol"), "not a violation");
	evil_close(&e);
	CHECK(test_log_wait("connection", 10), "loss seen");
	return net_port_close((uint16_t)port, "net_comch_evil");
}

static uint64_t net_xstat(uint16_t port, const char *name);

/* A peer that never says HELLO loses its connection (it would hold the
 * DPU port's only one), logged. */
static int
case_net_silent(void)
{
	struct evil e;
	int port;

	port = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	CHECK(port >= 0, "port");
	test_log_reset();
	CHECK_OK(net_evil_open(&e));
	CHECK_OK(net_evil_hung_up(&e)); /* after NCM_HELLO_TIMEOUT_MS */
	CHECK(test_log_has("no HELLO from the peer within 5000 ms"), "logged");
	CHECK_EQ(net_xstat((uint16_t)port, "handshakes_refused"), 1);
	evil_close(&e);
	return net_port_close((uint16_t)port, "net_comch_evil");
}

/* One of the port's consumers as the evil host maps it. */
struct net_cons {
	void *ring, *mem;
	size_t ring_size, mem_size;
	struct shm_post_slot *slots;
	uint32_t next;    /* next slot to fill */
};

static int
net_cons_map(struct evil *e, struct net_cons *c)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct shm_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	uint64_t dl = test_deadline(10);
	int fds[2], n;

	do
		n = (int)recvmsg(e->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EAGAIN && !test_expired(dl) &&
	       (rte_delay_us_sleep(1000), 1));
	CHECK_EQ(n, (int)sizeof(m));
	CHECK_EQ(m.type, SHM_MSG_CONSUMER_ADD);
	memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(fds));
	c->ring_size = m.consumer.ring_size;
	c->mem_size = m.consumer.mem_size;
	c->ring = mmap(NULL, c->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			fds[0], 0);
	c->mem = mmap(NULL, c->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			fds[1], 0);
	close(fds[0]);
	close(fds[1]);
	CHECK(c->ring != MAP_FAILED && c->mem != MAP_FAILED, "map");
	c->slots = RTE_PTR_ADD(c->ring, sizeof(struct shm_cons_hdr));
	c->next = 0;
	return 0;
}

/* Fill the next posted buffer of @p c: payload @p data of @p len bytes,
 * @p nlens frame lengths as immediate data (imm_len may lie). */
static void
net_fill(struct net_cons *c, const void *data, uint32_t len,
		const uint16_t *lens, uint8_t imm_len)
{
	struct shm_post_slot *s = &c->slots[c->next & 7];

	memcpy(RTE_PTR_ADD(c->mem, s->buf_off), data,
		RTE_MIN(len, (uint32_t)s->buf_len));
	s->len = len;
	s->imm_len = imm_len;
	memcpy(s->imm, lens, RTE_MIN((size_t)imm_len, sizeof(s->imm)));
	s->producer_id = 1;
	__atomic_store_n(&s->done_seq, c->next + 1, __ATOMIC_RELEASE);
	c->next++;
}

/* Poll rx queue @p q until @p want mbufs or a failure guard; every mbuf
 * must be within the buffer size, and is freed. Returns the count. */
static int
net_rx(uint16_t port, uint16_t q, int want, struct rte_mbuf **keep)
{
	uint64_t dl = test_deadline(want == 0 ? 0.2 : 10);
	struct rte_mbuf *m[32];
	int got = 0, i, r;

	do {
		r = rte_eth_rx_burst(port, q, m, 32);
		for (i = 0; i < r; i++) {
			if (m[i]->pkt_len > NET_BUF)
				printf("  FAIL: an mbuf of %u bytes\n", m[i]->pkt_len);
			if (m[i]->pkt_len > NET_BUF)
				got = -1000;
			if (keep != NULL && got >= 0 && got < 8)
				keep[got] = m[i];
			else
				rte_pktmbuf_free(m[i]);
			got++;
		}
	} while (got < want && !test_expired(dl));
	return got;
}

static uint64_t
net_xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0)
		rte_eth_xstats_get_by_id(port, &id, &v, 1);
	return v;
}

/* Completions written by hand into the port's consumers: frames arrive
 * intact on their own queue only; lengths that do not add up, odd or
 * missing ones drop the message (counted); a length beyond the buffer
 * breaks the connection; no mbuf beyond the buffer, none kept. */
static int
case_net_frames(void)
{
	uint8_t payload[NET_BUF + 64];
	struct rte_mbuf *got[8];
	struct ncm_msg_hello h;
	struct net_cons c[2];
	struct evil e;
	uint16_t lens[16];
	int port, k;

	for (k = 0; k < (int)sizeof(payload); k++)
		payload[k] = (uint8_t)(k * 7 + 1);
	port = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	CHECK(port >= 0, "port");
	test_log_reset();
	CHECK_OK(net_evil_open(&e));
	net_hello(&h, 2);
	net_evil_msg(&e, 0, &h, sizeof(h));
	/* the port's two rx consumers, announced after the handshake */
	CHECK_OK(net_cons_map(&e, &c[0]));
	CHECK_OK(net_cons_map(&e, &c[1]));

	/* three frames in queue 0's buffer: they arrive, intact, on queue 0 */
	lens[0] = 60;
	lens[1] = 100;
	lens[2] = 1514;
	net_fill(&c[0], payload, 1674, lens, 6);
	CHECK_EQ(net_rx((uint16_t)port, 0, 3, got), 3);
	CHECK_EQ(got[0]->pkt_len, 60);
	CHECK_EQ(got[2]->pkt_len, 1514);
	CHECK(memcmp(rte_pktmbuf_mtod(got[1], void *), payload + 60, 100) == 0,
		"frame content");
	for (k = 0; k < 3; k++)
		rte_pktmbuf_free(got[k]);
	CHECK_EQ(net_rx((uint16_t)port, 1, 0, NULL), 0);
	/* queue 1's own */
	lens[0] = 64;
	net_fill(&c[1], payload, 64, lens, 2);
	CHECK_EQ(net_rx((uint16_t)port, 1, 1, NULL), 1);
	CHECK_EQ(net_rx((uint16_t)port, 0, 0, NULL), 0);

	/* lengths that do not add up, none, odd, zero-length message */
	lens[0] = 60;
	lens[1] = 60;
	net_fill(&c[0], payload, 100, lens, 4);        /* 120 != 100 */
	net_fill(&c[0], payload, 100, lens, 0);        /* no lengths */
	net_fill(&c[0], payload, 60, lens, 3);         /* odd */
	lens[0] = 65535;
	lens[1] = 1;
	net_fill(&c[0], payload, 0, lens, 4);          /* 65536: 0 only in 16 bits */
	CHECK_EQ(net_rx((uint16_t)port, 0, 0, NULL), 0);
	CHECK_EQ(net_xstat((uint16_t)port, "rx_q0_malformed"), 4);
	/* the buffers went back: eight more frames fit */
	for (k = 0; k < 8; k++) {
		lens[0] = 64;
		net_fill(&c[0], payload, 64, lens, 2);
	}
	CHECK_EQ(net_rx((uint16_t)port, 0, 8, NULL), 8);

	/* beyond the posted buffer: the library breaks the connection */
	lens[0] = NET_BUF + 1;
	net_fill(&c[0], payload, NET_BUF + 1, lens, 2);
	CHECK_EQ(net_rx((uint16_t)port, 0, 0, NULL), 0);
	CHECK(test_log_wait("broke the ring protocol", 10), "the connection broken");
	CHECK_OK(net_evil_hung_up(&e));
	for (k = 0; k < 2; k++) {
		munmap(c[k].ring, c[k].ring_size);
		munmap(c[k].mem, c[k].mem_size);
	}
	evil_close(&e);
	return net_port_close((uint16_t)port, "net_comch_evil");
}

/* After all that, an honest host port is served: link up both ways,
 * frames delivered. */
static int
case_net_honest(void)
{
	struct rte_mbuf *m[4];
	uint64_t dl;
	int d, h, k;
	uint16_t sent = 0;

	d = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	h = net_port_open("net_comch_honest",
		"comch=comch_shm_host,server=evilnet,queues=2,bufs=8");
	CHECK(d >= 0 && h >= 0, "ports");
	dl = test_deadline(20);
	while (sent < 4 && !test_expired(dl)) {
		for (k = 0; k < 4; k++) {
			m[k] = rte_pktmbuf_alloc(net_mp);
			rte_pktmbuf_append(m[k], 100);
		}
		sent = rte_eth_tx_burst((uint16_t)h, 1, m, 4);
		rte_pktmbuf_free_bulk(&m[sent], 4 - sent);
		if (sent < 4)
			rte_delay_us_sleep(1000);
	}
	CHECK_EQ(sent, 4);
	CHECK_EQ(net_rx((uint16_t)d, 1, 4, NULL), 4);
	CHECK_OK(net_port_close((uint16_t)h, "net_comch_honest"));
	return net_port_close((uint16_t)d, "net_comch_evil");
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
		{ "corrupt_completions", case_corrupt_completions },
		{ "aborted", case_aborted },
		{ "net_bad_messages", case_net_bad_messages },
		{ "net_disagree", case_net_disagree },
		{ "net_silent", case_net_silent },
		{ "net_frames", case_net_frames },
		{ "net_honest", case_net_honest },
	};
	struct rte_comch_server_conf conf = { .name = "evil",
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.consumer_event_cb = on_consumer };
	int fds0, fds1, failed = 0;
	size_t i;

	test_log_capture_init();
	if (test_eal_init(argv[0], "evil", "0", NULL) < 0 ||
	    test_link_pair(link_dir, sizeof(link_dir), &dpu, &host) < 0)
		return 1;
	srv = rte_comch_server_create(dpu, &conf);
	if (srv == NULL || rte_comch_server_start(srv) < 0)
		return 1;
	net_mp = rte_pktmbuf_pool_create("evil_net", 1023, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (net_mp == NULL)
		return 1;
	fds0 = test_count_fds();
	for (i = 0; i < RTE_DIM(cases); i++) {
		int ret = run_case(cases[i].name, cases[i].fn);

		printf("%s evil/%s\n", ret == 0 ? "ok" : "FAILED", cases[i].name);
		failed += ret != 0;
	}
	/* the DPU drops sockets it accepted asynchronously (interrupt
	 * thread): wait for that, then nothing may be left */
	fds1 = wait_fds(fds0);
	if (fds1 != fds0) {
		printf("FAILED: %d fds before, %d after\n", fds0, fds1);
		failed++;
	}
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	rte_eal_cleanup();
	rmdir(link_dir);
	printf("evil: %zu cases, %d failed\n", RTE_DIM(cases), failed);
	return failed == 0 ? 0 : 1;
}
