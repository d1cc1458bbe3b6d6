/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The one place where the layer makes something epoll-able.
 *
 * A wait source is a stable fd (an eventfd) an application may epoll, tied
 * to one object of the layer (a progress engine; an endpoint's send,
 * receive or service event channel). Its owner arms it when the
 * application is about to sleep; from then on the fd becomes readable
 * once the object may have work, and stays readable until the owner
 * clears or re-arms it. The owner also kicks it when its own code knows
 * of work (e.g. completions already queued at arm time).
 *
 * TEMPORARY IMPLEMENTATION, until lib/comch has event mode (issue 14:
 * event fds for servers, clients, connections and consumers with an
 * arm-then-poll API). There is nothing to sleep on yet, so dc_wait.c
 * runs one watcher thread per process that, only while some source is
 * armed:
 *   - with a probe (endpoints): calls probe(obj) under the object's lock
 *     (trylock, so it never waits on the application), every 20 us,
 *     backing off to every 1 ms, and fires the fd when the probe finds
 *     work. The probe makes progress on the object (it polls the
 *     endpoint's private progress engine, whose callbacks are the
 *     layer's own), so the fd fires on real events only;
 *   - without a probe (progress engines, whose callbacks are the
 *     application's and must run on its thread): fires the fd at most
 *     1 ms after arming (bounded polling).
 *
 * WITH EVENT MODE, only dc_wait.c and the probes change:
 *   - dc_wait_create() takes the rte_comch objects to wait on (or a
 *     callback listing them) instead of a probe; the fd becomes an epoll
 *     set of their event fds (readable when any is);
 *   - dc_wait_arm() arms each of them with lib/comch's arm call, then
 *     polls once more (arm, re-check, sleep), kicking the fd if that
 *     finds work; dc_wait_clear() drains;
 *   - the watcher thread, the probe callbacks (ep_probe() in
 *     comm_channel.c) and the bounded polling go away.
 * The callers (dc_pe.c: doca_pe_*notification*; comm_channel.c: the
 * event channels) and the application-visible behaviour stay.
 */

#ifndef DC_WAIT_H
#define DC_WAIT_H

#include <pthread.h>
#include <stdbool.h>

#include "dc_priv.h"

struct dc_wait;

/* Work for @p obj? Called by the watcher with the object's lock held. */
typedef bool (*dc_wait_probe_t)(void *obj);

/* A wait source for @p obj. @p probe may be NULL (bounded polling);
 * @p lock is the object's lock, taken around the probe. NULL (logged) on
 * failure. */
DC_EXPORT struct dc_wait *dc_wait_create(const char *name, dc_wait_probe_t probe, void *obj,
					 pthread_mutex_t *lock);
/* Not while the object's lock is held. */
DC_EXPORT void dc_wait_destroy(struct dc_wait *w);
/* The fd to epoll, stable for the source's life. */
DC_EXPORT int dc_wait_fd(const struct dc_wait *w);
/* Drain the fd, then fire it once the object may have work. Owner's
 * thread, with the object's lock held when there is a probe. */
DC_EXPORT void dc_wait_arm(struct dc_wait *w);
/* Drain the fd and disarm. */
DC_EXPORT void dc_wait_clear(struct dc_wait *w);
/* Fire the fd now (the owner knows of work). */
DC_EXPORT void dc_wait_kick(struct dc_wait *w);

#endif /* DC_WAIT_H */
