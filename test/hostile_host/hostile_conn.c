/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: a connection by hand (HELLO, the mailboxes, control
 * messages), our consumers and the DPU's, producing into the DPU, the
 * perf protocol.
 */

#include "hostile_host.h"

/* ---------------------------------------------------------- a connection */


struct shm_cons_hdr *
chdr(uint8_t *ring)
{
	return (struct shm_cons_hdr *)ring;
}

struct shm_post_slot *
cslot(uint8_t *ring, uint32_t mask, uint32_t idx)
{
	return (struct shm_post_slot *)(ring + sizeof(struct shm_cons_hdr)) +
		(idx & mask);
}

void
rcons_unmap(struct rcons *r)
{
	if (r->ring != NULL)
		munmap(r->ring, r->ring_size);
	if (r->mem != NULL)
		munmap(r->mem, r->mem_size);
	memset(r, 0, sizeof(*r));
}

/* One packet from the DPU after ACCEPT. */
void
hc_on_packet(struct hc *h, const struct shm_msg *m, ssize_t n, int *fds,
		int nfds)
{
	struct rcons *r;

	if (n != (ssize_t)sizeof(*m) || m->magic != SHM_PROTO_MAGIC) {
		say("odd packet from the DPU (%zd bytes)", n);
		close_fds(fds, nfds);
		return;
	}
	switch (m->type) {
	case SHM_MSG_CONSUMER_ADD:
		h->nb_rc_seen++;
		r = &h->rc[m->consumer.consumer_id % MAX_RCONS];
		rcons_unmap(r);
		if (nfds != 2)
			break;
		r->id = m->consumer.consumer_id;
		r->nb_posts = m->consumer.nb_posts;
		r->imm_len = m->consumer.max_imm_len;
		r->mask = (uint32_t)rte_align64pow2(r->nb_posts) - 1;
		r->ring_size = m->consumer.ring_size;
		r->mem_size = m->consumer.mem_size;
		r->ring = mmap(NULL, r->ring_size, PROT_READ | PROT_WRITE,
				MAP_SHARED, fds[0], 0);
		r->mem = mmap(NULL, r->mem_size ? r->mem_size : 1,
				PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
		if (r->ring == MAP_FAILED || r->mem == MAP_FAILED) {
			r->ring = r->ring == MAP_FAILED ? NULL : r->ring;
			r->mem = r->mem == MAP_FAILED ? NULL : r->mem;
			rcons_unmap(r);
			break;
		}
		r->live = true;
		break;
	case SHM_MSG_CONSUMER_DEL:
		r = &h->rc[m->consumer.consumer_id % MAX_RCONS];
		if (r->id == m->consumer.consumer_id)
			rcons_unmap(r);
		break;
	case SHM_MSG_BYE:
		h->bye = true;
		break;
	case SHM_MSG_CONSUMER_SKIP:
		break; /* ids used and withdrawn unannounced: nothing to map */
	default:
		say("unexpected message type %u from the DPU", m->type);
		break;
	}
	close_fds(fds, nfds);
}

/* Read what the link socket has (unless we play deaf). */
void
hc_pump(struct hc *h)
{
	struct shm_msg m;
	int fds[8], nfds;
	ssize_t n;

	if (h->no_sock_read || h->eof || h->sock < 0)
		return;
	for (;;) {
		n = recv_fds(h->sock, &m, fds, &nfds, 0);
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			h->eof = true;
			return;
		}
		hc_on_packet(h, &m, n, fds, nfds);
	}
}

