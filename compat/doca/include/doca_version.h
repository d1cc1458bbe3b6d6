/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Version of the API this layer offers. The vendor's samples print it
 * from their version callback (doca_argp_register_version_callback).
 * The layer follows the vendor's 2.9 API (DOCA Comch), with the doca_cc
 * and endpoint generations of 2.5 and 2.2 beside it.
 */

#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_VERSION_MAJOR 2
#define DOCA_VERSION_MINOR 9
#define DOCA_VERSION_PATCH 0
#define DOCA_VERSION_STRING "2.9.0-comch-dpdk"

#define DOCA_VERSION_EQ_CURRENT(major, minor, patch) \
	((major) == DOCA_VERSION_MAJOR && (minor) == DOCA_VERSION_MINOR && (patch) == DOCA_VERSION_PATCH)
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch) \
	((major) < DOCA_VERSION_MAJOR || ((major) == DOCA_VERSION_MAJOR && ((minor) < DOCA_VERSION_MINOR || \
	 ((minor) == DOCA_VERSION_MINOR && (patch) <= DOCA_VERSION_PATCH))))

/* The version the program was built against / runs with. */
DOCA_STABLE
const char *doca_version(void);
DOCA_STABLE
const char *doca_version_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
