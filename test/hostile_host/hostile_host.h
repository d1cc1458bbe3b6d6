/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef HOSTILE_HOST_H
#define HOSTILE_HOST_H

/*
 * hostile_host's shared parts: options, output, the wire protocol by
 * hand (a connection, consumers both ways, the perf protocol) and the
 * modes. See hostile_host.c.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "comch_shm.h"
#include "perf.h"

#define EXIT_SETUP 2
#define EXIT_FINDING 3

#define MAX_RCONS 256      /* the DPU's consumers we map */
#define MAX_LCONS 256      /* our consumers */
#define ANSWER_WAIT_S 60   /* generous (a loaded machine): the DPU's answer
                            * (ACCEPT/REJECT or EOF, room in its ring) */
#define ARM_GUARD_S 150   /* set-up of an attack, within the script's ARM_GUARD */
#define CLOSE_WAIT_S 60    /* generous (a loaded machine): a violation punished */

struct hostile_options {
	const char *mode;
	const char *path;
	const char *func;
	const char *name;
	const char *app;        /* ctrl, perf, data */
	const char *diskdir;    /* a folder on a disk filesystem */
	double hold;
	unsigned int rounds;
	unsigned int conns;
	unsigned int consumers;
	unsigned int mem_mb;
	unsigned int socks;
	unsigned int size;
	unsigned int queues;
	bool refresh;
	bool no_legal;          /* skip the variants a DPU may accept */
	const char *variant;    /* only this variant (by name) */
	const char *then;       /* claim-hold: end, begin, none */
	unsigned int first_id;  /* our first consumer id */
	unsigned int test;      /* begin: the perf test */
	const char *text;       /* data-peer: what we send */
	const char *expect;     /* data-peer: what the server must send */
};
extern struct hostile_options opt;

/* SIGTERM/SIGINT: end a hold; SIGUSR1: a mode's second phase. */
extern volatile sig_atomic_t quit, phase2;
extern unsigned int findings;
extern double ready_wait;

#define SEALS (F_SEAL_SHRINK | F_SEAL_GROW)

struct rcons {                 /* a consumer of the DPU: we produce into it */
	bool live;
	uint32_t id, nb_posts, imm_len, mask;
	uint64_t ring_size, mem_size;
	uint8_t *ring, *mem;
};

struct lcons {                 /* our consumer: the DPU produces into it */
	uint32_t id, depth, mask;
	int ring_fd, mem_fd;
	uint64_t ring_size, mem_size;
	uint8_t *ring, *mem;
	uint32_t posted, done;
};

struct hc {
	int sock;
	int mb_fd;
	uint8_t *mb;                /* ours: the DPU writes it */
	struct shm_ring_geom rx;
	uint8_t *dpu_mb;            /* the DPU's: we write it */
	struct shm_ring_geom tx;
	uint32_t tx_next, rx_next;
	uint32_t conn_id, max_consumers;
	uint64_t max_map;
	bool eof, bye;
	bool no_sock_read;          /* never read the link socket */
	struct rcons rc[MAX_RCONS];
	unsigned int nb_rc_seen;
	struct lcons lc[MAX_LCONS];
	unsigned int nb_lc;
	uint32_t next_cons_id;
	int reject_err;
	char reject_reason[SHM_REASON_MAX];
};

/* Connections a hold floods with messages (never-read, log-flood). */
struct flood {
	struct hc *h;
	unsigned int n;
	uint64_t sent;
};

