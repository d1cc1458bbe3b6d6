/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path objects, control side (layer 3): registered memory, consumers
 * and producers (create, start, stop, destroy), and consumer events. The
 * fast path itself is the inline functions of rte_comch.h calling the
 * driver through rte_comch_fp_ops[] (comch_dev.c).
 *
 * A producer or consumer is one block of shared memory: the library
 * object, then the driver's state at fp.drv. The primary process
 * allocates, links and frees every block (comch_local.c), for itself or
 * for a secondary that asked; the owner process initialises and uses it
 * (the driver's create/start/stop/destroy ops and the fast path).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "comch_proc.h"

/* A connection this process may put producers and consumers on. */
static struct rte_comch_dev *
comch_fp_conn_check(struct rte_comch_conn *conn, const char *what)
{
	struct rte_comch_dev *dev;

	if (comch_proc->conn_usable(conn, what) < 0)
		return NULL;
	dev = comch_dev_get(conn->dev_id);
	if (dev == NULL)
		rte_errno = ENODEV;
	return dev;
}

/* The driver op @p op of @p dev, or -ENOTSUP logged. */
#define COMCH_FP_OP(dev, op, what) ((dev)->dev_ops->op != NULL ? 0 : \
	(COMCH_LOG(ERR, "%s: not supported by device %s", what, \
		(dev)->data->dev_name), -ENOTSUP))

/* --------------------------------------------------- registered memory */

static bool
comch_socket_exists(int socket_id)
{
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_socket_id_by_idx(i) == socket_id)
			return true;
	return false;
}

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
	comch_dev_info(dev, &info);
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
	if (socket_id != SOCKET_ID_ANY && !comch_socket_exists(socket_id)) {
		COMCH_LOG(ERR, "mem: socket %d is not a NUMA socket of this machine; use SOCKET_ID_ANY or rte_socket_id()",
			socket_id);
		rte_errno = EINVAL;
		return NULL;
	}
	/* Per-process (its address and fd are this process's): process
	 * memory, which dies with the process. */
	mem = calloc(1, sizeof(*mem));
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mem->dev = dev;
	mem->size = size;
	mem->socket_id = socket_id;
	ret = COMCH_FP_OP(dev, mem_create, "mem");
	if (ret == 0)
		ret = dev->dev_ops->mem_create(dev, mem);
	if (ret < 0) {
		free(mem);
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
	if (mem->dev->dev_ops->mem_destroy != NULL)
		mem->dev->dev_ops->mem_destroy(mem->dev, mem);
	free(mem);
	return 0;
}

/* ------------------------------------------------------------ consumers */

struct rte_comch_consumer *
rte_comch_consumer_create(struct rte_comch_conn *conn,
		const struct rte_comch_consumer_conf *conf)
{
	struct rte_comch_dev_info info;
	struct rte_comch_consumer *cons;
	struct rte_comch_dev *dev;
	uint32_t nb_posts, imm;
	int ret;

	if (conn == NULL || conf == NULL || conf->mem == NULL) {
		COMCH_LOG(ERR, "consumer: %s", conn == NULL || conf == NULL ?
			"NULL argument" : "no registered memory (conf.mem)");
		rte_errno = EINVAL;
		return NULL;
	}
	dev = comch_fp_conn_check(conn, "consumer");
	if (dev == NULL)
		return NULL;
	if (conf->mem->dev != dev) {
		COMCH_LOG(ERR, "consumer: memory belongs to another device");
		rte_errno = EINVAL;
		return NULL;
	}
	ret = COMCH_FP_OP(dev, consumer_create, "consumer");
	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	comch_dev_info(dev, &info);
	nb_posts = conf->nb_posts != 0 ? conf->nb_posts : 256;
	imm = conf->max_imm_len == 0 ? RTE_COMCH_IMM_DATA_MAX :
		conf->max_imm_len == RTE_COMCH_IMM_NONE ? 0 :
		conf->max_imm_len;
	if (nb_posts > info.caps.max_posts || imm > info.caps.max_imm_len) {
		COMCH_LOG(ERR, "consumer: nb_posts %u / max_imm_len %u above the device limits %u / %u",
			nb_posts, imm, info.caps.max_posts,
			info.caps.max_imm_len);
		rte_errno = ERANGE;
		return NULL;
	}
	cons = comch_proc->fp_alloc(conn, COMCH_FP_CONSUMER, nb_posts, imm);
	if (cons == NULL)
		return NULL;
	cons->mem = conf->mem;
	ret = dev->dev_ops->consumer_create(dev, cons);
	if (ret < 0) {
		comch_proc->fp_free(conn, COMCH_FP_CONSUMER, cons);
		rte_errno = -ret;
		return NULL;
	}
	__atomic_fetch_add(&conf->mem->nb_users, 1, __ATOMIC_RELEASE);
	return cons;
}

