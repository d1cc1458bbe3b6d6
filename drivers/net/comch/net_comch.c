/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch: one end of one comch connection as an ethdev port.
 *
 *   DPU:  --vdev=net_comch0,comch=comch_shm0,server=NAME[,function=pf0vf1]
 *   host: --vdev=net_comch1,comch=comch_shm1,server=NAME
 *         [,queues=N][,buf_size=B][,bufs=N][,mac=XX:XX:XX:XX:XX:XX]
 *
 * Probe, devargs and the ethdev ops; the connection and the queue objects
 * are net_comch_ctrl.c's, the bursts net_comch_rxtx.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "net_comch_priv.h"

#define NCM_ARG_COMCH    "comch"
#define NCM_ARG_SERVER   "server"
#define NCM_ARG_FUNCTION "function"
#define NCM_ARG_QUEUES   "queues"
#define NCM_ARG_BUF_SIZE "buf_size"
#define NCM_ARG_BUFS     "bufs"
#define NCM_ARG_MAC      "mac"

static const char * const ncm_valid_args[] = {
	NCM_ARG_COMCH, NCM_ARG_SERVER, NCM_ARG_FUNCTION, NCM_ARG_QUEUES,
	NCM_ARG_BUF_SIZE, NCM_ARG_BUFS, NCM_ARG_MAC, NULL
};
#define NCM_VALID_ARGS_TEXT "comch, server, function, queues, buf_size, bufs, mac"

#define NCM_DEFAULT_QUEUES   1
#define NCM_DEFAULT_BUF_SIZE 2048
#define NCM_DEFAULT_BUFS     256
/* The smallest MTU ethdev accepts, plus the Ethernet header. */
#define NCM_MIN_BUF_SIZE     (RTE_ETHER_MIN_MTU + RTE_ETHER_HDR_LEN)
#define NCM_MAX_BUF_SIZE     65535

/* ------------------------------------------------------------ devargs */

/* A decimal in [min, max], canonical (no sign, no leading zero), nothing
 * else. */
