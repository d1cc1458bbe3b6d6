/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: attacks on the handshake, before or instead of a
 * connection: sockets that never say HELLO, connect floods, refused
 * clients that keep talking, malformed HELLOs, abandoned handshakes,
 * unread ACCEPTs, extra fds that linger, empty packets with fds.
 */

#include "hostile_host.h"

/* ---- silent: sockets that never say HELLO (slowloris) ---- */

int
mode_silent(void)
{
	int *s = calloc(opt.socks, sizeof(int));
	unsigned int i, open = 0, dropped = 0, reopened = 0;
	double end;
	char c;

	if (s == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.socks; i++) {
		s[i] = link_connect(opt.func);
		open += s[i] >= 0;
	}
	say("silent: %u of %u sockets connected", open, opt.socks);
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		for (i = 0; i < opt.socks; i++) {
			if (s[i] < 0) {
				if (opt.refresh && (s[i] = link_connect(opt.func)) >= 0)
					reopened++;
				continue;
			}
			ssize_t n = recv(s[i], &c, 1, MSG_DONTWAIT);

			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				dropped++;
				close(s[i]);
				s[i] = opt.refresh ? link_connect(opt.func) : -1;
				reopened += s[i] >= 0 && opt.refresh;
			} else if (n > 0) {
				/* a REJECT: counted as dropped, we go on */
				dropped++;
				close(s[i]);
				s[i] = opt.refresh ? link_connect(opt.func) : -1;
			}
		}
		pause_us(opt.refresh ? 1000 : 50000);
	}
	for (i = 0; i < opt.socks; i++)
		if (s[i] >= 0)
			close(s[i]);
	say("silent: dropped by the DPU %u, reopened %u", dropped, reopened);
	free(s);
	return 0;
}

/* ---- connect-flood: connect and hang up, as fast as we can ----
 * Every connection reaches the DPU's listening socket, which must accept
 * it to learn it is gone (or refuse it beyond max_pending). Faster than
 * the DPU can take them, the backlog never empties: a DPU that accepts
 * until none waits never leaves its listening socket, and serves no other
 * socket of its interrupt thread (another function's HELLO included). */

int
mode_connect_flood(void)
{
	unsigned long n = 0, failed = 0;
	double end;
	int s;

	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		s = link_connect(opt.func);
		if (s < 0) {
			failed++;
			pause_us(1000);
			continue;
		}
		close(s);
		n++;
	}
	say("connect-flood: %lu connections, %lu connects failed", n, failed);
	return 0;
}

/* ---- refused-stream: refused clients that never stop talking ----
 * With the function's handshake places held (max_pending silent sockets,
 * the scenario sets max_pending=1 and a long handshake time), each new
 * client is refused as it connects. The DPU reads what such a client
 * sent before it closes the socket (so that its REJECT is not lost to a
 * reset); four threads here keep sending on the newest socket as fast as
 * they can: a read that goes on while there is something to read never
 * ends, and the interrupt thread serves nothing else. */

static volatile int stream_sock = -1;
static volatile bool stream_stop;

