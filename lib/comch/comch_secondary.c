/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * A secondary process's side of the seam (comch_proc.h, layer 2): it
 * asks the primary (comch_mp.h requests, answered by comch_serve.c) for
 * everything that touches the link or the shared bookkeeping, and uses
 * its attached connections' producers and consumers directly (their fast
 * path is the same in every process). Its control messages travel through
 * the connection's relay (comch_relay.c): written and read here, moved
 * to and from the link by the primary's poll; the peer's consumers it is
 * told of are mapped here by the driver (remote_add) from what the
 * primary kept of them (comch_remote.c).
 *
 * At its first device the secondary registers with the primary, which
 * hands it one end of a liveness socketpair; when the primary dies, the
 * interrupt thread sees the hang-up and orphans every attached connection:
 * fast-path calls return -ECONNRESET, control calls -ENODEV.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_string_fns.h>

#include "comch_mp.h"
#include "comch_proc.h"

/* A connection this process attached. */
struct comch_sec_attach {
	TAILQ_ENTRY(comch_sec_attach) next;
	struct rte_comch_conn *conn;
	struct comch_relay_shm *relay;   /* once it sent or received */
	uint8_t *arena;                  /* private copies of what it received */
	/* The peer's consumers the driver mapped here, by slot: the id and
	 * the incarnation (0: none), as published when mapped. */
	uint32_t mapped_id[RTE_COMCH_MAX_FP_OBJECTS];
	uint32_t mapped_gen[RTE_COMCH_MAX_FP_OBJECTS];
};

static struct {
	pthread_mutex_t lock;            /* the attachment list */
	uint32_t token;
	int fd;
	struct rte_intr_handle *intr;
	bool gone;                       /* the primary hung up */
	TAILQ_HEAD(, comch_sec_attach) attached;
} sec = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.attached = TAILQ_HEAD_INITIALIZER(sec.attached),
};

static void
sec_fds_close(const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static bool
sec_primary_gone(void)
{
	return __atomic_load_n(&sec.gone, __ATOMIC_ACQUIRE);
}

/*
 * Send @p req to the primary and wait for the reply (in @p reply, zeroed
 * when there is none). fds received are made close-on-exec and handed to
 * the caller in @p reply_fds (closed if it passes NULL). Returns the
 * primary's result, or -ENODEV if it is gone or does not answer.
 */
static int
sec_call(struct comch_mp_request *req, const int *fds, int nb_fds,
		struct comch_mp_reply *reply, int *reply_fds, int *nb_reply_fds)
{
	struct timespec ts = { .tv_sec = COMCH_MP_TIMEOUT_S };
	struct rte_mp_reply replies;
	struct rte_mp_msg msg;
	const struct rte_mp_msg *r;
	int ret, i;

	memset(reply, 0, sizeof(*reply));
	if (nb_reply_fds != NULL)
		*nb_reply_fds = 0;
	if (sec_primary_gone())
		return -ENODEV;
	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, COMCH_MP_ACTION, sizeof(msg.name));
	req->version = COMCH_MP_VERSION;
	req->token = sec.token;
	msg.len_param = sizeof(*req);
	memcpy(msg.param, req, sizeof(*req));
	msg.num_fds = nb_fds;
	if (nb_fds > 0)
		memcpy(msg.fds, fds, sizeof(int) * (size_t)nb_fds);
	memset(&replies, 0, sizeof(replies));
	if (rte_mp_request_sync(&msg, &replies, &ts) < 0 ||
	    replies.nb_received != 1) {
		free(replies.msgs);
		COMCH_LOG(ERR, "mp: the primary process does not answer");
		return -ENODEV;
	}
	r = &replies.msgs[0];
	for (i = 0; i < r->num_fds && i < RTE_MP_MAX_FD_NUM; i++)
		fcntl(r->fds[i], F_SETFD, FD_CLOEXEC);
	if (r->len_param != (int)sizeof(*reply) || r->num_fds < 0 ||
	    r->num_fds > COMCH_MP_FDS) {
		sec_fds_close(r->fds, RTE_MIN(RTE_MAX(r->num_fds, 0),
				RTE_MP_MAX_FD_NUM));
		free(replies.msgs);
		return -EPROTO;
	}
	memcpy(reply, r->param, sizeof(*reply));
	if (reply_fds != NULL && nb_reply_fds != NULL) {
		memcpy(reply_fds, r->fds, sizeof(int) * (size_t)r->num_fds);
		*nb_reply_fds = r->num_fds;
	} else {
		sec_fds_close(r->fds, r->num_fds);
	}
	ret = reply->result;
	free(replies.msgs);
	return ret;
}

