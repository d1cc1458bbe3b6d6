/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The secondary-process suite's evil secondary (test_secondary.c lists
 * the roles): malformed and misdirected requests to the library's rte_mp
 * action, each refused as documented.
 */

#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>

#include <rte_lcore.h>
#include <rte_memory.h>

#include "comch_test.h"
#include "comch_mp.h"
#include "comch_private.h"
#include "comch_shm.h"
#include "test_secondary.h"

/* ================================================== an evil secondary */

/* The size of a consumer ring of @p depth posts (comch_shm.h). */
static size_t
ring_size_of(uint32_t depth)
{
	return RTE_ALIGN_CEIL(sizeof(struct shm_cons_hdr) +
		(size_t)rte_align32pow2(depth) * sizeof(struct shm_post_slot),
		(size_t)sysconf(_SC_PAGESIZE));
}

/* Send @p req (@p len bytes: more are zeros) to the library's action,
 * with @p nfds fds; the reply in @p reply (if not NULL) and its first fd in
 * @p fd (if not NULL; others are closed). Returns the primary's result,
 * INT_MIN if it does not answer properly. */
static int
evil_call_fd(const struct comch_mp_request *req, int len, const int *fds,
		int nfds, struct comch_mp_reply *reply, int *fd)
{
	struct timespec ts = { .tv_sec = 10 };
	struct rte_mp_reply replies = { 0 };
	struct rte_mp_msg msg = { 0 };
	struct comch_mp_reply r;
	int i, ret = INT_MIN;

	strcpy(msg.name, COMCH_MP_ACTION);
	msg.len_param = len;
	memcpy(msg.param, req, RTE_MIN(sizeof(*req), sizeof(msg.param)));
	msg.num_fds = nfds;
	for (i = 0; i < nfds; i++)
		msg.fds[i] = fds[i];
	if (fd != NULL)
		*fd = -1;
	if (rte_mp_request_sync(&msg, &replies, &ts) == 0 &&
	    replies.nb_received == 1) {
		const struct rte_mp_msg *m = &replies.msgs[0];

		for (i = 0; i < m->num_fds; i++) {
			if (i == 0 && fd != NULL)
				*fd = m->fds[0];
			else
				close(m->fds[i]);
		}
		if (m->len_param == (int)sizeof(r)) {
			memcpy(&r, m->param, sizeof(r));
			ret = r.result;
			if (reply != NULL)
				*reply = r;
		}
	}
	free(replies.msgs);
	return ret;
}

static int
evil_call(const struct comch_mp_request *req, int len, const int *fds, int nfds,
		struct comch_mp_reply *reply)
{
	return evil_call_fd(req, len, fds, nfds, reply, NULL);
}

static void
evil_req(struct comch_mp_request *req, uint16_t type, uint32_t token,
		int16_t dev, uint32_t conn)
{
	memset(req, 0, sizeof(*req));
	req->version = COMCH_MP_VERSION;
	req->type = type;
	req->token = token;
	req->dev_id = dev;
	req->conn_id = conn;
}

/*
 * Malformed and misdirected requests, each refused with the documented
 * error; the primary carries on (the orchestrator then checks it leaked no
 * fd and serves the next secondaries). The process first gets a legitimate
 * identity (A: its device attach registered it, it attaches the
 * connection and owns a producer and a consumer), then a second one (B)
 * with a REGISTER of its own, whose requests the primary must judge on
 * their own.
 */
