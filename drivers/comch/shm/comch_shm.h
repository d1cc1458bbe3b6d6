/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_SHM_H
#define COMCH_SHM_H

/**
 * @file
 *
 * comch_shm: an emulated BlueField comm channel over shared memory.
 *
 * Link and handshake (UNIX SOCK_SEQPACKET, one fixed-size struct shm_msg
 * per packet):
 *
 *   The DPU device listens on <path>/<function>.sock for every host
 *   function it serves; socket file permissions stand in for the PCIe
 *   isolation of a real BlueField. A host client connects to the socket of
 *   the function its device is attached as, so it can only ever reach
 *   servers of that function.
 *
 *     client                                   DPU
 *       HELLO(server name, max_msg_size,  ---->  EAL interrupt thread routes
 *             recv_queue_len) + mailbox fd       it to the named server
 *                                               (or REJECT -ENOENT)
 *       <---- ACCEPT(conn id, recv_queue_len)    server poll (its lcore)
 *             + mailbox fd                       validates, maps, answers
 *         or  REJECT(errno, reason)
 *
 *   After ACCEPT the socket carries only consumer announcements
 *   (CONSUMER_ADD/DEL/SKIP, below), BYE (the peer closes the connection
 *   on purpose), EVENT (once, from a side whose HELLO or ACCEPT said
 *   SHM_F_EVENT) and liveness: EOF without BYE = the peer died; anything
 *   else = protocol violation. Messages never cross it. Protocol version 4
 *   added BYE; version 5 replaced abort_seq by an aborted completion;
 *   version 6 added event mode (flags in HELLO, ACCEPT and CONSUMER_ADD,
 *   EVENT, the arm page and the kick socket); version 7 added
 *   CONSUMER_SKIP.
 *
 *   The protocol describes the host/DPU link only. Which process of a
 *   side owns a producer or a consumer is that side's business: a side
 *   with secondary processes speaks through its primary, which alone
 *   holds the socket (the library carries what crosses its processes).
 *
 * Mailbox (one memfd per side per connection, sealed against resizing):
 *
 *   Each side creates a mailbox and the *peer* maps it. Everything in a
 *   mailbox is written only by the peer and read only by its owner ("write
 *   remote, read local", as over PCIe). So every value a side reads from
 *   shared memory comes from its own mailbox, is peer-written, and is
 *   validated against private copies of the geometry before use:
 *
 *     0    reserved  (was a producer index; the slots carry it now)
 *     64   tx_cons   how many of *our* messages (in the peer's mailbox)
 *                    the peer has consumed
 *     128  reserved  (fast-path doorbells)
 *     256  ring      ring_size slots of slot_size bytes:
 *                    { uint32 len; uint32 seq; data[max_msg_size] }
 *                    message n is in slot n & (ring_size - 1), complete
 *                    once its seq (written last) is n + 1
 *
 *   ring_size = next power of two >= recv_queue_len; the queue holds
 *   exactly recv_queue_len messages. Indices are free-running uint32.
 *   Geometry (ring_size, queue length, slot_size, region size) is computed
 *   privately by both sides from the negotiated parameters and never read
 *   back from shared memory. A received memfd must have exactly the
 *   computed size and carry F_SEAL_SHRINK | F_SEAL_GROW.
 *
 * Fast path (see doc/guides/drivers/comch_shm.md, "Fast path"):
 *
 *   A consumer's side creates a consumer ring (memfd) and announces it with
 *   CONSUMER_ADD(id, nb_posts, max_imm_len, ring_size, mem_size) + 2 fds
 *   (the ring and the registered memory); CONSUMER_DEL(id) withdraws it.
 *   The peer's producers map both. Ids are never 0, and one consumer's id
 *   is never another's on the connection (a consumer started again is
 *   announced again with its id). A consumer withdrawn before its
 *   CONSUMER_ADD left (the peer had not read its socket) is not
 *   announced: CONSUMER_SKIP(id) says instead that every id up to id was
 *   used, so that the peer's sends to it fail rather than wait for an
 *   announcement. Ids come in start order, not id order: an ADD may
 *   follow a higher id's ADD or SKIP.
 *
 *     0    post_prod  consumer: buffers posted so far (release)
 *     64   claim      producers: buffers taken so far (CAS; the consumer
 *                     also CASes it to post_prod when it stops)
 *     256  slots      ring_size x struct shm_post_slot
 *
 *   Posting writes {buf_off, buf_len, post_seq = index} then post_prod. A
 *   producer reads post_prod (acquire), peeks the slots it wants and checks
 *   post_seq, offset and length against its private copy of the memory
 *   size, claims them with one CAS on claim, copies each payload into the
 *   registered memory at buf_off, writes {producer_id, imm_len, imm} and
 *   then the completion word {done_seq = index + 1, len} in one 64-bit
 *   store (release). The consumer returns slots in order as their done_seq
 *   turns to index + 1, checking len and imm_len against its private copy
 *   of what it posted and accepts.
 *
 *   A transfer the producing side claimed and cannot complete is aborted:
 *   its completion word says done_seq = index + 1, len = SHM_LEN_ABORTED,
 *   and the consumer returns that buffer unfilled (-ECANCELED), in order.
 *   The consumer needs to know nothing about why (in comch_shm: a
 *   producer's process died in the middle of a send, and the primary of
 *   the producing side finished the send for it; see comch_shm_peer.c).
 *   The abort is written with a compare-and-swap on the completion word,
 *   so it can never overwrite a real completion.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#define SHM_DRIVER_NAME comch_shm

#define SHM_PROTO_MAGIC   UINT32_C(0x48434d43) /* "CMCH" */
#define SHM_PROTO_VERSION 7

