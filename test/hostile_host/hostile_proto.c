/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: attacks on the protocol after ACCEPT and on the DPU's
 * logs: violations that must end the connection, text with escapes, a
 * reading side shut down, messages the DPU logs, connections broken on
 * purpose over and over.
 */

#include "hostile_host.h"

/* ---- proto-garbage: violations after ACCEPT, each must end the
 * connection ---- */

enum pv {
	PV_HELLO_AGAIN, PV_ACCEPT, PV_REJECT, PV_TYPE_99, PV_MAGIC, PV_VERSION,
	PV_SHORT, PV_LONG, PV_BYE_FD, PV_CDEL_UNKNOWN, PV_CSKIP_ID0,
	PV_CSKIP_FD, PV_CADD_0FD, PV_CADD_1FD,
	PV_CADD_3FD, PV_CADD_ID0, PV_CADD_DUP, PV_CADD_SLOT, PV_CADD_POSTS0,
	PV_CADD_POSTS_BIG, PV_CADD_IMM33, PV_CADD_MEM_HUGE, PV_CADD_RING_WRONG,
	PV_CADD_UNSEALED, PV_CADD_MEM_MISMATCH, PV_CADD_FD_PIPE,
	PV_CADD_QUOTA, PV_CADD_MAP, PV_MB_LEN, PV_MB_LEN_HUGE, PV_TXCONS_AHEAD,
	PV_TXCONS_BACK, PV_SHUT_WR, PV_EMPTY, PV_EMPTY_FD,
	/* stall only: no close required */
	PV_MB_SEQ_AHEAD, PV_MB_SEQ_BACK,
	PV__MAX
};
#define PV__MUST_CLOSE PV_MB_SEQ_AHEAD

static const char *const pv_names[PV__MAX] = {
	"hello-again", "accept", "reject", "type-99", "magic", "version",
	"short", "long", "bye-with-fd", "consumer-del-unknown",
	"consumer-skip-id-0", "consumer-skip-with-fd", "consumer-add-0-fds", "consumer-add-1-fd", "consumer-add-3-fds",
	"consumer-add-id-0", "consumer-add-duplicate", "consumer-add-same-slot",
	"consumer-add-0-posts", "consumer-add-8193-posts", "consumer-add-imm-33",
	"consumer-add-mem-17GiB", "consumer-add-ring-size-wrong",
	"consumer-add-unsealed", "consumer-add-mem-size-mismatch",
	"consumer-add-fd-pipe", "consumer-add-beyond-max-consumers",
	"consumer-add-beyond-max-map", "mailbox-len-4081",
	"mailbox-len-huge", "tx-cons-ahead", "tx-cons-back", "shutdown-write",
	"empty-packet", "empty-packet-with-fd", "mailbox-seq-ahead", "mailbox-seq-back",
};

static void
cadd_raw(struct hc *h, uint32_t id, uint32_t posts, uint32_t imm,
		uint64_t ring, uint64_t mem, const int *fds, int nfds)
{
	struct shm_msg m;

	msg_init(&m, SHM_MSG_CONSUMER_ADD);
	m.consumer.consumer_id = id;
	m.consumer.nb_posts = posts;
	m.consumer.max_imm_len = imm;
	m.consumer.ring_size = ring;
	m.consumer.mem_size = mem;
	send_fds(h->sock, &m, sizeof(m), fds, nfds);
}