void
hc_close(struct hc *h)
{
	unsigned int i;

	if (h->sock >= 0)
		close(h->sock);
	if (h->mb != NULL)
		munmap(h->mb, h->rx.mailbox_size);
	if (h->mb_fd >= 0)
		close(h->mb_fd);
	if (h->dpu_mb != NULL)
		munmap(h->dpu_mb, h->tx.mailbox_size);
	for (i = 0; i < MAX_RCONS; i++)
		rcons_unmap(&h->rc[i]);
	for (i = 0; i < h->nb_lc; i++) {
		struct lcons *l = &h->lc[i];

		if (l->ring != NULL)
			munmap(l->ring, l->ring_size);
		if (l->mem != NULL)
			munmap(l->mem, l->mem_size);
		if (l->ring_fd >= 0)
			close(l->ring_fd);
		if (l->mem_fd >= 0)
			close(l->mem_fd);
	}
	memset(h, 0, sizeof(*h));
	h->sock = -1;
	h->mb_fd = -1;
}

void
hello_fill(struct shm_msg *m, const char *name, uint32_t depth, uint64_t size)
{
	msg_init(m, SHM_MSG_HELLO);
	snprintf(m->hello.server_name, sizeof(m->hello.server_name), "%s",
		name);
	m->hello.max_msg_size = SHM_MAX_MSG_SIZE;
	m->hello.recv_queue_len = depth;
	m->hello.mailbox_size = size;
}

/*
 * Wait for the DPU's answer to a HELLO: SHM_MSG_ACCEPT (the DPU's mailbox
 * mapped), SHM_MSG_REJECT (h->reject_*), 0 for EOF, -1 for nothing within
 * @p sec, -2 for something else.
 */
int
hc_answer(struct hc *h, double sec)
{
	double end = now_s() + sec;
	struct shm_msg m;
	int fds[8], nfds;
	ssize_t n;

	do {
		n = recv_fds(h->sock, &m, fds, &nfds, 50);
	} while (n == -EAGAIN && now_s() < end && !quit);
	if (n == -EAGAIN)
		return -1;
	if (n <= 0)
		return 0;
	if (n != (ssize_t)sizeof(m) || m.magic != SHM_PROTO_MAGIC) {
		close_fds(fds, nfds);
		return -2;
	}
	if (m.type == SHM_MSG_REJECT) {
		close_fds(fds, nfds);
		h->reject_err = m.reject.err;
		memcpy(h->reject_reason, m.reject.reason, sizeof(h->reject_reason));
		h->reject_reason[sizeof(h->reject_reason) - 1] = '\0';
		return SHM_MSG_REJECT;
	}
	if (m.type != SHM_MSG_ACCEPT || nfds != 1) {
		close_fds(fds, nfds);
		return -2;
	}
	h->conn_id = m.accept.conn_id;
	h->max_consumers = m.accept.max_consumers;
	h->max_map = m.accept.max_map;
	geom_init(&h->tx, m.accept.recv_queue_len, SHM_MAX_MSG_SIZE);
	h->dpu_mb = mmap(NULL, h->tx.mailbox_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, fds[0], 0);
	close(fds[0]);
	if (h->dpu_mb == MAP_FAILED) {
		h->dpu_mb = NULL;
		return -2;
	}
	return SHM_MSG_ACCEPT;
}

/* A complete, valid handshake on @p func with a queue of @p depth.
 * Returns SHM_MSG_ACCEPT, SHM_MSG_REJECT, 0 (EOF) or < 0. */
int
hc_open_on(struct hc *h, const char *func, uint32_t depth)
{
	struct shm_msg m;

	memset(h, 0, sizeof(*h));
	h->sock = -1;
	h->mb_fd = -1;
	h->next_cons_id = opt.first_id;
	geom_init(&h->rx, depth, SHM_MAX_MSG_SIZE);
	h->sock = link_connect(func);
	if (h->sock < 0)
		return -3;
	h->mb_fd = memfd_sized(h->rx.mailbox_size, SEALS);
	if (h->mb_fd < 0)
		return -3;
	h->mb = mmap(NULL, h->rx.mailbox_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, h->mb_fd, 0);
	if (h->mb == MAP_FAILED) {
		h->mb = NULL;
		return -3;
	}
	hello_fill(&m, opt.name, depth, h->rx.mailbox_size);
	if (send_fds(h->sock, &m, sizeof(m), &h->mb_fd, 1) < 0)
		return -3;
	return hc_answer(h, ANSWER_WAIT_S);
}

