/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* CPU time from /proc, for the idle test (perf.h, perf_cpu_us()). */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

uint64_t
perf_cpu_us(bool thread)
{
	unsigned long long utime, stime;
	char buf[1024], *p;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n;
	FILE *f;

	f = fopen(thread ? "/proc/thread-self/stat" : "/proc/self/stat", "r");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command name, which may hold spaces and ')': field 3
	 * (state) on; utime and stime are fields 14 and 15. */
	p = strrchr(buf, ')');
	if (p == NULL || hz <= 0 ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		    &utime, &stime) != 2)
		return 0;
	return (uint64_t)(utime + stime) * 1000000 / (uint64_t)hz;
}
