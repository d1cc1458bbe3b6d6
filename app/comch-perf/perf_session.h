/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_SESSION_H
#define COMCH_PERF_SESSION_H

/*
 * The host side's session: its connections, the streams of the running
 * test and the forwarding lcores that run them.
 *
 * Streams and lcores, as testpmd does with ports and cores: a test has
 * connections x queues streams (one producer, and for fp-lat/fp-bidir one
 * consumer, each), numbered connection-major; stream i runs on forwarding
 * lcore i % nb_fwd. Forwarding lcores are the lcores other than the one
 * driving the session and the EAL main lcore (the DPU side in pair mode);
 * when there is none, the driving lcore forwards itself. Control tests have one stream per connection
 * and the forwarding lcore owns that connection (it polls the client) for
 * the duration of the run; in fast-path tests the main lcore keeps polling
 * the clients when it is not forwarding.
 */

#include <rte_lcore.h>

#include "perf_engine.h"

struct perf_conn {
	struct rte_comch_client *cli;     /* NULL in a secondary */
	struct rte_comch_conn *conn;
	/* the DPU's consumers for the running test, in creation order */
	uint32_t peer_consumers[PERF_MAX_QUEUES];
	unsigned int nb_peer_consumers;
	struct perf_msg last;        /* last perf message from the DPU */
	bool have_last;
	uint64_t sent;               /* by the streams of this connection */
	uint64_t received;
};

struct perf_stream {
	struct perf_conn *pc;
	struct rte_comch_producer *prod;
	struct rte_comch_consumer *cons;   /* fp-lat, fp-bidir */
	struct rte_comch_mem *mem;
	uint32_t size;
	uint32_t peer_consumer;
	uint32_t own_consumer;              /* id the DPU replies to (fp-lat) */
	uint64_t sent;
	uint64_t received;
};

/* Per forwarding lcore: its streams and its counters (written only by
 * that lcore while running; read by the main lcore for progress). */
struct perf_fwd {
	struct perf_session *s;
	unsigned int lcore_id;
	struct perf_stream **streams;
	unsigned int nb_streams;
	uint64_t count;                /* messages to measure, 0: by time */
	uint64_t msgs;                 /* sent in the window */
	uint64_t rx_msgs;              /* received in the window */
	uint64_t sent;                 /* all sent */
	uint64_t received;             /* all received */
	uint64_t t0, t1;               /* window, TSC */
	int err;
	bool done;
	bool is_main;                  /* runs on the driving lcore */
	uint32_t main_turns;           /* is_main: turns since it last
					* polled the connections */
	uint64_t cpu_us;               /* idle: CPU time of this lcore over
					* the window */
	struct perf_hist hist;
} __rte_cache_aligned;

struct perf_session {
	const struct perf_opts *o;
	int16_t dev_id;
	uint64_t tsc_hz;
	struct perf_conn *conns;
	unsigned int nb_conns;
	/* the running test */
	enum perf_test test;
	const struct perf_engine *e;
	uint32_t size;
	uint32_t burst;
	struct perf_stream *streams;
	unsigned int nb_streams;
	struct perf_fwd *fwd;
	unsigned int nb_fwd;
	unsigned int fwd_lcores[RTE_MAX_LCORE];
	bool main_forwards;            /* the driving lcore runs the streams */
	uint64_t warm_end;             /* TSC */
	uint64_t end;                  /* TSC, 0: until stopped / --count */
	uint64_t end_hard;             /* TSC: the end of a window that has
					* measured nothing yet (0 with end) */
	uint64_t next_progress;        /* TSC, UINT64_MAX: no progress line */
	volatile bool stop;
	bool running;
	uint8_t *src;                  /* payload source */
	size_t src_size;
	/* interactive "show stats": counters at the last show/clear */
	uint64_t shown_msgs, shown_rx, shown_tsc;
};

/* perf_host.c */
int perf_session_open(struct perf_session *s, const struct perf_opts *o,
		int16_t dev_id);
void perf_session_close(struct perf_session *s);
/* Prepare the test on both sides and start the forwarding lcores. */
int perf_session_start(struct perf_session *s, enum perf_test test,
		uint32_t size, uint32_t burst);
/* Stop, collect and report; returns 0 or a negative errno. */
int perf_session_stop(struct perf_session *s);
/* Keep the connections polled while the forwarding lcores run (the
 * driving lcore, when it does not forward itself). */
void perf_session_poll(struct perf_session *s);

/* perf_fwd.c: the one-line progress (main lcore only). */
void perf_progress(struct perf_session *s, uint64_t now);

/* perf_cmd.c: interactive mode (-i): a session driven from a command
 * line. */
int perf_interactive(const struct perf_opts *o, int16_t dev_id);

#endif /* COMCH_PERF_SESSION_H */
