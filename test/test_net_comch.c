/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch in one process: a DPU comch_shm device and a host one, and a
 * net_comch port on each end of one connection. Devargs, delivery per
 * queue (content, order, counts), back-pressure, multi-segment and jumbo
 * frames, the handshake's refusals, link state and LSC events across
 * peer restarts, stop/start, statistics, and no mbuf, fd or mapping left
 * behind. Deadlines are failure guards only.
 */

#include <poll.h>

#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_mbuf.h>

#include "comch_test.h"

static char link_dir[64];
static int16_t dpu, host;
static struct rte_mempool *mp_d, *mp_h, *mp_small;
static unsigned int srv_seq;

#define NB_MBUFS 4095

/* ------------------------------------------------------------ helpers */

static int
link_is(uint16_t port, int up)
{
	struct rte_eth_link l;

	if (rte_eth_link_get_nowait(port, &l) != 0)
		return 0;
	return l.link_status == (up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN);
}

static int
wait_link(uint16_t port, int up, double seconds)
{
	uint64_t dl = test_deadline(seconds);

	while (!link_is(port, up) && !test_expired(dl))
		rte_delay_us_sleep(1000);
	return link_is(port, up);
}

static unsigned int lsc_count[RTE_MAX_ETHPORTS];

static int
on_lsc(uint16_t port, enum rte_eth_event_type ev __rte_unused,
		void *arg __rte_unused, void *ret __rte_unused)
{
	__atomic_add_fetch(&lsc_count[port], 1, __ATOMIC_RELAXED);
	return 0;
}

struct port_opts {
	uint16_t nb_rxq, nb_txq;
	bool scatter;
	struct rte_mempool *mp;
	bool rx_intr;   /* intr_conf.rxq */
};

/* Create, configure and start a port; returns its id or -1. */
static int
port_open(const char *name, const char *args, const struct port_opts *o)
{
	struct rte_eth_conf conf = { .intr_conf.lsc = 1 };
	struct rte_eth_rxconf rxc = { 0 };
	uint16_t port, q;

	if (rte_vdev_init(name, args) < 0) {
		printf("  cannot create %s,%s\n", name, args);
		return -1;
	}
	if (rte_eth_dev_get_port_by_name(name, &port) != 0)
		return -1;
	if (o->scatter)
		conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.intr_conf.rxq = o->rx_intr;
	if (rte_eth_dev_configure(port, o->nb_rxq, o->nb_txq, &conf) != 0)
		return -1;
	rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC, on_lsc,
			NULL);
	for (q = 0; q < o->nb_rxq; q++)
		if (rte_eth_rx_queue_setup(port, q, 0, SOCKET_ID_ANY, &rxc,
				o->mp) != 0)
			return -1;
	for (q = 0; q < o->nb_txq; q++)
		if (rte_eth_tx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL) != 0)
			return -1;
	if (rte_eth_dev_start(port) != 0)
		return -1;
	return port;
}

static int
port_close(uint16_t port)
{
	char name[RTE_ETH_NAME_MAX_LEN];

	rte_eth_dev_get_name_by_port(port, name);
	rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_INTR_LSC, on_lsc,
			NULL);
	if (rte_eth_dev_stop(port) != 0 || rte_eth_dev_close(port) != 0)
		return -1;
	return rte_vdev_uninit(name);
}

/* A DPU port and a host port of one fresh server name; both up. */
static int
pair_open(int *d, int *h, const char *dpu_extra, const char *host_extra,
		const struct port_opts *od, const struct port_opts *oh)
{
	char args[256];

	srv_seq++;
	snprintf(args, sizeof(args), "comch=comch_shm_dpu,server=eth%u%s",
		srv_seq, dpu_extra);
	*d = port_open("net_comch_d", args, od);
	snprintf(args, sizeof(args), "comch=comch_shm_host,server=eth%u%s",
		srv_seq, host_extra);
	*h = port_open("net_comch_h", args, oh);
	CHECK(*d >= 0 && *h >= 0, "ports");
	return 0;
}

/* A packet of @p len bytes: byte k is (seq + k) & 0xff, seq in front. */
static struct rte_mbuf *
pkt_make(struct rte_mempool *mp, uint32_t seq, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;
	uint32_t k;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(seq + k);
	memcpy(p, &seq, sizeof(seq));
	return m;
}

