/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Event mode under stress: no wake-up is ever lost. Two processes, a DPU
 * (this one: a server) and a host (a child running this binary: a
 * client), each its own primary, exchange control messages and fast-path
 * messages both ways at once, and each sleeps in epoll on its events
 * (server or client, connection, consumer) whenever it has nothing to do,
 * at random turns ("passive" until the peer's next message) and at random
 * naps of 0 to 2 ms. Everything arrives, in order, once.
 *
 * The watchdog: a side that sleeps with nothing left to do but wait for
 * the peer sleeps on a STALL_S timer. When the timer fires while it still
 * expects messages, it arms: work there is a lost wake-up, and the test
 * fails at once. Nothing there is no proof of anything yet: on a busy
 * machine the peer may simply not have run (its wait for a CPU is read
 * from /proc and printed); the test fails only when nothing has come
 * for QUIET_GUARD_S (a message lost, or both sides waiting on each other).
 * The devices' own periodic check, which would hide a lost kick, is set to
 * an hour (wake_check_ms=3600000), and every event must end with 0
 * rescues.
 *
 *   test_comch_event_stress [--messages N]   N in all (default 10^7)
 *
 * CI runs the default; devtools/event-stress.sh runs longer.
 */

#include <getopt.h>
#include <poll.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/wait.h>

#include <rte_memory.h>

#include "comch_test.h"

extern char **environ;

#define STALL_S 10
/* Nothing from the peer for this long, with nothing there, fails. Not
 * TEST_GUARD_S: beside two CI runs at once a pinned peer here waited
 * 57 s of 59 for a CPU (the kernel's group scheduling; testing guide). */
#define QUIET_GUARD_S 300
#define QUEUE 64                 /* control queue depth, each way */
#define POSTS 256                /* fast-path buffers, each way */
#define BUF 256
#define BURST 32
#define CHECK_MS 3600000         /* the devices' periodic check: off */
static const char FIN[4] = "FIN";   /* the end (side_fin()) */

static char link_dir[64];
/* SIGUSR1 from the DPU when it failed: the host says what it was doing. */
static volatile sig_atomic_t dump_state;

static void
on_usr1(int sig __rte_unused)
{
	dump_state = 1;
}
static const char *self_path;

/* A ping is a sequence number (first 8 bytes of a control message, the
 * immediate data of a fast-path one) and bytes derived from it. */
static inline uint32_t
fill(uint8_t *p, uint64_t seq, uint32_t max)
{
	uint32_t len = 8 + (uint32_t)(seq * 2654435761u % (max - 7));

	memcpy(p, &seq, 8);
	memset(p + 8, (int)(seq & 0xff), len - 8);
	return len;
}

static inline bool
good(const uint8_t *p, uint32_t len, uint64_t seq, uint32_t max)
{
	uint32_t want = 8 + (uint32_t)(seq * 2654435761u % (max - 7));
	uint64_t got;

	memcpy(&got, p, 8);
	return len == want && got == seq &&
		(len == 8 || (p[8] == (uint8_t)seq && p[len - 1] == (uint8_t)seq));
}

struct side {
	const char *name;
	struct rte_comch_server *srv;
	struct rte_comch_client *cli;
	struct rte_comch_conn *conn;
	struct rte_comch_mem *mem;
	struct rte_comch_consumer *cons;
	struct rte_comch_producer *prod;
	struct rte_comch_event *ev[3];   /* server/client, connection, consumer */
	int ep;
	uint32_t peer_cons;
	int lost;
	bool fin;                        /* the peer's FIN came */
	uint64_t n_ctrl, n_fp;           /* to send, and to receive */
	uint64_t ctrl_sent, ctrl_recv, fp_sent, fp_recv;
	uint64_t sleeps, woken, timeouts, naps, ready;
	uint64_t rng;
	pid_t peer;                      /* its process, for /proc */
	/* A wait the timer ended with nothing there (0: none now): since
	 * when, what had arrived then, and the peer's wait for a CPU then. */
	uint64_t quiet_since;
	uint64_t quiet_recv;
	uint64_t quiet_runq_ns;
};

/* How long @p pid's main thread has waited for a CPU so far, in ns (0 if
 * the kernel does not say). */
static uint64_t
runq_wait_ns(pid_t pid)
{
	char path[64];
	unsigned long long run = 0, wait = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &wait) != 2)
		wait = 0;
	fclose(f);
	return wait;
}