static int
ncm_parse_u32(const char *name, const char *key, const char *value,
		uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	const char *s;

	for (s = value; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			break;
	}
	if (s == value || *s != '\0' || (value[0] == '0' && value[1] != '\0') ||
	    v < min || v > max) {
		NCM_LOG(ERR, "%s: %s=%s: expected a decimal number in [%u, %u]",
			name, key, value, min, max);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A printable name of at most @p size - 1 characters. */
static int
ncm_parse_name(const char *name, const char *key, const char *value,
		char *out, size_t size)
{
	const char *s;

	if (value[0] == '\0' || strlen(value) >= size) {
		NCM_LOG(ERR, "%s: %s=%s: expected 1 to %zu characters",
			name, key, value, size - 1);
		return -EINVAL;
	}
	for (s = value; *s != '\0'; s++) {
		if (*s <= ' ' || *s > '~') {
			NCM_LOG(ERR, "%s: %s: expected printable characters without spaces",
				name, key);
			return -EINVAL;
		}
	}
	rte_strscpy(out, value, size);
	return 0;
}

static int
ncm_parse_mac(const char *name, const char *value, struct rte_ether_addr *mac)
{
	if (strlen(value) != 17 || rte_ether_unformat_addr(value, mac) < 0 ||
	    !rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		NCM_LOG(ERR, "%s: %s=%s: expected a unicast MAC address XX:XX:XX:XX:XX:XX, not all zero",
			name, NCM_ARG_MAC, value);
		return -EINVAL;
	}
	return 0;
}

/* One key: its parser. @p max_queues, @p max_posts: the comch device's
 * limits. */
static int
ncm_parse_one(const char *name, struct ncm_conf *c, const char *key,
		const char *value)
{
	uint32_t v;
	int ret;

	if (strcmp(key, NCM_ARG_COMCH) == 0)
		return ncm_parse_name(name, key, value, c->comch,
				sizeof(c->comch));
	if (strcmp(key, NCM_ARG_SERVER) == 0)
		return ncm_parse_name(name, key, value, c->server,
				sizeof(c->server));
	if (strcmp(key, NCM_ARG_FUNCTION) == 0)
		return ncm_parse_name(name, key, value, c->function,
				sizeof(c->function));
	if (strcmp(key, NCM_ARG_QUEUES) == 0) {
		ret = ncm_parse_u32(name, key, value, 1, NCM_MAX_QUEUES, &v);
		c->nb_queues = (uint16_t)v;
		return ret;
	}
	if (strcmp(key, NCM_ARG_BUF_SIZE) == 0)
		return ncm_parse_u32(name, key, value, NCM_MIN_BUF_SIZE,
				NCM_MAX_BUF_SIZE, &c->buf_size);
	if (strcmp(key, NCM_ARG_BUFS) == 0)
		return ncm_parse_u32(name, key, value, 1, UINT16_MAX,
				&c->nb_bufs);
	/* NCM_ARG_MAC */
	c->mac_given = true;
	return ncm_parse_mac(name, value, &c->mac);
}

static int
ncm_parse_devargs(const char *name, const char *args, struct ncm_conf *c)
{
	struct rte_kvargs *kv;
	unsigned int i, j, k;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->nb_queues = NCM_DEFAULT_QUEUES;
	c->buf_size = NCM_DEFAULT_BUF_SIZE;
	c->nb_bufs = NCM_DEFAULT_BUFS;
	kv = rte_kvargs_parse(args != NULL ? args : "", NULL);
	if (kv == NULL) {
		NCM_LOG(ERR, "%s: cannot parse devargs \"%s\"; expected key=value pairs separated by ','",
			name, args);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		const char *key = kv->pairs[i].key;
		const char *value = kv->pairs[i].value;

		for (j = 0; ncm_valid_args[j] != NULL; j++)
			if (strcmp(key, ncm_valid_args[j]) == 0)
				break;
		if (ncm_valid_args[j] == NULL) {
			NCM_LOG(ERR, "%s: unknown devarg \"%s\"; accepted: " NCM_VALID_ARGS_TEXT,
				name, key);
			ret = -EINVAL;
			break;
		}
		for (k = 0; k < i; k++) {
			if (strcmp(kv->pairs[k].key, key) == 0) {
				NCM_LOG(ERR, "%s: devarg \"%s\" given twice",
					name, key);
				ret = -EINVAL;
				break;
			}
		}
		if (ret != 0)
			break;
		if (value == NULL) {
			NCM_LOG(ERR, "%s: devarg \"%s\" without a value (%s=...)",
				name, key, key);
			ret = -EINVAL;
			break;
		}
		ret = ncm_parse_one(name, c, key, value);
	}
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	if (c->comch[0] == '\0') {
		NCM_LOG(ERR, "%s: devarg \"%s\" is required: the comch device (e.g. %s=comch_shm0)",
			name, NCM_ARG_COMCH, NCM_ARG_COMCH);
		return -EINVAL;
	}
	if (c->server[0] == '\0') {
		NCM_LOG(ERR, "%s: devarg \"%s\" is required: the server's name (both ends give the same)",
			name, NCM_ARG_SERVER);
		return -EINVAL;
	}
	return 0;
}

/* The devargs against the comch device they name. */
static int
ncm_check_comch(const char *name, struct ncm_port *port, int16_t *comch_id)
{
	struct ncm_conf *c = &port->conf;
	struct rte_comch_dev_info info;
	uint32_t maxq;
	int id;

	id = rte_comch_get_dev_id_by_name(c->comch);
	if (id < 0) {
		NCM_LOG(ERR, "%s: %s=%s: no such comch device; give its --vdev (e.g. --vdev=comch_shm0,role=dpu) before this one",
			name, NCM_ARG_COMCH, c->comch);
		return -ENODEV;
	}
	rte_comch_info_get((int16_t)id, &info);
	*comch_id = (int16_t)id;
	port->role = (uint8_t)info.role;
	if (!(info.caps.flags & RTE_COMCH_CAPA_PRODUCER) ||
	    !(info.caps.flags & RTE_COMCH_CAPA_CONSUMER)) {
		NCM_LOG(ERR, "%s: comch device %s has no producers and consumers",
			name, c->comch);
		return -ENOTSUP;
	}
	if (strlen(c->server) + 1 > info.caps.max_name_len) {
		NCM_LOG(ERR, "%s: %s=%s: longer than %u characters, the limit of %s",
			name, NCM_ARG_SERVER, c->server,
			info.caps.max_name_len - 1, c->comch);
		return -EINVAL;
	}
	if (info.role == RTE_COMCH_ROLE_DPU) {
		if (c->function[0] == '\0')
			rte_comch_function_name((int16_t)id, 0, c->function,
				sizeof(c->function));
		if (rte_comch_function_get_by_name((int16_t)id, c->function,
				&port->function_id) < 0) {
			NCM_LOG(ERR, "%s: %s=%s: comch device %s does not serve that host function (see its functions= devarg)",
				name, NCM_ARG_FUNCTION, c->function, c->comch);
			return -EINVAL;
		}
	} else if (c->function[0] != '\0') {
		NCM_LOG(ERR, "%s: %s=%s: only for a DPU-side comch device; %s is a host device (its function is its own function= devarg)",
			name, NCM_ARG_FUNCTION, c->function, c->comch);
		return -EINVAL;
	}
	maxq = RTE_MIN(info.caps.max_consumers, info.caps.max_producers);
	maxq = RTE_MIN(maxq, (uint32_t)NCM_MAX_QUEUES);
	if (c->nb_queues > maxq) {
		NCM_LOG(ERR, "%s: %s=%u: comch device %s has at most %u producers and consumers per connection",
			name, NCM_ARG_QUEUES, c->nb_queues, c->comch, maxq);
		return -EINVAL;
	}
	if (c->buf_size > info.caps.max_buf_size) {
		NCM_LOG(ERR, "%s: %s=%u: comch device %s takes buffers up to %" PRIu64 " bytes",
			name, NCM_ARG_BUF_SIZE, c->buf_size, c->comch,
			info.caps.max_buf_size);
		return -EINVAL;
	}
	if (c->nb_bufs > info.caps.max_posts) {
		NCM_LOG(ERR, "%s: %s=%u: comch device %s posts at most %u buffers per consumer",
			name, NCM_ARG_BUFS, c->nb_bufs, c->comch,
			info.caps.max_posts);
		return -EINVAL;
	}
	port->max_queues = maxq;
	port->max_posts = info.caps.max_posts;
	return 0;
}

/* ------------------------------------------------------------ dev ops */

static int
ncm_dev_configure(struct rte_eth_dev *dev)
{
	struct ncm_proc *pp = dev->process_private;
	struct rte_comch_dev_info info;

	/* Rx interrupts need the comch device's event mode. */
	if (dev->data->dev_conf.intr_conf.rxq &&
	    (rte_comch_info_get(pp->comch_id, &info) != 0 ||
	     !(info.caps.flags & RTE_COMCH_CAPA_EVENT))) {
		NCM_LOG(ERR, "%s: no rx interrupts (intr_conf.rxq): the comch device has no event mode; poll the queues",
			dev->data->name);
		return -ENOTSUP;
	}
	return 0;
}

static int
ncm_dev_start(struct rte_eth_dev *dev)
{
	uint16_t i;
	int ret;

	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i] == NULL)
			return -EINVAL;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		if (dev->data->tx_queues[i] == NULL)
			return -EINVAL;
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	ret = ncm_intr_setup(dev->process_private);
	if (ret < 0) {
		NCM_LOG(ERR, "%s: cannot set up rx interrupts: %s",
			dev->data->name, rte_strerror(-ret));
		return ret;
	}
	return ncm_ctrl_start(dev->process_private);
}

