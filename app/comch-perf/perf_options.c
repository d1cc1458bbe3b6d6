/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Option parsing for dpdk-comch-perf: strict, one message per mistake. */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_engine.h"

void
perf_usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "\n"
	       "Measures Comch between an emulated DPU and a host. The host side drives\n"
	       "the tests, the DPU side serves them.\n"
	       "\n"
	       "  --role=ROLE       dpu: serve hosts; host: run the tests against a DPU\n"
	       "                    process; pair: both in this process on two lcores,\n"
	       "                    over two comch_shm devices (created when none are\n"
	       "                    given). Default: pair\n"
	       "  --test=T[,T...]   ctrl-lat, ctrl-tput, fp-lat, fp-tput, fp-bidir,\n"
	       "                    conn-rate, wake-lat, idle (default\n"
	       "                    ctrl-lat,fp-tput; in a secondary process\n"
	       "                    fp-lat,fp-tput)\n"
	       "  --size=N[,N...]   message sizes in bytes (default 64); control tests\n"
	       "                    take sizes up to the device's max message size\n"
	       "  --burst=N         messages per send call, 1..1024 (default 32)\n"
	       "  --duration=SEC    measure for SEC seconds (default 2), and until each\n"
	       "                    lcore measured one message (SEC, or 10 s, more at\n"
	       "                    most); with role dpu: serve for SEC seconds\n"
	       "                    (default: until SIGINT)\n"
	       "  --count=N         measure N messages instead of a duration\n"
	       "  --warmup=SEC      run SEC seconds before measuring (default 0.5)\n"
	       "  --connections=N   host: connections to open, 1..1024 (default 1)\n"
	       "  --queues=N        producer/consumer pairs per connection in fast-path\n"
	       "                    tests, 1..64 (default 1); streams go round robin to\n"
	       "                    the worker lcores (the main lcore if there is none)\n"
	       "  --max-size=N      dpu, pair: the largest fast-path message size a host\n"
	       "                    may ask for, 1..4294967295 (default 1048576; pair:\n"
	       "                    at least the largest --size)\n"
	       "  --max-mem=N       dpu, pair: registered memory the queues of all hosts\n"
	       "                    may take, in bytes, 1048576..2^46 (default 2^30;\n"
	       "                    pair: at least what its own tests take)\n"
	       "  --touch           the consumer reads every payload byte\n"
	       "  --event           event mode: sleep in epoll when there is nothing to\n"
	       "                    do (the DPU between messages; the host in wake-lat\n"
	       "                    and idle, which need it on both sides)\n"
	       "  --json            one JSON object per result, nothing else on stdout\n"
	       "  --csv             one CSV header line, then one row per result, nothing\n"
	       "                    else on stdout (not with --json)\n"
	       "  --name=NAME       server name (default comch_perf)\n"
	       "  -i, --interactive host: a command line (start, stop, show stats,\n"
	       "                    clear stats, set size|burst|test, quit); needs a\n"
	       "                    worker lcore\n"
	       "  --hold            host: open --connections and keep them for\n"
	       "                    dpdk-comch-perf secondaries, which run the tests;\n"
	       "                    until SIGINT (or --duration)\n"
	       "  --help            this text\n"
	       "\n"
	       "Devices: --vdev=comch_shm0,role=dpu,... / --vdev=comch_shm1,role=host,...\n"
	       "in the EAL options. Only when no comch --vdev is given the tool creates\n"
	       "comch_shm devices with path=/tmp/comch (pair: a private folder) and\n"
	       "says so on stderr. A comch --vdev that does not probe is fatal: exit\n"
	       "status 1, the driver's reason the last line.\n"
	       "\n"
	       "As a secondary process (--proc-type=secondary and the --file-prefix of\n"
	       "a primary started with --role=host --hold) the tool is a host that runs\n"
	       "fp-lat, fp-tput and fp-bidir on its own lcores over the first\n"
	       "--connections connections of the primary (role host is the default\n"
	       "there).\n"
	       "\n"
	       "Results: one per test and size (and per forwarding lcore when there are\n"
	       "several, then \"all\"). Units are decimal SI: rate in Mmsg/s (1e6\n"
	       "messages/s), bandwidth in GB/s (1e9 payload bytes/s, sender side),\n"
	       "round trips in us in the text, in ns in JSON and CSV. ctrl-lat and\n"
	       "fp-lat give latency only (min, mean, p50, p90, p99, p99.9, max);\n"
	       "ctrl-tput, fp-tput and fp-bidir rate and bandwidth; conn-rate connect +\n"
	       "disconnect cycles per second. wake-lat: ctrl-lat with both sides asleep\n"
	       "between messages (the host idles 100 us before each; --event). idle:\n"
	       "nothing sent; CPU use (%% of one core, from /proc) of the host's\n"
	       "lcore and of the DPU process over the window. JSON/CSV keys carry the\n"
	       "unit: rate_mmsg_per_s, bw_gbyte_per_s, lat_p50_ns, conn_per_s, cpu_pct.\n",
	       prog);
}

