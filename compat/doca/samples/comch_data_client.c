/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch high-speed data path, client side (host): connect (-p), run
 * the fast path (fast_path.c: -n messages "<-t> #i" each way), leave.
 */

#include <stdio.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "fast_path.h"
#include "samples_common.h"

DOCA_LOG_REGISTER(COMCH_DATA_CLIENT);

#define SERVER_NAME "doca_comch_data_sample"

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
	struct sample_cfg cfg = { .text = "from the host", .count = 1 };
	struct doca_comch_client *client = NULL;
	struct doca_comch_connection *conn;
	struct doca_log_backend *sdk_log;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	ret = doca_argp_init("doca_comch_data_client", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(false, true);
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
	if (ret != DOCA_SUCCESS)
		goto destroy_pe;
	ctx = doca_comch_client_as_ctx(client);
	ret = doca_comch_client_task_send_set_conf(client, ignore_send, ignore_send, 8);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_event_msg_recv_register(client, ignore_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_event_consumer_register(client, fp_new_consumer, fp_expired_consumer);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, ctx);
	if (ret == DOCA_SUCCESS && doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
		ret = DOCA_ERROR_BAD_STATE;
	if (ret == DOCA_SUCCESS)
		ret = sample_wait_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 60);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_get_connection(client, &conn);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect: %s", doca_error_get_descr(ret));
		goto stop;
	}
	printf("client: connected\n");
	ret = fp_run("client", pe, dev, conn, cfg.text, (uint32_t)cfg.count);
stop:
	(void)doca_ctx_stop(ctx);
	(void)sample_wait_state(pe, ctx, DOCA_CTX_STATE_IDLE, 10);
	doca_comch_client_destroy(client);
destroy_pe:
	doca_pe_destroy(pe);
close_dev:
	doca_dev_close(dev);
argp:
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
