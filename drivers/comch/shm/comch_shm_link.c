/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: the link socket and what crosses it. Protocol messages with
 * fd passing (sent here; received, with every fd the peer sends disarmed,
 * in comch_shm_fd.c), the memfds both sides share and the checks of those
 * the peer sends, the geometry both sides derive from the negotiated
 * values, the outbox of messages the peer has not read yet, and refusing
 * a connection whose peer broke the protocol. Nothing here runs on the
 * message path.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/mempolicy.h>
#include <linux/sockios.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_memory.h>

#include "comch_shm_priv.h"

/* Default: what a user must act on (NOTICE and above); routine events
 * (connects, clean closes, retries) are DEBUG, the rest INFO. */
RTE_LOG_REGISTER(comch_shm_logtype, pmd.comch.shm, NOTICE);

const char *
shm_dev_name(const struct rte_comch_conn *conn)
{
	struct rte_comch_dev *dev = rte_comch_pmd_dev(conn->dev_id);

	return dev != NULL ? dev->data->dev_name : "?";
}

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

/* Place a fresh mapping's pages on @p socket_id (preferred: a full node
 * falls back to another rather than failing the touch). */
static int
shm_place(void *p, size_t size, int socket_id)
{
	unsigned long mask[(RTE_MAX_NUMA_NODES + 63) / 64] = { 0 };

	if (socket_id == SOCKET_ID_ANY)
		return 0;
	if (socket_id < 0 || socket_id >= RTE_MAX_NUMA_NODES)
		return -EINVAL;
	mask[socket_id / 64] = 1UL << (socket_id % 64);
	if (syscall(__NR_mbind, p, size, MPOL_PREFERRED, mask,
			(unsigned long)RTE_MAX_NUMA_NODES + 1, 0) < 0)
		return errno == ENOSYS ? 0 : -errno; /* no NUMA: one node */
	return 0;
}

int
shm_memfd_create(const char *tag, size_t size, int socket_id, int *fd,
		void **base)
{
	int mfd, ret;
	void *p;

	mfd = memfd_create(tag, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		return -errno;
	if (!shm_fd_headroom(mfd, 0)) {
		close(mfd);
		return -EMFILE;
	}
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
	/* Before the first touch: pages go where they are first touched. */
	ret = shm_place(p, size, socket_id);
	if (ret < 0) {
		munmap(p, size);
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
 *
 * The order matters: the peer keeps the file and may resize it until it
 * seals it. Seals are read first: a seal is never removed, so once
 * F_SEAL_SHRINK and F_SEAL_GROW are seen the size read after them is the
 * size for good. (Reading the size first let a peer pass the size check
 * with the right size, then shrink the file to 0 and seal it before the
 * seal check: the first access then died with SIGBUS.) The kind of file
 * (regular, on tmpfs) never changes, so it may be checked at any point.
 * A seal the peer adds later (F_SEAL_WRITE, F_SEAL_FUTURE_WRITE) can only
 * make our mmap() fail, which refuses the fd too; once we have a writable
 * shared mapping the kernel refuses F_SEAL_WRITE.
 */
int
shm_fd_check(int fd, uint64_t size, char *why, size_t why_len)
{
	const int need = F_SEAL_SHRINK | F_SEAL_GROW;
	struct statfs sfs;
	struct stat st;
	int seals;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & need) != need) {
		snprintf(why, why_len, "region is not sealed against resizing");
		return -EPROTO;
	}
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
		ret = -errno;
		snprintf(why, why_len, "cannot map region: %s", strerror(-ret));
		/* The peer's doing (it sealed the file against writing), or
		 * ours (out of memory or address space). */
		return ret == -EPERM || ret == -EACCES ? -EPROTO : ret;
	}
	*base = p;
	return 0;
}

size_t
shm_cons_ring_size(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		(size_t)rte_align32pow2(depth) * sizeof(struct shm_post_slot),
		(size_t)sysconf(_SC_PAGESIZE));
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

/* Records read from a socket before it is closed: more than a socket
 * buffer of short records holds (about 300 at the default size). */
#define SHM_DRAIN_RECORDS_MAX 1024

/* Take out what the peer left on link socket @p sock before it is closed
 * (see inside). */
