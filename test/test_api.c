/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Bad input at every public function: NULL pointers, out-of-range device
 * ids, wrong states, oversize names and messages. Each must return the
 * error its documentation names (or NULL with that rte_errno), and never
 * crash.
 */

#include <linux/mempolicy.h>
#include <sys/syscall.h>

#include <rte_memory.h>

#include "comch_test.h"

static char link_dir[64];
static int16_t dpu, host;

#define EXPECT_NULL_ERRNO(expr, err) do { \
	rte_errno = 0; \
	CHECK((expr) == NULL, "%s not NULL", #expr); \
	CHECK_EQ(rte_errno, err); \
} while (0)

static int
test_devices(void)
{
	struct rte_comch_dev_info info;
	char buf[RTE_COMCH_FUNCTION_NAME_MAX];
	uint16_t func;
	static const int16_t bad[] = { -1, -32768, RTE_COMCH_MAX_DEVS, 32767, 7 };
	size_t i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		CHECK(!rte_comch_is_valid_dev(bad[i]), "dev %d valid", bad[i]);
		CHECK_EQ(rte_comch_info_get(bad[i], &info), -EINVAL);
		CHECK_EQ(rte_comch_function_name(bad[i], 0, buf, sizeof(buf)), -EINVAL);
		CHECK_EQ(rte_comch_function_get_by_name(bad[i], "pf0", &func), -EINVAL);
		EXPECT_NULL_ERRNO(rte_comch_mem_create(bad[i], 4096, SOCKET_ID_ANY),
			EINVAL);
		CHECK_EQ(rte_comch_conn_list(bad[i], NULL, 0), -EINVAL);
	}
	CHECK_EQ(rte_comch_conn_list(dpu, NULL, 1), -EINVAL);
	CHECK_EQ(rte_comch_conn_list(dpu, NULL, 0), 0);
	CHECK_EQ(rte_comch_info_get(dpu, NULL), -EINVAL);
	CHECK_EQ(rte_comch_function_name(dpu, 0, NULL, 16), -EINVAL);
	CHECK_EQ(rte_comch_function_name(dpu, 1, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(rte_comch_function_name(dpu, 0, buf, 2), -ENOSPC);
	CHECK_EQ(rte_comch_function_get_by_name(dpu, NULL, &func), -EINVAL);
	CHECK_EQ(rte_comch_function_get_by_name(dpu, "pf0", NULL), -EINVAL);
	CHECK_EQ(rte_comch_function_get_by_name(dpu, "", &func), -ENOENT);
	CHECK_EQ(rte_comch_get_dev_id_by_name(NULL), -EINVAL);
	CHECK_EQ(rte_comch_get_dev_id_by_name(""), -ENODEV);
	CHECK_EQ(rte_comch_next_dev(RTE_COMCH_MAX_DEVS), -1);
	CHECK_EQ(rte_comch_next_dev(-5), rte_comch_next_dev(0));
	CHECK(strcmp(rte_comch_state_name((enum rte_comch_state)-1), "?") == 0,
		"state name");
	/* devargs: the two devices of test_link_pair() (rte_vdev_init());
	 * one that failed to probe leaves nothing behind */
	CHECK_EQ(rte_comch_devargs_check(NULL, 0), 2);
	CHECK(rte_vdev_init("comch_shm_api_bad", "role=bogus") < 0, "bad vdev");
	CHECK_EQ(rte_comch_devargs_check(NULL, 0), 2);
	{
		char hint[256];
		char *none[] = { (char *)(uintptr_t)"prog",
			(char *)(uintptr_t)"--vdev=net_null0", NULL };
		char *split[] = { (char *)(uintptr_t)"prog",
			(char *)(uintptr_t)"--vdev",
			(char *)(uintptr_t)"comch_shm7,role=dpu", NULL };

		CHECK_EQ(rte_comch_devargs_hint(2, none, NULL, 0), -EINVAL);
		CHECK_EQ(rte_comch_devargs_hint(2, none, hint, sizeof(hint)), 0);
		CHECK_EQ(hint[0], '\0');
		CHECK_EQ(rte_comch_devargs_hint(3, split, hint, sizeof(hint)), 1);
		CHECK(strstr(hint, "role=dpu") == NULL &&
		      strstr(hint, "comch_shm7") != NULL &&
		      strstr(hint, "--no-as-needed") != NULL &&
		      strstr(hint, "-d ") != NULL, "hint: %s", hint);
		CHECK_EQ(rte_comch_devargs_hint(2, split, hint, sizeof(hint)), 0);
	}
	EXPECT_NULL_ERRNO(rte_comch_mem_create(dpu, 0, SOCKET_ID_ANY), EINVAL);
	EXPECT_NULL_ERRNO(rte_comch_mem_create(dpu, (size_t)1 << 62,
			SOCKET_ID_ANY), ERANGE);
	return 0;
}

static int
test_null_objects(void)
{
	struct rte_comch_conn_stats st;
	struct rte_comch_msg m;
	int err = 1;

	/* Constructors */
	EXPECT_NULL_ERRNO(rte_comch_server_create(dpu, NULL), EINVAL);
	EXPECT_NULL_ERRNO(rte_comch_client_create(host, NULL), EINVAL);
	EXPECT_NULL_ERRNO(rte_comch_consumer_create(NULL, NULL), EINVAL);
	EXPECT_NULL_ERRNO(rte_comch_producer_create(NULL, NULL), EINVAL);
	/* Servers */
	CHECK_EQ(rte_comch_server_start(NULL), -EINVAL);
	CHECK_EQ(rte_comch_server_stop(NULL), -EINVAL);
	CHECK_EQ(rte_comch_server_destroy(NULL), 0);
	CHECK_EQ(rte_comch_server_poll(NULL), -EINVAL);
	CHECK_EQ(rte_comch_server_disconnect(NULL, NULL), -EINVAL);
	CHECK_EQ(rte_comch_server_state(NULL), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(rte_comch_server_conn_count(NULL), 0);
	/* Clients */
	CHECK_EQ(rte_comch_client_start(NULL), -EINVAL);
	CHECK_EQ(rte_comch_client_stop(NULL), -EINVAL);
	CHECK_EQ(rte_comch_client_destroy(NULL), 0);
	CHECK_EQ(rte_comch_client_poll(NULL), -EINVAL);
	CHECK_EQ(rte_comch_client_state(NULL, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, 0);
	CHECK(rte_comch_client_conn(NULL) == NULL, "conn of NULL");
	/* Connections */
	CHECK_EQ(rte_comch_conn_user_data_set(NULL, 1), -EINVAL);
	CHECK_EQ(rte_comch_conn_user_data_get(NULL), 0);
	CHECK_EQ(rte_comch_conn_id(NULL), UINT32_MAX);
	CHECK_EQ(rte_comch_conn_max_msg_size(NULL), 0);
	CHECK_EQ(rte_comch_conn_stats_get(NULL, &st), -EINVAL);
	CHECK_EQ(rte_comch_conn_stats_reset(NULL), -EINVAL);
	CHECK_EQ(rte_comch_msg_send(NULL, "x", 1), -EINVAL);
	CHECK_EQ(rte_comch_msg_recv_burst(NULL, &m, 1), -EINVAL);
	CHECK_EQ(rte_comch_conn_remote_consumers(NULL, NULL, 0), -EINVAL);
	CHECK_EQ(rte_comch_conn_detach(NULL), -EINVAL);
	/* Fast-path objects */
	CHECK_EQ(rte_comch_consumer_start(NULL), -EINVAL);
	CHECK_EQ(rte_comch_consumer_stop(NULL), -EINVAL);
	CHECK_EQ(rte_comch_consumer_destroy(NULL), 0);
	CHECK_EQ(rte_comch_consumer_id(NULL), UINT32_MAX);
	CHECK_EQ(rte_comch_consumer_state(NULL), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(rte_comch_producer_start(NULL), -EINVAL);
	CHECK_EQ(rte_comch_producer_stop(NULL), -EINVAL);
	CHECK_EQ(rte_comch_producer_destroy(NULL), 0);
	CHECK_EQ(rte_comch_producer_id(NULL), UINT32_MAX);
	CHECK_EQ(rte_comch_producer_state(NULL), RTE_COMCH_STATE_IDLE);
	CHECK(rte_comch_mem_addr(NULL) == NULL && rte_comch_mem_size(NULL) == 0,
		"mem of NULL");
	CHECK_EQ(rte_comch_mem_destroy(NULL), 0);
	return 0;
}

static struct rte_comch_conn *api_dpu_conn;

static void
api_on_connect(struct rte_comch_server *s __rte_unused,
		struct rte_comch_conn *c, void *a __rte_unused)
{
	api_dpu_conn = c;
}

/* Wrong states and limits on live objects. */
static int
test_states_and_limits(void)
{
	struct rte_comch_server_conf sc = { .name = "api",
		.connect_cb = api_on_connect };
	struct rte_comch_client_conf cc = { .server_name = "api" };
	struct rte_comch_consumer_conf kc = { 0 };
	struct rte_comch_server *srv;
	struct rte_comch_client *cli, *other;
	struct rte_comch_conn *conn;
	struct rte_comch_mem *mem, *host_mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	struct rte_comch_msg m;
	static char big[8192];
	uint64_t dl;
	int err;

	srv = rte_comch_server_create(dpu, &sc);
	cli = rte_comch_client_create(host, &cc);
	CHECK(srv && cli, "objects");
	/* not started: nothing to send on, nothing to poll */
	CHECK_EQ(rte_comch_server_poll(srv), 0);
	CHECK_EQ(rte_comch_client_poll(cli), 0);
	CHECK_EQ(rte_comch_server_stop(srv), -EBUSY);
	CHECK_EQ(rte_comch_client_stop(cli), -EBUSY);
	CHECK_OK(rte_comch_server_start(srv));
	CHECK_OK(rte_comch_client_start(cli));
	dl = test_deadline(TEST_GUARD_S);
	while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING &&
	       !test_expired(dl)) {
		rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
	}
	conn = rte_comch_client_conn(cli);
	CHECK(conn != NULL, "connection");

	/* messages */
	CHECK_EQ(rte_comch_msg_send(conn, big, 4081), -EMSGSIZE);
	CHECK_EQ(rte_comch_msg_send(conn, big, UINT32_MAX), -EMSGSIZE);
	CHECK_EQ(rte_comch_msg_send(conn, NULL, 5), -EINVAL);
	CHECK_EQ(rte_comch_msg_recv_burst(conn, NULL, 1), -EINVAL);
	CHECK_EQ(rte_comch_msg_recv_burst(conn, &m, 0), 0);
	CHECK_EQ(rte_comch_conn_remote_consumers(conn, NULL, 1), -EINVAL);
	CHECK_EQ(rte_comch_conn_remote_consumers(conn, NULL, 0), 0);

	/* the primary's connections: listed; attaching is for secondaries */
	{
		uint32_t ids[4] = { UINT32_MAX, UINT32_MAX };

		CHECK_EQ(rte_comch_conn_list(host, ids, 4), 1);
		CHECK_EQ(ids[0], rte_comch_conn_id(conn));
		/* each side lists its own end (ids are per device) */
		CHECK(api_dpu_conn != NULL, "the server's connection");
		CHECK_EQ(rte_comch_conn_list(dpu, ids, 1), 1);
		CHECK_EQ(ids[0], rte_comch_conn_id(api_dpu_conn));
		CHECK_EQ(rte_comch_conn_list(host, ids, 0), 1);
		EXPECT_NULL_ERRNO(rte_comch_conn_attach(host,
				rte_comch_conn_id(conn)), ENOTSUP);
		CHECK_EQ(rte_comch_conn_detach(conn), -ENOTSUP);
	}

	/* another server's connection */
	other = rte_comch_client_create(host, &cc);
	CHECK(other != NULL, "client");
	CHECK_EQ(rte_comch_server_disconnect(srv, conn), -EINVAL);

	/* fast-path objects: bad configurations */
	mem = rte_comch_mem_create(dpu, 4096, SOCKET_ID_ANY);
	host_mem = rte_comch_mem_create(host, 4096, SOCKET_ID_ANY);
	CHECK(mem && host_mem, "mem");
	CHECK_EQ(rte_comch_mem_size(mem), 4096);
	EXPECT_NULL_ERRNO(rte_comch_consumer_create(conn, &kc), EINVAL);
	kc.mem = mem; /* the DPU's memory on a host connection */
	EXPECT_NULL_ERRNO(rte_comch_consumer_create(conn, &kc), EINVAL);
	kc.mem = host_mem;
	kc.nb_posts = 8193;
	EXPECT_NULL_ERRNO(rte_comch_consumer_create(conn, &kc), ERANGE);
	kc.nb_posts = 0;
	kc.max_imm_len = 33;
	EXPECT_NULL_ERRNO(rte_comch_consumer_create(conn, &kc), ERANGE);
	kc.max_imm_len = 0;
	cons = rte_comch_consumer_create(conn, &kc);
	prod = rte_comch_producer_create(conn, NULL);
	CHECK(cons && prod, "fast-path objects");
	/* idle: no fast path yet, no stop */
	CHECK_EQ(rte_comch_consumer_post_burst(cons, (void *[]){ NULL },
			(uint32_t[]){ 0 }, 1), -EBUSY);
	CHECK_EQ(rte_comch_producer_send_burst(prod, 0,
			&(struct rte_comch_send_op){ 0 }, 1), -EBUSY);
	CHECK_EQ(rte_comch_consumer_stop(cons), -EBUSY);
	CHECK_EQ(rte_comch_producer_stop(prod), -EBUSY);
	CHECK_EQ(rte_comch_mem_destroy(host_mem), -EBUSY);
	CHECK_OK(rte_comch_producer_start(prod));
	CHECK_EQ(rte_comch_producer_start(prod), -EBUSY);
	CHECK_EQ(rte_comch_producer_destroy(prod), -EBUSY);
	/* 0 is never an id; an id above every announced one is "again". */
	CHECK_EQ(rte_comch_producer_send_burst(prod, 0,
			&(struct rte_comch_send_op){ 0 }, 1), -ENOENT);
	CHECK_EQ(rte_comch_producer_send_burst(prod, 300,
			&(struct rte_comch_send_op){ 0 }, 1), 0);
	CHECK_EQ(rte_comch_client_stop(cli), -EBUSY);
	CHECK_OK(rte_comch_producer_stop(prod));
	CHECK_OK(rte_comch_producer_destroy(prod));
	CHECK_OK(rte_comch_consumer_destroy(cons));
	CHECK_OK(rte_comch_mem_destroy(host_mem));
	CHECK_OK(rte_comch_mem_destroy(mem));

	/* 257 producers on one connection: the last is refused */
	{
		static struct rte_comch_producer *p[257];
		int i;

		for (i = 0; i < 256; i++) {
			p[i] = rte_comch_producer_create(conn, NULL);
			CHECK(p[i] != NULL, "producer %d", i);
		}
		EXPECT_NULL_ERRNO(rte_comch_producer_create(conn, NULL), ENOSPC);
		for (i = 0; i < 256; i++)
			CHECK_OK(rte_comch_producer_destroy(p[i]));
	}

	CHECK_OK(rte_comch_client_stop(cli));
	/* a stopped client's connection is gone: objects cannot be made */
	CHECK(rte_comch_client_conn(cli) == NULL, "connection after stop");
	CHECK_OK(rte_comch_client_destroy(cli));
	CHECK_OK(rte_comch_client_destroy(other));
	CHECK_OK(rte_comch_server_stop(srv));
	CHECK_OK(rte_comch_server_destroy(srv));
	return 0;
}

/* The NUMA policy of the page at @p addr: the mode, and the nodes in
 * *@p nodes. */
static int
mem_policy(void *addr, unsigned long *nodes)
{
	int mode = -1;

	*nodes = 0;
	if (syscall(__NR_get_mempolicy, &mode, nodes, 8 * sizeof(*nodes), addr,
			MPOL_F_ADDR) < 0)
		return -errno;
	return mode;
}

/* Registered memory goes where it is asked to: on a socket (preferred,
 * so a full node falls back rather than fails), or where it is first
 * touched; a socket the machine does not have is refused. */
static int
test_mem_socket(void)
{
	int socket = rte_socket_id_by_idx(0);
	struct rte_comch_mem *on, *any;
	unsigned long nodes;

	on = rte_comch_mem_create(host, 8192, socket);
	any = rte_comch_mem_create(host, 8192, SOCKET_ID_ANY);
	CHECK(on != NULL && any != NULL, "mem: %s", rte_strerror(rte_errno));
	CHECK_EQ(mem_policy(rte_comch_mem_addr(on), &nodes), MPOL_PREFERRED);
	CHECK_EQ(nodes, 1UL << socket);
	CHECK_EQ(mem_policy(rte_comch_mem_addr(any), &nodes), MPOL_DEFAULT);
	CHECK_OK(rte_comch_mem_destroy(on));
	CHECK_OK(rte_comch_mem_destroy(any));
	EXPECT_NULL_ERRNO(rte_comch_mem_create(host, 8192, 1000), EINVAL);
	EXPECT_NULL_ERRNO(rte_comch_mem_create(host, 8192, -7), EINVAL);
	return 0;
}

/* The fast path's argument checks, compiled in a debug build
 * (-DRTE_COMCH_DEBUG: the sanitizer build of devtools/test.sh): NULL
 * objects and arrays, and an object naming no device slot. */
static int
test_fast_path_debug(void)
{
#ifdef RTE_COMCH_DEBUG
	struct rte_comch_fp_obj bad = { .dev_id = RTE_COMCH_MAX_DEVS };
	struct rte_comch_send_op op = { 0 };
	struct rte_comch_sendv_op vop = { 0 };
	struct rte_comch_completion cpl;
	void *buf = NULL;
	uint32_t len = 0;

	CHECK_EQ(rte_comch_producer_send_burst(NULL, 1, &op, 1), -EINVAL);
	CHECK_EQ(rte_comch_producer_send_burst(
		(struct rte_comch_producer *)&bad, 1, NULL, 1), -EINVAL);
	CHECK_EQ(rte_comch_producer_send_burst(
		(struct rte_comch_producer *)&bad, 1, &op, 1), -ENODEV);
	CHECK_EQ(rte_comch_producer_sendv_burst(NULL, 1, &vop, 1), -EINVAL);
	CHECK_EQ(rte_comch_producer_sendv_burst(
		(struct rte_comch_producer *)&bad, 1, NULL, 1), -EINVAL);
	CHECK_EQ(rte_comch_producer_sendv_burst(
		(struct rte_comch_producer *)&bad, 1, &vop, 1), -ENODEV);
	CHECK_EQ(rte_comch_consumer_post_burst(NULL, &buf, &len, 1), -EINVAL);
	CHECK_EQ(rte_comch_consumer_post_burst(
		(struct rte_comch_consumer *)&bad, &buf, &len, 1), -ENODEV);
	CHECK_EQ(rte_comch_consumer_poll_burst(NULL, &cpl, 1), -EINVAL);
	CHECK_EQ(rte_comch_consumer_poll_burst(
		(struct rte_comch_consumer *)&bad, &cpl, 1), -ENODEV);
#else
	printf("    (not a debug build: -DRTE_COMCH_DEBUG compiles these)\n");
#endif
	return 0;
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "devices", test_devices },
		{ "null_objects", test_null_objects },
		{ "states_and_limits", test_states_and_limits },
		{ "mem_socket", test_mem_socket },
		{ "fast_path_debug", test_fast_path_debug },
	};
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "api", "0", NULL) < 0 ||
	    test_link_pair(link_dir, sizeof(link_dir), &dpu, &host) < 0)
		return 1;
	ret = test_run_cases("api", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