static inline uint32_t
rnd(struct side *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint32_t)s->rng;
}

static void
on_connect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *c, void *arg)
{
	((struct side *)arg)->conn = c;
}

static void
on_disconnect(struct rte_comch_server *srv __rte_unused,
		struct rte_comch_conn *c __rte_unused, int err __rte_unused,
		void *arg)
{
	((struct side *)arg)->lost = 1;
}

static void
on_consumer(struct rte_comch_conn *c __rte_unused, uint32_t id,
		enum rte_comch_consumer_event e, void *arg)
{
	if (e == RTE_COMCH_CONSUMER_CREATED)
		((struct side *)arg)->peer_cons = id;
}

static void
side_poll(struct side *s)
{
	if (s->srv != NULL)
		rte_comch_server_poll(s->srv);
	else
		rte_comch_client_poll(s->cli);
}

/* Arm every event: 1 if one found work. */
static int
side_arm(struct side *s)
{
	int i, r, ready = 0;

	for (i = 0; i < 3; i++) {
		r = rte_comch_event_arm(s->ev[i]);
		if (r < 0) {
			printf("%s: arm %d: %s\n", s->name, i, rte_strerror(-r));
			return r;
		}
		ready |= r;
	}
	return ready;
}

/* The fast path and the events, once connected. */
static int
side_setup(struct side *s, int16_t dev)
{
	struct rte_comch_consumer_conf conf = { .nb_posts = POSTS,
		.max_imm_len = 8, .flags = RTE_COMCH_F_EVENT };
	struct epoll_event e = { .events = EPOLLIN };
	void *bufs[POSTS];
	uint32_t lens[POSTS];
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int i;

	s->mem = rte_comch_mem_create(dev, POSTS * BUF, SOCKET_ID_ANY);
	CHECK(s->mem != NULL, "mem");
	conf.mem = s->mem;
	s->cons = rte_comch_consumer_create(s->conn, &conf);
	CHECK(s->cons != NULL, "consumer: %s", rte_strerror(rte_errno));
	CHECK_OK(rte_comch_consumer_start(s->cons));
	for (i = 0; i < POSTS; i++) {
		bufs[i] = (uint8_t *)rte_comch_mem_addr(s->mem) + i * BUF;
		lens[i] = BUF;
	}
	CHECK_EQ(rte_comch_consumer_post_burst(s->cons, bufs, lens, POSTS),
		POSTS);
	s->prod = rte_comch_producer_create(s->conn, NULL);
	CHECK(s->prod != NULL && rte_comch_producer_start(s->prod) == 0,
		"producer");
	s->ev[0] = s->srv != NULL ? rte_comch_server_event(s->srv) :
		rte_comch_client_event(s->cli);
	s->ev[1] = rte_comch_conn_event(s->conn);
	s->ev[2] = rte_comch_consumer_event(s->cons);
	CHECK(s->ev[0] != NULL && s->ev[1] != NULL && s->ev[2] != NULL,
		"events");
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	for (i = 0; i < 3; i++) {
		e.data.u32 = (uint32_t)i;
		CHECK_OK(epoll_ctl(s->ep, EPOLL_CTL_ADD,
				rte_comch_event_fd(s->ev[i]), &e));
	}
	while (s->peer_cons == 0 && !test_expired(dl))
		side_poll(s);
	CHECK(s->peer_cons != 0, "the peer's consumer never came");
	return 0;
}

