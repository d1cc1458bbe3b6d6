/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * File transfer over DOCA Comch control messages, sending side (host).
 * The file (-f) goes in chunks of the largest message the connection
 * takes, in order, then its CRC-32; the DPU answers with the CRC-32 of
 * what it wrote. Back pressure: every send is a task; when they are all
 * in flight (the DPU is slower), alloc_init says DOCA_ERROR_NO_MEMORY and
 * the program progresses the engine and tries again; the count of such
 * retries is printed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "file_proto.h"
#include "samples_common.h"

DOCA_LOG_REGISTER(FILE_CLIENT);

#define SEND_TASKS 8

struct client_state {
	uint32_t in_flight;
	bool acked;
	uint32_t ack_crc;
	uint32_t ack_ok;
	doca_error_t result;
};

static struct client_state st = { .result = DOCA_SUCCESS };

static void
sent(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	st.in_flight--;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	st.in_flight--;
	st.result = doca_task_get_status(doca_comch_task_send_as_task(task));
	DOCA_LOG_ERR("A send failed: %s", doca_error_get_descr(st.result));
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct file_hdr h;

	(void)event;
	(void)conn;
	if (len != sizeof(h) + 8) {
		st.result = DOCA_ERROR_UNEXPECTED;
		return;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.type != FILE_ACK) {
		st.result = DOCA_ERROR_UNEXPECTED;
		return;
	}
	memcpy(&st.ack_crc, buf + sizeof(h), 4);
	memcpy(&st.ack_ok, buf + sizeof(h) + 4, 4);
	st.acked = true;
}

/* Send one message; while every task is in flight, progress and retry. */
static doca_error_t
send_msg(struct doca_pe *pe, struct doca_comch_client *client, struct doca_comch_connection *conn,
	 const void *msg, uint32_t len, uint64_t *retries)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_comch_task_send *task;
	double deadline = sample_now() + 60;
	doca_error_t ret;

	for (;;) {
		ret = doca_comch_client_task_send_alloc_init(client, conn, msg, len, &task);
		if (ret == DOCA_SUCCESS) {
			ret = doca_task_submit(doca_comch_task_send_as_task(task));
			if (ret == DOCA_SUCCESS) {
				st.in_flight++;
				return DOCA_SUCCESS;
			}
			doca_task_free(doca_comch_task_send_as_task(task));
		}
		if (ret != DOCA_ERROR_NO_MEMORY && ret != DOCA_ERROR_AGAIN)
			return ret;
		if (st.result != DOCA_SUCCESS)
			return st.result;
		if (sample_now() > deadline)
			return DOCA_ERROR_TIME_OUT;
		(*retries)++;
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
}

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .count = 1 };
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_comch_connection *conn;
	struct doca_comch_client *client = NULL;
	struct doca_log_backend *sdk_log;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	struct file_hdr h;
	uint64_t size = 0, retries = 0, sent_bytes = 0;
	uint32_t max_msg = 0, chunk, crc = 0, seq = 0;
	uint8_t *msg = NULL;
	FILE *f = NULL;
	double t0, deadline;
	size_t n;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	ret = doca_argp_init("doca_comch_file_client", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(false, true);
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_start(argc, argv);
	if (ret != DOCA_SUCCESS)
		goto argp;
	f = fopen(cfg.file, "rb");
	if (f == NULL) {
		DOCA_LOG_ERR("Cannot open the file to send (-f %s)", cfg.file);
		ret = DOCA_ERROR_INVALID_VALUE;
		goto argp;
	}
	fseek(f, 0, SEEK_END);
	size = (uint64_t)ftell(f);
	fseek(f, 0, SEEK_SET);

	ret = sample_open_dev(cfg.pci, doca_comch_cap_client_is_supported, &dev);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = doca_pe_create(&pe);
	if (ret != DOCA_SUCCESS)
		goto close_dev;
	ret = doca_comch_client_create(dev, FILE_SERVER_NAME, &client);
	if (ret != DOCA_SUCCESS)
		goto destroy_pe;
	ctx = doca_comch_client_as_ctx(client);
	(void)doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max_msg);
	ret = doca_comch_client_set_max_msg_size(client, max_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_task_send_set_conf(client, sent, send_failed, SEND_TASKS);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_event_msg_recv_register(client, received);
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
	msg = malloc(max_msg);
	chunk = max_msg - (uint32_t)sizeof(h);
	t0 = sample_now();

	h = (struct file_hdr){ .type = FILE_START };
	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), &size, sizeof(size));
	ret = send_msg(pe, client, conn, msg, sizeof(h) + sizeof(size), &retries);
	while (ret == DOCA_SUCCESS && (n = fread(msg + sizeof(h), 1, chunk, f)) > 0) {
		h = (struct file_hdr){ .type = FILE_CHUNK, .seq = seq++ };
		memcpy(msg, &h, sizeof(h));
		crc = sample_crc32(crc, msg + sizeof(h), n);
		/* The message is read at submit: msg can be reused at once. */
		ret = send_msg(pe, client, conn, msg, (uint32_t)(sizeof(h) + n), &retries);
		sent_bytes += n;
	}
	if (ret == DOCA_SUCCESS) {
		h = (struct file_hdr){ .type = FILE_END, .seq = seq };
		memcpy(msg, &h, sizeof(h));
		memcpy(msg + sizeof(h), &crc, sizeof(crc));
		ret = send_msg(pe, client, conn, msg, sizeof(h) + sizeof(crc), &retries);
	}
	deadline = sample_now() + 60;
	while (ret == DOCA_SUCCESS && (!st.acked || st.in_flight != 0) && st.result == DOCA_SUCCESS) {
		if (sample_now() > deadline) {
			ret = DOCA_ERROR_TIME_OUT;
			break;
		}
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	if (ret == DOCA_SUCCESS)
		ret = st.result;
	if (ret == DOCA_SUCCESS) {
		printf("client: sent %lu bytes in %u chunks of up to %u bytes in %.3f s; CRC-32 %08x, the DPU's %08x: %s; back-pressure retries: %lu\n",
		       (unsigned long)sent_bytes, seq, chunk, sample_now() - t0, crc, st.ack_crc,
		       st.ack_ok && st.ack_crc == crc ? "match" : "MISMATCH", (unsigned long)retries);
		if (!st.ack_ok || st.ack_crc != crc)
			ret = DOCA_ERROR_UNEXPECTED;
	} else {
		DOCA_LOG_ERR("Transfer failed: %s", doca_error_get_descr(ret));
	}
stop:
	(void)doca_ctx_stop(ctx);
	(void)sample_wait_state(pe, ctx, DOCA_CTX_STATE_IDLE, 10);
	doca_comch_client_destroy(client);
destroy_pe:
	doca_pe_destroy(pe);
close_dev:
	doca_dev_close(dev);
argp:
	free(msg);
	if (f != NULL)
		fclose(f);
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
