/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm devargs through real probes (rte_vdev_init): good ones create a
 * device with the right role and functions; every kind of bad one fails the
 * probe with a log line naming the key and what is accepted.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "comch_test.h"

static char link_dir[64];

static int
probe(const char *name, const char *args)
{
	char full[512];
	const char *at = strstr(args, "%s");

	/* "%s" in the devargs below stands for the test's own folder. */
	if (at == NULL)
		snprintf(full, sizeof(full), "%s", args);
	else
		snprintf(full, sizeof(full), "%.*s%s%s", (int)(at - args),
			args, link_dir, at + 2);
	return rte_vdev_init(name, full);
}

static int
test_good(void)
{
	static const struct {
		const char *args;
		enum rte_comch_role role;
		uint16_t nb_functions;
		const char *last_function;
	} good[] = {
		{ "role=dpu,path=%s", RTE_COMCH_ROLE_DPU, 1, "pf0" },
		{ "role=dpu,path=%s,functions=pf1", RTE_COMCH_ROLE_DPU, 1, "pf1" },
		{ "role=dpu,path=%s,functions=[pf0,pf0vf1,pf1sf65535]",
		  RTE_COMCH_ROLE_DPU, 3, "pf1sf65535" },
		{ "role=host,path=%s", RTE_COMCH_ROLE_HOST, 1, "pf0" },
		{ "role=host,path=%s,function=pf0vf12", RTE_COMCH_ROLE_HOST, 1,
		  "pf0vf12" },
		{ "path=%s,role=host,function=pf255", RTE_COMCH_ROLE_HOST, 1,
		  "pf255" },
	};
	struct rte_comch_dev_info info;
	char func[RTE_COMCH_FUNCTION_NAME_MAX];
	size_t i;
	int id;

	for (i = 0; i < RTE_DIM(good); i++) {
		printf("  good: %s\n", good[i].args);
		CHECK_OK(probe("comch_shm_good", good[i].args));
		id = rte_comch_get_dev_id_by_name("comch_shm_good");
		CHECK(id >= 0, "device not found after probe");
		CHECK_OK(rte_comch_info_get(id, &info));
		CHECK_EQ(info.role, good[i].role);
		CHECK_EQ(info.nb_functions, good[i].nb_functions);
		CHECK(strcmp(info.driver_name, "comch_shm") == 0, "driver %s",
			info.driver_name);
		CHECK_OK(rte_comch_function_name(id, info.nb_functions - 1, func,
				sizeof(func)));
		CHECK(strcmp(func, good[i].last_function) == 0, "func %s", func);
		CHECK_OK(rte_vdev_uninit("comch_shm_good"));
		CHECK_EQ(rte_comch_get_dev_id_by_name("comch_shm_good"), -ENODEV);
	}
	return 0;
}

static int
test_bad(void)
{
	static const struct {
		const char *args;
		const char *log; /* what the error line must say */
	} bad[] = {
		{ "path=%s", "role is required" },
		{ "role=dpu,path=%s,colour=blue", "unknown devarg \"colour\"" },
		{ "role=dpu,path=%s,colour=blue", "accepted: role, path, functions, function" },
		{ "role=cpu,path=%s", "role=cpu: accepted values are dpu, host" },
		{ "role=dpu,role=host,path=%s", "devarg role given twice" },
		{ "role=dpu,path=relative/dir", "path=relative/dir: must be an absolute" },
		{ "role=dpu,path=%s/a-very-long-folder-name-that-does-not-fit-in-a-unix-socket-address-at-all-really",
		  "too long for a UNIX socket" },
		{ "role=dpu,path=%s,functions=[]", "functions=[]: empty list" },
		{ "role=dpu,path=%s,functions=[pf0,pf0]", "function pf0 listed twice" },
		{ "role=dpu,path=%s,functions=[pf0,,pf1]", "invalid function name" },
		{ "role=dpu,path=%s,functions=vf0", "functions=vf0: invalid function name" },
		{ "role=dpu,path=%s,functions=pf01", "functions=pf01: invalid" },
		{ "role=dpu,path=%s,functions=pf256", "functions=pf256: invalid" },
		{ "role=dpu,path=%s,functions=pf0vf", "functions=pf0vf: invalid" },
		{ "role=dpu,path=%s,functions=pf0vf65536", "functions=pf0vf65536: invalid" },
		{ "role=dpu,path=%s,functions=pf0xf1", "functions=pf0xf1: invalid" },
		{ "role=dpu,path=%s,functions=[pf0,pf1,pf2,pf3,pf4,pf5,pf6,pf7,pf8,pf9,pf10,pf11,pf12,pf13,pf14,pf15,pf16]",
		  "more than 16 functions" },
		{ "role=dpu,path=%s,function=pf0", "function= is for role=host" },
		{ "role=host,path=%s,functions=pf0", "functions= is for role=dpu" },
		{ "role=host,path=%s,function=pf0sf", "function=pf0sf: invalid function name" },
		{ "role=host,path=%s,function=", "function=: invalid function name" },
		{ "role=host,path=%s,function", "devarg function needs a value" },
	};
	size_t i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		printf("  bad: %s\n", bad[i].args);
		test_log_reset();
		CHECK(probe("comch_shm_bad", bad[i].args) < 0, "probe succeeded");
		CHECK(test_log_has(bad[i].log), "log lacks \"%s\"", bad[i].log);
		CHECK_EQ(rte_comch_get_dev_id_by_name("comch_shm_bad"), -ENODEV);
	}
	return 0;
}

