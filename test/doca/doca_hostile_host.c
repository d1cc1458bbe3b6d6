/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * A hostile host for test_doca_pairs.sh, written to the vendor's API as
 * the samples are: it uses the API as documented, and then does what a
 * broken or malicious host would do to the DPU samples.
 *
 *   doca_hostile_host PCI file SCRIPT
 *	to doca_comch_file_server: sends the messages SCRIPT lists, in
 *	order, whitespace separated:
 *	  start:N   FILE_START announcing N bytes
 *	  chunks:K  K FILE_CHUNKs of 1000 bytes, numbered on from the last
 *	  end       FILE_END with the CRC-32 of every chunk sent so far
 *	then waits for an answer to each FILE_END or for the DPU to close
 *	the connection.
 *   doca_hostile_host PCI consumers SERVER_NAME N HOLD_S
 *	opens a connection to SERVER_NAME and starts N consumers on it
 *	(each is announced to the server), then holds the connection until
 *	the DPU closes it or HOLD_S seconds passed.
 *
 * Prints "hostile: ..." lines, the last "hostile: done". Exit status 0
 * when it did what it was told or the DPU cut it short (closing the
 * connection is what a DPU may do to such a host), 2 when it could not
 * start (usage, device, no server).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "file_proto.h"
#include "samples_common.h"

#define CHUNK 1000
#define SEND_TASKS 8
#define MAX_CONSUMERS 16

static struct {
	uint32_t in_flight;
	uint32_t acks;
	bool lost;
} st;

static const struct timespec nap = { .tv_sec = 0, .tv_nsec = 50000 };

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
	st.lost = true;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct file_hdr h;

	(void)event;
	(void)conn;
	if (len >= sizeof(h)) {
		memcpy(&h, buf, sizeof(h));
		if (h.type == FILE_ACK)
			st.acks++;
	}
}

static bool
connection_gone(struct doca_ctx *ctx)
{
	enum doca_ctx_states s;

	if (doca_ctx_get_state(ctx, &s) != DOCA_SUCCESS || s != DOCA_CTX_STATE_RUNNING)
		st.lost = true;
	return st.lost;
}

/* The client reached RUNNING (DOCA_SUCCESS), went back to IDLE (the DPU
 * closed the connection at once: DOCA_ERROR_CONNECTION_RESET), or 60 s
 * passed (DOCA_ERROR_TIME_OUT). */