/* The same, in segments of at most @p seg bytes. */
static struct rte_mbuf *
pkt_make_segs(struct rte_mempool *mp, uint32_t seq, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0, n, k;
	uint8_t *p;

	while (off < len) {
		n = RTE_MIN(seg, len - off);
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL)
			goto fail;
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (k = 0; k < n; k++)
			p[k] = (uint8_t)(seq + off + k);
		if (off == 0)
			memcpy(p, &seq, sizeof(seq));
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			goto fail;
		off += n;
	}
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

/* Does @p m carry packet @p seq of @p len bytes? */
static int
pkt_check(const struct rte_mbuf *m, uint32_t seq, uint32_t len)
{
	uint32_t k = 0, got;
	const struct rte_mbuf *s;

	CHECK_EQ(m->pkt_len, len);
	for (s = m; s != NULL; s = s->next) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);
		uint32_t j;

		for (j = 0; j < s->data_len; j++, k++) {
			uint8_t want = (uint8_t)(seq + k);

			if (k < sizeof(seq))
				want = ((const uint8_t *)&seq)[k];
			CHECK(p[j] == want, "byte %u of packet %u: %u != %u",
				k, seq, p[j], want);
		}
	}
	CHECK_EQ(k, len);
	memcpy(&got, rte_pktmbuf_mtod(m, const void *), sizeof(got));
	CHECK_EQ(got, seq);
	return 0;
}

/* Send packets seq0 .. seq0 + n - 1 on (port, q) as the port takes them;
 * returns how many it took before @p seconds (it may refuse for good
 * when the peer does not read). It tries once at least, however late
 * this thread got to run. */
static uint32_t
send_seq(uint16_t port, uint16_t q, uint32_t seq0, uint32_t n, uint32_t len,
		double seconds)
{
	uint64_t dl = test_deadline(seconds);
	uint32_t sent = 0;
	bool tried = false;

	while (sent < n && (!tried || !test_expired(dl))) {
		tried = true;
		struct rte_mbuf *m[32];
		uint16_t k, c = (uint16_t)RTE_MIN(32u, n - sent), t;

		for (k = 0; k < c; k++)
			m[k] = pkt_make(mp_h, seq0 + sent + k, len);
		t = rte_eth_tx_burst(port, q, m, c);
		rte_pktmbuf_free_bulk(&m[t], c - t);
		sent += t;
	}
	return sent;
}

/* Receive exactly @p n packets seq0 .. on (port, q), in order, each of
 * @p len bytes (0: any). */
static int
recv_seq(uint16_t port, uint16_t q, uint32_t seq0, uint32_t n, uint32_t len)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	uint32_t got = 0;

	while (got < n && !test_expired(dl)) {
		struct rte_mbuf *m[32];
		uint16_t k, r = rte_eth_rx_burst(port, q, m, 32);

		for (k = 0; k < r; k++) {
			uint32_t s;

			memcpy(&s, rte_pktmbuf_mtod(m[k], const void *), sizeof(s));
			CHECK_EQ(s, seq0 + got);
			if (len != 0 && pkt_check(m[k], seq0 + got, len) != 0) {
				rte_pktmbuf_free_bulk(m, r);
				return -1;
			}
			CHECK_EQ(m[k]->port, port);
			got++;
		}
		rte_pktmbuf_free_bulk(m, r);
	}
	CHECK_EQ(got, n);
	return 0;
}

/* Packets seq0 .. seq0 + n - 1 from (tx, q) to (rx, q), sending and
 * receiving by turns; each arrives once, in order, intact. */
static int
xfer(uint16_t tx, uint16_t rx, uint16_t q, uint32_t seq0, uint32_t n,
		uint32_t len)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	uint32_t sent = 0, got = 0;

	while (got < n && !test_expired(dl)) {
		struct rte_mbuf *m[32];
		uint16_t k, c, t, r;

		c = (uint16_t)RTE_MIN(32u, n - sent);
		for (k = 0; k < c; k++)
			m[k] = pkt_make(mp_h, seq0 + sent + k, len);
		t = rte_eth_tx_burst(tx, q, m, c);
		rte_pktmbuf_free_bulk(&m[t], c - t);
		sent += t;
		r = rte_eth_rx_burst(rx, q, m, 32);
		for (k = 0; k < r; k++) {
			int ret = pkt_check(m[k], seq0 + got, len);

			if (ret == 0 && m[k]->port != rx)
				ret = -1;
			if (ret != 0) {
				rte_pktmbuf_free_bulk(m, r);
				CHECK(0, "packet %u of %u", got, n);
			}
			got++;
		}
		rte_pktmbuf_free_bulk(m, r);
	}
	CHECK_EQ(got, n);
	return 0;
}

