/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The environment of a vendor-API program: its emulated BlueFields, read
 * from the configuration, and DPDK EAL, started by the layer itself.
 *
 * Configuration, first found of:
 *   DOCA_COMCH_EMU        the text itself (lines may be separated by ';')
 *   DOCA_COMCH_EMU_CONF   a file holding it
 *   /etc/doca_comch_emu.conf
 *   built in: "dpu 03:00.0 pf0=03:00.1"
 * One line per emulated BlueField:
 *   dpu <pci> <function>=<pci> [<function>=<pci> ...] [path=<dir>] [<key>=<value> ...]
 * <function> is a host function name (pf0, pf0vf1, ...) and the PCI
 * address its host device has, which is also the address of its
 * representor on the DPU; path is where the link sockets live (default
 * /tmp/doca-comch-<uid>/<dpu pci>); other keys are comch_shm DPU devargs
 * (max_conns, max_pending, handshake_timeout_ms, max_consumers,
 * max_map_mb). Extra EAL arguments: DOCA_COMCH_EMU_EAL.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "dc_priv.h"

#define DC_MAX_BF 8
#define DC_MAX_FUNCS 16
#define DC_DEFAULT_CONF "dpu 03:00.0 pf0=03:00.1"
#define DC_SYSTEM_CONF "/etc/doca_comch_emu.conf"

struct dc_bluefield {
	char path[108];
	char extra[256];                 /* ",key=value..." for comch_shm */
	uint32_t max_conns;
	uint16_t nb_funcs;
	struct doca_devinfo dpu;
	struct doca_devinfo host[DC_MAX_FUNCS];
	struct doca_devinfo_rep rep[DC_MAX_FUNCS];
};

static pthread_mutex_t dc_env_lock = PTHREAD_MUTEX_INITIALIZER;
static bool dc_env_done;
static doca_error_t dc_env_result;
static struct dc_bluefield dc_bf[DC_MAX_BF];
static uint32_t dc_nb_bf;
static struct doca_devinfo *dc_list[DC_MAX_BF * (DC_MAX_FUNCS + 1)];
static uint32_t dc_nb_list;
static bool dc_eal_ours;

