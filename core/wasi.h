/*
 * wasi.h - WASI preview1 and wasi-threads host for command modules: what
 * `heisen run` uses, and what the detector will use to run a program
 * thousands of times with its own imports (heisen.probe, heisen.mask)
 * chained in front.
 *
 * How a run works:
 *   wasi_load()   reads, decodes, validates and compiles a module once and
 *                 checks it is a WASI command (exports _start; if it
 *                 imports wasi.thread-spawn, also exports
 *                 wasi_thread_start and imports a shared env.memory).
 *   wasi_run()    runs a compiled module once: a new eng_proc with the
 *                 config's limits, a fresh file descriptor table (stdio,
 *                 then one preopen per granted directory from fd 3), the
 *                 imported env.memory created once from its declared
 *                 limits, the module instantiated on the calling thread
 *                 and _start called. Each wasi.thread-spawn instantiates
 *                 the same compiled module again on a new OS thread (same
 *                 resolvers, same env.memory) and calls
 *                 wasi_thread_start(tid, arg). Nothing is compiled again.
 *
 * How a run ends (the first of these wins and is what wasi_run reports):
 *   - _start returns: exit code 0, even if other threads still run (they
 *     are stopped and joined first);
 *   - proc_exit(code) on any thread: exit with that code;
 *   With exit_grace_s > 0 the first two wait first, up to that long, for
 *   the other spawned threads to end: a thread spawned just before the
 *   end gets to run its start routine, as a native thread, whose start
 *   costs a clone rather than an instantiation, usually has. A thread
 *   that traps in the meantime makes the run that trap.
 *   - a trap on any thread ends the whole program with that trap;
 *   - the wall-clock timeout (ENG_TIMEOUT) or a resource limit (ENG_LIMIT).
 *
 * Sandbox: the guest reaches only the fds it was given. Paths are resolved
 * one component at a time with openat(O_NOFOLLOW) beneath a directory fd:
 * absolute paths, `..` above that directory and symlinks leading outside
 * it fail with ENOTCAPABLE and never reach the host's file system. Every
 * guest pointer and length is checked against the size of the calling
 * instance's memory 0; a bad one returns EFAULT. Functions this host does
 * not implement (sockets, proc_raise…) link and return ENOSYS.
 *
 * Hints: a function import of module WASI_HINT_MODULE with no results
 * that the embedder's resolver does not provide links to a function that
 * does nothing. A program tells a watching host what only it knows
 * through them (heisen's guest library: heap blocks and thread stacks,
 * for the detector's race reports) and still runs where nobody watches.
 * `heisen.hint.stack (lo, hi) -> ()` is also the engine's: it checks the
 * thread's stack pointer against [lo, hi) (eng_thread_set_c_stack).
 *
 * Thread exit: `heisen.thread.exit () -> ()` ends the calling spawned
 * thread at once, as if its wasi_thread_start had returned: the engine
 * unwinds its frames (ENG_THREAD_EXIT), its OS thread ends and its slot
 * counts against max_threads no more. wasi_thread_start can return only
 * from its own frame, and C's pthread_exit is called deep below it. Called
 * on the main thread it traps (a program ends with proc_exit); called
 * from a module's start function while a spawned thread instantiates
 * it, that thread ends.
 *
 * wasi-threads thread-spawn returns the new thread id (> 0), or -6
 * (-EAGAIN in WASI's numbering, what wasi-libc's pthread_create expects)
 * when the thread limit is reached or the OS refuses a thread.
 */
#ifndef HEISEN_CORE_WASI_H
#define HEISEN_CORE_WASI_H

#include "engine.h"

#define WASI_HINT_MODULE "heisen.hint"
#define WASI_THREAD_MODULE "heisen.thread"

/* A directory granted to the guest: `host` is opened when the run starts;
 * the guest sees it as the preopened directory `guest` (what wasi-libc
 * matches absolute and relative paths against). */
typedef struct wasi_dir {
	const char *host;
	const char *guest;
} wasi_dir;

/* Everything one run needs. Strings are borrowed for the duration of
 * wasi_run. Initialise with wasi_config_init, then set what differs. */
typedef struct wasi_config {
	const char *const *argv; /* argc strings; argv[0] = program name */
	uint32_t argc;
	const char *const *env; /* nenv "KEY=VALUE" strings; the host's own
				   environment is not passed on */
	uint32_t nenv;
	const wasi_dir *dirs; /* ndirs grants, preopened as fd 3, 4… */
	uint32_t ndirs;
	int stdio[3];	   /* host fds behind guest fds 0, 1, 2
			      (default 0, 1, 2; -1 = not open). Never
			      closed by the host. */
	eng_limits limits; /* threads, memory, timeout… (0 = default) */
	/* Runs whose proc is serial (on_proc set a scheduler): the seed of
	 * what random_get returns. Ignored otherwise. */
	uint64_t serial_seed;
	/* When _start returns or proc_exit is called while spawned threads
	 * are alive, wait up to this long (seconds) for them to end before
	 * the program ends; 0 ends it at once. See "How a run ends". */
	double exit_grace_s;

	/* Imports the embedder provides (heisen.probe, heisen.mask…),
	 * consulted before WASI's own for every instance of the run, thread
	 * instances included. NULL for none. */
	eng_resolver resolve;
	void *resolve_ctx;
	/* Called once per run with the new proc before anything is
	 * instantiated: the place to attach host data (eng_proc_set_host,
	 * which WASI leaves free), create the memories the resolver hands
	 * out, or keep the proc to stop it from a watchdog. NULL for none. */
	void (*on_proc)(void *hook_ctx, eng_proc *p);
	/* thread-spawn: on_spawn runs on the spawning thread before the new
	 * one exists and returns a token; on_start runs on the new thread
	 * with it, before its instance is made (child NULL: the spawn
	 * failed, only the token is handed back). For a detector that must
	 * know what the parent had done when it spawned. NULL for none. */
	void *(*on_spawn)(void *hook_ctx, eng_thread *parent);
	void (*on_start)(void *hook_ctx, eng_thread *child, void *token);
	/* A spawned thread has returned, on that thread: what the detector
	 * kept for it can go. NULL for none. */
	void (*on_end)(void *hook_ctx, eng_thread *t);
	/* The run is over (every thread joined), before its proc goes: what
	 * the proc knows of the run can be read. NULL for none. */
	void (*on_done)(void *hook_ctx, eng_proc *p);
	void *hook_ctx;
} wasi_config;

