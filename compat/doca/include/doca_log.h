/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Logging: a source per file (DOCA_LOG_REGISTER), a level per message,
 * backends that print. Application messages pass the application's lower
 * limit; the layer's own messages ("SDK" messages) pass the SDK limit.
 */

#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stdint.h>
#include <stdio.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Levels, most severe first (a message passes when its level <= limit). */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10,
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

/* Where messages go. */
struct doca_log_backend;

/* Print application messages: errors and warnings to stderr, the rest to
 * stdout. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_standard(void);

/* Print application messages to @p fptr. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);

/* Print the layer's own (SDK) messages to @p fptr. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);

/* Limit of a backend for SDK messages. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);

/* Lower and upper limits of a backend for application messages. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend, uint32_t level);

/* Process-wide limits: application messages, SDK messages. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_sdk_limit(void);

/* Register a source name; @p source receives its id. Used by
 * DOCA_LOG_REGISTER. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL
doca_error_t doca_log_unregister_source(int source);

/* Emit one application message (what the DOCA_LOG_* macros call). */
DOCA_EXPERIMENTAL
void doca_log_emit(uint32_t level, int source, const char *file, int line,
		   const char *func, const char *format, ...)
	__attribute__((format(printf, 6, 7)));

/* Declare this file's log source, named @p SOURCE (any tokens, e.g.
 * COMCH_CLIENT or COMCH_CLIENT::MAIN); used as a statement at file scope,
 * "DOCA_LOG_REGISTER(NAME);", once per file. */
#define DOCA_LOG_REGISTER(SOURCE) \
	static int log_source = -1; \
	static void __attribute__((constructor)) doca_log_source_ctor(void) \
	{ \
		doca_log_register_source(#SOURCE, &log_source); \
	} \
	static void doca_log_source_ctor(void)

#define DOCA_LOG(level, format, ...) \
	doca_log_emit(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, \
		      format, ##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__)
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__)

/* Rate-limited variants: here, the same as the plain ones. */
#define DOCA_LOG_RATE_LIMIT_CRIT DOCA_LOG_CRIT
#define DOCA_LOG_RATE_LIMIT_ERR DOCA_LOG_ERR
#define DOCA_LOG_RATE_LIMIT_WARN DOCA_LOG_WARN
#define DOCA_LOG_RATE_LIMIT_INFO DOCA_LOG_INFO
#define DOCA_LOG_RATE_LIMIT_DBG DOCA_LOG_DBG

/* Developer logs: compiled in only with DOCA_LOGGING_ALLOW_DLOG. */
#ifdef DOCA_LOGGING_ALLOW_DLOG
#define DOCA_DLOG_CRIT DOCA_LOG_CRIT
#define DOCA_DLOG_ERR DOCA_LOG_ERR
#define DOCA_DLOG_WARN DOCA_LOG_WARN
#define DOCA_DLOG_INFO DOCA_LOG_INFO
#define DOCA_DLOG_DBG DOCA_LOG_DBG
#define DOCA_DLOG_TRC DOCA_LOG_TRC
#else
#define DOCA_DLOG_NOTHING(...) do { } while (0)
#define DOCA_DLOG_CRIT DOCA_DLOG_NOTHING
#define DOCA_DLOG_ERR DOCA_DLOG_NOTHING
#define DOCA_DLOG_WARN DOCA_DLOG_NOTHING
#define DOCA_DLOG_INFO DOCA_DLOG_NOTHING
#define DOCA_DLOG_DBG DOCA_DLOG_NOTHING
#define DOCA_DLOG_TRC DOCA_DLOG_NOTHING
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
