/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * doca_argp: the command-line parser the vendor's samples use. Parameters
 * are registered with a short and/or long name, a type and a callback;
 * doca_argp_start() walks argv ("-p X", "--pci-addr X", "--pci-addr=X")
 * and calls each callback with the value and the program's configuration.
 */

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>

#include "dc_priv.h"

#define ARGP_MAX_PARAMS 128

struct doca_argp_param {
	char *short_name;
	char *long_name;
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool multiplicity;
	bool seen;
};

static struct {
	char *program;
	void *config;
	struct doca_argp_param *params[ARGP_MAX_PARAMS];
	int nb_params;
	doca_argp_param_cb_t version_cb;
	doca_argp_validation_cb_t validation_cb;
	doca_argp_dpdk_cb_t dpdk_cb;
	int log_level;
	int sdk_log_level;
	bool initialized;
} argp;

static char *
argp_strdup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

static void
argp_param_free(struct doca_argp_param *p)
{
	if (p == NULL)
		return;
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

DC_EXPORT doca_error_t
doca_argp_init(const char *program_name, void *program_config)
{
	if (program_name == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (argp.initialized)
		doca_argp_destroy();
	memset(&argp, 0, sizeof(argp));
	argp.program = strdup(program_name);
	argp.config = program_config;
	argp.log_level = (int)doca_log_level_get_global_lower_limit();
	argp.sdk_log_level = (int)doca_log_level_get_global_sdk_limit();
	argp.initialized = argp.program != NULL;
	return argp.initialized ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

DC_EXPORT doca_error_t
doca_argp_param_create(struct doca_argp_param **param)
{
	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*param = calloc(1, sizeof(**param));
	return *param != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

DC_EXPORT doca_error_t
doca_argp_param_destroy(struct doca_argp_param *param)
{
	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	argp_param_free(param);
	return DOCA_SUCCESS;
}

#define ARGP_SET_STR(fn, field) \
	DC_EXPORT void fn(struct doca_argp_param *param, const char *value) \
	{ \
		if (param == NULL) \
			return; \
		free(param->field); \
		param->field = argp_strdup(value); \
	}

ARGP_SET_STR(doca_argp_param_set_short_name, short_name)
ARGP_SET_STR(doca_argp_param_set_long_name, long_name)
ARGP_SET_STR(doca_argp_param_set_arguments, arguments)
ARGP_SET_STR(doca_argp_param_set_description, description)

DC_EXPORT void
doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	if (param != NULL)
		param->callback = callback;
}

DC_EXPORT void
doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	if (param != NULL)
		param->type = type;
}

DC_EXPORT void
doca_argp_param_set_default_value(struct doca_argp_param *param, void *default_value)
{
	(void)param;
	(void)default_value;
}

DC_EXPORT void
doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
	if (param != NULL)
		param->mandatory = true;
}

DC_EXPORT void
doca_argp_param_set_cli_only(struct doca_argp_param *param)
{
	(void)param;   /* no JSON configuration here: every parameter is */
}

DC_EXPORT void
doca_argp_param_set_multiplicity(struct doca_argp_param *param)
{
	if (param != NULL)
		param->multiplicity = true;
}

static struct doca_argp_param *
argp_find(const char *name, bool is_long)
{
	int i;

	for (i = 0; i < argp.nb_params; i++) {
		const char *n = is_long ? argp.params[i]->long_name : argp.params[i]->short_name;

		if (n != NULL && strcmp(n, name) == 0)
			return argp.params[i];
	}
	return NULL;
}

static bool
argp_builtin(const char *name, bool is_long)
{
	static const char *const shorts[] = { "h", "v", "l" };
	static const char *const longs[] = { "help", "version", "log-level", "sdk-log-level", "json" };
	size_t i;

	if (is_long) {
		for (i = 0; i < RTE_DIM(longs); i++)
			if (strcmp(name, longs[i]) == 0)
				return true;
	} else {
		for (i = 0; i < RTE_DIM(shorts); i++)
			if (strcmp(name, shorts[i]) == 0)
				return true;
	}
	return false;
}

DC_EXPORT doca_error_t
doca_argp_register_param(struct doca_argp_param *input_param)
{
	struct doca_argp_param *p = input_param;

	if (p == NULL || !argp.initialized)
		return DOCA_ERROR_INVALID_VALUE;
	if ((p->short_name == NULL && p->long_name == NULL) || p->callback == NULL ||
	    p->type == DOCA_ARGP_TYPE_UNKNOWN || p->type == DOCA_ARGP_TYPE_JSON_OBJ) {
		DC_ERR("argp: parameter %s: a name, a callback and a type (string, int or boolean) are needed",
		       p->long_name != NULL ? p->long_name : p->short_name != NULL ? p->short_name : "?");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((p->short_name != NULL && (argp_find(p->short_name, false) || argp_builtin(p->short_name, false))) ||
	    (p->long_name != NULL && (argp_find(p->long_name, true) || argp_builtin(p->long_name, true)))) {
		DC_ERR("argp: parameter -%s/--%s: the name is taken", p->short_name ? p->short_name : "",
		       p->long_name ? p->long_name : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (argp.nb_params == ARGP_MAX_PARAMS)
		return DOCA_ERROR_FULL;
	argp.params[argp.nb_params++] = p;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	argp.version_cb = callback;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	argp.validation_cb = callback;
	return DOCA_SUCCESS;
}

DC_EXPORT void
doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	argp.dpdk_cb = callback;
}

static const char *
argp_type_arg(const struct doca_argp_param *p)
{
	if (p->arguments != NULL)
		return p->arguments;
	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING: return "<str>";
	case DOCA_ARGP_TYPE_INT: return "<num>";
	default: return "";
	}
}

static void
argp_usage_line(FILE *out, const char *sname, const char *lname, const char *arg, const char *descr)
{
	char names[128];

	snprintf(names, sizeof(names), "%s%s%s%s%s%s%s", sname != NULL ? "-" : "", sname != NULL ? sname : "",
		 sname != NULL && lname != NULL ? ", " : "", lname != NULL ? "--" : "", lname != NULL ? lname : "",
		 arg[0] != '\0' ? " " : "", arg);
	fprintf(out, "  %-36s %s\n", names, descr != NULL ? descr : "");
}

static void
argp_usage_to(FILE *out)
{
	int i;

	fprintf(out, "Usage: %s%s [Program Flags]\n\n", argp.program != NULL ? argp.program : "program",
		argp.dpdk_cb != NULL ? " [DPDK Flags] --" : "");
	fprintf(out, "General flags:\n");
	argp_usage_line(out, "h", "help", "", "Print a help synopsis");
	argp_usage_line(out, "v", "version", "", "Print program version information");
	argp_usage_line(out, "l", "log-level", "<value>",
			"Set the (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>");
	argp_usage_line(out, NULL, "sdk-log-level", "<value>",
			"Set the SDK (numeric) log level for the program (same values)");
	if (argp.nb_params > 0)
		fprintf(out, "\nProgram flags:\n");
	for (i = 0; i < argp.nb_params; i++) {
		const struct doca_argp_param *p = argp.params[i];
		char descr[512];

		snprintf(descr, sizeof(descr), "%s%s", p->description != NULL ? p->description : "",
			 p->mandatory ? " (mandatory)" : "");
		argp_usage_line(out, p->short_name, p->long_name, argp_type_arg(p), descr);
	}
}

DC_EXPORT void
doca_argp_usage(void)
{
	argp_usage_to(stdout);
}

static doca_error_t __attribute__((format(printf, 1, 2)))
argp_bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", argp.program != NULL ? argp.program : "program");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n");
	argp_usage_to(stderr);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t
argp_int(const char *opt, const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX)
		return argp_bad("%s: not an integer: \"%s\"", opt, s);
	*out = (int)v;
	return DOCA_SUCCESS;
}

