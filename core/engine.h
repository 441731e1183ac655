/*
 * engine.h - heisen's WebAssembly engine: compile a validated module once,
 * instantiate it many times, run it on real threads.
 *
 * Objects and ownership:
 *   eng_module    a compiled module. Immutable once built, shared by every
 *                 instance and thread; owns the wasm_module given to
 *                 eng_compile. Freed with eng_module_free after its last
 *                 instance.
 *   eng_proc      one run of a program: its limits, stop flag, exit status
 *                 and first trap, and its threads. Everything a run creates
 *                 (instances, memories, tables, globals, host functions,
 *                 threads) belongs to one proc and is freed by eng_proc_free.
 *   eng_instance  a module instance: its functions, tables, memories,
 *                 globals and segments, some of them imported.
 *   eng_thread    an execution context: a value stack and a call stack.
 *                 Used by one OS thread at a time.
 *   eng_memory / eng_table / eng_global / eng_func
 *                 runtime objects; importable and exportable.
 *
 * Errors: instantiation problems (unresolved import, incompatible import
 * type) are host errors in a wasm_err, with an actionable message. Anything
 * the guest does wrong at run time is a trap (eng_trap), naming the trap,
 * the function (name-section name when present) and the code offset.
 * Nothing the guest does can crash the host process: out-of-bounds memory
 * accesses fault in guard pages and become traps, stack depth is bounded,
 * and every limit ends the run with a clear status.
 *
 * Threads: every atomic uses the host's atomic instructions on linear
 * memory (no global lock). eng_proc_stop() asks every thread of a proc to
 * stop; running code polls the request at loop back-edges and calls, and
 * threads blocked in memory.atomic.wait wake up.
 */
#ifndef HEISEN_CORE_ENGINE_H
#define HEISEN_CORE_ENGINE_H

#include "wasm.h"

typedef struct eng_module eng_module;
typedef struct eng_proc eng_proc;
typedef struct eng_instance eng_instance;
typedef struct eng_thread eng_thread;
typedef struct eng_memory eng_memory;
typedef struct eng_table eng_table;
typedef struct eng_global eng_global;
typedef struct eng_func eng_func;

/* A value in a slot. i32 and f32 use the low 32 bits (f32/f64 as bit
 * patterns); a funcref is an eng_func pointer, NULL for null; an externref
 * is an opaque host value, 0 for null (so a host must not pass 0 for a
 * non-null externref).
 *
 * Slot form: a v128 takes two consecutive slots, bytes 0-7 (the low
 * lanes) first, everywhere values are passed as arrays of eng_val
 * (arguments, results, globals, the value stack). A second slot beside
 * every value would have doubled the frame of scalar code, which is all
 * of nearly every program; a v128 is rare enough to pay the pair. */
typedef uint64_t eng_val;

/* Slots a value of type t takes (2 for a v128), and a type list takes. */
static inline uint32_t eng_type_slots(uint8_t t)
{
	return t == WASM_V128 ? 2 : 1;
}
static inline uint32_t eng_slots(const uint8_t *types, uint32_t n)
{
	uint32_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += eng_type_slots(types[i]);
	return s;
}

