/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: fds. How many this process has free (the headroom the driver
 * keeps for the rest of the process), and every fd the peer sends:
 * received with a protocol message from the link socket and disarmed as
 * it arrives, so that no close of ours waits on the peer; a socket whose
 * close could still wait goes to a thread of its own (the reaper).
 * Receiving a message is here, not with sending it (comch_shm_link.c),
 * because the fds it installs are disarmed and counted as it takes them
 * (struct shm_disarm, shm_fds_reserved). Nothing here runs on the
 * message path.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "comch_shm_priv.h"

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
 * fd headroom (shm_fd_headroom()) in half of what is free past it:
 * the free fds are counted when the first socket comes, up to twice what
 * three levels may hold at once. What is deeper, beyond the budget or past the
 * headroom is closed as it is, and may wait (the trust model says so), as
 * may fds left queued on a link socket we close (shm_sock_close()). A
 * socket of another family goes to the reaper (below). Any other kind of
 * file closes at once, but for a file of a user-space file system (FUSE),
 * whose flush the peer's user could delay: outside the trust model of one
 * user's processes (doc/guides/trust_model.md).
 *
 * What is not received cannot be disarmed: a receive takes at most
 * SHM_MSG_FDS_MAX fds and the kernel would drop the rest of a message's
 * fds in the receiving thread, where such a close would wait. So a
 * message is received only once a peek saw all its fds fit
 * (shm_record_peek()); one with more is malformed and left queued,
 * and a link socket is closed only once what is queued on it with fds
 * was taken apart as above (shm_sock_take_apart(), from
 * shm_sock_close()); what the budget or the fds could not take apart,
 * the reaper closes.
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
 * The fds a received record's control data installed in this process,
 * one at a time: those of SCM_RIGHTS and, where the sender's socket asks
 * for them (SO_PASSPIDFD, which a peer can set on a socket it sends us),
 * the pidfd of SCM_PIDFD. Every receive, peek and drain walks them this
 * way, so that none is missed:
 *
 *	shm_cmsg_walk_start(&w, &mh);
 *	while (shm_cmsg_walk_next(&w, &fd))
 *		...
 */
struct shm_cmsg_walk {
	struct msghdr *mh;
	struct cmsghdr *cmsg;	/* the control message walked, NULL at the end */
	size_t k;		/* the next fd of it */
};

static void
shm_cmsg_walk_start(struct shm_cmsg_walk *w, struct msghdr *mh)
{
	w->mh = mh;
	w->cmsg = CMSG_FIRSTHDR(mh);
	w->k = 0;
}

static bool
shm_cmsg_walk_next(struct shm_cmsg_walk *w, int *fd)
{
	struct cmsghdr *c;

	for (; (c = w->cmsg) != NULL;
	     w->cmsg = CMSG_NXTHDR(w->mh, c), w->k = 0) {
		if (c->cmsg_level != SOL_SOCKET ||
		    (c->cmsg_type != SCM_RIGHTS && c->cmsg_type != SCM_PIDFD) ||
		    c->cmsg_len < CMSG_LEN(0) ||
		    w->k >= (c->cmsg_len - CMSG_LEN(0)) / sizeof(int))
			continue;
		memcpy(fd, CMSG_DATA(c) + w->k * sizeof(int), sizeof(int));
		w->k++;
		return true;
	}
	return false;
}

