/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_MP_H
#define COMCH_MP_H

/*
 * The requests a secondary process sends the primary (comch_secondary.c
 * asks, comch_serve.c answers): one rte_mp action, a fixed-size request
 * and reply, at most COMCH_MP_FDS fds each way. Internal; the tests
 * include it to send malformed requests.
 */

#include <stdint.h>

#include "rte_comch_pmd.h"

#define COMCH_MP_ACTION "rte_comch_mp"
#define COMCH_MP_VERSION 2
/* Long enough for a primary busy on its control path. */
#define COMCH_MP_TIMEOUT_S 5
/* fds one request or reply carries at most. */
#define COMCH_MP_FDS 4

enum comch_mp_type {
	COMCH_MP_REGISTER = 1, /* reply: token, and the liveness socket */
	COMCH_MP_CONN_LIST,    /* arg[0]: first id; reply: count, ids */
	COMCH_MP_CONN_ATTACH,  /* reply: addr of the connection */
	COMCH_MP_CONN_DETACH,
	COMCH_MP_CONN_STATS,   /* reply: stats */
	COMCH_MP_FP_ALLOC,     /* kind, arg: nb_posts, max_imm_len; reply: addr */
	COMCH_MP_FP_FREE,      /* kind, obj_id */
	COMCH_MP_ANNOUNCE,     /* obj_id (a consumer), xfer and its fds */
	COMCH_MP_WITHDRAW,     /* obj_id (a consumer) */
	COMCH_MP_REMOTE_EXPORT, /* obj_id: the peer's consumer id, gen;
				 * reply: xfer and its fds */
	COMCH_MP_RELAY,        /* reply: addr of the connection's relay */
	COMCH_MP__MAX
};

/* Connection ids per CONN_LIST reply. */
#define COMCH_MP_LIST_PAGE 32

struct comch_mp_xfer {
	uint32_t nb_fds;      /* as sent along with the message */
	uint32_t reserved;
	uint64_t val[6];
};

struct comch_mp_request {
	uint16_t version;
	uint16_t type;        /* enum comch_mp_type */
	int16_t dev_id;
	uint16_t kind;        /* enum comch_fp_kind, 0: none */
	uint32_t conn_id;
	uint32_t obj_id;      /* producer or consumer id */
	uint32_t token;       /* the sender's (0 in REGISTER) */
	int32_t pid;          /* REGISTER: the sender's pid, for logs */
	uint32_t arg[2];
	uint64_t gen;         /* REMOTE_EXPORT */
	struct comch_mp_xfer xfer; /* ANNOUNCE */
};

struct comch_mp_reply {
	int32_t result;       /* 0 or a negative errno */
	uint32_t token;       /* REGISTER */
	uint64_t addr;        /* CONN_ATTACH, FP_ALLOC, RELAY: shared memory */
	uint32_t count;       /* CONN_LIST: connections from the first id on */
	uint32_t nb_ids;      /* CONN_LIST: ids in this reply */
	union {
		uint32_t ids[COMCH_MP_LIST_PAGE];
		struct rte_comch_conn_stats stats;
		struct comch_mp_xfer xfer; /* REMOTE_EXPORT */
	};
};

#endif /* COMCH_MP_H */
