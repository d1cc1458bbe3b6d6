/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Multi-process: secondary processes attach to connections of the primary
 * and run producers and consumers on them.
 *
 * One rte_mp action, COMCH_MP_ACTION, carries every request from a
 * secondary to the primary (struct comch_mp_req, answered with struct
 * comch_mp_rep); the primary's handler runs on the EAL multi-process thread
 * and serialises requests and reclaims under comch_mp_lock.
 *
 *   REGISTER     at the first device of a secondary: the primary answers
 *                with a token and one end of a socketpair ("liveness")
 *   CONN_LIST    connection ids of a device
 *   CONN_ATTACH  take a reference on a connection: the primary refuses to
 *                release it until the secondary detaches or dies
 *   CONN_DETACH  drop it (none of the secondary's objects left on it)
 *   CONN_STATS   statistics of an attached connection
 *   FP_ALLOC     the primary allocates, numbers and links a producer or
 *                consumer owned by the secondary, and answers its address
 *   FP_FREE      ... and frees it
 *   DRIVER       a driver request (rte_comch_pmd_mp_request()), handed to
 *                the driver's mp_request op with the objects resolved
 *
 * Every request is checked: its size, version and type, that the sender
 * registered (its token matches the mp peer it writes from), that the
 * device and connection exist and are attached by the sender, and that a
 * producer or consumer it names is its own. The secondary never takes a
 * lock the primary takes and never allocates shared memory, so killing it
 * at any point leaves the shared state consistent.
 *
 * Liveness: each side registers its end of the socketpair with its EAL
 * interrupt thread. When a secondary dies (or exits), the primary sees the
 * hang-up and reclaims what it owned: consumers (the peer is told they are
 * gone), producers (the driver repairs what one may have left half
 * written, retrying every millisecond while a live producer is in the
 * way), then its attachments. When the primary dies, a secondary sees the
 * hang-up and orphans its attached connections: fast-path calls return
 * -ECONNRESET, control calls -ENODEV.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "comch_private.h"

/* Retry period of a reclaim that waits for a live producer. */
#define COMCH_RECLAIM_RETRY_US 1000

static inline void
comch_mp_checks(void)
{
	RTE_BUILD_BUG_ON(sizeof(struct comch_mp_req) > RTE_MP_MAX_PARAM_LEN);
	RTE_BUILD_BUG_ON(sizeof(struct comch_mp_rep) > RTE_MP_MAX_PARAM_LEN);
	RTE_BUILD_BUG_ON(RTE_COMCH_PMD_MP_FDS > RTE_MP_MAX_FD_NUM);
	RTE_BUILD_BUG_ON(sizeof(struct rte_comch_conn_stats) >
			 RTE_COMCH_PMD_MP_DATA_MAX);
}

static void
comch_fds_close(const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* ================================================ primary process side */

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

static pthread_mutex_t comch_mp_lock = PTHREAD_MUTEX_INITIALIZER;
static TAILQ_HEAD(, comch_proc) comch_procs = TAILQ_HEAD_INITIALIZER(comch_procs);
static uint32_t comch_next_token = 1;
static bool comch_mp_serving;      /* the action is registered */
static bool comch_mp_closing;      /* comch_mp_primary_fini() runs */

static void comch_proc_lost_cb(void *arg);
static void comch_proc_reclaim_retry(void *arg);

static struct comch_proc *
comch_proc_find(uint32_t token, const char *peer)
{
	struct comch_proc *p;

	TAILQ_FOREACH(p, &comch_procs, next)
		if (p->token == token && strcmp(p->peer, peer) == 0)
			return p;
	return NULL;
}

static struct comch_attach *
comch_attach_find(struct comch_proc *p, int16_t dev_id, uint32_t conn_id)
{
	struct comch_attach *a;

	TAILQ_FOREACH(a, &p->attached, next)
		if (a->dev_id == dev_id && a->conn_id == conn_id)
			return a;
	return NULL;
}

/* The producer or consumer @p kind/@p id of @p conn if @p token owns it
 * and it is not being reclaimed. */
static void *
comch_owned_obj(struct rte_comch_conn *conn, uint16_t kind, uint32_t id,
		uint32_t token)
{
	struct rte_comch_consumer *c;
	struct rte_comch_producer *pr;
	void *obj = NULL;

	rte_spinlock_lock(&conn->fp_lock);
	if (kind == COMCH_FP_CONSUMER) {
		TAILQ_FOREACH(c, &conn->consumers, next)
			if (c->id == id && c->owner == token && !c->reclaiming)
				obj = c;
	} else if (kind == COMCH_FP_PRODUCER) {
		TAILQ_FOREACH(pr, &conn->producers, next)
			if (pr->id == id && pr->owner == token && !pr->reclaiming)
				obj = pr;
	}
	rte_spinlock_unlock(&conn->fp_lock);
	return obj;
}

/* Producers and consumers @p token owns on @p conn. */
static uint32_t
comch_owned_count(struct rte_comch_conn *conn, uint32_t token)
{
	struct rte_comch_consumer *c;
	struct rte_comch_producer *pr;
	uint32_t n = 0;

	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_FOREACH(c, &conn->consumers, next)
		n += c->owner == token;
	TAILQ_FOREACH(pr, &conn->producers, next)
		n += pr->owner == token;
	rte_spinlock_unlock(&conn->fp_lock);
	return n;
}

static int
comch_mp_register(const struct comch_mp_req *req, const char *peer,
		struct comch_mp_rep *rep, int *rep_fd)
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
	    rte_intr_callback_register(p->intr, comch_proc_lost_cb, p) < 0) {
		rte_intr_instance_free(p->intr);
		close(sv[0]);
		close(sv[1]);
		free(p);
		return -EIO;
	}
	rte_strscpy(p->peer, peer, sizeof(p->peer));
	p->token = comch_next_token++;
	if (comch_next_token == COMCH_OWNER_PRIMARY)
		comch_next_token++;
	p->pid = req->pid;
	p->fd = sv[0];
	TAILQ_INIT(&p->attached);
	TAILQ_INSERT_TAIL(&comch_procs, p, next);
	rep->token = p->token;
	*rep_fd = sv[1];
	COMCH_LOG(INFO, "secondary process %d registered", (int)p->pid);
	return 0;
}

