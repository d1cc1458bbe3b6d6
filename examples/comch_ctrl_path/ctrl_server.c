/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Control-path server sample (DPU role).
 *
 * Creates a server, waits for clients, prints each client's first message
 * and answers it with --text; any later message is echoed back unchanged
 * (the client uses that to measure round-trip latency). Exits 0 once
 * --clients clients have come and gone. Messages are received through a
 * callback, on the lcore that polls the server.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "comch_sample.h"

struct server_app {
	const char *reply;
	uint32_t served;
	uint32_t failures;
};

static void
on_connect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, void *arg __rte_unused)
{
	printf("server: client connected (connection %u)\n",
		rte_comch_conn_id(conn));
	/* user data: how many messages this connection sent us */
	rte_comch_conn_user_data_set(conn, 0);
}

static void
on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		int err, void *arg)
{
	struct server_app *app = arg;
	struct rte_comch_conn_stats st;

	rte_comch_conn_stats_get(conn, &st);
	printf("server: client of connection %u left (%s): received %" PRIu64
		" messages, sent %" PRIu64 "\n", rte_comch_conn_id(conn),
		rte_strerror(-err), st.msgs_recv, st.msgs_sent);
	rte_comch_server_disconnect(srv, conn);
	app->served++;
}

static void
on_msg(struct rte_comch_conn *conn, const struct rte_comch_msg *msg,
		void *arg)
{
	struct server_app *app = arg;
	uint64_t seen = rte_comch_conn_user_data_get(conn);
	const void *out = msg->data;
	uint32_t len = msg->len;
	int ret;

	if (seen == 0) {
		printf("server: received from client: \"%.*s\"\n",
			(int)msg->len, (const char *)msg->data);
		out = app->reply;
		len = (uint32_t)strlen(app->reply);
	}
	rte_comch_conn_user_data_set(conn, seen + 1);
	/* The client waits for each answer, so the queue has room; a full
	 * queue would be retried, never dropped. */
	do {
		ret = rte_comch_msg_send(conn, out, len);
	} while (ret == -EAGAIN && !force_quit);
	if (ret < 0 && ret != -EAGAIN) {
		printf("server: send failed: %s\n", rte_strerror(-ret));
		app->failures++;
	} else if (seen == 0) {
		printf("server: sent reply: \"%s\"\n", app->reply);
	}
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --name NAME     server name (default comch_ctrl_sample)\n"
	       "  --rep FUNC      host function to serve, e.g. pf0vf1 (default: the device's first)\n"
	       "  --text TEXT     answer to a client's first message (default \"Message received\")\n"
	       "  --clients N     exit after N clients came and went (default 1, 0: until SIGINT)\n"
	       "  --timeout SEC   exit with an error if no client came within SEC seconds (default 0: wait)\n"
	       "  --dev NAME      comch device (default: first DPU-role device, else a new\n"
	       "                  comch_shm_dpu with role=dpu)\n"
	       "  --help          this text\n", prog);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "rep", required_argument, NULL, 'r' },
		{ "text", required_argument, NULL, 't' },
		{ "clients", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct server_app app = { .reply = "Message received" };
	struct rte_comch_server_conf conf = {
		.name = "comch_ctrl_sample",
		.connect_cb = on_connect,
		.disconnect_cb = on_disconnect,
		.msg_cb = on_msg,
		.cb_arg = &app,
	};
	const char *rep = NULL, *dev_name = NULL;
	unsigned long clients = 1;
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
		case 'r':
			rep = optarg;
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
	if (rep != NULL) {
		ret = rte_comch_rep_get_by_name(dev_id, rep, &conf.rep_id);
		if (ret < 0) {
			fprintf(stderr, "device does not serve function %s\n", rep);
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
	printf("server: \"%s\" waiting for clients\n", conf.name);
	fflush(stdout);

	if (timeout > 0)
		deadline = sample_deadline(timeout);
	while (!force_quit && (clients == 0 || app.served < clients)) {
		rte_comch_server_poll(srv);
		if (deadline != 0 && rte_comch_server_conn_count(srv) == 0 &&
		    app.served == 0 && rte_get_timer_cycles() > deadline) {
			fprintf(stderr, "server: no client within %.1f s\n", timeout);
			rc = EXIT_FAILURE;
			break;
		}
	}
	if (app.failures != 0)
		rc = EXIT_FAILURE;

	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	rte_eal_cleanup();
	printf("server: done, served %u client(s)\n", app.served);
	return rc;
}
