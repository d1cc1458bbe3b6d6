/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm probe, devargs and device-level ops.
 *
 *   --vdev=comch_shm0,role=dpu[,path=DIR][,functions=[pf0,pf0vf1]]
 *   --vdev=comch_shm1,role=host[,path=DIR][,function=pf0vf1]
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/un.h>

#include <bus_vdev_driver.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_string_fns.h>

#include "comch_shm_priv.h"

/* Default: what a user must act on (NOTICE and above); routine events
 * (connects, clean closes, retries) are DEBUG, the rest INFO. */
RTE_LOG_REGISTER(comch_shm_logtype, pmd.comch.shm, NOTICE);

#define SHM_ARG_ROLE      "role"
#define SHM_ARG_PATH      "path"
#define SHM_ARG_FUNCTIONS "functions"
#define SHM_ARG_FUNCTION  "function"
#define SHM_ARG_MAX_CONNS "max_conns"
#define SHM_ARG_MAX_PENDING "max_pending"
#define SHM_ARG_HANDSHAKE_MS "handshake_timeout_ms"
#define SHM_ARG_MAX_CONSUMERS "max_consumers"
#define SHM_ARG_MAX_MAP_MB "max_map_mb"

#define SHM_DEFAULT_PATH "/tmp/comch"
#define SHM_DEFAULT_FUNCTION "pf0"
#define SHM_SOCK_SUFFIX ".sock"

static const char * const shm_valid_args[] = {
	SHM_ARG_ROLE, SHM_ARG_PATH, SHM_ARG_FUNCTIONS, SHM_ARG_FUNCTION,
	SHM_ARG_MAX_CONNS, SHM_ARG_MAX_PENDING, SHM_ARG_HANDSHAKE_MS,
	SHM_ARG_MAX_CONSUMERS, SHM_ARG_MAX_MAP_MB, NULL
};

#define SHM_VALID_ARGS_TEXT "role, path, functions, function, max_conns, " \
	"max_pending, handshake_timeout_ms, max_consumers, max_map_mb"

/* The quota devargs: key, where it goes, accepted range. */
static const struct {
	const char *key;
	size_t off;
	bool wide;
	uint64_t min, max;
} shm_quota_args[] = {
	{ SHM_ARG_MAX_CONNS, offsetof(struct shm_quota, max_conns), false,
	  1, 65536 },
	{ SHM_ARG_MAX_PENDING, offsetof(struct shm_quota, max_pending), false,
	  1, 4096 },
	{ SHM_ARG_HANDSHAKE_MS, offsetof(struct shm_quota, handshake_ms), false,
	  1, 600000 },
	{ SHM_ARG_MAX_CONSUMERS, offsetof(struct shm_quota, max_consumers),
	  false, 1, COMCH_MAX_FP_OBJECTS },
	{ SHM_ARG_MAX_MAP_MB, offsetof(struct shm_quota, max_map), true,
	  1, 1048576 },
};

/* Parse an unsigned decimal without leading zeros, at most @p max. Returns
 * the number of characters used, 0 if none or out of range. */
static size_t
shm_parse_num(const char *s, unsigned long max, unsigned long *out)
{
	size_t n = 0;
	unsigned long v = 0;

	while (s[n] >= '0' && s[n] <= '9') {
		if (n == 1 && s[0] == '0')
			return 0;
		v = v * 10 + (unsigned long)(s[n] - '0');
		if (v > max)
			return 0;
		n++;
	}
	*out = v;
	return n;
}

/* A host function name: pf<0-255> optionally followed by vf<0-65535> or
 * sf<0-65535>, canonical decimal. */
bool
shm_function_name_valid(const char *s)
{
	unsigned long v;
	size_t n;

	if (strncmp(s, "pf", 2) != 0)
		return false;
	n = shm_parse_num(s + 2, 255, &v);
	if (n == 0)
		return false;
	s += 2 + n;
	if (*s == '\0')
		return true;
	if (strncmp(s, "vf", 2) != 0 && strncmp(s, "sf", 2) != 0)
		return false;
	n = shm_parse_num(s + 2, 65535, &v);
	return n != 0 && s[2 + n] == '\0';
}

