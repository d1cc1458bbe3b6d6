/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The peer's consumers on a connection (layer 1): the table every process
 * reads (struct rte_comch_remote, in the connection), filled from what
 * the primary's driver reports; the consumer events; and, in the primary,
 * what describes each consumer (its fds), kept for secondary processes
 * that want to reach it (comch_serve.c hands it out, comch_secondary.c
 * has the driver map it).
 *
 * Who writes what: the table and the kept descriptions are written by the
 * lcore polling the connection's server or client, in the primary; the
 * descriptions are read by the primary's multi-process thread under
 * remote_lock; the table is read by anyone (gen last, release/acquire).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comch_private.h"

/* What describes each live consumer of the peer, by slot (nb_fds 0: no
 * consumer). Process memory of the primary. */
struct rte_comch_remote_keep {
	struct rte_comch_pmd_xfer x[RTE_COMCH_MAX_FP_OBJECTS];
};

static void
comch_xfer_close(struct rte_comch_pmd_xfer *x)
{
	uint32_t i;

	for (i = 0; i < x->nb_fds && i < RTE_DIM(x->fds); i++)
		close(x->fds[i]);
	x->nb_fds = 0;
}

/* Duplicates of @p in's fds (and its numbers) into @p out: 0 or a
 * negative errno (nothing kept). */
static int
comch_xfer_dup(const struct rte_comch_pmd_xfer *in,
		struct rte_comch_pmd_xfer *out)
{
	uint32_t i;

	memset(out, 0, sizeof(*out));
	memcpy(out->val, in->val, sizeof(out->val));
	for (i = 0; i < in->nb_fds; i++) {
		out->fds[i] = fcntl(in->fds[i], F_DUPFD_CLOEXEC, 0);
		if (out->fds[i] < 0) {
			int err = -errno;

			comch_xfer_close(out);
			return err;
		}
		out->nb_fds = i + 1;
	}
	return 0;
}

static void
comch_consumer_event(struct rte_comch_conn *conn, uint32_t id,
		enum rte_comch_consumer_event event)
{
	rte_comch_consumer_event_cb_t cb;
	void *arg;

	if (conn->server != NULL) {
		cb = conn->server->consumer_event_cb;
		arg = conn->server->cb_arg;
	} else {
		cb = conn->client->consumer_event_cb;
		arg = conn->client->cb_arg;
	}
	COMCH_LOG(DEBUG, "connection %u: remote consumer %u %s", conn->id, id,
		event == RTE_COMCH_CONSUMER_CREATED ? "created" : "destroyed");
	if (cb != NULL && !(conn->flags & COMCH_F_RELEASE_PENDING))
		cb(conn, id, event, arg);
}

int
rte_comch_pmd_remote_consumer_add(struct rte_comch_conn *conn, uint32_t id,
		const struct rte_comch_pmd_xfer *x, char *why, size_t why_len)
{
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);
	struct rte_comch_remote *t = &conn->remote;
	uint32_t slot = RTE_COMCH_CONSUMER_SLOT(id);
	struct rte_comch_pmd_xfer kept;
	uint32_t gen;
	int ret;

	/* Ids are never 0 and two live consumers never share a slot: a peer
	 * that says otherwise broke the protocol. */
	if (id == 0 || t->gen[slot] != 0) {
		snprintf(why, why_len, "%s", id == 0 ? "id 0" :
			"its slot is taken");
		return -EPROTO;
	}
	if (x->nb_fds > RTE_DIM(x->fds)) {
		snprintf(why, why_len, "%u fds", x->nb_fds);
		return -EPROTO;
	}
	if (dev == NULL || dev->dev_ops->remote_add == NULL)
		return -ENOTSUP;
	if (conn->remote_keep == NULL) {
		conn->remote_keep = calloc(1, sizeof(*conn->remote_keep));
		if (conn->remote_keep == NULL)
			return -ENOMEM;
	}
	ret = comch_xfer_dup(x, &kept);
	if (ret < 0)
		return ret;
	if (++t->next_gen == 0)
		t->next_gen = 1;
	gen = t->next_gen;
	ret = dev->dev_ops->remote_add(dev, conn, id, gen, x, why, why_len);
	if (ret < 0) {
		comch_xfer_close(&kept);
		return ret;
	}
	rte_spinlock_lock(&conn->remote_lock);
	conn->remote_keep->x[slot] = kept;
	rte_spinlock_unlock(&conn->remote_lock);
	__atomic_store_n(&t->id[slot], id, __ATOMIC_RELAXED);
	__atomic_store_n(&t->gen[slot], gen, __ATOMIC_RELEASE);
	if (id > t->max_id)
		__atomic_store_n(&t->max_id, id, __ATOMIC_RELEASE);
	comch_consumer_event(conn, id, RTE_COMCH_CONSUMER_CREATED);
	return 0;
}

