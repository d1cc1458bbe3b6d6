/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Soak: for --duration seconds, several clients (on host devices of this
 * process) connect and disconnect at random, create and destroy consumers
 * and producers, and send control and fast-path traffic to one server
 * that keeps running; nothing is ever allowed to be lost or duplicated.
 *
 *   soak [EAL args] -- --duration=SEC [--clients=N] [--seed=S]
 *
 * Every message carries (client, connection generation, sequence). The
 * server checks each stream arrives in order with no gap or repeat; when a
 * client disconnects, what it sent minus what was still in flight
 * ("confirmed") must have been received. Prints the totals, the fd count
 * and the resident memory at start and end, and exits non-zero on any
 * loss, duplication, or growth of fds.
 */

#include <getopt.h>
#include <signal.h>

#include <rte_memory.h>

#include "comch_test.h"

#define MAX_CLIENTS 16

struct tag {
	uint32_t client;
	uint32_t gen;
	uint64_t seq;
};

/* One client: a connection generation at a time. */
struct soak_client {
	struct rte_comch_client *cli;
	uint32_t gen;
	uint64_t seq;               /* control messages sent this generation */
	uint64_t fp_seq;            /* fast-path messages sent this generation */
	struct rte_comch_producer *prod;
	bool connected;
};

/* What the server sees of one connection (its user data). */
struct soak_conn {
	struct rte_comch_conn *conn;
	uint64_t ctrl_next;
	uint64_t fp_next;
	uint32_t client;
	uint32_t gen;
	bool tagged;             /* client and generation known */
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	bool lost;
};

#define MAX_CONNS 64

static struct {
	uint64_t sent, confirmed, received, lost, duplicated, fp_sent, fp_received;
	uint64_t connects, disconnects, consumers;
} tot;

static struct soak_client clients[MAX_CLIENTS];
static struct soak_conn *conns[MAX_CONNS];
static unsigned int nb_clients = 4;
static struct rte_comch_server *srv;
static int16_t dpu_dev;
static volatile bool quit;

static void
on_signal(int s __rte_unused)
{
	quit = true;
}

static void
on_connect(struct rte_comch_server *s __rte_unused, struct rte_comch_conn *c,
		void *a __rte_unused)
{
	struct rte_comch_consumer_conf cc = { .nb_posts = 16 };
	struct soak_conn *sc = calloc(1, sizeof(*sc));
	uint32_t i, len = 64;
	void *b;

	tot.connects++;
	for (i = 0; sc != NULL && i < MAX_CONNS; i++) {
		if (conns[i] == NULL) {
			conns[i] = sc;
			break;
		}
	}
	if (sc == NULL || i == MAX_CONNS) {
		free(sc);
		rte_comch_server_disconnect(srv, c);
		return;
	}
	sc->conn = c;
	rte_comch_conn_user_data_set(c, (uint64_t)(uintptr_t)sc);
	/* a consumer the client's producer fills */
	sc->mem = rte_comch_mem_create(dpu_dev, 16 * 64, SOCKET_ID_ANY);
	cc.mem = sc->mem;
	sc->cons = sc->mem ? rte_comch_consumer_create(c, &cc) : NULL;
	if (sc->cons != NULL && rte_comch_consumer_start(sc->cons) == 0) {
		tot.consumers++;
		for (i = 0; i < 16; i++) {
			b = (uint8_t *)rte_comch_mem_addr(sc->mem) + i * 64;
			rte_comch_consumer_post_burst(sc->cons, &b, &len, 1);
		}
	}
}

static void
on_disconnect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, int err __rte_unused,
		void *a __rte_unused)
{
	struct soak_conn *sc = (void *)(uintptr_t)rte_comch_conn_user_data_get(c);

	if (sc != NULL)
		sc->lost = true;   /* released from the main loop */
}

/* In-order check of one stream. */
static void
check_seq(uint64_t *next, uint64_t seq, uint64_t *received)
{
	if (seq == *next) {
		(*next)++;
		(*received)++;
	} else if (seq < *next) {
		tot.duplicated++;
	} else {
		tot.lost += seq - *next;
		*next = seq + 1;
		(*received)++;
	}
}

/* The connection must carry one client's one generation only. */
static bool
tag_ok(struct soak_conn *sc, const struct tag *t)
{
	if (!sc->tagged) {
		sc->client = t->client;
		sc->gen = t->gen;
		sc->tagged = true;
	}
	return sc->client == t->client && sc->gen == t->gen;
}

static void
on_msg(struct rte_comch_conn *c, const struct rte_comch_msg *m,
		void *a __rte_unused)
{
	struct soak_conn *sc = (void *)(uintptr_t)rte_comch_conn_user_data_get(c);
	struct tag t;

	if (sc == NULL)
		return;
	if (m->len != sizeof(t)) {
		tot.lost++;
		return;
	}
	memcpy(&t, m->data, sizeof(t));
	if (!tag_ok(sc, &t)) {
		tot.lost++;
		return;
	}
	check_seq(&sc->ctrl_next, t.seq, &tot.received);
}