/* Returns 1 if the DPU closed the connection, 0 if not, -3 no setup. */
static int
proto_variant(enum pv v)
{
	struct hc h;
	struct shm_msg m;
	struct shm_ctrl_slot *s;
	uint64_t ring = cons_ring_size(8), mem = 4096;
	int fds[3] = { -1, -1, -1 }, p[2], r;
	unsigned int i;
	char buf[512];

	if (hc_open_retry(&h, 16) < 0)
		return -3;
	fds[0] = memfd_sized(ring, SEALS);
	fds[1] = memfd_sized(mem, SEALS);
	fds[2] = memfd_sized(mem, SEALS);
	msg_init(&m, SHM_MSG_BYE);
	switch (v) {
	case PV_HELLO_AGAIN:
		hello_fill(&m, opt.name, 16, h.rx.mailbox_size);
		send_fds(h.sock, &m, sizeof(m), &h.mb_fd, 1);
		break;
	case PV_ACCEPT:
		m.type = SHM_MSG_ACCEPT;
		send_fds(h.sock, &m, sizeof(m), fds, 1);
		break;
	case PV_REJECT: m.type = SHM_MSG_REJECT; send_fds(h.sock, &m, sizeof(m), NULL, 0); break;
	case PV_TYPE_99: m.type = 99; send_fds(h.sock, &m, sizeof(m), NULL, 0); break;
	case PV_MAGIC: m.magic = 0; send_fds(h.sock, &m, sizeof(m), NULL, 0); break;
	case PV_VERSION: m.version = 1; send_fds(h.sock, &m, sizeof(m), NULL, 0); break;
	case PV_SHORT: send_fds(h.sock, &m, 8, NULL, 0); break;
	case PV_LONG:
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &m, sizeof(m));
		send_fds(h.sock, buf, sizeof(buf), NULL, 0);
		break;
	case PV_EMPTY: send_fds(h.sock, &m, 0, NULL, 0); break;
	case PV_EMPTY_FD: send_fds(h.sock, &m, 0, fds, 2); break;
	case PV_BYE_FD: send_fds(h.sock, &m, sizeof(m), fds, 1); break;
	case PV_CDEL_UNKNOWN:
		m.type = SHM_MSG_CONSUMER_DEL;
		m.consumer.consumer_id = 4242;
		send_fds(h.sock, &m, sizeof(m), NULL, 0);
		break;
	case PV_CSKIP_ID0:
	case PV_CSKIP_FD:
		m.type = SHM_MSG_CONSUMER_SKIP;
		m.consumer.consumer_id = v == PV_CSKIP_ID0 ? 0 : 4242;
		send_fds(h.sock, &m, sizeof(m), fds, v == PV_CSKIP_FD);
		break;
	case PV_CADD_0FD: cadd_raw(&h, 1, 8, 32, ring, mem, fds, 0); break;
	case PV_CADD_1FD: cadd_raw(&h, 1, 8, 32, ring, mem, fds, 1); break;
	case PV_CADD_3FD: cadd_raw(&h, 1, 8, 32, ring, mem, fds, 3); break;
	case PV_CADD_ID0: cadd_raw(&h, 0, 8, 32, ring, mem, fds, 2); break;
	case PV_CADD_DUP:
		cadd_raw(&h, 1, 8, 32, ring, mem, fds, 2);
		close(fds[0]);
		fds[0] = memfd_sized(ring, SEALS);
		cadd_raw(&h, 1, 8, 32, ring, mem, fds, 2);
		break;
	case PV_CADD_SLOT:
		cadd_raw(&h, 1, 8, 32, ring, mem, fds, 2);
		close(fds[0]);
		fds[0] = memfd_sized(ring, SEALS);
		cadd_raw(&h, 257, 8, 32, ring, mem, fds, 2);
		break;
	case PV_CADD_POSTS0: cadd_raw(&h, 1, 0, 32, ring, mem, fds, 2); break;
	case PV_CADD_POSTS_BIG:
		close(fds[0]);
		ring = cons_ring_size(SHM_MAX_POSTS + 1);
		fds[0] = memfd_sized(ring, SEALS);
		cadd_raw(&h, 1, SHM_MAX_POSTS + 1, 32, ring, mem, fds, 2);
		break;
	case PV_CADD_IMM33: cadd_raw(&h, 1, 8, 33, ring, mem, fds, 2); break;
	case PV_CADD_MEM_HUGE:
		close(fds[1]);
		mem = SHM_MAX_MEM_SIZE + page_size();
		fds[1] = memfd_sized(mem, SEALS);
		cadd_raw(&h, 1, 8, 32, ring, mem, fds, 2);
		break;
	case PV_CADD_RING_WRONG:
		cadd_raw(&h, 1, 8, 32, ring + page_size(), mem, fds, 2);
		break;
	case PV_CADD_UNSEALED:
		close(fds[1]);
		fds[1] = memfd_sized(mem, 0);
		cadd_raw(&h, 1, 8, 32, ring, mem, fds, 2);
		break;
	case PV_CADD_MEM_MISMATCH:
		cadd_raw(&h, 1, 8, 32, ring, mem * 2, fds, 2);
		break;
	case PV_CADD_FD_PIPE:
		if (pipe(p) == 0) {
			close(fds[1]);
			fds[1] = p[0];
			close(p[1]);
		}
		cadd_raw(&h, 1, 8, 32, ring, mem, fds, 2);
		break;
	case PV_CADD_QUOTA:
		for (i = 0; i <= h.max_consumers && i < 300; i++)
			if (lcons_add(&h, 8, 4096, SEALS) < 0)
				break;
		break;
	case PV_CADD_MAP: {
		uint64_t half = RTE_ALIGN_CEIL(h.max_map / 2 + page_size(),
				page_size());

		if (h.max_consumers >= 2 && h.max_map < SHM_MAX_MEM_SIZE) {
			lcons_add(&h, 8, half, SEALS);
			lcons_add(&h, 8, half, SEALS);
		} else {
			lcons_add(&h, 8, SHM_MAX_MEM_SIZE, SEALS);
		}
		break;
	}
	case PV_MB_LEN:
	case PV_MB_LEN_HUGE:
		s = ring_slot(h.dpu_mb, &h.tx, h.tx_next);
		s->len = v == PV_MB_LEN ? SHM_MAX_MSG_SIZE + 1 : UINT32_MAX;
		__atomic_store_n(&s->seq, h.tx_next + 1, __ATOMIC_RELEASE);
		h.tx_next++;
		break;
	case PV_MB_SEQ_AHEAD:
		s = ring_slot(h.dpu_mb, &h.tx, h.tx_next + 1);
		s->len = 8;
		__atomic_store_n(&s->seq, h.tx_next + 5, __ATOMIC_RELEASE);
		break;
	case PV_MB_SEQ_BACK:
		s = ring_slot(h.dpu_mb, &h.tx, h.tx_next);
		s->len = 8;
		__atomic_store_n(&s->seq, h.tx_next - 7, __ATOMIC_RELEASE);
		break;
	case PV_TXCONS_AHEAD:
	case PV_TXCONS_BACK:
		/* we claim to have consumed what the DPU never sent */
		__atomic_store_n(&((struct shm_mailbox_hdr *)h.dpu_mb)->tx_cons,
			v == PV_TXCONS_AHEAD ? 1000u : (uint32_t)-5,
			__ATOMIC_RELEASE);
		/* replies beyond our queue's depth: the DPU must look */
		provoke_reply(&h);
		for (i = 0; i < 2 * h.rx.depth + 4 && !h.eof; i++) {
			uint8_t ping[64] = { 0 };

			if (hc_send_wait(&h, ping, sizeof(ping), 2) < 0)
				break;
		}
		break;
	case PV_SHUT_WR:
		shutdown(h.sock, SHUT_WR);
		break;
	default:
		break;
	}
	r = wait_eof(h.sock, v < PV__MUST_CLOSE ? CLOSE_WAIT_S : 1) ? 1 : 0;
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	hc_close(&h);
	return r;
}

