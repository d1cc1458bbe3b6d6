/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_DPU_H
#define COMCH_PERF_DPU_H

/*
 * The DPU side's state (perf_dpu.c runs it; the engines' DPU hooks,
 * perf_eng_*.c, act on it): per host connection, its queues and what the
 * running test owes the host.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_comch.h>

#include "perf_engine.h"

#define DPU_MAX_CONNS PERF_MAX_CONNS
/* How long the DPU waits after END for the messages the host says it
 * sent before it reports what came: a loaded machine can keep the DPU's
 * lcore off its core for seconds (10 s was seen to be too short), and
 * the host waits for the report twice as long (DPU_ANSWER_S). */
#define DPU_END_WAIT_S 30
/* ctrl-lat echoes kept for a host whose queue is full (ping-pong: an
 * honest host has one in flight). */
#define DPU_ECHO_BACKLOG 8
#define DPU_BURST 64
/* What one turn of the loop does for one connection, each way: about
 * this many payload bytes received (read with --touch) and as many sent
 * (copied, echoed), at least one message each, so that no host's large
 * messages or bursts hold up the loop that serves every host, and one way
 * does not starve the other (dpu_turn_msgs()). */
#define DPU_TURN_BYTES (UINT64_C(1) << 20)
enum dpu_way { DPU_RX, DPU_TX };

/* One queue: a consumer (fast-path tests) and, for the tests that go both
 * ways (PERF_E_BOTH_WAYS), a producer. */
struct dpu_queue {
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	/* fp-lat echoes the host had no buffer for yet, in order; their
	 * buffers are reposted once they went out */
	struct rte_comch_completion held[DPU_BURST];
	uint16_t held_first, nb_held;
};

struct dpu_echo {
	uint32_t len;
	uint8_t *data;           /* max_msg_size bytes */
};

struct dpu_conn {
	struct rte_comch_conn *conn;
	enum perf_test test;
	const struct perf_engine *e;  /* the test's, once a BEGIN came */
	uint32_t size;
	uint32_t burst;
	uint32_t nb_queues;
	bool touch;
	bool sending;           /* the engine sends (dpu_send), between
				 * READY and END */
	bool stopping;          /* queues being torn down */
	struct dpu_queue q[PERF_MAX_QUEUES];
	uint32_t peer_consumers[PERF_MAX_QUEUES]; /* host consumers, in order */
	unsigned int nb_peer_consumers;
	uint64_t sent;
	uint64_t msgs;
	uint64_t bytes;
	uint64_t touch_sum;
	bool end_pending;
	uint64_t end_expect;
	uint64_t end_deadline;
	bool result_due;        /* RESULT once the queues are down */
	bool begin_due;         /* this BEGIN once the queues are down */
	struct perf_msg begin;
	struct perf_msg reply;  /* not yet sent (queue was full) */
	bool reply_pending;
	struct dpu_echo echo[DPU_ECHO_BACKLOG]; /* ctrl-lat: not yet sent */
	unsigned int echo_first, nb_echo;
	struct dpu_ctx *x;
	uint32_t begin_queues;  /* of the last BEGIN */
	int refused;            /* why the last BEGIN was (positive errno) */
	uint32_t queues_held;   /* counted in dpu_ctx.queues_in_use */
	uint64_t mem_held;      /* counted in dpu_ctx.mem_in_use */
	uint64_t unexpected;    /* perf messages not understood */
	uint64_t unexpected_said; /* TSC of the last line about them */
	bool lost;
	uint64_t cpu0_us, wall0_us;  /* idle: at READY (perf_cpu_us()) */
	uint64_t turn_left[2];  /* payload bytes this turn may still move,
				 * by enum dpu_way */
	uint32_t next_q;        /* the queue served first next turn */
};

/* One line a second of a kind, and how many were not printed since. */
struct dpu_gate {
	uint64_t last;          /* TSC of the last line printed */
	unsigned int quiet;
};

struct dpu_ctx {
	const struct perf_opts *o;
	int16_t dev_id;
	uint8_t *src;           /* payload for fp-bidir */
	size_t src_size;
	struct rte_comch_server *srv;
	struct dpu_conn *conns[DPU_MAX_CONNS];
	unsigned int nb_slots;  /* conns[] used below this index */
	unsigned int served;
	/* Connection events printed: one a second (conn-rate makes
	 * hundreds), the blame of a host that broke the protocol or a
	 * connection this process could not keep one a second besides. */
	struct dpu_gate events, faults;
	/* What hosts may make this process hold (see dpu_admit()). */
	uint64_t max_size;      /* largest message: --max-size, within the
				 * device's buffers */
	uint32_t max_hosts;     /* the server's clients at most */
	uint32_t queue_budget;  /* queues of all hosts together */
	uint32_t queues_in_use;
	uint64_t mem_budget;    /* their registered memory (--max-mem) */
	uint64_t mem_in_use;
	uint32_t hosts_with_queues;
	bool pair;              /* --role=pair: the host is this process */
	int ep;                 /* --event: what the loop sleeps on, or -1 */
	uint64_t sleeps;        /* --event: times it slept */
};

/* Of @p want messages (at most 1024) going @p way, how many this turn
 * still allows for @p d: 0 once that way's DPU_TURN_BYTES are spent, at
 * least 1 before. */
static inline uint16_t
dpu_turn_msgs(const struct dpu_conn *d, enum dpu_way way, uint32_t want)
{
	uint64_t n;

	if (d->turn_left[way] == 0)
		return 0;
	n = d->turn_left[way] / d->size;
	return (uint16_t)RTE_MIN(RTE_MAX(n, UINT64_C(1)), (uint64_t)want);
}

/* @p msgs messages of this turn moved @p way. */
static inline void
dpu_turn_spend(struct dpu_conn *d, enum dpu_way way, uint32_t msgs)
{
	uint64_t bytes = (uint64_t)msgs * d->size;

	d->turn_left[way] = bytes >= d->turn_left[way] ? 0 :
		d->turn_left[way] - bytes;
}

#endif /* COMCH_PERF_DPU_H */
