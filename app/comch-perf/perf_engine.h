/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_ENGINE_H
#define COMCH_PERF_ENGINE_H

/*
 * The tests of dpdk-comch-perf, as testpmd's forward engines: one struct
 * per test, in a file of its own (perf_eng_<test>.c), saying what the test
 * is (its properties, read wherever a test matters: options, setup,
 * reports, the DPU) and what it does (the host's loop per forwarding
 * lcore, or a whole run of its own; the DPU's hooks). perf_engine.c holds
 * the table.
 */

#include <stdbool.h>
#include <stdint.h>

#include "perf.h"

struct perf_fwd;
struct perf_session;
struct dpu_ctx;
struct dpu_conn;
struct dpu_queue;

/* What a test is. */
#define PERF_E_FP            RTE_BIT32(0) /* fast path: --queues streams
					   * per connection, each with a
					   * producer, each DPU queue with a
					   * consumer */
#define PERF_E_BOTH_WAYS     RTE_BIT32(1) /* fast path both ways: each host
					   * stream has a consumer too, each
					   * DPU queue a producer */
#define PERF_E_LATENCY       RTE_BIT32(2) /* round trips, into a histogram */
#define PERF_E_BIDIR         RTE_BIT32(3) /* the DPU streams back as well:
					   * received columns */
#define PERF_E_SIZELESS      RTE_BIT32(4) /* sizes do not apply: once per
					   * run */
#define PERF_E_SECONDARY     RTE_BIT32(5) /* a secondary process may run it */

struct perf_engine {
	const char *name;            /* --test name */
	uint32_t flags;              /* PERF_E_* */
	/* Host: the loop of one forwarding lcore over its streams, until
	 * the session stops or its share of --count is measured. */
	int (*fwd)(struct perf_fwd *f);
	/* Host: a whole run instead of streams (conn-rate). */
	int (*run)(struct perf_session *s, struct perf_result *r);
	/* DPU (each optional): at BEGIN, what the test needs beyond queues;
	 * before control messages are taken, send what was kept (false: the
	 * host has no room yet, take nothing); a control message of the
	 * test's traffic (counted already); the room for control messages
	 * per turn (0: the default); a filled completion (counted already;
	 * true: kept, not reposted); before a queue's completions are taken,
	 * send what was kept (false: take nothing); a turn of sending on
	 * queue @p i while the test runs. */
	int (*dpu_begin)(struct dpu_ctx *x, struct dpu_conn *d);
	bool (*dpu_ctrl_flush)(struct dpu_conn *d);
	void (*dpu_ctrl_msg)(struct dpu_conn *d, const struct rte_comch_msg *m);
	uint16_t dpu_ctrl_room;
	bool (*dpu_cpl)(struct dpu_conn *d, struct dpu_queue *q,
			const struct rte_comch_completion *c);
	bool (*dpu_fp_flush)(struct dpu_conn *d, struct dpu_queue *q);
	void (*dpu_send)(struct dpu_ctx *x, struct dpu_conn *d, uint32_t i);
};

extern const struct perf_engine perf_eng_ctrl_lat;
extern const struct perf_engine perf_eng_ctrl_tput;
extern const struct perf_engine perf_eng_fp_lat;
extern const struct perf_engine perf_eng_fp_tput;
extern const struct perf_engine perf_eng_fp_bidir;
extern const struct perf_engine perf_eng_conn_rate;

/* The engine of test @p t (NULL for an unknown one). */
const struct perf_engine *perf_engine(enum perf_test t);

/* Whether test @p t has every property of @p flags. */
static inline bool
perf_test_is(enum perf_test t, uint32_t flags)
{
	const struct perf_engine *e = perf_engine(t);

	return e != NULL && (e->flags & flags) == flags;
}

#endif /* COMCH_PERF_ENGINE_H */
