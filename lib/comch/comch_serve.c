/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The primary serving secondary processes (layer 2): the requests of
 * comch_mp.h, answered on EAL's multi-process thread with the same local
 * functions the primary uses for itself (comch_local.c), and the reclaim
 * of what a dead secondary owned.
 *
 * Every request is checked: its size, version and type, that the sender
 * registered (its token matches the mp peer it writes from), that the
 * device and connection exist and are attached by the sender, that a
 * producer or consumer it names is its own, and that the sizes it asks
 * for are within the device's capabilities. The secondary never takes a
 * lock the primary takes and never allocates shared memory, so a
 * secondary killed at any point leaves the shared state consistent.
 *
 * Liveness: at registration the primary hands the secondary one end of a
 * socketpair; each side watches its end from its EAL interrupt thread.
 * When a secondary dies (or exits), the primary sees the hang-up and
 * reclaims what it owned: consumers (the peer is told they are gone),
 * producers (the driver repairs what one may have left half done,
 * retrying every millisecond while a live producer may be in the way),
 * its relays, then its attachments. When the primary dies, a secondary
 * sees the hang-up (comch_secondary.c).
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_string_fns.h>
#include <rte_tailq.h>

#include "comch_mp.h"
#include "comch_proc.h"

/* Retry period of a reclaim that waits for a live producer. */
#define COMCH_RECLAIM_RETRY_US 1000

static inline void
comch_mp_checks(void)
{
	RTE_BUILD_BUG_ON(sizeof(struct comch_mp_request) > RTE_MP_MAX_PARAM_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct comch_mp_reply) > RTE_MP_MAX_PARAM_LEN);
	RTE_BUILD_BUG_ON(COMCH_MP_FDS > RTE_MP_MAX_FD_NUM);
	RTE_BUILD_BUG_ON(RTE_DIM(((struct rte_comch_pmd_xfer *)0)->fds) >
			 COMCH_MP_FDS);
	RTE_BUILD_BUG_ON(sizeof(((struct rte_comch_pmd_xfer *)0)->val) !=
			 sizeof(((struct comch_mp_xfer *)0)->val));
}

static void
comch_fds_close(const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* A connection a secondary attached. */
struct comch_attach {
	TAILQ_ENTRY(comch_attach) next;
	struct rte_comch_conn *conn;
	int16_t dev_id;
	uint32_t conn_id;
};

/* A registered secondary process. */
struct comch_proc {
	TAILQ_ENTRY(comch_proc) next;
	char peer[RTE_MP_MAX_NAME_LEN + 128]; /* its mp socket path */
	uint32_t token;
	int32_t pid;
	int fd;                          /* our end of the liveness socketpair */
	struct rte_intr_handle *intr;
	bool dead;                       /* reclaiming what it owned */
	TAILQ_HEAD(, comch_attach) attached;
};

static pthread_mutex_t serve_lock = PTHREAD_MUTEX_INITIALIZER;
static TAILQ_HEAD(, comch_proc) serve_procs = TAILQ_HEAD_INITIALIZER(serve_procs);
static uint32_t serve_next_token = 1;
static bool serve_running;        /* the action is registered */
static bool serve_closing;        /* comch_serve_stop() runs */

static void serve_lost_cb(void *arg);
static void serve_reclaim_retry(void *arg);

static struct comch_proc *
serve_proc_find(uint32_t token, const char *peer)
{
	struct comch_proc *p;

	TAILQ_FOREACH(p, &serve_procs, next)
		if (p->token == token && strcmp(p->peer, peer) == 0)
			return p;
	return NULL;
}

static struct comch_attach *
serve_attach_find(struct comch_proc *p, int16_t dev_id, uint32_t conn_id)
{
	struct comch_attach *a;

	TAILQ_FOREACH(a, &p->attached, next)
		if (a->dev_id == dev_id && a->conn_id == conn_id)
			return a;
	return NULL;
}

static int
serve_register(const struct comch_mp_request *req, const char *peer,
		struct comch_mp_reply *reply, int *reply_fd)
{
	struct comch_proc *p;
	int sv[2];

	if (strlen(peer) >= sizeof(p->peer))
		return -ENAMETOOLONG;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
			0, sv) < 0) {
		free(p);
		return -errno;
	}
	p->intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (p->intr == NULL || rte_intr_fd_set(p->intr, sv[0]) != 0 ||
	    rte_intr_type_set(p->intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(p->intr, serve_lost_cb, p) < 0) {
		rte_intr_instance_free(p->intr);
		close(sv[0]);
		close(sv[1]);
		free(p);
		return -EIO;
	}
	rte_strscpy(p->peer, peer, sizeof(p->peer));
	p->token = serve_next_token++;
	if (serve_next_token == COMCH_OWNER_PRIMARY)
		serve_next_token++;
	p->pid = req->pid;
	p->fd = sv[0];
	TAILQ_INIT(&p->attached);
	TAILQ_INSERT_TAIL(&serve_procs, p, next);
	reply->token = p->token;
	*reply_fd = sv[1];
	COMCH_LOG(INFO, "secondary process %d registered", (int)p->pid);
	return 0;
}

