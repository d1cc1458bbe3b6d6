/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * File transfer over DOCA Comch control messages, receiving side (DPU):
 * writes the chunks to -f in order, computes the CRC-32 of what it wrote,
 * compares it with the host's and answers with it. With -s N it stops
 * reading for N ms after the first chunk (a slow receiver: the host
 * meets back pressure). Exits once the host left.
 *
 * One host, one file: the first connection is served, any other is
 * closed at once. The host is not trusted: a FILE_START announcing more
 * than --max-size bytes, a chunk that would take the file past the size
 * announced, a second FILE_START, or anything after FILE_END is a
 * protocol violation: nothing more is written (the file keeps at most the
 * announced size), the reason is logged ("Protocol violation: ...") and
 * the program exits 1, as for any other failed transfer.
 */

#include <errno.h>
#include <stdarg.h>
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

DOCA_LOG_REGISTER(COMCH_FILE::SERVER);

#define DEFAULT_MAX_SIZE (UINT64_C(1) << 30)   /* --max-size */

static struct {
	struct doca_comch_server *server;
	struct doca_comch_connection *conn;   /* the host served */
	FILE *out;
	uint64_t max_size;
	uint64_t size;
	uint64_t written;
	uint32_t next_seq;
	uint32_t crc;
	bool started;
	bool done;
	bool host_left;
	bool stall_pending;
	int stall_ms;
	doca_error_t result;
} st = { .result = DOCA_SUCCESS, .max_size = DEFAULT_MAX_SIZE };

static void
fail(const char *why)
{
	DOCA_LOG_ERR("%s", why);
	st.result = DOCA_ERROR_UNEXPECTED;
}

/* The host broke the protocol: nothing more is written, the transfer ends. */
static void __attribute__((format(printf, 1, 2)))
violation(const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	DOCA_LOG_ERR("Protocol violation: %s; stopped writing at %lu bytes", why, (unsigned long)st.written);
	st.result = DOCA_ERROR_BAD_STATE;
}

static void
ack_sent(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
ack_failed(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	fail("Failed to send the acknowledgement");
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct doca_comch_task_send *task;
	uint8_t ack[sizeof(struct file_hdr) + 8];
	struct file_hdr h;
	uint32_t crc, ok;

	(void)event;
	/* After a failure the loop ends; what its last progress still
	 * delivers (the same batch) is not looked at. */
	if (st.result != DOCA_SUCCESS || conn != st.conn)
		return;
	if (len < sizeof(h)) {
		fail("A message shorter than its header");
		return;
	}
	memcpy(&h, buf, sizeof(h));
	if (st.done) {
		violation("a message (type %u) after FILE_END", h.type);
		return;
	}
	switch (h.type) {
	case FILE_START:
		if (st.started) {
			violation("a second FILE_START");
			return;
		}
		if (len != sizeof(h) + 8) {
			fail("Unexpected start");
			return;
		}
		memcpy(&st.size, buf + sizeof(h), 8);
		if (st.size > st.max_size) {
			violation("the host announced %lu bytes, more than --max-size %lu", (unsigned long)st.size,
				  (unsigned long)st.max_size);
			return;
		}
		st.started = true;
		break;
	case FILE_CHUNK:
		if (!st.started || h.seq != st.next_seq) {
			fail("A chunk out of order");
			return;
		}
		if (len - sizeof(h) > st.size - st.written) {
			violation("chunk %u (%lu bytes) would pass the announced size of %lu bytes", h.seq,
				  (unsigned long)(len - sizeof(h)), (unsigned long)st.size);
			return;
		}
		st.next_seq++;
		if (fwrite(buf + sizeof(h), 1, len - sizeof(h), st.out) != len - sizeof(h)) {
			fail("Cannot write the file");
			return;
		}
		st.crc = sample_crc32(st.crc, buf + sizeof(h), len - sizeof(h));
		st.written += len - sizeof(h);
		if (h.seq == 0 && st.stall_ms > 0)
			st.stall_pending = true;
		break;
	case FILE_END:
		if (len != sizeof(h) + 4 || h.seq != st.next_seq) {
			fail("Unexpected end");
			return;
		}
		memcpy(&crc, buf + sizeof(h), 4);
		ok = crc == st.crc && st.written == st.size;
		fflush(st.out);
		printf("server: received %lu of %lu bytes in %u chunks; CRC-32 %08x, the host's %08x: %s\n",
		       (unsigned long)st.written, (unsigned long)st.size, st.next_seq, st.crc, crc,
		       ok ? "match" : "MISMATCH");
		h = (struct file_hdr){ .type = FILE_ACK };
		memcpy(ack, &h, sizeof(h));
		memcpy(ack + sizeof(h), &st.crc, 4);
		memcpy(ack + sizeof(h) + 4, &ok, 4);
		if (doca_comch_server_task_send_alloc_init(st.server, conn, ack, sizeof(ack), &task) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS)
			fail("Cannot acknowledge");
		if (!ok)
			st.result = DOCA_ERROR_UNEXPECTED;
		st.done = true;
		break;
	default:
		fail("An unknown message");
	}
}

static void
connected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn, uint8_t ok)
{
	(void)event;
	if (!ok)
		return;
	if (st.conn == NULL && !st.host_left) {
		st.conn = conn;
		return;
	}
	/* One host, one file: another connection is closed at once (and
	 * any after the host left). */
	printf("server: serving one host; closing a second connection\n");
	if (doca_comch_server_disconnect(st.server, conn) != DOCA_SUCCESS)
		DOCA_LOG_WARN("Cannot close the second connection; its messages are ignored");
}

