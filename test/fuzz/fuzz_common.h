/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

/*
 * libFuzzer harness shared by the targets: EAL once (--no-huge, no PCI),
 * a DPU-role comch_shm device over a private folder and a running server
 * "evil" that releases every connection it loses. The fuzzed input then
 * plays a host (evil_peer.h) or devargs. Any crash or sanitizer report is
 * a finding; ordinary refusals are not.
 */

#include <stdlib.h>

#include "../evil_peer.h"

static char fuzz_dir[64];
static int16_t fuzz_dpu;
static struct rte_comch_server *fuzz_srv;
static struct rte_comch_conn *fuzz_conn;   /* the latest connection */
static struct rte_comch_conn *fuzz_unreleased; /* lost with objects left */
static uint32_t fuzz_peer_consumer = UINT32_MAX;

static void
fuzz_on_connect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, void *a __rte_unused)
{
	fuzz_conn = c;
}

static void
fuzz_on_disconnect(struct rte_comch_server *s, struct rte_comch_conn *c,
		int err __rte_unused, void *a __rte_unused)
{
	/* Targets destroy their producers/consumers first; a connection
	 * that still has some is released by fuzz_release(). */
	if (rte_comch_server_disconnect(s, c) == -EBUSY)
		fuzz_unreleased = c;
	if (c == fuzz_conn)
		fuzz_conn = NULL;
}

static void
fuzz_on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event e, void *a __rte_unused)
{
	fuzz_peer_consumer = e == RTE_COMCH_CONSUMER_CREATED ? id : UINT32_MAX;
}

/* Let the server see what the input did (sockets are checked at most
 * every 50 us). */
static inline void
fuzz_poll(double us)
{
	uint64_t dl = test_deadline(us / 1e6);

	do
		rte_comch_server_poll(fuzz_srv);
	while (!test_expired(dl));
}

/* At exit: give back what the harness holds for the whole run, so that
 * the leak check at exit reports only what inputs leaked. */
static void
fuzz_teardown(void)
{
	if (fuzz_srv != NULL) {
		if (rte_comch_server_state(fuzz_srv) != RTE_COMCH_STATE_IDLE)
			rte_comch_server_stop(fuzz_srv);
		rte_comch_server_destroy(fuzz_srv);
		fuzz_srv = NULL;
	}
	rte_vdev_uninit("comch_shm_dpu");
	rte_eal_cleanup();
	rmdir(fuzz_dir);
}

static inline int
fuzz_setup(bool with_server)
{
	char vdev[128];
	const char *extra[] = { vdev, "--log-level=lib.comch:emerg",
		"--log-level=pmd.comch.shm:emerg", NULL };
	struct rte_comch_server_conf conf = { .name = "evil",
		.connect_cb = fuzz_on_connect,
		.disconnect_cb = fuzz_on_disconnect,
		.consumer_event_cb = fuzz_on_consumer };

	if (test_mkdtemp(fuzz_dir, sizeof(fuzz_dir)) < 0)
		return -1;
	snprintf(vdev, sizeof(vdev), "--vdev=comch_shm_dpu,role=dpu,path=%s",
		fuzz_dir);
	if (!with_server)
		extra[0] = "--log-level=lib.eal:error"; /* no device needed */
	if (test_eal_init("fuzz", "fuzz", "0", extra) < 0)
		return -1;
	atexit(fuzz_teardown);
	fuzz_dpu = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	if (!with_server)
		return 0;
	fuzz_srv = rte_comch_server_create(fuzz_dpu, &conf);
	if (fuzz_srv == NULL || rte_comch_server_start(fuzz_srv) < 0)
		return -1;
	return 0;
}

#endif /* FUZZ_COMMON_H */
