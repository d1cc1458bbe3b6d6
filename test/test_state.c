/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The object state machine, every (state, event) and (state, operation)
 * pair against an independent statement of the vendor SDK's rules. Built
 * with lib/comch/comch_state.c itself; no EAL needed.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "comch_private.h"

#define S_IDLE RTE_COMCH_STATE_IDLE
#define S_STARTING RTE_COMCH_STATE_STARTING
#define S_RUNNING RTE_COMCH_STATE_RUNNING
#define S_STOPPING RTE_COMCH_STATE_STOPPING
#define REFUSED (-1)

static int failures;

static void
expect_transition(enum rte_comch_state from, enum comch_event ev, int to)
{
	enum rte_comch_state s = from;
	int ret = comch_state_apply(&s, ev);

	if (to == REFUSED) {
		if (ret != -EBUSY || s != from) {
			printf("FAIL %s --%s--> should be refused (ret %d, now %s)\n",
				rte_comch_state_name(from), comch_event_name(ev),
				ret, rte_comch_state_name(s));
			failures++;
		}
		return;
	}
	if (ret != 0 || (int)s != to) {
		printf("FAIL %s --%s--> expected %s, got ret %d state %s\n",
			rte_comch_state_name(from), comch_event_name(ev),
			rte_comch_state_name(to), ret, rte_comch_state_name(s));
		failures++;
	}
}

static void
expect_op(enum rte_comch_state s, enum comch_op op, bool allowed)
{
	if (comch_state_allows(s, op) != allowed) {
		printf("FAIL op %d in %s should be %s\n", op,
			rte_comch_state_name(s), allowed ? "allowed" : "refused");
		failures++;
	}
}

int
main(void)
{
	/* Transitions: idle -> starting -> running -> stopping -> idle. */
	static const struct { int from, ev, to; } t[] = {
		{ S_IDLE, COMCH_EV_START, S_STARTING },
		{ S_IDLE, COMCH_EV_READY, REFUSED },
		{ S_IDLE, COMCH_EV_START_FAILED, REFUSED },
		{ S_IDLE, COMCH_EV_STOP, REFUSED },
		{ S_IDLE, COMCH_EV_FATAL, REFUSED },
		{ S_IDLE, COMCH_EV_DRAINED, REFUSED },
		{ S_STARTING, COMCH_EV_START, REFUSED },
		{ S_STARTING, COMCH_EV_READY, S_RUNNING },
		{ S_STARTING, COMCH_EV_START_FAILED, S_IDLE },
		{ S_STARTING, COMCH_EV_STOP, S_IDLE },
		{ S_STARTING, COMCH_EV_FATAL, S_IDLE },
		{ S_STARTING, COMCH_EV_DRAINED, REFUSED },
		{ S_RUNNING, COMCH_EV_START, REFUSED },
		{ S_RUNNING, COMCH_EV_READY, REFUSED },
		{ S_RUNNING, COMCH_EV_START_FAILED, REFUSED },
		{ S_RUNNING, COMCH_EV_STOP, S_STOPPING },
		{ S_RUNNING, COMCH_EV_FATAL, S_STOPPING },
		{ S_RUNNING, COMCH_EV_DRAINED, REFUSED },
		{ S_STOPPING, COMCH_EV_START, REFUSED },
		{ S_STOPPING, COMCH_EV_READY, REFUSED },
		{ S_STOPPING, COMCH_EV_START_FAILED, REFUSED },
		{ S_STOPPING, COMCH_EV_STOP, S_STOPPING },
		{ S_STOPPING, COMCH_EV_FATAL, S_STOPPING },
		{ S_STOPPING, COMCH_EV_DRAINED, S_IDLE },
	};
	/* Operations: configure/destroy idle only; submit running/stopping. */
	static const struct { int s, op; bool ok; } o[] = {
		{ S_IDLE, COMCH_OP_CONFIGURE, true },
		{ S_IDLE, COMCH_OP_START, true },
		{ S_IDLE, COMCH_OP_STOP, false },
		{ S_IDLE, COMCH_OP_DESTROY, true },
		{ S_IDLE, COMCH_OP_SEND, false },
		{ S_STARTING, COMCH_OP_CONFIGURE, false },
		{ S_STARTING, COMCH_OP_START, false },
		{ S_STARTING, COMCH_OP_STOP, true },
		{ S_STARTING, COMCH_OP_DESTROY, false },
		{ S_STARTING, COMCH_OP_SEND, false },
		{ S_RUNNING, COMCH_OP_CONFIGURE, false },
		{ S_RUNNING, COMCH_OP_START, false },
		{ S_RUNNING, COMCH_OP_STOP, true },
		{ S_RUNNING, COMCH_OP_DESTROY, false },
		{ S_RUNNING, COMCH_OP_SEND, true },
		{ S_STOPPING, COMCH_OP_CONFIGURE, false },
		{ S_STOPPING, COMCH_OP_START, false },
		{ S_STOPPING, COMCH_OP_STOP, true },
		{ S_STOPPING, COMCH_OP_DESTROY, false },
		{ S_STOPPING, COMCH_OP_SEND, true },
	};
	enum rte_comch_state bogus = (enum rte_comch_state)7;
	size_t i;

	for (i = 0; i < RTE_DIM(t); i++)
		expect_transition(t[i].from, t[i].ev, t[i].to);
	for (i = 0; i < RTE_DIM(o); i++)
		expect_op(o[i].s, o[i].op, o[i].ok);
	/* Out-of-range values are refused, not indexed. */
	if (comch_state_apply(&bogus, COMCH_EV_START) != -EINVAL ||
	    comch_state_allows(bogus, COMCH_OP_SEND) ||
	    comch_state_allows(S_RUNNING, COMCH_OP__MAX)) {
		printf("FAIL out-of-range state or op accepted\n");
		failures++;
	}
	if (strcmp(rte_comch_state_name(bogus), "?") != 0 ||
	    strcmp(rte_comch_state_name(S_STOPPING), "stopping") != 0) {
		printf("FAIL state names\n");
		failures++;
	}
	printf("state: %zu transitions, %zu operations, %d failures\n",
		RTE_DIM(t), RTE_DIM(o), failures);
	return failures == 0 ? 0 : 1;
}
