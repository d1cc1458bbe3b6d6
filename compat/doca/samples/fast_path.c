/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The high-speed data path as the vendor's guide describes it: each side
 * registers memory (doca_mmap), takes buffers from an inventory, creates
 * a consumer that posts receive tasks into them and a producer that sends
 * to the consumer the peer announced (consumer events), and resubmits
 * each completed receive task to get the next message.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "fast_path.h"
#include "samples_common.h"

DOCA_LOG_REGISTER(FAST_PATH);

#define FP_POSTS 16          /* receive tasks posted at once */
#define FP_SENDS 16          /* send tasks in flight at most */
#define FP_BUF_SIZE 4096

struct fp_state {
	const char *who;
	const char *text;
	uint32_t count;
	uint32_t received;
	uint32_t posted;             /* receive tasks ever submitted */
	uint32_t sent_done;
	doca_error_t result;
};

void
fp_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
{
	union doca_data ud = { .u64 = id };

	(void)event;
	DOCA_LOG_INFO("Peer consumer %u is there", id);
	(void)doca_comch_connection_set_user_data(conn, ud);
}

void
fp_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
{
	union doca_data none = { .u64 = 0 };

	(void)event;
	DOCA_LOG_INFO("Peer consumer %u is gone", id);
	if (doca_comch_connection_get_user_data(conn).u64 == id)
		(void)doca_comch_connection_set_user_data(conn, none);
}

static void
recv_done(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	const uint8_t *imm = doca_comch_consumer_task_post_recv_get_imm_data(task);
	uint32_t imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(task);
	char got[FP_BUF_SIZE], tail[32];
	uint32_t seq = UINT32_MAX;
	size_t len, tl, i;
	void *data;
	doca_error_t ret;

	(void)task_ud;
	doca_buf_get_data(buf, &data);
	doca_buf_get_data_len(buf, &len);
	if (imm_len == sizeof(seq))
		memcpy(&seq, imm, sizeof(seq));
	if (len >= sizeof(got))
		len = sizeof(got) - 1;
	memcpy(got, data, len);   /* read once, then check the copy */
	got[len] = '\0';
	for (i = 0; i < len; i++)
		if (got[i] < 0x20 || got[i] >= 0x7f)
			got[i] = '?';
	/* "<peer's text> #<i>", i in the immediate data, in order. */
	tl = (size_t)snprintf(tail, sizeof(tail), " #%u", st->received);
	if (seq != st->received || len < tl || memcmp(got + len - tl, tail, tl) != 0) {
		DOCA_LOG_ERR("Message %u: got \"%s\" with immediate data %u", st->received, got, seq);
		st->result = DOCA_ERROR_UNEXPECTED;
	}
	st->received++;
	if (st->received == st->count)
		printf("%s: received %u messages through the fast path, the last: \"%s\"\n", st->who, st->count,
		       got);
	if (st->posted == st->count) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		return;
	}
	/* Empty the buffer and post it again for a next message. */
	doca_buf_reset_data_len(buf);
	ret = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to post the buffer again: %s", doca_error_get_descr(ret));
		st->result = DOCA_ERROR_IO_FAILED;
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		return;
	}
	st->posted++;
}

static void
recv_failed(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task));

	(void)task_ud;
	/* Flushed by our own stop once everything was received: expected. */
	if (st->received < st->count) {
		DOCA_LOG_ERR("Receive failed: %s", doca_error_get_descr(status));
		st->result = status;
	}
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void
send_done(struct doca_comch_producer_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->sent_done++;
	doca_task_free(doca_comch_producer_task_send_as_task(task));
}

static void
send_failed(struct doca_comch_producer_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->result = doca_task_get_status(doca_comch_producer_task_send_as_task(task));
	DOCA_LOG_ERR("Send failed: %s", doca_error_get_descr(st->result));
	doca_task_free(doca_comch_producer_task_send_as_task(task));
}