static int
shm_add_function(const char *devname, struct shm_devargs *da, const char *key,
		const char *name, size_t len)
{
	char buf[SHM_FUNC_NAME_MAX];
	uint16_t i;

	if (len == 0 || len >= sizeof(buf)) {
		SHM_PROBE_ERR(devname, "%s=%.*s: invalid function name; expected pf<N>, pf<N>vf<M> or pf<N>sf<M>",
			key, (int)len, name);
		return -EINVAL;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (!shm_function_name_valid(buf)) {
		SHM_PROBE_ERR(devname, "%s=%s: invalid function name; expected pf<N>, pf<N>vf<M> or pf<N>sf<M> (e.g. pf0, pf0vf1)",
			key, buf);
		return -EINVAL;
	}
	for (i = 0; i < da->nb_functions; i++) {
		if (strcmp(da->functions[i], buf) == 0) {
			SHM_PROBE_ERR(devname, "%s: function %s listed twice",
				key, buf);
			return -EINVAL;
		}
	}
	if (da->nb_functions >= SHM_MAX_FUNCTIONS) {
		SHM_PROBE_ERR(devname, "%s: more than %d functions",
			key, SHM_MAX_FUNCTIONS);
		return -EINVAL;
	}
	rte_strscpy(da->functions[da->nb_functions++], buf, SHM_FUNC_NAME_MAX);
	return 0;
}

/* functions=pf0 or functions=[pf0,pf0vf1] (DPDK list syntax). */
static int
shm_parse_functions(const char *devname, struct shm_devargs *da,
		const char *value)
{
	size_t len = strlen(value);
	const char *s, *end, *comma;
	int ret;

	if (len >= 2 && value[0] == '[' && value[len - 1] == ']') {
		s = value + 1;
		end = value + len - 1;
	} else {
		s = value;
		end = value + len;
	}
	if (s == end) {
		SHM_PROBE_ERR(devname, "%s=%s: empty list",
			SHM_ARG_FUNCTIONS, value);
		return -EINVAL;
	}
	while (s <= end) {
		comma = memchr(s, ',', (size_t)(end - s));
		if (comma == NULL)
			comma = end;
		ret = shm_add_function(devname, da, SHM_ARG_FUNCTIONS, s,
				(size_t)(comma - s));
		if (ret < 0)
			return ret;
		s = comma + 1;
	}
	return 0;
}

/* One quota devarg: a decimal number in its range, nothing else. */
static int
shm_parse_quota(const char *devname, struct shm_quota *q, const char *key,
		const char *value)
{
	unsigned long v;
	unsigned int i;
	size_t n;

	for (i = 0; i < RTE_DIM(shm_quota_args); i++)
		if (strcmp(key, shm_quota_args[i].key) == 0)
			break;
	n = shm_parse_num(value, shm_quota_args[i].max, &v);
	if (n == 0 || value[n] != '\0' || v < shm_quota_args[i].min) {
		SHM_PROBE_ERR(devname, "%s=%s: expected a decimal number in [%" PRIu64 ", %" PRIu64 "]",
			key, value, shm_quota_args[i].min,
			shm_quota_args[i].max);
		return -EINVAL;
	}
	if (shm_quota_args[i].wide)
		*(uint64_t *)RTE_PTR_ADD(q, shm_quota_args[i].off) =
			(uint64_t)v << 20;
	else
		*(uint32_t *)RTE_PTR_ADD(q, shm_quota_args[i].off) =
			(uint32_t)v;
	return 0;
}

int
shm_parse_devargs(const char *devname, const char *args, struct shm_devargs *da)
{
	struct rte_kvargs *kv;
	unsigned int i, j;
	size_t longest = 0;
	int ret = 0;

	memset(da, 0, sizeof(*da));
	da->role = -1;
	rte_strscpy(da->path, SHM_DEFAULT_PATH, sizeof(da->path));
	da->quota.max_conns = SHM_DEFAULT_MAX_CONNS;
	da->quota.max_pending = SHM_DEFAULT_MAX_PENDING;
	da->quota.handshake_ms = SHM_DEFAULT_HANDSHAKE_MS;
	da->quota.max_consumers = SHM_DEFAULT_MAX_CONSUMERS;
	da->quota.max_map = (uint64_t)SHM_DEFAULT_MAX_MAP_MB << 20;

	kv = rte_kvargs_parse(args != NULL ? args : "", NULL);
	if (kv == NULL) {
		SHM_PROBE_ERR(devname, "cannot parse devargs \"%s\"; expected key=value pairs separated by ','",
			args);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		const char *key = kv->pairs[i].key;
		const char *value = kv->pairs[i].value;

		for (j = 0; shm_valid_args[j] != NULL; j++)
			if (strcmp(key, shm_valid_args[j]) == 0)
				break;
		if (shm_valid_args[j] == NULL) {
			SHM_PROBE_ERR(devname, "unknown devarg \"%s\"; accepted: " SHM_VALID_ARGS_TEXT,
				key);
			ret = -EINVAL;
			break;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(kv->pairs[j].key, key) == 0) {
				SHM_PROBE_ERR(devname, "devarg %s given twice",
					key);
				ret = -EINVAL;
			}
		}
		if (ret < 0)
			break;
		if (value == NULL) {
			SHM_PROBE_ERR(devname, "devarg %s needs a value", key);
			ret = -EINVAL;
		} else if (strcmp(key, SHM_ARG_ROLE) == 0) {
			if (strcmp(value, "dpu") == 0) {
				da->role = RTE_COMCH_ROLE_DPU;
			} else if (strcmp(value, "host") == 0) {
				da->role = RTE_COMCH_ROLE_HOST;
			} else {
				SHM_PROBE_ERR(devname, "role=%s: accepted values are dpu, host",
					value);
				ret = -EINVAL;
			}
		} else if (strcmp(key, SHM_ARG_PATH) == 0) {
			if (value[0] != '/' ||
			    rte_strscpy(da->path, value, sizeof(da->path)) < 0) {
				SHM_PROBE_ERR(devname, "path=%s: must be an absolute directory path",
					value);
				ret = -EINVAL;
			}
		} else if (strcmp(key, SHM_ARG_FUNCTIONS) == 0) {
			da->have_functions = true;
			ret = shm_parse_functions(devname, da, value);
		} else if (strcmp(key, SHM_ARG_FUNCTION) != 0) {
			da->have_quota = true;
			ret = shm_parse_quota(devname, &da->quota, key, value);
		} else {
			da->have_function = true;
			ret = shm_add_function(devname, da, SHM_ARG_FUNCTION,
					value, strlen(value));
		}
	}
	rte_kvargs_free(kv);
	if (ret < 0)
		return ret;

	if (da->role < 0) {
		SHM_PROBE_ERR(devname, "devarg role is required; accepted values are dpu, host");
		return -EINVAL;
	}
	if (da->role == RTE_COMCH_ROLE_HOST && da->have_functions) {
		SHM_PROBE_ERR(devname, "functions= is for role=dpu; a host device attaches as one function= (default %s)",
			SHM_DEFAULT_FUNCTION);
		return -EINVAL;
	}
	if (da->role == RTE_COMCH_ROLE_HOST && da->have_quota) {
		SHM_PROBE_ERR(devname, "quotas (max_conns, max_pending, handshake_timeout_ms, max_consumers, max_map_mb) are for role=dpu: the DPU limits its hosts");
		return -EINVAL;
	}
	if (da->role == RTE_COMCH_ROLE_DPU && da->have_function) {
		SHM_PROBE_ERR(devname, "function= is for role=host; a DPU device serves functions=[...] (default %s)",
			SHM_DEFAULT_FUNCTION);
		return -EINVAL;
	}
	if (da->nb_functions == 0) {
		rte_strscpy(da->functions[0], SHM_DEFAULT_FUNCTION,
				SHM_FUNC_NAME_MAX);
		da->nb_functions = 1;
	}
	for (i = 0; i < da->nb_functions; i++)
		longest = RTE_MAX(longest, strlen(da->functions[i]));
	if (strlen(da->path) + 1 + longest + strlen(SHM_SOCK_SUFFIX) >=
	    sizeof(((struct sockaddr_un *)0)->sun_path)) {
		SHM_PROBE_ERR(devname, "path=%s: too long for a UNIX socket; use at most %zu characters",
			da->path,
			sizeof(((struct sockaddr_un *)0)->sun_path) - 2 -
			longest - strlen(SHM_SOCK_SUFFIX));
		return -ENAMETOOLONG;
	}
	return 0;
}

