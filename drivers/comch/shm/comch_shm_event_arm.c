/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: event mode, the waking half (comch_shm_event.c creates and
 * frees the events): the list of this process's events, kicking
 * ourselves, arming and disarming, and the periodic check.
 *
 * Arming (the owner's lcore): take the kicks off kick[0] (recvmmsg, one
 * system call), store a new arm word (SHM_ARM_ARMED, and SHM_ARM_ROOM for
 * a sender that found the queue full), full fence, look for work once
 * more; found: disarm and say 1 (the caller polls instead of sleeping).
 * The kicker publishes, fences, reads the arm word, kicks (comch_shm_rxtx.c
 * shm_kick_check()). Store, fence, load on both sides: at least one of
 * the two loads sees the other side's store, so either the waiter sees
 * the work or the kicker sees the arm (the driver guide says it in full).
 *
 * The periodic check (an EAL alarm, every wake_check_ms, in each process
 * that has events): an object armed with the same arm word at two checks
 * in a row, with work there and no kick waiting on kick[0], was owed a
 * kick it did not get: it is kicked (counted as a rescue). A lost
 * connection wakes what sleeps on it at once in the process that reports
 * it, within a check elsewhere. A connection broken by the fast path
 * wakes its server or client within a check.
 *
 * Kick storms: an arm that takes kicks but finds no progress since the
 * last arm counts a spurious wake-up; SHM_EV_STORM of them in a row and
 * kick[0] leaves its epoll set for a while (doubling up to
 * SHM_EV_BACKOFF_MAX checks), the periodic check waking the object when
 * there is work meanwhile: the waiter's CPU stays bounded, its work is
 * late by at most a check.
 */

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>

#include "comch_shm_priv.h"

/* Spurious wake-ups in a row that make a kick storm. */
#define SHM_EV_STORM 16
/* Longest set-aside of a storming peer's kicks, in checks. */
#define SHM_EV_BACKOFF_MAX 16u
/* Kicks taken per arm at most (a storm is drained over several). */
#define SHM_EV_DRAIN_MAX 256
#define SHM_EV_DRAIN_BATCH 16

/* Every event of this process, for the periodic check. */
static pthread_mutex_t shm_ev_lock = PTHREAD_MUTEX_INITIALIZER;
static TAILQ_HEAD(, shm_event) shm_ev_list =
	TAILQ_HEAD_INITIALIZER(shm_ev_list);
static uint32_t shm_ev_period_ms;      /* the alarm's, 0: not set */
/* The alarm chain that runs: each tick carries the generation that set
 * it, and one of an older generation ends its chain. A new chain starts
 * when an event needs a shorter period than the pending alarm's, or after
 * rte_eal_alarm_set() failed (which may have queued the alarm all the
 * same). */
static uintptr_t shm_ev_gen;

static void shm_ev_tick(void *arg);

/* ------------------------------------------------------------ helpers */

static inline uint64_t
shm_ev_now(void)
{
	return rte_get_timer_cycles();
}

/* Under shm_ev_lock: (re)start the periodic check at the shortest
 * period of the events there are. */
static void
shm_ev_schedule_locked(void)
{
	if (shm_ev_period_ms == 0 || TAILQ_EMPTY(&shm_ev_list))
		return;
	if (rte_eal_alarm_set((uint64_t)shm_ev_period_ms * 1000, shm_ev_tick,
			(void *)shm_ev_gen) < 0) {
		SHM_LOG(WARNING, "event mode: cannot set the periodic check: a peer that does not kick may leave an application asleep");
		/* not running: the next event registered tries again */
		shm_ev_period_ms = 0;
	}
}

void
shm_ev_register(struct shm_event *ev, struct shm_dev *sd)
{
	uint32_t ms = sd->cfg.wake_check_ms;
	bool start;

	ev->check_ms = ms;
	ev->check_cycles = rte_get_timer_hz() / 1000 * ms;
	ev->next_check = shm_ev_now() + ev->check_cycles;
	pthread_mutex_lock(&shm_ev_lock);
	/* none running, or the pending alarm is later than this event's
	 * first check must be: a new chain */
	start = shm_ev_period_ms == 0 || ms < shm_ev_period_ms;
	if (start) {
		shm_ev_period_ms = ms;
		shm_ev_gen++;
	}
	TAILQ_INSERT_TAIL(&shm_ev_list, ev, next);
	if (start)
		shm_ev_schedule_locked();
	pthread_mutex_unlock(&shm_ev_lock);
}