static int
ncm_dev_stop(struct rte_eth_dev *dev)
{
	uint16_t i;

	ncm_ctrl_stop(dev->process_private);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

static int
ncm_dev_close(struct rte_eth_dev *dev)
{
	struct ncm_proc *pp = dev->process_private;
	uint16_t i;

	if (pp != NULL) {
		ncm_ctrl_fini(pp);
		ncm_intr_teardown(pp);
		free(pp);
		dev->process_private = NULL;
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rte_free(dev->data->rx_queues[i]);
		dev->data->rx_queues[i] = NULL;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		rte_free(dev->data->tx_queues[i]);
		dev->data->tx_queues[i] = NULL;
	}
	return 0;
}

static int
ncm_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct ncm_port *port = dev->data->dev_private;

	info->if_index = 0;
	info->max_mac_addrs = 1;
	info->max_rx_queues = port->conf.nb_queues;
	info->max_tx_queues = port->conf.nb_queues;
	/* A frame is one posted buffer of the peer's; no CRC. */
	info->max_rx_pktlen = port->conf.buf_size;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_mtu = (uint16_t)(port->conf.buf_size - RTE_ETHER_HDR_LEN);
	info->min_rx_bufsize = 0;
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* Rx descriptors are posted buffers; tx has none (it writes into the
	 * peer's). */
	info->rx_desc_lim.nb_max = (uint16_t)RTE_MIN(port->max_posts,
			(uint32_t)UINT16_MAX);
	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->default_rxportconf.ring_size = (uint16_t)port->conf.nb_bufs;
	info->default_rxportconf.burst_size = NCM_BURST;
	info->default_txportconf.burst_size = NCM_BURST;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->speed_capa = RTE_ETH_LINK_SPEED_FIXED;
	info->dev_capa = 0;
	return 0;
}

static int
ncm_noop(struct rte_eth_dev *dev __rte_unused)
{
	return 0;
}

static int
ncm_link_update(struct rte_eth_dev *dev __rte_unused,
		int wait_to_complete __rte_unused)
{
	/* dev->data->dev_link is kept by the primary's alarm. */
	return 0;
}

static int
ncm_mtu_set(struct rte_eth_dev *dev __rte_unused, uint16_t mtu __rte_unused)
{
	/* ethdev checked it against [min_mtu, max_mtu]: a frame of that MTU
	 * fits the peer's buffers (buf_size is the same on both ends). */
	return 0;
}

static int
ncm_mac_addr_set(struct rte_eth_dev *dev __rte_unused,
		struct rte_ether_addr *addr __rte_unused)
{
	return 0;
}

static int
ncm_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		unsigned int socket_id, const struct rte_eth_rxconf *conf,
		struct rte_mempool *mp)
{
	struct ncm_port *port = dev->data->dev_private;
	struct ncm_rxq *q;
	uint32_t room;

