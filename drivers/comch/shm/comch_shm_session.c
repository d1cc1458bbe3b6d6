/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: sessions. Servers (the DPU's side of the handshake: a
 * client's HELLO answered with ACCEPT or REJECT, the mailboxes) and a
 * connection's life on the link socket once made, on either side: the
 * peer's consumer announcements handed to comch_shm_peer.c, BYE,
 * liveness, and reporting the connection lost or closed. Clients (the
 * host's side) are in comch_shm_client.c. Everything here runs on the
 * lcore that polls the server or client, in the process that owns the
 * link.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_string_fns.h>

#include "comch_shm_priv.h"

/* ---------------------------------------------------------- connections */

static void
shm_conn_unmap(struct shm_conn *sc)
{
	if (sc->local_map.base != NULL)
		munmap(sc->local_map.base, sc->local_map.size);
	if (sc->remote_map.base != NULL)
		munmap(sc->remote_map.base, sc->remote_map.size);
	sc->local_map.base = NULL;
	sc->remote_map.base = NULL;
}

static const char *
shm_broken_text(uint8_t why)
{
	switch (why) {
	case SHM_BROKEN_CTRL_RING:
		return "control messages";
	case SHM_BROKEN_POSTS:
		return "the buffers its consumer posted";
	case SHM_BROKEN_COMPLETION:
		return "a completion it wrote";
	case SHM_BROKEN_STALLED:
		return "buffers it claimed and never filled";
	default:
		return "?";
	}
}

void
shm_conn_close(struct rte_comch_dev *cdev, struct rte_comch_conn *conn)
{
	struct shm_conn *sc = conn->drv;
	bool parked = false, unread;

	/* Nothing may look at the connection's memory from now on. */
	shm_event_conn_close(sc);
	/* Closing ends the application's use of the last burst. */
	if (!sc->broken)
		shm_conn_confirm(sc);
	/* Broken by what the fast path found (a stopping consumer the peer
	 * never filled, say) and closed before a poll reported it: the
	 * peer is blamed all the same, and gets no BYE. */
	if (sc->broken == -EPROTO && !sc->lost_reported &&
	    sc->broken_why != SHM_BROKEN_LOGGED) {
		if (shm_conn_log_ok(sc))
			SHM_LOG(ERR, "%s: connection %u: the peer broke the ring protocol (%s); closing it",
				shm_dev_name(conn), conn->id,
				shm_broken_text(sc->broken_why));
		sc->lost_reported = true;
	}
	shm_conn_flush(sc, true);
	if (sc->sock >= 0) {
		if (sc->server != NULL)
			epoll_ctl(sc->server->epfd, EPOLL_CTL_DEL, sc->sock,
					NULL);
		/* DPU side: a host that has not read all we sent (fds
		 * among it, before the BYE below, which has none) keeps the
		 * connection's place in the quota (shm_function_park()). */
		unread = sc->server != NULL && shm_sock_unread_out(sc->sock);
		/* A clean close: the peer reports "closed", not "lost". If
		 * the peer does not read its socket (it is full), it sees
		 * only the end of file. */
		if (!sc->lost_reported) {
			struct shm_msg bye;

			shm_msg_init(&bye, SHM_MSG_BYE);
			shm_msg_send(sc->sock, &bye, -1);
		}
		shm_sock_drain_peer(sc->sock, true);
		if (unread && shm_function_park(sc->server->func, sc->sock))
			parked = true;
		else
			close(sc->sock);
		sc->sock = -1;
	}
	if (sc->server != NULL && !parked)
		__atomic_fetch_sub(&sc->server->func->nb_conns, 1,
				__ATOMIC_RELAXED);
	/* No producer or consumer is left (the library checked). */
	shm_view_unpin(cdev->process_private, sc->view);
	sc->view = NULL;
	free(sc->rx_arena);
	sc->rx_arena = NULL;
	shm_conn_unmap(sc);
}

/* Fill a connection's driver state once both mailboxes are mapped:
 * 0, or -ENOMEM (nothing taken over). */
int
shm_conn_init(struct shm_dev *sd, struct shm_conn *sc,
		struct rte_comch_conn *conn, int sock,
		const struct shm_ring_geom *rx, void *local,
		const struct shm_ring_geom *tx, void *remote)
{
	sc->view = shm_view_pin(sd, conn);
	sc->rx_arena = malloc(SHM_RX_ARENA);
	if (sc->view == NULL || sc->rx_arena == NULL) {
		shm_view_unpin(sd, sc->view);
		sc->view = NULL;
		free(sc->rx_arena);
		sc->rx_arena = NULL;
		return -ENOMEM;
	}
	sc->conn = conn;
	sc->sock = sock;
	sc->rx = *rx;
	sc->tx = *tx;
	sc->local = local;
	sc->remote = remote;
	rte_spinlock_init(&sc->outbox_lock);
	STAILQ_INIT(&sc->outbox);
	sc->local_map.base = local;
	sc->local_map.size = rx->mailbox_size;
	sc->remote_map.base = remote;
	sc->remote_map.size = tx->mailbox_size;
	return 0;
}

/* Report a connection the peer closed (BYE, @p clean), or lost by the
 * socket or by a broken rule (once). */
int
shm_conn_report(struct shm_conn *sc, int err, bool clean)
{
	if (sc->lost_reported)
		return 0;
	sc->lost_reported = true;
	if (err == -ECONNRESET)
		__atomic_store_n(&sc->peer_gone, true, __ATOMIC_RELAXED);
	if (sc->server != NULL && sc->sock >= 0)
		epoll_ctl(sc->server->epfd, EPOLL_CTL_DEL, sc->sock, NULL);
	/* What sleeps on it here wakes up to find it lost. */
	shm_event_conn_down(sc);
	if (err == -EPROTO && sc->broken_why != SHM_BROKEN_LOGGED &&
	    shm_conn_log_ok(sc))
		SHM_LOG(ERR, "%s: connection %u: the peer broke the ring protocol (%s); closing it",
			shm_dev_name(sc->conn), sc->conn->id,
			shm_broken_text(sc->broken_why));
	if (clean)
		rte_comch_pmd_conn_closed(sc->conn);
	else
		rte_comch_pmd_conn_lost(sc->conn, err);
	return 1;
}

/* Messages handled per socket check and connection. */
#define SHM_SOCK_MSGS_PER_CHECK 32

/* The socket of an established connection is readable: consumer
 * announcements, or EOF (the peer is gone). Anything else breaks the
 * protocol. */
int
shm_conn_sock_event(struct shm_conn *sc)
{
	int fds[SHM_MSG_FDS_MAX];
	struct shm_msg msg;
	int n = 0, ret, nfds;

	while (n < SHM_SOCK_MSGS_PER_CHECK && !sc->lost_reported) {
		ret = shm_msg_recv(sc->sock, &msg, fds, &nfds);
		if (ret == -EAGAIN)
			return n;
		if (ret == -ECONNRESET)
			return n + shm_conn_report(sc, -ECONNRESET, false);
		if (ret == 0 && msg.type == SHM_MSG_BYE && nfds == 0)
			return n + shm_conn_report(sc, -ECONNRESET, true);
		if (ret == -EMFILE) {
			/* fds sent to us that could not be installed: ours */
			shm_conn_fail_local(sc, ret,
				"is out of file descriptors (ulimit -n)");
		} else if (ret < 0) {
			shm_conn_refuse(sc, "not one protocol message");
		} else if (msg.type == SHM_MSG_CONSUMER_ADD ||
			   msg.type == SHM_MSG_CONSUMER_DEL ||
			   msg.type == SHM_MSG_CONSUMER_SKIP) {
			/* refuses (or fails) the connection itself */
			ret = shm_peer_consumer_msg(sc, &msg, fds, nfds);
		} else if (msg.type == SHM_MSG_EVENT) {
			/* the same; closes the fds */
			ret = shm_event_peer_msg(sc, fds, nfds);
		} else {
			while (nfds > 0)
				close(fds[--nfds]);
			shm_conn_refuse(sc, "message type %u after the handshake",
				msg.type);
			ret = -EPROTO;
		}
		if (ret < 0)
			return n + shm_conn_report(sc, sc->broken, false);
		n++;
	}
	return n;
}

/* A secondary: the primary, and the link with it, is gone. */
void
shm_conn_orphan(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_conn *conn)
{
	struct shm_conn *sc = conn->drv;

	/* For every process still using it: the link is down. */
	__atomic_store_n(&sc->peer_gone, true, __ATOMIC_RELEASE);
	shm_event_conn_down(sc);
}

/* -------------------------------------------------------------- servers */

int
shm_server_create(struct rte_comch_dev *cdev, struct rte_comch_server *srv)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_function *func = &sd->functions[srv->function_id];
	struct shm_server *ss;
	struct shm_server *other;
	int ret;

	/* Control state with fds of this process: process memory. */
	ss = calloc(1, sizeof(*ss));
	if (ss == NULL)
		return -ENOMEM;
	ss->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ss->epfd < 0) {
		free(ss);
		return -errno;
	}
	ss->srv = srv;
	ss->func = func;
	TAILQ_INIT(&ss->inbox);

	rte_spinlock_lock(&func->lock);
	TAILQ_FOREACH(other, &func->servers, next) {
		if (strcmp(other->srv->name, srv->name) == 0) {
			rte_spinlock_unlock(&func->lock);
			SHM_LOG(ERR, "%s: server \"%s\" already exists on %s; names are unique per function",
				cdev->data->dev_name, srv->name, func->name);
			close(ss->epfd);
			free(ss);
			return -EEXIST;
		}
	}
	TAILQ_INSERT_TAIL(&func->servers, ss, next);
	rte_spinlock_unlock(&func->lock);
	srv->drv = ss;
	ret = shm_event_server_create(sd, srv);
	if (ret < 0) {
		shm_server_destroy(cdev, srv);
		return ret;
	}
	return 0;
}

