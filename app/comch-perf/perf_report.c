/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Results: aligned text under a header row, one JSON object per result
 * (--json) or one CSV row per result under one header line (--csv).
 *
 * One unit system everywhere, decimal SI:
 *   rate        Mmsg/s   (1e6 messages per second)
 *   bandwidth   GB/s     (1e9 payload bytes per second)
 *   latency     us in text, ns in JSON and CSV (round trips)
 *   conn-rate   connect + disconnect cycles per second
 * A JSON or CSV key names its unit: rate_mmsg_per_s, bw_gbyte_per_s,
 * lat_p50_ns, conn_per_s.
 *
 * Each result has a kind that decides its columns: latency tests show
 * latency and no rate, throughput tests rate and bandwidth (fp-bidir also
 * what it received), conn-rate its cycles per second. The columns are one
 * table below, read by all three forms: a JSON object has the keys that
 * apply to its result, a CSV row has every key, empty where it does not
 * apply, so that every row has as many fields as the header.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "perf_engine.h"

enum kind {
	K_LAT = 1 << 0,    /* ctrl-lat, fp-lat */
	K_TPUT = 1 << 1,   /* ctrl-tput, fp-tput */
	K_BIDIR = 1 << 2,  /* fp-bidir */
	K_CONN = 1 << 3,   /* conn-rate */
};
#define K_MSGS (K_LAT | K_TPUT | K_BIDIR)
#define K_ANY (K_MSGS | K_CONN)
#define K_RATE (K_TPUT | K_BIDIR)

/* Every value a result can have, worked out once. */
struct row {
	const char *test;
	const char *role;
	int lcore;                 /* -1: all */
	uint64_t size, burst, connections, queues;
	bool touch;
	double seconds;
	uint64_t msgs, sent, peer_received, peer_bytes;
	uint64_t received, peer_sent, rx_msgs;
	double rate, bw, rx_rate, rx_bw;   /* Mmsg/s, GB/s */
	double conn_per_s;
	uint64_t lat_min, lat_p50, lat_p90, lat_p99, lat_p999, lat_max; /* ns */
	double lat_mean;                                                /* ns */
};

enum type { T_STR, T_LCORE, T_BOOL, T_U64, T_DBL };

struct col {
	const char *key;    /* JSON and CSV */
	const char *head;   /* text header; NULL: not in the text form */
	int width;          /* text; negative: left-aligned */
	enum type type;
	size_t off;         /* in struct row */
	unsigned int kinds; /* results it applies to */
	bool total_only;    /* only on the total of all lcores */
	int prec;           /* T_DBL: decimals in JSON and CSV */
	double text_div;    /* text: value / text_div with text_prec
			     * decimals; 0: as JSON writes it */
	int text_prec;
};

/* key, text head, text width, type, field, kinds, total only, decimals in
 * JSON and CSV, text divisor, text decimals */
#define C(k, h, w, t, f, kinds, tot, prec, div, tprec) \
	{ k, h, w, t, offsetof(struct row, f), kinds, tot, prec, div, tprec }

/* The text form shows one column per head; a key may appear under two
 * heads for two kinds (msgs: "msgs" sent one way, "round-trips"). */
