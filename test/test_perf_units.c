/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * dpdk-comch-perf pieces without EAL: option parsing (good and bad),
 * histogram percentiles on known inputs, and the shape of the results in
 * text, JSON and CSV. Built with the tool's own perf_options.c,
 * perf_hist.c and perf_report.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "perf.h"

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
		"--json --csv", "--csv --json", "--max-size=0",
		"--max-size=4294967296", "--role=host --max-size=64",
		"--max-mem=1048575", "--max-mem=70368744177665",
		"--role=host --max-mem=1048576",
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
	       o.duration == 2 && o.count == 0 && o.output == PERF_OUT_TEXT && !o.touch,
	       "default values");
	EXPECT(parse("--role=host --test=fp-lat,ctrl-tput --size=1,65536,1073741824 "
		     "--burst=1024 --count=1000 --warmup=0 --touch --json --name=x",
		     &o) == 0, "all options");
	EXPECT(o.role == PERF_ROLE_HOST && o.nb_tests == 2 &&
	       o.tests[0] == PERF_FP_LAT && o.tests[1] == PERF_CTRL_TPUT &&
	       o.nb_sizes == 3 && o.sizes[2] == 1073741824 && o.burst == 1024 &&
	       o.count == 1000 && o.duration == 0 && o.warmup == 0 && o.touch &&
	       o.output == PERF_OUT_JSON && strcmp(o.name, "x") == 0, "values");
	EXPECT(parse("--csv", &o) == 0 && o.output == PERF_OUT_CSV, "--csv");
	EXPECT(parse("--csv --csv", &o) == 0 && o.output == PERF_OUT_CSV,
	       "--csv twice");
	EXPECT(parse_as(true, "--csv", &o) == 0 && o.output == PERF_OUT_CSV,
	       "--csv in a secondary");
	EXPECT(parse("--role=dpu", &o) == 0 && o.duration == 0,
	       "dpu serves until SIGINT by default");
	EXPECT(parse("--role=dpu --duration=5", &o) == 0 && o.duration == 5,
	       "dpu serves 5 s");
	EXPECT(parse("--role=dpu", &o) == 0 && o.max_size == PERF_DPU_MAX_SIZE,
	       "dpu: default --max-size");
	EXPECT(parse("--role=dpu --max-size=4294967295", &o) == 0 &&
	       o.max_size == UINT32_MAX, "dpu: --max-size");
	EXPECT(parse("--size=64,16777216", &o) == 0 &&
	       o.max_size == 16777216, "pair: --max-size from --size");
	EXPECT(parse("--size=64,16777216 --max-size=4096", &o) == 0 &&
	       o.max_size == 4096, "pair: --max-size given");
	EXPECT(parse("--role=dpu", &o) == 0 && o.max_mem == PERF_DPU_MAX_MEM,
	       "dpu: default --max-mem");
	EXPECT(parse("--role=dpu --max-mem=1048576", &o) == 0 &&
	       o.max_mem == 1048576, "dpu: --max-mem");
	EXPECT(parse("--connections=4 --queues=64 --size=64,1048576", &o) == 0 &&
	       o.max_mem == 4 * (64 * perf_queue_mem(1048576) +
				PERF_DPU_MEM_RESERVE),
	       "pair: --max-mem from its tests");
	EXPECT(parse("--connections=4 --queues=64 --size=1048576 --max-mem=1048576",
		     &o) == 0 && o.max_mem == 1048576, "pair: --max-mem given");
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
		EXPECT(parse_msg(false, "--json --csv", msg, sizeof(msg)) ==
		       -EINVAL && strstr(msg, "--json and --csv exclude each other") !=
		       NULL, "message for --json --csv: %s", msg);
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

/* Clock cycles to time units: exact, also for intervals whose cycles times
 * 1e9 do not fit 64 bits (a round trip of minutes in ns, an uptime of
 * days in us). */
