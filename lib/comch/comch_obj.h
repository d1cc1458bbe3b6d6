/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_OBJ_H
#define COMCH_OBJ_H

#include "comch_private.h"

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
 * Whether a server or client may be destroyed: idle, and not from one of
 * its own callbacks. Returns 0 or -EBUSY with a log line.
 */
int comch_obj_destroy_check(enum rte_comch_state state, uint32_t flags,
		const char *what, const char *name);

#endif /* COMCH_OBJ_H */
