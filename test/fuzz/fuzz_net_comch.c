/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fuzz target: net_comch's inputs. The first byte picks what the rest is:
 *   0: devargs, through a real probe on the harness's DPU device (a port
 *      that probes is closed again);
 *   1: a series of control messages from the peer (one length byte, then
 *      the bytes), fed to the handshake of a port with 2 rx and 2 tx
 *      queues: whatever they say, nothing beyond our tx queues is
 *      recorded, and every reason logged is printable;
 *   2: frame lengths of a message (immediate data) and its length: the
 *      frames accepted add up to the length, at most 16 of them.
 * Any crash or sanitizer report is a finding.
 */

#include <ctype.h>

#include <rte_ethdev.h>

#include "fuzz_common.h"
#include "net_comch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	return fuzz_setup(true) < 0 ? -1 : 0;
}

static void
fuzz_devargs(const uint8_t *data, size_t size)
{
	char args[512];
	uint16_t port;
	int n;

	if (size > 256 || memchr(data, '\0', size) != NULL)
		return;
	n = snprintf(args, sizeof(args), "%.*s", (int)size, (const char *)data);
	if (n < 0 || (size_t)n >= sizeof(args))
		return;
	if (rte_vdev_init("net_comch_fz", args) != 0)
		return;
	if (rte_eth_dev_get_port_by_name("net_comch_fz", &port) == 0)
		rte_eth_dev_close(port);
	rte_vdev_uninit("net_comch_fz");
}

static void
fuzz_proto(const uint8_t *data, size_t size)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	struct ncm_proto p;
	char why[256];
	size_t off = 0, k;

	ncm_proto_init(&p, 2, 2, 2, 2048, 1500, mac);
	while (off < size) {
		size_t len = RTE_MIN((size_t)data[off], size - off - 1);
		int ev;

		ev = ncm_proto_input(&p, data + off + 1, (uint32_t)len, why,
				sizeof(why));
		off += 1 + len;
		if (ev == NCM_PROTO_VIOLATION || ev == NCM_PROTO_DISAGREED)
			for (k = 0; why[k] != '\0'; k++)
				if (!isprint((unsigned char)why[k]))
					abort();
		if (ev == NCM_PROTO_VIOLATION)
			break; /* the port closes the connection */
		for (k = p.mine.nb_txq; k < NCM_MAX_QUEUES; k++)
			if (p.peer_cons[k] != 0)
				abort();
		if (!p.agreed)
			for (k = 0; k < NCM_MAX_QUEUES; k++)
				if (p.peer_cons[k] != 0)
					abort();
	}
}

static void
fuzz_frames(const uint8_t *data, size_t size)
{
	uint8_t imm[RTE_COMCH_IMM_DATA_MAX] = { 0 };
	uint32_t len, imm_len, sum = 0;
	unsigned int n, k;

	if (size < 5)
		return;
	memcpy(&len, data, 4);
	len &= 0x1ffff;
	imm_len = RTE_MIN((uint32_t)data[4], (uint32_t)sizeof(imm));
	memcpy(imm, data + 5, RTE_MIN((size_t)imm_len, size - 5));
	n = ncm_frames_check(imm, imm_len, len);
	if (n == 0)
		return;
	if (n > NCM_FRAMES_PER_MSG || n * 2 != imm_len)
		abort();
	for (k = 0; k < n; k++)
		sum += (uint32_t)imm[2 * k] | (uint32_t)imm[2 * k + 1] << 8;
	if (sum != len)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_devargs(data + 1, size - 1);
		break;
	case 1:
		fuzz_proto(data + 1, size - 1);
		break;
	default:
		fuzz_frames(data + 1, size - 1);
		break;
	}
	return 0;
}
