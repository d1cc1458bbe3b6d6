/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * dpdk-comch-perf: EAL arguments, then "--" and the tool's options
 * (perf_options.c). Roles: dpu serves (perf_dpu.c), host drives
 * (perf_host.c), pair runs both in this process: the DPU side on the main
 * lcore, the host side on the next lcore.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "perf_session.h"

/* Where default devices put their link sockets. */
#define PERF_DEFAULT_PATH "/tmp/comch"

/* The first device of @p role; a new comch_shm device @p name with
 * @p args only when no comch --vdev was given at all (said in one line);
 * a secondary process uses the primary's devices only. */
static int16_t
perf_dev(enum rte_comch_role role, int nb_given, const char *name,
		const char *args)
{
	const char *role_name = role == RTE_COMCH_ROLE_DPU ? "dpu" : "host";
	struct rte_comch_dev_info info;
	int16_t id;
	int ret;

	RTE_COMCH_FOREACH_DEV(id) {
		if (rte_comch_info_get(id, &info) == 0 && info.role == role)
			return id;
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		fprintf(stderr, "the primary process has no role=%s device\n",
			role_name);
		return -1;
	}
	if (nb_given > 0) {
		fprintf(stderr, "none of the comch --vdev given has role=%s\n",
			role_name);
		return -1;
	}
	ret = rte_vdev_init(name, args);
	if (ret < 0) {
		fprintf(stderr, "cannot create %s,%s: %s\n", name, args,
			rte_strerror(-ret));
		return -1;
	}
	/* stderr: stdout is for results (--json) */
	fprintf(stderr, "no comch --vdev given: created %s,%s\n", name, args);
	return (int16_t)rte_comch_get_dev_id_by_name(name);
}

struct host_job {
	const struct perf_opts *o;
	int16_t dev_id;
	int ret;
	volatile bool done;
};

static int
host_job_run(void *arg)
{
	struct host_job *j = arg;

	j->ret = perf_host_run(j->o, j->dev_id);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	return 0;
}

/* A DPU serving many hosts holds file descriptors for them (sockets, the
 * memory of every queue): take all the kernel allows this process, as
 * servers do, rather than the 1024 a login shell usually starts with. */
static void
perf_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
main(int argc, char **argv)
{
	struct perf_opts o;
	int16_t dpu = -1, host = -1;
	char dir[64] = "", args[128], why[256], hint[256];
	int ret, nb_given, rc = EXIT_FAILURE;

	/* Before: EAL rewrites argv when it fails. */
	rte_comch_devargs_hint(argc, argv, hint, sizeof(hint));
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "cannot initialise EAL: %s\n",
			rte_strerror(rte_errno));
		if (hint[0] != '\0')
			fprintf(stderr, "%s\n", hint);
		return EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	ret = perf_parse_args(argc, argv,
			rte_eal_process_type() != RTE_PROC_PRIMARY, &o);
	if (ret != 0) {
		if (ret > 0)
			perf_usage(argv[0]);
		rte_eal_cleanup();
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	perf_signals_catch();
	perf_raise_nofile();
	/* A comch --vdev that did not probe is fatal: the driver's reason
	 * is the last line printed. */
	nb_given = rte_comch_devargs_check(why, sizeof(why));
	if (nb_given < 0) {
		fprintf(stderr, "%s\n", why);
		goto out;
	}

	if (o.role == PERF_ROLE_PAIR) {
		struct host_job job = { .o = &o };
		unsigned int worker = rte_get_next_lcore(-1, 1, 0);

		if (worker >= RTE_MAX_LCORE) {
			fprintf(stderr, "--role=pair needs two lcores, e.g. -l 0,1\n");
			goto out;
		}
		snprintf(dir, sizeof(dir), "/tmp/comch-perf.XXXXXX");
		if (mkdtemp(dir) == NULL) {
			fprintf(stderr, "cannot create a folder in /tmp\n");
			goto out;
		}
		/* both ends are ours: connections as many as the options
		 * allow (conn-rate's come and go), consumers as many as the
		 * host makes (--queues) */
		snprintf(args, sizeof(args),
			"role=dpu,path=%s,max_conns=1024,max_consumers=%u", dir,
			o.queues);
		dpu = perf_dev(RTE_COMCH_ROLE_DPU, nb_given,
				"comch_shm_perf_dpu", args);
		snprintf(args, sizeof(args), "role=host,path=%s", dir);
		host = perf_dev(RTE_COMCH_ROLE_HOST, nb_given,
				"comch_shm_perf_host", args);
		if (dpu < 0 || host < 0)
			goto out;
		job.dev_id = host;
		rte_eal_remote_launch(host_job_run, &job, worker);
		ret = perf_dpu_run(&o, dpu, 0, &job.done);
		/* The DPU side returns once the host is done (or on SIGINT). */
		rte_eal_wait_lcore(worker);
		rc = ret == 0 && job.ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	} else if (o.role == PERF_ROLE_DPU) {
		dpu = perf_dev(RTE_COMCH_ROLE_DPU, nb_given,
				"comch_shm_perf_dpu", "role=dpu,path=" PERF_DEFAULT_PATH);
		if (dpu >= 0 && perf_dpu_run(&o, dpu, o.duration, NULL) == 0)
			rc = EXIT_SUCCESS;
	} else {
		host = perf_dev(RTE_COMCH_ROLE_HOST, nb_given,
				"comch_shm_perf_host", "role=host,path=" PERF_DEFAULT_PATH);
		if (host >= 0 &&
		    (o.hold ? perf_hold_run(&o, host) :
		     o.interactive ? perf_interactive(&o, host) :
		     perf_host_run(&o, host)) == 0)
			rc = EXIT_SUCCESS;
	}
out:
	rte_eal_cleanup();
	if (dir[0] != '\0')
		rmdir(dir);
	return rc;
}
