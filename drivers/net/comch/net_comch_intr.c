/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch rx interrupts (intr_conf.rxq): a queue's lcore sleeps in
 * rte_epoll_wait() until its queue has packets.
 *
 * The wake-up is the comch library's event mode: each rx queue's consumer
 * is created with RTE_COMCH_F_EVENT, and its event fd turns readable when
 * a completion arrives while the event is armed (rte_comch.h, "Event
 * mode", says why none is lost). A queue's consumer comes and goes with
 * the connection, its fd with it; the port's interrupt handle needs one fd
 * per queue for the port's life. So each rx queue has an epoll set of its
 * own (stable, in the handle's efds), which holds the event fd of the
 * queue's consumer while there is one: the set is readable exactly when
 * that event fd is.
 *
 * rx_queue_intr_enable arms the event: from then on a completion makes
 * the fd readable. Arming says whether work is already there (or the
 * burst keeps completions it took earlier): then the fd is made readable
 * at once (rte_comch_event_wake()), so an application that enables and
 * sleeps never sleeps through packets. EAL reads nothing from the fd
 * (efd_counter_size 0): the next arm clears it. A consumer created while
 * the queue's interrupt is enabled wakes the queue's lcore, which polls
 * and enables again.
 *
 * Everything here is per process: a secondary that polls a queue owns its
 * consumer, its event and its interrupt handle. Nothing here logs: the
 * callers say what failed.
 */

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_interrupts.h>

#include "net_comch_priv.h"

void
ncm_intr_init(struct ncm_proc *pp)
{
	unsigned int i;

	for (i = 0; i < NCM_MAX_QUEUES; i++)
		pp->rx_epfd[i] = -1;
}

/* The fd of @p cons's event, or -1. */
static int
ncm_cons_event_fd(struct rte_comch_consumer *cons)
{
	struct rte_comch_event *ev = rte_comch_consumer_event(cons);

	return ev != NULL ? rte_comch_event_fd(ev) : -1;
}

int
ncm_intr_setup(struct ncm_proc *pp)
{
	struct rte_eth_dev *dev = pp->dev;
	uint16_t n = dev->data->nb_rx_queues, i;
	struct rte_intr_handle *ih;

	if (!dev->data->dev_conf.intr_conf.rxq)
		return 0;
	if (pp->rx_ih != NULL && pp->nb_rx_intr == n)
		return 0;
	ncm_intr_teardown(pp);
	ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (ih == NULL)
		return -ENOMEM;
	if (rte_intr_type_set(ih, RTE_INTR_HANDLE_VDEV) != 0 ||
	    rte_intr_efd_counter_size_set(ih, 0) != 0 ||
	    rte_intr_nb_efd_set(ih, n) != 0 ||
	    rte_intr_max_intr_set(ih, n + 1) != 0 ||
	    rte_intr_vec_list_alloc(ih, "net_comch_rx", n) != 0)
		goto fail;
	for (i = 0; i < n; i++) {
		pp->rx_epfd[i] = epoll_create1(EPOLL_CLOEXEC);
		if (pp->rx_epfd[i] < 0 ||
		    rte_intr_efds_index_set(ih, i, pp->rx_epfd[i]) != 0 ||
		    rte_intr_vec_list_index_set(ih, i,
				RTE_INTR_VEC_RXTX_OFFSET + i) != 0)
			goto fail;
	}
	pp->rx_ih = ih;
	pp->nb_rx_intr = n;
	dev->intr_handle = ih;
	/* Consumers made before (a secondary that attached late): in. */
	for (i = 0; i < n; i++)
		if (pp->rxl[i].obj != NULL)
			(void)ncm_intr_consumer_added(pp, i, pp->rxl[i].obj);
	return 0;

fail:
	for (i = 0; i < n; i++) {
		if (pp->rx_epfd[i] >= 0)
			close(pp->rx_epfd[i]);
		pp->rx_epfd[i] = -1;
	}
	rte_intr_vec_list_free(ih);
	rte_intr_instance_free(ih);
	return -ENOMEM;
}

void
ncm_intr_teardown(struct ncm_proc *pp)
{
	uint16_t i;

	if (pp->rx_ih == NULL)
		return;
	if (pp->dev->intr_handle == pp->rx_ih)
		pp->dev->intr_handle = NULL;
	for (i = 0; i < pp->nb_rx_intr; i++) {
		close(pp->rx_epfd[i]);
		pp->rx_epfd[i] = -1;
		pp->rx_intr_on[i] = 0;
	}
	rte_intr_vec_list_free(pp->rx_ih);
	rte_intr_instance_free(pp->rx_ih);
	pp->rx_ih = NULL;
	pp->nb_rx_intr = 0;
}

/* The alarm made queue @p i's consumer (l->active is set): its event fd
 * joins the queue's set; an lcore asleep on the queue wakes to poll.
 * 0, or a negative errno (the queue has no interrupt then). */
int
ncm_intr_consumer_added(struct ncm_proc *pp, uint16_t i,
		struct rte_comch_consumer *cons)
{
	struct epoll_event e = { .events = EPOLLIN };
	int fd;

	if (i >= pp->nb_rx_intr)
		return 0;
	fd = ncm_cons_event_fd(cons);
	if (fd < 0)
		return -rte_errno;
	if (epoll_ctl(pp->rx_epfd[i], EPOLL_CTL_ADD, fd, &e) < 0)
		return -errno;
	/* Against rx_queue_intr_enable: it stores rx_intr_on, fences, then
	 * reads active; here active was stored, then this fence, then
	 * rx_intr_on is read: one of the two sees the other. */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pp->rx_intr_on[i], __ATOMIC_RELAXED))
		rte_comch_event_wake(rte_comch_consumer_event(cons));
	return 0;
}

/* Queue @p i's consumer is about to be destroyed: its fd leaves the set. */
void
ncm_intr_consumer_removed(struct ncm_proc *pp, uint16_t i,
		struct rte_comch_consumer *cons)
{
	int fd;

	if (i >= pp->nb_rx_intr)
		return;
	fd = ncm_cons_event_fd(cons);
	if (fd >= 0)
		epoll_ctl(pp->rx_epfd[i], EPOLL_CTL_DEL, fd, NULL);
}

int
ncm_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ncm_proc *pp = dev->process_private;
	struct rte_comch_event *ev;
	struct ncm_lq *l;

	if (pp == NULL || pp->rx_ih == NULL || qid >= pp->nb_rx_intr)
		return -ENOTSUP;
	l = &pp->rxl[qid];
	__atomic_store_n(&pp->rx_intr_on[qid], 1, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* No consumer yet: the alarm wakes the queue when it makes one. */
	if (!ncm_enter(l))
		return 0;
	ev = rte_comch_consumer_event(l->obj);
	/* > 0: completions are there; < 0: the connection is lost (the
	 * burst and the link status say so). Either way: poll now. Held
	 * completions of an earlier burst count as work too. */
	if (ev != NULL && (rte_comch_event_arm(ev) != 0 || l->cpl_n != 0))
		rte_comch_event_wake(ev);
	ncm_leave(l);
	return 0;
}

int
ncm_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ncm_proc *pp = dev->process_private;
	struct ncm_lq *l;

	if (pp == NULL || pp->rx_ih == NULL || qid >= pp->nb_rx_intr)
		return -ENOTSUP;
	l = &pp->rxl[qid];
	__atomic_store_n(&pp->rx_intr_on[qid], 0, __ATOMIC_RELAXED);
	if (ncm_enter(l)) {
		rte_comch_event_disarm(rte_comch_consumer_event(l->obj));
		ncm_leave(l);
	}
	return 0;
}
