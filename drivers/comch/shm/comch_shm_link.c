/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: the link socket and what crosses it. Protocol messages with
 * fd passing, the memfds both sides share and the checks of those the
 * peer sends, the geometry both sides derive from the negotiated values,
 * the outbox of messages the peer has not read yet, and refusing a
 * connection whose peer broke the protocol. Nothing here runs on the
 * message path.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <linux/magic.h>
#include <linux/mempolicy.h>
#include <linux/sockios.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
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


/*
 * How many fds this process has free now, counted up to @p max: the
 * lowest free fd is taken and given back, then the next one above it, and
 * so on, so that at most one is held at any moment. (Counting by taking
 * them all at once, as this once did, could take the last ones while
 * EAL's interrupt thread is between closing its epoll fd and creating the
 * next: it panics then.) @p fd is any fd of ours, duplicated to count.
 * Two system calls an fd counted: called when a client, a mailbox, a
 * consumer or fds come, never on the data path; once under a
 * connection's outbox_lock (copies of an announcement's fds for the
 * outbox), which that connection's poll then waits for (tens of
 * microseconds).
 */
static unsigned int
shm_fds_free(int fd, unsigned int max)
{
	unsigned int n;
	int d, next = 0;

	for (n = 0; n < max; n++) {
		d = fcntl(fd, F_DUPFD_CLOEXEC, next);
		if (d < 0)
			break;
		close(d);
		next = d + 1;
	}
	return n;
}

/* fds that disarms in progress (any thread) may still install: not
 * free for anyone else (shm_fd_disarm()). */
static unsigned int shm_fds_reserved;

/*
 * Whether this process can open @p n more fds and still keep
 * SHM_FD_HEADROOM free. The driver opens an fd on a peer's behalf (a
 * socket, a memfd, fds the peer sends) only while it can, so the process
 * is never left without: EAL's interrupt thread closes and re-creates its
 * epoll instance each time an interrupt source comes or goes, and panics
 * when it cannot.
 */
bool
shm_fd_headroom(int fd, unsigned int n)
{
	unsigned int need = n + SHM_FD_HEADROOM +
		__atomic_load_n(&shm_fds_reserved, __ATOMIC_RELAXED);

	return shm_fds_free(fd, need) == need;
}

/* Whether this process cannot open one more fd now. */
static bool
shm_out_of_fds(void)
{
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EMFILE || errno == ENFILE;
}

/*
 * fds the peer sends, and closing them. close() can wait on whoever holds
 * the other end of a socket: a TCP (or SCTP) socket with SO_LINGER set
 * and data its other end never takes blocks the close for the linger
 * time, and the last close of an AF_UNIX socket releases the fds queued on
 * it, with the same effect for each. A peer could thus stall the thread
 * that closes what it sent (a poll, the EAL interrupt thread) for as long
 * as it likes. So every fd the peer sends is disarmed when it arrives,
 * before anyone may close it: a socket of another family stops lingering
 * (SO_LINGER {1, 0}: its close resets at once); an AF_UNIX socket takes
 * no more (shut down for reading: its other end can no longer send) and
 * gives up what is queued on it now, each fd disarmed and closed the same
 * way, SHM_DISARM_DEPTH levels deep and SHM_DISARM_BUDGET records and fds
 * per message at most (a socket referred to again is taken apart once:
 * its other references only closed), and only while what one receive
 * may install (SHM_DRAIN_FDS_MAX, the control room it has) fits past the
 * fd headroom (shm_fd_headroom()):
 * the free fds are counted when the first socket comes, up to what three
 * levels may hold at once. What is deeper, beyond the budget or past the
 * headroom is closed as it is, and may wait (the trust model says so), as
 * may fds left queued on a link socket we close (shm_sock_close()). A
 * socket of another family goes to the reaper (below). Any other kind of
 * file closes at once, but for a file of a user-space file system (FUSE),
 * whose flush the peer's user could delay: outside the trust model of one
 * user's processes (doc/guides/trust_model.md).
 *
 * What is not received cannot be disarmed: a receive takes at most
 * SHM_MSG_FDS_MAX fds and the kernel drops the rest of a message's fds,
 * in the receiving thread, where such a close would wait. Room for more
 * would let one message take that many of this process's fds at once,
 * past the SHM_FD_HEADROOM kept for EAL's interrupt thread (which panics
 * without one); a process out of fds is the worse failure. So a peer
 * that sends more than four fds in one message, one of them lingering,
 * still stalls the receiving thread (the trust model says so).
 */