/* How many fds shm_cmsg_walk_next() will give for @p mh. */
static unsigned int
shm_cmsg_fds_count(struct msghdr *mh)
{
	struct shm_cmsg_walk w;
	unsigned int n = 0;
	int fd;

	shm_cmsg_walk_start(&w, mh);
	while (shm_cmsg_walk_next(&w, &fd))
		n++;
	return n;
}

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
 * Only when memory for the list runs out, or the reaper thread cannot be
 * started, does the thread that received one close it itself.
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
 * other disarms hold in reserve, and reserve them until it is done: half
 * of those at most, so that what one peer sends cannot leave the others
 * (an honest connection's announcement, a newcomer) without. */
static void
shm_disarm_reserve(int fd, struct shm_disarm *d)
{
	unsigned int others, free_fds;

	others = __atomic_load_n(&shm_fds_reserved, __ATOMIC_RELAXED);
	free_fds = shm_fds_free(fd,
			SHM_FD_HEADROOM + others + 2 * SHM_DISARM_FDS_MAX);
	d->fds = free_fds > SHM_FD_HEADROOM + others ?
		(free_fds - SHM_FD_HEADROOM - others) / 2 : 0;
	d->reserved = d->fds;
	d->counted = true;
	__atomic_fetch_add(&shm_fds_reserved, d->reserved, __ATOMIC_RELAXED);
}

/* @p n of a disarm's reserved fds are now held (a receive or an accept
 * installed them), or given back (closed): the process-wide reserve
 * counts only those not held, so that another thread's headroom check
 * does not count the held ones twice, once as not free and once as
 * reserved. */
static void
shm_disarm_hold(struct shm_disarm *d, unsigned int n)
{
	d->fds -= n;
	__atomic_fetch_sub(&shm_fds_reserved, n, __ATOMIC_RELAXED);
}

static void
shm_disarm_unhold(struct shm_disarm *d, unsigned int n)
{
	d->fds += n;
	__atomic_fetch_add(&shm_fds_reserved, n, __ATOMIC_RELAXED);
}

static bool shm_fd_disarm(int fd, unsigned int depth, struct shm_disarm *d);

/* Disarm and close the fds of a received message's control data. Returns
 * how many there were. */
static unsigned int
shm_cmsg_fds_close(struct msghdr *mh, unsigned int depth, struct shm_disarm *d)
{
	unsigned int n = 0, held;
	struct shm_cmsg_walk w;
	int f;

	/* all of them are held until the last is disarmed */
	held = RTE_MIN(shm_cmsg_fds_count(mh), d->fds);
	shm_disarm_hold(d, held);
	shm_cmsg_walk_start(&w, mh);
	while (shm_cmsg_walk_next(&w, &f)) {
		n++;
		if (shm_fd_disarm(f, depth, d))
			shm_fd_reap(f);
		else
			close(f);
	}
	shm_disarm_unhold(d, held);
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

/* A peek at the next record queued on @p sock without control room: it
 * installs no fds, and says whether the record carries some (MSG_CTRUNC)
 * in *@p has_fds. Returns recvmsg()'s result. */
static ssize_t
shm_peek_bare(int sock, bool *has_fds)
{
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	do {
		n = recvmsg(sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	*has_fds = n >= 0 && (mh.msg_flags & MSG_CTRUNC) != 0;
	return n;
}

/* Whether AF_UNIX socket @p sock, shut down for reading, has nothing
 * queued: no record at the peek (shm_peek_bare()), and no bytes queued
 * (a record of no bytes ahead of others leaves theirs). */
bool
shm_sock_empty(int sock)
{
	bool has_fds;

	return shm_peek_bare(sock, &has_fds) == 0 && !has_fds &&
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
	 * something to take apart: about 1,600 system calls. */
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
			shm_disarm_hold(d, 1);
			shm_fd_disarm(c, depth + 1, d);	/* AF_UNIX */
			close(c);
			shm_disarm_unhold(d, 1);
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
 * A look at the next record queued on @p sock before it is received: a
 * receive would have the kernel drop the fds it could not install, in
 * this thread, where the last close of a peer's socket can wait for as
 * long as the peer likes (above). The peek installs copies of those that
 * fit, closed here at once (the record still holds its own: no close of
 * ours is the last), and says MSG_CTRUNC for the rest. Returns 0 (it may
 * be received: all its fds fit, or it is the end), -E2BIG (more fds than
 * a message may carry: malformed; left queued, for the socket's close to
 * take apart), -EMFILE (fewer fit than it carries: this process is out of
 * fds, as shm_msg_recv() judges it), -EAGAIN (nothing queued) or the
 * socket's error (which the peek takes: the peer went with our data
 * unread; reported as such, nothing received).
 */
static int
shm_record_peek(int sock)
{
	char cbuf[CMSG_SPACE(SHM_MSG_FDS_MAX * sizeof(int))];
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct shm_cmsg_walk w;
	bool ours = false;
	ssize_t n;
	int f;

	do {
		n = recvmsg(sock, &mh, MSG_PEEK | MSG_DONTWAIT |
				MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* judged while the copies are held, as the receive would be */
	if (mh.msg_flags & MSG_CTRUNC)
		ours = shm_cmsg_fds_count(&mh) < SHM_MSG_FDS_MAX ||
			shm_out_of_fds();
	shm_cmsg_walk_start(&w, &mh);
	while (shm_cmsg_walk_next(&w, &f))
		close(f);
	if (!(mh.msg_flags & MSG_CTRUNC))
		return 0;
	return ours ? -EMFILE : -E2BIG;
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
 * there is one, or the first result. Each look first peeks
 * (shm_record_peek()): a record whose fds do not all fit is not received.
 * Returns the record's length, or -errno: -EAGAIN (nothing), -E2BIG and
 * -EMFILE (see shm_record_peek()), another (the socket's error).
 */
static ssize_t
shm_recv_record(int sock, struct msghdr *mh)
{
	size_t room = mh->msg_controllen;
	ssize_t n;
	int look, ret;

	for (look = 0; look < 2; look++) {
		ret = shm_record_peek(sock);
		if (ret < 0) {
			if (look == 0 || ret == -E2BIG || ret == -EMFILE)
				return ret;
			break;	/* nothing at the second look */
		}
		mh->msg_controllen = room;
		do {
			n = recvmsg(sock, mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			return look == 0 ? -errno : 0;
		if (n != 0 || mh->msg_controllen != 0 ||
		    (mh->msg_flags & MSG_CTRUNC))
			return n;
	}
	/* the first look's end (or empty record) stands */
	mh->msg_controllen = 0;
	mh->msg_flags = 0;
	return 0;
}

/*
 * Whether the next record queued on @p sock carries fds (shm_peek_bare()):
 * 1 yes, 0 no (or the end), -1 nothing queued now, or the socket's error
 * (which the peek takes).
 */
int
shm_record_has_fds(int sock)
{
	bool has_fds;

	if (shm_peek_bare(sock, &has_fds) < 0)
		return -1;
	return has_fds;
}

/*
 * Take apart what is queued on link socket @p sock, shut down for
 * reading, as the fds of a message are (shm_fd_disarm()): every fd
 * received, disarmed, before it is closed. Returns whether nothing is
 * left that its close would drop: otherwise (the budget, or the fds this
 * process may hold, ran out) the caller must not close it itself.
 */
bool
shm_sock_take_apart(int sock)
{
	struct shm_disarm d = { .budget = SHM_DISARM_BUDGET };

	shm_disarm_reserve(sock, &d);
	shm_sock_drain(sock, 0, &d);
	__atomic_fetch_sub(&shm_fds_reserved, d.reserved, __ATOMIC_RELAXED);
	return shm_sock_empty(sock);
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
	struct shm_disarm disarm = { .budget = SHM_DISARM_BUDGET };
	int fds[SHM_MSG_FDS_MAX];
	int nfds = 0, i, f, ret = 0;
	struct shm_cmsg_walk w;
	ssize_t n;

	*nfds_out = 0;
	n = shm_recv_record(sock, &mh);
	if (n == -E2BIG)
		return -EPROTO;
	if (n == -EAGAIN || n == -EMFILE)
		return (int)n;
	if (n < 0)
		return -ECONNRESET;

	shm_cmsg_walk_start(&w, &mh);
	while (shm_cmsg_walk_next(&w, &f)) {
		if (shm_fd_disarm(f, 0, &disarm)) {
			/* no message of ours carries one */
			shm_fd_reap(f);
			ret = -EPROTO;
		} else if (nfds < SHM_MSG_FDS_MAX)
			fds[nfds++] = f;
		else
			close(f);
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
