/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Event mode in one process (a DPU device and a host device): the API's
 * arguments and errors; what wakes a server, a client, a connection and a
 * consumer, and what does not (a disarmed object, work taken already);
 * "arm returns 1 when work is there"; kicks coalesce; room to send; the
 * peer's event fds mapped after its first messages; a lost connection
 * wakes what sleeps on it; no fd left behind.
 *
 * An fd "wakes" here when poll() says it is readable within a failure
 * guard (TEST_GUARD_S); "does not wake" is checked once the cause is certainly
 * over (the sends returned), with poll() at 0.
 */

#include <poll.h>

#include <rte_cycles.h>
#include <rte_memory.h>
#include <rte_pause.h>

#include "comch_test.h"

static char link_dir[64];
static int16_t dpu, host;

/* Readable within @p ms. */
static int
readable(const struct rte_comch_event *ev, int ms)
{
	struct pollfd p = { .fd = rte_comch_event_fd(ev), .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

#define WAKES(ev) CHECK(readable(ev, TEST_GUARD_S * 1000), "%s did not wake", #ev)
#define SLEEPS(ev) CHECK(!readable(ev, 0), "%s is readable", #ev)

struct ev_link {
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *dconn;
	struct rte_comch_conn *hconn;
	uint32_t msgs_cb;           /* callback mode: messages seen */
	uint32_t last_consumer;     /* host side: the DPU's consumer id */
	int lost;                   /* DPU side: disconnect_cb */
};

static void
on_connect(struct rte_comch_server *s __rte_unused, struct rte_comch_conn *c,
		void *arg)
{
	((struct ev_link *)arg)->dconn = c;
}

static void
on_disconnect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c __rte_unused, int err __rte_unused,
		void *arg)
{
	((struct ev_link *)arg)->lost++;
}

static void
on_msg(struct rte_comch_conn *c __rte_unused,
		const struct rte_comch_msg *m __rte_unused, void *arg)
{
	((struct ev_link *)arg)->msgs_cb++;
}

static void
on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event ev, void *arg)
{
	if (ev == RTE_COMCH_CONSUMER_CREATED)
		((struct ev_link *)arg)->last_consumer = id;
}

/* A server and a client (flags and callback mode as asked), connected by
 * sleeping on the events where there are some. */