	room = rte_pktmbuf_data_room_size(mp);
	if (room <= RTE_PKTMBUF_HEADROOM) {
		NCM_LOG(ERR, "%s: rx queue %u: mempool %s has no data room beyond the headroom",
			dev->data->name, qid, mp->name);
		return -EINVAL;
	}
	q = rte_zmalloc_socket("net_comch_rxq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			(int)socket_id);
	if (q == NULL)
		return -ENOMEM;
	q->port_id = dev->data->port_id;
	q->qid = qid;
	q->mp = mp;
	q->room = room - RTE_PKTMBUF_HEADROOM;
	q->nb_bufs = nb_desc != 0 ? nb_desc : port->conf.nb_bufs;
	q->scatter = ((conf->offloads | dev->data->dev_conf.rxmode.offloads) &
			RTE_ETH_RX_OFFLOAD_SCATTER) != 0;
	q->socket_id = (int)socket_id;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
ncm_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		uint16_t nb_desc __rte_unused, unsigned int socket_id,
		const struct rte_eth_txconf *conf __rte_unused)
{
	struct ncm_txq *q;

	q = rte_zmalloc_socket("net_comch_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			(int)socket_id);
	if (q == NULL)
		return -ENOMEM;
	q->port_id = dev->data->port_id;
	q->qid = qid;
	q->socket_id = (int)socket_id;
	dev->data->tx_queues[qid] = q;
	return 0;
}

static void
ncm_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	rte_free(dev->data->rx_queues[qid]);
	dev->data->rx_queues[qid] = NULL;
}

static void
ncm_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	rte_free(dev->data->tx_queues[qid]);
	dev->data->tx_queues[qid] = NULL;
}

static void
ncm_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		struct rte_eth_rxq_info *qinfo)
{
	const struct ncm_rxq *q = dev->data->rx_queues[qid];

	qinfo->mp = q->mp;
	qinfo->scattered_rx = q->scatter;
	qinfo->nb_desc = (uint16_t)q->nb_bufs;
	qinfo->rx_buf_size = (uint16_t)RTE_MIN(q->room, (uint32_t)UINT16_MAX);
	qinfo->conf.offloads = q->scatter ? RTE_ETH_RX_OFFLOAD_SCATTER : 0;
}