static int
comch_mp_attach(struct comch_proc *p, const struct comch_mp_req *req,
		struct comch_mp_rep *rep)
{
	struct rte_comch_conn *conn;
	struct comch_attach *a;
	int ret = 0;

	if (comch_attach_find(p, req->dev_id, req->conn_id) != NULL)
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
	rep->addr = (uint64_t)(uintptr_t)conn;
	COMCH_LOG(INFO, "secondary process %d attached to connection %u",
		(int)p->pid, conn->id);
	return 0;
}

static void
comch_attach_drop(struct comch_proc *p, struct comch_attach *a)
{
	rte_spinlock_lock(&a->conn->fp_lock);
	a->conn->nb_attached--;
	rte_spinlock_unlock(&a->conn->fp_lock);
	TAILQ_REMOVE(&p->attached, a, next);
	free(a);
}

static int
comch_mp_fp_alloc_req(struct comch_proc *p, struct comch_attach *a,
		const struct comch_mp_req *req, struct comch_mp_rep *rep)
{
	struct rte_comch_dev_info info;
	void *obj;

	if (rte_comch_info_get(req->dev_id, &info) < 0)
		return -ENODEV;
	if (req->kind == COMCH_FP_CONSUMER) {
		if (req->arg[0] == 0 || req->arg[0] > info.caps.max_post_tasks ||
		    req->arg[1] > info.caps.max_imm_data_len)
			return -ERANGE;
	} else if (req->kind != COMCH_FP_PRODUCER || req->arg[0] != 0 ||
		   req->arg[1] != 0) {
		return -EINVAL;
	}
	obj = comch_fp_alloc(a->conn, (enum comch_fp_kind)req->kind,
			req->arg[0], req->arg[1], p->token, p->pid);
	if (obj == NULL)
		return -rte_errno;
	rep->addr = (uint64_t)(uintptr_t)obj;
	return 0;
}

static int
comch_mp_driver_req(struct comch_proc *p, struct comch_attach *a,
		const struct comch_mp_req *req, const struct rte_mp_msg *msg,
		struct comch_mp_rep *rep, int *rep_fds, int *nb_rep_fds)
{
	struct rte_comch_dev *dev = comch_dev_get(req->dev_id);
	struct rte_comch_consumer *cons = NULL;
	struct rte_comch_producer *prod = NULL;
	size_t rep_len = 0;
	int ret;

