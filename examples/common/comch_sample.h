/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_SAMPLE_H
#define COMCH_SAMPLE_H

/* Helpers shared by the samples: signals, device choice, deadlines. */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_eal.h>

static volatile bool force_quit;

/* rte_eal_init(), then point argc/argv at the sample's own options.
 * Returns 0, or -1 after saying why. */
static inline int
sample_eal_init(int *argc, char ***argv)
{
	char hint[256];
	int ret;

	/* Before: EAL rewrites argv when it fails. */
	rte_comch_devargs_hint(*argc, *argv, hint, sizeof(hint));
	ret = rte_eal_init(*argc, *argv);
	if (ret < 0) {
		fprintf(stderr, "cannot initialise EAL: %s\n",
			rte_strerror(rte_errno));
		if (hint[0] != '\0')
			fprintf(stderr, "%s\n", hint);
		return -1;
	}
	*argc -= ret;
	*argv += ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

/* Seconds for option @p opt: a number > 0 (or >= 0 with @p zero_ok).
 * Returns 0, or -1 after saying why. */
static inline int
sample_parse_seconds(const char *opt, const char *s, bool zero_ok, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || v < 0 || (v == 0 && !zero_ok)) {
		fprintf(stderr, "--%s: not a %s number of seconds: %s\n", opt,
			zero_ok ? "non-negative" : "positive", s);
		return -1;
	}
	*out = v;
	return 0;
}

static inline void
sample_signal_handler(int sig)
{
	if (sig == SIGINT || sig == SIGTERM)
		force_quit = true;
}

/*
 * The comch device to use: the one named by --dev, else the first device of
 * the wanted role given with --vdev. Only when no comch --vdev was given at
 * all, a comch_shm device this sample creates with link sockets in
 * @p default_path (so "-l 0 --no-huge" is enough to try it), said in one
 * line. A comch --vdev that did not become a device is fatal: the driver's
 * reason is the last line printed. Returns the device id or -1.
 */
static inline int16_t
sample_find_dev(const char *name, enum rte_comch_role role,
		const char *default_vdev, const char *default_path)
{
	const char *role_name = role == RTE_COMCH_ROLE_DPU ? "dpu" : "host";
	struct rte_comch_dev_info info;
	char why[256], args[128];
	int16_t id;
	int ret, nb_given;

	nb_given = rte_comch_devargs_check(why, sizeof(why));
	if (nb_given < 0) {
		fprintf(stderr, "%s\n", why);
		return -1;
	}
	if (name != NULL) {
		ret = rte_comch_get_dev_id_by_name(name);
		if (ret < 0)
			fprintf(stderr, "no comch device named %s\n", name);
		return (int16_t)ret;
	}
	RTE_COMCH_FOREACH_DEV(id) {
		if (rte_comch_info_get(id, &info) == 0 && info.role == role)
			return id;
	}
	if (nb_given > 0) {
		fprintf(stderr, "none of the comch --vdev given has role=%s\n",
			role_name);
		return -1;
	}
	snprintf(args, sizeof(args), "role=%s,path=%s", role_name,
		default_path);
	ret = rte_vdev_init(default_vdev, args);
	if (ret < 0) {
		fprintf(stderr, "cannot create %s,%s: %s\n", default_vdev, args,
			rte_strerror(-ret));
		return -1;
	}
	printf("no comch --vdev given: created %s,%s (link sockets in %s)\n",
		default_vdev, args, default_path);
	return (int16_t)rte_comch_get_dev_id_by_name(default_vdev);
}

/*
 * Event mode (--event): instead of spinning, an lcore with nothing to do
 * sleeps in epoll on the events of what it polls. The rule: poll until
 * there is nothing, arm every event, and sleep only if no arm found work
 * (see the programmer's guide, "Event mode").
 */
#define SAMPLE_MAX_EVENTS 66

struct sample_sleeper {
	int ep;                                      /* -1: busy-poll */
	struct rte_comch_event *evs[SAMPLE_MAX_EVENTS];
	unsigned int nb;
};

