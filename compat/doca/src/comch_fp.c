/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * DOCA Comch fast path on rte_comch_*: consumers and producers.
 *
 * Where a consumer's data lands. lib/comch lets the peer write only into
 * memory it registered itself (rte_comch_mem_create()), not into memory
 * the application allocated. So a consumer registers a region the size of
 * its mmap and posts, for each receive task, the same offset in it as the
 * task's buffer has in the mmap; on completion the layer copies the bytes
 * into the buffer, after its data section, and grows data_len (the
 * vendor's rule for destination buffers). That is a second copy (the
 * peer's producer made the first): see doca_porting.md. With a lib/comch
 * call that registers application memory, the buffer would be posted in
 * place and the copy would go. Memory cost: the region is a memfd, its
 * pages exist once written.
 *
 * A producer sends the data section of its buffer; a send to a consumer
 * with no buffer posted is "again": doca_task_submit() returns
 * DOCA_ERROR_AGAIN and the application submits again, as the vendor's
 * samples do.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memcpy.h>
#include <rte_memory.h>

#include "comch_priv.h"

DC_EXPORT bool dcc_conn_running(const struct doca_comch_connection *conn);

#define DCC_POLL_BURST 32

/* ------------------------------------------------------------ capabilities */

#define DCC_FP_CAP(fn, expr) \
	DC_EXPORT doca_error_t \
	fn(const struct doca_devinfo *devinfo, uint32_t *out) \
	{ \
		struct rte_comch_caps caps; \
		if (devinfo == NULL || out == NULL) \
			return DOCA_ERROR_INVALID_VALUE; \
		dc_devinfo_caps(devinfo, &caps); \
		*out = (uint32_t)(expr); \
		return DOCA_SUCCESS; \
	}

DCC_FP_CAP(doca_comch_consumer_cap_get_max_num_tasks, caps.max_posts)
DCC_FP_CAP(doca_comch_consumer_cap_get_max_buf_size, RTE_MIN(caps.max_buf_size, (uint64_t)UINT32_MAX))
DCC_FP_CAP(doca_comch_consumer_cap_get_max_buf_list_len, 1)
DCC_FP_CAP(doca_comch_consumer_cap_get_max_consumers, caps.max_consumers)
DCC_FP_CAP(doca_comch_consumer_cap_get_max_imm_data_len, caps.max_imm_len)
DCC_FP_CAP(doca_comch_producer_cap_get_max_num_tasks, DC_MAX_SEND_TASKS)
DCC_FP_CAP(doca_comch_producer_cap_get_max_buf_size, RTE_MIN(caps.max_buf_size, (uint64_t)UINT32_MAX))
DCC_FP_CAP(doca_comch_producer_cap_get_max_buf_list_len, 1)
DCC_FP_CAP(doca_comch_producer_cap_get_max_producers, caps.max_producers)

DC_EXPORT doca_error_t
doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	struct rte_comch_caps caps;

	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(devinfo, &caps);
	return (caps.flags & RTE_COMCH_CAPA_CONSUMER) != 0 ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DC_EXPORT doca_error_t
doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	struct rte_comch_caps caps;

	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps(devinfo, &caps);
	return (caps.flags & RTE_COMCH_CAPA_PRODUCER) != 0 ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

/* ------------------------------------------------------------------ common */

static int16_t
dcc_fp_dev_id(const struct dcc_fp *fp)
{
	const struct doca_comch_connection *conn = fp->conn;

	return dc_dev_id(conn->server != NULL ? conn->server->c.dev : conn->client->c.dev);
}

static doca_error_t
dcc_fp_init(struct dcc_fp *fp, struct doca_comch_connection *conn, const struct dc_ctx_ops *ops)
{
	if (!dcc_conn_running(conn)) {
		DC_ERR("%s: the connection is not running", ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	dc_ctx_init(&fp->ctx, ops);
	fp->conn = conn;
	conn->nb_fp++;
	return DOCA_SUCCESS;
}

static void
dcc_fp_fini(struct dcc_fp *fp)
{
	dc_ctx_fini(&fp->ctx);
	dc_task_pool_free(fp->pool);
	fp->conn->nb_fp--;
	dcc_conn_try_release(fp->conn);
}

static doca_error_t
dcc_fp_set_conf(struct dcc_fp *fp, dc_fn_t ok, dc_fn_t err, uint32_t num, uint32_t max)
{
	if (!dc_ctx_allows(&fp->ctx, DC_OP_CONFIGURE))
		return DOCA_ERROR_BAD_STATE;
	if (ok == NULL || err == NULL || num == 0 || num > max) {
		DC_ERR("%s: set_conf: callbacks and 1 to %u tasks expected (got %u)", fp->ctx.ops->name, max, num);
		return DOCA_ERROR_INVALID_VALUE;
	}
	fp->conf = (struct dc_task_conf){ .ok_cb = ok, .err_cb = err, .num = num };
	return DOCA_SUCCESS;
}

static doca_error_t
dcc_fp_pool(struct dcc_fp *fp, const struct dc_task_type *type)
{
	if (fp->conf.num == 0) {
		DC_ERR("%s: start: configure its tasks first (*_task_*_set_conf)", fp->ctx.ops->name);
		return DOCA_ERROR_BAD_STATE;
	}
	dc_task_pool_free(fp->pool);
	fp->pool = dc_task_pool_create(&fp->ctx, type, &fp->conf);
	return fp->pool != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

/* ---------------------------------------------------------------- consumer */

static struct doca_comch_consumer *
dcc_consumer_of(struct doca_ctx *ctx)
{
	return container_of(ctx, struct doca_comch_consumer, fp.ctx);
}

/* The region lib/comch maps to the peer: same offsets as the mmap. */
static inline void *
dcc_bounce(const struct doca_comch_consumer *c, char *dst)
{
	return (void *)((uintptr_t)dst + (uintptr_t)c->bounce_delta);
}

/* Hand the staged posts to lib/comch, in order, as one burst per 32. Room
 * is always there: lib/comch holds nb_posts = the number of tasks. */
static void
dcc_consumer_flush(struct doca_comch_consumer *c)
{
	void *bufs[DCC_POLL_BURST];
	uint32_t lens[DCC_POLL_BURST];
	uint32_t n, i;
	int ret;

	while ((n = c->head - c->staged) != 0) {
		if (n > DCC_POLL_BURST)
			n = DCC_POLL_BURST;
		for (i = 0; i < n; i++) {
			struct doca_comch_consumer_task_post_recv *t =
				c->posted[(c->staged + i) & (c->ring_size - 1)];

			bufs[i] = t->bounce;
			lens[i] = t->room;
		}
		ret = rte_comch_consumer_post_burst(c->rte, bufs, lens, (uint16_t)n);
		if (ret <= 0) {
			/* Lost (the next poll completes them all) or a bug. */
			if (ret != -ECONNRESET)
				DC_ERR("comch consumer %u: posting failed: %d", c->id, ret);
			return;
		}
		c->staged += (uint32_t)ret;
	}
}

static doca_error_t
dcc_post_submit(struct doca_task *task)
{
	struct doca_comch_consumer_task_post_recv *t = (struct doca_comch_consumer_task_post_recv *)task;
	struct doca_comch_consumer *c = dcc_consumer_of(task->pool->ctx);
	struct doca_buf *buf = t->buf;

	if (unlikely(buf->mmap != c->mmap)) {
		DC_ERR("comch consumer %u: post: the buffer is not of the consumer's mmap", c->id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	t->dst = buf->data + buf->data_len;
	t->room = (uint32_t)RTE_MIN((uint64_t)(buf->head + buf->len - t->dst), (uint64_t)(1U << 30));
	t->bounce = dcc_bounce(c, t->dst);
	t->producer_id = 0;
	t->imm_len = 0;
	c->posted[c->head++ & (c->ring_size - 1)] = t;
	if (c->head - c->staged >= DCC_POLL_BURST)
		dcc_consumer_flush(c);
	return DOCA_SUCCESS;
}

static void
dcc_post_invoke(struct doca_task *task, dc_fn_t fn, union doca_data tud, union doca_data cud)
{
	((doca_comch_consumer_task_post_recv_completion_cb_t)fn)(
		(struct doca_comch_consumer_task_post_recv *)task, tud, cud);
}

static const struct dc_task_type dcc_post_type = {
	.name = "comch consumer post-recv",
	.size = sizeof(struct doca_comch_consumer_task_post_recv),
	.submit = dcc_post_submit,
	.invoke = dcc_post_invoke,
};

static void
dcc_consumer_teardown(struct doca_comch_consumer *c)
{
	if (c->rte != NULL) {
		rte_comch_consumer_destroy(c->rte);
		c->rte = NULL;
	}
	if (c->mem != NULL) {
		rte_comch_mem_destroy(c->mem);
		c->mem = NULL;
	}
	free(c->posted);
	c->posted = NULL;
}

static doca_error_t
dcc_consumer_start(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = dcc_consumer_of(ctx);
	struct rte_comch_consumer_conf conf;
	doca_error_t ret;
	int err;

	if (!dcc_conn_running(c->fp.conn))
		return DOCA_ERROR_BAD_STATE;
	ret = dcc_fp_pool(&c->fp, &dcc_post_type);
	if (ret != DOCA_SUCCESS)
		return ret;
	c->ring_size = rte_align32pow2(c->fp.conf.num);
	c->posted = calloc(c->ring_size, sizeof(*c->posted));
	c->head = c->tail = c->staged = 0;
	c->mem = rte_comch_mem_create(dcc_fp_dev_id(&c->fp), c->mmap->len, SOCKET_ID_ANY);
	if (c->posted == NULL || c->mem == NULL) {
		DC_ERR("comch consumer: cannot register %zu bytes for the peer: %s", c->mmap->len,
		       rte_strerror(rte_errno));
		dcc_consumer_teardown(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->bounce_delta = (intptr_t)((uintptr_t)rte_comch_mem_addr(c->mem) - (uintptr_t)c->mmap->addr);
	conf = (struct rte_comch_consumer_conf){
		.mem = c->mem,
		.nb_posts = c->fp.conf.num,
		.max_imm_len = c->imm_len != 0 ? c->imm_len : RTE_COMCH_IMM_NONE,
	};
	c->rte = rte_comch_consumer_create(c->fp.conn->rte, &conf);
	if (c->rte == NULL) {
		DC_ERR("comch consumer: cannot create: %s", rte_strerror(rte_errno));
		ret = dc_errno(-rte_errno);
		dcc_consumer_teardown(c);
		return ret;
	}
	err = rte_comch_consumer_start(c->rte);
	if (err < 0) {
		DC_ERR("comch consumer: cannot start: %s", rte_strerror(-err));
		dcc_consumer_teardown(c);
		return dc_errno(err);
	}
	c->id = rte_comch_consumer_id(c->rte);
	/* Running from the next progress, as the vendor's consumers. */
	return DOCA_ERROR_IN_PROGRESS;
}

static int
dcc_consumer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = dcc_consumer_of(ctx);
	struct rte_comch_completion cpl[DCC_POLL_BURST];
	int n, i;

	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		dc_ctx_event(ctx, DC_EV_READY);
		return 1;
	}
	if (c->rte == NULL || c->head == c->tail)
		return 0;
	if (c->staged != c->head)
		dcc_consumer_flush(c);
	n = rte_comch_consumer_poll_burst(c->rte, cpl, DCC_POLL_BURST);
	if (n < 0) {
		/* The connection is lost and every written buffer came back:
		 * the rest will never be written. */
		while (c->tail != c->head)
			dc_task_complete(&c->posted[c->tail++ & (c->ring_size - 1)]->base,
					 DOCA_ERROR_CONNECTION_RESET);
		c->staged = c->head;
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct doca_comch_consumer_task_post_recv *t = c->posted[c->tail++ & (c->ring_size - 1)];

		if (cpl[i].status != 0) {
			dc_task_complete(&t->base, DOCA_ERROR_IO_FAILED);
			continue;
		}
		/* Read once, from the region the peer writes, into the
		 * application's buffer (len is lib/comch's checked copy). */
		if (cpl[i].len != 0)
			rte_memcpy(t->dst, cpl[i].buf, cpl[i].len);
		t->buf->data_len += cpl[i].len;
		t->producer_id = cpl[i].producer_id;
		t->imm_len = cpl[i].imm_len;
		if (cpl[i].imm_len != 0)
			memcpy(t->imm, cpl[i].imm, cpl[i].imm_len);
		dc_task_complete(&t->base, DOCA_SUCCESS);
	}
	return n;
}

static doca_error_t
dcc_consumer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = dcc_consumer_of(ctx);

	/* Staged posts go first, to come back cancelled in order. */
	if (c->rte != NULL && c->staged != c->head)
		dcc_consumer_flush(c);
	if (c->rte != NULL && rte_comch_consumer_state(c->rte) == RTE_COMCH_STATE_RUNNING)
		rte_comch_consumer_stop(c->rte);
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		struct rte_comch_completion cpl[1];

		/* Nothing posted yet: idle at once (a poll lets the driver
		 * see it). */
		if (c->rte != NULL)
			(void)rte_comch_consumer_poll_burst(c->rte, cpl, 0);
		dcc_consumer_teardown(c);
		return DOCA_SUCCESS;
	}
	return DOCA_ERROR_IN_PROGRESS;
}

static bool
dcc_consumer_drained(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = dcc_consumer_of(ctx);
	struct rte_comch_completion cpl[DCC_POLL_BURST];

	if (c->rte != NULL && rte_comch_consumer_state(c->rte) != RTE_COMCH_STATE_IDLE) {
		/* Stopping with nothing posted (or all returned): a poll
		 * lets the driver see it is done. */
		if (c->head == c->tail)
			(void)rte_comch_consumer_poll_burst(c->rte, cpl, 0);
		if (rte_comch_consumer_state(c->rte) != RTE_COMCH_STATE_IDLE)
			return false;
	}
	if (c->head != c->tail || ctx->inflight != 0)
		return false;
	dcc_consumer_teardown(c);
	return true;
}

static const struct dc_ctx_ops dcc_consumer_ops = {
	.name = "comch consumer",
	.start = dcc_consumer_start,
	.stop = dcc_consumer_stop,
	.progress = dcc_consumer_progress,
	.drained = dcc_consumer_drained,
};

DC_EXPORT doca_error_t
doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
			   struct doca_comch_consumer **consumer)
{
	struct doca_comch_consumer *c;
	doca_error_t ret;

	if (comch_connection == NULL || buf_mmap == NULL || consumer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!buf_mmap->started) {
		DC_ERR("comch consumer: start the mmap first");
		return DOCA_ERROR_BAD_STATE;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ret = dcc_fp_init(&c->fp, comch_connection, &dcc_consumer_ops);
	if (ret != DOCA_SUCCESS) {
		free(c);
		return ret;
	}
	c->mmap = buf_mmap;
	c->imm_len = RTE_COMCH_IMM_DATA_MAX;
	*consumer = c;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	if (consumer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(&consumer->fp.ctx, DC_OP_DESTROY)) {
		DC_ERR("comch consumer %u: destroy: stop it and progress until idle", consumer->id);
		return DOCA_ERROR_BAD_STATE;
	}
	dcc_consumer_teardown(consumer);
	dcc_fp_fini(&consumer->fp);
	free(consumer);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
	if (consumer == NULL || id == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (consumer->id == 0) {
		DC_ERR("comch consumer: its id exists once it is started");
		return DOCA_ERROR_BAD_STATE;
	}
	*id = consumer->id;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len)
{
	if (consumer == NULL || imm_data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*imm_data_len = consumer->imm_len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len)
{
	if (consumer == NULL || imm_data_len > RTE_COMCH_IMM_DATA_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(&consumer->fp.ctx, DC_OP_CONFIGURE))
		return DOCA_ERROR_BAD_STATE;
	consumer->imm_len = imm_data_len;
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_ctx *
doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
	return consumer != NULL ? &consumer->fp.ctx : NULL;
}

DC_EXPORT doca_error_t
doca_comch_consumer_task_post_recv_set_conf(struct doca_comch_consumer *consumer,
					    doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
					    doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
					    uint32_t num_post_recv_tasks)
{
	struct rte_comch_caps caps;

	if (consumer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dc_devinfo_caps((consumer->fp.conn->server != NULL ? consumer->fp.conn->server->c.dev :
			 consumer->fp.conn->client->c.dev)->info, &caps);
	return dcc_fp_set_conf(&consumer->fp, (dc_fn_t)task_completion_cb, (dc_fn_t)task_error_cb,
			       num_post_recv_tasks, caps.max_posts);
}

DC_EXPORT doca_error_t
doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer, struct doca_buf *buf,
					      struct doca_comch_consumer_task_post_recv **task)
{
	struct doca_task *base;
	doca_error_t ret;

	if (consumer == NULL || buf == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (consumer->fp.pool == NULL)
		return DOCA_ERROR_BAD_STATE;
	ret = dc_task_alloc(consumer->fp.pool, &base);
	if (ret != DOCA_SUCCESS)
		return ret;
	*task = (struct doca_comch_consumer_task_post_recv *)base;
	(*task)->buf = buf;
	(*task)->producer_id = 0;
	(*task)->imm_len = 0;
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? task->buf : NULL;
}

DC_EXPORT void
doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

DC_EXPORT uint32_t
doca_comch_consumer_task_post_recv_get_producer_id(const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? task->producer_id : 0;
}

DC_EXPORT const uint8_t *
doca_comch_consumer_task_post_recv_get_imm_data(const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL && task->imm_len != 0 ? task->imm : NULL;
}

DC_EXPORT uint32_t
doca_comch_consumer_task_post_recv_get_imm_data_len(const struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? task->imm_len : 0;
}

DC_EXPORT struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	return task != NULL ? &task->base : NULL;
}

/* ---------------------------------------------------------------- producer */

static struct doca_comch_producer *
dcc_producer_of(struct doca_ctx *ctx)
{
	return container_of(ctx, struct doca_comch_producer, fp.ctx);
}

static doca_error_t
dcc_prod_submit(struct doca_task *task)
{
	struct doca_comch_producer_task_send *t = (struct doca_comch_producer_task_send *)task;
	struct doca_comch_producer *p = dcc_producer_of(task->pool->ctx);
	struct rte_comch_send_op op = {
		.data = t->buf->data,
		.len = (uint32_t)t->buf->data_len,
		.imm_len = t->imm_len,
		.imm = t->imm,
	};
	int ret;

	if (t->buf->data_len > (1U << 30))
		return DOCA_ERROR_INVALID_VALUE;
	ret = rte_comch_producer_send_burst(p->rte, t->consumer_id, &op, 1);
	if (likely(ret == 1)) {
		dc_task_complete(task, DOCA_SUCCESS);
		return DOCA_SUCCESS;
	}
	switch (ret) {
	case 0:
		return DOCA_ERROR_AGAIN;   /* no buffer posted (yet) */
	case -EMSGSIZE:
		dc_task_complete(task, DOCA_ERROR_TOO_BIG);
		return DOCA_SUCCESS;
	case -ENOENT:
		dc_task_complete(task, DOCA_ERROR_NOT_FOUND);
		return DOCA_SUCCESS;
	case -ECONNRESET:
		dc_task_complete(task, DOCA_ERROR_CONNECTION_RESET);
		return DOCA_SUCCESS;
	default:
		return dc_errno(ret);
	}
}

static void
dcc_prod_invoke(struct doca_task *task, dc_fn_t fn, union doca_data tud, union doca_data cud)
{
	((doca_comch_producer_task_send_completion_cb_t)fn)((struct doca_comch_producer_task_send *)task, tud,
							     cud);
}

static const struct dc_task_type dcc_prod_type = {
	.name = "comch producer send",
	.size = sizeof(struct doca_comch_producer_task_send),
	.submit = dcc_prod_submit,
	.invoke = dcc_prod_invoke,
};

static doca_error_t
dcc_producer_start(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = dcc_producer_of(ctx);
	doca_error_t ret;
	int err;

	if (!dcc_conn_running(p->fp.conn))
		return DOCA_ERROR_BAD_STATE;
	ret = dcc_fp_pool(&p->fp, &dcc_prod_type);
	if (ret != DOCA_SUCCESS)
		return ret;
	p->rte = rte_comch_producer_create(p->fp.conn->rte, NULL);
	if (p->rte == NULL) {
		DC_ERR("comch producer: cannot create: %s", rte_strerror(rte_errno));
		return dc_errno(-rte_errno);
	}
	err = rte_comch_producer_start(p->rte);
	if (err < 0) {
		rte_comch_producer_destroy(p->rte);
		p->rte = NULL;
		return dc_errno(err);
	}
	return DOCA_SUCCESS;
}

static void
dcc_producer_teardown(struct doca_comch_producer *p)
{
	if (p->rte != NULL) {
		if (rte_comch_producer_state(p->rte) != RTE_COMCH_STATE_IDLE)
			rte_comch_producer_stop(p->rte);
		rte_comch_producer_destroy(p->rte);
		p->rte = NULL;
	}
}

static doca_error_t
dcc_producer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = dcc_producer_of(ctx);

	dcc_producer_teardown(p);
	return ctx->inflight != 0 ? DOCA_ERROR_IN_PROGRESS : DOCA_SUCCESS;
}

static int
dcc_producer_progress(struct doca_ctx *ctx)
{
	(void)ctx;   /* sends complete at submit */
	return 0;
}

static bool
dcc_producer_drained(struct doca_ctx *ctx)
{
	return ctx->inflight == 0;
}

static const struct dc_ctx_ops dcc_producer_ops = {
	.name = "comch producer",
	.start = dcc_producer_start,
	.stop = dcc_producer_stop,
	.progress = dcc_producer_progress,
	.drained = dcc_producer_drained,
};

DC_EXPORT doca_error_t
doca_comch_producer_create(struct doca_comch_connection *comch_connection, struct doca_comch_producer **producer)
{
	struct doca_comch_producer *p;
	doca_error_t ret;

	if (comch_connection == NULL || producer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ret = dcc_fp_init(&p->fp, comch_connection, &dcc_producer_ops);
	if (ret != DOCA_SUCCESS) {
		free(p);
		return ret;
	}
	*producer = p;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	if (producer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_ctx_allows(&producer->fp.ctx, DC_OP_DESTROY)) {
		DC_ERR("comch producer: destroy: stop it first");
		return DOCA_ERROR_BAD_STATE;
	}
	dcc_producer_teardown(producer);
	dcc_fp_fini(&producer->fp);
	free(producer);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
	if (producer == NULL || id == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (producer->rte == NULL) {
		DC_ERR("comch producer: its id exists once it is started");
		return DOCA_ERROR_BAD_STATE;
	}
	*id = rte_comch_producer_id(producer->rte);
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_ctx *
doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
	return producer != NULL ? &producer->fp.ctx : NULL;
}

DC_EXPORT doca_error_t
doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
				       doca_comch_producer_task_send_completion_cb_t task_completion_cb,
				       doca_comch_producer_task_send_completion_cb_t task_error_cb,
				       uint32_t num_send_tasks)
{
	if (producer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return dcc_fp_set_conf(&producer->fp, (dc_fn_t)task_completion_cb, (dc_fn_t)task_error_cb,
			       num_send_tasks, DC_MAX_SEND_TASKS);
}

DC_EXPORT doca_error_t
doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer, const struct doca_buf *buf,
					 uint8_t *imm_data, uint32_t imm_data_len, uint32_t consumer_id,
					 struct doca_comch_producer_task_send **task)
{
	struct doca_comch_producer_task_send *t;
	struct doca_task *base;
	doca_error_t ret;

	if (producer == NULL || buf == NULL || task == NULL || imm_data_len > RTE_COMCH_IMM_DATA_MAX ||
	    (imm_data == NULL && imm_data_len != 0))
		return DOCA_ERROR_INVALID_VALUE;
	if (producer->fp.pool == NULL)
		return DOCA_ERROR_BAD_STATE;
	ret = dc_task_alloc(producer->fp.pool, &base);
	if (ret != DOCA_SUCCESS)
		return ret;
	t = (struct doca_comch_producer_task_send *)base;
	t->buf = buf;
	t->consumer_id = consumer_id;
	t->imm_len = imm_data_len;
	if (imm_data_len != 0)
		memcpy(t->imm, imm_data, imm_data_len);
	*task = t;
	return DOCA_SUCCESS;
}

DC_EXPORT const struct doca_buf *
doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task)
{
	return task != NULL ? task->buf : NULL;
}

DC_EXPORT void
doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

DC_EXPORT uint32_t
doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task)
{
	return task != NULL ? task->consumer_id : 0;
}

DC_EXPORT void
doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
					      const uint32_t consumer_id)
{
	if (task != NULL)
		task->consumer_id = consumer_id;
}

DC_EXPORT uint8_t *
doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task)
{
	union {
		const uint8_t *in;
		uint8_t *out;
	} p = { .in = task != NULL && task->imm_len != 0 ? task->imm : NULL };

	return p.out;
}

DC_EXPORT uint32_t
doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task)
{
	return task != NULL ? task->imm_len : 0;
}

DC_EXPORT void
doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, const uint8_t *imm_data,
					   uint32_t imm_data_len)
{
	if (task == NULL || imm_data_len > RTE_COMCH_IMM_DATA_MAX || (imm_data == NULL && imm_data_len != 0))
		return;
	task->imm_len = imm_data_len;
	if (imm_data_len != 0)
		memcpy(task->imm, imm_data, imm_data_len);
}

DC_EXPORT struct doca_task *
doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	return task != NULL ? &task->base : NULL;
}