/* Take the server's inbox (handshakes routed to it) under the func lock. */
static void
shm_server_take_inbox(struct shm_server *ss, struct shm_pending_list *out)
{
	struct shm_pending *p;

	TAILQ_INIT(out);
	rte_spinlock_lock(&ss->func->lock);
	while ((p = TAILQ_FIRST(&ss->inbox)) != NULL) {
		TAILQ_REMOVE(&ss->inbox, p, next);
		TAILQ_INSERT_TAIL(out, p, next);
	}
	__atomic_store_n(&ss->inbox_len, 0, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&ss->func->lock);
}

static void
shm_server_refuse_all(struct shm_server *ss, const char *why)
{
	struct shm_pending_list list;
	struct shm_pending *p;

	shm_server_take_inbox(ss, &list);
	while ((p = TAILQ_FIRST(&list)) != NULL) {
		TAILQ_REMOVE(&list, p, next);
		shm_send_reject(p->sock, ENOENT, "server \"%s\" %s",
				ss->srv->name, why);
		shm_pending_free(p);
	}
}

void
shm_server_destroy(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_server *srv)
{
	struct shm_server *ss = srv->drv;

	rte_spinlock_lock(&ss->func->lock);
	TAILQ_REMOVE(&ss->func->servers, ss, next);
	ss->accepting = false;
	rte_spinlock_unlock(&ss->func->lock);
	shm_server_refuse_all(ss, "was destroyed");
	shm_event_server_destroy(srv);
	close(ss->epfd);
	free(ss);
	srv->drv = NULL;
}

