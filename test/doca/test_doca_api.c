/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The vendor API compatibility layer in one process: the DPU device and a
 * host device of one emulated BlueField (configured in DOCA_COMCH_EMU, as
 * a user would) talk to each other. Each case checks a documented
 * behaviour: error names, the context state machine against the vendor's
 * rules, device discovery by PCI address, sends that complete through
 * their callbacks after the submit returned, back pressure, consumer ids,
 * where received data lands, producer "again", the teardown order, the
 * progress engine's notification fd, the endpoint API's event channels
 * (they must stay quiet without traffic and fire with it), service state,
 * and the doca_cc names. Deadlines are failure guards only.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_cc.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_comm_channel.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "comch_priv.h"

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		return -1; \
	} \
} while (0)
#define CHECK_OK(expr) do { \
	doca_error_t e_ = (expr); \
	CHECK(e_ == DOCA_SUCCESS, "%s", doca_error_get_name(e_)); \
} while (0)
#define CHECK_ERR(expr, want) do { \
	doca_error_t e_ = (expr); \
	CHECK(e_ == (want), "%s, expected %s", doca_error_get_name(e_), doca_error_get_name(want)); \
} while (0)

static char link_dir[64];
static struct doca_dev *dpu, *host;
static struct doca_dev_rep *rep;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Progress both engines until *flag, 30 s at most. */
static int
until(struct doca_pe *a, struct doca_pe *b, volatile bool *flag)
{
	double deadline = now() + 30;

	while (!*flag) {
		if (now() > deadline)
			return -1;
		doca_pe_progress(a);
		if (b != NULL)
			doca_pe_progress(b);
	}
	return 0;
}

static int
until_state(struct doca_pe *a, struct doca_pe *b, struct doca_ctx *ctx, enum doca_ctx_states want)
{
	double deadline = now() + 30;
	enum doca_ctx_states st;

	for (;;) {
		doca_ctx_get_state(ctx, &st);
		if (st == want)
			return 0;
		if (now() > deadline)
			return -1;
		doca_pe_progress(a);
		if (b != NULL)
			doca_pe_progress(b);
	}
}

/* ------------------------------------------------------------------ cases */

static int
test_errors(void)
{
	CHECK(strcmp(doca_error_get_name(DOCA_ERROR_AGAIN), "DOCA_ERROR_AGAIN") == 0, "name");
	CHECK(strcmp(doca_error_get_name(DOCA_SUCCESS), "DOCA_SUCCESS") == 0, "name");
	CHECK(strcmp(doca_error_get_name((doca_error_t)1000), "DOCA_ERROR_UNKNOWN") == 0, "out of range");
	CHECK(DOCA_ERROR_CONNECTION_INPROGRESS == 13 && DOCA_ERROR_DEVICE_FATAL_ERROR == 31, "values");
	CHECK(doca_error_get_descr(DOCA_ERROR_BAD_STATE)[0] != '\0', "descr");
	return 0;
}

/* The vendor's rules for a context, stated independently of dc_pe.c's
 * table: start from idle only; running at once or through starting;
 * configuration and destroy when idle; tasks when running; a stop goes
 * through stopping while work is outstanding; a fatal error moves a
 * running context to stopping. */
static int
test_state_machine(void)
{
	static const struct { int from, ev, to; } rules[] = {
		{ DOCA_CTX_STATE_IDLE, DC_EV_START_DONE, DOCA_CTX_STATE_RUNNING },
		{ DOCA_CTX_STATE_IDLE, DC_EV_START_PENDING, DOCA_CTX_STATE_STARTING },
		{ DOCA_CTX_STATE_STARTING, DC_EV_READY, DOCA_CTX_STATE_RUNNING },
		{ DOCA_CTX_STATE_STARTING, DC_EV_START_FAILED, DOCA_CTX_STATE_IDLE },
		{ DOCA_CTX_STATE_STARTING, DC_EV_STOP_DONE, DOCA_CTX_STATE_IDLE },
		{ DOCA_CTX_STATE_RUNNING, DC_EV_STOP_DONE, DOCA_CTX_STATE_IDLE },
		{ DOCA_CTX_STATE_RUNNING, DC_EV_STOP_PENDING, DOCA_CTX_STATE_STOPPING },
		{ DOCA_CTX_STATE_RUNNING, DC_EV_FATAL, DOCA_CTX_STATE_STOPPING },
		{ DOCA_CTX_STATE_STOPPING, DC_EV_DRAINED, DOCA_CTX_STATE_IDLE },
		{ DOCA_CTX_STATE_STOPPING, DC_EV_STOP_DONE, DOCA_CTX_STATE_IDLE },
	};
	int from, ev, want;
	size_t i;

	for (from = DOCA_CTX_STATE_IDLE; from <= DOCA_CTX_STATE_STOPPING; from++) {
		for (ev = DC_EV_START_DONE; ev <= DC_EV_DRAINED; ev++) {
			want = -1;
			for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
				if (rules[i].from == from && rules[i].ev == ev)
					want = rules[i].to;
			CHECK(dc_ctx_next_state((enum doca_ctx_states)from, (enum dc_ctx_event)ev) == want,
			      "state %d event %d", from, ev);
		}
	}
	CHECK(dc_ctx_allowed_ops(DOCA_CTX_STATE_IDLE) == (DC_OP_CONFIGURE | DC_OP_START | DC_OP_DESTROY), "idle");
	CHECK(dc_ctx_allowed_ops(DOCA_CTX_STATE_STARTING) == DC_OP_STOP, "starting");
	CHECK(dc_ctx_allowed_ops(DOCA_CTX_STATE_RUNNING) == (DC_OP_STOP | DC_OP_ALLOC | DC_OP_SUBMIT), "running");
	CHECK(dc_ctx_allowed_ops(DOCA_CTX_STATE_STOPPING) == DC_OP_STOP, "stopping");
	return 0;
}

