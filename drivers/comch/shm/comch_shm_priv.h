/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_SHM_PRIV_H
#define COMCH_SHM_PRIV_H

/*
 * comch_shm's internal declarations, by file. Each file is one concern
 * (see doc/guides/prog_guide/comch_design.md); a file calls only those
 * listed below it:
 *
 *   comch_shm.c          probe, devargs, device ops, the ops table
 *   comch_shm_client.c   clients: the host's handshake
 *   comch_shm_session.c  servers: the DPU's handshake; connections
 *   comch_shm_queue.c    our registered memory, consumers and producers
 *   comch_shm_peer.c     the peer's consumers: announcing ours,
 *                        validating and mapping theirs, views,
 *                        reclamation, finishing a dead producer's send
 *   comch_shm_listen.c   the DPU's listening sockets: accept, HELLO,
 *                        routing, handshake quotas, the link folder
 *   comch_shm_event.c    event mode: the fds applications sleep on, arm
 *                        pages, kick sockets: creating and freeing them,
 *                        mapping the peer's
 *   comch_shm_event_arm.c
 *                        event mode: kicking ourselves, arming, the
 *                        periodic check
 *   comch_shm_link.c     the link socket: protocol messages and fds,
 *                        memfds, the outbox, refusing a connection
 *   comch_shm_fd.c       fds: the headroom, receiving a message, disarming
 *                        the fds a peer sends, the reaper
 *   comch_shm_rxtx.c     the message path: control rings and fast path
 *                        (the only file whose speed matters)
 */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>
#include <sys/un.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_interrupts.h>
#include <rte_log.h>
#include <rte_spinlock.h>

#include <rte_comch_pmd.h>

#include "comch_shm.h"

extern int comch_shm_logtype;
#define SHM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, comch_shm_logtype, "comch_shm: " fmt "\n", \
		## __VA_ARGS__)
