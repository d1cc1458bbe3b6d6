/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_CMD_H
#define COMCH_PERF_CMD_H

/* Interactive mode (-i): one file per group of commands, as testpmd's
 * commands should have been. */

#include <cmdline.h>
#include <cmdline_parse.h>

#include "perf_session.h"

/* What the commands act on. */
struct perf_cmd_ctx {
	struct perf_session *s;
	enum perf_test test;
	uint32_t size;
	uint32_t burst;
};

extern struct perf_cmd_ctx perf_cmd;

/* perf_cmd_run.c: start, stop, quit */
extern cmdline_parse_inst_t perf_cmd_start;
extern cmdline_parse_inst_t perf_cmd_stop;
extern cmdline_parse_inst_t perf_cmd_quit;
/* perf_cmd_show.c: show stats, clear stats */
extern cmdline_parse_inst_t perf_cmd_show_stats;
extern cmdline_parse_inst_t perf_cmd_clear_stats;
/* perf_cmd_set.c: set size N, set burst N, set test T */
extern cmdline_parse_inst_t perf_cmd_set_size;
extern cmdline_parse_inst_t perf_cmd_set_burst;
extern cmdline_parse_inst_t perf_cmd_set_test;

#endif /* COMCH_PERF_CMD_H */
