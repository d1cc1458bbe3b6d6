/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The primary's local work behind the seam (layer 1), the same for
 * itself and for a secondary that asked: the shared bookkeeping of
 * producers and consumers (allocated, numbered, linked and freed only
 * here, by the primary), and the calls into the driver that only the
 * link's owner makes (control messages, announcing consumers).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "comch_private.h"

/* Take the lowest free id of @p map, under conn->fp_lock. */
static int
comch_id_alloc(uint64_t *map)
{
	unsigned int w;

	for (w = 0; w < RTE_COMCH_MAX_FP_OBJECTS / 64; w++) {
		if (~map[w] != 0) {
			unsigned int b = (unsigned int)__builtin_ctzll(~map[w]);

			map[w] |= UINT64_C(1) << b;
			return (int)(w * 64 + b);
		}
	}
	return -ENOSPC;
}

static void
comch_id_free(uint64_t *map, uint32_t id)
{
	map[id / 64] &= ~(UINT64_C(1) << (id % 64));
}

static bool
comch_id_used(const uint64_t *map, uint32_t id)
{
	return (map[id / 64] >> (id % 64)) & 1;
}

/* The next consumer id of @p conn, under conn->fp_lock: the smallest id
 * above every one handed out so far whose slot is free (see
 * RTE_COMCH_CONSUMER_SLOT). -ENOSPC if the connection has max consumers,
 * -EOVERFLOW if its ids are used up. */
static int64_t
comch_consumer_id_alloc(struct rte_comch_conn *conn, uint32_t max)
{
	uint64_t id = conn->next_consumer_id;
	uint32_t n, live = 0;

	for (n = 0; n < RTE_COMCH_MAX_FP_OBJECTS / 64; n++)
		live += (uint32_t)__builtin_popcountll(conn->consumer_slots[n]);
	if (live >= max)
		return -ENOSPC;
	if (id == 0)
		id = 1; /* a connection's first consumer */
	/* At most RTE_COMCH_MAX_FP_OBJECTS - 1 slots are taken: a free one is
	 * at most that far. */
	while (id <= UINT32_MAX &&
	       comch_id_used(conn->consumer_slots, RTE_COMCH_CONSUMER_SLOT(id)))
		id++;
	if (id > UINT32_MAX) {
		conn->next_consumer_id = id;
		return -EOVERFLOW;
	}
	conn->consumer_slots[RTE_COMCH_CONSUMER_SLOT(id) / 64] |=
		UINT64_C(1) << (RTE_COMCH_CONSUMER_SLOT(id) % 64);
	conn->next_consumer_id = id + 1;
	return (int64_t)id;
}

void *
comch_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t max_imm_len, uint32_t owner,
		int32_t owner_pid)
{
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);
	bool is_cons = kind == COMCH_FP_CONSUMER;
	const char *what = is_cons ? "consumer" : "producer";
	struct rte_comch_dev_info info;
	struct rte_comch_consumer *cons = NULL;
	struct rte_comch_producer *prod = NULL;
	size_t head, priv;
	uint32_t max;
	void *obj;
	int64_t id;

	if (dev == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	comch_dev_info(dev, &info);
	max = is_cons ? info.caps.max_consumers : info.caps.max_producers;
	head = RTE_ALIGN_CEIL(is_cons ? sizeof(*cons) : sizeof(*prod),
			RTE_CACHE_LINE_SIZE);
	priv = is_cons ? dev->consumer_priv_size : dev->producer_priv_size;
	/* The block goes to the owner's lcore socket when it asks from
	 * there; the primary cannot know it for a secondary. */
	obj = rte_zmalloc_socket(is_cons ? "comch_consumer" : "comch_producer",
			head + priv, RTE_CACHE_LINE_SIZE,
			owner == COMCH_OWNER_PRIMARY ? (int)rte_socket_id() :
			SOCKET_ID_ANY);
	if (obj == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}

	rte_spinlock_lock(&conn->fp_lock);
	if (conn->closing || conn->state != RTE_COMCH_STATE_RUNNING ||
	    (conn->flags & COMCH_F_RELEASE_PENDING)) {
		rte_spinlock_unlock(&conn->fp_lock);
		COMCH_LOG(ERR, "%s: connection %u is not running", what, conn->id);
		rte_free(obj);
		rte_errno = ENOTCONN;
		return NULL;
	}
	if (is_cons) {
		id = comch_consumer_id_alloc(conn, max);
	} else {
		id = comch_id_alloc(conn->producer_ids);
		if (id >= 0 && (uint32_t)id >= max) {
			comch_id_free(conn->producer_ids, (uint32_t)id);
			id = -ENOSPC;
		}
	}
	if (id == -EOVERFLOW) {
		rte_spinlock_unlock(&conn->fp_lock);
		COMCH_LOG(ERR, "consumer: connection %u has used up its consumer ids (%" PRIu32 " consumers created); reconnect to get new ones",
			conn->id, UINT32_MAX);
		rte_free(obj);
		rte_errno = ENOSPC;
		return NULL;
	}
	if (id < 0) {
		rte_spinlock_unlock(&conn->fp_lock);
		COMCH_LOG(ERR, "%s: connection %u already has %u; destroy one first",
			what, conn->id, max);
		rte_free(obj);
		rte_errno = ENOSPC;
		return NULL;
	}
	if (is_cons) {
		cons = obj;
		cons->fp.dev_id = conn->dev_id;
		cons->fp.drv = priv != 0 ? RTE_PTR_ADD(obj, head) : NULL;
		cons->conn = conn;
		cons->id = (uint32_t)id;
		cons->nb_posts = nb_posts;
		cons->max_imm_len = max_imm_len;
		cons->owner = owner;
		cons->owner_pid = owner_pid;
		cons->state = RTE_COMCH_STATE_IDLE;
		TAILQ_INSERT_TAIL(&conn->consumers, cons, next);
	} else {
		prod = obj;
		prod->fp.dev_id = conn->dev_id;
		prod->fp.drv = priv != 0 ? RTE_PTR_ADD(obj, head) : NULL;
		prod->conn = conn;
		prod->id = (uint32_t)id;
		prod->owner = owner;
		prod->owner_pid = owner_pid;
		prod->state = RTE_COMCH_STATE_IDLE;
		TAILQ_INSERT_TAIL(&conn->producers, prod, next);
	}
	conn->nb_fp_objects++;
	rte_spinlock_unlock(&conn->fp_lock);
	return obj;
}