/* Why a run, a call or an instantiation stopped. */
typedef enum eng_trap_kind {
	ENG_OK = 0,
	ENG_TRAP_UNREACHABLE,     /* "unreachable" */
	ENG_TRAP_MEMORY_OOB,      /* "out of bounds memory access" */
	ENG_TRAP_TABLE_OOB,       /* "out of bounds table access" */
	ENG_TRAP_UNDEFINED_ELEM,  /* "undefined element" */
	ENG_TRAP_UNINIT_ELEM,     /* "uninitialized element" */
	ENG_TRAP_INDIRECT_TYPE,   /* "indirect call type mismatch" */
	ENG_TRAP_DIV_ZERO,        /* "integer divide by zero" */
	ENG_TRAP_INT_OVERFLOW,    /* "integer overflow" */
	ENG_TRAP_BAD_CONVERSION,  /* "invalid conversion to integer" */
	ENG_TRAP_STACK,           /* "call stack exhausted" */
	ENG_TRAP_UNALIGNED,       /* "unaligned atomic" */
	ENG_TRAP_WAIT_UNSHARED,   /* "expected shared memory" */
	ENG_TRAP_HOST,            /* a host function failed (msg says why) */
	ENG_EXIT,                 /* proc_exit: not an error; see exit_code */
	ENG_TIMEOUT,              /* the proc's wall-clock limit passed */
	ENG_STOPPED,              /* eng_proc_stop from outside */
	ENG_LIMIT,                /* a resource limit (threads, memory) */
	/* A host function ended the calling thread normally (wasi.c's
	 * heisen.thread.exit, for pthread_exit): its eng_call unwinds as
	 * for a trap and returns this, but the proc goes on. */
	ENG_THREAD_EXIT,
	/* Serial execution: every live thread waits and none has a
	 * deadline, so nothing can ever run again (the message names the
	 * threads and what each waits on). */
	ENG_DEADLOCK,
	/* A WebAssembly exception (throw, rethrow) that no handler caught
	 * reached the function eng_call ran (exceptions do not cross host
	 * functions). The message names the throw. */
	ENG_TRAP_EXCEPTION,
} eng_trap_kind;

/* The spec's wording for a trap kind (what assert_trap compares with). */
const char *eng_trap_name(eng_trap_kind k);

typedef struct eng_trap {
	eng_trap_kind kind;
	int exit_code;       /* ENG_EXIT: the code given to proc_exit */
	uint32_t func;       /* function index where it happened, or
				WASM_NO_FUNC */
	size_t offset;       /* file offset of the instruction, or
				WASM_NO_OFFSET */
	char msg[256];       /* full message, e.g. "integer divide by zero
				in function 12 'fib' at offset 0x1a3f" */
} eng_trap;

/* Limits of one proc. Zero fields take the defaults shown. */
typedef struct eng_limits {
	uint32_t max_memory_pages; /* cap on any memory: 65536 (4 GiB) */
	uint32_t max_threads;      /* live threads at once: 64 */
	uint32_t max_call_depth;   /* wasm frames per thread: 10000 */
	uint32_t stack_slots;      /* value slots per thread: 1 << 20 */
	double timeout_s;          /* wall clock for the run; 0 = none */
	/* A slow device: every thread yields its CPU (sched_yield) once per
	 * `throttle` polls (loop back-edges and calls) while the run has
	 * more than one thread; 0 = never. Costs nothing when 0: the poll
	 * already reads the stop word. A thread whose yields take long (a
	 * loaded machine: the CPU went to another process) yields less
	 * often, down to once per 2^20 polls (engine_int.h). */
	uint32_t throttle;
} eng_limits;

/* ---- compile --------------------------------------------------------- */

/* Translate a validated module into the engine's internal form. Takes
 * ownership of m (freed with the compiled module, also on error). Errors:
 * WASM_NOMEM, WASM_LIMIT (a function too large for the internal form). */
wasm_status eng_compile(wasm_module *m, eng_module **out, wasm_err *err);

/* The module a compiled module was built from (owned by it). */
const wasm_module *eng_module_wasm(const eng_module *cm);

/* True when heisen cc built the module (its heisen.c_calls section): a
 * call through a function pointer of another type runs as on a native C
 * ABI where the types allow it, instead of trapping (docs/porting.md). */
bool eng_module_c_calls(const eng_module *cm);

/* How a compiled module's defined functions run (core/jit.h), so far: as
 * x86-64 machine code, interpreted, or not compiled yet (a function is
 * compiled on its first call, or its caller's); the machine code's size,
 * the bytes of the module's code section, and the time compiling took. */