DC_EXPORT uint64_t
dc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* "BB:DD.F" or "DDDD:BB:DD.F" into "dddd:bb:dd.f"; false if not one. */
static bool
dc_pci_normalize(const char *s, char out[DOCA_DEVINFO_PCI_ADDR_SIZE])
{
	unsigned int dom = 0, bus, dev, fn;
	char tail;

	if (strlen(s) == 12) {
		if (sscanf(s, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) != 4)
			return false;
	} else if (strlen(s) == 7) {
		if (sscanf(s, "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) != 3)
			return false;
	} else {
		return false;
	}
	if (!isxdigit((unsigned char)s[0]) || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, DOCA_DEVINFO_PCI_ADDR_SIZE, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

static bool
dc_function_name_ok(const char *s)
{
	char *end;

	if (strncmp(s, "pf", 2) != 0 || !isdigit((unsigned char)s[2]))
		return false;
	strtoul(s + 2, &end, 10);
	if (*end == '\0')
		return true;
	if ((strncmp(end, "vf", 2) != 0 && strncmp(end, "sf", 2) != 0) ||
	    !isdigit((unsigned char)end[2]))
		return false;
	strtoul(end + 2, &end, 10);
	return *end == '\0';
}

static const char *const dc_passthrough[] = {
	"max_conns", "max_pending", "handshake_timeout_ms", "max_consumers", "max_map_mb",
};

/* One "dpu ..." line. Returns DOCA_SUCCESS or DOCA_ERROR_BAD_CONFIG
 * (logged, naming @p where). */
static doca_error_t
dc_parse_line(char *line, const char *where, unsigned int lineno)
{
	struct dc_bluefield *bf;
	char *save = NULL, *tok, *eq;
	unsigned int i;
	size_t n;

	tok = strtok_r(line, " \t", &save);
	if (tok == NULL || tok[0] == '#')
		return DOCA_SUCCESS;
	if (strcmp(tok, "dpu") != 0) {
		DC_ERR("%s:%u: \"%s\": expected a line \"dpu <pci> <function>=<pci> ...\"", where, lineno, tok);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (dc_nb_bf == DC_MAX_BF) {
		DC_ERR("%s:%u: more than %d emulated BlueFields", where, lineno, DC_MAX_BF);
		return DOCA_ERROR_BAD_CONFIG;
	}
	bf = &dc_bf[dc_nb_bf];
	memset(bf, 0, sizeof(*bf));
	bf->max_conns = 16;
	tok = strtok_r(NULL, " \t", &save);
	if (tok == NULL || !dc_pci_normalize(tok, bf->dpu.pci)) {
		DC_ERR("%s:%u: \"%s\": expected the DPU device's PCI address (e.g. 03:00.0)", where, lineno,
		       tok != NULL ? tok : "");
		return DOCA_ERROR_BAD_CONFIG;
	}
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		if (tok[0] == '#')
			break;
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok || eq[1] == '\0') {
			DC_ERR("%s:%u: \"%s\": expected <key>=<value>", where, lineno, tok);
			return DOCA_ERROR_BAD_CONFIG;
		}
		*eq = '\0';
		if (strcmp(tok, "path") == 0) {
			if (eq[1] != '/' || strlen(eq + 1) >= sizeof(bf->path) - 16) {
				DC_ERR("%s:%u: path=%s: expected an absolute folder of at most %zu characters",
				       where, lineno, eq + 1, sizeof(bf->path) - 17);
				return DOCA_ERROR_BAD_CONFIG;
			}
			snprintf(bf->path, sizeof(bf->path), "%s", eq + 1);
			continue;
		}
		for (i = 0; i < RTE_DIM(dc_passthrough); i++)
			if (strcmp(tok, dc_passthrough[i]) == 0)
				break;
		if (i < RTE_DIM(dc_passthrough)) {
			n = strlen(bf->extra);
			snprintf(bf->extra + n, sizeof(bf->extra) - n, ",%s=%s", tok, eq + 1);
			if (strcmp(tok, "max_conns") == 0)
				bf->max_conns = (uint32_t)strtoul(eq + 1, NULL, 10);
			continue;
		}
		if (!dc_function_name_ok(tok) || strlen(tok) >= DC_NAME_MAX) {
			DC_ERR("%s:%u: unknown key \"%s\"; expected a host function (pf0, pf0vf1, ...), path, or one of max_conns, max_pending, handshake_timeout_ms, max_consumers, max_map_mb",
			       where, lineno, tok);
			return DOCA_ERROR_BAD_CONFIG;
		}
		if (bf->nb_funcs == DC_MAX_FUNCS) {
			DC_ERR("%s:%u: more than %d host functions", where, lineno, DC_MAX_FUNCS);
			return DOCA_ERROR_BAD_CONFIG;
		}
		i = bf->nb_funcs;
		if (!dc_pci_normalize(eq + 1, bf->rep[i].pci)) {
			DC_ERR("%s:%u: %s=%s: expected a PCI address (e.g. 03:00.1)", where, lineno, tok, eq + 1);
			return DOCA_ERROR_BAD_CONFIG;
		}
		snprintf(bf->rep[i].function, sizeof(bf->rep[i].function), "%s", tok);
		bf->nb_funcs++;
	}
	if (bf->nb_funcs == 0) {
		DC_ERR("%s:%u: the DPU %s serves no host function; add e.g. pf0=03:00.1", where, lineno,
		       bf->dpu.pci);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (bf->path[0] == '\0') {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

		memcpy(pci, bf->dpu.pci, sizeof(pci));
		snprintf(bf->path, sizeof(bf->path), "/tmp/doca-comch-%u/%s", (unsigned int)getuid(), pci);
	}
	dc_nb_bf++;
	return DOCA_SUCCESS;
}

/* Every address once: a DPU's, and each function's (host device and
 * representor share theirs). */
static doca_error_t
dc_check_unique(void)
{
	const char *seen[DC_MAX_BF * (DC_MAX_FUNCS + 1)];
	uint32_t nb = 0, b, f, k;

	for (b = 0; b < dc_nb_bf; b++) {
		for (f = 0; f <= dc_bf[b].nb_funcs; f++) {
			const char *a = f == 0 ? dc_bf[b].dpu.pci : dc_bf[b].rep[f - 1].pci;

			for (k = 0; k < nb; k++) {
				if (strcmp(seen[k], a) == 0) {
					DC_ERR("emulated devices: PCI address %s given twice", a);
					return DOCA_ERROR_BAD_CONFIG;
				}
			}
			seen[nb++] = a;
		}
		for (f = 0; f < dc_bf[b].nb_funcs; f++)
			for (k = f + 1; k < dc_bf[b].nb_funcs; k++)
				if (strcmp(dc_bf[b].rep[f].function, dc_bf[b].rep[k].function) == 0) {
					DC_ERR("emulated devices: DPU %s: function %s given twice",
					       dc_bf[b].dpu.pci, dc_bf[b].rep[f].function);
					return DOCA_ERROR_BAD_CONFIG;
				}
	}
	return DOCA_SUCCESS;
}

static doca_error_t
dc_parse(char *text, const char *where)
{
	char *save = NULL, *line;
	unsigned int lineno = 0;
	doca_error_t ret;

	for (line = strtok_r(text, "\n;", &save); line != NULL; line = strtok_r(NULL, "\n;", &save)) {
		lineno++;
		ret = dc_parse_line(line, where, lineno);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	if (dc_nb_bf == 0) {
		DC_ERR("%s: no emulated BlueField (expected a line \"dpu <pci> <function>=<pci> ...\")", where);
		return DOCA_ERROR_BAD_CONFIG;
	}
	return dc_check_unique();
}

static char *
dc_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	buf = calloc(1, 65536);
	if (buf != NULL) {
		n = (long)fread(buf, 1, 65535, f);
		buf[n] = '\0';
	}
	fclose(f);
	return buf;
}

static doca_error_t
dc_load_config(void)
{
	const char *inline_conf = getenv("DOCA_COMCH_EMU");
	const char *file = getenv("DOCA_COMCH_EMU_CONF");
	const char *where;
	char *text = NULL;
	doca_error_t ret;
	uint32_t b, f;

	if (inline_conf != NULL && inline_conf[0] != '\0') {
		where = "DOCA_COMCH_EMU";
		text = strdup(inline_conf);
	} else if (file != NULL && file[0] != '\0') {
		where = file;
		text = dc_read_file(file);
		if (text == NULL) {
			DC_ERR("DOCA_COMCH_EMU_CONF=%s: cannot read: %s", file, strerror(errno));
			return DOCA_ERROR_BAD_CONFIG;
		}
	} else if (access(DC_SYSTEM_CONF, F_OK) == 0) {
		where = DC_SYSTEM_CONF;
		text = dc_read_file(DC_SYSTEM_CONF);
		if (text == NULL) {
			DC_ERR("%s: cannot read: %s", DC_SYSTEM_CONF, strerror(errno));
			return DOCA_ERROR_BAD_CONFIG;
		}
	} else {
		where = "built-in default";
		text = strdup(DC_DEFAULT_CONF);
	}
	if (text == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ret = dc_parse(text, where);
	free(text);
	if (ret != DOCA_SUCCESS)
		return ret;
	/* The device list: each DPU, then its host functions. */
	for (b = 0; b < dc_nb_bf; b++) {
		struct dc_bluefield *bf = &dc_bf[b];

		bf->dpu.bf = bf;
		bf->dpu.dpu = true;
		bf->dpu.dev_id = -1;
		bf->dpu.index = dc_nb_list;
		dc_list[dc_nb_list++] = &bf->dpu;
		for (f = 0; f < bf->nb_funcs; f++) {
			struct doca_devinfo *h = &bf->host[f];

			h->bf = bf;
			h->dpu = false;
			h->function = (uint16_t)f;
			h->dev_id = -1;
			h->index = dc_nb_list;
			memcpy(h->pci, bf->rep[f].pci, sizeof(h->pci));
			dc_list[dc_nb_list++] = h;
			bf->rep[f].dpu = &bf->dpu;
		}
		DC_DBG("emulated BlueField %u (%s): DPU %s, %u host function(s), link %s", b, where,
		       bf->dpu.pci, bf->nb_funcs, bf->path);
	}
	return DOCA_SUCCESS;
}

static void
dc_eal_fini(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir);
}

/* EAL for a program that knows nothing of DPDK: in memory (no files, no
 * hugepages, no secondary processes), no PCI scan, its main lcore on
 * every CPU the program may use (EAL would pin it to one otherwise). */
static doca_error_t
dc_eal_start(void)
{
	char lcores[256], prefix[64], *extra = NULL, *tok, *save = NULL;
	char *argv[64];
	int argc = 0, n, cpu, ret;
	const char *env = getenv("DOCA_COMCH_EMU_EAL");
	cpu_set_t set;

	if (rte_lcore_count() > 0)
		return DOCA_SUCCESS;     /* the program started EAL itself */
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_ZERO(&set);
	n = snprintf(lcores, sizeof(lcores), "0@(");
	for (cpu = 0; cpu < CPU_SETSIZE && n < (int)sizeof(lcores) - 8; cpu++)
		if (CPU_ISSET(cpu, &set))
			n += snprintf(lcores + n, sizeof(lcores) - n, "%d,", cpu);
	if (lcores[n - 1] == ',')
		n--;
	else
		n += snprintf(lcores + n, sizeof(lcores) - n, "0");
	snprintf(lcores + n, sizeof(lcores) - n, ")");
	snprintf(prefix, sizeof(prefix), "doca-comch-%d", (int)getpid());
	argv[argc++] = (char *)(uintptr_t)"doca-comch-emu";
	argv[argc++] = (char *)(uintptr_t)"--no-shconf";
	argv[argc++] = (char *)(uintptr_t)"--no-huge";
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	argv[argc++] = (char *)(uintptr_t)"--no-telemetry";
	argv[argc++] = (char *)(uintptr_t)"--file-prefix";
	argv[argc++] = prefix;
	argv[argc++] = (char *)(uintptr_t)"--lcores";
	argv[argc++] = lcores;
	argv[argc++] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	if (env != NULL) {
		extra = strdup(env);
		for (tok = extra != NULL ? strtok_r(extra, " \t", &save) : NULL;
		     tok != NULL && argc < (int)RTE_DIM(argv) - 1; tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
	}
	argv[argc] = NULL;
	ret = rte_eal_init(argc, argv);
	free(extra);
	if (ret < 0) {
		/* EAL made its runtime folder before failing. */
		snprintf(lcores, sizeof(lcores), "%s", rte_eal_get_runtime_dir());
		if (strstr(lcores, prefix) != NULL)
			rmdir(lcores);
		DC_ERR("cannot start DPDK EAL: %s (extra arguments from DOCA_COMCH_EMU_EAL: \"%s\")",
		       rte_strerror(rte_errno), env != NULL ? env : "");
		return DOCA_ERROR_INITIALIZATION;
	}
	dc_eal_ours = true;
	atexit(dc_eal_fini);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
dc_env_init(void)
{
	pthread_mutex_lock(&dc_env_lock);
	if (!dc_env_done) {
		dc_env_result = dc_load_config();
		if (dc_env_result == DOCA_SUCCESS)
			dc_env_result = dc_eal_start();
		dc_env_done = true;
	}
	pthread_mutex_unlock(&dc_env_lock);
	return dc_env_result;
}

/* --------------------------------------------------------------- devices */

DC_EXPORT doca_error_t
doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	doca_error_t ret;

	if (dev_list == NULL || nb_devs == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ret = dc_env_init();
	if (ret != DOCA_SUCCESS)
		return ret;
	*dev_list = calloc(dc_nb_list + 1, sizeof(**dev_list));
	if (*dev_list == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(*dev_list, dc_list, dc_nb_list * sizeof(**dev_list));
	*nb_devs = dc_nb_list;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	if (dev_list == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(dev_list);
	return DOCA_SUCCESS;
}

static void
dc_vdev_name(const struct doca_devinfo *info, char *buf, size_t size)
{
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	size_t i;

	snprintf(pci, sizeof(pci), "%s", info->pci);
	for (i = 0; pci[i] != '\0'; i++)
		if (pci[i] == ':' || pci[i] == '.')
			pci[i] = '_';
	snprintf(buf, size, "comch_shm_%s_%s", info->dpu ? "dpu" : "host", pci);
}

DC_EXPORT doca_error_t
doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	struct dc_bluefield *bf;
	char name[64], args[512];
	size_t n;
	int ret;
	uint16_t f;

	if (devinfo == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev = calloc(1, sizeof(**dev));
	if (*dev == NULL)
		return DOCA_ERROR_NO_MEMORY;
	(*dev)->info = devinfo;
	pthread_mutex_lock(&dc_env_lock);
	if (devinfo->nb_open++ > 0) {
		pthread_mutex_unlock(&dc_env_lock);
		return DOCA_SUCCESS;
	}
	bf = devinfo->bf;
	dc_vdev_name(devinfo, name, sizeof(name));
	if (devinfo->dpu) {
		n = (size_t)snprintf(args, sizeof(args), "role=dpu,path=%s,functions=[", bf->path);
		for (f = 0; f < bf->nb_funcs; f++)
			n += (size_t)snprintf(args + n, sizeof(args) - n, "%s%s", f ? "," : "",
					      bf->rep[f].function);
		snprintf(args + n, sizeof(args) - n, "]%s", bf->extra);
	} else {
		snprintf(args, sizeof(args), "role=host,path=%s,function=%s", bf->path,
			 bf->rep[devinfo->function].function);
	}
	ret = rte_vdev_init(name, args);
	if (ret == 0)
		ret = rte_comch_get_dev_id_by_name(name);
	if (ret < 0) {
		DC_ERR("device %s: cannot create the emulated %s device %s,%s: %s (the comch_shm log line above says why)",
		       devinfo->pci, devinfo->dpu ? "DPU" : "host", name, args, rte_strerror(-ret));
		devinfo->nb_open--;
		pthread_mutex_unlock(&dc_env_lock);
		free(*dev);
		*dev = NULL;
		return DOCA_ERROR_DRIVER;
	}
	devinfo->dev_id = (int16_t)ret;
	pthread_mutex_unlock(&dc_env_lock);
	DC_DBG("device %s opened: %s,%s (comch device %d)", devinfo->pci, name, args, ret);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_dev_close(struct doca_dev *dev)
{
	struct doca_devinfo *info;
	char name[64];
	int ret = 0;

	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	info = dev->info;
	pthread_mutex_lock(&dc_env_lock);
	if (--info->nb_open == 0) {
		dc_vdev_name(info, name, sizeof(name));
		ret = rte_vdev_uninit(name);
		info->dev_id = -1;
	}
	pthread_mutex_unlock(&dc_env_lock);
	free(dev);
	if (ret < 0)
		DC_WARN("device %s: closing the emulated device: %s", info->pci, rte_strerror(-ret));
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_devinfo *
doca_dev_as_devinfo(const struct doca_dev *dev)
{
	return dev != NULL ? dev->info : NULL;
}

DC_EXPORT doca_error_t
doca_devinfo_rep_create_list(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
			     uint32_t *nb_devs_rep)
{
	struct dc_bluefield *bf;
	uint16_t f;

	(void)filter;   /* every representor of the emulation is a network one */
	if (dev == NULL || dev_list_rep == NULL || nb_devs_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dev->info->dpu) {
		DC_ERR("device %s is a host device: representors exist on the DPU device (%s)",
		       dev->info->pci, dc_devinfo_dpu_pci(dev->info));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	bf = dev->info->bf;
	*dev_list_rep = calloc(bf->nb_funcs + 1u, sizeof(**dev_list_rep));
	if (*dev_list_rep == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (f = 0; f < bf->nb_funcs; f++)
		(*dev_list_rep)[f] = &bf->rep[f];
	*nb_devs_rep = bf->nb_funcs;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
	if (dev_list_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(dev_list_rep);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
	if (devinfo == NULL || dev_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev_rep = calloc(1, sizeof(**dev_rep));
	if (*dev_rep == NULL)
		return DOCA_ERROR_NO_MEMORY;
	(*dev_rep)->info = devinfo;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_dev_rep_close(struct doca_dev_rep *dev)
{
	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(dev);
	return DOCA_SUCCESS;
}

DC_EXPORT struct doca_devinfo_rep *
doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	return dev_rep != NULL ? dev_rep->info : NULL;
}

DC_EXPORT doca_error_t
doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	if (devinfo == NULL || pci_addr_str == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(pci_addr_str, devinfo->pci, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep, char *pci_addr_str)
{
	if (devinfo_rep == NULL || pci_addr_str == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(pci_addr_str, devinfo_rep->pci, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

static doca_error_t
dc_pci_equal(const char *mine, const char *pci_addr_str, uint8_t *is_equal)
{
	char norm[DOCA_DEVINFO_PCI_ADDR_SIZE];

	if (pci_addr_str == NULL || is_equal == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!dc_pci_normalize(pci_addr_str, norm)) {
		DC_ERR("\"%s\" is not a PCI address (expected BB:DD.F or DDDD:BB:DD.F)", pci_addr_str);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_equal = strcmp(mine, norm) == 0;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
			       uint8_t *is_equal)
{
	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return dc_pci_equal(devinfo->pci, pci_addr_str, is_equal);
}

DC_EXPORT doca_error_t
doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr_str,
				   uint8_t *is_equal)
{
	if (devinfo_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return dc_pci_equal(devinfo_rep->pci, pci_addr_str, is_equal);
}

static doca_error_t
dc_bdf_get(const char *mine, struct doca_pci_bdf *bdf)
{
	unsigned int dom, bus, dev, fn;

	if (bdf == NULL || sscanf(mine, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return DOCA_ERROR_INVALID_VALUE;
	bdf->raw = 0;
	bdf->bus = (uint16_t)bus;
	bdf->device = (uint16_t)dev;
	bdf->function = (uint16_t)fn;
	return DOCA_SUCCESS;
}

static doca_error_t
dc_bdf_equal(const char *mine, const struct doca_pci_bdf *bdf, uint8_t *is_equal)
{
	struct doca_pci_bdf m;

	if (bdf == NULL || is_equal == NULL || dc_bdf_get(mine, &m) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	/* An older program cannot name a domain: only domain 0 matches. */
	*is_equal = strncmp(mine, "0000:", 5) == 0 && m.raw == bdf->raw;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_devinfo_get_pci_addr(const struct doca_devinfo *devinfo, struct doca_pci_bdf *pci_addr)
{
	return devinfo != NULL ? dc_bdf_get(devinfo->pci, pci_addr) : DOCA_ERROR_INVALID_VALUE;
}

DC_EXPORT doca_error_t
doca_devinfo_get_is_pci_addr_equal(const struct doca_devinfo *devinfo, const struct doca_pci_bdf *pci_addr,
				   uint8_t *is_equal)
{
	return devinfo != NULL ? dc_bdf_equal(devinfo->pci, pci_addr, is_equal) : DOCA_ERROR_INVALID_VALUE;
}

DC_EXPORT doca_error_t
doca_devinfo_rep_get_pci_addr(const struct doca_devinfo_rep *devinfo_rep, struct doca_pci_bdf *pci_addr)
{
	return devinfo_rep != NULL ? dc_bdf_get(devinfo_rep->pci, pci_addr) : DOCA_ERROR_INVALID_VALUE;
}

DC_EXPORT doca_error_t
doca_devinfo_rep_get_is_pci_addr_equal(const struct doca_devinfo_rep *devinfo_rep,
				       const struct doca_pci_bdf *pci_addr, uint8_t *is_equal)
{
	return devinfo_rep != NULL ? dc_bdf_equal(devinfo_rep->pci, pci_addr, is_equal) :
				     DOCA_ERROR_INVALID_VALUE;
}

DC_EXPORT doca_error_t
doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name, uint32_t size)
{
	if (devinfo == NULL || ibdev_name == NULL || size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if ((uint32_t)snprintf(ibdev_name, size, "comch_emu%u", devinfo->index) >= size)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name, uint32_t size)
{
	return doca_devinfo_get_ibdev_name(devinfo, iface_name, size);
}

DC_EXPORT doca_error_t
doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid, uint32_t size)
{
	if (devinfo_rep == NULL || rep_vuid == NULL || size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if ((uint32_t)snprintf(rep_vuid, size, "%s", devinfo_rep->function) >= size)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

DC_EXPORT const char *
dc_devinfo_dpu_pci(const struct doca_devinfo *devinfo)
{
	return devinfo->bf->dpu.pci;
}

DC_EXPORT void
dc_devinfo_caps(const struct doca_devinfo *devinfo, struct rte_comch_caps *caps)
{
	struct rte_comch_dev_info info;

	if (devinfo->dev_id >= 0 && rte_comch_info_get(devinfo->dev_id, &info) == 0) {
		*caps = info.caps;
	} else {
		/* comch_shm's limits (doc/guides/drivers/comch_shm.md). */
		*caps = (struct rte_comch_caps){
			.flags = (devinfo->dpu ? RTE_COMCH_CAPA_SERVER : RTE_COMCH_CAPA_CLIENT) |
				 RTE_COMCH_CAPA_PRODUCER | RTE_COMCH_CAPA_CONSUMER,
			.max_name_len = 64,
			.max_msg_size = 4080,
			.default_msg_size = 4080,
			.max_recv_queue_len = 8192,
			.default_recv_queue_len = 32,
			.max_send_burst = UINT16_MAX,
			.max_posts = 8192,
			.max_buf_size = 1ULL << 30,
			.max_imm_len = 32,
			.max_consumers = 256,
			.max_producers = 256,
			.max_mem_size = 16ULL << 30,
		};
	}
	/* Clients per server: the DPU's connections per function. */
	caps->max_clients = devinfo->bf->max_conns;
}
