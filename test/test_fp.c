/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast path in one process (lcores 0 and 1): a DPU device and a host
 * device, one connection per case. Sizes with content checks, immediate
 * data, "again" and recovery, oversize, destroyed consumers, several
 * producers into one consumer, two lcore pairs at once, consumer stop,
 * and the -EBUSY teardown rules.
 */

#include <rte_launch.h>
#include <rte_memory.h>
#include <rte_lcore.h>

#include <rte_comch_pmd.h>

#include "comch_test.h"

static char link_dir[64];
static int16_t dpu, host;

struct fp_events {
	struct rte_comch_conn *conn;
	uint32_t created, destroyed;
	uint32_t last_id;
};

static void
on_connect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, void *arg)
{
	((struct fp_events *)arg)->conn = c;
}

static void
on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event ev, void *arg)
{
	struct fp_events *e = arg;

	e->last_id = id;
	if (ev == RTE_COMCH_CONSUMER_CREATED)
		e->created++;
	else
		e->destroyed++;
}

/* One connection: server on the DPU, client on the host. */
struct fp_link {
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *dconn; /* DPU side */
	struct rte_comch_conn *hconn; /* host side */
	struct fp_events dev_ev;      /* events seen by the DPU */
	struct fp_events host_ev;     /* events seen by the host */
};

static int
link_open(struct fp_link *l, const char *name)
{
	struct rte_comch_server_conf sc = { .name = name,
		.connect_cb = on_connect, .consumer_event_cb = on_consumer };
	struct rte_comch_client_conf cc = { .server_name = name,
		.consumer_event_cb = on_consumer };
	uint64_t dl = test_deadline(TEST_GUARD_S);

	memset(l, 0, sizeof(*l));
	sc.cb_arg = &l->dev_ev;
	cc.cb_arg = &l->host_ev;
	l->srv = rte_comch_server_create(dpu, &sc);
	CHECK(l->srv != NULL, "server: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_server_start(l->srv));
	l->cli = rte_comch_client_create(host, &cc);
	CHECK(l->cli != NULL, "client");
	CHECK_OK(rte_comch_client_start(l->cli));
	while ((l->dev_ev.conn == NULL ||
		rte_comch_client_state(l->cli, NULL) != RTE_COMCH_STATE_RUNNING) &&
	       !test_expired(dl)) {
		rte_comch_server_poll(l->srv);
		rte_comch_client_poll(l->cli);
	}
	l->dconn = l->dev_ev.conn;
	l->hconn = rte_comch_client_conn(l->cli);
	CHECK(l->dconn != NULL && l->hconn != NULL, "not connected");
	return 0;
}

static void
link_poll(struct fp_link *l)
{
	rte_comch_server_poll(l->srv);
	rte_comch_client_poll(l->cli);
}

/* Poll both ends until @p cond (failure guard TEST_GUARD_S). */
#define LINK_POLL_UNTIL(l, cond) do { \
	uint64_t dl_ = test_deadline(TEST_GUARD_S); \
	while (!(cond) && !test_expired(dl_)) \
		link_poll(l); \
	CHECK(cond, "timed out waiting for %s", #cond); \
} while (0)

static int
link_close(struct fp_link *l)
{
	CHECK_OK(rte_comch_client_stop(l->cli));
	CHECK_OK(rte_comch_client_destroy(l->cli));
	CHECK_OK(rte_comch_server_stop(l->srv));
	CHECK_OK(rte_comch_server_destroy(l->srv));
	return 0;
}

/* A consumer on the DPU side of @p l, started, known to the host. */
static struct rte_comch_consumer *
consumer_on_dpu(struct fp_link *l, struct rte_comch_mem *mem,
		uint32_t nb_posts, uint32_t imm)
{
	struct rte_comch_consumer_conf conf = { .mem = mem,
		.nb_posts = nb_posts, .max_imm_len = imm };
	struct rte_comch_consumer *c = rte_comch_consumer_create(l->dconn, &conf);
	uint32_t before = l->host_ev.created;
	uint64_t dl = test_deadline(TEST_GUARD_S);

	if (c == NULL || rte_comch_consumer_start(c) != 0)
		return NULL;
	while (l->host_ev.created == before && !test_expired(dl))
		link_poll(l);
	if (l->host_ev.created == before ||
	    l->host_ev.last_id != rte_comch_consumer_id(c))
		return NULL;
	return c;
}

static struct rte_comch_producer *
producer_on(struct rte_comch_conn *conn)
{
	struct rte_comch_producer *p = rte_comch_producer_create(conn, NULL);

	if (p == NULL || rte_comch_producer_start(p) != 0)
		return NULL;
	return p;
}

static int
destroy_consumer(struct fp_link *l, struct rte_comch_consumer *c)
{
	struct rte_comch_completion cpl[64];
	uint64_t dl = test_deadline(TEST_GUARD_S);

	if (rte_comch_consumer_state(c) != RTE_COMCH_STATE_IDLE)
		CHECK_OK(rte_comch_consumer_stop(c));
	while (rte_comch_consumer_state(c) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl)) {
		rte_comch_consumer_poll_burst(c, cpl, RTE_DIM(cpl));
		link_poll(l);
		/* a producer lcore finishing its send may share our CPU */
		sched_yield();
	}
	CHECK_OK(rte_comch_consumer_destroy(c));
	return 0;
}