static int
side_teardown(struct side *s)
{
	struct rte_comch_completion cpl[BURST];
	struct rte_comch_event_stats st;
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int i;

	for (i = 0; i < 3; i++) {
		CHECK_OK(rte_comch_event_stats_get(s->ev[i], &st));
		CHECK(st.rescues == 0, "%s: event %d: %" PRIu64 " rescues",
			s->name, i, st.rescues);
	}
	close(s->ep);
	CHECK_OK(rte_comch_producer_stop(s->prod));
	CHECK_OK(rte_comch_producer_destroy(s->prod));
	CHECK_OK(rte_comch_consumer_stop(s->cons));
	while (rte_comch_consumer_state(s->cons) != RTE_COMCH_STATE_IDLE &&
	       !test_expired(dl)) {
		rte_comch_consumer_poll_burst(s->cons, cpl, BURST);
		side_poll(s);
	}
	CHECK_OK(rte_comch_consumer_destroy(s->cons));
	CHECK_OK(rte_comch_mem_destroy(s->mem));
	return 0;
}

static int
side_recv(struct side *s)
{
	struct rte_comch_completion cpl[BURST];
	struct rte_comch_msg m[BURST];
	void *bufs[BURST];
	uint32_t lens[BURST];
	uint64_t seq;
	int n, i, got = 0;

	n = rte_comch_msg_recv_burst(s->conn, m, BURST);
	CHECK(n >= 0, "%s: receive: %s", s->name, rte_strerror(-n));
	for (i = 0; i < n; i++) {
		/* after the peer's last control message: its FIN */
		if (s->ctrl_recv == s->n_ctrl && m[i].len == sizeof(FIN) &&
		    memcmp(m[i].data, FIN, sizeof(FIN)) == 0 && !s->fin) {
			s->fin = true;
			continue;
		}
		CHECK(good(m[i].data, m[i].len, s->ctrl_recv, 64),
			"%s: control message %" PRIu64 " wrong", s->name,
			s->ctrl_recv);
		s->ctrl_recv++;
	}
	got += n;
	n = rte_comch_consumer_poll_burst(s->cons, cpl, BURST);
	CHECK(n >= 0, "%s: consumer: %s", s->name, rte_strerror(-n));
	for (i = 0; i < n; i++) {
		memcpy(&seq, cpl[i].imm, 8);
		CHECK(cpl[i].status == 0 && cpl[i].imm_len == 8 &&
			seq == s->fp_recv && good(cpl[i].buf, cpl[i].len, seq,
				BUF), "%s: fast-path message %" PRIu64 " wrong",
			s->name, s->fp_recv);
		s->fp_recv++;
		bufs[i] = cpl[i].buf;
		lens[i] = BUF;
	}
	if (n > 0)
		CHECK_EQ(rte_comch_consumer_post_burst(s->cons, bufs, lens,
				(uint16_t)n), n);
	return got + n;
}

/* Send at random: returns what went, and says what blocked. */
static int
side_send(struct side *s, bool *ctrl_blocked, bool *fp_blocked)
{
	uint8_t msg[64], pay[BURST][BUF];
	struct rte_comch_send_op ops[BURST];
	uint64_t seqs[BURST];
	uint32_t k, i;
	int n, r, sent = 0;

	*ctrl_blocked = false;
	*fp_blocked = false;
	/* short bursts: more turns, more sleeps */
	k = rnd(s) % 8 + 1;
	for (i = 0; i < k && s->ctrl_sent < s->n_ctrl; i++) {
		r = rte_comch_msg_send(s->conn, msg, fill(msg, s->ctrl_sent, 64));
		if (r == -EAGAIN) {
			*ctrl_blocked = true;
			break;
		}
		CHECK_OK(r);
		s->ctrl_sent++;
		sent++;
	}
	k = RTE_MIN(rnd(s) % 16 + 1, (uint32_t)(s->n_fp - s->fp_sent));
	for (i = 0; i < k; i++) {
		seqs[i] = s->fp_sent + i;
		ops[i].data = pay[i];
		ops[i].len = fill(pay[i], seqs[i], BUF);
		ops[i].imm = &seqs[i];
		ops[i].imm_len = 8;
	}
	if (k != 0) {
		n = rte_comch_producer_send_burst(s->prod, s->peer_cons, ops,
				(uint16_t)k);
		CHECK(n >= 0, "%s: send: %s", s->name, rte_strerror(-n));
		s->fp_sent += (uint64_t)n;
		sent += n;
		*fp_blocked = (uint32_t)n < k;
	}
	return sent;
}

