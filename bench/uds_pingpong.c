/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The reference for dpdk-comch-perf --test=wake-lat: a blocking Unix
 * socket round trip with both sides asleep between messages. Two
 * processes (socketpair + fork), the parent on CPU_A, the child on
 * CPU_B; SOCK_SEQPACKET, 64-byte messages, plain blocking send/recv: the
 * child sleeps in recv() until the parent's message wakes it, the parent
 * in recv() until the echo does. Before each message the parent idles
 * GAP_US (default 100, as wake-lat does), so the child is asleep when the
 * message comes. Prints percentiles of the round trip, in us.
 *
 *   comch-bench-uds [ROUNDS=20000] [GAP_US=100] [CPU_A=0] [CPU_B=1]
 */

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG 64

static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	unsigned long gap_us = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	int cpu_a = argc > 3 ? atoi(argv[3]) : 0;
	int cpu_b = argc > 4 ? atoi(argv[4]) : 1;
	struct timespec gap = { (time_t)(gap_us / 1000000),
		(long)(gap_us % 1000000) * 1000 };
	unsigned long warm = rounds / 10, i;
	char buf[MSG];
	uint64_t *rtt, t0, sum = 0;
	int sv[2], status;
	pid_t pid;

	if (rounds == 0)
		rounds = 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
		perror("socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		pin(cpu_b);
		/* echo until the parent closes its end */
		while (recv(sv[1], buf, sizeof(buf), 0) == MSG)
			if (send(sv[1], buf, MSG, 0) != MSG)
				break;
		_exit(0);
	}
	close(sv[1]);
	pin(cpu_a);
	rtt = calloc(rounds, sizeof(*rtt));
	if (rtt == NULL)
		return 1;
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < warm + rounds; i++) {
		nanosleep(&gap, NULL);
		t0 = now_ns();
		if (send(sv[0], buf, MSG, 0) != MSG ||
		    recv(sv[0], buf, sizeof(buf), 0) != MSG) {
			perror("ping-pong");
			kill(pid, SIGKILL);
			return 1;
		}
		if (i >= warm)
			rtt[i - warm] = now_ns() - t0;
	}
	close(sv[0]);
	waitpid(pid, &status, 0);
	for (i = 0; i < rounds; i++)
		sum += rtt[i];
	qsort(rtt, rounds, sizeof(*rtt), cmp);
	printf("uds blocking round trip, 64 B, %lu rounds, %lu us idle before each, CPUs %d/%d: min %.3f p50 %.3f p90 %.3f p99 %.3f mean %.3f us\n",
		rounds, gap_us, cpu_a, cpu_b, rtt[0] / 1e3,
		rtt[rounds / 2] / 1e3, rtt[rounds * 9 / 10] / 1e3,
		rtt[rounds * 99 / 100] / 1e3, (double)sum / rounds / 1e3);
	free(rtt);
	return 0;
}