#define SHM_LOG_AT(level, fmt, ...) \
	rte_log(level, comch_shm_logtype, "comch_shm: " fmt "\n", ## __VA_ARGS__)
/* A probe of device @p dev fails: log why and record it for the
 * application (rte_comch_devargs_check()). */
#define SHM_PROBE_ERR(dev, fmt, ...) do { \
	SHM_LOG(ERR, "%s: " fmt, dev, ## __VA_ARGS__); \
	rte_comch_pmd_probe_failed(dev, "%s: " fmt, dev, ## __VA_ARGS__); \
} while (0)

/** How often a poll looks at its sockets (liveness, handshakes), in us.
 * Messages never wait for this: they travel through the mailboxes. */
#define SHM_SOCK_CHECK_US 50

/** How long a stopping consumer waits for the buffers the peer's
 * producers claimed to be filled (ms); then the peer broke the rules. */
#define SHM_STOP_GRACE_MS 2000

/** Bytes of private copies one receive call delivers at most (at least
 * one message of the largest size). */
#define SHM_RX_ARENA 16384

/** Most fds one protocol message carries (CONSUMER_ADD with events). */
#define SHM_MSG_FDS_MAX 4

/** Event mode: how often the periodic check looks at armed objects (ms,
 * devarg wake_check_ms); a wake-up the peer owes and does not send comes
 * within two periods. */
#define SHM_DEFAULT_WAKE_CHECK_MS 100
#define SHM_MIN_WAKE_CHECK_MS 10
#define SHM_MAX_WAKE_CHECK_MS 3600000

struct shm_dev;
struct shm_function;
struct shm_server;
struct shm_conn;
struct shm_view;

/* ------------------------------------------------ comch_shm.c: devices */

/*
 * Quotas of a DPU device, per host function it serves (devargs, DPU role).
 * A host on a function can take at most these; what would exceed one is
 * refused with a reason, and nothing else is disturbed. The per-connection
 * ones are sent to the host in ACCEPT, so an honest host is refused
 * locally (ENOSPC) and one that goes beyond them breaks the protocol.
 */
struct shm_quota {
	uint32_t max_conns;      /**< Connections, all servers of the function. */
	uint32_t max_pending;    /**< Handshakes in progress (sockets). */
	uint32_t handshake_ms;   /**< How long a socket may take to say HELLO. */
	uint32_t max_consumers;  /**< The host's consumers per connection. */
	uint64_t max_map;        /**< Bytes of the host's consumer rings and
				  *   memory mapped per connection. */
};

#define SHM_DEFAULT_MAX_CONNS 16
#define SHM_DEFAULT_MAX_PENDING 16
#define SHM_DEFAULT_HANDSHAKE_MS 2000
#define SHM_DEFAULT_MAX_CONSUMERS 16
#define SHM_DEFAULT_MAX_MAP_MB 4096

/** A device's configuration: its devargs, parsed by the primary into the
 * driver data every process shares (dev->data->dev_private); a secondary
 * checks its copy as it would devargs. */
struct shm_config {
	int role;                 /**< enum rte_comch_role, -1 if absent. */
	char path[PATH_MAX];
	uint16_t nb_functions;
	char functions[SHM_MAX_FUNCTIONS][SHM_FUNC_NAME_MAX];
	bool have_functions;      /**< functions= given. */
	bool have_function;       /**< function= given. */
	bool have_quota;          /**< A quota devarg was given. */
	struct shm_quota quota;   /**< DPU role. */
	uint32_t wake_check_ms;   /**< Event mode's periodic check. */
};

bool shm_function_name_valid(const char *s);
int shm_parse_devargs(const char *devname, const char *args,
		struct shm_config *cfg);

/*
 * Log lines about what peers do (refusals, broken connections) are
 * rate-limited per host function: at most SHM_LOG_BURST a second, then
 * one line saying how many were left out.
 */
#define SHM_LOG_BURST 32
struct shm_ratelimit {
	rte_spinlock_t lock;
	uint64_t window_end;          /**< TSC */
	uint32_t in_window;
	uint32_t suppressed;
};

/** A socket accepted on a DPU function: first waiting for HELLO (owned by
 * the interrupt thread, on func->pending), then waiting in a server's inbox
 * for that server's poll (owned by the server's lcore once taken). */
struct shm_pending {
	TAILQ_ENTRY(shm_pending) next;
	struct shm_function *func;
	int sock;
	int mailbox_fd;
	uint64_t deadline;        /**< TSC: HELLO must have come by then. */
	struct rte_intr_handle *intr;
	struct shm_msg hello;     /**< Private copy, validated. */
};
TAILQ_HEAD(shm_pending_list, shm_pending);

/** The socket of a closed connection, kept while its host holds unread
 * what the DPU sent on it (shm_function_park()). */
struct shm_parked {
	TAILQ_ENTRY(shm_parked) next;
	int sock;
};
TAILQ_HEAD(shm_parked_list, shm_parked);

/** One host function of a device: on the DPU, one it serves (listening,
 * in the process that owns the link); on the host, the one it is. */
struct shm_function {
	char name[SHM_FUNC_NAME_MAX];
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int listen_fd;
	struct rte_intr_handle *intr;
	struct shm_dev *dev;
	/* Taken by the interrupt thread and by the lcores creating,
	 * starting, stopping or destroying servers, or taking their inbox;
	 * never on the message path. */
	rte_spinlock_t lock;
	TAILQ_HEAD(, shm_server) servers;
	struct shm_pending_list pending;
	uint32_t nb_pending;          /**< On pending (under lock). */
	/* Quotas in use (atomics): handshakes in progress (pending, and
	 * waiting in a server's inbox), established connections. */
	uint32_t nb_handshakes;
	uint32_t nb_conns;
	int spare_fd;                 /**< Given up to refuse a client when
				       *   the process is out of fds. */
	bool listen_paused;           /**< Out of fds: not listening now. */
	struct shm_ratelimit refusals; /**< Refusal log lines. */
	struct shm_ratelimit blame;   /**< Lines blaming a connected host. */
	/* Sockets of closed connections whose host has not read all we
	 * sent (under lock): still counted in nb_conns, see
	 * shm_function_park(). */
	struct shm_parked_list parked;
	uint32_t nb_parked;           /**< Atomic: on parked. */
	uint64_t parked_check;        /**< Atomic: TSC of the next look. */
	bool closing;                 /**< Under lock: device closing. */
};

TAILQ_HEAD(shm_view_list, shm_view);

/** Driver state of one device in this process (process memory). */
struct shm_dev {
	struct rte_comch_dev *cdev;
	struct shm_config cfg;        /**< Private copy, checked. */
	uint16_t nb_functions;
	struct shm_function functions[SHM_MAX_FUNCTIONS];
	uint64_t sock_check_cycles;
	/* This process's views of the peer's consumers, one per connection
	 * its producers use (comch_shm_peer.c). */
	pthread_mutex_t views_lock;
	struct shm_view_list views;
};

/* ------------------------- comch_shm_session.c, comch_shm_client.c */

/** Driver state of a server (srv->drv). */
struct shm_server {
	TAILQ_ENTRY(shm_server) next; /**< In func->servers, under func->lock. */
	struct rte_comch_server *srv;
	struct shm_function *func;
	bool accepting;               /**< Under func->lock. */
	struct shm_pending_list inbox; /**< Under func->lock. */
	uint32_t inbox_len;           /**< Read without the lock as a hint. */
	int epfd;                     /**< Sockets of established connections. */
	uint64_t next_check;          /**< TSC of the next socket check. */
	struct shm_event *ev;         /**< Event mode, or NULL. */
};

/** Driver state of a client (cli->drv). */
struct shm_client {
	int sock;                 /**< During starting; moves to the conn. */
	int pending_err;          /**< Failure to report at the next poll. */
	struct shm_ring_geom rx;  /**< Our queue, sized from our config. */
	void *mailbox;            /**< Our mailbox while starting. */
	uint64_t next_check;      /**< TSC of the next socket check. */
	struct shm_event *ev;     /**< Event mode, or NULL. */
};

int shm_server_create(struct rte_comch_dev *cdev, struct rte_comch_server *srv);
void shm_server_destroy(struct rte_comch_dev *cdev, struct rte_comch_server *srv);
int shm_server_start(struct rte_comch_dev *cdev, struct rte_comch_server *srv);
int shm_server_stop(struct rte_comch_dev *cdev, struct rte_comch_server *srv);
int shm_server_poll(struct rte_comch_dev *cdev, struct rte_comch_server *srv);
int shm_client_create(struct rte_comch_dev *cdev, struct rte_comch_client *cli);
void shm_client_destroy(struct rte_comch_dev *cdev, struct rte_comch_client *cli);
int shm_client_start(struct rte_comch_dev *cdev, struct rte_comch_client *cli);
void shm_client_abort(struct rte_comch_dev *cdev, struct rte_comch_client *cli);
int shm_client_poll(struct rte_comch_dev *cdev, struct rte_comch_client *cli);
void shm_conn_close(struct rte_comch_dev *cdev, struct rte_comch_conn *conn);
void shm_conn_orphan(struct rte_comch_dev *cdev, struct rte_comch_conn *conn);
/* Fill a connection's driver state (either side) once both mailboxes
 * are mapped: 0, or -ENOMEM (nothing taken over). */
int shm_conn_init(struct shm_dev *sd, struct shm_conn *sc,
		struct rte_comch_conn *conn, int sock,
		const struct shm_ring_geom *rx, void *local,
		const struct shm_ring_geom *tx, void *remote);
/* Report it closed by the peer (BYE, @p clean) or lost (once): 1 the
 * first time, else 0. */
int shm_conn_report(struct shm_conn *sc, int err, bool clean);
/* Its link socket is readable: the messages handled (a report counts). */
int shm_conn_sock_event(struct shm_conn *sc);

/* ------------------------------------------- comch_shm_listen.c */

int shm_function_listen(struct shm_function *func);
void shm_function_close(struct shm_function *func);
bool shm_function_park(struct shm_function *func, int sock);
unsigned int shm_function_unpark(struct shm_function *func, bool all);
/* How often a server's poll looks at its function's parked sockets. */
#define SHM_PARKED_CHECK_MS 10
void shm_function_parked_tick(struct shm_function *func, uint64_t now);
void shm_pending_free(struct shm_pending *p);
/* Refuse a client on @p func: REJECT(@p err, reason), the reason logged at
 * @p level (rate-limited per function from NOTICE up). */
void shm_function_refuse(struct shm_function *func, int sock, int level, int err,
		const char *fmt, ...) __rte_format_printf(5, 6);
/* The link folder and a socket in it: this user's, closed to others. */
int shm_dir_check(const char *path, char *why, size_t why_len);
int shm_sock_file_check(const char *path, bool strict, char *why,
		size_t why_len);

/* ------------------------------------------- comch_shm_link.c */

/*
 * Messages for the link socket that the peer has not taken yet (it reads
 * its socket only when it polls): consumer announcements and withdrawals
 * wait here, in order, instead of blocking whoever announces. The
 * connection's polling lcore sends them as the peer reads; a peer that
 * lets SHM_OUTBOX_MAX of them pile up does not read its socket and loses
 * the connection. A consumer withdrawn before its announcement left
 * takes the announcement back (shm_conn_cancel_add_locked()), so starting
 * and stopping consumers for such a peer piles up nothing but one
 * CONSUMER_SKIP; the copies of fds that wait are taken only while the
 * process keeps its fd headroom, and messages with fds go to the socket
 * only while the peer has read nearly all we sent (the kernel counts the
 * fds of unread messages against this user's ulimit -n).
 */
struct shm_outbox_entry {
	STAILQ_ENTRY(shm_outbox_entry) next;
	struct shm_msg msg;
	int fds[SHM_MSG_FDS_MAX];
	int nfds;
};
STAILQ_HEAD(shm_outbox, shm_outbox_entry);
#define SHM_OUTBOX_MAX (2 * RTE_COMCH_MAX_FP_OBJECTS + 16)

/* Private geometry of a control ring, and the size of a consumer ring,
 * from the negotiated values. */
void shm_ring_geom_init(struct shm_ring_geom *g, uint32_t depth,
		uint32_t max_msg);
size_t shm_cons_ring_size(uint32_t depth);
/* A memfd of @p size sealed against resizing, mapped read-write (on
 * @p socket_id unless SOCKET_ID_ANY). */
int shm_memfd_create(const char *tag, size_t size, int socket_id, int *fd,
		void **base);
/* Map a region the peer sent: a memfd of exactly @p size, sealed against
 * resizing; else -EPROTO with the reason in @p why (the peer's fault), or
 * another negative errno (this process's: out of memory). */
int shm_map_sealed(int fd, uint64_t size, void **base, char *why,
		size_t why_len);
/* The checks of shm_map_sealed() without mapping. */
int shm_fd_check(int fd, uint64_t size, char *why, size_t why_len);
void shm_msg_init(struct shm_msg *msg, enum shm_msg_type type);
int shm_msg_send(int sock, const struct shm_msg *msg, int fd);
int shm_msg_send_fds(int sock, const struct shm_msg *msg, const int *fds,
		int nfds);
void shm_send_reject(int sock, int err, const char *fmt, ...)
	__rte_format_printf(3, 4);
/* Close a link socket without resetting the peer (drains it first). */
void shm_sock_close(int sock, bool shut);
void shm_sock_drain_peer(int sock, bool shut);
bool shm_sock_unread_out(int sock);
int shm_record_has_fds(int sock);
bool shm_sock_empty(int sock);
bool shm_sock_take_apart(int sock);
/* Queue @p msg (with duplicates of @p fds) for the peer on the link
 * socket, after what is queued already; sent now if nothing waits and the
 * socket has room. 0, -ECONNRESET (the connection is down or the peer
 * stopped reading: it is broken now), -ENOMEM/-EMFILE, or the error of
 * sending it now (-EPIPE and the like: the peer is gone). With
 * sc->outbox_lock held (it also guards the counts of our announced
 * consumers). */
int shm_conn_post_locked(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds);
/* Under sc->outbox_lock: take back the CONSUMER_ADD of @p consumer_id
 * if it still waits in the outbox: the peer never learns of that
 * consumer, only that its id was used (a CONSUMER_SKIP, last in the
 * outbox: the one SKIP there, moved and raised), and needs no
 * CONSUMER_DEL.
 * False if no such ADD waits (it went out, or the outbox was dropped). */
bool shm_conn_cancel_add_locked(struct shm_conn *sc, uint32_t consumer_id);
/* Send what the outbox holds as far as the peer reads (the polling
 * lcore); drop it all with @p drop (the connection closes). */
void shm_conn_flush(struct shm_conn *sc, bool drop);
/* The peer sent what the protocol forbids: log why (once) and break the
 * connection (the next poll reports it). */
void shm_conn_refuse(struct shm_conn *sc, const char *fmt, ...)
	__rte_format_printf(2, 3);
/* This process ran out of @p what (negative errno @p err) following the
 * peer: log so, not blaming the peer, and close the connection. */
void shm_conn_fail_local(struct shm_conn *sc, int err, const char *what);
/* Whether one more line may go out now (and, first, say how many were
 * left out in the last window). */
bool shm_ratelimit_ok(struct shm_ratelimit *rl, const char *what);
bool shm_conn_log_ok(const struct shm_conn *sc);
/* Text a peer chose, made printable for a log (in place, NUL forced). */
void shm_sanitize(char *s, size_t size);
const char *shm_dev_name(const struct rte_comch_conn *conn);

/* ------------------------------------------- comch_shm_fd.c */

/** fds the driver leaves free for the rest of the process (see
 * shm_fd_headroom()). */
#define SHM_FD_HEADROOM 16
bool shm_fd_headroom(int fd, unsigned int n);
/* Close a socket the peer sent, of a family other than AF_UNIX, in the
 * reaper thread (its close may wait on the peer). */
void shm_fd_reap(int fd);
int shm_msg_recv(int sock, struct shm_msg *msg, int fds[SHM_MSG_FDS_MAX],
		int *nfds);

/* ----------------------------------------- connections (shared) */

/** A mapped mailbox. */
struct shm_map {
	void *base;
	size_t size;
};

/*
 * A producer's hazard word (struct shm_conn.hazard[producer id]): while it
 * sends, SHM_HAZARD_BUSY | send number << 32 | the consumer id it sends
 * to; 0 between sends. Written by the producer's lcore (release), read by
 * every process: the reclamation of the peer's consumers' mappings keeps
 * what a hazard names, and the primary, finishing the send of a producer
 * whose process died, waits until each live producer that was sending to
 * the same consumer moved on (its word changed). One cache line each: two
 * producers never write one line.
 */
#define SHM_HAZARD_BUSY RTE_BIT64(63)
#define SHM_HAZARD_ID(w) ((uint32_t)(w))
#define SHM_HAZARD_NAMES(w, id) (((w) & SHM_HAZARD_BUSY) && \
	SHM_HAZARD_ID(w) == (id))
struct shm_hazard {
	uint64_t word;
	uint8_t pad[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint64_t)];
};