/* Levels of sockets within sockets taken apart, and the records, fds and
 * pending connections taken out per message the peer sent (the CPU a
 * peer can make one message cost): beyond either, the rest is closed as
 * it is. */
#define SHM_DISARM_DEPTH 3
#define SHM_DISARM_BUDGET 1024
/* AF_UNIX sockets a disarm remembers having taken apart: a socket a peer
 * refers to many times (a record of 250 copies of one) costs a lookup
 * and a close for each copy after the first. */
#define SHM_DISARM_SEEN 16
/* Room for what a peer may make its socket add to a record besides fds
 * (credentials, timestamps: options it can set on the socket it shares):
 * a truncated control area would have the kernel drop the fds. */
#define SHM_DRAIN_CMSG_EXTRA 512
/* The fds a drain's receive can install at once: the kernel fills all the
 * control room with fds when nothing else takes it. */
#define SHM_DRAIN_CMSG_ROOM (CMSG_SPACE(SHM_MSG_FDS_MAX * sizeof(int)) + \
		SHM_DRAIN_CMSG_EXTRA)
#define SHM_DRAIN_FDS_MAX \
	((SHM_DRAIN_CMSG_ROOM - sizeof(struct cmsghdr)) / sizeof(int))
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

/*
 * The reaper: closes the peer's sockets of families other than AF_UNIX,
 * in a thread of its own. Disarming one (SO_LINGER {1, 0}) is not enough:
 * the peer holds the same socket, can set it lingering again after we
 * did, and close its own copy; our close is then the last and waits for
 * as long as the peer set. Whatever it waits, only the reaper waits. It
 * also breaks a TCP connection off first (connect(AF_UNSPEC): a reset,
 * its queues dropped), so that a close waits only if the peer connects
 * the socket again, fills it and sets it lingering once more in between.
 * No message of the protocol carries such a socket: one that comes ends
 * the peer's connection (-EPROTO) or lay inside an AF_UNIX socket it
 * sent. However many wait (the reaper kept waiting by one the peer won
 * that race for), no other thread closes one: they stay open meanwhile,
 * and a process short of fds refuses new clients (shm_fd_headroom()).
 * Only when memory for the list runs out does the thread that received
 * one close it itself.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	bool started;
	unsigned int n, size;
	int *fds;
} shm_reaper = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.more = PTHREAD_COND_INITIALIZER,
};

static void
shm_reap_close(int fd)
{
	struct linger off = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };

	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, sizeof(off));
	(void)connect(fd, &unspec, sizeof(unspec));
	close(fd);
}

static void *
shm_reaper_main(void *arg __rte_unused)
{
	int fd;

	pthread_mutex_lock(&shm_reaper.lock);
	for (;;) {
		while (shm_reaper.n == 0)
			pthread_cond_wait(&shm_reaper.more, &shm_reaper.lock);
		fd = shm_reaper.fds[--shm_reaper.n];
		pthread_mutex_unlock(&shm_reaper.lock);
		shm_reap_close(fd);
		pthread_mutex_lock(&shm_reaper.lock);
	}
	return NULL;
}

void
shm_fd_reap(int fd)
{
	unsigned int size;
	pthread_t t;
	int *fds;

	pthread_mutex_lock(&shm_reaper.lock);
	if (!shm_reaper.started &&
	    rte_ctrl_thread_create(&t, "comch-reaper", NULL, shm_reaper_main,
			NULL) == 0) {
		pthread_detach(t);
		shm_reaper.started = true;
	}
	if (shm_reaper.n == shm_reaper.size) {
		size = shm_reaper.size != 0 ? 2 * shm_reaper.size : 64;
		fds = realloc(shm_reaper.fds, size * sizeof(*fds));
		if (fds != NULL) {
			shm_reaper.fds = fds;
			shm_reaper.size = size;
		}
	}
	if (shm_reaper.started && shm_reaper.n < shm_reaper.size) {
		shm_reaper.fds[shm_reaper.n++] = fd;
		pthread_cond_signal(&shm_reaper.more);
		fd = -1;
	}
	pthread_mutex_unlock(&shm_reaper.lock);
	if (fd >= 0)
		shm_reap_close(fd);
}

/* fds one level's receive or accept may hold while the next level is
 * taken apart, and all levels at once. */