static int
test_devices(void)
{
	struct doca_devinfo **list;
	struct doca_devinfo_rep **reps;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t nb, nb_reps, i, v;
	uint8_t eq;

	CHECK_OK(doca_devinfo_create_list(&list, &nb));
	CHECK(nb == 3, "%u devices, expected the DPU and two host functions", nb);
	for (i = 0; i < nb; i++) {
		CHECK_OK(doca_devinfo_get_pci_addr_str(list[i], pci));
		if (strcmp(pci, "0000:03:00.0") == 0) {
			CHECK_OK(doca_comch_cap_server_is_supported(list[i]));
			CHECK_ERR(doca_comch_cap_client_is_supported(list[i]), DOCA_ERROR_NOT_SUPPORTED);
			CHECK_OK(doca_devinfo_is_equal_pci_addr(list[i], "03:00.0", &eq));
			CHECK(eq == 1, "03:00.0 equal");
			CHECK_OK(doca_dev_open(list[i], &dpu));
		} else if (strcmp(pci, "0000:03:00.1") == 0) {
			CHECK_OK(doca_comch_cap_client_is_supported(list[i]));
			CHECK_ERR(doca_comch_cap_server_is_supported(list[i]), DOCA_ERROR_NOT_SUPPORTED);
			CHECK_OK(doca_devinfo_is_equal_pci_addr(list[i], "0000:03:00.0", &eq));
			CHECK(eq == 0, "not equal");
			CHECK_OK(doca_dev_open(list[i], &host));
		}
		CHECK_ERR(doca_devinfo_is_equal_pci_addr(list[i], "3:0.0", &eq), DOCA_ERROR_INVALID_VALUE);
	}
	CHECK(dpu != NULL && host != NULL, "both devices opened");
	CHECK_OK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dpu), &v));
	CHECK(v == 4080, "max message %u", v);
	CHECK_OK(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(host), &v));
	CHECK(v == 64, "name length %u", v);
	CHECK_OK(doca_comch_consumer_cap_get_max_imm_data_len(doca_dev_as_devinfo(host), &v));
	CHECK(v == 32, "immediate data %u", v);
	CHECK_OK(doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(host), &v));
	CHECK(v == 1U << 30, "buffer %u", v);

	CHECK_ERR(doca_devinfo_rep_create_list(host, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nb_reps),
		  DOCA_ERROR_NOT_SUPPORTED);
	CHECK_OK(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nb_reps));
	CHECK(nb_reps == 2, "%u representors", nb_reps);
	CHECK_OK(doca_devinfo_rep_get_pci_addr_str(reps[1], pci));
	CHECK(strcmp(pci, "0000:03:00.2") == 0, "second rep %s", pci);
	CHECK_OK(doca_devinfo_rep_is_equal_pci_addr(reps[0], "03:00.1", &eq));
	CHECK(eq == 1, "first rep");
	CHECK_OK(doca_dev_rep_open(reps[0], &rep));
	{
		struct doca_pci_bdf bdf = { .raw = 0 };

		/* the older generations' address form */
		bdf.bus = 3;
		bdf.function = 1;
		CHECK_OK(doca_devinfo_rep_get_is_pci_addr_equal(reps[0], &bdf, &eq));
		CHECK(eq == 1, "bdf 03:00.1");
		CHECK_OK(doca_devinfo_get_pci_addr(doca_dev_as_devinfo(dpu), &bdf));
		CHECK(bdf.bus == 3 && bdf.device == 0 && bdf.function == 0, "bdf of the DPU");
	}
	doca_devinfo_rep_destroy_list(reps);
	doca_devinfo_destroy_list(list);
	return 0;
}

/* ---------------------------------------------------- control path */

static struct {
	struct doca_comch_connection *srv_conn;
	bool connected, disconnected;
	uint32_t srv_msgs, cli_msgs;
	uint32_t next_expected;
	bool order_ok;
	uint32_t sent_ok, sent_err;
	doca_error_t last_err;
	uint32_t new_consumer, expired_consumer;
	uint32_t cli_states[8];
	int nb_cli_states;
} ev;

static void
on_connect(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c, uint8_t ok)
{
	(void)e;
	ev.srv_conn = c;
	ev.connected = ok == 1;
}

static void
on_disconnect(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c, uint8_t ok)
{
	(void)e;
	(void)c;
	(void)ok;
	ev.disconnected = true;
}

static void
on_srv_msg(struct doca_comch_event_msg_recv *e, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	uint32_t v;

	(void)e;
	(void)c;
	if (len == sizeof(v)) {
		memcpy(&v, buf, sizeof(v));
		if (v != ev.next_expected)
			ev.order_ok = false;
		ev.next_expected = v + 1;
	}
	ev.srv_msgs++;
}

static void
on_cli_msg(struct doca_comch_event_msg_recv *e, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	(void)e;
	(void)buf;
	(void)len;
	(void)c;
	ev.cli_msgs++;
}

