/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Command-line parsing as the vendor's samples use it: a program
 * registers its parameters (short and long name, type, callback), then
 * doca_argp_start() parses argv and calls each callback with the value
 * and the program's configuration.
 *
 * Built in: -h/--help (usage, exit 0), -v/--version, -l/--log-level <N>
 * (application messages), --sdk-log-level <N> (the layer's messages).
 * With doca_argp_set_dpdk_program(), arguments before "--" go to the DPDK
 * callback and the rest are the program's.
 */

#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdbool.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The type of a parameter's value, as the callback receives it: STRING a
 * char *, INT a pointer to int, BOOLEAN a pointer to bool (no value on the
 * command line: its presence means true). */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	DOCA_ARGP_TYPE_JSON_OBJ,
};

struct doca_argp_param;

/* @p param: the value (see enum doca_argp_type); @p config: the pointer
 * given to doca_argp_init(). */
typedef doca_error_t (*doca_argp_param_cb_t)(void *param, void *config);
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
typedef doca_error_t (*doca_argp_validation_cb_t)(void *config);

DOCA_EXPERIMENTAL
doca_error_t doca_argp_init(const char *program_name, void *program_config);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_param_create(struct doca_argp_param **param);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);
/* "p" for -p; "pci-addr" for --pci-addr. */
DOCA_EXPERIMENTAL
void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL
void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
/* How the value is shown in the usage, e.g. "<PCI-ADDRESS>". */
DOCA_EXPERIMENTAL
void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL
void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
DOCA_EXPERIMENTAL
void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL
void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
/* Kept for compatibility; the value is not used (set defaults in the
 * configuration before doca_argp_start()). */
DOCA_EXPERIMENTAL
void doca_argp_param_set_default_value(struct doca_argp_param *param, void *default_value);
DOCA_EXPERIMENTAL
void doca_argp_param_set_mandatory(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_cli_only(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
/* The parser owns @p input_param from here on. DOCA_ERROR_INVALID_VALUE:
 * no name, no callback, no type, or a name already taken. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);
DOCA_EXPERIMENTAL
void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);
/* Parse. DOCA_ERROR_INVALID_VALUE: an unknown option, a missing or bad
 * value, a missing mandatory parameter (said on stderr with the usage);
 * or the error a callback returned. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_start(int argc, char **argv);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_destroy(void);
/* Print the usage to stdout. */
DOCA_EXPERIMENTAL
void doca_argp_usage(void);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_get_log_level(int *log_level);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
