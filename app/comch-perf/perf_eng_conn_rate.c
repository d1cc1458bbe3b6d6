/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * conn-rate: connect and disconnect one more client as fast as possible,
 * on the driving lcore, for the run's duration (or --count cycles). No
 * streams and no sizes; the DPU just serves the connections.
 */

#include <rte_cycles.h>
#include <rte_errno.h>

#include "perf_session.h"

static int
conn_rate_run(struct perf_session *s, struct perf_result *r)
{
	struct rte_comch_client_conf conf = { .server_name = s->o->name };
	struct rte_comch_client *cli;
	uint64_t t0 = 0, now, end, n = 0, warm_end;
	int err = 0;

	cli = rte_comch_client_create(s->dev_id, &conf);
	if (cli == NULL)
		return -rte_errno;
	now = rte_rdtsc();
	warm_end = now + (uint64_t)(s->o->warmup * (double)s->tsc_hz);
	end = warm_end + (uint64_t)(s->o->duration * (double)s->tsc_hz);
	do {
		err = rte_comch_client_start(cli);
		if (err < 0)
			break;
		do
			rte_comch_client_poll(cli);
		while (rte_comch_client_state(cli, &err) == RTE_COMCH_STATE_STARTING &&
		       !perf_quit);
		if (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_RUNNING)
			break;
		err = rte_comch_client_stop(cli);
		if (err < 0)
			break;
		now = rte_rdtsc();
		if (now >= warm_end) {
			if (t0 == 0)
				t0 = now;
			else
				n++;
		}
		r->sent_total++;
	} while (!perf_quit && (s->o->count != 0 ? n < s->o->count : now < end));
	if (rte_comch_client_state(cli, NULL) != RTE_COMCH_STATE_IDLE)
		rte_comch_client_stop(cli);
	rte_comch_client_destroy(cli);
	r->msgs = n;
	r->seconds = now > t0 && t0 != 0 ? (double)(now - t0) / (double)s->tsc_hz : 0;
	r->peer_msgs = r->sent_total; /* nothing to lose */
	return err < 0 ? err : 0;
}

const struct perf_engine perf_eng_conn_rate = {
	.name = "conn-rate",
	.flags = PERF_E_SIZELESS,
	.run = conn_rate_run,
};
