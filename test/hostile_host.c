/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: a standalone hostile host for the DPU programs of this
 * project (examples/comch_ctrl_path, examples/comch_data_path,
 * dpdk-comch-perf --role=dpu). It speaks the comch_shm wire protocol by
 * hand, written from doc/guides/drivers/comch_shm.md and the wire structs
 * of comch_shm.h only (no driver or library code), and the application
 * protocols from the sample guides and app/comch-perf/perf.h.
 *
 *   hostile_host MODE --path DIR [--func pf0] [--name SERVER] [--app A]
 *                [--hold SEC] [--rounds N] [--conns N] [--consumers N]
 *                [--mem-mb N] [--socks N] [--size N] [--queues N]
 *
 * Run by test/test_hostile_apps.py beside an honest client. Output lines
 * start with "hostile:"; "hostile: armed" says the attack is in place (the
 * test then starts the honest client, or SIGSTOPs us); SIGUSR1 moves a mode
 * to its second phase where it has one; SIGTERM ends a hold.
 *
 * Exit status: 0 the attack ran; 2 it could not be set up (no server, no
 * ACCEPT where one was needed: a test problem); 3 the DPU did something
 * the documents rule out, seen from the wire (a malformed handshake
 * accepted, a violation left unpunished): a product finding.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "comch_shm.h"
#include "perf.h"

#define EXIT_SETUP 2
#define EXIT_FINDING 3

#define MAX_RCONS 256      /* the DPU's consumers we map */
#define MAX_LCONS 256      /* our consumers */
#define ANSWER_WAIT_S 60   /* generous (a loaded machine): the DPU's answer
                            * (ACCEPT/REJECT or EOF, room in its ring) */
#define ARM_GUARD_S 150   /* set-up of an attack, within the script's ARM_GUARD */
#define CLOSE_WAIT_S 60    /* generous (a loaded machine): a violation punished */

/* ------------------------------------------------------------ options */

static struct {
	const char *mode;
	const char *path;
	const char *func;
	const char *name;
	const char *app;        /* ctrl, perf, data */
	const char *diskdir;    /* a folder on a disk filesystem */
	double hold;
	unsigned int rounds;
	unsigned int conns;
	unsigned int consumers;
	unsigned int mem_mb;
	unsigned int socks;
	unsigned int size;
	unsigned int queues;
	bool refresh;
	bool no_legal;          /* skip the variants a DPU may accept */
	const char *variant;    /* only this variant (by name) */
	const char *then;       /* claim-hold: end, begin, none */
	unsigned int first_id;  /* our first consumer id */
	unsigned int test;      /* begin: the perf test */
	const char *text;       /* data-peer: what we send */
	const char *expect;     /* data-peer: what the server must send */
} opt = {
	.first_id = 1, .text = "Hello from the host",
	.expect = "Hello from the DPU",
	.func = "pf0", .app = "ctrl", .diskdir = ".", .hold = 10,
	.then = "none", .rounds = 1, .conns = 1, .consumers = 1, .mem_mb = 1, .socks = 32,
	.size = 64, .queues = 1,
};

static volatile sig_atomic_t quit, phase2;
static unsigned int findings;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		phase2 = 1;
	else
		quit = 1;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	va_list ap;

	printf("hostile: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A product finding: said, counted, the exit status tells. */
static void finding(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
finding(const char *fmt, ...)
{
	va_list ap;

	printf("hostile: FINDING: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	findings++;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
pause_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Hold for opt.hold seconds (or until SIGTERM), calling @p tick. */
static void
hold(void (*tick)(void *), void *arg)
{
	double end = now_s() + opt.hold;

	while (!quit && now_s() < end) {
		if (tick != NULL)
			tick(arg);
		else
			pause_us(20000);
	}
}

/* ------------------------------------------------------ wire geometry */

static uint64_t
page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The mailbox geometry as the driver guide states it. */
static void
geom_init(struct shm_ring_geom *g, uint32_t depth, uint32_t max_msg)
{
	uint64_t ring = rte_align64pow2(depth);

	g->depth = depth;
	g->mask = (uint32_t)ring - 1;
	g->slot_size = (uint32_t)RTE_ALIGN_CEIL(sizeof(struct shm_ctrl_slot) +
			max_msg, 64);
	g->max_msg = max_msg;
	g->mailbox_size = RTE_ALIGN_CEIL(sizeof(struct shm_mailbox_hdr) +
			ring * g->slot_size, page_size());
}

static uint64_t
cons_ring_size(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		rte_align64pow2(depth) * sizeof(struct shm_post_slot),
		page_size());
}

static int
memfd_sized(uint64_t size, unsigned int seals)
{
	int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    (seals != 0 && fcntl(fd, F_ADD_SEALS, seals) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

#define SEALS (F_SEAL_SHRINK | F_SEAL_GROW)

static void
msg_init(struct shm_msg *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->magic = SHM_PROTO_MAGIC;
	m->version = SHM_PROTO_VERSION;
	m->type = type;
}

/* ------------------------------------------------------------- socket */

static int
link_connect(const char *func)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s.sock", opt.path,
		func);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static int
send_fds(int s, const void *buf, size_t len, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
		.iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds > 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len ?
		0 : -1;
}

/* One packet: its length (0: EOF), -EAGAIN, or -errno. Up to 8 fds. */
static ssize_t
recv_fds(int s, struct shm_msg *m, int *fds, int *nfds, int wait_ms)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct cmsghdr *c;
	ssize_t n;

	*nfds = 0;
	if (wait_ms != 0 && poll(&p, 1, wait_ms) == 0)
		return -EAGAIN;
	n = recvmsg(s, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));

			memcpy(fds + *nfds, CMSG_DATA(c), (size_t)k * sizeof(int));
			*nfds += k;
		}
	}
	return n;
}

