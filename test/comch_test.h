/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_TEST_H
#define COMCH_TEST_H

/*
 * A minimal test harness: each suite is one executable with a table of
 * cases; a case returns 0 or -1 after printing why. Deadlines below are
 * failure guards only (a hung peer must not hang CI); no test asserts
 * timing.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_comch.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		return -1; \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long va_ = (long long)(a), vb_ = (long long)(b); \
	if (va_ != vb_) { \
		printf("  FAIL %s:%d: %s == %s: %lld != %lld\n", __FILE__, \
			__LINE__, #a, #b, va_, vb_); \
		return -1; \
	} \
} while (0)

#define CHECK_OK(expr) CHECK_EQ(expr, 0)

struct test_case {
	const char *name;
	int (*fn)(void);
};

/* Runs every case, or with COMCH_TEST_ONLY=NAME in the environment only
 * the cases whose name contains NAME (to chase one case). */
static inline int
test_run_cases(const char *suite, const struct test_case *cases, size_t n)
{
	const char *only = getenv("COMCH_TEST_ONLY");
	size_t i, failed = 0;

	for (i = 0; i < n; i++) {
		int ret;

		if (only != NULL && strstr(cases[i].name, only) == NULL)
			continue;
		printf("== %s/%s\n", suite, cases[i].name);
		fflush(stdout);
		ret = cases[i].fn();
		printf("%s %s/%s\n", ret == 0 ? "ok" : "FAILED", suite,
			cases[i].name);
		fflush(stdout);
		failed += ret != 0;
	}
	printf("%s: %zu cases, %zu failed\n", suite, n, failed);
	return failed == 0 ? 0 : 1;
}

/*
 * How long a test waits for what must happen before it calls it a
 * failure. A passing run never reaches it; it is long because a loaded
 * machine can keep a thread pinned to a busy core off that core for
 * seconds (doc/guides/testing.md). Windows in which something must NOT
 * happen are short and named as such where they are used.
 */
#define TEST_GUARD_S 60

/* Failure guard: seconds from now, in timer cycles. */
static inline uint64_t
test_deadline(double seconds)
{
	return rte_get_timer_cycles() +
		(uint64_t)(seconds * (double)rte_get_timer_hz());
}

static inline int
test_expired(uint64_t deadline)
{
	return rte_get_timer_cycles() > deadline;
}

/* Start EAL with the usual test arguments plus @p extra (NULL-terminated). */
static inline int
test_eal_init(const char *prog, const char *prefix, const char *lcores,
		const char * const *extra)
{
	char *argv[32];
	char prefix_arg[128], why[256];
	int argc = 0, ret;

	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=%s-%d",
		prefix, (int)getpid());
	argv[argc++] = (char *)(uintptr_t)prog;
	argv[argc++] = (char *)(uintptr_t)"-l";
	argv[argc++] = (char *)(uintptr_t)lcores;
	argv[argc++] = (char *)(uintptr_t)"--no-huge";
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	argv[argc++] = (char *)(uintptr_t)"-m";
	argv[argc++] = (char *)(uintptr_t)"128";
	argv[argc++] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	argv[argc++] = (char *)(uintptr_t)"--log-level=lib.telemetry:error";
	argv[argc++] = prefix_arg;
	while (extra != NULL && *extra != NULL && argc < 31)
		argv[argc++] = (char *)(uintptr_t)*extra++;
	argv[argc] = NULL;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("cannot initialise EAL: %s\n", rte_strerror(rte_errno));
		return ret;
	}
	/* A comch --vdev in @p extra that did not probe is fatal. */
	if (rte_comch_devargs_check(why, sizeof(why)) < 0) {
		printf("%s\n", why);
		return -1;
	}
	return ret;
}

/*
 * Open file descriptors of this process, for leak checks, not counting
 * epoll fds: the EAL interrupt thread closes its epoll fd and creates a new
 * one each time a callback is registered or removed (the DPU side does so
 * for every socket it accepts), so at any instant it may hold none, one or,
 * to a reader of /proc/self/fd racing with it, two. Our own epoll fd (one
 * per shm server) lives as long as the server, beyond any leak check.
 */
static inline int
test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char target[64];
	ssize_t len;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		len = readlinkat(dirfd(d), de->d_name, target,
				sizeof(target) - 1);
		/* gone since readdir(): one of the EAL interrupt thread's
		 * epoll fds, made anew whenever its sources change */
		if (len < 0 && errno == ENOENT)
			continue;
		if (len > 0) {
			target[len] = '\0';
			if (strcmp(target, "anon_inode:[eventpoll]") == 0)
				continue;
		}
		n++;
	}
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