static void
on_sent(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	ev.sent_ok++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void
on_send_err(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	ev.sent_err++;
	ev.last_err = doca_task_get_status(doca_comch_task_send_as_task(t));
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void
on_new_consumer(struct doca_comch_event_consumer *e, struct doca_comch_connection *c, uint32_t id)
{
	(void)e;
	(void)c;
	ev.new_consumer = id;
}

static void
on_expired_consumer(struct doca_comch_event_consumer *e, struct doca_comch_connection *c, uint32_t id)
{
	(void)e;
	(void)c;
	ev.expired_consumer = id;
}

static void
on_cli_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (ev.nb_cli_states < 8)
		ev.cli_states[ev.nb_cli_states++] = next;
}

static struct doca_pe *spe, *cpe;
static struct doca_comch_server *srv;
static struct doca_comch_client *cli;
static struct doca_comch_connection *cconn;

static int
send_u32(uint32_t v, doca_error_t *alloc_ret)
{
	struct doca_comch_task_send *t;

	*alloc_ret = doca_comch_client_task_send_alloc_init(cli, cconn, &v, sizeof(v), &t);
	if (*alloc_ret != DOCA_SUCCESS)
		return 0;
	CHECK_OK(doca_task_submit(doca_comch_task_send_as_task(t)));
	return 0;
}

static int
test_control_path(void)
{
	struct doca_comch_task_send *t;
	struct doca_ctx *sctx, *cctx;
	union doca_data ud;
	doca_error_t aret;
	uint64_t cnt;
	uint32_t v, i, sent;
	char big[4081];

	memset(&ev, 0, sizeof(ev));
	ev.order_ok = true;
	CHECK_OK(doca_pe_create(&spe));
	CHECK_OK(doca_pe_create(&cpe));
	CHECK_ERR(doca_comch_server_create(host, rep, "x", &srv), DOCA_ERROR_NOT_SUPPORTED);
	CHECK_ERR(doca_comch_client_create(dpu, "x", &cli), DOCA_ERROR_NOT_SUPPORTED);
	memset(big, 'n', 64);
	big[64] = '\0';
	CHECK_ERR(doca_comch_client_create(host, big, &cli), DOCA_ERROR_INVALID_VALUE);

	/* The client first: it keeps asking until the server is there. */
	CHECK_OK(doca_comch_client_create(host, "test_doca_api", &cli));
	cctx = doca_comch_client_as_ctx(cli);
	CHECK_OK(doca_comch_client_task_send_set_conf(cli, on_sent, on_send_err, 8));
	CHECK_OK(doca_comch_client_event_msg_recv_register(cli, on_cli_msg));
	CHECK_OK(doca_comch_client_event_consumer_register(cli, on_new_consumer, on_expired_consumer));
	CHECK_OK(doca_ctx_set_state_changed_cb(cctx, on_cli_state));
	CHECK_ERR(doca_ctx_start(cctx), DOCA_ERROR_BAD_STATE);   /* not connected to an engine */
	CHECK_OK(doca_pe_connect_ctx(cpe, cctx));
	CHECK_ERR(doca_ctx_start(cctx), DOCA_ERROR_IN_PROGRESS);
	CHECK_ERR(doca_comch_client_get_connection(cli, &cconn), DOCA_ERROR_BAD_STATE);
	CHECK_ERR(doca_comch_client_set_max_msg_size(cli, 100), DOCA_ERROR_BAD_STATE);
	for (i = 0; i < 20; i++)
		doca_pe_progress(cpe);

	CHECK_OK(doca_comch_server_create(dpu, rep, "test_doca_api", &srv));
	sctx = doca_comch_server_as_ctx(srv);
	CHECK_ERR(doca_comch_server_set_max_msg_size(srv, 4081), DOCA_ERROR_INVALID_VALUE);
	CHECK_OK(doca_comch_server_get_max_msg_size(srv, &v));
	CHECK(v == 4080, "default %u", v);
	CHECK_OK(doca_comch_server_set_recv_queue_size(srv, 4));
	CHECK_OK(doca_comch_server_task_send_set_conf(srv, on_sent, on_send_err, 8));
	CHECK_OK(doca_comch_server_event_msg_recv_register(srv, on_srv_msg));
	CHECK_OK(doca_comch_server_event_connection_status_changed_register(srv, on_connect, on_disconnect));
	CHECK_OK(doca_comch_server_event_consumer_register(srv, on_new_consumer, on_expired_consumer));
	CHECK_OK(doca_pe_connect_ctx(spe, sctx));
	CHECK_OK(doca_ctx_start(sctx));                     /* a server runs at once */
	CHECK(until_state(spe, cpe, cctx, DOCA_CTX_STATE_RUNNING) == 0, "client never ran");
	CHECK(until(spe, cpe, &ev.connected) == 0, "no connect event");
	CHECK(ev.nb_cli_states == 2 && ev.cli_states[0] == DOCA_CTX_STATE_STARTING &&
	      ev.cli_states[1] == DOCA_CTX_STATE_RUNNING, "client states");
	CHECK_OK(doca_comch_client_get_connection(cli, &cconn));
	CHECK(doca_comch_client_get_client_ctx(cconn) == cli && doca_comch_server_get_server_ctx(cconn) == NULL, "ctx");
	CHECK(doca_comch_connection_get_user_data(ev.srv_conn).u64 == 0, "user data default");
	ud.u64 = 42;
	CHECK_OK(doca_comch_connection_set_user_data(ev.srv_conn, ud));
	CHECK(doca_comch_connection_get_user_data(ev.srv_conn).u64 == 42, "user data");

	/* A send completes through its callback, after submit returned. */
	CHECK_OK(send_u32(0, &aret) == 0 ? aret : DOCA_ERROR_UNKNOWN);
	CHECK(ev.sent_ok == 0, "completed inside submit");
	for (i = 0; i < 1000 && ev.sent_ok == 0; i++)
		doca_pe_progress(cpe);
	CHECK(ev.sent_ok == 1, "no completion");
	CHECK(doca_comch_client_task_send_alloc_init(cli, cconn, big, 4081, &t) == DOCA_ERROR_INVALID_VALUE,
	      "over the maximum message size");

	/* Back pressure: the server's queue holds 4, the client has 8 tasks;
	 * with the server not progressing, task 13 finds none free. */
	sent = 1;
	for (;;) {
		if (send_u32(sent, &aret) != 0)
			return -1;
		if (aret != DOCA_SUCCESS)
			break;
		sent++;
		doca_pe_progress(cpe);
	}
	CHECK(aret == DOCA_ERROR_NO_MEMORY, "%s", doca_error_get_name(aret));
	/* message 0 is in the queue of 4 too */
	CHECK(sent == 4 + 8, "%u sends before back pressure", sent);
	/* The server takes them; every one arrives, in order. */
	{
		double deadline = now() + 30;

		while (ev.srv_msgs < sent || ev.sent_ok < sent) {
			CHECK(now() < deadline, "%u/%u received", ev.srv_msgs, sent);
			doca_pe_progress(spe);
			doca_pe_progress(cpe);
		}
	}
	CHECK(ev.order_ok, "order");
	CHECK_OK(doca_comch_connection_update_info(cconn));
	CHECK_OK(doca_comch_connection_get_counter(cconn, DOCA_COMCH_COUNTER_SENT_MESSAGES, &cnt));
	CHECK(cnt == sent, "sent counter %lu", (unsigned long)cnt);
	CHECK_OK(doca_comch_connection_get_counter(cconn, DOCA_COMCH_COUNTER_SENT_BYTES, &cnt));
	CHECK(cnt == sent * 4, "bytes counter %lu", (unsigned long)cnt);
	CHECK_OK(doca_comch_connection_update_info(ev.srv_conn));
	CHECK_OK(doca_comch_connection_get_counter(ev.srv_conn, DOCA_COMCH_COUNTER_RECV_MESSAGES, &cnt));
	CHECK(cnt == sent, "recv counter %lu", (unsigned long)cnt);
	return 0;
}

/* ------------------------------------------------------------ fast path */

static struct {
	uint32_t done, failed;
	doca_error_t status;
} fpev;

static void
on_recv(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
	fpev.done++;
}

static void
on_recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	fpev.failed++;
	fpev.status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
on_psend(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	fpev.done++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void
on_psend_err(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	fpev.failed++;
	fpev.status = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static int
wait_fp(uint32_t done, uint32_t failed)
{
	double deadline = now() + 30;

	while (fpev.done < done || fpev.failed < failed) {
		if (now() > deadline)
			return -1;
		doca_pe_progress(spe);
		doca_pe_progress(cpe);
	}
	return 0;
}

/* Submit a producer task, progressing both engines while it is "again". */
static int
submit_again(struct doca_comch_producer_task_send *pt)
{
	double deadline = now() + 30;
	doca_error_t ret;

	while ((ret = doca_task_submit(doca_comch_producer_task_send_as_task(pt))) == DOCA_ERROR_AGAIN) {
		if (now() > deadline)
			return -1;
		doca_pe_progress(spe);
		doca_pe_progress(cpe);
	}
	return ret == DOCA_SUCCESS ? 0 : -1;
}

static int
test_fast_path(void)
{
	static char smem[8192], hmem[8192];
	struct doca_comch_consumer_task_post_recv *rt;
	struct doca_comch_producer_task_send *pt;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_buf_inventory *sinv, *hinv;
	struct doca_mmap *smm, *hmm;
	struct doca_buf *rbuf, *sbuf, *bigbuf;
	uint8_t imm[4] = { 1, 2, 3, 4 };
	uint32_t id, pid;
	size_t len;
	void *data;

	/* The DPU's consumer receives into its mmap. */
	CHECK_OK(doca_mmap_create(&smm));
	CHECK_OK(doca_mmap_set_memrange(smm, smem, sizeof(smem)));
	CHECK_OK(doca_mmap_add_dev(smm, dpu));
	CHECK_OK(doca_mmap_start(smm));
	CHECK_OK(doca_buf_inventory_create(4, &sinv));
	CHECK_OK(doca_buf_inventory_start(sinv));
	CHECK_OK(doca_comch_consumer_create(ev.srv_conn, smm, &cons));
	CHECK_ERR(doca_comch_consumer_get_id(cons, &id), DOCA_ERROR_BAD_STATE);
	CHECK_OK(doca_comch_consumer_task_post_recv_set_conf(cons, on_recv, on_recv_err, 4));
	CHECK_OK(doca_pe_connect_ctx(spe, doca_comch_consumer_as_ctx(cons)));
	CHECK_ERR(doca_ctx_start(doca_comch_consumer_as_ctx(cons)), DOCA_ERROR_IN_PROGRESS);
	CHECK(until_state(spe, cpe, doca_comch_consumer_as_ctx(cons), DOCA_CTX_STATE_RUNNING) == 0, "consumer");
	CHECK_OK(doca_comch_consumer_get_id(cons, &id));
	CHECK(id != 0, "consumer id 0");
	while (ev.new_consumer != id)
		doca_pe_progress(cpe);   /* the host learns the id */

	/* The host's producer sends from its mmap. */
	CHECK_OK(doca_mmap_create(&hmm));
	CHECK_OK(doca_mmap_set_memrange(hmm, hmem, sizeof(hmem)));
	CHECK_OK(doca_mmap_add_dev(hmm, host));
	CHECK_OK(doca_mmap_start(hmm));
	CHECK_OK(doca_buf_inventory_create(4, &hinv));
	CHECK_OK(doca_buf_inventory_start(hinv));
	memcpy(hmem, "xyz", 3);
	CHECK_OK(doca_buf_inventory_buf_get_by_data(hinv, hmm, hmem, 3, &sbuf));
	memset(hmem + 4096, 'B', 200);
	CHECK_OK(doca_buf_inventory_buf_get_by_data(hinv, hmm, hmem + 4096, 200, &bigbuf));
	CHECK_OK(doca_comch_producer_create(cconn, &prod));
	CHECK_OK(doca_comch_producer_task_send_set_conf(prod, on_psend, on_psend_err, 4));
	CHECK_OK(doca_pe_connect_ctx(cpe, doca_comch_producer_as_ctx(prod)));
	CHECK_OK(doca_ctx_start(doca_comch_producer_as_ctx(prod)));
	CHECK_OK(doca_comch_producer_get_id(prod, &pid));

	/* Nothing posted yet: "again", and nothing is lost. */
	CHECK_OK(doca_comch_producer_task_send_alloc_init(prod, sbuf, imm, sizeof(imm), id, &pt));
	CHECK_ERR(doca_task_submit(doca_comch_producer_task_send_as_task(pt)), DOCA_ERROR_AGAIN);

	/* A buffer with 2 bytes of data already: the 3 received go after. */
	memcpy(smem, "AB", 2);
	CHECK_OK(doca_buf_inventory_buf_get_by_args(sinv, smm, smem, 100, smem, 2, &rbuf));
	CHECK_OK(doca_comch_consumer_task_post_recv_alloc_init(cons, rbuf, &rt));
	CHECK_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)));
	memset(&fpev, 0, sizeof(fpev));
	/* The post reaches the peer with the consumer's next progress: until
	 * then the producer hears "again", as from a peer not ready yet. */
	CHECK(submit_again(pt) == 0, "the send never went");
	CHECK(wait_fp(2, 0) == 0, "send and receive: %u done", fpev.done);
	CHECK_OK(doca_buf_get_data(rbuf, &data));
	CHECK_OK(doca_buf_get_data_len(rbuf, &len));
	CHECK(data == (void *)smem && len == 5 && memcmp(smem, "ABxyz", 5) == 0, "data lands after the data section");
	CHECK(doca_comch_consumer_task_post_recv_get_imm_data_len(rt) == 4 &&
	      memcmp(doca_comch_consumer_task_post_recv_get_imm_data(rt), imm, 4) == 0, "immediate data");
	CHECK(doca_comch_consumer_task_post_recv_get_producer_id(rt) == pid, "producer id");

	/* Larger than the room the posted buffer has: refused. */
	CHECK_OK(doca_buf_reset_data_len(rbuf));
	CHECK_OK(doca_buf_set_data(rbuf, smem, 0));
	CHECK_OK(doca_buf_set_data(rbuf, smem + 50, 0));   /* 50 bytes of room */
	CHECK_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)));
	CHECK_OK(doca_comch_producer_task_send_alloc_init(prod, bigbuf, NULL, 0, id, &pt));
	memset(&fpev, 0, sizeof(fpev));
	CHECK(submit_again(pt) == 0, "the send never went");
	CHECK(wait_fp(0, 1) == 0, "no error");
	CHECK(fpev.status == DOCA_ERROR_TOO_BIG, "%s", doca_error_get_name(fpev.status));

	/* Teardown order: the connection cannot go while they exist. */
	CHECK_ERR(doca_comch_server_disconnect(srv, ev.srv_conn), DOCA_ERROR_IN_USE);
	CHECK_ERR(doca_ctx_stop(doca_comch_client_as_ctx(cli)), DOCA_ERROR_IN_USE);
	/* A stop flushes the posted task with an error. */
	memset(&fpev, 0, sizeof(fpev));
	CHECK_ERR(doca_ctx_stop(doca_comch_consumer_as_ctx(cons)), DOCA_ERROR_IN_PROGRESS);
	CHECK(until_state(spe, cpe, doca_comch_consumer_as_ctx(cons), DOCA_CTX_STATE_IDLE) == 0, "stop");
	CHECK(fpev.failed == 1 && fpev.status == DOCA_ERROR_IO_FAILED, "flushed: %u %s", fpev.failed,
	      doca_error_get_name(fpev.status));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
	CHECK_OK(doca_comch_consumer_destroy(cons));
	while (ev.expired_consumer != id)
		doca_pe_progress(cpe);
	/* A destroyed consumer is not found. */
	CHECK_OK(doca_comch_producer_task_send_alloc_init(prod, sbuf, NULL, 0, id, &pt));
	memset(&fpev, 0, sizeof(fpev));
	CHECK_OK(doca_task_submit(doca_comch_producer_task_send_as_task(pt)));
	CHECK(wait_fp(0, 1) == 0, "no error");
	CHECK(fpev.status == DOCA_ERROR_NOT_FOUND, "%s", doca_error_get_name(fpev.status));
	/* Nor is id 0, which no consumer has. */
	CHECK_OK(doca_comch_producer_task_send_alloc_init(prod, sbuf, NULL, 0, 0, &pt));
	memset(&fpev, 0, sizeof(fpev));
	CHECK_OK(doca_task_submit(doca_comch_producer_task_send_as_task(pt)));
	CHECK(wait_fp(0, 1) == 0, "no error");
	CHECK(fpev.status == DOCA_ERROR_NOT_FOUND, "%s", doca_error_get_name(fpev.status));
	/* An id above every one the peer announced may be announced soon:
	 * "again", the task stays the application's. */
	CHECK_OK(doca_comch_producer_task_send_alloc_init(prod, sbuf, NULL, 0, id + 1000, &pt));
	CHECK_ERR(doca_task_submit(doca_comch_producer_task_send_as_task(pt)), DOCA_ERROR_AGAIN);
	doca_task_free(doca_comch_producer_task_send_as_task(pt));
	CHECK_OK(doca_ctx_stop(doca_comch_producer_as_ctx(prod)));
	CHECK_OK(doca_comch_producer_destroy(prod));
	CHECK_OK(doca_buf_dec_refcount(rbuf, NULL));
	CHECK_OK(doca_buf_dec_refcount(sbuf, NULL));
	CHECK_OK(doca_buf_dec_refcount(bigbuf, NULL));
	CHECK_OK(doca_buf_inventory_destroy(sinv));
	CHECK_OK(doca_buf_inventory_destroy(hinv));
	CHECK_OK(doca_mmap_destroy(smm));
	CHECK_OK(doca_mmap_destroy(hmm));
	return 0;
}