static void
test_cycles_to(void)
{
	const uint64_t hz = UINT64_C(2900000000);
	uint64_t v;

	v = perf_cycles_to(hz / 2, hz, 1000000000);
	EXPECT(v == 500000000, "half a second: %lu ns", (unsigned long)v);
	v = perf_cycles_to(281 * hz + hz / 1000, hz, 1000000000);
	EXPECT(v == UINT64_C(281001000000), "281.001 s: %lu ns",
	       (unsigned long)v);
	v = perf_cycles_to(86400 * 7 * hz, hz, 1000000);
	EXPECT(v == UINT64_C(604800000000), "a week: %lu us", (unsigned long)v);
	v = perf_cycles_to(1, hz, 1000000000);
	EXPECT(v == 0, "one cycle: %lu ns", (unsigned long)v);
}

/* Minimum and exact mean, also of histograms merged from lcores. */
static void
test_hist_min_mean(void)
{
	static struct perf_hist a, b, all;
	uint64_t v;

	perf_hist_reset(&a);
	EXPECT(perf_hist_min(&a) == 0 && perf_hist_mean(&a) == 0,
	       "empty: min %lu mean %f", (unsigned long)perf_hist_min(&a),
	       perf_hist_mean(&a));
	/* 1000..1999 ns: the mean is exact (1499.5), not a bucket's middle */
	for (v = 1000; v < 2000; v++)
		perf_hist_add(&a, v);
	EXPECT(perf_hist_min(&a) == 1000 && perf_hist_mean(&a) == 1499.5,
	       "min %lu mean %f", (unsigned long)perf_hist_min(&a),
	       perf_hist_mean(&a));
	perf_hist_reset(&b);
	perf_hist_add(&b, 10);
	perf_hist_add(&b, 30);
	perf_hist_reset(&all);
	perf_hist_merge(&all, &a);
	perf_hist_merge(&all, &b);
	EXPECT(all.count == 1002 && perf_hist_min(&all) == 10 &&
	       all.max == 1999 && all.sum == a.sum + 40,
	       "merged count %lu min %lu max %lu", (unsigned long)all.count,
	       (unsigned long)perf_hist_min(&all), (unsigned long)all.max);
	/* the two smallest of 1002 samples came from b */
	EXPECT(perf_hist_quantile(&all, 0.0005) == 10 &&
	       perf_hist_quantile(&all, 0.0015) == 30, "merged buckets: %lu %lu",
	       (unsigned long)perf_hist_quantile(&all, 0.0005),
	       (unsigned long)perf_hist_quantile(&all, 0.0015));
}

/* ------------------------------------------------------- result output */

/* What perf_report() prints for @p n results, into @p out (headers as at
 * the start of a run). */
static void
report_capture(const struct perf_opts *o, const struct perf_result *r,
		unsigned int n, char *out, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(1);
	unsigned int i;
	size_t len;

	perf_report_reset();
	fflush(stdout);
	dup2(fileno(f), 1);
	for (i = 0; i < n; i++)
		perf_report(o, "host", &r[i]);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	len = fread(out, 1, size - 1, f);
	out[len] = '\0';
	fclose(f);
}

