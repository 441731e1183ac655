/*
 * spectest.c - the spec suite's "spectest" host module (spectest.h).
 */
#include "tests/spec/spectest.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The print functions: name and parameter types (no results). */
static const struct {
	const char *name;
	uint32_t nparams;
	uint8_t params[2];
} prints[] = {
    {"print", 0, {0}},
    {"print_i32", 1, {WASM_I32}},
    {"print_i64", 1, {WASM_I64}},
    {"print_f32", 1, {WASM_F32}},
    {"print_f64", 1, {WASM_F64}},
    {"print_i32_f32", 2, {WASM_I32, WASM_F32}},
    {"print_f64_f64", 2, {WASM_F64, WASM_F64}},
};
#define NPRINTS (sizeof prints / sizeof *prints)

enum { G_I32, G_I64, G_F32, G_F64, NGLOBALS };
static const char *const global_names[NGLOBALS] = {"global_i32", "global_i64",
						   "global_f32", "global_f64"};

typedef struct print_ctx {
	spectest *s;
	size_t i; /* index in prints[] */
} print_ctx;

struct spectest {
	eng_proc *proc;
	FILE *log;
	eng_func *funcs[NPRINTS];
	print_ctx ctx[NPRINTS]; /* what each print function is called with */
	eng_global *globals[NGLOBALS];
	eng_table *table;
	eng_memory *memory, *shared_memory;
};

spectest *spectest_new(eng_proc *p, FILE *log)
{
	spectest *s = calloc(1, sizeof *s);
	if (s) {
		s->proc = p;
		s->log = log;
		for (size_t i = 0; i < NPRINTS; i++)
			s->ctx[i] = (print_ctx){s, i};
	}
	return s;
}

void spectest_free(spectest *s)
{
	free(s); /* the objects belong to the proc */
}

static eng_trap_kind print_fn(eng_thread *t, void *ctx, const eng_val *args,
			      eng_val *results, eng_trap *trap)
{
	const print_ctx *pc = ctx;
	spectest *s = pc->s;
	size_t i = pc->i;
	if (!s->log)
		return ENG_OK;
	fprintf(s->log, "%s:", prints[i].name);
	for (uint32_t k = 0; k < prints[i].nparams; k++) {
		uint64_t v = args[k];
		float f;
		double d;
		uint32_t b32 = (uint32_t)v;
		switch (prints[i].params[k]) {
		case WASM_I32:
			fprintf(s->log, " %" PRId32, (int32_t)b32);
			break;
		case WASM_I64: fprintf(s->log, " %" PRId64, (int64_t)v); break;
		case WASM_F32:
			memcpy(&f, &b32, sizeof f);
			fprintf(s->log, " %.9g", (double)f);
			break;
		default:
			memcpy(&d, &v, sizeof d);
			fprintf(s->log, " %.17g", d);
			break;
		}
	}
	fprintf(s->log, "\n");
	return ENG_OK;
}

static eng_global *make_global(eng_proc *p, int which)
{
	float f = 666.6f;
	double d = 666.6;
	uint32_t b32;
	uint64_t b64;
	wasm_globaltype gt = {.mut = false};
	eng_val v = 0;
	switch (which) {
	case G_I32:
		gt.type = WASM_I32;
		v = 666;
		break;
	case G_I64:
		gt.type = WASM_I64;
		v = 666;
		break;
	case G_F32:
		gt.type = WASM_F32;
		memcpy(&b32, &f, sizeof b32);
		v = b32;
		break;
	default:
		gt.type = WASM_F64;
		memcpy(&b64, &d, sizeof b64);
		v = b64;
		break;
	}
	return eng_global_new(p, gt, &v);
}

bool spectest_lookup(spectest *s, const char *name, size_t len, eng_extern *out,
		     wasm_err *err)
{
	wasm_err scratch;
	if (!err)
		err = &scratch;
	/* Names are compared as C strings; one with a NUL is unknown. */
	if (memchr(name, '\0', len))
		return false;
#define IS(lit) (len == sizeof lit - 1 && memcmp(name, lit, len) == 0)
	for (size_t i = 0; i < NPRINTS; i++) {
		if (strlen(prints[i].name) != len ||
		    memcmp(prints[i].name, name, len) != 0)
			continue;
		if (!s->funcs[i]) {
			uint8_t types[2];
			memcpy(types, prints[i].params, sizeof types);
			wasm_functype ft = {.nparams = prints[i].nparams,
					    .nresults = 0,
					    .types = types};
			s->funcs[i] = eng_host_func_new(
			    s->proc, &ft, print_fn, &s->ctx[i], prints[i].name);
			if (!s->funcs[i]) {
				wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					     "spectest.%s: cannot create",
					     prints[i].name);
				return false;
			}
		}
		out->kind = WASM_EXTERN_FUNC;
		out->u.func = s->funcs[i];
		return true;
	}
	for (int i = 0; i < NGLOBALS; i++) {
		if (strlen(global_names[i]) != len ||
		    memcmp(global_names[i], name, len) != 0)
			continue;
		if (!s->globals[i])
			s->globals[i] = make_global(s->proc, i);
		if (!s->globals[i]) {
			wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				     "spectest.%s: cannot create",
				     global_names[i]);
			return false;
		}
		out->kind = WASM_EXTERN_GLOBAL;
		out->u.global = s->globals[i];
		return true;
	}
	if (IS("table")) {
		if (!s->table) {
			wasm_tabletype tt = {
			    .elem = WASM_FUNCREF,
			    .lim = {.min = 10, .max = 20, .has_max = true},
			};
			s->table = eng_table_new(s->proc, &tt, err);
			if (!s->table)
				return false;
		}
		out->kind = WASM_EXTERN_TABLE;
		out->u.table = s->table;
		return true;
	}
	if (IS("memory") || IS("shared_memory")) {
		bool shared = IS("shared_memory");
		eng_memory **slot = shared ? &s->shared_memory : &s->memory;
		if (!*slot) {
			wasm_limits lim = {.min = 1,
					   .max = 2,
					   .has_max = true,
					   .shared = shared};
			*slot = eng_memory_new(s->proc, &lim, err);
			if (!*slot)
				return false;
		}
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = *slot;
		return true;
	}
#undef IS
	return false;
}