/* hostile_common.c: options, output, wire geometry, the socket */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A product finding: said, counted, the exit status tells. */
void finding(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void on_signal(int sig);
double now_s(void);
void pause_us(unsigned int us);
void hold(void (*tick)(void *), void *arg);
uint64_t page_size(void);
void geom_init(struct shm_ring_geom *g, uint32_t depth, uint32_t max_msg);
uint64_t cons_ring_size(uint32_t depth);
int memfd_sized(uint64_t size, unsigned int seals);
void msg_init(struct shm_msg *m, uint16_t type);
int link_connect(const char *func);
int send_fds(int s, const void *buf, size_t len, const int *fds, int nfds);
ssize_t recv_fds(int s, struct shm_msg *m, int *fds, int *nfds, int wait_ms);
void close_fds(int *fds, int n);
bool wait_eof(int s, double sec);
bool sock_hung_up(int s);

/* hostile_conn.c: a connection, consumers both ways, the perf protocol */
struct shm_cons_hdr *chdr(uint8_t *ring);
struct shm_post_slot *cslot(uint8_t *ring, uint32_t mask, uint32_t idx);
void rcons_unmap(struct rcons *r);
void hc_on_packet(struct hc *h, const struct shm_msg *m, ssize_t n, int *fds,
		int nfds);
void hc_pump(struct hc *h);
void hc_close(struct hc *h);
void hello_fill(struct shm_msg *m, const char *name, uint32_t depth, uint64_t size);
int hc_answer(struct hc *h, double sec);
int hc_open_on(struct hc *h, const char *func, uint32_t depth);
int hc_open(struct hc *h, uint32_t depth);
int hc_open_retry(struct hc *h, uint32_t depth);
struct shm_ctrl_slot *ring_slot(uint8_t *mb, const struct shm_ring_geom *g, uint32_t n);
uint32_t hc_tx_cons(struct hc *h);
int hc_send(struct hc *h, const void *data, uint32_t len);
int hc_send_wait(struct hc *h, const void *data, uint32_t len, double sec);
int hc_recv(struct hc *h, void *buf, uint32_t size);
int hc_recv_wait(struct hc *h, void *buf, uint32_t size, double sec);
int lcons_add(struct hc *h, uint32_t depth, uint64_t mem, unsigned int seals);
void lcons_post(struct lcons *l, uint32_t n, uint64_t off, uint32_t len);
uint32_t lcons_reap(struct lcons *l);
struct rcons *rcons_any(struct hc *h, unsigned int nth);
uint32_t rcons_claim(struct rcons *r, uint32_t n, uint32_t *got);
void rcons_fill(struct rcons *r, uint32_t idx, const void *data, uint32_t len,
		const void *imm, uint8_t imm_len, bool fake);
uint32_t rcons_send(struct rcons *r, uint32_t n, const void *data, uint32_t len,
		const void *imm, uint8_t imm_len);
int perf_send(struct hc *h, uint32_t type, uint32_t test, uint32_t size,
		uint32_t burst, uint32_t queues, uint32_t touch, uint64_t msgs);
bool perf_wait(struct hc *h, uint32_t type, double sec);
bool perf_begin(struct hc *h, uint32_t test, uint32_t size, uint32_t burst,
		uint32_t queues, uint32_t touch, unsigned int nb_cons);
void provoke_reply(struct hc *h);

/* The modes (hostile_handshake.c, _races.c, _proto.c, _quota.c, _apps.c):
 * 0 the attack ran, 2 it could not be set up. */
int mode_silent(void);
int mode_connect_flood(void);
int mode_refused_stream(void);
int mode_hello_garbage(void);
int mode_churn(void);
int mode_unread_accept(void);
int mode_extra_fd_linger(void);
int mode_fd_leak(void);
int mode_fd_race(void);
int mode_consumer_race(void);
int mode_claim_hold(void);
int mode_rewrite(void);
int mode_fp_garbage(void);
int mode_proto_garbage(void);
int mode_log_inject(void);
int mode_sigpipe(void);
int mode_log_flood(void);
int mode_violate_cycle(void);
int mode_never_read(void);
int mode_never_post(void);
int mode_announce_flood(void);
int mode_unread_churn(void);
int mode_consumer_churn(void);
int mode_conn_hog(void);
int mode_fd_exhaust(void);
int mode_data_peer(void);
int mode_perf_hog(void);
int mode_begin(void);
int mode_amplify(void);
int mode_big_copy(void);

#endif /* HOSTILE_HOST_H */