/* Nothing more arrives on (port, q) for a while. */
static int
recv_none(uint16_t port, uint16_t q)
{
	struct rte_mbuf *m[32];
	int i;
	uint16_t r;

	for (i = 0; i < 100; i++) {
		r = rte_eth_rx_burst(port, q, m, 32);
		rte_pktmbuf_free_bulk(m, r);
		CHECK_EQ(r, 0);
	}
	return 0;
}

/* Mappings of memfds (the comch rings and registered memory of both
 * ends): other mappings come and go with the allocator. */
static int
count_memfd_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "/memfd:") != NULL;
	fclose(f);
	return n;
}

/* @p count() once it is @p want, or what it is after a failure guard. */
static int
wait_count(int (*count)(void), int want)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int n;

	while ((n = count()) != want && !test_expired(dl))
		rte_delay_us_sleep(1000);
	return n;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

static int
pools_full(void)
{
	CHECK_EQ(rte_mempool_avail_count(mp_d), NB_MBUFS);
	CHECK_EQ(rte_mempool_avail_count(mp_h), NB_MBUFS);
	CHECK_EQ(rte_mempool_avail_count(mp_small), NB_MBUFS);
	return 0;
}

/* -------------------------------------------------------------- cases */

static int
case_devargs(void)
{
	static const struct {
		const char *args, *log;
	} bad[] = {
		{ "comch=comch_shm_dpu,server=x,colour=red",
		  "unknown devarg \"colour\"; accepted: comch, server, function, queues, buf_size, bufs, mac" },
		{ "comch=comch_shm_dpu,server=x,server=y", "devarg \"server\" given twice" },
		{ "comch=comch_shm_dpu,server", "devarg \"server\" without a value" },
		{ "server=x", "devarg \"comch\" is required" },
		{ "comch=comch_shm_dpu", "devarg \"server\" is required" },
		{ "comch=comch_shm9,server=x", "comch=comch_shm9: no such comch device" },
		{ "comch=comch_shm_dpu,server=x,queues=0", "queues=0: expected a decimal number in [1, 256]" },
		{ "comch=comch_shm_dpu,server=x,queues=02", "queues=02: expected a decimal number" },
		{ "comch=comch_shm_dpu,server=x,queues=257", "queues=257: expected a decimal number in [1, 256]" },
		{ "comch=comch_shm_dpu,server=x,queues=-1", "queues=-1: expected a decimal number" },
		{ "comch=comch_shm_dpu,server=x,buf_size=81", "buf_size=81: expected a decimal number in [82, 65535]" },
		{ "comch=comch_shm_dpu,server=x,buf_size=65536", "buf_size=65536: expected a decimal number in [82, 65535]" },
		{ "comch=comch_shm_dpu,server=x,bufs=0", "bufs=0: expected a decimal number in [1, 65535]" },
		{ "comch=comch_shm_dpu,server=x,bufs=9000", "bufs=9000: comch device comch_shm_dpu posts at most 8192 buffers per consumer" },
		{ "comch=comch_shm_dpu,server=x,mac=01:02:03:04:05:06", "mac=01:02:03:04:05:06: expected a unicast MAC address" },
		{ "comch=comch_shm_dpu,server=x,mac=02:02:03:04:05", "mac=02:02:03:04:05: expected a unicast MAC address" },
		{ "comch=comch_shm_dpu,server=x,mac=00:00:00:00:00:00", "expected a unicast MAC address XX:XX:XX:XX:XX:XX, not all zero" },
		{ "comch=comch_shm_dpu,server=x,function=pf1", "function=pf1: comch device comch_shm_dpu does not serve that host function" },
		{ "comch=comch_shm_host,server=x,function=pf0", "function=pf0: only for a DPU-side comch device" },
		{ "comch=comch_shm_dpu,server=0123456789012345678901234567890123456789012345678901234567890123",
		  "expected 1 to 63 characters" },
		{ "comch=comch_shm_dpu,server=a b", "server: expected printable characters without spaces" },
	};
	uint16_t nb = rte_eth_dev_count_avail();
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		test_log_reset();
		CHECK(rte_vdev_init("net_comch_bad", bad[i].args) < 0,
			"\"%s\" was accepted", bad[i].args);
		CHECK(test_log_has(bad[i].log), "\"%s\": log lacks \"%s\"",
			bad[i].args, bad[i].log);
	}
	CHECK_EQ(rte_eth_dev_count_avail(), nb);
	/* and the good ones */
	CHECK_OK(rte_vdev_init("net_comch_ok", "comch=comch_shm_dpu,server=ok,function=pf0,queues=256,buf_size=65535,bufs=8192,mac=02:00:00:00:00:09"));
	{
		struct rte_eth_dev_info info;
		struct rte_ether_addr mac;
		uint16_t p;

		CHECK_OK(rte_eth_dev_get_port_by_name("net_comch_ok", &p));
		CHECK_OK(rte_eth_dev_info_get(p, &info));
		CHECK_EQ(info.max_rx_queues, 256);
		CHECK_EQ(info.max_tx_queues, 256);
		CHECK_EQ(info.max_rx_pktlen, 65535);
		CHECK_EQ(info.max_mtu, 65535 - 14);
		CHECK_EQ(info.rx_desc_lim.nb_max, 8192);
		CHECK_EQ(info.default_rxportconf.ring_size, 8192);
		CHECK(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER, "scatter");
		CHECK(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "multi-seg");
		CHECK_OK(rte_eth_macaddr_get(p, &mac));
		CHECK_EQ(mac.addr_bytes[5], 9);
		/* a second port may not serve the same name there */
		test_log_reset();
		CHECK(rte_vdev_init("net_comch_dup", "comch=comch_shm_dpu,server=ok") < 0,
			"duplicate server accepted");
		CHECK(test_log_has("another port or application serves that name there"),
			"log on a duplicate name");
		CHECK_OK(rte_eth_dev_close(p));
		CHECK_OK(rte_vdev_uninit("net_comch_ok"));
	}
	return 0;
}