/** Driver state of a connection (conn->drv, shared memory). Everything
 * but the fields marked shared is the primary's. */
struct shm_conn {
	/* Hot: send side. */
	uint32_t tx_prod;        /**< Next index we write (private). */
	uint32_t tx_cons;        /**< Last validated peer consumption. */
	struct shm_ring_geom tx; /**< The peer's queue (private copy). */
	struct shm_mailbox_hdr *remote; /**< Peer's mailbox: we only write. */
	bool peer_events;        /**< The peer's HELLO/ACCEPT said SHM_F_EVENT:
				  *   fence after publishing, kick once its arm
				  *   page is mapped (peer_ev). */
	bool tx_blocked;         /**< The last send found the queue full. */
	struct shm_peer_ev *peer_ev; /**< The peer's control ring arm page
				  *   and kick socket (primary; set by the
				  *   poll, release), or NULL. */
	/* Hot: receive side. */
	uint32_t rx_cons;        /**< Next index we read (private). */
	uint32_t rx_held;        /**< Slots of the last burst, confirmed to
				  *   the peer at the next receive call. */
	uint8_t *rx_arena;       /**< Private copies of the messages
				  *   delivered by the last receive call
				  *   (process memory of the primary). */
	struct shm_ring_geom rx; /**< Our queue (private copy). */
	struct shm_mailbox_hdr *local; /**< Our mailbox: we only read. */
	/* Shared: read on every process's fast path. */
	int broken;              /**< -EPROTO once the peer broke the rules,
				  *   or a negative errno of a resource this
				  *   process ran out of following the peer. */
	uint8_t broken_why;      /**< enum shm_broken_why. */
	bool peer_gone;          /**< EOF seen on the socket, or primary gone. */
	/* Cold. */
	bool lost_reported;
	int sock;
	struct shm_map local_map;
	struct shm_map remote_map;
	struct rte_comch_conn *conn;
	struct shm_server *server; /**< NULL on the host side. */
	struct shm_view *view;     /**< The link owner's view (pinned). */
	struct shm_event *ev;      /**< Our control ring's event, or NULL. */
	/* Quotas (see struct shm_quota). Server side: what the host may
	 * announce; client side: what the DPU allows us (from ACCEPT). */
	uint32_t max_peer_consumers;  /**< Server side. */
	uint64_t max_peer_map;
	uint32_t nb_peer_consumers;   /**< Live ones, and their bytes. */
	uint64_t peer_map;
	uint32_t max_own_consumers;   /**< Client side. */
	uint64_t max_own_map;
	uint32_t nb_own_consumers;    /**< Announced, and their bytes. */
	uint64_t own_map;
	/* The link socket's outbox (lock: the polling lcore, and the
	 * primary's multi-process thread announcing for secondaries; it
	 * also guards nb_own_consumers and own_map). */
	rte_spinlock_t outbox_lock;
	struct shm_outbox outbox;
	uint32_t outbox_len;
	/* Shared: one per producer id, of every process. */
	struct shm_hazard hazard[RTE_COMCH_MAX_FP_OBJECTS] __rte_cache_aligned;
};

