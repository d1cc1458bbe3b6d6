/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Control path in one process: a DPU-role device serving pf0 and pf0vf1 and
 * host-role devices attached as pf0, pf0vf1 and pf1 (which nobody serves),
 * all over one link folder. Capabilities, name rules, states, connection
 * rules, messages, backpressure, statistics, and teardown notifications.
 */

#include "comch_test.h"

static char link_dir[64];
static int16_t dpu, host_pf0, host_vf1, host_pf1;

/* ------------------------------------------------------------- helpers */

struct events {
	unsigned int connects, disconnects, msgs;
	int last_err;
	struct rte_comch_conn *conn;
	struct rte_comch_server *srv;
	int disconnect_in_cb_at;     /* release the connection at msg N */
	uint32_t seq_expected;
	int order_broken;
};

static void
ev_connect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		void *arg)
{
	struct events *e = arg;

	e->srv = srv;
	e->connects++;
	e->conn = conn;
}

static void
ev_disconnect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, int err, void *arg)
{
	struct events *e = arg;

	e->disconnects++;
	e->last_err = err;
	e->conn = conn;
}

static void
ev_msg(struct rte_comch_conn *conn, const struct rte_comch_msg *msg,
		void *arg)
{
	struct events *e = arg;
	uint32_t seq;

	e->msgs++;
	if (msg->len == sizeof(seq)) {
		memcpy(&seq, msg->data, sizeof(seq));
		if (seq != e->seq_expected)
			e->order_broken++;
		e->seq_expected = seq + 1;
	}
	if (e->disconnect_in_cb_at != 0 &&
	    e->msgs == (unsigned int)e->disconnect_in_cb_at)
		rte_comch_server_disconnect(e->srv, conn);
}

static struct rte_comch_server *
make_server(const char *name, uint16_t func, uint32_t max_msg, uint32_t rq,
		struct events *e, bool with_msg_cb)
{
	struct rte_comch_server_conf conf = {
		.function_id = func, .name = name, .max_msg_size = max_msg,
		.recv_queue_len = rq, .connect_cb = ev_connect,
		.disconnect_cb = ev_disconnect,
		.msg_cb = with_msg_cb ? ev_msg : NULL, .cb_arg = e,
	};
	struct rte_comch_server *srv = rte_comch_server_create(dpu, &conf);

	if (srv == NULL) {
		printf("  server_create %s: %s\n", name, rte_strerror(rte_errno));
		return NULL;
	}
	if (rte_comch_server_start(srv) != 0) {
		rte_comch_server_destroy(srv);
		return NULL;
	}
	return srv;
}

static struct rte_comch_client *
make_client(int16_t dev, const char *name, uint32_t max_msg, uint32_t rq)
{
	struct rte_comch_client_conf conf = {
		.server_name = name, .max_msg_size = max_msg,
		.recv_queue_len = rq,
	};

	return rte_comch_client_create(dev, &conf);
}

/* Start @p cli and poll both ends until it leaves "starting". Returns the
 * client's state; *err gets its last error. */
static enum rte_comch_state
connect_client(struct rte_comch_client *cli, struct rte_comch_server *srv,
		int *err)
{
	uint64_t deadline = test_deadline(TEST_GUARD_S);
	enum rte_comch_state st;

	if (rte_comch_client_start(cli) != 0)
		return RTE_COMCH_STATE_IDLE;
	do {
		if (srv != NULL)
			rte_comch_server_poll(srv);
		rte_comch_client_poll(cli);
		st = rte_comch_client_state(cli, err);
	} while (st == RTE_COMCH_STATE_STARTING && !test_expired(deadline));
	/* Let the server report the connection. */
	if (srv != NULL)
		rte_comch_server_poll(srv);
	return st;
}

/* Poll a client until it leaves "running" (failure guard TEST_GUARD_S). */
static void
poll_client_while_running(struct rte_comch_client *cli)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);

	while (rte_comch_client_state(cli, NULL) == RTE_COMCH_STATE_RUNNING &&
	       !test_expired(dl))
		rte_comch_client_poll(cli);
}

/* Poll the server until @p cond holds (failure guard TEST_GUARD_S). */
#define POLL_SERVER_UNTIL(srv, cli, cond) do { \
	uint64_t dl_ = test_deadline(TEST_GUARD_S); \
	while (!(cond) && !test_expired(dl_)) { \
		rte_comch_server_poll(srv); \
		if ((cli) != NULL) \
			rte_comch_client_poll(cli); \
	} \
	CHECK(cond, "timed out waiting for %s", #cond); \
} while (0)

