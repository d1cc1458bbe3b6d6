/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Relays (layer 1): the control messages of a secondary process on a
 * connection. A relay is two single-writer rings in shared memory,
 * allocated by the primary when the secondary first sends or receives on
 * the connection. The secondary writes what it sends into to_link; the
 * connection's polling lcore in the primary sends it on
 * (comch_relay_poll_*), in order, as the link has room, and moves the
 * connection's incoming messages into to_sec, as the secondary makes
 * room. A slot is { len, seq, data }: the writer fills it, then publishes
 * seq = n + 1 (release); the reader takes slot n when seq is exactly
 * n + 1 and moves its own index on. Neither side waits for the other, and
 * a secondary killed in the middle of a write leaves an unpublished slot
 * that is never read. When the secondary leaves, the primary's
 * multi-process thread marks the relay retiring and the polling lcore,
 * its only other user, frees it.
 *
 * What a secondary reads from a relay was written by the primary, which
 * it trusts; the primary reads what a secondary wrote (to_link) only
 * through private copies of the geometry (lengths are clamped to the
 * connection's maximum).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "comch_private.h"

/* Slots per direction. */
#define COMCH_RELAY_SLOTS 16

struct comch_relay_ring {
	uint32_t prod;          /* the writer's count */
	uint8_t pad0[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint32_t)];
	uint32_t cons;          /* the reader's count */
	uint8_t pad1[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint32_t)];
};

struct comch_relay_slot {
	uint32_t len;
	uint32_t seq;           /* message number + 1, written last */
	uint8_t data[];
};

/* Shared memory: the primary writes the geometry once, before it hands
 * the relay out; each index has one writer. */
struct comch_relay_shm {
	uint32_t slot_size;     /* for the secondary */
	uint32_t max_msg;
	bool down;              /* lost, and every message relayed */
	struct comch_relay_ring to_link __rte_cache_aligned;
	struct comch_relay_ring to_sec;
	uint8_t slots[] __rte_cache_aligned; /* to_link's, then to_sec's */
};

/* The primary's private side of a relay (process memory): what it reads
 * only from here, never back from shared memory. */
struct rte_comch_relay {
	struct comch_relay_shm *shared;
	uint32_t owner;         /* the secondary's token */
	uint32_t slot_size;
	uint32_t max_msg;
	uint32_t link_cons;     /* next to_link message to send */
	uint32_t sec_prod;      /* next to_sec slot to fill */
	bool retiring;          /* the secondary left: the lcore frees it */
};

static struct comch_relay_slot *
comch_relay_slot(struct comch_relay_shm *r, uint32_t slot_size, bool to_sec,
		uint32_t n)
{
	return RTE_PTR_ADD(r->slots, ((size_t)to_sec * COMCH_RELAY_SLOTS +
		n % COMCH_RELAY_SLOTS) * slot_size);
}

struct comch_relay_shm *
comch_relay_get(struct rte_comch_conn *conn, uint32_t owner, int *err)
{
	struct rte_comch_relay *l = __atomic_load_n(&conn->relay,
			__ATOMIC_ACQUIRE);
	struct comch_relay_shm *r;
	size_t slot_size;

	*err = 0;
	if (l != NULL) {
		if (l->owner == owner && !__atomic_load_n(&l->retiring,
				__ATOMIC_ACQUIRE))
			return l->shared;
		*err = -EBUSY; /* another's, or still being freed */
		return NULL;
	}
	slot_size = RTE_ALIGN_CEIL(sizeof(struct comch_relay_slot) +
			conn->max_msg_size, RTE_CACHE_LINE_SIZE);
	l = calloc(1, sizeof(*l));
	r = rte_zmalloc("comch_relay", sizeof(*r) +
			2 * COMCH_RELAY_SLOTS * slot_size, RTE_CACHE_LINE_SIZE);
	if (l == NULL || r == NULL) {
		free(l);
		rte_free(r);
		*err = -ENOMEM;
		return NULL;
	}
	r->slot_size = (uint32_t)slot_size;
	r->max_msg = conn->max_msg_size;
	l->shared = r;
	l->owner = owner;
	l->slot_size = (uint32_t)slot_size;
	l->max_msg = conn->max_msg_size;
	if (conn->server != NULL)
		__atomic_fetch_add(&conn->server->nb_relays, 1,
				__ATOMIC_RELAXED);
	__atomic_store_n(&conn->relay, l, __ATOMIC_RELEASE);
	return r;
}

void
comch_relay_retire(struct rte_comch_conn *conn, uint32_t owner)
{
	struct rte_comch_relay *l = __atomic_load_n(&conn->relay,
			__ATOMIC_ACQUIRE);

	if (l != NULL && l->owner == owner)
		__atomic_store_n(&l->retiring, true, __ATOMIC_RELEASE);
}

void
comch_relay_free(struct rte_comch_conn *conn)
{
	struct rte_comch_relay *l = conn->relay;

	if (l == NULL)
		return;
	__atomic_store_n(&conn->relay, NULL, __ATOMIC_RELEASE);
	if (conn->server != NULL)
		__atomic_fetch_sub(&conn->server->nb_relays, 1,
				__ATOMIC_RELAXED);
	rte_free(l->shared);
	free(l);
}

