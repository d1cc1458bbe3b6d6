/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: event mode. The fds applications sleep on, the arm pages
 * and kick sockets that let a peer wake them, and the periodic check
 * that bounds what a peer that owes a kick and does not send it can do.
 * This file creates and frees them, and maps the peer's; arming, kicks
 * and the periodic check are comch_shm_event_arm.c.
 *
 * Each event is an epoll fd of its own (what the application sleeps on)
 * holding what can make it readable:
 *
 *   server      its eventfd (kicked by the interrupt thread when a client
 *               arrives, and by rte_comch_event_wake()), the epoll fd of
 *               its connections' link sockets (shm_server.epfd, nested),
 *               and with a msg_cb the kick sockets of its connections;
 *   client      its eventfd, its link socket, and with a msg_cb its
 *               connection's kick socket;
 *   connection  (no msg_cb) its kick socket;
 *   consumer    its kick socket.
 *
 * A waitable the peer kicks (a connection's control ring, a consumer)
 * has an arm page (struct shm_arm_page: we map it read-write, then seal
 * it with F_SEAL_FUTURE_WRITE, so the peer can only map it read-only)
 * and a SOCK_SEQPACKET socketpair: kick[0] sits in an epoll set, kick[1]
 * is ours to kick ourselves with (loss, the periodic check, wake), and a
 * duplicate of kick[1] goes to the peer, which can only send on it: a
 * connected SEQPACKET socket cannot be pointed elsewhere, sends never
 * wait (MSG_DONTWAIT), and shutting it down makes kick[0] readable for
 * good (end of file), which we take as the peer breaking the protocol.
 * Whatever the peer does with it, kick[0] is either kicked when it must
 * be or readable already: it cannot make us sleep through work, and it
 * cannot make us block.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comch_shm_priv.h"

#ifdef SO_PASSRIGHTS
#define SHM_SO_PASSRIGHTS SO_PASSRIGHTS
#else
#define SHM_SO_PASSRIGHTS 83 /* Linux 6.16 */
#endif

/* ------------------------------------------------------------ helpers */

static struct shm_event *
shm_ev_alloc(struct rte_comch_dev *cdev, enum rte_comch_event_kind kind,
		void *obj)
{
	struct shm_event *ev = calloc(1, sizeof(*ev));

	if (ev == NULL)
		return NULL;
	ev->head.dev_id = cdev->data->dev_id;
	ev->head.kind = (uint8_t)kind;
	ev->head.owner_pid = (int32_t)getpid();
	ev->head.obj = obj;
	ev->head.fd = -1;
	ev->ep = -1;
	ev->efd = -1;
	ev->kick[0] = -1;
	ev->kick[1] = -1;
	ev->kick_ep = -1;
	ev->page_fd = -1;
	return ev;
}

static void
shm_ev_free(struct shm_event *ev)
{
	if (ev == NULL)
		return;
	if (ev->ep >= 0)
		close(ev->ep);
	if (ev->efd >= 0)
		close(ev->efd);
	if (ev->kick[0] >= 0)
		close(ev->kick[0]);
	if (ev->kick[1] >= 0)
		close(ev->kick[1]);
	if (ev->page_fd >= 0)
		close(ev->page_fd);
	if (ev->page != NULL)
		munmap(ev->page, SHM_ARM_PAGE_SIZE);
	free(ev);
}

/*
 * An arm page: a memfd mapped read-write here, then sealed so that
 * nobody can map it for writing any more (F_SEAL_FUTURE_WRITE: our
 * mapping keeps writing) nor resize it.
 */
static int
shm_ev_page_create(struct shm_event *ev)
{
	const int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE |
		F_SEAL_SEAL;
	void *p;
	int fd, ret;

	fd = memfd_create("comch-arm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, SHM_ARM_PAGE_SIZE) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	p = mmap(NULL, SHM_ARM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (fcntl(fd, F_ADD_SEALS, seals) < 0) {
		ret = -errno;
		munmap(p, SHM_ARM_PAGE_SIZE);
		close(fd);
		return ret;
	}
	ev->page = p;
	ev->page_fd = fd;
	ev->arm = &((struct shm_arm_page *)p)->arm;
	return 0;
}

/* A waitable the peer kicks: arm page and kick socketpair; kick[0] goes
 * into @p kick_ep. */
static int
shm_ev_waitable(struct shm_event *ev, int kick_ep)
{
	int ret, no = 0;

	ret = shm_ev_page_create(ev);
	if (ret < 0)
		return ret;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0, ev->kick) < 0)
		return -errno;
	/* The peer only kicks: a kick carrying fds is refused to it
	 * (Linux 6.16 and later; before, the kernel would close them in the
	 * thread that drains the kicks, where such a close could wait). */
	(void)setsockopt(ev->kick[0], SOL_SOCKET, SHM_SO_PASSRIGHTS, &no,
			sizeof(no));
	ev->kick_ep = kick_ep;
	return shm_ev_add(kick_ep, ev->kick[0], ev);
}

