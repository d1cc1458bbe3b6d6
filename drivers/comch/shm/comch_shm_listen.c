/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: the DPU's listening sockets. One per host function the
 * device serves, in a folder only this user may change (its permissions
 * stand in for the isolation of PCIe), served by the EAL interrupt
 * thread: accept, wait a bounded time for HELLO, route it to the named
 * server's inbox or refuse it, within the function's handshake quota.
 * Nothing here runs on the message path.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_string_fns.h>
#include <rte_tailq.h>

#include "comch_shm_priv.h"

void
shm_pending_free(struct shm_pending *p)
{
	if (p->mailbox_fd >= 0)
		close(p->mailbox_fd);
	if (p->sock >= 0)
		shm_sock_close(p->sock, true);
	rte_intr_instance_free(p->intr);
	__atomic_fetch_sub(&p->func->nb_handshakes, 1, __ATOMIC_RELAXED);
	free(p);
}

/*
 * The socket of a closed connection whose host has not read all the DPU
 * sent on it (the host keeps its end open): what it holds unread stays in
 * the kernel, fds included (the mailbox in ACCEPT, consumer
 * announcements), charged to this process's user (past its ulimit -n,
 * unless it has CAP_SYS_RESOURCE, no fd can be sent to any host) and
 * pinning their memory. So the connection's place in its function's
 * quota (max_conns) is not given back while it does: the socket, shut
 * down for reading and drained, is kept here. Returns false if it could
 * not be (no memory): the caller closes it and gives the place back.
 */
bool
shm_function_park(struct shm_function *func, int sock)
{
	struct shm_parked *k = malloc(sizeof(*k));

	if (k == NULL)
		return false;
	k->sock = sock;
	rte_spinlock_lock(&func->lock);
	TAILQ_INSERT_TAIL(&func->parked, k, next);
	__atomic_fetch_add(&func->nb_parked, 1, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&func->lock);
	return true;
}

/* Close the parked sockets whose host has read all we sent or closed its
 * end (@p all: every one), giving their places back: when a client finds
 * the quota full, and every SHM_PARKED_CHECK_MS from a server's poll
 * (shm_function_parked_tick()), so that a host that read all sees the
 * end of its socket soon. The list is taken out of the lock to be looked
 * at (the interrupt thread takes the lock for every HELLO). Returns how
 * many. */
unsigned int
shm_function_unpark(struct shm_function *func, bool all)
{
	struct shm_parked_list list = TAILQ_HEAD_INITIALIZER(list);
	struct shm_parked_list kept = TAILQ_HEAD_INITIALIZER(kept);
	struct shm_parked *k;
	unsigned int n = 0;

	rte_spinlock_lock(&func->lock);
	TAILQ_CONCAT(&list, &func->parked, next);
	rte_spinlock_unlock(&func->lock);
	while ((k = TAILQ_FIRST(&list)) != NULL) {
		TAILQ_REMOVE(&list, k, next);
		if (!all && shm_sock_unread_out(k->sock)) {
			TAILQ_INSERT_TAIL(&kept, k, next);
			continue;
		}
		close(k->sock);
		free(k);
		n++;
	}
	rte_spinlock_lock(&func->lock);
	TAILQ_CONCAT(&func->parked, &kept, next);
	__atomic_fetch_sub(&func->nb_parked, n, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&func->lock);
	__atomic_fetch_sub(&func->nb_conns, n, __ATOMIC_RELAXED);
	return n;
}

/* A server's poll, at its socket checks: the parked sockets of its
 * function, every SHM_PARKED_CHECK_MS (by whichever server comes first). */