typedef struct eng_exec_stats {
	bool jit; /* the compiler is on (HEISEN_ENGINE, x86-64) */
	uint32_t compiled, interpreted;
	uint32_t uncalled; /* never called, and not compiled with a caller */
	size_t code_bytes, wasm_bytes;
	double compile_s;
} eng_exec_stats;
void eng_module_exec_stats(const eng_module *cm, eng_exec_stats *out);

void eng_module_free(eng_module *cm);

/* ---- procs and threads ----------------------------------------------- */

/* A new proc with the given limits (NULL for defaults). Caller frees with
 * eng_proc_free, which first stops and joins every thread it still has. */
eng_proc *eng_proc_new(const eng_limits *lim);
void eng_proc_free(eng_proc *p);

/* Ask every thread of p to stop with `why` (ENG_STOPPED, ENG_EXIT, a trap
 * kind); the first request wins and is what eng_proc_status reports.
 * Safe from any thread and from a signal handler. */
void eng_proc_stop(eng_proc *p, const eng_trap *why);

/* The first stop request or trap of the proc (ENG_OK if none). */
void eng_proc_status(eng_proc *p, eng_trap *out);

/* An execution context for the calling OS thread. Belongs to p. */
eng_thread *eng_thread_new(eng_proc *p, wasm_err *err);
/* Thread ids: 0 for the first thread of a proc, then as assigned. */
uint32_t eng_thread_id(const eng_thread *t);
eng_proc *eng_thread_proc(const eng_thread *t);
/* Inside a host function: the instance whose code made the call (WASI
 * reads and writes that instance's memory 0). NULL outside a call. */
eng_instance *eng_thread_instance(const eng_thread *t);

/* Where thread t is in the guest, from inside a host function the guest
 * called (a probe): one entry per Wasm frame, innermost first, each the
 * function (module index space) and the module offset of the instruction
 * the frame is at: the call to the host function, then the call each
 * caller made. Stops at the frame that entered from the host (eng_call)
 * or after max entries; returns how many were written, 0 when t is not
 * in a host call. */
typedef struct eng_where {
	uint32_t func;
	uint32_t offset;
} eng_where;
uint32_t eng_thread_backtrace(const eng_thread *t, eng_where *out,
			      uint32_t max);
/* The same walk without naming anything: the return address of each
 * caller frame, innermost first (not the current instruction), at most
 * max, compared with ips[0..*n) and written over it where it differs
 * (*n then the new count). Returns whether it differed. Two equal lists
 * are the same callers; cheap enough for every probe call. An empty list
 * when t is not in a host call. */
bool eng_thread_callers_changed(const eng_thread *t, const void **ips,
				uint32_t *n, uint32_t max);

/* Where each thread was when its proc was asked to stop (a timeout, a
 * trap in another thread, proc_exit, eng_proc_stop): for each thread
 * that was in guest code then, its id and its innermost frames, as
 * eng_thread_backtrace gives them (at most ENG_STOP_FRAMES; truncated
 * says there were more), kept by the thread as it leaves the
 * interpreter: the cost is on the stop path only. A thread blocked in a
 * host function or an atomic wait is kept at that call. *out is valid
 * until eng_proc_free; returns how many, in the order the threads
 * stopped (at most ENG_STOP_THREADS). */
#define ENG_STOP_FRAMES	 16
#define ENG_STOP_THREADS 64
typedef struct eng_stop_stack {
	uint32_t tid;
	uint32_t n;
	bool truncated;
	eng_where f[ENG_STOP_FRAMES];
} eng_stop_stack;
uint32_t eng_proc_stop_stacks(eng_proc *p, const eng_stop_stack **out);

/* Run fn(t, arg) on a new OS thread of p with its own eng_thread t (the
 * wasi-threads model: the caller instantiates the module again on t).
 * Returns the new thread's id (> 0), or -1 with err set when the proc's
 * thread limit is reached (WASM_LIMIT) or the OS refuses (WASM_NOMEM). */
