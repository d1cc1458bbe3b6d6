/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * net_comch control: the port's connection (primary), and one periodic
 * EAL alarm per port and process that drives it and, through
 * net_comch_queue.c, the queues' producers and consumers (every process).
 * See net_comch_priv.h for who holds what.
 *
 * The connection, in the primary (a table, ncm_next[]):
 *
 *   STOPPED --start--> WAITING --connected--> HANDSHAKE --agreed--> RUNNING
 *                                                 \--disagreed--> REFUSED
 *   HANDSHAKE/RUNNING/REFUSED --lost or stop--> RELEASING --released--> STOPPED
 *   (and on to WAITING at once if the port is still started)
 *
 * A queue's producer or consumer exists only while the port is RUNNING on
 * the connection of generation port->gen. Every change of connection
 * changes gen; each process then releases what it holds of the old one,
 * and the primary releases the connection once no process holds anything
 * on it (the library refuses earlier).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "net_comch_priv.h"

/* ------------------------------------------------------ state machine */

enum ncm_event {
	NCM_EV_START,
	NCM_EV_STOP,
	NCM_EV_CONNECTED,
	NCM_EV_AGREED,
	NCM_EV_DISAGREED,
	NCM_EV_LOST,
	NCM_EV_RELEASED,
	NCM_EV_MAX
};

#define NCM_ST_NONE NCM_ST_MAX /* not allowed: a bug */