static doca_error_t
wait_running(struct doca_pe *pe, struct doca_ctx *ctx)
{
	double deadline = sample_now() + 60;
	enum doca_ctx_states s;

	for (;;) {
		(void)doca_ctx_get_state(ctx, &s);
		if (s == DOCA_CTX_STATE_RUNNING)
			return DOCA_SUCCESS;
		if (s == DOCA_CTX_STATE_IDLE) {
			st.lost = true;
			return DOCA_ERROR_CONNECTION_RESET;
		}
		if (sample_now() > deadline)
			return DOCA_ERROR_TIME_OUT;
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
}

/* Send one message; while every task is in flight, progress and retry.
 * false: the connection is gone. */
static bool
send_msg(struct doca_pe *pe, struct doca_comch_client *client, struct doca_comch_connection *conn,
	 const void *msg, uint32_t len)
{
	struct doca_comch_task_send *task;
	double deadline = sample_now() + 60;
	doca_error_t ret;

	while (!connection_gone(doca_comch_client_as_ctx(client)) && sample_now() < deadline) {
		ret = doca_comch_client_task_send_alloc_init(client, conn, msg, len, &task);
		if (ret == DOCA_SUCCESS) {
			ret = doca_task_submit(doca_comch_task_send_as_task(task));
			if (ret == DOCA_SUCCESS) {
				st.in_flight++;
				return true;
			}
			doca_task_free(doca_comch_task_send_as_task(task));
		}
		if (ret != DOCA_ERROR_NO_MEMORY && ret != DOCA_ERROR_AGAIN) {
			st.lost = true;
			break;
		}
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	return false;
}

static int
run_file(struct doca_pe *pe, struct doca_comch_client *client, struct doca_comch_connection *conn, char *script)
{
	uint8_t msg[sizeof(struct file_hdr) + CHUNK];
	uint32_t seq = 0, crc = 0, ends = 0, msgs = 0;
	uint64_t bytes = 0;
	struct file_hdr h;
	double deadline;
	char *tok, *save;
	unsigned long long v;
	uint32_t i;

	for (tok = strtok_r(script, " \t\n", &save); tok != NULL && !st.lost; tok = strtok_r(NULL, " \t\n", &save)) {
		if (sscanf(tok, "start:%llu", &v) == 1) {
			uint64_t size = v;

			h = (struct file_hdr){ .type = FILE_START };
			memcpy(msg, &h, sizeof(h));
			memcpy(msg + sizeof(h), &size, sizeof(size));
			if (send_msg(pe, client, conn, msg, sizeof(h) + sizeof(size)))
				msgs++;
			printf("hostile: announced a file of %llu bytes\n", v);
		} else if (sscanf(tok, "chunks:%llu", &v) == 1) {
			for (i = 0; i < v && !st.lost; i++) {
				h = (struct file_hdr){ .type = FILE_CHUNK, .seq = seq };
				memcpy(msg, &h, sizeof(h));
				memset(msg + sizeof(h), 'a' + (int)(seq % 26), CHUNK);
				if (!send_msg(pe, client, conn, msg, sizeof(msg)))
					break;
				crc = sample_crc32(crc, msg + sizeof(h), CHUNK);
				seq++;
				msgs++;
				bytes += CHUNK;
			}
		} else if (strcmp(tok, "end") == 0) {
			h = (struct file_hdr){ .type = FILE_END, .seq = seq };
			memcpy(msg, &h, sizeof(h));
			memcpy(msg + sizeof(h), &crc, sizeof(crc));
			if (send_msg(pe, client, conn, msg, sizeof(h) + sizeof(crc))) {
				msgs++;
				ends++;
			}
		} else {
			fprintf(stderr, "hostile: unknown step \"%s\"\n", tok);
			return 2;
		}
	}
	printf("hostile: sent %u messages, %lu bytes in chunks\n", msgs, (unsigned long)bytes);
	/* Until every FILE_END is answered, or the DPU closed the connection. */
	deadline = sample_now() + 60;
	while (!connection_gone(doca_comch_client_as_ctx(client)) && (st.acks < ends || st.in_flight != 0) &&
	       sample_now() < deadline)
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	printf("hostile: %u of %u FILE_END answered%s\n", st.acks, ends,
	       st.lost ? "; the DPU closed the connection" : "");
	return 0;
}

static void
recv_any(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static int
run_consumers(struct doca_pe *pe, struct doca_dev *dev, struct doca_comch_client *client,
	      struct doca_comch_connection *conn, int count, int hold_s)
{
	struct doca_comch_consumer *cons[MAX_CONSUMERS] = { NULL };
	static char mem[4096];
	struct doca_mmap *mmap = NULL;
	doca_error_t ret;
	double deadline;
	int i, started = 0;

	ret = doca_mmap_create(&mmap);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_set_memrange(mmap, mem, sizeof(mem));
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_add_dev(mmap, dev);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_start(mmap);
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "hostile: memory: %s\n", doca_error_get_descr(ret));
		return 2;
	}
	for (i = 0; i < count && !connection_gone(doca_comch_client_as_ctx(client)); i++) {
		ret = doca_comch_consumer_create(conn, mmap, &cons[i]);
		if (ret == DOCA_SUCCESS)
			ret = doca_comch_consumer_task_post_recv_set_conf(cons[i], recv_any, recv_any, 1);
		if (ret == DOCA_SUCCESS)
			ret = doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(cons[i]));
		if (ret == DOCA_SUCCESS) {
			ret = doca_ctx_start(doca_comch_consumer_as_ctx(cons[i]));
			if (ret == DOCA_ERROR_IN_PROGRESS)
				ret = sample_wait_state(pe, doca_comch_consumer_as_ctx(cons[i]),
							DOCA_CTX_STATE_RUNNING, 30);
		}
		if (ret != DOCA_SUCCESS) {
			printf("hostile: consumer %d: %s\n", i + 1, doca_error_get_descr(ret));
			break;
		}
		started++;
	}
	printf("hostile: %d consumers announced\n", started);
	deadline = sample_now() + hold_s;
	while (!connection_gone(doca_comch_client_as_ctx(client)) && sample_now() < deadline)
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	printf("hostile: %s\n", st.lost ? "the DPU closed the connection" : "held the connection");
	for (i = 0; i < count; i++) {
		if (cons[i] == NULL)
			continue;
		if (doca_ctx_stop(doca_comch_consumer_as_ctx(cons[i])) == DOCA_ERROR_IN_PROGRESS)
			(void)sample_wait_state(pe, doca_comch_consumer_as_ctx(cons[i]), DOCA_CTX_STATE_IDLE, 10);
		doca_comch_consumer_destroy(cons[i]);
	}
	doca_mmap_stop(mmap);
	doca_mmap_destroy(mmap);
	return 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: doca_hostile_host PCI file SCRIPT\n"
			"       doca_hostile_host PCI consumers SERVER_NAME N HOLD_S\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_comch_client *client = NULL;
	struct doca_log_backend *sdk_log;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	enum doca_ctx_states state;
	struct doca_ctx *ctx;
	const char *name;
	uint32_t max_msg = 0;
	doca_error_t ret;
	bool file;
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		return usage();
	file = strcmp(argv[2], "file") == 0;
	if (file ? argc != 4 : strcmp(argv[2], "consumers") != 0 || argc != 6 || atoi(argv[4]) < 1 ||
	    atoi(argv[4]) > MAX_CONSUMERS)
		return usage();
	name = file ? FILE_SERVER_NAME : argv[3];
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);

	ret = sample_open_dev(argv[1], doca_comch_cap_client_is_supported, &dev);
	if (ret != DOCA_SUCCESS)
		return 2;
	ret = doca_pe_create(&pe);
	if (ret != DOCA_SUCCESS)
		goto close_dev;
	ret = doca_comch_client_create(dev, name, &client);
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
		ret = wait_running(pe, ctx);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_client_get_connection(client, &conn);
	if (ret != DOCA_SUCCESS) {
		/* Closed by the DPU at once counts as cut short, not as a
		 * failure to start. */
		printf("hostile: cannot connect to \"%s\": %s\n", name, doca_error_get_descr(ret));
		rc = st.lost ? 0 : 2;
		goto stop;
	}
	printf("hostile: connected to \"%s\"\n", name);
	rc = file ? run_file(pe, client, conn, argv[3]) :
		    run_consumers(pe, dev, client, conn, atoi(argv[4]), atoi(argv[5]));
stop:
	if (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE &&
	    doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS)
		(void)sample_wait_state(pe, ctx, DOCA_CTX_STATE_IDLE, 10);
	doca_comch_client_destroy(client);
destroy_pe:
	doca_pe_destroy(pe);
close_dev:
	doca_dev_close(dev);
	printf("hostile: done\n");
	return rc;
}
