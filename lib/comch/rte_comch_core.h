/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef RTE_COMCH_CORE_H
#define RTE_COMCH_CORE_H

/**
 * @file
 *
 * Comch fast-path internals, included by rte_comch.h for its inline
 * functions. Not for applications: use the functions of rte_comch.h.
 *
 * As with dmadev's rte_dma_fp_objs, the fast-path functions of each device
 * live in a per-process table indexed by device id, so a function pointer
 * is never read from memory shared between processes. A producer or
 * consumer starts with a struct rte_comch_fp_obj that says which table
 * slot and which driver object to use.
 */

#include <stdint.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest immediate data of any device (bytes). */
#define RTE_COMCH_IMM_DATA_MAX 32

struct rte_comch_send_op;
struct rte_comch_sendv_op;
struct rte_comch_completion;

/** @internal Send a burst to a remote consumer. */
typedef int (*rte_comch_fp_send_t)(void *producer, uint32_t consumer_id,
		const struct rte_comch_send_op *ops, uint16_t nb_ops);
/** @internal Send a burst of gathered messages to a remote consumer. */
typedef int (*rte_comch_fp_sendv_t)(void *producer, uint32_t consumer_id,
		const struct rte_comch_sendv_op *ops, uint16_t nb_ops);
/** @internal Post receive buffers. */
typedef int (*rte_comch_fp_post_t)(void *consumer, void * const *bufs,
		const uint32_t *lens, uint16_t nb_bufs);
/** @internal Take completions. */
typedef int (*rte_comch_fp_poll_t)(void *consumer,
		struct rte_comch_completion *cpl, uint16_t nb_cpl);

/** @internal Fast-path functions of one device, in this process. */
struct rte_comch_fp_ops {
	rte_comch_fp_send_t send;
	rte_comch_fp_post_t post;
	rte_comch_fp_poll_t poll;
	rte_comch_fp_sendv_t sendv;
	uintptr_t reserved[4];
} __rte_cache_aligned;

/** @internal Per-process table, indexed by device id. Slots of absent
 * devices hold functions that return -ENODEV. */
extern struct rte_comch_fp_ops rte_comch_fp_ops[];

/** @internal Head of every producer and consumer. */
struct rte_comch_fp_obj {
	void *drv;        /**< Driver object passed to the fast-path ops. */
	int16_t dev_id;   /**< Table slot. */
	uint16_t reserved16;
	uint32_t reserved32;
};

#ifdef __cplusplus
}
#endif

#endif /* RTE_COMCH_CORE_H */
