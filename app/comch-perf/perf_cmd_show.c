/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* show stats, clear stats: counters of the running test, with rates since
 * the last show or clear. */

#include <inttypes.h>
#include <stdio.h>

#include <cmdline_parse_string.h>
#include <rte_cycles.h>

#include "perf_cmd.h"

struct cmd_two {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t what;
};

static void
cmd_show_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	struct perf_session *s = perf_cmd.s;
	uint64_t now = rte_rdtsc(), msgs = 0, rx = 0, m, r;
	double dt = (double)(now - s->shown_tsc) / (double)s->tsc_hz;
	unsigned int f;

	if (!s->running) {
		printf("nothing is running\n");
		return;
	}
	for (f = 0; f < s->nb_fwd; f++) {
		const struct perf_fwd *fw = &s->fwd[f];

		if (fw->nb_streams == 0)
			continue;
		m = __atomic_load_n(&fw->msgs, __ATOMIC_RELAXED);
		r = __atomic_load_n(&fw->rx_msgs, __ATOMIC_RELAXED);
		printf("  lcore %-3u %u streams  sent %12" PRIu64 "  received %12" PRIu64 "\n",
			fw->lcore_id, fw->nb_streams, m, r);
		msgs += m;
		rx += r;
	}
	printf("  %s size %u: sent %" PRIu64 " (%.3f Mmsg/s since last show), received %"
	       PRIu64 " (%.3f Mmsg/s)\n", perf_test_name(s->test), s->size, msgs,
	       dt > 0 ? (double)(msgs - s->shown_msgs) / dt / 1e6 : 0, rx,
	       dt > 0 ? (double)(rx - s->shown_rx) / dt / 1e6 : 0);
	s->shown_msgs = msgs;
	s->shown_rx = rx;
	s->shown_tsc = now;
}

static cmdline_parse_token_string_t cmd_show_verb =
	TOKEN_STRING_INITIALIZER(struct cmd_two, verb, "show");
static cmdline_parse_token_string_t cmd_show_what =
	TOKEN_STRING_INITIALIZER(struct cmd_two, what, "stats");

cmdline_parse_inst_t perf_cmd_show_stats = {
	.f = cmd_show_parsed,
	.help_str = "show stats: counters per lcore, rates since the last show",
	.tokens = { (void *)&cmd_show_verb, (void *)&cmd_show_what, NULL },
};

static void
cmd_clear_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	struct perf_session *s = perf_cmd.s;
	unsigned int f;

	s->shown_msgs = 0;
	s->shown_rx = 0;
	for (f = 0; s->running && f < s->nb_fwd; f++) {
		s->shown_msgs += __atomic_load_n(&s->fwd[f].msgs, __ATOMIC_RELAXED);
		s->shown_rx += __atomic_load_n(&s->fwd[f].rx_msgs, __ATOMIC_RELAXED);
	}
	s->shown_tsc = rte_rdtsc();
	printf("rates count from now\n");
}

static cmdline_parse_token_string_t cmd_clear_verb =
	TOKEN_STRING_INITIALIZER(struct cmd_two, verb, "clear");
static cmdline_parse_token_string_t cmd_clear_what =
	TOKEN_STRING_INITIALIZER(struct cmd_two, what, "stats");

cmdline_parse_inst_t perf_cmd_clear_stats = {
	.f = cmd_clear_parsed,
	.help_str = "clear stats: start the next rates from now",
	.tokens = { (void *)&cmd_clear_verb, (void *)&cmd_clear_what, NULL },
};