static void shm_cfg_free(struct rte_comch_dev *cdev);

/* ------------------------------------------------------------ dev ops */

static int
shm_info_get(const struct rte_comch_dev *cdev, struct rte_comch_dev_info *info)
{
	const struct shm_dev *sd = cdev->process_private;
	struct rte_comch_caps *c = &info->caps;

	c->flags = (sd->role == RTE_COMCH_ROLE_DPU ?
		RTE_COMCH_CAPA_SERVER : RTE_COMCH_CAPA_CLIENT) |
		RTE_COMCH_CAPA_PRODUCER | RTE_COMCH_CAPA_CONSUMER;
	c->max_name_len = SHM_NAME_MAX;
	c->max_msg_size = SHM_MAX_MSG_SIZE;
	c->default_msg_size = SHM_DEFAULT_MSG_SIZE;
	c->max_recv_queue_len = SHM_MAX_RECV_QUEUE_LEN;
	c->default_recv_queue_len = SHM_DEFAULT_RECV_QUEUE_LEN;
	c->max_clients = 0;
	c->max_send_tasks = UINT16_MAX; /* per burst; sends complete at once */
	c->max_post_tasks = SHM_MAX_POSTS;
	c->max_buf_size = SHM_MAX_BUF_SIZE;
	c->max_imm_data_len = SHM_MAX_IMM;
	c->max_consumers = COMCH_MAX_FP_OBJECTS;
	c->max_producers = COMCH_MAX_FP_OBJECTS;
	c->max_mem_size = SHM_MAX_MEM_SIZE;
	info->nb_reps = sd->nb_reps;
	return 0;
}