static doca_error_t
argp_level(const char *opt, const char *s, bool sdk)
{
	doca_error_t ret;
	int v;

	ret = argp_int(opt, s, &v);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (v < DOCA_LOG_LEVEL_DISABLE || v > DOCA_LOG_LEVEL_TRACE)
		return argp_bad("%s: \"%s\": expected 10 to 70", opt, s);
	if (sdk) {
		argp.sdk_log_level = v;
		doca_log_level_set_global_sdk_limit((uint32_t)v);
	} else {
		argp.log_level = v;
		doca_log_level_set_global_lower_limit((uint32_t)v);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
argp_apply(struct doca_argp_param *p, const char *opt, const char *value)
{
	doca_error_t ret;
	bool b = true;
	int v;

	if (p->seen && !p->multiplicity)
		return argp_bad("%s: given twice", opt);
	p->seen = true;
	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		return p->callback((void *)(uintptr_t)value, argp.config);
	case DOCA_ARGP_TYPE_INT:
		ret = argp_int(opt, value, &v);
		return ret != DOCA_SUCCESS ? ret : p->callback(&v, argp.config);
	case DOCA_ARGP_TYPE_BOOLEAN:
		return p->callback(&b, argp.config);
	default:
		return DOCA_ERROR_NOT_SUPPORTED;
	}
}

DC_EXPORT doca_error_t
doca_argp_start(int argc, char **argv)
{
	doca_error_t ret;
	int i, first = 1;

	if (!argp.initialized)
		return DOCA_ERROR_BAD_STATE;
	if (argp.dpdk_cb != NULL) {
		/* DPDK's arguments up to "--", the program's after. */
		for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
			;
		ret = argp.dpdk_cb(i, argv);
		if (ret != DOCA_SUCCESS)
			return ret;
		first = i < argc ? i + 1 : argc;
	}
	for (i = first; i < argc; i++) {
		const char *a = argv[i];
		char name[128];
		const char *value = NULL, *eq;
		struct doca_argp_param *p;
		bool is_long;

		if (a[0] != '-' || a[1] == '\0')
			return argp_bad("unexpected argument \"%s\"", a);
		is_long = a[1] == '-';
		snprintf(name, sizeof(name), "%s", a + (is_long ? 2 : 1));
		eq = is_long ? strchr(a, '=') : NULL;
		if (eq != NULL) {
			name[eq - a - 2] = '\0';
			value = eq + 1;
		}
		if ((!is_long && strcmp(name, "h") == 0) || (is_long && strcmp(name, "help") == 0)) {
			doca_argp_usage();
			exit(EXIT_SUCCESS);
		}
		if ((!is_long && strcmp(name, "v") == 0) || (is_long && strcmp(name, "version") == 0)) {
			if (argp.version_cb != NULL)
				argp.version_cb(NULL, argp.config);
			else
				printf("%s: DOCA API compatibility layer of Comch on DPDK\n", argp.program);
			exit(EXIT_SUCCESS);
		}
		if ((!is_long && strcmp(name, "l") == 0) || (is_long && strcmp(name, "log-level") == 0) ||
		    (is_long && strcmp(name, "sdk-log-level") == 0)) {
			bool sdk = strcmp(name, "sdk-log-level") == 0;

			if (value == NULL) {
				if (i + 1 >= argc)
					return argp_bad("%s: a value is expected", a);
				value = argv[++i];
			}
			ret = argp_level(a, value, sdk);
			if (ret != DOCA_SUCCESS)
				return ret;
			continue;
		}
		if (is_long && strcmp(name, "json") == 0)
			return argp_bad("%s: JSON configuration files are not supported by this layer", a);
		p = argp_find(name, is_long);
		if (p == NULL)
			return argp_bad("unknown option \"%s\"", a);
		if (p->type != DOCA_ARGP_TYPE_BOOLEAN && value == NULL) {
			if (i + 1 >= argc)
				return argp_bad("%s: a value is expected", a);
			value = argv[++i];
		}
		ret = argp_apply(p, a, value);
		if (ret != DOCA_SUCCESS) {
			fprintf(stderr, "%s: %s: %s\n", argp.program, a, doca_error_get_descr(ret));
			return ret;
		}
	}
	for (i = 0; i < argp.nb_params; i++) {
		const struct doca_argp_param *p = argp.params[i];

		if (p->mandatory && !p->seen)
			return argp_bad("missing mandatory option %s%s", p->long_name ? "--" : "-",
					p->long_name ? p->long_name : p->short_name);
	}
	if (argp.validation_cb != NULL)
		return argp.validation_cb(argp.config);
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_argp_destroy(void)
{
	int i;

	for (i = 0; i < argp.nb_params; i++)
		argp_param_free(argp.params[i]);
	free(argp.program);
	memset(&argp, 0, sizeof(argp));
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_argp_get_log_level(int *log_level)
{
	if (log_level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*log_level = argp.log_level;
	return DOCA_SUCCESS;
}

DC_EXPORT doca_error_t
doca_argp_get_sdk_log_level(int *log_level)
{
	if (log_level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*log_level = argp.sdk_log_level;
	return DOCA_SUCCESS;
}