/* Two queue pairs: what tx queue i sends arrives at rx queue i only, in
 * order, byte for byte; both directions; statistics add up. */
static int
case_queues(void)
{
	struct port_opts o = { 2, 2, false, NULL };
	struct rte_eth_stats sd, sh;
	int d, h;
	uint16_t q;

	o.mp = mp_d;
	{
		struct port_opts oh = o;

		oh.mp = mp_h;
		CHECK_OK(pair_open(&d, &h, ",queues=2", ",queues=2", &o, &oh));
	}
	CHECK(wait_link(d, 1, TEST_GUARD_S) && wait_link(h, 1, TEST_GUARD_S), "link up");
	for (q = 0; q < 2; q++) {
		CHECK_OK(xfer(h, d, q, 1000 * q, 500, 60 + 100 * q));
		CHECK_OK(recv_none(d, q ^ 1));
		CHECK_OK(xfer(d, h, q, 7000 + q, 300, 1514));
	}
	CHECK_OK(rte_eth_stats_get(d, &sd));
	CHECK_OK(rte_eth_stats_get(h, &sh));
	CHECK_EQ(sd.ipackets, 1000);
	CHECK_EQ(sh.opackets, 1000);
	CHECK_EQ(sd.ibytes, 500 * 60 + 500 * 160);
	CHECK_EQ(sh.obytes, sd.ibytes);
	CHECK_EQ(sd.q_ipackets[1], 500);
	CHECK_EQ(sd.opackets, 600);
	CHECK_EQ(sh.ipackets, 600);
	CHECK_EQ(sh.ibytes, 600 * 1514);
	CHECK_EQ(xstat(d, "connections"), 1);
	CHECK_EQ(xstat(d, "rx_q1_packets"), 500);
	CHECK_EQ(xstat(h, "tx_q0_peer_no_buffer"), 0);
	CHECK_OK(rte_eth_stats_reset(d));
	CHECK_OK(rte_eth_stats_get(d, &sd));
	CHECK_EQ(sd.ipackets, 0);
	/* the no-op controls */
	CHECK_OK(rte_eth_promiscuous_enable(d));
	CHECK_OK(rte_eth_promiscuous_disable(d));
	CHECK_OK(rte_eth_allmulticast_enable(d));
	CHECK_OK(rte_eth_allmulticast_disable(d));
	CHECK(rte_eth_dev_set_mtu(d, 2048 - 14 + 1) < 0, "MTU above the buffer");
	CHECK_OK(rte_eth_dev_set_mtu(d, 2048 - 14));
	CHECK_OK(port_close(h));
	CHECK(wait_link(d, 0, TEST_GUARD_S), "DPU link down after the host closed");
	CHECK_OK(port_close(d));
	return pools_full();
}