#define SHM_DISARM_FDS_MAX (SHM_DISARM_DEPTH * (SHM_DRAIN_FDS_MAX + 1))

/* What taking apart one fd the peer sent may still use. */
struct shm_disarm {
	unsigned int budget;	/* records, fds, pending connections */
	unsigned int fds;	/* fds it may hold at once, past the headroom */
	unsigned int reserved;	/* of them, in shm_fds_reserved */
	bool counted;		/* fds known (when the first socket came) */
	unsigned int nb_seen;	/* sockets taken apart (the last ones in seen) */
	ino_t seen[SHM_DISARM_SEEN];
};

/* Whether AF_UNIX socket @p fd (its inode in *@p ino, 0 if unknown) was
 * taken apart whole by this disarm already. */
static bool
shm_disarm_seen(int fd, const struct shm_disarm *d, ino_t *ino)
{
	struct stat st;
	unsigned int i;

	*ino = 0;
	if (fstat(fd, &st) < 0)
		return false;
	*ino = st.st_ino;
	for (i = 0; i < RTE_MIN(d->nb_seen, (unsigned int)SHM_DISARM_SEEN); i++)
		if (d->seen[i] == st.st_ino)
			return true;
	return false;
}

/* Socket @p ino taken apart whole (or the budget is spent): its other
 * copies are only closed. Not when the fds a receive may install ran
 * short (a copy met later, with more room, is taken apart again). */
static void
shm_disarm_done(struct shm_disarm *d, ino_t ino, bool whole)
{
	if (ino != 0 && (whole || d->budget == 0))
		d->seen[d->nb_seen++ % SHM_DISARM_SEEN] = ino;
}

/* Count the fds a disarm may hold at once, past the headroom and what
 * other disarms hold in reserve, and reserve them until it is done. */
static void
shm_disarm_reserve(int fd, struct shm_disarm *d)
{
	unsigned int others, free_fds;

	others = __atomic_load_n(&shm_fds_reserved, __ATOMIC_RELAXED);
	free_fds = shm_fds_free(fd,
			SHM_FD_HEADROOM + others + SHM_DISARM_FDS_MAX);
	d->fds = free_fds > SHM_FD_HEADROOM + others ?
		free_fds - SHM_FD_HEADROOM - others : 0;
	d->reserved = d->fds;
	d->counted = true;
	__atomic_fetch_add(&shm_fds_reserved, d->reserved, __ATOMIC_RELAXED);
}

static bool shm_fd_disarm(int fd, unsigned int depth, struct shm_disarm *d);

/* Disarm and close the fds of a received message's control data. Returns
 * how many there were (of SCM_RIGHTS). */