typedef void (*eng_thread_fn)(eng_thread *t, void *arg);
int32_t eng_proc_spawn(eng_proc *p, eng_thread_fn fn, void *arg,
		       wasm_err *err);

/* Wait until every thread started with eng_proc_spawn has returned. */
void eng_proc_join(eng_proc *p);
/* Wait until at most keep of those threads still run, p is stopping, or
 * timeout_s seconds have passed, whichever comes first. */
void eng_proc_await(eng_proc *p, uint32_t keep, double timeout_s);

/* Host data attached to a proc (WASI state, the detector's tables). */
void eng_proc_set_host(eng_proc *p, void *host);
void *eng_proc_host(const eng_proc *p);

/* Synchronisation that is not a memory access, for a happens-before
 * detector: thread t is about to wake the waiters of byte offset `addr`
 * of a shared memory (ENG_SYNC_NOTIFY, called before any wakes, also when
 * none waits), or was woken there by a notify (ENG_SYNC_WOKEN, after it
 * wakes, before it goes on). Called on the thread itself; set the hook
 * before the proc runs. */
typedef enum eng_sync_event { ENG_SYNC_NOTIFY, ENG_SYNC_WOKEN } eng_sync_event;
typedef void (*eng_sync_hook)(void *ctx, eng_thread *t, eng_sync_event ev,
			      uint64_t addr);
void eng_proc_set_sync_hook(eng_proc *p, eng_sync_hook fn, void *ctx);

/* Serial execution runs every guest thread of the proc on one OS thread:
 * fn(ctx, t, false) is called on it before t stops running there for
 * another guest thread, fn(ctx, t, true) when t runs there again (and
 * when a spawned thread first runs), so that what an embedder keeps in
 * thread-local storage can be put aside and brought back. Set it before
 * the proc runs. */
typedef void (*eng_switch_hook)(void *ctx, eng_thread *t, bool resume);
void eng_proc_set_switch_hook(eng_proc *p, eng_switch_hook fn, void *ctx);

/* ---- serial execution ---------------------------------------------------
 *
 * With a scheduler set (eng_proc_set_sched, before the proc's first
 * thread exists), one thread of the proc runs guest code at a time and
 * the scheduler chooses which at every scheduling point: every call of a
 * host function (so every probe of an instrumented module and every WASI
 * call), memory.atomic.wait and notify, a thread's spawn and its end.
 * Atomics and plain accesses without a probe in front are not points:
 * serial runs are of instrumented modules, whose probes sit before every
 * shared-memory access.
 *
 * Time is virtual (eng_proc_vclock): it advances POINT_NS (1 µs) per
 * point, and when every live thread waits and some wait with a deadline
 * it jumps to the earliest one, so timed waits and sleeps
 * (eng_sched_sleep) end at the same point of every run. When every live
 * thread waits and none has a deadline, the proc stops with
 * ENG_DEADLOCK. The same module, inputs and scheduler decisions give the
 * same execution; eng_proc_sched_stats's digest, a hash over each
 * point's thread, kind and operands (a host call's function name and
 * arguments, a wait's or notify's address), shows two runs took the
 * same path.
 *
 * Every thread of a serial proc runs on the OS thread that calls
 * eng_proc_set_sched, each on a stack of its own (core/fiber.h): only
 * one runs at a time anyway, and a switch between them is a few
 * register moves in user space instead of a futex wake and a sleep. The
 * main thread runs on that OS thread's own stack, spawned ones on
 * stacks of ENG_FIBER_STACK bytes; eng_proc_join runs what is left of
 * the others after a stop. State an embedder keeps per OS thread must
 * follow the guest thread: eng_proc_set_switch_hook. */
/* Virtual time per scheduling point: enough that a thread sleeping in a
 * loop of others' work wakes after a plausible amount of it. */
#define ENG_POINT_NS 1000u