static void
disconnected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
	     uint8_t ok)
{
	(void)event;
	(void)ok;
	/* The connection object goes once this returns (the vendor's rule):
	 * forget it, so that no later connection can be taken for it. */
	if (conn == st.conn) {
		st.host_left = true;
		st.conn = NULL;
	}
}

static doca_error_t
stall_cb(void *param, void *config)
{
	(void)config;
	st.stall_ms = *(int *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
max_size_cb(void *param, void *config)
{
	const char *s = param;
	unsigned long long v;
	char *end;

	(void)config;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
		DOCA_LOG_ERR("--max-size: a number of bytes is expected, not \"%s\"", s);
		return DOCA_ERROR_INVALID_VALUE;
	}
	st.max_size = v;
	return DOCA_SUCCESS;
}

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .count = 1 };
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_log_backend *sdk_log;
	struct doca_argp_param *param;
	struct doca_dev_rep *rep = NULL;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	uint32_t max_msg;
	double deadline;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	ret = doca_argp_init("doca_comch_file_server", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(true, true);
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_param_create(&param);
	if (ret == DOCA_SUCCESS) {
		doca_argp_param_set_short_name(param, "s");
		doca_argp_param_set_long_name(param, "stall-ms");
		doca_argp_param_set_description(param, "Stop reading for this long after the first chunk");
		doca_argp_param_set_callback(param, stall_cb);
		doca_argp_param_set_type(param, DOCA_ARGP_TYPE_INT);
		ret = doca_argp_register_param(param);
	}
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_param_create(&param);
	if (ret == DOCA_SUCCESS) {
		doca_argp_param_set_short_name(param, "m");
		doca_argp_param_set_long_name(param, "max-size");
		doca_argp_param_set_arguments(param, "<BYTES>");
		doca_argp_param_set_description(param, "Refuse a file announced larger than this (default 1073741824); "
						       "the file never grows past the size announced");
		doca_argp_param_set_callback(param, max_size_cb);
		doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
		ret = doca_argp_register_param(param);
	}
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_start(argc, argv);
	if (ret != DOCA_SUCCESS)
		goto argp;
	st.out = fopen(cfg.file, "wb");
	if (st.out == NULL) {
		DOCA_LOG_ERR("Cannot open the file to write (-f %s)", cfg.file);
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
	ret = doca_comch_server_create(dev, rep, FILE_SERVER_NAME, &st.server);
	if (ret != DOCA_SUCCESS)
		goto destroy_pe;
	ctx = doca_comch_server_as_ctx(st.server);
	(void)doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max_msg);
	ret = doca_comch_server_set_max_msg_size(st.server, max_msg);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_set_recv_queue_size(st.server, 4);   /* a short queue: back pressure */
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_task_send_set_conf(st.server, ack_sent, ack_failed, 4);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_msg_recv_register(st.server, received);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_server_event_connection_status_changed_register(st.server, connected, disconnected);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, ctx);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_start(ctx);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the server: %s", doca_error_get_descr(ret));
		goto destroy_server;
	}
	printf("server: listening as \"%s\", writing to %s\n", FILE_SERVER_NAME, cfg.file);
	deadline = sample_now() + 120;
	while (!st.host_left && st.result == DOCA_SUCCESS && sample_now() < deadline) {
		if (st.stall_pending) {
			struct timespec t = { .tv_sec = st.stall_ms / 1000, .tv_nsec = (st.stall_ms % 1000) * 1000000L };

			st.stall_pending = false;
			nanosleep(&t, NULL);
		}
		if (doca_pe_progress(pe) == 0)
			nanosleep(&nap, NULL);
	}
	ret = st.result;
	if (ret == DOCA_SUCCESS && !st.done) {
		DOCA_LOG_ERR("The host left before the end of the file");
		ret = DOCA_ERROR_IO_FAILED;
	}
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
	if (st.out != NULL)
		fclose(st.out);
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