static void *
stream_thread(void *arg)
{
	unsigned long *sent = arg;
	char rec[64];
	int s;

	memset(rec, 0x5a, sizeof(rec));
	while (!stream_stop && !quit) {
		s = stream_sock;
		if (s >= 0 && send(s, rec, sizeof(rec),
				MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
			(*sent)++;
	}
	return NULL;
}

int
mode_refused_stream(void)
{
	unsigned long sent[4] = { 0 }, total = 0, conns = 0;
	unsigned int i, held = 0, nt = 0;
	int *hold_s = calloc(opt.socks, sizeof(int));
	pthread_t t[4];
	double end;
	char c;
	int s;

	if (hold_s == NULL)
		return EXIT_SETUP;
	for (i = 0; i < opt.socks; i++) {
		hold_s[i] = link_connect(opt.func);
		held += hold_s[i] >= 0;
	}
	say("refused-stream: %u handshake places held", held);
	for (i = 0; i < RTE_DIM(t); i++)
		if (pthread_create(&t[nt], NULL, stream_thread, &sent[nt]) == 0)
			nt++;
	say("armed");
	end = now_s() + opt.hold;
	while (!quit && now_s() < end) {
		s = link_connect(opt.func);
		if (s < 0) {
			pause_us(1000);
			continue;
		}
		conns++;
		stream_sock = s;
		/* until the DPU closes it (its REJECT read, or a reset) */
		while (!quit && now_s() < end) {
			ssize_t n = recv(s, &c, 1, MSG_DONTWAIT);

			if (n >= 0 || (errno != EAGAIN && errno != EINTR))
				break;
			pause_us(100);
		}
		stream_sock = -1;
		close(s);
	}
	stream_stop = true;
	for (i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		total += sent[i];
	}
	for (i = 0; i < opt.socks; i++)
		if (hold_s[i] >= 0)
			close(hold_s[i]);
	free(hold_s);
	say("refused-stream: %lu refused clients, %lu records sent", conns,
		total);
	return 0;
}

/* ---- hello-garbage: malformed handshakes, never accepted ---- */

enum hv {
	HV_SHORT, HV_LONG, HV_EMPTY, HV_MAGIC, HV_VERSION_LO, HV_VERSION_HI,
	HV_TYPE_0, HV_TYPE_ACCEPT, HV_TYPE_REJECT, HV_TYPE_CADD, HV_TYPE_CDEL,
	HV_TYPE_BYE, HV_TYPE_99, HV_NOFD, HV_2FD, HV_3FD, HV_8FD, HV_FD_PIPE,
	HV_FD_SOCK, HV_FD_DEVNULL, HV_FD_DISK, HV_FD_OPATH, HV_FD_EVENTFD,
	HV_FD_UNSEALED, HV_FD_SEAL_SHRINK, HV_FD_SEAL_GROW, HV_FD_SMALL,
	HV_FD_BIG, HV_FD_SEAL_WRITE, HV_FD_SEAL_FWRITE, HV_FD_SHM_OPEN,
	HV_FD_RDONLY, HV_FD_ZERO, HV_SIZE_FIELD, HV_QLEN_0, HV_QLEN_BIG,
	HV_QLEN_MAX, HV_MSG_0, HV_MSG_SMALL, HV_MSG_BIG, HV_NAME_NOTERM,
	HV_NAME_EMPTY, HV_NAME_UNKNOWN, HV_CREDS, HV_FD_DIR, HV_FD_SELFSOCK,
	HV__MAX
};

static const char *const hv_names[HV__MAX] = {
	"short", "long", "empty", "magic", "version-3", "version-99",
	"type-0", "type-accept", "type-reject", "type-consumer-add",
	"type-consumer-del", "type-bye", "type-99", "no-fd", "2-fds", "3-fds",
	"8-fds", "fd-pipe", "fd-socket", "fd-devnull", "fd-disk-file",
	"fd-o-path", "fd-eventfd", "fd-unsealed", "fd-seal-shrink-only",
	"fd-seal-grow-only", "fd-smaller", "fd-bigger", "fd-seal-write",
	"fd-seal-future-write", "fd-shm-open-tmpfs", "fd-read-only",
	"fd-size-0", "mailbox-size-field", "queue-len-0", "queue-len-8193",
	"queue-len-max", "max-msg-0", "max-msg-1024", "max-msg-4081",
	"name-not-terminated", "name-empty", "name-unknown", "scm-credentials",
	"fd-directory", "fd-own-socket",
};

/* A HELLO broken as @p v on a fresh socket. Returns the DPU's answer (see
 * hc_answer()) or -3 if it could not be sent. */
static int
hello_variant(enum hv v)
{
	struct hc h;
	struct shm_msg m;
	size_t len = sizeof(m);
	int fds[8], nfds = 1, extra[8], nextra = 0, r, i;
	char buf[512], tmpl[512];
	uint64_t size;

	memset(&h, 0, sizeof(h));
	h.sock = -1;
	h.mb_fd = -1;
	geom_init(&h.rx, 16, SHM_MAX_MSG_SIZE);
	size = h.rx.mailbox_size;
	h.sock = link_connect(opt.func);
	if (h.sock < 0)
		return -3;
	hello_fill(&m, opt.name, 16, size);
	fds[0] = memfd_sized(size, SEALS);
	extra[nextra++] = fds[0];

	switch (v) {
	case HV_SHORT: len = 100; break;
	case HV_LONG: len = 512; break;
	case HV_EMPTY: len = 0; nfds = 0; break;  /* with an fd: fd-leak */
	case HV_MAGIC: m.magic ^= 1; break;
	case HV_VERSION_LO: m.version = SHM_PROTO_VERSION - 1; break;
	case HV_VERSION_HI: m.version = 99; break;
	case HV_TYPE_0: m.type = 0; break;
	case HV_TYPE_ACCEPT: m.type = SHM_MSG_ACCEPT; break;
	case HV_TYPE_REJECT: m.type = SHM_MSG_REJECT; break;
	case HV_TYPE_CADD: m.type = SHM_MSG_CONSUMER_ADD; break;
	case HV_TYPE_CDEL: m.type = SHM_MSG_CONSUMER_DEL; nfds = 0; break;
	case HV_TYPE_BYE: m.type = SHM_MSG_BYE; nfds = 0; break;
	case HV_TYPE_99: m.type = 99; break;
	case HV_NOFD: nfds = 0; break;
	case HV_2FD: case HV_3FD: case HV_8FD:
		nfds = v == HV_2FD ? 2 : v == HV_3FD ? 3 : 8;
		for (i = 1; i < nfds; i++)
			extra[nextra++] = fds[i] = memfd_sized(size, SEALS);
		break;
	case HV_FD_PIPE: {
		int p[2];

		if (pipe(p) == 0) {
			fds[0] = p[0];
			extra[nextra++] = p[0];
			extra[nextra++] = p[1];
		}
		break;
	}
	case HV_FD_SOCK:
		extra[nextra++] = fds[0] = socket(AF_UNIX, SOCK_DGRAM, 0);
		break;
	case HV_FD_SELFSOCK:
		fds[0] = h.sock;
		break;
	case HV_FD_DEVNULL:
		extra[nextra++] = fds[0] = open("/dev/null", O_RDWR);
		break;
	case HV_FD_DIR:
		extra[nextra++] = fds[0] = open(opt.diskdir, O_RDONLY | O_DIRECTORY);
		break;
	case HV_FD_DISK:
		snprintf(tmpl, sizeof(tmpl), "%s/hostile-disk-XXXXXX",
			opt.diskdir);
		fds[0] = mkstemp(tmpl);
		if (fds[0] >= 0) {
			unlink(tmpl);
			if (ftruncate(fds[0], (off_t)size) < 0)
				say("ftruncate: %s", strerror(errno));
			extra[nextra++] = fds[0];
		}
		break;
	case HV_FD_OPATH:
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", extra[0]);
		extra[nextra++] = fds[0] = open(buf, O_PATH);
		break;
	case HV_FD_RDONLY:
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", extra[0]);
		extra[nextra++] = fds[0] = open(buf, O_RDONLY);
		break;
	case HV_FD_EVENTFD:
		extra[nextra++] = fds[0] = eventfd(0, 0);
		break;
	case HV_FD_UNSEALED:
		extra[nextra++] = fds[0] = memfd_sized(size, 0);
		break;
	case HV_FD_SEAL_SHRINK:
		extra[nextra++] = fds[0] = memfd_sized(size, F_SEAL_SHRINK);
		break;
	case HV_FD_SEAL_GROW:
		extra[nextra++] = fds[0] = memfd_sized(size, F_SEAL_GROW);
		break;
	case HV_FD_SMALL:
		extra[nextra++] = fds[0] = memfd_sized(size - page_size(), SEALS);
		break;
	case HV_FD_BIG:
		extra[nextra++] = fds[0] = memfd_sized(size + page_size(), SEALS);
		m.hello.mailbox_size = size + page_size();
		break;
	case HV_FD_ZERO:
		extra[nextra++] = fds[0] = memfd_sized(0, SEALS);
		m.hello.mailbox_size = 0;
		break;
	case HV_FD_SEAL_WRITE:
		extra[nextra++] = fds[0] = memfd_sized(size,
				SEALS | F_SEAL_WRITE);
		break;
	case HV_FD_SEAL_FWRITE:
		extra[nextra++] = fds[0] = memfd_sized(size,
				SEALS | F_SEAL_FUTURE_WRITE);
		break;
	case HV_FD_SHM_OPEN:
		snprintf(tmpl, sizeof(tmpl), "/dev/shm/hostile-%d-XXXXXX",
			(int)getpid());
		fds[0] = mkstemp(tmpl);
		if (fds[0] >= 0) {
			unlink(tmpl);
			if (ftruncate(fds[0], (off_t)size) < 0)
				say("ftruncate: %s", strerror(errno));
			extra[nextra++] = fds[0];
		}
		break;
	case HV_SIZE_FIELD: m.hello.mailbox_size = size * 2; break;
	case HV_QLEN_0: m.hello.recv_queue_len = 0; break;
	case HV_QLEN_BIG: m.hello.recv_queue_len = SHM_MAX_RECV_QUEUE_LEN + 1; break;
	case HV_QLEN_MAX: m.hello.recv_queue_len = UINT32_MAX; break;
	case HV_MSG_0: m.hello.max_msg_size = 0; break;
	case HV_MSG_SMALL: {
		struct shm_ring_geom g;

		geom_init(&g, 16, 1024);
		m.hello.max_msg_size = 1024;
		m.hello.mailbox_size = g.mailbox_size;
		extra[nextra++] = fds[0] = memfd_sized(g.mailbox_size, SEALS);
		break;
	}
	case HV_MSG_BIG: m.hello.max_msg_size = SHM_MAX_MSG_SIZE + 1; break;
	case HV_NAME_NOTERM:
		memset(m.hello.server_name, 'A', sizeof(m.hello.server_name));
		break;
	case HV_NAME_EMPTY: m.hello.server_name[0] = '\0'; break;
	case HV_NAME_UNKNOWN:
		snprintf(m.hello.server_name, sizeof(m.hello.server_name),
			"no-such-server-%d", (int)getpid());
		break;
	case HV_CREDS: nfds = 0; break;
	default: break;
	}
	if (fds[0] < 0) {
		say("variant %s: cannot make its fd (%s), skipped", hv_names[v],
			strerror(errno));
		r = -3;
		goto out;
	}
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &m, sizeof(m));
	if (v == HV_CREDS) {
		char cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct ucred uc = { .pid = getpid(), .uid = getuid(),
			.gid = getgid() };
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(uc));
		memcpy(CMSG_DATA(c), &uc, sizeof(uc));
		r = sendmsg(h.sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
	} else {
		r = send_fds(h.sock, buf, len, fds, nfds);
	}
	if (r < 0) {
		/* e.g. the kernel refuses some fd types: not sent, skipped */
		say("variant %s: not sent (%s)", hv_names[v], strerror(errno));
		r = -3;
		goto out;
	}
	r = hc_answer(&h, ANSWER_WAIT_S);
out:
	for (i = 0; i < nextra; i++)
		if (extra[i] >= 0)
			close(extra[i]);
	hc_close(&h);
	return r;
}

int
mode_hello_garbage(void)
{
	unsigned int round, counts[4] = { 0 };
	int v, r;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		for (v = 0; v < HV__MAX && !quit; v++) {
			if ((opt.no_legal && v == HV_SIZE_FIELD) ||
			    (opt.variant != NULL &&
			     strcmp(opt.variant, hv_names[v]) != 0))
				continue;
			r = hello_variant((enum hv)v);
			if (quit)
				break;  /* cut short by SIGTERM: no verdict */
			/* the declared size is redundant: the DPU checks
			 * the fd against its own computation */
			if (r == SHM_MSG_ACCEPT && v != HV_SIZE_FIELD)
				finding("HELLO variant %s was ACCEPTed", hv_names[v]);
			else if (r == -1)
				finding("HELLO variant %s: no answer and no close within %d s",
					hv_names[v], ANSWER_WAIT_S);
			counts[r == SHM_MSG_REJECT ? 0 : r == 0 ? 1 : r == -3 ? 2 : 3]++;
			if (round == 0)
				say("variant %s: %s", hv_names[v],
					r == SHM_MSG_REJECT ? "rejected" : r == 0 ?
					"closed" : r == -3 ? "skipped" :
					r == SHM_MSG_ACCEPT ? "ACCEPTED" : "other");
		}
	}
	say("hello-garbage: rejected %u, closed %u, skipped %u, other %u",
		counts[0], counts[1], counts[2], counts[3]);
	return 0;
}