	if (dev == NULL)
		return -ENODEV;
	if (req->data_len > sizeof(req->data))
		return -EINVAL;
	if (req->kind != 0) {
		void *obj = comch_owned_obj(a->conn, req->kind, req->obj_id,
				p->token);

		if (obj == NULL)
			return -ENOENT;
		if (req->kind == COMCH_FP_CONSUMER)
			cons = obj;
		else
			prod = obj;
	}
	ret = dev->dev_ops->mp_request(dev, a->conn, cons, prod, req->data,
			req->data_len, msg->fds, msg->num_fds, rep->data,
			&rep_len, rep_fds, nb_rep_fds);
	if (rep_len > sizeof(rep->data) || *nb_rep_fds < 0 ||
	    *nb_rep_fds > RTE_COMCH_PMD_MP_FDS) {
		*nb_rep_fds = 0;
		return -EIO;
	}
	rep->data_len = (uint32_t)rep_len;
	return ret;
}

/* One request from a registered process, under comch_mp_lock. */
static int
comch_mp_dispatch(struct comch_proc *p, const struct comch_mp_req *req,
		const struct rte_mp_msg *msg, struct comch_mp_rep *rep,
		int *rep_fds, int *nb_rep_fds)
{
	struct rte_comch_conn_stats st;
	struct comch_attach *a;
	uint32_t n;
	void *obj;
	int ret;

	if (req->type <= COMCH_MP_REGISTER || req->type >= COMCH_MP__MAX ||
	    comch_dev_get(req->dev_id) == NULL)
		return -EINVAL;
	switch (req->type) {
	case COMCH_MP_CONN_LIST:
		n = comch_conn_ids(req->dev_id, req->arg[0],
				(uint32_t *)(void *)rep->data, COMCH_MP_LIST_PAGE);
		rep->count = n;
		rep->data_len = (uint32_t)(RTE_MIN(n, COMCH_MP_LIST_PAGE) *
				sizeof(uint32_t));
		return 0;
	case COMCH_MP_CONN_ATTACH:
		return comch_mp_attach(p, req, rep);
	default:
		break;
	}
	a = comch_attach_find(p, req->dev_id, req->conn_id);
	if (a == NULL)
		return -ENOTCONN;
	switch (req->type) {
	case COMCH_MP_CONN_DETACH:
		if (comch_owned_count(a->conn, p->token) != 0)
			return -EBUSY;
		COMCH_LOG(INFO, "secondary process %d detached from connection %u",
			(int)p->pid, a->conn_id);
		comch_attach_drop(p, a);
		return 0;
	case COMCH_MP_CONN_STATS:
		ret = rte_comch_conn_stats_get(a->conn, &st);
		memcpy(rep->data, &st, sizeof(st));
		rep->data_len = sizeof(st);
		return ret;
	case COMCH_MP_FP_ALLOC:
		return comch_mp_fp_alloc_req(p, a, req, rep);
	case COMCH_MP_FP_FREE:
		obj = comch_owned_obj(a->conn, req->kind, req->obj_id, p->token);
		if (obj == NULL)
			return -ENOENT;
		comch_fp_free(a->conn, (enum comch_fp_kind)req->kind, obj);
		return 0;
	case COMCH_MP_DRIVER:
		return comch_mp_driver_req(p, a, req, msg, rep, rep_fds,
				nb_rep_fds);
	default:
		return -EINVAL;
	}
}