int
shm_server_start(struct rte_comch_dev *cdev, struct rte_comch_server *srv)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_server *ss = srv->drv;

	ss->next_check = 0;
	rte_spinlock_lock(&ss->func->lock);
	ss->accepting = true;
	rte_spinlock_unlock(&ss->func->lock);
	SHM_LOG(DEBUG, "%s: server \"%s\" accepting on %s",
		sd->cdev->data->dev_name, srv->name, ss->func->sock_path);
	return 0;
}

int
shm_server_stop(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_server *srv)
{
	struct shm_server *ss = srv->drv;

	rte_spinlock_lock(&ss->func->lock);
	ss->accepting = false;
	rte_spinlock_unlock(&ss->func->lock);
	shm_server_refuse_all(ss, "is stopping");
	return 0;
}

/* Complete one handshake routed to this server: check what the client
 * declared, map its mailbox, create ours, answer ACCEPT. */
static int
shm_server_accept(struct rte_comch_dev *cdev, struct shm_server *ss,
		struct shm_pending *p)
{
	struct rte_comch_server *srv = ss->srv;
	const struct shm_msg_hello *h = &p->hello.hello;
	struct shm_ring_geom rx, tx;
	struct rte_comch_conn *conn;
	struct shm_conn *sc;
	struct shm_msg msg;
	void *local = NULL, *remote = NULL;
	char why[SHM_REASON_MAX];
	int my_fd = -1, ret;