/** Server name storage in protocol messages (NUL included). */
#define SHM_NAME_MAX 64
/** Reject reason text (NUL included). */
#define SHM_REASON_MAX 160

/** Largest control message the emulation carries (one 4 KiB slot). */
#define SHM_MAX_MSG_SIZE 4080
#define SHM_DEFAULT_MSG_SIZE SHM_MAX_MSG_SIZE
#define SHM_MAX_RECV_QUEUE_LEN 8192
#define SHM_DEFAULT_RECV_QUEUE_LEN 32

/** Host functions a DPU device can serve. */
#define SHM_MAX_FUNCTIONS 16
/** Function name storage ("pf7vf65535" fits). */
#define SHM_FUNC_NAME_MAX 16

enum shm_msg_type {
	SHM_MSG_HELLO = 1,  /**< client -> DPU, carries 1 fd */
	SHM_MSG_ACCEPT = 2, /**< DPU -> client, carries 1 fd */
	SHM_MSG_REJECT = 3, /**< DPU -> client, no fd */
	SHM_MSG_CONSUMER_ADD = 4, /**< either way after ACCEPT, carries 2 fds */
	SHM_MSG_CONSUMER_DEL = 5, /**< either way after ACCEPT, no fd */
	SHM_MSG_BYE = 6,          /**< either way after ACCEPT, no fd: the
				   *   sender closes on purpose (EOF follows) */
	SHM_MSG_EVENT = 7,        /**< either way after ACCEPT, 2 fds: the
				   *   sender's arm page and kick socket for
				   *   its control ring (event mode) */
	SHM_MSG_CONSUMER_SKIP = 8, /**< either way after ACCEPT, no fd: ids
				    *   up to consumer_id were used, and those
				    *   not announced are gone */
};

/** Highest message type. */
#define SHM_MSG_TYPE_MAX SHM_MSG_CONSUMER_SKIP

/** HELLO / ACCEPT flag: the sender's control ring has events: it sends
 * EVENT next, and the receiver kicks it (so fences from the start). */
#define SHM_F_EVENT 1u

