/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* The file transfer's messages (control messages, host to DPU). */

#ifndef FILE_PROTO_H
#define FILE_PROTO_H

#include <stdint.h>

enum file_msg_type {
	FILE_START = 1,      /* u64 size follows */
	FILE_CHUNK = 2,      /* the next bytes of the file */
	FILE_END = 3,        /* u32 CRC-32 of the whole file follows */
	FILE_ACK = 4,        /* DPU to host: u32 CRC-32 computed, u32 1 if equal */
};

struct file_hdr {
	uint32_t type;
	uint32_t seq;        /* chunks: 0, 1, 2, ... in order */
};

#define FILE_SERVER_NAME "doca_comch_file_sample"

#endif /* FILE_PROTO_H */