/* Lost (peer gone, primary gone) or broken (the peer broke the rules):
 * read on every fast-path call, by any process. */
static inline bool
shm_conn_down(const struct shm_conn *sc)
{
	return __atomic_load_n(&sc->peer_gone, __ATOMIC_RELAXED) ||
		__atomic_load_n(&sc->broken, __ATOMIC_RELAXED) != 0;
}

/* Why a connection broke. The fast path may not log: it records which
 * rule the peer broke and the next poll of the connection logs it, once.
 * The control path logs at the point it finds out (SHM_BROKEN_LOGGED). */
enum shm_broken_why {
	SHM_BROKEN_LOGGED = 0,
	SHM_BROKEN_CTRL_RING,   /**< control ring: seq, len or tx_cons */
	SHM_BROKEN_POSTS,       /**< a posted buffer or the claim counter */
	SHM_BROKEN_COMPLETION,  /**< a completion's length or immediate data */
	SHM_BROKEN_STALLED,     /**< buffers claimed and never filled */
};

/* The peer broke the rules: the primary's next poll reports it. */
static inline void
shm_conn_break(struct shm_conn *sc, enum shm_broken_why why)
{
	__atomic_store_n(&sc->broken_why, (uint8_t)why, __ATOMIC_RELAXED);
	__atomic_store_n(&sc->broken, -EPROTO, __ATOMIC_RELAXED);
}