/* ------------------------------------------------- servers and clients */

static int
shm_ev_owner_create(struct rte_comch_dev *cdev, struct shm_dev *sd,
		enum rte_comch_event_kind kind, void *obj, int nested,
		struct shm_event **out)
{
	struct shm_event *ev = shm_ev_alloc(cdev, kind, obj);
	int ret;

	if (ev == NULL)
		return -ENOMEM;
	ev->ep = epoll_create1(EPOLL_CLOEXEC);
	ev->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ret = ev->ep < 0 || ev->efd < 0 ? -errno : 0;
	if (ret == 0)
		ret = shm_ev_add(ev->ep, ev->efd, ev);
	if (ret == 0 && nested >= 0)
		ret = shm_ev_add(ev->ep, nested, NULL);
	if (ret < 0) {
		SHM_LOG(ERR, "%s: event mode: cannot create the fds of a %s: %s",
			cdev->data->dev_name,
			kind == RTE_COMCH_EVENT_SERVER ? "server" : "client",
			strerror(-ret));
		shm_ev_free(ev);
		return ret;
	}
	ev->head.fd = ev->ep;
	shm_ev_register(ev, sd);
	*out = ev;
	return 0;
}

int
shm_event_server_create(struct shm_dev *sd, struct rte_comch_server *srv)
{
	struct shm_server *ss = srv->drv;
	int ret;

	if (!(srv->conf_flags & RTE_COMCH_F_EVENT))
		return 0;
	ret = shm_ev_owner_create(sd->cdev, sd, RTE_COMCH_EVENT_SERVER, srv,
			ss->epfd, &ss->ev);
	if (ret == 0)
		srv->event = &ss->ev->head;
	return ret;
}

void
shm_event_server_destroy(struct rte_comch_server *srv)
{
	struct shm_server *ss = srv->drv;

	if (ss->ev == NULL)
		return;
	shm_ev_unregister(ss->ev);
	shm_ev_free(ss->ev);
	ss->ev = NULL;
	srv->event = NULL;
}

int
shm_event_client_create(struct shm_dev *sd, struct rte_comch_client *cli)
{
	struct shm_client *sh = cli->drv;
	int ret;

	if (!(cli->conf_flags & RTE_COMCH_F_EVENT))
		return 0;
	ret = shm_ev_owner_create(sd->cdev, sd, RTE_COMCH_EVENT_CLIENT, cli,
			-1, &sh->ev);
	if (ret == 0)
		cli->event = &sh->ev->head;
	return ret;
}

void
shm_event_client_destroy(struct rte_comch_client *cli)
{
	struct shm_client *sh = cli->drv;

	if (sh->ev == NULL)
		return;
	shm_ev_unregister(sh->ev);
	shm_ev_free(sh->ev);
	sh->ev = NULL;
	cli->event = NULL;
}

/* ------------------------------------------------------- connections */

/* The server or client of @p sc has a msg_cb: its messages wake it. */
static struct shm_event *
shm_ev_conn_owner(const struct shm_conn *sc, bool *callback)
{
	const struct rte_comch_conn *conn = sc->conn;

	if (conn->server != NULL) {
		*callback = conn->server->msg_cb != NULL;
		return ((struct shm_server *)conn->server->drv)->ev;
	}
	*callback = conn->client->msg_cb != NULL;
	return ((struct shm_client *)conn->client->drv)->ev;
}

