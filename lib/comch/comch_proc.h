/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PROC_H
#define COMCH_PROC_H

/*
 * The seam between the core of the library and processes.
 *
 * A DPDK application may be one process or a primary and secondaries.
 * The primary owns the link (servers, clients, connections, control
 * rings) and all shared bookkeeping; a secondary attaches to connections
 * of the primary and runs producers and consumers on them. The core
 * (servers, clients, connections, fast-path objects, telemetry) is
 * written once, for any process: wherever the two kinds of process differ
 * it calls through this table, chosen when the process attaches its first
 * device. The primary's entries do the work locally (comch_primary.c);
 * a secondary's ask the primary over EAL's multi-process channel
 * (comch_secondary.c), and the primary answers with the same local
 * functions (comch_serve.c).
 */

#include "comch_private.h"

struct comch_proc_ops {
	/** Attach the process to its first device / detach at the last. */
	int (*dev_first)(void);
	void (*dev_last)(void);
	/** A device slot for the driver's device @p name: a new one in the
	 * primary (with zeroed shared driver data), the primary's of that
	 * name in a secondary. NULL with rte_errno set and a log line. */
	struct rte_comch_dev *(*dev_slot)(const char *name, int numa_node,
			size_t priv_size);
	/** Have the driver create (primary) or attach to (secondary) it. */
	int (*dev_probe)(struct rte_comch_dev *dev,
			const struct rte_comch_pmd_probe_ops *ops, void *arg);
	/** Give the slot up (the primary frees the shared data). */
	void (*dev_slot_free)(struct rte_comch_dev *dev);
	/** 0 if this process may do @p what, which only the owner of the
	 * link may (servers, clients, user data, statistics resets); else
	 * -ENOTSUP with rte_errno set and a log line. */
	int (*link_only)(const char *what);
	/** 0 if this process may use @p conn (-EINVAL logged otherwise). */
	int (*conn_usable)(const struct rte_comch_conn *conn, const char *what);

	int (*conn_list)(int16_t dev_id, uint32_t *ids, uint32_t nb_ids);
	struct rte_comch_conn *(*conn_attach)(int16_t dev_id, uint32_t conn_id);
	int (*conn_detach)(struct rte_comch_conn *conn);
	int (*conn_stats)(struct rte_comch_conn *conn,
			struct rte_comch_conn_stats *stats);

	int (*msg_send)(struct rte_comch_conn *conn, const void *data,
			uint32_t len);
	int (*msg_recv)(struct rte_comch_conn *conn,
			struct rte_comch_msg *msgs, uint16_t nb_msgs);

	void *(*fp_alloc)(struct rte_comch_conn *conn, enum comch_fp_kind kind,
			uint32_t nb_posts, uint32_t max_imm_len);
	void (*fp_free)(struct rte_comch_conn *conn, enum comch_fp_kind kind,
			void *obj);
	int (*consumer_announce)(struct rte_comch_consumer *cons,
			const struct rte_comch_pmd_xfer *x);
	void (*consumer_withdraw)(struct rte_comch_consumer *cons);
	/** Make the peer's consumers the primary published reachable by
	 * this process's producers (and the gone ones unreachable). */
	int (*remote_sync)(struct rte_comch_conn *conn);
};

/** This process's table (the primary's until a device is attached). */
extern const struct comch_proc_ops *comch_proc;

/** Choose this process's table, once (comch_proc.c): the only place the
 * library asks which kind of process it runs in. 0 or a negative errno
 * (the shared device data cannot be had). */
int comch_proc_choose(void);

extern const struct comch_proc_ops comch_primary_ops;
extern const struct comch_proc_ops comch_secondary_ops;

/* comch_serve.c: the primary serving secondaries (from dev_first and
 * dev_last of the primary). */
void comch_serve_start(void);
void comch_serve_stop(void);

#endif /* COMCH_PROC_H */