static void
close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Wait for the socket to end (EOF or error) for at most @p sec seconds,
 * discarding what arrives. True if it ended. */
static bool
wait_eof(int s, double sec)
{
	double end = now_s() + sec;
	struct shm_msg m;
	int fds[8], nfds;
	ssize_t n;

	while (now_s() < end && !quit) {
		n = recv_fds(s, &m, fds, &nfds, 50);
		close_fds(fds, nfds);
		if (n == 0 || (n < 0 && n != -EAGAIN))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------- a connection */

struct rcons {                 /* a consumer of the DPU: we produce into it */
	bool live;
	uint32_t id, nb_posts, imm_len, mask;
	uint64_t ring_size, mem_size;
	uint8_t *ring, *mem;
};

struct lcons {                 /* our consumer: the DPU produces into it */
	uint32_t id, depth, mask;
	int ring_fd, mem_fd;
	uint64_t ring_size, mem_size;
	uint8_t *ring, *mem;
	uint32_t posted, done;
};

struct hc {
	int sock;
	int mb_fd;
	uint8_t *mb;                /* ours: the DPU writes it */
	struct shm_ring_geom rx;
	uint8_t *dpu_mb;            /* the DPU's: we write it */
	struct shm_ring_geom tx;
	uint32_t tx_next, rx_next;
	uint32_t conn_id, max_consumers;
	uint64_t max_map;
	bool eof, bye;
	bool no_sock_read;          /* never read the link socket */
	struct rcons rc[MAX_RCONS];
	unsigned int nb_rc_seen;
	struct lcons lc[MAX_LCONS];
	unsigned int nb_lc;
	uint32_t next_cons_id;
	int reject_err;
	char reject_reason[SHM_REASON_MAX];
};

static struct shm_cons_hdr *
chdr(uint8_t *ring)
{
	return (struct shm_cons_hdr *)ring;
}

static struct shm_post_slot *
cslot(uint8_t *ring, uint32_t mask, uint32_t idx)
{
	return (struct shm_post_slot *)(ring + sizeof(struct shm_cons_hdr)) +
		(idx & mask);
}

static void
rcons_unmap(struct rcons *r)
{
	if (r->ring != NULL)
		munmap(r->ring, r->ring_size);
	if (r->mem != NULL)
		munmap(r->mem, r->mem_size);
	memset(r, 0, sizeof(*r));
}

/* One packet from the DPU after ACCEPT. */
static void
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
static void
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

static void
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

static void
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
static int
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
static int
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

static int
hc_open(struct hc *h, uint32_t depth)
{
	return hc_open_on(h, opt.func, depth);
}

/* Open, retrying while the DPU says "again" or the server is not there
 * yet, for up to 30 s. 0 on ACCEPT. */
static int
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
static struct shm_ctrl_slot *
ring_slot(uint8_t *mb, const struct shm_ring_geom *g, uint32_t n)
{
	return (struct shm_ctrl_slot *)(mb + sizeof(struct shm_mailbox_hdr) +
		(size_t)(n & g->mask) * g->slot_size);
}

static uint32_t
hc_tx_cons(struct hc *h)
{
	if (h->mb == NULL)      /* a mailbox we cannot look at: assume none */
		return h->tx_next - 1;
	return __atomic_load_n(&((struct shm_mailbox_hdr *)h->mb)->tx_cons,
			__ATOMIC_ACQUIRE);
}

static int
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
static int
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

static int
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

static int
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
static int
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
static void
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
static uint32_t
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

static struct rcons *
rcons_any(struct hc *h, unsigned int nth)
{
	for (unsigned int i = 0; i < MAX_RCONS; i++)
		if (h->rc[i].live && nth-- == 0)
			return &h->rc[i];
	return NULL;
}

/* Claim up to @p n posted buffers of @p r; returns the first index and
 * sets *got. */
static uint32_t
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
static void
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
static uint32_t
rcons_send(struct rcons *r, uint32_t n, const void *data, uint32_t len,
		const void *imm, uint8_t imm_len)
{
	uint32_t got, first = rcons_claim(r, n, &got);

	for (uint32_t i = 0; i < got; i++)
		rcons_fill(r, first + i, data, len, imm, imm_len, false);
	return got;
}

/* --------------------------------------------------- perf protocol */

static int
perf_send(struct hc *h, uint32_t type, uint32_t test, uint32_t size,
		uint32_t burst, uint32_t queues, uint32_t touch, uint64_t msgs)
{
	struct perf_msg p = { .magic = PERF_MAGIC, .type = type, .test = test,
		.size = size, .burst = burst, .queues = queues, .touch = touch,
		.msgs = msgs };

	return hc_send_wait(h, &p, sizeof(p), ANSWER_WAIT_S);
}

/* Wait for a perf message of @p type; true if it came. */
static bool
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
static double ready_wait = 30;

static bool
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
static void
provoke_reply(struct hc *h)
{
	if (strcmp(opt.app, "perf") == 0)
		perf_send(h, PERF_MSG_BEGIN, PERF_CTRL_LAT, 64, 1, 1, 0, 0);
	else if (strcmp(opt.app, "ctrl") == 0)
		hc_send_wait(h, "provoke", 7, 5);
}

/* =============================================================== modes */

/* ---- silent: sockets that never say HELLO (slowloris) ---- */

static int
mode_silent(void)
{
	int *s = calloc(opt.socks, sizeof(int));
	unsigned int i, open = 0, dropped = 0, reopened = 0;
	double end;
	char c;

	if (s == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.socks; i++) {
		s[i] = link_connect(opt.func);
		open += s[i] >= 0;
	}
	say("silent: %u of %u sockets connected", open, opt.socks);
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		for (i = 0; i < opt.socks; i++) {
			if (s[i] < 0) {
				if (opt.refresh && (s[i] = link_connect(opt.func)) >= 0)
					reopened++;
				continue;
			}
			ssize_t n = recv(s[i], &c, 1, MSG_DONTWAIT);

			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				dropped++;
				close(s[i]);
				s[i] = opt.refresh ? link_connect(opt.func) : -1;
				reopened += s[i] >= 0 && opt.refresh;
			} else if (n > 0) {
				/* a REJECT: counted as dropped, we go on */
				dropped++;
				close(s[i]);
				s[i] = opt.refresh ? link_connect(opt.func) : -1;
			}
		}
		pause_us(opt.refresh ? 1000 : 50000);
	}
	for (i = 0; i < opt.socks; i++)
		if (s[i] >= 0)
			close(s[i]);
	say("silent: dropped by the DPU %u, reopened %u", dropped, reopened);
	free(s);
	return 0;
}