/* ---------------------------------- fast-path objects (shared) */

/*
 * The peer's consumers, as this process's producers see them: a view per
 * connection (process memory, comch_shm_peer.c), holding a mapping of
 * each of the peer's consumers the library told this process about
 * (remote_add), valid while its incarnation is the one the library
 * publishes (conn->remote.gen[slot]).
 */
struct shm_remote_cons {
	/* Read by producers. */
	struct shm_cons_hdr *hdr;
	struct shm_post_slot *slots;
	uint8_t *mem;
	uint64_t mem_size;   /**< Private copy: bounds every write. */
	uint32_t depth;      /**< Private copy of nb_posts. */
	uint32_t mask;
	uint32_t max_imm_len;
	uint32_t id;
	uint32_t gen;        /**< Incarnation mapped here. */
	struct shm_peer_ev *ev; /**< Its arm page and kick socket, or NULL. */
	/* Cold. */
	size_t ring_map_size;
	TAILQ_ENTRY(shm_remote_cons) next; /**< In the retired list. */
};
TAILQ_HEAD(shm_remote_cons_list, shm_remote_cons);

/** One process's map of the peer's consumers on a connection. */
struct shm_view {
	/* By slot (RTE_COMCH_CONSUMER_SLOT). Read by producers (acquire),
	 * written under lock (release). */
	struct shm_remote_cons *remote[RTE_COMCH_MAX_FP_OBJECTS];
	pthread_mutex_t lock;        /**< remote[], retired, counts. */
	struct shm_remote_cons_list retired;
	uint32_t nb_live;            /**< Entries in remote[]. */
	uint32_t nb_retired;         /**< Read without the lock as a hint. */
	uint32_t nb_prods;           /**< This process's producers using it. */
	bool pinned;                 /**< The link owner's: freed at close. */
	uint64_t next_reap;          /**< TSC of the next periodic reap. */
	struct rte_comch_conn *conn;
	TAILQ_ENTRY(shm_view) next;  /**< In shm_dev's list. */
};

