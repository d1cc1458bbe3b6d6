/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The link socket and the mailboxes: protocol messages with fd passing,
 * memfd mailboxes, and the DPU side's listening sockets served by the EAL
 * interrupt thread (accept, read HELLO, route it to the named server's
 * inbox or refuse it). Nothing here runs on the message path.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "comch_shm_priv.h"


void
shm_ring_geom_init(struct shm_ring_geom *g, uint32_t depth, uint32_t max_msg)
{
	uint64_t ring_size = rte_align32pow2(depth);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	g->depth = depth;
	g->mask = (uint32_t)ring_size - 1;
	g->slot_size = RTE_ALIGN_CEIL(sizeof(struct shm_ctrl_slot) + max_msg,
			RTE_CACHE_LINE_MIN_SIZE);
	g->max_msg = max_msg;
	g->mailbox_size = RTE_ALIGN_CEIL(sizeof(struct shm_mailbox_hdr) +
			ring_size * g->slot_size, page);
}

int
shm_memfd_create(const char *tag, size_t size, int *fd, void **base)
{
	int mfd, ret;
	void *p;

	mfd = memfd_create(tag, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		return -errno;
	if (ftruncate(mfd, (off_t)size) < 0 ||
	    fcntl(mfd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		ret = -errno;
		close(mfd);
		return ret;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		close(mfd);
		return ret;
	}
	*fd = mfd;
	*base = p;
	return 0;
}

/*
 * Only plain memfds (shmem) are accepted from a peer: their size is sealed,
 * and a page the peer punches out of one is simply zero-filled again when
 * touched. A hugetlbfs file could make a touch fault with SIGBUS when the
 * huge page pool is empty, and a file on disk could be truncated by anyone
 * who can open it.
 */
int
shm_fd_check(int fd, uint64_t size, char *why, size_t why_len)
{
	const int need = F_SEAL_SHRINK | F_SEAL_GROW;
	struct statfs sfs;
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "fd is not a regular file");
		return -EPROTO;
	}
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC) {
		snprintf(why, why_len, "fd is not a memfd (file system 0x%lx)",
			(unsigned long)sfs.f_type);
		return -EPROTO;
	}
	if ((uint64_t)st.st_size != size) {
		snprintf(why, why_len, "region is %jd bytes, %" PRIu64 " expected",
			(intmax_t)st.st_size, size);
		return -EPROTO;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & need) != need) {
		snprintf(why, why_len, "region is not sealed against resizing");
		return -EPROTO;
	}
	return 0;
}

int
shm_map_sealed(int fd, uint64_t size, void **base, char *why, size_t why_len)
{
	void *p;
	int ret;

	ret = shm_fd_check(fd, size, why, why_len);
	if (ret < 0)
		return ret;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_len, "cannot map region: %s", strerror(errno));
		return -EPROTO;
	}
	*base = p;
	return 0;
}

void
shm_msg_init(struct shm_msg *msg, enum shm_msg_type type)
{
	memset(msg, 0, sizeof(*msg));
	msg->magic = SHM_PROTO_MAGIC;
	msg->version = SHM_PROTO_VERSION;
	msg->type = type;
}

int
shm_msg_send(int sock, const struct shm_msg *msg, int fd)
{
	return shm_msg_send_fds(sock, msg, &fd, fd >= 0 ? 1 : 0);
}

int
shm_msg_send_fds(int sock, const struct shm_msg *msg, const int *fds,
		int nfds)
{
	char cbuf[CMSG_SPACE(SHM_MSG_FDS_MAX * sizeof(int))];
	struct iovec iov = {
		.iov_base = (void *)(uintptr_t)msg,
		.iov_len = sizeof(*msg),
	};
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;
	ssize_t n;

	shm_protocol_checks();
	if (nfds < 0 || nfds > SHM_MSG_FDS_MAX)
		return -EINVAL;
	if (nfds > 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, (size_t)nfds * sizeof(int));
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(*msg))
		return -EIO;
	return 0;
}