/*
 * The end: a side that has sent and received everything sends FIN (one
 * more control message, after its last), then waits for the peer's FIN
 * or for the peer to leave, which it does only once it has this FIN: so
 * neither leaves while the other still expects messages, and a loss
 * before FIN is a failure.
 */
static int
side_fin(struct side *s)
{
	uint64_t dl = test_deadline(TEST_GUARD_S);
	int r;

	do {
		r = rte_comch_msg_send(s->conn, FIN, sizeof(FIN));
		side_poll(s);
	} while (r == -EAGAIN && !test_expired(dl));
	/* -ECONNRESET too: the peer cannot have left without our FIN */
	CHECK_OK(r);
	while (!s->fin && !s->lost && !test_expired(dl)) {
		struct rte_comch_msg m[BURST];
		int n, i;

		side_poll(s);
		n = rte_comch_msg_recv_burst(s->conn, m, BURST);
		if (n < 0)
			return 0;  /* the peer had ours and left */
		for (i = 0; i < n; i++) {
			CHECK(m[i].len == sizeof(FIN) &&
				memcmp(m[i].data, FIN, sizeof(FIN)) == 0,
				"%s: a message after the last", s->name);
			s->fin = true;
		}
	}
	CHECK(s->fin || s->lost, "%s: no FIN from the peer", s->name);
	return 0;
}

static bool
side_done(const struct side *s)
{
	return s->ctrl_sent == s->n_ctrl && s->fp_sent == s->n_fp &&
		s->ctrl_recv == s->n_ctrl && s->fp_recv == s->n_fp;
}

static void
side_stats(const struct side *s)
{
	struct rte_comch_event_stats st;
	int r;

	for (r = 0; r < 3; r++)
		if (rte_comch_event_stats_get(s->ev[r], &st) == 0)
			printf("%s: event %d: %" PRIu64 " arms, %" PRIu64 " found work, %" PRIu64 " kicks, %" PRIu64 " spurious, %" PRIu64 " rescues, %" PRIu64 " backoffs\n",
				s->name, r, st.arms, st.ready, st.kicks,
				st.spurious, st.rescues, st.backoffs);
}

static double
secs_since(uint64_t tsc)
{
	return (double)(rte_get_timer_cycles() - tsc) /
		(double)rte_get_timer_hz();
}

/* The timer of a sleep on the peer ended with nothing there: wait on
 * (0) until QUIET_GUARD_S have passed without anything from the peer,
 * then -1. */
static int
side_quiet(struct side *s, bool passive)
{
	uint64_t recv = s->ctrl_recv + s->fp_recv;

	if (s->quiet_since == 0 || recv != s->quiet_recv) {
		s->quiet_since = rte_get_timer_cycles() -
			(uint64_t)STALL_S * rte_get_timer_hz();
		s->quiet_recv = recv;
		s->quiet_runq_ns = runq_wait_ns(s->peer);
		printf("%s: nothing from the peer for %d s, and nothing there: waiting (received %" PRIu64 " + %" PRIu64 ")\n",
			s->name, STALL_S, s->ctrl_recv, s->fp_recv);
		return 0;
	}
	if (secs_since(s->quiet_since) < QUIET_GUARD_S)
		return 0;
	printf("%s: STALL: nothing from the peer for %.0f s, and nothing there (the peer waited %.1f s of it for a CPU); sent %" PRIu64 "/%" PRIu64 " + %" PRIu64 "/%" PRIu64 ", received %" PRIu64 " + %" PRIu64 "%s\n",
		s->name, secs_since(s->quiet_since),
		(double)(runq_wait_ns(s->peer) - s->quiet_runq_ns) / 1e9,
		s->ctrl_sent, s->n_ctrl, s->fp_sent, s->n_fp, s->ctrl_recv,
		s->fp_recv, passive ? " (passive)" : "");
	side_stats(s);
	return -1;
}