int
hc_open(struct hc *h, uint32_t depth)
{
	return hc_open_on(h, opt.func, depth);
}

/* Open, retrying while the DPU says "again" or the server is not there
 * yet, for up to 30 s. 0 on ACCEPT. */
int
hc_open_retry(struct hc *h, uint32_t depth)
{
	double end = now_s() + ANSWER_WAIT_S;
	int r;

	for (;;) {
		r = hc_open(h, depth);
		if (r == SHM_MSG_ACCEPT)
			return 0;
		if (r == SHM_MSG_REJECT)
			say("refused: %s (%s)", strerror(h->reject_err),
				h->reject_reason);
		hc_close(h);
		if (now_s() > end || quit)
			return -1;
		pause_us(50000);
	}
}

/* Control messages: to the DPU's mailbox, from ours. */
struct shm_ctrl_slot *
ring_slot(uint8_t *mb, const struct shm_ring_geom *g, uint32_t n)
{
	return (struct shm_ctrl_slot *)(mb + sizeof(struct shm_mailbox_hdr) +
		(size_t)(n & g->mask) * g->slot_size);
}

uint32_t
hc_tx_cons(struct hc *h)
{
	if (h->mb == NULL)      /* a mailbox we cannot look at: assume none */
		return h->tx_next - 1;
	return __atomic_load_n(&((struct shm_mailbox_hdr *)h->mb)->tx_cons,
			__ATOMIC_ACQUIRE);
}

int
hc_send(struct hc *h, const void *data, uint32_t len)
{
	struct shm_ctrl_slot *s;

	if (h->dpu_mb == NULL)
		return -ENOTCONN;
	if (h->tx_next - hc_tx_cons(h) >= h->tx.depth)
		return -EAGAIN;
	s = ring_slot(h->dpu_mb, &h->tx, h->tx_next);
	s->len = len;
	memcpy(s->data, data, len);
	__atomic_store_n(&s->seq, h->tx_next + 1, __ATOMIC_RELEASE);
	h->tx_next++;
	return 0;
}

/* Send, pumping the socket, for up to @p sec s. */
int
hc_send_wait(struct hc *h, const void *data, uint32_t len, double sec)
{
	double end = now_s() + sec;
	int r;

	while ((r = hc_send(h, data, len)) == -EAGAIN && now_s() < end &&
	       !quit && !h->eof) {
		hc_pump(h);
		pause_us(100);
	}
	return r;
}

int
hc_recv(struct hc *h, void *buf, uint32_t size)
{
	struct shm_ctrl_slot *s;
	uint32_t len;

	if (h->mb == NULL || h->dpu_mb == NULL)
		return -ENOTCONN;
	s = ring_slot(h->mb, &h->rx, h->rx_next);
	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != h->rx_next + 1)
		return -EAGAIN;
	len = s->len;
	if (len > h->rx.max_msg)
		len = h->rx.max_msg;
	memcpy(buf, s->data, RTE_MIN(len, size));
	h->rx_next++;
	__atomic_store_n(&((struct shm_mailbox_hdr *)h->dpu_mb)->tx_cons,
		h->rx_next, __ATOMIC_RELEASE);
	return (int)len;
}

int
hc_recv_wait(struct hc *h, void *buf, uint32_t size, double sec)
{
	double end = now_s() + sec;
	int r;

	while ((r = hc_recv(h, buf, size)) == -EAGAIN && now_s() < end &&
	       !quit && !h->eof) {
		hc_pump(h);
		pause_us(50);
	}
	return r;
}

/* ---------------------------------------------------- our consumers */

/* Create and announce a consumer of @p depth buffers over @p mem bytes;
 * @p seals for the memory fd. Returns its index or -1. */