int
shm_msg_send_wait(int sock, const struct shm_msg *msg, const int *fds,
		int nfds, int timeout_ms)
{
	struct pollfd pfd = { .fd = sock, .events = POLLOUT };
	int ret;

	while ((ret = shm_msg_send_fds(sock, msg, fds, nfds)) == -EAGAIN) {
		if (timeout_ms <= 0)
			break;
		/* Control path only: wait a little for the peer to read. */
		ret = poll(&pfd, 1, RTE_MIN(timeout_ms, 10));
		timeout_ms -= 10;
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
	return ret;
}

/*
 * Receive one protocol message. The result is a private copy whose header
 * is checked; payload fields are checked by the caller for its type, and
 * so is the number of fds. Returns 0 (message in *msg, *nfds fds in fds),
 * -EAGAIN (nothing yet), -ECONNRESET (EOF or socket error) or -EPROTO
 * (malformed: wrong size, truncated control data, more than
 * SHM_MSG_FDS_MAX fds, bad magic/version/type; any fds received are
 * closed).
 */
int
shm_msg_recv(int sock, struct shm_msg *msg, int fds_out[SHM_MSG_FDS_MAX],
		int *nfds_out)
{
	/* Room for SHM_MSG_FDS_MAX fds only: more sets MSG_CTRUNC (the kernel
	 * closes what did not fit). */
	char cbuf[CMSG_SPACE(SHM_MSG_FDS_MAX * sizeof(int))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(*msg) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fds[SHM_MSG_FDS_MAX];
	int nfds = 0, i, ret = 0;
	ssize_t n;

	*nfds_out = 0;
	do {
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ?
			-EAGAIN : -ECONNRESET;
	if (n == 0)
		return -ECONNRESET;

	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg != NULL;
	     cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		size_t len, k;

		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS ||
		    cmsg->cmsg_len < CMSG_LEN(0))
			continue;
		len = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < len; k++) {
			int f;

			memcpy(&f, CMSG_DATA(cmsg) + k * sizeof(int),
				sizeof(int));
			if (nfds < SHM_MSG_FDS_MAX)
				fds[nfds++] = f;
			else
				close(f);
		}
	}

	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    n != (ssize_t)sizeof(*msg) ||
	    msg->magic != SHM_PROTO_MAGIC ||
	    msg->version != SHM_PROTO_VERSION ||
	    msg->type < SHM_MSG_HELLO || msg->type > SHM_MSG_TYPE_MAX)
		ret = -EPROTO;
	if (ret < 0) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return ret;
	}
	for (i = 0; i < nfds; i++)
		fds_out[i] = fds[i];
	*nfds_out = nfds;
	return 0;
}

void
shm_send_reject(int sock, int err, const char *fmt, ...)
{
	struct shm_msg msg;
	va_list ap;
	int ret;

	shm_msg_init(&msg, SHM_MSG_REJECT);
	msg.reject.err = err;
	va_start(ap, fmt);
	vsnprintf(msg.reject.reason, sizeof(msg.reject.reason), fmt, ap);
	va_end(ap);
	ret = shm_msg_send(sock, &msg, -1);
	if (ret < 0 && ret != -EPIPE && ret != -ECONNRESET)
		SHM_LOG(DEBUG, "cannot tell a client why it is refused (%s): %s",
			strerror(-ret), msg.reject.reason);
}

