/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path server sample (DPU role), after the vendor's high-speed
 * data-path sample: accept one client, then each side creates a consumer
 * and a producer, waits for the other's consumer, sends one message through
 * the fast path, receives the other's, prints both, and exits 0.
 */

#include <stdlib.h>

#include "data_common.h"

static struct rte_comch_conn *client_conn;
static struct sample_lines lines;   /* about other connections */

/* One client is served; a second connection is closed at once (its host
 * is told), whatever it would have done. */
static void
on_connect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		void *arg)
{
	struct data_peer *peer = arg;

	if (client_conn != NULL) {
		if (sample_lines_ok(&lines))
			printf("server: serving one client; closing connection %u\n",
				rte_comch_conn_id(conn));
		rte_comch_server_disconnect(srv, conn);
		return;
	}
	client_conn = conn;
	peer->conn = conn;
}

static void
on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		int err __rte_unused, void *arg)
{
	struct data_peer *peer = arg;

	if (conn == client_conn)
		peer->lost = true;
	else
		rte_comch_server_disconnect(srv, conn);
}

static void
poll_server(void *srv)
{
	rte_comch_server_poll(srv);
}

int
main(int argc, char **argv)
{
	struct data_args args = { .name = "comch_data_sample",
		.text = "Hello from the DPU", .timeout = 30 };
	struct data_peer peer = { 0 };
	struct rte_comch_server_conf conf = {
		.connect_cb = on_connect,
		.disconnect_cb = on_disconnect,
		.consumer_event_cb = data_on_consumer,
		.cb_arg = &peer,
	};
	struct rte_comch_server *srv = NULL;
	struct sample_sleeper sl = { .ep = -1 };
	uint64_t deadline;
	int16_t dev_id;
	int ret, rc = EXIT_FAILURE;

	if (sample_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;
	ret = data_parse_args(argc, argv, &args, "dpu", "comch_shm_dpu");
	if (ret != 0) {
		rc = ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
		goto out;
	}
	conf.name = args.name;
	conf.flags = args.event ? RTE_COMCH_F_EVENT : 0;
	signal(SIGINT, sample_signal_handler);
	signal(SIGTERM, sample_signal_handler);

	dev_id = sample_find_dev(args.dev, RTE_COMCH_ROLE_DPU, "comch_shm_dpu",
			SAMPLE_DEFAULT_PATH);
	if (dev_id < 0)
		goto out;
	srv = rte_comch_server_create(dev_id, &conf);
	if (srv == NULL || rte_comch_server_start(srv) < 0) {
		fprintf(stderr, "cannot start server %s: %s\n", conf.name,
			rte_strerror(rte_errno));
		goto out;
	}
	if (sample_sleeper_init(&sl, args.event) < 0 || (args.event &&
	    sample_sleeper_add(&sl, rte_comch_server_event(srv)) < 0))
		goto out;
	printf("server: \"%s\" waiting for a client\n", conf.name);
	deadline = sample_deadline(args.timeout);
	while (client_conn == NULL && !force_quit &&
	       rte_get_timer_cycles() < deadline)
		if (rte_comch_server_poll(srv) == 0 && client_conn == NULL)
			sample_sleep(&sl, data_ms_left(deadline));
	if (client_conn == NULL) {
		fprintf(stderr, "server: no client\n");
		goto out;
	}
	printf("server: client connected\n");

	ret = data_exchange("server", dev_id, client_conn, &peer, args.text,
			poll_server, srv, args.timeout, &sl);
	if (ret < 0) {
		fprintf(stderr, "server: fast-path exchange failed: %s\n",
			rte_strerror(-ret));
		goto out;
	}
	/* The client leaves once it has our message. */
	while (!peer.lost && !force_quit && rte_get_timer_cycles() < deadline)
		if (rte_comch_server_poll(srv) == 0 && !peer.lost)
			sample_sleep(&sl, data_ms_left(deadline));
	rc = EXIT_SUCCESS;
out:
	sample_sleeper_close(&sl);
	if (srv != NULL) {
		rte_comch_server_stop(srv);
		rte_comch_server_destroy(srv);
	}
	rte_eal_cleanup();
	return rc;
}
