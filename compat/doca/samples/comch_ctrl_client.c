/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch control path, client side (runs on the host), as the
 * vendor's programming guide describes the flow: open the device (-p),
 * create a client for the server's name, start it and progress until it
 * is running (connected), send -t, wait for the server's answer, print
 * it, stop.
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

DOCA_LOG_REGISTER(COMCH_CTRL_CLIENT);

#define SERVER_NAME "doca_comch_ctrl_sample"

struct client_state {
	bool answered;
	bool sent;
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
	struct client_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->sent = true;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct client_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->result = doca_task_get_status(doca_comch_task_send_as_task(task));
	DOCA_LOG_ERR("Send failed: %s", doca_error_get_descr(st->result));
	doca_task_free(doca_comch_task_send_as_task(task));
}

static struct client_state *the_state;

static void
message_received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
		 struct doca_comch_connection *conn)
{
	char text[256];

	(void)event;
	(void)conn;
	printable(text, sizeof(text), buf, len);
	printf("client: answer from the server: \"%s\"\n", text);
	the_state->answered = true;
}

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .text = "Message from the client" };
	struct client_state st = { .result = DOCA_SUCCESS };
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_comch_connection *conn;
	struct doca_comch_client *client = NULL;
	struct doca_comch_task_send *task;
	struct doca_log_backend *sdk_log;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	union doca_data ud;
	uint32_t max_msg;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	the_state = &st;
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);

	ret = doca_argp_init("doca_comch_ctrl_client", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(false, false);
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_start(argc, argv);
	if (ret != DOCA_SUCCESS)
		goto argp;
	if (cfg.pci[0] == '\0') {
		DOCA_LOG_ERR("Give the device PCI address (-p)");
		ret = DOCA_ERROR_INVALID_VALUE;
		goto argp;
	}
	ret = sample_open_dev(cfg.pci, doca_comch_cap_client_is_supported, &dev);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = doca_pe_create(&pe);
	if (ret != DOCA_SUCCESS)
		goto close_dev;
	ret = doca_comch_client_create(dev, SERVER_NAME, &client);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the client: %s", doca_error_get_descr(ret));
		goto destroy_pe;
	}
	ctx = doca_comch_client_as_ctx(client);
	ud.ptr = &st;
	(void)doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max_msg);
	ret = doca_comch_client_set_max_msg_size(client, max_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_task_send_set_conf(client, send_done, send_failed, 64);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_event_msg_recv_register(client, message_received);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_set_user_data(ctx, ud);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, ctx);
	if (ret == DOCA_SUCCESS) {
		/* The client is running once the server accepted it. */
		ret = doca_ctx_start(ctx);
		if (ret == DOCA_ERROR_IN_PROGRESS)
			ret = DOCA_SUCCESS;
	}
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure or start the client: %s", doca_error_get_descr(ret));
		goto destroy_client;
	}
	ret = sample_wait_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 60);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The client did not connect: %s", doca_error_get_descr(ret));
		goto stop;
	}
	ret = doca_comch_client_get_connection(client, &conn);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_task_send_alloc_init(client, conn, cfg.text, (uint32_t)strlen(cfg.text),
							     &task);
	if (ret == DOCA_SUCCESS) {
		ret = doca_task_submit(doca_comch_task_send_as_task(task));
		if (ret != DOCA_SUCCESS)
			doca_task_free(doca_comch_task_send_as_task(task));
	}
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send: %s", doca_error_get_descr(ret));
		goto stop;
	}
	while ((!st.answered || !st.sent) && st.result == DOCA_SUCCESS) {
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	ret = st.result;
stop:
	(void)doca_ctx_stop(ctx);
	(void)sample_wait_state(pe, ctx, DOCA_CTX_STATE_IDLE, 10);
destroy_client:
	doca_comch_client_destroy(client);
destroy_pe:
	doca_pe_destroy(pe);
close_dev:
	doca_dev_close(dev);
argp:
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
