/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: attacks on shared memory: files resized under the DPU,
 * control messages and completions rewritten after sending, malformed
 * fast-path rings, buffers claimed and never filled.
 */

#include "hostile_host.h"

/* ---- fd-race: the mailbox (or a consumer's memory) resized around the
 * DPU's checks ---- */

struct flipper {
	int fd;
	uint64_t size;
	volatile bool stop;
	unsigned int how;       /* 0: shrink/grow, 1: punch holes */
};

static void *
flip_thread(void *arg)
{
	struct flipper *f = arg;

	while (!f->stop) {
		if (f->how == 0) {
			if (ftruncate(f->fd, 0) < 0 ||
			    ftruncate(f->fd, (off_t)f->size) < 0)
				break;
		} else {
			fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				0, (off_t)f->size);
		}
	}
	return NULL;
}

/*
 * One handshake whose mailbox the DPU must refuse or survive:
 *   0  unsealed, right size; shrunk to 0 and sealed right after HELLO
 *   1  unsealed; a thread shrinks and grows it all the while
 *   2  sealed against growing only; shrunk to 0 right after HELLO
 *   3  properly sealed; a thread punches holes all the while (legal)
 * If the DPU accepts, make it write into the mailbox (a reply).
 */
static int
race_once(unsigned int variant, unsigned int *accepted)
{
	struct hc h;
	struct shm_msg m;
	struct flipper f = { 0 };
	pthread_t t;
	bool thr = false;
	uint8_t buf[64];
	int r;

	memset(&h, 0, sizeof(h));
	h.sock = h.mb_fd = -1;
	h.next_cons_id = 1;
	geom_init(&h.rx, 16, SHM_MAX_MSG_SIZE);
	h.sock = link_connect(opt.func);
	if (h.sock < 0)
		return -3;
	h.mb_fd = memfd_sized(h.rx.mailbox_size,
		variant == 2 ? F_SEAL_GROW : variant == 3 ? SEALS : 0);
	if (h.mb_fd < 0) {
		hc_close(&h);
		return -3;
	}
	f.fd = h.mb_fd;
	f.size = h.rx.mailbox_size;
	f.how = variant == 3;
	hello_fill(&m, opt.name, 16, h.rx.mailbox_size);
	if (variant == 1 || variant == 3)
		thr = pthread_create(&t, NULL, flip_thread, &f) == 0;
	if (send_fds(h.sock, &m, sizeof(m), &h.mb_fd, 1) < 0) {
		r = -3;
		goto out;
	}
	if (variant == 0 || variant == 2) {
		if (ftruncate(h.mb_fd, 0) < 0)
			say("ftruncate: %s", strerror(errno));
		if (variant == 0)
			fcntl(h.mb_fd, F_ADD_SEALS, SEALS);
	}
	r = hc_answer(&h, ANSWER_WAIT_S);
	if (r == SHM_MSG_ACCEPT) {
		(*accepted)++;
		if (variant != 3)
			say("race variant %u accepted: the DPU now writes a mailbox we shrank",
				variant);
		if (h.mb == NULL && variant == 3) {
			/* our own view, to read a reply (the others may be
			 * beyond the end of the file: never touched) */
			h.mb = mmap(NULL, h.rx.mailbox_size, PROT_READ |
				PROT_WRITE, MAP_SHARED, h.mb_fd, 0);
			if (h.mb == MAP_FAILED)
				h.mb = NULL;
		}
		provoke_reply(&h);
		if (h.mb != NULL && variant == 3)
			hc_recv_wait(&h, buf, sizeof(buf), 2);
		else
			pause_us(20000);
	}
out:
	f.stop = true;
	if (thr)
		pthread_join(t, NULL);
	hc_close(&h);
	return r;
}

int
mode_fd_race(void)
{
	unsigned int round, accepted[4] = { 0 }, v;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++)
		for (v = 0; v < (opt.no_legal ? 3u : 4u) && !quit; v++)
			race_once(v, &accepted[v]);
	say("fd-race: accepted shrink-then-seal %u, flipping %u, grow-seal-only %u, punched (legal) %u",
		accepted[0], accepted[1], accepted[2], accepted[3]);
	if (accepted[0] + accepted[1] + accepted[2] != 0)
		finding("a mailbox that was not sealed when checked was accepted %u times",
			accepted[0] + accepted[1] + accepted[2]);
	return 0;
}

/* ---- consumer-race: the same against a consumer's memory (perf and data,
 * where a DPU producer writes into our consumer) ---- */

