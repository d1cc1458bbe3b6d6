/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fast-path objects, control side: the per-process fast-path table,
 * registered memory, consumers and producers (create, start, stop,
 * destroy), and consumer events. The fast path itself is the inline
 * functions of rte_comch.h calling the driver through rte_comch_fp_ops[].
 *
 * A producer or consumer is one block of shared memory: the library
 * object, then the driver's state at fp.drv. The primary process
 * allocates, links and frees every block (comch_fp_alloc/comch_fp_free),
 * for itself or for a secondary that asked (comch_mp.c); the owner
 * process initialises and uses it (the driver's create/start/stop/destroy
 * ops and the fast path).
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
comch_dummy_sendv(void *p __rte_unused, uint32_t id __rte_unused,
		const struct rte_comch_sendv_op *ops __rte_unused,
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
	.post = comch_dummy_post, .poll = comch_dummy_poll, \
	.sendv = comch_dummy_sendv }

struct rte_comch_fp_ops rte_comch_fp_ops[RTE_COMCH_MAX_DEVS] = {
	[0 ... RTE_COMCH_MAX_DEVS - 1] = COMCH_DUMMY_FP,
};

void
rte_comch_pmd_probing_finish(struct rte_comch_dev *dev)
{
	struct rte_comch_fp_ops *fp = &rte_comch_fp_ops[dev->data->dev_id];

	fp->send = dev->dev_ops->fp_send;
	fp->sendv = dev->dev_ops->fp_sendv;
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
	mem->dev->dev_ops->mem_destroy(mem->dev, mem);
	free(mem);
	return 0;
}

/* ------------------------------------- allocation (primary process only) */

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

static bool
comch_id_used(const uint64_t *map, uint32_t id)
{
	return (map[id / 64] >> (id % 64)) & 1;
}

/* The next consumer id of @p conn, under conn->fp_lock: the smallest id
 * above every one handed out so far whose slot is free (see
 * COMCH_CONSUMER_SLOT). -ENOSPC if the connection has max consumers,
 * -EOVERFLOW if its ids are used up. */
static int64_t
comch_consumer_id_alloc(struct rte_comch_conn *conn, uint32_t max)
{
	uint64_t id = conn->next_consumer_id;
	uint32_t n, live = 0;

	for (n = 0; n < COMCH_MAX_FP_OBJECTS / 64; n++)
		live += (uint32_t)__builtin_popcountll(conn->consumer_slots[n]);
	if (live >= max)
		return -ENOSPC;
	if (id == 0)
		id = 1; /* a connection's first consumer */
	/* At most COMCH_MAX_FP_OBJECTS - 1 slots are taken: a free one is
	 * at most that far. */
	while (id <= UINT32_MAX &&
	       comch_id_used(conn->consumer_slots, COMCH_CONSUMER_SLOT(id)))
		id++;
	if (id > UINT32_MAX) {
		conn->next_consumer_id = id;
		return -EOVERFLOW;
	}
	conn->consumer_slots[COMCH_CONSUMER_SLOT(id) / 64] |=
		UINT64_C(1) << (COMCH_CONSUMER_SLOT(id) % 64);
	conn->next_consumer_id = id + 1;
	return (int64_t)id;
}

void *
comch_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t imm_data_len, uint32_t owner,
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
	rte_comch_info_get(conn->dev_id, &info);
	max = is_cons ? info.caps.max_consumers : info.caps.max_producers;
	head = RTE_ALIGN_CEIL(is_cons ? sizeof(*cons) : sizeof(*prod),
			RTE_CACHE_LINE_SIZE);
	priv = is_cons ? dev->dev_ops->consumer_priv_size :
		dev->dev_ops->producer_priv_size;
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
		cons->imm_data_len = imm_data_len;
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
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);

	rte_spinlock_lock(&conn->fp_lock);
	if (kind == COMCH_FP_CONSUMER) {
		struct rte_comch_consumer *cons = obj;

		TAILQ_REMOVE(&conn->consumers, cons, next);
		comch_id_free(conn->consumer_slots,
				COMCH_CONSUMER_SLOT(cons->id));
	} else {
		struct rte_comch_producer *prod = obj;

		TAILQ_REMOVE(&conn->producers, prod, next);
		comch_id_free(conn->producer_ids, prod->id);
	}
	conn->nb_fp_objects--;
	rte_spinlock_unlock(&conn->fp_lock);
	rte_free(obj);
	if (dev != NULL)
		dev->dev_ops->fp_release(dev, conn);
}

