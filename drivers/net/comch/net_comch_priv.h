/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef NET_COMCH_PRIV_H
#define NET_COMCH_PRIV_H

/*
 * net_comch internals.
 *
 * Who holds what:
 *
 * - struct ncm_port (dev->data->dev_private) and the queues
 *   (dev->data->rx_queues[], tx_queues[]) are shared by every process:
 *   configuration, the connection's generation and id, which process
 *   serves each queue, the peer's consumer per tx queue, counters. No
 *   per-process pointer and no fd is stored there.
 * - struct ncm_proc (dev->process_private) is per process: the comch
 *   objects this process created (the connection handle, each queue's
 *   producer or consumer and its memory), and a struct ncm_lq per queue,
 *   which the burst functions read.
 *
 * The connection (server or client, control messages, the handshake) is
 * the primary's, driven by a periodic EAL alarm (the interrupt thread, as
 * in net_memif and net_vhost). Each process, the primary included, runs a
 * second part of that alarm for the queue objects it owns: it creates a
 * queue's producer or consumer in the process that polls the queue (the
 * primary creates every queue's at once; a secondary creates those its
 * bursts ask for, after the primary gave them up), and releases them when
 * the connection goes. The burst functions never create, destroy, lock or
 * call the kernel: they say that they are inside a burst (struct ncm_lq)
 * and whether they want an object, and the alarm waits until they are out
 * before it takes one away.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_log.h>

#include "net_comch.h"

extern int ncm_logtype;
#define NCM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ncm_logtype, "net_comch: " fmt "\n", \
		##__VA_ARGS__)

/** Packets per send or poll of the comch fast path. */
#define NCM_BURST 32
/** A completion whose frames are not checked yet. */
#define NCM_UNCHECKED UINT16_MAX
/** Control alarm period while something is in progress, and when idle. */
#define NCM_TICK_BUSY_US 1000
#define NCM_TICK_IDLE_US 10000
/** Control messages read per tick at most (the tick holds the EAL
 * interrupt thread and the port's lock): a peer that refills its queue as
 * fast as the port reads it gets this many per tick, the rest on the next
 * (a tick that spent it comes back after NCM_TICK_BUSY_US). An honest
 * peer sends one HELLO and one QUEUE per queue on a change. */
#define NCM_CTRL_BUDGET 16
/** A host port's pause between connection attempts. */
#define NCM_RETRY_MS 100
/** How long a peer may take to send its HELLO before the connection is
 * closed (a silent peer would hold a DPU port's only connection). */
#define NCM_HELLO_TIMEOUT_MS 5000

/* ------------------------------------------------------- shared state */

/** Port state, primary's connection (a table: net_comch_ctrl.c). */
enum ncm_state {
	NCM_ST_STOPPED,   /**< Port stopped: no server running, no client. */
	NCM_ST_WAITING,   /**< Started: listening (DPU) or connecting (host). */
	NCM_ST_HANDSHAKE, /**< Connected; HELLOs being exchanged. */
	NCM_ST_RUNNING,   /**< HELLOs agree: queue objects exist. */
	NCM_ST_REFUSED,   /**< HELLOs disagree: link down, both sides logged. */
	NCM_ST_RELEASING, /**< Connection lost or port stopped: queue objects
			   *   of every process are released, then it is. */
	NCM_ST_MAX
};

/** Devargs, resolved. */
struct ncm_conf {
	char comch[RTE_DEV_NAME_MAX_LEN]; /**< The comch device's name. */
	char server[RTE_COMCH_NAME_MAX];
	char function[RTE_COMCH_FUNCTION_NAME_MAX]; /**< DPU: the host function. */
	uint16_t nb_queues;
	uint32_t buf_size;
	uint32_t nb_bufs;
	struct rte_ether_addr mac;
	bool mac_given;
};

struct ncm_port {
	struct ncm_conf conf;          /**< Read only after probe. */
	uint16_t port_id;
	uint8_t role;                  /**< enum rte_comch_role of the device. */
	uint16_t function_id;          /**< DPU: the id of conf.function. */
	/* The comch device's limits, from probe. */
	uint32_t max_queues;
	uint32_t max_posts;
	/* The connection, written by the primary's alarm. gen changes when a
	 * connection comes and when it goes: a queue object belongs to one
	 * generation. ready: queue objects may exist for gen. */
	uint32_t gen;
	uint32_t conn_id;
	uint8_t ready;
	uint8_t state;                 /**< enum ncm_state (for telemetry/logs). */
	uint64_t nb_connects;          /**< Connections that came up. */
	uint64_t nb_refused;           /**< Handshakes that disagreed or broke. */
};