void
shm_ev_unregister(struct shm_event *ev)
{
	pthread_mutex_lock(&shm_ev_lock);
	TAILQ_REMOVE(&shm_ev_list, ev, next);
	pthread_mutex_unlock(&shm_ev_lock);
}

int
shm_ev_add(int ep, int fd, void *tag)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

/* Kick ourselves: the waiter's fd becomes readable (its kick socket
 * back in its epoll set first, if a storm had it set aside). Under
 * shm_ev_lock. */
static void
shm_ev_self_kick_locked(struct shm_event *ev)
{
	const char b = 'S';

	if (ev->efd >= 0) {
		uint64_t one = 1;
		ssize_t n = write(ev->efd, &one, sizeof(one));

		RTE_SET_USED(n);  /* fails only when full: readable already */
		return;
	}
	if (ev->detached && ev->backoff_until != UINT64_MAX &&
	    shm_ev_add(ev->kick_ep, ev->kick[0], ev) == 0)
		__atomic_store_n(&ev->detached, false, __ATOMIC_RELEASE);
	__atomic_store_n(&ev->woken, 1, __ATOMIC_RELEASE);
	(void)send(ev->kick[1], &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void
shm_ev_self_kick(struct shm_event *ev)
{
	if (ev->efd >= 0) {
		shm_ev_self_kick_locked(ev); /* an eventfd needs no lock */
		return;
	}
	pthread_mutex_lock(&shm_ev_lock);
	shm_ev_self_kick_locked(ev);
	pthread_mutex_unlock(&shm_ev_lock);
}

/* Under shm_ev_lock: set a storming peer's kicks aside for a while. */
static void
shm_ev_backoff_locked(struct shm_event *ev, const char *what, uint32_t id)
{
	uint64_t now = shm_ev_now();

	if (ev->detached)
		return;
	/* Again soon after the last one: twice as long. */
	if (ev->backoff != 0 &&
	    now < ev->backoff_until + 2 * ev->backoff * ev->check_cycles)
		ev->backoff = RTE_MIN(ev->backoff * 2, SHM_EV_BACKOFF_MAX);
	else
		ev->backoff = 1;
	ev->backoff_until = now + ev->backoff * ev->check_cycles;
	if (epoll_ctl(ev->kick_ep, EPOLL_CTL_DEL, ev->kick[0], NULL) == 0)
		__atomic_store_n(&ev->detached, true, __ATOMIC_RELEASE);
	ev->st.backoffs++;
	if (shm_conn_log_ok(ev->sc))
		SHM_LOG(NOTICE, "%s: connection %u: %s %u: the peer kicks without work (%u wake-ups for nothing in a row); waking on the periodic check for %u ms",
			shm_dev_name(ev->sc->conn), ev->sc->conn->id, what,
			id, SHM_EV_STORM,
			(unsigned int)(ev->backoff * ev->check_ms));
}

/* Is kick[0] shut down (end of file)? */
static bool
shm_ev_kick_eof(const struct shm_event *ev)
{
	struct pollfd p = { .fd = ev->kick[0], .events = POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP));
}

/*
 * Take the kicks off kick[0] (the owner's lcore, arming): how many, or
 * -EPIPE if the peer shut its kick socket down.
 */
static int
shm_ev_drain(struct shm_event *ev)
{
	struct mmsghdr mm[SHM_EV_DRAIN_BATCH];
	struct iovec iov[SHM_EV_DRAIN_BATCH];
	char buf[SHM_EV_DRAIN_BATCH][8];
	int n, i, total = 0, empty = 0;

	for (i = 0; i < SHM_EV_DRAIN_BATCH; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	do {
		n = recvmmsg(ev->kick[0], mm, SHM_EV_DRAIN_BATCH, MSG_DONTWAIT,
				NULL);
		for (i = 0; i < n; i++)
			empty += mm[i].msg_len == 0;
		if (n > 0)
			total += n;
	} while (n == SHM_EV_DRAIN_BATCH && total < SHM_EV_DRAIN_MAX &&
		 empty == 0);
	/* Empty packets: a peer may send some; the end of file reads the
	 * same, and stays. */
	if (empty != 0 && shm_ev_kick_eof(ev)) {
		pthread_mutex_lock(&shm_ev_lock);
		if (!ev->detached &&
		    epoll_ctl(ev->kick_ep, EPOLL_CTL_DEL, ev->kick[0], NULL) == 0)
			ev->detached = true;
		ev->backoff_until = UINT64_MAX; /* for good */
		pthread_mutex_unlock(&shm_ev_lock);
		return -EPIPE;
	}
	ev->st.kicks += (uint64_t)total;
	ev->drained = (uint32_t)total;
	return total;
}

/*
 * After the look for work: the kicks this arm took were for nothing if
 * there is no work now and none was taken since the last arm (@p progress
 * did not move), unless we kicked ourselves. SHM_EV_STORM in a row: a
 * storm.
 */
static void
shm_ev_account(struct shm_event *ev, uint64_t progress, bool work,
		const char *what, uint32_t id)
{
	uint32_t woken = __atomic_exchange_n(&ev->woken, 0, __ATOMIC_ACQ_REL);

	if (ev->drained != 0 && !work && progress == ev->progress &&
	    woken == 0) {
		ev->st.spurious++;
		if (++ev->spurious >= SHM_EV_STORM) {
			ev->spurious = 0;
			pthread_mutex_lock(&shm_ev_lock);
			shm_ev_backoff_locked(ev, what, id);
			pthread_mutex_unlock(&shm_ev_lock);
		}
	} else if (work || progress != ev->progress) {
		ev->spurious = 0;
	}
	ev->progress = progress;
	ev->drained = 0;
}

static void
shm_ev_drain_efd(struct shm_event *ev)
{
	uint64_t v;

	if (read(ev->efd, &v, sizeof(v)) == sizeof(v))
		ev->st.kicks += v;
}

/* Store a new arm word: armed for @p what (SHM_ARM_ARMED, and
 * SHM_ARM_ROOM), a new generation. The caller fences. */
static inline void
shm_ev_store(struct shm_event *ev, uint64_t what)
{
	ev->word = ((ev->word & ~(SHM_ARM_GEN - 1)) + SHM_ARM_GEN) | what;
	__atomic_store_n(ev->arm, ev->word, __ATOMIC_RELAXED);
}

static inline void
shm_ev_store_disarm(struct shm_event *ev)
{
	if ((ev->word & (SHM_ARM_ARMED | SHM_ARM_ROOM)) == 0)
		return;
	ev->word &= ~(SHM_ARM_ARMED | SHM_ARM_ROOM);
	__atomic_store_n(ev->arm, ev->word, __ATOMIC_RELAXED);
}

/* ------------------------------------------------ what counts as work */

/* A consumer has something for its poll: a completion in order, a stop
 * to drive. Read-only (also from the periodic check). */
static bool
shm_ev_consumer_work(const struct shm_consumer *c)
{
	uint32_t idx = __atomic_load_n(&c->cons_idx, __ATOMIC_RELAXED);

	if (__atomic_load_n(&c->stopping, __ATOMIC_RELAXED))
		return true;
	if (idx == __atomic_load_n(&c->post_idx, __ATOMIC_RELAXED))
		return false;
	return __atomic_load_n(&c->slots[idx & c->mask].done_seq,
			__ATOMIC_ACQUIRE) == idx + 1;
}

/* A control ring has a message to receive, or (@p room) room to send.
 * Read-only (also from the periodic check): what the peer wrote counts
 * only as a reason to poll. */
static bool
shm_ev_ring_work(const struct shm_conn *sc, bool room)
{
	uint32_t next = __atomic_load_n(&sc->rx_cons, __ATOMIC_RELAXED) +
		__atomic_load_n(&sc->rx_held, __ATOMIC_RELAXED);
	const struct shm_ctrl_slot *slot = RTE_PTR_ADD(sc->local,
		sizeof(struct shm_mailbox_hdr) +
		(size_t)(next & sc->rx.mask) * sc->rx.slot_size);
	uint32_t prod, cons;

	if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) == next + 1)
		return true;
	if (!room)
		return false;
	prod = __atomic_load_n(&sc->tx_prod, __ATOMIC_RELAXED);
	cons = __atomic_load_n(&sc->local->tx_cons, __ATOMIC_ACQUIRE);
	/* room, or a value the next send will refuse */
	return prod - cons < sc->tx.depth ||
		cons - sc->tx_cons > prod - sc->tx_cons;
}