/* ---- connect-flood: connect and hang up, as fast as we can ----
 * Every connection reaches the DPU's listening socket, which must accept
 * it to learn it is gone (or refuse it beyond max_pending). Faster than
 * the DPU can take them, the backlog never empties: a DPU that accepts
 * until none waits never leaves its listening socket, and serves no other
 * socket of its interrupt thread (another function's HELLO included). */

static int
mode_connect_flood(void)
{
	unsigned long n = 0, failed = 0;
	double end;
	int s;

	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		s = link_connect(opt.func);
		if (s < 0) {
			failed++;
			pause_us(1000);
			continue;
		}
		close(s);
		n++;
	}
	say("connect-flood: %lu connections, %lu connects failed", n, failed);
	return 0;
}

/* ---- refused-stream: refused clients that never stop talking ----
 * With the function's handshake places held (max_pending silent sockets,
 * the scenario sets max_pending=1 and a long handshake time), each new
 * client is refused as it connects. The DPU reads what such a client
 * sent before it closes the socket (so that its REJECT is not lost to a
 * reset); four threads here keep sending on the newest socket as fast as
 * they can: a read that goes on while there is something to read never
 * ends, and the interrupt thread serves nothing else. */

static volatile int stream_sock = -1;
static volatile bool stream_stop;

