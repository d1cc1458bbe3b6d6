/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fuzz target: values read from peer-written shared memory. After a valid
 * handshake, the input supplies, in order:
 *   - four control slots' lengths and sequence numbers and the server
 *     mailbox's tx_cons (the server then receives and sends);
 *   - a consumer ring of ours the server's producer sends to: post_prod,
 *     claim and four posted-buffer descriptors (offset, length, sequence);
 *   - completion records for the server's consumer: len (0xffffffff:
 *     aborted), imm_len, producer_id, the spare word (where abort_seq was,
 *     before protocol version 5) and done_seq of four slots (the server
 *     then polls, stops and drains).
 * Missing bytes read as zero. Then everything is torn down.
 */

#include <rte_memory.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	return fuzz_setup(true) < 0 ? -1 : 0;
}

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t
take(struct input *in, size_t n)
{
	uint64_t v = 0;

	n = RTE_MIN(n, in->left);
	memcpy(&v, in->p, n);
	in->p += n;
	in->left -= n;
	return v;
}

static void
control_rings(struct evil *e, struct input *in)
{
	struct shm_mailbox_hdr *hdr = e->srv_mb;
	struct rte_comch_msg msgs[8];
	uint32_t k, v = 1;

	for (k = 0; k < 4; k++) {
		struct shm_ctrl_slot *slot = RTE_PTR_ADD(e->srv_mb,
			sizeof(*hdr) + (size_t)k * e->tx.slot_size);

		slot->len = (uint32_t)take(in, 4);
		slot->seq = (uint32_t)take(in, 4);
	}
	hdr->tx_cons = (uint32_t)take(in, 4);
	for (k = 0; k < 3 && fuzz_conn != NULL; k++)
		rte_comch_msg_recv_burst(fuzz_conn, msgs, 8);
	for (k = 0; k < 40 && fuzz_conn != NULL; k++)
		rte_comch_msg_send(fuzz_conn, &v, sizeof(v));
}

static void
posted_descriptors(struct evil *e, struct input *in)
{
	struct rte_comch_send_op ops[4];
	struct rte_comch_producer *prod;
	struct shm_cons_hdr *hdr;
	struct shm_post_slot *slots;
	size_t rs = ring_size_of(8);
	void *ring, *mem;
	int fds[2], k;
	static uint8_t payload[8192];

	if (fuzz_conn == NULL ||
	    sealed_memfd(rs, true, &fds[0], &ring) < 0 ||
	    sealed_memfd(4096, true, &fds[1], &mem) < 0)
		return;
	hdr = ring;
	slots = RTE_PTR_ADD(ring, sizeof(*hdr));
	for (k = 0; k < 4; k++) {
		slots[k].buf_off = take(in, 8);
		slots[k].buf_len = (uint32_t)take(in, 4);
		slots[k].post_seq = (uint32_t)take(in, 4);
	}
	hdr->claim = (uint32_t)take(in, 4);
	hdr->post_prod = (uint32_t)take(in, 4);
	fuzz_peer_consumer = UINT32_MAX;
	send_consumer_add(e, 1, 8, 32, rs, 4096, fds, 2);
	fuzz_poll(120);
	prod = fuzz_conn != NULL ? rte_comch_producer_create(fuzz_conn, NULL) : NULL;
	if (prod != NULL && rte_comch_producer_start(prod) == 0 &&
	    fuzz_peer_consumer != UINT32_MAX) {
		for (k = 0; k < 4; k++)
			ops[k] = (struct rte_comch_send_op){ .data = payload,
				.len = (uint32_t)take(in, 2) % sizeof(payload),
				.imm = payload, .imm_len = (uint32_t)take(in, 1) % 40 };
		rte_comch_producer_send_burst(prod, fuzz_peer_consumer, ops, 4);
	}
	if (prod != NULL) {
		rte_comch_producer_stop(prod);
		rte_comch_producer_destroy(prod);
	}
	close(fds[0]);
	close(fds[1]);
	munmap(ring, rs);
	munmap(mem, 4096);
}

static void
completion_records(struct evil *e, struct input *in)
{
	struct rte_comch_consumer_conf cc = { .nb_posts = 4, .max_imm_len = 16 };
	struct rte_comch_completion cpl[4];
	struct rte_comch_consumer *cons;
	struct rte_comch_mem *mem;
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct shm_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	struct shm_post_slot *slots;
	uint32_t lens[4] = { 64, 64, 64, 64 };
	void *bufs[4], *ring = MAP_FAILED;
	int fds[2] = { -1, -1 }, k, n;

	if (fuzz_conn == NULL)
		return;
	mem = rte_comch_mem_create(fuzz_dpu, 4096, SOCKET_ID_ANY);
	cc.mem = mem;
	cons = mem != NULL ? rte_comch_consumer_create(fuzz_conn, &cc) : NULL;
	if (cons == NULL || rte_comch_consumer_start(cons) < 0)
		goto out;
	for (k = 0; k < 4; k++)
		bufs[k] = (uint8_t *)rte_comch_mem_addr(mem) + k * 64;
	rte_comch_consumer_post_burst(cons, bufs, lens, 4);
	n = (int)recvmsg(e->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	c = CMSG_FIRSTHDR(&mh);
	if (n == (int)sizeof(m) && m.type == SHM_MSG_CONSUMER_ADD && c != NULL &&
	    c->cmsg_len == CMSG_LEN(2 * sizeof(int))) {
		memcpy(fds, CMSG_DATA(c), sizeof(fds));
		ring = mmap(NULL, m.consumer.ring_size, PROT_READ | PROT_WRITE,
				MAP_SHARED, fds[0], 0);
	}
	if (ring != MAP_FAILED) {
		slots = RTE_PTR_ADD(ring, sizeof(struct shm_cons_hdr));
		for (k = 0; k < 4; k++) {
			slots[k].len = (uint32_t)take(in, 4);
			slots[k].imm_len = (uint8_t)take(in, 1);
			slots[k].producer_id = (uint16_t)take(in, 2);
			slots[k].reserved2 = (uint32_t)take(in, 4);
			__atomic_store_n(&slots[k].done_seq, (uint32_t)take(in, 4),
					__ATOMIC_RELEASE);
		}
	}
	rte_comch_consumer_poll_burst(cons, cpl, 4);
	rte_comch_consumer_stop(cons);
	for (k = 0; k < 1000 &&
	     rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE; k++) {
		rte_comch_consumer_poll_burst(cons, cpl, 4);
		if (k == 10) /* the peer may never write: make it lose */
			close(e->sock), e->sock = -1;
		fuzz_poll(60);
	}
	if (rte_comch_consumer_state(cons) != RTE_COMCH_STATE_IDLE)
		abort(); /* teardown must always complete */
	if (ring != MAP_FAILED)
		munmap(ring, m.consumer.ring_size);
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (cons != NULL)
		rte_comch_consumer_destroy(cons);
	rte_comch_mem_destroy(mem);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .left = size };
	struct evil e;

	if (evil_open(&e, fuzz_dir, fuzz_srv) < 0)
		abort(); /* the DPU no longer serves a valid client: a finding */
	fuzz_poll(120);
	control_rings(&e, &in);
	posted_descriptors(&e, &in);
	completion_records(&e, &in);
	evil_close(&e);
	fuzz_poll(200);
	if (fuzz_unreleased != NULL) {
		rte_comch_server_disconnect(fuzz_srv, fuzz_unreleased);
		fuzz_unreleased = NULL;
	}
	if (fuzz_conn != NULL) {
		rte_comch_server_disconnect(fuzz_srv, fuzz_conn);
		fuzz_conn = NULL;
	}
	return 0;
}