int
mode_consumer_race(void)
{
	unsigned int round, closed = 0, kept = 0;
	struct hc h;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		struct flipper f = { 0 };
		pthread_t t;
		bool thr = false;
		uint64_t mem = 64 * 1024;
		int li;

		if (hc_open_retry(&h, 64) < 0)
			return quit ? 0 : EXIT_SETUP;
		/* variant by round: unsealed + shrink, or a flipping thread */
		li = lcons_add(&h, 64, mem, round % 2 == 0 ? 0 : F_SEAL_GROW);
		if (li < 0) {
			hc_close(&h);
			continue;
		}
		f.fd = h.lc[li].mem_fd;
		f.size = mem;
		if (round % 3 == 2)
			thr = pthread_create(&t, NULL, flip_thread, &f) == 0;
		else if (ftruncate(f.fd, 0) < 0 ||
			 (round % 2 == 0 && fcntl(f.fd, F_ADD_SEALS, SEALS) < 0))
			say("shrink: %s", strerror(errno));
		if (h.lc[li].mem != NULL) {
			munmap(h.lc[li].mem, mem);
			h.lc[li].mem = NULL;
		}
		lcons_post(&h.lc[li], 64, 0, 64);
		if (strcmp(opt.app, "perf") == 0)
			/* the DPU sends into our first consumer */
			perf_send(&h, PERF_MSG_BEGIN, PERF_FP_BIDIR, 64, 32, 1, 0, 0);
		if (wait_eof(h.sock, 3))
			closed++;
		else
			kept++;
		f.stop = true;
		if (thr)
			pthread_join(t, NULL);
		hc_close(&h);
	}
	say("consumer-race: connection closed %u, kept %u", closed, kept);
	return 0;
}

/* ---- claim-hold: buffers of the DPU claimed and never filled ---- */

int
mode_claim_hold(void)
{
	struct hc h;
	struct rcons *rc;
	uint32_t got = 0, total = 0;
	double end, t0;
	unsigned int q;

	if (hc_open_retry(&h, 64) < 0)
		return EXIT_SETUP;
	if (strcmp(opt.app, "perf") == 0) {
		if (!perf_begin(&h, PERF_FP_TPUT, 64, 32, opt.queues, 0,
				opt.queues)) {
			say("no READY from the DPU");
			return EXIT_SETUP;
		}
	} else if (strcmp(opt.app, "data") == 0) {
		/* we are the data server's client: it posts one buffer */
		int li = lcons_add(&h, 1, 4096, SEALS);

		if (li >= 0)
			lcons_post(&h.lc[li], 1, 0, 4096);
	}
	end = now_s() + 30;
	for (q = 0; q < opt.queues; q++) {
		while ((rc = rcons_any(&h, q)) == NULL && now_s() < end &&
		       !h.eof) {
			hc_pump(&h);
			pause_us(1000);
		}
		while (rc != NULL && now_s() < end && !h.eof) {
			rcons_claim(rc, UINT32_MAX, &got);
			total += got;
			if (got != 0 || total != 0)
				break;
			hc_pump(&h);
			pause_us(1000);
		}
	}
	say("claimed %u buffers of the DPU, filling none", total);
	if (total == 0)
		return EXIT_SETUP;
	say("armed");
	if (strcmp(opt.app, "perf") == 0 && strcmp(opt.then, "end") == 0) {
		/* END: the DPU stops its consumers (bounded), then RESULT */
		perf_send(&h, PERF_MSG_END, 0, 0, 0, 0, 0, 1);
	} else if (strcmp(opt.app, "perf") == 0 &&
		   strcmp(opt.then, "begin") == 0) {
		/* a new BEGIN: the DPU tears the queues down first */
		perf_send(&h, PERF_MSG_BEGIN, PERF_CTRL_LAT, 64, 1, 1, 0, 0);
	}
	t0 = now_s();
	end = t0 + opt.hold;
	while (!quit && now_s() < end && !h.eof) {
		hc_pump(&h);
		pause_us(5000);
	}
	say("claim-hold: connection %s after %.1f s%s", h.eof ?
		"ended by the DPU" : "kept", now_s() - t0,
		h.bye ? " (with BYE: closed on purpose, no blame)" : "");
	/* END: the DPU waits up to 30 s for the messages, then stops its
	 * consumers (2 s for claimed buffers); BEGIN: it stops them now */
	if (strcmp(opt.then, "none") != 0 && !h.eof && !quit)
		finding("the DPU kept a connection holding claimed buffers for %.0f s after it had reason to stop its consumers",
			opt.hold);
	hc_close(&h);
	return 0;
}

/* ---- rewrite: control messages and completions changed after sending;
 * descriptors of our consumers changed while the DPU reads them ---- */

