/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * An application outside the Comch on DPDK tree, built against an installed
 * copy with nothing but
 *
 *   cc comch_outside.c $(pkg-config --cflags --libs libcomch)
 *
 * (see doc/guides/prog_guide/using_comch.md). Run it twice, once per end:
 *
 *   comch_outside -l 0 --no-huge --vdev=comch_shm0,role=dpu,path=/tmp/c
 *   comch_outside -l 1 --no-huge --vdev=comch_shm1,role=host,path=/tmp/c
 *
 * The role of the first comch device picks the part: on a DPU device it
 * serves "comch_outside", echoes every message of one client and exits 0
 * once that client has left; on a host device it connects (retrying while
 * the server is not there yet), sends --rounds messages of sizes up to the
 * connection's maximum, and exits 0 if each echo matches byte for byte.
 * Every wait has a --timeout deadline (default 60 s).
 */

/* The comch API is experimental: like DPDK, its functions are only usable
 * when the application defines this before including the headers (or
 * passes -DALLOW_EXPERIMENTAL_API). */
#define ALLOW_EXPERIMENTAL_API

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#define SERVER_NAME "comch_outside"

static uint64_t deadline;

static bool
expired(void)
{
	return rte_get_timer_cycles() > deadline;
}

/* Message i: its length, and bytes that depend on i and their position. */
static uint32_t
msg_len(uint32_t i, uint32_t max)
{
	return 1 + (uint32_t)(((uint64_t)i * 997) % max);
}

static void
msg_fill(uint8_t *buf, uint32_t len, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < len; j++)
		buf[j] = (uint8_t)(i * 31 + j * 7 + (j >> 8));
}

/* ------------------------------------------------------------- the DPU */

struct echo_server {
	uint32_t echoed;
	uint32_t failures;
	bool client_left;
};

static void
on_msg(struct rte_comch_conn *conn, const struct rte_comch_msg *msg, void *arg)
{
	struct echo_server *es = arg;
	int ret;

	/* The client waits for each echo, so its queue has room: -EAGAIN
	 * only if it is slow to consume; retry until the deadline. */
	do {
		ret = rte_comch_msg_send(conn, msg->data, msg->len);
	} while (ret == -EAGAIN && !expired());
	if (ret < 0) {
		fprintf(stderr, "server: echo of %u bytes failed: %s\n",
			msg->len, rte_strerror(-ret));
		es->failures++;
		return;
	}
	es->echoed++;
}

static void
on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		int err, void *arg)
{
	struct echo_server *es = arg;

	printf("server: client left (%s)\n", rte_strerror(-err));
	rte_comch_server_disconnect(srv, conn);
	es->client_left = true;
}

