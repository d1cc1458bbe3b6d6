/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Wait sources: TEMPORARY implementation without lib/comch event mode.
 * What it does and what replaces it: dc_wait.h.
 *
 * Every source is on one list from create to destroy. One watcher thread
 * per process looks at the armed ones: with a probe, it takes the
 * object's lock with trylock (never waiting on the application: lock
 * order does not matter) and asks the probe; without one, it fires the
 * source once DC_WAIT_FALLBACK_NS passed since arming. While nothing is
 * armed the watcher sleeps on a condition variable.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dc_wait.h"

#define DC_WAIT_FIRST_NS 20000ULL      /* first probe interval after an arm */
#define DC_WAIT_MAX_NS 1000000ULL      /* probe interval backs off to this */
#define DC_WAIT_FALLBACK_NS 1000000ULL /* no probe: fire this long after arm */

struct dc_wait {
	TAILQ_ENTRY(dc_wait) next;
	const char *name;
	dc_wait_probe_t probe;
	void *obj;
	pthread_mutex_t *lock;
	int fd;
	/* Written by the owner (arm, clear) and the watcher (fire), under
	 * dc_wait_lock. */
	bool armed;
	uint64_t armed_at;
};

static pthread_mutex_t dc_wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dc_wait_cond;
static TAILQ_HEAD(, dc_wait) dc_waits = TAILQ_HEAD_INITIALIZER(dc_waits);
static uint32_t dc_nb_armed;
static uint64_t dc_interval = DC_WAIT_FIRST_NS;
static bool dc_watcher_running;
static struct dc_wait *dc_probing;     /* the source being probed now */

static void
dc_fd_write(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		DC_WARN("wait source: eventfd write: %s", strerror(errno));
}

static void
dc_fd_drain(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		;
}

/* Caller holds dc_wait_lock. */
static void
dc_fire_locked(struct dc_wait *w)
{
	dc_fd_write(w->fd);
	if (w->armed) {
		w->armed = false;
		dc_nb_armed--;
	}
}

static void *
dc_watcher(void *arg)
{
	struct timespec ts;
	struct dc_wait *w;
	uint64_t now, wake;
	bool found;

	(void)arg;
	pthread_mutex_lock(&dc_wait_lock);
	for (;;) {
		while (dc_nb_armed == 0)
			pthread_cond_wait(&dc_wait_cond, &dc_wait_lock);
		found = false;
		now = dc_now_ns();
		TAILQ_FOREACH(w, &dc_waits, next) {
			if (!w->armed)
				continue;
			if (w->probe == NULL) {
				if (now - w->armed_at >= DC_WAIT_FALLBACK_NS)
					dc_fire_locked(w);
				continue;
			}
			if (pthread_mutex_trylock(w->lock) != 0)
				continue;   /* the owner is at work: next round */
			/* Probe without dc_wait_lock (the probe may take a
			 * while); dc_probing keeps destroy away from it. */
			dc_probing = w;
			pthread_mutex_unlock(&dc_wait_lock);
			found = w->probe(w->obj);
			pthread_mutex_lock(&dc_wait_lock);
			dc_probing = NULL;
			if (found && w->armed)
				dc_fire_locked(w);
			pthread_mutex_unlock(w->lock);
			pthread_cond_broadcast(&dc_wait_cond);   /* a destroy may wait */
			if (found)
				break;   /* the list may have changed: start over */
		}
		if (found)
			continue;
		/* Sleep one interval, backing off while nothing happens. */
		wake = dc_now_ns() + dc_interval;
		ts.tv_sec = (time_t)(wake / 1000000000ULL);
		ts.tv_nsec = (long)(wake % 1000000000ULL);
		pthread_cond_timedwait(&dc_wait_cond, &dc_wait_lock, &ts);
		if (dc_interval < DC_WAIT_MAX_NS)
			dc_interval *= 2;
	}
	return NULL;
}

static int
dc_watcher_start(void)
{
	pthread_condattr_t attr;
	pthread_t tid;
	int ret;

	if (dc_watcher_running)
		return 0;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&dc_wait_cond, &attr);
	pthread_condattr_destroy(&attr);
	ret = pthread_create(&tid, NULL, dc_watcher, NULL);
	if (ret != 0)
		return -ret;
	pthread_detach(tid);
	pthread_setname_np(tid, "doca-wait");
	dc_watcher_running = true;
	return 0;
}

DC_EXPORT struct dc_wait *
dc_wait_create(const char *name, dc_wait_probe_t probe, void *obj, pthread_mutex_t *lock)
{
	struct dc_wait *w;
	int ret;

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->fd < 0) {
		DC_ERR("%s: cannot create an eventfd: %s", name, strerror(errno));
		free(w);
		return NULL;
	}
	w->name = name;
	w->probe = probe;
	w->obj = obj;
	w->lock = lock;
	pthread_mutex_lock(&dc_wait_lock);
	ret = dc_watcher_start();
	if (ret == 0)
		TAILQ_INSERT_TAIL(&dc_waits, w, next);
	pthread_mutex_unlock(&dc_wait_lock);
	if (ret != 0) {
		DC_ERR("%s: cannot start the watcher thread: %s", name, strerror(-ret));
		close(w->fd);
		free(w);
		return NULL;
	}
	return w;
}

DC_EXPORT void
dc_wait_destroy(struct dc_wait *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&dc_wait_lock);
	while (dc_probing == w)
		pthread_cond_wait(&dc_wait_cond, &dc_wait_lock);
	if (w->armed)
		dc_nb_armed--;
	TAILQ_REMOVE(&dc_waits, w, next);
	pthread_mutex_unlock(&dc_wait_lock);
	close(w->fd);
	free(w);
}

DC_EXPORT int
dc_wait_fd(const struct dc_wait *w)
{
	return w->fd;
}

DC_EXPORT void
dc_wait_arm(struct dc_wait *w)
{
	bool now = false;

	dc_fd_drain(w->fd);
	/* Work already there: fire at once (the owner's thread, with the
	 * object's lock, may probe itself). */
	if (w->probe != NULL)
		now = w->probe(w->obj);
	pthread_mutex_lock(&dc_wait_lock);
	if (now) {
		dc_fd_write(w->fd);
	} else if (!w->armed) {
		w->armed = true;
		w->armed_at = dc_now_ns();
		dc_nb_armed++;
		dc_interval = DC_WAIT_FIRST_NS;
		pthread_cond_broadcast(&dc_wait_cond);
	}
	pthread_mutex_unlock(&dc_wait_lock);
}

DC_EXPORT void
dc_wait_clear(struct dc_wait *w)
{
	pthread_mutex_lock(&dc_wait_lock);
	if (w->armed) {
		w->armed = false;
		dc_nb_armed--;
	}
	pthread_mutex_unlock(&dc_wait_lock);
	dc_fd_drain(w->fd);
}

DC_EXPORT void
dc_wait_kick(struct dc_wait *w)
{
	pthread_mutex_lock(&dc_wait_lock);
	dc_fire_locked(w);
	pthread_mutex_unlock(&dc_wait_lock);
}