static int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
		uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '\0' || *s == '-')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "--%s=%s: expected an integer in [%llu, %llu]\n", opt, s,
		(unsigned long long)min, (unsigned long long)max);
	return -EINVAL;
}

static int
parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || errno != 0 || *end != '\0' || !isfinite(v) ||
	    v < 0 || v > 86400) {
		fprintf(stderr, "--%s=%s: expected seconds in [0, 86400]\n", opt, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Split a comma-separated list in place; an empty element is an error.
 * Returns the number of elements, or -1. */
static int
split_list(char *buf, char **items, int max)
{
	int n = 0;
	char *p = buf, *comma;

	for (;;) {
		comma = strchr(p, ',');
		if (comma != NULL)
			*comma = '\0';
		if (*p == '\0' || n == max)
			return -1;
		items[n++] = p;
		if (comma == NULL)
			return n;
		p = comma + 1;
	}
}

static int
parse_tests(const char *s, struct perf_opts *o)
{
	char buf[256], names[128], *items[PERF_MAX_TESTS];
	int n, i, t;

	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	o->nb_tests = 0;
	n = split_list(buf, items, PERF_MAX_TESTS);
	for (i = 0; i < n; i++) {
		t = perf_test_by_name(items[i]);
		if (t < 0)
			goto bad;
		o->tests[o->nb_tests++] = (enum perf_test)t;
	}
	if (o->nb_tests != 0)
		return 0;
bad:
	perf_test_names(names, sizeof(names), 0);
	fprintf(stderr, "--test=%s: expected a list of %s\n", s, names);
	return -EINVAL;
}

static int
parse_sizes(const char *s, struct perf_opts *o)
{
	char buf[256], *items[PERF_MAX_SIZES];
	uint64_t v;
	int n, i;

	if (strlen(s) >= sizeof(buf))
		n = -1;
	else
		n = split_list(strcpy(buf, s), items, PERF_MAX_SIZES);
	if (n < 0) {
		fprintf(stderr, "--size=%s: expected up to %d sizes separated by ','\n",
			s, PERF_MAX_SIZES);
		return -EINVAL;
	}
	o->nb_sizes = 0;
	for (i = 0; i < n; i++) {
		if (parse_u64("size", items[i], 1, UINT64_C(1) << 30, &v) < 0)
			return -EINVAL;
		o->sizes[o->nb_sizes++] = (uint32_t)v;
	}
	return 0;
}

int
perf_parse_args(int argc, char **argv, bool secondary, struct perf_opts *o)
{
	enum { O_ROLE = 256, O_TEST, O_SIZE, O_BURST, O_DURATION, O_COUNT,
		O_WARMUP, O_TOUCH, O_JSON, O_CSV, O_NAME, O_HELP, O_CONNS, O_QUEUES,
		O_HOLD, O_EVENT, O_MAX_SIZE, O_MAX_MEM };
	static const struct option longopts[] = {
		{ "role", required_argument, NULL, O_ROLE },
		{ "test", required_argument, NULL, O_TEST },
		{ "size", required_argument, NULL, O_SIZE },
		{ "burst", required_argument, NULL, O_BURST },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "count", required_argument, NULL, O_COUNT },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "touch", no_argument, NULL, O_TOUCH },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "name", required_argument, NULL, O_NAME },
		{ "connections", required_argument, NULL, O_CONNS },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "interactive", no_argument, NULL, 'i' },
		{ "hold", no_argument, NULL, O_HOLD },
		{ "event", no_argument, NULL, O_EVENT },
		{ "max-size", required_argument, NULL, O_MAX_SIZE },
		{ "max-mem", required_argument, NULL, O_MAX_MEM },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	bool have_duration = false, have_role = false, have_max_size = false;
	bool have_max_mem = false;
	unsigned int t;
	uint64_t v;
	int opt;

	memset(o, 0, sizeof(*o));
	/* A secondary process is a host on the primary's connections. */
	o->role = secondary ? PERF_ROLE_HOST : PERF_ROLE_PAIR;
	o->tests[0] = PERF_CTRL_LAT;
	o->tests[1] = PERF_FP_TPUT;
	o->nb_tests = 2;
	if (secondary) {
		o->tests[0] = PERF_FP_LAT;
		o->nb_tests = 2;
	}
	o->sizes[0] = 64;
	o->nb_sizes = 1;
	o->burst = 32;
	o->duration = 2;
	o->warmup = 0.5;
	o->name = "comch_perf";
	o->connections = 1;
	o->queues = 1;
	o->max_size = PERF_DPU_MAX_SIZE;
	o->max_mem = PERF_DPU_MAX_MEM;

	/* 0, not 1: glibc then also forgets where it was inside the last
	 * argv it scanned (rte_eal_init()'s, or an earlier call's). */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i", longopts, NULL)) != -1) {
		switch (opt) {
		case O_ROLE:
			have_role = true;
			if (strcmp(optarg, "dpu") == 0) {
				o->role = PERF_ROLE_DPU;
			} else if (strcmp(optarg, "host") == 0) {
				o->role = PERF_ROLE_HOST;
			} else if (strcmp(optarg, "pair") == 0) {
				o->role = PERF_ROLE_PAIR;
			} else {
				fprintf(stderr, "--role=%s: expected dpu, host or pair\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_TEST:
			if (parse_tests(optarg, o) < 0)
				return -EINVAL;
			break;
		case O_SIZE:
			if (parse_sizes(optarg, o) < 0)
				return -EINVAL;
			break;
		case O_BURST:
			if (parse_u64("burst", optarg, 1, 1024, &v) < 0)
				return -EINVAL;
			o->burst = (uint32_t)v;
			break;
		case O_DURATION:
			if (parse_seconds("duration", optarg, &o->duration) < 0)
				return -EINVAL;
			have_duration = true;
			break;
		case O_COUNT:
			if (parse_u64("count", optarg, 1, UINT64_MAX / 2, &o->count) < 0)
				return -EINVAL;
			break;
		case O_WARMUP:
			if (parse_seconds("warmup", optarg, &o->warmup) < 0)
				return -EINVAL;
			break;
		case O_TOUCH:
			o->touch = true;
			break;
		case O_JSON:
		case O_CSV:
			if (o->output != PERF_OUT_TEXT &&
			    o->output != (opt == O_JSON ? PERF_OUT_JSON : PERF_OUT_CSV)) {
				fprintf(stderr, "--json and --csv exclude each other\n");
				return -EINVAL;
			}
			o->output = opt == O_JSON ? PERF_OUT_JSON : PERF_OUT_CSV;
			break;
		case O_NAME:
			if (*optarg == '\0') {
				fprintf(stderr, "--name: empty\n");
				return -EINVAL;
			}
			o->name = optarg;
			break;
		case O_CONNS:
			if (parse_u64("connections", optarg, 1, PERF_MAX_CONNS, &v) < 0)
				return -EINVAL;
			o->connections = (uint32_t)v;
			break;
		case O_QUEUES:
			if (parse_u64("queues", optarg, 1, PERF_MAX_QUEUES, &v) < 0)
				return -EINVAL;
			o->queues = (uint32_t)v;
			break;
		case 'i':
			o->interactive = true;
			break;
		case O_HOLD:
			o->hold = true;
			break;
		case O_EVENT:
			o->event = true;
			break;
		case O_MAX_SIZE:
			if (parse_u64("max-size", optarg, 1, UINT32_MAX, &v) < 0)
				return -EINVAL;
			o->max_size = (uint32_t)v;
			have_max_size = true;
			break;
		case O_MAX_MEM:
			if (parse_u64("max-mem", optarg, UINT64_C(1) << 20,
					UINT64_C(1) << 46, &o->max_mem) < 0)
				return -EINVAL;
			have_max_mem = true;
			break;
		case O_HELP:
			return 1;
		default:
			fprintf(stderr, "unknown or incomplete option %s; see --help\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument %s; see --help\n", argv[optind]);
		return -EINVAL;
	}
	if (o->count != 0 && have_duration && o->role != PERF_ROLE_DPU) {
		fprintf(stderr, "--count and --duration exclude each other\n");
		return -EINVAL;
	}
	for (t = 0; t < o->nb_tests && o->role != PERF_ROLE_DPU; t++) {
		if (perf_test_is(o->tests[t], PERF_E_EVENT) && !o->event) {
			fprintf(stderr, "--test=%s: sleeps in epoll: add --event (on the DPU side too)\n",
				perf_test_name(o->tests[t]));
			return -EINVAL;
		}
		if (perf_test_is(o->tests[t], PERF_E_IDLE) && o->count != 0) {
			fprintf(stderr, "--test=%s sends nothing: give --duration, not --count\n",
				perf_test_name(o->tests[t]));
			return -EINVAL;
		}
	}
	if (o->count != 0)
		o->duration = 0;
	else if (o->duration == 0 && o->role != PERF_ROLE_DPU) {
		fprintf(stderr, "--duration=0: give a positive duration or --count\n");
		return -EINVAL;
	}
	if ((o->role == PERF_ROLE_DPU || o->hold) && !have_duration)
		o->duration = 0; /* serve until SIGINT */
	if ((have_max_size || have_max_mem) && o->role == PERF_ROLE_HOST) {
		fprintf(stderr, "%s: a limit of the DPU side: use --role=dpu or pair\n",
			have_max_size ? "--max-size" : "--max-mem");
		return -EINVAL;
	}
	/* pair: both ends are ours, the DPU serves what its host asks */
	for (t = 0; t < o->nb_sizes && o->role == PERF_ROLE_PAIR; t++) {
		if (!have_max_size)
			o->max_size = RTE_MAX(o->max_size, o->sizes[t]);
		if (!have_max_mem)
			o->max_mem = RTE_MAX(o->max_mem,
				(uint64_t)o->connections *
				(o->queues * perf_queue_mem(o->sizes[t]) +
				 PERF_DPU_MEM_RESERVE));
	}
	if (o->interactive && o->role != PERF_ROLE_HOST) {
		fprintf(stderr, "-i: interactive mode drives a DPU process: use --role=host\n");
		return -EINVAL;
	}
	if (o->hold && (o->role != PERF_ROLE_HOST || o->interactive)) {
		fprintf(stderr, "--hold: the host side of a DPU process keeps its connections for secondaries: use --role=host, without -i\n");
		return -EINVAL;
	}
	if (!secondary)
		return 0;
	if (o->role != PERF_ROLE_HOST || o->hold || o->interactive) {
		fprintf(stderr, "%s: a secondary process runs the host side of the tests (--role=host), without --hold or -i\n",
			have_role && o->role != PERF_ROLE_HOST ? "--role" :
			o->hold ? "--hold" : "-i");
		return -EINVAL;
	}
	for (t = 0; t < o->nb_tests; t++) {
		if (!perf_test_is(o->tests[t], PERF_E_SECONDARY)) {
			char names[128];

			perf_test_names(names, sizeof(names), PERF_E_SECONDARY);
			fprintf(stderr, "--test=%s: a secondary process runs %s (the connections are the primary's, and its control messages go through the primary)\n",
				perf_test_name(o->tests[t]), names);
			return -EINVAL;
		}
	}
	return 0;
}