int
rte_comch_pmd_remote_consumer_del(struct rte_comch_conn *conn, uint32_t id)
{
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);
	struct rte_comch_remote *t = &conn->remote;
	uint32_t slot = RTE_COMCH_CONSUMER_SLOT(id);
	struct rte_comch_pmd_xfer kept = { .nb_fds = 0 };

	if (id == 0 || t->gen[slot] == 0 || t->id[slot] != id)
		return -ENOENT;
	/* Unpublished first: from now on no producer of any process starts
	 * a send to it. */
	__atomic_store_n(&t->gen[slot], 0, __ATOMIC_RELEASE);
	rte_spinlock_lock(&conn->remote_lock);
	if (conn->remote_keep != NULL) {
		kept = conn->remote_keep->x[slot];
		conn->remote_keep->x[slot].nb_fds = 0;
	}
	rte_spinlock_unlock(&conn->remote_lock);
	comch_xfer_close(&kept);
	if (dev != NULL && dev->dev_ops->remote_del != NULL)
		dev->dev_ops->remote_del(dev, conn, id);
	comch_consumer_event(conn, id, RTE_COMCH_CONSUMER_DESTROYED);
	return 0;
}

int
rte_comch_pmd_remote_consumer_skip(struct rte_comch_conn *conn, uint32_t id)
{
	struct rte_comch_remote *t = &conn->remote;

	if (id == 0)
		return -EINVAL;
	if (id > t->max_id)
		__atomic_store_n(&t->max_id, id, __ATOMIC_RELEASE);
	return 0;
}

int
comch_remote_list(const struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids)
{
	const struct rte_comch_remote *t = &conn->remote;
	uint32_t all[RTE_COMCH_MAX_FP_OBJECTS];
	uint32_t i, j, id, n = 0;

	/* Slot order is not id order: sort (ascending, as documented). */
	for (i = 0; i < RTE_COMCH_MAX_FP_OBJECTS; i++) {
		if (__atomic_load_n(&t->gen[i], __ATOMIC_ACQUIRE) == 0)
			continue;
		id = __atomic_load_n(&t->id[i], __ATOMIC_RELAXED);
		for (j = n; j > 0 && all[j - 1] > id; j--)
			all[j] = all[j - 1];
		all[j] = id;
		n++;
	}
	for (i = 0; i < n && i < nb_ids; i++)
		ids[i] = all[i];
	return (int)n;
}

int
comch_remote_export(struct rte_comch_conn *conn, uint32_t id, uint32_t gen,
		struct rte_comch_pmd_xfer *x)
{
	uint32_t slot = RTE_COMCH_CONSUMER_SLOT(id);
	int ret = -ENOENT;

	memset(x, 0, sizeof(*x));
	if (id == 0 || gen == 0)
		return -EINVAL;
	rte_spinlock_lock(&conn->remote_lock);
	if (conn->remote_keep != NULL &&
	    __atomic_load_n(&conn->remote.gen[slot], __ATOMIC_ACQUIRE) == gen &&
	    conn->remote.id[slot] == id &&
	    conn->remote_keep->x[slot].nb_fds != 0)
		ret = comch_xfer_dup(&conn->remote_keep->x[slot], x);
	rte_spinlock_unlock(&conn->remote_lock);
	return ret;
}

void
comch_remote_release(struct rte_comch_conn *conn)
{
	uint32_t i;

	if (conn->remote_keep == NULL)
		return;
	for (i = 0; i < RTE_COMCH_MAX_FP_OBJECTS; i++)
		comch_xfer_close(&conn->remote_keep->x[i]);
	free(conn->remote_keep);
	conn->remote_keep = NULL;
}
