/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Control-path client sample (host role).
 *
 * Connects to a server (retrying while it does not exist yet), sends --text,
 * prints the answer, then measures --rounds round trips of 64-byte messages
 * and prints their latency. Messages are received in bursts.
 *
 * With --event the client sleeps in epoll while it waits for an answer
 * (on its connection's event and the client's), as the server does with
 * --event: the latency printed is then the wake-up round trip, both sides
 * asleep between messages.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "comch_sample.h"

/* --event: the connection's and the client's events. */
static struct sample_sleeper sleeper = { .ep = -1 };

/* Poll until one message arrives; copy it to buf. Returns its length or a
 * negative errno. */
static int
wait_one(struct rte_comch_client *cli, struct rte_comch_conn *conn,
		void *buf, uint32_t size)
{
	struct rte_comch_msg msg;
	int n;

	while (!force_quit) {
		n = rte_comch_msg_recv_burst(conn, &msg, 1);
		if (n < 0)
			return n;
		if (n == 1) {
			uint32_t len = RTE_MIN(msg.len, size);

			memcpy(buf, msg.data, len);
			return (int)len;
		}
		if (rte_comch_client_poll(cli) == 0)
			sample_sleep(&sleeper, -1);  /* event mode only */
	}
	return -EINTR;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
measure_latency(struct rte_comch_client *cli, struct rte_comch_conn *conn,
		uint32_t rounds)
{
	uint8_t ping[64], pong[64];
	uint64_t *rtt, t0, hz = rte_get_tsc_hz();
	uint32_t i;
	int ret;

	rtt = calloc(rounds, sizeof(*rtt));
	if (rtt == NULL)
		return -ENOMEM;
	memset(ping, 0x5a, sizeof(ping));
	for (i = 0; i < rounds; i++) {
		memcpy(ping, &i, sizeof(i));
		t0 = rte_rdtsc_precise();
		ret = rte_comch_msg_send(conn, ping, sizeof(ping));
		if (ret == 0)
			ret = wait_one(cli, conn, pong, sizeof(pong));
		if (ret < 0) {
			printf("client: round %u failed: %s\n", i,
				rte_strerror(-ret));
			free(rtt);
			return ret;
		}
		rtt[i] = rte_rdtsc_precise() - t0;
		if (ret != (int)sizeof(pong) || memcmp(ping, pong, sizeof(ping))) {
			printf("client: round %u: echo differs from what was sent\n", i);
			free(rtt);
			return -EBADMSG;
		}
	}
	qsort(rtt, rounds, sizeof(*rtt), cmp_u64);
#define US(c) ((double)(c) * 1e6 / (double)hz)
	printf("client: %sround trip, 64 B, %u rounds: min %.2f us, median %.2f us, "
	       "p99 %.2f us, max %.2f us\n",
	       sleeper.ep >= 0 ? "wake-up " : "", rounds, US(rtt[0]),
	       US(rtt[rounds / 2]), US(rtt[(uint64_t)rounds * 99 / 100]),
	       US(rtt[rounds - 1]));
#undef US
	free(rtt);
	return 0;
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --name NAME     server to reach (default comch_ctrl_sample)\n"
	       "  --text TEXT     message to send (default \"Hello from the host\")\n"
	       "  --rounds N      64-byte round trips to time (default 10000, 0: none)\n"
	       "  --timeout SEC   give up connecting after SEC seconds (default 10)\n"
	       "  --dev NAME      comch device (default: first host-role device, else a new\n"
	       "                  comch_shm_host with role=host)\n"
	       "  --event         sleep in epoll while waiting for an answer (event mode)\n"
	       "  --help          this text\n", prog);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "text", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "dev", required_argument, NULL, 'd' },
		{ "event", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_comch_client_conf conf = { .server_name = "comch_ctrl_sample" };
	const char *text = "Hello from the host", *dev_name = NULL;
	unsigned long rounds = 10000;
	bool event = false;
	double timeout = 10;
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	char reply[4096];
	char *end;
	int16_t dev_id;
	int ret, opt, rc = EXIT_FAILURE;

	if (sample_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			conf.server_name = optarg;
			break;
		case 't':
			text = optarg;
			break;
		case 'r':
			rounds = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || rounds > UINT32_MAX) {
				fprintf(stderr, "--rounds: not a number: %s\n", optarg);
				goto out_eal;
			}
			break;
		case 'T':
			if (sample_parse_seconds("timeout", optarg, false,
					&timeout) < 0)
				goto out_eal;
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
			rc = EXIT_SUCCESS;
			goto out_eal;
		default:
			usage(argv[0]);
			goto out_eal;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument: %s\n", argv[optind]);
		usage(argv[0]);
		goto out_eal;
	}

	signal(SIGINT, sample_signal_handler);
	signal(SIGTERM, sample_signal_handler);

	dev_id = sample_find_dev(dev_name, RTE_COMCH_ROLE_HOST, "comch_shm_host",
			SAMPLE_DEFAULT_PATH);
	if (dev_id < 0)
		goto out_eal;
	cli = rte_comch_client_create(dev_id, &conf);
	if (cli == NULL) {
		fprintf(stderr, "cannot create client: %s\n",
			rte_strerror(rte_errno));
		goto out_eal;
	}

	/* Connect, retrying while the server is not there yet. */
	ret = sample_client_connect(cli, conf.server_name, timeout);
	if (ret < 0) {
		fprintf(stderr, "client: cannot connect to \"%s\": %s\n",
			conf.server_name, rte_strerror(-ret));
		goto out_cli;
	}
	conn = rte_comch_client_conn(cli);
	printf("client: connected to \"%s\" (connection %u)\n",
		conf.server_name, rte_comch_conn_id(conn));
	if (sample_sleeper_init(&sleeper, event) < 0 || (event &&
	    (sample_sleeper_add(&sleeper, rte_comch_conn_event(conn)) < 0 ||
	     sample_sleeper_add(&sleeper, rte_comch_client_event(cli)) < 0))) {
		fprintf(stderr, "client: cannot sleep on the events\n");
		goto out_stop;
	}

	ret = rte_comch_msg_send(conn, text, (uint32_t)strlen(text));
	if (ret < 0) {
		fprintf(stderr, "client: send failed: %s\n", rte_strerror(-ret));
		goto out_stop;
	}
	printf("client: sent: \"%s\"\n", text);
	ret = wait_one(cli, conn, reply, sizeof(reply));
	if (ret < 0) {
		fprintf(stderr, "client: no reply: %s\n", rte_strerror(-ret));
		goto out_stop;
	}
	printf("client: received: \"%.*s\"\n", ret, reply);
	fflush(stdout);

	if (rounds > 0 && measure_latency(cli, conn, (uint32_t)rounds) < 0)
		goto out_stop;
	rc = EXIT_SUCCESS;
out_stop:
	sample_sleeper_close(&sleeper);
	rte_comch_client_stop(cli);
out_cli:
	rte_comch_client_destroy(cli);
out_eal:
	rte_eal_cleanup();
	return rc;
}
