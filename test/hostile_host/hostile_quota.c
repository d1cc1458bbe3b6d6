/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: attacks on what the DPU holds for a connection: queues
 * never read, buffers never posted, announcements never taken, a
 * connection hijacking another's consumers, full quotas, fds until the
 * DPU runs out.
 */

#include "hostile_host.h"

/* ---- never-read: a queue of 1 that we never read ---- */

static void
flood_tick(void *arg)
{
	struct flood *f = arg;
	uint8_t msg[64] = { 0 };
	bool any = false;

	for (unsigned int i = 0; i < f->n; i++) {
		if (f->h[i].eof)
			continue;
		hc_pump(&f->h[i]);
		while (hc_send(&f->h[i], msg, sizeof(msg)) == 0) {
			f->sent++;
			any = true;
		}
	}
	if (!any)
		pause_us(1000);
}

int
mode_never_read(void)
{
	struct flood f = { .n = opt.conns };
	unsigned int i, ended = 0;

	f.h = calloc(opt.conns, sizeof(*f.h));
	if (f.h == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.conns; i++) {
		if (hc_open_retry(&f.h[i], 1) < 0)
			return EXIT_SETUP;
		if (strcmp(opt.app, "perf") == 0) {
			/* ctrl-lat: the DPU echoes each message to us */
			perf_send(&f.h[i], PERF_MSG_BEGIN, PERF_CTRL_LAT, 64, 1, 1,
				0, 0);
		}
	}
	flood_tick(&f);
	say("armed");
	hold(flood_tick, &f);
	for (i = 0; i < opt.conns; i++) {
		ended += f.h[i].eof;
		hc_close(&f.h[i]);
	}
	say("never-read: sent %" PRIu64 " messages, connections ended by the DPU %u",
		f.sent, ended);
	free(f.h);
	return 0;
}

/* ---- never-post: the DPU has something to send us through the fast
 * path and we never post a buffer ---- */

struct np {
	struct hc h;
	uint32_t our_id;
	uint64_t sent;
};

static void
np_tick(void *arg)
{
	struct np *n = arg;
	uint8_t payload[64] = { 1 };
	struct rcons *rc;
	unsigned int q = 0;

	hc_pump(&n->h);
	/* fp-lat: every message names our consumer as reply-to */
	while ((rc = rcons_any(&n->h, q++)) != NULL)
		n->sent += rcons_send(rc, 64, payload, sizeof(payload),
			&n->our_id, sizeof(n->our_id));
	pause_us(500);
}

int
mode_never_post(void)
{
	struct np n;

	memset(&n, 0, sizeof(n));
	if (hc_open_retry(&n.h, 64) < 0)
		return EXIT_SETUP;
	if (lcons_add(&n.h, 64, 64 * 1024, SEALS) < 0)
		return EXIT_SETUP;
	n.our_id = n.h.lc[0].id;
	if (strcmp(opt.app, "perf") == 0) {
		/* fp-lat: echoes held; fp-bidir: the DPU's producer waits */
		if (!perf_begin(&n.h, opt.size == 1 ? PERF_FP_BIDIR :
				PERF_FP_LAT, 64, 32, opt.queues, 0, opt.queues)) {
			say("no READY from the DPU");
			return EXIT_SETUP;
		}
	}
	np_tick(&n);
	say("armed");
	hold(np_tick, &n);
	say("never-post: sent %" PRIu64 " into the DPU's consumers, connection %s",
		n.sent, n.h.eof ? "ended by the DPU" : "kept");
	hc_close(&n.h);
	return 0;
}

/* ---- announce-flood: the DPU announces consumers; we never read the
 * link socket ---- */

int
mode_announce_flood(void)
{
	struct hc h;
	uint8_t buf[SHM_MAX_MSG_SIZE];
	unsigned int begins = 0;
	double end;

	if (hc_open_retry(&h, 1024) < 0)
		return EXIT_SETUP;
	h.no_sock_read = true;
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		/* every fp BEGIN: the DPU withdraws the last queues and
		 * announces new ones */
		if (perf_send(&h, PERF_MSG_BEGIN, begins % 2 ? PERF_CTRL_LAT :
				PERF_FP_TPUT, 64, 32, begins % 2 ? 1 :
				PERF_MAX_QUEUES, 0, 0) < 0)
			break;
		begins++;
		while (hc_recv(&h, buf, sizeof(buf)) > 0)
			;
		if (sock_hung_up(h.sock))
			break;
	}
	h.eof = sock_hung_up(h.sock);
	say("announce-flood: %u BEGINs, connection %s", begins,
		h.eof ? "ended by the DPU" : "kept");
	hc_close(&h);
	return 0;
}

