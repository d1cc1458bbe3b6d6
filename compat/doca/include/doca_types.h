/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Basic types shared by every part of the layer. */

#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque value an application attaches to an object or a task. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/* On Linux, something to epoll: a file descriptor. */
typedef int doca_event_handle_t;
/* The progress engine's notification handle. */
typedef doca_event_handle_t doca_notification_handle_t;

/* How a device may access memory registered with doca_mmap. */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/* A PCI bus/device/function, as the older generations pass addresses
 * (the domain is 0). */
#define PCI_FUNCTION_MAX_VALUE 8
#define PCI_DEVICE_MAX_VALUE 32
#define PCI_BUS_MAX_VALUE 256
struct doca_pci_bdf {
	union {
		uint16_t raw;
		struct {
			uint16_t function : 3;
			uint16_t device : 5;
			uint16_t bus : 8;
		};
	};
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
