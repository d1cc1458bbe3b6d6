/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_SHM_PRIV_H
#define COMCH_SHM_PRIV_H

/* Per-process state of the comch_shm driver (not shared, holds fds). */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>
#include <sys/un.h>

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

struct shm_dev;
struct shm_server;

#define SHM_MSG_FDS_MAX_ 2

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
/* Whether one more line may go out now (and, first, say how many were
 * left out in the last window). */
bool shm_ratelimit_ok(struct shm_ratelimit *rl, const char *what);
struct shm_view;
TAILQ_HEAD(shm_view_list, shm_view);

/** A socket accepted on a DPU function: first waiting for HELLO (owned by
 * the interrupt thread, on rep->pending), then waiting in a server's inbox
 * for that server's poll (owned by the server's lcore once taken). */
struct shm_pending {
	TAILQ_ENTRY(shm_pending) next;
	struct shm_rep *rep;
	int sock;
	int mailbox_fd;
	uint64_t deadline;        /**< TSC: HELLO must have come by then. */
	struct rte_intr_handle *intr;
	struct shm_msg hello;     /**< Private copy, validated. */
};
TAILQ_HEAD(shm_pending_list, shm_pending);

/** One host function served by a DPU device. */
struct shm_rep {
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
	bool closing;                 /**< Under lock: device closing. */
};

/** Driver state of one device in this process. */
struct shm_dev {
	struct rte_comch_dev *cdev;
	enum rte_comch_role role;
	struct shm_quota quota;       /**< DPU role. */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint16_t nb_reps;
	struct shm_rep reps[SHM_MAX_FUNCTIONS];
	uint64_t sock_check_cycles;
	/* Secondary: this process's views of attached connections. */
	pthread_mutex_t views_lock;
	struct shm_view_list views;
};

/** Driver state of a server (srv->drv). */
struct shm_server {
	TAILQ_ENTRY(shm_server) next; /**< In rep->servers, under rep->lock. */
	struct rte_comch_server *srv;
	struct shm_rep *rep;
	bool accepting;               /**< Under rep->lock. */
	struct shm_pending_list inbox; /**< Under rep->lock. */
	uint32_t inbox_len;           /**< Read without the lock as a hint. */
	int epfd;                     /**< Sockets of established connections. */
	uint64_t next_check;          /**< TSC of the next socket check. */
};

/** Driver state of a client (cli->drv). */
struct shm_client {
	int sock;                 /**< During starting; moves to the conn. */
	int pending_err;          /**< Failure to report at the next poll. */
	struct shm_ring_geom rx;  /**< Our queue, sized from our config. */
	void *mailbox;            /**< Our mailbox while starting. */
	uint64_t next_check;      /**< TSC of the next socket check. */
};

/** How long a stopping consumer waits for the buffers the peer's
 * producers claimed to be filled (ms); then the peer broke the rules. */
#define SHM_STOP_GRACE_MS 2000

/** Bytes of private copies one receive call delivers at most (at least
 * one message of the largest size). */
#define SHM_RX_ARENA 16384

/*
 * Messages for the link socket that the peer has not taken yet (it reads
 * its socket only when it polls): consumer announcements and withdrawals
 * wait here, in order, instead of blocking whoever announces. The
 * connection's polling lcore sends them as the peer reads; a peer that
 * lets SHM_OUTBOX_MAX of them pile up does not read its socket and loses
 * the connection.
 */
struct shm_outbox_entry {
	STAILQ_ENTRY(shm_outbox_entry) next;
	struct shm_msg msg;
	int fds[SHM_MSG_FDS_MAX_];
	int nfds;
};
STAILQ_HEAD(shm_outbox, shm_outbox_entry);
#define SHM_OUTBOX_MAX (2 * COMCH_MAX_FP_OBJECTS + 16)

/** A mapped mailbox. */
struct shm_map {
	void *base;
	size_t size;
};

/*
 * The peer's consumers, as producers see them.
 *
 * The primary learns of them on the link socket (CONSUMER_ADD/DEL, handled
 * by the connection's polling lcore), maps them, keeps their fds for
 * secondaries, and publishes each one's generation in sc->remote_gen[]
 * (shared): the number of the incarnation alive under that id, 0 if none.
 * Every process keeps its own view (struct shm_view, process memory) of
 * the mappings; the primary's is filled as the peer announces, a
 * secondary's when it lists the peer's consumers
 * (rte_comch_conn_remote_consumers()) and asks the primary for the fds. A
 * producer may use an entry only if its generation is the published one.
 *
 * Reclamation: an entry the peer withdrew (or a secondary saw replaced) is
 * unpublished and put on the view's retired list; it is freed by
 * shm_view_reap() once no producer can be using it. A producer announces
 * the consumer id it sends to in its hazard word (shm_fp_send()) before it
 * looks the entry up, and clears it when the send returns. The reaper
 * unpublishes first, then runs membarrier() (so every producer thread has
 * passed a full barrier: either its hazard is visible now, or its lookup
 * comes after the unpublishing and finds nothing), then frees the retired
 * entries no hazard names. The producer pays one plain store each way, no
 * fence. A secondary reaps its view against its own producers
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED); the primary against the producers of
 * every process on the connection (MEMBARRIER_CMD_GLOBAL_EXPEDITED; every
 * process registers for it at probe), dead ones included: a producer that
 * died in a send keeps its hazard, so the primary keeps the mapping it
 * needs to repair that producer's claims, until its reclaim frees it.
 * Where membarrier() cannot be registered, producers fence after storing
 * their hazard instead (shm_producer.fence).
 */
