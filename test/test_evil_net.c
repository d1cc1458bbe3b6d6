/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Evil peer against net_comch (the cases net_* of test_evil): a net_comch
 * port on the DPU (server "evilnet", 2 queues, buffers of 2048 bytes), its
 * connection and fast path driven by the port's own alarm;
 * the evil host speaks the wire protocol by hand and breaks the port's
 * protocol (control messages) or writes completions into the port's
 * consumer rings as it likes. The port must close only that connection
 * with a logged reason, never hand out an mbuf longer than its buffers or
 * from another queue, never keep an mbuf, and then serve an honest host.
 */

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_alarm.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "evil_peer.h"
#include "test_evil.h"
#include "../drivers/net/comch/net_comch.h"

#define NET_BUF 2048
static struct rte_mempool *net_mp;

int
net_evil_init(void)
{
	net_mp = rte_pktmbuf_pool_create("evil_net", 1023, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return net_mp != NULL ? 0 : -1;
}

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
	uint64_t dl = test_deadline(TEST_GUARD_S);
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
int
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
		CHECK(test_log_wait(bad[k].log, TEST_GUARD_S), "log lacks \"%s\"", bad[k].log);
		CHECK(test_log_has("the peer broke the port protocol"), "protocol");
		CHECK_OK(net_evil_hung_up(&e));
		evil_close(&e);
	}
	return net_port_close((uint16_t)port, "net_comch_evil");
}

/* A HELLO that disagrees: logged, link down, the connection kept (the
 * peer may be reconfigured); it goes when the peer hangs up. */
int
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
	CHECK(test_log_wait("the two ends disagree: the peer's port has queues=3, this one queues=2", TEST_GUARD_S),
		"disagreement logged");
	CHECK_OK(rte_eth_link_get_nowait((uint16_t)port, &l));
	CHECK_EQ(l.link_status, RTE_ETH_LINK_DOWN);
	CHECK(!test_log_has("broke the port protocol"), "not a violation");
	evil_close(&e);
	CHECK(test_log_wait("connection", TEST_GUARD_S), "loss seen");
	return net_port_close((uint16_t)port, "net_comch_evil");
}

static uint64_t net_xstat(uint16_t port, const char *name);

/* A peer that never says HELLO loses its connection (it would hold the
 * DPU port's only one), logged. */
int
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
	uint64_t dl = test_deadline(TEST_GUARD_S);
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
	uint64_t dl = test_deadline(want == 0 ? 0.2 : TEST_GUARD_S);
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
int
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
	CHECK(test_log_wait("broke the ring protocol", TEST_GUARD_S), "the connection broken");
	CHECK_OK(net_evil_hung_up(&e));
	for (k = 0; k < 2; k++) {
		munmap(c[k].ring, c[k].ring_size);
		munmap(c[k].mem, c[k].mem_size);
	}
	evil_close(&e);
	return net_port_close((uint16_t)port, "net_comch_evil");
}

/*
 * The port's control tick, observed from inside: a log line the tick
 * writes (on the EAL interrupt thread, in the tick) sets an alarm of 1 us
 * that runs right after the tick ends, before the port's next alarm (set
 * at the tick's end, 1 or 10 ms out: EAL runs alarms in the order they
 * are due). It reads how many of our control messages the port has
 * confirmed: a receive confirms the burst before it, so after a tick
 * that read k bursts of a full queue, all but the last are confirmed, and
 * after a tick that emptied it, all of them.
 */
#define NET_CTRL_BUDGET 16 /* NCM_CTRL_BUDGET, net_comch_priv.h */

static struct {
	const char *trigger;
	const volatile uint32_t *tx_cons; /* in our mailbox: the port's
					   * confirmations of our messages */
	uint32_t seen;
	int done;
	FILE *prev;
} net_obs;

static void
net_obs_alarm(void *arg __rte_unused)
{
	net_obs.seen = __atomic_load_n(net_obs.tx_cons, __ATOMIC_ACQUIRE);
	__atomic_store_n(&net_obs.done, 1, __ATOMIC_RELEASE);
}

static ssize_t
net_obs_write(void *c, const char *buf, size_t size)
{
	const char *t = __atomic_exchange_n(&net_obs.trigger, NULL,
			__ATOMIC_ACQ_REL);

	if (t != NULL) {
		if (memmem(buf, size, t, strlen(t)) != NULL)
			rte_eal_alarm_set(1, net_obs_alarm, NULL);
		else
			__atomic_store_n(&net_obs.trigger, t, __ATOMIC_RELEASE);
	}
	return test_log_write(c, buf, size);
}