/* The block for a new object of this process: allocated here in the
 * primary, by the primary on request in a secondary. */
static void *
comch_fp_obtain(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t imm_data_len)
{
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		return comch_fp_alloc(conn, kind, nb_posts, imm_data_len,
				COMCH_OWNER_PRIMARY, (int32_t)getpid());
	return comch_mp_fp_alloc(conn, kind, nb_posts, imm_data_len);
}

static void
comch_fp_give_back(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		void *obj)
{
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		comch_fp_free(conn, kind, obj);
	else
		comch_mp_fp_free(conn, kind, obj);
}

/* A connection this process may put producers and consumers on. */
static struct rte_comch_dev *
comch_fp_conn_check(struct rte_comch_conn *conn, const char *what)
{
	struct rte_comch_dev *dev;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY &&
	    !comch_mp_conn_attached(conn)) {
		COMCH_LOG(ERR, "%s: the connection is not attached in this secondary process; use rte_comch_conn_attach()",
			what);
		rte_errno = EINVAL;
		return NULL;
	}
	dev = comch_dev_get(conn->dev_id);
	if (dev == NULL)
		rte_errno = ENODEV;
	return dev;
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
	rte_comch_info_get(conn->dev_id, &info);
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
	cons = comch_fp_obtain(conn, COMCH_FP_CONSUMER, nb_posts, imm);
	if (cons == NULL)
		return NULL;
	cons->mem = conf->mem;
	ret = dev->dev_ops->consumer_create(dev, cons);
	if (ret < 0) {
		comch_fp_give_back(conn, COMCH_FP_CONSUMER, cons);
		rte_errno = -ret;
		return NULL;
	}
	__atomic_fetch_add(&conf->mem->nb_users, 1, __ATOMIC_RELEASE);
	return cons;
}

int
rte_comch_consumer_start(struct rte_comch_consumer *cons)
{
	struct rte_comch_dev *dev;
	int ret;

	if (cons == NULL)
		return -EINVAL;
	if (!comch_state_allows(cons->state, COMCH_OP_START))
		return -EBUSY;
	dev = comch_dev_get(cons->conn->dev_id);
	ret = dev->dev_ops->consumer_start(dev, cons);
	if (ret < 0)
		return ret;
	comch_state_apply(&cons->state, COMCH_EV_START);
	comch_state_apply(&cons->state, COMCH_EV_READY);
	return 0;
}

int
rte_comch_consumer_stop(struct rte_comch_consumer *cons)
{
	struct rte_comch_dev *dev;

	if (cons == NULL)
		return -EINVAL;
	if (!comch_state_allows(cons->state, COMCH_OP_STOP) ||
	    cons->state == RTE_COMCH_STATE_STOPPING)
		return -EBUSY;
	comch_state_apply(&cons->state, COMCH_EV_STOP);
	/* The driver moves it to idle once every posted buffer came back. */
	dev = comch_dev_get(cons->conn->dev_id);
	return dev->dev_ops->consumer_stop(dev, cons);
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
	dev->dev_ops->consumer_destroy(dev, cons);
	__atomic_fetch_sub(&cons->mem->nb_users, 1, __ATOMIC_RELEASE);
	comch_fp_give_back(cons->conn, COMCH_FP_CONSUMER, cons);
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
	prod = comch_fp_obtain(conn, COMCH_FP_PRODUCER, 0, 0);
	if (prod == NULL)
		return NULL;
	ret = dev->dev_ops->producer_create(dev, prod);
	if (ret < 0) {
		comch_fp_give_back(conn, COMCH_FP_PRODUCER, prod);
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
	ret = dev->dev_ops->producer_start(dev, prod);
	if (ret < 0)
		return ret;
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
	dev->dev_ops->producer_destroy(dev, prod);
	comch_fp_give_back(prod->conn, COMCH_FP_PRODUCER, prod);
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
	struct rte_comch_dev *dev;

	if (conn == NULL || (ids == NULL && nb_ids != 0))
		return -EINVAL;
	dev = comch_fp_conn_check(conn, "remote consumers");
	if (dev == NULL)
		return -rte_errno;
	return dev->dev_ops->conn_remote_consumers(conn, ids, nb_ids);
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