static void *
stream_thread(void *arg)
{
	unsigned long *sent = arg;
	char rec[64];
	int s;

	memset(rec, 0x5a, sizeof(rec));
	while (!stream_stop && !quit) {
		s = stream_sock;
		if (s >= 0 && send(s, rec, sizeof(rec),
				MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
			(*sent)++;
	}
	return NULL;
}

static int
mode_refused_stream(void)
{
	unsigned long sent[4] = { 0 }, total = 0, conns = 0;
	unsigned int i, held = 0, nt = 0;
	int *hold_s = calloc(opt.socks, sizeof(int));
	pthread_t t[4];
	double end;
	char c;
	int s;

	if (hold_s == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.socks; i++) {
		hold_s[i] = link_connect(opt.func);
		held += hold_s[i] >= 0;
	}
	say("refused-stream: %u handshake places held", held);
	for (i = 0; i < RTE_DIM(t); i++)
		if (pthread_create(&t[nt], NULL, stream_thread, &sent[nt]) == 0)
			nt++;
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		s = link_connect(opt.func);
		if (s < 0) {
			pause_us(1000);
			continue;
		}
		conns++;
		stream_sock = s;
		/* until the DPU closes it (its REJECT read, or a reset) */
		while (!quit && now_s() < end) {
			ssize_t n = recv(s, &c, 1, MSG_DONTWAIT);

			if (n >= 0 || (errno != EAGAIN && errno != EINTR))
				break;
			pause_us(100);
		}
		stream_sock = -1;
		close(s);
	}
	stream_stop = true;
	for (i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		total += sent[i];
	}
	for (i = 0; i < opt.socks; i++)
		if (hold_s[i] >= 0)
			close(hold_s[i]);
	free(hold_s);
	say("refused-stream: %lu refused clients, %lu records sent", conns,
		total);
	return 0;
}

/* ---- hello-garbage: malformed handshakes, never accepted ---- */

enum hv {
	HV_SHORT, HV_LONG, HV_EMPTY, HV_MAGIC, HV_VERSION_LO, HV_VERSION_HI,
	HV_TYPE_0, HV_TYPE_ACCEPT, HV_TYPE_REJECT, HV_TYPE_CADD, HV_TYPE_CDEL,
	HV_TYPE_BYE, HV_TYPE_99, HV_NOFD, HV_2FD, HV_3FD, HV_8FD, HV_FD_PIPE,
	HV_FD_SOCK, HV_FD_DEVNULL, HV_FD_DISK, HV_FD_OPATH, HV_FD_EVENTFD,
	HV_FD_UNSEALED, HV_FD_SEAL_SHRINK, HV_FD_SEAL_GROW, HV_FD_SMALL,
	HV_FD_BIG, HV_FD_SEAL_WRITE, HV_FD_SEAL_FWRITE, HV_FD_SHM_OPEN,
	HV_FD_RDONLY, HV_FD_ZERO, HV_SIZE_FIELD, HV_QLEN_0, HV_QLEN_BIG,
	HV_QLEN_MAX, HV_MSG_0, HV_MSG_SMALL, HV_MSG_BIG, HV_NAME_NOTERM,
	HV_NAME_EMPTY, HV_NAME_UNKNOWN, HV_CREDS, HV_FD_DIR, HV_FD_SELFSOCK,
	HV__MAX
};

static const char *const hv_names[HV__MAX] = {
	"short", "long", "empty", "magic", "version-3", "version-99",
	"type-0", "type-accept", "type-reject", "type-consumer-add",
	"type-consumer-del", "type-bye", "type-99", "no-fd", "2-fds", "3-fds",
	"8-fds", "fd-pipe", "fd-socket", "fd-devnull", "fd-disk-file",
	"fd-o-path", "fd-eventfd", "fd-unsealed", "fd-seal-shrink-only",
	"fd-seal-grow-only", "fd-smaller", "fd-bigger", "fd-seal-write",
	"fd-seal-future-write", "fd-shm-open-tmpfs", "fd-read-only",
	"fd-size-0", "mailbox-size-field", "queue-len-0", "queue-len-8193",
	"queue-len-max", "max-msg-0", "max-msg-1024", "max-msg-4081",
	"name-not-terminated", "name-empty", "name-unknown", "scm-credentials",
	"fd-directory", "fd-own-socket",
};

/* A HELLO broken as @p v on a fresh socket. Returns the DPU's answer (see
 * hc_answer()) or -3 if it could not be sent. */
static int
hello_variant(enum hv v)
{
	struct hc h;
	struct shm_msg m;
	size_t len = sizeof(m);
	int fds[8], nfds = 1, extra[8], nextra = 0, r, i;
	char buf[512], tmpl[512];
	uint64_t size;

	memset(&h, 0, sizeof(h));
	h.sock = -1;
	h.mb_fd = -1;
	geom_init(&h.rx, 16, SHM_MAX_MSG_SIZE);
	size = h.rx.mailbox_size;
	h.sock = link_connect(opt.func);
	if (h.sock < 0)
		return -3;
	hello_fill(&m, opt.name, 16, size);
	fds[0] = memfd_sized(size, SEALS);
	extra[nextra++] = fds[0];

	switch (v) {
	case HV_SHORT: len = 100; break;
	case HV_LONG: len = 512; break;
	case HV_EMPTY: len = 0; nfds = 0; break;  /* with an fd: fd-leak */
	case HV_MAGIC: m.magic ^= 1; break;
	case HV_VERSION_LO: m.version = SHM_PROTO_VERSION - 1; break;
	case HV_VERSION_HI: m.version = 99; break;
	case HV_TYPE_0: m.type = 0; break;
	case HV_TYPE_ACCEPT: m.type = SHM_MSG_ACCEPT; break;
	case HV_TYPE_REJECT: m.type = SHM_MSG_REJECT; break;
	case HV_TYPE_CADD: m.type = SHM_MSG_CONSUMER_ADD; break;
	case HV_TYPE_CDEL: m.type = SHM_MSG_CONSUMER_DEL; nfds = 0; break;
	case HV_TYPE_BYE: m.type = SHM_MSG_BYE; nfds = 0; break;
	case HV_TYPE_99: m.type = 99; break;
	case HV_NOFD: nfds = 0; break;
	case HV_2FD: case HV_3FD: case HV_8FD:
		nfds = v == HV_2FD ? 2 : v == HV_3FD ? 3 : 8;
		for (i = 1; i < nfds; i++)
			extra[nextra++] = fds[i] = memfd_sized(size, SEALS);
		break;
	case HV_FD_PIPE: {
		int p[2];

		if (pipe(p) == 0) {
			fds[0] = p[0];
			extra[nextra++] = p[0];
			extra[nextra++] = p[1];
		}
		break;
	}
	case HV_FD_SOCK:
		extra[nextra++] = fds[0] = socket(AF_UNIX, SOCK_DGRAM, 0);
		break;
	case HV_FD_SELFSOCK:
		fds[0] = h.sock;
		break;
	case HV_FD_DEVNULL:
		extra[nextra++] = fds[0] = open("/dev/null", O_RDWR);
		break;
	case HV_FD_DIR:
		extra[nextra++] = fds[0] = open(opt.diskdir, O_RDONLY | O_DIRECTORY);
		break;
	case HV_FD_DISK:
		snprintf(tmpl, sizeof(tmpl), "%s/hostile-disk-XXXXXX",
			opt.diskdir);
		fds[0] = mkstemp(tmpl);
		if (fds[0] >= 0) {
			unlink(tmpl);
			if (ftruncate(fds[0], (off_t)size) < 0)
				say("ftruncate: %s", strerror(errno));
			extra[nextra++] = fds[0];
		}
		break;
	case HV_FD_OPATH:
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", extra[0]);
		extra[nextra++] = fds[0] = open(buf, O_PATH);
		break;
	case HV_FD_RDONLY:
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", extra[0]);
		extra[nextra++] = fds[0] = open(buf, O_RDONLY);
		break;
	case HV_FD_EVENTFD:
		extra[nextra++] = fds[0] = eventfd(0, 0);
		break;
	case HV_FD_UNSEALED:
		extra[nextra++] = fds[0] = memfd_sized(size, 0);
		break;
	case HV_FD_SEAL_SHRINK:
		extra[nextra++] = fds[0] = memfd_sized(size, F_SEAL_SHRINK);
		break;
	case HV_FD_SEAL_GROW:
		extra[nextra++] = fds[0] = memfd_sized(size, F_SEAL_GROW);
		break;
	case HV_FD_SMALL:
		extra[nextra++] = fds[0] = memfd_sized(size - page_size(), SEALS);
		break;
	case HV_FD_BIG:
		extra[nextra++] = fds[0] = memfd_sized(size + page_size(), SEALS);
		m.hello.mailbox_size = size + page_size();
		break;
	case HV_FD_ZERO:
		extra[nextra++] = fds[0] = memfd_sized(0, SEALS);
		m.hello.mailbox_size = 0;
		break;
	case HV_FD_SEAL_WRITE:
		extra[nextra++] = fds[0] = memfd_sized(size,
				SEALS | F_SEAL_WRITE);
		break;
	case HV_FD_SEAL_FWRITE:
		extra[nextra++] = fds[0] = memfd_sized(size,
				SEALS | F_SEAL_FUTURE_WRITE);
		break;
	case HV_FD_SHM_OPEN:
		snprintf(tmpl, sizeof(tmpl), "/dev/shm/hostile-%d-XXXXXX",
			(int)getpid());
		fds[0] = mkstemp(tmpl);
		if (fds[0] >= 0) {
			unlink(tmpl);
			if (ftruncate(fds[0], (off_t)size) < 0)
				say("ftruncate: %s", strerror(errno));
			extra[nextra++] = fds[0];
		}
		break;
	case HV_SIZE_FIELD: m.hello.mailbox_size = size * 2; break;
	case HV_QLEN_0: m.hello.recv_queue_len = 0; break;
	case HV_QLEN_BIG: m.hello.recv_queue_len = SHM_MAX_RECV_QUEUE_LEN + 1; break;
	case HV_QLEN_MAX: m.hello.recv_queue_len = UINT32_MAX; break;
	case HV_MSG_0: m.hello.max_msg_size = 0; break;
	case HV_MSG_SMALL: {
		struct shm_ring_geom g;

		geom_init(&g, 16, 1024);
		m.hello.max_msg_size = 1024;
		m.hello.mailbox_size = g.mailbox_size;
		extra[nextra++] = fds[0] = memfd_sized(g.mailbox_size, SEALS);
		break;
	}
	case HV_MSG_BIG: m.hello.max_msg_size = SHM_MAX_MSG_SIZE + 1; break;
	case HV_NAME_NOTERM:
		memset(m.hello.server_name, 'A', sizeof(m.hello.server_name));
		break;
	case HV_NAME_EMPTY: m.hello.server_name[0] = '\0'; break;
	case HV_NAME_UNKNOWN:
		snprintf(m.hello.server_name, sizeof(m.hello.server_name),
			"no-such-server-%d", (int)getpid());
		break;
	case HV_CREDS: nfds = 0; break;
	default: break;
	}
	if (fds[0] < 0) {
		say("variant %s: cannot make its fd (%s), skipped", hv_names[v],
			strerror(errno));
		r = -3;
		goto out;
	}
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &m, sizeof(m));
	if (v == HV_CREDS) {
		char cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct ucred uc = { .pid = getpid(), .uid = getuid(),
			.gid = getgid() };
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(uc));
		memcpy(CMSG_DATA(c), &uc, sizeof(uc));
		r = sendmsg(h.sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
	} else {
		r = send_fds(h.sock, buf, len, fds, nfds);
	}
	if (r < 0) {
		/* e.g. the kernel refuses some fd types: not sent, skipped */
		say("variant %s: not sent (%s)", hv_names[v], strerror(errno));
		r = -3;
		goto out;
	}
	r = hc_answer(&h, ANSWER_WAIT_S);
out:
	for (i = 0; i < nextra; i++)
		if (extra[i] >= 0)
			close(extra[i]);
	hc_close(&h);
	return r;
}