/* The DPU does not read: the host's queue takes exactly what the DPU's
 * posted buffers hold (64 buffers of 16 small frames: the host sends in
 * bursts of 32), then refuses (counted) and keeps its mbufs; once the
 * DPU reads, all of them arrive. */
static int
case_backpressure(void)
{
	struct port_opts od = { 1, 1, false, mp_d }, oh = { 1, 1, false, mp_h };
	int d, h;
	uint32_t took;

	CHECK_OK(pair_open(&d, &h, ",bufs=64", "", &od, &oh));
	CHECK(wait_link(h, 1, TEST_GUARD_S), "link up");
	/* the DPU's 64 buffers take 16 frames each (failure guard), then
	 * nothing more goes (a short window: the DPU never reads) */
	took = send_seq(h, 0, 0, 64 * 16, 64, TEST_GUARD_S);
	CHECK_EQ(took, 64 * 16);
	CHECK_EQ(send_seq(h, 0, 64 * 16, 1, 64, 0.2), 0);
	CHECK(xstat(h, "tx_q0_peer_no_buffer") > 0, "back-pressure counted");
	CHECK_EQ(rte_mempool_avail_count(mp_h), NB_MBUFS);
	CHECK_OK(recv_seq(d, 0, 0, 64 * 16, 64));
	CHECK_EQ(send_seq(h, 0, 2000, 64, 64, TEST_GUARD_S), 64);
	CHECK_OK(recv_seq(d, 0, 2000, 64, 64));
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));
	return pools_full();
}

/* Bursts that ask for fewer frames than a message holds: the rest waits
 * in the port for the next call, in order; what is left when the port
 * stops is counted as flushed, and no mbuf is kept. */
static int
case_small_bursts(void)
{
	struct port_opts od = { 1, 1, false, mp_d }, oh = { 1, 1, false, mp_h };
	uint64_t dl;
	uint32_t got = 0;
	int d, h;

	CHECK_OK(pair_open(&d, &h, "", "", &od, &oh));
	CHECK(wait_link(h, 1, TEST_GUARD_S), "link up");
	CHECK_EQ(send_seq(h, 0, 0, 64, 100, TEST_GUARD_S), 64); /* 4 messages of 16 */
	dl = test_deadline(TEST_GUARD_S);
	while (got < 64 && !test_expired(dl)) {
		struct rte_mbuf *m[3];
		uint16_t k, r = rte_eth_rx_burst(d, 0, m, 1 + got % 3);

		for (k = 0; k < r; k++, got++) {
			int ret = pkt_check(m[k], got, 100);

			rte_pktmbuf_free(m[k]);
			CHECK_OK(ret);
		}
	}
	CHECK_EQ(got, 64);
	/* 16 more, 5 taken: 11 left in the port when it stops */
	CHECK_EQ(send_seq(h, 0, 64, 16, 100, TEST_GUARD_S), 16);
	dl = test_deadline(TEST_GUARD_S);
	for (got = 0; got < 5 && !test_expired(dl);) {
		struct rte_mbuf *m[5];
		uint16_t k, r = rte_eth_rx_burst(d, 0, m, (uint16_t)(5 - got));

		for (k = 0; k < r; k++, got++) {
			int ret = pkt_check(m[k], 64 + got, 100);

			rte_pktmbuf_free(m[k]);
			CHECK_OK(ret);
		}
	}
	CHECK_EQ(got, 5);
	CHECK_OK(rte_eth_dev_stop(d));
	CHECK_EQ(xstat(d, "rx_q0_flushed"), 11);
	CHECK_OK(rte_eth_dev_start(d));
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));
	return pools_full();
}

/* Jumbo frames in segments: gathered on tx, one posted buffer on the
 * wire, a chain of small mbufs on rx (scatter); without scatter such a
 * frame is dropped and counted; longer than the buffers: dropped at tx
 * and counted. */