static int
serve_attach(struct comch_proc *p, const struct comch_mp_request *req,
		struct comch_mp_reply *reply)
{
	struct rte_comch_conn *conn;
	struct comch_attach *a;
	int ret = 0;

	if (serve_attach_find(p, req->dev_id, req->conn_id) != NULL)
		return -EEXIST;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	rte_spinlock_lock(&comch_registry_lock);
	conn = comch_conn_find_locked(req->dev_id, req->conn_id);
	if (conn == NULL) {
		ret = -ENOENT;
	} else {
		rte_spinlock_lock(&conn->fp_lock);
		if (conn->closing || conn->state != RTE_COMCH_STATE_RUNNING ||
		    (conn->flags & COMCH_F_RELEASE_PENDING))
			ret = -ENOTCONN;
		else
			conn->nb_attached++;
		rte_spinlock_unlock(&conn->fp_lock);
	}
	rte_spinlock_unlock(&comch_registry_lock);
	if (ret < 0) {
		free(a);
		return ret;
	}
	a->conn = conn;
	a->dev_id = req->dev_id;
	a->conn_id = req->conn_id;
	TAILQ_INSERT_TAIL(&p->attached, a, next);
	reply->addr = (uint64_t)(uintptr_t)conn;
	COMCH_LOG(INFO, "secondary process %d attached to connection %u",
		(int)p->pid, conn->id);
	return 0;
}

static void
serve_attach_drop(struct comch_proc *p, struct comch_attach *a)
{
	comch_relay_retire(a->conn, p->token);
	rte_spinlock_lock(&a->conn->fp_lock);
	a->conn->nb_attached--;
	rte_spinlock_unlock(&a->conn->fp_lock);
	TAILQ_REMOVE(&p->attached, a, next);
	free(a);
}

static int
serve_fp_alloc(struct comch_proc *p, struct comch_attach *a,
		const struct comch_mp_request *req, struct comch_mp_reply *reply)
{
	struct rte_comch_dev_info info;
	void *obj;

	if (comch_dev_info(comch_dev_get(req->dev_id), &info) < 0)
		return -ENODEV;
	if (req->kind == COMCH_FP_CONSUMER) {
		if (req->arg[0] == 0 || req->arg[0] > info.caps.max_posts ||
		    req->arg[1] > info.caps.max_imm_len)
			return -ERANGE;
	} else if (req->kind != COMCH_FP_PRODUCER || req->arg[0] != 0 ||
		   req->arg[1] != 0) {
		return -EINVAL;
	}
	obj = comch_fp_alloc(a->conn, (enum comch_fp_kind)req->kind,
			req->arg[0], req->arg[1], p->token, p->pid);
	if (obj == NULL)
		return -rte_errno;
	reply->addr = (uint64_t)(uintptr_t)obj;
	return 0;
}

static int
serve_announce(struct comch_proc *p, struct comch_attach *a,
		const struct comch_mp_request *req, const struct rte_mp_msg *msg)
{
	struct rte_comch_consumer *cons;
	struct rte_comch_pmd_xfer x;

	/* 0 is never a consumer id; the fds counted are those that came */
	if (req->obj_id == 0 || req->xfer.nb_fds != (uint32_t)msg->num_fds ||
	    req->xfer.nb_fds > RTE_DIM(x.fds))
		return -EINVAL;
	cons = comch_fp_find(a->conn, COMCH_FP_CONSUMER, req->obj_id, p->token);
	if (cons == NULL)
		return -ENOENT;
	memset(&x, 0, sizeof(x));
	x.nb_fds = req->xfer.nb_fds;
	memcpy(x.fds, msg->fds, sizeof(int) * x.nb_fds);
	memcpy(x.val, req->xfer.val, sizeof(x.val));
	return comch_local_announce(cons, &x);
}