/* ---- churn: handshakes abandoned at every step ---- */

int
mode_churn(void)
{
	unsigned int round, step;
	struct hc h;
	struct shm_msg m;

	say("armed");
	for (round = 0; round < opt.rounds && !quit; round++) {
		for (step = 0; step < 5 && !quit; step++) {
			if (step == 0) {
				/* connect and close */
				int s = link_connect(opt.func);

				if (s >= 0)
					close(s);
				continue;
			}
			if (step == 1) {
				/* HELLO and close before the answer */
				memset(&h, 0, sizeof(h));
				geom_init(&h.rx, 16, SHM_MAX_MSG_SIZE);
				h.sock = link_connect(opt.func);
				h.mb_fd = memfd_sized(h.rx.mailbox_size, SEALS);
				if (h.sock >= 0 && h.mb_fd >= 0) {
					hello_fill(&m, opt.name, 16,
						h.rx.mailbox_size);
					send_fds(h.sock, &m, sizeof(m), &h.mb_fd, 1);
				}
				hc_close(&h);
				continue;
			}
			if (hc_open_retry(&h, 16) < 0)
				return quit ? 0 : EXIT_SETUP;
			if (step == 3) {
				/* a consumer, then gone */
				lcons_add(&h, 8, 4096, SEALS);
			} else if (step == 4) {
				/* a clean BYE */
				msg_init(&m, SHM_MSG_BYE);
				send_fds(h.sock, &m, sizeof(m), NULL, 0);
			}
			hc_close(&h);
		}
	}
	say("churn: %u rounds", round);
	return 0;
}