/* A program's world beyond its arguments and stdin (`--dir`, `--env`,
 * `--max-threads`, `--max-memory`) in the packed form campaigns, repro
 * files and export streams keep: dirs holds ndirs pairs of NUL-terminated
 * strings, the host directory then the guest's name for it; env holds
 * nenv NUL-terminated "NAME=VALUE" strings; a limit of 0 is the engine's
 * default. Zero-initialised it is the empty world. Owns its strings
 * (wasi_world_clear). */
typedef struct wasi_world {
	char *dirs;
	uint32_t ndirs;
	char *env;
	uint32_t nenv;
	uint32_t max_threads;	   /* 0: the engine's default */
	uint32_t max_memory_pages; /* 0: the engine's default */
} wasi_world;

/* Grant "HOST" or "HOST::GUEST" (the guest name is HOST as written when
 * none is given); host, when not NULL, replaces the HOST part on the
 * host side (a campaign keeps it made absolute). WASM_INVALID with what
 * is expected for a malformed spec; WASM_NOMEM. */
wasm_status wasi_world_add_dir(wasi_world *w, const char *spec,
			       const char *host, wasm_err *err);
/* Add "NAME=VALUE" to the environment; WASM_INVALID for anything else
 * (no '=', or an empty NAME); WASM_NOMEM. */
wasm_status wasi_world_add_env(wasi_world *w, const char *kv, wasm_err *err);
/* Take n packed strings from p (len bytes, as a database row or a stream
 * holds them) as dirs (pairs: n must be even) or env; false when they
 * are not n NUL-terminated strings filling len exactly, or when out of
 * memory (*oom). */
bool wasi_world_set_dirs(wasi_world *w, const void *p, size_t len, bool *oom);
bool wasi_world_set_env(wasi_world *w, const void *p, size_t len, bool *oom);
/* Bytes of the packed dirs and env. */
size_t wasi_world_dirs_len(const wasi_world *w);
size_t wasi_world_env_len(const wasi_world *w);
/* dst = a copy of src (dst's old strings are not freed). WASM_NOMEM. */
wasm_status wasi_world_copy(wasi_world *dst, const wasi_world *src,
			    wasm_err *err);
/* Whether w differs from the empty world. */
bool wasi_world_given(const wasi_world *w);
/* Point cfg's directories, environment and limits at w (limits 0 leave
 * cfg's): the arrays cfg then borrows are in *mem (wasm_free it after
 * the run), the strings are w's. WASM_NOMEM. */
wasm_status wasi_world_apply(const wasi_world *w, wasi_config *cfg, void **mem,
			     wasm_err *err);
void wasi_world_clear(wasi_world *w);

/* Defaults: no arguments, no environment, no directories, stdio 0/1/2,
 * engine default limits, no extra imports. */
void wasi_config_init(wasi_config *c);

/* Read path, decode, validate, check that it is a WASI command module
 * (see above) and compile it. On success *out owns the compiled module
 * (free with eng_module_free after its last run). Errors: WASM_IO
 * (unreadable), WASM_MALFORMED / WASM_INVALID (with the validator's
 * offset and reason, or "not a WASI command: no _start export"),
 * WASM_NOMEM, WASM_LIMIT. */
wasm_status wasi_load(const char *path, eng_module **out, wasm_err *err);

/* The command-module check of wasi_load, for a module decoded and
 * validated by the caller. */
wasm_status wasi_check_command(const wasm_module *m, wasm_err *err);

/* Run cm once with cfg. Safe to call again, also concurrently, on the
 * same compiled module.
 *
 * Returns WASM_OK when the program ran; then *trap says how it ended:
 * ENG_EXIT with *exit_code the program's exit status (0 when _start
 * returned), or a trap / ENG_TIMEOUT / ENG_LIMIT / ENG_STOPPED with its
 * message in trap->msg and *exit_code = -1. A trap during instantiation
 * (start function, segment initialisation) is reported the same way; a
 * memory limit met while instantiating (a memory larger than
 * limits.max_memory_pages) is ENG_LIMIT.
 *
 * Returns a host error when the program could not be started: WASM_IO (a
 * granted directory cannot be opened), WASM_INVALID (an import nobody
 * provides, an incompatible import type, no _start), WASM_NOMEM. */
wasm_status wasi_run(eng_module *cm, const wasi_config *cfg, eng_trap *trap,
		     int *exit_code, wasm_err *err);

#endif