static int
link_open(struct ev_link *l, const char *name, uint32_t flags, bool callback,
		uint32_t host_queue)
{
	struct rte_comch_server_conf sc = { .name = name,
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.msg_cb = callback ? on_msg : NULL, .cb_arg = l,
		.flags = flags };
	struct rte_comch_client_conf cc = { .server_name = name,
		.recv_queue_len = host_queue, .consumer_event_cb = on_consumer,
		.msg_cb = callback ? on_msg : NULL, .cb_arg = l,
		.flags = flags };
	struct rte_comch_event *sev, *cev;
	uint64_t dl = test_deadline(TEST_GUARD_S);

	memset(l, 0, sizeof(*l));
	l->srv = rte_comch_server_create(dpu, &sc);
	CHECK(l->srv != NULL, "server: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_server_start(l->srv));
	l->cli = rte_comch_client_create(host, &cc);
	CHECK(l->cli != NULL, "client: %s", rte_strerror(rte_errno));
	if (flags & RTE_COMCH_F_EVENT) {
		sev = rte_comch_server_event(l->srv);
		cev = rte_comch_client_event(l->cli);
		CHECK(sev != NULL && cev != NULL, "events");
		/* Nothing to do yet: the server sleeps. */
		CHECK_EQ(rte_comch_event_arm(sev), 0);
		SLEEPS(sev);
		CHECK_OK(rte_comch_client_start(l->cli));
		/* The client's HELLO wakes it (the interrupt thread). */
		WAKES(sev);
		while (l->dconn == NULL && !test_expired(dl)) {
			if (rte_comch_event_arm(sev) == 0)
				WAKES(sev);
			rte_comch_server_poll(l->srv);
		}
		/* The server's ACCEPT wakes the client. */
		while (rte_comch_client_state(l->cli, NULL) ==
		       RTE_COMCH_STATE_STARTING && !test_expired(dl)) {
			if (rte_comch_event_arm(cev) == 0)
				WAKES(cev);
			rte_comch_client_poll(l->cli);
		}
	} else {
		CHECK_OK(rte_comch_client_start(l->cli));
		while ((l->dconn == NULL ||
			rte_comch_client_state(l->cli, NULL) !=
			RTE_COMCH_STATE_RUNNING) && !test_expired(dl)) {
			rte_comch_server_poll(l->srv);
			rte_comch_client_poll(l->cli);
		}
	}
	l->hconn = rte_comch_client_conn(l->cli);
	CHECK(l->dconn != NULL && l->hconn != NULL, "not connected");
	return 0;
}

static void
link_poll(struct ev_link *l)
{
	rte_comch_server_poll(l->srv);
	rte_comch_client_poll(l->cli);
}

static int
link_close(struct ev_link *l)
{
	CHECK_OK(rte_comch_client_stop(l->cli));
	CHECK_OK(rte_comch_client_destroy(l->cli));
	CHECK_OK(rte_comch_server_stop(l->srv));
	CHECK_OK(rte_comch_server_destroy(l->srv));
	return 0;
}

/* Let what crosses the link sockets (EVENT, CONSUMER_ADD, the outbox)
 * be taken by both sides: a number of turns of the driver's socket
 * checks, not a length of time. A side looks at its link socket when
 * it is polled SHM_SOCK_CHECK_US (50 us) or more after its last look;
 * each poll here begins 60 us or more after the previous one returned,
 * so each is a turn of both sides' checks however long the scheduler
 * keeps this thread away (one thread polls both sides: nothing else
 * has to run for the messages to cross). */
#define SETTLE_TURNS 200
#define SETTLE_GAP_US 60

static void
link_settle(struct ev_link *l)
{
	const uint64_t gap = rte_get_tsc_hz() / 1000000 * SETTLE_GAP_US;
	uint64_t last = rte_get_tsc_cycles();
	unsigned int turn;

	for (turn = 0; turn < SETTLE_TURNS; turn++) {
		while (rte_get_tsc_cycles() - last < gap)
			rte_pause();
		link_poll(l);
		last = rte_get_tsc_cycles();
	}
}

/* ---------------------------------------------------------------- cases */

static int
test_api(void)
{
	struct rte_comch_server_conf sc = { .name = "ev_api" };
	struct rte_comch_event_stats st;
	struct rte_comch_dev_info info;
	struct rte_comch_server *srv;
	struct rte_comch_event *ev;

	CHECK_OK(rte_comch_info_get(dpu, &info));
	CHECK(info.caps.flags & RTE_COMCH_CAPA_EVENT, "no RTE_COMCH_CAPA_EVENT");
	CHECK(rte_comch_server_event(NULL) == NULL && rte_errno == EINVAL,
		"NULL server");
	CHECK(rte_comch_client_event(NULL) == NULL && rte_errno == EINVAL,
		"NULL client");
	CHECK(rte_comch_conn_event(NULL) == NULL && rte_errno == EINVAL,
		"NULL connection");
	CHECK(rte_comch_consumer_event(NULL) == NULL && rte_errno == EINVAL,
		"NULL consumer");
	CHECK_EQ(rte_comch_event_fd(NULL), -EINVAL);
	CHECK_EQ(rte_comch_event_arm(NULL), -EINVAL);
	CHECK_EQ(rte_comch_event_disarm(NULL), -EINVAL);
	CHECK_EQ(rte_comch_event_wake(NULL), -EINVAL);
	CHECK_EQ(rte_comch_event_stats_get(NULL, &st), -EINVAL);

	/* Unknown flags are refused. */
	sc.flags = 0x80;
	CHECK(rte_comch_server_create(dpu, &sc) == NULL && rte_errno == EINVAL,
		"flag 0x80 accepted");
	/* Without RTE_COMCH_F_EVENT: no event. */
	sc.flags = 0;
	srv = rte_comch_server_create(dpu, &sc);
	CHECK(srv != NULL, "server");
	test_log_reset();
	CHECK(rte_comch_server_event(srv) == NULL && rte_errno == ENOTSUP,
		"event without the flag");
	CHECK(test_log_has("RTE_COMCH_F_EVENT"), "log line names the flag");
	CHECK_OK(rte_comch_server_destroy(srv));

	sc.flags = RTE_COMCH_F_EVENT;
	srv = rte_comch_server_create(dpu, &sc);
	CHECK(srv != NULL, "server");
	ev = rte_comch_server_event(srv);
	CHECK(ev != NULL, "event");
	CHECK(rte_comch_event_fd(ev) >= 0, "fd");
	CHECK_EQ(rte_comch_event_stats_get(ev, NULL), -EINVAL);
	/* Idle: nothing could wake it. */
	CHECK_EQ(rte_comch_event_arm(ev), -ENOTCONN);
	CHECK_OK(rte_comch_server_start(srv));
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	SLEEPS(ev);
	/* Woken on request (from any thread), cleared by the next arm. */
	CHECK_OK(rte_comch_event_wake(ev));
	WAKES(ev);
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	SLEEPS(ev);
	CHECK_OK(rte_comch_event_disarm(ev));
	CHECK_OK(rte_comch_event_stats_get(ev, &st));
	CHECK_EQ(st.arms, 2);     /* the driver's: idle was refused before */
	CHECK_EQ(st.ready, 0);
	CHECK_OK(rte_comch_server_stop(srv));
	CHECK_OK(rte_comch_server_destroy(srv));
	return 0;
}

/* Control messages by burst: each connection's own event. */
static int
test_ctrl_burst(void)
{
	struct rte_comch_event *sev, *dev_ev, *hev;
	struct rte_comch_event_stats st0, st1;
	struct rte_comch_msg m[8];
	struct ev_link l;
	uint64_t dl;
	int i, n;

	/* The host's queue holds 4 messages: room runs out. */
	if (link_open(&l, "ev_burst", RTE_COMCH_F_EVENT, false, 4) < 0)
		return -1;
	sev = rte_comch_server_event(l.srv);
	dev_ev = rte_comch_conn_event(l.dconn);
	hev = rte_comch_conn_event(l.hconn);
	CHECK(dev_ev != NULL && hev != NULL, "connection events");

	/* Armed at once, before the host took the DPU's EVENT: the host's
	 * message still wakes it (the host kicks once it maps the page). */
	CHECK_EQ(rte_comch_event_arm(dev_ev), 0);
	CHECK_OK(rte_comch_msg_send(l.hconn, "a", 1));
	dl = test_deadline(TEST_GUARD_S);
	while (!readable(dev_ev, 0) && !test_expired(dl))
		rte_comch_client_poll(l.cli);
	WAKES(dev_ev);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 1);   /* work: poll */
	CHECK_EQ(rte_comch_msg_recv_burst(l.dconn, m, 8), 1);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 0);   /* nothing: sleep */
	SLEEPS(dev_ev);
	link_settle(&l);

	/* Kicks coalesce: five messages, one kick. */
	CHECK_OK(rte_comch_event_stats_get(dev_ev, &st0));
	for (i = 0; i < 5; i++)
		CHECK_OK(rte_comch_msg_send(l.hconn, "b", 1));
	WAKES(dev_ev);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 1);
	CHECK_OK(rte_comch_event_stats_get(dev_ev, &st1));
	CHECK_EQ(st1.kicks - st0.kicks, 1);
	CHECK_EQ(rte_comch_msg_recv_burst(l.dconn, m, 8), 5);

	/* Disarmed: the host does not kick; arming says the work is there. */
	CHECK_EQ(rte_comch_event_arm(dev_ev), 0);
	CHECK_OK(rte_comch_event_disarm(dev_ev));
	CHECK_OK(rte_comch_msg_send(l.hconn, "c", 1));
	SLEEPS(dev_ev);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 1);
	CHECK_EQ(rte_comch_msg_recv_burst(l.dconn, m, 8), 1);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 0);

	/* The DPU sends until the host's queue is full, then sleeps until
	 * there is room: the host's receive (confirmed by its next arm)
	 * wakes it. */
	link_settle(&l);
	CHECK_EQ(rte_comch_event_arm(hev), 0);
	for (n = 0; n < 16 && rte_comch_msg_send(l.dconn, "d", 1) == 0; n++)
		;
	CHECK_EQ(n, 4);
	CHECK_EQ(rte_comch_msg_send(l.dconn, "d", 1), -EAGAIN);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 0);
	WAKES(hev);
	CHECK_EQ(rte_comch_event_arm(hev), 1);
	CHECK_EQ(rte_comch_msg_recv_burst(l.hconn, m, 8), 4);
	SLEEPS(dev_ev);                             /* not confirmed yet */
	CHECK_EQ(rte_comch_event_arm(hev), 0);      /* done with them */
	WAKES(dev_ev);
	CHECK_EQ(rte_comch_event_arm(dev_ev), 1);
	CHECK_OK(rte_comch_msg_send(l.dconn, "e", 1));
	CHECK_EQ(rte_comch_event_arm(dev_ev), 0);

	/* The server sleeps through messages (burst mode), not through a
	 * client leaving: the connection's event wakes too, then says it is
	 * lost once its messages were taken. */
	CHECK_EQ(rte_comch_event_arm(sev), 0);
	CHECK_OK(rte_comch_client_stop(l.cli));
	WAKES(sev);
	dl = test_deadline(TEST_GUARD_S);
	while (l.lost == 0 && !test_expired(dl)) {
		if (rte_comch_event_arm(sev) == 0)
			WAKES(sev);
		rte_comch_server_poll(l.srv);
	}
	CHECK_EQ(l.lost, 1);
	WAKES(dev_ev);
	CHECK_EQ(rte_comch_event_arm(dev_ev), -ECONNRESET);
	CHECK_OK(rte_comch_server_disconnect(l.srv, l.dconn));
	CHECK_OK(rte_comch_client_destroy(l.cli));
	CHECK_OK(rte_comch_server_stop(l.srv));
	CHECK_OK(rte_comch_server_destroy(l.srv));
	return 0;
}