int
shm_event_conn_open(struct shm_dev *sd, struct shm_conn *sc)
{
	struct rte_comch_dev *cdev = sd->cdev;
	struct shm_event *owner, *ev;
	struct shm_msg msg;
	bool callback;
	int fds[2], ret;

	owner = shm_ev_conn_owner(sc, &callback);
	if (owner == NULL)
		return 0;
	ev = shm_ev_alloc(cdev, RTE_COMCH_EVENT_CONN, sc->conn);
	if (ev == NULL)
		return -ENOMEM;
	ev->sc = sc;
	ev->owner = owner;
	if (!callback) {
		ev->ep = epoll_create1(EPOLL_CLOEXEC);
		ret = ev->ep < 0 ? -errno : shm_ev_waitable(ev, ev->ep);
	} else {
		ret = shm_ev_waitable(ev, owner->ep);
	}
	if (ret == 0) {
		/* The peer fences after each message since our HELLO or
		 * ACCEPT; what it sent before it maps this page is covered
		 * by its look at the arm word once mapped. */
		shm_msg_init(&msg, SHM_MSG_EVENT);
		fds[0] = ev->page_fd;
		fds[1] = ev->kick[1];
		rte_spinlock_lock(&sc->outbox_lock);
		ret = shm_conn_post_locked(sc, &msg, fds, 2);
		rte_spinlock_unlock(&sc->outbox_lock);
	}
	if (ret < 0) {
		shm_ev_free(ev);
		return ret;
	}
	/* Sent (or a duplicate queued): the page's fd is not needed here. */
	close(ev->page_fd);
	ev->page_fd = -1;
	if (!callback) {
		ev->head.fd = ev->ep;
		sc->conn->event = &ev->head;
	}
	sc->ev = ev;
	shm_ev_register(ev, sd);
	return 0;
}

void
shm_event_conn_close(struct shm_conn *sc)
{
	if (sc->ev != NULL) {
		shm_ev_unregister(sc->ev);
		shm_ev_free(sc->ev);
		sc->ev = NULL;
		sc->conn->event = NULL;
	}
	if (sc->peer_ev != NULL) {
		shm_peer_ev_free(sc->peer_ev);
		sc->peer_ev = NULL;
	}
}

/* ------------------------------------------------- the peer's waitables */

int
shm_event_fds_check(int page_fd, int kick_fd, char *why, size_t why_len)
{
	struct ucred cred;
	socklen_t len;
	struct stat st;
	int seals, v, ret;

	/* The arm page: a sealed memfd of one page (shm_fd_check: resizing
	 * sealed first, then the kind of file and the size), that its owner
	 * alone can write. */
	ret = shm_fd_check(page_fd, SHM_ARM_PAGE_SIZE, why, why_len);
	if (ret < 0)
		return ret;
	seals = fcntl(page_fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_FUTURE_WRITE)) {
		snprintf(why, why_len, "arm page not sealed with F_SEAL_FUTURE_WRITE");
		return -EPROTO;
	}
	/* The kick socket: one end of a SOCK_SEQPACKET socketpair of a
	 * process of this user (so a kick goes to its peer end and nowhere
	 * else: such a socket cannot be connected anew). */
	if (fstat(kick_fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		snprintf(why, why_len, "kick fd is not a socket");
		return -EPROTO;
	}
	len = sizeof(v);
	if (getsockopt(kick_fd, SOL_SOCKET, SO_DOMAIN, &v, &len) < 0 ||
	    v != AF_UNIX) {
		snprintf(why, why_len, "kick socket is not AF_UNIX");
		return -EPROTO;
	}
	len = sizeof(v);
	if (getsockopt(kick_fd, SOL_SOCKET, SO_TYPE, &v, &len) < 0 ||
	    v != SOCK_SEQPACKET) {
		snprintf(why, why_len, "kick socket is not SOCK_SEQPACKET");
		return -EPROTO;
	}
	len = sizeof(cred);
	if (getsockopt(kick_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.pid == 0 || cred.uid != geteuid()) {
		snprintf(why, why_len, "kick socket is not one end of a socketpair of this user");
		return -EPROTO;
	}
	return 0;
}

int
shm_peer_ev_map(int page_fd, int kick_fd, struct shm_peer_ev **out,
		char *why, size_t why_len)
{
	struct shm_peer_ev *pe;
	void *p;
	int ret;

	ret = shm_event_fds_check(page_fd, kick_fd, why, why_len);
	if (ret < 0)
		return ret;
	pe = calloc(1, sizeof(*pe));
	if (pe == NULL) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	/* Read-only: the only mapping its seal allows. */
	p = mmap(NULL, SHM_ARM_PAGE_SIZE, PROT_READ, MAP_SHARED, page_fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		snprintf(why, why_len, "cannot map the arm page: %s",
			strerror(-ret));
		free(pe);
		return ret == -EPERM || ret == -EACCES ? -EPROTO : ret;
	}
	pe->fd = fcntl(kick_fd, F_DUPFD_CLOEXEC, 0);
	if (pe->fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "cannot keep the kick socket: %s",
			strerror(-ret));
		munmap(p, SHM_ARM_PAGE_SIZE);
		free(pe);
		return ret;
	}
	pe->map = p;
	pe->arm = &((const struct shm_arm_page *)p)->arm;
	*out = pe;
	return 0;
}