static int
destroy_producer(struct rte_comch_producer *p)
{
	CHECK_OK(rte_comch_producer_stop(p));
	CHECK_OK(rte_comch_producer_destroy(p));
	return 0;
}

static void
fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 131 + (i >> 8));
}

/* ---------------------------------------------------------------- cases */

static int
test_caps(void)
{
	struct rte_comch_dev_info info;

	CHECK_OK(rte_comch_info_get(host, &info));
	CHECK(info.caps.flags & RTE_COMCH_CAPA_PRODUCER, "no producer cap");
	CHECK(info.caps.flags & RTE_COMCH_CAPA_CONSUMER, "no consumer cap");
	CHECK(info.caps.max_buf_size >= (UINT64_C(1) << 30), "max buf %" PRIu64,
		info.caps.max_buf_size);
	CHECK_EQ(info.caps.max_imm_len, 32);
	CHECK(info.caps.max_posts >= 1024, "max posts");
	CHECK(info.caps.max_consumers >= 4 && info.caps.max_producers >= 4,
		"objects per connection");
	CHECK(info.caps.max_mem_size >= info.caps.max_buf_size, "max mem");
	return 0;
}

/* Every size of the issue, content checked, one copy into the posted
 * buffer; the completion names the producer. */
static int
test_sizes(void)
{
	static const uint32_t sizes[] = { 0, 1, 63, 64, 65, 4095, 4096,
		1 << 20, 64 << 20 };
	const size_t big = (size_t)64 << 20;
	struct rte_comch_completion cpl;
	struct rte_comch_consumer *c;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	struct fp_link l;
	uint8_t *src;
	size_t i;

	CHECK_OK(link_open(&l, "sizes"));
	mem = rte_comch_mem_create(dpu, big, SOCKET_ID_ANY);
	CHECK(mem != NULL, "mem: %s", rte_strerror(rte_errno));
	src = malloc(big);
	CHECK(src != NULL, "malloc");
	c = consumer_on_dpu(&l, mem, 4, 0);
	p = producer_on(l.hconn);
	CHECK(c != NULL && p != NULL, "objects");

	for (i = 0; i < RTE_DIM(sizes); i++) {
		uint8_t *buf = rte_comch_mem_addr(mem);
		uint32_t len = sizes[i];
		struct rte_comch_send_op op = { .data = src, .len = len };

		fill(src, len, (uint32_t)i);
		memset(buf, 0xee, len);
		CHECK_EQ(rte_comch_consumer_post_burst(c, (void **)&buf, &len, 1), 1);
		CHECK_EQ(rte_comch_producer_send_burst(p, rte_comch_consumer_id(c),
				&op, 1), 1);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, &cpl, 1), 1);
		CHECK(cpl.buf == buf, "other buffer");
		CHECK_EQ(cpl.len, len);
		CHECK_EQ(cpl.status, 0);
		CHECK_EQ(cpl.producer_id, rte_comch_producer_id(p));
		CHECK(memcmp(buf, src, len) == 0, "content of %u bytes", len);
		printf("  %u bytes ok\n", len);
	}
	CHECK_OK(destroy_producer(p));
	CHECK_OK(destroy_consumer(&l, c));
	CHECK_OK(rte_comch_mem_destroy(mem));
	free(src);
	return link_close(&l);
}

/* Gathered messages: the pieces land one after the other in one posted
 * buffer, with the message's immediate data; a message whose pieces
 * together do not fit is refused (-EMSGSIZE) and a full consumer is
 * "again", as for contiguous ones, and so are unknown ids; empty pieces
 * and messages are fine. */