/* Control messages by callback: the server's and client's events. */
static int
test_ctrl_callback(void)
{
	struct rte_comch_event *sev, *cev;
	struct ev_link l;
	uint64_t dl;

	if (link_open(&l, "ev_cb", RTE_COMCH_F_EVENT, true, 0) < 0)
		return -1;
	sev = rte_comch_server_event(l.srv);
	cev = rte_comch_client_event(l.cli);
	CHECK(rte_comch_conn_event(l.dconn) == NULL && rte_errno == ENOTSUP,
		"a connection event in callback mode");
	link_settle(&l);

	CHECK_EQ(rte_comch_event_arm(sev), 0);
	CHECK_EQ(rte_comch_event_arm(cev), 0);
	CHECK_OK(rte_comch_msg_send(l.hconn, "h", 1));
	WAKES(sev);
	SLEEPS(cev);
	dl = test_deadline(TEST_GUARD_S);
	while (l.msgs_cb == 0 && !test_expired(dl)) {
		rte_comch_server_poll(l.srv);
		if (l.msgs_cb == 0 && rte_comch_event_arm(sev) == 0)
			WAKES(sev);
	}
	CHECK_EQ(l.msgs_cb, 1);
	CHECK_EQ(rte_comch_event_arm(sev), 0);
	CHECK_OK(rte_comch_msg_send(l.dconn, "d", 1));
	WAKES(cev);
	CHECK_EQ(rte_comch_event_arm(cev), 1);
	rte_comch_client_poll(l.cli);
	CHECK_EQ(l.msgs_cb, 2);
	CHECK_EQ(rte_comch_event_arm(cev), 0);
	return link_close(&l);
}

