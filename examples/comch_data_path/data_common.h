/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef DATA_COMMON_H
#define DATA_COMMON_H

/*
 * The fast-path exchange both data-path samples run once connected:
 * create a consumer (with one posted buffer) and a producer, wait for the
 * peer's consumer, send --text through the fast path, receive the peer's
 * message, print both, tear down in order.
 *
 * With --event the waits sleep in epoll (sample_sleep()): for the peer's
 * consumer on the server's or client's event, for the peer's message on
 * the consumer's. A producer whose peer has not posted a buffer yet has
 * no event to sleep on: that wait polls.
 */

#include <rte_comch.h>
#include <rte_memory.h>

#include "comch_sample.h"

#include <getopt.h>

#define DATA_BUF_SIZE 4096

/* Options both data-path samples take. */
struct data_args {
	const char *name;     /* server name */
	const char *text;     /* message to send */
	const char *dev;      /* comch device, NULL: default */
	double timeout;       /* seconds */
	bool event;           /* --event */
};

static inline void
data_usage(const char *prog, const struct data_args *a, const char *role,
		const char *vdev)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --name NAME     server name (default %s)\n"
	       "  --text TEXT     message to send (default \"%s\")\n"
	       "  --timeout SEC   give up after SEC seconds (default %.0f)\n"
	       "  --dev NAME      comch device (default: first %s-role device, else a new\n"
	       "                  %s with role=%s)\n"
	       "  --event         sleep in epoll while waiting (event mode)\n"
	       "  --help          this text\n", prog, a->name, a->text, a->timeout,
	       role, vdev, role);
}

/* Parse the sample's options into @p a (which holds the defaults).
 * Returns 0 to go on, 1 when --help was shown, -1 on a bad option. */
