/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch-bench-xcore: the limit of a one-copy channel between two cores,
 * for bench/run.sh to compare the comch fast path with.
 *
 * The writer (core A) memcpy()s a private, cache-hot source into one of
 * --slots shared slots and publishes it with a release store of the
 * message's sequence number on the slot's own flag line; the reader (core
 * B) waits for that number with acquire loads, optionally reads every
 * 8-byte word of the payload (--touch in dpdk-comch-perf: the same work),
 * and gives the slot back by a release store of its count on its own ack
 * line. Who writes what:
 *
 *   flag[i].seq   writer only (one cache line per slot)
 *   ack.done      reader only (its own cache line)
 *   data          writer fills, reader reads after the flag
 *   stop          the reader, at the end of a trial
 *
 * Nothing else is shared, so what it measures is the copy plus the
 * cross-core hand-off, with no descriptor, ring geometry or API around it.
 * The reader times the trial (CLOCK_MONOTONIC) after a warm-up; a figure
 * is the median of --trials trials.
 *
 * Prints "name: value unit" lines: xcore_<size>[_touch]_bw in GB/s
 * (1e9 bytes/s) and xcore_<size>[_touch]_rate in Mmsg/s, and "#" lines
 * with every trial. --mode=memcpy (in the default "all") also gives
 * memcpy_<size>_bw: one core copying a cache-hot source to a cache-hot
 * destination, the single-core figure the project's goals name.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE 64
#define MAX_SLOTS 256
#define MAX_SIZES 16
#define MAX_TRIALS 101

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile("yield" ::: "memory")
#else
#define cpu_relax() do { } while (0)
#endif

struct flag {
	uint64_t seq;            /* writer: sequence number of the message + 1 */
} __attribute__((aligned(LINE)));

struct ack {
	uint64_t done;           /* reader: messages taken */
} __attribute__((aligned(LINE)));