/* ---- unread-accept: connections whose ACCEPT (it carries the DPU's
 * mailbox fd) we never read: we answer BYE at once, the DPU closes its
 * end and gives the connection's quota back, and we keep our end open,
 * the ACCEPT and its fd still queued on it. The kernel counts an fd in an
 * unread message against the sender's user (RLIMIT_NOFILE, unless it has
 * CAP_SYS_RESOURCE or CAP_SYS_ADMIN); the DPU's per-connection bound on
 * unread fds (SIOCOUTQ) ends with the connection. --rounds such
 * connections (one at a time: within max_conns), then armed, then hold.
 * ---- */

int
mode_unread_accept(void)
{
	unsigned int kept = 0, refused = 0, in_row = 0, i;
	int *socks = calloc(opt.rounds, sizeof(int));
	struct shm_msg m;
	double end;

	if (socks == NULL)
		return EXIT_SETUP;
	end = now_s() + ARM_GUARD_S;
	/* 300 refusals in a row: the DPU refuses everyone now */
	while (kept < opt.rounds && !quit && now_s() < end && in_row < 300) {
		struct pollfd pf;
		uint64_t size;
		int s, mb;

		s = link_connect(opt.func);
		if (s < 0) {
			pause_us(1000);
			continue;
		}
		size = 0;
		{
			struct shm_ring_geom g;

			geom_init(&g, 16, SHM_MAX_MSG_SIZE);
			size = g.mailbox_size;
		}
		mb = memfd_sized(size, SEALS);
		hello_fill(&m, opt.name, 16, size);
		if (mb < 0 || send_fds(s, &m, sizeof(m), &mb, 1) < 0) {
			if (mb >= 0)
				close(mb);
			close(s);
			continue;
		}
		close(mb);
		pf.fd = s;
		pf.events = POLLIN;
		if (poll(&pf, 1, ANSWER_WAIT_S * 1000) != 1) {
			close(s);
			continue;
		}
		/* a look at the type only: the fds stay queued */
		if (recv(s, &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT) !=
		    (ssize_t)sizeof(m) || m.type != SHM_MSG_ACCEPT) {
			close(s);
			refused++;
			in_row++;
			pause_us(2000);
			continue;
		}
		in_row = 0;
		msg_init(&m, SHM_MSG_BYE);
		send_fds(s, &m, sizeof(m), NULL, 0);
		socks[kept++] = s;
	}
	say("unread-accept: %u connections closed with their ACCEPT unread and kept, %u refused",
		kept, refused);
	say("armed");
	hold(NULL, NULL);
	for (i = 0; i < kept; i++)
		close(socks[i]);
	free(socks);
	return 0;
}

