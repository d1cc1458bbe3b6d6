/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Results: one line per test and size, or one JSON object with --json. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "perf.h"

void
perf_report(const struct perf_opts *o, const char *role,
		const struct perf_result *r)
{
	double mps = r->seconds > 0 ? (double)r->msgs / r->seconds : 0;
	double rx_mps = r->seconds > 0 ? (double)r->rx_msgs / r->seconds : 0;
	double gbps = mps * (double)r->size * 8 / 1e9;
	bool bidir = r->test == PERF_FP_BIDIR;
	bool total = r->lcore < 0;
	const struct perf_hist *h = r->lat;
	char where[24];

	if (total)
		snprintf(where, sizeof(where), "all");
	else
		snprintf(where, sizeof(where), "lcore %d", r->lcore);
	if (o->json) {
		printf("{\"test\": \"%s\", \"role\": \"%s\", \"lcore\": ",
			perf_test_name(r->test), role);
		if (total)
			printf("\"all\"");
		else
			printf("%d", r->lcore);
		printf(", \"size\": %u, \"burst\": %u, \"connections\": %u, "
		       "\"queues\": %u, \"msgs\": %" PRIu64 ", \"seconds\": %.6f, "
		       "\"mpps\": %.6f, \"gbps\": %.6f, \"sent\": %" PRIu64,
		       r->size, r->burst, o->connections, o->queues, r->msgs,
		       r->seconds, mps / 1e6, gbps, r->sent_total);
		if (total && r->test != PERF_CONN_RATE)
			printf(", \"peer_received\": %" PRIu64 ", \"peer_bytes\": %"
			       PRIu64, r->peer_msgs, r->peer_bytes);
		if (bidir)
			printf(", \"rx_mpps\": %.6f, \"rx_gbps\": %.6f, \"received\": %"
			       PRIu64 ", \"peer_sent\": %" PRIu64, rx_mps / 1e6,
			       rx_mps * (double)r->size * 8 / 1e9, r->received,
			       total ? r->peer_sent : 0);
		printf(", \"touch\": %s", o->touch ? "true" : "false");
		if (h != NULL)
			printf(", \"lat_ns\": {\"p50\": %" PRIu64 ", \"p90\": %" PRIu64
			       ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64
			       ", \"max\": %" PRIu64 "}",
			       perf_hist_quantile(h, 0.5), perf_hist_quantile(h, 0.9),
			       perf_hist_quantile(h, 0.99),
			       perf_hist_quantile(h, 0.999), h->max);
		printf("}\n");
		fflush(stdout);
		return;
	}
	if (r->test == PERF_CONN_RATE) {
		printf("%-9s %-8s %12" PRIu64 " connect+disconnect  %9.0f /s\n",
			perf_test_name(r->test), where, r->msgs, mps);
		fflush(stdout);
		return;
	}
	printf("%-9s %-8s size %8u  burst %4u  %12" PRIu64 " msgs  %9.3f Mmsg/s  %8.3f Gbit/s",
		perf_test_name(r->test), where, r->size, r->burst, r->msgs,
		mps / 1e6, gbps);
	if (bidir)
		printf("  rx %9.3f Mmsg/s %8.3f Gbit/s", rx_mps / 1e6,
			rx_mps * (double)r->size * 8 / 1e9);
	if (h != NULL)
		printf("  rtt p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f us",
			perf_hist_quantile(h, 0.5) / 1e3,
			perf_hist_quantile(h, 0.9) / 1e3,
			perf_hist_quantile(h, 0.99) / 1e3,
			perf_hist_quantile(h, 0.999) / 1e3, h->max / 1e3);
	if (total && r->peer_msgs != r->sent_total)
		printf("  LOST: sent %" PRIu64 ", peer received %" PRIu64,
			r->sent_total, r->peer_msgs);
	if (total && bidir && r->received != r->peer_sent)
		printf("  LOST: peer sent %" PRIu64 ", received %" PRIu64,
			r->peer_sent, r->received);
	printf("\n");
	fflush(stdout);
}
