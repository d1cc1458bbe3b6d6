/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path client sample (host role), after the vendor's high-speed
 * data-path sample: connect, then each side creates a consumer and a
 * producer, waits for the other's consumer, sends one message through the
 * fast path, receives the other's, prints both, and exits 0.
 */

#include <getopt.h>
#include <stdlib.h>

#include <rte_eal.h>

#include "data_common.h"

static void
poll_client(void *cli)
{
	rte_comch_client_poll(cli);
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --name NAME     server to reach (default comch_data_sample)\n"
	       "  --text TEXT     message to send (default \"Hello from the host\")\n"
	       "  --timeout SEC   give up after SEC seconds (default 30)\n"
	       "  --dev NAME      comch device (default: first host-role device, else a new\n"
	       "                  comch_shm_host with role=host)\n"
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
	struct rte_comch_client_conf conf = {
		.server_name = "comch_data_sample",
		.consumer_event_cb = data_on_consumer,
		.cb_arg = &peer,
	};
	const char *text = "Hello from the host", *dev_name = NULL;
	struct rte_comch_client *cli = NULL;
	double timeout = 30;
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
			conf.server_name = optarg;
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

	dev_id = sample_find_dev(dev_name, RTE_COMCH_ROLE_HOST, "comch_shm_host",
			"role=host");
	if (dev_id < 0)
		goto out;
	cli = rte_comch_client_create(dev_id, &conf);
	if (cli == NULL) {
		fprintf(stderr, "cannot create client: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	ret = sample_client_connect(cli, timeout);
	if (ret < 0) {
		fprintf(stderr, "client: cannot connect to \"%s\": %s\n",
			conf.server_name, rte_strerror(-ret));
		goto out;
	}
	printf("client: connected to \"%s\"\n", conf.server_name);
	ret = data_exchange("client", dev_id, rte_comch_client_conn(cli), &peer,
			text, poll_client, cli, timeout);
	if (ret < 0) {
		fprintf(stderr, "client: fast-path exchange failed: %s\n",
			rte_strerror(-ret));
		goto out;
	}
	rc = EXIT_SUCCESS;
out:
	if (cli != NULL) {
		if (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(cli);
		rte_comch_client_destroy(cli);
	}
	rte_eal_cleanup();
	return rc;
}
