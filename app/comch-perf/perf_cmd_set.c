/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* set size N, set burst N, set test T: for the next start. */

#include <stdio.h>
#include <string.h>

#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>

#include "perf_cmd.h"

struct cmd_set_num {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t what;
	uint32_t value;
};

struct cmd_set_str {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t what;
	cmdline_fixed_string_t value;
};

static bool
cmd_idle(void)
{
	if (perf_cmd.s->running) {
		printf("stop the running test first\n");
		return false;
	}
	return true;
}

static void
cmd_set_size_parsed(void *res, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	const struct cmd_set_num *r = res;

	if (!cmd_idle())
		return;
	if (r->value == 0 || r->value > (1u << 30)) {
		printf("size: 1 to %u bytes\n", 1u << 30);
		return;
	}
	perf_cmd.size = r->value;
	printf("size %u\n", perf_cmd.size);
}

static void
cmd_set_burst_parsed(void *res, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	const struct cmd_set_num *r = res;

	if (!cmd_idle())
		return;
	if (r->value == 0 || r->value > 1024) {
		printf("burst: 1 to 1024\n");
		return;
	}
	perf_cmd.burst = r->value;
	printf("burst %u\n", perf_cmd.burst);
}

static void
cmd_set_test_parsed(void *res, struct cmdline *cl __rte_unused,
		void *data __rte_unused)
{
	const struct cmd_set_str *r = res;
	unsigned int t;

	if (!cmd_idle())
		return;
	for (t = 0; t < PERF_TEST__MAX; t++) {
		if (strcmp(r->value, perf_test_name((enum perf_test)t)) == 0) {
			perf_cmd.test = (enum perf_test)t;
			printf("test %s\n", r->value);
			return;
		}
	}
	printf("unknown test %s\n", r->value);
}

static cmdline_parse_token_string_t cmd_set_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_set_num, set, "set");
static cmdline_parse_token_string_t cmd_set_size_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_set_num, what, "size");
static cmdline_parse_token_string_t cmd_set_burst_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_set_num, what, "burst");
static cmdline_parse_token_num_t cmd_set_value_tok =
	TOKEN_NUM_INITIALIZER(struct cmd_set_num, value, RTE_UINT32);

cmdline_parse_inst_t perf_cmd_set_size = {
	.f = cmd_set_size_parsed,
	.help_str = "set size <bytes>: message size of the next start",
	.tokens = { (void *)&cmd_set_tok, (void *)&cmd_set_size_tok,
		    (void *)&cmd_set_value_tok, NULL },
};

cmdline_parse_inst_t perf_cmd_set_burst = {
	.f = cmd_set_burst_parsed,
	.help_str = "set burst <n>: messages per send call of the next start",
	.tokens = { (void *)&cmd_set_tok, (void *)&cmd_set_burst_tok,
		    (void *)&cmd_set_value_tok, NULL },
};

static cmdline_parse_token_string_t cmd_set_s_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_set_str, set, "set");
static cmdline_parse_token_string_t cmd_set_test_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_set_str, what, "test");
static cmdline_parse_token_string_t cmd_set_test_value =
	TOKEN_STRING_INITIALIZER(struct cmd_set_str, value,
		"ctrl-lat#ctrl-tput#fp-lat#fp-tput#fp-bidir");

cmdline_parse_inst_t perf_cmd_set_test = {
	.f = cmd_set_test_parsed,
	.help_str = "set test ctrl-lat|ctrl-tput|fp-lat|fp-tput|fp-bidir",
	.tokens = { (void *)&cmd_set_s_tok, (void *)&cmd_set_test_tok,
		    (void *)&cmd_set_test_value, NULL },
};