static int
case_jumbo(void)
{
	struct port_opts od = { 1, 1, true, mp_small }, oh = { 1, 1, false, mp_h };
	struct rte_mbuf *m[4];
	int d, h, i;
	uint16_t t;

	CHECK_OK(pair_open(&d, &h, ",buf_size=9216", ",buf_size=9216", &od, &oh));
	CHECK(wait_link(h, 1, TEST_GUARD_S), "link up");
	CHECK_OK(rte_eth_dev_set_mtu(h, 9000));
	for (i = 0; i < 4; i++) {
		m[i] = pkt_make_segs(mp_h, (uint32_t)i, 9000 + (uint32_t)i,
			i == 0 ? 9216 : 1000 + 700 * (uint32_t)i);
		CHECK(m[i] != NULL, "packet");
	}
	CHECK(m[1]->nb_segs > 1, "multi-segment");
	t = rte_eth_tx_burst(h, 0, m, 4);
	if (t != 4)
		printf("  not ready %" PRIu64 " no buffer %" PRIu64 " oversize %" PRIu64 "\n",
			xstat(h, "tx_q0_peer_not_ready"), xstat(h, "tx_q0_peer_no_buffer"),
			xstat(h, "tx_q0_oversize"));
	CHECK_EQ(t, 4);
	for (i = 0; i < 4; i++) {
		uint64_t dl = test_deadline(TEST_GUARD_S);
		struct rte_mbuf *r = NULL;

		while (rte_eth_rx_burst(d, 0, &r, 1) == 0 && !test_expired(dl))
			;
		CHECK(r != NULL, "packet %d", i);
		CHECK(r->nb_segs > 1, "a chain of small mbufs");
		CHECK_OK(pkt_check(r, (uint32_t)i, 9000 + (uint32_t)i));
		rte_pktmbuf_free(r);
	}
	CHECK(xstat(h, "tx_q0_gathered") >= 3, "gathered counted");
	/* beyond the buffers */
	m[0] = pkt_make_segs(mp_h, 9, 9217, 2000);
	CHECK_EQ(rte_eth_tx_burst(h, 0, m, 1), 1);
	CHECK_EQ(xstat(h, "tx_q0_oversize"), 1);
	CHECK_OK(recv_none(d, 0));
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));

	/* the same without scatter on the DPU */
	od.scatter = false;
	CHECK_OK(pair_open(&d, &h, ",buf_size=9216", ",buf_size=9216", &od, &oh));
	CHECK(wait_link(h, 1, TEST_GUARD_S), "link up");
	m[0] = pkt_make_segs(mp_h, 1, 5000, 2000);
	m[1] = pkt_make(mp_h, 2, 1000);
	CHECK_EQ(rte_eth_tx_burst(h, 0, m, 2), 2);
	CHECK_OK(recv_seq(d, 0, 2, 1, 1000));
	CHECK_EQ(xstat(d, "rx_q0_too_long"), 1);
	{
		struct rte_eth_stats s;

		CHECK_OK(rte_eth_stats_get(d, &s));
		CHECK_EQ(s.ierrors, 1);
	}
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));
	return pools_full();
}