/* The EAL multi-process thread: one request of a secondary. */
static int
comch_mp_handle(const struct rte_mp_msg *msg, const void *peer)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	struct rte_mp_msg out;
	struct comch_proc *p;
	int rep_fds[RTE_COMCH_PMD_MP_FDS];
	int nb_rep_fds = 0, reg_fd = -1;

	memset(&rep, 0, sizeof(rep));
	if (msg->len_param != (int)sizeof(req) || msg->num_fds < 0 ||
	    msg->num_fds > RTE_COMCH_PMD_MP_FDS) {
		COMCH_LOG(ERR, "mp: malformed request from %s (%d bytes, %d fds)",
			(const char *)peer, msg->len_param, msg->num_fds);
		rep.result = -EINVAL;
	} else {
		memcpy(&req, msg->param, sizeof(req));
		pthread_mutex_lock(&comch_mp_lock);
		if (req.version != COMCH_MP_VERSION) {
			rep.result = -EPROTO;
		} else if (comch_mp_closing) {
			rep.result = -ENODEV;
		} else if (req.type == COMCH_MP_REGISTER) {
			rep.result = comch_mp_register(&req, peer, &rep,
					&reg_fd);
		} else {
			p = comch_proc_find(req.token, peer);
			if (p == NULL || p->dead)
				rep.result = -EPERM;
			else
				rep.result = comch_mp_dispatch(p, &req, msg,
						&rep, rep_fds, &nb_rep_fds);
		}
		pthread_mutex_unlock(&comch_mp_lock);
	}
	/* The request's fds were the handler's to use: done with them. */
	if (msg->num_fds > 0 && msg->num_fds <= RTE_MP_MAX_FD_NUM)
		comch_fds_close(msg->fds, msg->num_fds);

	memset(&out, 0, sizeof(out));
	rte_strscpy(out.name, COMCH_MP_ACTION, sizeof(out.name));
	out.len_param = sizeof(rep);
	memcpy(out.param, &rep, sizeof(rep));
	if (reg_fd >= 0) {
		out.fds[0] = reg_fd;
		out.num_fds = 1;
	} else {
		memcpy(out.fds, rep_fds, sizeof(int) * (size_t)nb_rep_fds);
		out.num_fds = nb_rep_fds;
	}
	if (rte_mp_reply(&out, peer) < 0)
		COMCH_LOG(NOTICE, "mp: cannot answer %s: %s", (const char *)peer,
			rte_strerror(rte_errno));
	/* Sent (the secondary has duplicates), or never will be: for the
	 * liveness socket, ours then hangs up and the process is reclaimed. */
	comch_fds_close(out.fds, out.num_fds);
	return 0;
}

/*
 * Reclaim what a dead secondary owned on one connection: its consumers
 * (the driver tells the peer), its producers (the driver repairs what one
 * may have left half done, or asks to wait for a live producer), then the
 * attachment. Returns -EAGAIN while a producer must wait. Under
 * comch_mp_lock.
 */
static int
comch_attach_reclaim(struct comch_proc *p, struct comch_attach *a)
{
	struct rte_comch_conn *conn = a->conn;
	struct rte_comch_dev *dev = comch_dev_get(a->dev_id);
	struct rte_comch_consumer *c;
	struct rte_comch_producer *pr, *done[COMCH_MAX_FP_OBJECTS];
	uint32_t nb_cons = 0, nb_done = 0, i;
	bool waiting = false;

	/* Consumers, one at a time: telling the peer may wait for a
	 * congested link, so not under the lock. */
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
		dev->dev_ops->consumer_reclaim(dev, c);
		comch_fp_free(conn, COMCH_FP_CONSUMER, c);
		nb_cons++;
	}

	/* Producers: all of the dead process's are marked first, so the
	 * driver counts none of them as live. */
	rte_spinlock_lock(&conn->fp_lock);
	TAILQ_FOREACH(pr, &conn->producers, next)
		if (pr->owner == p->token)
			pr->reclaiming = true;
	TAILQ_FOREACH(pr, &conn->producers, next) {
		if (pr->owner != p->token)
			continue;
		if (dev->dev_ops->producer_reclaim(dev, pr) == -EAGAIN)
			waiting = true;
		else
			done[nb_done++] = pr;
	}
	rte_spinlock_unlock(&conn->fp_lock);
	for (i = 0; i < nb_done; i++)
		comch_fp_free(conn, COMCH_FP_PRODUCER, done[i]);
	if (nb_cons != 0 || nb_done != 0)
		COMCH_LOG(NOTICE, "secondary process %d is gone: destroyed its %u consumer(s) and %u producer(s) on connection %u",
			(int)p->pid, nb_cons, nb_done, a->conn_id);
	if (waiting)
		return -EAGAIN;
	comch_attach_drop(p, a);
	return 0;
}

static void
comch_proc_free(struct comch_proc *p)
{
	close(p->fd);
	rte_intr_instance_free(p->intr);
	free(p);
}

/* Reclaim everything of @p p; free it when done, else retry later. Under
 * comch_mp_lock. */