void
shm_function_parked_tick(struct shm_function *func, uint64_t now)
{
	uint64_t next = __atomic_load_n(&func->parked_check, __ATOMIC_RELAXED);

	if (__atomic_load_n(&func->nb_parked, __ATOMIC_RELAXED) == 0 ||
	    now < next ||
	    !__atomic_compare_exchange_n(&func->parked_check, &next,
			now + rte_get_tsc_hz() / 1000 * SHM_PARKED_CHECK_MS,
			false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	shm_function_unpark(func, false);
}

static struct shm_server *
shm_function_find_server(struct shm_function *func, const char *name)
{
	struct shm_server *ss;

	TAILQ_FOREACH(ss, &func->servers, next)
		if (strcmp(ss->srv->name, name) == 0)
			return ss;
	return NULL;
}

/* Refuse a client with a REJECT, the reason logged (rate-limited per
 * function). */
void
shm_function_refuse(struct shm_function *func, int sock, int level, int err,
		const char *fmt, ...)
{
	char why[SHM_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (level <= (int)RTE_LOG_NOTICE &&
	    !shm_ratelimit_ok(&func->refusals, "refused clients"))
		level = RTE_LOG_DEBUG;
	SHM_LOG_AT((uint32_t)level, "%s: refused a client on %s: %s",
		func->dev->cdev->data->dev_name, func->name, why);
	shm_send_reject(sock, err, "%s", why);
}

/* Interrupt thread: a pending socket is readable, expect HELLO. Runs under
 * func->lock from start to end, so that shm_function_close() (which takes it
 * once to set closing) never frees the func under a running one; once the
 * func is closing, it leaves the socket to shm_function_close(). */
static void
shm_hello_cb(void *arg)
{
	struct shm_pending *p = arg;
	struct shm_function *func = p->func;
	struct shm_msg_hello *h = &p->hello.hello;
	char name[SHM_NAME_MAX];
	struct shm_server *ss;
	int fds[SHM_MSG_FDS_MAX];
	int ret, nfds, i;

	rte_spinlock_lock(&func->lock);
	if (func->closing) {
		rte_spinlock_unlock(&func->lock);
		return;
	}
	ret = shm_msg_recv(p->sock, &p->hello, fds, &nfds);
	if (ret == -EAGAIN) {
		rte_spinlock_unlock(&func->lock);
		return;
	}
	if (ret == 0 && (p->hello.type != SHM_MSG_HELLO || nfds != 1 ||
	    memchr(h->server_name, '\0', sizeof(h->server_name)) == NULL)) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		ret = -EPROTO;
	}
	TAILQ_REMOVE(&func->pending, p, next);
	func->nb_pending--;
	rte_intr_callback_unregister_pending(p->intr, shm_hello_cb, p, NULL);
	if (ret < 0) {
		if (ret == -EMFILE)
			shm_function_refuse(func, p->sock, RTE_LOG_ERR, EMFILE,
				"the DPU is out of file descriptors (ulimit -n)");
		else if (ret == -EPROTO)
			shm_function_refuse(func, p->sock, RTE_LOG_NOTICE, EPROTO,
				"malformed HELLO");
		else
			SHM_LOG(DEBUG, "%s: a client on %s left before HELLO",
				func->dev->cdev->data->dev_name, func->name);
		shm_pending_free(p);
		rte_spinlock_unlock(&func->lock);
		return;
	}
	p->mailbox_fd = fds[0];
	ss = shm_function_find_server(func, h->server_name);
	if (ss != NULL && ss->accepting) {
		TAILQ_INSERT_TAIL(&ss->inbox, p, next);
		__atomic_store_n(&ss->inbox_len, ss->inbox_len + 1,
				__ATOMIC_RELEASE);
		/* A server that sleeps wakes to accept it. */
		shm_event_server_kick(ss);
		rte_spinlock_unlock(&func->lock);
		return;
	}
	/* A name the peer chose: printable in the log. */
	memcpy(name, h->server_name, sizeof(name));
	shm_sanitize(name, sizeof(name));
	shm_function_refuse(func, p->sock, RTE_LOG_DEBUG, ENOENT,
		"no server \"%s\" on function %s", name, func->name);
	shm_pending_free(p);
	rte_spinlock_unlock(&func->lock);
}

/* Under func->lock: drop the pending sockets whose time to say HELLO is up;
 * how many. */
static unsigned int
shm_function_expire(struct shm_function *func, uint64_t now)
{
	struct shm_pending *p, *tmp;
	unsigned int n = 0;

	RTE_TAILQ_FOREACH_SAFE(p, &func->pending, next, tmp) {
		if (now < p->deadline)
			continue;
		TAILQ_REMOVE(&func->pending, p, next);
		func->nb_pending--;
		/* Not inside p's callback (this is the listening socket's):
		 * it is not running. */
		rte_intr_callback_unregister(p->intr, shm_hello_cb, p);
		shm_pending_free(p);
		n++;
	}
	return n;
}

/* Interrupt thread, (nearly) out of fds: take the next client with the
 * spare fd and tell it why. 1: one refused; 0: none waits; -1: even that
 * failed (stop accepting for now). */
static int
shm_function_refuse_no_fd(struct shm_function *func)
{
	int sock, err;

	if (func->spare_fd < 0)
		return -1;
	close(func->spare_fd);
	func->spare_fd = -1;
	sock = accept4(func->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	err = errno;
	if (sock >= 0) {
		shm_function_refuse(func, sock, RTE_LOG_ERR, EMFILE,
			"the DPU is out of file descriptors (ulimit -n)");
		shm_sock_close(sock, false);
	}
	func->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (sock < 0 && (err == EAGAIN || err == EWOULDBLOCK))
		return func->spare_fd >= 0 ? 0 : -1;
	return sock >= 0 && func->spare_fd >= 0 ? 1 : -1;
}

static void shm_listen_cb(void *arg);

#define SHM_LISTEN_PAUSE_US 100000

static void
shm_listen_resume(void *arg)
{
	struct shm_function *func = arg;

	if (func->spare_fd < 0)
		func->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (rte_intr_callback_register(func->intr, shm_listen_cb, func) < 0)
		rte_eal_alarm_set(SHM_LISTEN_PAUSE_US, shm_listen_resume, func);
	else
		__atomic_store_n(&func->listen_paused, false, __ATOMIC_RELEASE);
}

static void
shm_listen_pause(struct shm_function *func)
{
	if (shm_ratelimit_ok(&func->refusals, "refused clients"))
		SHM_LOG(ERR, "%s: out of file descriptors: not taking clients on %s for %u ms (raise ulimit -n)",
			func->dev->cdev->data->dev_name, func->name,
			SHM_LISTEN_PAUSE_US / 1000);
	__atomic_store_n(&func->listen_paused, true, __ATOMIC_RELEASE);
	rte_intr_callback_unregister_pending(func->intr, shm_listen_cb, func,
			NULL);
	rte_eal_alarm_set(SHM_LISTEN_PAUSE_US, shm_listen_resume, func);
}

/*
 * Clients taken per turn of the interrupt thread on one listening socket.
 * Hosts can connect faster than we accept (a connect and a close cost
 * them less than an accept and a refusal cost us): a loop until none
 * waits would never end, and no other socket of the interrupt thread
 * (another function's clients, their HELLOs) nor any alarm would be
 * served. The listening socket stays readable, so the thread comes back
 * to it after one turn over the others.
 */
#define SHM_ACCEPTS_PER_TURN 32

/* Interrupt thread: the function's listening socket is readable. */
static void
shm_listen_cb(void *arg)
{
	struct shm_function *func = arg;
	const struct shm_quota *q = &func->dev->cfg.quota;
	struct shm_pending *p;
	unsigned int turn;
	int sock, ret;

	for (turn = 0; turn < SHM_ACCEPTS_PER_TURN; turn++) {
		/* A client costs fds (its socket, then its mailbox): taken
		 * only while the process keeps some (shm_fd_headroom()). */
		if (shm_fd_headroom(func->listen_fd, 1)) {
			sock = accept4(func->listen_fd, NULL, NULL,
					SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (sock < 0 && errno != EMFILE && errno != ENFILE)
				return; /* EAGAIN: done */
		} else {
			sock = -1;
		}
		if (sock < 0) {
			ret = shm_function_refuse_no_fd(func);
			if (ret > 0)
				continue;
			if (ret == 0)
				return;
			/* Out of fds even for the spare: stop listening
			 * for a while rather than spin on a readable
			 * socket. */
			shm_listen_pause(func);
			return;
		}
		rte_spinlock_lock(&func->lock);
		if (__atomic_load_n(&func->nb_handshakes, __ATOMIC_RELAXED) >=
		    q->max_pending &&
		    shm_function_expire(func, rte_get_timer_cycles()) == 0) {
			rte_spinlock_unlock(&func->lock);
			shm_function_refuse(func, sock, RTE_LOG_NOTICE, EAGAIN,
				"%u handshakes in progress on %s, the DPU's limit (max_pending); retry",
				q->max_pending, func->name);
			shm_sock_close(sock, false);
			continue;
		}
		p = calloc(1, sizeof(*p));
		if (p != NULL)
			p->intr = rte_intr_instance_alloc(
					RTE_INTR_INSTANCE_F_PRIVATE);
		if (p == NULL || p->intr == NULL ||
		    rte_intr_fd_set(p->intr, sock) != 0 ||
		    rte_intr_type_set(p->intr, RTE_INTR_HANDLE_EXT) != 0) {
			rte_spinlock_unlock(&func->lock);
			if (p != NULL)
				rte_intr_instance_free(p->intr);
			free(p);
			shm_function_refuse(func, sock, RTE_LOG_ERR, ENOMEM,
				"the DPU is out of memory");
			shm_sock_close(sock, false);
			continue;
		}
		__atomic_fetch_add(&func->nb_handshakes, 1, __ATOMIC_RELAXED);
		p->func = func;
		p->sock = sock;
		p->mailbox_fd = -1;
		p->deadline = rte_get_timer_cycles() +
			rte_get_timer_hz() * q->handshake_ms / 1000;
		if (rte_intr_callback_register(p->intr, shm_hello_cb, p) < 0) {
			rte_spinlock_unlock(&func->lock);
			shm_pending_free(p);
			continue;
		}
		TAILQ_INSERT_TAIL(&func->pending, p, next);
		func->nb_pending++;
		rte_spinlock_unlock(&func->lock);
	}
}

/*
 * The folders above @p path (as written, and as resolved): each must belong
 * to root or to this user and must not let others write in it, unless it
 * is sticky (as /tmp is: others cannot rename what they do not own in it).
 * Otherwise another user could rename the link folder away and put a
 * folder of their own in its place.
 */
static int
shm_parents_check(const char *path, char *why, size_t why_len)
{
	char buf[PATH_MAX], real[PATH_MAX];
	const char *paths[2] = { path, realpath(path, real) };
	struct stat st;
	unsigned int i;
	char *slash;

	for (i = 0; i < RTE_DIM(paths) && paths[i] != NULL; i++) {
		if (rte_strscpy(buf, paths[i], sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		while ((slash = strrchr(buf, '/')) != NULL) {
			if (slash == buf)
				slash[1] = '\0'; /* "/" itself, last */
			else
				*slash = '\0';
			if (stat(buf, &st) < 0) {
				snprintf(why, why_len, "%s: %s", buf,
					strerror(errno));
				return -errno;
			}
			if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
			    ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
			     (st.st_mode & S_ISVTX) == 0)) {
				snprintf(why, why_len, "%s, above the link folder, belongs to uid %u with mode %04o: another user could replace the link folder; use a path= whose every folder belongs to root or to this user and only they may write in (or is sticky, as /tmp)",
					buf, (unsigned int)st.st_uid,
					(unsigned int)(st.st_mode & 07777));
				return -EPERM;
			}
			if (slash == buf)
				break;
		}
	}
	return 0;
}

/*
 * The folder of the link sockets: its permissions stand in for the
 * isolation of PCIe, so only this user may change it (and what is in it).
 * It must be a directory (not a link) owned by the effective user, with no
 * permission for group or others, below folders no other user can change
 * (shm_parents_check()); one the driver creates is so.
 */
int
shm_dir_check(const char *path, char *why, size_t why_len)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s is not a directory", path);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, why_len, "%s belongs to uid %u, not to this user (uid %u); remove it or use another path=",
			path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if ((st.st_mode & 0077) != 0) {
		snprintf(why, why_len, "%s has mode %04o, looser than 0700; chmod 0700 it or use another path=",
			path, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return shm_parents_check(path, why, why_len);
}

/* A socket file in that folder is ours, and (@p strict) 0600; -ENOENT if
 * absent. */
int
shm_sock_file_check(const char *path, bool strict, char *why, size_t why_len)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(why, why_len, "%s is in the way (not a socket)", path);
		return -EEXIST;
	}
	if (st.st_uid != geteuid() || (strict && (st.st_mode & 0077) != 0)) {
		snprintf(why, why_len, "%s belongs to uid %u with mode %04o; only this user's 0600 sockets are trusted",
			path, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* mkdir -p with 0700 for what it creates; the last one is checked. */
static int
shm_mkdir_p(const char *path, char *why, size_t why_len)
{
	char buf[PATH_MAX];
	char *s;

	if (rte_strscpy(buf, path, sizeof(buf)) < 0) {
		snprintf(why, why_len, "path too long");
		return -ENAMETOOLONG;
	}
	for (s = buf + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
			snprintf(why, why_len, "cannot create %s: %s", buf,
				strerror(errno));
			return -errno;
		}
		*s = '/';
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
		snprintf(why, why_len, "cannot create %s: %s", buf,
			strerror(errno));
		return -errno;
	}
	return shm_dir_check(path, why, why_len);
}

/* Remove a socket file left by a DPU process that died; refuse to steal one
 * that a live process still serves. */
static int
shm_reclaim_stale(const struct sockaddr_un *sa, char *why, size_t why_len)
{
	int s, ret;

	/* Ours to replace if stale, whatever its mode: only this user can
	 * have made it in our folder. */
	ret = shm_sock_file_check(sa->sun_path, false, why, why_len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	ret = connect(s, (const struct sockaddr *)sa, sizeof(*sa));
	close(s);
	if (ret == 0) {
		snprintf(why, why_len, "%s is served by another live process; use another path= or stop the other DPU process",
			sa->sun_path);
		return -EADDRINUSE;
	}
	if (unlink(sa->sun_path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int
shm_function_listen(struct shm_function *func)
{
	const char *devname = func->dev->cdev->data->dev_name;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sockaddr_un tmp = { .sun_family = AF_UNIX };
	char why[SHM_REASON_MAX + PATH_MAX];
	int ret, s;

	ret = shm_mkdir_p(func->dev->cfg.path, why, sizeof(why));
	if (ret < 0) {
		SHM_PROBE_ERR(devname, "path=%s: %s", func->dev->cfg.path, why);
		return ret;
	}
	rte_strscpy(sa.sun_path, func->sock_path, sizeof(sa.sun_path));
	ret = shm_reclaim_stale(&sa, why, sizeof(why));
	if (ret < 0) {
		SHM_PROBE_ERR(devname, "%s", why);
		return ret;
	}
	func->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0 || func->spare_fd < 0) {
		ret = -errno;
		if (s >= 0)
			close(s);
		SHM_PROBE_ERR(devname, "cannot open sockets: %s", strerror(-ret));
		return ret;
	}
	/* Bound under a temporary name, made 0600, listening, then renamed
	 * into place: a host never finds the socket with the mode bind()
	 * gave it. (The folder is ours and closed to others: nobody else
	 * can touch either name meanwhile.) */
	/* "<path>/.tN" is shorter than "<path>/pf0.sock", which fits. */
	snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%.*s/.t%u",
		(int)(sizeof(tmp.sun_path) - 8), func->dev->cfg.path,
		(unsigned int)(func - func->dev->functions) % 100);
	unlink(tmp.sun_path);
	if (bind(s, (struct sockaddr *)&tmp, sizeof(tmp)) < 0 ||
	    chmod(tmp.sun_path, 0600) < 0 || listen(s, 128) < 0 ||
	    rename(tmp.sun_path, sa.sun_path) < 0) {
		ret = -errno;
		SHM_PROBE_ERR(devname, "cannot listen on %s: %s",
			func->sock_path, strerror(-ret));
		close(s);
		unlink(tmp.sun_path);
		return ret;
	}
	func->intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (func->intr == NULL || rte_intr_fd_set(func->intr, s) != 0 ||
	    rte_intr_type_set(func->intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(func->intr, shm_listen_cb, func) < 0) {
		SHM_PROBE_ERR(devname, "cannot watch %s from the interrupt thread",
			func->sock_path);
		rte_intr_instance_free(func->intr);
		func->intr = NULL;
		close(s);
		unlink(sa.sun_path);
		return -EIO;
	}
	func->listen_fd = s;
	return 0;
}

void
shm_function_close(struct shm_function *func)
{
	struct shm_pending *p;

	if (func->intr != NULL) {
		rte_eal_alarm_cancel(shm_listen_resume, func);
		rte_intr_callback_unregister_sync(func->intr, shm_listen_cb, func);
		rte_intr_instance_free(func->intr);
		func->intr = NULL;
	}
	if (func->listen_fd >= 0) {
		/* Connections not accepted yet hold what their hosts sent:
		 * taken out as from any link socket, not left to the close;
		 * shut down first, no new one comes meanwhile. */
		(void)shutdown(func->listen_fd, SHUT_RD);
		for (int i = 0; i < 1024; i++) {
			int sock = accept4(func->listen_fd, NULL, NULL,
					SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (sock < 0)
				break;
			shm_sock_close(sock, true);
		}
		close(func->listen_fd);
		unlink(func->sock_path);
		func->listen_fd = -1;
	}
	if (func->spare_fd >= 0)
		close(func->spare_fd);
	func->spare_fd = -1;
	shm_function_unpark(func, true);
	/* The listener is gone, so no new pending socket appears; with
	 * closing set, hello callbacks leave the list alone. Unregistering
	 * waits for a running one to return. */
	rte_spinlock_lock(&func->lock);
	func->closing = true;
	rte_spinlock_unlock(&func->lock);
	while ((p = TAILQ_FIRST(&func->pending)) != NULL) {
		TAILQ_REMOVE(&func->pending, p, next);
		func->nb_pending--;
		rte_intr_callback_unregister_sync(p->intr, shm_hello_cb, p);
		shm_pending_free(p);
	}
}
