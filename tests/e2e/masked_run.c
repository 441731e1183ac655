/*
 * masked_run.c - run an instrumented WASI program with every probe site
 * disarmed or armed, for the rewriter's tests and benchmark.
 *
 *   masked_run [--mask 0|1] FILE.wasm [ARGS...]
 *
 * `heisen run` cannot arm masks until the detector exists, so this is the
 * smallest host that can run the rewriter's output: WASI as `heisen run`
 * has it (wasi_load, wasi_run), with a resolver in front that provides
 *   heisen.mask   a shared memory of the import's declared limits, filled
 *                 with the --mask byte (0: every site disarmed, only the
 *                 mask check runs; 1: every site calls the probe)
 *   heisen.probe  (i32, i32) -> (), doing nothing
 * One mask and one probe per run, handed to every instance of the run
 * (the wasi-threads instances too), as the detector will.
 *
 * A module without heisen imports runs as under `heisen run`, so the
 * benchmark times original and instrumented kernels through the same host.
 *
 * Exit status: the program's (& 0xff), 3 on a trap or limit (message on
 * stderr, as `heisen run` prints it), 2 when the program cannot start.
 */
#include "core/wasi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct masks {
	int byte; /* what every mask byte is set to */
	pthread_mutex_t lock;
	eng_proc *proc; /* the current run's */
	eng_memory *mask;
	eng_func *probe;
} masks;

static eng_trap_kind probe_nop(eng_thread *t, void *ctx, const eng_val *args,
			       eng_val *results, eng_trap *trap)
{
	return ENG_OK;
}

static void on_proc(void *ctx, eng_proc *p)
{
	masks *m = ctx;
	/* The previous run's objects belonged to its proc, freed with it. */
	m->proc = p;
	m->mask = NULL;
	m->probe = NULL;
}

static bool is_name(const wasm_str *n, const char *s)
{
	return n->len == strlen(s) && memcmp(n->p, s, n->len) == 0;
}

/* Thread instances resolve the same imports again: they get the objects
 * the first instance got, created once under the lock. */
static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out)
{
	masks *m = ctx;
	bool ok = false;
	if (!is_name(&imp->module, "heisen"))
		return false;
	pthread_mutex_lock(&m->lock);
	if (is_name(&imp->name, "mask") && imp->kind == WASM_EXTERN_MEMORY) {
		if (!m->mask) {
			wasm_err err;
			wasm_err_clear(&err);
			m->mask = eng_memory_new(m->proc, &imp->u.memory, &err);
			if (m->mask)
				memset(eng_memory_data(m->mask), m->byte,
				       (size_t)eng_memory_size(m->mask));
		}
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = m->mask;
		ok = m->mask != NULL;
	} else if (is_name(&imp->name, "probe") &&
		   imp->kind == WASM_EXTERN_FUNC) {
		if (!m->probe) {
			static uint8_t types[2] = {WASM_I32, WASM_I32};
			static const wasm_functype ft = {2, 0, types};
			m->probe = eng_host_func_new(m->proc, &ft, probe_nop,
						     NULL, "heisen.probe");
		}
		out->kind = WASM_EXTERN_FUNC;
		out->u.func = m->probe;
		ok = m->probe != NULL;
	}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

int main(int argc, char **argv)
{
	masks m = {.byte = 0};
	int first = 1;
	if (argc > 2 && !strcmp(argv[1], "--mask")) {
		if (strcmp(argv[2], "0") != 0 && strcmp(argv[2], "1") != 0) {
			fprintf(stderr, "masked_run: --mask takes 0 or 1\n");
			return 2;
		}
		m.byte = argv[2][0] - '0';
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr,
			"usage: masked_run [--mask 0|1] FILE.wasm [ARGS...]\n");
		return 2;
	}
	pthread_mutex_init(&m.lock, NULL);
	const char *path = argv[first];
	char line[600];
	wasm_err err;
	eng_module *cm = NULL;
	wasm_err_clear(&err);
	if (wasi_load(path, &cm, &err) != WASM_OK) {
		wasm_err_format(&err, path, line, sizeof line);
		fprintf(stderr, "masked_run: %s\n", line);
		return 2;
	}
	wasi_config cfg;
	wasi_config_init(&cfg);
	cfg.argv = (const char *const *)argv + first;
	cfg.argc = (uint32_t)(argc - first);
	cfg.resolve = resolve;
	cfg.resolve_ctx = &m;
	cfg.on_proc = on_proc;
	cfg.hook_ctx = &m;
	eng_trap trap;
	int code = 0, rc;
	fflush(stdout);
	if (wasi_run(cm, &cfg, &trap, &code, &err) != WASM_OK) {
		wasm_err_format(&err, path, line, sizeof line);
		fprintf(stderr, "masked_run: %s\n", line);
		rc = 2;
	} else if (trap.kind == ENG_EXIT) {
		rc = code & 0xff;
	} else {
		fprintf(stderr, "masked_run: trap: %s\n",
			trap.msg[0] ? trap.msg : eng_trap_name(trap.kind));
		rc = 3;
	}
	eng_module_free(cm);
	pthread_mutex_destroy(&m.lock);
	return rc;
}