/* ---- unread-churn: --conns connections that never read the link
 * socket, each asking the perf DPU --rounds times for a test with
 * --queues queues and then for one without (an announcement and a
 * withdrawal per queue each round), then held: what the DPU keeps for
 * announcements we never read must not grow with the rounds ---- */

int
mode_unread_churn(void)
{
	unsigned int i, r, k, ready = 0, ended = 0;
	struct hc *h;

	if (strcmp(opt.app, "perf") != 0)
		return EXIT_SETUP;
	h = calloc(opt.conns, sizeof(*h));
	if (h == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.conns && !quit; i++) {
		if (hc_open_retry(&h[i], 64) < 0)
			break;
		h[i].no_sock_read = true;
		for (r = 0; r < opt.rounds && !quit; r++) {
			/* ready_wait: a loaded machine can keep the DPU
			 * off its core for seconds */
			if (perf_send(&h[i], PERF_MSG_BEGIN, PERF_FP_TPUT, 64,
					32, opt.queues, 0, 0) < 0 ||
			    !perf_wait(&h[i], PERF_MSG_READY, ready_wait))
				break;
			ready++;
			if (perf_send(&h[i], PERF_MSG_BEGIN, PERF_CTRL_LAT, 64,
					1, 1, 0, 0) < 0 ||
			    !perf_wait(&h[i], PERF_MSG_READY, ready_wait))
				break;
		}
		if (r < opt.rounds && !quit)
			say("unread-churn: connection %u stopped in round %u: %s",
				i, r, sock_hung_up(h[i].sock) ? "ended by the DPU" :
				"no READY (refused, or none within the wait)");
	}
	for (k = 0; k < i; k++)
		ended += sock_hung_up(h[k].sock);
	say("unread-churn: %u connections, %u tests with queues ready, %u connections ended by the DPU",
		i, ready, ended);
	say("armed");
	hold(NULL, NULL);
	for (k = 0; k < i; k++)
		hc_close(&h[k]);
	free(h);
	return 0;
}

/* ---- hijack: a second connection announces consumers (and withdraws
 * them) over and over: the DPU must tell connections apart ---- */

int
mode_consumer_churn(void)
{
	struct hc h;
	unsigned int n = 0;
	double end;

	if (hc_open_retry(&h, 16) < 0)
		return EXIT_SETUP;
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end && !h.eof) {
		struct shm_msg m;
		int li;

		/* up to the quota, then withdraw them all */
		while (h.nb_lc < RTE_MIN(h.max_consumers, opt.consumers) &&
		       (li = lcons_add(&h, 1, 4096, SEALS)) >= 0) {
			lcons_post(&h.lc[li], 1, 0, 4096);
			n++;
		}
		hc_pump(&h);
		pause_us(200000);
		for (unsigned int i = 0; i < h.nb_lc && opt.refresh; i++) {
			msg_init(&m, SHM_MSG_CONSUMER_DEL);
			m.consumer.consumer_id = h.lc[i].id;
			send_fds(h.sock, &m, sizeof(m), NULL, 0);
			munmap(h.lc[i].ring, h.lc[i].ring_size);
			if (h.lc[i].mem != NULL)
				munmap(h.lc[i].mem, h.lc[i].mem_size);
			close(h.lc[i].ring_fd);
			close(h.lc[i].mem_fd);
		}
		if (opt.refresh)
			h.nb_lc = 0;
	}
	say("consumer-churn: %u consumers announced, connection %s", n,
		h.eof ? "ended by the DPU" : "kept");
	hc_close(&h);
	return 0;
}

/* ---- conn-hog: connections with their full consumer quota ---- */

