/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: probe, devargs and device-level ops. The primary process
 * parses the devargs into the driver data every process shares and owns
 * the link (it listens, on the DPU); a secondary process checks its copy
 * of that data and takes the device as it is.
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
#include <rte_string_fns.h>

#include "comch_shm_priv.h"


#define SHM_ARG_ROLE      "role"
#define SHM_ARG_PATH      "path"
#define SHM_ARG_FUNCTIONS "functions"
#define SHM_ARG_FUNCTION  "function"
#define SHM_ARG_MAX_CONNS "max_conns"
#define SHM_ARG_MAX_PENDING "max_pending"
#define SHM_ARG_HANDSHAKE_MS "handshake_timeout_ms"
#define SHM_ARG_MAX_CONSUMERS "max_consumers"
#define SHM_ARG_MAX_MAP_MB "max_map_mb"
#define SHM_ARG_WAKE_CHECK_MS "wake_check_ms"

#define SHM_DEFAULT_PATH "/tmp/comch"
#define SHM_DEFAULT_FUNCTION "pf0"
#define SHM_SOCK_SUFFIX ".sock"

static const char * const shm_valid_args[] = {
	SHM_ARG_ROLE, SHM_ARG_PATH, SHM_ARG_FUNCTIONS, SHM_ARG_FUNCTION,
	SHM_ARG_MAX_CONNS, SHM_ARG_MAX_PENDING, SHM_ARG_HANDSHAKE_MS,
	SHM_ARG_MAX_CONSUMERS, SHM_ARG_MAX_MAP_MB, SHM_ARG_WAKE_CHECK_MS, NULL
};

