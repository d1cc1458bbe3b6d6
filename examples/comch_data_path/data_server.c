/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path server sample (DPU role), after the vendor's high-speed
 * data-path sample: accept one client, then each side creates a consumer
 * and a producer, waits for the other's consumer, sends one message through
 * the fast path, receives the other's, prints both, and exits 0.
 */

#include <getopt.h>
#include <stdlib.h>

#include <rte_eal.h>

#include "data_common.h"

static struct rte_comch_conn *client_conn;
static bool client_left;

static void
on_connect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, void *arg __rte_unused)
{
	client_conn = conn;
}

static void
on_disconnect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn __rte_unused, int err __rte_unused,
		void *arg __rte_unused)
{
	client_left = true;
}

static void
poll_server(void *srv)
{
	rte_comch_server_poll(srv);
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --name NAME     server name (default comch_data_sample)\n"
	       "  --text TEXT     message to send (default \"Hello from the DPU\")\n"
	       "  --timeout SEC   give up after SEC seconds (default 30)\n"
	       "  --dev NAME      comch device (default: first DPU-role device, else a new\n"
	       "                  comch_shm_dpu with role=dpu)\n"
	       "  --help          this text\n", prog);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "text", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct data_peer peer = { 0 };
	struct rte_comch_server_conf conf = {
		.name = "comch_data_sample",
		.connect_cb = on_connect,
		.disconnect_cb = on_disconnect,
		.consumer_event_cb = data_on_consumer,
		.cb_arg = &peer,
	};
	const char *text = "Hello from the DPU", *dev_name = NULL;
	struct rte_comch_server *srv = NULL;
	double timeout = 30;
	uint64_t deadline;
	char *end;
	int16_t dev_id;
	int ret, opt, rc = EXIT_FAILURE;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "cannot initialise EAL: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	setvbuf(stdout, NULL, _IOLBF, 0);

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			conf.name = optarg;
			break;
		case 't':
			text = optarg;
			break;
		case 'T':
			timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || timeout <= 0) {
				fprintf(stderr, "--timeout: not a positive number of seconds: %s\n",
					optarg);
				goto out;
			}
			break;
		case 'd':
			dev_name = optarg;
			break;
		case 'h':
			usage(argv[0]);
			rc = EXIT_SUCCESS;
			goto out;
		default:
			usage(argv[0]);
			goto out;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument: %s\n", argv[optind]);
		goto out;
	}
	signal(SIGINT, sample_signal_handler);
	signal(SIGTERM, sample_signal_handler);

	dev_id = sample_find_dev(dev_name, RTE_COMCH_ROLE_DPU, "comch_shm_dpu",
			"role=dpu");
	if (dev_id < 0)
		goto out;
	srv = rte_comch_server_create(dev_id, &conf);
	if (srv == NULL || rte_comch_server_start(srv) < 0) {
		fprintf(stderr, "cannot start server %s: %s\n", conf.name,
			rte_strerror(rte_errno));
		goto out;
	}
	printf("server: \"%s\" waiting for a client\n", conf.name);
	deadline = sample_deadline(timeout);
	while (client_conn == NULL && !force_quit &&
	       rte_get_timer_cycles() < deadline)
		rte_comch_server_poll(srv);
	if (client_conn == NULL) {
		fprintf(stderr, "server: no client\n");
		goto out;
	}
	printf("server: client connected\n");

	ret = data_exchange("server", dev_id, client_conn, &peer, text,
			poll_server, srv, timeout);
	if (ret < 0) {
		fprintf(stderr, "server: fast-path exchange failed: %s\n",
			rte_strerror(-ret));
		goto out;
	}
	/* The client leaves once it has our message. */
	while (!client_left && !force_quit && rte_get_timer_cycles() < deadline)
		rte_comch_server_poll(srv);
	rc = EXIT_SUCCESS;
out:
	if (srv != NULL) {
		rte_comch_server_stop(srv);
		rte_comch_server_destroy(srv);
	}
	rte_eal_cleanup();
	return rc;
}
