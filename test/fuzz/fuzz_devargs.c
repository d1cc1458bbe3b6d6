/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Fuzz target: comch_shm devargs through a real probe. The folder is the
 * harness's own (inputs that name a path are skipped: probing creates
 * folders and sockets there); every other key and value is the input's.
 */

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	return fuzz_setup(false) < 0 ? -1 : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char args[512];
	int n;

	if (size > 256 || memchr(data, '\0', size) != NULL)
		return 0;
	if (memmem(data, size, "path", 4) != NULL)
		return -1;
	n = snprintf(args, sizeof(args), "path=%s,%.*s", fuzz_dir, (int)size,
		(const char *)data);
	if (n < 0 || (size_t)n >= sizeof(args))
		return 0;
	if (rte_vdev_init("comch_shm_fz", args) == 0)
		rte_vdev_uninit("comch_shm_fz");
	return 0;
}