/* The two ends disagree: a clear error on both, the link stays down. */
static int
case_mismatch(void)
{
	static const struct {
		const char *d, *h, *log;
		uint16_t hrx, htx;
	} c[] = {
		{ ",queues=2", ",queues=1",
		  "the peer's port has queues=1, this one queues=2; give both ends the same queues devarg", 1, 1 },
		{ ",buf_size=4096", "",
		  "the peer's port has buf_size=2048, this one buf_size=4096", 1, 1 },
		{ ",queues=2", ",queues=2",
		  "this port has 2 tx queues, the peer's port 1 rx queues", 1, 2 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		struct port_opts od = { 2, 2, false, mp_d };
		struct port_opts oh = { c[i].hrx, c[i].htx, false, mp_h };
		int d, h;

		if (strstr(c[i].d, "queues=2") == NULL)
			od.nb_rxq = od.nb_txq = 1;
		test_log_reset();
		CHECK_OK(pair_open(&d, &h, c[i].d, c[i].h, &od, &oh));
		CHECK(test_log_wait(c[i].log, TEST_GUARD_S), "log lacks \"%s\"", c[i].log);
		CHECK(test_log_wait("the two ends disagree", TEST_GUARD_S), "disagree logged");
		CHECK(link_is(d, 0) && link_is(h, 0), "link down");
		CHECK(xstat(h, "handshakes_refused") + xstat(d, "handshakes_refused") >= 1,
			"refusal counted");
		CHECK_OK(port_close(h));
		CHECK_OK(port_close(d));
	}
	return pools_full();
}

/* The DPU port restarts again and again: the host's link goes down and
 * up with an LSC event each way, traffic resumes, nothing is left
 * behind. Then the host restarts. */
static int
case_restart(void)
{
	struct port_opts od = { 1, 1, false, mp_d }, oh = { 1, 1, false, mp_h };
	int d, h, i, fds0 = -1, maps0 = -1;
	unsigned int lsc0;
	uint32_t seq = 0;

	CHECK_OK(pair_open(&d, &h, "", "", &od, &oh));
	CHECK(wait_link(h, 1, TEST_GUARD_S) && wait_link(d, 1, TEST_GUARD_S), "link up");
	for (i = 0; i < 20; i++) {
		uint16_t side = (uint16_t)(i % 2 == 0 ? d : h);

		lsc0 = __atomic_load_n(&lsc_count[h], __ATOMIC_RELAXED);
		CHECK_OK(xfer(h, d, 0, seq, 100, 128));
		seq += 100;
		/* some left in flight: dropped with the connection */
		CHECK_EQ(send_seq(h, 0, 1u << 30, 10, 128, TEST_GUARD_S), 10);
		CHECK_OK(rte_eth_dev_stop(side));
		CHECK(wait_link(side == d ? h : d, 0, TEST_GUARD_S), "link down at the peer");
		CHECK_OK(rte_eth_dev_start(side));
		CHECK(wait_link(h, 1, TEST_GUARD_S) && wait_link(d, 1, TEST_GUARD_S), "link up again");
		if (side == d) {
			/* the callbacks run in the interrupt thread, after
			 * the status they report is visible: waited for */
			uint64_t dl = test_deadline(TEST_GUARD_S);

			while (__atomic_load_n(&lsc_count[h], __ATOMIC_RELAXED) <
			       lsc0 + 2 && !test_expired(dl))
				rte_delay_us_sleep(1000);
			CHECK(__atomic_load_n(&lsc_count[h], __ATOMIC_RELAXED) >= lsc0 + 2,
				"LSC down and up on the host");
		}
		if (i == 1) {
			fds0 = test_count_fds();
			maps0 = count_memfd_maps();
		}
	}
	CHECK_OK(xfer(h, d, 0, seq, 100, 128));
	CHECK(xstat(h, "connections") >= 20, "connections counted");
	/* The mappings of the peer's withdrawn consumers go within about a
	 * millisecond of the last send through them (comch_shm): wait. */
	CHECK_EQ(wait_count(test_count_fds, fds0), fds0);
	CHECK_EQ(wait_count(count_memfd_maps, maps0), maps0);
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));
	return pools_full();
}

/* As many queues as the DPU lets a host have consumers (its
 * max_consumers, 16 by default): each pair on its own. */
static int
case_many_queues(void)
{
	struct port_opts od = { 16, 16, false, mp_d }, oh = { 16, 16, false, mp_h };
	int d, h;
	uint16_t q;

	CHECK_OK(pair_open(&d, &h, ",queues=16,bufs=32", ",queues=16,bufs=32",
		&od, &oh));
	CHECK(wait_link(h, 1, TEST_GUARD_S) && wait_link(d, 1, TEST_GUARD_S), "link up");
	for (q = 0; q < 16; q++)
		CHECK_EQ(send_seq(h, q, 100u * q, 20, 64, TEST_GUARD_S), 20);
	for (q = 0; q < 16; q++)
		CHECK_OK(recv_seq(d, q, 100u * q, 20, 64));
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));
	/* one more than the DPU allows: a clear error, the link stays down */
	od.nb_rxq = od.nb_txq = oh.nb_rxq = oh.nb_txq = 17;
	test_log_reset();
	CHECK_OK(pair_open(&d, &h, ",queues=17,bufs=32", ",queues=17,bufs=32",
		&od, &oh));
	CHECK(test_log_wait("the comch device refused another consumer (ENOSPC)", TEST_GUARD_S),
		"ENOSPC logged");
	CHECK(link_is(d, 0), "DPU link down: its tx queue 16 has no consumer");
	CHECK_OK(port_close(h));
	CHECK_OK(port_close(d));
	return pools_full();
}

/* Whether @p fd is readable now (no waiting). */
static int
fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Rx interrupts: an lcore sleeps in rte_epoll_wait() on each rx queue's
 * fd of the port's interrupt handle and wakes when a packet comes to that
 * queue, not another; enabling while packets wait wakes it at once; the
 * fd stays quiet while nothing comes. */