static void
ncm_txq_info_get(struct rte_eth_dev *dev __rte_unused,
		uint16_t qid __rte_unused, struct rte_eth_txq_info *qinfo)
{
	qinfo->nb_desc = 0; /* none: tx writes into the peer's buffers */
}

/* --------------------------------------------------------------- stats */

/* Counters are written by the lcore polling the queue; a reset keeps the
 * values of the moment as a base, so that it never races with it. */
#define NCM_DIFF(q, f) ((q)->st.f - (q)->base.f)

static int
ncm_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *s)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct ncm_rxq *q = dev->data->rx_queues[i];

		if (q == NULL)
			continue;
		s->ipackets += NCM_DIFF(q, pkts);
		s->ibytes += NCM_DIFF(q, bytes);
		s->ierrors += NCM_DIFF(q, too_long);
		s->imissed += NCM_DIFF(q, flushed);
		s->rx_nombuf += NCM_DIFF(q, no_mbuf);
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			s->q_ipackets[i] = NCM_DIFF(q, pkts);
			s->q_ibytes[i] = NCM_DIFF(q, bytes);
			s->q_errors[i] = NCM_DIFF(q, too_long);
		}
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		const struct ncm_txq *q = dev->data->tx_queues[i];

		if (q == NULL)
			continue;
		s->opackets += NCM_DIFF(q, pkts);
		s->obytes += NCM_DIFF(q, bytes);
		s->oerrors += NCM_DIFF(q, oversize);
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			s->q_opackets[i] = NCM_DIFF(q, pkts);
			s->q_obytes[i] = NCM_DIFF(q, bytes);
		}
	}
	return 0;
}

static int
ncm_stats_reset(struct rte_eth_dev *dev)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct ncm_rxq *q = dev->data->rx_queues[i];

		if (q != NULL)
			q->base = q->st;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct ncm_txq *q = dev->data->tx_queues[i];

		if (q != NULL)
			q->base = q->st;
	}
	return 0;
}

/* Extended statistics: the port's, then per queue (ethdev adds the basic
 * per-queue packets and bytes itself: RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS). */
static const struct {
	const char *name;
	size_t off;
} ncm_rx_xstats[] = {
	{ "no_mbuf", offsetof(struct ncm_rx_stats, no_mbuf) },
	{ "too_long", offsetof(struct ncm_rx_stats, too_long) },
	{ "cancelled", offsetof(struct ncm_rx_stats, cancelled) },
	{ "malformed", offsetof(struct ncm_rx_stats, malformed) },
	{ "flushed", offsetof(struct ncm_rx_stats, flushed) },
}, ncm_tx_xstats[] = {
	{ "peer_no_buffer", offsetof(struct ncm_tx_stats, peer_no_buffer) },
	{ "peer_not_ready", offsetof(struct ncm_tx_stats, peer_not_ready) },
	{ "oversize", offsetof(struct ncm_tx_stats, oversize) },
	{ "gathered", offsetof(struct ncm_tx_stats, gathered) },
};

#define NCM_PORT_XSTATS 2

static unsigned int
ncm_xstats_count(const struct rte_eth_dev *dev)
{
	return NCM_PORT_XSTATS +
		dev->data->nb_rx_queues * RTE_DIM(ncm_rx_xstats) +
		dev->data->nb_tx_queues * RTE_DIM(ncm_tx_xstats);
}

static int
ncm_xstats_get_names(struct rte_eth_dev *dev,
		struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int n = ncm_xstats_count(dev), k = 0, i, j;

	if (names == NULL || size < n)
		return (int)n;
	strlcpy(names[k++].name, "connections", sizeof(names[0].name));
	strlcpy(names[k++].name, "handshakes_refused", sizeof(names[0].name));
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		for (j = 0; j < RTE_DIM(ncm_rx_xstats); j++)
			snprintf(names[k++].name, sizeof(names[0].name),
				"rx_q%u_%s", i, ncm_rx_xstats[j].name);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		for (j = 0; j < RTE_DIM(ncm_tx_xstats); j++)
			snprintf(names[k++].name, sizeof(names[0].name),
				"tx_q%u_%s", i, ncm_tx_xstats[j].name);
	return (int)n;
}