/* Split @p text into lines (in place); returns how many. */
static unsigned int
lines_of(char *text, char **lines, unsigned int max)
{
	unsigned int n = 0;
	char *save, *l;

	for (l = strtok_r(text, "\n", &save); l != NULL && n < max;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

static unsigned int
count_char(const char *s, char c)
{
	unsigned int n = 0;

	for (; *s != '\0'; s++)
		n += *s == c;
	return n;
}

/* Whitespace-separated fields of a line. */
static unsigned int
count_fields(const char *s)
{
	unsigned int n = 0;
	bool in = false;

	for (; *s != '\0'; s++) {
		if (*s != ' ' && !in)
			n++;
		in = *s != ' ';
	}
	return n;
}

/* A run of each kind: a round-trip test on two lcores (1000..1999 ns and
 * 10 ns samples) with its total, one-way throughput, both ways, and
 * conn-rate. */
static struct perf_hist rep_h1, rep_h2, rep_all;
static struct perf_result res[7];

static void
results_make(void)
{
	uint64_t v;

	perf_hist_reset(&rep_h1);
	perf_hist_reset(&rep_h2);
	perf_hist_reset(&rep_all);
	for (v = 1000; v < 2000; v++)
		perf_hist_add(&rep_h1, v);
	perf_hist_add(&rep_h2, 10);
	perf_hist_merge(&rep_all, &rep_h1);
	perf_hist_merge(&rep_all, &rep_h2);
	memset(res, 0, sizeof(res));
	res[0] = (struct perf_result){ .test = PERF_FP_LAT, .size = 64,
		.burst = 32, .lcore = 2, .msgs = 1000, .seconds = 1,
		.sent_total = 1000, .peer_msgs = UINT64_MAX, .lat = &rep_h1 };
	res[1] = res[0];
	res[1].lcore = 3;
	res[1].msgs = res[1].sent_total = 1;
	res[1].lat = &rep_h2;
	res[2] = res[0];
	res[2].lcore = -1;
	res[2].msgs = res[2].sent_total = res[2].peer_msgs = 1001;
	res[2].peer_bytes = 1001 * 64;
	res[2].lat = &rep_all;
	/* 3e6 messages of 1000 bytes in 2 s: 1.5 Mmsg/s, 1.5 GB/s */
	res[3] = (struct perf_result){ .test = PERF_FP_TPUT, .size = 1000,
		.burst = 32, .lcore = -1, .msgs = 3000000, .seconds = 2,
		.sent_total = 3000032, .peer_msgs = 3000032,
		.peer_bytes = 3000032000ULL };
	res[4] = res[3];
	res[4].test = PERF_CTRL_TPUT;
	/* fp-bidir: 4e6 received in 2 s, one message lost on the way back */
	res[5] = res[3];
	res[5].test = PERF_FP_BIDIR;
	res[5].rx_msgs = 4000000;
	res[5].received = 4000000;
	res[5].peer_sent = 4000001;
	/* 5000 connect + disconnect cycles in 2 s */
	res[6] = (struct perf_result){ .test = PERF_CONN_RATE, .lcore = -1,
		.msgs = 5000, .seconds = 2, .sent_total = 5001,
		.peer_msgs = 5001 };
}

static void
test_report_json(void)
{
	struct perf_opts o;
	static char out[8192];
	char *l[16];
	unsigned int n, i;

	parse("--json --connections=3", &o);
	results_make();
	report_capture(&o, res, RTE_DIM(res), out, sizeof(out));
	n = lines_of(out, l, RTE_DIM(l));
	EXPECT(n == RTE_DIM(res), "one JSON object per result, nothing else: %u", n);
	for (i = 0; i < n; i++)
		EXPECT(l[i][0] == '{' && l[i][strlen(l[i]) - 1] == '}',
		       "an object: %s", l[i]);
	if (n != RTE_DIM(res))
		return;
	/* latency rows: latency only, min and mean exact, in ns */
	for (i = 0; i < 3; i++)
		EXPECT(strstr(l[i], "rate_mmsg_per_s") == NULL &&
		       strstr(l[i], "bw_gbyte_per_s") == NULL &&
		       strstr(l[i], "\"burst\"") == NULL &&
		       strstr(l[i], "\"lat_p50_ns\": ") != NULL &&
		       strstr(l[i], "\"lat_p90_ns\": ") != NULL &&
		       strstr(l[i], "\"lat_p99_ns\": ") != NULL &&
		       strstr(l[i], "\"lat_p999_ns\": ") != NULL, "latency row %s",
		       l[i]);
	EXPECT(strstr(l[0], "\"lcore\": 2,") != NULL &&
	       strstr(l[0], "\"lat_min_ns\": 1000,") != NULL &&
	       strstr(l[0], "\"lat_mean_ns\": 1499.5,") != NULL &&
	       strstr(l[0], "\"lat_max_ns\": 1999}") != NULL &&
	       strstr(l[0], "peer_received") == NULL, "lcore 2: %s", l[0]);
	EXPECT(strstr(l[2], "\"lcore\": \"all\",") != NULL &&
	       strstr(l[2], "\"lat_min_ns\": 10,") != NULL &&
	       strstr(l[2], "\"peer_received\": 1001,") != NULL &&
	       strstr(l[2], "\"connections\": 3,") != NULL, "total: %s", l[2]);
	/* throughput rows: rate in Mmsg/s and bandwidth in GB/s, no latency */
	for (i = 3; i < 6; i++)
		EXPECT(strstr(l[i], "\"rate_mmsg_per_s\": 1.500000,") != NULL &&
		       strstr(l[i], "\"bw_gbyte_per_s\": 1.500000") != NULL &&
		       strstr(l[i], "\"burst\": 32,") != NULL &&
		       strstr(l[i], "lat_") == NULL &&
		       strstr(l[i], "conn_per_s") == NULL, "throughput row %s", l[i]);
	EXPECT(strstr(l[3], "rx_") == NULL, "one way: no rx: %s", l[3]);
	EXPECT(strstr(l[5], "\"rx_rate_mmsg_per_s\": 2.000000,") != NULL &&
	       strstr(l[5], "\"rx_bw_gbyte_per_s\": 2.000000") != NULL &&
	       strstr(l[5], "\"peer_sent\": 4000001") != NULL, "fp-bidir %s", l[5]);
	/* conn-rate: its own field, no message rate, no size */
	EXPECT(strstr(l[6], "\"conn_per_s\": 2500.0") != NULL &&
	       strstr(l[6], "mmsg") == NULL && strstr(l[6], "\"size\"") == NULL &&
	       strstr(l[6], "lat_") == NULL, "conn-rate %s", l[6]);
}

static void
test_report_csv(void)
{
	struct perf_opts o;
	static char out[8192];
	char *l[16], *f, *save;
	unsigned int n, i, commas, col, rate_col = 0, conn_col = 0, p50_col = 0;

	parse("--csv", &o);
	results_make();
	report_capture(&o, res, RTE_DIM(res), out, sizeof(out));
	n = lines_of(out, l, RTE_DIM(l));
	EXPECT(n == RTE_DIM(res) + 1, "one header line, one row per result: %u",
	       n);
	if (n != RTE_DIM(res) + 1)
		return;
	EXPECT(strncmp(l[0], "test,role,lcore,size,burst,", 27) == 0 &&
	       strstr(l[0], ",rate_mmsg_per_s,bw_gbyte_per_s,") != NULL &&
	       strstr(l[0], ",conn_per_s,") != NULL &&
	       strstr(l[0], ",lat_min_ns,lat_mean_ns,lat_p50_ns,lat_p90_ns,"
			    "lat_p99_ns,lat_p999_ns,lat_max_ns") != NULL,
	       "header: %s", l[0]);
	commas = count_char(l[0], ',');
	for (i = 1; i < n; i++)
		EXPECT(count_char(l[i], ',') == commas,
		       "as many fields as the header: %s", l[i]);
	/* Which column is which, from the header (its copy: strtok). */
	{
		char head[1024];

		snprintf(head, sizeof(head), "%s", l[0]);
		for (f = strtok_r(head, ",", &save), col = 0; f != NULL;
		     f = strtok_r(NULL, ",", &save), col++) {
			if (strcmp(f, "rate_mmsg_per_s") == 0)
				rate_col = col;
			else if (strcmp(f, "conn_per_s") == 0)
				conn_col = col;
			else if (strcmp(f, "lat_p50_ns") == 0)
				p50_col = col;
		}
	}
	for (i = 1; i < n; i++) {
		char cells[64][32] = { { 0 } };
		const char *p = l[i];

		for (col = 0; col < 64 && *p != '\0'; col++) {
			size_t k = strcspn(p, ",");

			snprintf(cells[col], sizeof(cells[col]), "%.*s", (int)k, p);
			p += k + (p[k] == ',');
		}
		if (i <= 3) /* latency: no rate */
			EXPECT(cells[rate_col][0] == '\0' && cells[p50_col][0] != '\0' &&
			       cells[conn_col][0] == '\0', "latency row %s", l[i]);
		else if (i <= 6)
			EXPECT(strcmp(cells[rate_col], "1.500000") == 0 &&
			       cells[p50_col][0] == '\0' && cells[conn_col][0] == '\0',
			       "throughput row %s", l[i]);
		else
			EXPECT(strcmp(cells[conn_col], "2500.0") == 0 &&
			       cells[rate_col][0] == '\0' && cells[p50_col][0] == '\0',
			       "conn-rate row %s", l[i]);
	}
}

static void
test_report_text(void)
{
	struct perf_opts o;
	static char out[8192];
	char *l[32];
	unsigned int n, i;

	parse("", &o);
	results_make();
	report_capture(&o, res, RTE_DIM(res), out, sizeof(out));
	n = lines_of(out, l, RTE_DIM(l));
	/* a header before each kind: latency (3 rows), one way (2), both
	 * ways (1), conn-rate (1) */
	EXPECT(n == RTE_DIM(res) + 4, "7 rows under 4 headers: %u lines", n);
	if (n != RTE_DIM(res) + 4)
		return;
	EXPECT(strncmp(l[0], "test", 4) == 0 && strstr(l[0], "min(us)") &&
	       strstr(l[0], "mean(us)") && strstr(l[0], "p50(us)") &&
	       strstr(l[0], "p90(us)") && strstr(l[0], "p99(us)") &&
	       strstr(l[0], "p99.9(us)") && strstr(l[0], "max(us)") &&
	       !strstr(l[0], "Mmsg/s") && !strstr(l[0], "GB/s"),
	       "latency header: %s", l[0]);
	for (i = 1; i <= 3; i++)
		EXPECT(strncmp(l[i], "fp-lat", 6) == 0 &&
		       count_fields(l[i]) == count_fields(l[0]) &&
		       strlen(l[i]) == strlen(l[0]), "latency row, aligned: %s", l[i]);
	/* 1000..1999 ns in us */
	EXPECT(strstr(l[1], " 1.000 ") && strstr(l[1], " 1.500 ") &&
	       strstr(l[1], " 1.999"), "lcore 2 in us: %s", l[1]);
	EXPECT(strncmp(l[4], "test", 4) == 0 && strstr(l[4], "Mmsg/s") &&
	       strstr(l[4], "GB/s") && !strstr(l[4], "(us)") &&
	       !strstr(l[4], "rx-"), "one-way header: %s", l[4]);
	for (i = 5; i <= 6; i++)
		EXPECT(count_fields(l[i]) == count_fields(l[4]) &&
		       strlen(l[i]) == strlen(l[4]) && strstr(l[i], " 1.500 ") &&
		       !strstr(l[i], "LOST"), "one-way row, aligned: %s", l[i]);
	EXPECT(strstr(l[7], "rx-Mmsg/s") && strstr(l[7], "rx-GB/s"),
	       "both-ways header: %s", l[7]);
	EXPECT(strncmp(l[8], "fp-bidir", 8) == 0 &&
	       strstr(l[8], "  LOST: peer sent 4000001, received 4000000") &&
	       strstr(l[8], " 2.000 "),
	       "fp-bidir row: %s", l[8]);
	EXPECT(strstr(l[9], "conn/s") && !strstr(l[9], "Mmsg/s") &&
	       !strstr(l[9], "size"), "conn-rate header: %s", l[9]);
	EXPECT(strncmp(l[10], "conn-rate", 9) == 0 &&
	       count_fields(l[10]) == count_fields(l[9]) &&
	       strlen(l[10]) == strlen(l[9]) && strstr(l[10], " 2500"),
	       "conn-rate row: %s", l[10]);

	/* a stall of a loaded machine (0.27 s, 272007163 ns): too wide for
	 * the column with three decimals, printed with fewer, aligned */
	{
		static struct perf_hist big;
		struct perf_result r = res[0];

		perf_hist_reset(&big);
		perf_hist_add(&big, 272007163);
		r.lat = &big;
		report_capture(&o, &r, 1, out, sizeof(out));
		n = lines_of(out, l, RTE_DIM(l));
		EXPECT(n == 2 && count_fields(l[1]) == count_fields(l[0]) &&
		       strlen(l[1]) == strlen(l[0]) && strstr(l[1], " 272007."),
		       "a 0.27 s round trip, aligned: %s", n == 2 ? l[1] : "");
	}

	/* interactive: a header before every result */
	parse("--role=host -i", &o);
	report_capture(&o, &res[3], 2, out, sizeof(out));
	n = lines_of(out, l, RTE_DIM(l));
	EXPECT(n == 4 && strncmp(l[0], "test", 4) == 0 &&
	       strncmp(l[2], "test", 4) == 0, "interactive: %u lines", n);
}

int
main(void)
{
	test_options();
	test_hist();
	test_cycles_to();
	test_hist_min_mean();
	test_report_json();
	test_report_csv();
	test_report_text();
	printf("perf units: %d failures\n", failures);
	return failures == 0 ? 0 : 1;
}