static void
comch_proc_reclaim(struct comch_proc *p)
{
	struct comch_attach *a, *tmp;

	p->dead = true;
	RTE_TAILQ_FOREACH_SAFE(a, &p->attached, next, tmp)
		comch_attach_reclaim(p, a);
	if (!TAILQ_EMPTY(&p->attached)) {
		if (rte_eal_alarm_set(COMCH_RECLAIM_RETRY_US,
				comch_proc_reclaim_retry, p) == 0)
			return;
		COMCH_LOG(ERR, "cannot schedule the rest of the reclaim of secondary process %d",
			(int)p->pid);
	}
	TAILQ_REMOVE(&comch_procs, p, next);
	comch_proc_free(p);
}

static void
comch_proc_reclaim_retry(void *arg)
{
	pthread_mutex_lock(&comch_mp_lock);
	if (!comch_mp_closing)
		comch_proc_reclaim(arg);
	pthread_mutex_unlock(&comch_mp_lock);
}

/* Interrupt thread: the liveness socket of a secondary is readable, which
 * only happens when it hangs up. */
static void
comch_proc_lost_cb(void *arg)
{
	struct comch_proc *p = arg;
	ssize_t n;
	char b;

	n = recv(p->fd, &b, 1, MSG_DONTWAIT);
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	pthread_mutex_lock(&comch_mp_lock);
	if (comch_mp_closing) {
		pthread_mutex_unlock(&comch_mp_lock);
		return;
	}
	rte_intr_callback_unregister_pending(p->intr, comch_proc_lost_cb, p,
			NULL);
	COMCH_LOG(INFO, "secondary process %d is gone", (int)p->pid);
	comch_proc_reclaim(p);
	pthread_mutex_unlock(&comch_mp_lock);
}

void
comch_mp_primary_init(void)
{
	if (comch_mp_serving)
		return;
	comch_mp_checks();
	comch_mp_closing = false;
	if (rte_mp_action_register(COMCH_MP_ACTION, comch_mp_handle) < 0) {
		/* --in-memory / --no-shconf: there can be no secondary. */
		COMCH_LOG(DEBUG, "mp: no multi-process channel (%s); secondary processes cannot attach",
			rte_strerror(rte_errno));
		return;
	}
	comch_mp_serving = true;
}

void
comch_mp_primary_fini(void)
{
	TAILQ_HEAD(, comch_proc) list = TAILQ_HEAD_INITIALIZER(list);
	struct comch_proc *p;
	struct comch_attach *a;

	if (!comch_mp_serving)
		return;
	rte_mp_action_unregister(COMCH_MP_ACTION);
	comch_mp_serving = false;
	pthread_mutex_lock(&comch_mp_lock);
	comch_mp_closing = true;
	TAILQ_CONCAT(&list, &comch_procs, next);
	pthread_mutex_unlock(&comch_mp_lock);
	rte_eal_alarm_cancel(comch_proc_reclaim_retry, (void *)-1);
	/* Outside the lock: a running callback finishes (and, seeing
	 * closing, does nothing) before this returns. */
	while ((p = TAILQ_FIRST(&list)) != NULL) {
		TAILQ_REMOVE(&list, p, next);
		rte_intr_callback_unregister_sync(p->intr, comch_proc_lost_cb, p);
		while ((a = TAILQ_FIRST(&p->attached)) != NULL) {
			TAILQ_REMOVE(&p->attached, a, next);
			free(a);
		}
		/* Closing our end tells the secondary we are gone. */
		comch_proc_free(p);
	}
}

/* ============================================== secondary process side */

struct comch_sec_attach {
	TAILQ_ENTRY(comch_sec_attach) next;
	struct rte_comch_conn *conn;
};

static struct {
	pthread_mutex_t lock;            /* the attachment list */
	uint32_t token;
	int fd;
	struct rte_intr_handle *intr;
	bool gone;                       /* the primary hung up */
	TAILQ_HEAD(, comch_sec_attach) attached;
} comch_sec = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.attached = TAILQ_HEAD_INITIALIZER(comch_sec.attached),
};

bool
comch_mp_primary_gone(void)
{
	return __atomic_load_n(&comch_sec.gone, __ATOMIC_ACQUIRE);
}

/*
 * Send @p req to the primary and wait for the answer (in @p rep, zeroed
 * when there is none). Fds received are made close-on-exec and handed to
 * the caller in @p rep_fds (closed if it passes NULL). Returns the
 * primary's result, or -ENODEV if it is gone or does not answer.
 */