static inline int
sample_sleeper_init(struct sample_sleeper *s, bool event)
{
	s->nb = 0;
	s->ep = -1;
	if (!event)
		return 0;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		fprintf(stderr, "epoll_create1: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Sleep on @p ev too (NULL: the object has none, not an error). */
static inline int
sample_sleeper_add(struct sample_sleeper *s, struct rte_comch_event *ev)
{
	struct epoll_event e = { .events = EPOLLIN };

	if (s->ep < 0 || ev == NULL)
		return 0;
	if (s->nb == SAMPLE_MAX_EVENTS ||
	    epoll_ctl(s->ep, EPOLL_CTL_ADD, rte_comch_event_fd(ev), &e) < 0)
		return -1;
	s->evs[s->nb++] = ev;
	return 0;
}

/* @p ev is gone (its object released: its fd left the set by itself). */
static inline void
sample_sleeper_del(struct sample_sleeper *s, struct rte_comch_event *ev)
{
	unsigned int i;

	for (i = 0; i < s->nb; i++)
		if (s->evs[i] == ev) {
			s->evs[i] = s->evs[--s->nb];
			return;
		}
}

/*
 * The caller polled everything and found nothing: arm, and sleep unless
 * an arm found work, for at most @p timeout_ms (-1: no limit). An event
 * whose arm fails (its connection lost, its object stopped) is left to
 * the poll of its server or client, whose own event wakes for it.
 * Busy-poll mode: returns at once.
 */
static inline void
sample_sleep(struct sample_sleeper *s, int timeout_ms)
{
	struct epoll_event out[8];
	unsigned int i;

	if (s->ep < 0)
		return;
	for (i = 0; i < s->nb; i++)
		if (rte_comch_event_arm(s->evs[i]) > 0)
			return;         /* work came meanwhile: poll again */
	/* 0 % CPU here; a signal (SIGINT) interrupts it */
	(void)epoll_wait(s->ep, out, RTE_DIM(out), timeout_ms);
}

static inline void
sample_sleeper_close(struct sample_sleeper *s)
{
	if (s->ep >= 0)
		close(s->ep);
	s->ep = -1;
	s->nb = 0;
}

/* Where the samples' default devices put their link sockets. */
#define SAMPLE_DEFAULT_PATH "/tmp/comch"

/* Text a peer sent, made printable into @p out (of @p size bytes): a peer
 * must not write control characters or forged lines into our output. */
static inline const char *
sample_printable(char *out, size_t size, const void *text, uint32_t len)
{
	const unsigned char *s = text;
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	out[i] = '\0';
	return out;
}

/*
 * Lines about clients, a burst a second at most: hosts that connect and
 * leave thousands of times a second must not flood the output. When lines
 * were held back, the next one allowed is preceded by their count.
 */
#define SAMPLE_LINES_PER_S 16

struct sample_lines {
	uint64_t window_end;    /* TSC */
	unsigned int in_window;
	unsigned int held;
};

static inline bool
sample_lines_ok(struct sample_lines *l)
{
	uint64_t now = rte_get_timer_cycles();

	if (now >= l->window_end) {
		l->window_end = now + rte_get_timer_hz();
		l->in_window = 0;
	}
	if (l->in_window >= SAMPLE_LINES_PER_S) {
		l->held++;
		return false;
	}
	l->in_window++;
	if (l->held != 0)
		printf("(%u lines about clients not shown)\n", l->held);
	l->held = 0;
	return true;
}

static inline uint64_t
sample_deadline(double seconds)
{
	return rte_get_timer_cycles() +
		(uint64_t)(seconds * (double)rte_get_timer_hz());
}

/*
 * Start a client and poll until it is connected, retrying every 10 ms while
 * the server does not exist yet (-ENOENT) or no DPU serves this function
 * yet (-ECONNREFUSED), for at most @p timeout seconds, saying at most once
 * a second what it waits for. Returns 0 or the last error.
 */
static inline int
sample_client_connect(struct rte_comch_client *cli, const char *server_name,
		double timeout)
{
	uint64_t start = rte_get_timer_cycles();
	uint64_t deadline = sample_deadline(timeout);
	uint64_t next_say = start + rte_get_timer_hz();
	enum rte_comch_state st;
	int ret, err;

	for (;;) {
		ret = rte_comch_client_start(cli);
		if (ret < 0)
			return ret;
		do {
			rte_comch_client_poll(cli);
			st = rte_comch_client_state(cli, &err);
		} while (st == RTE_COMCH_STATE_STARTING && !force_quit);
		if (st == RTE_COMCH_STATE_RUNNING)
			return 0;
		if (force_quit)
			return -EINTR;
		if (rte_get_timer_cycles() > deadline ||
		    (err != -ENOENT && err != -ECONNREFUSED &&
		     err != -EAGAIN))
			return err;
		if (rte_get_timer_cycles() >= next_say) {
			printf("client: waiting for %s \"%s\" (%.0f s of %.0f s)\n",
				err == -ENOENT ? "the DPU to create server" :
				"a DPU process to serve this function, for server",
				server_name,
				(double)(rte_get_timer_cycles() - start) /
				(double)rte_get_timer_hz(), timeout);
			next_say += rte_get_timer_hz();
		}
		rte_delay_ms(10);
	}
}

#endif /* COMCH_SAMPLE_H */