bool
comch_relay_active(const struct rte_comch_conn *conn)
{
	return __atomic_load_n(&conn->relay, __ATOMIC_ACQUIRE) != NULL;
}

/* The polling lcore: what the secondary sent, on to the link; what the
 * link brought, on to the secondary. Whatever the secondary wrote, only
 * its slots' seq and len are read, and its to_sec.cons. */
static int
comch_relay_serve(struct rte_comch_conn *conn)
{
	struct rte_comch_relay *l = conn->relay;
	struct comch_relay_shm *r = l->shared;
	struct rte_comch_msg msgs[COMCH_RELAY_SLOTS];
	struct comch_relay_slot *slot;
	uint32_t used, len;
	int k, i, done = 0;

	if (__atomic_load_n(&l->retiring, __ATOMIC_ACQUIRE)) {
		comch_relay_free(conn);
		return 0;
	}
	/* to the link, in order, as it has room */
	for (;;) {
		slot = comch_relay_slot(r, l->slot_size, false, l->link_cons);
		if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) !=
		    l->link_cons + 1)
			break;
		len = RTE_MIN(__atomic_load_n(&slot->len, __ATOMIC_RELAXED),
				l->max_msg);
		k = comch_local_msg_send(conn, slot->data, len);
		if (k == -EAGAIN)
			break;
		/* sent, or the link is gone: it never will be */
		l->link_cons++;
		__atomic_store_n(&r->to_link.cons, l->link_cons,
				__ATOMIC_RELEASE);
		done++;
	}
	/* from the link, as far as the secondary made room (a count it
	 * cannot have written means no room) */
	used = l->sec_prod - __atomic_load_n(&r->to_sec.cons, __ATOMIC_ACQUIRE);
	if (used >= COMCH_RELAY_SLOTS ||
	    __atomic_load_n(&r->down, __ATOMIC_RELAXED))
		return done;
	k = comch_local_msg_recv(conn, msgs,
			(uint16_t)(COMCH_RELAY_SLOTS - used));
	if (k == -ECONNRESET) {
		__atomic_store_n(&r->down, true, __ATOMIC_RELEASE);
		return done + 1;
	}
	for (i = 0; i < k; i++) {
		slot = comch_relay_slot(r, l->slot_size, true, l->sec_prod);
		len = RTE_MIN(msgs[i].len, l->max_msg);
		slot->len = len;
		memcpy(slot->data, msgs[i].data, len);
		l->sec_prod++;
		__atomic_store_n(&slot->seq, l->sec_prod, __ATOMIC_RELEASE);
		__atomic_store_n(&r->to_sec.prod, l->sec_prod, __ATOMIC_RELEASE);
	}
	return done + (k > 0 ? k : 0);
}

int
comch_relay_poll_server(struct rte_comch_server *srv)
{
	struct rte_comch_conn *conn;
	int n = 0;

	if (__atomic_load_n(&srv->nb_relays, __ATOMIC_RELAXED) == 0)
		return 0;
	RTE_COMCH_SERVER_FOREACH_CONN(conn, srv)
		if (comch_relay_active(conn))
			n += comch_relay_serve(conn);
	return n;
}

int
comch_relay_poll_client(struct rte_comch_client *cli)
{
	if (cli->conn == NULL || !comch_relay_active(cli->conn))
		return 0;
	return comch_relay_serve(cli->conn);
}

/* ---------------------------------------- relays: the secondary's side */

int
comch_relay_send(struct comch_relay_shm *r, const void *data, uint32_t len)
{
	struct comch_relay_slot *slot;
	uint32_t n = r->to_link.prod;

	if (n - __atomic_load_n(&r->to_link.cons, __ATOMIC_ACQUIRE) >=
	    COMCH_RELAY_SLOTS)
		return -EAGAIN;
	slot = comch_relay_slot(r, r->slot_size, false, n);
	slot->len = len;
	if (len != 0)
		memcpy(slot->data, data, len);
	__atomic_store_n(&slot->seq, n + 1, __ATOMIC_RELEASE);
	r->to_link.prod = n + 1;
	return 0;
}

int
comch_relay_recv(struct comch_relay_shm *r, uint8_t *arena,
		struct rte_comch_msg *msgs, uint16_t nb_msgs)
{
	struct comch_relay_slot *slot;
	uint32_t n = r->to_sec.cons, len;
	uint16_t i;

	for (i = 0; i < nb_msgs && i < COMCH_RELAY_SLOTS; i++) {
		slot = comch_relay_slot(r, r->slot_size, true, n + i);
		if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != n + i + 1)
			break;
		len = RTE_MIN(slot->len, r->max_msg);
		memcpy(arena + (size_t)i * r->max_msg, slot->data, len);
		msgs[i].data = arena + (size_t)i * r->max_msg;
		msgs[i].len = len;
	}
	if (i != 0)
		__atomic_store_n(&r->to_sec.cons, n + i, __ATOMIC_RELEASE);
	else if (__atomic_load_n(&r->down, __ATOMIC_ACQUIRE))
		return -ECONNRESET;
	return i;
}

size_t
comch_relay_arena_size(const struct comch_relay_shm *r)
{
	return (size_t)COMCH_RELAY_SLOTS * r->max_msg;
}
