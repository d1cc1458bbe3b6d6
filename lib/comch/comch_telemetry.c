/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Telemetry (read with dpdk-telemetry.py or any client of the telemetry
 * socket):
 *   /comch/list                 device ids
 *   /comch/info,<dev>           name, driver, role, functions, capabilities
 *   /comch/connections,<dev>    this process's connections on the device
 *   /comch/stats,<dev>          their counters, and per producer/consumer
 * The handlers run on the telemetry thread; they walk the object registry
 * (comch_registry.c) under its lock (taken by the lcores on the control
 * path only) and read counters with plain loads. Telemetry is the
 * primary's: DPDK 22.11 has none in secondary processes.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "comch_private.h"

/* The device id parameter: a decimal number of an attached device and
 * nothing else. */
static int16_t
tel_dev_param(const char *params)
{
	char *end;
	long v;

	if (params == NULL || *params < '0' || *params > '9')
		return -1;
	v = strtol(params, &end, 10);
	if (*end != '\0' || v < 0 || v >= RTE_COMCH_MAX_DEVS ||
	    !rte_comch_is_valid_dev((int16_t)v))
		return -1;
	return (int16_t)v;
}

static int
tel_list(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	int16_t id;

	if (params != NULL && *params != '\0')
		return -EINVAL;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	RTE_COMCH_FOREACH_DEV(id)
		rte_tel_data_add_array_int(d, id);
	return 0;
}

static int
tel_info(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	int16_t id = tel_dev_param(params);
	struct rte_comch_dev_info info;
	struct rte_tel_data *caps, *funcs;
	char name[RTE_COMCH_FUNCTION_NAME_MAX];
	uint16_t i;

	if (id < 0 || rte_comch_info_get(id, &info) < 0)
		return -EINVAL;
	caps = rte_tel_data_alloc();
	funcs = rte_tel_data_alloc();
	if (caps == NULL || funcs == NULL) {
		rte_tel_data_free(caps);
		rte_tel_data_free(funcs);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", info.dev_name);
	rte_tel_data_add_dict_string(d, "driver", info.driver_name);
	rte_tel_data_add_dict_string(d, "role",
		info.role == RTE_COMCH_ROLE_DPU ? "dpu" : "host");
	rte_tel_data_add_dict_int(d, "numa_node", info.numa_node);
	rte_tel_data_start_array(funcs, RTE_TEL_STRING_VAL);
	for (i = 0; i < info.nb_functions; i++)
		if (rte_comch_function_name(id, i, name, sizeof(name)) == 0)
			rte_tel_data_add_array_string(funcs, name);
	/* the host functions a DPU serves; a host device is one */
	rte_tel_data_add_dict_container(d, info.role == RTE_COMCH_ROLE_DPU ?
		"functions" : "function", funcs, 0);
	rte_tel_data_start_dict(caps);
	rte_tel_data_add_dict_int(caps, "server",
		!!(info.caps.flags & RTE_COMCH_CAPA_SERVER));
	rte_tel_data_add_dict_int(caps, "client",
		!!(info.caps.flags & RTE_COMCH_CAPA_CLIENT));
	rte_tel_data_add_dict_int(caps, "producer",
		!!(info.caps.flags & RTE_COMCH_CAPA_PRODUCER));
	rte_tel_data_add_dict_int(caps, "consumer",
		!!(info.caps.flags & RTE_COMCH_CAPA_CONSUMER));
	rte_tel_data_add_dict_u64(caps, "max_name_len", info.caps.max_name_len);
	rte_tel_data_add_dict_u64(caps, "max_msg_size", info.caps.max_msg_size);
	rte_tel_data_add_dict_u64(caps, "max_recv_queue_len",
		info.caps.max_recv_queue_len);
	rte_tel_data_add_dict_u64(caps, "max_clients", info.caps.max_clients);
	rte_tel_data_add_dict_u64(caps, "max_send_burst", info.caps.max_send_burst);
	rte_tel_data_add_dict_u64(caps, "max_posts", info.caps.max_posts);
	rte_tel_data_add_dict_u64(caps, "max_buf_size", info.caps.max_buf_size);
	rte_tel_data_add_dict_u64(caps, "max_imm_len", info.caps.max_imm_len);
	rte_tel_data_add_dict_u64(caps, "max_consumers", info.caps.max_consumers);
	rte_tel_data_add_dict_u64(caps, "max_producers", info.caps.max_producers);
	rte_tel_data_add_dict_container(d, "caps", caps, 0);
	return 0;
}

/* One connection as a dictionary; @p stats adds the counters. */
static struct rte_tel_data *
tel_conn(struct rte_comch_conn *conn, bool stats)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	struct rte_comch_conn_stats st;
	char buf[RTE_COMCH_NAME_MAX + 32];

	if (c == NULL)
		return NULL;
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_u64(c, "id", conn->id);
	if (conn->server != NULL) {
		rte_tel_data_add_dict_string(c, "side", "server");
		rte_tel_data_add_dict_string(c, "server", conn->server->name);
		if (rte_comch_function_name(conn->dev_id,
				conn->server->function_id, buf, sizeof(buf)) == 0)
			rte_tel_data_add_dict_string(c, "function", buf);
	} else {
		rte_tel_data_add_dict_string(c, "side", "client");
		rte_tel_data_add_dict_string(c, "server",
			conn->client->server_name);
	}
	rte_tel_data_add_dict_string(c, "state",
		rte_comch_state_name(conn->state));
	rte_tel_data_add_dict_u64(c, "user_data", conn->user_data);
	rte_tel_data_add_dict_u64(c, "attached",
		__atomic_load_n(&conn->nb_attached, __ATOMIC_RELAXED));
	if (!stats)
		return c;
	rte_comch_conn_stats_get(conn, &st);
	rte_tel_data_add_dict_u64(c, "msgs_sent", st.msgs_sent);
	rte_tel_data_add_dict_u64(c, "bytes_sent", st.bytes_sent);
	rte_tel_data_add_dict_u64(c, "msgs_recv", st.msgs_recv);
	rte_tel_data_add_dict_u64(c, "bytes_recv", st.bytes_recv);
	rte_tel_data_add_dict_u64(c, "msgs_in_flight", st.msgs_in_flight);
	return c;
}