typedef enum eng_point_kind {
	ENG_POINT_HOST,	  /* a host function call */
	ENG_POINT_WAIT,	  /* memory.atomic.wait (or a sleep) blocked */
	ENG_POINT_NOTIFY, /* memory.atomic.notify */
	ENG_POINT_SPAWN,  /* a thread was spawned: it may run from here */
	ENG_POINT_END,	  /* a spawned thread ended */
} eng_point_kind;

/* A scheduling point as eng_sched.note sees it. */
typedef struct eng_point {
	uint64_t event;	    /* its number: 0, 1, ... */
	eng_thread *thread; /* the thread that reached it */
	eng_point_kind kind;
	const char *host;    /* HOST: the host function's name */
	const eng_val *args; /* HOST: its arguments, nargs slots */
	uint32_t nargs;
	uint64_t addr; /* WAIT, NOTIFY: the memory offset; SPAWN: the
			  new thread's id */
	/* Told a second time, when the thread gets the turn back after
	 * others ran: what it does at the point (the probed access after
	 * the probe) happens then. */
	bool resumed;
} eng_point;

typedef struct eng_sched {
	/* Who runs after point number `event` (0, 1, ...) of kind k, reached
	 * by thread cur: an index into runnable[0..n), the ids of the
	 * threads that can run, ascending, n >= 1 (cur among them unless it
	 * just blocked or ended). Called by one thread at a time, under the
	 * proc's scheduling lock: it must not call back into the engine. An
	 * index out of range counts as 0. */
	uint32_t (*pick)(void *ctx, uint64_t event, uint32_t cur,
			 eng_point_kind k, const uint32_t *runnable,
			 uint32_t n);
	void *ctx;
	/* NULL, or told of every point before pick is asked, on the thread
	 * that reached it, which has the turn, and again (pt->resumed)
	 * when that thread gets the turn back after a switch: it may read
	 * memory and eng_thread_backtrace, nothing else of the engine (the
	 * lock is held). For a debugger's record of an execution. */
	void (*note)(void *ctx, const eng_point *pt);
} eng_sched;
void eng_proc_set_sched(eng_proc *p, const eng_sched *s);
/* Whether p runs serially. */
bool eng_proc_serial(const eng_proc *p);
/* Virtual nanoseconds since the run began (0 when not serial). */
uint64_t eng_proc_vclock(eng_proc *p);
/* Serial: thread t sleeps until the virtual clock reaches `until`,
 * others running meanwhile. ENG_OK, or ENG_STOPPED when the proc stops. */
eng_trap_kind eng_sched_sleep(eng_thread *t, uint64_t until);
typedef struct eng_sched_stats {
	uint64_t events;   /* scheduling points */
	uint64_t digest;   /* of the execution's path */
	uint32_t switches; /* times the turn went to another thread */
	uint32_t threads;  /* threads the run had, the main one included */
	uint64_t vclock_ns;
} eng_sched_stats;
/* A serial proc's spawned threads (the main thread, id 0, not counted)
 * that have not ended, t excepted. The scheduler counts them, so the
 * answer is the same at the same point of every run (eng_proc_live's,
 * counted as OS threads finish, is not). */
uint32_t eng_sched_alive(eng_thread *t);
/* What a serial run did so far (all zero when not serial). */
void eng_proc_sched_stats(eng_proc *p, eng_sched_stats *out);

/* ---- runtime objects --------------------------------------------------- */

/* Host function: read params from args, write results to results (both in
 * slot form, in type order: a v128 takes two slots). Return ENG_OK, or a trap kind after filling
 * trap (ENG_EXIT with exit_code for proc_exit). */
typedef eng_trap_kind (*eng_host_fn)(eng_thread *t, void *ctx,
				     const eng_val *args, eng_val *results,
				     eng_trap *trap);

/* A host function of the given type (copied). */
eng_func *eng_host_func_new(eng_proc *p, const wasm_functype *type,
			    eng_host_fn fn, void *ctx, const char *name);

