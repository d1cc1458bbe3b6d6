/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Control-path server sample (DPU role).
 *
 * Creates a server, waits for clients, prints each client's first message
 * and answers it with --text; any later message is echoed back unchanged
 * (the client uses that to measure round-trip latency). Exits 0 once
 * --clients clients have come and gone.
 *
 * One loop serves every client and waits for none of them: it takes one
 * message per client and turn, and none from a client that has not taken
 * the answer we owe it (its queue is full: the answer is kept and sent
 * when there is room). A client that never reads stalls only itself.
 *
 * With --event the loop sleeps in epoll whenever a turn did nothing: on
 * the server's event (clients coming and going) and each connection's
 * (a message; room for an answer we owe), at 0 % CPU while idle.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "comch_sample.h"

/* Clients served at once. */
#define MAX_CLIENTS 64

struct client {
	struct rte_comch_conn *conn;
	uint64_t seen;          /* messages received from it */
	bool owed;              /* an answer waits for room in its queue */
	uint32_t owed_len;
	uint8_t *owed_data;     /* the connection's max message size */
};

struct server_app {
	const char *reply;
	uint32_t served;
	struct client clients[MAX_CLIENTS];
	struct sample_sleeper sleeper;   /* --event */
	struct sample_lines lines;       /* about clients */
};

static void
on_connect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		void *arg)
{
	struct server_app *app = arg;
	struct client *c = NULL;
	unsigned int i;

	for (i = 0; i < MAX_CLIENTS && c == NULL; i++)
		if (app->clients[i].conn == NULL)
			c = &app->clients[i];
	if (c != NULL)
		c->owed_data = malloc(rte_comch_conn_max_msg_size(conn));
	if (c == NULL || c->owed_data == NULL) {
		if (sample_lines_ok(&app->lines))
			printf("server: too many clients, refusing connection %u\n",
				rte_comch_conn_id(conn));
		rte_comch_server_disconnect(srv, conn);
		return;
	}
	c->conn = conn;
	c->seen = 0;
	c->owed = false;
	rte_comch_conn_user_data_set(conn, (uint64_t)(uintptr_t)c);
	if (app->sleeper.ep >= 0 &&
	    sample_sleeper_add(&app->sleeper, rte_comch_conn_event(conn)) < 0)
		printf("server: connection %u: cannot sleep on its event\n",
			rte_comch_conn_id(conn));
	if (sample_lines_ok(&app->lines))
		printf("server: client connected (connection %u)\n",
			rte_comch_conn_id(conn));
}

static void
on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		int err, void *arg)
{
	struct server_app *app = arg;
	struct client *c = (struct client *)(uintptr_t)
		rte_comch_conn_user_data_get(conn);
	struct rte_comch_conn_stats st;

	rte_comch_conn_stats_get(conn, &st);
	if (app->sleeper.ep >= 0)
		sample_sleeper_del(&app->sleeper, rte_comch_conn_event(conn));
	/* err 0: the client closed on purpose; otherwise it was lost */
	if (sample_lines_ok(&app->lines))
		printf("server: client of connection %u %s%s%s: received %" PRIu64
			" messages, sent %" PRIu64 "\n",
			rte_comch_conn_id(conn), err == 0 ? "closed" : "lost (",
			err == 0 ? "" : rte_strerror(-err), err == 0 ? "" : ")",
			st.msgs_recv, st.msgs_sent);
	rte_comch_server_disconnect(srv, conn);
	free(c->owed_data);
	memset(c, 0, sizeof(*c));
	app->served++;
}

/* One turn for one client: what we owe it first, then one message.
 * Returns whether it did something. */