/* The poll of its server or client has something to report about the
 * connection (a break found by the fast path). */
static bool
shm_ev_conn_unreported(const struct shm_conn *sc)
{
	return !sc->lost_reported && shm_conn_down(sc);
}

static uint64_t
shm_ev_conn_progress(const struct shm_conn *sc)
{
	return (uint64_t)sc->rx_cons + sc->rx_held + sc->tx_prod;
}

/* -------------------------------------------------- waking what sleeps */

void
shm_event_server_kick(struct shm_server *ss)
{
	/* A client to accept: rare, kicked whether armed or not (the arm
	 * looks at the inbox after taking the kicks). */
	if (ss->ev != NULL)
		shm_ev_self_kick(ss->ev);
}

void
shm_event_conn_down(struct shm_conn *sc)
{
	struct shm_event *ev;

	/* What sleeps on the connection in this process: its control ring
	 * (in callback mode, through its owner's fd) and its consumers.
	 * Other processes' consumers: their periodic check. */
	pthread_mutex_lock(&shm_ev_lock);
	TAILQ_FOREACH(ev, &shm_ev_list, next)
		if (ev->sc == sc)
			shm_ev_self_kick_locked(ev);
	pthread_mutex_unlock(&shm_ev_lock);
}

/* ------------------------------------------------------------ arming */