struct chan {
	struct flag flag[MAX_SLOTS];
	struct ack ack;
	struct { bool stop; } __attribute__((aligned(LINE))) ctl;
	/* set up before the threads start, read-only while they run */
	uint8_t *data;           /* slots x size, line-aligned */
	uint32_t slots;
	size_t size;
	bool touch;
	bool local;              /* single-core memcpy, no reader */
	double warmup_s, trial_s;
	int cpu_writer, cpu_reader;
	/* the reader's result */
	uint64_t msgs;
	double secs;
	uint64_t sink;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
writer(void *arg)
{
	struct chan *c = arg;
	uint8_t *src;
	uint64_t i, acked = 0;
	uint32_t s;

	if (pin(c->cpu_writer) != 0) {
		fprintf(stderr, "xcore: cannot pin the writer to cpu %d\n",
			c->cpu_writer);
		exit(1);
	}
	/* Private, cache-hot source, on the writer's core. */
	src = aligned_alloc(LINE, (c->size + LINE - 1) / LINE * LINE);
	if (src == NULL)
		exit(1);
	for (i = 0; i < c->size; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	for (i = 0; ; i++) {
		s = (uint32_t)(i % c->slots);
		/* A slot is free once the reader took message i - slots. */
		while (i - acked >= c->slots) {
			acked = __atomic_load_n(&c->ack.done, __ATOMIC_ACQUIRE);
			if (__atomic_load_n(&c->ctl.stop, __ATOMIC_RELAXED))
				goto out;
			cpu_relax();
		}
		memcpy(c->data + (size_t)s * c->size, src, c->size);
		__atomic_store_n(&c->flag[s].seq, i + 1, __ATOMIC_RELEASE);
		if (__atomic_load_n(&c->ctl.stop, __ATOMIC_RELAXED))
			break;
	}
out:
	free(src);
	return NULL;
}

static void *
reader(void *arg)
{
	struct chan *c = arg;
	uint64_t i, n0 = 0, sum = 0;
	double t, t0 = 0, start;
	bool measuring = false;
	uint32_t s;
	/* time checks: about every 256 KiB of payload, at least every 64 */
	uint64_t every = c->size >= 4096 ? 1 : c->size >= 1024 ? 16 : 64;

	if (pin(c->cpu_reader) != 0) {
		fprintf(stderr, "xcore: cannot pin the reader to cpu %d\n",
			c->cpu_reader);
		exit(1);
	}
	start = now_s();
	for (i = 0; ; i++) {
		s = (uint32_t)(i % c->slots);
		while (__atomic_load_n(&c->flag[s].seq, __ATOMIC_ACQUIRE) != i + 1)
			cpu_relax();
		if (c->touch) {
			const uint64_t *w = (const uint64_t *)(c->data +
					(size_t)s * c->size);
			size_t j;

			for (j = 0; j < c->size / 8; j++)
				sum += w[j];
		}
		__atomic_store_n(&c->ack.done, i + 1, __ATOMIC_RELEASE);
		if ((i + 1) % every != 0)
			continue;
		t = now_s();
		if (!measuring && t - start >= c->warmup_s) {
			measuring = true;
			t0 = t;
			n0 = i + 1;
		} else if (measuring && t - t0 >= c->trial_s) {
			c->msgs = i + 1 - n0;
			c->secs = t - t0;
			break;
		}
	}
	c->sink = sum;
	__atomic_store_n(&c->ctl.stop, true, __ATOMIC_RELAXED);
	return NULL;
}

/* --mode=memcpy: the writer's core alone, from the source to slot 0,
 * both cache-hot. */
static void *
local_copy(void *arg)
{
	struct chan *c = arg;
	uint8_t *src;
	uint64_t n = 0, n0 = 0;
	double t, t0 = 0, start;
	bool measuring = false;

	if (pin(c->cpu_writer) != 0) {
		fprintf(stderr, "xcore: cannot pin to cpu %d\n", c->cpu_writer);
		exit(1);
	}
	src = aligned_alloc(LINE, (c->size + LINE - 1) / LINE * LINE);
	if (src == NULL)
		exit(1);
	memset(src, 0x5a, c->size);
	start = now_s();
	for (;;) {
		memcpy(c->data, src, c->size);
		/* keep the copies: the compiler must not drop or merge them */
		__asm__ volatile("" : : "r"(c->data) : "memory");
		if (++n % 64 != 0 && c->size < 4096)
			continue;
		t = now_s();
		if (!measuring && t - start >= c->warmup_s) {
			measuring = true;
			t0 = t;
			n0 = n;
		} else if (measuring && t - t0 >= c->trial_s) {
			c->msgs = n - n0;
			c->secs = t - t0;
			break;
		}
	}
	free(src);
	return NULL;
}

/* One trial: a fresh channel (the data already faulted in), both threads,
 * the reader's count. */
static int
trial(struct chan *c, double *gbs, double *mps)
{
	pthread_t w, r;

	memset(c->flag, 0, sizeof(c->flag));
	c->ack.done = 0;
	c->ctl.stop = false;
	c->msgs = 0;
	c->secs = 0;
	if (c->local) {
		if (pthread_create(&w, NULL, local_copy, c) != 0)
			return -1;
		pthread_join(w, NULL);
	} else {
		if (pthread_create(&r, NULL, reader, c) != 0 ||
		    pthread_create(&w, NULL, writer, c) != 0)
			return -1;
		pthread_join(r, NULL);
		pthread_join(w, NULL);
	}
	if (c->secs <= 0)
		return -1;
	*mps = (double)c->msgs / c->secs / 1e6;
	*gbs = (double)c->msgs * (double)c->size / c->secs / 1e9;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
size_name(size_t n, char *buf, size_t len)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zuMiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zuKiB", n >> 10);
	else
		snprintf(buf, len, "%zuB", n);
}

static void
usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "\n"
	       "The limit of a one-copy channel between two cores: one core memcpy()s\n"
	       "a cache-hot private source into shared slots and publishes each with a\n"
	       "release-stored sequence number on the slot's own cache line; the other\n"
	       "takes them (with --touch semantics: also reading every 8-byte word) and\n"
	       "acks on its own cache line. Prints \"name: value unit\" lines, medians of\n"
	       "the trials: xcore_<size>[_touch]_bw in GB/s (1e9 bytes/s) and\n"
	       "xcore_<size>[_touch]_rate in Mmsg/s; with mode memcpy, memcpy_<size>_bw:\n"
	       "one core copying a cache-hot source to a cache-hot destination.\n"
	       "\n"
	       "  --cpus=A,B      writer on cpu A, reader on cpu B (default 0,1)\n"
	       "  --sizes=N[,N..] message sizes in bytes (default 64,4096,65536,1048576)\n"
	       "  --slots=N       shared slots, 1..%d (default 16)\n"
	       "  --trials=N      trials per size and mode, 1..%d (default 5)\n"
	       "  --trial-ms=MS   measured time per trial (default 300)\n"
	       "  --warmup-ms=MS  unmeasured time before it (default 50)\n"
	       "  --mode=M[,M..]  notouch, touch, memcpy (default all three)\n"
	       "  --help          this text\n", prog, MAX_SLOTS, MAX_TRIALS);
}