/** First member of a producer and a consumer: what went through it
 * (written by the owning lcore only; read by telemetry). */
struct shm_fp_counters {
	uint64_t msgs;
	uint64_t bytes;
};

struct shm_repair;

/** Driver state of a producer (prod->fp.drv, shared memory). */
struct shm_producer {
	struct shm_fp_counters cnt;    /* first */
	struct shm_conn *sc;
	const struct rte_comch_remote *pub; /**< What the library publishes. */
	uint64_t *hazard;              /**< &sc->hazard[id].word */
	struct shm_view *view;         /**< Owner process only. */
	struct shm_repair *repair;     /**< Primary only: a dead owner's. */
	uint32_t sends;                /**< Send number, for the hazard. */
	uint16_t id;
	bool running;
	bool fence;                    /**< No membarrier(): fence instead. */
} __rte_cache_aligned;

/** Driver state of a consumer (cons->fp.drv, shared memory); everything
 * hot is the owner's. */
struct shm_consumer {
	struct shm_fp_counters cnt;    /* first */
	struct shm_cons_hdr *hdr;      /**< Our ring: we write post_prod. */
	struct shm_post_slot *slots;
	uint32_t mask;
	uint32_t depth;
	uint32_t max_imm_len;
	uint32_t post_idx;             /**< Next index to post. */
	uint32_t cons_idx;             /**< Next index to complete. */
	bool running;
	bool stopping;
	uint32_t cancel_from;          /**< Stopping: [from, to) cancelled. */
	uint32_t cancel_to;
	uint64_t stop_deadline;        /**< Stopping: TSC by which the peer
					*   must have filled what it claimed. */
	uint8_t *mem_base;
	uint64_t mem_size;
	struct shm_conn *sc;
	struct rte_comch_consumer *cons;
	struct shm_posted {
		void *buf;
		uint32_t len;
	} *posted;                     /**< What we posted, by index & mask
					*   (owner's process memory). */
	int ring_fd;                   /**< Owner process only. */
	size_t ring_size;
	bool announced;                /**< Primary: CONSUMER_ADD sent. */
	uint64_t announced_bytes;      /**< Primary: its ring and memory. */
	struct shm_event *ev;          /**< Event mode, or NULL (owner
					*   process only). */
} __rte_cache_aligned;