static void
sec_req_init(struct comch_mp_request *req, enum comch_mp_type type,
		const struct rte_comch_conn *conn)
{
	memset(req, 0, sizeof(*req));
	req->type = type;
	req->dev_id = conn->dev_id;
	req->conn_id = conn->id;
}

/* The attachment of @p conn, under sec.lock. */
static struct comch_sec_attach *
sec_attach_find(const struct rte_comch_conn *conn)
{
	struct comch_sec_attach *a;

	TAILQ_FOREACH(a, &sec.attached, next)
		if (a->conn == conn)
			return a;
	return NULL;
}

/* ------------------------------------------------------ registration */

/* Interrupt thread: the primary hung up. */
static void
sec_primary_lost_cb(void *arg __rte_unused)
{
	struct comch_sec_attach *a;
	struct rte_comch_dev *dev;
	ssize_t n;
	char b;

	n = recv(sec.fd, &b, 1, MSG_DONTWAIT);
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	rte_intr_callback_unregister_pending(sec.intr, sec_primary_lost_cb,
			NULL, NULL);
	pthread_mutex_lock(&sec.lock);
	__atomic_store_n(&sec.gone, true, __ATOMIC_RELEASE);
	TAILQ_FOREACH(a, &sec.attached, next) {
		dev = comch_dev_get(a->conn->dev_id);
		if (dev != NULL && dev->dev_ops->conn_orphan != NULL)
			dev->dev_ops->conn_orphan(dev, a->conn);
	}
	pthread_mutex_unlock(&sec.lock);
	COMCH_LOG(ERR, "the primary process is gone: connections are lost, new requests fail with ENODEV");
}

static int
sec_dev_first(void)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	int fds[COMCH_MP_FDS], nfds, ret;

	if (sec.fd >= 0)
		return 0;
	memset(&req, 0, sizeof(req));
	req.type = COMCH_MP_REGISTER;
	req.pid = (int32_t)getpid();
	ret = sec_call(&req, NULL, 0, &reply, fds, &nfds);
	if (ret == 0 && nfds != 1)
		ret = -EPROTO;
	if (ret < 0) {
		sec_fds_close(fds, nfds);
		COMCH_LOG(ERR, "cannot register with the primary process: %s",
			rte_strerror(-ret));
		return ret;
	}
	sec.token = reply.token;
	sec.fd = fds[0];
	sec.intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (sec.intr == NULL || rte_intr_fd_set(sec.intr, sec.fd) != 0 ||
	    rte_intr_type_set(sec.intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(sec.intr, sec_primary_lost_cb,
			NULL) < 0) {
		/* Without it a dead primary goes unnoticed: refuse. */
		rte_intr_instance_free(sec.intr);
		sec.intr = NULL;
		close(sec.fd);
		sec.fd = -1;
		COMCH_LOG(ERR, "cannot watch the primary process from the interrupt thread");
		return -EIO;
	}
	return 0;
}

static void
sec_dev_last(void)
{
	struct comch_sec_attach *a;

	if (sec.fd < 0)
		return;
	rte_intr_callback_unregister_sync(sec.intr, sec_primary_lost_cb, NULL);
	rte_intr_instance_free(sec.intr);
	sec.intr = NULL;
	/* The primary reclaims what is left when it sees the hang-up. */
	close(sec.fd);
	sec.fd = -1;
	pthread_mutex_lock(&sec.lock);
	while ((a = TAILQ_FIRST(&sec.attached)) != NULL) {
		TAILQ_REMOVE(&sec.attached, a, next);
		free(a->arena);
		free(a);
	}
	pthread_mutex_unlock(&sec.lock);
}

/* ---------------------------------------------------------- devices */

/* The primary's device of that name. */
static struct rte_comch_dev *
sec_dev_slot(const char *name, int numa_node __rte_unused,
		size_t priv_size __rte_unused)
{
	struct rte_comch_dev_data *table = comch_dev_data_table(false);
	struct rte_comch_dev *dev;
	int16_t i;

	for (i = 0; i < RTE_COMCH_MAX_DEVS; i++)
		if (table[i].in_use &&
		    strncmp(table[i].dev_name, name,
			    sizeof(table[i].dev_name)) == 0)
			break;
	if (i == RTE_COMCH_MAX_DEVS) {
		COMCH_LOG(ERR, "device %s not found in the primary process",
			name);
		rte_errno = ENODEV;
		return NULL;
	}
	dev = &rte_comch_devices[i];
	memset(dev, 0, sizeof(*dev));
	dev->data = &table[i];
	dev->attached = 1;
	return dev;
}