static int
serve_remote_export(struct comch_attach *a, const struct comch_mp_request *req,
		struct comch_mp_reply *reply, int *reply_fds, int *nb_reply_fds)
{
	struct rte_comch_pmd_xfer x;
	int ret;

	if (req->gen == 0 || req->gen > UINT32_MAX)
		return -EINVAL;
	ret = comch_remote_export(a->conn, req->obj_id, (uint32_t)req->gen, &x);
	if (ret < 0)
		return ret;
	memcpy(reply_fds, x.fds, sizeof(int) * x.nb_fds);
	*nb_reply_fds = (int)x.nb_fds;
	reply->xfer.nb_fds = x.nb_fds;
	memcpy(reply->xfer.val, x.val, sizeof(x.val));
	return 0;
}

/* One request from a registered process, under serve_lock. */
static int
serve_dispatch(struct comch_proc *p, const struct comch_mp_request *req,
		const struct rte_mp_msg *msg, struct comch_mp_reply *reply,
		int *reply_fds, int *nb_reply_fds)
{
	struct comch_relay_shm *relay;
	struct comch_attach *a;
	uint32_t n;
	void *obj;
	int ret;

	if (req->type <= COMCH_MP_REGISTER || req->type >= COMCH_MP__MAX ||
	    comch_dev_get(req->dev_id) == NULL)
		return -EINVAL;
	/* fds come with an announcement only */
	if (msg->num_fds != 0 && req->type != COMCH_MP_ANNOUNCE)
		return -EINVAL;
	switch (req->type) {
	case COMCH_MP_CONN_LIST:
		n = comch_conn_ids(req->dev_id, req->arg[0], reply->ids,
				COMCH_MP_LIST_PAGE);
		reply->count = n;
		reply->nb_ids = RTE_MIN(n, (uint32_t)COMCH_MP_LIST_PAGE);
		return 0;
	case COMCH_MP_CONN_ATTACH:
		return serve_attach(p, req, reply);
	default:
		break;
	}
	a = serve_attach_find(p, req->dev_id, req->conn_id);
	if (a == NULL)
		return -ENOTCONN;
	switch (req->type) {
	case COMCH_MP_CONN_DETACH:
		if (comch_fp_count(a->conn, p->token) != 0)
			return -EBUSY;
		COMCH_LOG(INFO, "secondary process %d detached from connection %u",
			(int)p->pid, a->conn_id);
		serve_attach_drop(p, a);
		return 0;
	case COMCH_MP_CONN_STATS:
		return comch_local_conn_stats(a->conn, &reply->stats);
	case COMCH_MP_FP_ALLOC:
		return serve_fp_alloc(p, a, req, reply);
	case COMCH_MP_FP_FREE:
		obj = comch_fp_find(a->conn, (enum comch_fp_kind)req->kind,
				req->obj_id, p->token);
		if (obj == NULL)
			return -ENOENT;
		comch_fp_free(a->conn, (enum comch_fp_kind)req->kind, obj);
		return 0;
	case COMCH_MP_ANNOUNCE:
		return serve_announce(p, a, req, msg);
	case COMCH_MP_WITHDRAW:
		obj = comch_fp_find(a->conn, COMCH_FP_CONSUMER, req->obj_id,
				p->token);
		if (obj == NULL)
			return -ENOENT;
		comch_local_withdraw(obj);
		return 0;
	case COMCH_MP_REMOTE_EXPORT:
		return serve_remote_export(a, req, reply, reply_fds,
				nb_reply_fds);
	case COMCH_MP_RELAY:
		relay = comch_relay_get(a->conn, p->token, &ret);
		reply->addr = (uint64_t)(uintptr_t)relay;
		return ret;
	default:
		return -EINVAL;
	}
}