struct shm_remote_cons {
	/* Read by producers. */
	struct shm_cons_hdr *hdr;
	struct shm_post_slot *slots;
	uint8_t *mem;
	uint64_t mem_size;   /**< Private copy: bounds every write. */
	uint32_t depth;      /**< Private copy of nb_posts. */
	uint32_t mask;
	uint32_t imm_max;
	uint32_t id;
	uint32_t gen;        /**< Incarnation mapped here. */
	/* Cold. */
	int ring_fd;         /**< Primary: kept while alive, for secondaries. */
	int mem_fd;
	size_t ring_map_size;
	TAILQ_ENTRY(shm_remote_cons) next; /**< In the retired list. */
};
TAILQ_HEAD(shm_remote_cons_list, shm_remote_cons);

struct shm_producer;

/** One process's map of the peer's consumers on a connection. */
struct shm_view {
	/* By slot (COMCH_CONSUMER_SLOT). Read by producers (acquire),
	 * written under lock (release). */
	struct shm_remote_cons *remote[COMCH_MAX_FP_OBJECTS];
	pthread_mutex_t lock;        /**< remote[] changes, retired, prods. */
	struct shm_remote_cons_list retired;
	uint32_t nb_retired;         /**< Read without the lock as a hint. */
	uint64_t next_reap;          /**< Primary: TSC of the next periodic reap. */
	/* Secondary: this process's producers on the connection. */
	struct shm_producer *prods[COMCH_MAX_FP_OBJECTS];
	uint32_t nb_prods;
	struct rte_comch_conn *conn;
	TAILQ_ENTRY(shm_view) next;  /**< Secondary: in shm_dev's list. */
};

/** Driver state of a connection (conn->drv, shared memory). Everything
 * but the fields marked shared is the primary's. */
struct shm_conn {
	/* Hot: send side. */
	uint32_t tx_prod;        /**< Next index we write (private). */
	uint32_t tx_cons;        /**< Last validated peer consumption. */
	struct shm_ring_geom tx; /**< The peer's queue (private copy). */
	struct shm_mailbox_hdr *remote; /**< Peer's mailbox: we only write. */
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
	struct shm_view *view;     /**< The primary's view. */
	uint32_t next_gen;         /**< Generation counter. */
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
	/* The link socket's outbox (primary; lock: the polling lcore and
	 * the mp thread announcing for secondaries; it also guards
	 * nb_own_consumers and own_map). */
	rte_spinlock_t outbox_lock;
	struct shm_outbox outbox;
	uint32_t outbox_len;
	/* Shared, per slot (COMCH_CONSUMER_SLOT): generation of the peer's
	 * live consumer, 0 if none (written by the polling lcore, release,
	 * after its id). */
	uint32_t remote_gen[COMCH_MAX_FP_OBJECTS];
	uint32_t remote_id[COMCH_MAX_FP_OBJECTS];
	/* Shared: the highest consumer id the peer announced so far (its
	 * ids increase), so a send to an id above it is "not announced
	 * yet", not "gone" (written by the polling lcore). */
	uint32_t remote_max_id;
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

/** First member of a producer and a consumer: what went through it
 * (written by the owning lcore only; read by telemetry). */
struct shm_fp_counters {
	uint64_t msgs;
	uint64_t bytes;
};

/*
 * A producer's claim record: which consumer slots it is taking or filling
 * (shm_fp_send() writes it before each claim and clears it on return).
 * One 64-bit word, so the primary reads a consistent one at any time:
 * busy, consumer slot (COMCH_CONSUMER_SLOT), claim size - 1, low 18 bits of the consumer's
 * generation, first index.
 */
#define SHM_CLAIM_BUSY RTE_BIT64(63)
#define SHM_CLAIM_GEN_MASK ((UINT32_C(1) << 18) - 1)
#define SHM_CLAIM_REC(slot, k, gen, lo) (SHM_CLAIM_BUSY | \
	((uint64_t)(slot) << 55) | ((uint64_t)((k) - 1) << 50) | \
	((uint64_t)((gen) & SHM_CLAIM_GEN_MASK) << 32) | (uint64_t)(lo))
