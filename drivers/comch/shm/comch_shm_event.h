/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_SHM_EVENT_H
#define COMCH_SHM_EVENT_H

/*
 * comch_shm's event mode, internal: the objects applications sleep on,
 * the peer's waitables as a kicker sees them, and the kicks. Included at
 * the end of comch_shm_priv.h, whose types it uses; see comch_shm.h,
 * "Event mode", and the driver guide for the protocol.
 */

/* ------------------------------------------- comch_shm_event.c */

/*
 * Event mode (see comch_shm.h, "Event mode", and the driver guide). A
 * kicker's view of one of the peer's waitables: the peer's arm word
 * (its arm page, mapped read-only) and our duplicate of its kick socket.
 * Process memory of the process that kicks.
 */
struct shm_peer_ev {
	const volatile uint64_t *arm;
	int fd;
	uint64_t kicked;     /**< Arm word last kicked for (compare-and-swap:
			      *   one kick per armed value and process). */
	void *map;
};

/* The event of a server, client, connection or consumer (its head is
 * what the library sees): created and freed by comch_shm_event.c, armed,
 * kicked and checked by comch_shm_event_arm.c. */
struct shm_event {
	struct rte_comch_event head;   /* first: what the library sees */
	int ep;                        /* head.fd, or -1 (a connection whose
					* kicks go to its owner's) */
	int efd;                       /* server, client: self kicks */
	int kick[2];                   /* connection, consumer */
	int kick_ep;                   /* the epoll set kick[0] is in */
	volatile uint64_t *arm;        /* our arm word (read-write), or NULL */
	void *page;
	int page_fd;                   /* consumer: kept for restarts */
	uint64_t word;                 /* last stored in *arm */
	struct shm_conn *sc;           /* connection, consumer */
	struct shm_consumer *c;        /* consumer */
	struct shm_event *owner;       /* connection: its server's or
					* client's (outlives it) */
	uint32_t check_ms;             /* its device's wake_check_ms */
	/* The owner's lcore. */
	uint64_t progress;             /* progress mark at the last arm */
	uint32_t drained;              /* kicks taken by this arm */
	uint32_t spurious;             /* in a row */
	uint32_t woken;                /* kicked by ourselves since the last
					* arm (atomic) */
	/* Under shm_ev_lock. */
	bool detached;                 /* kick[0] out of kick_ep (storm) */
	uint32_t backoff;              /* checks */
	uint64_t backoff_until;        /* TSC */
	uint64_t wd_word;              /* armed word seen with work at the
					* last check, or 0 */
	uint64_t next_check;           /* TSC */
	uint64_t check_cycles;
	struct rte_comch_event_stats st;
	TAILQ_ENTRY(shm_event) next;
};

/* Servers and clients (their owner's lcore). */
int shm_event_server_create(struct shm_dev *sd, struct rte_comch_server *srv);
void shm_event_server_destroy(struct rte_comch_server *srv);
int shm_event_client_create(struct shm_dev *sd, struct rte_comch_client *cli);
void shm_event_client_destroy(struct rte_comch_client *cli);
/* A connection is made (the poll): our control ring's event if our
 * server or client has RTE_COMCH_F_EVENT, announced to the peer with
 * EVENT. 0 or a negative errno (this process's resources). */
int shm_event_conn_open(struct shm_dev *sd, struct shm_conn *sc);
/* EVENT from the peer (the poll): 0, or -EPROTO with the connection
 * refused. Closes @p fds. */
int shm_event_peer_msg(struct shm_conn *sc, const int *fds, int nfds);
/* The connection closes: free its events, ours and the peer's. */
void shm_event_conn_close(struct shm_conn *sc);
/* Consumers (the owner process). */
int shm_event_consumer_create(struct shm_dev *sd,
		struct rte_comch_consumer *cons);
void shm_event_consumer_destroy(struct rte_comch_consumer *cons);
/* Describe a consumer's event in its announcement. */
void shm_event_consumer_xfer(const struct shm_consumer *c,
		struct rte_comch_pmd_xfer *x);
/* The checks of an arm page and a kick socket sent by a peer (or, in
 * the primary, by a secondary for the peer): 0 or -EPROTO with @p why. */
int shm_event_fds_check(int page_fd, int kick_fd, char *why, size_t why_len);
/* Map the peer's waitable (arm page read-only, a duplicate of the kick
 * socket): 0, -EPROTO with @p why, or another negative errno. */
int shm_peer_ev_map(int page_fd, int kick_fd, struct shm_peer_ev **out,
		char *why, size_t why_len);
void shm_peer_ev_free(struct shm_peer_ev *pe);

/* ------------------------------------------- comch_shm_event_arm.c */

/* Put @p ev on the periodic check's list, checked every @p sd's
 * wake_check_ms (the first event starts the check), once its fds are
 * made; take it off before it is freed. */
void shm_ev_register(struct shm_event *ev, struct shm_dev *sd);
void shm_ev_unregister(struct shm_event *ev);
/* Put @p fd in epoll set @p ep (EPOLLIN, @p tag): 0 or a negative errno. */
int shm_ev_add(int ep, int fd, void *tag);
/* A client arrived for @p ss (the interrupt thread, func->lock held). */
void shm_event_server_kick(struct shm_server *ss);
/* The connection is lost or closed by the peer (reported now), or, in a
 * secondary, its primary is gone: wake what sleeps on it here. */
void shm_event_conn_down(struct shm_conn *sc);
/* Event ops. */
int shm_event_arm(struct rte_comch_dev *cdev, struct rte_comch_event *ev);
void shm_event_disarm(struct rte_comch_dev *cdev, struct rte_comch_event *ev);
int shm_event_wake(struct rte_comch_dev *cdev, struct rte_comch_event *ev);
void shm_event_stats(struct rte_comch_dev *cdev,
		const struct rte_comch_event *ev,
		struct rte_comch_event_stats *stats);

/* ------------------------------------------- comch_shm_rxtx.c */

/* Kick the peer's waitable @p pe for arm word @p w, once per value of
 * the word (any thread). */
void shm_kick(struct shm_peer_ev *pe, uint64_t w);

/* The kicker's half of the rule: the work is published; fence, then
 * read the peer's arm word and kick if it waits for @p need. */
static inline void
shm_kick_check(struct shm_peer_ev *pe, uint64_t need)
{
	uint64_t w;

	rte_smp_mb();
	w = *pe->arm;
	if (unlikely((w & need) != 0) &&
	    w != __atomic_load_n(&pe->kicked, __ATOMIC_RELAXED))
		shm_kick(pe, w);
}

/* The same for a connection's control ring, whose peer said it has
 * events (sc->peer_events): the fence comes before the look at whether
 * its arm page is mapped yet (see shm_event_peer_msg()). */
static inline void
shm_kick_conn(struct shm_conn *sc, uint64_t need)
{
	struct shm_peer_ev *pe;
	uint64_t w;

	rte_smp_mb();
	pe = __atomic_load_n(&sc->peer_ev, __ATOMIC_ACQUIRE);
	if (pe == NULL)
		return;
	w = *pe->arm;
	if (unlikely((w & need) != 0) &&
	    w != __atomic_load_n(&pe->kicked, __ATOMIC_RELAXED))
		shm_kick(pe, w);
}

#endif /* COMCH_SHM_EVENT_H */