static int
shm_rep_name(const struct rte_comch_dev *cdev, uint16_t rep_id, char *buf,
		size_t size)
{
	const struct shm_dev *sd = cdev->process_private;

	if (rep_id >= sd->nb_reps)
		return -EINVAL;
	if (rte_strscpy(buf, sd->reps[rep_id].name, size) < 0)
		return -ENOSPC;
	return 0;
}

static int
shm_dev_close(struct rte_comch_dev *cdev)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_view *v;
	uint16_t i;

	if (sd == NULL)
		return 0;
	/* A secondary that did not detach: its views go with the device
	 * (the fast-path table no longer reaches them). */
	while ((v = TAILQ_FIRST(&sd->views)) != NULL) {
		TAILQ_REMOVE(&sd->views, v, next);
		shm_view_free(v);
	}
	pthread_mutex_destroy(&sd->views_lock);
	for (i = 0; i < sd->nb_reps; i++) {
		if (!TAILQ_EMPTY(&sd->reps[i].servers))
			SHM_LOG(WARNING, "%s: closing with servers on %s still created; destroy them first",
				cdev->data->dev_name, sd->reps[i].name);
		if (sd->role == RTE_COMCH_ROLE_DPU &&
		    rte_eal_process_type() == RTE_PROC_PRIMARY)
			shm_rep_close(&sd->reps[i]);
	}
	free(sd);
	cdev->process_private = NULL;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		shm_cfg_free(cdev);
	return 0;
}

static const struct rte_comch_dev_ops shm_dev_ops = {
	.info_get = shm_info_get,
	.rep_name = shm_rep_name,
	.dev_close = shm_dev_close,
	.server_create = shm_server_create,
	.server_destroy = shm_server_destroy,
	.server_start = shm_server_start,
	.server_stop = shm_server_stop,
	.server_poll = shm_server_poll,
	.client_create = shm_client_create,
	.client_destroy = shm_client_destroy,
	.client_start = shm_client_start,
	.client_abort = shm_client_abort,
	.client_poll = shm_client_poll,
	.conn_close = shm_conn_close,
	.msg_send = shm_msg_send_op,
	.msg_recv_burst = shm_msg_recv_burst,
	.conn_in_flight = shm_conn_in_flight,
	.mem_create = shm_mem_create,
	.mem_destroy = shm_mem_destroy,
	.consumer_create = shm_consumer_create,
	.consumer_start = shm_consumer_start,
	.consumer_stop = shm_consumer_stop,
	.consumer_destroy = shm_consumer_destroy,
	.producer_create = shm_producer_create,
	.producer_start = shm_producer_start,
	.producer_stop = shm_producer_stop,
	.producer_destroy = shm_producer_destroy,
	.conn_remote_consumers = shm_conn_remote_consumers,
	.fp_stats = shm_fp_stats,
	.consumer_reclaim = shm_consumer_reclaim,
	.producer_reclaim = shm_producer_reclaim,
	.fp_release = shm_fp_release,
	.mp_request = shm_mp_request,
	.conn_detach = shm_conn_detach,
	.conn_orphan = shm_conn_orphan,
	.producer_priv_size = sizeof(struct shm_producer),
	.consumer_priv_size = sizeof(struct shm_consumer),
	.fp_send = shm_fp_send,
	.fp_sendv = shm_fp_sendv,
	.fp_post = shm_fp_post,
	.fp_poll = shm_fp_poll,
};

