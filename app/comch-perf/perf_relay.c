/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * dpdk-comch-perf across processes on the host side: a primary started
 * with --hold opens the connections and keeps them; a secondary
 * (--proc-type=secondary) attaches to them and runs the fast-path tests on
 * its own lcores. Control messages are the primary's, so the secondary's
 * BEGIN and END go through the primary: one rte_mp request each
 * (PERF_RELAY_ACTION), which the primary's main loop sends on the
 * connection and answers with the DPU's READY (and the ids of the DPU's
 * consumers created for the test, in order) or RESULT.
 *
 * The EAL multi-process thread only queues a request; the main lcore,
 * which owns the connections, sends it, waits for the answer while it
 * keeps polling, and replies. A connection serves one secondary's test
 * at a time.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "perf_session.h"

#define PERF_RELAY_ACTION "comch_perf_relay"
#define PERF_RELAY_WAIT_S 10

struct perf_relay_req {
	uint32_t conn_id;
	uint32_t reserved;
	struct perf_msg msg;   /* BEGIN or END */
};

struct perf_relay_rep {
	int32_t result;        /* 0 or a negative errno */
	uint32_t nb_consumers; /* READY: the DPU's consumers, in order */
	struct perf_msg msg;   /* READY or RESULT */
	uint8_t consumers[PERF_MAX_QUEUES];
};

/* A request waiting for the main lcore. */
struct perf_relay_item {
	TAILQ_ENTRY(perf_relay_item) next;
	struct perf_relay_req req;
	char peer[PATH_MAX];
};

static pthread_mutex_t relay_lock = PTHREAD_MUTEX_INITIALIZER;
static TAILQ_HEAD(, perf_relay_item) relay_queue =
	TAILQ_HEAD_INITIALIZER(relay_queue);

static void
relay_reply(const char *peer, const struct perf_relay_rep *rep)
{
	struct rte_mp_msg out;

	memset(&out, 0, sizeof(out));
	rte_strscpy(out.name, PERF_RELAY_ACTION, sizeof(out.name));
	out.len_param = sizeof(*rep);
	memcpy(out.param, rep, sizeof(*rep));
	if (rte_mp_reply(&out, peer) < 0)
		fprintf(stderr, "host: cannot answer a secondary: %s\n",
			rte_strerror(rte_errno));
}

/* EAL multi-process thread: check and queue. */
static int
relay_handle(const struct rte_mp_msg *msg, const void *peer)
{
	struct perf_relay_rep rep = { .result = -EINVAL };
	struct perf_relay_item *it;
	struct perf_relay_req req;

	if (msg->len_param != (int)sizeof(req) || msg->num_fds != 0 ||
	    strlen((const char *)peer) >= sizeof(it->peer)) {
		relay_reply(peer, &rep);
		return 0;
	}
	memcpy(&req, msg->param, sizeof(req));
	if (req.msg.magic != PERF_MAGIC || (req.msg.type != PERF_MSG_BEGIN &&
	    req.msg.type != PERF_MSG_END)) {
		relay_reply(peer, &rep);
		return 0;
	}
	it = calloc(1, sizeof(*it));
	if (it == NULL) {
		rep.result = -ENOMEM;
		relay_reply(peer, &rep);
		return 0;
	}
	it->req = req;
	rte_strscpy(it->peer, peer, sizeof(it->peer));
	pthread_mutex_lock(&relay_lock);
	TAILQ_INSERT_TAIL(&relay_queue, it, next);
	pthread_mutex_unlock(&relay_lock);
	return 0;
}

/* Main lcore: send @p req on its connection, wait for the DPU's answer. */
static int
relay_run(struct perf_session *s, const struct perf_relay_req *req,
		struct perf_relay_rep *rep)
{
	enum perf_msg_type want = req->msg.type == PERF_MSG_BEGIN ?
		PERF_MSG_READY : PERF_MSG_RESULT;
	uint64_t dl = rte_get_timer_cycles() +
		PERF_RELAY_WAIT_S * rte_get_timer_hz();
	struct perf_conn *pc = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nb_conns; i++)
		if (rte_comch_conn_id(s->conns[i].conn) == req->conn_id)
			pc = &s->conns[i];
	if (pc == NULL)
		return -ENOENT;
	if (want == PERF_MSG_READY) {
		if (req->msg.queues == 0 || req->msg.queues > PERF_MAX_QUEUES)
			return -EINVAL;
		pc->nb_peer_consumers = 0;
	}
	pc->have_last = false;
	while ((ret = rte_comch_msg_send(pc->conn, &req->msg,
			sizeof(req->msg))) == -EAGAIN &&
	       rte_get_timer_cycles() < dl)
		perf_conn_recv(pc, NULL);
	if (ret < 0)
		return ret;
	/* READY, and the consumer events for every queue: from then on the
	 * peer's consumers are published to secondaries. */
	while (!(pc->have_last && pc->last.type == want &&
		 (want != PERF_MSG_READY ||
		  pc->nb_peer_consumers >= req->msg.queues))) {
		if (perf_conn_recv(pc, NULL) < 0)
			return -ECONNRESET;
		if (perf_quit || rte_get_timer_cycles() > dl)
			return -ETIMEDOUT;
	}
	rep->msg = pc->last;
	if (want == PERF_MSG_READY) {
		rep->nb_consumers = req->msg.queues;
		for (i = 0; i < req->msg.queues; i++)
			rep->consumers[i] = (uint8_t)pc->peer_consumers[i];
	}
	return 0;
}

