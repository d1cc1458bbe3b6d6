/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef TEST_EVIL_H
#define TEST_EVIL_H

/* What test_evil.c and test_evil_net.c share. */

/** The link folder of this process's comch_shm devices. */
extern char link_dir[64];

/* test_evil_net.c: a net_comch port against a host that writes the wire
 * by hand. net_evil_init() once, after EAL. */
int net_evil_init(void);
int case_net_bad_messages(void);
int case_net_disagree(void);
int case_net_silent(void);
int case_net_frames(void);
int case_net_ctrl_budget(void);
int case_net_refused_unread(void);
int case_net_honest(void);

#endif /* TEST_EVIL_H */