static const struct col cols[] = {
	C("test", "test", -9, T_STR, test, K_ANY, false, 0, 0, 0),
	C("role", NULL, 0, T_STR, role, K_ANY, false, 0, 0, 0),
	C("lcore", "lcore", -5, T_LCORE, lcore, K_ANY, false, 0, 0, 0),
	C("size", "size(B)", 10, T_U64, size, K_MSGS, false, 0, 0, 0),
	C("burst", "burst", 5, T_U64, burst, K_RATE, false, 0, 0, 0),
	C("connections", NULL, 0, T_U64, connections, K_MSGS, false, 0, 0, 0),
	C("connections", "connections", 11, T_U64, connections, K_CONN, false, 0, 0, 0),
	C("queues", NULL, 0, T_U64, queues, K_MSGS, false, 0, 0, 0),
	C("touch", NULL, 0, T_BOOL, touch, K_MSGS, false, 0, 0, 0),
	C("seconds", NULL, 0, T_DBL, seconds, K_ANY, false, 9, 0, 0),
	C("msgs", "msgs", 13, T_U64, msgs, K_RATE, false, 0, 0, 0),
	C("msgs", "round-trips", 11, T_U64, msgs, K_LAT, false, 0, 0, 0),
	C("msgs", "cycles", 10, T_U64, msgs, K_CONN, false, 0, 0, 0),
	C("sent", NULL, 0, T_U64, sent, K_ANY, false, 0, 0, 0),
	C("peer_received", NULL, 0, T_U64, peer_received, K_MSGS, true, 0, 0, 0),
	C("peer_bytes", NULL, 0, T_U64, peer_bytes, K_MSGS, true, 0, 0, 0),
	C("received", NULL, 0, T_U64, received, K_BIDIR, false, 0, 0, 0),
	C("peer_sent", NULL, 0, T_U64, peer_sent, K_BIDIR, true, 0, 0, 0),
	C("rate_mmsg_per_s", "Mmsg/s", 10, T_DBL, rate, K_RATE, false, 6, 1, 3),
	C("bw_gbyte_per_s", "GB/s", 9, T_DBL, bw, K_RATE, false, 6, 1, 3),
	C("rx_msgs", "rx-msgs", 13, T_U64, rx_msgs, K_BIDIR, false, 0, 0, 0),
	C("rx_rate_mmsg_per_s", "rx-Mmsg/s", 10, T_DBL, rx_rate, K_BIDIR, false, 6, 1, 3),
	C("rx_bw_gbyte_per_s", "rx-GB/s", 9, T_DBL, rx_bw, K_BIDIR, false, 6, 1, 3),
	C("conn_per_s", "conn/s", 10, T_DBL, conn_per_s, K_CONN, false, 1, 1, 0),
	C("lat_min_ns", "min(us)", 9, T_U64, lat_min, K_LAT, false, 0, 1e3, 3),
	C("lat_mean_ns", "mean(us)", 9, T_DBL, lat_mean, K_LAT, false, 1, 1e3, 3),
	C("lat_p50_ns", "p50(us)", 9, T_U64, lat_p50, K_LAT, false, 0, 1e3, 3),
	C("lat_p90_ns", "p90(us)", 9, T_U64, lat_p90, K_LAT, false, 0, 1e3, 3),
	C("lat_p99_ns", "p99(us)", 9, T_U64, lat_p99, K_LAT, false, 0, 1e3, 3),
	C("lat_p999_ns", "p99.9(us)", 9, T_U64, lat_p999, K_LAT, false, 0, 1e3, 3),
	C("lat_max_ns", "max(us)", 9, T_U64, lat_max, K_LAT, false, 0, 1e3, 3),
};

/* What was printed last: the text header of this kind, the CSV header. */
static unsigned int shown_kind;
static bool shown_csv_header;

void
perf_report_reset(void)
{
	shown_kind = 0;
	shown_csv_header = false;
}

static unsigned int
kind_of(enum perf_test t)
{
	if (perf_test_is(t, PERF_E_LATENCY))
		return K_LAT;
	if (perf_test_is(t, PERF_E_BIDIR))
		return K_BIDIR;
	if (perf_test_is(t, PERF_E_SIZELESS))
		return K_CONN;
	return K_TPUT;
}

static void
row_fill(struct row *w, const struct perf_opts *o, const char *role,
		const struct perf_result *r)
{
	double s = r->seconds;
	const struct perf_hist *h = r->lat;

	*w = (struct row){
		.test = perf_test_name(r->test), .role = role, .lcore = r->lcore,
		.size = r->size, .burst = r->burst,
		.connections = o->connections, .queues = o->queues,
		.touch = o->touch, .seconds = s, .msgs = r->msgs,
		.sent = r->sent_total, .peer_received = r->peer_msgs,
		.peer_bytes = r->peer_bytes, .received = r->received,
		.peer_sent = r->peer_sent, .rx_msgs = r->rx_msgs,
	};
	if (s > 0) {
		w->rate = (double)r->msgs / s / 1e6;
		w->bw = (double)r->msgs * r->size / s / 1e9;
		w->rx_rate = (double)r->rx_msgs / s / 1e6;
		w->rx_bw = (double)r->rx_msgs * r->size / s / 1e9;
		w->conn_per_s = (double)r->msgs / s;
	}
	if (h != NULL) {
		w->lat_min = perf_hist_min(h);
		w->lat_mean = perf_hist_mean(h);
		w->lat_p50 = perf_hist_quantile(h, 0.5);
		w->lat_p90 = perf_hist_quantile(h, 0.9);
		w->lat_p99 = perf_hist_quantile(h, 0.99);
		w->lat_p999 = perf_hist_quantile(h, 0.999);
		w->lat_max = h->count != 0 ? h->max : 0;
	}
}

static bool
col_applies(const struct col *c, unsigned int kind, const struct row *w)
{
	return (c->kinds & kind) != 0 && (!c->total_only || w->lcore < 0);
}

/* The value of @p c, as JSON/CSV write it (@p json: strings quoted) or,
 * with @p text, as the text form shows it. */
