/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm's fd headroom (shm_fd_headroom()): the driver takes an fd on
 * a peer's behalf only while the process keeps SHM_FD_HEADROOM free for
 * the rest of it, EAL's interrupt thread first, which panics when it
 * cannot re-create its epoll instance. Built with the driver's fd file
 * itself; no EAL needed. Under a limit of LIMIT fds, with the table
 * filled and then k fds freed:
 *
 *   counts    freed at the top of the range (as the kernel fills it), the
 *             answer is yes from exactly SHM_FD_HEADROOM + n free;
 *   holes     freed low with the top still taken (fds a program keeps
 *             high): the same answer; and the top free with one more hole
 *             below it: counted, not guessed from where a free fd is;
 *   never_takes_the_last  what it counts is not what it takes: a thread
 *             that closes an fd and opens one again, as EAL's interrupt
 *             thread re-creates its epoll instance, always finds one while
 *             the question is asked over and over on the edge of the
 *             headroom. Counting by taking the free fds all at once, as
 *             this driver once did, takes them from that thread (EAL
 *             panics: "Cannot create epoll instance").
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "comch_shm_priv.h"

#define LIMIT 256
#define ROUNDS 2000
#define CAP_S 5

static int failures;
static int taken[LIMIT];
static int nb_taken;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("FAIL %s:%d: ", __func__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failures++; \
	} \
} while (0)

static int src = -1;	/* an fd to duplicate */

/* Take every free fd (the lowest first, as the kernel gives them). */
static void
fill(void)
{
	int fd;

	while ((fd = fcntl(src, F_DUPFD_CLOEXEC, 0)) >= 0)
		taken[nb_taken++] = fd;
}

static void
release_all(void)
{
	while (nb_taken > 0)
		close(taken[--nb_taken]);
}

/* Close @p k of the fds taken: the highest (@p top) or the lowest. */
static void
release(int k, bool top)
{
	int i;

	if (k > nb_taken)
		k = nb_taken;
	if (top) {
		while (k-- > 0)
			close(taken[--nb_taken]);
		return;
	}
	for (i = 0; i < k; i++)
		close(taken[i]);
	memmove(taken, taken + k, (nb_taken - k) * sizeof(taken[0]));
	nb_taken -= k;
}

static void
test_counts(bool top)
{
	unsigned int n, want;
	int k, before;
	bool yes;

	for (n = 0; n <= 4; n += 4)
		for (k = 0; k <= SHM_FD_HEADROOM + 8; k++) {
			fill();
			release(k, top);
			want = SHM_FD_HEADROOM + n;
			yes = shm_fd_headroom(src, n);
			CHECK(yes == ((unsigned int)k >= want),
				"%s: %d fds free, %u wanted: answered %s",
				top ? "top" : "holes", k, want,
				yes ? "yes" : "no");
			before = nb_taken;
			fill();
			CHECK(nb_taken - before == k,
				"%d fds free before the question, %d after",
				k, nb_taken - before);
			release_all();
		}
}

/* The top of the range free, and one hole below it (an fd closed after
 * higher ones were given out): counted, not guessed from where the first
 * free fd is. */
static void
test_hole_below_the_top(void)
{
	int hole;

	int before;

	fill();
	release(SHM_FD_HEADROOM, true);
	/* below the top, where the first free fd above some point says
	 * nothing of how many there are above it */
	for (hole = 0; hole < nb_taken - 1 &&
	     taken[hole] < LIMIT - SHM_FD_HEADROOM - 12; hole++)
		;
	close(taken[hole]);
	taken[hole] = taken[--nb_taken];
	CHECK(!shm_fd_headroom(src, 4), "%d free, %d wanted: answered yes",
		SHM_FD_HEADROOM + 1, SHM_FD_HEADROOM + 4);
	CHECK(shm_fd_headroom(src, 1), "%d free, %d wanted: answered no",
		SHM_FD_HEADROOM + 1, SHM_FD_HEADROOM + 1);
	before = nb_taken;
	fill();
	CHECK(nb_taken - before == SHM_FD_HEADROOM + 1,
		"%d fds were free, not %d", nb_taken - before,
		SHM_FD_HEADROOM + 1);
	release_all();
}

static volatile bool stop;
static volatile unsigned long reopen_failures, reopens;

/* As EAL's interrupt thread: close the epoll fd, create the next. */
static void *
reopener(void *arg)
{
	int fd = *(int *)arg;

	while (!stop) {
		close(fd);
		fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			reopen_failures++;
			/* take it back as soon as one is free again */
			while (!stop &&
			       (fd = fcntl(src, F_DUPFD_CLOEXEC, 0)) < 0)
				;
			if (fd < 0)
				break;
		}
		reopens++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void
test_never_takes_the_last(void)
{
	struct timespec t0, t1;
	pthread_t t;
	int held, i, k;

	/* The reopener holds one fd; besides, one short of the headroom
	 * (the answer is no: taking them all to count them takes the
	 * reopener's too), exactly the headroom, and one more. */
	for (k = SHM_FD_HEADROOM - 1; k <= SHM_FD_HEADROOM + 1; k++) {
		fill();
		release(k + 1, true);
		held = fcntl(src, F_DUPFD_CLOEXEC, 0);
		CHECK(held >= 0, "no fd for the reopener");
		if (held < 0)
			return;
		stop = false;
		reopen_failures = 0;
		reopens = 0;
		if (pthread_create(&t, NULL, reopener, &held) != 0) {
			CHECK(false, "pthread_create");
			return;
		}
		/* each question while the reopener goes on; ROUNDS of them,
		 * or fewer on a machine so busy that they take CAP_S (the
		 * hand-over per question waits on the scheduler): a bound on
		 * the work, never a timeout */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < ROUNDS && reopen_failures == 0; i++) {
			if ((i & 63) == 63) {
				clock_gettime(CLOCK_MONOTONIC, &t1);
				if (t1.tv_sec - t0.tv_sec >= CAP_S)
					break;
			}
			unsigned long r = reopens;

			(void)shm_fd_headroom(src, 0);
			while (reopens == r && reopen_failures == 0)
				sched_yield();
		}
		stop = true;
		pthread_join(t, NULL);
		CHECK(i > 0 && reopens > 0, "%d fds free: nothing asked", k);
		CHECK(reopen_failures == 0,
			"%d fds free: the other thread found none after %lu re-creations",
			k, reopens);
		release_all();
	}
}

int
main(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < LIMIT) {
		printf("SKIP: needs a limit of %d fds\n", LIMIT);
		return 77;
	}
	rl.rlim_cur = LIMIT;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		printf("FAIL: setrlimit: %d\n", errno);
		return 1;
	}
	src = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (src < 0) {
		printf("FAIL: /dev/null: %d\n", errno);
		return 1;
	}
	/* fds inherited from whoever started us, kept high, would make the
	 * top of the range not the last to go: the answers below are exact
	 * for a process whose fds the kernel gave out */
	close_range((unsigned int)src + 1, ~0U, 0);
	test_counts(true);
	test_counts(false);
	test_hole_below_the_top();
	test_never_takes_the_last();
	if (failures != 0) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("fd headroom: all passed\n");
	return 0;
}