static int
comch_mp_call(struct comch_mp_req *req, const int *fds, int nb_fds,
		struct comch_mp_rep *rep, int *rep_fds, int *nb_rep_fds)
{
	struct timespec ts = { .tv_sec = COMCH_MP_TIMEOUT_S };
	struct rte_mp_reply replies;
	struct rte_mp_msg msg;
	const struct rte_mp_msg *r;
	int ret, i;

	/* Nothing of an answer until there is one (a caller may look at
	 * rep whatever the result). */
	memset(rep, 0, sizeof(*rep));
	if (nb_rep_fds != NULL)
		*nb_rep_fds = 0;
	if (comch_mp_primary_gone())
		return -ENODEV;
	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, COMCH_MP_ACTION, sizeof(msg.name));
	req->version = COMCH_MP_VERSION;
	req->token = comch_sec.token;
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
	if (r->len_param != (int)sizeof(*rep) || r->num_fds < 0 ||
	    r->num_fds > RTE_COMCH_PMD_MP_FDS) {
		comch_fds_close(r->fds, RTE_MIN(RTE_MAX(r->num_fds, 0),
				RTE_MP_MAX_FD_NUM));
		free(replies.msgs);
		return -EPROTO;
	}
	memcpy(rep, r->param, sizeof(*rep));
	if (rep->data_len > sizeof(rep->data))
		rep->data_len = 0;
	if (rep_fds != NULL && nb_rep_fds != NULL) {
		memcpy(rep_fds, r->fds, sizeof(int) * (size_t)r->num_fds);
		*nb_rep_fds = r->num_fds;
	} else {
		comch_fds_close(r->fds, r->num_fds);
	}
	ret = rep->result;
	free(replies.msgs);
	return ret;
}

/* A request of @p type about @p conn. */
static void
comch_mp_req_init(struct comch_mp_req *req, enum comch_mp_type type,
		const struct rte_comch_conn *conn)
{
	memset(req, 0, sizeof(*req));
	req->type = type;
	req->dev_id = conn->dev_id;
	req->conn_id = conn->id;
}

/* Interrupt thread of a secondary: the primary hung up. */
static void
comch_primary_lost_cb(void *arg __rte_unused)
{
	struct comch_sec_attach *a;
	struct rte_comch_dev *dev;
	ssize_t n;
	char b;

	n = recv(comch_sec.fd, &b, 1, MSG_DONTWAIT);
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	rte_intr_callback_unregister_pending(comch_sec.intr,
			comch_primary_lost_cb, NULL, NULL);
	pthread_mutex_lock(&comch_sec.lock);
	__atomic_store_n(&comch_sec.gone, true, __ATOMIC_RELEASE);
	TAILQ_FOREACH(a, &comch_sec.attached, next) {
		dev = comch_dev_get(a->conn->dev_id);
		if (dev != NULL)
			dev->dev_ops->conn_orphan(dev, a->conn);
	}
	pthread_mutex_unlock(&comch_sec.lock);
	COMCH_LOG(ERR, "the primary process is gone: connections are lost, new requests fail with ENODEV");
}

int
comch_mp_secondary_init(void)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	int fds[RTE_COMCH_PMD_MP_FDS], nfds, ret;

	if (comch_sec.fd >= 0)
		return 0;
	comch_mp_checks();
	memset(&req, 0, sizeof(req));
	req.type = COMCH_MP_REGISTER;
	req.pid = (int32_t)getpid();
	ret = comch_mp_call(&req, NULL, 0, &rep, fds, &nfds);
	if (ret == 0 && nfds != 1)
		ret = -EPROTO;
	if (ret < 0) {
		comch_fds_close(fds, nfds);
		COMCH_LOG(ERR, "cannot register with the primary process: %s",
			rte_strerror(-ret));
		return ret;
	}
	comch_sec.token = rep.token;
	comch_sec.fd = fds[0];
	comch_sec.intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (comch_sec.intr == NULL ||
	    rte_intr_fd_set(comch_sec.intr, comch_sec.fd) != 0 ||
	    rte_intr_type_set(comch_sec.intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(comch_sec.intr, comch_primary_lost_cb,
			NULL) < 0) {
		/* Without it a dead primary goes unnoticed: refuse. */
		rte_intr_instance_free(comch_sec.intr);
		comch_sec.intr = NULL;
		close(comch_sec.fd);
		comch_sec.fd = -1;
		COMCH_LOG(ERR, "cannot watch the primary process from the interrupt thread");
		return -EIO;
	}
	return 0;
}