void
shm_peer_ev_free(struct shm_peer_ev *pe)
{
	if (pe == NULL)
		return;
	munmap(pe->map, SHM_ARM_PAGE_SIZE);
	close(pe->fd);
	free(pe);
}

int
shm_event_peer_msg(struct shm_conn *sc, const int *fds, int nfds)
{
	char why[SHM_REASON_MAX];
	struct shm_peer_ev *pe;
	uint64_t w;
	int ret, i;

	if (!sc->peer_events || sc->peer_ev != NULL || nfds != 2) {
		shm_conn_refuse(sc, "EVENT %s", !sc->peer_events ?
			"from a side that did not say SHM_F_EVENT" :
			sc->peer_ev != NULL ? "twice" : "without its two fds");
		ret = -EPROTO;
	} else {
		ret = shm_peer_ev_map(fds[0], fds[1], &pe, why, sizeof(why));
		if (ret == -EPROTO)
			shm_conn_refuse(sc, "EVENT: %s", why);
		else if (ret < 0)
			shm_conn_fail_local(sc, ret,
				"cannot map the peer's arm page");
	}
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	if (ret < 0)
		return ret;
	__atomic_store_n(&sc->peer_ev, pe, __ATOMIC_RELEASE);
	/* Messages and room we published before this: our sends fenced
	 * and found no page; now fence and look at the arm word once (see
	 * the driver guide, "Why no wake-up is lost"). */
	rte_smp_mb();
	w = *pe->arm;
	if (w & (SHM_ARM_ARMED | SHM_ARM_ROOM))
		shm_kick(pe, w);
	return 0;
}

/* ---------------------------------------------------------- consumers */

int
shm_event_consumer_create(struct shm_dev *sd, struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;
	struct shm_event *ev;
	int ret;

	if (!(cons->conf_flags & RTE_COMCH_F_EVENT))
		return 0;
	ev = shm_ev_alloc(sd->cdev, RTE_COMCH_EVENT_CONSUMER, cons);
	if (ev == NULL)
		return -ENOMEM;
	ev->sc = c->sc;
	ev->c = c;
	ev->ep = epoll_create1(EPOLL_CLOEXEC);
	ret = ev->ep < 0 ? -errno : shm_ev_waitable(ev, ev->ep);
	if (ret < 0) {
		SHM_LOG(ERR, "%s: consumer %u: event mode: cannot create its fds: %s",
			sd->cdev->data->dev_name, cons->id, strerror(-ret));
		shm_ev_free(ev);
		return ret;
	}
	ev->head.fd = ev->ep;
	c->ev = ev;
	cons->event = &ev->head;
	shm_ev_register(ev, sd);
	return 0;
}

void
shm_event_consumer_destroy(struct rte_comch_consumer *cons)
{
	struct shm_consumer *c = cons->fp.drv;

	if (c->ev == NULL)
		return;
	shm_ev_unregister(c->ev);
	shm_ev_free(c->ev);
	c->ev = NULL;
	cons->event = NULL;
}

void
shm_event_consumer_xfer(const struct shm_consumer *c,
		struct rte_comch_pmd_xfer *x)
{
	x->val[SHM_XFER_FLAGS] = 0;
	if (c->ev == NULL)
		return;
	x->fds[x->nb_fds++] = c->ev->page_fd;
	x->fds[x->nb_fds++] = c->ev->kick[1];
	x->val[SHM_XFER_FLAGS] = SHM_F_EVENT;
}