static void
teardown(struct rte_comch_client *cli, struct rte_comch_server *srv)
{
	if (cli != NULL) {
		if (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(cli);
		rte_comch_client_destroy(cli);
	}
	if (srv != NULL) {
		if (rte_comch_server_state(srv) != RTE_COMCH_STATE_IDLE)
			rte_comch_server_stop(srv);
		rte_comch_server_destroy(srv);
	}
}

/* --------------------------------------------------------------- cases */

static int
test_caps(void)
{
	struct rte_comch_dev_info info;
	char func[RTE_COMCH_FUNCTION_NAME_MAX];
	uint16_t function_id;

	CHECK_OK(rte_comch_info_get(dpu, &info));
	CHECK_EQ(info.role, RTE_COMCH_ROLE_DPU);
	CHECK(info.caps.flags & RTE_COMCH_CAPA_SERVER, "no server cap");
	CHECK(!(info.caps.flags & RTE_COMCH_CAPA_CLIENT), "client cap on DPU");
	CHECK_EQ(info.nb_functions, 2);
	CHECK_EQ(info.caps.max_name_len, 64);
	CHECK_EQ(info.caps.max_msg_size, 4080);
	CHECK(info.caps.default_msg_size >= 1 &&
	      info.caps.default_msg_size <= info.caps.max_msg_size, "default msg");
	CHECK_EQ(info.caps.max_recv_queue_len, 8192);
	CHECK(info.caps.default_recv_queue_len >= 1 &&
	      info.caps.default_recv_queue_len <= info.caps.max_recv_queue_len,
	      "default recv queue");
	/* the max_conns quota of the device (a server serves one function) */
	CHECK_EQ(info.caps.max_clients, 64);
	CHECK(strcmp(info.dev_name, "comch_shm_dpu") == 0, "%s", info.dev_name);
	CHECK_OK(rte_comch_function_name(dpu, 1, func, sizeof(func)));
	CHECK(strcmp(func, "pf0vf1") == 0, "func 1 is %s", func);
	CHECK_EQ(rte_comch_function_name(dpu, 2, func, sizeof(func)), -EINVAL);
	CHECK_EQ(rte_comch_function_name(dpu, 1, func, 3), -ENOSPC);
	CHECK_OK(rte_comch_function_get_by_name(dpu, "pf0vf1", &function_id));
	CHECK_EQ(function_id, 1);
	CHECK_EQ(rte_comch_function_get_by_name(dpu, "pf9", &function_id), -ENOENT);

	CHECK_OK(rte_comch_info_get(host_vf1, &info));
	CHECK_EQ(info.role, RTE_COMCH_ROLE_HOST);
	CHECK(info.caps.flags & RTE_COMCH_CAPA_CLIENT, "no client cap");
	CHECK(!(info.caps.flags & RTE_COMCH_CAPA_SERVER), "server cap on host");
	CHECK_EQ(info.nb_functions, 1);
	CHECK_OK(rte_comch_function_name(host_vf1, 0, func, sizeof(func)));
	CHECK(strcmp(func, "pf0vf1") == 0, "host attached as %s", func);

	CHECK_EQ(rte_comch_info_get(-1, &info), -EINVAL);
	CHECK_EQ(rte_comch_info_get(RTE_COMCH_MAX_DEVS, &info), -EINVAL);
	CHECK_EQ(rte_comch_info_get(dpu, NULL), -EINVAL);
	CHECK_EQ(rte_comch_dev_count(), 4);
	CHECK(rte_comch_is_valid_dev(dpu) && !rte_comch_is_valid_dev(-1),
		"is_valid_dev");
	CHECK_EQ(rte_comch_get_dev_id_by_name("comch_shm_nope"), -ENODEV);
	CHECK_EQ(rte_comch_get_dev_id_by_name(NULL), -EINVAL);
	return 0;
}

static int
test_names(void)
{
	char name63[64], name64[65];
	struct rte_comch_server_conf sc = { .name = name63 };
	struct rte_comch_client_conf cc = { .server_name = name64 };
	struct rte_comch_server *a, *b, *c;

	memset(name63, 'n', 63);
	name63[63] = '\0';
	memset(name64, 'n', 64);
	name64[64] = '\0';

	a = rte_comch_server_create(dpu, &sc);
	CHECK(a != NULL, "63-char name refused: %s", rte_strerror(rte_errno));
	b = rte_comch_server_create(dpu, &sc);
	CHECK(b == NULL && rte_errno == EEXIST, "duplicate on the same func");
	sc.function_id = 1;
	c = rte_comch_server_create(dpu, &sc);
	CHECK(c != NULL, "same name on another func refused");
	CHECK_OK(rte_comch_server_destroy(c));
	CHECK_OK(rte_comch_server_destroy(a));
	/* After destroy the name is free again. */
	sc.function_id = 0;
	a = rte_comch_server_create(dpu, &sc);
	CHECK(a != NULL, "name not reusable after destroy");
	CHECK_OK(rte_comch_server_destroy(a));

	sc.name = name64;
	CHECK(rte_comch_server_create(dpu, &sc) == NULL &&
	      rte_errno == ENAMETOOLONG, "64-char server name accepted");
	sc.name = "";
	CHECK(rte_comch_server_create(dpu, &sc) == NULL && rte_errno == EINVAL,
		"empty name");
	sc.name = NULL;
	CHECK(rte_comch_server_create(dpu, &sc) == NULL && rte_errno == EINVAL,
		"NULL name");
	sc.name = "ok";
	sc.function_id = 2;
	CHECK(rte_comch_server_create(dpu, &sc) == NULL && rte_errno == EINVAL,
		"func beyond the device");
	sc.function_id = 0;
	sc.max_msg_size = 4081;
	CHECK(rte_comch_server_create(dpu, &sc) == NULL && rte_errno == ERANGE,
		"max_msg_size beyond cap");
	sc.max_msg_size = 0;
	sc.recv_queue_len = 8193;
	CHECK(rte_comch_server_create(dpu, &sc) == NULL && rte_errno == ERANGE,
		"recv_queue_len beyond cap");
	sc.recv_queue_len = 0;
	CHECK(rte_comch_server_create(host_pf0, &sc) == NULL &&
	      rte_errno == ENOTSUP, "server on a host device");
	CHECK(rte_comch_server_create(dpu, NULL) == NULL && rte_errno == EINVAL,
		"NULL conf");
	CHECK(rte_comch_server_create(-1, &sc) == NULL && rte_errno == EINVAL,
		"bad device");

	CHECK(rte_comch_client_create(host_pf0, &cc) == NULL &&
	      rte_errno == ENAMETOOLONG, "64-char client name accepted");
	cc.server_name = "ok";
	CHECK(rte_comch_client_create(dpu, &cc) == NULL && rte_errno == ENOTSUP,
		"client on a DPU device");
	cc.max_msg_size = 5000;
	CHECK(rte_comch_client_create(host_pf0, &cc) == NULL &&
	      rte_errno == ERANGE, "client max_msg_size beyond cap");
	return 0;
}

static int
test_states(void)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct events e = { 0 };
	int err;

	srv = make_server("states", 0, 0, 0, &e, false);
	CHECK(srv != NULL, "server");
	CHECK_EQ(rte_comch_server_state(srv), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(rte_comch_server_start(srv), -EBUSY);
	CHECK_EQ(rte_comch_server_destroy(srv), -EBUSY);
	CHECK_OK(rte_comch_server_stop(srv));
	CHECK_EQ(rte_comch_server_state(srv), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(rte_comch_server_stop(srv), -EBUSY);
	CHECK_OK(rte_comch_server_start(srv));   /* restartable */
	CHECK_OK(rte_comch_server_stop(srv));
	CHECK_OK(rte_comch_server_destroy(srv));
	CHECK_OK(rte_comch_server_destroy(NULL));
	CHECK_EQ(rte_comch_server_start(NULL), -EINVAL);
	CHECK_EQ(rte_comch_server_poll(NULL), -EINVAL);

	cli = make_client(host_pf0, "states", 0, 0);
	CHECK(cli != NULL, "client");
	CHECK_EQ(rte_comch_client_state(cli, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(rte_comch_client_stop(cli), -EBUSY);
	CHECK(rte_comch_client_conn(cli) == NULL, "idle client has a connection");
	CHECK_OK(rte_comch_client_start(cli));
	CHECK_EQ(rte_comch_client_state(cli, NULL), RTE_COMCH_STATE_STARTING);
	CHECK_EQ(rte_comch_client_start(cli), -EBUSY);
	CHECK_EQ(rte_comch_client_destroy(cli), -EBUSY);
	CHECK_OK(rte_comch_client_stop(cli));     /* starting -> idle */
	CHECK_EQ(rte_comch_client_state(cli, NULL), RTE_COMCH_STATE_IDLE);
	CHECK_OK(rte_comch_client_destroy(cli));
	CHECK_EQ(rte_comch_client_start(NULL), -EINVAL);
	return 0;
}

/* A client started before its server exists is told, and can retry. */
static int
test_client_before_server(void)
{
	struct rte_comch_client *cli = make_client(host_pf0, "late", 0, 0);
	struct rte_comch_server *srv;
	struct events e = { 0 };
	int err;

	CHECK(cli != NULL, "client");
	CHECK_EQ(connect_client(cli, NULL, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, -ENOENT);
	srv = make_server("late", 0, 0, 0, &e, false);
	CHECK(srv != NULL, "server");
	CHECK_EQ(connect_client(cli, srv, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(err, 0);
	CHECK_EQ(e.connects, 1);
	CHECK_EQ(rte_comch_server_conn_count(srv), 1);
	CHECK(rte_comch_client_conn(cli) != NULL, "no connection");
	teardown(cli, srv);
	return 0;
}

/* A host attached as function X reaches only servers on func X. */
static int
test_functions(void)
{
	struct rte_comch_client *c_pf0, *c_vf1, *c_pf1;
	struct rte_comch_server *srv;
	struct events e = { 0 };
	int err;

	srv = make_server("vf1-only", 1, 0, 0, &e, false);
	CHECK(srv != NULL, "server on pf0vf1");
	c_pf0 = make_client(host_pf0, "vf1-only", 0, 0);
	c_vf1 = make_client(host_vf1, "vf1-only", 0, 0);
	c_pf1 = make_client(host_pf1, "vf1-only", 0, 0);
	CHECK(c_pf0 && c_vf1 && c_pf1, "clients");

	CHECK_EQ(connect_client(c_pf0, srv, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, -ENOENT);
	CHECK_EQ(connect_client(c_pf1, srv, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, -ECONNREFUSED);
	CHECK_EQ(e.connects, 0);
	CHECK_EQ(connect_client(c_vf1, srv, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(e.connects, 1);
	teardown(c_pf0, NULL);
	teardown(c_pf1, NULL);
	teardown(c_vf1, srv);
	return 0;
}

static int
test_msg_size_mismatch(void)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct events e = { 0 };
	int err;

	srv = make_server("mismatch", 0, 1024, 0, &e, false);
	cli = make_client(host_pf0, "mismatch", 2048, 0);
	CHECK(srv != NULL && cli != NULL, "objects");
	test_log_reset();
	CHECK_EQ(connect_client(cli, srv, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, -EPROTO);
	CHECK_EQ(e.connects, 0);
	/* Logged on both sides: the DPU says what the client asked for, the
	 * host says what the server answered. */
	CHECK(test_log_has("refused a client on pf0: max_msg_size mismatch: client 2048, server \"mismatch\" uses 1024"),
		"DPU side did not log the reason");
	CHECK(test_log_has("refused the connection: max_msg_size mismatch: client 2048"),
		"host side did not log the reason");
	teardown(cli, srv);
	return 0;
}

/* Open a server + client pair in burst mode. */
static int
open_pair(const char *name, uint32_t srv_rq, uint32_t cli_rq,
		struct events *e, bool msg_cb, struct rte_comch_server **srv,
		struct rte_comch_client **cli)
{
	int err;

	*srv = make_server(name, 0, 0, srv_rq, e, msg_cb);
	*cli = make_client(host_pf0, name, 0, cli_rq);
	CHECK(*srv != NULL && *cli != NULL, "objects");
	CHECK_EQ(connect_client(*cli, *srv, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(e->connects, 1);
	return 0;
}

static int
test_backpressure(void)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *cc, *sconn;
	struct rte_comch_conn_stats st;
	struct rte_comch_msg msgs[64];
	struct events e = { 0 };
	uint32_t i, v;
	int n;

	CHECK_OK(open_pair("bp", 16, 8, &e, false, &srv, &cli));
	cc = rte_comch_client_conn(cli);
	sconn = e.conn;

	/* Exactly the server's queue depth is accepted, then "again". */
	for (i = 0; i < 16; i++)
		CHECK_OK(rte_comch_msg_send(cc, &i, sizeof(i)));
	CHECK_EQ(rte_comch_msg_send(cc, &i, sizeof(i)), -EAGAIN);
	CHECK_EQ(rte_comch_msg_send(cc, &i, sizeof(i)), -EAGAIN);
	CHECK_OK(rte_comch_conn_stats_get(cc, &st));
	CHECK_EQ(st.msgs_sent, 16);
	CHECK_EQ(st.msgs_in_flight, 16);

	n = rte_comch_msg_recv_burst(sconn, msgs, 5);
	CHECK_EQ(n, 5);
	for (i = 0; i < 5; i++) {
		memcpy(&v, msgs[i].data, sizeof(v));
		CHECK_EQ(v, i);
	}
	/* Confirmed only at the next receive call (the application may
	 * still be handling them): no room yet. */
	CHECK_OK(rte_comch_conn_stats_get(cc, &st));
	CHECK_EQ(st.msgs_in_flight, 16);
	CHECK_EQ(rte_comch_msg_send(cc, &i, sizeof(i)), -EAGAIN);
	n = rte_comch_msg_recv_burst(sconn, msgs, 64);
	CHECK_EQ(n, 11);
	CHECK_OK(rte_comch_conn_stats_get(cc, &st));
	CHECK_EQ(st.msgs_in_flight, 11);
	/* The 5 confirmed make room for exactly 5 more. */
	for (i = 16; i < 21; i++)
		CHECK_OK(rte_comch_msg_send(cc, &i, sizeof(i)));
	CHECK_EQ(rte_comch_msg_send(cc, &i, sizeof(i)), -EAGAIN);
	n = rte_comch_msg_recv_burst(sconn, msgs, 64);
	CHECK_EQ(n, 5);
	for (i = 0; i < 5; i++) {
		memcpy(&v, msgs[i].data, sizeof(v));
		CHECK_EQ(v, 16 + i);
	}
	CHECK_EQ(rte_comch_msg_recv_burst(sconn, msgs, 64), 0);
	CHECK_OK(rte_comch_conn_stats_get(cc, &st));
	CHECK_EQ(st.msgs_in_flight, 0);
	CHECK_EQ(st.msgs_sent, 21);

	/* Other direction: the client's queue of 8. */
	for (i = 0; i < 8; i++)
		CHECK_OK(rte_comch_msg_send(sconn, &i, sizeof(i)));
	CHECK_EQ(rte_comch_msg_send(sconn, &i, sizeof(i)), -EAGAIN);
	CHECK_EQ(rte_comch_msg_recv_burst(cc, msgs, 64), 8);
	CHECK_EQ(rte_comch_msg_recv_burst(cc, msgs, 64), 0);
	CHECK_OK(rte_comch_msg_send(sconn, &i, sizeof(i)));
	teardown(cli, srv);
	return 0;
}

static int
test_sizes_and_stats(void)
{
	static uint8_t big[4081];
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *cc, *sconn;
	struct rte_comch_conn_stats st;
	struct rte_comch_msg m;
	struct events e = { 0 };
	static const uint32_t sizes[] = { 0, 1, 63, 64, 65, 1000, 4079, 4080 };
	uint64_t bytes = 0;
	size_t i, k;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 3);
	CHECK_OK(open_pair("sizes", 0, 0, &e, false, &srv, &cli));
	cc = rte_comch_client_conn(cli);
	sconn = e.conn;
	CHECK_EQ(rte_comch_conn_max_msg_size(cc), 4080);

	for (i = 0; i < RTE_DIM(sizes); i++) {
		CHECK_OK(rte_comch_msg_send(cc, big, sizes[i]));
		bytes += sizes[i];
		CHECK_EQ(rte_comch_msg_recv_burst(sconn, &m, 1), 1);
		CHECK_EQ(m.len, sizes[i]);
		CHECK(memcmp(m.data, big, sizes[i]) == 0, "content of %u bytes",
			sizes[i]);
	}
	CHECK_EQ(rte_comch_msg_send(cc, big, 4081), -EMSGSIZE);
	CHECK_EQ(rte_comch_msg_send(cc, NULL, 1), -EINVAL);
	CHECK_OK(rte_comch_msg_send(cc, NULL, 0));
	CHECK_EQ(rte_comch_msg_recv_burst(sconn, &m, 1), 1);
	CHECK_EQ(m.len, 0);
	CHECK_EQ(rte_comch_msg_send(NULL, big, 1), -EINVAL);
	CHECK_EQ(rte_comch_msg_recv_burst(NULL, &m, 1), -EINVAL);
	CHECK_EQ(rte_comch_msg_recv_burst(sconn, NULL, 1), -EINVAL);

	/* Statistics are exact on both ends. */
	for (k = 0; k < 100; k++) {
		CHECK_OK(rte_comch_msg_send(sconn, big, (uint32_t)k));
		CHECK_EQ(rte_comch_msg_recv_burst(cc, &m, 1), 1);
	}
	CHECK_EQ(rte_comch_msg_recv_burst(cc, &m, 1), 0);
	CHECK_OK(rte_comch_conn_stats_get(cc, &st));
	CHECK_EQ(st.msgs_sent, RTE_DIM(sizes) + 1);
	CHECK_EQ(st.bytes_sent, bytes);
	CHECK_EQ(st.msgs_recv, 100);
	CHECK_EQ(st.bytes_recv, 99 * 100 / 2);
	CHECK_OK(rte_comch_conn_stats_get(sconn, &st));
	CHECK_EQ(st.msgs_recv, RTE_DIM(sizes) + 1);
	CHECK_EQ(st.bytes_recv, bytes);
	CHECK_EQ(st.msgs_sent, 100);
	CHECK_EQ(st.bytes_sent, 99 * 100 / 2);
	CHECK_EQ(st.msgs_in_flight, 0);
	CHECK_OK(rte_comch_conn_stats_reset(sconn));
	CHECK_OK(rte_comch_conn_stats_get(sconn, &st));
	CHECK(st.msgs_sent == 0 && st.bytes_sent == 0 && st.msgs_recv == 0 &&
	      st.bytes_recv == 0, "reset left counters");
	CHECK_EQ(rte_comch_conn_stats_get(NULL, &st), -EINVAL);

	/* User data: 0 by default, then what was set. */
	CHECK_EQ(rte_comch_conn_user_data_get(sconn), 0);
	CHECK_OK(rte_comch_conn_user_data_set(sconn, UINT64_C(0xfeedc0de12345678)));
	CHECK(rte_comch_conn_user_data_get(sconn) == UINT64_C(0xfeedc0de12345678),
		"user data");
	CHECK_EQ(rte_comch_conn_user_data_get(cc), 0);
	CHECK(rte_comch_conn_id(cc) != UINT32_MAX, "conn id");
	teardown(cli, srv);
	return 0;
}

/* Server disconnect notifies the client; queued messages drain, then
 * -ECONNRESET; the client can stop and connect again. */
static int
test_server_disconnect(void)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *cc;
	struct rte_comch_msg msgs[8];
	struct events e = { 0 };
	uint32_t i, v;
	int err, n;

	CHECK_OK(open_pair("sdisc", 0, 0, &e, false, &srv, &cli));
	cc = rte_comch_client_conn(cli);
	for (i = 0; i < 3; i++)
		CHECK_OK(rte_comch_msg_send(e.conn, &i, sizeof(i)));
	CHECK_OK(rte_comch_server_disconnect(srv, e.conn));
	CHECK_EQ(rte_comch_server_conn_count(srv), 0);

	/* A clean close is "closed", at debug level: nothing by default. */
	rte_log_set_level(rte_log_register("lib.comch"), RTE_LOG_DEBUG);
	test_log_reset();
	poll_client_while_running(cli);
	rte_log_set_level(rte_log_register("lib.comch"), RTE_LOG_NOTICE);
	CHECK(test_log_has("connection") && test_log_has("closed by the peer") &&
	      !test_log_has("lost"), "clean close logged as closed");
	CHECK_EQ(rte_comch_client_state(cli, &err), RTE_COMCH_STATE_STOPPING);
	CHECK_EQ(err, 0); /* closed on purpose */
	CHECK(rte_comch_client_conn(cli) == cc, "connection gone before stop");
	CHECK_EQ(rte_comch_msg_send(cc, &i, sizeof(i)), -ECONNRESET);
	n = rte_comch_msg_recv_burst(cc, msgs, 8);
	CHECK_EQ(n, 3);
	for (i = 0; i < 3; i++) {
		memcpy(&v, msgs[i].data, sizeof(v));
		CHECK_EQ(v, i);
	}
	CHECK_EQ(rte_comch_msg_recv_burst(cc, msgs, 8), -ECONNRESET);
	CHECK_OK(rte_comch_client_stop(cli));
	CHECK_EQ(rte_comch_client_state(cli, NULL), RTE_COMCH_STATE_IDLE);
	CHECK(rte_comch_client_conn(cli) == NULL, "connection after stop");

	CHECK_EQ(connect_client(cli, srv, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(e.connects, 2);
	teardown(cli, srv);
	return 0;
}

/* Client stop notifies the server; queued messages drain first. */
static int
test_client_stop(void)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *sconn;
	struct rte_comch_msg msgs[8];
	struct events e = { 0 };
	uint32_t i;

	CHECK_OK(open_pair("cstop", 0, 0, &e, false, &srv, &cli));
	sconn = e.conn;
	for (i = 0; i < 2; i++)
		CHECK_OK(rte_comch_msg_send(rte_comch_client_conn(cli), &i,
				sizeof(i)));
	CHECK_OK(rte_comch_client_stop(cli));
	rte_log_set_level(rte_log_register("lib.comch"), RTE_LOG_DEBUG);
	test_log_reset();
	POLL_SERVER_UNTIL(srv, NULL, e.disconnects == 1);
	rte_log_set_level(rte_log_register("lib.comch"), RTE_LOG_NOTICE);
	CHECK(test_log_has("closed by the peer") && !test_log_has("lost"),
		"clean close logged as closed");
	CHECK_EQ(e.last_err, 0); /* closed on purpose */
	CHECK(e.conn == sconn, "other connection reported");
	CHECK_EQ(rte_comch_msg_send(sconn, &i, sizeof(i)), -ECONNRESET);
	CHECK_EQ(rte_comch_msg_recv_burst(sconn, msgs, 8), 2);
	CHECK_EQ(rte_comch_msg_recv_burst(sconn, msgs, 8), -ECONNRESET);
	CHECK_EQ(rte_comch_server_conn_count(srv), 1);
	CHECK_OK(rte_comch_server_disconnect(srv, sconn));
	CHECK_EQ(rte_comch_server_conn_count(srv), 0);
	teardown(cli, srv);
	return 0;
}

/* Callback mode: in order, all of them; a callback may release its
 * connection, after which nothing more is delivered and the client is
 * told. */
static int
test_callbacks(void)
{
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *cc;
	struct events e = { 0 };
	uint32_t i;
	int err;

	CHECK_OK(open_pair("cb", 128, 0, &e, true, &srv, &cli));
	cc = rte_comch_client_conn(cli);
	for (i = 0; i < 100; i++)
		CHECK_OK(rte_comch_msg_send(cc, &i, sizeof(i)));
	POLL_SERVER_UNTIL(srv, NULL, e.msgs == 100);
	CHECK_EQ(e.order_broken, 0);

	e.disconnect_in_cb_at = 150;
	for (i = 100; i < 200; i++)
		CHECK_OK(rte_comch_msg_send(cc, &i, sizeof(i)));
	POLL_SERVER_UNTIL(srv, NULL, rte_comch_server_conn_count(srv) == 0);
	CHECK_EQ(e.msgs, 150);
	CHECK_EQ(e.disconnects, 0); /* released by the application itself */
	poll_client_while_running(cli);
	CHECK_EQ(rte_comch_client_state(cli, &err), RTE_COMCH_STATE_STOPPING);
	CHECK_EQ(err, 0); /* closed on purpose */
	teardown(cli, srv);
	return 0;
}

static int
test_max_clients_and_stop(void)
{
	struct rte_comch_server_conf conf = { .name = "full", .max_clients = 1,
		.connect_cb = ev_connect, .disconnect_cb = ev_disconnect };
	struct rte_comch_server *srv;
	struct rte_comch_client *a, *b;
	struct events e = { 0 };
	int err;

	conf.cb_arg = &e;
	srv = rte_comch_server_create(dpu, &conf);
	CHECK(srv != NULL, "server");
	CHECK_OK(rte_comch_server_start(srv));
	a = make_client(host_pf0, "full", 0, 0);
	b = make_client(host_pf0, "full", 0, 0);
	CHECK_EQ(connect_client(a, srv, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(connect_client(b, srv, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, -EBUSY);

	/* Stopping the server releases its connections and tells clients. */
	CHECK_OK(rte_comch_server_stop(srv));
	CHECK_EQ(rte_comch_server_conn_count(srv), 0);
	poll_client_while_running(a);
	CHECK_EQ(rte_comch_client_state(a, &err), RTE_COMCH_STATE_STOPPING);
	CHECK_EQ(err, 0); /* closed on purpose */
	/* A stopped server is not reachable. */
	CHECK_EQ(connect_client(b, srv, &err), RTE_COMCH_STATE_IDLE);
	CHECK_EQ(err, -ENOENT);
	teardown(a, NULL);
	teardown(b, srv);
	return 0;
}

/* Many connections on one server, each its own ordered stream. */
static int
test_many_connections(void)
{
	enum { N = 32 };
	struct rte_comch_client *cli[N];
	struct rte_comch_conn *conns[N];
	struct rte_comch_server *srv;
	struct rte_comch_msg m;
	struct events e = { 0 };
	uint32_t i, k, v;
	int err;

	srv = make_server("many", 0, 0, 0, &e, false);
	CHECK(srv != NULL, "server");
	for (i = 0; i < N; i++) {
		cli[i] = make_client(host_pf0, "many", 0, 0);
		CHECK(cli[i] != NULL, "client %u", i);
		CHECK_EQ(connect_client(cli[i], srv, &err),
			RTE_COMCH_STATE_RUNNING);
		conns[i] = e.conn;
		rte_comch_conn_user_data_set(conns[i], i);
	}
	CHECK_EQ(rte_comch_server_conn_count(srv), N);
	for (k = 0; k < 10; k++)
		for (i = 0; i < N; i++) {
			v = i * 1000 + k;
			CHECK_OK(rte_comch_msg_send(rte_comch_client_conn(cli[i]),
					&v, sizeof(v)));
		}
	for (i = 0; i < N; i++) {
		CHECK_EQ(rte_comch_conn_user_data_get(conns[i]), i);
		for (k = 0; k < 10; k++) {
			CHECK_EQ(rte_comch_msg_recv_burst(conns[i], &m, 1), 1);
			memcpy(&v, m.data, sizeof(v));
			CHECK_EQ(v, i * 1000 + k);
		}
	}
	for (i = 0; i < N; i++)
		teardown(cli[i], NULL);
	POLL_SERVER_UNTIL(srv, NULL, e.disconnects == N);
	teardown(NULL, srv);
	return 0;
}

/*
 * A peer that refills its connection's control queue as fast as the
 * server reads it holds one poll for at most that queue's depth of
 * messages (the dispatch budget), not for as long as it keeps up: the
 * rest comes on later polls, in order, none lost; the server's other
 * connections are served on the same poll; an armed event does not sleep
 * through what is left. Deterministic: the flooder refills from the
 * server's own callback, as much as the queue has room for, up to
 * FLOOD_TOTAL messages.
 */
enum { FLOOD_DEPTH = 64, FLOOD_TOTAL = 16 * FLOOD_DEPTH };

struct flood {
	struct rte_comch_conn *flooder;   /* the flooding client's end */
	struct rte_comch_conn *victim;    /* the server's end of the other */
	uint32_t sent, flood_msgs, other_msgs;
	uint32_t seq_expected;
	int order_broken;
	unsigned int disconnects;
	uint32_t msgs_at_disconnect;
	struct rte_comch_conn *conns[2]; /* the server's, as they came */
	unsigned int nb_conns;
};

static void
flood_refill(struct flood *f)
{
	while (f->sent < FLOOD_TOTAL &&
	       rte_comch_msg_send(f->flooder, &f->sent, sizeof(f->sent)) == 0)
		f->sent++;
}

static void
flood_msg(struct rte_comch_conn *conn, const struct rte_comch_msg *msg,
		void *arg)
{
	struct flood *f = arg;
	uint32_t seq;

	if (conn == f->victim) {
		f->other_msgs++;
		return;
	}
	f->flood_msgs++;
	memcpy(&seq, msg->data, sizeof(seq));
	if (seq != f->seq_expected)
		f->order_broken++;
	f->seq_expected = seq + 1;
	flood_refill(f);
}

static void
flood_disconnect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn __rte_unused, int err __rte_unused,
		void *arg)
{
	struct flood *f = arg;

	f->disconnects++;
	f->msgs_at_disconnect = f->flood_msgs;
}

static void
flood_connect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *conn, void *arg)
{
	struct flood *f = arg;

	if (f->nb_conns < RTE_DIM(f->conns))
		f->conns[f->nb_conns++] = conn;
}

static int
test_dispatch_budget(void)
{
	struct rte_comch_server_conf conf = { .name = "flood",
		.recv_queue_len = FLOOD_DEPTH, .msg_cb = flood_msg,
		.connect_cb = flood_connect, .disconnect_cb = flood_disconnect,
		.flags = RTE_COMCH_F_EVENT };
	struct rte_comch_client *a, *b;
	struct rte_comch_server *srv;
	struct rte_comch_event *ev;
	struct flood f = { 0 };
	uint32_t polls = 0, before, v = 7;
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int err;

	conf.cb_arg = &f;
	srv = rte_comch_server_create(dpu, &conf);
	CHECK(srv != NULL, "server: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_server_start(srv));
	ev = rte_comch_server_event(srv);
	CHECK(ev != NULL, "event");
	a = make_client(host_pf0, "flood", 0, 0);
	b = make_client(host_pf0, "flood", 0, 0);
	CHECK(a != NULL && b != NULL, "clients");
	CHECK_EQ(connect_client(a, srv, &err), RTE_COMCH_STATE_RUNNING);
	CHECK_EQ(connect_client(b, srv, &err), RTE_COMCH_STATE_RUNNING);
	f.flooder = rte_comch_client_conn(a);
	/* The flooder connected first: its connection is dispatched first. */
	CHECK_EQ(f.nb_conns, 2);
	f.victim = f.conns[1];
	CHECK_OK(rte_comch_msg_send(rte_comch_client_conn(b), &v, sizeof(v)));
	/* The flooder's queue full, the other connection one message. */
	flood_refill(&f);
	CHECK_EQ(f.sent, FLOOD_DEPTH);

	/* One poll: at most the budget from the flooder, which kept its
	 * queue full all along, and the other's message too. */
	rte_comch_server_poll(srv);
	CHECK(f.flood_msgs <= FLOOD_DEPTH, "one poll delivered %u flooded messages (budget %u)",
		f.flood_msgs, FLOOD_DEPTH);
	CHECK_EQ(f.other_msgs, 1);
	CHECK(f.sent > f.flood_msgs, "the flooder kept its queue non-empty");
	/* What is left is not slept through. */
	CHECK_EQ(rte_comch_event_arm(ev), 1);

	/* The rest on later polls, each within the budget, in order. */
	while (f.flood_msgs < FLOOD_TOTAL && !test_expired(dl)) {
		before = f.flood_msgs;
		rte_comch_server_poll(srv);
		CHECK(f.flood_msgs - before <= FLOOD_DEPTH, "a poll delivered %u",
			f.flood_msgs - before);
		polls++;
	}
	CHECK_EQ(f.flood_msgs, FLOOD_TOTAL);
	CHECK_EQ(f.order_broken, 0);
	CHECK(polls >= FLOOD_TOTAL / FLOOD_DEPTH - 1, "%u polls", polls);

	/* A peer that leaves with a full queue: all of it is still
	 * delivered before the loss is reported. (A poll with nothing to
	 * deliver first: it confirms the last burst, the queue is empty.) */
	rte_comch_server_poll(srv);
	CHECK_EQ(f.flood_msgs, FLOOD_TOTAL);
	f.sent = 0;
	f.seq_expected = 0;
	f.flood_msgs = 0;
	flood_refill(&f);
	CHECK_EQ(f.sent, FLOOD_DEPTH);
	f.sent = FLOOD_TOTAL; /* no more refills */
	CHECK_OK(rte_comch_client_stop(a));
	POLL_SERVER_UNTIL(srv, NULL, f.disconnects == 1);
	CHECK_EQ(f.msgs_at_disconnect, FLOOD_DEPTH);
	CHECK_EQ(f.order_broken, 0);
	teardown(a, NULL);
	teardown(b, srv);
	return 0;
}

int
main(int argc __rte_unused, char **argv)
{
	static const struct test_case cases[] = {
		{ "caps", test_caps },
		{ "names", test_names },
		{ "states", test_states },
		{ "client_before_server", test_client_before_server },
		{ "functions", test_functions },
		{ "msg_size_mismatch", test_msg_size_mismatch },
		{ "backpressure", test_backpressure },
		{ "sizes_and_stats", test_sizes_and_stats },
		{ "server_disconnect", test_server_disconnect },
		{ "client_stop", test_client_stop },
		{ "callbacks", test_callbacks },
		{ "max_clients_and_stop", test_max_clients_and_stop },
		{ "many_connections", test_many_connections },
		{ "dispatch_budget", test_dispatch_budget },
	};
	char args[256];
	int ret;

	test_log_capture_init();
	if (test_eal_init(argv[0], "ctrl", "0", NULL) < 0)
		return 1;
	if (test_mkdtemp(link_dir, sizeof(link_dir)) < 0)
		return 1;
	/* many_connections opens 32 on one function */
	snprintf(args, sizeof(args),
		"role=dpu,path=%s,functions=[pf0,pf0vf1],max_conns=64",
		link_dir);
	if (rte_vdev_init("comch_shm_dpu", args) < 0)
		return 1;
	snprintf(args, sizeof(args), "role=host,path=%s", link_dir);
	if (rte_vdev_init("comch_shm_h0", args) < 0)
		return 1;
	snprintf(args, sizeof(args), "role=host,path=%s,function=pf0vf1",
		link_dir);
	if (rte_vdev_init("comch_shm_h1", args) < 0)
		return 1;
	snprintf(args, sizeof(args), "role=host,path=%s,function=pf1", link_dir);
	if (rte_vdev_init("comch_shm_h2", args) < 0)
		return 1;
	dpu = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	host_pf0 = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_h0");
	host_vf1 = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_h1");
	host_pf1 = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_h2");

	ret = test_run_cases("ctrl", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
