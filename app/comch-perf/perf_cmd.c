/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Interactive mode: the command table and the loop. */

#include <errno.h>
#include <stdio.h>

#include <cmdline_socket.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "perf_cmd.h"

static cmdline_parse_ctx_t perf_cmd_table[] = {
	(cmdline_parse_inst_t *)&perf_cmd_start,
	(cmdline_parse_inst_t *)&perf_cmd_stop,
	(cmdline_parse_inst_t *)&perf_cmd_show_stats,
	(cmdline_parse_inst_t *)&perf_cmd_clear_stats,
	(cmdline_parse_inst_t *)&perf_cmd_set_size,
	(cmdline_parse_inst_t *)&perf_cmd_set_burst,
	(cmdline_parse_inst_t *)&perf_cmd_set_test,
	(cmdline_parse_inst_t *)&perf_cmd_quit,
	NULL,
};

static int
cmd_loop(struct perf_session *s)
{
	struct cmdline *cl;

	if (s->main_forwards) {
		fprintf(stderr, "-i needs a worker lcore for the streams, e.g. -l 1,0\n");
		return -EINVAL;
	}
	perf_cmd.s = s;
	perf_cmd.test = s->o->tests[0];
	perf_cmd.size = s->o->sizes[0];
	perf_cmd.burst = s->o->burst;
	cl = cmdline_stdin_new(perf_cmd_table, "comch-perf> ");
	if (cl == NULL)
		return -ENOMEM;
	printf("connected to \"%s\" with %u connection(s); commands: start, stop, "
	       "show stats, clear stats, set size|burst|test, quit\n",
	       s->o->name, s->nb_conns);
	while (cmdline_poll(cl) != RDLINE_EXITED && !perf_quit) {
		/* While a test runs, this lcore keeps the connections
		 * polled (what its engine does not own). */
		if (s->running)
			perf_session_poll(s);
		rte_delay_us_sleep(10000);
	}
	if (s->running)
		perf_session_stop(s);
	cmdline_stdin_exit(cl);
	return 0;
}

int
perf_interactive(const struct perf_opts *o, int16_t dev_id)
{
	struct perf_session *s;
	int ret;

	s = rte_zmalloc("perf_session", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	ret = perf_session_open(s, o, dev_id);
	if (ret == 0)
		ret = cmd_loop(s);
	perf_session_close(s);
	rte_free(s);
	return ret;
}