/* ---- extra-fd-linger: a first message (before HELLO) with five fds: four
 * memfds, then a TCP socket lingering for an hour with data its other end
 * (ours, never read) does not take. The DPU receives four fds per message;
 * the kernel closes the fifth in the receiving thread (EAL's interrupt
 * thread, which serves the handshakes of every function), and that close
 * is the last one: it waits for the linger time. --variant empty-first:
 * an empty record goes first. ---- */

static volatile int linger_fd = -1;
static volatile bool linger_closed;

static void *
linger_close_thread(void *arg __rte_unused)
{
	close(linger_fd);
	linger_closed = true;
	return NULL;
}

int
mode_extra_fd_linger(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct linger lg = { .l_onoff = 1, .l_linger = 3600 };
	int lst, c, a = -1, s, fds[5], i, one = 1;
	unsigned int attempt;
	char buf[65536];
	struct shm_msg m;
	pthread_t t;
	double end;

	lst = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lst < 0 || bind(lst, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(lst, (struct sockaddr *)&sa, &sl) < 0 ||
	    listen(lst, 8) < 0)
		return EXIT_SETUP;
	memset(buf, 'x', sizeof(buf));
	for (attempt = 0; attempt < 5 && !quit; attempt++) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return EXIT_SETUP;
		a = accept(lst, NULL, NULL);   /* never read */
		fcntl(c, F_SETFL, O_NONBLOCK);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while (send(c, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		for (i = 0; i < 4; i++)
			fds[i] = memfd_sized(4096, SEALS);
		fds[4] = c;
		s = link_connect(opt.func);
		if (s < 0)
			return EXIT_SETUP;
		hello_fill(&m, opt.name, 16, 4096);
		/* --variant empty-first: an empty record before it (the
		 * DPU's look at the first record then sees no fds) */
		if (opt.variant != NULL && strcmp(opt.variant, "empty-first") == 0)
			(void)!send(s, "", 0, MSG_NOSIGNAL);
		send_fds(s, &m, sizeof(m), fds, 5);
		for (i = 0; i < 4; i++)
			close(fds[i]);
		/* our copy closed at once (a thread: should the DPU have
		 * taken it first, ours would be the close that waits) */
		linger_fd = c;
		linger_closed = false;
		pthread_create(&t, NULL, linger_close_thread, NULL);
		end = now_s() + 1;
		while (!linger_closed && now_s() < end)
			pause_us(1000);
		if (linger_closed) {
			pthread_join(t, NULL);
			say("extra-fd-linger: a lingering TCP socket sent as the fifth fd of a first message (attempt %u), our copy closed",
				attempt + 1);
			say("armed");
			hold(NULL, NULL);
			close(s);
			close(a);
			close(lst);
			return 0;
		}
		/* the DPU closed its copy first: ours waits; try again */
		pthread_detach(t);
		close(a);      /* a reset: that close ends */
		close(s);
	}
	return EXIT_SETUP;
}

/* ---- fd-leak: packets of 0 bytes carrying an fd (SOCK_SEQPACKET
 * delivers the fd with an empty record), before HELLO; then hold ---- */

int
mode_fd_leak(void)
{
	unsigned int i, closed = 0;
	struct shm_msg m;
	int fd = memfd_sized(4096, SEALS);

	if (fd < 0)
		return EXIT_SETUP;
	msg_init(&m, SHM_MSG_HELLO);
	for (i = 0; i < opt.rounds && !quit; i++) {
		int s = link_connect(opt.func);

		if (s < 0) {
			pause_us(1000);
			continue;
		}
		send_fds(s, &m, 0, &fd, 1);
		closed += wait_eof(s, 5);
		close(s);
	}
	say("fd-leak: %u empty packets with an fd sent, %u sockets closed by the DPU",
		i, closed);
	say("armed");
	hold(NULL, NULL);
	close(fd);
	return 0;
}