/* The engine's notification fd: armed, it becomes readable, and the
 * progress that follows delivers what was waiting. */
static int
test_pe_notification(void)
{
	struct epoll_event e = { .events = EPOLLIN }, out;
	doca_notification_handle_t fd;
	doca_error_t aret;
	uint32_t before = ev.srv_msgs;
	double deadline = now() + 30;
	int epfd, n = 0;

	CHECK_OK(doca_pe_get_notification_handle(spe, &fd));
	epfd = epoll_create1(0);
	CHECK(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) == 0, "epoll_ctl");
	CHECK(send_u32(ev.next_expected, &aret) == 0 && aret == DOCA_SUCCESS, "send");
	while (ev.srv_msgs == before && now() < deadline) {
		CHECK_OK(doca_pe_request_notification(spe));
		n = epoll_wait(epfd, &out, 1, 5000);
		CHECK_OK(doca_pe_clear_notification(spe, fd));
		doca_pe_progress(spe);
		doca_pe_progress(cpe);
	}
	close(epfd);
	CHECK(ev.srv_msgs == before + 1, "not delivered after waking (last epoll_wait %d)", n);
	return 0;
}

/* The server disconnects the client: the client is told (stopping, then
 * idle), the server's connection is released. */
static int
test_disconnect(void)
{
	ev.nb_cli_states = 0;
	CHECK_OK(doca_comch_server_disconnect(srv, ev.srv_conn));
	CHECK_ERR(doca_comch_server_disconnect(srv, ev.srv_conn), DOCA_ERROR_NOT_CONNECTED);
	CHECK(until_state(spe, cpe, doca_comch_client_as_ctx(cli), DOCA_CTX_STATE_IDLE) == 0, "client not idle");
	CHECK(ev.nb_cli_states == 2 && ev.cli_states[0] == DOCA_CTX_STATE_STOPPING &&
	      ev.cli_states[1] == DOCA_CTX_STATE_IDLE, "client states %d", ev.nb_cli_states);
	CHECK_ERR(doca_comch_server_destroy(srv), DOCA_ERROR_BAD_STATE);
	CHECK_OK(doca_ctx_stop(doca_comch_server_as_ctx(srv)));
	CHECK_ERR(doca_ctx_stop(doca_comch_server_as_ctx(srv)), DOCA_ERROR_BAD_STATE);
	CHECK_OK(doca_comch_server_destroy(srv));
	CHECK_OK(doca_comch_client_destroy(cli));
	CHECK_OK(doca_pe_destroy(spe));
	CHECK_OK(doca_pe_destroy(cpe));
	return 0;
}