static void
net_obs_arm(struct evil *e, const char *trigger)
{
	static cookie_io_functions_t fns = { .write = net_obs_write };
	static FILE *f;

	if (f == NULL) {
		f = fopencookie(NULL, "w", fns);
		setvbuf(f, NULL, _IONBF, 0);
	}
	net_obs.tx_cons = (const volatile uint32_t *)RTE_PTR_ADD(e->mb,
		offsetof(struct shm_mailbox_hdr, tx_cons));
	net_obs.done = 0;
	net_obs.seen = UINT32_MAX;
	net_obs.prev = rte_log_get_stream();
	rte_openlog_stream(f);
	__atomic_store_n(&net_obs.trigger, trigger, __ATOMIC_RELEASE);
}

static int
net_obs_wait(void)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);

	while (!__atomic_load_n(&net_obs.done, __ATOMIC_ACQUIRE) &&
	       !test_expired(dl))
		rte_delay_us_sleep(1000);
	rte_openlog_stream(net_obs.prev);
	CHECK(net_obs.done, "the tick was not observed");
	return 0;
}

/* A HELLO (@p queues) and then QUEUE messages, a full queue of them, all
 * in place before the port can read any: the HELLO goes last. */
static void
net_ctrl_fill(struct evil *e, uint16_t queues)
{
	struct ncm_msg_hello h;
	struct ncm_msg_queue q = { .hdr = { NCM_PROTO_MAGIC,
		NCM_PROTO_VERSION, NCM_MSG_QUEUE } };
	uint32_t n;

	for (n = 1; n < e->tx.depth; n++) {
		q.qid = n & 1;
		q.consumer_id = n;
		net_evil_msg(e, n, &q, sizeof(q));
	}
	net_hello(&h, queues);
	net_evil_msg(e, 0, &h, sizeof(h));
}

/* A peer whose control queue is full: one tick reads at most the budget
 * (it used to read until the queue was empty, on the interrupt thread,
 * the port's lock held, for as long as the peer kept it full); the rest
 * on the next ticks, none a violation. */
static int
net_ctrl_budget_run(struct evil *e)
{
	uint64_t dl;

	CHECK_OK(net_evil_open(e));
	CHECK(e->tx.depth > NET_CTRL_BUDGET, "queue of %u", e->tx.depth);
	net_obs_arm(e, "handshake done");
	net_ctrl_fill(e, 2);
	CHECK_OK(net_obs_wait());
	CHECK(net_obs.seen < NET_CTRL_BUDGET,
		"one tick read (and confirmed) %u of %u messages", net_obs.seen,
		e->tx.depth);
	/* The rest on the next ticks. */
	dl = test_deadline(TEST_GUARD_S);
	while (*net_obs.tx_cons != e->tx.depth && !test_expired(dl))
		rte_delay_us_sleep(1000);
	CHECK_EQ(*net_obs.tx_cons, e->tx.depth);
	CHECK(!test_log_has("broke the port protocol"), "no violation");
	return 0;
}

int
case_net_ctrl_budget(void)
{
	int lt = rte_log_register("pmd.net.comch");
	int port, lvl, ret;
	struct evil e;

	port = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	CHECK(port >= 0, "port");
	lvl = rte_log_get_level((uint32_t)lt);
	rte_log_set_level((uint32_t)lt, RTE_LOG_DEBUG);
	test_log_reset();
	ret = net_ctrl_budget_run(&e);
	rte_log_set_level((uint32_t)lt, (uint32_t)lvl);
	evil_close(&e);
	CHECK_OK(net_port_close((uint16_t)port, "net_comch_evil"));
	return ret;
}

/* A refused connection is not read any more: the QUEUE messages behind
 * the disagreeing HELLO stay unread (they were read and ignored for as
 * long as the peer sent them). */
static int
net_refused_unread_run(struct evil *e, uint16_t port)
{
	struct rte_eth_link l;

	CHECK_OK(net_evil_open(e));
	net_obs_arm(e, "the two ends disagree");
	net_ctrl_fill(e, 3);
	CHECK_OK(net_obs_wait());
	CHECK(net_obs.seen == 0, "the refused port confirmed %u of %u messages",
		net_obs.seen, e->tx.depth);
	CHECK_OK(rte_eth_link_get_nowait(port, &l));
	CHECK_EQ(l.link_status, RTE_ETH_LINK_DOWN);
	CHECK(!test_log_has("broke the port protocol"), "not a violation");
	return 0;
}

int
case_net_refused_unread(void)
{
	struct evil e;
	int port, ret;

	port = net_port_open("net_comch_evil",
		"comch=comch_shm_dpu,server=evilnet,queues=2,bufs=8");
	CHECK(port >= 0, "port");
	test_log_reset();
	ret = net_refused_unread_run(&e, (uint16_t)port);
	evil_close(&e);
	CHECK_OK(net_port_close((uint16_t)port, "net_comch_evil"));
	return ret;
}

/* After all that, an honest host port is served: link up both ways,
 * frames delivered. */
int
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
	dl = test_deadline(TEST_GUARD_S);
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