static void
conn_fp_poll(struct soak_conn *sc)
{
	struct rte_comch_completion cpl[16];
	uint32_t len = 64;
	struct tag t;
	int n, k;

	if (sc->cons == NULL)
		return;
	n = rte_comch_consumer_poll_burst(sc->cons, cpl, 16);
	for (k = 0; k < n; k++) {
		if (cpl[k].status != 0)
			continue;
		memcpy(&t, cpl[k].buf, sizeof(t));
		if (tag_ok(sc, &t))
			check_seq(&sc->fp_next, t.seq, &tot.fp_received);
		else
			tot.lost++;
		rte_comch_consumer_post_burst(sc->cons, &cpl[k].buf, &len, 1);
	}
}

static void
conn_teardown(struct soak_conn *sc)
{
	struct rte_comch_completion cpl[16];

	if (sc->cons != NULL) {
		conn_fp_poll(sc);
		if (rte_comch_consumer_state(sc->cons) == RTE_COMCH_STATE_RUNNING)
			rte_comch_consumer_stop(sc->cons);
		while (rte_comch_consumer_state(sc->cons) != RTE_COMCH_STATE_IDLE &&
		       rte_comch_consumer_poll_burst(sc->cons, cpl, 16) >= 0)
			;
		rte_comch_consumer_destroy(sc->cons);
		sc->cons = NULL;
	}
	rte_comch_mem_destroy(sc->mem);
	sc->mem = NULL;
}

/* Fast path for every connection; release the ones that were lost. */
static void
server_work(void)
{
	unsigned int i;

	for (i = 0; i < MAX_CONNS; i++) {
		struct soak_conn *sc = conns[i];

		if (sc == NULL)
			continue;
		conn_fp_poll(sc);
		if (sc->lost) {
			conn_teardown(sc);
			rte_comch_server_disconnect(srv, sc->conn);
			free(sc);
			conns[i] = NULL;
		}
	}
}

/* ---------------------------------------------------------- clients */

static uint32_t peer_consumer[MAX_CLIENTS];
static bool peer_known[MAX_CLIENTS];

static void
client_on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event e, void *a)
{
	unsigned int i = (unsigned int)(uintptr_t)a;

	peer_known[i] = e == RTE_COMCH_CONSUMER_CREATED;
	peer_consumer[i] = id;
}

static void
client_disconnect(unsigned int i)
{
	struct soak_client *c = &clients[i];
	struct rte_comch_conn_stats st;
	struct rte_comch_conn *conn = rte_comch_client_conn(c->cli);

	if (c->prod != NULL) {
		rte_comch_producer_stop(c->prod);
		rte_comch_producer_destroy(c->prod);
		c->prod = NULL;
	}
	if (conn != NULL && rte_comch_conn_stats_get(conn, &st) == 0)
		tot.confirmed += st.msgs_sent - st.msgs_in_flight;
	if (rte_comch_client_state(c->cli, NULL) != RTE_COMCH_STATE_IDLE)
		rte_comch_client_stop(c->cli);
	c->connected = false;
	peer_known[i] = false;
	tot.disconnects++;
}

