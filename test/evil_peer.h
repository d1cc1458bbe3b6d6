/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef EVIL_PEER_H
#define EVIL_PEER_H

/*
 * A host that speaks the comch_shm wire protocol by hand, from the layouts
 * of drivers/comch/shm/comch_shm.h (sizes computed here independently of
 * the driver): for the evil-peer test and the fuzz targets. The DPU side
 * runs in the same process; functions that wait for it poll its server.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_comch.h>
#include <rte_common.h>

#include "comch_shm.h"
#include "comch_test.h"


struct evil {
	int sock;
	int mb_fd;                 /* our mailbox (the server writes it) */
	void *mb;
	struct shm_ring_geom rx;   /* our queue as declared */
	void *srv_mb;              /* the server's mailbox (we write it) */
	struct shm_ring_geom tx;
};

/* The mailbox geometry, as the wire contract in comch_shm.h states it
 * (computed here independently of the driver). */
static inline void
shm_ring_geom_init(struct shm_ring_geom *g, uint32_t depth, uint32_t max_msg)
{
	uint64_t ring = rte_align32pow2(depth);

	g->depth = depth;
	g->mask = (uint32_t)ring - 1;
	g->slot_size = RTE_ALIGN_CEIL(sizeof(struct shm_ctrl_slot) + max_msg, 64);
	g->max_msg = max_msg;
	g->mailbox_size = RTE_ALIGN_CEIL(sizeof(struct shm_mailbox_hdr) +
			ring * g->slot_size, (uint64_t)sysconf(_SC_PAGESIZE));
}

static inline int
sealed_memfd(size_t size, bool seal, int *fd, void **map)
{
	*fd = memfd_create("evil", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*fd < 0 || ftruncate(*fd, (off_t)size) < 0)
		return -1;
	if (seal && fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		return -1;
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	return *map == MAP_FAILED ? -1 : 0;
}

static inline int
raw_connect(const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/pf0.sock", dir);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

static inline int
raw_send(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds > 8)
		return -1;
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
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static inline void
hello_init(struct shm_msg *m, uint32_t depth, uint64_t size)
{
	memset(m, 0, sizeof(*m));
	m->magic = SHM_PROTO_MAGIC;
	m->version = SHM_PROTO_VERSION;
	m->type = SHM_MSG_HELLO;
	snprintf(m->hello.server_name, sizeof(m->hello.server_name), "evil");
	m->hello.max_msg_size = SHM_DEFAULT_MSG_SIZE;
	m->hello.recv_queue_len = depth;
	m->hello.mailbox_size = size;
}

/* Receive the server's answer: ACCEPT (mapping its mailbox) or REJECT.
 * Returns the message type, or -1 if the socket closed. */
static inline int
raw_answer(struct evil *e, struct rte_comch_server *srv, int *reject_err)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct shm_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	/* failure guard: the DPU's interrupt thread answers handshakes, and
	 * may wait for a CPU a while on a busy machine */
	uint64_t dl = test_deadline(TEST_GUARD_S);
	ssize_t n;
	int fd = -1;

	do {
		rte_comch_server_poll(srv);
		n = recvmsg(e->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EAGAIN && !test_expired(dl));
	/* Linux can report the end of a SEQPACKET stream before the last
	 * message the peer queued as it closed: look once more */
	if (n == 0) {
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(e->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	}
	if (n != (ssize_t)sizeof(m))
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	if (m.type == SHM_MSG_REJECT) {
		*reject_err = m.reject.err;
		if (fd >= 0)
			close(fd);
		return SHM_MSG_REJECT;
	}
	if (m.type != SHM_MSG_ACCEPT || fd < 0)
		return -1;
	shm_ring_geom_init(&e->tx, m.accept.recv_queue_len, SHM_DEFAULT_MSG_SIZE);
	e->srv_mb = mmap(NULL, e->tx.mailbox_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, 0);
	close(fd);
	return e->srv_mb == MAP_FAILED ? -1 : SHM_MSG_ACCEPT;
}

/* A complete, valid handshake with server "evil" of the DPU at @p dir
 * (the server has reported the connection when this returns),
 * whose poll is driven by this function. */
static inline int
evil_open(struct evil *e, const char *dir, struct rte_comch_server *srv)
{
	struct shm_msg m;
	int err;

	memset(e, 0, sizeof(*e));
	shm_ring_geom_init(&e->rx, 16, SHM_DEFAULT_MSG_SIZE);
	e->sock = raw_connect(dir);
	if (e->sock < 0 || sealed_memfd(e->rx.mailbox_size, true, &e->mb_fd,
			&e->mb) < 0)
		return -1;
	hello_init(&m, 16, e->rx.mailbox_size);
	if (raw_send(e->sock, &m, sizeof(m), &e->mb_fd, 1) < 0)
		return -1;
	return raw_answer(e, srv, &err) == SHM_MSG_ACCEPT ? 0 : -1;
}

static inline void
evil_close(struct evil *e)
{
	if (e->sock >= 0)
		close(e->sock);
	if (e->mb != NULL && e->mb != MAP_FAILED)
		munmap(e->mb, e->rx.mailbox_size);
	if (e->mb_fd > 0)
		close(e->mb_fd);
	if (e->srv_mb != NULL && e->srv_mb != MAP_FAILED)
		munmap(e->srv_mb, e->tx.mailbox_size);
	memset(e, 0, sizeof(*e));
	e->sock = -1;
}

static inline int
send_consumer_add(struct evil *e, uint32_t id, uint32_t nb_posts,
		uint32_t imm, uint64_t ring_size, uint64_t mem_size,
		const int *fds, int nfds)
{
	struct shm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = SHM_PROTO_MAGIC;
	m.version = SHM_PROTO_VERSION;
	m.type = SHM_MSG_CONSUMER_ADD;
	m.consumer.consumer_id = id;
	m.consumer.nb_posts = nb_posts;
	m.consumer.max_imm_len = imm;
	m.consumer.ring_size = ring_size;
	m.consumer.mem_size = mem_size;
	return raw_send(e->sock, &m, sizeof(m), fds, nfds);
}

static inline size_t
ring_size_of(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		(size_t)rte_align32pow2(depth) * sizeof(struct shm_post_slot),
		(size_t)sysconf(_SC_PAGESIZE));
}


#endif /* EVIL_PEER_H */