int
mode_conn_hog(void)
{
	struct hc *h = calloc(opt.conns + 8, sizeof(*h));
	unsigned int i, k, ok = 0, cons = 0, rejected = 0, ended = 0;
	uint64_t per;
	int r;

	if (h == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.conns; i++) {
		if (hc_open_retry(&h[i], 16) < 0)
			break;
		ok++;
		per = RTE_ALIGN_FLOOR(h[i].max_map / RTE_MAX(h[i].max_consumers,
				1u) - cons_ring_size(8), page_size());
		if ((uint64_t)opt.mem_mb << 20 < per)
			per = (uint64_t)opt.mem_mb << 20;
		for (k = 0; k < RTE_MIN(opt.consumers, h[i].max_consumers); k++)
			if (lcons_add(&h[i], 8, per, SEALS) >= 0)
				cons++;
	}
	say("conn-hog: %u connections, %u consumers", ok, cons);
	say("armed");
	while (!quit && !phase2)
		pause_us(20000);
	if (phase2) {
		/* beyond the quota: each must be refused, nothing else. An
		 * accepted one stays open, so that a slot the honest client
		 * left (it may be done by now) is taken once, not once per
		 * try: of the four, three at least are refused. */
		for (i = 0; i < 4; i++) {
			r = hc_open(&h[opt.conns + i], 16);
			if (r == SHM_MSG_REJECT) {
				rejected++;
				say("extra connection refused: %s: %s",
					strerror(h[opt.conns + i].reject_err),
					h[opt.conns + i].reject_reason);
			} else if (r == SHM_MSG_ACCEPT) {
				say("extra connection accepted");
				continue;
			}
			hc_close(&h[opt.conns + i]);
		}
		say("phase2: %u extra connections refused", rejected);
		hold(NULL, NULL);
		for (i = 0; i < 4; i++)
			hc_close(&h[opt.conns + i]);
	}
	for (i = 0; i < opt.conns; i++) {
		hc_pump(&h[i]);
		ended += h[i].eof;
		hc_close(&h[i]);
	}
	say("conn-hog: connections ended by the DPU %u", ended);
	free(h);
	return 0;
}

/* ---- fd-exhaust: connections and consumers until the DPU runs out of
 * fds ---- */

/* Fill the DPU with connections and consumers until it runs out of fds,
 * then send valid HELLOs: each must be refused for the DPU's shortage,
 * never called malformed (fds the kernel could not install are the
 * DPU's shortage, not our fault). */
static void
exhaust_fill(struct hc *h, unsigned int max)
{
	unsigned int i, k, ok = 0, cons = 0, out_of_fds = 0, other = 0;
	unsigned int j, why_fds = 0, why_bad = 0, accepted = 0;
	struct hc x;
	int r;

	for (i = 0; i < max && !quit; i++) {
		r = hc_open(&h[i], 16);
		if (r != SHM_MSG_ACCEPT) {
			if (r == SHM_MSG_REJECT) {
				if (strstr(h[i].reject_reason,
						"file descriptors") != NULL)
					out_of_fds++;
				else
					other++;
				if (strstr(h[i].reject_reason, "malformed") !=
				    NULL)
					why_bad++;
				if (out_of_fds + other < 4)
					say("refused: %s: %s",
						strerror(h[i].reject_err),
						h[i].reject_reason);
			}
			hc_close(&h[i]);
			if (out_of_fds + other > 8)
				break;
			continue;
		}
		ok++;
		for (k = 0; k < h[i].max_consumers; k++)
			if (lcons_add(&h[i], 8, 4096, SEALS) >= 0)
				cons++;
	}
	say("fd-exhaust: %u connections, %u consumers, refused out-of-fds %u, otherwise %u",
		ok, cons, out_of_fds, other);
	for (j = 0; j < opt.rounds && !quit; j++) {
		r = hc_open(&x, 16);
		if (r == SHM_MSG_REJECT) {
			if (strstr(x.reject_reason, "malformed") != NULL)
				why_bad++;
			else if (strstr(x.reject_reason,
					"file descriptors") != NULL)
				why_fds++;
		} else if (r == SHM_MSG_ACCEPT) {
			accepted++;
		}
		hc_close(&x);
	}
	say("fd-exhaust: %u more valid HELLOs: refused out-of-fds %u, accepted %u",
		j, why_fds, accepted);
	if (why_bad != 0)
		finding("a valid HELLO was refused as malformed %u times while the DPU was out of fds",
			why_bad);
}

static unsigned int
exhaust_release(struct hc *h, unsigned int max)
{
	unsigned int i, ended = 0;

	for (i = 0; i < max; i++) {
		if (h[i].sock < 0 || h[i].dpu_mb == NULL)
			continue;
		hc_pump(&h[i]);
		ended += h[i].eof;
		hc_close(&h[i]);
	}
	return ended;
}

int
mode_fd_exhaust(void)
{
	unsigned int max = opt.conns, cycle, ended;
	struct hc *h = calloc(max, sizeof(*h));

	if (h == NULL)
		return EXIT_SETUP;
	/* a few times over: each is a chance for the DPU to get its
	 * shortage wrong */
	for (cycle = 0; cycle < 4 && !quit; cycle++) {
		exhaust_fill(h, max);
		exhaust_release(h, max);
		pause_us(200000);
	}
	exhaust_fill(h, max);
	say("armed");
	while (!quit && !phase2)
		pause_us(20000);
	ended = exhaust_release(h, max);
	say("fd-exhaust: connections ended by the DPU %u; released", ended);
	free(h);
	hold(NULL, NULL);
	return 0;
}