/* ---------------------------------------------------------- endpoints */

static int
wait_readable(int fd, int timeout_ms)
{
	struct epoll_event e = { .events = EPOLLIN }, out;
	int epfd = epoll_create1(0), n;

	epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e);
	n = epoll_wait(epfd, &out, 1, timeout_ms);
	close(epfd);
	return n;
}

static int
test_endpoints(void)
{
	struct doca_comm_channel_ep_t *svc, *cl, *early;
	struct doca_comm_channel_addr_t *peer, *from, **peers;
	doca_event_channel_t s_send, s_recv, s_svc, c_send, c_recv;
	uint32_t nb, pending;
	uint64_t v;
	uint16_t q;
	char buf[64];
	size_t len;
	double deadline;

	/* Documented: connecting before the service listens fails. */
	CHECK_OK(doca_comm_channel_ep_create(&early));
	CHECK_OK(doca_comm_channel_ep_set_device(early, host));
	CHECK_OK(doca_comm_channel_ep_connect(early, "test_doca_ep", &peer));
	deadline = now() + 30;
	while (doca_comm_channel_peer_addr_update_info(peer) == DOCA_ERROR_CONNECTION_INPROGRESS &&
	       now() < deadline)
		;
	CHECK_ERR(doca_comm_channel_peer_addr_update_info(peer), DOCA_ERROR_CONNECTION_ABORTED);
	CHECK_OK(doca_comm_channel_ep_destroy(early));

	CHECK_OK(doca_comm_channel_ep_create(&svc));
	CHECK_ERR(doca_comm_channel_ep_listen(svc, "test_doca_ep"), DOCA_ERROR_BAD_STATE);
	CHECK_OK(doca_comm_channel_ep_set_device(svc, dpu));
	CHECK_OK(doca_comm_channel_ep_set_device_rep(svc, rep));
	CHECK_OK(doca_comm_channel_ep_set_max_msg_size(svc, 64));
	CHECK_OK(doca_comm_channel_ep_set_send_queue_size(svc, 5));
	CHECK_OK(doca_comm_channel_ep_get_send_queue_size(svc, &q));
	CHECK(q == 16, "queue size rounds up to 16, got %u", q);
	CHECK_ERR(doca_comm_channel_ep_get_event_channel(svc, &s_send, &s_recv), DOCA_ERROR_BAD_STATE);
	CHECK_OK(doca_comm_channel_ep_listen(svc, "test_doca_ep"));
	CHECK_ERR(doca_comm_channel_ep_listen(svc, "test_doca_ep"), DOCA_ERROR_NOT_PERMITTED);
	CHECK_OK(doca_comm_channel_ep_get_event_channel(svc, &s_send, &s_recv));
	CHECK_OK(doca_comm_channel_ep_get_service_event_channel(svc, &s_svc));

	/* Armed with nothing happening: the channels stay quiet. */
	CHECK_OK(doca_comm_channel_ep_update_service_state_info(svc));
	CHECK_OK(doca_comm_channel_ep_event_handle_arm_recv(svc));
	CHECK(wait_readable(s_recv, 300) == 0, "receive channel fired without a message");
	CHECK(wait_readable(s_svc, 300) == 0, "service channel fired without a client");

	CHECK_OK(doca_comm_channel_ep_create(&cl));
	CHECK_OK(doca_comm_channel_ep_set_device(cl, host));
	CHECK_OK(doca_comm_channel_ep_set_max_msg_size(cl, 64));
	CHECK_OK(doca_comm_channel_ep_connect(cl, "test_doca_ep", &peer));
	CHECK_OK(doca_comm_channel_ep_get_event_channel(cl, &c_send, &c_recv));
	CHECK_ERR(doca_comm_channel_ep_get_service_event_channel(cl, &s_svc), DOCA_ERROR_NOT_SUPPORTED);
	/* The client's send channel fires once the connection is up, and the
	 * service channel once the client came: both woken by the layer. */
	CHECK_OK(doca_comm_channel_ep_event_handle_arm_send(cl));
	CHECK(wait_readable(c_send, 30000) == 1, "send channel did not fire");
	CHECK_OK(doca_comm_channel_peer_addr_update_info(peer));
	CHECK(wait_readable(s_svc, 30000) == 1, "service channel did not fire");
	CHECK_OK(doca_comm_channel_ep_update_service_state_info(svc));
	CHECK_OK(doca_comm_channel_ep_get_peer_addr_list(svc, &peers, &nb));
	CHECK_OK(doca_comm_channel_ep_get_pending_connections(svc, &pending));
	CHECK(nb == 0 && pending == 1, "%u connected, %u pending", nb, pending);
	CHECK(wait_readable(s_recv, 300) == 0, "receive channel fired without a message");

	CHECK_ERR(doca_comm_channel_ep_sendto(cl, buf, 65, DOCA_CC_MSG_FLAG_NONE, peer), DOCA_ERROR_INVALID_VALUE);
	CHECK_OK(doca_comm_channel_ep_sendto(cl, "hello", 5, DOCA_CC_MSG_FLAG_NONE, peer));
	CHECK(wait_readable(s_recv, 30000) == 1, "receive channel did not fire after a message");
	len = sizeof(buf);
	CHECK_OK(doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, &from));
	CHECK(len == 5 && memcmp(buf, "hello", 5) == 0, "message");
	CHECK_OK(doca_comm_channel_peer_addr_get_user_data(from, &v));
	CHECK(v == 0, "user data default");
	CHECK_OK(doca_comm_channel_peer_addr_set_user_data(from, 7));
	len = sizeof(buf);
	CHECK_ERR(doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, &from), DOCA_ERROR_AGAIN);
	CHECK_OK(doca_comm_channel_ep_update_service_state_info(svc));
	CHECK_OK(doca_comm_channel_ep_get_peer_addr_list(svc, &peers, &nb));
	CHECK_OK(doca_comm_channel_ep_get_pending_connections(svc, &pending));
	CHECK(nb == 1 && pending == 0 && peers[0] == from, "%u connected, %u pending", nb, pending);
	CHECK_OK(doca_comm_channel_peer_addr_get_user_data(peers[0], &v));
	CHECK(v == 7, "user data");

	/* Re-armed receive channel: quiet again until the next message. */
	CHECK_OK(doca_comm_channel_ep_event_handle_arm_recv(cl));
	CHECK(wait_readable(c_recv, 300) == 0, "client receive channel fired without a message");
	CHECK_OK(doca_comm_channel_ep_sendto(svc, "back", 4, DOCA_CC_MSG_FLAG_NONE, from));
	CHECK(wait_readable(c_recv, 30000) == 1, "client receive channel did not fire");
	len = sizeof(buf);
	CHECK_OK(doca_comm_channel_ep_recvfrom(cl, buf, &len, DOCA_CC_MSG_FLAG_NONE, &from));
	CHECK(len == 4 && from == peer, "answer");
	CHECK_OK(doca_comm_channel_peer_addr_update_info(peer));
	CHECK_OK(doca_comm_channel_peer_addr_get_send_messages(peer, &v));
	CHECK(v == 1, "sent %lu", (unsigned long)v);
	CHECK_OK(doca_comm_channel_peer_addr_get_recv_bytes(peer, &v));
	CHECK(v == 4, "received bytes %lu", (unsigned long)v);

	/* The client leaves: after its messages, the service hears of it. */
	CHECK_OK(doca_comm_channel_ep_sendto(cl, "bye", 3, DOCA_CC_MSG_FLAG_NONE, peer));
	CHECK_OK(doca_comm_channel_ep_disconnect(cl, peer));
	CHECK_OK(doca_comm_channel_ep_event_handle_arm_recv(svc));
	CHECK(wait_readable(s_recv, 30000) == 1, "no receive event");
	len = sizeof(buf);
	CHECK_OK(doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, &from));
	CHECK(len == 3, "the last message first");
	deadline = now() + 30;
	do {
		len = sizeof(buf);
	} while (doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, &from) == DOCA_ERROR_AGAIN &&
		 now() < deadline);
	CHECK_ERR(doca_comm_channel_peer_addr_update_info(from), DOCA_ERROR_CONNECTION_ABORTED);
	CHECK_OK(doca_comm_channel_ep_disconnect(svc, from));
	CHECK_OK(doca_comm_channel_ep_destroy(cl));
	CHECK_OK(doca_comm_channel_ep_destroy(svc));
	return 0;
}

