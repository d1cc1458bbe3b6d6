/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Internals of the compatibility layer, shared by libdoca_common (this
 * header's functions), libdoca_comch and libdoca_argp. Exported from
 * libdoca_common under the dc_ prefix; not installed.
 */

#ifndef DC_PRIV_H
#define DC_PRIV_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>
#include <rte_comch.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_types.h>

#define DC_EXPORT __attribute__((visibility("default")))

/* glibc's sys/queue.h has no _SAFE iterator. */
#define DC_TAILQ_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = TAILQ_FIRST(head); \
	     (var) != NULL && ((tvar) = TAILQ_NEXT((var), field), 1); \
	     (var) = (tvar))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif

/* ------------------------------------------------------------------ logs */

/* The layer's own messages ("SDK" messages), filtered by the SDK limit. */
DC_EXPORT void dc_log(uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define DC_ERR(...) dc_log(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DC_WARN(...) dc_log(DOCA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DC_INFO(...) dc_log(DOCA_LOG_LEVEL_INFO, __VA_ARGS__)
#define DC_DBG(...) dc_log(DOCA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/* A negative errno of rte_comch_* as the vendor's code. */
DC_EXPORT doca_error_t dc_errno(int err);

/* ------------------------------------------------------------ environment */

/* Read the emulated devices' configuration and start DPDK EAL, once.
 * DOCA_SUCCESS, or why not (logged). */
DC_EXPORT doca_error_t dc_env_init(void);

/* Monotonic clock, nanoseconds. */
DC_EXPORT uint64_t dc_now_ns(void);

/* ---------------------------------------------------------------- devices */

#define DC_NAME_MAX RTE_COMCH_FUNCTION_NAME_MAX

/* Send tasks a context may hold: the layer's own bound (its task pool's
 * index), not the device's: rte_comch sends complete when they return. */
#define DC_MAX_SEND_TASKS UINT16_MAX

/* One configured emulated BlueField: a DPU device and its host functions. */
struct dc_bluefield;

struct doca_devinfo {
	struct dc_bluefield *bf;
	bool dpu;                        /* DPU device, or a host function's */
	uint16_t function;               /* host device: index of its function */
	uint32_t index;                  /* in the device list */
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	/* Set while open (dc_env lock). */
	int16_t dev_id;
	uint32_t nb_open;
};

struct doca_devinfo_rep {
	struct doca_devinfo *dpu;        /* the DPU device it belongs to */
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char function[DC_NAME_MAX];      /* its rte_comch function name */
};

struct doca_dev {
	struct doca_devinfo *info;
};

struct doca_dev_rep {
	struct doca_devinfo_rep *info;
};

/* The rte_comch device of an opened device. */
static inline int16_t
dc_dev_id(const struct doca_dev *dev)
{
	return dev->info->dev_id;
}

/* The PCI address of the DPU device of @p devinfo's BlueField. */
DC_EXPORT const char *dc_devinfo_dpu_pci(const struct doca_devinfo *devinfo);

/* Capabilities of a listed device: the device's own once it is open,
 * else the emulation's documented limits (comch_shm). */
DC_EXPORT void dc_devinfo_caps(const struct doca_devinfo *devinfo, struct rte_comch_caps *caps);

/* ----------------------------------------------------------------- memory */

struct doca_mmap {
	void *addr;
	size_t len;
	uint32_t permissions;
	bool started;
	uint32_t max_devs;
	uint32_t nb_devs;
	struct doca_dev *devs[8];
	union doca_data user_data;
	uint32_t nb_bufs;                /* buffers held: no destroy/stop */
};

struct doca_buf {
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	char *head;
	size_t len;
	char *data;
	size_t data_len;
	uint16_t refcount;
	struct doca_buf *next_free;
};

struct doca_buf_inventory {
	struct doca_buf *elems;
	struct doca_buf *free;
	uint32_t num;
	uint32_t nb_free;
	bool started;
};

/* ------------------------------------------------- contexts, tasks, engine */

/* A callback of any task type, called back through its type's invoke(). */
typedef void (*dc_fn_t)(void);

struct doca_task;
struct dc_task_pool;

/* What differs between task types. */
struct dc_task_type {
	const char *name;
	size_t size;                     /* of the typed task; doca_task first */
	/* Submit: DOCA_SUCCESS (it will complete through the engine) or an
	 * error, the task staying the application's. */
	doca_error_t (*submit)(struct doca_task *task);
	/* Call @p fn, a callback of this type, for @p task. */
	void (*invoke)(struct doca_task *task, dc_fn_t fn, union doca_data task_ud,
		       union doca_data ctx_ud);
};

enum dc_task_state {
	DC_TASK_FREE = 0,
	DC_TASK_ALLOCATED,       /* the application's */
	DC_TASK_SUBMITTED,       /* the layer's, until its callback */
};

struct doca_task {
	struct dc_task_pool *pool;
	struct doca_task *next;          /* free list, completion queue */
	union doca_data user_data;
	doca_error_t status;
	uint8_t state;                   /* enum dc_task_state */
};

/* Callbacks and size of a context's pool of one task type. */
struct dc_task_conf {
	dc_fn_t ok_cb;
	dc_fn_t err_cb;
	uint32_t num;
};

struct dc_task_pool {
	const struct dc_task_type *type;
	struct doca_ctx *ctx;
	struct dc_task_conf conf;
	struct doca_task *free;
	uint32_t nb_free;
	char *mem;
};

struct doca_ctx;

/* What differs between context types. */
struct dc_ctx_ops {
	const char *name;
	/* Start: DOCA_SUCCESS (running now), DOCA_ERROR_IN_PROGRESS
	 * (starting; the context calls dc_ctx_event(READY or START_FAILED)
	 * later) or an error (stays idle). */
	doca_error_t (*start)(struct doca_ctx *ctx);
	/* Stop: DOCA_SUCCESS (idle now), DOCA_ERROR_IN_PROGRESS (stopping
	 * until drained()) or an error (state unchanged). */
	doca_error_t (*stop)(struct doca_ctx *ctx);
	/* One round of work, on the engine's thread: poll, complete tasks
	 * (dc_task_complete()), run event callbacks. Returns how much
	 * happened. */
	int (*progress)(struct doca_ctx *ctx);
	/* Stopping: may it go idle now (tasks and objects all returned)? */
	bool (*drained)(struct doca_ctx *ctx);
};

/* Events of the context state machine (dc_ctx_transitions[] in dc_pe.c). */
enum dc_ctx_event {
	DC_EV_START_DONE,        /* start: running at once */
	DC_EV_START_PENDING,     /* start: running later */
	DC_EV_READY,             /* the pending start completed */
	DC_EV_START_FAILED,      /* the pending start failed */
	DC_EV_STOP_DONE,         /* stop: idle at once */
	DC_EV_STOP_PENDING,      /* stop: tasks or objects to drain first */
	DC_EV_FATAL,             /* the transport failed (peer gone) */
	DC_EV_DRAINED,           /* stopping: nothing left */
};

/* What the application may do to a context, by state
 * (dc_ctx_allowed[] in dc_pe.c). */
enum dc_ctx_op {
	DC_OP_CONFIGURE = 1 << 0,
	DC_OP_START = 1 << 1,
	DC_OP_STOP = 1 << 2,
	DC_OP_DESTROY = 1 << 3,
	DC_OP_ALLOC = 1 << 4,
	DC_OP_SUBMIT = 1 << 5,
};

struct doca_ctx {
	const struct dc_ctx_ops *ops;
	enum doca_ctx_states state;
	union doca_data user_data;
	doca_ctx_state_changed_callback_t state_cb;
	struct doca_pe *pe;
	TAILQ_ENTRY(doca_ctx) pe_next;
	uint32_t inflight;               /* submitted tasks not yet called back */
};

/* The progress engine (dc_pe.c); here for the inline functions below. */
struct dc_wait;
struct doca_pe {
	TAILQ_HEAD(, doca_ctx) ctxs;
	struct doca_task *cq_head;       /* completions, oldest first */
	struct doca_task *cq_tail;
	uint32_t cq_len;
	uint32_t nb_stopping;            /* contexts in the stopping state */
	struct dc_wait *wait;            /* notification handle */
	bool in_progress;
};

/* What the application may do to a context in each state: configure and
 * destroy when idle; allocate and submit tasks when running; stop unless
 * idle. (The transitions are in dc_pe.c.) */
static const uint32_t dc_ctx_allowed[] = {
	[DOCA_CTX_STATE_IDLE] = DC_OP_CONFIGURE | DC_OP_START | DC_OP_DESTROY,
	[DOCA_CTX_STATE_STARTING] = DC_OP_STOP,
	[DOCA_CTX_STATE_RUNNING] = DC_OP_STOP | DC_OP_ALLOC | DC_OP_SUBMIT,
	[DOCA_CTX_STATE_STOPPING] = DC_OP_STOP,
};

/* Whether @p op is allowed in the context's state. */
static inline bool
dc_ctx_allows(const struct doca_ctx *ctx, enum dc_ctx_op op)
{
	return (unsigned int)ctx->state < 4 && (dc_ctx_allowed[ctx->state] & op) != 0;
}

DC_EXPORT void dc_ctx_init(struct doca_ctx *ctx, const struct dc_ctx_ops *ops);
/* Apply @p ev and run the state callback. false (logged) if @p ev is not
 * allowed in the current state: a bug of the layer. */
DC_EXPORT bool dc_ctx_event(struct doca_ctx *ctx, enum dc_ctx_event ev);
/* Disconnect a context from its engine (its destroy). */
DC_EXPORT void dc_ctx_fini(struct doca_ctx *ctx);
/* The transition table, for the state machine test. */
DC_EXPORT int dc_ctx_next_state(enum doca_ctx_states from, enum dc_ctx_event ev);
DC_EXPORT uint32_t dc_ctx_allowed_ops(enum doca_ctx_states state);

/* Pools: created at start with the configured size, freed by the
 * context's destroy. */
DC_EXPORT struct dc_task_pool *dc_task_pool_create(struct doca_ctx *ctx, const struct dc_task_type *type,
						   const struct dc_task_conf *conf);
DC_EXPORT void dc_task_pool_free(struct dc_task_pool *pool);
/* DOCA_ERROR_NO_MEMORY when every task is in use, DOCA_ERROR_BAD_STATE
 * when the context does not allow allocating. Inline: once per message. */
static inline doca_error_t
dc_task_alloc(struct dc_task_pool *pool, struct doca_task **task)
{
	struct doca_task *t;

	if (unlikely(!dc_ctx_allows(pool->ctx, DC_OP_ALLOC)))
		return DOCA_ERROR_BAD_STATE;
	t = pool->free;
	if (unlikely(t == NULL))
		return DOCA_ERROR_NO_MEMORY;
	pool->free = t->next;
	pool->nb_free--;
	t->next = NULL;
	t->state = DC_TASK_ALLOCATED;
	t->status = DOCA_SUCCESS;
	t->user_data.u64 = 0;
	*task = t;
	return DOCA_SUCCESS;
}

/* A submitted task is done: its callback runs from the next progress. */
static inline void
dc_task_complete(struct doca_task *task, doca_error_t status)
{
	struct doca_pe *pe = task->pool->ctx->pe;

	task->status = status;
	task->next = NULL;
	if (pe->cq_tail != NULL)
		pe->cq_tail->next = task;
	else
		pe->cq_head = task;
	pe->cq_tail = task;
	pe->cq_len++;
}

/* Completions waiting for the engine's next progress? */
static inline bool
dc_pe_has_completions(const struct doca_pe *pe)
{
	return pe->cq_head != NULL;
}

/* Run the completion callbacks queued so far, and nothing else (no
 * context's progress); 0 from inside one of the engine's callbacks. */
DC_EXPORT int dc_pe_complete(struct doca_pe *pe);

#endif /* DC_PRIV_H */