	struct shm_function *func = ss->func;
	const struct shm_quota *q = &func->dev->cfg.quota;

	if (h->max_msg_size != srv->max_msg_size) {
		shm_function_refuse(func, p->sock, RTE_LOG_WARNING, EPROTO,
			"max_msg_size mismatch: client %u, server \"%s\" uses %u; configure both ends alike",
			h->max_msg_size, srv->name, srv->max_msg_size);
		return -EPROTO;
	}
	if (h->flags & ~SHM_F_EVENT) {
		shm_function_refuse(func, p->sock, RTE_LOG_NOTICE, EPROTO,
			"unknown HELLO flags 0x%x", h->flags & ~SHM_F_EVENT);
		return -EPROTO;
	}
	if (h->recv_queue_len == 0 || h->recv_queue_len > SHM_MAX_RECV_QUEUE_LEN) {
		shm_function_refuse(func, p->sock, RTE_LOG_NOTICE, EINVAL,
			"recv_queue_len %u not in [1, %u]", h->recv_queue_len,
			SHM_MAX_RECV_QUEUE_LEN);
		return -EINVAL;
	}
	/* The function's quota first (a server's own max_clients defaults
	 * to it): taken now, given back at close. */
	if (__atomic_add_fetch(&func->nb_conns, 1, __ATOMIC_RELAXED) >
	    q->max_conns && shm_function_unpark(func, false) == 0) {
		__atomic_fetch_sub(&func->nb_conns, 1, __ATOMIC_RELAXED);
		shm_function_refuse(func, p->sock, RTE_LOG_NOTICE, EBUSY,
			"function %s has %u connections, the DPU's limit (max_conns)",
			func->name, q->max_conns);
		return -EBUSY;
	}
	if (srv->max_clients != 0 && srv->nb_conns >= srv->max_clients) {
		__atomic_fetch_sub(&func->nb_conns, 1, __ATOMIC_RELAXED);
		shm_function_refuse(func, p->sock, RTE_LOG_NOTICE, EBUSY,
			"server \"%s\" is full (%u clients, its max_clients)",
			srv->name, srv->max_clients);
		return -EBUSY;
	}
	shm_ring_geom_init(&tx, h->recv_queue_len, srv->max_msg_size);
	ret = shm_map_sealed(p->mailbox_fd, tx.mailbox_size, &remote, why,
			sizeof(why));
	if (ret < 0) {
		if (ret == -EPROTO)
			shm_function_refuse(func, p->sock, RTE_LOG_NOTICE, EPROTO,
				"server \"%s\": %s", srv->name, why);
		else
			shm_function_refuse(func, p->sock, RTE_LOG_ERR, -ret,
				"the DPU cannot map the mailbox: %s", why);
		goto err_quota;
	}
	shm_ring_geom_init(&rx, srv->recv_queue_len, srv->max_msg_size);
	ret = shm_memfd_create("comch-server", rx.mailbox_size,
			cdev->data->numa_node, &my_fd, &local);
	if (ret < 0) {
		shm_function_refuse(func, p->sock, RTE_LOG_ERR, -ret,
			"the DPU cannot create a mailbox: %s", strerror(-ret));
		goto err_unmap;
	}
	conn = rte_comch_pmd_conn_alloc(cdev, srv, NULL, srv->max_msg_size,
			sizeof(*sc));
	if (conn == NULL) {
		ret = -ENOMEM;
		shm_function_refuse(func, p->sock, RTE_LOG_ERR, ENOMEM,
			"the DPU is out of memory");
		goto err_unmap;
	}
	sc = conn->drv;
	if (shm_conn_init(cdev->process_private, sc, conn, p->sock, &rx, local,
			&tx, remote) < 0) {
		rte_comch_pmd_conn_free(conn);
		ret = -ENOMEM;
		shm_function_refuse(func, p->sock, RTE_LOG_ERR, ENOMEM,
			"the DPU is out of memory");
		goto err_unmap;
	}
	sc->server = ss;
	sc->max_peer_consumers = q->max_consumers;
	sc->max_peer_map = q->max_map;
	sc->peer_events = (h->flags & SHM_F_EVENT) != 0;

