/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_FWD_H
#define COMCH_PERF_FWD_H

/*
 * What every host engine's loop uses (perf_eng_*.c): accounting a step of
 * the loop in the measurement window, and taking and reposting a
 * stream's own completions. Inline: they run on every turn.
 */

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "perf_session.h"

/*
 * With no worker lcore the driving lcore forwards itself (main_wait() does
 * not run), so its loops take over main_wait()'s duties: poll the
 * connections (a DPU that went away is seen there, and the fast path then
 * fails with -ECONNRESET) and stop a round trip that outlives
 * s->end_hard. fwd_step() does it every FWD_MAIN_POLL calls, between
 * messages; a wait for one message only once it has spun FWD_MAIN_POLL
 * times in vain, so that a measured round trip pays for no poll unless
 * it is stalled already.
 */
#define FWD_MAIN_POLL 4096

static inline void
fwd_main_duties(struct perf_fwd *f, uint64_t now)
{
	struct perf_session *s = f->s;

	perf_session_poll(s);
	if (s->end_hard != 0 && now >= s->end_hard)
		s->stop = true;
}

/* A loop waiting for one message goes on while this is true; @p spins
 * counts its turns (0 before the first). */
static inline bool
fwd_wait_more(struct perf_fwd *f, unsigned int *spins)
{
	if (unlikely(f->is_main) && ++*spins % FWD_MAIN_POLL == 0)
		fwd_main_duties(f, rte_rdtsc());
	/* perf_quit too: in --role=pair a signal ends the DPU side, and
	 * what the loop waits for never comes */
	return !f->s->stop && !perf_quit;
}

/* Account @p n messages sent and @p rx received at @p now; false when
 * this lcore is done. */
static inline bool
fwd_step(struct perf_fwd *f, uint64_t now, uint64_t n, uint64_t rx)
{
	struct perf_session *s = f->s;

	if (unlikely(f->is_main) && ++f->main_turns == FWD_MAIN_POLL) {
		f->main_turns = 0;
		fwd_main_duties(f, now);
	}
	f->sent += n;
	f->received += rx;
	if (now >= s->warm_end) {
		if (unlikely(f->t0 == 0)) {
			f->t0 = now;
		} else {
			f->msgs += n;
			f->rx_msgs += rx;
			f->t1 = now;
		}
	}
	/* perf_quit too: when the main lcore forwards, nobody else turns a
	 * signal into s->stop */
	if (unlikely(s->stop || perf_quit))
		return false;
	/* The window ends at its time once it measured something: a round
	 * trip slower than the whole window (a loaded machine) extends it
	 * rather than report nothing, up to s->end_hard. */
	if (unlikely(s->end != 0 && now >= s->end) &&
	    (f->msgs != 0 || f->rx_msgs != 0 || now >= s->end_hard ||
	     (s->e->flags & PERF_E_IDLE)))
		return false;
	if (unlikely(now >= s->next_progress) && f->is_main)
		perf_progress(s, now);
	if (f->count != 0)
		return f->msgs < f->count;
	return true;
}

static inline uint64_t
fwd_ns(const struct perf_session *s, uint64_t cycles)
{
	return perf_cycles_to(cycles, s->tsc_hz, 1000000000);
}

/* A round trip that started at @p t0 and ended at @p now, if measured. */
static inline void
fwd_sample(struct perf_fwd *f, uint64_t t0, uint64_t now)
{
	if (now >= f->s->warm_end && f->t0 != 0)
		perf_hist_add(&f->hist, fwd_ns(f->s, now - t0));
}

/* Take completions of a stream's own consumer and repost the buffers;
 * returns the messages received (buffers given back unfilled do not
 * count). */
static inline int
fwd_fp_rx(struct perf_stream *st, uint16_t max)
{
	struct rte_comch_completion cpl[64];
	void *bufs[64];
	uint32_t lens[64];
	int n, i, filled = 0;

	n = rte_comch_consumer_poll_burst(st->cons, cpl, RTE_MIN(max, 64));
	for (i = 0; i < n; i++) {
		bufs[i] = cpl[i].buf;
		lens[i] = st->size;
		filled += cpl[i].status == 0;
	}
	if (n > 0) {
		rte_comch_consumer_post_burst(st->cons, bufs, lens, (uint16_t)n);
		st->received += (uint64_t)filled;
	}
	return n < 0 ? n : filled;
}

/*
 * Event mode (wake-lat, idle): an epoll set with the events of this
 * lcore's streams' connections and their clients (--event: the clients
 * have RTE_COMCH_F_EVENT). Returns the epoll fd, or a negative errno
 * (-ENOTSUP without --event).
 */
static inline int
fwd_epoll_open(struct perf_fwd *f)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct rte_comch_event *ev;
	unsigned int i, k;
	int ep, ret;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return -errno;
	for (i = 0; i < f->nb_streams; i++) {
		struct perf_conn *pc = f->streams[i]->pc;

		for (k = 0; k < 2; k++) {
			if (k == 1 && pc->cli == NULL)
				continue;
			ev = k == 0 ? rte_comch_conn_event(pc->conn) :
				rte_comch_client_event(pc->cli);
			if (ev == NULL) {
				close(ep);
				return -ENOTSUP;
			}
			/* streams of one connection share its events */
			ret = epoll_ctl(ep, EPOLL_CTL_ADD, rte_comch_event_fd(ev),
					&e);
			if (ret < 0 && errno != EEXIST) {
				ret = -errno;
				close(ep);
				return ret;
			}
		}
	}
	return ep;
}

/* Arm every event of fwd_epoll_open(): 1 if one found work (poll, do not
 * sleep), 0 (sleep), or a negative errno (the connection is lost). */
static inline int
fwd_arm(struct perf_fwd *f)
{
	unsigned int i;
	int ret;

	for (i = 0; i < f->nb_streams; i++) {
		struct perf_conn *pc = f->streams[i]->pc;

		ret = rte_comch_event_arm(rte_comch_conn_event(pc->conn));
		if (ret != 0)
			return ret;
		if (pc->cli != NULL) {
			ret = rte_comch_event_arm(rte_comch_client_event(pc->cli));
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

#endif /* COMCH_PERF_FWD_H */
