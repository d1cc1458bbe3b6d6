/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * dpdk-comch-perf pieces without EAL: option parsing (good and bad) and
 * histogram percentiles on known inputs. Built with the tool's own
 * perf_options.c and perf_hist.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

volatile bool perf_quit;

static int failures;

#define EXPECT(cond, ...) do { \
	if (!(cond)) { \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failures++; \
	} \
} while (0)

/* Parse a space-separated option string, as a primary or a secondary
 * process. */
static int
parse_as(bool secondary, const char *line, struct perf_opts *o)
{
	char buf[512], *argv[32], *tok, *save;
	int argc = 0;

	snprintf(buf, sizeof(buf), "prog %s", line);
	for (tok = strtok_r(buf, " ", &save); tok != NULL && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return perf_parse_args(argc, argv, secondary, o);
}

static int
parse(const char *line, struct perf_opts *o)
{
	return parse_as(false, line, o);
}

/* What a parse prints on stderr, into @p out. */
static int
parse_msg(bool secondary, const char *line, char *out, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	fflush(stderr);
	dup2(fileno(f), 2);
	ret = parse_as(secondary, line, &(struct perf_opts){ 0 });
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
	return ret;
}

static void
test_options(void)
{
	static const char * const bad[] = {
		"--role=cpu", "--test=fp-foo", "--test=", "--size=0",
		"--size=64,,128", "--size=1073741825", "--size=-5",
		"--burst=0", "--burst=1025", "--burst=3x", "--duration=-1",
		"--duration=abc", "--warmup=1e9", "--count=0",
		"--count=5 --duration=1", "--test=fp-tput,", "--test=,fp-lat", "--duration=0", "--name=",
		"--colour", "stray", "--burst",
		"--size=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		"--connections=0", "--connections=1025", "--queues=0",
		"--queues=65", "-i", "-i --role=dpu", "--role=pair -i",
		"--hold", "--role=dpu --hold", "--role=host --hold -i",
	};
	/* What a secondary process refuses: other roles, control tests. */
	static const char * const bad_secondary[] = {
		"--role=pair", "--role=dpu", "--hold", "--role=host --hold", "-i",
		"--test=ctrl-lat", "--test=fp-tput,ctrl-tput", "--test=conn-rate",
	};
	struct perf_opts o;
	size_t i;

	EXPECT(parse("", &o) == 0, "defaults");
	EXPECT(o.role == PERF_ROLE_PAIR && o.nb_tests == 2 &&
	       o.tests[0] == PERF_CTRL_LAT && o.tests[1] == PERF_FP_TPUT &&
	       o.nb_sizes == 1 && o.sizes[0] == 64 && o.burst == 32 &&
	       o.duration == 2 && o.count == 0 && !o.json && !o.touch,
	       "default values");
	EXPECT(parse("--role=host --test=fp-lat,ctrl-tput --size=1,65536,1073741824 "
		     "--burst=1024 --count=1000 --warmup=0 --touch --json --name=x",
		     &o) == 0, "all options");
	EXPECT(o.role == PERF_ROLE_HOST && o.nb_tests == 2 &&
	       o.tests[0] == PERF_FP_LAT && o.tests[1] == PERF_CTRL_TPUT &&
	       o.nb_sizes == 3 && o.sizes[2] == 1073741824 && o.burst == 1024 &&
	       o.count == 1000 && o.duration == 0 && o.warmup == 0 && o.touch &&
	       o.json && strcmp(o.name, "x") == 0, "values");
	EXPECT(parse("--role=dpu", &o) == 0 && o.duration == 0,
	       "dpu serves until SIGINT by default");
	EXPECT(parse("--role=dpu --duration=5", &o) == 0 && o.duration == 5,
	       "dpu serves 5 s");
	EXPECT(parse("--help", &o) == 1, "help");
	EXPECT(parse("--role=host -i --connections=256 --queues=4 "
		     "--test=fp-bidir,conn-rate", &o) == 0 && o.interactive &&
	       o.connections == 256 && o.queues == 4 &&
	       o.tests[0] == PERF_FP_BIDIR && o.tests[1] == PERF_CONN_RATE,
	       "interactive, connections, queues, new tests");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(parse(bad[i], &o) == -EINVAL, "accepted \"%s\"", bad[i]);
	EXPECT(parse("--role=host --hold", &o) == 0 && o.hold &&
	       o.duration == 0, "hold until SIGINT by default");
	EXPECT(parse_as(true, "", &o) == 0 && o.role == PERF_ROLE_HOST &&
	       o.nb_tests == 2 && o.tests[0] == PERF_FP_LAT &&
	       o.tests[1] == PERF_FP_TPUT, "secondary defaults");
	EXPECT(parse_as(true, "--role=host --test=fp-bidir --connections=2 --queues=3",
			&o) == 0 && o.connections == 2 && o.queues == 3,
	       "secondary options");
	for (i = 0; i < sizeof(bad_secondary) / sizeof(bad_secondary[0]); i++)
		EXPECT(parse_as(true, bad_secondary[i], &o) == -EINVAL,
		       "a secondary accepted \"%s\"", bad_secondary[i]);
	/* The message names the option, also right after a short option
	 * was parsed (getopt must start afresh each time). */
	{
		char msg[512];

		parse("-i --role=host", &o);
		EXPECT(parse_msg(true, "--test=ctrl-lat", msg, sizeof(msg)) ==
		       -EINVAL && strstr(msg, "--test=ctrl-lat: a secondary") != NULL,
		       "message after -i: %s", msg);
	}
}

static void
test_hist(void)
{
	static struct perf_hist h;
	uint64_t v, q;

	perf_hist_reset(&h);
	EXPECT(perf_hist_quantile(&h, 0.5) == 0, "empty");
	perf_hist_add(&h, 77);
	EXPECT(perf_hist_quantile(&h, 0.5) == 77 && h.max == 77, "single value");

	/* 1..1000 ns: quantile q is about 1000 q, within a bucket (1.6 %). */
	perf_hist_reset(&h);
	for (v = 1; v <= 1000; v++)
		perf_hist_add(&h, v);
	EXPECT(h.count == 1000 && h.max == 1000 && h.min == 1, "count/max/min");
	q = perf_hist_quantile(&h, 0.5);
	EXPECT(q >= 492 && q <= 508, "p50 %lu", (unsigned long)q);
	q = perf_hist_quantile(&h, 0.99);
	EXPECT(q >= 975 && q <= 1000, "p99 %lu", (unsigned long)q);
	EXPECT(perf_hist_quantile(&h, 1) == 1000, "p100 is the max");
	q = perf_hist_quantile(&h, 0.1);
	EXPECT(q == 100, "below 128 ns buckets are exact: p10 %lu",
	       (unsigned long)q);

	/* 999 fast, 1 slow: p99.9 is fast, max is slow. */
	perf_hist_reset(&h);
	for (v = 0; v < 999; v++)
		perf_hist_add(&h, 500);
	perf_hist_add(&h, 2000000);
	q = perf_hist_quantile(&h, 0.999);
	EXPECT(q >= 496 && q <= 504, "p99.9 %lu", (unsigned long)q);
	EXPECT(h.max == 2000000, "max");
	q = perf_hist_quantile(&h, 0.9995);
	EXPECT(q >= 1968000 && q <= 2000000, "tail %lu", (unsigned long)q);

	/* Huge values land in the last bucket without overflow. */
	perf_hist_add(&h, UINT64_MAX / 2);
	EXPECT(h.max == UINT64_MAX / 2, "huge max");
}

int
main(void)
{
	test_options();
	test_hist();
	printf("perf units: %d failures\n", failures);
	return failures == 0 ? 0 : 1;
}