/* A consumer sleeps until a completion. */
static int
test_consumer(void)
{
	struct rte_comch_mem *mem = rte_comch_mem_create(dpu, 1 << 16,
			SOCKET_ID_ANY);
	struct rte_comch_consumer_conf conf = { .mem = mem, .nb_posts = 8,
		.flags = RTE_COMCH_F_EVENT };
	struct rte_comch_send_op op = { .data = "payload", .len = 7 };
	struct rte_comch_event_stats st0, st1;
	struct rte_comch_completion cpl[8];
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	struct rte_comch_event *ev;
	void *bufs[8];
	uint32_t lens[8];
	struct ev_link l;
	uint64_t dl;
	int i;

	CHECK(mem != NULL, "mem");
	if (link_open(&l, "ev_cons", 0, false, 0) < 0)
		return -1;
	cons = rte_comch_consumer_create(l.dconn, &conf);
	CHECK(cons != NULL, "consumer: %s", rte_strerror(rte_errno));
	ev = rte_comch_consumer_event(cons);
	CHECK(ev != NULL, "event");
	CHECK_EQ(rte_comch_event_arm(ev), -ENOTCONN);  /* idle */
	CHECK_OK(rte_comch_consumer_start(cons));
	for (i = 0; i < 8; i++) {
		bufs[i] = (char *)rte_comch_mem_addr(mem) + i * 1024;
		lens[i] = 1024;
	}
	CHECK_EQ(rte_comch_consumer_post_burst(cons, bufs, lens, 8), 8);
	prod = rte_comch_producer_create(l.hconn, NULL);
	CHECK(prod != NULL && rte_comch_producer_start(prod) == 0, "producer");
	dl = test_deadline(TEST_GUARD_S);
	while (l.last_consumer != rte_comch_consumer_id(cons) &&
	       !test_expired(dl))
		link_poll(&l);
	CHECK_EQ(l.last_consumer, rte_comch_consumer_id(cons));

	/* Asleep; a completion wakes it; taken, it sleeps again. */
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	SLEEPS(ev);
	CHECK_EQ(rte_comch_producer_send_burst(prod, l.last_consumer, &op, 1),
		1);
	WAKES(ev);
	CHECK_EQ(rte_comch_event_arm(ev), 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(cons, cpl, 8), 1);
	CHECK(cpl[0].len == 7 && memcmp(cpl[0].buf, "payload", 7) == 0,
		"content");
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	SLEEPS(ev);

	/* Three sends, one kick. */
	CHECK_OK(rte_comch_event_stats_get(ev, &st0));
	for (i = 0; i < 3; i++)
		CHECK_EQ(rte_comch_producer_send_burst(prod, l.last_consumer,
				&op, 1), 1);
	WAKES(ev);
	CHECK_EQ(rte_comch_event_arm(ev), 1);
	CHECK_OK(rte_comch_event_stats_get(ev, &st1));
	CHECK_EQ(st1.kicks - st0.kicks, 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(cons, cpl, 8), 3);

	/* Disarmed: no kick. */
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	CHECK_OK(rte_comch_event_disarm(ev));
	CHECK_EQ(rte_comch_producer_send_burst(prod, l.last_consumer, &op, 1),
		1);
	SLEEPS(ev);
	CHECK_EQ(rte_comch_event_arm(ev), 1);
	CHECK_EQ(rte_comch_consumer_poll_burst(cons, cpl, 8), 1);

	/* Woken on request: not counted as a spurious wake-up. */
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	CHECK_OK(rte_comch_event_wake(ev));
	WAKES(ev);
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	CHECK_OK(rte_comch_event_stats_get(ev, &st1));
	CHECK_EQ(st1.spurious, 0);
	CHECK_EQ(st1.rescues, 0);

	/* A stop: its poll has cancellations to return. */
	CHECK_OK(rte_comch_consumer_stop(cons));
	CHECK_EQ(rte_comch_event_arm(ev), 1);
	dl = test_deadline(TEST_GUARD_S);
	while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl))
		rte_comch_consumer_poll_burst(cons, cpl, 8);
	CHECK_EQ(rte_comch_event_arm(ev), -ENOTCONN);
	CHECK_OK(rte_comch_consumer_destroy(cons));
	CHECK_OK(rte_comch_producer_stop(prod));
	CHECK_OK(rte_comch_producer_destroy(prod));
	CHECK_OK(rte_comch_mem_destroy(mem));
	return link_close(&l);
}