static int
sec_dev_probe(struct rte_comch_dev *dev,
		const struct rte_comch_pmd_probe_ops *ops, void *arg)
{
	return ops->attach != NULL ? ops->attach(dev, arg) : -ENOTSUP;
}

/* The device is the primary's: nothing of it is this process's to free. */
static void
sec_dev_slot_free(struct rte_comch_dev *dev __rte_unused)
{
}

/* ------------------------------------------------------ what it may do */

static int
sec_link_only(const char *what)
{
	COMCH_LOG(ERR, "%s: not supported in a secondary process; the primary process owns the link (servers, clients, connection settings); a secondary attaches to a connection and runs producers, consumers and control messages on it",
		what);
	rte_errno = ENOTSUP;
	return -ENOTSUP;
}

static int
sec_conn_usable(const struct rte_comch_conn *conn, const char *what)
{
	bool found;

	pthread_mutex_lock(&sec.lock);
	found = sec_attach_find(conn) != NULL;
	pthread_mutex_unlock(&sec.lock);
	if (found)
		return 0;
	COMCH_LOG(ERR, "%s: the connection is not attached in this secondary process; use rte_comch_conn_attach()",
		what);
	rte_errno = EINVAL;
	return -EINVAL;
}

/* ------------------------------------------------------ connections */

static int
sec_conn_list(int16_t dev_id, uint32_t *ids, uint32_t nb_ids)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	uint32_t total = 0, got = 0, n, start = 0;
	int ret;

	for (;;) {
		memset(&req, 0, sizeof(req));
		req.type = COMCH_MP_CONN_LIST;
		req.dev_id = dev_id;
		req.arg[0] = start;
		ret = sec_call(&req, NULL, 0, &reply, NULL, NULL);
		if (ret < 0)
			return ret;
		if (start == 0)
			total = reply.count;
		n = RTE_MIN(reply.nb_ids, (uint32_t)COMCH_MP_LIST_PAGE);
		if (n == 0 || got >= nb_ids)
			break;
		n = RTE_MIN(n, nb_ids - got);
		memcpy(&ids[got], reply.ids, n * sizeof(uint32_t));
		got += n;
		if (got >= nb_ids || reply.count <= COMCH_MP_LIST_PAGE ||
		    ids[got - 1] == UINT32_MAX)
			break;
		start = ids[got - 1] + 1;
	}
	return (int)total;
}

static struct rte_comch_conn *
sec_conn_attach(int16_t dev_id, uint32_t conn_id)
{
	struct comch_sec_attach *a;
	struct rte_comch_conn *conn;
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	int ret;

	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	memset(&req, 0, sizeof(req));
	req.type = COMCH_MP_CONN_ATTACH;
	req.dev_id = dev_id;
	req.conn_id = conn_id;
	pthread_mutex_lock(&sec.lock);
	ret = sec_call(&req, NULL, 0, &reply, NULL, NULL);
	conn = ret == 0 ? (struct rte_comch_conn *)(uintptr_t)reply.addr : NULL;
	if (ret == 0 && (conn == NULL || conn->id != conn_id ||
			 conn->dev_id != dev_id))
		ret = -EPROTO;
	if (ret == 0) {
		a->conn = conn;
		TAILQ_INSERT_TAIL(&sec.attached, a, next);
	}
	pthread_mutex_unlock(&sec.lock);
	if (ret < 0) {
		COMCH_LOG(ERR, "conn attach: device %d connection %u: %s",
			dev_id, conn_id, ret == -ENOENT ? "no such connection" :
			ret == -ENOTCONN ? "not running (lost or being released)" :
			ret == -EEXIST ? "already attached by this process" :
			rte_strerror(-ret));
		free(a);
		rte_errno = -ret;
		return NULL;
	}
	return conn;
}

/* Unmap what the driver mapped of the peer's consumers on @p a's
 * connection (this process has no producer left there). */
static void
sec_unmap_all(struct comch_sec_attach *a)
{
	struct rte_comch_dev *dev = comch_dev_get(a->conn->dev_id);
	uint32_t slot;

	for (slot = 0; slot < RTE_COMCH_MAX_FP_OBJECTS; slot++) {
		if (a->mapped_gen[slot] == 0)
			continue;
		a->mapped_gen[slot] = 0;
		if (dev != NULL && dev->dev_ops->remote_del != NULL)
			dev->dev_ops->remote_del(dev, a->conn,
					a->mapped_id[slot]);
	}
}

