/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DPU-side pipeline sample: an l2fwd-style forwarder between host
 * functions, written against ethdev only. Each net_comch port is one host
 * function's connection; ports are paired in order (0 <-> 1, 2 <-> 3,
 * ...) and every frame received on one leaves on the other, on the same
 * queue. The lcores share the (port, queue) streams.
 *
 * A stream that cannot send (the peer has no buffer) keeps what it holds
 * and reads nothing more until it went out, so back-pressure reaches the
 * sender instead of dropping; what a stream holds when the other port's
 * link goes down is dropped and counted. At exit the ports are stopped
 * and the mempool must be full again.
 *
 *   dpdk-comch-pipeline -l 0,1 --vdev=comch_shm0,role=dpu,functions=[pf0,pf0vf1] \
 *       --vdev=net_comch0,comch=comch_shm0,server=eth,function=pf0 \
 *       --vdev=net_comch1,comch=comch_shm0,server=eth,function=pf0vf1 -- [options]
 */

#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#include "comch_sample.h"

#define BURST 32
#define MAX_STREAMS 256

/* One direction of one queue: rx (port, queue) -> tx (peer port, queue). */
struct stream {
	uint16_t rx_port, tx_port, queue;
	uint16_t held, first;         /* frames received, not yet sent */
	struct rte_mbuf *pkts[BURST];
	uint64_t forwarded, dropped;
	bool macswap;
} __rte_cache_aligned;

static struct stream streams[MAX_STREAMS];
static unsigned int nb_streams;
static unsigned int nb_pollers; /* lcores polling streams: i, i + n, ... */
static struct rte_mempool *pool;

static struct {
	uint16_t queues;
	bool macswap;
	double stats_period;
	const char *stats_file;
} opt = { .queues = 1 };

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [--queues N] [--macswap] [--stats-period S] [--stats-file FILE]\n"
		"  --queues N        queue pairs per port (default 1; at most the ports' queues devarg)\n"
		"  --macswap         swap source and destination MAC of each frame\n"
		"  --stats-period S  print the counters every S seconds (default: at exit only)\n"
		"  --stats-file FILE write the final counters there as JSON\n"
		"Ports (net_comch vdevs) are paired in order: 0 <-> 1, 2 <-> 3, ...\n",
		prog);
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "queues", required_argument, NULL, 'q' },
		{ "macswap", no_argument, NULL, 'm' },
		{ "stats-period", required_argument, NULL, 'p' },
		{ "stats-file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 || v > 256) {
				fprintf(stderr, "--queues: expected 1 to 256, not %s\n", optarg);
				return -1;
			}
			opt.queues = (uint16_t)v;
			break;
		case 'm':
			opt.macswap = true;
			break;
		case 'p':
			if (sample_parse_seconds("stats-period", optarg, false,
					&opt.stats_period) < 0)
				return -1;
			break;
		case 'f':
			opt.stats_file = optarg;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -1;
		}
	}
	return 0;
}

static int
port_setup(uint16_t port, uint16_t nb_lcores)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (opt.queues > info.max_rx_queues) {
		fprintf(stderr, "port %u has %u queues, --queues asks for %u\n",
			port, info.max_rx_queues, opt.queues);
		return -EINVAL;
	}
	/* Frames up to the port's largest, in chains of pool mbufs. */
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(port, opt.queues, opt.queues, &conf);
	if (ret != 0)
		return ret;
	for (q = 0; q < opt.queues; q++) {
		ret = rte_eth_rx_queue_setup(port, q, 0, rte_eth_dev_socket_id(port),
				NULL, pool);
		if (ret == 0)
			ret = rte_eth_tx_queue_setup(port, q, 0,
					rte_eth_dev_socket_id(port), NULL);
		if (ret != 0)
			return ret;
	}
	RTE_SET_USED(nb_lcores);
	return rte_eth_dev_start(port);
}

static inline void
swap_macs(struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eh;
		struct rte_ether_addr a;

		if (rte_pktmbuf_data_len(m[i]) < sizeof(*eh))
			continue;
		eh = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
		a = eh->dst_addr;
		eh->dst_addr = eh->src_addr;
		eh->src_addr = a;
	}
}