/* The peer leaves: a consumer asleep wakes and learns it. */
static int
test_loss_wakes_consumer(void)
{
	struct rte_comch_mem *mem = rte_comch_mem_create(dpu, 1 << 16,
			SOCKET_ID_ANY);
	struct rte_comch_consumer_conf conf = { .mem = mem, .nb_posts = 4,
		.flags = RTE_COMCH_F_EVENT };
	struct rte_comch_completion cpl[4];
	struct rte_comch_consumer *cons;
	struct rte_comch_event *ev;
	void *buf;
	uint32_t len = 1024;
	struct ev_link l;
	uint64_t dl;

	CHECK(mem != NULL, "mem");
	buf = rte_comch_mem_addr(mem);
	if (link_open(&l, "ev_loss", 0, false, 0) < 0)
		return -1;
	cons = rte_comch_consumer_create(l.dconn, &conf);
	CHECK(cons != NULL && rte_comch_consumer_start(cons) == 0, "consumer");
	CHECK_EQ(rte_comch_consumer_post_burst(cons, &buf, &len, 1), 1);
	ev = rte_comch_consumer_event(cons);
	CHECK_EQ(rte_comch_event_arm(ev), 0);
	CHECK_OK(rte_comch_client_stop(l.cli));
	dl = test_deadline(TEST_GUARD_S);
	while (l.lost == 0 && !test_expired(dl))
		rte_comch_server_poll(l.srv);
	CHECK_EQ(l.lost, 1);
	WAKES(ev);
	CHECK_EQ(rte_comch_event_arm(ev), -ECONNRESET);
	CHECK_EQ(rte_comch_consumer_poll_burst(cons, cpl, 4), -ECONNRESET);
	CHECK_OK(rte_comch_consumer_stop(cons));
	while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl))
		rte_comch_consumer_poll_burst(cons, cpl, 4);
	CHECK_OK(rte_comch_consumer_destroy(cons));
	CHECK_OK(rte_comch_mem_destroy(mem));
	CHECK_OK(rte_comch_server_disconnect(l.srv, l.dconn));
	CHECK_OK(rte_comch_client_destroy(l.cli));
	CHECK_OK(rte_comch_server_stop(l.srv));
	CHECK_OK(rte_comch_server_destroy(l.srv));
	return 0;
}