/* -------------------------------------------------------- probe/remove */

/*
 * The parsed devargs are kept in a memzone per device (no pointers in it),
 * because a secondary process gets the primary's vdevs by name only: it
 * attaches to the shared device data and reads the configuration from
 * there. The primary owns the link (sockets, interrupt handlers).
 */
static void
shm_cfg_name(char *buf, size_t size, int16_t dev_id)
{
	snprintf(buf, size, "comch_shm_cfg_%d", dev_id);
}

static int
shm_cfg_publish(struct rte_comch_dev *cdev, const struct shm_devargs *da)
{
	const struct rte_memzone *mz;
	char mzname[RTE_MEMZONE_NAMESIZE];

	shm_cfg_name(mzname, sizeof(mzname), cdev->data->dev_id);
	mz = rte_memzone_lookup(mzname);
	if (mz == NULL)
		mz = rte_memzone_reserve(mzname, sizeof(*da), SOCKET_ID_ANY, 0);
	if (mz == NULL)
		return -rte_errno;
	memcpy(mz->addr, da, sizeof(*da));
	return 0;
}

static int
shm_cfg_fetch(struct rte_comch_dev *cdev, struct shm_devargs *da)
{
	const struct rte_memzone *mz;
	char mzname[RTE_MEMZONE_NAMESIZE];

	shm_cfg_name(mzname, sizeof(mzname), cdev->data->dev_id);
	mz = rte_memzone_lookup(mzname);
	if (mz == NULL)
		return -ENODEV;
	memcpy(da, mz->addr, sizeof(*da));
	/* Shared memory: check what we copied as we would devargs. */
	if ((da->role != RTE_COMCH_ROLE_DPU && da->role != RTE_COMCH_ROLE_HOST) ||
	    da->nb_functions == 0 || da->nb_functions > SHM_MAX_FUNCTIONS ||
	    memchr(da->path, '\0', sizeof(da->path)) == NULL)
		return -EINVAL;
	return 0;
}

static void
shm_cfg_free(struct rte_comch_dev *cdev)
{
	char mzname[RTE_MEMZONE_NAMESIZE];

	shm_cfg_name(mzname, sizeof(mzname), cdev->data->dev_id);
	rte_memzone_free(rte_memzone_lookup(mzname));
}

/* Say what the quotas allow, and warn when the fds they allow do not fit
 * in this process's limit (a host could then make the DPU run out of fds:
 * refused cleanly, but refused). */
static void
shm_quota_report(const struct shm_dev *sd)
{
	const struct shm_quota *q = &sd->quota;
	/* per function: pending sockets, connection sockets, and two fds
	 * kept per host consumer (for secondary processes) */
	uint64_t fds = (uint64_t)sd->nb_reps * (q->max_pending +
		(uint64_t)q->max_conns * (1 + 2 * (uint64_t)q->max_consumers));
	struct rlimit rl;

	SHM_LOG(INFO, "%s: quotas per function: %u connections, %u handshakes (%u ms each), %u host consumers and %" PRIu64 " MiB of their memory per connection",
		sd->cdev->data->dev_name, q->max_conns, q->max_pending,
		q->handshake_ms, q->max_consumers, q->max_map >> 20);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    fds + 256 > rl.rlim_cur)
		SHM_LOG(WARNING, "%s: the quotas allow hosts %" PRIu64 " fds but this process may open %" PRIu64 " in all (ulimit -n); raise it or lower max_conns, max_consumers or max_pending",
			sd->cdev->data->dev_name, fds, (uint64_t)rl.rlim_cur);
}