static int
sec_conn_detach(struct rte_comch_conn *conn)
{
	struct comch_sec_attach *a;
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	int ret;

	pthread_mutex_lock(&sec.lock);
	a = sec_attach_find(conn);
	if (a == NULL) {
		pthread_mutex_unlock(&sec.lock);
		return -EINVAL;
	}
	sec_req_init(&req, COMCH_MP_CONN_DETACH, conn);
	ret = sec_call(&req, NULL, 0, &reply, NULL, NULL);
	if (ret == -EBUSY) {
		pthread_mutex_unlock(&sec.lock);
		COMCH_LOG(ERR, "conn detach: connection %u still has producers or consumers of this process; destroy them first",
			conn->id);
		return -EBUSY;
	}
	/* Detached, or the primary is gone: forget it here too. */
	TAILQ_REMOVE(&sec.attached, a, next);
	pthread_mutex_unlock(&sec.lock);
	sec_unmap_all(a);
	free(a->arena);
	free(a);
	return 0;
}

static int
sec_conn_stats(struct rte_comch_conn *conn, struct rte_comch_conn_stats *stats)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	int ret;

	sec_req_init(&req, COMCH_MP_CONN_STATS, conn);
	ret = sec_call(&req, NULL, 0, &reply, NULL, NULL);
	if (ret == 0)
		*stats = reply.stats;
	return ret;
}

/* ------------------------------------------------- control messages */

/* This process's relay on @p conn (asked of the primary the first time),
 * or NULL with *@p err. */
static struct comch_sec_attach *
sec_relay(struct rte_comch_conn *conn, int *err)
{
	struct comch_sec_attach *a;
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	struct comch_relay_shm *r;

	pthread_mutex_lock(&sec.lock);
	a = sec_attach_find(conn);
	if (a != NULL && a->relay == NULL) {
		sec_req_init(&req, COMCH_MP_RELAY, conn);
		*err = sec_call(&req, NULL, 0, &reply, NULL, NULL);
		r = (struct comch_relay_shm *)(uintptr_t)reply.addr;
		if (*err == 0 && r != NULL) {
			a->arena = malloc(comch_relay_arena_size(r));
			if (a->arena == NULL)
				*err = -ENOMEM;
			else
				a->relay = r;
		}
	}
	if (a == NULL)
		*err = -EINVAL;
	else if (a->relay == NULL && *err == 0)
		*err = -EPROTO;
	pthread_mutex_unlock(&sec.lock);
	return a != NULL && a->relay != NULL ? a : NULL;
}

static int
sec_msg_send(struct rte_comch_conn *conn, const void *data, uint32_t len)
{
	struct comch_sec_attach *a;
	int err;

	if (sec_primary_gone())
		return -ENODEV;
	a = sec_relay(conn, &err);
	if (a == NULL)
		return err;
	return comch_relay_send(a->relay, data, len);
}

static int
sec_msg_recv(struct rte_comch_conn *conn, struct rte_comch_msg *msgs,
		uint16_t nb_msgs)
{
	struct comch_sec_attach *a;
	int err;

	if (sec_primary_gone())
		return -ENODEV;
	a = sec_relay(conn, &err);
	if (a == NULL)
		return err;
	return comch_relay_recv(a->relay, a->arena, msgs, nb_msgs);
}

/* ---------------------------------------------- producers and consumers */

static void *
sec_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t max_imm_len)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	int ret;

	sec_req_init(&req, COMCH_MP_FP_ALLOC, conn);
	req.kind = (uint16_t)kind;
	req.arg[0] = nb_posts;
	req.arg[1] = max_imm_len;
	ret = sec_call(&req, NULL, 0, &reply, NULL, NULL);
	if (ret < 0) {
		COMCH_LOG(ERR, "%s: the primary refused it: %s",
			kind == COMCH_FP_CONSUMER ? "consumer" : "producer",
			rte_strerror(-ret));
		rte_errno = -ret;
		return NULL;
	}
	return (void *)(uintptr_t)reply.addr;
}

static void
sec_fp_free(struct rte_comch_conn *conn, enum comch_fp_kind kind, void *obj)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;

	sec_req_init(&req, COMCH_MP_FP_FREE, conn);
	req.kind = (uint16_t)kind;
	req.obj_id = kind == COMCH_FP_CONSUMER ?
		((struct rte_comch_consumer *)obj)->id :
		((struct rte_comch_producer *)obj)->id;
	/* A gone primary frees nothing any more; nothing to do then. */
	sec_call(&req, NULL, 0, &reply, NULL, NULL);
}