/** Counters of an rx queue: written by the lcore polling it only. */
struct ncm_rx_stats {
	uint64_t pkts;
	uint64_t bytes;
	uint64_t no_mbuf;    /**< Dropped: the mempool was empty. */
	uint64_t too_long;   /**< Dropped: more than one mbuf, no scatter. */
	uint64_t cancelled;  /**< Buffers that came back unfilled. */
	uint64_t malformed;  /**< Messages dropped: frame lengths wrong. */
	uint64_t flushed;    /**< Received, dropped when the queue was released. */
};

/** Counters of a tx queue: written by the lcore polling it only. */
struct ncm_tx_stats {
	uint64_t pkts;
	uint64_t bytes;
	uint64_t peer_no_buffer; /**< Not taken: the peer had no posted buffer. */
	uint64_t peer_not_ready; /**< Not taken: no peer consumer (yet). */
	uint64_t oversize;       /**< Dropped: longer than the peer's buffers. */
	uint64_t gathered;       /**< Multi-segment packets. */
};

/*
 * Ownership of a queue across processes (owner, takeover): pids, changed
 * by compare-and-swap in the alarms only. owner: the process whose
 * producer or consumer serves the queue now (0: none). takeover: a
 * secondary whose bursts poll the queue while the primary owns it; the
 * primary then gives it up.
 */
struct ncm_rxq {
	uint16_t port_id;
	uint16_t qid;
	uint32_t nb_bufs;              /**< Posted buffers. */
	struct rte_mempool *mp;
	uint32_t room;                 /**< Data room of one mbuf. */
	bool scatter;
	int socket_id;
	int32_t owner;
	int32_t takeover;
	uint32_t cons_id;              /**< The owner's consumer (0: none) ... */
	uint32_t cons_gen;             /**< ... on this connection generation. */
	uint32_t announced;            /**< Primary: the id last sent in QUEUE. */
	struct ncm_rx_stats st __rte_cache_aligned;
	struct ncm_rx_stats base;      /**< Values at the last reset. */
};

struct ncm_txq {
	uint16_t port_id;
	uint16_t qid;
	int socket_id;
	int32_t owner;
	int32_t takeover;
	uint32_t peer_id;              /**< The peer's consumer (0: unknown) ... */
	uint32_t peer_gen;             /**< ... on this connection generation. */
	struct ncm_tx_stats st __rte_cache_aligned;
	struct ncm_tx_stats base;
};

/* ---------------------------------------------------- per-process state */

/**
 * A queue as one process sees it. The first cache line is the burst's:
 * it reads obj, peer_id and active, and writes in_burst and wanted. The
 * alarm takes an object away by clearing active, then (membarrier, or a
 * fence in the burst where membarrier is missing) waits until in_burst is
 * 0: a burst that enters later sees active clear.
 */
struct ncm_lq {
	void *obj;           /**< Consumer or producer, while active. */
	uint32_t peer_id;    /**< Tx: the peer's consumer, mapped here. */
	uint8_t active;
	uint8_t fence;       /**< No membarrier: the burst fences itself. */
	uint8_t in_burst;
	uint8_t wanted;      /**< A burst found no object. */
	uint32_t buf_size;   /**< Tx: the peer's posted buffers; rx: ours. */
	uint32_t lens[NCM_BURST] __rte_aligned(8); /**< Rx: buf_size each. */
	/* Rx: completions taken from the consumer and not yet turned into
	 * mbufs (a burst asked for fewer frames than they hold): cpl[head]
	 * .. cpl[head + n - 1]; of cpl[head], frames [next, frames) from
	 * byte off are left (frames: NCM_UNCHECKED until checked). */
	uint16_t cpl_head, cpl_n;
	uint16_t cur_frames, cur_next;
	uint32_t cur_off;
	struct rte_comch_completion cpl[NCM_BURST];
	/* Control (the alarm) only, from here. */
	uint8_t held __rte_cache_aligned; /**< This process owns the queue. */
	uint8_t stopping;    /**< Rx: consumer stopping, draining. */
	uint32_t gen;        /**< Generation of obj. */
	uint32_t fail_gen;   /**< Creation failure logged for gen + 1. */
	struct rte_comch_mem *mem;
};