/* The EAL multi-process thread: one request of a secondary. */
static int
serve_handle(const struct rte_mp_msg *msg, const void *peer)
{
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	struct rte_mp_msg out;
	struct comch_proc *p;
	int reply_fds[COMCH_MP_FDS];
	int nb_reply_fds = 0, reg_fd = -1;

	memset(&reply, 0, sizeof(reply));
	if (msg->len_param != (int)sizeof(req) || msg->num_fds < 0 ||
	    msg->num_fds > COMCH_MP_FDS) {
		COMCH_LOG(ERR, "mp: malformed request from %s (%d bytes, %d fds)",
			(const char *)peer, msg->len_param, msg->num_fds);
		reply.result = -EINVAL;
	} else {
		memcpy(&req, msg->param, sizeof(req));
		pthread_mutex_lock(&serve_lock);
		if (req.version != COMCH_MP_VERSION) {
			reply.result = -EPROTO;
		} else if (serve_closing) {
			reply.result = -ENODEV;
		} else if (req.type == COMCH_MP_REGISTER) {
			reply.result = msg->num_fds != 0 ? -EINVAL :
				serve_register(&req, peer, &reply, &reg_fd);
		} else {
			p = serve_proc_find(req.token, peer);
			if (p == NULL || p->dead)
				reply.result = -EPERM;
			else
				reply.result = serve_dispatch(p, &req, msg,
						&reply, reply_fds, &nb_reply_fds);
		}
		pthread_mutex_unlock(&serve_lock);
	}
	/* The request's fds were the handler's to use: done with them. */
	if (msg->num_fds > 0 && msg->num_fds <= RTE_MP_MAX_FD_NUM)
		comch_fds_close(msg->fds, msg->num_fds);

	memset(&out, 0, sizeof(out));
	rte_strscpy(out.name, COMCH_MP_ACTION, sizeof(out.name));
	out.len_param = sizeof(reply);
	memcpy(out.param, &reply, sizeof(reply));
	if (reg_fd >= 0) {
		out.fds[0] = reg_fd;
		out.num_fds = 1;
	} else {
		memcpy(out.fds, reply_fds, sizeof(int) * (size_t)nb_reply_fds);
		out.num_fds = nb_reply_fds;
	}
	if (rte_mp_reply(&out, peer) < 0)
		COMCH_LOG(NOTICE, "mp: cannot answer %s: %s", (const char *)peer,
			rte_strerror(rte_errno));
	/* Sent (the secondary has duplicates), or never will be: for the
	 * liveness socket, ours then hangs up and the process is reclaimed. */
	comch_fds_close(out.fds, out.num_fds);
	return 0;
}

/* ------------------------------------------------------------- reclaim */

struct serve_repair {
	struct rte_comch_dev *dev;
	uint32_t token;
	struct rte_comch_producer *done[RTE_COMCH_MAX_FP_OBJECTS];
	uint32_t nb_done;
	bool waiting;
};

static int
serve_mark_dead(struct rte_comch_producer *pr, void *arg)
{
	struct serve_repair *r = arg;

	if (pr->owner == r->token)
		pr->reclaiming = true;
	return 0;
}

static int
serve_repair_one(struct rte_comch_producer *pr, void *arg)
{
	struct serve_repair *r = arg;

	if (pr->owner != r->token)
		return 0;
	if (r->dev->dev_ops->producer_repair != NULL &&
	    r->dev->dev_ops->producer_repair(r->dev, pr) == -EAGAIN)
		r->waiting = true;
	else
		r->done[r->nb_done++] = pr;
	return 0;
}

/*
 * Reclaim what a dead secondary owned on one connection: its consumers
 * (the peer is told), its producers (the driver repairs what one may have
 * left half done, or asks to wait for a live producer), its relay, then
 * the attachment. -EAGAIN while a producer must wait. Under serve_lock.
 */
static int
serve_attach_reclaim(struct comch_proc *p, struct comch_attach *a)
{
	struct rte_comch_conn *conn = a->conn;
	struct serve_repair r = { .dev = comch_dev_get(a->dev_id),
		.token = p->token };
	struct rte_comch_consumer *c;
	uint32_t nb_cons = 0, i;

	for (;;) {
		rte_spinlock_lock(&conn->fp_lock);
		TAILQ_FOREACH(c, &conn->consumers, next)
			if (c->owner == p->token && !c->reclaiming)
				break;
		if (c != NULL)
			c->reclaiming = true;
		rte_spinlock_unlock(&conn->fp_lock);
		if (c == NULL)
			break;
		comch_local_withdraw(c);
		comch_fp_free(conn, COMCH_FP_CONSUMER, c);
		nb_cons++;
	}
	/* Producers: all of the dead process's are marked first, so the
	 * driver counts none of them as live. */
	rte_spinlock_lock(&conn->fp_lock);
	rte_comch_pmd_conn_producers(conn, serve_mark_dead, &r);
	rte_comch_pmd_conn_producers(conn, serve_repair_one, &r);
	rte_spinlock_unlock(&conn->fp_lock);
	for (i = 0; i < r.nb_done; i++)
		comch_fp_free(conn, COMCH_FP_PRODUCER, r.done[i]);
	if (nb_cons != 0 || r.nb_done != 0)
		COMCH_LOG(NOTICE, "secondary process %d is gone: destroyed its %u consumer(s) and %u producer(s) on connection %u",
			(int)p->pid, nb_cons, r.nb_done, a->conn_id);
	if (r.waiting)
		return -EAGAIN;
	serve_attach_drop(p, a);
	return 0;
}