void
comch_mp_secondary_fini(void)
{
	struct comch_sec_attach *a;

	if (comch_sec.fd < 0)
		return;
	rte_intr_callback_unregister_sync(comch_sec.intr,
			comch_primary_lost_cb, NULL);
	rte_intr_instance_free(comch_sec.intr);
	comch_sec.intr = NULL;
	/* The primary reclaims what is left when it sees the hang-up. */
	close(comch_sec.fd);
	comch_sec.fd = -1;
	pthread_mutex_lock(&comch_sec.lock);
	while ((a = TAILQ_FIRST(&comch_sec.attached)) != NULL) {
		TAILQ_REMOVE(&comch_sec.attached, a, next);
		free(a);
	}
	pthread_mutex_unlock(&comch_sec.lock);
}

bool
comch_mp_conn_attached(const struct rte_comch_conn *conn)
{
	struct comch_sec_attach *a;
	bool found = false;

	pthread_mutex_lock(&comch_sec.lock);
	TAILQ_FOREACH(a, &comch_sec.attached, next)
		if (a->conn == conn)
			found = true;
	pthread_mutex_unlock(&comch_sec.lock);
	return found;
}

void *
comch_mp_fp_alloc(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		uint32_t nb_posts, uint32_t imm_data_len)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	int ret;

	comch_mp_req_init(&req, COMCH_MP_FP_ALLOC, conn);
	req.kind = (uint16_t)kind;
	req.arg[0] = nb_posts;
	req.arg[1] = imm_data_len;
	ret = comch_mp_call(&req, NULL, 0, &rep, NULL, NULL);
	if (ret < 0) {
		COMCH_LOG(ERR, "%s: the primary refused it: %s",
			kind == COMCH_FP_CONSUMER ? "consumer" : "producer",
			rte_strerror(-ret));
		rte_errno = -ret;
		return NULL;
	}
	return (void *)(uintptr_t)rep.addr;
}

void
comch_mp_fp_free(struct rte_comch_conn *conn, enum comch_fp_kind kind,
		void *obj)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;

	comch_mp_req_init(&req, COMCH_MP_FP_FREE, conn);
	req.kind = (uint16_t)kind;
	req.obj_id = kind == COMCH_FP_CONSUMER ?
		((struct rte_comch_consumer *)obj)->id :
		((struct rte_comch_producer *)obj)->id;
	/* A gone primary frees nothing any more; nothing to do then. */
	comch_mp_call(&req, NULL, 0, &rep, NULL, NULL);
}

int
comch_mp_conn_stats(struct rte_comch_conn *conn,
		struct rte_comch_conn_stats *stats)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	int ret;

	if (!comch_mp_conn_attached(conn))
		return -EINVAL;
	comch_mp_req_init(&req, COMCH_MP_CONN_STATS, conn);
	ret = comch_mp_call(&req, NULL, 0, &rep, NULL, NULL);
	if (ret < 0)
		return ret;
	if (rep.data_len != sizeof(*stats))
		return -EPROTO;
	memcpy(stats, rep.data, sizeof(*stats));
	return 0;
}

int
rte_comch_pmd_mp_request(struct rte_comch_conn *conn,
		struct rte_comch_consumer *cons, struct rte_comch_producer *prod,
		const void *req_data, size_t req_len, const int *fds, int nb_fds,
		void *rep_data, size_t *rep_len, int *rep_fds, int *nb_rep_fds)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	int ret;

	*rep_len = 0;
	*nb_rep_fds = 0;
	if (!comch_in_secondary || conn == NULL || (cons != NULL && prod != NULL) ||
	    req_len > RTE_COMCH_PMD_MP_DATA_MAX || nb_fds < 0 ||
	    nb_fds > RTE_COMCH_PMD_MP_FDS)
		return -EINVAL;
	comch_mp_req_init(&req, COMCH_MP_DRIVER, conn);
	if (cons != NULL) {
		req.kind = COMCH_FP_CONSUMER;
		req.obj_id = cons->id;
	} else if (prod != NULL) {
		req.kind = COMCH_FP_PRODUCER;
		req.obj_id = prod->id;
	}
	req.data_len = (uint32_t)req_len;
	if (req_len != 0)
		memcpy(req.data, req_data, req_len);
	ret = comch_mp_call(&req, fds, nb_fds, &rep, rep_fds, nb_rep_fds);
	memcpy(rep_data, rep.data, rep.data_len);
	*rep_len = rep.data_len;
	return ret;
}

