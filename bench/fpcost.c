/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch-bench-fpcost: what the fast path costs the CPU, per message, on
 * one lcore: a host producer sends bursts of 32 to a DPU consumer in the
 * same process and thread, which takes the completions and posts the
 * buffers again. Nothing crosses cores, so the figure is the code's own
 * cost (claim, copy, completion, poll, repost), not the machine's cache
 * hand-off; and the best of many rounds is what the code costs when no
 * other process took the core meanwhile, which makes it usable on a
 * shared machine where throughput across two cores is not.
 *
 * Prints "fpcost_<size>_cycles: <best> (median <m>)" for 64 B and 64 KiB.
 * Uses only the public API as it was before and after issue 12, so that
 * bench/fpcost.sh can build it against two revisions.
 *
 *   comch-bench-fpcost [EAL options] -- [ROUNDS]
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_comch.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>

#define BURST 32
/* Bytes sent per round: 4 MiB at 64 B, 64 MiB at 64 KiB. */
#define BYTES_PER_ROUND(size) ((size) <= 4096 ? UINT64_C(4) << 20 : \
	UINT64_C(64) << 20)

static struct rte_comch_conn *dpu_conn;

static void
on_connect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, void *arg __rte_unused)
{
	dpu_conn = conn;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One size: best and median cycles per message over @p rounds. */
static int
measure(int16_t dpu, struct rte_comch_server *srv,
		struct rte_comch_conn *hconn, struct rte_comch_client *cli,
		uint32_t size, unsigned int rounds)
{
	uint32_t posts = size <= 4096 ? 256 : 64, i, k, id = 0, lens[BURST];
	struct rte_comch_consumer_conf cc = { .nb_posts = posts };
	struct rte_comch_completion cpl[BURST];
	struct rte_comch_send_op ops[BURST];
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	struct rte_comch_mem *mem;
	uint64_t per_round = BYTES_PER_ROUND(size) / size;
	uint64_t *cost, t0, msgs;
	void *bufs[BURST], *src;
	int n;

	mem = rte_comch_mem_create(dpu, (size_t)posts * size, SOCKET_ID_ANY);
	/* Page aligned, so that where the heap puts it (which differs from
	 * one library to another) does not change the copy's speed. */
	src = aligned_alloc(4096, RTE_ALIGN_CEIL(size, 4096));
	if (src != NULL)
		memset(src, 0, size);
	cost = calloc(rounds, sizeof(*cost));
	if (mem == NULL || src == NULL || cost == NULL)
		return -ENOMEM;
	cc.mem = mem;
	cons = rte_comch_consumer_create(dpu_conn, &cc);
	prod = rte_comch_producer_create(hconn, NULL);
	if (cons == NULL || prod == NULL || rte_comch_consumer_start(cons) < 0 ||
	    rte_comch_producer_start(prod) < 0)
		return -EIO;
	for (i = 0; i < posts; i++) {
		void *b = (uint8_t *)rte_comch_mem_addr(mem) + (size_t)i * size;

		rte_comch_consumer_post_burst(cons, &b, &size, 1);
	}
	/* the host learns the consumer's id */
	while (id == 0) {
		rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
		if (rte_comch_conn_remote_consumers(hconn, &id, 1) < 1)
			id = 0;
	}
	for (i = 0; i < BURST; i++) {
		ops[i] = (struct rte_comch_send_op){ .data = src, .len = size };
		lens[i] = size;
	}
	for (k = 0; k <= rounds; k++) {
		t0 = rte_rdtsc();
		for (msgs = 0; msgs < per_round; msgs += (uint64_t)n) {
			n = rte_comch_producer_send_burst(prod, id, ops, BURST);
			if (n < 0)
				return n;
			n = rte_comch_consumer_poll_burst(cons, cpl, BURST);
			if (n < 0)
				return n;
			for (i = 0; i < (uint32_t)n; i++)
				bufs[i] = cpl[i].buf;
			rte_comch_consumer_post_burst(cons, bufs, lens,
					(uint16_t)n);
		}
		if (k > 0) /* the first round warms up */
			cost[k - 1] = (rte_rdtsc() - t0) * 100 / per_round;
	}
	qsort(cost, rounds, sizeof(*cost), cmp_u64);
	printf("fpcost_%u_cycles: %.2f (median %.2f)\n", size,
		(double)cost[0] / 100, (double)cost[rounds / 2] / 100);
	rte_comch_producer_stop(prod);
	rte_comch_producer_destroy(prod);
	rte_comch_consumer_stop(cons);
	while (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE)
		rte_comch_consumer_poll_burst(cons, cpl, BURST);
	rte_comch_consumer_destroy(cons);
	rte_comch_mem_destroy(mem);
	free(src);
	free(cost);
	return 0;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/comch-fpcost.XXXXXX", args[128];
	struct rte_comch_server_conf sc = { .name = "fpcost",
		.connect_cb = on_connect };
	struct rte_comch_client_conf hc = { .server_name = "fpcost" };
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	unsigned int rounds = 200;
	int16_t dpu, host;
	int ret, rc = 1;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	if (argc - ret > 1)
		rounds = (unsigned int)atoi(argv[ret + 1]);
	if (rounds == 0 || mkdtemp(dir) == NULL)
		goto out;
	snprintf(args, sizeof(args), "role=dpu,path=%s", dir);
	if (rte_vdev_init("comch_shm_fpc_dpu", args) < 0)
		goto out;
	snprintf(args, sizeof(args), "role=host,path=%s", dir);
	if (rte_vdev_init("comch_shm_fpc_host", args) < 0)
		goto out;
	dpu = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_fpc_dpu");
	host = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_fpc_host");
	srv = rte_comch_server_create(dpu, &sc);
	cli = rte_comch_client_create(host, &hc);
	if (srv == NULL || cli == NULL || rte_comch_server_start(srv) < 0 ||
	    rte_comch_client_start(cli) < 0)
		goto out;
	while (dpu_conn == NULL ||
	       rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_RUNNING) {
		rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
	}
	if (measure(dpu, srv, rte_comch_client_conn(cli), cli, 64, rounds) == 0 &&
	    measure(dpu, srv, rte_comch_client_conn(cli), cli, 65536,
			rounds / 4 + 1) == 0)
		rc = 0;
	rte_comch_client_stop(cli);
	rte_comch_client_destroy(cli);
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
out:
	rte_eal_cleanup();
	rmdir(dir);
	return rc;
}