static const uint8_t ncm_next[NCM_ST_MAX][NCM_EV_MAX] = {
	[NCM_ST_STOPPED] = {
		[NCM_EV_START] = NCM_ST_WAITING, [NCM_EV_STOP] = NCM_ST_STOPPED,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE, [NCM_EV_LOST] = NCM_ST_NONE,
		[NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_WAITING] = {
		[NCM_EV_START] = NCM_ST_WAITING, [NCM_EV_STOP] = NCM_ST_STOPPED,
		[NCM_EV_CONNECTED] = NCM_ST_HANDSHAKE,
		[NCM_EV_AGREED] = NCM_ST_NONE, [NCM_EV_DISAGREED] = NCM_ST_NONE,
		[NCM_EV_LOST] = NCM_ST_NONE, [NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_HANDSHAKE] = {
		[NCM_EV_START] = NCM_ST_HANDSHAKE,
		[NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE,
		[NCM_EV_AGREED] = NCM_ST_RUNNING,
		[NCM_EV_DISAGREED] = NCM_ST_REFUSED,
		[NCM_EV_LOST] = NCM_ST_RELEASING,
		[NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_RUNNING] = {
		[NCM_EV_START] = NCM_ST_RUNNING, [NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE,
		[NCM_EV_LOST] = NCM_ST_RELEASING, [NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_REFUSED] = {
		[NCM_EV_START] = NCM_ST_REFUSED, [NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE,
		[NCM_EV_LOST] = NCM_ST_RELEASING, [NCM_EV_RELEASED] = NCM_ST_NONE },
	[NCM_ST_RELEASING] = {
		[NCM_EV_START] = NCM_ST_RELEASING,
		[NCM_EV_STOP] = NCM_ST_RELEASING,
		[NCM_EV_CONNECTED] = NCM_ST_NONE, [NCM_EV_AGREED] = NCM_ST_NONE,
		[NCM_EV_DISAGREED] = NCM_ST_NONE, [NCM_EV_LOST] = NCM_ST_RELEASING,
		[NCM_EV_RELEASED] = NCM_ST_STOPPED },
};

static const char * const ncm_state_names[NCM_ST_MAX] = {
	[NCM_ST_STOPPED] = "stopped", [NCM_ST_WAITING] = "waiting",
	[NCM_ST_HANDSHAKE] = "handshake", [NCM_ST_RUNNING] = "running",
	[NCM_ST_REFUSED] = "refused", [NCM_ST_RELEASING] = "releasing",
};

const char *
ncm_state_name(enum ncm_state st)
{
	return st < NCM_ST_MAX ? ncm_state_names[st] : "?";
}

/* ---------------------------------------------------------- primary */

static void
ncm_on_connect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		void *arg)
{
	struct ncm_proc *pp = arg;

	/* max_clients is 1, so this is the only one; refuse any other. */
	if (pp->state == NCM_ST_WAITING && pp->conn == NULL &&
	    pp->new_conn == NULL)
		pp->new_conn = conn;
	else
		rte_comch_server_disconnect(srv, conn);
}

static void
ncm_on_disconnect(struct rte_comch_server *srv, struct rte_comch_conn *conn,
		int err, void *arg)
{
	struct ncm_proc *pp = arg;

	if (conn == pp->conn || conn == pp->new_conn) {
		pp->lost_conn = conn;
		pp->lost_err = err;
	} else {
		rte_comch_server_disconnect(srv, conn);
	}
}

static void
ncm_on_consumer(struct rte_comch_conn *conn __rte_unused,
		uint32_t id __rte_unused,
		enum rte_comch_consumer_event ev __rte_unused, void *arg)
{
	struct ncm_proc *pp = arg;

	pp->peers_changed = true;
}

static void
ncm_link_set(struct ncm_proc *pp, bool up)
{
	struct rte_eth_link link = {
		.link_speed = up ? RTE_ETH_SPEED_NUM_UNKNOWN : RTE_ETH_SPEED_NUM_NONE,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_status = up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN,
	};

	if (up == pp->link_up)
		return;
	pp->link_up = up;
	rte_eth_linkstatus_set(pp->dev, &link);
	NCM_LOG(INFO, "%s: link %s", ncm_name(pp), up ? "up" : "down");
	if (pp->dev->data->dev_conf.intr_conf.lsc)
		pp->lsc_pending = true;
}

/* Entry actions of each state. Returns 0, or a negative errno when the
 * comch side refused (start only). */
static int
ncm_enter_state(struct ncm_proc *pp, enum ncm_state next)
{
	struct ncm_port *port = pp->port;
	struct rte_eth_dev_data *d = pp->dev->data;
	uint16_t i;
	int ret;

	switch (next) {
	case NCM_ST_WAITING:
		if (pp->srv != NULL &&
		    rte_comch_server_state(pp->srv) == RTE_COMCH_STATE_IDLE) {
			ret = rte_comch_server_start(pp->srv);
			if (ret < 0)
				return ret;
		}
		pp->retry_at = 0;
		break;
	case NCM_ST_HANDSHAKE:
		__atomic_store_n(&port->conn_id, rte_comch_conn_id(pp->conn),
				__ATOMIC_RELEASE);
		__atomic_add_fetch(&port->gen, 1, __ATOMIC_RELEASE);
		port->nb_connects++;
		ncm_proto_init(&pp->proto, port->conf.nb_queues,
			d->nb_rx_queues, d->nb_tx_queues, port->conf.buf_size,
			d->mtu, d->mac_addrs[0].addr_bytes);
		pp->hello_sent = false;
		pp->hello_deadline = rte_get_timer_cycles() +
			ncm_ms(NCM_HELLO_TIMEOUT_MS);
		for (i = 0; i < d->nb_rx_queues; i++)
			((struct ncm_rxq *)d->rx_queues[i])->announced = 0;
		NCM_LOG(DEBUG, "%s: connection %u established", ncm_name(pp),
			port->conn_id);
		break;
	case NCM_ST_RUNNING:
		__atomic_store_n(&port->ready, 1, __ATOMIC_RELEASE);
		break;
	case NCM_ST_RELEASING:
		__atomic_store_n(&port->ready, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&port->gen, 1, __ATOMIC_RELEASE);
		for (i = 0; i < d->nb_tx_queues; i++)
			__atomic_store_n(&((struct ncm_txq *)d->tx_queues[i])->peer_id,
					0, __ATOMIC_RELEASE);
		ncm_link_set(pp, false);
		break;
	case NCM_ST_STOPPED:
		if (pp->started)
			break; /* released a lost connection: on to WAITING */
		if (pp->srv != NULL &&
		    rte_comch_server_state(pp->srv) != RTE_COMCH_STATE_IDLE)
			rte_comch_server_stop(pp->srv);
		if (pp->cli != NULL &&
		    rte_comch_client_state(pp->cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(pp->cli);
		break;
	default:
		break;
	}
	return 0;
}

static int
ncm_event(struct ncm_proc *pp, enum ncm_event ev)
{
	enum ncm_state next = ncm_next[pp->state][ev];
	int ret;

	if (next == NCM_ST_NONE) {
		NCM_LOG(ERR, "%s: event %d in state %s (a bug)", ncm_name(pp),
			ev, ncm_state_name(pp->state));
		return -EINVAL;
	}
	if (next == pp->state)
		return 0;
	ret = ncm_enter_state(pp, next);
	if (ret < 0)
		return ret;
	pp->state = next;
	pp->port->state = (uint8_t)next;
	return 0;
}

/* The connection went down: @p err 0, the peer closed it on purpose (its
 * port stopped or closed); negative, it was lost. Either way the port
 * releases it (NCM_EV_LOST). */
static void
ncm_log_down(struct ncm_proc *pp, int err)
{
	if (err == 0)
		NCM_LOG(INFO, "%s: connection %u closed by the peer",
			ncm_name(pp), pp->port->conn_id);
	else
		NCM_LOG(INFO, "%s: connection %u lost: %s", ncm_name(pp),
			pp->port->conn_id, strerror(-err));
}

/* Host: connect, retrying while there is no DPU or no such server. */
static void
ncm_client_tick(struct ncm_proc *pp)
{
	enum rte_comch_state st;
	int err = 0;

	st = rte_comch_client_state(pp->cli, &err);
	if (st == RTE_COMCH_STATE_IDLE) {
		if (pp->state != NCM_ST_WAITING ||
		    rte_get_timer_cycles() < pp->retry_at)
			return;
		err = rte_comch_client_start(pp->cli);
		if (err < 0) {
			pp->retry_at = rte_get_timer_cycles() + ncm_ms(NCM_RETRY_MS);
			return;
		}
	}
	rte_comch_client_poll(pp->cli);
	st = rte_comch_client_state(pp->cli, &err);
	switch (st) {
	case RTE_COMCH_STATE_RUNNING:
		if (pp->state == NCM_ST_WAITING) {
			pp->conn = rte_comch_client_conn(pp->cli);
			ncm_event(pp, NCM_EV_CONNECTED);
		}
		break;
	case RTE_COMCH_STATE_STOPPING:
		if (pp->state != NCM_ST_WAITING && pp->state != NCM_ST_RELEASING) {
			ncm_log_down(pp, err);
			ncm_event(pp, NCM_EV_LOST);
		}
		break;
	case RTE_COMCH_STATE_IDLE:
		/* The attempt failed: say why once, retry. */
		if (err != pp->last_client_err) {
			if (err == -ENOENT || err == -ECONNREFUSED ||
			    err == -EAGAIN || err == -EBUSY)
				NCM_LOG(DEBUG, "%s: server \"%s\" not reachable yet (%s); retrying every %d ms",
					ncm_name(pp), pp->port->conf.server,
					strerror(-err), NCM_RETRY_MS);
			else
				NCM_LOG(ERR, "%s: server \"%s\" refused the connection: %s; retrying every %d ms",
					ncm_name(pp), pp->port->conf.server,
					strerror(-err), NCM_RETRY_MS);
			pp->last_client_err = err;
		}
		pp->retry_at = rte_get_timer_cycles() + ncm_ms(NCM_RETRY_MS);
		break;
	default:
		break;
	}
}

/*
 * Control messages of the connection: at most NCM_CTRL_BUDGET a tick,
 * then true (more may wait: the tick reports itself busy, so the next
 * one comes after NCM_TICK_BUSY_US); a peer that keeps its queue full
 * cannot keep the interrupt thread here. A refused connection is not read
 * any more: nothing its peer says can change the outcome (a second HELLO
 * would be a violation, a QUEUE is ignored), so its messages wait, unread
 * and costing nothing, until it hangs up or the port stops; the loss is
 * seen as for any connection (the server's disconnect callback, the
 * client's state).
 */
static bool
ncm_msgs_tick(struct ncm_proc *pp)
{
	struct rte_comch_msg msgs[8];
	unsigned int budget = NCM_CTRL_BUDGET;
	char why[256];
	int n, k, ev;

	while (budget > 0) {
		if (pp->state == NCM_ST_REFUSED || pp->state == NCM_ST_RELEASING)
			return false;
		n = rte_comch_msg_recv_burst(pp->conn, msgs,
				RTE_MIN(budget, (unsigned int)RTE_DIM(msgs)));
		if (n == -ECONNRESET) {
			if (pp->state != NCM_ST_RELEASING) {
				NCM_LOG(INFO, "%s: connection %u lost",
					ncm_name(pp), pp->port->conn_id);
				ncm_event(pp, NCM_EV_LOST);
			}
			return false;
		}
		if (n <= 0)
			return false;
		budget -= (unsigned int)n;
		for (k = 0; k < n && pp->state != NCM_ST_RELEASING &&
		     pp->state != NCM_ST_REFUSED; k++) {
			ev = ncm_proto_input(&pp->proto, msgs[k].data,
					msgs[k].len, why, sizeof(why));
			switch (ev) {
			case NCM_PROTO_VIOLATION:
				NCM_LOG(ERR, "%s: connection %u: the peer broke the port protocol: %s; closing the connection",
					ncm_name(pp), pp->port->conn_id, why);
				pp->port->nb_refused++;
				ncm_event(pp, NCM_EV_LOST);
				break;
			case NCM_PROTO_AGREED:
				NCM_LOG(DEBUG, "%s: connection %u: handshake done",
					ncm_name(pp), pp->port->conn_id);
				ncm_event(pp, NCM_EV_AGREED);
				pp->peers_changed = true;
				break;
			case NCM_PROTO_DISAGREED:
				NCM_LOG(ERR, "%s: connection %u: the two ends disagree: %s; the link stays down",
					ncm_name(pp), pp->port->conn_id, why);
				pp->port->nb_refused++;
				ncm_event(pp, NCM_EV_DISAGREED);
				break;
			case NCM_PROTO_QUEUE:
				pp->peers_changed = true;
				break;
			default:
				break;
			}
		}
	}
	return true;
}

/* Tell the peer which consumer each rx queue has (once HELLO went). */
static void
ncm_announce_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	uint32_t gen = pp->port->gen;
	uint16_t i;

	if (!pp->hello_sent) {
		if (rte_comch_msg_send(pp->conn, &pp->proto.mine,
				sizeof(pp->proto.mine)) != 0)
			return; /* -EAGAIN: next tick; -ECONNRESET: seen there */
		pp->hello_sent = true;
	}
	if (pp->state != NCM_ST_RUNNING)
		return;
	for (i = 0; i < d->nb_rx_queues; i++) {
		struct ncm_rxq *q = d->rx_queues[i];
		struct ncm_msg_queue m;
		uint32_t id;

		if (__atomic_load_n(&q->cons_gen, __ATOMIC_ACQUIRE) != gen)
			continue;
		id = __atomic_load_n(&q->cons_id, __ATOMIC_ACQUIRE);
		if (id == 0 || id == q->announced)
			continue;
		ncm_proto_queue_msg(&m, i, id);
		if (rte_comch_msg_send(pp->conn, &m, sizeof(m)) != 0)
			return;
		q->announced = id;
	}
}

/* The peer's consumer of each tx queue, once announced and live. */
static void
ncm_peers_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	uint32_t ids[NCM_MAX_QUEUES], gen = pp->port->gen;
	int nb_ids = -1;
	uint16_t i;

	if (pp->state != NCM_ST_RUNNING || !pp->peers_changed)
		return;
	pp->peers_changed = false;
	for (i = 0; i < d->nb_tx_queues; i++) {
		struct ncm_txq *q = d->tx_queues[i];
		uint32_t id = pp->proto.peer_cons[i];

		if (id != 0 && !ncm_peer_live(pp, id, ids, &nb_ids))
			id = 0;
		__atomic_store_n(&q->peer_gen, gen, __ATOMIC_RELAXED);
		__atomic_store_n(&q->peer_id, id, __ATOMIC_RELEASE);
	}
}

/* Up: running, and every tx queue has the peer's consumer, and those of
 * this process already use it. */
static void
ncm_link_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	bool up = pp->state == NCM_ST_RUNNING && pp->hello_sent;
	uint16_t i;

	for (i = 0; i < d->nb_tx_queues && up; i++) {
		struct ncm_txq *q = d->tx_queues[i];
		const struct ncm_lq *l = &pp->txl[i];

		up = q->peer_gen == pp->port->gen && q->peer_id != 0 &&
			(!l->held || !l->active || l->peer_id == q->peer_id);
	}
	ncm_link_set(pp, up);
}

/* Release the connection once no process holds anything on it. */
static void
ncm_release_tick(struct ncm_proc *pp)
{
	struct rte_eth_dev_data *d = pp->dev->data;
	uint16_t i;
	int ret = 0;

	for (i = 0; i < d->nb_rx_queues; i++)
		if (((struct ncm_rxq *)d->rx_queues[i])->owner != 0)
			return;
	for (i = 0; i < d->nb_tx_queues; i++)
		if (((struct ncm_txq *)d->tx_queues[i])->owner != 0)
			return;
	if (pp->conn != NULL) {
		if (pp->srv != NULL)
			ret = rte_comch_server_disconnect(pp->srv, pp->conn);
		else
			ret = rte_comch_client_stop(pp->cli);
		if (ret == -EBUSY)
			return; /* a secondary still attached: it detaches */
		NCM_LOG(DEBUG, "%s: connection %u released", ncm_name(pp),
			pp->port->conn_id);
	}
	pp->conn = NULL;
	pp->lost_conn = NULL;
	ncm_event(pp, NCM_EV_RELEASED);
	if (pp->started)
		ncm_event(pp, NCM_EV_START);
}

static bool
ncm_primary_tick(struct ncm_proc *pp)
{
	bool busy, more = false;

	if (pp->srv != NULL && rte_comch_server_state(pp->srv) ==
	    RTE_COMCH_STATE_RUNNING)
		rte_comch_server_poll(pp->srv);
	if (pp->cli != NULL && pp->state != NCM_ST_STOPPED)
		ncm_client_tick(pp);
	if (pp->new_conn != NULL && pp->lost_conn != pp->new_conn) {
		pp->conn = pp->new_conn;
		pp->new_conn = NULL;
		ncm_event(pp, NCM_EV_CONNECTED);
	}
	if (pp->lost_conn != NULL) {
		if (pp->lost_conn == pp->new_conn) {
			/* Lost before we took it. */
			rte_comch_server_disconnect(pp->srv, pp->new_conn);
			pp->new_conn = NULL;
			pp->lost_conn = NULL;
		} else if (pp->state != NCM_ST_RELEASING) {
			ncm_log_down(pp, pp->lost_err);
			ncm_event(pp, NCM_EV_LOST);
		}
	}
	if (pp->state == NCM_ST_HANDSHAKE && !pp->proto.hello_seen &&
	    rte_get_timer_cycles() > pp->hello_deadline) {
		NCM_LOG(ERR, "%s: connection %u: no HELLO from the peer within %d ms (is it a net_comch port?); closing the connection",
			ncm_name(pp), pp->port->conn_id, NCM_HELLO_TIMEOUT_MS);
		pp->port->nb_refused++;
		ncm_event(pp, NCM_EV_LOST);
	}
	if (pp->conn != NULL && (pp->state == NCM_ST_HANDSHAKE ||
	    pp->state == NCM_ST_RUNNING || pp->state == NCM_ST_REFUSED)) {
		more = ncm_msgs_tick(pp);
		if (pp->state != NCM_ST_RELEASING)
			ncm_announce_tick(pp);
	}
	ncm_reap_dead(pp);
	ncm_peers_tick(pp);
	busy = ncm_queues_tick(pp);
	ncm_link_tick(pp);
	if (pp->state == NCM_ST_RELEASING)
		ncm_release_tick(pp);
	return busy || more || pp->state == NCM_ST_HANDSHAKE ||
		pp->state == NCM_ST_RELEASING ||
		(pp->state == NCM_ST_WAITING && pp->cli != NULL);
}

/* -------------------------------------------------------------- alarm */

static void ncm_alarm(void *arg);

/* The comch device may be removed before the port (rte_eal_cleanup()
 * removes vdevs in command-line order): then nothing of it is touched. */
static bool
ncm_comch_gone(struct ncm_proc *pp)
{
	if (pp->comch_id < 0)
		return false;
	if (!pp->comch_gone && rte_comch_get_dev_id_by_name(pp->port->conf.comch) !=
	    pp->comch_id) {
		NCM_LOG(NOTICE, "%s: comch device %s was removed before the port; close the port first",
			ncm_name(pp), pp->port->conf.comch);
		pp->comch_gone = true;
	}
	return pp->comch_gone;
}

static void
ncm_tick_locked(struct ncm_proc *pp, bool *busy)
{
	*busy = false;
	if (ncm_comch_gone(pp))
		return;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		*busy = ncm_primary_tick(pp);
	else
		*busy = ncm_queues_tick(pp);
}

/* Report a link change outside the lock: an application's callback may
 * call back into the port. */
static void
ncm_report(struct ncm_proc *pp)
{
	bool lsc;

	pthread_mutex_lock(&pp->lock);
	lsc = pp->lsc_pending;
	pp->lsc_pending = false;
	pthread_mutex_unlock(&pp->lock);
	if (lsc)
		rte_eth_dev_callback_process(pp->dev, RTE_ETH_EVENT_INTR_LSC,
				NULL);
}

static void
ncm_alarm(void *arg)
{
	struct ncm_proc *pp = arg;
	bool busy = false, on;

	pthread_mutex_lock(&pp->lock);
	if (pp->alarm_on)
		ncm_tick_locked(pp, &busy);
	on = pp->alarm_on;
	pthread_mutex_unlock(&pp->lock);
	ncm_report(pp);
	if (on)
		rte_eal_alarm_set(busy ? NCM_TICK_BUSY_US : NCM_TICK_IDLE_US,
				ncm_alarm, pp);
}

void
ncm_ctrl_tick(struct ncm_proc *pp)
{
	bool busy;

	pthread_mutex_lock(&pp->lock);
	ncm_tick_locked(pp, &busy);
	pthread_mutex_unlock(&pp->lock);
	ncm_report(pp);
}

/* ---------------------------------------------------------- dev ops */

int
ncm_ctrl_init(struct ncm_proc *pp)
{
	struct ncm_port *port = pp->port;
	pthread_mutexattr_t a;
	int ret;

	pthread_mutexattr_init(&a);
	pthread_mutex_init(&pp->lock, &a);
	pthread_mutexattr_destroy(&a);
	pp->pid = (int32_t)getpid();
	pp->comch_id = -1;
	pp->state = NCM_ST_STOPPED;
	ncm_membarrier_init(pp);
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		pp->comch_id = (int16_t)rte_comch_get_dev_id_by_name(port->conf.comch);
		if (port->role == RTE_COMCH_ROLE_DPU) {
			struct rte_comch_server_conf sc = {
				.function_id = port->function_id,
				.name = port->conf.server,
				.max_clients = 1,
				.connect_cb = ncm_on_connect,
				.disconnect_cb = ncm_on_disconnect,
				.consumer_event_cb = ncm_on_consumer,
				.cb_arg = pp,
			};

			pp->srv = rte_comch_server_create(pp->comch_id, &sc);
			if (pp->srv == NULL) {
				ret = -rte_errno;
				NCM_LOG(ERR, "%s: cannot create server \"%s\" on %s function %s: %s%s",
					ncm_name(pp), port->conf.server,
					port->conf.comch, port->conf.function,
					strerror(rte_errno), rte_errno == EEXIST ?
					" (another port or application serves that name there)" : "");
				return ret;
			}
		} else {
			struct rte_comch_client_conf cc = {
				.server_name = port->conf.server,
				.consumer_event_cb = ncm_on_consumer,
				.cb_arg = pp,
			};

			pp->cli = rte_comch_client_create(pp->comch_id, &cc);
			if (pp->cli == NULL) {
				ret = -rte_errno;
				NCM_LOG(ERR, "%s: cannot create a client of \"%s\" on %s: %s",
					ncm_name(pp), port->conf.server,
					port->conf.comch, strerror(rte_errno));
				return ret;
			}
		}
	}
	pp->alarm_on = true;
	ret = rte_eal_alarm_set(NCM_TICK_IDLE_US, ncm_alarm, pp);
	if (ret < 0) {
		pp->alarm_on = false;
		NCM_LOG(ERR, "%s: cannot set the control alarm: %s",
			ncm_name(pp), strerror(-ret));
		if (pp->srv != NULL)
			rte_comch_server_destroy(pp->srv);
		if (pp->cli != NULL)
			rte_comch_client_destroy(pp->cli);
		pp->srv = NULL;
		pp->cli = NULL;
		return ret;
	}
	return 0;
}

int
ncm_ctrl_start(struct ncm_proc *pp)
{
	int ret;

	pthread_mutex_lock(&pp->lock);
	pp->started = true;
	ret = ncm_event(pp, NCM_EV_START);
	if (ret < 0)
		pp->started = false;
	pthread_mutex_unlock(&pp->lock);
	if (ret < 0)
		NCM_LOG(ERR, "%s: cannot start server \"%s\": %s",
			ncm_name(pp), pp->port->conf.server, strerror(-ret));
	return ret;
}

/* Give the release a bounded time to finish here (secondaries release on
 * their own alarms); whatever is left, the alarm finishes. */
static void
ncm_settle(struct ncm_proc *pp, double seconds)
{
	uint64_t dl = rte_get_timer_cycles() + (uint64_t)(seconds *
			(double)rte_get_timer_hz());

	for (;;) {
		ncm_ctrl_tick(pp);
		if (pp->state == NCM_ST_STOPPED || rte_get_timer_cycles() > dl)
			break;
		rte_delay_us_sleep(1000);
	}
}

int
ncm_ctrl_stop(struct ncm_proc *pp)
{
	pthread_mutex_lock(&pp->lock);
	pp->started = false;
	ncm_event(pp, NCM_EV_STOP);
	pthread_mutex_unlock(&pp->lock);
	ncm_settle(pp, 3);
	if (pp->state != NCM_ST_STOPPED)
		NCM_LOG(NOTICE, "%s: stopped; another process still holds queues of connection %u: it is released when they let go",
			ncm_name(pp), pp->port->conn_id);
	return 0;
}

void
ncm_ctrl_fini(struct ncm_proc *pp)
{
	uint16_t i;

	if (rte_eal_process_type() == RTE_PROC_PRIMARY &&
	    pp->state != NCM_ST_STOPPED) {
		ncm_settle(pp, 5);
		if (pp->state != NCM_ST_STOPPED)
			NCM_LOG(WARNING, "%s: closing while another process holds queues: stop it first",
				ncm_name(pp));
	}
	pthread_mutex_lock(&pp->lock);
	pp->alarm_on = false;
	pthread_mutex_unlock(&pp->lock);
	rte_eal_alarm_cancel(ncm_alarm, pp);
	/* What this process still holds (a secondary's queues): its
	 * lcores are done with the port. */
	pthread_mutex_lock(&pp->lock);
	if (ncm_comch_gone(pp)) {
		pthread_mutex_unlock(&pp->lock);
		pthread_mutex_destroy(&pp->lock);
		return;
	}
	for (i = 0; i < NCM_MAX_QUEUES; i++) {
		struct ncm_lq *rl = &pp->rxl[i], *tl = &pp->txl[i];

		if (rl->held) {
			uint64_t dl = rte_get_timer_cycles() + ncm_ms(3000);

			__atomic_store_n(&rl->active, 0, __ATOMIC_RELEASE);
			while (!ncm_rx_release(pp, i) &&
			       rte_get_timer_cycles() < dl)
				rte_delay_us_sleep(1000);
		}
		if (tl->held) {
			__atomic_store_n(&tl->active, 0, __ATOMIC_RELEASE);
			ncm_tx_release(pp, i);
		}
	}
	if (pp->attached)
		rte_comch_conn_detach(pp->conn);
	pp->attached = false;
	pp->conn = NULL;
	if (pp->srv != NULL) {
		if (rte_comch_server_state(pp->srv) != RTE_COMCH_STATE_IDLE)
			rte_comch_server_stop(pp->srv);
		rte_comch_server_destroy(pp->srv);
		pp->srv = NULL;
	}
	if (pp->cli != NULL) {
		if (rte_comch_client_state(pp->cli, NULL) != RTE_COMCH_STATE_IDLE)
			rte_comch_client_stop(pp->cli);
		rte_comch_client_destroy(pp->cli);
		pp->cli = NULL;
	}
	pthread_mutex_unlock(&pp->lock);
	pthread_mutex_destroy(&pp->lock);
}