doca_error_t
fp_run(const char *who, struct doca_pe *pe, struct doca_dev *dev, struct doca_comch_connection *conn,
       const char *text, uint32_t count)
{
	struct fp_state st = { .who = who, .text = text, .count = count, .result = DOCA_SUCCESS };
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	struct doca_buf *rbuf[FP_POSTS] = { NULL }, *sbuf[FP_SENDS] = { NULL };
	struct doca_comch_consumer_task_post_recv *rtask;
	struct doca_comch_producer_task_send *stask;
	struct doca_comch_producer *producer = NULL;
	struct doca_comch_consumer *consumer = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *mmap = NULL;
	union doca_data ud = { .ptr = &st };
	uint32_t next_send = 0, my_id = 0, peer_id, i;
	double deadline;
	char *mem;
	doca_error_t ret;

	mem = calloc(FP_POSTS + FP_SENDS, FP_BUF_SIZE);
	if (mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	/* Memory both the consumer (receives) and the producer (sends) use. */
	ret = doca_mmap_create(&mmap);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_set_memrange(mmap, mem, (size_t)(FP_POSTS + FP_SENDS) * FP_BUF_SIZE);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_add_dev(mmap, dev);
	if (ret == DOCA_SUCCESS)
		ret = doca_mmap_start(mmap);
	if (ret == DOCA_SUCCESS)
		ret = doca_buf_inventory_create(FP_POSTS + FP_SENDS, &inv);
	if (ret == DOCA_SUCCESS)
		ret = doca_buf_inventory_start(inv);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up memory: %s", doca_error_get_descr(ret));
		goto out;
	}

	ret = doca_comch_consumer_create(conn, mmap, &consumer);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_consumer_task_post_recv_set_conf(consumer, recv_done, recv_failed, FP_POSTS);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_set_user_data(doca_comch_consumer_as_ctx(consumer), ud);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(consumer));
	if (ret == DOCA_SUCCESS) {
		ret = doca_ctx_start(doca_comch_consumer_as_ctx(consumer));
		if (ret == DOCA_ERROR_IN_PROGRESS)
			ret = sample_wait_state(pe, doca_comch_consumer_as_ctx(consumer), DOCA_CTX_STATE_RUNNING, 30);
	}
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_consumer_get_id(consumer, &my_id);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the consumer: %s", doca_error_get_descr(ret));
		goto out;
	}
	DOCA_LOG_INFO("Consumer %u started", my_id);
	for (i = 0; i < FP_POSTS && i < count; i++) {
		ret = doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + (size_t)i * FP_BUF_SIZE, FP_BUF_SIZE,
							 &rbuf[i]);
		if (ret == DOCA_SUCCESS)
			ret = doca_comch_consumer_task_post_recv_alloc_init(consumer, rbuf[i], &rtask);
		if (ret == DOCA_SUCCESS)
			ret = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rtask));
		if (ret != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to post a receive buffer: %s", doca_error_get_descr(ret));
			goto out;
		}
		st.posted++;
	}

	ret = doca_comch_producer_create(conn, &producer);
	if (ret == DOCA_SUCCESS)
		ret = doca_comch_producer_task_send_set_conf(producer, send_done, send_failed, FP_SENDS);
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_set_user_data(doca_comch_producer_as_ctx(producer), ud);
	if (ret == DOCA_SUCCESS)
		ret = doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(producer));
	if (ret == DOCA_SUCCESS)
		ret = doca_ctx_start(doca_comch_producer_as_ctx(producer));
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the producer: %s", doca_error_get_descr(ret));
		goto out;
	}
	for (i = 0; i < FP_SENDS; i++) {
		ret = doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + (size_t)(FP_POSTS + i) * FP_BUF_SIZE,
							 FP_BUF_SIZE, &sbuf[i]);
		if (ret != DOCA_SUCCESS)
			goto out;
	}

	deadline = sample_now() + 60;
	while ((st.received < count || st.sent_done < count) && st.result == DOCA_SUCCESS) {
		/* Send the next message while a task and the peer's consumer
		 * (of this connection) are there; "again" means no buffer is
		 * posted there yet. */
		peer_id = (uint32_t)doca_comch_connection_get_user_data(conn).u64;
		if (next_send < count && next_send - st.sent_done < FP_SENDS && peer_id != 0) {
			struct doca_buf *b = sbuf[next_send % FP_SENDS];
			void *head;
			int n;

			doca_buf_get_head(b, &head);
			n = snprintf(head, FP_BUF_SIZE, "%s #%u", text, next_send);
			doca_buf_set_data(b, head, (size_t)n);
			ret = doca_comch_producer_task_send_alloc_init(producer, b, (uint8_t *)&next_send,
								       sizeof(next_send), peer_id, &stask);
			if (ret == DOCA_SUCCESS) {
				ret = doca_task_submit(doca_comch_producer_task_send_as_task(stask));
				if (ret == DOCA_SUCCESS)
					next_send++;
				else
					doca_task_free(doca_comch_producer_task_send_as_task(stask));
			}
			if (ret != DOCA_SUCCESS && ret != DOCA_ERROR_AGAIN && ret != DOCA_ERROR_NO_MEMORY) {
				DOCA_LOG_ERR("Failed to send: %s", doca_error_get_descr(ret));
				st.result = ret;
			}
		}
		if (doca_pe_progress(pe) == 0) {
			if (sample_now() > deadline) {
				DOCA_LOG_ERR("Timed out: sent %u/%u, received %u/%u", st.sent_done, count,
					     st.received, count);
				st.result = DOCA_ERROR_TIME_OUT;
			}
			nanosleep(&nap, NULL);
		}
	}
	ret = st.result;
	if (ret == DOCA_SUCCESS)
		printf("%s: sent %u messages through the fast path\n", who, count);
out:
	if (producer != NULL) {
		if (doca_ctx_stop(doca_comch_producer_as_ctx(producer)) == DOCA_ERROR_IN_PROGRESS)
			sample_wait_state(pe, doca_comch_producer_as_ctx(producer), DOCA_CTX_STATE_IDLE, 10);
		doca_comch_producer_destroy(producer);
	}
	if (consumer != NULL) {
		if (doca_ctx_stop(doca_comch_consumer_as_ctx(consumer)) == DOCA_ERROR_IN_PROGRESS)
			sample_wait_state(pe, doca_comch_consumer_as_ctx(consumer), DOCA_CTX_STATE_IDLE, 10);
		doca_comch_consumer_destroy(consumer);
	}
	for (i = 0; i < FP_POSTS; i++)
		if (rbuf[i] != NULL)
			doca_buf_dec_refcount(rbuf[i], NULL);
	for (i = 0; i < FP_SENDS; i++)
		if (sbuf[i] != NULL)
			doca_buf_dec_refcount(sbuf[i], NULL);
	if (inv != NULL) {
		doca_buf_inventory_stop(inv);
		doca_buf_inventory_destroy(inv);
	}
	if (mmap != NULL) {
		doca_mmap_stop(mmap);
		doca_mmap_destroy(mmap);
	}
	free(mem);
	return ret;
}
