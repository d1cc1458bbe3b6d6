/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* Error names and descriptions; logging (application and SDK messages). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <doca_version.h>

#include "dc_priv.h"

static const struct {
	const char *name;
	const char *descr;
} dc_errors[] = {
	[DOCA_SUCCESS] = { "DOCA_SUCCESS", "Success" },
	[DOCA_ERROR_UNKNOWN] = { "DOCA_ERROR_UNKNOWN", "Unknown error" },
	[DOCA_ERROR_NOT_PERMITTED] = { "DOCA_ERROR_NOT_PERMITTED", "Operation not permitted" },
	[DOCA_ERROR_IN_USE] = { "DOCA_ERROR_IN_USE", "Resource in use" },
	[DOCA_ERROR_NOT_SUPPORTED] = { "DOCA_ERROR_NOT_SUPPORTED", "Operation not supported" },
	[DOCA_ERROR_AGAIN] = { "DOCA_ERROR_AGAIN", "Resource temporarily unavailable, try again" },
	[DOCA_ERROR_INVALID_VALUE] = { "DOCA_ERROR_INVALID_VALUE", "Invalid input" },
	[DOCA_ERROR_NO_MEMORY] = { "DOCA_ERROR_NO_MEMORY", "Out of memory (or of tasks)" },
	[DOCA_ERROR_INITIALIZATION] = { "DOCA_ERROR_INITIALIZATION", "Initialization failed" },
	[DOCA_ERROR_TIME_OUT] = { "DOCA_ERROR_TIME_OUT", "Timed out" },
	[DOCA_ERROR_SHUTDOWN] = { "DOCA_ERROR_SHUTDOWN", "Shutting down or shut down" },
	[DOCA_ERROR_CONNECTION_RESET] = { "DOCA_ERROR_CONNECTION_RESET", "Connection reset by the peer" },
	[DOCA_ERROR_CONNECTION_ABORTED] = { "DOCA_ERROR_CONNECTION_ABORTED", "Connection aborted" },
	[DOCA_ERROR_CONNECTION_INPROGRESS] = { "DOCA_ERROR_CONNECTION_INPROGRESS", "Connection in progress" },
	[DOCA_ERROR_NOT_CONNECTED] = { "DOCA_ERROR_NOT_CONNECTED", "Not connected" },
	[DOCA_ERROR_NO_LOCK] = { "DOCA_ERROR_NO_LOCK", "Could not take a lock" },
	[DOCA_ERROR_NOT_FOUND] = { "DOCA_ERROR_NOT_FOUND", "Not found" },
	[DOCA_ERROR_IO_FAILED] = { "DOCA_ERROR_IO_FAILED", "Input/output operation failed" },
	[DOCA_ERROR_BAD_STATE] = { "DOCA_ERROR_BAD_STATE", "Not allowed in the current state" },
	[DOCA_ERROR_UNSUPPORTED_VERSION] = { "DOCA_ERROR_UNSUPPORTED_VERSION", "Unsupported version" },
	[DOCA_ERROR_OPERATING_SYSTEM] = { "DOCA_ERROR_OPERATING_SYSTEM", "Operating system call failed" },
	[DOCA_ERROR_DRIVER] = { "DOCA_ERROR_DRIVER", "Driver call failed" },
	[DOCA_ERROR_UNEXPECTED] = { "DOCA_ERROR_UNEXPECTED", "Unexpected condition" },
	[DOCA_ERROR_ALREADY_EXIST] = { "DOCA_ERROR_ALREADY_EXIST", "Already exists" },
	[DOCA_ERROR_FULL] = { "DOCA_ERROR_FULL", "No room left" },
	[DOCA_ERROR_EMPTY] = { "DOCA_ERROR_EMPTY", "Nothing available" },
	[DOCA_ERROR_IN_PROGRESS] = { "DOCA_ERROR_IN_PROGRESS", "In progress" },
	[DOCA_ERROR_TOO_BIG] = { "DOCA_ERROR_TOO_BIG", "Too big" },
	[DOCA_ERROR_AUTHENTICATION] = { "DOCA_ERROR_AUTHENTICATION", "Authentication failed" },
	[DOCA_ERROR_BAD_CONFIG] = { "DOCA_ERROR_BAD_CONFIG", "Bad configuration" },
	[DOCA_ERROR_SKIPPED] = { "DOCA_ERROR_SKIPPED", "Skipped" },
	[DOCA_ERROR_DEVICE_FATAL_ERROR] = { "DOCA_ERROR_DEVICE_FATAL_ERROR", "Fatal device error" },
};

DC_EXPORT const char *
doca_error_get_name(doca_error_t error)
{
	if ((unsigned int)error >= RTE_DIM(dc_errors))
		return dc_errors[DOCA_ERROR_UNKNOWN].name;
	return dc_errors[error].name;
}