void
shm_sock_drain_peer(int sock, bool shut)
{
	char b[sizeof(struct shm_msg)];
	unsigned int n;

	/* Closing a UNIX socket with unread data resets the peer
	 * (ECONNRESET), and a reset is reported before the data the peer
	 * has not read yet, such as our REJECT: drain first. Shut down for
	 * reading first (@p shut), the peer can add nothing meanwhile; a
	 * client refused as it connects only once drained: it may not have
	 * sent its HELLO yet, and that send would fail before it read why.
	 * Records without fds are read and dropped, a socket buffer's worth
	 * at most (a peer could keep sending). fds would be dropped by the
	 * kernel in this thread, and the last close of a peer's socket can
	 * wait for as long as the peer likes: whatever is still queued once
	 * the socket is shut down (a record with fds, one behind a pending
	 * error or an empty record, one sent after the drain) is taken
	 * apart as the fds of a message are (shm_sock_take_apart(): each
	 * received and disarmed, within what this process may hold past
	 * the fds EAL's interrupt thread needs). */
	if (shut)
		(void)shutdown(sock, SHUT_RD);
	for (n = 0; n < SHM_DRAIN_RECORDS_MAX; n++) {
		if (shm_record_has_fds(sock) != 0 ||
		    recv(sock, b, sizeof(b), MSG_DONTWAIT) <= 0)
			break;
	}
	(void)shutdown(sock, SHUT_RD);
	if (shm_sock_empty(sock) || shm_sock_take_apart(sock))
		return;
	/* Short of fds (or past the budget): as before, the rest is read
	 * without room for fds, whose last close may then wait here (the
	 * trust model says so). Handing the socket to the reaper instead
	 * closed it later than its owner counts on (a client out of fds
	 * got a reset instead of its REJECT; test_crash counted the fds
	 * of a stopped client before the reaper closed them). */
	for (n = 0; n < SHM_DRAIN_RECORDS_MAX; n++) {
		ssize_t r = recv(sock, b, sizeof(b), MSG_DONTWAIT);

		if (r < 0 ? errno != ECONNRESET && errno != EPIPE :
		    r == 0 && shm_sock_empty(sock))
			break;
	}
}

void
shm_sock_close(int sock, bool shut)
{
	shm_sock_drain_peer(sock, shut);
	close(sock);
}

/* Whether the peer has not read all we sent on @p sock. */
bool
shm_sock_unread_out(int sock)
{
	int unread;

	return ioctl(sock, SIOCOUTQ, &unread) == 0 && unread > 0;
}


/* ------------------------------------------------------ log lines */

bool
shm_ratelimit_ok(struct shm_ratelimit *rl, const char *what)
{
	uint64_t now = rte_get_timer_cycles();
	uint32_t left_out = 0;
	bool ok;

	rte_spinlock_lock(&rl->lock);
	if (now >= rl->window_end) {
		left_out = rl->suppressed;
		rl->window_end = now + rte_get_timer_hz();
		rl->in_window = 0;
		rl->suppressed = 0;
	}
	ok = rl->in_window < SHM_LOG_BURST;
	if (ok)
		rl->in_window++;
	else
		rl->suppressed++;
	rte_spinlock_unlock(&rl->lock);
	if (left_out != 0)
		SHM_LOG(WARNING, "%s: %u more like this in the last second, not logged",
			what, left_out);
	return ok;
}

/* Whether a line about what the peer of @p sc did may be logged: per host
 * function on the DPU (a host that breaks one connection after another,
 * or kicks for nothing on many, would otherwise write lines by the
 * thousand a second); the DPU's own lines on the host side. */
bool
shm_conn_log_ok(const struct shm_conn *sc)
{
	static struct shm_ratelimit from_dpu;

	return shm_ratelimit_ok(sc->server != NULL ? &sc->server->func->blame :
			&from_dpu, "lines about what a connection's peer did");
}