static void
client_step(unsigned int i)
{
	struct soak_client *c = &clients[i];
	struct rte_comch_conn *conn;
	struct rte_comch_send_op op;
	struct tag t;
	int r = rand() % 1000;

	rte_comch_client_poll(c->cli);
	if (!c->connected) {
		if (rte_comch_client_state(c->cli, NULL) == RTE_COMCH_STATE_IDLE &&
		    r < 50) {
			c->gen++;
			c->seq = 0;
			c->fp_seq = 0;
			rte_comch_client_start(c->cli);
		}
		if (rte_comch_client_state(c->cli, NULL) == RTE_COMCH_STATE_RUNNING)
			c->connected = true;
		return;
	}
	conn = rte_comch_client_conn(c->cli);
	if (r < 2 || rte_comch_client_state(c->cli, NULL) != RTE_COMCH_STATE_RUNNING) {
		client_disconnect(i);
		return;
	}
	t = (struct tag){ .client = i, .gen = c->gen, .seq = c->seq };
	if (rte_comch_msg_send(conn, &t, sizeof(t)) == 0) {
		c->seq++;
		tot.sent++;
	}
	if (c->prod == NULL && r < 100) {
		c->prod = rte_comch_producer_create(conn, NULL);
		if (c->prod != NULL)
			rte_comch_producer_start(c->prod);
	} else if (c->prod != NULL && r >= 990) {
		rte_comch_producer_stop(c->prod);
		rte_comch_producer_destroy(c->prod);
		c->prod = NULL;
	}
	if (c->prod != NULL && peer_known[i]) {
		t.seq = c->fp_seq;
		op = (struct rte_comch_send_op){ .data = &t, .len = sizeof(t) };
		if (rte_comch_producer_send_burst(c->prod, peer_consumer[i], &op, 1) == 1) {
			c->fp_seq++;
			tot.fp_sent++;
		}
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "clients", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_comch_server_conf sc = { .name = "soak",
		.connect_cb = on_connect, .disconnect_cb = on_disconnect,
		.msg_cb = on_msg };
	char dir[64], args[128], name[32];
	double duration = 60;
	unsigned int i, seed = 1;
	uint64_t end, report;
	long rss0, rss1;
	int fds0, fds1, opt, ret;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: soak [--] --duration=SEC (max 3600) [--clients=1..16] [--seed=N]\n");
		return 0;
	}

	/* EAL arguments are the test harness's own; ours follow "--". */
	for (i = 1; i < (unsigned int)argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	if (test_eal_init(argv[0], "soak", "0", NULL) < 0)
		return 1;
	if (i < (unsigned int)argc) {
		argv[i] = argv[0];
		argc -= (int)i;
		argv += i;
	} else {
		argc = 1;
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			duration = atof(optarg);
			break;
		case 'c':
			nb_clients = (unsigned int)atoi(optarg);
			break;
		case 's':
			seed = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: soak [EAL] -- --duration=SEC (max 3600) [--clients=1..16] [--seed=N]\n");
			return 2;
		}
	}
	if (duration <= 0 || duration > 3600 || nb_clients < 1 ||
	    nb_clients > MAX_CLIENTS) {
		fprintf(stderr, "soak: --duration in (0, 3600], --clients in [1, 16]\n");
		return 2;
	}
	srand(seed);
	signal(SIGINT, on_signal);
	if (test_mkdtemp(dir, sizeof(dir)) < 0)
		return 1;
	snprintf(args, sizeof(args), "role=dpu,path=%s", dir);
	if (rte_vdev_init("comch_shm_dpu", args) < 0)
		return 1;
	dpu_dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	srv = rte_comch_server_create(dpu_dev, &sc);
	if (srv == NULL || rte_comch_server_start(srv) < 0)
		return 1;
	for (i = 0; i < nb_clients; i++) {
		struct rte_comch_client_conf cc = { .server_name = "soak",
			.consumer_event_cb = client_on_consumer,
			.cb_arg = (void *)(uintptr_t)i };

		snprintf(name, sizeof(name), "comch_shm_h%u", i);
		snprintf(args, sizeof(args), "role=host,path=%s", dir);
		if (rte_vdev_init(name, args) < 0)
			return 1;
		clients[i].cli = rte_comch_client_create(
			(int16_t)rte_comch_get_dev_id_by_name(name), &cc);
		if (clients[i].cli == NULL)
			return 1;
	}
	fds0 = test_count_fds();
	rss0 = test_rss_kib();
	printf("soak: %u clients, %.0f s, seed %u; start: %d fds, %ld KiB resident\n",
		nb_clients, duration, seed, fds0, rss0);

	end = test_deadline(duration);
	report = test_deadline(10);
	while (!quit && !test_expired(end)) {
		for (i = 0; i < nb_clients; i++)
			client_step(i);
		rte_comch_server_poll(srv);
		server_work();
		if (test_expired(report)) {
			printf("soak: %" PRIu64 " connects, %" PRIu64 " ctrl sent, %" PRIu64
			       " received, %" PRIu64 " fast path\n", tot.connects,
			       tot.sent, tot.received, tot.fp_received);
			fflush(stdout);
			report = test_deadline(10);
		}
	}
	/* Everyone leaves (also clients still connecting); the server
	 * accounts for all of it and lets go of every socket. */
	for (i = 0; i < nb_clients; i++) {
		if (clients[i].connected)
			client_disconnect(i);
		else if (rte_comch_client_state(clients[i].cli, NULL) !=
			 RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(clients[i].cli);
	}
	end = test_deadline(TEST_GUARD_S);
	for (;;) {
		fds1 = test_count_fds(); /* keep the settled reading */
		if ((rte_comch_server_conn_count(srv) == 0 && fds1 == fds0) ||
		    test_expired(end))
			break;
		rte_comch_server_poll(srv);
		server_work();
	}
	rss1 = test_rss_kib();
	printf("soak: %" PRIu64 " connects, %" PRIu64 " disconnects, %" PRIu64
	       " consumers\n", tot.connects, tot.disconnects, tot.consumers);
	printf("soak: control messages sent %" PRIu64 ", confirmed %" PRIu64
	       ", received %" PRIu64 ", lost %" PRIu64 ", duplicated %" PRIu64 "\n",
	       tot.sent, tot.confirmed, tot.received, tot.lost, tot.duplicated);
	printf("soak: fast-path messages sent %" PRIu64 ", received %" PRIu64 "\n",
	       tot.fp_sent, tot.fp_received);
	printf("soak: end: %d fds (start %d), %ld KiB resident (start %ld)\n",
	       fds1, fds0, rss1, rss0);
	ret = 0;
	if (tot.lost != 0 || tot.duplicated != 0 || tot.received < tot.confirmed ||
	    tot.connects == 0 || rte_comch_server_conn_count(srv) != 0 ||
	    fds1 != fds0) {
		printf("soak: FAILED\n");
		ret = 1;
	}
	for (i = 0; i < nb_clients; i++)
		rte_comch_client_destroy(clients[i].cli);
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	rte_eal_cleanup();
	rmdir(dir);
	return ret;
}
