/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch control path, server side (runs on the DPU), as the vendor's
 * programming guide describes the flow: open the device (-p) and the
 * representor of the host function to serve (-r), create a server, size
 * it from the device's capabilities, register the send task and the
 * message and connection events, start it on a progress engine, then:
 * print the client's message, answer with -t, and exit once the client
 * disconnected.
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

#include "samples_common.h"

DOCA_LOG_REGISTER(COMCH_CTRL_SERVER);

#define SERVER_NAME "doca_comch_ctrl_sample"

struct server_state {
	struct sample_cfg *cfg;
	struct doca_comch_server *server;
	uint32_t nb_received;
	bool client_left;
	doca_error_t result;
};

static void
printable(char *out, size_t size, const uint8_t *in, uint32_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? (char)in[i] : '?';
	out[i] = '\0';
}

static void
send_done(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	DOCA_LOG_INFO("Response sent");
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct server_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->result = doca_task_get_status(doca_comch_task_send_as_task(task));
	DOCA_LOG_ERR("Response failed: %s", doca_error_get_descr(st->result));
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
message_received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
		 struct doca_comch_connection *conn)
{
	struct server_state *st = doca_comch_connection_get_user_data(conn).ptr;
	struct doca_comch_task_send *task;
	char text[256];
	doca_error_t ret;

	(void)event;
	printable(text, sizeof(text), buf, len);
	printf("server: message from the client: \"%s\"\n", text);
	st->nb_received++;
	ret = doca_comch_server_task_send_alloc_init(st->server, conn, st->cfg->text,
						     (uint32_t)strlen(st->cfg->text), &task);
	if (ret == DOCA_SUCCESS) {
		ret = doca_task_submit(doca_comch_task_send_as_task(task));
		if (ret != DOCA_SUCCESS)
			doca_task_free(doca_comch_task_send_as_task(task));
	}
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send the response: %s", doca_error_get_descr(ret));
		st->result = ret;
	}
}

static void
client_connected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		 uint8_t ok)
{
	struct doca_comch_server *server = doca_comch_server_get_server_ctx(conn);
	union doca_data ud;

	(void)event;
	if (!ok)
		return;
	/* Reach the program's state from the connection's callbacks. */
	doca_ctx_get_user_data(doca_comch_server_as_ctx(server), &ud);
	doca_comch_connection_set_user_data(conn, ud);
	DOCA_LOG_INFO("Client connected");
}

static void
client_disconnected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		    uint8_t ok)
{
	struct server_state *st = doca_comch_connection_get_user_data(conn).ptr;

	(void)event;
	(void)ok;
	DOCA_LOG_INFO("Client disconnected");
	if (st != NULL)
		st->client_left = true;
}

static void
state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	DOCA_LOG_DBG("Server state %d -> %d", prev, next);
}

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .text = "Message from the server" };
	struct server_state st = { .cfg = &cfg, .result = DOCA_SUCCESS };
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_log_backend *sdk_log;
	struct doca_dev_rep *rep = NULL;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	union doca_data ud;
	uint32_t max_msg, max_queue;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);

	ret = doca_argp_init("doca_comch_ctrl_server", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(true, false);
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
	ret = doca_comch_server_create(dev, rep, SERVER_NAME, &st.server);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the server: %s", doca_error_get_descr(ret));
		goto destroy_pe;
	}
	ctx = doca_comch_server_as_ctx(st.server);
	ud.ptr = &st;
	(void)doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max_msg);
	(void)doca_comch_cap_get_max_recv_queue_size(doca_dev_as_devinfo(dev), &max_queue);
	ret = doca_comch_server_set_max_msg_size(st.server, max_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_set_recv_queue_size(st.server, max_queue < 64 ? max_queue : 64);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_task_send_set_conf(st.server, send_done, send_failed, 64);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_msg_recv_register(st.server, message_received);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_connection_status_changed_register(st.server, client_connected,
										 client_disconnected);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_set_user_data(ctx, ud);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_set_state_changed_cb(ctx, state_changed);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, ctx);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_start(ctx);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure or start the server: %s", doca_error_get_descr(ret));
		goto destroy_server;
	}
	printf("server: listening as \"%s\" on %s for the host function at %s\n", SERVER_NAME, cfg.pci,
	       cfg.rep_pci);

	while (!st.client_left && st.result == DOCA_SUCCESS) {
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	printf("server: %u message(s) answered, client gone\n", st.nb_received);

	(void)doca_ctx_stop(ctx);
	(void)sample_wait_state(pe, ctx, DOCA_CTX_STATE_IDLE, 10);
destroy_server:
	doca_comch_server_destroy(st.server);
destroy_pe:
	doca_pe_destroy(pe);
close_rep:
	doca_dev_rep_close(rep);
close_dev:
	doca_dev_close(dev);
argp:
	doca_argp_destroy();
	if (ret == DOCA_SUCCESS)
		ret = st.result;
	return ret == DOCA_SUCCESS ? 0 : 1;
}