static int
mode_hello_garbage(void)
{
	unsigned int round, counts[4] = { 0 };
	int v, r;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		for (v = 0; v < HV__MAX && !quit; v++) {
			if ((opt.no_legal && v == HV_SIZE_FIELD) ||
			    (opt.variant != NULL &&
			     strcmp(opt.variant, hv_names[v]) != 0))
				continue;
			r = hello_variant((enum hv)v);
			if (quit)
				break;  /* cut short by SIGTERM: no verdict */
			/* the declared size is redundant: the DPU checks
			 * the fd against its own computation */
			if (r == SHM_MSG_ACCEPT && v != HV_SIZE_FIELD)
				finding("HELLO variant %s was ACCEPTed", hv_names[v]);
			else if (r == -1)
				finding("HELLO variant %s: no answer and no close within %d s",
					hv_names[v], ANSWER_WAIT_S);
			counts[r == SHM_MSG_REJECT ? 0 : r == 0 ? 1 : r == -3 ? 2 : 3]++;
			if (round == 0)
				say("variant %s: %s", hv_names[v],
					r == SHM_MSG_REJECT ? "rejected" : r == 0 ?
					"closed" : r == -3 ? "skipped" :
					r == SHM_MSG_ACCEPT ? "ACCEPTED" : "other");
		}
	}
	say("hello-garbage: rejected %u, closed %u, skipped %u, other %u",
		counts[0], counts[1], counts[2], counts[3]);
	return 0;
}

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