static int
shm_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	struct shm_devargs da;
	struct rte_comch_dev *cdev;
	struct shm_dev *sd;
	int numa, ret;
	uint16_t i;

	if (primary) {
		ret = shm_parse_devargs(name, rte_vdev_device_args(vdev), &da);
		if (ret < 0)
			return ret;
	}
	numa = vdev->device.numa_node;
	if (numa < 0)
		numa = (int)rte_socket_id();
	cdev = rte_comch_pmd_allocate(name, numa);
	if (cdev == NULL)
		return -rte_errno;
	ret = primary ? shm_cfg_publish(cdev, &da) : shm_cfg_fetch(cdev, &da);
	if (ret < 0) {
		SHM_PROBE_ERR(name, "cannot %s the device configuration: %s",
			primary ? "share" : "read the primary's",
			rte_strerror(-ret));
		rte_comch_pmd_release(cdev);
		return ret;
	}
	/* Per-process state (fds, interrupt handles): process memory. */
	sd = calloc(1, sizeof(*sd));
	if (sd == NULL) {
		if (primary)
			shm_cfg_free(cdev);
		rte_comch_pmd_release(cdev);
		return -ENOMEM;
	}
	sd->cdev = cdev;
	/* Every process that may hold producers registers for the barriers
	 * that reclaim the peer's consumers' mappings (struct shm_view). */
	shm_membarrier_init();
	pthread_mutex_init(&sd->views_lock, NULL);
	TAILQ_INIT(&sd->views);
	sd->role = (enum rte_comch_role)da.role;
	sd->quota = da.quota;
	rte_strscpy(sd->path, da.path, sizeof(sd->path));
	sd->nb_reps = da.nb_functions;
	sd->sock_check_cycles = rte_get_tsc_hz() / 1000000 * SHM_SOCK_CHECK_US;
	for (i = 0; i < sd->nb_reps; i++) {
		struct shm_rep *rep = &sd->reps[i];

		rte_strscpy(rep->name, da.functions[i], sizeof(rep->name));
		/* Length checked by shm_parse_devargs(). */
		strcpy(rep->sock_path, da.path);
		strcat(rep->sock_path, "/");
		strcat(rep->sock_path, rep->name);
		strcat(rep->sock_path, SHM_SOCK_SUFFIX);
		rep->listen_fd = -1;
		rep->spare_fd = -1;
		rep->dev = sd;
		rte_spinlock_init(&rep->lock);
		rte_spinlock_init(&rep->refusals.lock);
		TAILQ_INIT(&rep->servers);
		TAILQ_INIT(&rep->pending);
	}
	cdev->device = &vdev->device;
	cdev->process_private = sd;
	cdev->data->role = (uint8_t)da.role;

	if (sd->role == RTE_COMCH_ROLE_DPU &&
	    rte_eal_process_type() == RTE_PROC_PRIMARY) {
		for (i = 0; i < sd->nb_reps; i++) {
			ret = shm_rep_listen(&sd->reps[i]);
			if (ret < 0) {
				sd->nb_reps = i;
				goto err;
			}
		}
	}
	if (sd->role == RTE_COMCH_ROLE_DPU && primary)
		shm_quota_report(sd);
	cdev->dev_ops = &shm_dev_ops;
	rte_comch_pmd_probing_finish(cdev);
	SHM_LOG(INFO, "%s: role %s, %u function(s) from %s, sockets in %s%s",
		name, sd->role == RTE_COMCH_ROLE_DPU ? "dpu" : "host",
		sd->nb_reps, sd->reps[0].name, sd->path,
		rte_eal_process_type() == RTE_PROC_PRIMARY ? "" :
		" (secondary process: attached to the primary's device)");
	return 0;
err:
	shm_dev_close(cdev);
	rte_comch_pmd_release(cdev);
	return ret;
}

static int
shm_remove(struct rte_vdev_device *vdev)
{
	struct rte_comch_dev *cdev;

	cdev = rte_comch_pmd_get_dev_by_name(rte_vdev_device_name(vdev));
	if (cdev == NULL)
		return 0;
	return rte_comch_pmd_release(cdev);
}

static struct rte_vdev_driver shm_vdev_driver = {
	.probe = shm_probe,
	.remove = shm_remove,
};

RTE_PMD_REGISTER_VDEV(comch_shm, shm_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(comch_shm,
	"role=<dpu|host> "
	"path=<absolute dir, default " SHM_DEFAULT_PATH "> "
	"functions=<[pf0,pf0vf1,...], role=dpu, default pf0> "
	"function=<pf0|pf0vf1|..., role=host, default pf0> "
	"max_conns=<1-65536, role=dpu, default 16> "
	"max_pending=<1-4096, role=dpu, default 16> "
	"handshake_timeout_ms=<1-600000, role=dpu, default 2000> "
	"max_consumers=<1-256, role=dpu, default 16> "
	"max_map_mb=<1-1048576, role=dpu, default 4096>");