#define SHM_CLAIM_SLOT(rec) ((uint32_t)((rec) >> 55) & 0xff)
#define SHM_CLAIM_K(rec) (((uint32_t)((rec) >> 50) & 0x1f) + 1)
#define SHM_CLAIM_GEN(rec) ((uint32_t)((rec) >> 32) & SHM_CLAIM_GEN_MASK)
#define SHM_CLAIM_LO(rec) ((uint32_t)(rec))

/** A producer's hazard word: the id of the consumer it is sending to. */
#define SHM_HAZARD_BUSY RTE_BIT64(63)

/** Driver state of a producer (prod->fp.drv, shared memory). */
struct shm_producer {
	struct shm_fp_counters cnt;    /* first */
	uint64_t claim_rec;            /**< Shared: see SHM_CLAIM_REC. */
	uint64_t hazard;               /**< Shared: see struct shm_view. */
	struct shm_conn *sc;
	struct shm_view *view;         /**< Owner process only. */
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
	uint32_t imm_max;
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
} __rte_cache_aligned;

/** Driver state of registered memory (mem->drv). */
struct shm_mem {
	int fd;
};


/** Parsed devargs (comch_shm.c). */
struct shm_devargs {
	struct shm_quota quota;   /**< DPU role. */
	bool have_quota;          /**< A quota devarg was given. */
	int role;                 /**< enum rte_comch_role, -1 if absent. */
	char path[PATH_MAX];
	uint16_t nb_functions;
	char functions[SHM_MAX_FUNCTIONS][SHM_FUNC_NAME_MAX];
	bool have_functions;      /**< functions= given. */
	bool have_function;       /**< function= given. */
};

/* comch_shm.c */
bool shm_function_name_valid(const char *s);
int shm_parse_devargs(const char *devname, const char *args,
		struct shm_devargs *da);

/* comch_shm_socket.c */
void shm_ring_geom_init(struct shm_ring_geom *g, uint32_t depth,
		uint32_t max_msg);
/* A memfd of @p size sealed against resizing, mapped read-write. */
int shm_memfd_create(const char *tag, size_t size, int *fd, void **base);
/* Map a region the peer sent: a regular file of exactly @p size, sealed
 * against resizing; else -EPROTO with the reason in @p why. */
int shm_map_sealed(int fd, uint64_t size, void **base, char *why,
		size_t why_len);
/* The checks of shm_map_sealed() without mapping. */
int shm_fd_check(int fd, uint64_t size, char *why, size_t why_len);
/* Most fds one protocol message carries (CONSUMER_ADD). */
#define SHM_MSG_FDS_MAX SHM_MSG_FDS_MAX_
int shm_msg_send(int sock, const struct shm_msg *msg, int fd);
int shm_msg_send_fds(int sock, const struct shm_msg *msg, const int *fds,
		int nfds);
int shm_msg_recv(int sock, struct shm_msg *msg, int fds[SHM_MSG_FDS_MAX],
		int *nfds);
/* Queue @p msg (with duplicates of @p fds) for the peer on the link
 * socket, after what is queued already; sent now if nothing waits and the
 * socket has room. 0, -ECONNRESET (the connection is down or the peer
 * stopped reading: it is broken now), -ENOMEM/-EMFILE. Any thread of the
 * primary. */
int shm_conn_post(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds);
/* The same with sc->outbox_lock held (it also guards the counts of our
 * announced consumers). */
int shm_conn_post_locked(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds);
/* Send what the outbox holds as far as the peer reads (the polling
 * lcore); drop it all with @p drop (the connection closes). */
void shm_conn_flush(struct shm_conn *sc, bool drop);
void shm_msg_init(struct shm_msg *msg, enum shm_msg_type type);
void shm_send_reject(int sock, int err, const char *fmt, ...)
	__rte_format_printf(3, 4);
/* Close a link socket without resetting the peer (drains it first). */
void shm_sock_close(int sock);
int shm_rep_listen(struct shm_rep *rep);
/* Refuse a client on @p rep: REJECT(@p err, reason), the reason logged at
 * @p level (rate-limited per function from NOTICE up). */
void shm_rep_refuse(struct shm_rep *rep, int sock, int level, int err,
		const char *fmt, ...) __rte_format_printf(5, 6);
/* Text a peer chose, made printable for a log (in place, NUL forced). */
void shm_sanitize(char *s, size_t size);
/* The link folder and a socket in it: this user's, closed to others. */
int shm_dir_check(const char *path, char *why, size_t why_len);
int shm_sock_file_check(const char *path, bool strict, char *why,
		size_t why_len);
void shm_rep_close(struct shm_rep *rep);
void shm_pending_free(struct shm_pending *p);