static void
col_format(const struct col *c, const struct row *w, bool json, bool text,
		char *buf, size_t len)
{
	const void *p = (const char *)w + c->off;
	double v = 0;
	int prec, n;

	switch (c->type) {
	case T_STR:
		snprintf(buf, len, json ? "\"%s\"" : "%s", *(const char * const *)p);
		return;
	case T_LCORE:
		if (*(const int *)p < 0)
			snprintf(buf, len, json ? "\"all\"" : "all");
		else
			snprintf(buf, len, "%d", *(const int *)p);
		return;
	case T_BOOL:
		snprintf(buf, len, "%s", *(const bool *)p ? "true" : "false");
		return;
	case T_U64:
		if (!(text && c->text_div != 0)) {
			snprintf(buf, len, "%" PRIu64, *(const uint64_t *)p);
			return;
		}
		v = (double)*(const uint64_t *)p;
		break;
	case T_DBL:
		v = *(const double *)p;
		if (!(text && c->text_div != 0)) {
			snprintf(buf, len, "%.*f", c->prec, v);
			return;
		}
		break;
	}
	/* Fewer decimals for a value too wide for its column (a 0.3 s
	 * stall of a loaded machine is 300000.000 us): the rows stay
	 * aligned whatever the machine did. */
	prec = c->text_prec;
	do
		n = snprintf(buf, len, "%.*f", prec, v / c->text_div);
	while (n > abs(c->width) && prec-- > 0);
}

static void
print_json(const struct row *w, unsigned int kind)
{
	const char *sep = "{";
	char v[64];
	size_t i;

	for (i = 0; i < RTE_DIM(cols); i++) {
		if (!col_applies(&cols[i], kind, w))
			continue;
		col_format(&cols[i], w, true, false, v, sizeof(v));
		printf("%s\"%s\": %s", sep, cols[i].key, v);
		sep = ", ";
	}
	printf("}\n");
}

/* CSV: every key once, in table order (a key listed twice, for two kinds,
 * is one column). */
static bool
csv_first_of_key(size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (strcmp(cols[j].key, cols[i].key) == 0)
			return false;
	return true;
}

static void
print_csv(const struct row *w, unsigned int kind)
{
	char v[64];
	size_t i, j, k;

	if (!shown_csv_header) {
		for (i = 0, j = 0; i < RTE_DIM(cols); i++)
			if (csv_first_of_key(i))
				printf("%s%s", j++ ? "," : "", cols[i].key);
		printf("\n");
		shown_csv_header = true;
	}
	for (i = 0, j = 0; i < RTE_DIM(cols); i++) {
		if (!csv_first_of_key(i))
			continue;
		v[0] = '\0';
		/* the entry of this key that applies, if any */
		for (k = i; k < RTE_DIM(cols); k++) {
			if (strcmp(cols[k].key, cols[i].key) == 0 &&
			    col_applies(&cols[k], kind, w)) {
				col_format(&cols[k], w, false, false, v, sizeof(v));
				break;
			}
		}
		printf("%s%s", j++ ? "," : "", v);
	}
	printf("\n");
}

static void
print_text(const struct perf_opts *o, const struct row *w, unsigned int kind)
{
	const struct col *c;
	const char *sep;
	char v[64];
	size_t i;

	if (shown_kind != kind || o->interactive) {
		for (i = 0, sep = ""; i < RTE_DIM(cols); i++, sep = " ") {
			c = &cols[i];
			if (c->head != NULL && (c->kinds & kind) != 0)
				printf("%s%*s", sep, c->width, c->head);
		}
		printf("\n");
		shown_kind = kind;
	}
	for (i = 0, sep = ""; i < RTE_DIM(cols); i++, sep = " ") {
		c = &cols[i];
		if (c->head == NULL || (c->kinds & kind) == 0)
			continue;
		if (col_applies(c, kind, w))
			col_format(c, w, false, true, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "-");
		printf("%s%*s", sep, c->width, v);
	}
	/* What went missing, after the columns (the run also fails). */
	if (w->lcore < 0 && kind != K_CONN && w->peer_received != w->sent)
		printf("  LOST: sent %" PRIu64 ", peer received %" PRIu64,
			w->sent, w->peer_received);
	if (w->lcore < 0 && kind == K_BIDIR && w->received != w->peer_sent)
		printf("  LOST: peer sent %" PRIu64 ", received %" PRIu64,
			w->peer_sent, w->received);
	printf("\n");
}

void
perf_report(const struct perf_opts *o, const char *role,
		const struct perf_result *r)
{
	unsigned int kind = kind_of(r->test);
	struct row w;

	row_fill(&w, o, role, r);
	switch (o->output) {
	case PERF_OUT_JSON:
		print_json(&w, kind);
		break;
	case PERF_OUT_CSV:
		print_csv(&w, kind);
		break;
	case PERF_OUT_TEXT:
		print_text(o, &w, kind);
		break;
	}
	fflush(stdout);
}
