/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* start, stop, quit; and what every command acts on (perf_cmd). */

#include <stdio.h>

#include <cmdline_parse_string.h>
#include <rte_errno.h>

#include "perf_cmd.h"

struct perf_cmd_ctx perf_cmd;

struct cmd_word {
	cmdline_fixed_string_t word;
};

static void
cmd_start_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	int ret;

	if (perf_cmd.s->running) {
		printf("already running %s; stop it first\n",
			perf_test_name(perf_cmd.s->test));
		return;
	}
	if (perf_test_is(perf_cmd.test, PERF_E_SIZELESS)) {
		printf("%s runs only without -i\n", perf_test_name(perf_cmd.test));
		return;
	}
	ret = perf_session_start(perf_cmd.s, perf_cmd.test, perf_cmd.size,
			perf_cmd.burst);
	if (ret < 0)
		printf("cannot start %s size %u: %s\n",
			perf_test_name(perf_cmd.test), perf_cmd.size,
			rte_strerror(-ret));
	else
		printf("running %s, size %u, burst %u\n",
			perf_test_name(perf_cmd.test), perf_cmd.size,
			perf_cmd.burst);
}

static cmdline_parse_token_string_t cmd_start_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word, word, "start");

cmdline_parse_inst_t perf_cmd_start = {
	.f = cmd_start_parsed,
	.help_str = "start: run the current test until stop",
	.tokens = { (void *)&cmd_start_tok, NULL },
};

static void
cmd_stop_parsed(void *res __rte_unused, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	if (!perf_cmd.s->running) {
		printf("nothing is running\n");
		return;
	}
	if (perf_session_stop(perf_cmd.s) < 0)
		printf("the run ended with an error (see above)\n");
}

static cmdline_parse_token_string_t cmd_stop_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word, word, "stop");

cmdline_parse_inst_t perf_cmd_stop = {
	.f = cmd_stop_parsed,
	.help_str = "stop: stop the test and print its results",
	.tokens = { (void *)&cmd_stop_tok, NULL },
};

static void
cmd_quit_parsed(void *res __rte_unused, struct cmdline *cl,
		void *data __rte_unused)
{
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t cmd_quit_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word, word, "quit");

cmdline_parse_inst_t perf_cmd_quit = {
	.f = cmd_quit_parsed,
	.help_str = "quit: stop what runs and exit",
	.tokens = { (void *)&cmd_quit_tok, NULL },
};
