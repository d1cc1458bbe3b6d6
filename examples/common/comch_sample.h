/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_SAMPLE_H
#define COMCH_SAMPLE_H

/* Helpers shared by the samples: signals, device choice, deadlines. */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include <stdlib.h>

#include <rte_eal.h>

static volatile bool force_quit;

/* rte_eal_init(), then point argc/argv at the sample's own options.
 * Returns 0, or -1 after saying why. */
static inline int
sample_eal_init(int *argc, char ***argv)
{
	int ret = rte_eal_init(*argc, *argv);

	if (ret < 0) {
		fprintf(stderr, "cannot initialise EAL: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	*argc -= ret;
	*argv += ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

/* Seconds for option @p opt: a number > 0 (or >= 0 with @p zero_ok).
 * Returns 0, or -1 after saying why. */
static inline int
sample_parse_seconds(const char *opt, const char *s, bool zero_ok, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || v < 0 || (v == 0 && !zero_ok)) {
		fprintf(stderr, "--%s: not a %s number of seconds: %s\n", opt,
			zero_ok ? "non-negative" : "positive", s);
		return -1;
	}
	*out = v;
	return 0;
}

static inline void
sample_signal_handler(int sig)
{
	if (sig == SIGINT || sig == SIGTERM)
		force_quit = true;
}

/*
 * The comch device to use: the one named by --dev, else the first device of
 * the wanted role given with --vdev, else a comch_shm device this sample
 * creates with default devargs (so "-l 0 --no-huge" is enough to try it).
 */
static inline int16_t
sample_find_dev(const char *name, enum rte_comch_role role,
		const char *default_vdev, const char *default_args)
{
	struct rte_comch_dev_info info;
	int16_t id;
	int ret;

	if (name != NULL) {
		ret = rte_comch_get_dev_id_by_name(name);
		if (ret < 0)
			printf("no comch device named %s\n", name);
		return (int16_t)ret;
	}
	RTE_COMCH_FOREACH_DEV(id) {
		if (rte_comch_info_get(id, &info) == 0 && info.role == role)
			return id;
	}
	ret = rte_vdev_init(default_vdev, default_args);
	if (ret < 0) {
		printf("cannot create %s,%s: %s\n", default_vdev, default_args,
			rte_strerror(-ret));
		return -1;
	}
	return (int16_t)rte_comch_get_dev_id_by_name(default_vdev);
}

static inline uint64_t
sample_deadline(double seconds)
{
	return rte_get_timer_cycles() +
		(uint64_t)(seconds * (double)rte_get_timer_hz());
}

/*
 * Start a client and poll until it is connected, retrying every 10 ms while
 * the server does not exist yet (-ENOENT) or no DPU serves this function
 * yet (-ECONNREFUSED), for at most @p timeout seconds. Returns 0 or the
 * last error.
 */
static inline int
sample_client_connect(struct rte_comch_client *cli, double timeout)
{
	uint64_t deadline = sample_deadline(timeout);
	enum rte_comch_state st;
	int ret, err;

	for (;;) {
		ret = rte_comch_client_start(cli);
		if (ret < 0)
			return ret;
		do {
			rte_comch_client_poll(cli);
			st = rte_comch_client_state(cli, &err);
		} while (st == RTE_COMCH_STATE_STARTING && !force_quit);
		if (st == RTE_COMCH_STATE_RUNNING)
			return 0;
		if (force_quit)
			return -EINTR;
		if (rte_get_timer_cycles() > deadline ||
		    (err != -ENOENT && err != -ECONNREFUSED))
			return err;
		rte_delay_ms(10);
	}
}

#endif /* COMCH_SAMPLE_H */
