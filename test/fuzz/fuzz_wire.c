/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fuzz target: socket messages of the handshake and the connection
 * protocol. The input is a series of records, each one selector byte and
 * up to 256 message bytes, sent on one new link socket: the first is the
 * handshake, the rest arrive after it (or after a refusal). The selector
 * picks the fds attached: none, a sealed memfd of the size the message
 * itself implies (so valid handshakes and consumer announcements are
 * reachable), a memfd of the wrong size, or two memfds.
 */

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	return fuzz_setup(true) < 0 ? -1 : 0;
}

/* The size a sealed memfd must have to pass for @p m's first fd. */
static size_t
implied_size(const struct shm_msg *m)
{
	struct shm_ring_geom g;

	if (m->type == SHM_MSG_CONSUMER_ADD)
		return m->consumer.nb_posts <= SHM_MAX_POSTS ?
			ring_size_of(m->consumer.nb_posts ? m->consumer.nb_posts : 1) :
			4096;
	shm_ring_geom_init(&g, m->hello.recv_queue_len <= SHM_MAX_RECV_QUEUE_LEN ?
		m->hello.recv_queue_len : 1, SHM_DEFAULT_MSG_SIZE);
	return g.mailbox_size;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shm_msg m;
	char drain[512];
	size_t off = 0;
	int sock, i;

	sock = raw_connect(fuzz_dir);
	if (sock < 0)
		abort(); /* the DPU stopped listening: a finding */
	while (off < size) {
		uint8_t sel = data[off++];
		size_t len = RTE_MIN(size - off, sizeof(m));
		int fds[2] = { -1, -1 }, nfds = 0;
		void *map[2] = { NULL, NULL };
		size_t sz[2] = { 0, 0 };

		memset(&m, 0, sizeof(m));
		memcpy(&m, data + off, len);
		off += len;
		switch (sel & 3) {
		case 1:
			sz[0] = implied_size(&m);
			nfds = 1;
			if (m.type == SHM_MSG_CONSUMER_ADD) {
				sz[1] = m.consumer.mem_size <= (1u << 20) &&
					m.consumer.mem_size != 0 ?
					m.consumer.mem_size : 4096;
				nfds = 2;
			}
			break;
		case 2:
			sz[0] = 12345;
			nfds = 1;
			break;
		case 3:
			sz[0] = sz[1] = 4096;
			nfds = 2;
			break;
		}
		for (i = 0; i < nfds; i++)
			if (sealed_memfd(sz[i], (sel & 4) == 0, &fds[i], &map[i]) < 0)
				abort();
		raw_send(sock, &m, len, fds, nfds);
		for (i = 0; i < nfds; i++) {
			munmap(map[i], sz[i]);
			close(fds[i]);
		}
		fuzz_poll(120);
		while (recv(sock, drain, sizeof(drain), MSG_DONTWAIT) > 0)
			;
	}
	close(sock);
	fuzz_poll(120);
	return 0;
}