static int
run_server(int16_t dev_id, double timeout)
{
	struct echo_server es = { 0 };
	struct rte_comch_server_conf conf = {
		.name = SERVER_NAME,
		.disconnect_cb = on_disconnect,
		.msg_cb = on_msg,
		.cb_arg = &es,
	};
	struct rte_comch_server *srv;
	int ret;

	srv = rte_comch_server_create(dev_id, &conf);
	if (srv == NULL) {
		fprintf(stderr, "server: cannot create: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	ret = rte_comch_server_start(srv);
	if (ret < 0) {
		fprintf(stderr, "server: cannot start: %s\n", rte_strerror(-ret));
		rte_comch_server_destroy(srv);
		return -1;
	}
	printf("server: \"%s\" waiting for a client\n", SERVER_NAME);
	fflush(stdout);
	while (!es.client_left && !expired())
		rte_comch_server_poll(srv);
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	if (!es.client_left) {
		fprintf(stderr, "server: no client came and left within %.0f s\n",
			timeout);
		return -1;
	}
	printf("server: echoed %u messages\n", es.echoed);
	return es.failures == 0 && es.echoed > 0 ? 0 : -1;
}

/* ---------------------------------------------------------- the host */

/* Start the client and poll until it runs, retrying while the server does
 * not exist yet (-ENOENT) or no DPU serves this function yet
 * (-ECONNREFUSED). */
static int
client_connect(struct rte_comch_client *cli)
{
	enum rte_comch_state st;
	int ret, err;

	for (;;) {
		ret = rte_comch_client_start(cli);
		if (ret < 0)
			return ret;
		do {
			rte_comch_client_poll(cli);
			st = rte_comch_client_state(cli, &err);
		} while (st == RTE_COMCH_STATE_STARTING && !expired());
		if (st == RTE_COMCH_STATE_RUNNING)
			return 0;
		if (st == RTE_COMCH_STATE_STARTING) {
			rte_comch_client_stop(cli);
			return -ETIMEDOUT;
		}
		if (err != -ENOENT && err != -ECONNREFUSED)
			return err;
		if (expired())
			return -ETIMEDOUT;
		rte_delay_ms(10); /* a retry interval, not a synchronisation */
	}
}

/* Send message i and check its echo. Returns 0 or a negative errno. */
static int
client_round(struct rte_comch_client *cli, struct rte_comch_conn *conn,
		uint32_t i, uint32_t len, uint8_t *buf)
{
	struct rte_comch_msg msg;
	int n, ret;

	msg_fill(buf, len, i);
	do {
		ret = rte_comch_msg_send(conn, buf, len);
	} while (ret == -EAGAIN && !expired());
	if (ret < 0)
		return ret;
	do {
		n = rte_comch_msg_recv_burst(conn, &msg, 1);
		if (n < 0)
			return n;
		if (n == 0)
			rte_comch_client_poll(cli);
	} while (n == 0 && !expired());
	if (n == 0)
		return -ETIMEDOUT;
	if (msg.len != len || memcmp(msg.data, buf, len) != 0) {
		fprintf(stderr, "client: message %u: sent %u bytes, the echo "
			"has %u and differs\n", i, len, msg.len);
		return -EBADMSG;
	}
	return 0;
}

static int
run_client(int16_t dev_id, uint32_t rounds)
{
	struct rte_comch_client_conf conf = { .server_name = SERVER_NAME };
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	uint32_t i, max;
	uint8_t *buf;
	int ret = -1;

	cli = rte_comch_client_create(dev_id, &conf);
	if (cli == NULL) {
		fprintf(stderr, "client: cannot create: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	ret = client_connect(cli);
	if (ret < 0) {
		fprintf(stderr, "client: cannot connect to \"%s\": %s\n",
			SERVER_NAME, rte_strerror(-ret));
		rte_comch_client_destroy(cli);
		return -1;
	}
	conn = rte_comch_client_conn(cli);
	max = rte_comch_conn_max_msg_size(conn);
	printf("client: connected to \"%s\", messages up to %u bytes\n",
		SERVER_NAME, max);
	buf = malloc(max);
	ret = buf == NULL ? -ENOMEM : 0;
	/* the first message is 1 byte, the last the largest */
	for (i = 0; i < rounds && ret == 0; i++)
		ret = client_round(cli, conn, i,
			i + 1 == rounds ? max : msg_len(i, max), buf);
	if (ret < 0)
		fprintf(stderr, "client: message %u: %s\n", i - 1,
			rte_strerror(-ret));
	else
		printf("client: %u echoes of 1 to %u bytes match\n", rounds, max);
	free(buf);
	rte_comch_client_stop(cli);
	rte_comch_client_destroy(cli);
	return ret < 0 ? -1 : 0;
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [--rounds N] [--timeout SEC]\n"
	       "  --rounds N     messages the client sends (default 100)\n"
	       "  --timeout SEC  deadline for the whole run (default 60)\n",
		prog);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_comch_dev_info info;
	unsigned long rounds = 100;
	double timeout = 60;
	char hint[PATH_MAX + 256];
	int16_t dev_id = -1, id;
	int ret, opt;
	char *end;

	/* What to say if EAL cannot parse a comch --vdev (the driver not
	 * loaded): worked out before, as EAL rewrites argv when it fails. */
	rte_comch_devargs_hint(argc, argv, hint, sizeof(hint));
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "cannot initialise EAL: %s\n",
			rte_strerror(rte_errno));
		if (hint[0] != '\0')
			fprintf(stderr, "%s\n", hint);
		return EXIT_FAILURE;
	}
	/* A comch --vdev EAL parsed but the driver refused (a bad value):
	 * EAL carries on; we do not. */
	if (rte_comch_devargs_check(hint, sizeof(hint)) < 0) {
		fprintf(stderr, "%s\n", hint);
		return EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	setvbuf(stdout, NULL, _IOLBF, 0);

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			rounds = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || rounds == 0 ||
			    rounds > UINT32_MAX) {
				fprintf(stderr, "--rounds: not a positive number: %s\n",
					optarg);
				goto fail;
			}
			break;
		case 'T':
			timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(timeout > 0)) {
				fprintf(stderr, "--timeout: not a positive number of seconds: %s\n",
					optarg);
				goto fail;
			}
			break;
		case 'h':
			usage(argv[0]);
			rte_eal_cleanup();
			return EXIT_SUCCESS;
		default:
			usage(argv[0]);
			goto fail;
		}
	}
	deadline = rte_get_timer_cycles() +
		(uint64_t)(timeout * (double)rte_get_timer_hz());

	RTE_COMCH_FOREACH_DEV(id) {
		dev_id = id;
		break;
	}
	if (dev_id < 0 || rte_comch_info_get(dev_id, &info) < 0) {
		fprintf(stderr, "no comch device: give --vdev=comch_shm0,role=dpu,path=DIR "
			"or --vdev=comch_shm1,role=host,path=DIR\n");
		goto fail;
	}
	printf("%s: device %s, driver %s\n",
		info.role == RTE_COMCH_ROLE_DPU ? "server" : "client",
		info.dev_name, info.driver_name);
	if (info.role == RTE_COMCH_ROLE_DPU)
		ret = run_server(dev_id, timeout);
	else
		ret = run_client(dev_id, (uint32_t)rounds);
	rte_eal_cleanup();
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
fail:
	rte_eal_cleanup();
	return EXIT_FAILURE;
}
