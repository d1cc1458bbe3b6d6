/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The registry of this process's servers and clients (layer 0): for
 * telemetry, which runs on its own thread, and for finding a connection
 * by id (a secondary process names connections by id).
 */

#include <stdlib.h>

#include <rte_tailq.h>

#include "comch_private.h"

rte_spinlock_t comch_registry_lock = RTE_SPINLOCK_INITIALIZER;

static TAILQ_HEAD(, rte_comch_server) comch_servers =
	TAILQ_HEAD_INITIALIZER(comch_servers);
static TAILQ_HEAD(, rte_comch_client) comch_clients =
	TAILQ_HEAD_INITIALIZER(comch_clients);

void
comch_registry_add_server(struct rte_comch_server *srv)
{
	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_INSERT_TAIL(&comch_servers, srv, next);
	rte_spinlock_unlock(&comch_registry_lock);
}

void
comch_registry_del_server(struct rte_comch_server *srv)
{
	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_REMOVE(&comch_servers, srv, next);
	rte_spinlock_unlock(&comch_registry_lock);
}

void
comch_registry_add_client(struct rte_comch_client *cli)
{
	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_INSERT_TAIL(&comch_clients, cli, next);
	rte_spinlock_unlock(&comch_registry_lock);
}

void
comch_registry_del_client(struct rte_comch_client *cli)
{
	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_REMOVE(&comch_clients, cli, next);
	rte_spinlock_unlock(&comch_registry_lock);
}

struct rte_comch_conn *
comch_conn_find_locked(int16_t dev_id, uint32_t conn_id)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;

	TAILQ_FOREACH(srv, &comch_servers, next) {
		if (srv->dev->data->dev_id != dev_id)
			continue;
		TAILQ_FOREACH(conn, &srv->conns, next)
			if (conn->id == conn_id)
				return conn;
	}
	TAILQ_FOREACH(cli, &comch_clients, next)
		if (cli->dev->data->dev_id == dev_id && cli->conn != NULL &&
		    cli->conn->id == conn_id)
			return cli->conn;
	return NULL;
}

/* Keep the @p max smallest ids seen so far, ascending, in @p ids. */
static void
conn_ids_keep(uint32_t *ids, uint32_t *kept, uint32_t max, uint32_t id)
{
	uint32_t i;

	if (*kept == max && (max == 0 || id > ids[max - 1]))
		return;
	i = *kept < max ? (*kept)++ : max - 1;
	for (; i > 0 && ids[i - 1] > id; i--)
		ids[i] = ids[i - 1];
	ids[i] = id;
}

/* Ids of this process's connections on @p dev_id from @p start on: the
 * @p max smallest, ascending, in @p ids; returns how many there are
 * (may exceed @p max). */
uint32_t
comch_conn_ids(int16_t dev_id, uint32_t start, uint32_t *ids, uint32_t max)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	uint32_t n = 0, kept = 0;

	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_FOREACH(srv, &comch_servers, next) {
		if (srv->dev->data->dev_id != dev_id)
			continue;
		TAILQ_FOREACH(conn, &srv->conns, next) {
			if (conn->id >= start) {
				conn_ids_keep(ids, &kept, max, conn->id);
				n++;
			}
		}
	}
	TAILQ_FOREACH(cli, &comch_clients, next) {
		if (cli->dev->data->dev_id == dev_id && cli->conn != NULL &&
		    cli->conn->id >= start) {
			conn_ids_keep(ids, &kept, max, cli->conn->id);
			n++;
		}
	}
	rte_spinlock_unlock(&comch_registry_lock);
	return n;
}

void
comch_registry_walk(int16_t dev_id,
		void (*srv_fn)(struct rte_comch_server *srv, void *arg),
		void (*cli_fn)(struct rte_comch_client *cli, void *arg),
		void *arg)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;

	rte_spinlock_lock(&comch_registry_lock);
	TAILQ_FOREACH(srv, &comch_servers, next)
		if (srv->dev->data->dev_id == dev_id && srv_fn != NULL)
			srv_fn(srv, arg);
	TAILQ_FOREACH(cli, &comch_clients, next)
		if (cli->dev->data->dev_id == dev_id && cli_fn != NULL)
			cli_fn(cli, arg);
	rte_spinlock_unlock(&comch_registry_lock);
}