void
shm_sanitize(char *s, size_t size)
{
	size_t i;

	s[size - 1] = '\0';
	for (i = 0; s[i] != '\0'; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			s[i] = '?';
}

/* --------------------------------------------------- refusals */

void
shm_conn_refuse(struct shm_conn *sc, const char *fmt, ...)
{
	char why[SHM_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (shm_conn_log_ok(sc))
		SHM_LOG(ERR, "%s: connection %u: malformed or unexpected message from the peer: %s; closing it",
			shm_dev_name(sc->conn), sc->conn->id, why);
	shm_conn_break(sc, SHM_BROKEN_LOGGED);
}

void
shm_conn_fail_local(struct shm_conn *sc, int err, const char *what)
{
	if (shm_conn_log_ok(sc))
		SHM_LOG(ERR, "%s: connection %u: this process %s (%s): it cannot follow the peer; closing the connection",
			shm_dev_name(sc->conn), sc->conn->id, what,
			strerror(-err));
	__atomic_store_n(&sc->broken_why, SHM_BROKEN_LOGGED, __ATOMIC_RELAXED);
	__atomic_store_n(&sc->broken, err, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------- outbox */

static void
shm_outbox_free(struct shm_outbox_entry *e)
{
	int i;

	for (i = 0; i < e->nfds; i++)
		close(e->fds[i]);
	free(e);
}

/*
 * Whether a message with fds may go to the socket now: only while the
 * peer has read all but SHM_UNREAD_MAX bytes of what we sent. The kernel
 * holds the fds of unread messages in flight, counted against this
 * user's RLIMIT_NOFILE (unless the process has CAP_SYS_RESOURCE or
 * CAP_SYS_ADMIN; past it every send with fds fails, ETOOMANYREFS): a peer
 * that does not read keeps a few here and the rest waits in the outbox,
 * where an announcement withdrawn meanwhile is taken back.
 */
#define SHM_UNREAD_MAX 4096

static bool
shm_sock_fds_may_go(int sock, int nfds)
{
	int unread;

	return nfds == 0 || ioctl(sock, SIOCOUTQ, &unread) < 0 ||
		unread < SHM_UNREAD_MAX;
}

/* Under outbox_lock: send from the head while the socket takes it. */
static int
shm_outbox_push(struct shm_conn *sc)
{
	struct shm_outbox_entry *e;
	int ret;

	while ((e = STAILQ_FIRST(&sc->outbox)) != NULL) {
		if (!shm_sock_fds_may_go(sc->sock, e->nfds))
			return 0;
		ret = shm_msg_send_fds(sc->sock, &e->msg, e->fds, e->nfds);
		/* the peer has not read: its queue is full, or it holds as
		 * many of our fds unread as the kernel allows */
		if (ret == -EAGAIN || ret == -ETOOMANYREFS)
			return 0;
		STAILQ_REMOVE_HEAD(&sc->outbox, next);
		sc->outbox_len--;
		shm_outbox_free(e);
		if (ret < 0)
			return ret; /* the peer is gone: the poll sees EOF */
	}
	return 0;
}

int
shm_conn_post_locked(struct shm_conn *sc, const struct shm_msg *msg,
		const int *fds, int nfds)
{
	struct shm_outbox_entry *e;
	int ret = 0, i;

	if (shm_conn_down(sc) || sc->sock < 0) {
		ret = -ECONNRESET;
		goto out;
	}
	if (STAILQ_EMPTY(&sc->outbox) && shm_sock_fds_may_go(sc->sock, nfds)) {
		ret = shm_msg_send_fds(sc->sock, msg, fds, nfds);
		if (ret != -EAGAIN && ret != -ETOOMANYREFS)
			goto out;
	}
	if (sc->outbox_len >= SHM_OUTBOX_MAX) {
		shm_conn_refuse(sc, "the peer does not read its link socket (%u messages wait)",
			sc->outbox_len);
		ret = -ECONNRESET;
		goto out;
	}
	/* Copies of fds wait only while the process keeps its headroom: a
	 * peer that does not read must not take the DPU's last fds. */
	if (nfds > 0 && !shm_fd_headroom(fds[0], (unsigned int)nfds)) {
		ret = -EMFILE;
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	e->msg = *msg;
	for (i = 0; i < nfds; i++) {
		e->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
		if (e->fds[i] < 0) {
			ret = -errno;
			shm_outbox_free(e);
			goto out;
		}
		e->nfds++;
	}
	STAILQ_INSERT_TAIL(&sc->outbox, e, next);
	sc->outbox_len++;
	ret = 0;
out:
	return ret;
}

bool
shm_conn_cancel_add_locked(struct shm_conn *sc, uint32_t consumer_id)
{
	struct shm_outbox_entry *e, *last = NULL, *skip = NULL;
	int i;

	/* The last word queued about it: an ADD not sent yet (any earlier
	 * one was withdrawn by a DEL between them). */
	STAILQ_FOREACH(e, &sc->outbox, next) {
		if ((e->msg.type == SHM_MSG_CONSUMER_ADD ||
		     e->msg.type == SHM_MSG_CONSUMER_DEL) &&
		    e->msg.consumer.consumer_id == consumer_id)
			last = e;
		else if (e->msg.type == SHM_MSG_CONSUMER_SKIP)
			skip = e;
	}
	if (last == NULL || last->msg.type != SHM_MSG_CONSUMER_ADD)
		return false;
	STAILQ_REMOVE(&sc->outbox, last, shm_outbox_entry, next);
	for (i = 0; i < last->nfds; i++)
		close(last->fds[i]);
	/* The peer must still learn the id was used: one SKIP in the
	 * outbox at most, last (later is as true: the highest id says it
	 * for all of them). */
	if (skip != NULL) {
		STAILQ_REMOVE(&sc->outbox, skip, shm_outbox_entry, next);
		consumer_id = RTE_MAX(skip->msg.consumer.consumer_id,
				consumer_id);
		sc->outbox_len--;
		free(skip);
	}
	shm_msg_init(&last->msg, SHM_MSG_CONSUMER_SKIP);
	last->msg.consumer.consumer_id = consumer_id;
	last->nfds = 0;
	STAILQ_INSERT_TAIL(&sc->outbox, last, next);
	return true;
}

void
shm_conn_flush(struct shm_conn *sc, bool drop)
{
	struct shm_outbox_entry *e;

	if (__atomic_load_n(&sc->outbox_len, __ATOMIC_RELAXED) == 0)
		return;
	rte_spinlock_lock(&sc->outbox_lock);
	if (!drop && !shm_conn_down(sc))
		shm_outbox_push(sc);
	else
		while ((e = STAILQ_FIRST(&sc->outbox)) != NULL) {
			STAILQ_REMOVE_HEAD(&sc->outbox, next);
			sc->outbox_len--;
			shm_outbox_free(e);
		}
	rte_spinlock_unlock(&sc->outbox_lock);
}