struct shm_msg_hello {
	char server_name[SHM_NAME_MAX]; /**< NUL-terminated. */
	uint32_t max_msg_size;   /**< Must equal the server's. */
	uint32_t recv_queue_len; /**< Depth of the client's queue. */
	uint64_t mailbox_size;   /**< Size of the attached memfd. */
	uint32_t flags;          /**< SHM_F_EVENT or 0. */
	uint32_t reserved;
};

struct shm_msg_accept {
	uint32_t conn_id;        /**< DPU's connection id, for logs. */
	uint32_t recv_queue_len; /**< Depth of the server's queue. */
	uint64_t mailbox_size;   /**< Size of the attached memfd. */
	/* The DPU's quotas for this connection: the host announces at most
	 * max_consumers consumers at once, whose rings and memory map at
	 * most max_map bytes in all; beyond is a protocol violation. */
	uint32_t max_consumers;
	uint32_t flags;          /**< SHM_F_EVENT or 0. */
	uint64_t max_map;
};

struct shm_msg_reject {
	int32_t err;                  /**< Positive errno. */
	char reason[SHM_REASON_MAX];  /**< NUL-terminated, for logs. */
};

struct shm_msg_consumer {
	uint32_t consumer_id;
	uint32_t nb_posts;    /**< Buffers posted at most at once. */
	uint32_t max_imm_len; /**< Immediate data accepted per message. */
	uint32_t flags;       /**< SHM_F_EVENT: 4 fds, the last two its arm
			       *   page and kick socket; else 2. */
	uint64_t ring_size;   /**< Size of the consumer ring memfd. */
	uint64_t mem_size;    /**< Size of the registered memory memfd. */
};

/** Every packet on the link socket is exactly one of these. */
struct shm_msg {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	union {
		struct shm_msg_hello hello;
		struct shm_msg_accept accept;
		struct shm_msg_reject reject;
		struct shm_msg_consumer consumer;
		uint8_t raw[248];
	};
};

/** Mailbox header: every field written by the peer only. */
struct shm_mailbox_hdr {
	uint32_t reserved0;
	uint8_t pad0[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint32_t)];
	uint32_t tx_cons;
	uint8_t pad1[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint32_t)];
	uint8_t reserved[2 * RTE_CACHE_LINE_MIN_SIZE];
};

/** One control message slot. */
struct shm_ctrl_slot {
	uint32_t len;
	uint32_t seq;   /**< Message number + 1, written last. */
	uint8_t data[];
};

/** Fast-path limits of the emulation. */
#define SHM_MAX_POSTS 8192
#define SHM_MAX_IMM 32
#define SHM_MAX_BUF_SIZE (UINT64_C(1) << 30)
#define SHM_MAX_MEM_SIZE (UINT64_C(16) << 30)

/** Consumer ring header. */
struct shm_cons_hdr {
	uint32_t post_prod;
	uint8_t pad0[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint32_t)];
	uint32_t claim;
	uint8_t pad1[RTE_CACHE_LINE_MIN_SIZE - sizeof(uint32_t)];
	uint8_t reserved[2 * RTE_CACHE_LINE_MIN_SIZE];
};

/** The completion word of a posted buffer: written by a producer in one
 * 64-bit store (or compare-and-swap, to abort). */
union shm_cpl {
	uint64_t word;
	struct {
		uint32_t done_seq;  /**< index + 1 once complete. */
		uint32_t len;       /**< Bytes written, or SHM_LEN_ABORTED. */
	};
};

/** len of a transfer the producing side aborted: no payload. */
#define SHM_LEN_ABORTED UINT32_MAX