#define SHM_VALID_ARGS_TEXT "role, path, functions, function, max_conns, " \
	"max_pending, handshake_timeout_ms, max_consumers, max_map_mb, " \
	"wake_check_ms"

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
	  false, 1, RTE_COMCH_MAX_FP_OBJECTS },
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
shm_add_function(const char *devname, struct shm_config *da, const char *key,
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
shm_parse_functions(const char *devname, struct shm_config *da,
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
shm_parse_devargs(const char *devname, const char *args, struct shm_config *da)
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
	da->wake_check_ms = SHM_DEFAULT_WAKE_CHECK_MS;

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
		} else if (strcmp(key, SHM_ARG_WAKE_CHECK_MS) == 0) {
			unsigned long v;
			size_t n = shm_parse_num(value, SHM_MAX_WAKE_CHECK_MS, &v);

			if (n == 0 || value[n] != '\0' ||
			    v < SHM_MIN_WAKE_CHECK_MS) {
				SHM_PROBE_ERR(devname, "%s=%s: expected a decimal number in [%u, %u]",
					key, value, SHM_MIN_WAKE_CHECK_MS,
					SHM_MAX_WAKE_CHECK_MS);
				ret = -EINVAL;
			} else {
				da->wake_check_ms = (uint32_t)v;
			}
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

/* ------------------------------------------------------------ dev ops */

static int
shm_info_get(const struct rte_comch_dev *cdev, struct rte_comch_dev_info *info)
{
	const struct shm_dev *sd = cdev->process_private;
	struct rte_comch_caps *c = &info->caps;

	c->flags = (sd->cfg.role == RTE_COMCH_ROLE_DPU ?
		RTE_COMCH_CAPA_SERVER : RTE_COMCH_CAPA_CLIENT) |
		RTE_COMCH_CAPA_PRODUCER | RTE_COMCH_CAPA_CONSUMER |
		RTE_COMCH_CAPA_EVENT;
	c->max_name_len = SHM_NAME_MAX;
	c->max_msg_size = SHM_MAX_MSG_SIZE;
	c->default_msg_size = SHM_DEFAULT_MSG_SIZE;
	c->max_recv_queue_len = SHM_MAX_RECV_QUEUE_LEN;
	c->default_recv_queue_len = SHM_DEFAULT_RECV_QUEUE_LEN;
	/* A server serves one function: at most its connections quota. */
	c->max_clients = sd->cfg.role == RTE_COMCH_ROLE_DPU ?
		sd->cfg.quota.max_conns : 0;
	c->max_send_burst = UINT16_MAX; /* a whole burst; done at return */
	c->max_posts = SHM_MAX_POSTS;
	c->max_buf_size = SHM_MAX_BUF_SIZE;
	c->max_imm_len = SHM_MAX_IMM;
	c->max_consumers = RTE_COMCH_MAX_FP_OBJECTS;
	c->max_producers = RTE_COMCH_MAX_FP_OBJECTS;
	c->max_mem_size = SHM_MAX_MEM_SIZE;
	info->nb_functions = sd->nb_functions;
	return 0;
}

static int
shm_function_name(const struct rte_comch_dev *cdev, uint16_t function_id, char *buf,
		size_t size)
{
	const struct shm_dev *sd = cdev->process_private;

	if (function_id >= sd->nb_functions)
		return -EINVAL;
	if (rte_strscpy(buf, sd->functions[function_id].name, size) < 0)
		return -ENOSPC;
	return 0;
}

static int
shm_dev_close(struct rte_comch_dev *cdev)
{
	struct shm_dev *sd = cdev->process_private;
	uint16_t i;

	if (sd == NULL)
		return 0;
	/* What producers of this process mapped goes with the device (the
	 * fast-path table no longer reaches them). */
	shm_views_free(sd);
	pthread_mutex_destroy(&sd->views_lock);
	for (i = 0; i < sd->nb_functions; i++) {
		if (!TAILQ_EMPTY(&sd->functions[i].servers))
			SHM_LOG(WARNING, "%s: closing with servers on %s still created; destroy them first",
				cdev->data->dev_name, sd->functions[i].name);
		shm_function_close(&sd->functions[i]);
	}
	free(sd);
	cdev->process_private = NULL;
	return 0;
}

static const struct rte_comch_dev_ops shm_dev_ops = {
	.info_get = shm_info_get,
	.function_name = shm_function_name,
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
	.consumer_announce = shm_consumer_announce,
	.consumer_withdraw = shm_consumer_withdraw,
	.producer_create = shm_producer_create,
	.producer_start = shm_producer_start,
	.producer_stop = shm_producer_stop,
	.producer_destroy = shm_producer_destroy,
	.fp_stats = shm_fp_stats,
	.remote_add = shm_remote_add,
	.remote_del = shm_remote_del,
	.producer_repair = shm_producer_repair,
	.conn_orphan = shm_conn_orphan,
	.event_arm = shm_event_arm,
	.event_disarm = shm_event_disarm,
	.event_wake = shm_event_wake,
	.event_stats = shm_event_stats,
	.fp_send = shm_fp_send,
	.fp_sendv = shm_fp_sendv,
	.fp_post = shm_fp_post,
	.fp_poll = shm_fp_poll,
};

/* -------------------------------------------------------- probe/remove */

/* Say what the quotas allow, and warn when the fds they allow do not fit
 * in this process's limit (a host could then make the DPU run out of fds:
 * refused cleanly, but refused). */
static void
shm_quota_report(const struct shm_dev *sd)
{
	const struct shm_quota *q = &sd->cfg.quota;
	/* per function: pending sockets, and per connection its socket and
	 * two fds kept per host consumer (without event mode: the guide) */
	uint64_t fds = (uint64_t)sd->nb_functions * (q->max_pending +
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

/* This process's state of a device, from its checked configuration. */
static int
shm_dev_setup(struct rte_comch_dev *cdev, struct rte_vdev_device *vdev,
		const struct shm_config *cfg)
{
	struct shm_dev *sd;
	uint16_t i;

	/* Per-process state (fds, interrupt handles): process memory. */
	sd = calloc(1, sizeof(*sd));
	if (sd == NULL)
		return -ENOMEM;
	sd->cdev = cdev;
	sd->cfg = *cfg;
	/* Every process that may hold producers registers for the barriers
	 * that reclaim the peer's consumers' mappings (comch_shm_peer.c). */
	shm_membarrier_init();
	pthread_mutex_init(&sd->views_lock, NULL);
	TAILQ_INIT(&sd->views);
	sd->nb_functions = cfg->nb_functions;
	sd->sock_check_cycles = rte_get_tsc_hz() / 1000000 * SHM_SOCK_CHECK_US;
	for (i = 0; i < sd->nb_functions; i++) {
		struct shm_function *func = &sd->functions[i];

		rte_strscpy(func->name, cfg->functions[i], sizeof(func->name));
		/* Length checked by shm_parse_devargs(). */
		strcpy(func->sock_path, cfg->path);
		strcat(func->sock_path, "/");
		strcat(func->sock_path, func->name);
		strcat(func->sock_path, SHM_SOCK_SUFFIX);
		func->listen_fd = -1;
		func->spare_fd = -1;
		func->dev = sd;
		rte_spinlock_init(&func->lock);
		rte_spinlock_init(&func->refusals.lock);
		rte_spinlock_init(&func->blame.lock);
		TAILQ_INIT(&func->servers);
		TAILQ_INIT(&func->pending);
		TAILQ_INIT(&func->parked);
	}
	cdev->device = &vdev->device;
	cdev->process_private = sd;
	cdev->dev_ops = &shm_dev_ops;
	return 0;
}

/* The primary: parse the devargs into the shared driver data, set the
 * device up and, on the DPU, listen. */
static int
shm_create(struct rte_comch_dev *cdev, void *arg)
{
	struct rte_vdev_device *vdev = arg;
	const char *name = rte_vdev_device_name(vdev);
	struct shm_config *cfg = cdev->data->dev_private;
	struct shm_dev *sd;
	uint16_t i;
	int ret;

	ret = shm_parse_devargs(name, rte_vdev_device_args(vdev), cfg);
	if (ret < 0)
		return ret;
	cdev->data->role = (uint8_t)cfg->role;
	ret = shm_dev_setup(cdev, vdev, cfg);
	if (ret < 0)
		return ret;
	sd = cdev->process_private;
	if (cfg->role == RTE_COMCH_ROLE_DPU) {
		for (i = 0; i < sd->nb_functions; i++) {
			ret = shm_function_listen(&sd->functions[i]);
			if (ret < 0)
				return ret; /* shm_dev_close() undoes it */
		}
		shm_quota_report(sd);
	}
	SHM_LOG(INFO, "%s: role %s, %u function(s) from %s, sockets in %s",
		name, cfg->role == RTE_COMCH_ROLE_DPU ? "dpu" : "host",
		sd->nb_functions, sd->functions[0].name, cfg->path);
	return 0;
}

/* A secondary: the primary's configuration, checked as devargs would be
 * (it is shared memory). */
static int
shm_attach(struct rte_comch_dev *cdev, void *arg)
{
	struct rte_vdev_device *vdev = arg;
	const char *name = rte_vdev_device_name(vdev);
	struct shm_config cfg;
	uint16_t i;
	int ret;

	memcpy(&cfg, cdev->data->dev_private, sizeof(cfg));
	ret = (cfg.role == RTE_COMCH_ROLE_DPU ||
	       cfg.role == RTE_COMCH_ROLE_HOST) && cfg.nb_functions != 0 &&
		cfg.nb_functions <= SHM_MAX_FUNCTIONS &&
		cfg.wake_check_ms >= SHM_MIN_WAKE_CHECK_MS &&
		cfg.wake_check_ms <= SHM_MAX_WAKE_CHECK_MS &&
		memchr(cfg.path, '\0', sizeof(cfg.path)) != NULL ? 0 : -EINVAL;
	for (i = 0; ret == 0 && i < cfg.nb_functions; i++)
		if (memchr(cfg.functions[i], '\0', SHM_FUNC_NAME_MAX) == NULL ||
		    !shm_function_name_valid(cfg.functions[i]) ||
		    strlen(cfg.path) + 1 + strlen(cfg.functions[i]) +
		    strlen(SHM_SOCK_SUFFIX) >=
		    sizeof(((struct sockaddr_un *)0)->sun_path))
			ret = -EINVAL;
	if (ret < 0) {
		SHM_PROBE_ERR(name, "the primary process's configuration of the device does not hold");
		return ret;
	}
	ret = shm_dev_setup(cdev, vdev, &cfg);
	if (ret == 0)
		SHM_LOG(INFO, "%s: role %s, attached to the primary process's device",
			name, cfg.role == RTE_COMCH_ROLE_DPU ? "dpu" : "host");
	return ret;
}

static const struct rte_comch_pmd_probe_ops shm_probe_ops = {
	.create = shm_create,
	.attach = shm_attach,
};

static int
shm_probe(struct rte_vdev_device *vdev)
{
	int numa = vdev->device.numa_node;

	if (numa < 0)
		numa = (int)rte_socket_id();
	return rte_comch_pmd_probe(rte_vdev_device_name(vdev), numa,
			sizeof(struct shm_config), sizeof(struct shm_producer),
			sizeof(struct shm_consumer), &shm_probe_ops, vdev);
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
	"max_map_mb=<1-1048576, role=dpu, default 4096> "
	"wake_check_ms=<10-3600000, default 100>");