static int
case_rx_interrupts(void)
{
	struct port_opts od = { 2, 2, false, NULL, true };
	struct port_opts oh = { 2, 2, false, NULL, false };
	struct rte_epoll_event ev[4];
	struct rte_mbuf *m[32];
	int d, h, fd[2], n, r;
	uint16_t q;

	od.mp = mp_d;
	oh.mp = mp_h;
	CHECK_OK(pair_open(&d, &h, ",queues=2", ",queues=2", &od, &oh));
	CHECK(wait_link(d, 1, TEST_GUARD_S) && wait_link(h, 1, TEST_GUARD_S), "link up");
	/* the host port has none: its queues are polled */
	CHECK(rte_eth_dev_rx_intr_enable(h, 0) < 0, "host port rx interrupt");
	for (q = 0; q < 2; q++) {
		CHECK_OK(rte_eth_dev_rx_intr_ctl_q(d, q, RTE_EPOLL_PER_THREAD,
			RTE_INTR_EVENT_ADD, (void *)(uintptr_t)(q + 1)));
		fd[q] = rte_eth_dev_rx_intr_ctl_q_get_fd(d, q);
		CHECK(fd[q] >= 0, "queue %u fd", q);
	}
	for (int round = 0; round < 20; round++) {
		q = (uint16_t)(round & 1);
		CHECK_OK(rte_eth_dev_rx_intr_enable(d, 0));
		CHECK_OK(rte_eth_dev_rx_intr_enable(d, 1));
		/* nothing sent: nothing to wake for */
		CHECK(!fd_readable(fd[0]) && !fd_readable(fd[1]),
			"round %d: an fd readable with nothing sent", round);
		CHECK_EQ(send_seq(h, q, (uint32_t)round, 1, 100, TEST_GUARD_S), 1);
		/* failure guard TEST_GUARD_S: the packet wakes the sleeper */
		n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 4, TEST_GUARD_S * 1000);
		CHECK_EQ(n, 1);
		CHECK(ev[0].epdata.data == (void *)(uintptr_t)(q + 1),
			"round %d: woken for the other queue", round);
		CHECK(!fd_readable(fd[q ^ 1]), "round %d: the other fd", round);
		CHECK_OK(rte_eth_dev_rx_intr_disable(d, 0));
		CHECK_OK(rte_eth_dev_rx_intr_disable(d, 1));
		CHECK_OK(recv_seq(d, q, (uint32_t)round, 1, 100));
	}
	/* packets that came while nobody slept: each enable wakes the lcore
	 * (at once, or when the rest arrive) until it has them all */
	CHECK_EQ(send_seq(h, 0, 500, 3, 64, TEST_GUARD_S), 3);
	for (r = 0; r < 3; ) {
		CHECK_OK(rte_eth_dev_rx_intr_enable(d, 0));
		/* failure guard TEST_GUARD_S */
		CHECK_EQ(rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 4, TEST_GUARD_S * 1000), 1);
		CHECK_OK(rte_eth_dev_rx_intr_disable(d, 0));
		n = rte_eth_rx_burst(d, 0, m, 32);
		rte_pktmbuf_free_bulk(m, (unsigned int)n);
		r += n;
	}
	CHECK_EQ(r, 3);
	for (q = 0; q < 2; q++)
		CHECK_OK(rte_eth_dev_rx_intr_ctl_q(d, q, RTE_EPOLL_PER_THREAD,
			RTE_INTR_EVENT_DEL, NULL));
	return 0;
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "devargs", case_devargs },
		{ "queues", case_queues },
		{ "backpressure", case_backpressure },
		{ "small_bursts", case_small_bursts },
		{ "jumbo", case_jumbo },
		{ "mismatch", case_mismatch },
		{ "restart", case_restart },
		{ "many_queues", case_many_queues },
		{ "rx_interrupts", case_rx_interrupts },
	};
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "netcomch", "0", NULL) < 0 ||
	    test_link_pair(link_dir, sizeof(link_dir), &dpu, &host) < 0)
		return 1;
	mp_d = rte_pktmbuf_pool_create("mp_d", NB_MBUFS, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	mp_h = rte_pktmbuf_pool_create("mp_h", NB_MBUFS, 0, 0,
			9216 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	mp_small = rte_pktmbuf_pool_create("mp_small", NB_MBUFS, 0, 0,
			1024 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	if (mp_d == NULL || mp_h == NULL || mp_small == NULL) {
		printf("cannot create mempools\n");
		return 1;
	}
	ret = 0;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		uint16_t p;

		ret |= test_run_cases("net_comch", &cases[i], 1);
		/* a failed case leaves its ports: not the next case's problem */
		RTE_ETH_FOREACH_DEV(p)
			port_close(p);
	}
	rte_vdev_uninit("comch_shm_host");
	rte_vdev_uninit("comch_shm_dpu");
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