/** Driver state of registered memory (mem->drv). */
struct shm_mem {
	int fd;
};

/* What a consumer's announcement carries (struct rte_comch_pmd_xfer):
 * fds[0] the ring, fds[1] the memory, and with SHM_F_EVENT in
 * val[SHM_XFER_FLAGS] fds[2] its arm page and fds[3] its kick socket;
 * val[] as below. */
enum shm_xfer_val {
	SHM_XFER_NB_POSTS,
	SHM_XFER_MAX_IMM_LEN,
	SHM_XFER_RING_SIZE,
	SHM_XFER_MEM_SIZE,
	SHM_XFER_FLAGS,
};

/* Bytes of the peer's memory a consumer description maps (quotas). */
static inline uint64_t
shm_consumer_map_bytes(uint64_t ring_size, uint64_t mem_size, uint32_t flags)
{
	return ring_size + mem_size +
		((flags & SHM_F_EVENT) ? SHM_ARM_PAGE_SIZE : 0);
}

/* ------------------------------------------- comch_shm_queue.c */

int shm_mem_create(struct rte_comch_dev *cdev, struct rte_comch_mem *mem);
void shm_mem_destroy(struct rte_comch_dev *cdev, struct rte_comch_mem *mem);
int shm_consumer_create(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_consumer_start(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons,
		struct rte_comch_pmd_xfer *announce);
int shm_consumer_stop(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_consumer_destroy(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_producer_create(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_producer_start(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_producer_stop(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_producer_destroy(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
void shm_fp_stats(struct rte_comch_dev *cdev, void *fp_drv, uint64_t *msgs,
		uint64_t *bytes);

/* ------------------------------------------- comch_shm_peer.c */

int shm_consumer_announce(struct rte_comch_dev *cdev,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons,
		const struct rte_comch_pmd_xfer *x);
void shm_consumer_withdraw(struct rte_comch_dev *cdev,
		struct rte_comch_conn *conn, struct rte_comch_consumer *cons);
int shm_remote_add(struct rte_comch_dev *cdev, struct rte_comch_conn *conn,
		uint32_t id, uint32_t gen, const struct rte_comch_pmd_xfer *x,
		char *why, size_t why_len);
void shm_remote_del(struct rte_comch_dev *cdev, struct rte_comch_conn *conn,
		uint32_t id);
int shm_producer_repair(struct rte_comch_dev *cdev,
		struct rte_comch_producer *prod);
/* CONSUMER_ADD or CONSUMER_DEL from the peer (the connection's polling
 * lcore): 0, or < 0 with the connection refused or failed (logged). */
int shm_peer_consumer_msg(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds);
/* This process's view of @p conn, created when @p create; a producer
 * holds it (shm_view_hold/release). */
struct shm_view *shm_view_hold(struct shm_dev *sd, struct rte_comch_conn *conn);
void shm_view_release(struct shm_dev *sd, struct shm_view *v);
/* The link owner's view of a new connection (pinned: freed by
 * shm_view_unpin() when the connection closes); NULL out of memory. */
struct shm_view *shm_view_pin(struct shm_dev *sd, struct rte_comch_conn *conn);
void shm_view_unpin(struct shm_dev *sd, struct shm_view *v);
/* Free every view of the device (it closes). */
void shm_views_free(struct shm_dev *sd);
/* Free the retired mappings no producer is sending to; at most once a
 * millisecond when @p now is not 0 (from a poll). */
void shm_view_reap_tick(struct shm_view *v, uint64_t now);
/* Register this process for the barriers the reclamation uses (once per
 * process); false if it cannot (producers fence then). */
bool shm_membarrier_init(void);

/* ------------------------------------------- comch_shm_rxtx.c */

/* Give the slots of the last burst received back to the peer. */
void shm_conn_confirm(struct shm_conn *sc);
int shm_msg_send_op(struct rte_comch_conn *conn, const void *data, uint32_t len);
int shm_msg_recv_burst(struct rte_comch_conn *conn, struct rte_comch_msg *msgs,
		uint16_t nb_msgs);
uint64_t shm_conn_in_flight(struct rte_comch_conn *conn);
int shm_fp_send(void *producer, uint32_t consumer_id,
		const struct rte_comch_send_op *ops, uint16_t nb_ops);
int shm_fp_sendv(void *producer, uint32_t consumer_id,
		const struct rte_comch_sendv_op *ops, uint16_t nb_ops);
int shm_fp_post(void *consumer, void * const *bufs, const uint32_t *lens,
		uint16_t nb_bufs);
int shm_fp_poll(void *consumer, struct rte_comch_completion *cpl,
		uint16_t nb_cpl);

/* Event mode: its objects, and kicking the peer (comch_shm_event.h). */
#include "comch_shm_event.h"

#endif /* COMCH_SHM_PRIV_H */