/* ------------------------------------------------ endpoints, hostile peers */

static int
ep_service(const char *name, struct doca_comm_channel_ep_t **svc)
{
	CHECK_OK(doca_comm_channel_ep_create(svc));
	CHECK_OK(doca_comm_channel_ep_set_device(*svc, dpu));
	CHECK_OK(doca_comm_channel_ep_set_device_rep(*svc, rep));
	CHECK_OK(doca_comm_channel_ep_set_max_msg_size(*svc, 64));
	CHECK_OK(doca_comm_channel_ep_set_send_queue_size(*svc, 16));
	CHECK_OK(doca_comm_channel_ep_set_recv_queue_size(*svc, 16));
	CHECK_OK(doca_comm_channel_ep_listen(*svc, name));
	return 0;
}

/* A client connected to @p name that has sent @p hello, and the service's
 * address of it (taken by the service's recvfrom). */
static int
ep_client(struct doca_comm_channel_ep_t *svc, const char *name, const char *hello,
	  struct doca_comm_channel_ep_t **cl, struct doca_comm_channel_addr_t **peer,
	  struct doca_comm_channel_addr_t **from)
{
	double deadline = now() + 30;
	doca_error_t r;
	char buf[64];
	size_t len;

	CHECK_OK(doca_comm_channel_ep_create(cl));
	CHECK_OK(doca_comm_channel_ep_set_device(*cl, host));
	CHECK_OK(doca_comm_channel_ep_set_max_msg_size(*cl, 64));
	CHECK_OK(doca_comm_channel_ep_set_send_queue_size(*cl, 16));
	CHECK_OK(doca_comm_channel_ep_set_recv_queue_size(*cl, 16));
	CHECK_OK(doca_comm_channel_ep_connect(*cl, name, peer));
	/* The service accepts the client as it progresses. */
	while ((r = doca_comm_channel_ep_sendto(*cl, hello, strlen(hello), DOCA_CC_MSG_FLAG_NONE, *peer)) ==
	       DOCA_ERROR_AGAIN && now() < deadline)
		CHECK_OK(doca_comm_channel_ep_update_service_state_info(svc));
	CHECK_OK(r);
	do {
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, from);
	} while (r == DOCA_ERROR_AGAIN && now() < deadline);
	CHECK_OK(r);
	CHECK(len == strlen(hello) && memcmp(buf, hello, len) == 0, "hello");
	return 0;
}

/* Destroying a service endpoint with a client still connected: the
 * connections go with the server, the peers must not touch them after
 * (use after free under ASan). The client hears that the service left. */
static int
test_ep_destroy_connected(void)
{
	struct doca_comm_channel_ep_t *svc, *cl;
	struct doca_comm_channel_addr_t *peer, *from;
	double deadline;
	doca_error_t r;
	char buf[64];
	size_t len;

	if (ep_service("test_doca_ep_destroy", &svc) != 0 ||
	    ep_client(svc, "test_doca_ep_destroy", "hi", &cl, &peer, &from) != 0)
		return -1;
	CHECK_OK(doca_comm_channel_ep_sendto(svc, "ok", 2, DOCA_CC_MSG_FLAG_NONE, from));
	CHECK_OK(doca_comm_channel_ep_destroy(svc));
	deadline = now() + 30;
	do {
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(cl, buf, &len, DOCA_CC_MSG_FLAG_NONE, &from);
	} while ((r == DOCA_ERROR_AGAIN || r == DOCA_SUCCESS) && now() < deadline);
	CHECK_ERR(r, DOCA_ERROR_CONNECTION_RESET);
	CHECK_OK(doca_comm_channel_ep_destroy(cl));
	return 0;
}

/* Fill a service's sends to a client that reads nothing, until they fail
 * with AGAIN (the peer's ring, then its share of the send queue). */
static int
ep_fill(struct doca_comm_channel_ep_t *svc, struct doca_comm_channel_addr_t *to)
{
	double deadline = now() + 30;
	int again = 0, sent = 0;
	doca_error_t r;

	while (again < 100) {
		CHECK(now() < deadline, "sends to a non-reading client never failed");
		r = doca_comm_channel_ep_sendto(svc, "x", 1, DOCA_CC_MSG_FLAG_NONE, to);
		CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_AGAIN, "%s", doca_error_get_name(r));
		if (r == DOCA_SUCCESS) {
			again = 0;
			sent++;
			CHECK(sent < 100000, "sends to a non-reading client never failed");
		} else {
			again++;
		}
	}
	return 0;
}

/* A client leaves while the service's sends to it wait: sendto reports
 * the peer gone as CONNECTION_RESET, never NOT_CONNECTED, however the
 * news arrives (here: in the progress sendto itself makes). */
static int
test_ep_peer_left(void)
{
	struct doca_comm_channel_ep_t *svc, *cl;
	struct doca_comm_channel_addr_t *peer, *from, *f;
	double deadline;
	doca_error_t r;
	char buf[64];
	size_t len;

	if (ep_service("test_doca_ep_left", &svc) != 0 ||
	    ep_client(svc, "test_doca_ep_left", "hi", &cl, &peer, &from) != 0 || ep_fill(svc, from) != 0)
		return -1;
	CHECK_OK(doca_comm_channel_ep_disconnect(cl, peer));
	deadline = now() + 30;
	do {
		r = doca_comm_channel_ep_sendto(svc, "x", 1, DOCA_CC_MSG_FLAG_NONE, from);
	} while ((r == DOCA_ERROR_AGAIN || r == DOCA_SUCCESS) && now() < deadline);
	CHECK_ERR(r, DOCA_ERROR_CONNECTION_RESET);
	CHECK_ERR(doca_comm_channel_ep_sendto(svc, "x", 1, DOCA_CC_MSG_FLAG_NONE, from), DOCA_ERROR_CONNECTION_RESET);
	/* recvfrom tells it too, once. */
	do {
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, &f);
	} while (r == DOCA_ERROR_AGAIN && now() < deadline);
	CHECK_ERR(r, DOCA_ERROR_CONNECTION_RESET);
	CHECK(f == from, "the reset names the peer");
	CHECK_OK(doca_comm_channel_ep_disconnect(svc, from));
	CHECK_OK(doca_comm_channel_ep_destroy(cl));
	CHECK_OK(doca_comm_channel_ep_destroy(svc));
	return 0;
}

