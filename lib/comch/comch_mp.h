/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_MP_H
#define COMCH_MP_H

/*
 * The messages between a secondary process and the primary (see
 * comch_mp.c): one rte_mp action, a fixed-size request and reply. Internal;
 * the tests include it to send malformed requests.
 */

#include <stdint.h>

#include "rte_comch_pmd.h"

#define COMCH_MP_ACTION "rte_comch_mp"
#define COMCH_MP_VERSION 1
/* Long enough for a driver request that waits on a congested link. */
#define COMCH_MP_TIMEOUT_S 5

enum comch_mp_type {
	COMCH_MP_REGISTER = 1,
	COMCH_MP_CONN_LIST,
	COMCH_MP_CONN_ATTACH,
	COMCH_MP_CONN_DETACH,
	COMCH_MP_CONN_STATS,
	COMCH_MP_FP_ALLOC,
	COMCH_MP_FP_FREE,
	COMCH_MP_DRIVER,
	COMCH_MP__MAX
};

struct comch_mp_req {
	uint16_t version;
	uint16_t type;        /**< enum comch_mp_type */
	int16_t dev_id;
	uint16_t kind;        /**< enum comch_fp_kind, 0: none */
	uint32_t conn_id;
	uint32_t obj_id;      /**< Producer or consumer id (kind != 0). */
	uint32_t token;       /**< The sender's (0 in REGISTER). */
	int32_t pid;          /**< REGISTER: the sender's pid, for logs. */
	uint32_t arg[2];      /**< FP_ALLOC: nb_posts, imm_data_len; CONN_LIST: first id. */
	uint32_t data_len;    /**< DRIVER: bytes in data. */
	uint32_t reserved;
	uint8_t data[RTE_COMCH_PMD_MP_DATA_MAX];
};

struct comch_mp_rep {
	int32_t result;       /**< 0 or a negative errno. */
	uint32_t token;       /**< REGISTER. */
	uint64_t addr;        /**< CONN_ATTACH, FP_ALLOC: shared-memory address. */
	uint32_t count;       /**< CONN_LIST: connections from the first id on. */
	uint32_t data_len;    /**< Bytes in data. */
	uint8_t data[RTE_COMCH_PMD_MP_DATA_MAX];
};

/* Connection ids per CONN_LIST reply. */
#define COMCH_MP_LIST_PAGE (RTE_COMCH_PMD_MP_DATA_MAX / sizeof(uint32_t))

#endif /* COMCH_MP_H */