int
lcons_add(struct hc *h, uint32_t depth, uint64_t mem, unsigned int seals)
{
	struct lcons *l;
	struct shm_msg m;
	int fds[2];

	if (h->nb_lc >= MAX_LCONS)
		return -1;
	l = &h->lc[h->nb_lc];
	memset(l, 0, sizeof(*l));
	l->ring_fd = l->mem_fd = -1;
	l->id = h->next_cons_id++;
	l->depth = depth;
	l->mask = (uint32_t)rte_align64pow2(depth) - 1;
	l->ring_size = cons_ring_size(depth);
	l->mem_size = mem;
	l->ring_fd = memfd_sized(l->ring_size, SEALS);
	l->mem_fd = memfd_sized(mem, seals);
	if (l->ring_fd < 0 || l->mem_fd < 0)
		goto fail;
	l->ring = mmap(NULL, l->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			l->ring_fd, 0);
	if (l->ring == MAP_FAILED)
		goto fail;
	l->mem = NULL;
	if (mem <= (UINT64_C(64) << 20)) {
		l->mem = mmap(NULL, mem, PROT_READ | PROT_WRITE, MAP_SHARED,
				l->mem_fd, 0);
		if (l->mem == MAP_FAILED)
			l->mem = NULL;
	}
	msg_init(&m, SHM_MSG_CONSUMER_ADD);
	m.consumer.consumer_id = l->id;
	m.consumer.nb_posts = depth;
	m.consumer.max_imm_len = SHM_MAX_IMM;
	m.consumer.ring_size = l->ring_size;
	m.consumer.mem_size = mem;
	fds[0] = l->ring_fd;
	fds[1] = l->mem_fd;
	if (send_fds(h->sock, &m, sizeof(m), fds, 2) < 0)
		goto fail;
	h->nb_lc++;
	return (int)h->nb_lc - 1;
fail:
	if (l->ring != NULL && l->ring != MAP_FAILED)
		munmap(l->ring, l->ring_size);
	if (l->ring_fd >= 0)
		close(l->ring_fd);
	if (l->mem_fd >= 0)
		close(l->mem_fd);
	memset(l, 0, sizeof(*l));
	return -1;
}

/* Post @p n buffers of @p len bytes at offset @p off (all the same). */
void
lcons_post(struct lcons *l, uint32_t n, uint64_t off, uint32_t len)
{
	while (n-- > 0 && l->posted - l->done < l->depth) {
		struct shm_post_slot *s = cslot(l->ring, l->mask, l->posted);

		s->buf_off = off;
		s->buf_len = len;
		s->done_seq = 0;
		s->post_seq = l->posted;
		l->posted++;
		__atomic_store_n(&chdr(l->ring)->post_prod, l->posted,
			__ATOMIC_RELEASE);
	}
}

/* Completions of our consumer; returns how many. */
uint32_t
lcons_reap(struct lcons *l)
{
	uint32_t n = 0;

	while (l->done != l->posted) {
		struct shm_post_slot *s = cslot(l->ring, l->mask, l->done);

		if (__atomic_load_n(&s->done_seq, __ATOMIC_ACQUIRE) !=
		    l->done + 1)
			break;
		l->done++;
		n++;
	}
	return n;
}

/* ---------------------------------------------- producing into the DPU */

struct rcons *
rcons_any(struct hc *h, unsigned int nth)
{
	for (unsigned int i = 0; i < MAX_RCONS; i++)
		if (h->rc[i].live && nth-- == 0)
			return &h->rc[i];
	return NULL;
}

/* Claim up to @p n posted buffers of @p r; returns the first index and
 * sets *got. */