/* One pass over a stream: send what it holds, or take more. */
static inline void
stream_poll(struct stream *s)
{
	uint16_t n;

	if (s->held == 0) {
		s->held = rte_eth_rx_burst(s->rx_port, s->queue, s->pkts, BURST);
		s->first = 0;
		if (s->held == 0)
			return;
		if (s->macswap)
			swap_macs(s->pkts, s->held);
	}
	n = rte_eth_tx_burst(s->tx_port, s->queue, &s->pkts[s->first], s->held);
	s->first += n;
	s->held -= n;
	s->forwarded += n;
	if (n == 0 && s->held != 0) {
		struct rte_eth_link link;

		/* Nobody to take them (the peer is gone): drop. */
		if (rte_eth_link_get_nowait(s->tx_port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN) {
			rte_pktmbuf_free_bulk(&s->pkts[s->first], s->held);
			s->dropped += s->held;
			s->held = 0;
		}
	}
}

static int
worker(void *arg)
{
	unsigned int idx = (unsigned int)(uintptr_t)arg, nb = nb_pollers;
	unsigned int i;

	while (!force_quit)
		for (i = idx; i < nb_streams; i += nb)
			stream_poll(&streams[i]);
	/* What is still held goes back to the pool. */
	for (i = idx; i < nb_streams; i += nb) {
		rte_pktmbuf_free_bulk(&streams[i].pkts[streams[i].first],
				streams[i].held);
		streams[i].dropped += streams[i].held;
		streams[i].held = 0;
	}
	return 0;
}

static void
print_stats(void)
{
	unsigned int i;

	for (i = 0; i < nb_streams; i++)
		printf("pipeline: port %u -> port %u queue %u: %" PRIu64 " forwarded, %" PRIu64 " dropped\n",
			streams[i].rx_port, streams[i].tx_port, streams[i].queue,
			streams[i].forwarded, streams[i].dropped);
}

/* Stats loop of the main lcore when it has no streams of its own. */
static void
main_wait(void)
{
	uint64_t next = rte_get_timer_cycles() +
		(uint64_t)(opt.stats_period * (double)rte_get_timer_hz());

	while (!force_quit) {
		rte_delay_us_sleep(100 * 1000);
		if (opt.stats_period > 0 && rte_get_timer_cycles() > next) {
			print_stats();
			next += (uint64_t)(opt.stats_period * (double)rte_get_timer_hz());
		}
	}
}

int
main(int argc, char **argv)
{
	char why[256];
	uint16_t nb_ports = 0, ports[RTE_MAX_ETHPORTS], p, q;
	unsigned int i, lcore, nb_workers;
	uint64_t fwd = 0, drop = 0;
	int rc = EXIT_FAILURE;

	if (sample_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;
	if (rte_comch_devargs_check(why, sizeof(why)) < 0) {
		fprintf(stderr, "%s\n", why);
		return EXIT_FAILURE;
	}
	if (parse_args(argc, argv) < 0)
		return EXIT_FAILURE;
	signal(SIGINT, sample_signal_handler);
	signal(SIGTERM, sample_signal_handler);
	/* Let dpdk-dumpcap (a secondary process) capture on the ports. */
	if (rte_pdump_init() < 0)
		printf("pipeline: no packet capture: %s\n", rte_strerror(rte_errno));

	RTE_ETH_FOREACH_DEV(p)
		ports[nb_ports++] = p;
	if (nb_ports < 2 || nb_ports % 2 != 0) {
		fprintf(stderr, "pipeline: %u ports; give an even number of net_comch ports (--vdev=net_comch0,comch=...,server=...,function=...), paired in order\n",
			nb_ports);
		return EXIT_FAILURE;
	}
	if ((unsigned int)nb_ports * opt.queues > MAX_STREAMS) {
		fprintf(stderr, "pipeline: at most %u streams (ports x queues)\n",
			MAX_STREAMS);
		return EXIT_FAILURE;
	}
	pool = rte_pktmbuf_pool_create("pipeline", 8191, 256, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "pipeline: no mempool: %s\n", rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	for (i = 0; i < nb_ports; i++) {
		int ret = port_setup(ports[i], (uint16_t)rte_lcore_count());

		if (ret != 0) {
			fprintf(stderr, "pipeline: port %u: %s\n", ports[i],
				rte_strerror(-ret));
			goto out;
		}
		for (q = 0; q < opt.queues; q++) {
			struct stream *s = &streams[nb_streams++];

			s->rx_port = ports[i];
			s->tx_port = ports[i ^ 1];
			s->queue = q;
			s->macswap = opt.macswap;
		}
	}
	printf("pipeline: forwarding %u ports, %u streams, on %u lcores\n",
		nb_ports, nb_streams, rte_lcore_count());
	/* The workers poll the streams; the main lcore too when alone. */
	nb_pollers = RTE_MAX(rte_lcore_count() - 1, 1u);
	nb_workers = 0;
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_remote_launch(worker, (void *)(uintptr_t)nb_workers++,
				lcore);
	if (nb_workers == 0)
		worker((void *)(uintptr_t)0);
	else
		main_wait();
	rte_eal_mp_wait_lcore();
	rc = EXIT_SUCCESS;
out:
	RTE_ETH_FOREACH_DEV(p) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	print_stats();
	for (i = 0; i < nb_streams; i++) {
		fwd += streams[i].forwarded;
		drop += streams[i].dropped;
	}
	printf("pipeline: %" PRIu64 " forwarded, %" PRIu64 " dropped; mempool %u of %u free\n",
		fwd, drop, rte_mempool_avail_count(pool), pool->size);
	if (rte_mempool_avail_count(pool) != pool->size)
		rc = EXIT_FAILURE;
	if (opt.stats_file != NULL) {
		FILE *f = fopen(opt.stats_file, "w");

		if (f != NULL) {
			fprintf(f, "{\"forwarded\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"mempool_free\": %u, \"mempool_size\": %u, \"streams\": [",
				fwd, drop, rte_mempool_avail_count(pool),
				pool->size);
			for (i = 0; i < nb_streams; i++)
				fprintf(f, "%s{\"rx_port\": %u, \"tx_port\": %u, \"queue\": %u, \"forwarded\": %" PRIu64 ", \"dropped\": %" PRIu64 "}",
					i == 0 ? "" : ", ", streams[i].rx_port,
					streams[i].tx_port, streams[i].queue,
					streams[i].forwarded, streams[i].dropped);
			fprintf(f, "]}\n");
			fclose(f);
		}
	}
	rte_pdump_uninit();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
