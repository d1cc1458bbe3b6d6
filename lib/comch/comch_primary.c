/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The primary process's side of the seam (comch_proc.h, layer 2): it
 * owns the link and the shared bookkeeping, so every entry does the work
 * here (comch_local.c); at its first device it starts serving secondary
 * processes (comch_serve.c).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "comch_proc.h"

static int
primary_dev_first(void)
{
	comch_serve_start();
	return 0;
}

static void
primary_dev_last(void)
{
	comch_serve_stop();
}

/* A free slot, named, with @p priv_size bytes of zeroed shared driver
 * data on @p numa_node. */
static struct rte_comch_dev *
primary_dev_slot(const char *name, int numa_node, size_t priv_size)
{
	struct rte_comch_dev_data *table = comch_dev_data_table(true);
	struct rte_comch_dev_data *data;
	struct rte_comch_dev *dev;
	void *priv = NULL;
	int16_t i;

	for (i = 0; i < RTE_COMCH_MAX_DEVS && table[i].in_use; i++)
		;
	if (i == RTE_COMCH_MAX_DEVS) {
		COMCH_LOG(ERR, "no free device slot for %s (max %d)", name,
			RTE_COMCH_MAX_DEVS);
		rte_errno = ENOSPC;
		return NULL;
	}
	if (priv_size != 0) {
		priv = rte_zmalloc_socket("comch_dev_private", priv_size,
				RTE_CACHE_LINE_SIZE, numa_node);
		if (priv == NULL) {
			rte_errno = ENOMEM;
			return NULL;
		}
	}
	data = &table[i];
	memset(data, 0, sizeof(*data));
	rte_strscpy(data->dev_name, name, sizeof(data->dev_name));
	data->dev_id = i;
	data->numa_node = (int16_t)numa_node;
	data->dev_private = priv;
	data->in_use = 1;
	dev = &rte_comch_devices[i];
	memset(dev, 0, sizeof(*dev));
	dev->data = data;
	dev->attached = 1;
	return dev;
}

static int
primary_dev_probe(struct rte_comch_dev *dev,
		const struct rte_comch_pmd_probe_ops *ops, void *arg)
{
	return ops->create != NULL ? ops->create(dev, arg) : -ENOTSUP;
}

static void
primary_dev_slot_free(struct rte_comch_dev *dev)
{
	rte_free(dev->data->dev_private);
	memset(dev->data, 0, sizeof(*dev->data));
}

static int
primary_link_only(const char *what __rte_unused)
{
	return 0;
}

static int
primary_conn_usable(const struct rte_comch_conn *conn __rte_unused,
		const char *what __rte_unused)
{
	return 0;
}

static int
primary_conn_list(int16_t dev_id, uint32_t *ids, uint32_t nb_ids)
{
	return (int)comch_conn_ids(dev_id, 0, ids, nb_ids);
}

static struct rte_comch_conn *
primary_conn_attach(int16_t dev_id __rte_unused, uint32_t conn_id __rte_unused)
{
	COMCH_LOG(ERR, "conn attach: this is the primary process; its connections come from connect_cb and rte_comch_client_conn()");
	rte_errno = ENOTSUP;
	return NULL;
}

static int
primary_conn_detach(struct rte_comch_conn *conn __rte_unused)
{
	COMCH_LOG(ERR, "conn detach: this is the primary process");
	return -ENOTSUP;
}

/* The connection's control messages go to a secondary (its relay): the
 * primary's application receives none meanwhile. */
static int
primary_msg_recv(struct rte_comch_conn *conn, struct rte_comch_msg *msgs,
		uint16_t nb_msgs)
{
	if (comch_relay_active(conn))
		return 0;
	return comch_local_msg_recv(conn, msgs, nb_msgs);
}

static void *
primary_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t max_imm_len)
{
	return comch_fp_alloc(conn, kind, nb_posts, max_imm_len,
			COMCH_OWNER_PRIMARY, (int32_t)getpid());
}

/* The primary's producers see the peer's consumers as the driver maps
 * them, from the link: nothing to do. */
static int
primary_remote_sync(struct rte_comch_conn *conn __rte_unused)
{
	return 0;
}

const struct comch_proc_ops comch_primary_ops = {
	.dev_first = primary_dev_first,
	.dev_last = primary_dev_last,
	.dev_slot = primary_dev_slot,
	.dev_probe = primary_dev_probe,
	.dev_slot_free = primary_dev_slot_free,
	.link_only = primary_link_only,
	.conn_usable = primary_conn_usable,
	.conn_list = primary_conn_list,
	.conn_attach = primary_conn_attach,
	.conn_detach = primary_conn_detach,
	.conn_stats = comch_local_conn_stats,
	.msg_send = comch_local_msg_send,
	.msg_recv = primary_msg_recv,
	.fp_alloc = primary_fp_alloc,
	.fp_free = comch_fp_free,
	.consumer_announce = comch_local_announce,
	.consumer_withdraw = comch_local_withdraw,
	.remote_sync = primary_remote_sync,
};
