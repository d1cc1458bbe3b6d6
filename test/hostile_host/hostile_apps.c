/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: attacks through the samples' and dpdk-comch-perf's own
 * protocols: a correct data-sample client, BEGINs that ask for the
 * most, buffers filled with their whole length, big copies.
 */

#include "hostile_host.h"

/* ---- data-peer: a correct client of the data sample, written from its
 * guide, that posts its buffer only on SIGUSR1 (a slow host). Exit 0 when
 * the exchange completed with the expected text, 1 otherwise. ---- */

int
mode_data_peer(void)
{
	struct hc h;
	struct rcons *rc = NULL;
	struct lcons *l;
	double end;
	char got[4097];
	uint32_t len;
	int li;

	if (hc_open_retry(&h, 16) < 0)
		return EXIT_SETUP;
	li = lcons_add(&h, 1, 4096, SEALS);
	if (li < 0)
		return EXIT_SETUP;
	l = &h.lc[li];
	end = now_s() + 30;
	while ((rc = rcons_any(&h, 0)) == NULL && now_s() < end && !h.eof) {
		hc_pump(&h);
		pause_us(1000);
	}
	if (rc == NULL) {
		say("data-peer: the server announced no consumer");
		return 1;
	}
	say("armed");
	while (!phase2 && !quit && !h.eof) {
		hc_pump(&h);
		pause_us(2000);
	}
	lcons_post(l, 1, 0, 4096);
	end = now_s() + 60;
	while (!quit && now_s() < end && !h.eof &&
	       rcons_send(rc, 1, opt.text, (uint32_t)strlen(opt.text), NULL,
			0) == 0) {
		hc_pump(&h);
		pause_us(1000);
	}
	while (!quit && now_s() < end && !h.eof && lcons_reap(l) == 0) {
		hc_pump(&h);
		pause_us(1000);
	}
	if (l->done == 0) {
		say("data-peer: FAILED: nothing from the server (connection %s)",
			h.eof ? "lost" : "open");
		hc_close(&h);
		return 1;
	}
	len = cslot(l->ring, l->mask, 0)->len;
	len = RTE_MIN(len, 4096u);
	memcpy(got, l->mem, len);
	got[len] = '\0';
	if (strcmp(got, opt.expect) != 0) {
		say("data-peer: FAILED: received \"%.60s\"", got);
		hc_close(&h);
		return 1;
	}
	say("data-peer: OK: received \"%s\"", got);
	/* leave as the sample does: a clean BYE */
	{
		struct shm_msg m;

		msg_init(&m, SHM_MSG_BYE);
		send_fds(h.sock, &m, sizeof(m), NULL, 0);
	}
	hc_close(&h);
	return 0;
}

/* ---- perf-hog: connections whose BEGIN asks the perf DPU for the most
 * queues the tool allows (its own consumers: memfds), held ---- */

int
mode_perf_hog(void)
{
	struct hc *h = calloc(opt.conns, sizeof(*h));
	unsigned int i, ready = 0;

	if (h == NULL || strcmp(opt.app, "perf") != 0)
		return EXIT_SETUP;
	ready_wait = 5;   /* a DPU out of resources sends no READY */
	for (i = 0; i < opt.conns && !quit; i++) {
		unsigned int q;

		if (hc_open_retry(&h[i], 64) < 0)
			break;
		/* greedy: the most queues the DPU still prepares */
		for (q = opt.queues; q >= 1 && !quit && !h[i].eof; q /= 2)
			if (perf_begin(&h[i], PERF_FP_TPUT, 64, 32, q, 0, q)) {
				ready++;
				break;
			}
	}
	say("perf-hog: %u connections, %u of them with %u queues each", i,
		ready, opt.queues);
	say("armed");
	while (!quit) {
		for (unsigned int k = 0; k < i; k++)
			hc_pump(&h[k]);
		pause_us(20000);
	}
	for (unsigned int k = 0; k < i; k++)
		hc_close(&h[k]);
	free(h);
	return 0;
}

/* ---- begin: one BEGIN with the values given (--test, --size,
 * --queues), its READY waited for briefly, then hold ---- */

int
mode_begin(void)
{
	struct hc h;
	bool ready;

	if (strcmp(opt.app, "perf") != 0 || hc_open_retry(&h, 64) < 0)
		return EXIT_SETUP;
	if (perf_send(&h, PERF_MSG_BEGIN, opt.test, opt.size, 32, opt.queues,
			0, 0) < 0)
		return EXIT_SETUP;
	ready = perf_wait(&h, PERF_MSG_READY, 5);
	say("begin: test %u size %u queues %u: %s", opt.test, opt.size,
		opt.queues, ready ? "READY" : "no READY");
	say("armed");
	while (!quit && !h.eof) {
		hc_pump(&h);
		pause_us(20000);
	}
	hc_close(&h);
	return 0;
}

/* ---- amplify: the DPU's buffers "filled" with their whole length
 * without writing a byte, as fast as it reposts them (perf, --touch) ---- */

static void
amp_tick(void *arg)
{
	struct hc *h = arg;
	struct rcons *rc;
	unsigned int q = 0;
	uint32_t got, first;

	hc_pump(h);
	while ((rc = rcons_any(h, q++)) != NULL) {
		first = rcons_claim(rc, UINT32_MAX, &got);
		for (uint32_t i = 0; i < got; i++)
			rcons_fill(rc, first + i, NULL, UINT32_MAX, NULL, 0,
				true);
	}
	pause_us(200);
}

int
mode_amplify(void)
{
	struct hc h;

	if (hc_open_retry(&h, 64) < 0)
		return EXIT_SETUP;
	if (!perf_begin(&h, PERF_FP_TPUT, opt.size, 32, opt.queues, 1,
			opt.queues)) {
		say("no READY from the DPU");
		return EXIT_SETUP;
	}
	say("armed");
	hold(amp_tick, &h);
	say("amplify: connection %s", h.eof ? "ended by the DPU" : "kept");
	hc_close(&h);
	return 0;
}

/* ---- big-copy: fp-bidir of --size messages in bursts of 1024 into one
 * consumer of ours whose 1024 buffers all cover the same --size bytes
 * (overlapping posts are legal), reposted as fast as the DPU fills them:
 * a DPU that sends each burst whole copies 1024 x --size bytes in one
 * call while every other host waits (perf) ---- */

static void
big_copy_tick(void *arg)
{
	struct hc *h = arg;
	struct lcons *l = &h->lc[0];

	hc_pump(h);
	lcons_reap(l);
	lcons_post(l, l->depth, 0, opt.size);
	pause_us(1000);
}

int
mode_big_copy(void)
{
	struct hc h;

	if (strcmp(opt.app, "perf") != 0 || hc_open_retry(&h, 64) < 0)
		return EXIT_SETUP;
	if (lcons_add(&h, 1024, opt.size, SEALS) < 0)
		return EXIT_SETUP;
	lcons_post(&h.lc[0], 1024, 0, opt.size);
	if (!perf_begin(&h, PERF_FP_BIDIR, opt.size, 1024, 1, 0, 1)) {
		say("no READY from the DPU");
		return EXIT_SETUP;
	}
	say("armed");
	hold(big_copy_tick, &h);
	say("big-copy: %u buffers filled by the DPU, connection %s",
		h.lc[0].done, h.eof ? "ended by the DPU" : "kept");
	hc_close(&h);
	return 0;
}