static unsigned int
shm_cmsg_fds_close(struct msghdr *mh, unsigned int depth, struct shm_disarm *d)
{
	unsigned int n = 0, held = 0;
	struct cmsghdr *cmsg;
	size_t len, k;
	int f;

	/* all of them are held until the last is disarmed */
	for (cmsg = CMSG_FIRSTHDR(mh); cmsg != NULL;
	     cmsg = CMSG_NXTHDR(mh, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    (cmsg->cmsg_type == SCM_RIGHTS ||
		     cmsg->cmsg_type == SCM_PIDFD) &&
		    cmsg->cmsg_len >= CMSG_LEN(0))
			held += (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	held = RTE_MIN(held, d->fds);
	d->fds -= held;
	for (cmsg = CMSG_FIRSTHDR(mh); cmsg != NULL;
	     cmsg = CMSG_NXTHDR(mh, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_len < CMSG_LEN(sizeof(int)))
			continue;
		if (cmsg->cmsg_type == SCM_PIDFD) {
			/* the peer asked for pidfds (SO_PASSPIDFD) */
			memcpy(&f, CMSG_DATA(cmsg), sizeof(int));
			close(f);
			continue;
		}
		if (cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		len = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < len; k++, n++) {
			memcpy(&f, CMSG_DATA(cmsg) + k * sizeof(int),
				sizeof(int));
			if (shm_fd_disarm(f, depth, d))
				shm_fd_reap(f);
			else
				close(f);
		}
	}
	d->fds += held;
	return n;
}

/* Bytes queued on AF_UNIX socket @p sock (of every record: SOCK_STREAM,
 * SOCK_SEQPACKET; of the next only: SOCK_DGRAM), 0 if none or unknown.
 * Records of no bytes do not count: a drain cannot tell them from the
 * end, and stops at one with nothing behind it but such records. */
static int
shm_sock_queued(int sock)
{
	int n = 0;

	if (ioctl(sock, SIOCINQ, &n) < 0)
		return 0;
	return n;
}

/* Whether AF_UNIX socket @p sock, shut down for reading, has nothing
 * queued: a peek without control room installs no fds (it only says that
 * a record carries some: MSG_CTRUNC), and a record of no bytes ahead of
 * others leaves bytes queued. */
static bool
shm_sock_empty(int sock)
{
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	do {
		n = recvmsg(sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	return n == 0 && !(mh.msg_flags & MSG_CTRUNC) &&
		shm_sock_queued(sock) == 0;
}

/* Take what is queued on AF_UNIX socket @p sock, disarming and closing
 * its fds, within what @p d may still use (a peer's socket is shut down
 * for reading first: nothing more comes). */
static void
shm_sock_drain(int sock, unsigned int depth, struct shm_disarm *d)
{
	char cbuf[SHM_DRAIN_CMSG_ROOM];
	char b[4096];
	unsigned int nfds;
	int queued, last = -1;
	ssize_t n;

	/* A receive installs as many fds as its control room holds, which
	 * is more than a protocol message's four: made only while that many
	 * fit past the headroom. */
	while (d->budget > 0 && d->fds >= SHM_DRAIN_FDS_MAX) {
		struct iovec iov = { .iov_base = b, .iov_len = sizeof(b) };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};

		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != ECONNRESET && errno != EPIPE)
			return;
		/* a pending error (the other end went with our data
		 * unread) comes before what is queued: read on */
		d->budget--;
		if (n < 0)
			continue;
		nfds = shm_cmsg_fds_close(&mh, depth, d);
		if (n != 0 || nfds != 0) {
			last = -1;
			continue;
		}
		/* 0 bytes and no fds: the end, or an empty record with more
		 * behind it; the same again with nothing read is the end
		 * too (what cannot be read this way) */
		queued = shm_sock_queued(sock);
		if (queued == 0 || queued == last)
			return;
		last = queued;
	}
}

static bool
shm_fd_disarm(int fd, unsigned int depth, struct shm_disarm *d)
{
	struct linger off = { .l_onoff = 1, .l_linger = 0 };
	socklen_t len = sizeof(int);
	bool spent = d->budget == 0;
	ino_t ino;
	int v, c;

	if (!spent)
		d->budget--;
	/* Not a socket: ENOTSOCK (asked of the socket layer only, never of
	 * the file's file system, which could be the peer's). Asked past the
	 * budget too (of a record's last fds at most). */
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) < 0)
		return false;
	if (v != AF_UNIX) {
		/* The peer shares this socket and can make it linger again
		 * before we close it: closed by the reaper (shm_fd_reap()) */
		(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, sizeof(off));
		return true;
	}
	if (spent || depth >= SHM_DISARM_DEPTH || shm_disarm_seen(fd, d, &ino))
		return false;
	/* Nothing more comes in; a listener refuses new connections, and
	 * its accept() returns at once once none is pending (whether or not
	 * the peer makes its file blocking). */
	(void)shutdown(fd, SHUT_RD);
	/* What may be held at once is counted once for the whole tree (the
	 * levels below only give back what they take), when there is
	 * something to take apart: about 800 system calls. */
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == 0 && v) {
		/* A listener: its pending connections hold what was sent on
		 * them. */
		if (!d->counted)
			shm_disarm_reserve(fd, d);
		while (d->budget > 0 && d->fds > 0) {
			c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (c < 0)
				break;
			d->fds--;
			shm_fd_disarm(c, depth + 1, d);	/* AF_UNIX */
			close(c);
			d->fds++;
		}
		shm_disarm_done(d, ino, d->fds > 0);
		return false;
	}
	/* Out-of-band data (which may carry fds) read in line. */
	v = 1;
	(void)setsockopt(fd, SOL_SOCKET, SO_OOBINLINE, &v, sizeof(v));
	if (shm_sock_empty(fd)) {
		shm_disarm_done(d, ino, true);
		return false;
	}
	if (!d->counted)
		shm_disarm_reserve(fd, d);
	shm_sock_drain(fd, depth + 1, d);
	/* the drain stops short of the end only for want of budget or fds */
	shm_disarm_done(d, ino, d->fds >= SHM_DRAIN_FDS_MAX);
	return false;
}