struct ncm_proc {
	struct rte_eth_dev *dev;
	struct ncm_port *port;
	pthread_mutex_t lock;          /**< Alarm against dev ops, this process. */
	bool alarm_on;
	bool membarrier;               /**< PRIVATE_EXPEDITED registered. */
	int16_t comch_id;              /**< -1 until found (secondary). */
	bool comch_missing_logged;
	bool comch_gone;               /**< The comch device was removed. */
	bool started;                  /**< Primary: between dev_start and dev_stop. */
	int32_t pid;
	/* This process's handle on the connection of conn_gen. */
	struct rte_comch_conn *conn;
	uint32_t conn_gen;
	bool attached;                 /**< Secondary: conn_attach done. */
	uint64_t next_liveness;        /**< Primary: owner checks, timer cycles. */
	/* Primary: the link. */
	enum ncm_state state;
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	uint64_t retry_at;             /**< Host: next connection attempt. */
	int last_client_err;
	struct rte_comch_conn *new_conn; /**< From connect_cb. */
	struct rte_comch_conn *lost_conn; /**< From disconnect_cb. */
	int lost_err;
	bool peers_changed;            /**< A consumer event came. */
	bool hello_sent;
	uint64_t hello_deadline;       /**< Timer cycles: the peer's HELLO by then. */
	struct ncm_proto proto;
	bool link_up;                  /**< As last reported. */
	bool lsc_pending;              /**< Report after the lock is dropped. */
	struct ncm_lq rxl[NCM_MAX_QUEUES];
	struct ncm_lq txl[NCM_MAX_QUEUES];
	/* Rx interrupts (intr_conf.rxq), this process's: net_comch_intr.c. */
	struct rte_intr_handle *rx_ih; /**< dev->intr_handle, or NULL. */
	uint16_t nb_rx_intr;           /**< Queues it has an fd for. */
	int rx_epfd[NCM_MAX_QUEUES];   /**< Per queue: an epoll set holding
					*   its consumer's event fd. */
	uint8_t rx_intr_on[NCM_MAX_QUEUES]; /**< Enabled by the application. */
};

static inline struct ncm_proc *
ncm_proc_of(uint16_t port_id)
{
	return rte_eth_devices[port_id].process_private;
}

static inline const char *
ncm_name(const struct ncm_proc *pp)
{
	return pp->dev->data->name;
}

/* Milliseconds in timer cycles. */
static inline uint64_t
ncm_ms(uint64_t ms)
{
	return rte_get_timer_hz() * ms / 1000;
}

/*
 * Tell the alarm that this lcore is inside a burst of @p l, then look at
 * l->active: see struct ncm_lq. With membarrier the alarm's side makes
 * every running thread pass a full barrier, so a compiler barrier is all
 * the burst needs; without it the burst fences.
 */
static __rte_always_inline bool
ncm_enter(struct ncm_lq *l)
{
	__atomic_store_n(&l->in_burst, 1, __ATOMIC_RELAXED);
	if (unlikely(l->fence))
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		rte_compiler_barrier();
	if (likely(__atomic_load_n(&l->active, __ATOMIC_ACQUIRE)))
		return true;
	l->wanted = 1;
	return false;
}

static __rte_always_inline void
ncm_leave(struct ncm_lq *l)
{
	__atomic_store_n(&l->in_burst, 0, __ATOMIC_RELEASE);
}

/* net_comch_queue.c */
void ncm_membarrier_init(struct ncm_proc *pp);
bool ncm_rx_release(struct ncm_proc *pp, uint16_t i);
void ncm_tx_release(struct ncm_proc *pp, uint16_t i);
bool ncm_peer_live(struct ncm_proc *pp, uint32_t id, uint32_t *ids, int *nb);
void ncm_reap_dead(struct ncm_proc *pp);
bool ncm_queues_tick(struct ncm_proc *pp);

/* net_comch_ctrl.c */
int ncm_ctrl_init(struct ncm_proc *pp);
void ncm_ctrl_fini(struct ncm_proc *pp);
int ncm_ctrl_start(struct ncm_proc *pp);
int ncm_ctrl_stop(struct ncm_proc *pp);
void ncm_ctrl_tick(struct ncm_proc *pp);
const char *ncm_state_name(enum ncm_state st);

/* net_comch_rxtx.c */
uint16_t ncm_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ncm_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb);

/* net_comch_intr.c */
void ncm_intr_init(struct ncm_proc *pp);
int ncm_intr_setup(struct ncm_proc *pp);
void ncm_intr_teardown(struct ncm_proc *pp);
int ncm_intr_consumer_added(struct ncm_proc *pp, uint16_t i,
		struct rte_comch_consumer *cons);
void ncm_intr_consumer_removed(struct ncm_proc *pp, uint16_t i,
		struct rte_comch_consumer *cons);
int ncm_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid);
int ncm_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid);

#endif /* NET_COMCH_PRIV_H */