static int
ncm_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		unsigned int size)
{
	struct ncm_port *port = dev->data->dev_private;
	unsigned int n = ncm_xstats_count(dev), k = 0, i, j;

	if (xs == NULL || size < n)
		return (int)n;
	xs[k].id = k;
	xs[k++].value = port->nb_connects;
	xs[k].id = k;
	xs[k++].value = port->nb_refused;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct ncm_rxq *q = dev->data->rx_queues[i];

		for (j = 0; j < RTE_DIM(ncm_rx_xstats); j++) {
			size_t off = ncm_rx_xstats[j].off;

			xs[k].id = k;
			xs[k++].value = q == NULL ? 0 :
				*(const uint64_t *)RTE_PTR_ADD(&q->st, off) -
				*(const uint64_t *)RTE_PTR_ADD(&q->base, off);
		}
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		const struct ncm_txq *q = dev->data->tx_queues[i];

		for (j = 0; j < RTE_DIM(ncm_tx_xstats); j++) {
			size_t off = ncm_tx_xstats[j].off;

			xs[k].id = k;
			xs[k++].value = q == NULL ? 0 :
				*(const uint64_t *)RTE_PTR_ADD(&q->st, off) -
				*(const uint64_t *)RTE_PTR_ADD(&q->base, off);
		}
	}
	return (int)n;
}

static int
ncm_xstats_reset(struct rte_eth_dev *dev)
{
	struct ncm_port *port = dev->data->dev_private;

	port->nb_connects = 0;
	port->nb_refused = 0;
	return ncm_stats_reset(dev);
}

static const struct eth_dev_ops ncm_ops = {
	.dev_configure = ncm_dev_configure,
	.dev_start = ncm_dev_start,
	.dev_stop = ncm_dev_stop,
	.dev_close = ncm_dev_close,
	.dev_infos_get = ncm_dev_infos_get,
	.promiscuous_enable = ncm_noop,
	.promiscuous_disable = ncm_noop,
	.allmulticast_enable = ncm_noop,
	.allmulticast_disable = ncm_noop,
	.link_update = ncm_link_update,
	.mtu_set = ncm_mtu_set,
	.mac_addr_set = ncm_mac_addr_set,
	.rx_queue_setup = ncm_rx_queue_setup,
	.tx_queue_setup = ncm_tx_queue_setup,
	.rx_queue_release = ncm_rx_queue_release,
	.tx_queue_release = ncm_tx_queue_release,
	.rxq_info_get = ncm_rxq_info_get,
	.txq_info_get = ncm_txq_info_get,
	.stats_get = ncm_stats_get,
	.stats_reset = ncm_stats_reset,
	.xstats_get = ncm_xstats_get,
	.xstats_get_names = ncm_xstats_get_names,
	.xstats_reset = ncm_xstats_reset,
	.rx_queue_intr_enable = ncm_rx_queue_intr_enable,
	.rx_queue_intr_disable = ncm_rx_queue_intr_disable,
};

/* ------------------------------------------------------ probe / remove */

static struct ncm_proc *
ncm_proc_new(struct rte_eth_dev *dev)
{
	struct ncm_proc *pp = calloc(1, sizeof(*pp));

	if (pp == NULL)
		return NULL;
	pp->dev = dev;
	pp->port = dev->data->dev_private;
	ncm_intr_init(pp);
	return pp;
}

static int
ncm_probe_secondary(struct rte_vdev_device *vdev, const char *name)
{
	struct rte_eth_dev *dev;
	struct ncm_proc *pp;
	int ret;

	dev = rte_eth_dev_attach_secondary(name);
	if (dev == NULL) {
		NCM_LOG(ERR, "%s: cannot attach to the primary's port", name);
		return -ENODEV;
	}
	dev->dev_ops = &ncm_ops;
	dev->device = &vdev->device;
	dev->rx_pkt_burst = ncm_rx_burst;
	dev->tx_pkt_burst = ncm_tx_burst;
	pp = ncm_proc_new(dev);
	if (pp == NULL) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	dev->process_private = pp;
	/* The primary configured rx interrupts: this process's handle and
	 * fds, before the alarm makes any consumer here. */
	ret = ncm_intr_setup(pp);
	if (ret < 0)
		NCM_LOG(ERR, "%s: cannot set up rx interrupts: %s", name,
			rte_strerror(-ret));
	else
		ret = ncm_ctrl_init(pp);
	if (ret < 0) {
		ncm_intr_teardown(pp);
		free(pp);
		dev->process_private = NULL;
		rte_eth_dev_release_port(dev);
		return ret;
	}
	rte_eth_dev_probing_finish(dev);
	return 0;
}