void
comch_fp_free(struct rte_comch_conn *conn, enum comch_fp_kind kind, void *obj)
{
	rte_spinlock_lock(&conn->fp_lock);
	if (kind == COMCH_FP_CONSUMER) {
		struct rte_comch_consumer *cons = obj;

		TAILQ_REMOVE(&conn->consumers, cons, next);
		comch_id_free(conn->consumer_slots,
				RTE_COMCH_CONSUMER_SLOT(cons->id));
	} else {
		struct rte_comch_producer *prod = obj;

		TAILQ_REMOVE(&conn->producers, prod, next);
		comch_id_free(conn->producer_ids, prod->id);
	}
	conn->nb_fp_objects--;
	rte_spinlock_unlock(&conn->fp_lock);
	rte_free(obj);
}


void *
comch_fp_find(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t id, uint32_t owner)
{
	struct rte_comch_consumer *c;
	struct rte_comch_producer *pr;
	void *obj = NULL;

	rte_spinlock_lock(&conn->fp_lock);
	if (kind == COMCH_FP_CONSUMER) {
		TAILQ_FOREACH(c, &conn->consumers, next)
			if (c->id == id && c->owner == owner && !c->reclaiming)
				obj = c;
	} else if (kind == COMCH_FP_PRODUCER) {
		TAILQ_FOREACH(pr, &conn->producers, next)
			if (pr->id == id && pr->owner == owner && !pr->reclaiming)
				obj = pr;
	}
	rte_spinlock_unlock(&conn->fp_lock);
	return obj;
}

uint32_t
comch_fp_count(struct rte_comch_conn *conn, uint32_t owner)
{
	struct rte_comch_consumer *c;
	struct rte_comch_producer *pr;
	uint32_t n = 0;

	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_FOREACH(c, &conn->consumers, next)
		n += c->owner == owner;
	TAILQ_FOREACH(pr, &conn->producers, next)
		n += pr->owner == owner;
	rte_spinlock_unlock(&conn->fp_lock);
	return n;
}

int
rte_comch_pmd_conn_producers(struct rte_comch_conn *conn,
		int (*fn)(struct rte_comch_producer *prod, void *arg), void *arg)
{
	struct rte_comch_producer *pr;
	int ret;

	TAILQ_FOREACH(pr, &conn->producers, next) {
		ret = fn(pr, arg);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------ messages */

int
comch_local_msg_send(struct rte_comch_conn *conn, const void *data,
		uint32_t len)
{
	struct rte_comch_dev *dev = &rte_comch_devices[conn->dev_id];
	int ret;

	if (dev->dev_ops->msg_send == NULL)
		return -ENOTSUP;
	ret = dev->dev_ops->msg_send(conn, data, len);
	if (ret == 0) {
		conn->msgs_sent++;
		conn->bytes_sent += len;
	}
	return ret;
}

int
comch_local_msg_recv(struct rte_comch_conn *conn, struct rte_comch_msg *msgs,
		uint16_t nb_msgs)
{
	struct rte_comch_dev *dev = &rte_comch_devices[conn->dev_id];
	int ret, i;

	if (dev->dev_ops->msg_recv_burst == NULL)
		return -ENOTSUP;
	ret = dev->dev_ops->msg_recv_burst(conn, msgs, nb_msgs);
	if (ret > 0) {
		conn->msgs_recv += ret;
		for (i = 0; i < ret; i++)
			conn->bytes_recv += msgs[i].len;
	}
	return ret;
}

int
comch_local_conn_stats(struct rte_comch_conn *conn,
		struct rte_comch_conn_stats *stats)
{
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);

	stats->msgs_sent = conn->msgs_sent;
	stats->bytes_sent = conn->bytes_sent;
	stats->msgs_recv = conn->msgs_recv;
	stats->bytes_recv = conn->bytes_recv;
	stats->msgs_in_flight = dev != NULL &&
		dev->dev_ops->conn_in_flight != NULL ?
		dev->dev_ops->conn_in_flight(conn) : 0;
	return 0;
}

int
comch_local_announce(struct rte_comch_consumer *cons,
		const struct rte_comch_pmd_xfer *x)
{
	struct rte_comch_dev *dev = comch_dev_get(cons->conn->dev_id);

	if (dev == NULL)
		return -ENODEV;
	if (dev->dev_ops->consumer_announce == NULL)
		return 0; /* a driver whose peer learns otherwise */
	return dev->dev_ops->consumer_announce(dev, cons->conn, cons, x);
}

void
comch_local_withdraw(struct rte_comch_consumer *cons)
{
	struct rte_comch_dev *dev = comch_dev_get(cons->conn->dev_id);

	if (dev != NULL && dev->dev_ops->consumer_withdraw != NULL)
		dev->dev_ops->consumer_withdraw(dev, cons->conn, cons);
}