/* One producer's or consumer's counters: <what>_<id>_msgs, _bytes and
 * _pid (the process that owns it). */
static void
tel_fp_object(struct rte_tel_data *c, struct rte_comch_dev *dev,
		const char *what, uint32_t id, void *fp_drv, int32_t pid)
{
	uint64_t msgs, bytes;
	char key[48];

	if (dev->dev_ops->fp_stats == NULL)
		return;
	dev->dev_ops->fp_stats(dev, fp_drv, &msgs, &bytes);
	snprintf(key, sizeof(key), "%s_%u_msgs", what, id);
	rte_tel_data_add_dict_u64(c, key, msgs);
	snprintf(key, sizeof(key), "%s_%u_bytes", what, id);
	rte_tel_data_add_dict_u64(c, key, bytes);
	snprintf(key, sizeof(key), "%s_%u_pid", what, id);
	rte_tel_data_add_dict_int(c, key, pid);
}

/* Producers and consumers of a connection (of every process), under its
 * fp_lock. */
static void
tel_fp_objects(struct rte_comch_conn *conn, struct rte_tel_data *c)
{
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);
	struct rte_comch_producer *p;
	struct rte_comch_consumer *k;

	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_FOREACH(p, &conn->producers, next)
		tel_fp_object(c, dev, "producer", p->id, p->fp.drv,
			p->owner_pid);
	TAILQ_FOREACH(k, &conn->consumers, next)
		tel_fp_object(c, dev, "consumer", k->id, k->fp.drv,
			k->owner_pid);
	rte_spinlock_unlock(&conn->fp_lock);
}

struct tel_walk {
	struct rte_tel_data *d;
	bool stats;
};

static void
tel_add_conn(struct tel_walk *w, struct rte_comch_conn *conn)
{
	struct rte_tel_data *c = tel_conn(conn, w->stats);
	char key[32];

	if (c == NULL)
		return;
	if (w->stats)
		tel_fp_objects(conn, c);
	snprintf(key, sizeof(key), "%u", conn->id);
	rte_tel_data_add_dict_container(w->d, key, c, 0);
}

static void
tel_walk_server(struct rte_comch_server *srv, void *arg)
{
	struct rte_comch_conn *conn;

	RTE_COMCH_SERVER_FOREACH_CONN(conn, srv)
		tel_add_conn(arg, conn);
}

static void
tel_walk_client(struct rte_comch_client *cli, void *arg)
{
	if (cli->conn != NULL)
		tel_add_conn(arg, cli->conn);
}

static int
tel_conns(struct rte_tel_data *d, int16_t id, bool stats)
{
	struct tel_walk w = { .d = d, .stats = stats };

	rte_tel_data_start_dict(d);
	comch_registry_walk(id, tel_walk_server, tel_walk_client, &w);
	return 0;
}

static int
tel_connections(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	int16_t id = tel_dev_param(params);

	if (id < 0)
		return -EINVAL;
	return tel_conns(d, id, false);
}

static int
tel_stats(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	int16_t id = tel_dev_param(params);

	if (id < 0)
		return -EINVAL;
	return tel_conns(d, id, true);
}

RTE_INIT(comch_telemetry_init)
{
	rte_telemetry_register_cmd("/comch/list", tel_list,
		"Comch device ids. Takes no parameters");
	rte_telemetry_register_cmd("/comch/info", tel_info,
		"Device name, driver, role, functions and capabilities. Parameters: int dev_id");
	rte_telemetry_register_cmd("/comch/connections", tel_connections,
		"Connections of this process on a device: side, server, function, state, user data, attached. Parameters: int dev_id");
	rte_telemetry_register_cmd("/comch/stats", tel_stats,
		"Counters of each connection and of its producers and consumers. Parameters: int dev_id");
}