static int
shm_ev_arm_consumer(struct shm_event *ev)
{
	struct shm_consumer *c = ev->c;
	struct rte_comch_consumer *cons = ev->head.obj;
	bool work;

	if (shm_ev_drain(ev) < 0)
		shm_conn_refuse(c->sc, "shut down the kick socket of consumer %u",
			cons->id);
	shm_ev_store(ev, SHM_ARM_ARMED);
	rte_smp_mb();
	work = shm_ev_consumer_work(c);
	shm_ev_account(ev, c->cons_idx, work, "consumer", cons->id);
	if (work) {
		shm_ev_store_disarm(ev);
		return 1;
	}
	if (shm_conn_down(c->sc)) {
		shm_ev_store_disarm(ev);
		return -ECONNRESET;
	}
	return 0;
}

/* Arm a connection's control ring: the last burst is confirmed first
 * (the application is done with it; the peer may be waiting for the
 * room), then the word. The caller fences and checks. */
static void
shm_ev_conn_store(struct shm_event *ev)
{
	struct shm_conn *sc = ev->sc;

	if (!sc->broken)
		shm_conn_confirm(sc);
	if (shm_ev_drain(ev) < 0)
		shm_conn_refuse(sc, "shut down the kick socket of its control ring");
	shm_ev_store(ev, SHM_ARM_ARMED |
		(sc->tx_blocked ? SHM_ARM_ROOM : 0));
}

/* The look for work of a connection's control ring, after the fence. */
static bool
shm_ev_conn_check(struct shm_event *ev)
{
	struct shm_conn *sc = ev->sc;
	bool work = shm_ev_ring_work(sc, sc->tx_blocked);

	shm_ev_account(ev, shm_ev_conn_progress(sc), work, "control ring",
		sc->conn->id);
	return work;
}

static int
shm_ev_arm_conn(struct shm_event *ev)
{
	struct shm_conn *sc = ev->sc;

	shm_ev_conn_store(ev);
	rte_smp_mb();
	if (shm_ev_conn_check(ev)) {
		shm_ev_store_disarm(ev);
		return 1;
	}
	if (shm_conn_down(sc)) {
		shm_ev_store_disarm(ev);
		return -ECONNRESET;
	}
	return 0;
}

/* Link sockets with something to read (the poll looks at them now). */
static bool
shm_ev_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };

	/* an epoll fd is readable when one of its fds is */
	return poll(&p, 1, 0) == 1 && p.revents != 0;
}