int
mode_proto_garbage(void)
{
	unsigned int round, closed = 0, kept = 0;
	int v, r;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		for (v = 0; v < PV__MAX && !quit; v++) {
			/* the data server answers no control message */
			if ((v == PV_TXCONS_AHEAD || v == PV_TXCONS_BACK) &&
			    strcmp(opt.app, "data") == 0)
				continue;
			if (opt.variant != NULL &&
			    strcmp(opt.variant, pv_names[v]) != 0)
				continue;
			/* its own scenario (an fd leak): only when named */
			if (v == PV_EMPTY_FD && opt.variant == NULL)
				continue;
			r = proto_variant((enum pv)v);
			if (quit)
				break;  /* cut short by SIGTERM: no verdict */
			if (r == -3)
				return EXIT_SETUP;
			if (r == 1)
				closed++;
			else
				kept++;
			if (round == 0)
				say("variant %s: %s", pv_names[v],
					r == 1 ? "connection closed" : "kept");
			if (r == 0 && v < PV__MUST_CLOSE)
				finding("violation %s did not end the connection within %d s",
					pv_names[v], CLOSE_WAIT_S);
		}
	}
	say("proto-garbage: closed %u, kept %u", closed, kept);
	return 0;
}

/* ---- log-inject: peer-chosen text with escapes, CR/LF and a forged
 * line ---- */