/* A host function's filter: called with the function's ctx, the calling
 * thread's id and the call's arguments (slot form) before a direct call
 * of the function from Wasm, it returns true when the function would do
 * nothing the program or the host could observe, and the function is
 * then not called. It must not trap, block, or call into the engine;
 * it runs on the calling thread with no engine state updated (no
 * stack_top, no pc), so it cannot walk the stack either. Compiled code
 * calls it straight from the call site, without the host call's frame
 * (the probe's same-epoch test, detector/hb.h). Never consulted in a
 * serial run, where each host call is a scheduling point. Only for a
 * function without results: false (nothing set) otherwise. */
typedef bool (*eng_host_filter)(void *ctx, uint32_t tid, const eng_val *args);
bool eng_host_func_set_filter(eng_func *f, eng_host_filter filter);

/* A filter's common answer as a table test, which compiled code makes
 * inline at each call site with no call at all (a detector's same-epoch
 * test, detector/hb.h), and the interpreter before the filter. For a
 * function of type (i32 addr, i32 site) -> () with a filter, in a run
 * that is not serial, the call is skipped when all of these hold (else
 * the filter, then the function, decide as before):
 *   - the calling thread's id tid < nthreads, and its record
 *     r = (eng_shadow_thread *)((char *)threads + tid * stride) has a
 *     word that is not 0;
 *   - site < nsites, and e = &sites[site] has width 1, 2, 4 or 8;
 *   - (addr & e->align) == 0 and addr + e->width <= limit;
 *   - with m = e->mask << (addr & 3) and p = (char *)shadow +
 *     (addr & ~3) * 4 + e->off, each of the 64-bit words x at p and at
 *     p + e->next satisfies (x & (care | m)) == (r->word | e->bits | m)
 *     (this very access again), or, when e->other is not 0,
 *     (x & (same | m)) == (r->word | m) and the word o at x's address +
 *     e->other has (o & ocare) either 0 or r->own (another access of
 *     the thread's that covered these bytes, and no other thread's
 *     record beside it; r->word must be within same);
 * and r->skipped is then incremented (by that thread only: nobody else
 * may write it). When the conditions on the thread, the site and the
 * address hold but a word does not, the function is called without the
 * filter (the test stood for it), r->tested set to 1 for the owner to
 * see and clear. Compiled code keeps a thread's record from its first
 * test of the table on (a run is serial or not from its start). The
 * owner fills the tables so that the
 * test answers as its filter would, may change words, records and the
 * shadow while threads run (aligned 64-bit words, read as relaxed
 * atomics), must not change the rest, and keeps all of it valid while
 * the function can be called. */
typedef struct eng_shadow_thread {
	uint64_t word, own, skipped, tested;
} eng_shadow_thread;
typedef struct eng_shadow_site {
	uint64_t bits, mask;
	uint32_t off, next;
	int32_t other; /* a multiple of 8 */
	uint8_t width, align, pad[2];
} eng_shadow_site;
typedef struct eng_shadow_test {
	eng_shadow_thread *threads;
	uint32_t nthreads, stride; /* nthreads * stride < 2^31 */
	const eng_shadow_site *sites;
	uint32_t nsites; /* < 2^26 */
	const void *shadow;
	uint64_t limit, care, same, ocare;
} eng_shadow_test;
/* Attaches t (borrowed) to f, a host function with a filter of the type
 * above; false (nothing set) otherwise or past the limits noted. */
bool eng_host_func_set_shadow_test(eng_func *f, const eng_shadow_test *t);
/* The test, as compiled code makes it, counting when it holds: SKIP
 * (it holds), CALL (the function without the filter) or NONE (the
 * filter decides). */
typedef enum {
	ENG_SHADOW_NONE,
	ENG_SHADOW_SKIP,
	ENG_SHADOW_CALL
} eng_shadow_answer;
eng_shadow_answer eng_shadow_test_run(const eng_shadow_test *t, uint32_t tid,
				      const eng_val *args);