static int
test_sendv(void)
{
	struct rte_comch_completion cpl[8];
	struct rte_comch_consumer *c;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	struct fp_link l;
	uint8_t data[1000], want[1000];
	uint32_t len = 600, id, k;
	void *bufs[4];

	CHECK_OK(link_open(&l, "sendv"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	c = consumer_on_dpu(&l, mem, 4, 0);
	p = producer_on(l.hconn);
	CHECK(mem && c && p, "objects");
	id = rte_comch_consumer_id(c);
	fill(data, sizeof(data), 9);
	for (k = 0; k < 4; k++)
		bufs[k] = (uint8_t *)rte_comch_mem_addr(mem) + k * 1024;
	{
		const struct rte_comch_seg s1[] = { { data + 500, 7 },
			{ NULL, 0 }, { data, 300 }, { data + 900, 93 } };
		const struct rte_comch_seg s2[] = { { data, 600 } };
		const struct rte_comch_seg s3[] = { { data, 300 }, { data, 301 } };
		const uint16_t imm = 0xbeef;
		struct rte_comch_sendv_op ops[] = {
			{ .segs = s1, .nb_segs = 4, .imm = &imm, .imm_len = 2 },
			{ .segs = NULL, .nb_segs = 0 },
			{ .segs = s2, .nb_segs = 1 },
		};
		struct rte_comch_sendv_op big = { .segs = s3, .nb_segs = 2 };

		CHECK_EQ(rte_comch_consumer_post_burst(c, bufs, (uint32_t[]){
			len, len, len, len }, 4), 4);
		CHECK_EQ(rte_comch_producer_sendv_burst(p, id, &big, 1), -EMSGSIZE);
		CHECK_EQ(rte_comch_producer_sendv_burst(p, id, ops, 3), 3);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 3);
		memcpy(want, data + 500, 7);
		memcpy(want + 7, data, 300);
		memcpy(want + 307, data + 900, 93);
		CHECK_EQ(cpl[0].len, 400);
		CHECK(memcmp(cpl[0].buf, want, 400) == 0, "gathered content");
		CHECK_EQ(cpl[0].imm_len, 2);
		CHECK(memcmp(cpl[0].imm, &imm, 2) == 0, "immediate data");
		CHECK_EQ(cpl[1].len, 0);
		CHECK_EQ(cpl[2].len, 600);
		CHECK(memcmp(cpl[2].buf, data, 600) == 0, "one piece");
		/* one buffer left: the second message is "again" */
		CHECK_EQ(rte_comch_producer_sendv_burst(p, id, &ops[2], 1), 1);
		CHECK_EQ(rte_comch_producer_sendv_burst(p, id, &ops[2], 1), 0);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 1);
		CHECK(memcmp(cpl[0].buf, data, 600) == 0, "after again");
		/* The same lookup as a contiguous send: an id above every
		 * announced one is "again", 0 is no consumer. */
		CHECK_EQ(rte_comch_producer_sendv_burst(p, id + 1000, ops, 1), 0);
		CHECK_EQ(rte_comch_producer_sendv_burst(p, 0, ops, 1), -ENOENT);
	}
	CHECK_OK(destroy_producer(p));
	CHECK_OK(destroy_consumer(&l, c));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

static int
test_immediate(void)
{
	struct rte_comch_completion cpl;
	struct rte_comch_consumer *c, *none;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	struct fp_link l;
	uint8_t imm[40], data[16];
	uint32_t k, zero = 0;

	CHECK_OK(link_open(&l, "imm"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	c = consumer_on_dpu(&l, mem, 8, 0);
	none = consumer_on_dpu(&l, mem, 8, RTE_COMCH_IMM_NONE);
	p = producer_on(l.hconn);
	CHECK(mem && c && none && p, "objects");
	memset(data, 7, sizeof(data));

	for (k = 0; k <= 32; k++) {
		struct rte_comch_send_op op = { .data = data, .len = 0,
			.imm_len = k, .imm = imm };

		fill(imm, sizeof(imm), k);
		/* A zero-length post receives the immediate data only. */
		CHECK_EQ(rte_comch_consumer_post_burst(c, (void *[]){ NULL },
				&zero, 1), 1);
		CHECK_EQ(rte_comch_producer_send_burst(p, rte_comch_consumer_id(c),
				&op, 1), 1);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, &cpl, 1), 1);
		CHECK_EQ(cpl.imm_len, k);
		CHECK_EQ(cpl.len, 0);
		CHECK(memcmp(cpl.imm, imm, k) == 0, "imm of %u bytes", k);
	}
	{
		struct rte_comch_send_op op = { .imm_len = 33, .imm = imm };
		struct rte_comch_send_op one = { .imm_len = 1, .imm = imm };

		CHECK_EQ(rte_comch_consumer_post_burst(c, (void *[]){ NULL },
				&zero, 1), 1);
		CHECK_EQ(rte_comch_producer_send_burst(p, rte_comch_consumer_id(c),
				&op, 1), -EMSGSIZE);
		CHECK_EQ(rte_comch_consumer_post_burst(none, (void *[]){ NULL },
				&zero, 1), 1);
		CHECK_EQ(rte_comch_producer_send_burst(p,
				rte_comch_consumer_id(none), &one, 1), -EMSGSIZE);
	}
	CHECK_OK(destroy_producer(p));
	CHECK_OK(destroy_consumer(&l, c));
	CHECK_OK(destroy_consumer(&l, none));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

/* No posted buffer: "again" (nothing sent, nothing lost), then recovery;
 * a payload larger than the posted buffer is refused and the buffer stays
 * posted; unknown and destroyed consumers are refused. */
static int
test_again_oversize_destroyed(void)
{
	struct rte_comch_completion cpl[8];
	struct rte_comch_consumer *c;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	struct fp_link l;
	uint8_t data[200];
	uint32_t len = 100, id;
	void *buf;

	CHECK_OK(link_open(&l, "again"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	c = consumer_on_dpu(&l, mem, 8, 0);
	p = producer_on(l.hconn);
	CHECK(mem && c && p, "objects");
	id = rte_comch_consumer_id(c);
	buf = rte_comch_mem_addr(mem);
	fill(data, sizeof(data), 3);

	{
		struct rte_comch_send_op op = { .data = data, .len = 100 };
		struct rte_comch_send_op big = { .data = data, .len = 101 };

		CHECK_EQ(rte_comch_producer_send_burst(p, id, &op, 1), 0);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 0);
		CHECK_EQ(rte_comch_consumer_post_burst(c, &buf, &len, 1), 1);
		CHECK_EQ(rte_comch_producer_send_burst(p, id, &big, 1), -EMSGSIZE);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 0);
		CHECK_EQ(rte_comch_producer_send_burst(p, id, &op, 1), 1);
		CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 1);
		CHECK_EQ(cpl[0].len, 100);
		CHECK(memcmp(buf, data, 100) == 0, "content");
		/* Ids above every one announced: not yet ("again"); 0 is
		 * never an id. */
		CHECK_EQ(rte_comch_producer_send_burst(p, id + 1, &op, 1), 0);
		CHECK_EQ(rte_comch_producer_send_burst(p, 100000, &op, 1), 0);
		CHECK_EQ(rte_comch_producer_send_burst(p, 0, &op, 1), -ENOENT);

		/* Posts outside the registered memory are refused. */
		CHECK_EQ(rte_comch_consumer_post_burst(c, (void *[]){ data },
				&len, 1), -EINVAL);
		len = 4097;
		CHECK_EQ(rte_comch_consumer_post_burst(c, &buf, &len, 1), -EINVAL);
		len = 100;

		/* Destroyed: the peer is told, then sends are refused. */
		CHECK_OK(destroy_consumer(&l, c));
		LINK_POLL_UNTIL(&l, l.host_ev.destroyed == 1);
		CHECK_EQ(l.host_ev.last_id, id);
		CHECK_EQ(rte_comch_conn_remote_consumers(l.hconn, NULL, 0), 0);
		CHECK_EQ(rte_comch_producer_send_burst(p, id, &op, 1), -ENOENT);
	}
	CHECK_OK(destroy_producer(p));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

/*
 * A consumer id names one consumer for the connection's whole life. The
 * race this pins: the host's producer has a send for the DPU's consumer N
 * ready; the DPU destroys N and creates a new consumer; the send must not
 * land in the new one, whether the host learnt of the change before it
 * sends or not. Also: ids are never 0, never repeat over many more
 * consumers than there are slots, and when a connection's ids are used up
 * a new consumer is refused with ENOSPC.
 */
static int
test_consumer_ids(void)
{
	struct rte_comch_completion cpl[8];
	struct rte_comch_consumer *c1, *c2, *c;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	struct fp_link l;
	uint8_t data[64] = { 7 };
	struct rte_comch_send_op op = { .data = data, .len = 64 };
	uint32_t len = 64, n1, n2, prev, id, i;
	void *buf;

	CHECK_OK(link_open(&l, "ids"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	CHECK(mem != NULL, "mem");
	buf = rte_comch_mem_addr(mem);
	c1 = consumer_on_dpu(&l, mem, 4, 0);
	p = producer_on(l.hconn);
	CHECK(c1 && p, "objects");
	n1 = rte_comch_consumer_id(c1);
	CHECK(n1 != 0, "consumer id 0");

	/* N destroyed, a new consumer created and posting, and the host has
	 * not polled yet: its send for N reaches no buffer of the new one. */
	CHECK_OK(destroy_consumer(&l, c1));
	c2 = rte_comch_consumer_create(l.dconn,
		&(struct rte_comch_consumer_conf){ .mem = mem, .nb_posts = 4,
			.max_imm_len = RTE_COMCH_IMM_NONE });
	CHECK(c2 != NULL, "second consumer: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_consumer_start(c2));
	CHECK_EQ(rte_comch_consumer_post_burst(c2, &buf, &len, 1), 1);
	n2 = rte_comch_consumer_id(c2);
	CHECK(n2 != n1 && n2 > n1, "id %u reused or not increasing after %u",
		n2, n1);
	CHECK(rte_comch_producer_send_burst(p, n1, &op, 1) <= 0,
		"send to destroyed consumer %u accepted", n1);
	CHECK_EQ(rte_comch_consumer_poll_burst(c2, cpl, 8), 0);
	/* The new id, learnt ahead of its announcement (a reply-to field
	 * in the peer's data, say): "again", not "gone". */
	CHECK_EQ(rte_comch_producer_send_burst(p, n2, &op, 1), 0);

	/* Once the host learnt of both: -ENOENT for N, the new one works. */
	LINK_POLL_UNTIL(&l, l.host_ev.destroyed == 1 && l.host_ev.created == 2);
	CHECK_EQ(l.host_ev.last_id, n2);
	CHECK_EQ(rte_comch_producer_send_burst(p, n1, &op, 1), -ENOENT);
	CHECK_EQ(rte_comch_consumer_poll_burst(c2, cpl, 8), 0);
	CHECK_EQ(rte_comch_producer_send_burst(p, n2, &op, 1), 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(c2, cpl, 8), 1);
	CHECK_EQ(cpl[0].status, 0);
	CHECK_OK(destroy_consumer(&l, c2));

	/* Many more consumers than slots: every id new, increasing, not 0. */
	prev = n2;
	for (i = 0; i < 3 * RTE_COMCH_MAX_FP_OBJECTS; i++) {
		c = rte_comch_consumer_create(l.dconn,
			&(struct rte_comch_consumer_conf){ .mem = mem,
				.nb_posts = 1 });
		CHECK(c != NULL, "consumer %u: %s", i, rte_strerror(rte_errno));
		id = rte_comch_consumer_id(c);
		CHECK(id > prev, "id %u after %u", id, prev);
		prev = id;
		CHECK_OK(rte_comch_consumer_destroy(c));
	}

	/* Ids used up (white box: skip four billion creations). */
	rte_spinlock_lock(&l.dconn->fp_lock);
	l.dconn->next_consumer_id = UINT32_MAX;
	rte_spinlock_unlock(&l.dconn->fp_lock);
	c = rte_comch_consumer_create(l.dconn,
		&(struct rte_comch_consumer_conf){ .mem = mem, .nb_posts = 1 });
	CHECK(c != NULL, "last id");
	CHECK_EQ(rte_comch_consumer_id(c), UINT32_MAX);
	CHECK_OK(rte_comch_consumer_destroy(c));
	test_log_reset();
	c = rte_comch_consumer_create(l.dconn,
		&(struct rte_comch_consumer_conf){ .mem = mem, .nb_posts = 1 });
	CHECK(c == NULL && rte_errno == ENOSPC, "ids used up: %p, %d",
		(void *)c, rte_errno);
	CHECK(test_log_has("used up its consumer ids"), "log line");

	CHECK_OK(destroy_producer(p));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

/* Stop with buffers posted: unclaimed ones come back cancelled, filled ones
 * filled, then idle; restart works; states are enforced. */
static int
test_consumer_states(void)
{
	struct rte_comch_completion cpl[8];
	struct rte_comch_consumer *c;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	struct fp_link l;
	uint32_t lens[4] = { 64, 64, 64, 64 };
	void *bufs[4];
	uint8_t data[64] = { 1 };
	struct rte_comch_send_op op = { .data = data, .len = 64 };
	int i;

	CHECK_OK(link_open(&l, "cstates"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	c = consumer_on_dpu(&l, mem, 4, 0);
	p = producer_on(l.hconn);
	CHECK(mem && c && p, "objects");
	for (i = 0; i < 4; i++)
		bufs[i] = (uint8_t *)rte_comch_mem_addr(mem) + 64 * i;
	CHECK_EQ(rte_comch_consumer_state(c), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(rte_comch_consumer_start(c), -EBUSY);
	CHECK_EQ(rte_comch_consumer_destroy(c), -EBUSY);
	CHECK_EQ(rte_comch_mem_destroy(mem), -EBUSY);
	CHECK_EQ(rte_comch_consumer_post_burst(c, bufs, lens, 4), 4);
	CHECK_EQ(rte_comch_consumer_post_burst(c, bufs, lens, 1), 0); /* full */
	CHECK_EQ(rte_comch_producer_send_burst(p, rte_comch_consumer_id(c),
			&op, 1), 1);
	CHECK_OK(rte_comch_consumer_stop(c));
	CHECK_EQ(rte_comch_consumer_state(c), RTE_COMCH_STATE_STOPPING);
	CHECK_EQ(rte_comch_consumer_post_burst(c, bufs, lens, 1), -EBUSY);
	CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 4);
	CHECK_EQ(cpl[0].status, 0);
	CHECK_EQ(cpl[0].len, 64);
	for (i = 1; i < 4; i++) {
		CHECK_EQ(cpl[i].status, -ECANCELED);
		CHECK(cpl[i].buf == bufs[i], "cancelled buffer %d", i);
	}
	CHECK_EQ(rte_comch_consumer_state(c), RTE_COMCH_STATE_IDLE);
	LINK_POLL_UNTIL(&l, l.host_ev.destroyed == 1);
	CHECK_EQ(rte_comch_producer_send_burst(p, rte_comch_consumer_id(c),
			&op, 1), -ENOENT);
	/* Restart: the peer learns it again and delivery resumes. */
	CHECK_OK(rte_comch_consumer_start(c));
	LINK_POLL_UNTIL(&l, l.host_ev.created == 2);
	CHECK_EQ(rte_comch_consumer_post_burst(c, bufs, lens, 1), 1);
	CHECK_EQ(rte_comch_producer_send_burst(p, rte_comch_consumer_id(c),
			&op, 1), 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(c, cpl, 8), 1);
	CHECK_EQ(cpl[0].status, 0);
	CHECK_OK(destroy_producer(p));
	CHECK_OK(destroy_consumer(&l, c));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

/* Teardown order: connections with producers/consumers cannot go. */
static int
test_teardown_rules(void)
{
	struct rte_comch_consumer *c;
	struct rte_comch_producer *p, *hp;
	struct rte_comch_mem *mem;
	struct fp_link l;

	CHECK_OK(link_open(&l, "busy"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	c = consumer_on_dpu(&l, mem, 4, 0);
	hp = producer_on(l.hconn);
	CHECK(mem && c && hp, "objects");
	CHECK_EQ(rte_comch_server_disconnect(l.srv, l.dconn), -EBUSY);
	CHECK_EQ(rte_comch_server_stop(l.srv), -EBUSY);
	CHECK_EQ(rte_comch_client_stop(l.cli), -EBUSY);
	CHECK_EQ(rte_comch_producer_destroy(hp), -EBUSY); /* running */
	CHECK_OK(destroy_consumer(&l, c));
	CHECK_EQ(rte_comch_client_stop(l.cli), -EBUSY);
	CHECK_OK(destroy_producer(hp));
	p = producer_on(l.dconn);
	CHECK(p != NULL, "producer");
	CHECK_EQ(rte_comch_server_stop(l.srv), -EBUSY);
	CHECK_OK(destroy_producer(p));
	CHECK_OK(rte_comch_mem_destroy(mem));
	CHECK(rte_comch_consumer_create(NULL, NULL) == NULL &&
	      rte_errno == EINVAL, "NULL conn");
	CHECK(rte_comch_producer_create(NULL, NULL) == NULL &&
	      rte_errno == EINVAL, "NULL conn");
	return link_close(&l);
}

/* ------------------------------------------------ several lcores at once */

#define PAIR_MSGS 200000

struct stream {
	struct rte_comch_producer *prod;     /* sends ... */
	uint32_t consumer_id;                /* ... to this consumer */
	uint32_t sent;
	struct rte_comch_consumer *cons;     /* receives (if non-NULL) */
	struct rte_comch_mem *mem;
	uint32_t expect[4];                  /* next seq per producer id */
	uint32_t received;
	uint32_t to_receive;
	int err;
};

/* Take completions, check each producer's order, repost the buffers. */
static int
stream_receive(struct stream *s)
{
	struct rte_comch_completion cpl[32];
	uint32_t lens[32];
	int n, i;

	for (i = 0; i < 32; i++)
		lens[i] = 64;
	n = rte_comch_consumer_poll_burst(s->cons, cpl, 32);
	for (i = 0; i < n; i++) {
		uint32_t seq;

		memcpy(&seq, cpl[i].imm, sizeof(seq));
		if (cpl[i].status != 0 || cpl[i].producer_id >= 4 ||
		    seq != s->expect[cpl[i].producer_id]) {
			s->err = -1;
			return -1;
		}
		s->expect[cpl[i].producer_id]++;
		s->received++;
		/* Repost the buffer that came back. */
		rte_comch_consumer_post_burst(s->cons, &cpl[i].buf, lens, 1);
	}
	return 0;
}

static void
stream_send(struct stream *s)
{
	uint8_t payload[64] = { 0 };
	struct rte_comch_send_op ops[32];
	uint32_t seqs[32];
	int i, n;

	for (i = 0; i < 32; i++) {
		seqs[i] = s->sent + (uint32_t)i;
		ops[i].data = payload;
		ops[i].len = 64;
		ops[i].imm = &seqs[i];
		ops[i].imm_len = sizeof(seqs[i]);
	}
	n = RTE_MIN(32, PAIR_MSGS - (int)s->sent);
	n = rte_comch_producer_send_burst(s->prod, s->consumer_id, ops,
			(uint16_t)n);
	if (n < 0)
		s->err = n;
	else
		s->sent += (uint32_t)n;
}

/* An lcore runs a list of streams: sends what it produces, receives what
 * it consumes, until all done. */
struct lcore_job {
	struct stream *streams[4];
	int nb;
};

static int
lcore_job_run(void *arg)
{
	struct lcore_job *j = arg;
	/* failure guard: 60 s without any progress (a stall), however
	 * long the whole takes on a busy machine */
	uint64_t dl = test_deadline(TEST_GUARD_S), moved, last = 0;
	int done, i;

	do {
		done = 1;
		moved = 0;
		for (i = 0; i < j->nb; i++) {
			struct stream *s = j->streams[i];

			if (s->prod != NULL && s->sent < PAIR_MSGS) {
				stream_send(s);
				done = 0;
			}
			if (s->cons != NULL && s->received < s->to_receive) {
				stream_receive(s);
				done = 0;
			}
			if (s->err != 0)
				return -1;
			moved += s->sent + s->received;
		}
		if (moved != last) {
			last = moved;
			dl = test_deadline(TEST_GUARD_S);
		} else {
			/* the other lcore may share this CPU (a run held to
			 * fewer CPUs than lcores) */
			sched_yield();
		}
	} while (!done && !test_expired(dl));
	return done ? 0 : -1;
}

static int
start_stream_consumer(struct fp_link *l, struct stream *s,
		struct rte_comch_conn *conn, bool on_dpu)
{
	struct rte_comch_consumer_conf conf = { .nb_posts = 32 };
	struct fp_events *peer = on_dpu ? &l->host_ev : &l->dev_ev;
	uint32_t before = peer->created, lens[32];
	void *bufs[32];
	int i;

	s->mem = rte_comch_mem_create(on_dpu ? dpu : host, 32 * 64,
			SOCKET_ID_ANY);
	CHECK(s->mem != NULL, "mem");
	conf.mem = s->mem;
	s->cons = rte_comch_consumer_create(conn, &conf);
	CHECK(s->cons != NULL, "consumer");
	CHECK_OK(rte_comch_consumer_start(s->cons));
	for (i = 0; i < 32; i++) {
		bufs[i] = (uint8_t *)rte_comch_mem_addr(s->mem) + (size_t)i * 64;
		lens[i] = 64;
	}
	CHECK_EQ(rte_comch_consumer_post_burst(s->cons, bufs, lens, 32), 32);
	LINK_POLL_UNTIL(l, peer->created > before);
	return 0;
}

/* Two independent pairs, each producer on the other lcore than its
 * consumer: host->DPU stream A (producer lcore 1, consumer lcore 0) and
 * DPU->host stream B (producer lcore 0, consumer lcore 1). */
static int
test_two_lcore_pairs(void)
{
	struct stream a = { 0 }, b = { 0 };
	struct stream a_tx, b_tx;
	struct lcore_job j0 = { 0 }, j1 = { 0 };
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	struct fp_link l;
	int r0;

	CHECK(worker < RTE_MAX_LCORE, "needs a second lcore");
	CHECK_OK(link_open(&l, "pairs"));
	CHECK_OK(start_stream_consumer(&l, &a, l.dconn, true));
	CHECK_OK(start_stream_consumer(&l, &b, l.hconn, false));
	a.to_receive = PAIR_MSGS;
	b.to_receive = PAIR_MSGS;
	/* Producers are separate stream views with their own counters. */
	a_tx = (struct stream){ .prod = producer_on(l.hconn),
		.consumer_id = rte_comch_consumer_id(a.cons) };
	b_tx = (struct stream){ .prod = producer_on(l.dconn),
		.consumer_id = rte_comch_consumer_id(b.cons) };
	CHECK(a_tx.prod && b_tx.prod, "producers");
	j0.streams[j0.nb++] = &a;     /* consumer A */
	j0.streams[j0.nb++] = &b_tx;  /* producer B */
	j1.streams[j1.nb++] = &a_tx;  /* producer A */
	j1.streams[j1.nb++] = &b;     /* consumer B */

	CHECK_OK(rte_eal_remote_launch(lcore_job_run, &j1, worker));
	r0 = lcore_job_run(&j0);
	CHECK_OK(rte_eal_wait_lcore(worker));
	CHECK_OK(r0);
	CHECK_EQ(a.received, PAIR_MSGS);
	CHECK_EQ(b.received, PAIR_MSGS);
	CHECK_EQ(a.expect[rte_comch_producer_id(a_tx.prod)], PAIR_MSGS);
	CHECK_EQ(b.expect[rte_comch_producer_id(b_tx.prod)], PAIR_MSGS);

	CHECK_OK(destroy_producer(a_tx.prod));
	CHECK_OK(destroy_producer(b_tx.prod));
	CHECK_OK(destroy_consumer(&l, a.cons));
	CHECK_OK(destroy_consumer(&l, b.cons));
	CHECK_OK(rte_comch_mem_destroy(a.mem));
	CHECK_OK(rte_comch_mem_destroy(b.mem));
	return link_close(&l);
}

/* Several producers, on both lcores, into one consumer: all delivered and
 * each producer's order kept. */
static int
test_many_producers_one_consumer(void)
{
	struct stream rx = { 0 };
	struct stream tx[3];
	struct lcore_job j0 = { 0 }, j1 = { 0 };
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	struct fp_link l;
	int i, r0;

	CHECK_OK(link_open(&l, "mpsc"));
	CHECK_OK(start_stream_consumer(&l, &rx, l.dconn, true));
	rx.to_receive = 3 * PAIR_MSGS;
	for (i = 0; i < 3; i++) {
		tx[i] = (struct stream){ .prod = producer_on(l.hconn),
			.consumer_id = rte_comch_consumer_id(rx.cons) };
		CHECK(tx[i].prod != NULL, "producer %d", i);
	}
	j0.streams[j0.nb++] = &rx;
	j0.streams[j0.nb++] = &tx[0];
	j1.streams[j1.nb++] = &tx[1];
	j1.streams[j1.nb++] = &tx[2];
	CHECK_OK(rte_eal_remote_launch(lcore_job_run, &j1, worker));
	r0 = lcore_job_run(&j0);
	CHECK_OK(rte_eal_wait_lcore(worker));
	CHECK_OK(r0);
	CHECK_EQ(rx.received, 3 * PAIR_MSGS);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(rx.expect[rte_comch_producer_id(tx[i].prod)], PAIR_MSGS);
		CHECK_OK(destroy_producer(tx[i].prod));
	}
	CHECK_OK(destroy_consumer(&l, rx.cons));
	CHECK_OK(rte_comch_mem_destroy(rx.mem));
	return link_close(&l);
}

/* Consumers withdrawn while the other side keeps its producer: their
 * mappings are released (once no producer is sending to them), so a peer
 * that recycles consumers cannot make them pile up. */
static int
test_withdrawn_unmapped(void)
{
	struct rte_comch_consumer_conf conf = { .nb_posts = 4 };
	struct rte_comch_send_op op = { .data = "x", .len = 1 };
	struct rte_comch_consumer *c;
	struct rte_comch_producer *p;
	struct rte_comch_mem *mem;
	uint32_t len = 64, created, destroyed;
	struct fp_link l;
	int maps0, maps1, i;
	void *buf;

	CHECK_OK(link_open(&l, "reap"));
	p = producer_on(l.dconn);
	mem = rte_comch_mem_create(host, 4096, SOCKET_ID_ANY);
	CHECK(p != NULL && mem != NULL, "producer, memory");
	conf.mem = mem;
	buf = rte_comch_mem_addr(mem);
	maps0 = test_count_maps();
	for (i = 0; i < 300; i++) {
		created = l.dev_ev.created;
		destroyed = l.dev_ev.destroyed;
		c = rte_comch_consumer_create(l.hconn, &conf);
		CHECK(c != NULL && rte_comch_consumer_start(c) == 0, "consumer %d", i);
		CHECK_EQ(rte_comch_consumer_post_burst(c, &buf, &len, 1), 1);
		LINK_POLL_UNTIL(&l, l.dev_ev.created > created);
		CHECK_EQ(rte_comch_producer_send_burst(p,
			rte_comch_consumer_id(c), &op, 1), 1);
		CHECK_OK(destroy_consumer(&l, c));
		LINK_POLL_UNTIL(&l, l.dev_ev.destroyed > destroyed);
	}
	maps1 = test_count_maps();
	/* Two mappings per consumer would stay without reclamation. */
	CHECK(maps1 - maps0 < 20, "%d more mappings after 300 consumers",
		maps1 - maps0);
	CHECK_OK(destroy_producer(p));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

/* withdraw_while_sending: the producer lcore's side. */
struct hammer {
	struct rte_comch_producer *prod;
	volatile uint32_t target;   /* consumer id to send to */
	volatile bool stop;
	uint64_t sent, gone;        /* messages sent, -ENOENT answers */
	int bad;                    /* any other answer: a failure */
	/* to say why, should a consumer get nothing: the answers for the
	 * current target, and the longest time between two sends */
	uint32_t seen;              /* the target these answers are for */
	uint64_t t_sent, t_zero, t_gone, max_gap;
};

static int
hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct rte_comch_send_op ops[8];
	unsigned int i;
	int n;

	for (i = 0; i < RTE_DIM(ops); i++)
		ops[i] = (struct rte_comch_send_op){ .data = ops, .len = 16 };
	uint64_t now, last = rte_get_timer_cycles();
	uint32_t target;

	while (!h->stop) {
		target = h->target;
		if (target != h->seen) {
			h->seen = target;
			h->t_sent = h->t_zero = h->t_gone = 0;
		}
		n = rte_comch_producer_send_burst(h->prod, target, ops,
				RTE_DIM(ops));
		if (n > 0) {
			h->sent += (uint64_t)n;
			h->t_sent += (uint64_t)n;
		} else if (n == -ENOENT) {
			h->gone++;
			h->t_gone++;
		} else if (n != 0) {
			h->bad = n;
		} else {
			h->t_zero++;
		}
		/* nothing sent: the consumer side (the main lcore) may share
		 * this CPU (a run held to fewer CPUs than lcores) */
		if (n <= 0)
			sched_yield();
		now = rte_get_timer_cycles();
		h->max_gap = RTE_MAX(h->max_gap, now - last);
		last = now;
	}
	return 0;
}

/* A producer on another lcore sends without pause to whatever consumer the
 * peer has, while the peer withdraws it and makes a new one, again and
 * again: its mappings are released under the producer's feet only once
 * it is not sending to them (a mistake here is a crash, or an
 * AddressSanitizer report), and nothing piles up. */
static int
test_withdraw_while_sending(void)
{
	struct rte_comch_completion cpl[64];
	struct hammer h = { .target = UINT32_MAX };
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	struct rte_comch_consumer *c;
	struct rte_comch_mem *mem;
	uint32_t len = 512;
	struct fp_link l;
	int maps0, maps1, i, j, k, n, got;
	uint64_t dl;
	void *bufs[8];

	CHECK_OK(link_open(&l, "hammer"));
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	h.prod = producer_on(l.hconn);
	CHECK(mem != NULL && h.prod != NULL, "memory, producer");
	for (k = 0; k < 8; k++)
		bufs[k] = (uint8_t *)rte_comch_mem_addr(mem) + k * 512;
	maps0 = test_count_maps();
	CHECK_OK(rte_eal_remote_launch(hammer_run, &h, worker));
	for (i = 0; i < 3000; i++) {
		c = consumer_on_dpu(&l, mem, 8, 0);
		CHECK(c != NULL, "consumer %d", i);
		for (k = 0; k < 8; k++)
			CHECK_EQ(rte_comch_consumer_post_burst(c, &bufs[k],
				&len, 1), 1);
		h.target = rte_comch_consumer_id(c);
		/* messages in, and the producer still at it: withdraw it */
		dl = test_deadline(TEST_GUARD_S);
		got = 0;
		while (got < 16 && !test_expired(dl)) {
			n = rte_comch_consumer_poll_burst(c, cpl, RTE_DIM(cpl));
			for (j = 0; j < n; j++)
				rte_comch_consumer_post_burst(c, &cpl[j].buf,
					&len, 1);
			got += n > 0 ? n : 0;
			link_poll(&l);
			if (n <= 0)
				sched_yield(); /* the producer lcore's turn */
		}
		if (got < 16) {
			/* the producer lcore stops before we say why */
			h.stop = true;
			rte_eal_wait_lcore(worker);
			CHECK(got >= 16, "consumer %d (id %u) received %d; the producer: %" PRIu64 " sent, %" PRIu64 " -ENOENT, other %d; to id %u: %" PRIu64 " sent, %" PRIu64 " again, %" PRIu64 " -ENOENT; longest pause %.3f s; a send now: %d",
				i, rte_comch_consumer_id(c), got, h.sent,
				h.gone, h.bad, h.seen, h.t_sent, h.t_zero,
				h.t_gone, (double)h.max_gap /
				(double)rte_get_timer_hz(),
				rte_comch_producer_send_burst(
					h.prod, h.target, &(struct rte_comch_send_op){
					.data = bufs, .len = 16 }, 1));
		}
		CHECK_OK(destroy_consumer(&l, c));
	}
	h.stop = true;
	CHECK_OK(rte_eal_wait_lcore(worker));
	CHECK_EQ(h.bad, 0);
	CHECK(h.sent >= 3000 * 16, "sent %" PRIu64, h.sent);
	CHECK_OK(destroy_producer(h.prod));
	maps1 = test_count_maps();
	CHECK(maps1 - maps0 < 20, "%d more mappings after 3000 consumers",
		maps1 - maps0);
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "caps", test_caps },
		{ "sizes", test_sizes },
		{ "sendv", test_sendv },
		{ "immediate", test_immediate },
		{ "again_oversize_destroyed", test_again_oversize_destroyed },
		{ "consumer_ids", test_consumer_ids },
		{ "consumer_states", test_consumer_states },
		{ "teardown_rules", test_teardown_rules },
		{ "two_lcore_pairs", test_two_lcore_pairs },
		{ "many_producers_one_consumer", test_many_producers_one_consumer },
		{ "withdrawn_unmapped", test_withdrawn_unmapped },
		{ "withdraw_while_sending", test_withdraw_while_sending },
	};
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "fp", "0,1", NULL) < 0 ||
	    test_link_pair(link_dir, sizeof(link_dir), &dpu, &host) < 0)
		return 1;
	ret = test_run_cases("fp", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