static const char *const nasty[] = {
	"x\x1b[2J\x1b[31mRED\r\ncomch_shm: FORGED line",
	"\rFORGED-CR\x07\x08\x08",
	"a\nFORGED-LF: server accepted root",
	"\x1b]0;FORGED-TITLE\x07",
	"\xc2\x9b" "31mC1-CSI\xe2\x80\xae" "RLO",
};

int
mode_log_inject(void)
{
	unsigned int i;
	struct hc h;
	struct shm_msg m;
	int r;

	say("armed");
	for (i = 0; i < RTE_DIM(nasty); i++) {
		/* as a server name: the DPU logs it when it refuses */
		memset(&h, 0, sizeof(h));
		h.sock = link_connect(opt.func);
		geom_init(&h.rx, 16, SHM_MAX_MSG_SIZE);
		h.mb_fd = memfd_sized(h.rx.mailbox_size, SEALS);
		if (h.sock < 0 || h.mb_fd < 0)
			return EXIT_SETUP;
		hello_fill(&m, nasty[i], 16, h.rx.mailbox_size);
		send_fds(h.sock, &m, sizeof(m), &h.mb_fd, 1);
		r = hc_answer(&h, ANSWER_WAIT_S);
		say("name %u: %s", i, r == SHM_MSG_REJECT ? "rejected" :
			r == SHM_MSG_ACCEPT ? "ACCEPTED" : "closed");
		hc_close(&h);
	}
	/* as a message the ctrl server prints */
	if (strcmp(opt.app, "ctrl") == 0 && hc_open_retry(&h, 16) == 0) {
		char text[256], buf[64];

		snprintf(text, sizeof(text), "%s%s", nasty[0], nasty[2]);
		hc_send_wait(&h, text, (uint32_t)strlen(text), 10);
		hc_recv_wait(&h, buf, sizeof(buf), 10);
		hc_close(&h);
	}
	/* as a fast-path payload the data server prints (we are its client) */
	if (strcmp(opt.app, "data") == 0 && hc_open_retry(&h, 16) == 0) {
		double end = now_s() + 20;
		const char *text = nasty[0];
		struct rcons *rc;
		int li = lcons_add(&h, 1, 4096, SEALS);

		if (li >= 0)
			lcons_post(&h.lc[li], 1, 0, 4096);
		while ((rc = rcons_any(&h, 0)) == NULL && now_s() < end &&
		       !h.eof) {
			hc_pump(&h);
			pause_us(1000);
		}
		while (rc != NULL && now_s() < end && !h.eof &&
		       rcons_send(rc, 1, text, (uint32_t)strlen(text), NULL,
				0) == 0) {
			hc_pump(&h);
			pause_us(1000);
		}
		while (li >= 0 && lcons_reap(&h.lc[li]) == 0 && now_s() < end &&
		       !h.eof) {
			hc_pump(&h);
			pause_us(1000);
		}
		hc_close(&h);
	}
	say("log-inject: done");
	return 0;
}

