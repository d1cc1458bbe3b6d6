/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path client sample (host role), after the vendor's high-speed
 * data-path sample: connect, then each side creates a consumer and a
 * producer, waits for the other's consumer, sends one message through the
 * fast path, receives the other's, prints both, and exits 0.
 */

#include <stdlib.h>

#include "data_common.h"

static void
poll_client(void *cli)
{
	rte_comch_client_poll(cli);
}

/* The connection closed once it ran (the server left or closed it). */
static void
on_state(struct rte_comch_client *cli __rte_unused, enum rte_comch_state prev,
		enum rte_comch_state next, int err __rte_unused, void *arg)
{
	struct data_peer *peer = arg;

	if (prev == RTE_COMCH_STATE_RUNNING && next != RTE_COMCH_STATE_RUNNING)
		peer->lost = true;
}

int
main(int argc, char **argv)
{
	struct data_args args = { .name = "comch_data_sample",
		.text = "Hello from the host", .timeout = 30 };
	struct data_peer peer = { 0 };
	struct rte_comch_client_conf conf = {
		.state_cb = on_state,
		.consumer_event_cb = data_on_consumer,
		.cb_arg = &peer,
	};
	struct rte_comch_client *cli = NULL;
	struct sample_sleeper sl = { .ep = -1 };
	int16_t dev_id;
	int ret, rc = EXIT_FAILURE;

	if (sample_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;
	ret = data_parse_args(argc, argv, &args, "host", "comch_shm_host");
	if (ret != 0) {
		rc = ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
		goto out;
	}
	conf.server_name = args.name;
	conf.flags = args.event ? RTE_COMCH_F_EVENT : 0;
	signal(SIGINT, sample_signal_handler);
	signal(SIGTERM, sample_signal_handler);

	dev_id = sample_find_dev(args.dev, RTE_COMCH_ROLE_HOST, "comch_shm_host",
			SAMPLE_DEFAULT_PATH);
	if (dev_id < 0)
		goto out;
	cli = rte_comch_client_create(dev_id, &conf);
	if (cli == NULL) {
		fprintf(stderr, "cannot create client: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	ret = sample_client_connect(cli, args.name, args.timeout);
	if (ret < 0) {
		fprintf(stderr, "client: cannot connect to \"%s\": %s\n",
			args.name, rte_strerror(-ret));
		goto out;
	}
	printf("client: connected to \"%s\"\n", args.name);
	if (sample_sleeper_init(&sl, args.event) < 0 || (args.event &&
	    sample_sleeper_add(&sl, rte_comch_client_event(cli)) < 0))
		goto out;
	ret = data_exchange("client", dev_id, rte_comch_client_conn(cli), &peer,
			args.text, poll_client, cli, args.timeout, &sl);
	if (ret < 0) {
		fprintf(stderr, "client: fast-path exchange failed: %s\n",
			rte_strerror(-ret));
		goto out;
	}
	rc = EXIT_SUCCESS;
out:
	sample_sleeper_close(&sl);
	if (cli != NULL) {
		if (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(cli);
		rte_comch_client_destroy(cli);
	}
	rte_eal_cleanup();
	return rc;
}
