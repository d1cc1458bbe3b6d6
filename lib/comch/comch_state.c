/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The object state machine as two tables. Servers, clients, connections and
 * (later) producers and consumers share it, so an operation is allowed or
 * refused for the same reason everywhere.
 */

#include <errno.h>
#include <stdbool.h>

#include "comch_private.h"

#define NO_STATE (-1)

/* next_state[state][event]: where an event leads, NO_STATE if refused. */
static const int8_t next_state[][COMCH_EV__MAX] = {
	[RTE_COMCH_STATE_IDLE] = {
		[COMCH_EV_START] = RTE_COMCH_STATE_STARTING,
		[COMCH_EV_READY] = NO_STATE,
		[COMCH_EV_START_FAILED] = NO_STATE,
		[COMCH_EV_STOP] = NO_STATE,
		[COMCH_EV_FATAL] = NO_STATE,
		[COMCH_EV_DRAINED] = NO_STATE,
	},
	[RTE_COMCH_STATE_STARTING] = {
		[COMCH_EV_START] = NO_STATE,
		[COMCH_EV_READY] = RTE_COMCH_STATE_RUNNING,
		[COMCH_EV_START_FAILED] = RTE_COMCH_STATE_IDLE,
		[COMCH_EV_STOP] = RTE_COMCH_STATE_IDLE,
		[COMCH_EV_FATAL] = RTE_COMCH_STATE_IDLE,
		[COMCH_EV_DRAINED] = NO_STATE,
	},
	[RTE_COMCH_STATE_RUNNING] = {
		[COMCH_EV_START] = NO_STATE,
		[COMCH_EV_READY] = NO_STATE,
		[COMCH_EV_START_FAILED] = NO_STATE,
		[COMCH_EV_STOP] = RTE_COMCH_STATE_STOPPING,
		[COMCH_EV_FATAL] = RTE_COMCH_STATE_STOPPING,
		[COMCH_EV_DRAINED] = NO_STATE,
	},
	[RTE_COMCH_STATE_STOPPING] = {
		[COMCH_EV_START] = NO_STATE,
		[COMCH_EV_READY] = NO_STATE,
		[COMCH_EV_START_FAILED] = NO_STATE,
		[COMCH_EV_STOP] = RTE_COMCH_STATE_STOPPING,
		[COMCH_EV_FATAL] = RTE_COMCH_STATE_STOPPING,
		[COMCH_EV_DRAINED] = RTE_COMCH_STATE_IDLE,
	},
};

/* allowed_ops[state]: bit per enum comch_op. Configure and destroy only when
 * idle; submit while running and, to drain, while stopping. */
static const uint32_t allowed_ops[] = {
	[RTE_COMCH_STATE_IDLE] = RTE_BIT32(COMCH_OP_CONFIGURE) |
		RTE_BIT32(COMCH_OP_START) | RTE_BIT32(COMCH_OP_DESTROY),
	[RTE_COMCH_STATE_STARTING] = RTE_BIT32(COMCH_OP_STOP),
	[RTE_COMCH_STATE_RUNNING] = RTE_BIT32(COMCH_OP_STOP) |
		RTE_BIT32(COMCH_OP_SEND),
	[RTE_COMCH_STATE_STOPPING] = RTE_BIT32(COMCH_OP_STOP) |
		RTE_BIT32(COMCH_OP_SEND),
};

static bool
state_valid(enum rte_comch_state state)
{
	return (unsigned int)state < RTE_DIM(next_state);
}

int
comch_state_apply(enum rte_comch_state *state, enum comch_event ev)
{
	int8_t next;

	if (!state_valid(*state) || (unsigned int)ev >= COMCH_EV__MAX)
		return -EINVAL;
	next = next_state[*state][ev];
	if (next == NO_STATE)
		return -EBUSY;
	*state = (enum rte_comch_state)next;
	return 0;
}

bool
comch_state_allows(enum rte_comch_state state, enum comch_op op)
{
	if (!state_valid(state) || (unsigned int)op >= COMCH_OP__MAX)
		return false;
	return (allowed_ops[state] & RTE_BIT32(op)) != 0;
}

const char *
rte_comch_state_name(enum rte_comch_state state)
{
	static const char * const names[] = {
		[RTE_COMCH_STATE_IDLE] = "idle",
		[RTE_COMCH_STATE_STARTING] = "starting",
		[RTE_COMCH_STATE_RUNNING] = "running",
		[RTE_COMCH_STATE_STOPPING] = "stopping",
	};

	if (!state_valid(state))
		return "?";
	return names[state];
}

const char *
comch_event_name(enum comch_event ev)
{
	static const char * const names[] = {
		[COMCH_EV_START] = "start",
		[COMCH_EV_READY] = "ready",
		[COMCH_EV_START_FAILED] = "start-failed",
		[COMCH_EV_STOP] = "stop",
		[COMCH_EV_FATAL] = "fatal",
		[COMCH_EV_DRAINED] = "drained",
	};

	if ((unsigned int)ev >= COMCH_EV__MAX)
		return "?";
	return names[ev];
}
