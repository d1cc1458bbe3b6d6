/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * A DPDK secondary process attaches to the primary's comch devices: same
 * ids and names, same role, functions and capabilities, from the shared
 * device data. What a secondary cannot do yet (servers, clients, registered
 * memory) fails with ENOTSUP and a log line, and the primary's connection
 * keeps working while the secondary comes and goes.
 *
 * Needs hugepages (secondaries share the primary's memory); without them
 * the suite is skipped (exit 77).
 */

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <rte_memory.h>

#include "comch_test.h"

extern char **environ;

static char prefix_arg[64];

static int
secondary_main(int16_t want_dpu, int16_t want_host)
{
	const char *eal[] = { "secondary", "-l", "1", "--no-pci",
		"--proc-type=secondary", prefix_arg,
		"--log-level=lib.eal:error", NULL };
	struct rte_comch_server_conf sc = { .name = "from-secondary" };
	struct rte_comch_client_conf cc = { .server_name = "x" };
	struct rte_comch_dev_info info;
	char rep[RTE_COMCH_REP_NAME_MAX];

	test_log_capture_init();
	test_log_reset();
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	CHECK_EQ(rte_comch_dev_count(), 2);
	CHECK_EQ(rte_comch_get_dev_id_by_name("comch_shm_dpu"), want_dpu);
	CHECK_EQ(rte_comch_get_dev_id_by_name("comch_shm_host"), want_host);
	CHECK_OK(rte_comch_info_get(want_dpu, &info));
	CHECK_EQ(info.role, RTE_COMCH_ROLE_DPU);
	CHECK_EQ(info.nb_reps, 2);
	CHECK(info.caps.flags & RTE_COMCH_CAPA_SERVER, "caps");
	CHECK_OK(rte_comch_rep_name(want_dpu, 1, rep, sizeof(rep)));
	CHECK(strcmp(rep, "pf0vf1") == 0, "rep %s", rep);
	CHECK_OK(rte_comch_info_get(want_host, &info));
	CHECK_EQ(info.role, RTE_COMCH_ROLE_HOST);

	CHECK(rte_comch_server_create(want_dpu, &sc) == NULL &&
	      rte_errno == ENOTSUP, "server in a secondary");
	CHECK(test_log_has("not supported in a secondary process"),
		"no log line says why");
	CHECK(rte_comch_client_create(want_host, &cc) == NULL &&
	      rte_errno == ENOTSUP, "client in a secondary");
	CHECK(rte_comch_mem_create(want_dpu, 4096, SOCKET_ID_ANY) == NULL &&
	      rte_errno == ENOTSUP, "memory in a secondary");
	rte_eal_cleanup();
	printf("secondary: attached, refused what it cannot do\n");
	return 0;
}

static struct rte_comch_conn *srv_conn;

static void
on_connect(struct rte_comch_server *s __rte_unused, struct rte_comch_conn *c,
		void *a __rte_unused)
{
	srv_conn = c;
}

static int
exchange(struct rte_comch_server *srv, struct rte_comch_client *cli,
		uint32_t v)
{
	struct rte_comch_msg m;
	uint64_t dl = test_deadline(5);
	int n;

	CHECK_OK(rte_comch_msg_send(rte_comch_client_conn(cli), &v, sizeof(v)));
	do {
		rte_comch_server_poll(srv);
		n = rte_comch_msg_recv_burst(srv_conn, &m, 1);
	} while (n == 0 && !test_expired(dl));
	CHECK_EQ(n, 1);
	CHECK_EQ(*(const uint32_t *)m.data, v);
	return 0;
}

int
main(int argc, char **argv)
{
	char dir[64], vdev1[128], vdev2[128], a1[8], a2[8];
	const char *eal[] = { "primary", "-l", "0", "--no-pci", "-m", "64",
		prefix_arg, vdev1, vdev2, "--log-level=lib.eal:error", NULL };
	struct rte_comch_server_conf sc = { .name = "sec",
		.connect_cb = on_connect };
	struct rte_comch_client_conf cc = { .server_name = "sec" };
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	int16_t dpu, host;
	uint64_t dl;
	pid_t pid;
	int status, err;

	if (argc == 5 && strcmp(argv[1], "--secondary") == 0) {
		snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s",
			argv[2]);
		return secondary_main((int16_t)atoi(argv[3]),
				(int16_t)atoi(argv[4]));
	}
	if (access("/dev/hugepages", F_OK) != 0 || test_rss_kib() < 0) {
		printf("no hugetlbfs: skipped\n");
		return 77;
	}
	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=sec-%d",
		(int)getpid());
	if (test_mkdtemp(dir, sizeof(dir)) < 0)
		return 1;
	snprintf(vdev1, sizeof(vdev1),
		"--vdev=comch_shm_dpu,role=dpu,path=%s,functions=[pf0,pf0vf1]", dir);
	snprintf(vdev2, sizeof(vdev2), "--vdev=comch_shm_host,role=host,path=%s",
		dir);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0) {
		printf("cannot start a primary with hugepages: skipped\n");
		return 77;
	}
	dpu = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	host = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_host");
	srv = rte_comch_server_create(dpu, &sc);
	cli = rte_comch_client_create(host, &cc);
	if (srv == NULL || cli == NULL || rte_comch_server_start(srv) < 0 ||
	    rte_comch_client_start(cli) < 0)
		return 1;
	dl = test_deadline(5);
	while ((srv_conn == NULL ||
		rte_comch_client_state(cli, &err) != RTE_COMCH_STATE_RUNNING) &&
	       !test_expired(dl)) {
		rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
	}
	if (srv_conn == NULL || exchange(srv, cli, 1) != 0)
		return 1;

	snprintf(a1, sizeof(a1), "%d", dpu);
	snprintf(a2, sizeof(a2), "%d", host);
	{
		char *args[] = { argv[0], (char *)(uintptr_t)"--secondary",
			prefix_arg + strlen("--file-prefix="), a1, a2, NULL };

		if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) != 0)
			return 1;
	}
	/* the primary keeps polling while the secondary runs */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("FAIL: secondary status %d\n", status);
		return 1;
	}
	if (exchange(srv, cli, 2) != 0) {
		printf("FAIL: the primary's connection after the secondary\n");
		return 1;
	}
	rte_comch_client_stop(cli);
	rte_comch_client_destroy(cli);
	rte_comch_server_stop(srv);
	rte_comch_server_destroy(srv);
	rte_eal_cleanup();
	rmdir(dir);
	printf("secondary: ok\n");
	return 0;
}