static void
serve_proc_free(struct comch_proc *p)
{
	close(p->fd);
	rte_intr_instance_free(p->intr);
	free(p);
}

/* Reclaim everything of @p p; free it when done, else retry later. Under
 * serve_lock. */
static void
serve_proc_reclaim(struct comch_proc *p)
{
	struct comch_attach *a, *tmp;

	p->dead = true;
	RTE_TAILQ_FOREACH_SAFE(a, &p->attached, next, tmp)
		serve_attach_reclaim(p, a);
	if (!TAILQ_EMPTY(&p->attached)) {
		if (rte_eal_alarm_set(COMCH_RECLAIM_RETRY_US,
				serve_reclaim_retry, p) == 0)
			return;
		COMCH_LOG(ERR, "cannot schedule the rest of the reclaim of secondary process %d",
			(int)p->pid);
	}
	TAILQ_REMOVE(&serve_procs, p, next);
	serve_proc_free(p);
}

static void
serve_reclaim_retry(void *arg)
{
	pthread_mutex_lock(&serve_lock);
	if (!serve_closing)
		serve_proc_reclaim(arg);
	pthread_mutex_unlock(&serve_lock);
}

/* Interrupt thread: the liveness socket of a secondary is readable, which
 * only happens when it hangs up. */
static void
serve_lost_cb(void *arg)
{
	struct comch_proc *p = arg;
	ssize_t n;
	char b;

	n = recv(p->fd, &b, 1, MSG_DONTWAIT);
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	pthread_mutex_lock(&serve_lock);
	if (serve_closing) {
		pthread_mutex_unlock(&serve_lock);
		return;
	}
	rte_intr_callback_unregister_pending(p->intr, serve_lost_cb, p, NULL);
	COMCH_LOG(INFO, "secondary process %d is gone", (int)p->pid);
	serve_proc_reclaim(p);
	pthread_mutex_unlock(&serve_lock);
}

void
comch_serve_start(void)
{
	if (serve_running)
		return;
	comch_mp_checks();
	serve_closing = false;
	if (rte_mp_action_register(COMCH_MP_ACTION, serve_handle) < 0) {
		/* --in-memory / --no-shconf: there can be no secondary. */
		COMCH_LOG(DEBUG, "mp: no multi-process channel (%s); secondary processes cannot attach",
			rte_strerror(rte_errno));
		return;
	}
	serve_running = true;
}

void
comch_serve_stop(void)
{
	TAILQ_HEAD(, comch_proc) list = TAILQ_HEAD_INITIALIZER(list);
	struct comch_proc *p;
	struct comch_attach *a;

	if (!serve_running)
		return;
	rte_mp_action_unregister(COMCH_MP_ACTION);
	serve_running = false;
	pthread_mutex_lock(&serve_lock);
	serve_closing = true;
	TAILQ_CONCAT(&list, &serve_procs, next);
	pthread_mutex_unlock(&serve_lock);
	rte_eal_alarm_cancel(serve_reclaim_retry, (void *)-1);
	/* Outside the lock: a running callback finishes (and, seeing
	 * closing, does nothing) before this returns. */
	while ((p = TAILQ_FIRST(&list)) != NULL) {
		TAILQ_REMOVE(&list, p, next);
		rte_intr_callback_unregister_sync(p->intr, serve_lost_cb, p);
		while ((a = TAILQ_FIRST(&p->attached)) != NULL) {
			TAILQ_REMOVE(&p->attached, a, next);
			free(a);
		}
		/* Closing our end tells the secondary we are gone. */
		serve_proc_free(p);
	}
}