int
rte_comch_consumer_start(struct rte_comch_consumer *cons)
{
	struct rte_comch_pmd_xfer announce;
	struct rte_comch_dev *dev;
	int ret;

	if (cons == NULL)
		return -EINVAL;
	if (!comch_state_allows(cons->state, COMCH_OP_START))
		return -EBUSY;
	dev = comch_dev_get(cons->conn->dev_id);
	ret = COMCH_FP_OP(dev, consumer_start, "consumer start");
	if (ret < 0)
		return ret;
	memset(&announce, 0, sizeof(announce));
	ret = dev->dev_ops->consumer_start(dev, cons, &announce);
	if (ret < 0)
		return ret;
	/* The peer learns of it through the link's owner. */
	ret = comch_proc->consumer_announce(cons, &announce);
	if (ret < 0) {
		if (dev->dev_ops->consumer_stop != NULL)
			dev->dev_ops->consumer_stop(dev, cons);
		__atomic_store_n(&cons->state, RTE_COMCH_STATE_IDLE,
				__ATOMIC_RELEASE);
		return ret;
	}
	comch_state_apply(&cons->state, COMCH_EV_START);
	comch_state_apply(&cons->state, COMCH_EV_READY);
	return 0;
}

int
rte_comch_consumer_stop(struct rte_comch_consumer *cons)
{
	struct rte_comch_dev *dev;
	int ret = 0;

	if (cons == NULL)
		return -EINVAL;
	if (!comch_state_allows(cons->state, COMCH_OP_STOP) ||
	    cons->state == RTE_COMCH_STATE_STOPPING)
		return -EBUSY;
	comch_state_apply(&cons->state, COMCH_EV_STOP);
	/* The driver moves it to idle once every posted buffer came back. */
	dev = comch_dev_get(cons->conn->dev_id);
	if (dev->dev_ops->consumer_stop != NULL)
		ret = dev->dev_ops->consumer_stop(dev, cons);
	comch_proc->consumer_withdraw(cons);
	return ret;
}

int
rte_comch_consumer_destroy(struct rte_comch_consumer *cons)
{
	struct rte_comch_dev *dev;

	if (cons == NULL)
		return 0;
	if (!comch_state_allows(cons->state, COMCH_OP_DESTROY)) {
		COMCH_LOG(ERR, "consumer %u: cannot destroy in state %s; stop it and poll until idle",
			cons->id, rte_comch_state_name(cons->state));
		return -EBUSY;
	}
	dev = comch_dev_get(cons->conn->dev_id);
	if (dev->dev_ops->consumer_destroy != NULL)
		dev->dev_ops->consumer_destroy(dev, cons);
	__atomic_fetch_sub(&cons->mem->nb_users, 1, __ATOMIC_RELEASE);
	comch_proc->fp_free(cons->conn, COMCH_FP_CONSUMER, cons);
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
	struct rte_comch_producer *prod;
	struct rte_comch_dev *dev;
	int ret;

	if (conn == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = comch_fp_conn_check(conn, "producer");
	if (dev == NULL)
		return NULL;
	ret = COMCH_FP_OP(dev, producer_create, "producer");
	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	prod = comch_proc->fp_alloc(conn, COMCH_FP_PRODUCER, 0, 0);
	if (prod == NULL)
		return NULL;
	ret = dev->dev_ops->producer_create(dev, prod);
	if (ret < 0) {
		comch_proc->fp_free(conn, COMCH_FP_PRODUCER, prod);
		rte_errno = -ret;
		return NULL;
	}
	return prod;
}

int
rte_comch_producer_start(struct rte_comch_producer *prod)
{
	struct rte_comch_dev *dev;
	int ret;

	if (prod == NULL)
		return -EINVAL;
	if (!comch_state_allows(prod->state, COMCH_OP_START))
		return -EBUSY;
	dev = comch_dev_get(prod->conn->dev_id);
	if (dev->dev_ops->producer_start != NULL) {
		ret = dev->dev_ops->producer_start(dev, prod);
		if (ret < 0)
			return ret;
	}
	comch_state_apply(&prod->state, COMCH_EV_START);
	comch_state_apply(&prod->state, COMCH_EV_READY);
	return 0;
}

int
rte_comch_producer_stop(struct rte_comch_producer *prod)
{
	struct rte_comch_dev *dev;

	if (prod == NULL)
		return -EINVAL;
	if (!comch_state_allows(prod->state, COMCH_OP_STOP))
		return -EBUSY;
	dev = comch_dev_get(prod->conn->dev_id);
	if (dev->dev_ops->producer_stop != NULL)
		dev->dev_ops->producer_stop(dev, prod);
	/* Sends complete synchronously: nothing to drain. */
	comch_state_apply(&prod->state, COMCH_EV_STOP);
	comch_state_apply(&prod->state, COMCH_EV_DRAINED);
	return 0;
}

int
rte_comch_producer_destroy(struct rte_comch_producer *prod)
{
	struct rte_comch_dev *dev;

	if (prod == NULL)
		return 0;
	if (!comch_state_allows(prod->state, COMCH_OP_DESTROY)) {
		COMCH_LOG(ERR, "producer %u: cannot destroy in state %s; stop it first",
			prod->id, rte_comch_state_name(prod->state));
		return -EBUSY;
	}
	dev = comch_dev_get(prod->conn->dev_id);
	if (dev->dev_ops->producer_destroy != NULL)
		dev->dev_ops->producer_destroy(dev, prod);
	comch_proc->fp_free(prod->conn, COMCH_FP_PRODUCER, prod);
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
