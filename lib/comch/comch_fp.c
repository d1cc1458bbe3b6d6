/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path objects, control side: the per-process fast-path table,
 * registered memory, consumers and producers (create, start, stop,
 * destroy), and consumer events. The fast path itself is the inline
 * functions of rte_comch.h calling the driver through rte_comch_fp_ops[].
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "comch_private.h"

/* ----------------------------------------------------- fast-path table */

static int
comch_dummy_send(void *p __rte_unused, uint32_t id __rte_unused,
		const struct rte_comch_send_op *ops __rte_unused,
		uint16_t n __rte_unused)
{
	return -ENODEV;
}

static int
comch_dummy_post(void *c __rte_unused, void * const *bufs __rte_unused,
		const uint32_t *lens __rte_unused, uint16_t n __rte_unused)
{
	return -ENODEV;
}

static int
comch_dummy_poll(void *c __rte_unused,
		struct rte_comch_completion *cpl __rte_unused,
		uint16_t n __rte_unused)
{
	return -ENODEV;
}

#define COMCH_DUMMY_FP { .send = comch_dummy_send, \
	.post = comch_dummy_post, .poll = comch_dummy_poll }

struct rte_comch_fp_ops rte_comch_fp_ops[RTE_COMCH_MAX_DEVS] = {
	[0 ... RTE_COMCH_MAX_DEVS - 1] = COMCH_DUMMY_FP,
};

void
rte_comch_pmd_probing_finish(struct rte_comch_dev *dev)
{
	struct rte_comch_fp_ops *fp = &rte_comch_fp_ops[dev->data->dev_id];

	fp->send = dev->dev_ops->fp_send;
	fp->post = dev->dev_ops->fp_post;
	fp->poll = dev->dev_ops->fp_poll;
}

void
comch_fp_ops_reset(int16_t dev_id)
{
	static const struct rte_comch_fp_ops dummy = COMCH_DUMMY_FP;

	rte_comch_fp_ops[dev_id] = dummy;
}

/* --------------------------------------------------- registered memory */