	shm_msg_init(&msg, SHM_MSG_ACCEPT);
	msg.accept.conn_id = conn->id;
	msg.accept.recv_queue_len = rx.depth;
	msg.accept.mailbox_size = rx.mailbox_size;
	msg.accept.max_consumers = q->max_consumers;
	msg.accept.max_map = q->max_map;
	msg.accept.flags = (srv->conf_flags & RTE_COMCH_F_EVENT) ?
		SHM_F_EVENT : 0;
	ret = shm_msg_send(p->sock, &msg, my_fd);
	close(my_fd);
	if (ret == 0) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
					  .data.ptr = sc };

		if (epoll_ctl(ss->epfd, EPOLL_CTL_ADD, p->sock, &ev) < 0)
			ret = -errno;
	}
	if (ret == -ETOOMANYREFS) {
		/* ours: the kernel holds too many of this user's fds in
		 * messages not read yet (raise ulimit -n, or run with
		 * CAP_SYS_RESOURCE) */
		if (shm_ratelimit_ok(&ss->func->refusals, "refused clients"))
			SHM_LOG(ERR, "%s: cannot accept a client on %s: the fds this user has in unread messages exceed its ulimit -n",
				cdev->data->dev_name, ss->func->name);
		shm_send_reject(p->sock, EMFILE,
			"the DPU is out of file descriptors (its fds in unread messages exceed ulimit -n)");
	} else if (ret < 0) {
		SHM_LOG(INFO, "%s: client on %s left during the handshake",
			cdev->data->dev_name, ss->func->name);
	}
	if (ret < 0) {
		sc->sock = -1; /* p still owns the socket */
		shm_view_unpin(cdev->process_private, sc->view);
		free(sc->rx_arena);
		shm_conn_unmap(sc);
		rte_comch_pmd_conn_free(conn);
		goto err_quota;
	}
	p->sock = -1; /* now owned by the connection */
	/* Event mode: after ACCEPT, EVENT (a failure loses the connection
	 * at the next poll). */
	ret = shm_event_conn_open(cdev->process_private, sc);
	if (ret < 0)
		shm_conn_fail_local(sc, ret, "cannot create event fds");
	rte_comch_pmd_server_connected(srv, conn);
	return 0;

err_unmap:
	if (local != NULL)
		munmap(local, rx.mailbox_size);
	if (my_fd >= 0)
		close(my_fd);
	munmap(remote, tx.mailbox_size);
err_quota:
	__atomic_fetch_sub(&func->nb_conns, 1, __ATOMIC_RELAXED);
	return ret;
}

int
shm_server_poll(struct rte_comch_dev *cdev, struct rte_comch_server *srv)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_server *ss = srv->drv;
	struct epoll_event evs[32];
	struct shm_pending_list list;
	struct shm_pending *p;
	struct rte_comch_conn *conn;
	uint64_t now;
	int n = 0, i, k;

	if (__atomic_load_n(&ss->inbox_len, __ATOMIC_ACQUIRE) != 0) {
		shm_server_take_inbox(ss, &list);
		while ((p = TAILQ_FIRST(&list)) != NULL) {
			TAILQ_REMOVE(&list, p, next);
			if (srv->state == RTE_COMCH_STATE_RUNNING &&
			    shm_server_accept(cdev, ss, p) == 0)
				n++;
			shm_pending_free(p);
		}
	}

	now = rte_get_tsc_cycles();
	if (now < ss->next_check)
		return n;
	ss->next_check = now + sd->sock_check_cycles;

	k = epoll_wait(ss->epfd, evs, RTE_DIM(evs), 0);
	for (i = 0; i < k; i++)
		n += shm_conn_sock_event(evs[i].data.ptr);
	shm_function_parked_tick(ss->func, now);
	TAILQ_FOREACH(conn, &srv->conns, next) {
		struct shm_conn *sc = conn->drv;

		shm_conn_flush(sc, false);
		if (sc->broken && !sc->lost_reported)
			n += shm_conn_report(sc, sc->broken, false);
		shm_view_reap_tick(sc->view, now);
	}
	return n;
}