static int
parse_uint(const char *opt, const char *s, unsigned long min,
		unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 ||
	    *out < min || *out > max) {
		fprintf(stderr, "%s=%s: expected an integer in [%lu, %lu]\n", opt,
			s, min, max);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct chan c;
	size_t sizes[MAX_SIZES] = { 64, 4096, 65536, 1 << 20 }, max_size = 0;
	bool modes[3] = { true, true, true }; /* notouch, touch, memcpy */
	static const char * const mode_names[3] = { "notouch", "touch", "memcpy" };
	int nb_sizes = 4, trials = 5, i, z, m, k;
	unsigned long v;
	double bw[MAX_TRIALS], rate[MAX_TRIALS];
	char name[32], *p, *tok, *save;

	c.slots = 16;
	c.trial_s = 0.3;
	c.warmup_s = 0.05;
	c.cpu_writer = 0;
	c.cpu_reader = 1;
	for (i = 1; i < argc; i++) {
		char *a = argv[i], *val = strchr(a, '=');

		if (val != NULL)
			*val++ = '\0';
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(argv[0]);
			return 0;
		} else if (val == NULL) {
			fprintf(stderr, "%s: unknown option or missing =VALUE; see --help\n", a);
			return 1;
		} else if (strcmp(a, "--cpus") == 0) {
			p = strchr(val, ',');
			if (p == NULL)
				goto bad_cpus;
			*p++ = '\0';
			if (parse_uint("--cpus", val, 0, CPU_SETSIZE - 1, &v) < 0)
				return 1;
			c.cpu_writer = (int)v;
			if (parse_uint("--cpus", p, 0, CPU_SETSIZE - 1, &v) < 0)
				return 1;
			c.cpu_reader = (int)v;
			if (c.cpu_writer == c.cpu_reader)
				goto bad_cpus;
		} else if (strcmp(a, "--sizes") == 0) {
			nb_sizes = 0;
			for (tok = strtok_r(val, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				if (nb_sizes == MAX_SIZES ||
				    parse_uint("--sizes", tok, 8, 1ul << 30, &v) < 0)
					return 1;
				sizes[nb_sizes++] = v;
			}
			if (nb_sizes == 0) {
				fprintf(stderr, "--sizes: empty\n");
				return 1;
			}
		} else if (strcmp(a, "--slots") == 0) {
			if (parse_uint(a, val, 1, MAX_SLOTS, &v) < 0)
				return 1;
			c.slots = (uint32_t)v;
		} else if (strcmp(a, "--trials") == 0) {
			if (parse_uint(a, val, 1, MAX_TRIALS, &v) < 0)
				return 1;
			trials = (int)v;
		} else if (strcmp(a, "--trial-ms") == 0) {
			if (parse_uint(a, val, 1, 60000, &v) < 0)
				return 1;
			c.trial_s = (double)v / 1e3;
		} else if (strcmp(a, "--warmup-ms") == 0) {
			if (parse_uint(a, val, 0, 60000, &v) < 0)
				return 1;
			c.warmup_s = (double)v / 1e3;
		} else if (strcmp(a, "--mode") == 0) {
			memset(modes, 0, sizeof(modes));
			for (tok = strtok_r(val, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				for (m = 0; m < 3; m++)
					if (strcmp(tok, mode_names[m]) == 0)
						break;
				if (m == 3) {
					fprintf(stderr, "--mode=%s: expected notouch, touch, memcpy\n",
						tok);
					return 1;
				}
				modes[m] = true;
			}
		} else {
			fprintf(stderr, "%s: unknown option; see --help\n", a);
			return 1;
		}
	}
	for (z = 0; z < nb_sizes; z++)
		if (sizes[z] > max_size)
			max_size = sizes[z];
	c.data = aligned_alloc(4096, ((size_t)c.slots * max_size + 4095) / 4096 * 4096);
	if (c.data == NULL) {
		fprintf(stderr, "xcore: cannot allocate %u x %zu bytes\n", c.slots,
			max_size);
		return 1;
	}
	memset(c.data, 0, (size_t)c.slots * max_size); /* fault it in */
	printf("# xcore: writer cpu %d, reader cpu %d, %u slots, %d trials of %.0f ms"
	       " (after %.0f ms warm-up), medians\n", c.cpu_writer, c.cpu_reader,
	       c.slots, trials, c.trial_s * 1e3, c.warmup_s * 1e3);
	for (z = 0; z < nb_sizes; z++) {
		c.size = sizes[z];
		size_name(c.size, name, sizeof(name));
		for (m = 0; m < 3; m++) {
			if (!modes[m])
				continue;
			c.touch = m == 1;
			c.local = m == 2;
			printf("# %s %s %s:", c.local ? "memcpy" : "xcore", name,
			       mode_names[m]);
			for (k = 0; k < trials; k++) {
				if (trial(&c, &bw[k], &rate[k]) < 0) {
					fprintf(stderr, "xcore: a trial failed\n");
					return 1;
				}
				printf(" %.3f", bw[k]);
			}
			printf(" GB/s\n");
			if (c.local) {
				printf("memcpy_%s_bw: %.4g GB/s\n", name,
				       median(bw, trials));
			} else {
				printf("xcore_%s%s_bw: %.4g GB/s\n", name,
				       c.touch ? "_touch" : "", median(bw, trials));
				printf("xcore_%s%s_rate: %.4g Mmsg/s\n", name,
				       c.touch ? "_touch" : "", median(rate, trials));
			}
			fflush(stdout);
		}
	}
	free(c.data);
	return 0;
bad_cpus:
	fprintf(stderr, "--cpus: expected two different cpus A,B\n");
	return 1;
}