static int
sec_consumer_announce(struct rte_comch_consumer *cons,
		const struct rte_comch_pmd_xfer *x)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;

	if (x->nb_fds > RTE_DIM(x->fds))
		return -EINVAL;
	sec_req_init(&req, COMCH_MP_ANNOUNCE, cons->conn);
	req.obj_id = cons->id;
	req.xfer.nb_fds = x->nb_fds;
	memcpy(req.xfer.val, x->val, sizeof(req.xfer.val));
	return sec_call(&req, x->fds, (int)x->nb_fds, &reply, NULL, NULL);
}

static void
sec_consumer_withdraw(struct rte_comch_consumer *cons)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;

	sec_req_init(&req, COMCH_MP_WITHDRAW, cons->conn);
	req.obj_id = cons->id;
	/* A gone primary took the link with it: nothing to withdraw. */
	sec_call(&req, NULL, 0, &reply, NULL, NULL);
}

/* Ask the primary for what describes the peer's consumer @p id in
 * incarnation @p gen, and have the driver map it here. 0, -ENOENT
 * (withdrawn meanwhile), or a negative errno (logged). */
static int
sec_remote_map(struct rte_comch_dev *dev, struct rte_comch_conn *conn,
		uint32_t id, uint32_t gen)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	struct rte_comch_pmd_xfer x;
	char why[128] = "";
	int nfds = 0, ret;

	sec_req_init(&req, COMCH_MP_REMOTE_EXPORT, conn);
	req.obj_id = id;
	req.gen = gen;
	memset(&x, 0, sizeof(x));
	ret = sec_call(&req, NULL, 0, &reply, x.fds, &nfds);
	if (ret == -ENOENT)
		return ret;
	if (ret == 0 && reply.xfer.nb_fds != (uint32_t)nfds)
		ret = -EPROTO;
	if (ret == 0) {
		x.nb_fds = (uint32_t)nfds;
		memcpy(x.val, reply.xfer.val, sizeof(x.val));
		ret = dev->dev_ops->remote_add(dev, conn, id, gen, &x, why,
				sizeof(why));
	}
	sec_fds_close(x.fds, nfds);
	if (ret < 0)
		COMCH_LOG(ERR, "connection %u: cannot reach the peer's consumer %u from this process: %s",
			conn->id, id, why[0] != '\0' ? why : rte_strerror(-ret));
	return ret;
}

/* Map the peer's consumers the primary published that this process has
 * not mapped yet, and unmap those it no longer publishes. */
static int
sec_remote_sync(struct rte_comch_conn *conn)
{
	struct rte_comch_dev *dev = comch_dev_get(conn->dev_id);
	struct comch_sec_attach *a;
	uint32_t slot, id, gen;
	int ret = 0;

	if (sec_primary_gone())
		return -ENODEV;
	if (dev->dev_ops->remote_add == NULL)
		return 0; /* the driver reaches them by itself */
	pthread_mutex_lock(&sec.lock);
	a = sec_attach_find(conn);
	for (slot = 0; a != NULL && slot < RTE_COMCH_MAX_FP_OBJECTS &&
	     ret == 0; slot++) {
		gen = __atomic_load_n(&conn->remote.gen[slot], __ATOMIC_ACQUIRE);
		id = __atomic_load_n(&conn->remote.id[slot], __ATOMIC_RELAXED);
		if (gen == a->mapped_gen[slot])
			continue;
		if (a->mapped_gen[slot] != 0) {
			a->mapped_gen[slot] = 0;
			if (dev->dev_ops->remote_del != NULL)
				dev->dev_ops->remote_del(dev, conn,
						a->mapped_id[slot]);
		}
		if (gen == 0)
			continue;
		ret = sec_remote_map(dev, conn, id, gen);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret == 0) {
			a->mapped_id[slot] = id;
			a->mapped_gen[slot] = gen;
		}
	}
	pthread_mutex_unlock(&sec.lock);
	return ret;
}

const struct comch_proc_ops comch_secondary_ops = {
	.dev_first = sec_dev_first,
	.dev_last = sec_dev_last,
	.dev_slot = sec_dev_slot,
	.dev_probe = sec_dev_probe,
	.dev_slot_free = sec_dev_slot_free,
	.link_only = sec_link_only,
	.conn_usable = sec_conn_usable,
	.conn_list = sec_conn_list,
	.conn_attach = sec_conn_attach,
	.conn_detach = sec_conn_detach,
	.conn_stats = sec_conn_stats,
	.msg_send = sec_msg_send,
	.msg_recv = sec_msg_recv,
	.fp_alloc = sec_fp_alloc,
	.fp_free = sec_fp_free,
	.consumer_announce = sec_consumer_announce,
	.consumer_withdraw = sec_consumer_withdraw,
	.remote_sync = sec_remote_sync,
};
