/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_H
#define COMCH_PERF_H

/*
 * dpdk-comch-perf: the host side drives, the DPU side serves.
 *
 * The host asks for each (test, size) with a BEGIN control message; the
 * DPU prepares (consumers, producers) and answers READY; the host runs the
 * test for --warmup + --duration (or --count messages), then sends END with
 * what it sent; the DPU answers RESULT with what it received once it has
 * it all (or gives up). Rates are measured by the sender over the
 * measurement window; the receiver's counts check nothing was lost.
 * Latency is a round trip measured by the host, in a histogram.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_comch.h>

#define PERF_MAX_SIZES 16
#define PERF_MAX_TESTS 8

enum perf_role { PERF_ROLE_DPU, PERF_ROLE_HOST, PERF_ROLE_PAIR };

/* How results are printed: aligned text (default), --json or --csv. */
enum perf_output { PERF_OUT_TEXT, PERF_OUT_JSON, PERF_OUT_CSV };

enum perf_test {
	PERF_CTRL_LAT,
	PERF_CTRL_TPUT,
	PERF_FP_LAT,
	PERF_FP_TPUT,
	PERF_FP_BIDIR,
	PERF_CONN_RATE,
	PERF_WAKE_LAT,
	PERF_IDLE,
	PERF_TEST__MAX
};

/* Producer/consumer pairs per connection, connections per host. */
#define PERF_MAX_QUEUES 64
#define PERF_MAX_CONNS 1024

struct perf_opts {
	enum perf_role role;
	enum perf_test tests[PERF_MAX_TESTS];
	unsigned int nb_tests;
	uint32_t sizes[PERF_MAX_SIZES];
	unsigned int nb_sizes;
	uint32_t burst;
	double duration;       /* seconds, 0 when --count is used */
	uint64_t count;        /* messages, 0 when --duration is used */
	double warmup;         /* seconds */
	bool touch;
	enum perf_output output;
	bool interactive;      /* -i */
	bool hold;             /* host: keep the connections for secondaries */
	uint32_t connections;  /* host: connections to open */
	uint32_t queues;       /* producer/consumer pairs per connection */
	const char *name;      /* server name */
	bool event;            /* --event: servers, clients and consumers
				* with RTE_COMCH_F_EVENT; the DPU sleeps
				* in epoll when it has nothing to do */
	uint32_t max_size;     /* DPU: the largest fast-path message it
				* accepts from a host (--max-size) */
	uint64_t max_mem;      /* DPU: registered memory the queues of all
				* hosts may take (--max-mem) */
};

/* The DPU's --max-size unless told (pair: at least the largest --size):
 * the most one message costs a turn of its loop, and 8 buffers of it a
 * queue's memory at least. */
#define PERF_DPU_MAX_SIZE (UINT32_C(1) << 20)
/* The DPU's --max-mem unless told (pair: at least what its own tests
 * take). */
#define PERF_DPU_MAX_MEM (UINT64_C(1) << 30)
/* Of it, what the DPU keeps for every other host that may still come:
 * one queue of messages up to 128 KiB. */
#define PERF_DPU_MEM_RESERVE (UINT64_C(1) << 20)

/* perf_engine.c: a test's name; the test of a name (-1 if none); the
 * names of the tests with every property of @p flags (PERF_E_*, 0: all),
 * separated by ", ". */
const char *perf_test_name(enum perf_test t);
int perf_test_by_name(const char *name);
void perf_test_names(char *buf, size_t size, uint32_t flags);

/* With --json and --csv stdout carries the results and nothing else:
 * events and progress go to stderr or nowhere. */
static inline bool
perf_results_own_stdout(const struct perf_opts *o)
{
	return o->output != PERF_OUT_TEXT;
}

/* perf_options.c: parse the options after "--" (defaults and checks of a
 * secondary process when @p secondary); 0, 1 (--help shown) or -EINVAL
 * (message printed). */
int perf_parse_args(int argc, char **argv, bool secondary,
		struct perf_opts *o);
void perf_usage(const char *prog);

/* ------------------------------------------------------------- protocol */

#define PERF_MAGIC UINT32_C(0x46524550) /* "PERF" */

enum perf_msg_type {
	PERF_MSG_BEGIN = 1, /* host -> dpu: test, size, burst, touch */
	PERF_MSG_READY,     /* dpu -> host */
	PERF_MSG_END,       /* host -> dpu: sent messages */
	PERF_MSG_RESULT,    /* dpu -> host: received messages, bytes */
	PERF_MSG_REFUSED,   /* dpu -> host: the BEGIN cannot be served; msgs
			     * is why (a positive errno) */
};

struct perf_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t test;
	uint32_t size;
	uint32_t burst;
	uint32_t touch;
	uint32_t queues;
	uint32_t first_consumer; /* READY (fast path): the id of the DPU's
				  * first consumer for the test; the others
				  * follow it in creation order */
	uint64_t msgs;   /* END: sent by the host; RESULT: received by the DPU */
	uint64_t bytes;  /* RESULT: their payload bytes; idle: the DPU
			  * process's CPU time between READY and END, us */
	uint64_t sent;   /* RESULT: sent by the DPU (fp-bidir); idle: the
			  * wall time between READY and END, us */
};