/* A second DPU on the same function socket is refused while the first
 * lives; a socket file left by a dead DPU is reclaimed. */
static int
test_socket_ownership(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	CHECK_OK(probe("comch_shm_a", "role=dpu,path=%s"));
	test_log_reset();
	CHECK(probe("comch_shm_b", "role=dpu,path=%s") < 0,
		"second DPU on the same socket accepted");
	CHECK(test_log_has("served by another live process"), "no reason logged");
	CHECK_OK(rte_vdev_uninit("comch_shm_a"));

	/* Stale: bound, never listening, owner gone. */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/pf0.sock", link_dir);
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK(s >= 0, "socket");
	CHECK_OK(bind(s, (struct sockaddr *)&sa, sizeof(sa)));
	close(s);
	CHECK_OK(probe("comch_shm_c", "role=dpu,path=%s"));
	CHECK_OK(rte_vdev_uninit("comch_shm_c"));
	return 0;
}

/*
 * The link folder must be this user's alone: another user who could
 * create or change it could swap the socket and receive a host's HELLO
 * and mailbox. The DPU refuses a folder with a looser mode or another
 * owner (and so does a host before it connects); one it creates is 0700,
 * and its socket 0600.
 */
static int
test_link_folder(void)
{
	struct rte_comch_client_conf cc = { .server_name = "x" };
	struct rte_comch_client *cli;
	char dir[128], sock[160];
	struct stat st;
	int16_t id;

	snprintf(dir, sizeof(dir), "%s/shared", link_dir);
	CHECK_OK(mkdir(dir, 0700));
	CHECK_OK(chmod(dir, 0777));
	test_log_reset();
	CHECK(probe("comch_shm_f", "role=dpu,path=%s/shared") < 0,
		"a 0777 folder accepted");
	CHECK(test_log_has("has mode 0777, looser than 0700"), "reason logged");
	CHECK_OK(chmod(dir, 0750));
	CHECK(probe("comch_shm_f", "role=dpu,path=%s/shared") < 0,
		"a 0750 folder accepted");
	CHECK_OK(chmod(dir, 0700));
	if (geteuid() == 0) { /* only root can give it away */
		CHECK_OK(chown(dir, 1, 1));
		test_log_reset();
		CHECK(probe("comch_shm_f", "role=dpu,path=%s/shared") < 0,
			"another user's folder accepted");
		CHECK(test_log_has("belongs to uid 1"), "reason logged");
		CHECK_OK(chown(dir, geteuid(), getegid()));
	}

	/* what the DPU makes: a 0700 folder (parents too), a 0600 socket */
	CHECK_OK(probe("comch_shm_f", "role=dpu,path=%s/shared/a/b"));
	snprintf(sock, sizeof(sock), "%s/a/b", dir);
	CHECK_OK(stat(sock, &st));
	CHECK_EQ(st.st_mode & 07777, 0700);
	snprintf(sock, sizeof(sock), "%s/a/b/pf0.sock", dir);
	CHECK_OK(stat(sock, &st));
	CHECK_EQ(st.st_mode & 07777, 0600);

	/* a host will not send its HELLO through a loose folder */
	CHECK_OK(probe("comch_shm_fh", "role=host,path=%s/shared/a/b"));
	id = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_fh");
	cli = rte_comch_client_create(id, &cc);
	CHECK(cli != NULL, "client");
	snprintf(sock, sizeof(sock), "%s/a/b", dir);
	CHECK_OK(chmod(sock, 0755));
	test_log_reset();
	CHECK_EQ(rte_comch_client_start(cli), -EPERM);
	CHECK(test_log_has("will not connect"), "reason logged");
	CHECK_OK(chmod(sock, 0700));
	/* nor to a socket that is not 0600 */
	snprintf(sock, sizeof(sock), "%s/a/b/pf0.sock", dir);
	CHECK_OK(chmod(sock, 0666));
	CHECK_EQ(rte_comch_client_start(cli), -EPERM);
	CHECK_OK(chmod(sock, 0600));
	CHECK_OK(rte_comch_client_start(cli));
	CHECK_OK(rte_comch_client_stop(cli));
	CHECK_OK(rte_comch_client_destroy(cli));
	CHECK_OK(rte_vdev_uninit("comch_shm_fh"));
	CHECK_OK(rte_vdev_uninit("comch_shm_f"));
	rmdir(sock);
	snprintf(sock, sizeof(sock), "%s/a/b", dir);
	rmdir(sock);
	snprintf(sock, sizeof(sock), "%s/a", dir);
	rmdir(sock);
	rmdir(dir);
	return 0;
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "good", test_good },
		{ "bad", test_bad },
		{ "socket_ownership", test_socket_ownership },
		{ "link_folder", test_link_folder },
	};
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "devargs", "0", NULL) < 0)
		return 1;
	if (test_mkdtemp(link_dir, sizeof(link_dir)) < 0)
		return 1;
	ret = test_run_cases("devargs", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