/** One posted buffer, one cache line. */
struct shm_post_slot {
	/* Written by the consumer when posting. */
	uint64_t buf_off;
	uint32_t buf_len;
	uint32_t post_seq;
	/* Written by the producer that claimed it: the completion word
	 * last. */
	union {
		uint64_t cpl;         /**< union shm_cpl, as one word. */
		struct {
			uint32_t done_seq;
			uint32_t len;
		};
	};
	uint16_t producer_id;
	uint8_t imm_len;
	uint8_t reserved;
	uint8_t imm[SHM_MAX_IMM];
	uint32_t reserved2;
};

/*
 * Event mode (see doc/guides/drivers/comch_shm.md, "Event mode"). A side
 * that can sleep on a waitable (a consumer, or its control ring) gives the
 * peer two fds for it: an arm page and a kick socket.
 *
 * The arm page is a memfd of SHM_ARM_PAGE_SIZE bytes that its owner maps
 * read-write and then seals with F_SEAL_FUTURE_WRITE (and against
 * resizing): the peer can only map it read-only, so it can read the arm
 * word and never change it. The arm word (offset 0, 64 bits, written by
 * the owner only): SHM_ARM_ARMED while the owner sleeps on new work,
 * SHM_ARM_ROOM while it also waits for room to send (control ring), and
 * a generation in the bits above, increased at every arm.
 *
 * The kick socket is one end of an AF_UNIX SOCK_SEQPACKET socketpair whose
 * other end the owner keeps in the epoll set it sleeps on. To kick is to
 * send one byte on it without waiting (MSG_DONTWAIT).
 *
 * Rule (both sides): the waiter stores the arm word, fences, then looks
 * for work once more before it sleeps; the kicker publishes the work,
 * fences, then reads the arm word and kicks if it is armed for what it
 * published and it has not kicked that value of the word before.
 */
#define SHM_ARM_PAGE_SIZE 4096
#define SHM_ARM_ARMED UINT64_C(1)
#define SHM_ARM_ROOM  UINT64_C(2)
#define SHM_ARM_GEN   UINT64_C(4)   /* one generation */

struct shm_arm_page {
	uint64_t arm;
	uint8_t reserved[SHM_ARM_PAGE_SIZE - sizeof(uint64_t)];
};

/** Private geometry of one control ring, derived from negotiated values. */
struct shm_ring_geom {
	uint32_t depth;     /**< Messages the queue holds. */
	uint32_t mask;      /**< ring_size - 1. */
	uint32_t slot_size; /**< Bytes per slot. */
	uint32_t max_msg;   /**< Largest message. */
	uint64_t mailbox_size; /**< Whole region, page aligned. */
};

static inline void
shm_protocol_checks(void)
{
	RTE_BUILD_BUG_ON(sizeof(struct shm_msg) != 256);
	RTE_BUILD_BUG_ON(sizeof(struct shm_mailbox_hdr) != 256);
	RTE_BUILD_BUG_ON(sizeof(struct shm_ctrl_slot) != 8);
	RTE_BUILD_BUG_ON(sizeof(struct shm_ctrl_slot) + SHM_MAX_MSG_SIZE >
			 4096);
	RTE_BUILD_BUG_ON(sizeof(struct shm_cons_hdr) != 256);
	RTE_BUILD_BUG_ON(sizeof(struct shm_post_slot) != 64);
	RTE_BUILD_BUG_ON(sizeof(struct shm_arm_page) != SHM_ARM_PAGE_SIZE);
	RTE_BUILD_BUG_ON(sizeof(struct shm_msg_hello) > 248);
	RTE_BUILD_BUG_ON(offsetof(struct shm_post_slot, cpl) != 16);
	RTE_BUILD_BUG_ON(offsetof(struct shm_post_slot, done_seq) !=
			 offsetof(struct shm_post_slot, cpl) +
			 offsetof(union shm_cpl, done_seq));
	RTE_BUILD_BUG_ON(offsetof(struct shm_post_slot, len) !=
			 offsetof(struct shm_post_slot, cpl) +
			 offsetof(union shm_cpl, len));
}

#endif /* COMCH_SHM_H */