static int
shm_ev_arm_server(struct shm_event *ev)
{
	struct rte_comch_server *srv = ev->head.obj;
	struct shm_server *ss = srv->drv;
	struct rte_comch_conn *conn;
	struct shm_conn *sc;
	bool work = false;

	shm_ev_drain_efd(ev);
	/* What waits for the peers to read goes out as far as it may now;
	 * the rest at the periodic check (the peer's reading wakes no one) */
	RTE_COMCH_SERVER_FOREACH_CONN(conn, srv)
		shm_conn_flush(conn->drv, false);
	if (srv->msg_cb != NULL)
		RTE_COMCH_SERVER_FOREACH_CONN(conn, srv) {
			sc = conn->drv;
			if (sc->ev != NULL)
				shm_ev_conn_store(sc->ev);
		}
	rte_smp_mb();
	if (__atomic_load_n(&ss->inbox_len, __ATOMIC_ACQUIRE) != 0)
		work = true;
	if (!work && shm_ev_readable(ss->epfd)) {
		ss->next_check = 0; /* the next poll reads them */
		work = true;
	}
	RTE_COMCH_SERVER_FOREACH_CONN(conn, srv) {
		sc = conn->drv;
		if (srv->msg_cb != NULL && sc->ev != NULL)
			work |= shm_ev_conn_check(sc->ev);
		work |= shm_ev_conn_unreported(sc);
	}
	if (!work)
		return 0;
	if (srv->msg_cb != NULL)
		RTE_COMCH_SERVER_FOREACH_CONN(conn, srv) {
			sc = conn->drv;
			if (sc->ev != NULL)
				shm_ev_store_disarm(sc->ev);
		}
	return 1;
}

static int
shm_ev_arm_client(struct shm_event *ev)
{
	struct rte_comch_client *cli = ev->head.obj;
	struct shm_client *sh = cli->drv;
	struct shm_conn *sc = cli->conn != NULL ? cli->conn->drv : NULL;
	struct epoll_event e = { .events = EPOLLIN | EPOLLRDHUP };
	bool callback = cli->msg_cb != NULL && sc != NULL && sc->ev != NULL;
	int sock = sc != NULL ? sc->sock : sh->sock;
	bool work = false;

	shm_ev_drain_efd(ev);
	if (sc != NULL)
		shm_conn_flush(sc, false); /* as a server's arm does */
	/* The link socket of the moment (the handshake's, then the
	 * connection's): a closed one left the set by itself. */
	if (sock >= 0 && epoll_ctl(ev->ep, EPOLL_CTL_ADD, sock, &e) < 0 &&
	    errno != EEXIST)
		return 1; /* cannot watch it: poll */
	if (callback)
		shm_ev_conn_store(sc->ev);
	rte_smp_mb();
	if (cli->state == RTE_COMCH_STATE_STARTING && sh->pending_err != 0)
		work = true;
	if (!work && sock >= 0 && shm_ev_readable(sock)) {
		sh->next_check = 0;
		work = true;
	}
	if (callback)
		work |= shm_ev_conn_check(sc->ev);
	if (sc != NULL)
		work |= shm_ev_conn_unreported(sc);
	if (!work)
		return 0;
	if (callback)
		shm_ev_store_disarm(sc->ev);
	return 1;
}

int
shm_event_arm(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_event *head)
{
	struct shm_event *ev = (struct shm_event *)head;
	int ret;

	switch (head->kind) {
	case RTE_COMCH_EVENT_CONSUMER:
		ret = shm_ev_arm_consumer(ev);
		break;
	case RTE_COMCH_EVENT_CONN:
		ret = shm_ev_arm_conn(ev);
		break;
	case RTE_COMCH_EVENT_SERVER:
		ret = shm_ev_arm_server(ev);
		break;
	case RTE_COMCH_EVENT_CLIENT:
		ret = shm_ev_arm_client(ev);
		break;
	default:
		return -EINVAL;
	}
	ev->st.arms++;
	if (ret > 0)
		ev->st.ready++;
	return ret;
}

void
shm_event_disarm(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_event *head)
{
	struct shm_event *ev = (struct shm_event *)head;
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	struct shm_conn *sc;

	switch (head->kind) {
	case RTE_COMCH_EVENT_CONSUMER:
	case RTE_COMCH_EVENT_CONN:
		shm_ev_store_disarm(ev);
		break;
	case RTE_COMCH_EVENT_SERVER:
		srv = head->obj;
		RTE_COMCH_SERVER_FOREACH_CONN(conn, srv) {
			sc = conn->drv;
			if (sc->ev != NULL && srv->msg_cb != NULL)
				shm_ev_store_disarm(sc->ev);
		}
		break;
	case RTE_COMCH_EVENT_CLIENT:
		cli = head->obj;
		sc = cli->conn != NULL ? cli->conn->drv : NULL;
		if (sc != NULL && sc->ev != NULL && cli->msg_cb != NULL)
			shm_ev_store_disarm(sc->ev);
		break;
	default:
		break;
	}
}