/* This process's fds as "fd:target" words in @p buf, to say which fd a
 * failed count was about. */
static inline void
test_describe_fds(char *buf, size_t size)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char target[64];
	size_t used = 0;
	ssize_t len;
	int w;

	buf[0] = '\0';
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL && used < size) {
		if (de->d_name[0] == '.' ||
		    atoi(de->d_name) == dirfd(d))
			continue;
		len = readlinkat(dirfd(d), de->d_name, target,
				sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		w = snprintf(buf + used, size - used, "%s:%s ", de->d_name,
			target);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	closedir(d);
}

/* Memory mappings of this process (lines of /proc/self/maps). */
static inline int
test_count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (f == NULL)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Resident memory of this process in KiB. */
static inline long
test_rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, resident = 0;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A child process of a test: it dies with the test (a failed test must
 * not leave a busy-polling child behind on a shared machine). Call first
 * thing in the child. */
static inline void
test_child_dies_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1); /* the parent was gone before the prctl() */
}

/* A fresh folder for a test's link sockets. */
static inline int
test_mkdtemp(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/comch-test.XXXXXX");
	return mkdtemp(buf) == NULL ? -errno : 0;
}

/* A DPU device "comch_shm_dpu" and a host device "comch_shm_host" over a
 * fresh link folder (written to @p dir). Returns 0 or -1. */
static inline int
test_link_pair(char *dir, size_t size, int16_t *dpu, int16_t *host)
{
	char args[256];

	if (test_mkdtemp(dir, size) < 0)
		return -1;
	snprintf(args, sizeof(args), "role=dpu,path=%s", dir);
	if (rte_vdev_init("comch_shm_dpu", args) < 0)
		return -1;
	snprintf(args, sizeof(args), "role=host,path=%s", dir);
	if (rte_vdev_init("comch_shm_host", args) < 0)
		return -1;
	*dpu = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_dpu");
	*host = (int16_t)rte_comch_get_dev_id_by_name("comch_shm_host");
	return 0;
}

/*
 * Log capture: everything DPDK logs goes to a memory stream (and is echoed
 * to stderr) so a test can assert what a log line says. One capture per
 * program, whichever of its files resets or searches it: each file that
 * includes this header defines these weak, the linker keeps one.
 */
__rte_weak char *test_log_buf;
__rte_weak size_t test_log_len;
__rte_weak FILE *test_log_mem;

static inline ssize_t
test_log_write(void *c __rte_unused, const char *buf, size_t size)
{
	fwrite(buf, 1, size, stderr);
	if (test_log_mem != NULL)
		fwrite(buf, 1, size, test_log_mem);
	return (ssize_t)size;
}

static inline void
test_log_capture_init(void)
{
	static cookie_io_functions_t fns = { .write = test_log_write };
	FILE *f = fopencookie(NULL, "w", fns);

	setvbuf(f, NULL, _IONBF, 0);
	rte_openlog_stream(f);
}

/* Start a fresh capture. */
static inline void
test_log_reset(void)
{
	if (test_log_mem != NULL)
		fclose(test_log_mem);
	free(test_log_buf);
	test_log_buf = NULL;
	test_log_len = 0;
	test_log_mem = open_memstream(&test_log_buf, &test_log_len);
}

/* Whether the capture since the last reset contains @p s. Safe while
 * another thread (the EAL interrupt thread, a driver's alarm) logs: the
 * stream's lock keeps its buffer in place while it is searched. */
static inline int
test_log_has(const char *s)
{
	int r;

	if (test_log_mem == NULL)
		return 0;
	flockfile(test_log_mem);
	fflush(test_log_mem);
	r = test_log_buf != NULL && strstr(test_log_buf, s) != NULL;
	funlockfile(test_log_mem);
	return r;
}

/* Wait until the capture contains @p s, which another thread logs;
 * @p seconds is a failure guard. Returns whether it does. */
static inline int
test_log_wait(const char *s, double seconds)
{
	uint64_t dl = test_deadline(seconds);

	while (!test_log_has(s) && !test_expired(dl))
		rte_delay_us_sleep(1000);
	return test_log_has(s);
}

#endif /* COMCH_TEST_H */
