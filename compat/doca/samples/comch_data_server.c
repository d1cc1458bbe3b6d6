/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch high-speed data path, server side (DPU): a control-path
 * server (-p, -r) whose connection carries a consumer and a producer on
 * each side; -n messages "<-t> #i" go each way (fast_path.c). The server
 * waits for the client, runs the fast path, then for the client to leave.
 * One client is served: a second connection is closed at once, and the
 * consumers of any other connection never change where the server sends
 * (fast_path.c keeps the peer's consumer per connection).
 */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "fast_path.h"
#include "samples_common.h"

DOCA_LOG_REGISTER(COMCH_DATA_SERVER);

#define SERVER_NAME "doca_comch_data_sample"

static struct doca_comch_server *server;
static struct doca_comch_connection *the_conn;
static bool serving;      /* fp_run() has the_conn */
static bool client_left;

static void
client_connected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		 uint8_t ok)
{
	(void)event;
	if (!ok)
		return;
	if (the_conn == NULL) {
		the_conn = conn;
		return;
	}
	/* One client is served; another connection is closed at once (its
	 * host is told), whatever it would have done. */
	printf("server: serving one client; closing a second connection\n");
	if (doca_comch_server_disconnect(server, conn) != DOCA_SUCCESS)
		DOCA_LOG_WARN("Cannot close the second connection; it is ignored");
}

static void
client_disconnected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		    uint8_t ok)
{
	(void)event;
	(void)ok;
	if (conn != the_conn)
		return;
	/* The connection object goes once this returns (the vendor's rule,
	 * even within the progress that reported it connected): a client
	 * that left before it was served is forgotten, the next one served. */
	if (!serving) {
		printf("server: a client left before it was served; waiting for another\n");
		the_conn = NULL;
		return;
	}
	client_left = true;
}

static void
ignore_msg(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	(void)event;
	(void)buf;
	(void)len;
	(void)conn;
}

static void
ignore_send(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .text = "from the DPU", .count = 1 };
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_log_backend *sdk_log;
	struct doca_dev_rep *rep = NULL;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	double deadline;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	ret = doca_argp_init("doca_comch_data_server", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(true, true);
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_start(argc, argv);
	if (ret != DOCA_SUCCESS)
		goto argp;
	if (cfg.pci[0] == '\0' || cfg.rep_pci[0] == '\0') {
		DOCA_LOG_ERR("Give the device (-p) and the representor (-r) PCI addresses");
		ret = DOCA_ERROR_INVALID_VALUE;
		goto argp;
	}
	ret = sample_open_dev(cfg.pci, doca_comch_cap_server_is_supported, &dev);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = sample_open_rep(dev, cfg.rep_pci, &rep);
	if (ret != DOCA_SUCCESS)
		goto close_dev;
	ret = doca_pe_create(&pe);
	if (ret != DOCA_SUCCESS)
		goto close_rep;
	ret = doca_comch_server_create(dev, rep, SERVER_NAME, &server);
	if (ret != DOCA_SUCCESS)
		goto destroy_pe;
	ctx = doca_comch_server_as_ctx(server);
	ret = doca_comch_server_task_send_set_conf(server, ignore_send, ignore_send, 8);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_msg_recv_register(server, ignore_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_connection_status_changed_register(server, client_connected,
										 client_disconnected);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_consumer_register(server, fp_new_consumer, fp_expired_consumer);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, ctx);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_start(ctx);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the server: %s", doca_error_get_descr(ret));
		goto destroy_server;
	}
	printf("server: listening as \"%s\"\n", SERVER_NAME);
	while (the_conn == NULL) {
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	printf("server: client connected\n");
	serving = true;   /* no progress until fp_run() holds the connection */
	ret = fp_run("server", pe, dev, the_conn, cfg.text, (uint32_t)cfg.count);
	/* The client leaves once its side is done too. */
	deadline = sample_now() + 60;
	while (!client_left && sample_now() < deadline) {
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	(void)doca_ctx_stop(ctx);
	(void)sample_wait_state(pe, ctx, DOCA_CTX_STATE_IDLE, 10);
destroy_server:
	doca_comch_server_destroy(server);
destroy_pe:
	doca_pe_destroy(pe);
close_rep:
	doca_dev_rep_close(rep);
close_dev:
	doca_dev_close(dev);
argp:
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