/* A memory with the given limits (max capped by the proc's limit). Shared
 * memories are reserved at their maximum and never move. NULL on
 * failure with err set. */
eng_memory *eng_memory_new(eng_proc *p, const wasm_limits *lim,
			   wasm_err *err);
/* Base address and current size in bytes. The base never changes. */
uint8_t *eng_memory_data(eng_memory *mem);
uint64_t eng_memory_size(eng_memory *mem);
const wasm_limits *eng_memory_limits(const eng_memory *mem);

eng_table *eng_table_new(eng_proc *p, const wasm_tabletype *type,
			 wasm_err *err);
/* Globals in slot form: v holds eng_type_slots(type.type) slots, and
 * eng_global_get writes as many to out. */
eng_global *eng_global_new(eng_proc *p, wasm_globaltype type,
			   const eng_val *v);
void eng_global_get(const eng_global *g, eng_val *out);
wasm_globaltype eng_global_type(const eng_global *g);
const wasm_functype *eng_func_type(const eng_func *f);

/* ---- linking and instantiation ---------------------------------------- */

typedef struct eng_extern {
	wasm_extern kind;
	union {
		eng_func *func;
		eng_table *table;
		eng_memory *memory;
		eng_global *global;
		struct eng_tag *tag;
	} u;
} eng_extern;

/* Resolve one import: fill *out and return true, or return false (the
 * import is then reported as unknown). */
typedef bool (*eng_resolver)(void *ctx, const wasm_import *imp,
			     eng_extern *out);

/* Instantiate cm in proc p: resolve imports (checking their types as the
 * spec's import matching does), create defined memories, tables and
 * globals, apply active element and data segments, run the start
 * function on thread t. Errors: WASM_INVALID-class host errors in err
 * ("unknown import env.foo", "incompatible import type for env.memory:
 * expected shared memory"), or a trap during start or segment
 * initialisation, returned as ENG_* in *trap with *out still set to
 * NULL. Returns true on success. */
bool eng_instantiate(eng_module *cm, eng_proc *p, eng_thread *t,
		     eng_resolver resolve, void *ctx, eng_instance **out,
		     eng_trap *trap, wasm_err *err);

/* The C stack thread t runs on: the bytes [lo, hi) of its memory (the
 * guest library tells, heisen.hint.stack). From then on, a function that
 * moves the stack pointer (wasm-ld's __stack_pointer, found by its name)
 * below lo traps with "stack overflow in thread N (stack K KiB)" instead
 * of writing over what lies below. lo 0 turns the check off. */
void eng_thread_set_c_stack(eng_thread *t, uint32_t lo, uint32_t hi);

/* Look up an export by name. */
bool eng_instance_export(eng_instance *inst, const char *name,
			 eng_extern *out);
/* The same for a name of len bytes that may contain NUL bytes. */
bool eng_instance_export_n(eng_instance *inst, const char *name, size_t len,
			   eng_extern *out);

/* Memory `idx` of the instance's index space (imported or defined), or
 * NULL if there is none. */
eng_memory *eng_instance_memory(eng_instance *inst, uint32_t idx);
const eng_module *eng_instance_module(const eng_instance *inst);

/* ---- running ---------------------------------------------------------- */

/* Call f on thread t with args (slot form: a v128 takes two); write
 * results in the same form. Returns ENG_OK
 * or why it stopped (the same as trap->kind). Not reentrant for one
 * thread except from host functions called by the guest. */
eng_trap_kind eng_call(eng_thread *t, eng_func *f, const eng_val *args,
		       eng_val *results, eng_trap *trap);

/* The host-import hook: every import is resolved by the embedder's
 * eng_resolver, so a runtime such as the detector provides `heisen.probe`
 * by chaining its resolver in front of WASI's; core/ never knows what the
 * functions it calls do. */

#endif