static int
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

static int
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

static int
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

static int
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

/* ---- churn: handshakes abandoned at every step ---- */

static int
mode_churn(void)
{
	unsigned int round, step;
	struct hc h;
	struct shm_msg m;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		for (step = 0; step < 5 && !quit; step++) {
			if (step == 0) {
				/* connect and close */
				int s = link_connect(opt.func);

				if (s >= 0)
					close(s);
				continue;
			}
			if (step == 1) {
				/* HELLO and close before the answer */
				memset(&h, 0, sizeof(h));
				geom_init(&h.rx, 16, SHM_MAX_MSG_SIZE);
				h.sock = link_connect(opt.func);
				h.mb_fd = memfd_sized(h.rx.mailbox_size, SEALS);
				if (h.sock >= 0 && h.mb_fd >= 0) {
					hello_fill(&m, opt.name, 16,
						h.rx.mailbox_size);
					send_fds(h.sock, &m, sizeof(m), &h.mb_fd, 1);
				}
				hc_close(&h);
				continue;
			}
			if (hc_open_retry(&h, 16) < 0)
				return quit ? 0 : EXIT_SETUP;
			if (step == 3) {
				/* a consumer, then gone */
				lcons_add(&h, 8, 4096, SEALS);
			} else if (step == 4) {
				/* a clean BYE */
				msg_init(&m, SHM_MSG_BYE);
				send_fds(h.sock, &m, sizeof(m), NULL, 0);
			}
			hc_close(&h);
		}
	}
	say("churn: %u rounds", round);
	return 0;
}

/* ---- sigpipe: we shut our reading side; every later send of the DPU on
 * the link socket fails with EPIPE ---- */

static int
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

/* ---- never-read: a queue of 1 that we never read ---- */

struct flood {
	struct hc *h;
	unsigned int n;
	uint64_t sent;
};

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

static int
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

static int
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

/* ---- claim-hold: buffers of the DPU claimed and never filled ---- */

