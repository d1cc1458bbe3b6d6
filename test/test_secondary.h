/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef TEST_SECONDARY_H
#define TEST_SECONDARY_H

/* What the roles of the secondary-process suite share (see
 * test_secondary.c for the roles and test_secondary.py for the
 * scenario). */

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define NB_DPU_QUEUES 2
#define DPU_POSTS 64
#define SEC_POSTS 64
#define MSG_SIZE 64
#define GUARD_S 60

#define SAY(...) do { printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* Immediate data of a test message: who to echo to, and its number. */
struct tmsg_imm {
	uint32_t reply_to;
	uint32_t seq;
	uint32_t sender;
};

/* Payload byte i of message @p seq from sender @p who. */
static inline uint8_t
tmsg_byte(uint32_t who, uint32_t seq, uint32_t i)
{
	return (uint8_t)(who * 131 + seq * 7 + i);
}

/* Whether stdin has been closed (or has a line): polled, never blocks. */
static inline bool
stdin_event(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* The roles: test_secondary.c (dpu, primary), test_secondary_host.c
 * (secondary), test_secondary_evil.c (evil). */
int run_dpu(const char *prog, const char *linkdir);
int run_primary(const char *prog, const char *linkdir, const char *prefix);
int run_secondary(const char *prog, int argc, char **argv);
int run_evil(const char *prog, int argc, char **argv);

#endif /* TEST_SECONDARY_H */
