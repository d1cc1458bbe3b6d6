/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * hostile_host: a standalone hostile host for the DPU programs of this
 * project (examples/comch_ctrl_path, examples/comch_data_path,
 * dpdk-comch-perf --role=dpu). It speaks the comch_shm wire protocol by
 * hand, written from doc/guides/drivers/comch_shm.md and the wire structs
 * of comch_shm.h only (no driver or library code), and the application
 * protocols from the sample guides and app/comch-perf/perf.h.
 *
 *   hostile_host MODE --path DIR [--func pf0] [--name SERVER] [--app A]
 *                [--hold SEC] [--rounds N] [--conns N] [--consumers N]
 *                [--mem-mb N] [--socks N] [--size N] [--queues N]
 *
 * Run by test/test_hostile_apps.py beside an honest client. Output lines
 * start with "hostile:"; "hostile: armed" says the attack is in place (the
 * test then starts the honest client, or SIGSTOPs us); SIGUSR1 moves a mode
 * to its second phase where it has one; SIGTERM ends a hold.
 *
 * Exit status: 0 the attack ran; 2 it could not be set up (no server, no
 * ACCEPT where one was needed: a test problem); 3 the DPU did something
 * the documents rule out, seen from the wire (a malformed handshake
 * accepted, a violation left unpunished): a product finding.
 *
 * Files: hostile_host.h (what they share), hostile_common.c (options,
 * output, the socket), hostile_conn.c (a connection by hand), and the
 * attacks by what they aim at: hostile_handshake.c, hostile_races.c
 * (shared memory), hostile_proto.c (the protocol after ACCEPT, logs),
 * hostile_quota.c (what the DPU holds for a connection), hostile_apps.c
 * (the programs' own protocols).
 */

#include "hostile_host.h"

/* ================================================================ main */

static void
usage(void)
{
	fprintf(stderr,
		"usage: hostile_host MODE --path DIR [--func F] [--name S] [--app ctrl|perf|data]\n"
		"  modes: silent hello-garbage fd-race consumer-race proto-garbage\n"
		"         log-inject churn sigpipe never-read never-post claim-hold\n"
		"         rewrite fp-garbage announce-flood unread-churn consumer-churn\n"
		"         conn-hog fd-exhaust amplify log-flood data-peer fd-leak\n"
		"         perf-hog begin big-copy connect-flood refused-stream\n"
		"         violate-cycle unread-accept extra-fd-linger\n");
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "func", required_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "app", required_argument, NULL, 'a' },
		{ "diskdir", required_argument, NULL, 'D' },
		{ "hold", required_argument, NULL, 'H' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "conns", required_argument, NULL, 'c' },
		{ "consumers", required_argument, NULL, 'C' },
		{ "mem-mb", required_argument, NULL, 'm' },
		{ "socks", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "queues", required_argument, NULL, 'q' },
		{ "refresh", no_argument, NULL, 'R' },
		{ "no-legal", no_argument, NULL, 'L' },
		{ "variant", required_argument, NULL, 'V' },
		{ "then", required_argument, NULL, 'T' },
		{ "first-id", required_argument, NULL, 'I' },
		{ "test", required_argument, NULL, 'X' },
		{ "text", required_argument, NULL, 't' },
		{ "expect", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int (*fn)(void);
	} modes[] = {
		{ "silent", mode_silent },
		{ "connect-flood", mode_connect_flood },
		{ "refused-stream", mode_refused_stream },
		{ "hello-garbage", mode_hello_garbage },
		{ "fd-race", mode_fd_race },
		{ "consumer-race", mode_consumer_race },
		{ "proto-garbage", mode_proto_garbage },
		{ "log-inject", mode_log_inject },
		{ "churn", mode_churn },
		{ "sigpipe", mode_sigpipe },
		{ "never-read", mode_never_read },
		{ "never-post", mode_never_post },
		{ "claim-hold", mode_claim_hold },
		{ "rewrite", mode_rewrite },
		{ "fp-garbage", mode_fp_garbage },
		{ "announce-flood", mode_announce_flood },
		{ "unread-churn", mode_unread_churn },
		{ "big-copy", mode_big_copy },
		{ "consumer-churn", mode_consumer_churn },
		{ "conn-hog", mode_conn_hog },
		{ "fd-exhaust", mode_fd_exhaust },
		{ "amplify", mode_amplify },
		{ "log-flood", mode_log_flood },
		{ "data-peer", mode_data_peer },
		{ "fd-leak", mode_fd_leak },
		{ "perf-hog", mode_perf_hog },
		{ "begin", mode_begin },
		{ "violate-cycle", mode_violate_cycle },
		{ "unread-accept", mode_unread_accept },
		{ "extra-fd-linger", mode_extra_fd_linger },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct rlimit rl;
	int o, rc = -1;
	unsigned int i;

	if (argc < 2) {
		usage();
		return EXIT_SETUP;
	}
	opt.mode = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'p': opt.path = optarg; break;
		case 'f': opt.func = optarg; break;
		case 'n': opt.name = optarg; break;
		case 'a': opt.app = optarg; break;
		case 'D': opt.diskdir = optarg; break;
		case 'H': opt.hold = atof(optarg); break;
		case 'r': opt.rounds = (unsigned int)atoi(optarg); break;
		case 'c': opt.conns = (unsigned int)atoi(optarg); break;
		case 'C': opt.consumers = (unsigned int)atoi(optarg); break;
		case 'm': opt.mem_mb = (unsigned int)atoi(optarg); break;
		case 's': opt.socks = (unsigned int)atoi(optarg); break;
		case 'q': opt.queues = (unsigned int)atoi(optarg); break;
		case 'R': opt.refresh = true; break;
		case 'L': opt.no_legal = true; break;
		case 'V': opt.variant = optarg; break;
		case 'T': opt.then = optarg; break;
		case 'I': opt.first_id = (unsigned int)atoi(optarg); break;
		case 'X': opt.test = (unsigned int)atoi(optarg); break;
		case 'z': opt.size = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': opt.text = optarg; break;
		case 'e': opt.expect = optarg; break;
		default: usage(); return EXIT_SETUP;
		}
	}
	if (opt.path == NULL) {
		usage();
		return EXIT_SETUP;
	}
	if (opt.name == NULL)
		opt.name = strcmp(opt.app, "perf") == 0 ? "comch_perf" :
			strcmp(opt.app, "data") == 0 ? "comch_data_sample" :
			"comch_ctrl_sample";
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* many sockets and memfds */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < RTE_DIM(modes); i++)
		if (strcmp(opt.mode, modes[i].name) == 0)
			rc = modes[i].fn();
	if (rc < 0) {
		usage();
		return EXIT_SETUP;
	}
	if (rc == 0 && findings != 0)
		rc = EXIT_FINDING;
	say("exit %d (%u findings)", rc, findings);
	return rc;
}