static bool
serve(struct server_app *app, struct client *c)
{
	struct rte_comch_msg msg;
	char shown[128];
	const void *out;
	uint32_t len;
	bool did = false;
	int ret;

	if (c->owed) {
		if (rte_comch_msg_send(c->conn, c->owed_data, c->owed_len) ==
		    -EAGAIN)
			return false; /* still no room: take nothing from it */
		c->owed = false;
		did = true;
	}
	if (rte_comch_msg_recv_burst(c->conn, &msg, 1) != 1)
		return did;
	/* msg.data is a private copy, valid until the next receive call. */
	out = msg.data;
	len = msg.len;
	if (c->seen++ == 0) {
		if (sample_lines_ok(&app->lines))
			printf("server: received from client: \"%s\"\n",
				sample_printable(shown, sizeof(shown),
					msg.data, msg.len));
		out = app->reply;
		len = (uint32_t)strlen(app->reply);
	}
	ret = rte_comch_msg_send(c->conn, out, len);
	if (ret == -EAGAIN) {
		/* its queue is full: keep the answer, never drop it */
		memcpy(c->owed_data, out, len);
		c->owed_len = len;
		c->owed = true;
	} else if (ret < 0) {
		/* the client left: its loss is reported by the poll */
		return true;
	}
	if (c->seen == 1 && sample_lines_ok(&app->lines))
		printf("server: %s reply: \"%s\"\n", c->owed ? "queued" : "sent",
			app->reply);
	return true;
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --name NAME     server name (default comch_ctrl_sample)\n"
	       "  --function FUNC host function to serve, e.g. pf0vf1 (default: the device's first)\n"
	       "  --text TEXT     answer to a client's first message (default \"Message received\")\n"
	       "  --clients N     exit after N clients came and went (default 1, 0: until SIGINT)\n"
	       "  --timeout SEC   exit with an error if no client came within SEC seconds (default 0: wait)\n"
	       "  --dev NAME      comch device (default: first DPU-role device, else a new\n"
	       "                  comch_shm_dpu with role=dpu)\n"
	       "  --event         sleep in epoll while idle instead of polling (event mode)\n"
	       "  --help          this text\n", prog);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "function", required_argument, NULL, 'f' },
		{ "text", required_argument, NULL, 't' },
		{ "clients", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "dev", required_argument, NULL, 'd' },
		{ "event", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct server_app app = { .reply = "Message received" };
	struct rte_comch_server_conf conf = {
		.name = "comch_ctrl_sample",
		.connect_cb = on_connect,
		.disconnect_cb = on_disconnect,
		.cb_arg = &app,
	};
	const char *func = NULL, *dev_name = NULL;
	unsigned long clients = 1;
	bool event = false;
	double timeout = 0;
	struct rte_comch_server *srv;
	uint64_t deadline = 0;
	char *end;
	int16_t dev_id;
	int ret, opt, rc = EXIT_SUCCESS;

	if (sample_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			conf.name = optarg;
			break;
		case 'f':
			func = optarg;
			break;
		case 't':
			app.reply = optarg;
			break;
		case 'c':
			clients = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || clients > UINT32_MAX) {
				fprintf(stderr, "--clients: not a number: %s\n", optarg);
				rte_eal_cleanup();
				return EXIT_FAILURE;
			}
			break;
		case 'T':
			if (sample_parse_seconds("timeout", optarg, true,
					&timeout) < 0) {
				rte_eal_cleanup();
				return EXIT_FAILURE;
			}
			break;
		case 'd':
			dev_name = optarg;
			break;
		case 'e':
			event = true;
			conf.flags = RTE_COMCH_F_EVENT;
			break;
		case 'h':
			usage(argv[0]);
			rte_eal_cleanup();
			return EXIT_SUCCESS;
		default:
			usage(argv[0]);
			rte_eal_cleanup();
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument: %s\n", argv[optind]);
		usage(argv[0]);
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}

	signal(SIGINT, sample_signal_handler);
	signal(SIGTERM, sample_signal_handler);

	dev_id = sample_find_dev(dev_name, RTE_COMCH_ROLE_DPU, "comch_shm_dpu",
			SAMPLE_DEFAULT_PATH);
	if (dev_id < 0) {
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	if (func != NULL) {
		ret = rte_comch_function_get_by_name(dev_id, func, &conf.function_id);
		if (ret < 0) {
			fprintf(stderr, "device does not serve function %s\n", func);
			rte_eal_cleanup();
			return EXIT_FAILURE;
		}
	}

	srv = rte_comch_server_create(dev_id, &conf);
	if (srv == NULL) {
		fprintf(stderr, "cannot create server %s: %s\n", conf.name,
			rte_strerror(rte_errno));
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	ret = rte_comch_server_start(srv);
	if (ret < 0) {
		fprintf(stderr, "cannot start server: %s\n", rte_strerror(-ret));
		rte_comch_server_destroy(srv);
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	if (sample_sleeper_init(&app.sleeper, event) < 0 || (event &&
	    sample_sleeper_add(&app.sleeper, rte_comch_server_event(srv)) < 0)) {
		fprintf(stderr, "server: cannot sleep on the server's event\n");
		rte_comch_server_stop(srv);
		rte_comch_server_destroy(srv);
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	printf("server: \"%s\" waiting for clients%s\n", conf.name,
		event ? " (event mode: asleep while idle)" : "");
	fflush(stdout);

	if (timeout > 0)
		deadline = sample_deadline(timeout);
	while (!force_quit && (clients == 0 || app.served < clients)) {
		bool waiting_first = deadline != 0 && app.served == 0 &&
			rte_comch_server_conn_count(srv) == 0;
		bool busy;
		unsigned int i;
		uint64_t now;

		busy = rte_comch_server_poll(srv) > 0;
		for (i = 0; i < MAX_CLIENTS; i++)
			if (app.clients[i].conn != NULL)
				busy |= serve(&app, &app.clients[i]);
		now = rte_get_timer_cycles();
		if (waiting_first && now > deadline) {
			fprintf(stderr, "server: no client within %.1f s\n", timeout);
			rc = EXIT_FAILURE;
			break;
		}
		/* Nothing done this turn: sleep (event mode) until work
		 * comes, or the --timeout for the first client ends. */
		if (!busy)
			sample_sleep(&app.sleeper, !waiting_first ? -1 :
				(int)((deadline - now) * 1000 /
					rte_get_timer_hz()) + 1);
	}
	sample_sleeper_close(&app.sleeper);
	/* stop releases the connections left (no disconnect_cb) */
	rte_comch_server_stop(srv);
	for (unsigned int i = 0; i < MAX_CLIENTS; i++)
		free(app.clients[i].owed_data);
	rte_comch_server_destroy(srv);
	rte_eal_cleanup();
	printf("server: done, served %u client(s)\n", app.served);
	return rc;
}
