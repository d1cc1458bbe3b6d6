/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: options, output, wire geometry, the socket.
 */

#include "hostile_host.h"

struct hostile_options opt = {
	.first_id = 1, .text = "Hello from the host",
	.expect = "Hello from the DPU",
	.func = "pf0", .app = "ctrl", .diskdir = ".", .hold = 10,
	.then = "none", .rounds = 1, .conns = 1, .consumers = 1, .mem_mb = 1, .socks = 32,
	.size = 64, .queues = 1,
};

volatile sig_atomic_t quit, phase2;
unsigned int findings;

void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		phase2 = 1;
	else
		quit = 1;
}

void
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

void
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

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
pause_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Hold for opt.hold seconds (or until SIGTERM), calling @p tick. */
void
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

uint64_t
page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The mailbox geometry as the driver guide states it. */
void
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

uint64_t
cons_ring_size(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		rte_align64pow2(depth) * sizeof(struct shm_post_slot),
		page_size());
}

int
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


void
msg_init(struct shm_msg *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->magic = SHM_PROTO_MAGIC;
	m->version = SHM_PROTO_VERSION;
	m->type = type;
}

/* ------------------------------------------------------------- socket */

int
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

int
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
ssize_t
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

void
close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Wait for the socket to end (EOF or error) for at most @p sec seconds,
 * discarding what arrives. True if it ended. */
bool
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

/* EOF can be seen without reading the socket: POLLHUP. */
bool
sock_hung_up(int s)
{
	struct pollfd p = { .fd = s, .events = 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}
