/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Memory maps, buffers and buffer inventories, as far as Comch needs
 * them: an mmap is a range of the application's memory and the devices it
 * is registered with; a buffer is a window of an mmap with a data section.
 * Nothing is pinned or exported: a consumer registers its receive memory
 * with lib/comch itself (comch_fp.c).
 */

#include <stdlib.h>
#include <string.h>

#include "dc_priv.h"

DC_EXPORT doca_error_t
doca_mmap_create(struct doca_mmap **mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*mmap = calloc(1, sizeof(**mmap));
	if (*mmap == NULL)
		return DOCA_ERROR_NO_MEMORY;
	(*mmap)->max_devs = RTE_DIM((*mmap)->devs);
	(*mmap)->permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_destroy(struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->nb_bufs != 0) {
		DC_ERR("mmap: destroy: %u buffers of it are still held", mmap->nb_bufs);
		return DOCA_ERROR_IN_USE;
	}
	free(mmap);
	return DOCA_SUCCESS;
}

static doca_error_t
dc_mmap_configurable(const struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->started) {
		DC_ERR("mmap: configure before doca_mmap_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
	doca_error_t ret = dc_mmap_configurable(mmap);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (addr == NULL || len == 0)
		return DOCA_ERROR_INVALID_VALUE;
	mmap->addr = addr;
	mmap->len = len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
	doca_error_t ret = dc_mmap_configurable(mmap);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (access_mask >= (DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING << 1))
		return DOCA_ERROR_INVALID_VALUE;
	mmap->permissions = access_mask;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
	doca_error_t ret = dc_mmap_configurable(mmap);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (max_num_devices == 0 || max_num_devices > RTE_DIM(mmap->devs) ||
	    max_num_devices < mmap->nb_devs)
		return DOCA_ERROR_INVALID_VALUE;
	mmap->max_devs = max_num_devices;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
	doca_error_t ret = dc_mmap_configurable(mmap);

	if (ret != DOCA_SUCCESS)
		return ret;
	mmap->user_data = user_data;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t ret = dc_mmap_configurable(mmap);
	uint32_t i;

	if (ret != DOCA_SUCCESS)
		return ret;
	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	for (i = 0; i < mmap->nb_devs; i++)
		if (mmap->devs[i]->info == dev->info)
			return DOCA_ERROR_ALREADY_EXIST;
	if (mmap->nb_devs == mmap->max_devs)
		return DOCA_ERROR_FULL;
	mmap->devs[mmap->nb_devs++] = dev;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t ret = dc_mmap_configurable(mmap);
	uint32_t i;

	if (ret != DOCA_SUCCESS)
		return ret;
	for (i = 0; i < mmap->nb_devs; i++) {
		if (mmap->devs[i] == dev) {
			mmap->devs[i] = mmap->devs[--mmap->nb_devs];
			return DOCA_SUCCESS;
		}
	}
	return DOCA_ERROR_NOT_FOUND;
}

DC_EXPORT doca_error_t
doca_mmap_start(struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->started)
		return DOCA_ERROR_BAD_STATE;
	if (mmap->addr == NULL) {
		DC_ERR("mmap: start: set the memory range first (doca_mmap_set_memrange)");
		return DOCA_ERROR_BAD_STATE;
	}
	mmap->started = true;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_stop(struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->nb_bufs != 0) {
		DC_ERR("mmap: stop: %u buffers of it are still held", mmap->nb_bufs);
		return DOCA_ERROR_IN_USE;
	}
	mmap->started = false;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
	if (mmap == NULL || addr == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*addr = mmap->addr;
	*len = mmap->len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data)
{
	if (mmap == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = mmap->user_data;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_mmap_get_permissions(const struct doca_mmap *mmap, uint32_t *access_mask)
{
	if (mmap == NULL || access_mask == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*access_mask = mmap->permissions;
	return DOCA_SUCCESS;
}

/* -------------------------------------------------------------- inventory */

DC_EXPORT doca_error_t
doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **buf_inventory)
{
	struct doca_buf_inventory *inv;

	if (buf_inventory == NULL || num_elements == 0 || num_elements > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	inv = calloc(1, sizeof(*inv));
	if (inv == NULL)
		return DOCA_ERROR_NO_MEMORY;
	inv->elems = calloc(num_elements, sizeof(*inv->elems));
	if (inv->elems == NULL) {
		free(inv);
		return DOCA_ERROR_NO_MEMORY;
	}
	inv->num = (uint32_t)num_elements;
	*buf_inventory = inv;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (inventory->started && inventory->nb_free != inventory->num) {
		DC_ERR("buffer inventory: destroy: %u buffers are still held",
		       inventory->num - inventory->nb_free);
		return DOCA_ERROR_IN_USE;
	}
	free(inventory->elems);
	free(inventory);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	uint32_t i;

	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (inventory->started)
		return DOCA_ERROR_BAD_STATE;
	inventory->free = NULL;
	for (i = inventory->num; i-- > 0;) {
		inventory->elems[i].inv = inventory;
		inventory->elems[i].next_free = inventory->free;
		inventory->free = &inventory->elems[i];
	}
	inventory->nb_free = inventory->num;
	inventory->started = true;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (inventory->nb_free != inventory->num) {
		DC_ERR("buffer inventory: stop: %u buffers are still held",
		       inventory->num - inventory->nb_free);
		return DOCA_ERROR_IN_USE;
	}
	inventory->started = false;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory, uint32_t *num_of_elements)
{
	if (inventory == NULL || num_of_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_of_elements = inventory->num;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
					 uint32_t *num_of_free_elements)
{
	if (inventory == NULL || num_of_free_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_of_free_elements = inventory->nb_free;
	return DOCA_SUCCESS;
}

static bool
dc_in_mmap(const struct doca_mmap *mmap, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, base = (uintptr_t)mmap->addr;

	return a >= base && len <= mmap->len && a - base <= mmap->len - len;
}

DC_EXPORT doca_error_t
doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr,
				   size_t len, void *data, size_t data_len, struct doca_buf **buf)
{
	struct doca_buf *b;

	if (inventory == NULL || mmap == NULL || addr == NULL || buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!inventory->started || !mmap->started) {
		DC_ERR("buffer: start the inventory and the mmap first");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!dc_in_mmap(mmap, addr, len) || (char *)data < (char *)addr ||
	    data_len > len || (size_t)((char *)data - (char *)addr) > len - data_len) {
		DC_ERR("buffer: [%p, +%zu) with data [%p, +%zu) is not inside the mmap [%p, +%zu)", addr, len,
		       data, data_len, mmap->addr, mmap->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	b = inventory->free;
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	inventory->free = b->next_free;
	inventory->nb_free--;
	b->mmap = mmap;
	b->head = addr;
	b->len = len;
	b->data = data;
	b->data_len = data_len;
	b->refcount = 1;
	b->next_free = NULL;
	mmap->nb_bufs++;
	*buf = b;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr,
				   size_t len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

DC_EXPORT doca_error_t
doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *data,
				   size_t data_len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

/* ----------------------------------------------------------------- buffers */

DC_EXPORT doca_error_t
doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL || buf->refcount == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (buf->refcount == UINT16_MAX)
		return DOCA_ERROR_TOO_BIG;
	buf->refcount++;
	if (refcount != NULL)
		*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	struct doca_buf_inventory *inv;

	if (buf == NULL || buf->refcount == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (--buf->refcount == 0) {
		inv = buf->inv;
		buf->mmap->nb_bufs--;
		buf->next_free = inv->free;
		inv->free = buf;
		inv->nb_free++;
	}
	if (refcount != NULL)
		*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL || refcount == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
	if (buf == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*len = buf->len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_get_head(const struct doca_buf *buf, void **head)
{
	if (buf == NULL || head == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*head = buf->head;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
	if (buf == NULL || data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*data_len = buf->data_len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_get_data(const struct doca_buf *buf, void **data)
{
	if (buf == NULL || data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*data = buf->data;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
	if (buf == NULL || data == NULL || (char *)data < buf->head || data_len > buf->len ||
	    (size_t)((char *)data - buf->head) > buf->len - data_len)
		return DOCA_ERROR_INVALID_VALUE;
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
	if (buf == NULL || data_len > buf->len - (size_t)(buf->data - buf->head))
		return DOCA_ERROR_INVALID_VALUE;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_buf_reset_data_len(struct doca_buf *buf)
{
	if (buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	buf->data_len = 0;
	return DOCA_SUCCESS;
}
