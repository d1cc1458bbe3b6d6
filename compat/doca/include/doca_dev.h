/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Devices and representors.
 *
 * Here the devices are emulated BlueField functions, configured outside
 * the program (DOCA_COMCH_EMU, DOCA_COMCH_EMU_CONF or
 * /etc/doca_comch_emu.conf; see doca_porting.md). The list holds every
 * configured device: each DPU device, and a host device per host function
 * it serves. Opening one creates its comch_shm device.
 */

#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A device as listed, before opening. */
struct doca_devinfo;
/* A representor (a host function seen from the DPU) as listed. */
struct doca_devinfo_rep;
/* An opened device. */
struct doca_dev;
/* An opened representor. */
struct doca_dev_rep;

/* "0000:03:00.0" and its NUL. */
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13
/* "03:00.0" and its NUL. */
#define DOCA_DEVINFO_PCI_BDF_SIZE 8
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE DOCA_DEVINFO_PCI_ADDR_SIZE
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
#define DOCA_DEVINFO_REP_VUID_SIZE 128
#define DOCA_DEVINFO_VUID_SIZE 128

/* Which representors to list. */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,
	DOCA_DEVINFO_REP_FILTER_NET = (1 << 1),
	DOCA_DEVINFO_REP_FILTER_EMULATED = (1 << 2),
};

/* List the devices; free the list with doca_devinfo_destroy_list(). Starts
 * the layer (DPDK EAL) on first use. DOCA_ERROR_BAD_CONFIG: the emulated
 * devices' configuration is wrong (logged). */
DOCA_STABLE
doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
DOCA_STABLE
doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/* List the representors of an opened DPU device (none on a host device). */
DOCA_STABLE
doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
					  struct doca_devinfo_rep ***dev_list_rep,
					  uint32_t *nb_devs_rep);
DOCA_STABLE
doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/* Open / close a device or representor. A device may be opened several
 * times; each handle is closed on its own. */
DOCA_STABLE
doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
DOCA_STABLE
doca_error_t doca_dev_close(struct doca_dev *dev);
DOCA_STABLE
doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);
DOCA_STABLE
doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

DOCA_STABLE
struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);
DOCA_STABLE
struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/* PCI address, "DDDD:BB:DD.F" (DOCA_DEVINFO_PCI_ADDR_SIZE bytes). */
DOCA_STABLE
doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
					       char *pci_addr_str);

/* Compare with "BB:DD.F" or "DDDD:BB:DD.F"; @p is_equal receives 1 or 0.
 * DOCA_ERROR_INVALID_VALUE: @p pci_addr_str is not a PCI address. */
DOCA_STABLE
doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
					    const char *pci_addr_str, uint8_t *is_equal);
DOCA_STABLE
doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
						const char *pci_addr_str, uint8_t *is_equal);

/* The same with a struct doca_pci_bdf (older generations; domain 0). */
DOCA_STABLE
doca_error_t doca_devinfo_get_pci_addr(const struct doca_devinfo *devinfo, struct doca_pci_bdf *pci_addr);
DOCA_STABLE
doca_error_t doca_devinfo_get_is_pci_addr_equal(const struct doca_devinfo *devinfo,
						const struct doca_pci_bdf *pci_addr, uint8_t *is_equal);
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
					   struct doca_pci_bdf *pci_addr);
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_is_pci_addr_equal(const struct doca_devinfo_rep *devinfo_rep,
						    const struct doca_pci_bdf *pci_addr, uint8_t *is_equal);

/* Names: "comch_emu<N>" for both (an emulated device has no netdev). */
DOCA_STABLE
doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
					 uint32_t size);
DOCA_STABLE
doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
					 uint32_t size);

/* A representor's VUID: here, its host function name ("pf0vf1"). */
DOCA_STABLE
doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
				       uint32_t size);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