struct rte_comch_mem *
rte_comch_mem_create(int16_t dev_id, size_t size, int socket_id)
{
	struct rte_comch_dev *dev = comch_dev_get(dev_id);
	struct rte_comch_dev_info info;
	struct rte_comch_mem *mem;
	int ret;

	if (dev == NULL || size == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (comch_secondary_refuses("registered memory"))
		return NULL;
	rte_comch_info_get(dev_id, &info);
	if (!(info.caps.flags & RTE_COMCH_CAPA_CONSUMER)) {
		COMCH_LOG(ERR, "mem: device %s has no consumers", info.dev_name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	if (size > info.caps.max_mem_size) {
		COMCH_LOG(ERR, "mem: %zu bytes above the device limit %" PRIu64,
			size, info.caps.max_mem_size);
		rte_errno = ERANGE;
		return NULL;
	}
	mem = rte_zmalloc_socket("comch_mem", sizeof(*mem), RTE_CACHE_LINE_SIZE,
			socket_id);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mem->dev = dev;
	mem->size = size;
	mem->socket_id = socket_id;
	ret = dev->dev_ops->mem_create(dev, mem);
	if (ret < 0) {
		rte_free(mem);
		rte_errno = -ret;
		return NULL;
	}
	return mem;
}

void *
rte_comch_mem_addr(const struct rte_comch_mem *mem)
{
	return mem == NULL ? NULL : mem->addr;
}

size_t
rte_comch_mem_size(const struct rte_comch_mem *mem)
{
	return mem == NULL ? 0 : mem->size;
}

int
rte_comch_mem_destroy(struct rte_comch_mem *mem)
{
	if (mem == NULL)
		return 0;
	if (__atomic_load_n(&mem->nb_users, __ATOMIC_ACQUIRE) != 0) {
		COMCH_LOG(ERR, "mem: %u consumers still use it; destroy them first",
			mem->nb_users);
		return -EBUSY;
	}
	mem->dev->dev_ops->mem_destroy(mem->dev, mem);
	rte_free(mem);
	return 0;
}

/* ------------------------------------------------------ id allocation */

/* Take the lowest free id of @p map, under conn->fp_lock. */
static int
comch_id_alloc(uint64_t *map)
{
	unsigned int w;

	for (w = 0; w < COMCH_MAX_FP_OBJECTS / 64; w++) {
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

/* Register a new fast-path object on @p conn: checks the connection can
 * take it and allocates its id. */
static int
comch_fp_attach(struct rte_comch_conn *conn, uint64_t *map, uint32_t max,
		const char *what)
{
	int id;

	rte_spinlock_lock(&conn->fp_lock);
	if (conn->closing || conn->state != RTE_COMCH_STATE_RUNNING ||
	    (conn->flags & COMCH_F_RELEASE_PENDING)) {
		rte_spinlock_unlock(&conn->fp_lock);
		COMCH_LOG(ERR, "%s: connection %u is not running", what, conn->id);
		return -ENOTCONN;
	}
	id = comch_id_alloc(map);
	if (id >= 0 && (uint32_t)id >= max) {
		comch_id_free(map, (uint32_t)id);
		id = -ENOSPC;
	}
	if (id >= 0)
		conn->nb_fp_objects++;
	rte_spinlock_unlock(&conn->fp_lock);
	if (id < 0)
		COMCH_LOG(ERR, "%s: connection %u already has %u; destroy one first",
			what, conn->id, max);
	return id;
}

static void
comch_fp_detach(struct rte_comch_conn *conn, uint64_t *map, uint32_t id)
{
	rte_spinlock_lock(&conn->fp_lock);
	comch_id_free(map, id);
	conn->nb_fp_objects--;
	rte_spinlock_unlock(&conn->fp_lock);
}

/* ------------------------------------------------------------ consumers */

struct rte_comch_consumer *
rte_comch_consumer_create(struct rte_comch_conn *conn,
		const struct rte_comch_consumer_conf *conf)
{
	struct rte_comch_dev_info info;
	struct rte_comch_consumer *cons;
	uint32_t nb_posts, imm;
	int id, ret;

	if (conn == NULL || conf == NULL || conf->mem == NULL ||
	    conf->mem->dev != conn->dev) {
		COMCH_LOG(ERR, "consumer: %s", conn == NULL || conf == NULL ?
			"NULL argument" : conf->mem == NULL ?
			"no registered memory (conf.mem)" :
			"memory belongs to another device");
		rte_errno = EINVAL;
		return NULL;
	}
	rte_comch_info_get(conn->dev->data->dev_id, &info);
	nb_posts = conf->nb_posts != 0 ? conf->nb_posts : 256;
	imm = conf->imm_data_len == 0 ? RTE_COMCH_IMM_DATA_MAX :
		conf->imm_data_len == RTE_COMCH_IMM_NONE ? 0 :
		conf->imm_data_len;
	if (nb_posts > info.caps.max_post_tasks ||
	    imm > info.caps.max_imm_data_len) {
		COMCH_LOG(ERR, "consumer: nb_posts %u / imm_data_len %u above the device limits %u / %u",
			nb_posts, imm, info.caps.max_post_tasks,
			info.caps.max_imm_data_len);
		rte_errno = ERANGE;
		return NULL;
	}
	cons = rte_zmalloc_socket("comch_consumer", sizeof(*cons),
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (cons == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	id = comch_fp_attach(conn, conn->consumer_ids, info.caps.max_consumers,
			"consumer");
	if (id < 0) {
		rte_free(cons);
		rte_errno = -id;
		return NULL;
	}
	cons->fp.dev_id = conn->dev->data->dev_id;
	cons->conn = conn;
	cons->mem = conf->mem;
	cons->id = (uint32_t)id;
	cons->nb_posts = nb_posts;
	cons->imm_data_len = imm;
	cons->state = RTE_COMCH_STATE_IDLE;
	ret = conn->dev->dev_ops->consumer_create(conn->dev, cons);
	if (ret < 0) {
		comch_fp_detach(conn, conn->consumer_ids, cons->id);
		rte_free(cons);
		rte_errno = -ret;
		return NULL;
	}
	__atomic_fetch_add(&conf->mem->nb_users, 1, __ATOMIC_RELEASE);
	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_INSERT_TAIL(&conn->consumers, cons, next);
	rte_spinlock_unlock(&conn->fp_lock);
	return cons;
}

int
rte_comch_consumer_start(struct rte_comch_consumer *cons)
{
	int ret;

	if (cons == NULL)
		return -EINVAL;
	if (!comch_state_allows(cons->state, COMCH_OP_START))
		return -EBUSY;
	ret = cons->conn->dev->dev_ops->consumer_start(cons->conn->dev, cons);
	if (ret < 0)
		return ret;
	comch_state_apply(&cons->state, COMCH_EV_START);
	comch_state_apply(&cons->state, COMCH_EV_READY);
	return 0;
}

int
rte_comch_consumer_stop(struct rte_comch_consumer *cons)
{
	if (cons == NULL)
		return -EINVAL;
	if (!comch_state_allows(cons->state, COMCH_OP_STOP) ||
	    cons->state == RTE_COMCH_STATE_STOPPING)
		return -EBUSY;
	comch_state_apply(&cons->state, COMCH_EV_STOP);
	/* The driver moves it to idle once every posted buffer came back. */
	return cons->conn->dev->dev_ops->consumer_stop(cons->conn->dev, cons);
}

int
rte_comch_consumer_destroy(struct rte_comch_consumer *cons)
{
	struct rte_comch_conn *conn;

	if (cons == NULL)
		return 0;
	if (!comch_state_allows(cons->state, COMCH_OP_DESTROY)) {
		COMCH_LOG(ERR, "consumer %u: cannot destroy in state %s; stop it and poll until idle",
			cons->id, rte_comch_state_name(cons->state));
		return -EBUSY;
	}
	conn = cons->conn;
	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_REMOVE(&conn->consumers, cons, next);
	rte_spinlock_unlock(&conn->fp_lock);
	conn->dev->dev_ops->consumer_destroy(conn->dev, cons);
	__atomic_fetch_sub(&cons->mem->nb_users, 1, __ATOMIC_RELEASE);
	comch_fp_detach(conn, conn->consumer_ids, cons->id);
	rte_free(cons);
	return 0;
}

uint32_t
rte_comch_consumer_id(const struct rte_comch_consumer *cons)
{
	return cons == NULL ? UINT32_MAX : cons->id;
}

enum rte_comch_state
rte_comch_consumer_state(const struct rte_comch_consumer *cons)
{
	return cons == NULL ? RTE_COMCH_STATE_IDLE :
		__atomic_load_n(&cons->state, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ producers */

struct rte_comch_producer *
rte_comch_producer_create(struct rte_comch_conn *conn,
		const struct rte_comch_producer_conf *conf __rte_unused)
{
	struct rte_comch_dev_info info;
	struct rte_comch_producer *prod;
	int id, ret;

	if (conn == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	rte_comch_info_get(conn->dev->data->dev_id, &info);
	prod = rte_zmalloc_socket("comch_producer", sizeof(*prod),
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (prod == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	id = comch_fp_attach(conn, conn->producer_ids, info.caps.max_producers,
			"producer");
	if (id < 0) {
		rte_free(prod);
		rte_errno = -id;
		return NULL;
	}
	prod->fp.dev_id = conn->dev->data->dev_id;
	prod->conn = conn;
	prod->id = (uint32_t)id;
	prod->state = RTE_COMCH_STATE_IDLE;
	ret = conn->dev->dev_ops->producer_create(conn->dev, prod);
	if (ret < 0) {
		comch_fp_detach(conn, conn->producer_ids, prod->id);
		rte_free(prod);
		rte_errno = -ret;
		return NULL;
	}
	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_INSERT_TAIL(&conn->producers, prod, next);
	rte_spinlock_unlock(&conn->fp_lock);
	return prod;
}

int
rte_comch_producer_start(struct rte_comch_producer *prod)
{
	int ret;

	if (prod == NULL)
		return -EINVAL;
	if (!comch_state_allows(prod->state, COMCH_OP_START))
		return -EBUSY;
	ret = prod->conn->dev->dev_ops->producer_start(prod->conn->dev, prod);
	if (ret < 0)
		return ret;
	comch_state_apply(&prod->state, COMCH_EV_START);
	comch_state_apply(&prod->state, COMCH_EV_READY);
	return 0;
}

int
rte_comch_producer_stop(struct rte_comch_producer *prod)
{
	if (prod == NULL)
		return -EINVAL;
	if (!comch_state_allows(prod->state, COMCH_OP_STOP))
		return -EBUSY;
	prod->conn->dev->dev_ops->producer_stop(prod->conn->dev, prod);
	/* Sends complete synchronously: nothing to drain. */
	comch_state_apply(&prod->state, COMCH_EV_STOP);
	comch_state_apply(&prod->state, COMCH_EV_DRAINED);
	return 0;
}

int
rte_comch_producer_destroy(struct rte_comch_producer *prod)
{
	struct rte_comch_conn *conn;

	if (prod == NULL)
		return 0;
	if (!comch_state_allows(prod->state, COMCH_OP_DESTROY)) {
		COMCH_LOG(ERR, "producer %u: cannot destroy in state %s; stop it first",
			prod->id, rte_comch_state_name(prod->state));
		return -EBUSY;
	}
	conn = prod->conn;
	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_REMOVE(&conn->producers, prod, next);
	rte_spinlock_unlock(&conn->fp_lock);
	conn->dev->dev_ops->producer_destroy(conn->dev, prod);
	comch_fp_detach(conn, conn->producer_ids, prod->id);
	rte_free(prod);
	return 0;
}

uint32_t
rte_comch_producer_id(const struct rte_comch_producer *prod)
{
	return prod == NULL ? UINT32_MAX : prod->id;
}

enum rte_comch_state
rte_comch_producer_state(const struct rte_comch_producer *prod)
{
	return prod == NULL ? RTE_COMCH_STATE_IDLE : prod->state;
}

/* ------------------------------------------------------ consumer events */

int
rte_comch_conn_remote_consumers(struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids)
{
	if (conn == NULL || (ids == NULL && nb_ids != 0))
		return -EINVAL;
	return conn->dev->dev_ops->conn_remote_consumers(conn, ids, nb_ids);
}

void
rte_comch_pmd_consumer_event(struct rte_comch_conn *conn, uint32_t consumer_id,
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
	COMCH_LOG(DEBUG, "connection %u: remote consumer %u %s", conn->id,
		consumer_id, event == RTE_COMCH_CONSUMER_CREATED ?
		"created" : "destroyed");
	if (cb != NULL && !(conn->flags & COMCH_F_RELEASE_PENDING))
		cb(conn, consumer_id, event, arg);
}