/* Everything created and released again: no fd left behind. */
static int
test_no_fd_left(void)
{
	struct rte_comch_mem *mem;
	struct rte_comch_consumer_conf conf = { .nb_posts = 4,
		.flags = RTE_COMCH_F_EVENT };
	struct rte_comch_completion cpl[4];
	struct rte_comch_consumer *cons;
	struct ev_link l;
	uint64_t dl;
	int before, round;

	before = test_count_fds();
	for (round = 0; round < 3; round++) {
		mem = rte_comch_mem_create(host, 1 << 16, SOCKET_ID_ANY);
		conf.mem = mem;
		if (link_open(&l, "ev_fds", RTE_COMCH_F_EVENT, round == 1, 0) < 0)
			return -1;
		cons = rte_comch_consumer_create(l.hconn, &conf);
		CHECK(cons != NULL && rte_comch_consumer_start(cons) == 0,
			"consumer");
		link_settle(&l);
		CHECK_OK(rte_comch_consumer_stop(cons));
		dl = test_deadline(TEST_GUARD_S);
		while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE &&
		       !test_expired(dl))
			rte_comch_consumer_poll_burst(cons, cpl, 4);
		CHECK_OK(rte_comch_consumer_destroy(cons));
		link_settle(&l);
		if (link_close(&l) < 0)
			return -1;
		CHECK_OK(rte_comch_mem_destroy(mem));
	}
	CHECK_EQ(test_count_fds(), before);
	return 0;
}

