/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Comch on DPDK: the vendor API compatibility layer (compat/doca).
 *
 * The headers in this folder declare, under the names the vendor's public
 * API reference uses, the parts of the DOCA SDK that Comch applications
 * call. They are written for this project from the published
 * documentation; the implementation runs on rte_comch_* and the comch_shm
 * emulated BlueField. See doc/guides/prog_guide/doca_porting.md.
 */

#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

/* Stability markers the vendor's declarations carry; here they only make
 * the symbol visible. */
#define DOCA_EXPERIMENTAL __attribute__((visibility("default")))
#define DOCA_STABLE __attribute__((visibility("default")))
#define DOCA_DEPRECATED __attribute__((visibility("default"), deprecated))

/* This is the compatibility layer, not the vendor's SDK. */
#define DOCA_COMPAT_COMCH_DPDK 1

#endif /* DOCA_COMPAT_H_ */