/* Something came after a quiet wait: say how long it was. */
static void
side_unquiet(struct side *s)
{
	printf("%s: the peer went on after %.1f s (it waited %.1f s of them for a CPU)\n",
		s->name, secs_since(s->quiet_since),
		(double)(runq_wait_ns(s->peer) - s->quiet_runq_ns) / 1e9);
	s->quiet_since = 0;
}

/*
 * The traffic. A side is active (sends a random burst of each kind per
 * turn) or passive: after a turn that sent something it may turn passive
 * (one in two), and then sends nothing until a message of the peer
 * arrives, sleeping without a timer meanwhile. No deadlock: it sent
 * before it turned passive, so a passive peer wakes; an active peer
 * sends, or is blocked on us, and then our arm finds its messages. So a
 * wake-up that is lost stalls the test. Now and then a side also naps on
 * a 0-2 ms timer whatever it could do, and a producer whose consumer has
 * no buffer posted waits 1 ms (there is no event for the peer's posts).
 */
static int
side_run(struct side *s)
{
	struct epoll_event out[3];
	bool cb, fb, nap, passive = false;
	int got, sent, r, timeout, last_sleep_ms = -1;

	while (!side_done(s)) {
		side_poll(s);
		if (s->lost || dump_state) {
			/* the peer failed: what this side was doing */
			printf("%s: %s; this side was %s, %s; sent %" PRIu64 "/%" PRIu64 " + %" PRIu64 "/%" PRIu64 ", received %" PRIu64 " + %" PRIu64 "\n",
				s->name, s->lost ? "connection lost" :
				"the peer failed", passive ? "passive" : "active",
				last_sleep_ms < 0 ? "awake" : "woken from a sleep",
				s->ctrl_sent, s->n_ctrl, s->fp_sent, s->n_fp,
				s->ctrl_recv, s->fp_recv);
			side_stats(s);
			return -1;
		}
		got = side_recv(s);
		if (got < 0)
			return -1;
		if (got > 0) {
			passive = false;
			if (unlikely(s->quiet_since != 0))
				side_unquiet(s);
		}
		/* the peer sent all: nothing would end a passive turn */
		if (s->ctrl_recv == s->n_ctrl && s->fp_recv == s->n_fp)
			passive = false;
		nap = rnd(s) % 256 == 0;
		sent = 0;
		cb = fb = false;
		if (!nap && !passive) {
			sent = side_send(s, &cb, &fb);
			if (sent < 0)
				return -1;
			if (sent > 0 && rnd(s) % 2 == 0 &&
			    (s->ctrl_recv < s->n_ctrl || s->fp_recv < s->n_fp))
				passive = true;
		}
		last_sleep_ms = -1;
		if (got + sent != 0 && !nap && !passive)
			continue;
		if (nap) {
			timeout = (int)(rnd(s) % 3);        /* 0-2 ms */
		} else if (passive) {
			timeout = STALL_S * 1000;
		} else if (fb) {
			timeout = 1;  /* no event for buffers the peer posts */
		} else if (s->ctrl_sent < s->n_ctrl && !cb) {
			continue;     /* room to send: not idle */
		} else if (got == 0 && s->fp_sent < s->n_fp) {
			continue;
		} else {
			timeout = STALL_S * 1000;
		}
		r = side_arm(s);
		if (r < 0)
			return -1;
		if (r > 0) {
			s->ready++;
			continue;
		}
		s->sleeps += 1;
		s->naps += nap;
		last_sleep_ms = timeout;
		r = epoll_wait(s->ep, out, 3, timeout);
		if (r > 0) {
			s->woken++;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		s->timeouts++;
		if (timeout < STALL_S * 1000)
			continue;
		/* Nothing for STALL_S seconds while still expecting some. */
		r = side_arm(s);
		if (r < 0)
			return -1;
		if (r == 0) {
			if (side_quiet(s, passive) < 0)
				return -1;
			continue;
		}
		printf("%s: STALL: nothing woke it for %d s, and work is there: a LOST WAKE-UP; sent %" PRIu64 "/%" PRIu64 " + %" PRIu64 "/%" PRIu64 ", received %" PRIu64 " + %" PRIu64 "%s\n",
			s->name, STALL_S, s->ctrl_sent, s->n_ctrl, s->fp_sent,
			s->n_fp, s->ctrl_recv, s->fp_recv,
			passive ? " (passive)" : "");
		side_stats(s);
		return -1;
	}
	return 0;
}

static void
side_report(const struct side *s)
{
	printf("%s: %" PRIu64 " sleeps (%" PRIu64 " naps), %" PRIu64 " woken by an event, %" PRIu64 " by the timer, %" PRIu64 " arms found work\n",
		s->name, s->sleeps, s->naps, s->woken, s->timeouts, s->ready);
}

/* ------------------------------------------------------------ the host */

static int
child_main(const char *dir, uint64_t n_ctrl, uint64_t n_fp)
{
	char vdev[256], prefix[64];
	const char *eal[] = { "child", "-l", "1", "--no-huge", "--no-pci",
		"-m", "64", "--log-level=lib.eal:error",
		"--log-level=lib.telemetry:error", prefix, vdev, NULL };
	struct side s = { .name = "host", .n_ctrl = n_ctrl, .n_fp = n_fp,
		.rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid(),
		.peer = getppid() };
	struct rte_comch_client_conf conf = { .server_name = "stress",
		.recv_queue_len = QUEUE, .consumer_event_cb = on_consumer,
		.cb_arg = &s, .flags = RTE_COMCH_F_EVENT };
	uint64_t dl;
	int err;

	snprintf(prefix, sizeof(prefix), "--file-prefix=evstress-child-%d",
		getpid());
	snprintf(vdev, sizeof(vdev),
		"--vdev=comch_shm_h,role=host,path=%s,wake_check_ms=%d", dir,
		CHECK_MS);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	s.cli = rte_comch_client_create(
		(int16_t)rte_comch_get_dev_id_by_name("comch_shm_h"), &conf);
	if (s.cli == NULL || rte_comch_client_start(s.cli) < 0)
		return 11;
	dl = test_deadline(TEST_GUARD_S);
	while (rte_comch_client_state(s.cli, &err) == RTE_COMCH_STATE_STARTING &&
	       !test_expired(dl))
		rte_comch_client_poll(s.cli);
	s.conn = rte_comch_client_conn(s.cli);
	if (s.conn == NULL)
		return 12;
	if (side_setup(&s, (int16_t)rte_comch_get_dev_id_by_name("comch_shm_h")) < 0 ||
	    side_run(&s) < 0 || side_fin(&s) < 0)
		return 13;
	side_report(&s);
	if (side_teardown(&s) < 0)
		return 14;
	rte_comch_client_stop(s.cli);
	rte_comch_client_destroy(s.cli);
	rte_eal_cleanup();
	return 0;
}

/* ------------------------------------------------------------- the DPU */

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "messages", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct side s = { .name = "dpu", .rng = 0x2545f4914f6cdd1dULL };
	struct rte_comch_server_conf conf = { .name = "stress",
		.recv_queue_len = QUEUE, .connect_cb = on_connect,
		.disconnect_cb = on_disconnect, .consumer_event_cb = on_consumer,
		.cb_arg = &s, .flags = RTE_COMCH_F_EVENT };
	uint64_t total = 10000000, n_ctrl, n_fp, t0, dl;
	char vdev[256], cbuf[32], fbuf[32];
	const char *extra[] = { vdev, NULL };
	char *cargv[] = { argv[0], (char *)(uintptr_t)"--child", link_dir,
		cbuf, fbuf, NULL };
	int16_t dev;
	pid_t pid;
	int c, status, ret = 1;

	/* What each side says survives an abort (a sanitizer's report). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && strcmp(argv[1], "--child") == 0) {
		test_child_dies_with_parent();
		signal(SIGUSR1, on_usr1);
		return child_main(argv[2], strtoull(argv[3], NULL, 10),
				strtoull(argv[4], NULL, 10));
	}
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'm') {
			printf("usage: %s [--messages N]\n", argv[0]);
			return 2;
		}
		total = strtoull(optarg, NULL, 10);
	}
	/* Per direction: a third of them control messages. */
	n_ctrl = total / 6;
	n_fp = total / 2 - n_ctrl;
	s.n_ctrl = n_ctrl;
	s.n_fp = n_fp;
	self_path = argv[0];
	cargv[0] = (char *)(uintptr_t)self_path;
	snprintf(cbuf, sizeof(cbuf), "%" PRIu64, n_ctrl);
	snprintf(fbuf, sizeof(fbuf), "%" PRIu64, n_fp);
	if (test_mkdtemp(link_dir, sizeof(link_dir)) < 0)
		return 1;
	snprintf(vdev, sizeof(vdev),
		"--vdev=comch_shm_d,role=dpu,path=%s,wake_check_ms=%d", link_dir,
		CHECK_MS);
	optind = 1;
	if (test_eal_init(argv[0], "evstress", "0", extra) < 0)
		return 1;
	dev = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_d");
	s.srv = rte_comch_server_create(dev, &conf);
	if (s.srv == NULL || rte_comch_server_start(s.srv) < 0)
		return 1;
	if (posix_spawn(&pid, self_path, NULL, NULL, cargv, environ) != 0)
		return 1;
	s.peer = pid;
	printf("event_stress: %" PRIu64 " messages: %" PRIu64 " control and %" PRIu64 " fast-path each way\n",
		2 * (n_ctrl + n_fp), n_ctrl, n_fp);
	fflush(stdout);
	dl = test_deadline(TEST_GUARD_S);
	while (s.conn == NULL && !test_expired(dl))
		rte_comch_server_poll(s.srv);
	t0 = rte_get_timer_cycles();
	if (s.conn != NULL && side_setup(&s, dev) == 0 && side_run(&s) == 0 &&
	    side_fin(&s) == 0) {
		double secs = (double)(rte_get_timer_cycles() - t0) /
			(double)rte_get_timer_hz();

		side_report(&s);
		if (side_teardown(&s) == 0) {
			if (waitpid(pid, &status, 0) == pid &&
			    WIFEXITED(status) && WEXITSTATUS(status) == 0) {
				printf("event_stress: %" PRIu64 " messages in %.1f s, none lost, none stalled\n",
					2 * (n_ctrl + n_fp), secs);
				ret = 0;
			} else {
				printf("event_stress: the host failed (status 0x%x)\n",
					status);
			}
			pid = 0;
		}
	}
	if (pid != 0) {
		/* The host's own watchdog says what it saw, if it stalled too
		 * (a lost wake-up there leaves this side waiting). */
		kill(pid, SIGUSR1);
		dl = test_deadline(QUIET_GUARD_S + 5);
		while (waitpid(pid, &status, WNOHANG) == 0 && !test_expired(dl))
			usleep(100000);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (s.conn != NULL) {
		uint64_t d2 = test_deadline(TEST_GUARD_S);

		while (!s.lost && !test_expired(d2))
			rte_comch_server_poll(s.srv);
		rte_comch_server_disconnect(s.srv, s.conn);
	}
	rte_comch_server_stop(s.srv);
	rte_comch_server_destroy(s.srv);
	rte_eal_cleanup();
	rmdir(link_dir);
	return ret;
}