#define EP_FLOOD 512

/* The client @p cl sends numbered messages to @p peer until @p max went or
 * its sends have waited 1000 times in a row, while the service @p svc
 * progresses (its state) without reading; *@p seq counts what went. */
static int
ep_flood(struct doca_comm_channel_ep_t *svc, struct doca_comm_channel_ep_t *cl,
	 struct doca_comm_channel_addr_t *peer, uint32_t max, uint32_t *seq, double deadline)
{
	doca_error_t r;
	int again = 0;

	while (*seq < max && again < 1000) {
		CHECK(now() < deadline, "flood");
		r = doca_comm_channel_ep_sendto(cl, seq, sizeof(*seq), DOCA_CC_MSG_FLAG_NONE, peer);
		if (r == DOCA_SUCCESS) {
			(*seq)++;
			again = 0;
			continue;
		}
		CHECK_ERR(r, DOCA_ERROR_AGAIN);
		again++;
		CHECK_OK(doca_comm_channel_ep_update_service_state_info(svc));
	}
	return 0;
}

/* A client sends far more than the service's receive queue while the
 * service progresses (its state) but reads nothing: the service holds a
 * bounded backlog, so the client meets back pressure after a bounded
 * number of messages; once the service reads, every message arrives, in
 * order. */
static int
test_ep_rx_backlog(void)
{
	struct doca_comm_channel_ep_t *svc, *cl;
	struct doca_comm_channel_addr_t *peer, *from, *f;
	uint32_t seq = 0, got = 0, v;
	double deadline;
	doca_error_t r;
	char buf[64];
	size_t len;

	if (ep_service("test_doca_ep_flood", &svc) != 0 ||
	    ep_client(svc, "test_doca_ep_flood", "hi", &cl, &peer, &from) != 0)
		return -1;
	deadline = now() + 30;
	if (ep_flood(svc, cl, peer, EP_FLOOD, &seq, deadline) != 0)
		return -1;
	/* What the client could send: the service's backlog (below twice its
	 * receive queue), its ring (16), the client's send queue (16). */
	CHECK(seq <= 4 * 16, "the service took %u messages without reading (receive queues 16)", seq);
	/* Now it reads: nothing is lost. */
	while (got < EP_FLOOD) {
		CHECK(now() < deadline, "received %u of %u", got, EP_FLOOD);
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(svc, buf, &len, DOCA_CC_MSG_FLAG_NONE, &f);
		if (r == DOCA_SUCCESS) {
			CHECK(f == from && len == sizeof(v), "message");
			memcpy(&v, buf, sizeof(v));
			CHECK(v == got, "message %u where %u was expected", v, got);
			got++;
			continue;
		}
		CHECK_ERR(r, DOCA_ERROR_AGAIN);
		if (seq < EP_FLOOD) {
			r = doca_comm_channel_ep_sendto(cl, &seq, sizeof(seq), DOCA_CC_MSG_FLAG_NONE, peer);
			CHECK(r == DOCA_SUCCESS || r == DOCA_ERROR_AGAIN, "%s", doca_error_get_name(r));
			seq += r == DOCA_SUCCESS;
		} else {
			/* Let the client's waiting sends go. */
			CHECK_OK(doca_comm_channel_peer_addr_update_info(peer));
		}
	}
	CHECK_OK(doca_comm_channel_ep_destroy(cl));
	CHECK_OK(doca_comm_channel_ep_destroy(svc));
	return 0;
}

/* The service's backlog is full and it answers without reading first:
 * its sends' completions still run (the backlog stops the intake, not
 * the sends), so every answer goes once the client reads. */
#define EP_ANSWERS 48

static int
test_ep_answer_backlog(void)
{
	struct doca_comm_channel_ep_t *svc, *cl;
	struct doca_comm_channel_addr_t *peer, *from, *f;
	uint32_t seq = 0, i, got = 0, v;
	double deadline;
	doca_error_t r;
	char buf[64];
	size_t len;
	int tries;

	if (ep_service("test_doca_ep_answer", &svc) != 0 ||
	    ep_client(svc, "test_doca_ep_answer", "hi", &cl, &peer, &from) != 0)
		return -1;
	deadline = now() + 30;
	/* Fill the service's backlog: the client sends until its sends wait. */
	if (ep_flood(svc, cl, peer, UINT32_MAX, &seq, deadline) != 0)
		return -1;
	CHECK(seq >= 16, "the client sent only %u messages", seq);
	/* Three times the send queue of answers, the client reading them. */
	for (i = 0; i < EP_ANSWERS; i++) {
		tries = 0;
		do {
			r = doca_comm_channel_ep_sendto(svc, &i, sizeof(i), DOCA_CC_MSG_FLAG_NONE, from);
			if (r != DOCA_ERROR_AGAIN)
				break;
			len = sizeof(buf);
			if (doca_comm_channel_ep_recvfrom(cl, buf, &len, DOCA_CC_MSG_FLAG_NONE, &f) ==
			    DOCA_SUCCESS) {
				memcpy(&v, buf, sizeof(v));
				CHECK(len == sizeof(v) && v == got, "answer %u where %u was expected", v, got);
				got++;
			}
		} while (++tries < 10000 && now() < deadline);
		CHECK(r == DOCA_SUCCESS, "answer %u: %s after %d tries (the client reads)", i,
		      doca_error_get_name(r), tries);
	}
	while (got < EP_ANSWERS) {
		CHECK(now() < deadline, "the client received %u of %u answers", got, EP_ANSWERS);
		CHECK_OK(doca_comm_channel_ep_update_service_state_info(svc));
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(cl, buf, &len, DOCA_CC_MSG_FLAG_NONE, &f);
		if (r == DOCA_ERROR_AGAIN)
			continue;
		CHECK_OK(r);
		memcpy(&v, buf, sizeof(v));
		CHECK(len == sizeof(v) && v == got, "answer %u where %u was expected", v, got);
		got++;
	}
	CHECK_OK(doca_comm_channel_ep_destroy(cl));
	CHECK_OK(doca_comm_channel_ep_destroy(svc));
	return 0;
}

/* One client reads nothing: its sends wait, holding send tasks, but only
 * its share: the service still answers another client. */
static int
test_ep_send_share(void)
{
	struct doca_comm_channel_ep_t *svc, *a, *b;
	struct doca_comm_channel_addr_t *pa, *pb, *fa, *fb, *f;
	double deadline;
	doca_error_t r;
	char buf[64];
	size_t len;
	int i;

	if (ep_service("test_doca_ep_share", &svc) != 0 ||
	    ep_client(svc, "test_doca_ep_share", "a", &a, &pa, &fa) != 0 ||
	    ep_client(svc, "test_doca_ep_share", "b", &b, &pb, &fb) != 0 || ep_fill(svc, fa) != 0)
		return -1;
	deadline = now() + 30;
	for (i = 0; i < 10; i++) {
		int tries = 0;

		do {
			r = doca_comm_channel_ep_sendto(svc, "to b", 4, DOCA_CC_MSG_FLAG_NONE, fb);
			if (r == DOCA_ERROR_AGAIN) {
				/* b reads what it has. */
				len = sizeof(buf);
				doca_comm_channel_ep_recvfrom(b, buf, &len, DOCA_CC_MSG_FLAG_NONE, &f);
			}
		} while (r == DOCA_ERROR_AGAIN && ++tries < 1000 && now() < deadline);
		CHECK(r == DOCA_SUCCESS, "send %d to the reading client: %s (a non-reading client holds the send queue)",
		      i, doca_error_get_name(r));
	}
	CHECK_OK(doca_comm_channel_ep_destroy(a));
	CHECK_OK(doca_comm_channel_ep_destroy(b));
	CHECK_OK(doca_comm_channel_ep_destroy(svc));
	return 0;
}