static int
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
	/* END: the DPU waits up to 10 s for the messages, then stops its
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

static int
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

static int
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

/* EOF can be seen without reading the socket: POLLHUP. */
static bool
sock_hung_up(int s)
{
	struct pollfd p = { .fd = s, .events = 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

/* ---- announce-flood: the DPU announces consumers; we never read the
 * link socket ---- */

static int
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

static int
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

static int
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

static int
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
		/* beyond the quota: each must be refused, nothing else */
		for (i = 0; i < 4; i++) {
			r = hc_open(&h[opt.conns + i], 16);
			if (r == SHM_MSG_REJECT) {
				rejected++;
				say("extra connection refused: %s: %s",
					strerror(h[opt.conns + i].reject_err),
					h[opt.conns + i].reject_reason);
			} else if (r == SHM_MSG_ACCEPT) {
				say("extra connection accepted");
			}
			hc_close(&h[opt.conns + i]);
		}
		say("phase2: %u extra connections refused", rejected);
		hold(NULL, NULL);
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

static int
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

static int
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

static int
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

/* ---- unread-accept: connections whose ACCEPT (it carries the DPU's
 * mailbox fd) we never read: we answer BYE at once, the DPU closes its
 * end and gives the connection's quota back, and we keep our end open,
 * the ACCEPT and its fd still queued on it. The kernel counts an fd in an
 * unread message against the sender's user (RLIMIT_NOFILE, unless it has
 * CAP_SYS_RESOURCE or CAP_SYS_ADMIN); the DPU's per-connection bound on
 * unread fds (SIOCOUTQ) ends with the connection. --rounds such
 * connections (one at a time: within max_conns), then armed, then hold.
 * ---- */

static int
mode_unread_accept(void)
{
	unsigned int kept = 0, refused = 0, in_row = 0, i;
	int *socks = calloc(opt.rounds, sizeof(int));
	struct shm_msg m;
	double end;

	if (socks == NULL)
		return EXIT_SETUP;
	end = now_s() + ARM_GUARD_S;
	/* 300 refusals in a row: the DPU refuses everyone now */
	while (kept < opt.rounds && !quit && now_s() < end && in_row < 300) {
		struct pollfd pf;
		uint64_t size;
		int s, mb;

		s = link_connect(opt.func);
		if (s < 0) {
			pause_us(1000);
			continue;
		}
		size = 0;
		{
			struct shm_ring_geom g;

			geom_init(&g, 16, SHM_MAX_MSG_SIZE);
			size = g.mailbox_size;
		}
		mb = memfd_sized(size, SEALS);
		hello_fill(&m, opt.name, 16, size);
		if (mb < 0 || send_fds(s, &m, sizeof(m), &mb, 1) < 0) {
			if (mb >= 0)
				close(mb);
			close(s);
			continue;
		}
		close(mb);
		pf.fd = s;
		pf.events = POLLIN;
		if (poll(&pf, 1, ANSWER_WAIT_S * 1000) != 1) {
			close(s);
			continue;
		}
		/* a look at the type only: the fds stay queued */
		if (recv(s, &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT) !=
		    (ssize_t)sizeof(m) || m.type != SHM_MSG_ACCEPT) {
			close(s);
			refused++;
			in_row++;
			pause_us(2000);
			continue;
		}
		in_row = 0;
		msg_init(&m, SHM_MSG_BYE);
		send_fds(s, &m, sizeof(m), NULL, 0);
		socks[kept++] = s;
	}
	say("unread-accept: %u connections closed with their ACCEPT unread and kept, %u refused",
		kept, refused);
	say("armed");
	hold(NULL, NULL);
	for (i = 0; i < kept; i++)
		close(socks[i]);
	free(socks);
	return 0;
}

/* ---- extra-fd-linger: a first message (before HELLO) with five fds: four
 * memfds, then a TCP socket lingering for an hour with data its other end
 * (ours, never read) does not take. The DPU receives four fds per message;
 * the kernel closes the fifth in the receiving thread (EAL's interrupt
 * thread, which serves the handshakes of every function), and that close
 * is the last one: it waits for the linger time. --variant empty-first:
 * an empty record goes first. ---- */

static volatile int linger_fd = -1;
static volatile bool linger_closed;

static void *
linger_close_thread(void *arg __rte_unused)
{
	close(linger_fd);
	linger_closed = true;
	return NULL;
}

static int
mode_extra_fd_linger(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct linger lg = { .l_onoff = 1, .l_linger = 3600 };
	int lst, c, a = -1, s, fds[5], i, one = 1;
	unsigned int attempt;
	char buf[65536];
	struct shm_msg m;
	pthread_t t;
	double end;

	lst = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lst < 0 || bind(lst, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(lst, (struct sockaddr *)&sa, &sl) < 0 ||
	    listen(lst, 8) < 0)
		return EXIT_SETUP;
	memset(buf, 'x', sizeof(buf));
	for (attempt = 0; attempt < 5 && !quit; attempt++) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return EXIT_SETUP;
		a = accept(lst, NULL, NULL);   /* never read */
		fcntl(c, F_SETFL, O_NONBLOCK);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while (send(c, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		for (i = 0; i < 4; i++)
			fds[i] = memfd_sized(4096, SEALS);
		fds[4] = c;
		s = link_connect(opt.func);
		if (s < 0)
			return EXIT_SETUP;
		hello_fill(&m, opt.name, 16, 4096);
		/* --variant empty-first: an empty record before it (the
		 * DPU's look at the first record then sees no fds) */
		if (opt.variant != NULL && strcmp(opt.variant, "empty-first") == 0)
			(void)!send(s, "", 0, MSG_NOSIGNAL);
		send_fds(s, &m, sizeof(m), fds, 5);
		for (i = 0; i < 4; i++)
			close(fds[i]);
		/* our copy closed at once (a thread: should the DPU have
		 * taken it first, ours would be the close that waits) */
		linger_fd = c;
		linger_closed = false;
		pthread_create(&t, NULL, linger_close_thread, NULL);
		end = now_s() + 1;
		while (!linger_closed && now_s() < end)
			pause_us(1000);
		if (linger_closed) {
			pthread_join(t, NULL);
			say("extra-fd-linger: a lingering TCP socket sent as the fifth fd of a first message (attempt %u), our copy closed",
				attempt + 1);
			say("armed");
			hold(NULL, NULL);
			close(s);
			close(a);
			close(lst);
			return 0;
		}
		/* the DPU closed its copy first: ours waits; try again */
		pthread_detach(t);
		close(a);      /* a reset: that close ends */
		close(s);
	}
	return EXIT_SETUP;
}

/* ---- data-peer: a correct client of the data sample, written from its
 * guide, that posts its buffer only on SIGUSR1 (a slow host). Exit 0 when
 * the exchange completed with the expected text, 1 otherwise. ---- */

static int
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

/* ---- fd-leak: packets of 0 bytes carrying an fd (SOCK_SEQPACKET
 * delivers the fd with an empty record), before HELLO; then hold ---- */

static int
mode_fd_leak(void)
{
	unsigned int i, closed = 0;
	struct shm_msg m;
	int fd = memfd_sized(4096, SEALS);

	if (fd < 0)
		return EXIT_SETUP;
	msg_init(&m, SHM_MSG_HELLO);
	for (i = 0; i < opt.rounds && !quit; i++) {
		int s = link_connect(opt.func);

		if (s < 0) {
			pause_us(1000);
			continue;
		}
		send_fds(s, &m, 0, &fd, 1);
		closed += wait_eof(s, 5);
		close(s);
	}
	say("fd-leak: %u empty packets with an fd sent, %u sockets closed by the DPU",
		i, closed);
	say("armed");
	hold(NULL, NULL);
	close(fd);
	return 0;
}

/* ---- perf-hog: connections whose BEGIN asks the perf DPU for the most
 * queues the tool allows (its own consumers: memfds), held ---- */

static int
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

static int
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

static int
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

static int
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

/* ---- hog-fp: many BEGINs with the largest sizes the tool takes:
 * memory the DPU allocates for us ---- */

/* ================================================================ main */

static void
usage(void)
{
	fprintf(stderr,
		"usage: hostile_host MODE --path DIR [--func F] [--name S] [--app ctrl|perf|data]\n"
		"  modes: silent hello-garbage fd-race consumer-race proto-garbage\n"
		"         log-inject churn sigpipe never-read never-post claim-hold\n"
		"         rewrite fp-garbage announce-flood unread-churn consumer-churn\n"
		"         conn-hog fd-exhaust amplify log-flood data-peer fd-leak\n"
		"         perf-hog begin big-copy connect-flood refused-stream\n"
		"         violate-cycle unread-accept extra-fd-linger\n");
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "func", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "app", required_argument, NULL, 'a' },
		{ "diskdir", required_argument, NULL, 'D' },
		{ "hold", required_argument, NULL, 'H' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "conns", required_argument, NULL, 'c' },
		{ "consumers", required_argument, NULL, 'C' },
		{ "mem-mb", required_argument, NULL, 'm' },
		{ "socks", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "queues", required_argument, NULL, 'q' },
		{ "refresh", no_argument, NULL, 'R' },
		{ "no-legal", no_argument, NULL, 'L' },
		{ "variant", required_argument, NULL, 'V' },
		{ "then", required_argument, NULL, 'T' },
		{ "first-id", required_argument, NULL, 'I' },
		{ "test", required_argument, NULL, 'X' },
		{ "text", required_argument, NULL, 't' },
		{ "expect", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int (*fn)(void);
	} modes[] = {
		{ "silent", mode_silent },
		{ "connect-flood", mode_connect_flood },
		{ "refused-stream", mode_refused_stream },
		{ "hello-garbage", mode_hello_garbage },
		{ "fd-race", mode_fd_race },
		{ "consumer-race", mode_consumer_race },
		{ "proto-garbage", mode_proto_garbage },
		{ "log-inject", mode_log_inject },
		{ "churn", mode_churn },
		{ "sigpipe", mode_sigpipe },
		{ "never-read", mode_never_read },
		{ "never-post", mode_never_post },
		{ "claim-hold", mode_claim_hold },
		{ "rewrite", mode_rewrite },
		{ "fp-garbage", mode_fp_garbage },
		{ "announce-flood", mode_announce_flood },
		{ "unread-churn", mode_unread_churn },
		{ "big-copy", mode_big_copy },
		{ "consumer-churn", mode_consumer_churn },
		{ "conn-hog", mode_conn_hog },
		{ "fd-exhaust", mode_fd_exhaust },
		{ "amplify", mode_amplify },
		{ "log-flood", mode_log_flood },
		{ "data-peer", mode_data_peer },
		{ "fd-leak", mode_fd_leak },
		{ "perf-hog", mode_perf_hog },
		{ "begin", mode_begin },
		{ "violate-cycle", mode_violate_cycle },
		{ "unread-accept", mode_unread_accept },
		{ "extra-fd-linger", mode_extra_fd_linger },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct rlimit rl;
	int o, rc = -1;
	unsigned int i;

	if (argc < 2) {
		usage();
		return EXIT_SETUP;
	}
	opt.mode = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'p': opt.path = optarg; break;
		case 'f': opt.func = optarg; break;
		case 'n': opt.name = optarg; break;
		case 'a': opt.app = optarg; break;
		case 'D': opt.diskdir = optarg; break;
		case 'H': opt.hold = atof(optarg); break;
		case 'r': opt.rounds = (unsigned int)atoi(optarg); break;
		case 'c': opt.conns = (unsigned int)atoi(optarg); break;
		case 'C': opt.consumers = (unsigned int)atoi(optarg); break;
		case 'm': opt.mem_mb = (unsigned int)atoi(optarg); break;
		case 's': opt.socks = (unsigned int)atoi(optarg); break;
		case 'q': opt.queues = (unsigned int)atoi(optarg); break;
		case 'R': opt.refresh = true; break;
		case 'L': opt.no_legal = true; break;
		case 'V': opt.variant = optarg; break;
		case 'T': opt.then = optarg; break;
		case 'I': opt.first_id = (unsigned int)atoi(optarg); break;
		case 'X': opt.test = (unsigned int)atoi(optarg); break;
		case 'z': opt.size = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': opt.text = optarg; break;
		case 'e': opt.expect = optarg; break;
		default: usage(); return EXIT_SETUP;
		}
	}
	if (opt.path == NULL) {
		usage();
		return EXIT_SETUP;
	}
	if (opt.name == NULL)
		opt.name = strcmp(opt.app, "perf") == 0 ? "comch_perf" :
			strcmp(opt.app, "data") == 0 ? "comch_data_sample" :
			"comch_ctrl_sample";
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* many sockets and memfds */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < RTE_DIM(modes); i++)
		if (strcmp(opt.mode, modes[i].name) == 0)
			rc = modes[i].fn();
	if (rc < 0) {
		usage();
		return EXIT_SETUP;
	}
	if (rc == 0 && findings != 0)
		rc = EXIT_FINDING;
	say("exit %d (%u findings)", rc, findings);
	return rc;
}