/* comch_shm_fp.c */
int shm_mem_create(struct rte_comch_dev *cdev, struct rte_comch_mem *mem);
void shm_mem_destroy(struct rte_comch_dev *cdev, struct rte_comch_mem *mem);
int shm_consumer_create(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_consumer_start(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_consumer_stop(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_consumer_destroy(struct rte_comch_dev *cdev, struct rte_comch_consumer *cons);
int shm_producer_create(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_producer_start(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_producer_stop(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_producer_destroy(struct rte_comch_dev *cdev, struct rte_comch_producer *prod);
int shm_conn_remote_consumers(struct rte_comch_conn *conn, uint32_t *ids,
		uint32_t nb_ids);
void shm_fp_stats(struct rte_comch_dev *cdev, void *fp_drv, uint64_t *msgs,
		uint64_t *bytes);
int shm_fp_send(void *producer, uint32_t consumer_id,
		const struct rte_comch_send_op *ops, uint16_t nb_ops);
int shm_fp_sendv(void *producer, uint32_t consumer_id,
		const struct rte_comch_sendv_op *ops, uint16_t nb_ops);
int shm_fp_post(void *consumer, void * const *bufs, const uint32_t *lens,
		uint16_t nb_bufs);
int shm_fp_poll(void *consumer, struct rte_comch_completion *cpl,
		uint16_t nb_cpl);
/* Handle CONSUMER_ADD/DEL from the peer (connection's polling lcore). */
int shm_conn_consumer_msg(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds);
/* The primary's view of a new connection, and freeing it at release. */
struct shm_view *shm_view_create(struct rte_comch_conn *conn);
void shm_view_free(struct shm_view *v);

/* comch_shm_mp.c: multi-process */
void shm_consumer_reclaim(struct rte_comch_dev *cdev,
		struct rte_comch_consumer *cons);
int shm_producer_reclaim(struct rte_comch_dev *cdev,
		struct rte_comch_producer *prod);
void shm_fp_release(struct rte_comch_dev *cdev, struct rte_comch_conn *conn);
int shm_mp_request(struct rte_comch_dev *cdev, struct rte_comch_conn *conn,
		struct rte_comch_consumer *cons, struct rte_comch_producer *prod,
		const void *req, size_t req_len, const int *fds, int nb_fds,
		void *rep, size_t *rep_len, int *rep_fds, int *nb_rep_fds);
void shm_conn_detach(struct rte_comch_dev *cdev, struct rte_comch_conn *conn);
void shm_conn_orphan(struct rte_comch_dev *cdev, struct rte_comch_conn *conn);
/* Tell the peer about a consumer (CONSUMER_ADD with its ring and memory
 * fds) or that it is gone (CONSUMER_DEL), from the process that owns the
 * consumer: directly in the primary, through it in a secondary. */
int shm_consumer_announce(struct rte_comch_consumer *cons, int ring_fd,
		int mem_fd, uint64_t mem_size);
void shm_consumer_withdraw(struct rte_comch_consumer *cons);
/* This process's view of @p conn: the primary's, or a secondary's
 * (created when @p create). NULL if none (or out of memory). */
struct shm_view *shm_view_get(struct rte_comch_dev *cdev,
		struct rte_comch_conn *conn, bool create);
/* Secondary: map the peer's live consumers into this process's view. */
int shm_view_sync(struct rte_comch_dev *cdev, struct shm_view *v);
/* Unpublish an entry of @p v and put it on the retired list (under
 * v->lock); shm_view_reap() frees it. */
void shm_view_retire(struct shm_view *v, struct shm_remote_cons *r);
/* Free the retired entries no producer can be using (under v->lock; in
 * the primary also under conn->fp_lock, taken first). */
void shm_view_reap(struct shm_view *v);
/* Register this process for the barriers shm_view_reap() uses (once per
 * process); false if it cannot (producers fence then). */
bool shm_membarrier_init(void);
void shm_remote_free(struct shm_remote_cons *r);
/* Consumer ring size for @p depth posts. */
size_t shm_cons_ring_size(uint32_t depth);

/* comch_shm_ctrl.c */
/* The peer sent what the protocol forbids: log why (once) and break the
 * connection (the next poll reports it). */
void shm_conn_refuse(struct shm_conn *sc, const char *fmt, ...)
	__rte_format_printf(2, 3);
/* This process ran out of @p what (negative errno @p err) following the
 * peer: log so, not blaming the peer, and close the connection. */
void shm_conn_fail_local(struct shm_conn *sc, int err, const char *what);
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
int shm_msg_send_op(struct rte_comch_conn *conn, const void *data, uint32_t len);
int shm_msg_recv_burst(struct rte_comch_conn *conn, struct rte_comch_msg *msgs,
		uint16_t nb_msgs);
uint64_t shm_conn_in_flight(struct rte_comch_conn *conn);

#endif /* COMCH_SHM_PRIV_H */
