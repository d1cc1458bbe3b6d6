/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#include <string.h>

#include <rte_common.h>

#include "perf.h"

#define SUB (1u << (PERF_HIST_SUB_BITS - 1)) /* 64 buckets per octave */

static unsigned int
bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < 2 * SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v) - (PERF_HIST_SUB_BITS - 1);
	if (e + 1 >= PERF_HIST_BUCKETS / SUB)
		return PERF_HIST_BUCKETS - 1;
	return e * SUB + (unsigned int)(v >> e);
}

/* Lowest value of bucket @p b, and its width. */
static void
bucket_range(unsigned int b, uint64_t *lo, uint64_t *width)
{
	unsigned int e;

	if (b < 2 * SUB) {
		*lo = b;
		*width = 1;
		return;
	}
	e = b / SUB - 1;
	*lo = (uint64_t)(b - e * SUB) << e;
	*width = UINT64_C(1) << e;
}

void
perf_hist_reset(struct perf_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
perf_hist_add(struct perf_hist *h, uint64_t ns)
{
	h->buckets[bucket_of(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns > h->max)
		h->max = ns;
	if (ns < h->min)
		h->min = ns;
}

void
perf_hist_merge(struct perf_hist *to, const struct perf_hist *from)
{
	unsigned int b;

	for (b = 0; b < PERF_HIST_BUCKETS; b++)
		to->buckets[b] += from->buckets[b];
	to->count += from->count;
	to->sum += from->sum;
	to->max = RTE_MAX(to->max, from->max);
	to->min = RTE_MIN(to->min, from->min);
}

double
perf_hist_mean(const struct perf_hist *h)
{
	return h->count != 0 ? (double)h->sum / (double)h->count : 0;
}

uint64_t
perf_hist_min(const struct perf_hist *h)
{
	return h->count != 0 ? h->min : 0;
}

uint64_t
perf_hist_quantile(const struct perf_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, width;
	unsigned int b;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The smallest value with at least q of the samples at or below. */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (b = 0; b < PERF_HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			bucket_range(b, &lo, &width);
			/* Middle of the bucket, clamped to what was seen. */
			lo += width / 2;
			return RTE_MAX(RTE_MIN(lo, h->max), h->min);
		}
	}
	return h->max;
}