int
shm_event_wake(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_event *head)
{
	shm_ev_self_kick((struct shm_event *)head);
	return 0;
}

void
shm_event_stats(struct rte_comch_dev *cdev __rte_unused,
		const struct rte_comch_event *head,
		struct rte_comch_event_stats *stats)
{
	const struct shm_event *ev = (const struct shm_event *)head;

	stats->arms = __atomic_load_n(&ev->st.arms, __ATOMIC_RELAXED);
	stats->ready = __atomic_load_n(&ev->st.ready, __ATOMIC_RELAXED);
	stats->kicks = __atomic_load_n(&ev->st.kicks, __ATOMIC_RELAXED);
	stats->spurious = __atomic_load_n(&ev->st.spurious, __ATOMIC_RELAXED);
	stats->rescues = __atomic_load_n(&ev->st.rescues, __ATOMIC_RELAXED);
	stats->backoffs = __atomic_load_n(&ev->st.backoffs, __ATOMIC_RELAXED);
}

/* --------------------------------------------------- the periodic check */

/* Is a kick waiting on kick[0] (delivered, the waiter not yet up)? */
static bool
shm_ev_kick_pending(const struct shm_event *ev)
{
	struct pollfd p = { .fd = ev->kick[0], .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* Under shm_ev_lock: a connection or consumer. */
static void
shm_ev_check_waitable(struct shm_event *ev, uint64_t now)
{
	uint64_t w = __atomic_load_n(ev->arm, __ATOMIC_RELAXED);
	bool work, down = shm_conn_down(ev->sc);

	/* A connection of this process's server or client (the link's
	 * owner): what waits in its outbox for the peer to read goes out
	 * as far as it may, though its owner sleeps. */
	if (ev->owner != NULL)
		shm_conn_flush(ev->sc, false);

	/* A break the fast path found is for the poll of the connection's
	 * server or client to report (the connection's event knows it). */
	if (ev->owner != NULL && shm_ev_conn_unreported(ev->sc))
		shm_ev_self_kick_locked(ev->owner);
	if (ev->c != NULL)
		work = shm_ev_consumer_work(ev->c);
	else
		work = shm_ev_ring_work(ev->sc, (w & SHM_ARM_ROOM) != 0);
	if (ev->detached && ev->backoff_until != UINT64_MAX) {
		/* A storm's set-aside: over, or work to wake it for. */
		if (now >= ev->backoff_until ||
		    ((w & SHM_ARM_ARMED) && (work || down))) {
			if (shm_ev_add(ev->kick_ep, ev->kick[0], ev) == 0)
				__atomic_store_n(&ev->detached, false,
						__ATOMIC_RELEASE);
			if ((w & SHM_ARM_ARMED) && (work || down))
				shm_ev_self_kick_locked(ev);
		}
		ev->wd_word = 0;
		return;
	}
	if (!(w & SHM_ARM_ARMED) || !(work || down) ||
	    shm_ev_kick_pending(ev)) {
		ev->wd_word = 0;
		return;
	}
	if (down) {
		/* lost: the process that reported it woke its own */
		shm_ev_self_kick_locked(ev);
		return;
	}
	/* Armed, work there, no kick: the second check in a row with the
	 * same arm word means the peer did not kick. */
	if (ev->wd_word != w) {
		ev->wd_word = w;
		return;
	}
	ev->wd_word = 0;
	ev->st.rescues++;
	shm_ev_self_kick_locked(ev);
}

static void
shm_ev_tick(void *arg)
{
	struct shm_event *ev;
	uint64_t now = shm_ev_now();
	uint32_t ms = 0;

	pthread_mutex_lock(&shm_ev_lock);
	if ((uintptr_t)arg != shm_ev_gen) {
		/* a newer chain replaced this one */
		pthread_mutex_unlock(&shm_ev_lock);
		return;
	}
	TAILQ_FOREACH(ev, &shm_ev_list, next) {
		/* the next period: the shortest of the events left */
		if (ms == 0 || ev->check_ms < ms)
			ms = ev->check_ms;
		if (now < ev->next_check)
			continue;
		ev->next_check = now + ev->check_cycles;
		if (ev->arm != NULL)
			shm_ev_check_waitable(ev, now);
	}
	shm_ev_period_ms = ms;  /* 0: none left, stopped */
	shm_ev_schedule_locked();
	pthread_mutex_unlock(&shm_ev_lock);
}