struct rewriter {
	volatile uint8_t *target;
	size_t len;
	volatile bool stop;
	unsigned int kind;
};

static void *
rewrite_thread(void *arg)
{
	struct rewriter *w = arg;
	struct perf_msg evil = { .magic = PERF_MAGIC, .type = PERF_MSG_BEGIN,
		.test = 0xffff, .size = 0xffffffff, .burst = 1u << 30,
		.queues = 1u << 20, .touch = 1 };
	unsigned int i = 0;

	while (!w->stop) {
		if (w->kind == 0) {
			/* a control message slot: the BEGIN we sent, turned
			 * into absurd values, and its length */
			memcpy((void *)(uintptr_t)(w->target + 8), &evil,
				sizeof(evil));
			((volatile struct shm_ctrl_slot *)w->target)->len =
				(i & 1) ? sizeof(evil) : 4080;
		} else if (w->kind == 1) {
			/* our consumer's slots: offsets and lengths */
			volatile struct shm_post_slot *s =
				(volatile struct shm_post_slot *)w->target;

			for (size_t k = 0; k < w->len; k++) {
				s[k].buf_off = (i & 1) ? UINT64_C(1) << 40 : 0;
				s[k].buf_len = (i & 1) ? UINT32_MAX : 64;
			}
		}
		i++;
	}
	return NULL;
}

int
mode_rewrite(void)
{
	struct hc h;
	struct rewriter w[8];
	pthread_t t[8];
	unsigned int nt = 0, i, begins = 0;
	uint8_t buf[SHM_MAX_MSG_SIZE];
	double end;
	int li;

	if (strcmp(opt.app, "perf") != 0)
		return EXIT_SETUP;
	if (hc_open_retry(&h, 64) < 0)
		return EXIT_SETUP;
	/* our consumer, for fp-bidir, its slots rewritten all along */
	li = lcons_add(&h, 64, 64 * 1024, SEALS);
	if (li < 0)
		return EXIT_SETUP;
	lcons_post(&h.lc[li], 64, 0, 64);
	memset(w, 0, sizeof(w));
	if (strcmp(opt.then, "slots") == 0) {
		/* the descriptors of our posted buffers flip between valid
		 * and far outside our memory while the DPU's producer reads
		 * them: it must use what it checked, or close us */
		w[nt].target = (uint8_t *)cslot(h.lc[li].ring, h.lc[li].mask,
				0);
		w[nt].len = 64;
		w[nt].kind = 1;
		if (pthread_create(&t[nt], NULL, rewrite_thread, &w[nt]) == 0)
			nt++;
	}
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end && !h.eof) {
		/* a valid BEGIN, then rewritten in its slot while the DPU
		 * takes it */
		uint32_t slot_no = h.tx_next;
		static const uint32_t tests[] = { PERF_FP_BIDIR, PERF_FP_TPUT,
			PERF_CTRL_LAT, PERF_FP_LAT };

		if (perf_send(&h, PERF_MSG_BEGIN, tests[begins % 4], 64, 32,
				1, 0, 0) < 0)
			break;
		begins++;
		if (nt < RTE_DIM(w)) {
			w[nt].target = (uint8_t *)ring_slot(h.dpu_mb, &h.tx,
					slot_no);
			w[nt].kind = 0;
			if (pthread_create(&t[nt], NULL, rewrite_thread,
					&w[nt]) == 0)
				nt++;
		}
		/* drain replies; repost what the DPU filled */
		while (hc_recv(&h, buf, sizeof(buf)) > 0)
			;
		hc_pump(&h);
		if (lcons_reap(&h.lc[li]) != 0)
			lcons_post(&h.lc[li], 64, 0, 64);
		pause_us(2000);
	}
	for (i = 0; i < nt; i++) {
		w[i].stop = true;
		pthread_join(t[i], NULL);
	}
	say("rewrite: %u BEGINs rewritten after sending, connection %s", begins,
		h.eof ? "ended by the DPU" : "kept");
	hc_close(&h);
	return 0;
}

/* ---- fp-garbage: violations on the DPU's consumer rings (as a
 * producer) and on ours (as the DPU's producer reads them) ---- */

enum fv {
	FV_LEN_OVER, FV_IMM_OVER, FV_CLAIM_BEYOND, FV_POST_PROD_HUGE,
	FV_POST_SEQ, FV_BUF_OOB, FV_ABORT, FV_DONE_UNCLAIMED, FV__MAX
};
static const char *const fv_names[FV__MAX] = {
	"completion-len-over", "completion-imm-33", "claim-beyond-posted",
	"our-post-prod-huge", "our-post-seq-wrong", "our-buffer-outside-memory",
	"abort-claimed (legal)", "done-without-claim",
};
/* expected: the connection ends (1) or need not (0) */
static const bool fv_close[FV__MAX] = { 1, 1, 1, 1, 1, 1, 0, 0 };