/* ====================================================== public functions */

int
rte_comch_conn_list(int16_t dev_id, uint32_t *ids, uint32_t nb_ids)
{
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	uint32_t total = 0, got = 0, n, start = 0;
	int ret;

	if (comch_dev_get(dev_id) == NULL || (ids == NULL && nb_ids != 0))
		return -EINVAL;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		return (int)comch_conn_ids(dev_id, 0, ids, nb_ids);
	for (;;) {
		memset(&req, 0, sizeof(req));
		req.type = COMCH_MP_CONN_LIST;
		req.dev_id = dev_id;
		req.arg[0] = start;
		ret = comch_mp_call(&req, NULL, 0, &rep, NULL, NULL);
		if (ret < 0)
			return ret;
		if (start == 0)
			total = rep.count;
		n = rep.data_len / sizeof(uint32_t);
		if (n == 0 || got >= nb_ids)
			break;
		n = RTE_MIN(n, nb_ids - got);
		memcpy(&ids[got], rep.data, n * sizeof(uint32_t));
		got += n;
		if (got >= nb_ids || rep.count <= COMCH_MP_LIST_PAGE ||
		    ids[got - 1] == UINT32_MAX)
			break;
		start = ids[got - 1] + 1;
	}
	return (int)total;
}

struct rte_comch_conn *
rte_comch_conn_attach(int16_t dev_id, uint32_t conn_id)
{
	struct comch_sec_attach *a;
	struct rte_comch_conn *conn;
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	int ret;

	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		COMCH_LOG(ERR, "conn attach: this is the primary process; its connections come from connect_cb and rte_comch_client_conn()");
		rte_errno = ENOTSUP;
		return NULL;
	}
	if (comch_dev_get(dev_id) == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	memset(&req, 0, sizeof(req));
	req.type = COMCH_MP_CONN_ATTACH;
	req.dev_id = dev_id;
	req.conn_id = conn_id;
	pthread_mutex_lock(&comch_sec.lock);
	ret = comch_mp_call(&req, NULL, 0, &rep, NULL, NULL);
	conn = ret == 0 ? (struct rte_comch_conn *)(uintptr_t)rep.addr : NULL;
	if (ret == 0 && (conn == NULL || conn->id != conn_id ||
			 conn->dev_id != dev_id))
		ret = -EPROTO;
	if (ret == 0) {
		a->conn = conn;
		TAILQ_INSERT_TAIL(&comch_sec.attached, a, next);
	}
	pthread_mutex_unlock(&comch_sec.lock);
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

int
rte_comch_conn_detach(struct rte_comch_conn *conn)
{
	struct comch_sec_attach *a;
	struct rte_comch_dev *dev;
	struct comch_mp_req req;
	struct comch_mp_rep rep;
	int ret;

	if (conn == NULL)
		return -EINVAL;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		COMCH_LOG(ERR, "conn detach: this is the primary process");
		return -ENOTSUP;
	}
	pthread_mutex_lock(&comch_sec.lock);
	TAILQ_FOREACH(a, &comch_sec.attached, next)
		if (a->conn == conn)
			break;
	if (a == NULL) {
		pthread_mutex_unlock(&comch_sec.lock);
		return -EINVAL;
	}
	comch_mp_req_init(&req, COMCH_MP_CONN_DETACH, conn);
	ret = comch_mp_call(&req, NULL, 0, &rep, NULL, NULL);
	if (ret == -EBUSY) {
		pthread_mutex_unlock(&comch_sec.lock);
		COMCH_LOG(ERR, "conn detach: connection %u still has producers or consumers of this process; destroy them first",
			conn->id);
		return -EBUSY;
	}
	/* Detached, or the primary is gone: forget it here too. */
	TAILQ_REMOVE(&comch_sec.attached, a, next);
	pthread_mutex_unlock(&comch_sec.lock);
	dev = comch_dev_get(conn->dev_id);
	if (dev != NULL)
		dev->dev_ops->conn_detach(dev, conn);
	free(a);
	return 0;
}