DC_EXPORT const char *
doca_error_get_descr(doca_error_t error)
{
	if ((unsigned int)error >= RTE_DIM(dc_errors))
		return dc_errors[DOCA_ERROR_UNKNOWN].descr;
	return dc_errors[error].descr;
}

DC_EXPORT doca_error_t
dc_errno(int err)
{
	switch (err) {
	case 0: return DOCA_SUCCESS;
	case -EINVAL: return DOCA_ERROR_INVALID_VALUE;
	case -ENOMEM: return DOCA_ERROR_NO_MEMORY;
	case -EAGAIN: return DOCA_ERROR_AGAIN;
	case -ENOBUFS: return DOCA_ERROR_AGAIN;
	case -EBUSY: return DOCA_ERROR_IN_USE;
	case -ENOTSUP: return DOCA_ERROR_NOT_SUPPORTED;
	case -ENOTCONN: return DOCA_ERROR_NOT_CONNECTED;
	case -ECONNRESET: return DOCA_ERROR_CONNECTION_RESET;
	case -ECONNREFUSED: return DOCA_ERROR_CONNECTION_ABORTED;
	case -ECONNABORTED: return DOCA_ERROR_CONNECTION_ABORTED;
	case -EPROTO: return DOCA_ERROR_CONNECTION_ABORTED;
	case -ENOENT: return DOCA_ERROR_NOT_FOUND;
	case -EEXIST: return DOCA_ERROR_ALREADY_EXIST;
	case -EMSGSIZE: return DOCA_ERROR_TOO_BIG;
	case -ERANGE: return DOCA_ERROR_INVALID_VALUE;
	case -ENAMETOOLONG: return DOCA_ERROR_INVALID_VALUE;
	case -ENOSPC: return DOCA_ERROR_FULL;
	case -EPERM: return DOCA_ERROR_NOT_PERMITTED;
	case -ENODEV: return DOCA_ERROR_NOT_FOUND;
	case -ETIMEDOUT: return DOCA_ERROR_TIME_OUT;
	case -ECANCELED: return DOCA_ERROR_IO_FAILED;
	case -EMFILE: case -ENFILE: return DOCA_ERROR_OPERATING_SYSTEM;
	default: return DOCA_ERROR_UNKNOWN;
	}
}

/* -------------------------------------------------------------- logging */

#define DC_MAX_SOURCES 256
#define DC_MAX_BACKENDS 8

struct doca_log_backend {
	FILE *out;                /* NULL: standard (stderr/stdout by level) */
	bool sdk;                 /* prints the layer's own messages */
	uint32_t lower;           /* application messages up to this level */
	uint32_t upper;           /* ... and from this level */
	uint32_t sdk_level;
};

static pthread_mutex_t dc_log_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *dc_sources[DC_MAX_SOURCES];
static int dc_nb_sources;
static struct doca_log_backend dc_backends[DC_MAX_BACKENDS];
static int dc_nb_backends;
static uint32_t dc_global_lower = DOCA_LOG_LEVEL_INFO;
static uint32_t dc_global_sdk = DOCA_LOG_LEVEL_WARNING;

static void __attribute__((constructor))
dc_log_init(void)
{
	/* DOCA_COMCH_EMU_SDK_LOG=<level>: the layer's messages (default
	 * warning), printed to stderr even without an SDK backend. */
	const char *s = getenv("DOCA_COMCH_EMU_SDK_LOG");
	char *end;
	long v;

	if (s != NULL && *s != '\0') {
		v = strtol(s, &end, 10);
		if (*end == '\0' && v >= DOCA_LOG_LEVEL_DISABLE && v <= DOCA_LOG_LEVEL_TRACE)
			dc_global_sdk = (uint32_t)v;
	}
}

static struct doca_log_backend *
dc_backend_new(FILE *out, bool sdk)
{
	struct doca_log_backend *b = NULL;

	pthread_mutex_lock(&dc_log_lock);
	if (dc_nb_backends < DC_MAX_BACKENDS) {
		b = &dc_backends[dc_nb_backends++];
		*b = (struct doca_log_backend){ .out = out, .sdk = sdk,
			.lower = DOCA_LOG_LEVEL_TRACE, .upper = DOCA_LOG_LEVEL_DISABLE,
			.sdk_level = DOCA_LOG_LEVEL_TRACE };
	}
	pthread_mutex_unlock(&dc_log_lock);
	return b;
}