/*
 * One record from non-blocking AF_UNIX SOCK_SEQPACKET socket @p sock into
 * @p mh (recvmsg()'s result). Linux looks at the queue, then at the
 * shutdown, with nothing held in between: a receive can report the end
 * of the stream while the peer's last record, queued just before it shut
 * down, is there. Seen under load: a REJECT read as "DPU closed the
 * link". Once the end is seen, all the peer sent before it is queued: a
 * second look is final. An empty record (no peer of ours sends one)
 * reads the same; the second look then returns the record after it, if
 * there is one, or the first result.
 */
static ssize_t
shm_recv_record(int sock, struct msghdr *mh)
{
	size_t room = mh->msg_controllen;
	ssize_t n;
	int look;

	for (look = 0; look < 2; look++) {
		mh->msg_controllen = room;
		do {
			n = recvmsg(sock, mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		} while (n < 0 && errno == EINTR);
		if (n != 0 || mh->msg_controllen != 0 ||
		    (mh->msg_flags & MSG_CTRUNC))
			break;
	}
	if (look == 0 || n >= 0)
		return n;
	/* nothing at the second look: the first one's end (or empty
	 * record) stands */
	mh->msg_controllen = 0;
	mh->msg_flags = 0;
	return 0;
}

/*
 * Receive one protocol message. The result is a private copy whose header
 * is checked; payload fields are checked by the caller for its type, and
 * so is the number of fds. Every fd received is disarmed (above). Returns
 * 0 (message in *msg, *nfds fds in fds), -EAGAIN (nothing yet),
 * -ECONNRESET (EOF or socket error), -EMFILE (the fds sent could not be
 * installed: this process is out of fds) or -EPROTO (malformed: wrong
 * size, truncated control data, more than SHM_MSG_FDS_MAX fds, bad
 * magic/version/type; any fds received are closed).
 */
int
shm_msg_recv(int sock, struct shm_msg *msg, int fds_out[SHM_MSG_FDS_MAX],
		int *nfds_out)
{
	/* Room for SHM_MSG_FDS_MAX fds only: more sets MSG_CTRUNC (the kernel
	 * closes what did not fit; see above). */
	char cbuf[CMSG_SPACE(SHM_MSG_FDS_MAX * sizeof(int))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(*msg) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fds[SHM_MSG_FDS_MAX];
	int nfds = 0, i, ret = 0;
	struct shm_disarm disarm = { .budget = SHM_DISARM_BUDGET };
	bool reap;
	ssize_t n;

	*nfds_out = 0;
	n = shm_recv_record(sock, &mh);
	if (n < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ?
			-EAGAIN : -ECONNRESET;

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
			reap = shm_fd_disarm(f, 0, &disarm);
			if (reap) {
				/* no message of ours carries one */
				shm_fd_reap(f);
				ret = -EPROTO;
			} else if (nfds < SHM_MSG_FDS_MAX)
				fds[nfds++] = f;
			else
				close(f);
		}
	}
	if (disarm.counted)
		__atomic_fetch_sub(&shm_fds_reserved, disarm.reserved,
			__ATOMIC_RELAXED);

	/* No bytes: the end of the stream, or an empty record, which no
	 * peer of ours sends; either way the peer is done. An end of stream
	 * carries no fds: with fds it is an empty record, malformed. The fds
	 * are closed either way (kept, any peer could leak ours away). */
	if (n == 0) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return ret == 0 && nfds == 0 &&
			!(mh.msg_flags & MSG_CTRUNC) ? -ECONNRESET : -EPROTO;
	}
	/* A socket of another family is the peer's fault, whatever else:
	 * judged before the checks below, which would call a truncated
	 * message ours once that fd is no longer counted in it. */
	if (ret < 0) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return ret;
	}
	/* fds installed into the last few this process has: ours to give
	 * back at once (the peer is not at fault). */
	if (nfds != 0 && !shm_fd_headroom(sock, 0)) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -EMFILE;
	}
	/* The kernel stops installing fds at the first it cannot (this
	 * process is out of fds) or when our room (SHM_MSG_FDS_MAX) is
	 * full: truncated below that is our limit, not the peer's fault.
	 * (Asking afterwards whether an fd is free races with any thread
	 * that closes one meanwhile.) */
	if ((mh.msg_flags & MSG_CTRUNC) && !(mh.msg_flags & MSG_TRUNC) &&
	    (nfds < SHM_MSG_FDS_MAX || shm_out_of_fds())) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -EMFILE;
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
shm_sock_close(int sock, bool shut)
{
	char b[sizeof(struct shm_msg)];

	/* Closing a UNIX socket with unread data resets the peer
	 * (ECONNRESET), and a reset is reported before the data the peer
	 * has not read yet, such as our REJECT: drain first. Shut down for
	 * reading first (@p shut), the peer can add nothing meanwhile; not
	 * so for a client refused as it connects: it may not have sent its
	 * HELLO yet, and that send would fail before it read why. The
	 * drain takes no fds: installing them, if only for a moment, in a
	 * process that closes connections because it is short of fds would
	 * take the last ones EAL's interrupt thread needs (it panics
	 * without one). The kernel drops them here instead, so fds the
	 * peer left queued on its link socket can make this close wait
	 * (the trust model says so). */
	if (shut)
		(void)shutdown(sock, SHUT_RD);
	while (recv(sock, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
	close(sock);
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
	SHM_LOG(ERR, "%s: connection %u: malformed or unexpected message from the peer: %s; closing it",
		shm_dev_name(sc->conn), sc->conn->id, why);
	shm_conn_break(sc, SHM_BROKEN_LOGGED);
}

void
shm_conn_fail_local(struct shm_conn *sc, int err, const char *what)
{
	SHM_LOG(ERR, "%s: connection %u: this process %s (%s): it cannot follow the peer; closing the connection",
		shm_dev_name(sc->conn), sc->conn->id, what, strerror(-err));
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