/* A control message is a perf protocol message if it has this exact size
 * and the magic; anything else is test traffic. The message is copied
 * into @p out first and only the copy is checked and used: what a peer
 * sent is read once. */
static inline bool
perf_msg_parse(const struct rte_comch_msg *m, struct perf_msg *out)
{
	if (m->len != sizeof(*out))
		return false;
	memcpy(out, m->data, sizeof(*out));
	return out->magic == PERF_MAGIC;
}

/* Buffers a fast-path consumer posts for @p size messages: enough to keep
 * the producer busy (up to 1024), few enough that they stay in cache
 * (about 1 MiB), at least 8. */
static inline uint32_t
perf_nb_posts(uint32_t size)
{
	uint64_t n = (UINT64_C(1) << 20) / (size ? size : 1);

	return (uint32_t)(n > 1024 ? 1024 : n < 8 ? 8 : n);
}

/* The registered memory of one fast-path queue for @p size. */
static inline uint64_t
perf_queue_mem(uint32_t size)
{
	return (uint64_t)perf_nb_posts(size) * size;
}

/* @p cycles of a @p hz clock in units of 1/@p per_s second (1000000000:
 * ns). Whole seconds apart: cycles * per_s wraps 64 bits past a few
 * seconds of a GHz clock (ns), or a couple of hours (us). */
static inline uint64_t
perf_cycles_to(uint64_t cycles, uint64_t hz, uint64_t per_s)
{
	return cycles / hz * per_s + cycles % hz * per_s / hz;
}

/* ------------------------------------------------------------ histogram */

#define PERF_HIST_SUB_BITS 7
#define PERF_HIST_BUCKETS (64 << (PERF_HIST_SUB_BITS - 1))

/* Log-linear histogram of nanoseconds: exact below 128 ns, then 64 buckets
 * per power of two (relative error under 1.6 %). No allocation per
 * sample. */
struct perf_hist {
	uint64_t count;
	uint64_t max;
	uint64_t min;          /* UINT64_MAX when empty */
	uint64_t sum;          /* of every sample, for the exact mean */
	uint64_t buckets[PERF_HIST_BUCKETS];
};

void perf_hist_reset(struct perf_hist *h);
void perf_hist_add(struct perf_hist *h, uint64_t ns);
/* Add the samples of @p from to @p to. */
void perf_hist_merge(struct perf_hist *to, const struct perf_hist *from);
/* Value at quantile @p q in [0, 1] (0 when empty). */
uint64_t perf_hist_quantile(const struct perf_hist *h, double q);
/* Exact mean and minimum of the samples (0 when empty). */
double perf_hist_mean(const struct perf_hist *h);
uint64_t perf_hist_min(const struct perf_hist *h);

/* -------------------------------------------------------------- results */

struct perf_result {
	enum perf_test test;
	uint32_t size;
	uint32_t burst;
	int lcore;              /* -1: total of all lcores */
	uint64_t msgs;          /* sent in the measurement window */
	uint64_t rx_msgs;       /* received in the window (fp-bidir) */
	double seconds;         /* length of the window */
	uint64_t peer_msgs;     /* received by the peer, whole run */
	uint64_t peer_bytes;    /* their payload bytes */
	uint64_t sent_total;    /* sent, whole run */
	uint64_t peer_sent;     /* sent by the peer (fp-bidir) */
	uint64_t received;      /* received from the peer (fp-bidir) */
	const struct perf_hist *lat; /* NULL for throughput tests */
	double cpu;             /* idle: CPU use of the sleeping lcore, % */
	double peer_cpu;        /* idle: CPU use of the DPU process, % */
};

/* perf_cpu.c: CPU time used so far, in us, from /proc: by this thread
 * (/proc/thread-self/stat) or by the whole process (/proc/self/stat),
 * user + system; 0 if /proc cannot be read. Resolution: a clock tick
 * (10 ms). */
uint64_t perf_cpu_us(bool thread);

/* perf_report.c: print one result in the --json, --csv or text form
 * (perf_report.c explains the columns and units). Text: a header row
 * before the first result and whenever the kind of result changes (and
 * before each result in interactive mode); CSV: one header line before
 * the first result. */
void perf_report(const struct perf_opts *o, const char *role,
		const struct perf_result *r);
/* The next result prints its header again (for the unit tests). */
void perf_report_reset(void);

/* ------------------------------------------------------------------ roles */

/* perf_signal.c: set by SIGINT and SIGTERM once perf_signals_catch() ran;
 * every loop ends on it. */
extern volatile bool perf_quit;
void perf_signals_catch(void);

/* Serve hosts on @p dev_id until @p serve_for seconds pass (0: forever),
 * *until turns true (when not NULL) or SIGINT. Returns 0 or a negative
 * errno. */
int perf_dpu_run(const struct perf_opts *o, int16_t dev_id, double serve_for,
		const volatile bool *until);
/* Connect and run every (test, size); in a secondary process, on the
 * primary's connections. Returns 0 or a negative errno. */
int perf_host_run(const struct perf_opts *o, int16_t dev_id);
/* --hold: connect, then keep the connections polled (the library relays
 * the control messages of secondary processes running on them) until
 * SIGINT (or --duration). */
int perf_hold_run(const struct perf_opts *o, int16_t dev_id);

#endif /* COMCH_PERF_H */