DC_EXPORT doca_error_t
doca_log_backend_create_standard(void)
{
	return dc_backend_new(NULL, false) != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

DC_EXPORT doca_error_t
doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	if (fptr == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*backend = dc_backend_new(fptr, false);
	return *backend != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

DC_EXPORT doca_error_t
doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	if (fptr == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*backend = dc_backend_new(fptr, true);
	return *backend != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

static bool
dc_level_ok(uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE;
}

DC_EXPORT doca_error_t
doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	if (backend == NULL || !dc_level_ok(level))
		return DOCA_ERROR_INVALID_VALUE;
	backend->sdk_level = level;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level)
{
	if (backend == NULL || !dc_level_ok(level))
		return DOCA_ERROR_INVALID_VALUE;
	backend->lower = level;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend, uint32_t level)
{
	if (backend == NULL || !dc_level_ok(level))
		return DOCA_ERROR_INVALID_VALUE;
	backend->upper = level;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_log_level_set_global_lower_limit(uint32_t level)
{
	if (!dc_level_ok(level))
		return DOCA_ERROR_INVALID_VALUE;
	dc_global_lower = level;
	return DOCA_SUCCESS;
}

DC_EXPORT uint32_t
doca_log_level_get_global_lower_limit(void)
{
	return dc_global_lower;
}

DC_EXPORT doca_error_t
doca_log_level_set_global_sdk_limit(uint32_t level)
{
	if (!dc_level_ok(level))
		return DOCA_ERROR_INVALID_VALUE;
	dc_global_sdk = level;
	return DOCA_SUCCESS;
}

DC_EXPORT uint32_t
doca_log_level_get_global_sdk_limit(void)
{
	return dc_global_sdk;
}

DC_EXPORT doca_error_t
doca_log_register_source(const char *source_name, int *source)
{
	if (source_name == NULL || source == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&dc_log_lock);
	if (dc_nb_sources == DC_MAX_SOURCES) {
		pthread_mutex_unlock(&dc_log_lock);
		return DOCA_ERROR_FULL;
	}
	dc_sources[dc_nb_sources] = source_name;
	*source = dc_nb_sources++;
	pthread_mutex_unlock(&dc_log_lock);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_log_unregister_source(int source)
{
	if (source < 0 || source >= DC_MAX_SOURCES)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

static const char *
dc_level_tag(uint32_t level)
{
	switch (level) {
	case DOCA_LOG_LEVEL_CRIT: return "CRIT";
	case DOCA_LOG_LEVEL_ERROR: return "ERR";
	case DOCA_LOG_LEVEL_WARNING: return "WARN";
	case DOCA_LOG_LEVEL_INFO: return "INFO";
	case DOCA_LOG_LEVEL_DEBUG: return "DBG";
	default: return "TRC";
	}
}

/* One line: [HH:MM:SS:usec][pid][DOCA][LVL][source:line][func] text */
static void
dc_print(FILE *out, uint32_t level, const char *source, int line, const char *func,
	 const char *fmt, va_list ap)
{
	char text[1024];
	struct timeval tv;
	struct tm tm;

	vsnprintf(text, sizeof(text), fmt, ap);
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	fprintf(out, "[%02d:%02d:%02d:%06ld][%d][DOCA][%s][%s:%d][%s] %s\n", tm.tm_hour,
		tm.tm_min, tm.tm_sec, (long)tv.tv_usec, (int)getpid(), dc_level_tag(level),
		source, line, func, text);
	fflush(out);
}

static FILE *
dc_standard_out(uint32_t level)
{
	return level <= DOCA_LOG_LEVEL_WARNING ? stderr : stdout;
}

DC_EXPORT void
doca_log_emit(uint32_t level, int source, const char *file, int line, const char *func,
	      const char *format, ...)
{
	const char *name = source >= 0 && source < dc_nb_sources ? dc_sources[source] : file;
	va_list ap;
	int i;

	if (level > dc_global_lower)
		return;
	for (i = 0; i < dc_nb_backends; i++) {
		struct doca_log_backend *b = &dc_backends[i];

		if (b->sdk || level > b->lower)
			continue;
		va_start(ap, format);
		dc_print(b->out != NULL ? b->out : dc_standard_out(level), level, name, line, func,
			 format, ap);
		va_end(ap);
	}
}

DC_EXPORT void
dc_log(uint32_t level, const char *fmt, ...)
{
	bool printed = false;
	va_list ap;
	int i;

	if (level > dc_global_sdk)
		return;
	for (i = 0; i < dc_nb_backends; i++) {
		struct doca_log_backend *b = &dc_backends[i];

		if (!b->sdk || level > b->sdk_level)
			continue;
		va_start(ap, fmt);
		dc_print(b->out, level, "COMCH_COMPAT", 0, "doca", fmt, ap);
		va_end(ap);
		printed = true;
	}
	/* An application without an SDK backend still hears of what it
	 * must change (the vendor's library is silent then; we are not). */
	if (!printed) {
		va_start(ap, fmt);
		dc_print(stderr, level, "COMCH_COMPAT", 0, "doca", fmt, ap);
		va_end(ap);
	}
}

/* -------------------------------------------------------------- version */

DC_EXPORT const char *
doca_version(void)
{
	return DOCA_VERSION_STRING;
}

DC_EXPORT const char *
doca_version_runtime(void)
{
	return DOCA_VERSION_STRING;
}
