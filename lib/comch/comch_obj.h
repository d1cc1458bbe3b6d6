/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_OBJ_H
#define COMCH_OBJ_H

#include "comch_proc.h"

/**
 * Checks shared by server and client creation: device, capability flag,
 * name length and the size parameters (0 resolved to the device default).
 * Returns the device, or NULL with rte_errno set and a log line that says
 * what to change.
 */
struct rte_comch_dev *comch_obj_check(int16_t dev_id, uint32_t capa,
		const char *what, const char *name, uint32_t *max_msg_size,
		uint32_t *recv_queue_len, struct rte_comch_caps *caps);

/**
 * The driver's op @p op of @p dev: 0, or -ENOTSUP with rte_errno set and a
 * log line naming @p what.
 */
#define COMCH_OBJ_OP(dev, op, what) ((dev)->dev_ops->op != NULL ? 0 : \
	(COMCH_LOG(ERR, "%s: not supported by device %s", what, \
		(dev)->data->dev_name), rte_errno = ENOTSUP, -ENOTSUP))

/**
 * Whether a server or client may be destroyed: idle, and not from one of
 * its own callbacks. Returns 0 or -EBUSY with a log line.
 */
int comch_obj_destroy_check(enum rte_comch_state state, uint32_t flags,
		const char *what, const char *name);

#endif /* COMCH_OBJ_H */