static int
fp_variant(enum fv v)
{
	struct hc h;
	struct rcons *rc;
	uint32_t got, first;
	double end;
	int li = -1, r;
	struct lcons *l;
	uint8_t payload[64] = { 0 };
	bool as_consumer = v == FV_POST_PROD_HUGE || v == FV_POST_SEQ ||
		v == FV_BUF_OOB;

	if (hc_open_retry(&h, 64) < 0)
		return -3;
	if (as_consumer) {
		li = lcons_add(&h, 64, 64 * 1024, SEALS);
		if (li < 0)
			return -3;
	}
	if (!perf_begin(&h, as_consumer ? PERF_FP_BIDIR : PERF_FP_TPUT, 64, 32,
			1, 0, 1)) {
		hc_close(&h);
		return -3;
	}
	rc = rcons_any(&h, 0);
	if (rc == NULL) {
		hc_close(&h);
		return -3;
	}
	switch (v) {
	case FV_LEN_OVER:
	case FV_IMM_OVER:
		first = rcons_claim(rc, 1, &got);
		if (got == 1)
			rcons_fill(rc, first, payload,
				v == FV_LEN_OVER ? 1u << 20 : 8, payload,
				v == FV_IMM_OVER ? 33 : 0, true);
		break;
	case FV_CLAIM_BEYOND:
		__atomic_store_n(&chdr(rc->ring)->claim,
			__atomic_load_n(&chdr(rc->ring)->post_prod,
				__ATOMIC_ACQUIRE) + 5000, __ATOMIC_RELEASE);
		/* the check happens at the consumer's stop */
		perf_send(&h, PERF_MSG_BEGIN, PERF_CTRL_LAT, 64, 1, 1, 0, 0);
		break;
	case FV_ABORT:
		first = rcons_claim(rc, 4, &got);
		/* aborted completions, as a dead producer's side writes
		 * them (protocol v5): the DPU must give the buffers back */
		for (uint32_t i = 0; i < got; i++) {
			union shm_cpl c = { .done_seq = first + i + 1,
				.len = SHM_LEN_ABORTED };

			__atomic_store_n(&cslot(rc->ring, rc->mask,
				first + i)->cpl, c.word, __ATOMIC_RELEASE);
		}
		break;
	case FV_DONE_UNCLAIMED: {
		uint32_t c = __atomic_load_n(&chdr(rc->ring)->claim,
				__ATOMIC_ACQUIRE);

		rcons_fill(rc, c, payload, 8, NULL, 0, false);
		break;
	}
	case FV_POST_PROD_HUGE:
	case FV_POST_SEQ:
	case FV_BUF_OOB:
		/* the bad slot is written before post_prod publishes it */
		l = &h.lc[li];
		if (v == FV_POST_PROD_HUGE) {
			__atomic_store_n(&chdr(l->ring)->post_prod, l->posted +
				100000, __ATOMIC_RELEASE);
		} else {
			struct shm_post_slot *ps = cslot(l->ring, l->mask,
					l->posted);

			ps->buf_off = v == FV_BUF_OOB ? l->mem_size - 8 : 0;
			ps->buf_len = 64;
			ps->post_seq = v == FV_POST_SEQ ? 0xdead : l->posted;
			l->posted++;
			__atomic_store_n(&chdr(l->ring)->post_prod, l->posted,
				__ATOMIC_RELEASE);
		}
		break;
	default:
		break;
	}
	end = now_s() + (fv_close[v] ? CLOSE_WAIT_S : 2);
	while (now_s() < end && !h.eof) {
		hc_pump(&h);
		if (h.no_sock_read)
			break;
		pause_us(2000);
	}
	r = h.eof ? 1 : 0;
	hc_close(&h);
	return r;
}

int
mode_fp_garbage(void)
{
	unsigned int round;
	int v, r;

	if (strcmp(opt.app, "perf") != 0)
		return EXIT_SETUP;
	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		for (v = 0; v < FV__MAX && !quit; v++) {
			r = fp_variant((enum fv)v);
			if (quit)
				break;  /* cut short by SIGTERM: no verdict */
			if (r == -3)
				return EXIT_SETUP;
			if (round == 0)
				say("variant %s: %s", fv_names[v], r == 1 ?
					"connection closed" : "kept");
			if (r == 0 && fv_close[v])
				finding("fast-path violation %s did not end the connection within %d s",
					fv_names[v], CLOSE_WAIT_S);
		}
	}
	return 0;
}