void
shm_sock_close(int sock)
{
	char b[sizeof(struct shm_msg)];

	/* Closing a UNIX socket with unread data resets the peer
	 * (ECONNRESET), and a reset is reported before the data the peer
	 * has not read yet, such as our REJECT: drain first. */
	while (recv(sock, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
	close(sock);
}

/* ----------------------------------------------- DPU: listen and route */

void
shm_pending_free(struct shm_pending *p)
{
	if (p->mailbox_fd >= 0)
		close(p->mailbox_fd);
	if (p->sock >= 0)
		shm_sock_close(p->sock);
	rte_intr_instance_free(p->intr);
	free(p);
}

static struct shm_server *
shm_rep_find_server(struct shm_rep *rep, const char *name)
{
	struct shm_server *ss;

	TAILQ_FOREACH(ss, &rep->servers, next)
		if (strcmp(ss->srv->name, name) == 0)
			return ss;
	return NULL;
}

/* Interrupt thread: a pending socket is readable, expect HELLO. Runs under
 * rep->lock so that shm_rep_close() and the routing never race; once the
 * rep is closing, it leaves the socket to shm_rep_close(). */
static void
shm_hello_cb(void *arg)
{
	struct shm_pending *p = arg;
	struct shm_rep *rep = p->rep;
	struct shm_msg_hello *h = &p->hello.hello;
	struct shm_server *ss;
	int fds[SHM_MSG_FDS_MAX];
	int ret, nfds, i;

	rte_spinlock_lock(&rep->lock);
	if (rep->closing) {
		rte_spinlock_unlock(&rep->lock);
		return;
	}
	ret = shm_msg_recv(p->sock, &p->hello, fds, &nfds);
	if (ret == -EAGAIN) {
		rte_spinlock_unlock(&rep->lock);
		return;
	}
	if (ret == 0 && (p->hello.type != SHM_MSG_HELLO || nfds != 1 ||
	    memchr(h->server_name, '\0', sizeof(h->server_name)) == NULL)) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		ret = -EPROTO;
	}
	TAILQ_REMOVE(&rep->pending, p, next);
	rep->nb_pending--;
	rte_intr_callback_unregister_pending(p->intr, shm_hello_cb, p, NULL);
	if (ret < 0) {
		rte_spinlock_unlock(&rep->lock);
		SHM_LOG(NOTICE, "%s: dropped a client on %s before HELLO: %s",
			rep->dev->cdev->data->dev_name, rep->name,
			ret == -EPROTO ? "malformed message" : "closed");
		shm_pending_free(p);
		return;
	}
	p->mailbox_fd = fds[0];
	ss = shm_rep_find_server(rep, h->server_name);
	if (ss != NULL && ss->accepting) {
		TAILQ_INSERT_TAIL(&ss->inbox, p, next);
		__atomic_store_n(&ss->inbox_len, ss->inbox_len + 1,
				__ATOMIC_RELEASE);
		rte_spinlock_unlock(&rep->lock);
		return;
	}
	rte_spinlock_unlock(&rep->lock);
	SHM_LOG(DEBUG, "%s: client on %s asked for server \"%s\": no such server",
		rep->dev->cdev->data->dev_name, rep->name, h->server_name);
	shm_send_reject(p->sock, ENOENT, "no server \"%s\" on function %s",
			h->server_name, rep->name);
	shm_pending_free(p);
}

/* Interrupt thread: the function's listening socket is readable. */
static void
shm_listen_cb(void *arg)
{
	struct shm_rep *rep = arg;
	struct shm_pending *p;
	int sock;

	for (;;) {
		sock = accept4(rep->listen_fd, NULL, NULL,
				SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (sock < 0)
			return;
		rte_spinlock_lock(&rep->lock);
		if (rep->nb_pending >= SHM_MAX_PENDING) {
			rte_spinlock_unlock(&rep->lock);
			SHM_LOG(WARNING, "%s: %u clients on %s have not said HELLO; refusing more",
				rep->dev->cdev->data->dev_name, SHM_MAX_PENDING,
				rep->name);
			close(sock);
			continue;
		}
		p = calloc(1, sizeof(*p));
		if (p != NULL)
			p->intr = rte_intr_instance_alloc(
					RTE_INTR_INSTANCE_F_PRIVATE);
		if (p == NULL || p->intr == NULL ||
		    rte_intr_fd_set(p->intr, sock) != 0 ||
		    rte_intr_type_set(p->intr, RTE_INTR_HANDLE_EXT) != 0) {
			rte_spinlock_unlock(&rep->lock);
			if (p != NULL)
				rte_intr_instance_free(p->intr);
			free(p);
			close(sock);
			continue;
		}
		p->rep = rep;
		p->sock = sock;
		p->mailbox_fd = -1;
		if (rte_intr_callback_register(p->intr, shm_hello_cb, p) < 0) {
			rte_spinlock_unlock(&rep->lock);
			shm_pending_free(p);
			continue;
		}
		TAILQ_INSERT_TAIL(&rep->pending, p, next);
		rep->nb_pending++;
		rte_spinlock_unlock(&rep->lock);
	}
}

static int
shm_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *s;

	if (rte_strscpy(buf, path, sizeof(buf)) < 0)
		return -ENAMETOOLONG;
	for (s = buf + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Remove a socket file left by a DPU process that died; refuse to steal one
 * that a live process still serves. */
static int
shm_reclaim_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int s, ret;

	if (lstat(sa->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	ret = connect(s, (const struct sockaddr *)sa, sizeof(*sa));
	close(s);
	if (ret == 0)
		return -EADDRINUSE;
	if (unlink(sa->sun_path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int
shm_rep_listen(struct shm_rep *rep)
{
	const char *devname = rep->dev->cdev->data->dev_name;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ret, s;

	ret = shm_mkdir_p(rep->dev->path);
	if (ret < 0) {
		SHM_PROBE_ERR(devname, "cannot create directory %s: %s",
			rep->dev->path, strerror(-ret));
		return ret;
	}
	rte_strscpy(sa.sun_path, rep->sock_path, sizeof(sa.sun_path));
	ret = shm_reclaim_stale(&sa);
	if (ret < 0) {
		SHM_PROBE_ERR(devname, "%s is %s; use another path= or stop the other DPU process",
			rep->sock_path, ret == -EADDRINUSE ?
			"served by another live process" :
			"in the way (not a stale socket)");
		return ret;
	}
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(sa.sun_path, 0600) < 0 || listen(s, 128) < 0) {
		ret = -errno;
		SHM_PROBE_ERR(devname, "cannot listen on %s: %s",
			rep->sock_path, strerror(-ret));
		close(s);
		unlink(sa.sun_path);
		return ret;
	}
	rep->intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (rep->intr == NULL || rte_intr_fd_set(rep->intr, s) != 0 ||
	    rte_intr_type_set(rep->intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(rep->intr, shm_listen_cb, rep) < 0) {
		SHM_PROBE_ERR(devname, "cannot watch %s from the interrupt thread",
			rep->sock_path);
		rte_intr_instance_free(rep->intr);
		rep->intr = NULL;
		close(s);
		unlink(sa.sun_path);
		return -EIO;
	}
	rep->listen_fd = s;
	return 0;
}

void
shm_rep_close(struct shm_rep *rep)
{
	struct shm_pending *p;

	if (rep->intr != NULL) {
		rte_intr_callback_unregister_sync(rep->intr, shm_listen_cb, rep);
		rte_intr_instance_free(rep->intr);
		rep->intr = NULL;
	}
	if (rep->listen_fd >= 0) {
		close(rep->listen_fd);
		unlink(rep->sock_path);
		rep->listen_fd = -1;
	}
	/* The listener is gone, so no new pending socket appears; with
	 * closing set, hello callbacks leave the list alone. Unregistering
	 * waits for a running one to return. */
	rte_spinlock_lock(&rep->lock);
	rep->closing = true;
	rte_spinlock_unlock(&rep->lock);
	while ((p = TAILQ_FIRST(&rep->pending)) != NULL) {
		TAILQ_REMOVE(&rep->pending, p, next);
		rep->nb_pending--;
		rte_intr_callback_unregister_sync(p->intr, shm_hello_cb, p);
		shm_pending_free(p);
	}
}