int
perf_hold_run(const struct perf_opts *o, int16_t dev_id)
{
	struct perf_session *s;
	struct perf_relay_item *it;
	struct perf_relay_rep rep;
	uint64_t end = o->duration > 0 ? rte_get_timer_cycles() +
		(uint64_t)(o->duration * (double)rte_get_timer_hz()) : UINT64_MAX;
	unsigned int i;
	int ret;

	s = rte_zmalloc("perf_session", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	ret = perf_session_open(s, o, dev_id);
	if (ret == 0 && rte_mp_action_register(PERF_RELAY_ACTION,
			relay_handle) < 0) {
		fprintf(stderr, "host: cannot serve secondary processes: %s\n",
			rte_strerror(rte_errno));
		ret = -rte_errno;
	}
	if (ret == 0) {
		printf("host: holding %u connection(s) to \"%s\" for secondary processes (ids",
			s->nb_conns, o->name);
		for (i = 0; i < s->nb_conns; i++)
			printf(" %u", rte_comch_conn_id(s->conns[i].conn));
		printf(")\n");
		fflush(stdout);
	}
	while (ret == 0 && !perf_quit && rte_get_timer_cycles() < end) {
		for (i = 0; i < s->nb_conns; i++)
			perf_conn_recv(&s->conns[i], NULL);
		pthread_mutex_lock(&relay_lock);
		it = TAILQ_FIRST(&relay_queue);
		if (it != NULL)
			TAILQ_REMOVE(&relay_queue, it, next);
		pthread_mutex_unlock(&relay_lock);
		if (it == NULL) {
			/* Idle: the control path only, so the core is the
			 * secondaries' (it may share it with them). */
			rte_delay_us_sleep(1000);
			continue;
		}
		memset(&rep, 0, sizeof(rep));
		rep.result = relay_run(s, &it->req, &rep);
		relay_reply(it->peer, &rep);
		free(it);
	}
	rte_mp_action_unregister(PERF_RELAY_ACTION);
	while ((it = TAILQ_FIRST(&relay_queue)) != NULL) {
		TAILQ_REMOVE(&relay_queue, it, next);
		free(it);
	}
	/* Secondaries still attached keep the connections busy: stop
	 * those first. */
	perf_session_close(s);
	rte_free(s);
	return ret;
}

int
perf_relay_call(struct perf_conn *pc, const struct perf_msg *msg)
{
	struct timespec ts = { .tv_sec = PERF_RELAY_WAIT_S + 2 };
	struct perf_relay_req req = { .conn_id = rte_comch_conn_id(pc->conn),
		.msg = *msg };
	struct perf_relay_rep rep;
	struct rte_mp_reply replies;
	struct rte_mp_msg out;
	unsigned int i;
	int ret;

	memset(&out, 0, sizeof(out));
	rte_strscpy(out.name, PERF_RELAY_ACTION, sizeof(out.name));
	out.len_param = sizeof(req);
	memcpy(out.param, &req, sizeof(req));
	memset(&replies, 0, sizeof(replies));
	if (rte_mp_request_sync(&out, &replies, &ts) < 0 ||
	    replies.nb_received != 1) {
		free(replies.msgs);
		fprintf(stderr, "host: the primary does not relay for secondaries; start it with --role=host --hold\n");
		return -ENODEV;
	}
	ret = replies.msgs[0].len_param == (int)sizeof(rep) ? 0 : -EPROTO;
	if (ret == 0)
		memcpy(&rep, replies.msgs[0].param, sizeof(rep));
	free(replies.msgs);
	if (ret == 0)
		ret = rep.result;
	if (ret < 0)
		return ret;
	if (rep.nb_consumers > PERF_MAX_QUEUES)
		return -EPROTO;
	pc->last = rep.msg;
	pc->have_last = true;
	pc->nb_peer_consumers = rep.nb_consumers;
	for (i = 0; i < rep.nb_consumers; i++)
		pc->peer_consumers[i] = rep.consumers[i];
	return 0;
}