static uint32_t churn_conns, churn_gone;

static void
churn_connect(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c, uint8_t ok)
{
	(void)e;
	(void)c;
	(void)ok;
	churn_conns++;
}

static void
churn_disconnect(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c,
		 uint8_t ok)
{
	(void)e;
	(void)c;
	(void)ok;
	churn_gone++;
}

#define CHURN_ROUNDS 64

/* Clients come and go: the server frees their connections as it goes
 * (the pointer is invalid once the disconnection callback returned), it
 * does not keep them until it stops. */
static int
test_conn_churn(void)
{
	struct doca_comch_server *s;
	struct doca_comch_client *c;
	struct doca_pe *pe;
	double deadline = now() + 60;
	uint32_t i;

	churn_conns = churn_gone = 0;
	CHECK_OK(doca_pe_create(&pe));
	CHECK_OK(doca_comch_server_create(dpu, rep, "test_doca_churn", &s));
	CHECK_OK(doca_comch_server_event_msg_recv_register(s, on_srv_msg));
	CHECK_OK(doca_comch_server_event_connection_status_changed_register(s, churn_connect, churn_disconnect));
	CHECK_OK(doca_pe_connect_ctx(pe, doca_comch_server_as_ctx(s)));
	CHECK_OK(doca_ctx_start(doca_comch_server_as_ctx(s)));
	for (i = 0; i < CHURN_ROUNDS; i++) {
		CHECK_OK(doca_comch_client_create(host, "test_doca_churn", &c));
		CHECK_OK(doca_pe_connect_ctx(pe, doca_comch_client_as_ctx(c)));
		CHECK_ERR(doca_ctx_start(doca_comch_client_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
		CHECK(until_state(pe, NULL, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_RUNNING) == 0, "client");
		while (churn_conns != i + 1 && now() < deadline)
			doca_pe_progress(pe);
		CHECK(churn_conns == i + 1, "connections %u", churn_conns);
		CHECK_OK(doca_ctx_stop(doca_comch_client_as_ctx(c)));
		CHECK(until_state(pe, NULL, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE) == 0, "stop");
		CHECK_OK(doca_comch_client_destroy(c));
		while (churn_gone != i + 1 && now() < deadline)
			doca_pe_progress(pe);
		CHECK(churn_gone == i + 1, "disconnections %u", churn_gone);
	}
	/* One more progress after the last disconnection frees it. */
	doca_pe_progress(pe);
	CHECK(dcc_server_nb_released(s) <= 1, "%u connections of %u kept after they left",
	      dcc_server_nb_released(s), CHURN_ROUNDS);
	CHECK_OK(doca_ctx_stop(doca_comch_server_as_ctx(s)));
	CHECK_OK(doca_comch_server_destroy(s));
	CHECK_OK(doca_pe_destroy(pe));
	return 0;
}

/* ---------------------------------------------------------------- doca_cc */

static bool cc_got;

static void
cc_msg(struct doca_cc_event_msg_recv *e, uint8_t *buf, uint32_t len, struct doca_cc_connection *c)
{
	(void)e;
	(void)c;
	cc_got = len == 2 && memcmp(buf, "cc", 2) == 0;
}

static void
cc_sent(struct doca_cc_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_cc_task_send_as_task(t));
}

static int
test_doca_cc(void)
{
	struct doca_cc_server *s;
	struct doca_cc_client *c;
	struct doca_cc_connection *conn;
	struct doca_cc_task_send *t;
	struct doca_pe *pe;

	CHECK_OK(doca_pe_create(&pe));
	CHECK_OK(doca_cc_server_create(dpu, rep, "test_doca_cc", &s));
	CHECK_OK(doca_cc_server_event_msg_recv_register(s, cc_msg));
	CHECK_OK(doca_pe_connect_ctx(pe, doca_cc_server_as_ctx(s)));
	CHECK_OK(doca_ctx_start(doca_cc_server_as_ctx(s)));
	CHECK_OK(doca_cc_client_create(host, "test_doca_cc", &c));
	CHECK_OK(doca_cc_client_task_send_set_conf(c, cc_sent, cc_sent, 4));
	CHECK_OK(doca_pe_connect_ctx(pe, doca_cc_client_as_ctx(c)));
	CHECK_ERR(doca_ctx_start(doca_cc_client_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	CHECK(until_state(pe, NULL, doca_cc_client_as_ctx(c), DOCA_CTX_STATE_RUNNING) == 0, "cc client");
	CHECK_OK(doca_cc_client_get_connection(c, &conn));
	CHECK_OK(doca_cc_client_task_send_alloc_init(c, conn, "cc", 2, &t));
	CHECK_OK(doca_task_submit(doca_cc_task_send_as_task(t)));
	CHECK(until(pe, NULL, &cc_got) == 0, "no message through doca_cc");
	CHECK_OK(doca_ctx_stop(doca_cc_client_as_ctx(c)));
	CHECK(until_state(pe, NULL, doca_cc_client_as_ctx(c), DOCA_CTX_STATE_IDLE) == 0, "stop");
	CHECK_OK(doca_ctx_stop(doca_cc_server_as_ctx(s)));
	CHECK_OK(doca_cc_client_destroy(c));
	CHECK_OK(doca_cc_server_destroy(s));
	CHECK_OK(doca_pe_destroy(pe));
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "errors", test_errors },
	{ "state_machine", test_state_machine },
	{ "devices", test_devices },
	{ "control_path", test_control_path },
	{ "fast_path", test_fast_path },
	{ "pe_notification", test_pe_notification },
	{ "disconnect", test_disconnect },
	{ "endpoints", test_endpoints },
	{ "ep_destroy_connected", test_ep_destroy_connected },
	{ "ep_peer_left", test_ep_peer_left },
	{ "ep_rx_backlog", test_ep_rx_backlog },
	{ "ep_answer_backlog", test_ep_answer_backlog },
	{ "ep_send_share", test_ep_send_share },
	{ "conn_churn", test_conn_churn },
	{ "doca_cc", test_doca_cc },
};

int
main(void)
{
	char conf[256];
	size_t i;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(link_dir, sizeof(link_dir), "/tmp/doca-api-%d", (int)getpid());
	snprintf(conf, sizeof(conf), "dpu 03:00.0 pf0=03:00.1 pf0vf1=03:00.2 path=%s", link_dir);
	setenv("DOCA_COMCH_EMU", conf, 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = cases[i].fn();

		printf("%s %s\n", ret == 0 ? "ok" : "FAIL", cases[i].name);
		if (ret != 0) {
			failed = 1;
			break;   /* later cases build on earlier ones */
		}
	}
	if (rep != NULL)
		doca_dev_rep_close(rep);
	if (host != NULL)
		doca_dev_close(host);
	if (dpu != NULL)
		doca_dev_close(dpu);
	rmdir(link_dir);
	return failed;
}