int
run_evil(const char *prog, int argc, char **argv)
{
	char pfx[128];
	const char *eal[] = { prog, "--lcores=6@(0-1)", "--proc-type=secondary",
		pfx, "--no-pci", "--log-level=lib.eal:error", NULL };
	struct rte_comch_consumer_conf cc = { .nb_posts = 4 };
	struct rte_comch_consumer *a_cons;
	struct rte_comch_producer *a_prod;
	struct rte_comch_mem *mem;
	struct rte_comch_conn *conn;
	struct comch_mp_request req;
	struct comch_mp_reply reply;
	uint32_t conn_id, tb, b_cons;
	int16_t dev;
	int nulls[5], mfd[2], live_b, i;
	void *addr;

	if (argc != 3)
		return 2;
	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", argv[0]);
	dev = (int16_t)atoi(argv[1]);
	conn_id = (uint32_t)strtoul(argv[2], NULL, 10);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, (char **)(uintptr_t)eal) < 0)
		return 10;
	/* A: legitimate */
	conn = rte_comch_conn_attach(dev, conn_id);
	CHECK(conn != NULL, "attach");
	mem = rte_comch_mem_create(dev, 4096, SOCKET_ID_ANY);
	cc.mem = mem;
	a_cons = rte_comch_consumer_create(conn, &cc);
	a_prod = rte_comch_producer_create(conn, NULL);
	CHECK(a_cons != NULL && a_prod != NULL, "A's objects");
	CHECK_OK(rte_comch_consumer_start(a_cons));

	/* B: a second registration of the same process */
	evil_req(&req, COMCH_MP_REGISTER, 0, 0, 0);
	CHECK_EQ(evil_call_fd(&req, sizeof(req), NULL, 0, &reply, &live_b), 0);
	tb = reply.token;
	CHECK(live_b >= 0, "B's liveness socket");

	/* the message itself */
	evil_req(&req, COMCH_MP_CONN_LIST, tb, dev, 0);
	CHECK_EQ(evil_call(&req, 10, NULL, 0, NULL), -EINVAL);
	CHECK_EQ(evil_call(&req, sizeof(req) + 1, NULL, 0, NULL), -EINVAL);
	for (i = 0; i < 5; i++)
		nulls[i] = open("/dev/null", O_RDONLY);
	CHECK_EQ(evil_call(&req, sizeof(req), nulls, 5, NULL), -EINVAL);
	req.version = COMCH_MP_VERSION + 1;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EPROTO);
	/* who sends it */
	evil_req(&req, COMCH_MP_CONN_LIST, tb + 1000, dev, 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EPERM);
	evil_req(&req, COMCH_MP_CONN_LIST, 0, dev, 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EPERM);
	/* what it names */
	for (i = 0; i < 3; i++) {
		static const int16_t bad_dev[] = { -1, RTE_COMCH_MAX_DEVS, 32767 };

		evil_req(&req, COMCH_MP_CONN_LIST, tb, bad_dev[i], 0);
		CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	}
	evil_req(&req, 0, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	evil_req(&req, COMCH_MP__MAX, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	evil_req(&req, COMCH_MP_CONN_LIST, tb, dev, 0);
	req.arg[0] = UINT32_MAX;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, &reply), 0);
	CHECK_EQ(reply.count, 0);
	evil_req(&req, COMCH_MP_CONN_ATTACH, tb, dev, conn_id + 1000);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	/* a connection B has not attached */
	evil_req(&req, COMCH_MP_FP_ALLOC, tb, dev, conn_id);
	req.kind = COMCH_FP_PRODUCER;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOTCONN);
	evil_req(&req, COMCH_MP_CONN_STATS, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOTCONN);
	evil_req(&req, COMCH_MP_CONN_ATTACH, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EEXIST);
	/* objects: bad kinds and sizes, and A's, which B does not own */
	evil_req(&req, COMCH_MP_FP_ALLOC, tb, dev, conn_id);
	req.kind = 7;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.kind = COMCH_FP_PRODUCER;
	req.arg[0] = 5;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.kind = COMCH_FP_CONSUMER;
	req.arg[0] = 0;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ERANGE);
	req.arg[0] = 1000000;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ERANGE);
	req.arg[0] = 4;
	req.arg[1] = 1000;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ERANGE);
	evil_req(&req, COMCH_MP_FP_FREE, tb, dev, conn_id);
	req.kind = COMCH_FP_PRODUCER;
	req.obj_id = rte_comch_producer_id(a_prod);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	req.obj_id = 9999;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	evil_req(&req, COMCH_MP_WITHDRAW, tb, dev, conn_id);
	req.obj_id = rte_comch_consumer_id(a_cons);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	/* the peer's consumers: 0 is never a consumer id, nor an
	 * incarnation; an id the peer never announced */
	evil_req(&req, COMCH_MP_REMOTE_EXPORT, tb, dev, conn_id);
	req.gen = 1;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.obj_id = 9999;
	req.gen = 0;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.gen = UINT64_MAX;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.gen = 1;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOENT);
	/* announcements: of no consumer, with a count of fds that is not
	 * what comes with it */
	evil_req(&req, COMCH_MP_ANNOUNCE, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	req.xfer.nb_fds = 1000;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -EINVAL);
	/* B's own consumer, announced with fds that are not what they say */
	evil_req(&req, COMCH_MP_FP_ALLOC, tb, dev, conn_id);
	req.kind = COMCH_FP_CONSUMER;
	req.arg[0] = 4;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, &reply), 0);
	addr = (void *)(uintptr_t)reply.addr;
	b_cons = ((struct rte_comch_consumer *)addr)->id;
	evil_req(&req, COMCH_MP_ANNOUNCE, tb, dev, conn_id);
	req.obj_id = b_cons;
	req.xfer.val[0] = 4;                  /* nb_posts */
	req.xfer.val[1] = 0;                  /* max_imm_len */
	req.xfer.val[2] = ring_size_of(4);    /* ring_size */
	req.xfer.val[3] = 4096;               /* mem_size */
	req.xfer.nb_fds = 2;
	CHECK_EQ(evil_call(&req, sizeof(req), nulls, 2, NULL), -EINVAL);
	req.xfer.nb_fds = 1;
	CHECK_EQ(evil_call(&req, sizeof(req), nulls, 1, NULL), -EINVAL);
	mfd[0] = memfd_create("evil", MFD_ALLOW_SEALING);
	mfd[1] = memfd_create("evil", MFD_ALLOW_SEALING);
	CHECK(ftruncate(mfd[0], 4096) == 0 && ftruncate(mfd[1], 4096) == 0,
		"memfds");
	/* right kind, unsealed */
	req.xfer.nb_fds = 2;
	CHECK_EQ(evil_call(&req, sizeof(req), mfd, 2, NULL), -EINVAL);
	req.xfer.val[3] = UINT64_MAX;
	CHECK_EQ(evil_call(&req, sizeof(req), mfd, 2, NULL), -EINVAL);
	evil_req(&req, COMCH_MP_FP_FREE, tb, dev, conn_id);
	req.kind = COMCH_FP_CONSUMER;
	req.obj_id = b_cons;
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), 0);
	evil_req(&req, COMCH_MP_CONN_DETACH, tb, dev, conn_id);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), 0);
	CHECK_EQ(evil_call(&req, sizeof(req), NULL, 0, NULL), -ENOTCONN);
	for (i = 0; i < 5; i++)
		close(nulls[i]);
	close(mfd[0]);
	close(mfd[1]);
	/* B hangs up; A still works, then tears down */
	close(live_b);
	CHECK_OK(rte_comch_producer_start(a_prod));
	CHECK_OK(rte_comch_producer_stop(a_prod));
	CHECK_OK(rte_comch_producer_destroy(a_prod));
	CHECK_OK(rte_comch_consumer_stop(a_cons));
	CHECK_EQ(rte_comch_consumer_state(a_cons), RTE_COMCH_STATE_IDLE);
	CHECK_OK(rte_comch_consumer_destroy(a_cons));
	CHECK_OK(rte_comch_mem_destroy(mem));
	CHECK_OK(rte_comch_conn_detach(conn));
	rte_eal_cleanup();
	SAY("evil: every request refused as documented");
	return 0;
}