static int
ncm_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct ncm_port *port;
	struct ncm_proc *pp = NULL;
	struct ncm_conf conf;
	int16_t comch_id;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return ncm_probe_secondary(vdev, name);
	ret = ncm_parse_devargs(name, rte_vdev_device_args(vdev), &conf);
	if (ret < 0)
		return ret;
	dev = rte_eth_vdev_allocate(vdev, sizeof(*port));
	if (dev == NULL)
		return -ENOMEM;
	port = dev->data->dev_private;
	port->conf = conf;
	port->port_id = dev->data->port_id;
	ret = ncm_check_comch(name, port, &comch_id);
	if (ret < 0)
		goto fail;
	dev->data->mac_addrs = rte_zmalloc_socket(name, sizeof(struct rte_ether_addr),
			0, rte_socket_id());
	if (dev->data->mac_addrs == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	if (conf.mac_given)
		dev->data->mac_addrs[0] = conf.mac;
	else
		rte_eth_random_addr(dev->data->mac_addrs[0].addr_bytes);
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC |
		RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	dev->data->dev_link = (struct rte_eth_link){
		.link_speed = RTE_ETH_SPEED_NUM_NONE,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_status = RTE_ETH_LINK_DOWN,
	};
	dev->data->mtu = (uint16_t)RTE_MIN((uint32_t)RTE_ETHER_MTU,
			conf.buf_size - RTE_ETHER_HDR_LEN);
	dev->dev_ops = &ncm_ops;
	dev->rx_pkt_burst = ncm_rx_burst;
	dev->tx_pkt_burst = ncm_tx_burst;
	pp = ncm_proc_new(dev);
	if (pp == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	dev->process_private = pp;
	ret = ncm_ctrl_init(pp);
	if (ret < 0)
		goto fail;
	NCM_LOG(INFO, "%s: port %u on %s (%s), server \"%s\"%s%s, %u queues, buffers of %u bytes, %u per queue",
		name, dev->data->port_id, conf.comch,
		port->role == RTE_COMCH_ROLE_DPU ? "DPU" : "host", conf.server,
		port->role == RTE_COMCH_ROLE_DPU ? " for function " : "",
		port->role == RTE_COMCH_ROLE_DPU ? port->conf.function : "",
		conf.nb_queues, conf.buf_size, conf.nb_bufs);
	rte_eth_dev_probing_finish(dev);
	return 0;
fail:
	free(pp);
	dev->process_private = NULL;
	rte_eth_dev_release_port(dev);
	return ret;
}

static int
ncm_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	/* Closed already (a secondary's closed port keeps its entry). */
	if (dev == NULL || dev->state == RTE_ETH_DEV_UNUSED)
		return 0;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY && dev->data->dev_started)
		rte_eth_dev_stop(dev->data->port_id);
	return rte_eth_dev_close(dev->data->port_id);
}

static struct rte_vdev_driver ncm_driver = {
	.probe = ncm_probe,
	.remove = ncm_remove,
};

RTE_PMD_REGISTER_VDEV(net_comch, ncm_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_comch,
	NCM_ARG_COMCH "=<comch device> "
	NCM_ARG_SERVER "=<name> "
	NCM_ARG_FUNCTION "=<pf0|pf<N>vf<M>|pf<N>sf<M>> "
	NCM_ARG_QUEUES "=<1-256> "
	NCM_ARG_BUF_SIZE "=<82-65535> "
	NCM_ARG_BUFS "=<1-65535> "
	NCM_ARG_MAC "=<XX:XX:XX:XX:XX:XX>");