static inline int
data_parse_args(int argc, char **argv, struct data_args *a, const char *role,
		const char *vdev)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "text", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "dev", required_argument, NULL, 'd' },
		{ "event", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			a->name = optarg;
			break;
		case 't':
			a->text = optarg;
			break;
		case 'T':
			if (sample_parse_seconds("timeout", optarg, false,
					&a->timeout) < 0)
				return -1;
			break;
		case 'd':
			a->dev = optarg;
			break;
		case 'e':
			a->event = true;
			break;
		case 'h':
			data_usage(argv[0], a, role, vdev);
			return 1;
		default:
			data_usage(argv[0], a, role, vdev);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument: %s\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* The peer's consumer on our connection, set by the consumer event
 * callback. */
struct data_peer {
	struct rte_comch_conn *conn; /* ours (a server's client; NULL: a
				      * client's only connection): other
				      * connections' events are not about
				      * our peer */
	uint32_t consumer_id;
	bool known;
	bool lost;                   /* the connection closed (the server's
				      * disconnect, the client's state
				      * callback) */
};

static inline void
data_on_consumer(struct rte_comch_conn *conn, uint32_t id,
		enum rte_comch_consumer_event event, void *arg)
{
	struct data_peer *peer = arg;

	if (peer->conn != NULL && conn != peer->conn)
		return;
	if (event == RTE_COMCH_CONSUMER_CREATED) {
		peer->consumer_id = id;
		peer->known = true;
	} else if (peer->known && peer->consumer_id == id) {
		peer->known = false;
	}
}

/* Milliseconds left until @p deadline (TSC), for sample_sleep(). */
static inline int
data_ms_left(uint64_t deadline)
{
	uint64_t now = rte_get_timer_cycles();

	return now >= deadline ? 0 :
		(int)((deadline - now) * 1000 / rte_get_timer_hz()) + 1;
}

/*
 * @p poll makes the connection progress (the server's or the client's
 * poll); consumer events arrive there. @p sl: the sleeper with the
 * server's or client's event (event mode), or one that busy-polls.
 * Returns 0 or a negative errno.
 */
static inline int
data_exchange(const char *who, int16_t dev_id, struct rte_comch_conn *conn,
		struct data_peer *peer, const char *text,
		void (*poll)(void *), void *poll_arg, double timeout,
		struct sample_sleeper *sl)
{
	struct rte_comch_consumer_conf cconf = { .nb_posts = 1,
		.flags = sl->ep >= 0 ? RTE_COMCH_F_EVENT : 0 };
	struct rte_comch_send_op op = { .data = text,
		.len = (uint32_t)strlen(text) };
	struct rte_comch_consumer *cons = NULL;
	struct rte_comch_producer *prod = NULL;
	struct rte_comch_completion cpl;
	struct rte_comch_mem *mem;
	uint64_t deadline = sample_deadline(timeout);
	uint32_t len = DATA_BUF_SIZE, got;
	char copy[DATA_BUF_SIZE], shown[DATA_BUF_SIZE + 1];
	void *buf;
	int ret = -ETIMEDOUT, n;
	bool lost;

	mem = rte_comch_mem_create(dev_id, DATA_BUF_SIZE, SOCKET_ID_ANY);
	if (mem == NULL)
		return -rte_errno;
	cconf.mem = mem;
	buf = rte_comch_mem_addr(mem);
	cons = rte_comch_consumer_create(conn, &cconf);
	prod = rte_comch_producer_create(conn, NULL);
	if (cons == NULL || prod == NULL) {
		ret = -rte_errno;
		goto out;
	}
	ret = rte_comch_consumer_start(cons);
	if (ret == 0)
		ret = rte_comch_producer_start(prod);
	if (ret == 0 && rte_comch_consumer_post_burst(cons, &buf, &len, 1) != 1)
		ret = -EIO;
	if (ret == 0 && sl->ep >= 0 &&
	    sample_sleeper_add(sl, rte_comch_consumer_event(cons)) < 0)
		ret = -EIO;
	if (ret < 0)
		goto out;
	printf("%s: consumer %u and producer %u ready\n", who,
		rte_comch_consumer_id(cons), rte_comch_producer_id(prod));

	/* Producers learn consumer ids from consumer events. */
	ret = -ETIMEDOUT;
	while (!peer->known && !peer->lost && !force_quit &&
	       rte_get_timer_cycles() < deadline) {
		poll(poll_arg);
		if (!peer->known && !peer->lost)
			sample_sleep(sl, data_ms_left(deadline));
	}
	if (!peer->known) {
		ret = peer->lost ? -ECONNRESET : -ETIMEDOUT;
		goto out;
	}
	printf("%s: peer consumer %u announced\n", who, peer->consumer_id);

	/* 0 sent means "again": the peer has not posted a buffer yet. */
	do {
		n = rte_comch_producer_send_burst(prod, peer->consumer_id, &op, 1);
		poll(poll_arg);
	} while (n == 0 && !peer->lost && !force_quit &&
		 rte_get_timer_cycles() < deadline);
	if (n != 1) {
		ret = n < 0 ? n : peer->lost ? -ECONNRESET : -ETIMEDOUT;
		goto out;
	}
	printf("%s: sent through the fast path: \"%s\"\n", who, text);

	for (;;) {
		/* a peer that sent, then left: its message is there, the
		 * loss is taken as final only after a look at the ring */
		lost = peer->lost;
		n = rte_comch_consumer_poll_burst(cons, &cpl, 1);
		poll(poll_arg);
		if (n != 0 || lost || force_quit ||
		    rte_get_timer_cycles() >= deadline)
			break;
		/* lost now: one more look at the ring, without sleeping */
		if (!peer->lost)
			sample_sleep(sl, data_ms_left(deadline));
	}
	if (n != 1 || cpl.status != 0) {
		ret = n < 0 ? n : lost ? -ECONNRESET : -ETIMEDOUT;
		goto out;
	}
	/* The payload stays in memory the peer can still write: copy it
	 * once, then use only the copy. */
	got = rte_comch_completion_copy(&cpl, copy, sizeof(copy));
	printf("%s: received through the fast path: \"%s\" (from producer %u)\n",
		who, sample_printable(shown, sizeof(shown), copy, got),
		cpl.producer_id);
	ret = 0;
out:
	/* Teardown order: producers and consumers before the connection. */
	if (prod != NULL) {
		rte_comch_producer_stop(prod);
		rte_comch_producer_destroy(prod);
	}
	if (cons != NULL) {
		if (sl->ep >= 0)
			sample_sleeper_del(sl, rte_comch_consumer_event(cons));
		if (rte_comch_consumer_state(cons) == RTE_COMCH_STATE_RUNNING)
			rte_comch_consumer_stop(cons);
		/* Idle once every posted buffer is back: at once unless the
		 * peer holds one it claimed, which the driver bounds. The
		 * connection keeps being polled meanwhile. */
		while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE) {
			rte_comch_consumer_poll_burst(cons, &cpl, 1);
			poll(poll_arg);
		}
		rte_comch_consumer_destroy(cons);
	}
	rte_comch_mem_destroy(mem);
	return ret;
}

#endif /* DATA_COMMON_H */