/*
 * Announcements still waiting for the host to read (a few enter the link
 * socket at a time, the rest wait in the connection's outbox) reach it
 * while the server sleeps: the host reading its socket wakes no one, so
 * the driver sends them from its periodic check. Without that the host
 * would wait for the DPU's consumers for as long as the server sleeps.
 */
static int
test_outbox_while_asleep(void)
{
	struct rte_comch_consumer_conf conf = { .nb_posts = 4 };
	struct rte_comch_consumer *cons[16];
	struct rte_comch_completion cpl[4];
	struct rte_comch_event *sev;
	struct rte_comch_mem *mem;
	struct ev_link l;
	uint32_t last;
	unsigned int i;
	uint64_t dl;

	mem = rte_comch_mem_create(dpu, 1 << 16, SOCKET_ID_ANY);
	CHECK(mem != NULL, "mem");
	conf.mem = mem;
	if (link_open(&l, "ev_outbox", RTE_COMCH_F_EVENT, false, 0) < 0)
		return -1;
	link_settle(&l);
	sev = rte_comch_server_event(l.srv);
	/* the host does not poll while they are announced */
	for (i = 0; i < RTE_DIM(cons); i++) {
		cons[i] = rte_comch_consumer_create(l.dconn, &conf);
		CHECK(cons[i] != NULL && rte_comch_consumer_start(cons[i]) == 0,
			"consumer %u", i);
	}
	last = rte_comch_consumer_id(cons[RTE_DIM(cons) - 1]);
	dl = test_deadline(TEST_GUARD_S);
	while (rte_comch_event_arm(sev) != 0 && !test_expired(dl))
		rte_comch_server_poll(l.srv);
	/* the server sleeps from now on; the host takes what comes */
	dl = test_deadline(TEST_GUARD_S);
	while (l.last_consumer != last && !test_expired(dl))
		rte_comch_client_poll(l.cli);
	CHECK(l.last_consumer == last, "the host knows consumer %u, not %u",
		l.last_consumer, last);
	for (i = 0; i < RTE_DIM(cons); i++) {
		CHECK_OK(rte_comch_consumer_stop(cons[i]));
		dl = test_deadline(TEST_GUARD_S);
		while (rte_comch_consumer_state(cons[i]) != RTE_COMCH_STATE_IDLE &&
		       !test_expired(dl))
			rte_comch_consumer_poll_burst(cons[i], cpl, 4);
		CHECK_OK(rte_comch_consumer_destroy(cons[i]));
	}
	link_settle(&l);
	if (link_close(&l) < 0)
		return -1;
	CHECK_OK(rte_comch_mem_destroy(mem));
	return 0;
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "api", test_api },
		{ "ctrl_burst", test_ctrl_burst },
		{ "ctrl_callback", test_ctrl_callback },
		{ "consumer", test_consumer },
		{ "loss_wakes_consumer", test_loss_wakes_consumer },
		{ "no_fd_left", test_no_fd_left },
		{ "outbox_while_asleep", test_outbox_while_asleep },
	};
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "event", "0", NULL) < 0 ||
	    test_link_pair(link_dir, sizeof(link_dir), &dpu, &host) < 0)
		return 1;
	ret = test_run_cases("event", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