/* ---- sigpipe: we shut our reading side; every later send of the DPU on
 * the link socket fails with EPIPE ---- */

int
mode_sigpipe(void)
{
	struct hc h[4];
	unsigned int i;

	for (i = 0; i < RTE_DIM(h); i++) {
		if (hc_open_retry(&h[i], 64) < 0)
			return EXIT_SETUP;
		if (strcmp(opt.app, "data") == 0) {
			/* the data server announces consumers to its client */
			lcons_add(&h[i], 1, 4096, SEALS);
		}
	}
	for (i = 0; i < RTE_DIM(h); i++)
		shutdown(h[i].sock, SHUT_RD);
	say("armed");
	for (i = 0; i < RTE_DIM(h) && strcmp(opt.app, "perf") == 0; i++) {
		/* the DPU announces (and later withdraws) its consumers */
		perf_send(&h[i], PERF_MSG_BEGIN, PERF_FP_TPUT, 64, 32, 4, 0, 0);
		perf_send(&h[i], PERF_MSG_BEGIN, PERF_CTRL_LAT, 64, 1, 1, 0, 0);
	}
	hold(NULL, NULL);
	for (i = 0; i < RTE_DIM(h); i++)
		hc_close(&h[i]);
	say("sigpipe: done");
	return 0;
}

/* ---- log-flood: messages the DPU program logs one line each for ---- */

static void
logflood_tick(void *arg)
{
	struct flood *f = arg;
	struct perf_msg p = { .magic = PERF_MAGIC, .type = 99 };

	hc_pump(f->h);
	while (hc_send(f->h, &p, sizeof(p)) == 0)
		f->sent++;
	pause_us(100);
}

int
mode_log_flood(void)
{
	struct hc h;
	struct flood f = { .h = &h, .n = 1 };

	if (strcmp(opt.app, "perf") != 0)
		return EXIT_SETUP;
	if (hc_open_retry(&h, 64) < 0)
		return EXIT_SETUP;
	say("armed");
	hold(logflood_tick, &f);
	say("log-flood: %" PRIu64 " perf messages of an unknown type sent, connection %s",
		f.sent, h.eof ? "ended by the DPU" : "kept");
	hc_close(&h);
	return 0;
}

/* ---- violate-cycle: a full handshake, one message the protocol forbids
 * after it (a second HELLO), wait for the DPU to close, again, for
 * opt.hold seconds (--then bye: a clean BYE instead, no violation). Each
 * connection is within the function's quota (one at a time); what each
 * costs the DPU (its log lines above all) is not bounded by one. ---- */

int
mode_violate_cycle(void)
{
	unsigned long n = 0, closed = 0, refused = 0;
	struct shm_msg m;
	struct hc h;
	double end;
	int r;

	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		r = hc_open(&h, 16);
		if (r != SHM_MSG_ACCEPT) {
			refused++;
			hc_close(&h);
			pause_us(1000);
			continue;
		}
		if (strcmp(opt.then, "bye") == 0)
			msg_init(&m, SHM_MSG_BYE);    /* a clean close */
		else
			hello_fill(&m, opt.name, 16, h.rx.mailbox_size);
		send_fds(h.sock, &m, sizeof(m), NULL, 0);
		if (wait_eof(h.sock, 5))
			closed++;
		hc_close(&h);
		n++;
	}
	say("violate-cycle: %lu connections (%s), %lu closed by the DPU, %lu handshakes refused",
		n, strcmp(opt.then, "bye") == 0 ? "clean BYE" :
		"broken on purpose", closed, refused);
	return 0;
}