uint32_t
rcons_claim(struct rcons *r, uint32_t n, uint32_t *got)
{
	struct shm_cons_hdr *hd = chdr(r->ring);
	uint32_t c, p, k;

	*got = 0;
	for (;;) {
		p = __atomic_load_n(&hd->post_prod, __ATOMIC_ACQUIRE);
		c = __atomic_load_n(&hd->claim, __ATOMIC_ACQUIRE);
		k = p - c;
		if (k == 0 || k > r->nb_posts)
			return c;
		k = RTE_MIN(k, n);
		if (__atomic_compare_exchange_n(&hd->claim, &c, c + k, false,
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			*got = k;
			return c;
		}
	}
}

/* Fill a claimed slot: payload (unless @p fake), length, imm, done. */
void
rcons_fill(struct rcons *r, uint32_t idx, const void *data, uint32_t len,
		const void *imm, uint8_t imm_len, bool fake)
{
	struct shm_post_slot *s = cslot(r->ring, r->mask, idx);
	uint64_t off = s->buf_off;
	uint32_t blen = s->buf_len;

	if (len == UINT32_MAX)
		len = blen;              /* the whole buffer */
	if (!fake && off + len <= r->mem_size && len <= blen)
		memcpy(r->mem + off, data, len);
	s->len = len;
	s->producer_id = 0;
	s->imm_len = imm_len;
	if (imm_len != 0)
		memcpy(s->imm, imm, RTE_MIN(imm_len, SHM_MAX_IMM));
	__atomic_store_n(&s->done_seq, idx + 1, __ATOMIC_RELEASE);
}

/* Send @p n messages of @p len bytes to @p r, fill them; returns sent. */
uint32_t
rcons_send(struct rcons *r, uint32_t n, const void *data, uint32_t len,
		const void *imm, uint8_t imm_len)
{
	uint32_t got, first = rcons_claim(r, n, &got);

	for (uint32_t i = 0; i < got; i++)
		rcons_fill(r, first + i, data, len, imm, imm_len, false);
	return got;
}

/* --------------------------------------------------- perf protocol */

int
perf_send(struct hc *h, uint32_t type, uint32_t test, uint32_t size,
		uint32_t burst, uint32_t queues, uint32_t touch, uint64_t msgs)
{
	struct perf_msg p = { .magic = PERF_MAGIC, .type = type, .test = test,
		.size = size, .burst = burst, .queues = queues, .touch = touch,
		.msgs = msgs };

	return hc_send_wait(h, &p, sizeof(p), ANSWER_WAIT_S);
}

/* Wait for a perf message of @p type; true if it came. */
bool
perf_wait(struct hc *h, uint32_t type, double sec)
{
	double end = now_s() + sec;
	struct perf_msg p;
	uint8_t buf[SHM_MAX_MSG_SIZE];
	int n;

	while (now_s() < end && !quit && !h->eof) {
		n = hc_recv_wait(h, buf, sizeof(buf), end - now_s());
		if (n == (int)sizeof(p)) {
			memcpy(&p, buf, sizeof(p));
			if (p.magic == PERF_MAGIC && p.type == type)
				return true;
			/* the DPU said no (perf.h): no READY will come */
			if (p.magic == PERF_MAGIC && type == PERF_MSG_READY &&
			    p.type == PERF_MSG_REFUSED)
				return false;
		} else if (n < 0) {
			return false;
		}
	}
	return false;
}

/* BEGIN and wait for READY and @p nb_cons announced consumers. */
double ready_wait = 30;

bool
perf_begin(struct hc *h, uint32_t test, uint32_t size, uint32_t burst,
		uint32_t queues, uint32_t touch, unsigned int nb_cons)
{
	unsigned int seen = h->nb_rc_seen;
	double end = now_s() + ready_wait;

	if (perf_send(h, PERF_MSG_BEGIN, test, size, burst, queues, touch,
			0) < 0)
		return false;
	if (!perf_wait(h, PERF_MSG_READY, ready_wait))
		return false;
	while (h->nb_rc_seen - seen < nb_cons && now_s() < end && !h->eof) {
		hc_pump(h);
		pause_us(1000);
	}
	return h->nb_rc_seen - seen >= nb_cons;
}

/* Make the DPU write into our mailbox (a reply), per application. */
void
provoke_reply(struct hc *h)
{
	if (strcmp(opt.app, "perf") == 0)
		perf_send(h, PERF_MSG_BEGIN, PERF_CTRL_LAT, 64, 1, 1, 0, 0);
	else if (strcmp(opt.app, "ctrl") == 0)
		hc_send_wait(h, "provoke", 7, 5);
}

/* =============================================================== modes */
