/*
 * engine_int.h - the engine's internal structures, shared by compile.c
 * (module -> register code), interp.c (the dispatch loop) and runtime.c
 * (procs, threads, memories, tables, instantiation, wait/notify).
 * Nothing outside core/engine*.c / compile.c / interp.c / runtime.c may
 * include this header: engine.h is the contract.
 *
 * The internal code (register form):
 *   A compiled function is an array of 8-byte cells. An instruction is one
 *   cell holding its handler (a label address for computed goto, or the
 *   internal opcode number with -DENG_SWITCH_DISPATCH) followed by operand
 *   cells, two 32-bit fields each. Operands name frame slots: a frame is
 *   [params | other locals | operand-stack temporaries], one 64-bit slot
 *   per value, addressed from the frame pointer fp. Temporaries are fixed
 *   by stack depth: the value at operand depth d lives in slot
 *   nlocals + d, so block results and call arguments/results land in
 *   known slots without moves. Branch offsets are in cells, relative to
 *   the start of the branch instruction.
 */
#ifndef HEISEN_CORE_ENGINE_INT_H
#define HEISEN_CORE_ENGINE_INT_H

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>

#include "engine.h"
#include "fiber.h"

/* One code cell. */
typedef union eng_cell {
	const void *h;    /* handler (computed goto) */
	uintptr_t op;     /* internal opcode (switch dispatch) */
	uint64_t u64;     /* 64-bit immediate */
	int64_t i64;
	uint32_t u32[2];  /* two operands: slots, indices, offsets */
	int32_t i32[2];
	const void *ptr;  /* a pointer immediate (callee) */
} eng_cell;

/*
 * Internal opcodes that are not Wasm opcodes. Every Wasm opcode of
 * opcodes.def is also an internal opcode (EOP_<ID>), used with the layout
 * below when it is emitted as is. A few Wasm opcodes are reused with an
 * internal meaning and layout:
 *   BR            {off,-}: jump
 *   BR_IF         {c,off}: jump if slot[c] (i32) != 0
 *   BR_TABLE      {i,n} {off0,off1}...: n+1 targets, the last the default
 *   RETURN        results already in slots 0..n-1
 *   CALL          {argbase,-} {eng_fn*}: a function of the same module
 *   CALL_INDIRECT {argbase,elem slot} {canonical type id,table}
 *   GLOBAL_GET    {d,idx}     GLOBAL_SET {a,idx} Operand layouts (cells after the
 * handler), d = destination slot, a/b/c = source slots:
 *   unary        {d,a}
 *   binary       {d,a} {b,-}
 *   binary-imm   {d,a} {imm64}          (the _RI variants: b is constant)
 *   load         {d,a} {offset,mem}
 *   store        {a,v} {offset,mem}
 *   atomic       {d,a} {b,c} {offset,mem}
 *
 * SIMD (opcodes with WASM_F_SIMD): a v128 operand or result names the
 * first of its two slots (engine.h, slot form). Layouts:
 *   v128 unary, splat, any/all_true, bitmask   {d,a}
 *   v128 binary, shift (b: the i32 count)      {d,a} {b,-}
 *   bitselect                                  {d,a} {b,c}
 *   extract_lane                               {d,a} {lane,-}
 *   replace_lane                               {d,a} {b,lane}
 *   v128.const                                 {d,-} {bytes 0-7} {8-15}
 *   i8x16.shuffle                              {d,a} {b,-} {lanes 0-7}
 *                                              {lanes 8-15}
 *   loads (plain, extend, splat, zero)         {d,a} {offset,mem}
 *   v128.store                                 {a,v} {offset,mem}
 *   load*_lane                                 {d,a} {offset,mem} {v,lane}
 *   store*_lane                                {a,v} {offset,mem} {lane,-}
 * SIMD loads and stores name their memory (no _MN/_AK twins): they go
 * through inst->mem_base, one more load beside a 16-byte access.
 */
#define ENG_EXTRA_OPS(X)                                                     \
	X(MOV)          /* {d,a}: slot[d] = slot[a] */                       \
	X(MOV2)         /* {d,a} {d2,a2}: MOV d,a then MOV d2,a2 */          \
	X(CONST)        /* {d,-} {k}: slot[d] = k */                         \
	X(BR_POLL)      /* {off,-}: loop back-edge: poll stop, jump */       \
	X(BR_IF_POLL)   /* {c,off}: same, to a loop */                       \
	X(BR_UNLESS)    /* {c,off}: jump if slot[c] (i32) == 0 */            \
	X(BR_MEM8_Z)    /* {off,mem} {addr}: jump if byte addr of memory     \
			   mem is 0 (i32.const; i32.load8_u; if fused) */    \
	X(MOV_BR_MEM8_Z) /* {off,mem} {addr} {d,a}: MOV d,a; BR_MEM8_Z */    \
	X(CALL_IMPORT)  /* {argbase,funcidx}: through inst->funcs */         \
	X(SELECT3)      /* {d,a} {b,c}: d = c ? a : b */                     \
	X(GLOBAL_GET2)  /* {d,idx}: a v128 global into slots d, d+1 */      \
	X(GLOBAL_SET2)  /* {a,idx}: slots a, a+1 into a v128 global */      \
	X(GLOBAL_SET_SP) /* {a,idx}: GLOBAL_SET of the C stack pointer,     \
			   checked against the thread's stack */            \
	X(TRAP_UNREACHABLE) /* unreachable */                                \
	X(I32_ADD_RI)                                                        \
	X(I32_SUB_RI)                                                        \
	X(I32_MUL_RI)                                                        \
	X(I32_AND_RI)                                                        \
	X(I32_OR_RI)                                                         \
	X(I32_XOR_RI)                                                        \
	X(I32_SHL_RI)                                                        \
	X(I32_SHR_S_RI)                                                      \
	X(I32_SHR_U_RI)                                                      \
	X(I32_ROTL_RI)                                                       \
	X(I32_ROTR_RI)                                                       \
	X(I32_EQ_RI)                                                         \
	X(I32_NE_RI)                                                         \
	X(I32_LT_S_RI)                                                       \
	X(I32_LT_U_RI)                                                       \
	X(I32_GT_S_RI)                                                       \
	X(I32_GT_U_RI)                                                       \
	X(I32_LE_S_RI)                                                       \
	X(I32_LE_U_RI)                                                       \
	X(I32_GE_S_RI)                                                       \
	X(I32_GE_U_RI)                                                       \
	X(I64_ADD_RI)                                                        \
	X(I64_SUB_RI)                                                        \
	X(I64_MUL_RI)                                                        \
	X(I64_AND_RI)                                                        \
	X(I64_OR_RI)                                                         \
	X(I64_XOR_RI)                                                        \
	X(I64_SHL_RI)                                                        \
	X(I64_SHR_S_RI)                                                      \
	X(I64_SHR_U_RI)                                                      \
	X(I64_ROTL_RI)                                                       \
	X(I64_ROTR_RI)                                                       \
	X(I64_EQ_RI)                                                         \
	X(I64_NE_RI)                                                         \
	X(I64_LT_S_RI)                                                       \
	X(I64_LT_U_RI)                                                       \
	X(I64_GT_S_RI)                                                       \
	X(I64_GT_U_RI)                                                       \
	X(I64_LE_S_RI)                                                       \
	X(I64_LE_U_RI)                                                       \
	X(I64_GE_S_RI)                                                       \
	X(I64_GE_U_RI)                                                       \
	/* fused compare-and-branch: {a,b} {off,-}, jump if the compare \
	   holds; the _RI forms compare with the immediate in b */          \
	X(BR_I32_EQ) X(BR_I32_NE) X(BR_I32_LT_S) X(BR_I32_LT_U)              \
	X(BR_I32_GT_S) X(BR_I32_GT_U) X(BR_I32_LE_S) X(BR_I32_LE_U)          \
	X(BR_I32_GE_S) X(BR_I32_GE_U)                                        \
	X(BR_I32_EQ_RI) X(BR_I32_NE_RI) X(BR_I32_LT_S_RI) X(BR_I32_LT_U_RI)  \
	X(BR_I32_GT_S_RI) X(BR_I32_GT_U_RI) X(BR_I32_LE_S_RI)                \
	X(BR_I32_LE_U_RI) X(BR_I32_GE_S_RI) X(BR_I32_GE_U_RI)                \
	/* loads and stores on another memory: same layouts */             \
	X(MN_I32_LOAD) X(MN_I64_LOAD) X(MN_F32_LOAD) X(MN_F64_LOAD)          \
	X(MN_I32_LOAD8_S) X(MN_I32_LOAD8_U) X(MN_I32_LOAD16_S)               \
	X(MN_I32_LOAD16_U) X(MN_I64_LOAD8_S) X(MN_I64_LOAD8_U)               \
	X(MN_I64_LOAD16_S) X(MN_I64_LOAD16_U) X(MN_I64_LOAD32_S)             \
	X(MN_I64_LOAD32_U) X(MN_I32_STORE) X(MN_I64_STORE) X(MN_F32_STORE)   \
	X(MN_F64_STORE) X(MN_I32_STORE8) X(MN_I32_STORE16) X(MN_I64_STORE8)  \
	X(MN_I64_STORE16) X(MN_I64_STORE32)                                  \
	/* loads and stores on the fast memory whose address is slot a   \
	   plus a constant k: {d,a} {offset,k} / {a,v} {offset,k}, effective \
	   address (u32)(a + k) + offset */                                 \
	X(AK_I32_LOAD) X(AK_I64_LOAD) X(AK_F32_LOAD) X(AK_F64_LOAD)          \
	X(AK_I32_LOAD8_S) X(AK_I32_LOAD8_U) X(AK_I32_LOAD16_S)               \
	X(AK_I32_LOAD16_U) X(AK_I64_LOAD8_S) X(AK_I64_LOAD8_U)               \
	X(AK_I64_LOAD16_S) X(AK_I64_LOAD16_U) X(AK_I64_LOAD32_S)             \
	X(AK_I64_LOAD32_U) X(AK_I32_STORE) X(AK_I64_STORE) X(AK_F32_STORE)   \
	X(AK_F64_STORE) X(AK_I32_STORE8) X(AK_I32_STORE16) X(AK_I64_STORE8)  \
	X(AK_I64_STORE16) X(AK_I64_STORE32)

enum {
#define OP(id, pfx, code, name, imm, sig, width, flags, syn) EOP_##id,
#include "opcodes.def"
#undef OP
#define X(id) EOP_##id,
	ENG_EXTRA_OPS(X)
#undef X
	EOP_COUNT
};

/* Offset of a branch-compare op's _RI twin and of an op's memory-N and
 * address-plus-constant twins (the lists above are in the same order). */
#define EOP_BR_CMP_RI_DELTA (EOP_BR_I32_EQ_RI - EOP_BR_I32_EQ)
#define EOP_MN_DELTA (EOP_MN_I32_LOAD - EOP_I32_LOAD)
#define EOP_AK_DELTA (EOP_AK_I32_LOAD - EOP_I32_LOAD)

/* pc -> module offset: one entry per Wasm instruction that emitted code;
 * the entry for a cell is the last one with pc <= the cell's index. */
typedef struct eng_pcmap {
	uint32_t pc;      /* cell index in the function's code */
	uint32_t offset;  /* file offset of the Wasm instruction */
} eng_pcmap;

/*
 * Exception handling (the legacy proposal's try, catch, catch_all,
 * delegate, throw, rethrow) costs the normal path nothing: a try emits
 * no code, only a row of its function's handler table, which a throw
 * searches. THROW {argbase,tag} (the tag's values in consecutive slots
 * from argbase) and RETHROW {handler,-} are the only instructions.
 *
 * A handler covers the cells [start, end) of its try's body. Rows are in
 * the order their try appeared, so among the rows covering a cell the
 * last is the innermost. A try-delegate's row hands its exceptions to
 * row `next` (the handler in effect at the delegate's label); a try with
 * catches tries them in order, then row `next` (the handler around the
 * try). ENG_NO_HANDLER: the caller. A catch lands at cell pc with the
 * tag's values in the slots from `slot` (the try's operand height); when
 * a rethrow names the try, the caught exception is also kept in the
 * frame from slot `store`: the tag, then up to eng_module.max_tag_slots
 * values.
 */
#define ENG_NO_HANDLER UINT32_MAX
#define ENG_CATCH_ALL UINT32_MAX
typedef struct eng_catch {
	uint32_t tag;  /* tag index of the module, or ENG_CATCH_ALL */
	uint32_t pc;   /* first cell of the catch body */
	uint32_t next; /* the try's next catch, or ENG_NO_HANDLER */
} eng_catch;
typedef struct eng_handler {
	uint32_t start, end; /* cells of the try body */
	uint32_t catches;    /* first catch, ENG_NO_HANDLER for none */
	uint32_t next;       /* row tried next (see above) */
	uint32_t slot;       /* first slot of a caught exception's values */
	uint32_t store;      /* slots kept for rethrow, or ENG_NO_HANDLER */
	bool delegate;
} eng_handler;

/* A compiled function. */
typedef struct eng_fn {
	uint32_t index;    /* in the module's function index space */
	uint32_t type;     /* module type index */
	uint32_t nparams, nresults; /* in slots (a v128 takes two) */
	uint32_t nlocals;  /* slots of the locals, params included */
	uint32_t nslots;   /* frame size: locals + operand temps (>= nresults) */
	eng_cell *code;
	uint32_t ncode;    /* cells */
	eng_pcmap *pcmap;
	uint32_t npcmap;
	size_t body_offset; /* code_start of the body: stack traps point here */
	eng_handler *handlers; /* exception handlers, NULL if none */
	uint32_t nhandlers;
	eng_catch *catches;
	uint32_t ncatches;
	/* jit.c: the machine code's entry, NULL while the function is
	 * interpreted; jit_pending while it waits for its first call to be
	 * compiled (eng_fn_code), and its ops until then. Written under
	 * eng_module.jit_lock, read with atomic loads. */
	const void *jit;
	uint8_t jit_pending;
	uint16_t *ops;
} eng_fn;

/* eng_fn.ops of a cell that is not an instruction's first. */
#define ENG_OP_CONT 0xffffu

struct eng_module {
	wasm_module *m;
	uint32_t *type_ids;   /* canonical id of each module type */
	eng_fn *fns;          /* defined functions, m->nfuncs */
	uint32_t fast_mem;    /* memory of the plain and _AK loads and stores
				 (the others use the MN_ twins) */
	uint32_t max_tag_slots; /* slots of the largest tag's values */
	/* The C stack pointer: the mutable i32 global the name section
	 * calls __stack_pointer (wasm-ld's), UINT32_MAX if none. */
	uint32_t sp_global;
	/* The module has an ENG_C_CALLS custom section (heisen cc puts it
	 * in every program): its calls through a pointer of another type
	 * are adapted as a C ABI would (eng_indirect_adapt). */
	bool c_calls;
	/* jit.c: the machine code of the functions compiled so far, a
	 * region per compile (W^X: mapped read-execute once written),
	 * newest first; the lock each compile holds; how many functions were
	 * compiled, how many stay interpreted, how many wait for a first
	 * call; the bytes of machine code and the time compiling took. */
	bool jit_on;
	pthread_mutex_t jit_lock;
	struct eng_jit_region *jit_regions;
	uint32_t jit_fns, jit_interp, jit_waiting;
	size_t jit_size;
	double jit_seconds;
};

/* An instruction of compiled code that accesses memory: its offset in
 * its region and the cell it comes from (jit.c). */
typedef struct eng_jit_site {
	uint32_t off;
	const eng_cell *ip;
} eng_jit_site;

/* The machine code of one compile (jit.c): size bytes at code, its
 * memory accesses by offset. Never changed once published in
 * eng_module.jit_regions, so that the fault handler can read it. */
typedef struct eng_jit_region {
	struct eng_jit_region *next;
	uint8_t *code;
	size_t size;
	eng_jit_site *sites;
	uint32_t nsites;
} eng_jit_region;

/* fn's machine code (fn one of cm's functions), compiling it first when
 * it waits for its first call; NULL when it runs interpreted. The test
 * of a function already compiled, or never to be, is one load. */
const void *eng_jit_lazy(eng_module *cm, const eng_fn *fn);
static inline const void *eng_fn_code(eng_module *cm, const eng_fn *fn)
{
	const void *c = __atomic_load_n(&fn->jit, __ATOMIC_ACQUIRE);

	if (__builtin_expect(
		!c && __atomic_load_n(&fn->jit_pending, __ATOMIC_RELAXED), 0))
		c = eng_jit_lazy(cm, fn);
	return c;
}

/* The custom section's name: C built by heisen cc (demos/guest/crt1.c). */
#define ENG_C_CALLS "heisen.c_calls"

/* Objects a proc owns are chained for eng_proc_free. */
typedef struct eng_obj {
	struct eng_obj *next;
	void (*free)(struct eng_obj *);
} eng_obj;

/* A tag: its identity is this object's address (an imported tag is the
 * exporter's). */
typedef struct eng_tag {
	eng_obj obj;
	uint32_t type_id; /* canonical id of its function type */
	uint32_t nslots;  /* slots of the values an exception carries */
} eng_tag;

struct eng_func {
	eng_obj obj;          /* host functions only */
	uint32_t type_id;     /* canonical: call_indirect compares these */
	const wasm_functype *type;
	uint32_t nargs, nrets; /* slots the params and the results take */
	eng_instance *inst;   /* NULL for a host function */
	const eng_fn *fn;     /* compiled body; NULL for a host function */
	eng_host_fn host;
	void *ctx;
	eng_host_filter filter; /* host functions: NULL, or the filter */
	const eng_shadow_test *shadow; /* with a filter: NULL, or its test */
	char *name;           /* host functions: for messages */
	uint64_t name_hash;   /* host functions: of name, for the digest */
	wasm_functype own_type; /* host functions: the copy `type` points at */
};

struct eng_memory {
	eng_obj obj;
	uint8_t *base;        /* start of the reservation; never moves */
	size_t reserved;      /* bytes reserved (PROT_NONE beyond size) */
	_Atomic uint64_t size; /* accessible bytes */
	uint32_t max_pages;   /* effective maximum (limits, proc cap) */
	wasm_limits lim;      /* min = current pages kept up to date */
	pthread_mutex_t grow_lock;
};

struct eng_table {
	eng_obj obj;
	wasm_tabletype type;  /* lim.min = current size */
	uint32_t size, max;   /* max: effective (UINT32_MAX if none) */
	eng_val *elems;
};

struct eng_global {
	eng_obj obj;
	wasm_globaltype type;
	eng_val val[2];       /* slot form (val[1]: a v128's high half);
				 not atomic: globals are not shared */
};

struct eng_instance {
	eng_obj obj;
	eng_module *cm;
	eng_proc *proc;
	eng_func **funcs;     /* function index space */
	eng_func *own_funcs;  /* defined functions (array of m->nfuncs) */
	eng_table **tables;
	eng_memory **mems;
	uint32_t nmems;
	uint8_t **mem_base;   /* base of each memory, for memory-N ops */
	eng_global **globals;
	eng_val **elem_vals;  /* evaluated element segments; NULL once an
				 active one is applied */
	uint32_t *elem_len;
	bool *data_dropped;
	eng_tag **tags;          /* tag index space */
	eng_tag *own_tags;       /* defined tags */
	eng_global *own_globals; /* defined globals */
	eng_table *own_tables;   /* defined tables */
};

/* A call frame: what RETURN restores. */
typedef struct eng_frame {
	const eng_cell *ret_ip;
	eng_val *fp;
	eng_instance *inst;
} eng_frame;

struct eng_thread {
	eng_proc *proc;
	uint32_t id;
	struct eng_thread *next_in_proc; /* the proc's list, newest first */
	eng_val *stack, *stack_end;      /* value slots */
	size_t stack_bytes;
	eng_frame *frames;
	uint32_t depth, max_depth;
	eng_val *stack_top;   /* first free slot (for nested eng_call) */
	eng_instance *cur_inst; /* instance whose code runs (signal handler) */
	const eng_cell *pc;   /* instruction of the current memory access */
	sigjmp_buf *trap_jmp; /* innermost eng_call's trap point */
	eng_trap *trap_out;   /* the trap it reports (jit.c fills it) */
	eng_trap_kind jit_kind; /* a trap of compiled code (trap_jmp 2) */
	uintptr_t jit_sp_lo;	/* compiled code's lowest stack pointer */
	bool in_wasm;         /* running guest code (signal handler check) */
	bool stop_noted;      /* its stack is in proc->stops */
	uint32_t polls;       /* since the last throttle yield */
	/* The shadow test (engine.h) compiled code last looked this
	 * thread's record up in, and the record: set at the thread's first
	 * test of a table in a run that is not serial. */
	const eng_shadow_test *shadow_test;
	eng_shadow_thread *shadow_rec;
	uint32_t throttle;    /* polls between its yields (0: lim.throttle) */
	/* The C stack the guest runs this thread on, [sp_lo, sp_hi) of its
	 * memory, from eng_thread_set_c_stack; sp_lo 0: unknown. */
	uint32_t sp_lo, sp_hi;
	/* The exception being thrown: its tag and values (exn_cap slots
	 * allocated, grown by a throw that needs more). */
	const eng_tag *exn_tag;
	eng_val *exn_vals;
	uint32_t exn_cap;
	/* wait/notify */
	_Atomic uint32_t park_word; /* 0 waiting, 1 notified, 2 stopped */
	_Atomic bool parked;
	struct eng_thread *park_next;
	uintptr_t park_key;
	void *park_mem;
	/* serial execution (sched.c), under proc->s_lock */
	uint8_t s_state;	 /* ENG_S_RUN, ENG_S_WAIT, ENG_S_DONE */
	uint32_t s_result;	 /* a finished wait: 0 woken, 2 timed out */
	uintptr_t s_key;	 /* the address waited on; 0 for a sleep */
	uint64_t s_off;		 /* that address as an offset in its memory */
	uint64_t s_deadline;	 /* virtual ns; UINT64_MAX for none */
	uint64_t s_seq;		 /* the point its wait began at (FIFO wakes) */
	/* A spawned thread of a serial proc runs on a stack of its own;
	 * fib_done once it has switched away for good. */
	eng_fiber fib;
	bool has_fib, fib_done;
	/* spawned threads */
	pthread_t os;
	eng_thread_fn fn;
	void *arg;
};

struct eng_proc {
	eng_limits lim;
	/* ENG_STOP_REQ: every thread must stop. ENG_STOP_THROTTLE: polls
	 * take the slow path to count for lim.throttle (set while spawned
	 * threads are alive, runtime.c's set_live). Interpreted code
	 * tests the word for non-zero only, so throttling costs nothing
	 * unless it is on. */
	atomic_int stop;
	atomic_int rec_state;   /* 0 none, 1 being written, 2 written */
	eng_trap rec;           /* the first stop request or trap */
	void *host;
	pthread_mutex_t lock;   /* objects, threads, spawn bookkeeping */
	eng_obj *objs;
	_Atomic(eng_thread *) threads;
	uint32_t next_tid;
	uint32_t live;          /* spawned threads still running */
	uint32_t nspawned;      /* ever spawned */
	pthread_t *finished;    /* spawned threads that returned, to join */
	uint32_t nfinished, cap_finished;
	pthread_cond_t done_cv; /* signalled when live drops */
	eng_sync_hook sync_hook; /* eng_proc_set_sync_hook, or NULL */
	void *sync_ctx;
	/* serial execution (sched.c): the turn, the threads by id, virtual
	 * time, the digest; s_lock guards them. */
	bool serial;
	eng_sched sched;
	pthread_mutex_t s_lock;
	uint32_t s_turn;
	eng_thread **s_threads;
	uint32_t s_nthreads, s_cap;
	/* The threads not done, by id: what a point looks at, so that a
	 * program that ran thousands of threads pays for those alive. */
	eng_thread **s_alive;
	uint32_t s_nalive, s_alive_cap;
	uint64_t s_events, s_digest, s_vclock;
	uint32_t s_switches;
	/* The stack of the OS thread that runs them all (the main thread's),
	 * saved while a spawned thread runs; eng_proc_set_switch_hook's. */
	eng_fiber host_fiber;
	eng_switch_hook switch_hook;
	void *switch_ctx;
	/* watchdog */
	bool has_watchdog;
	pthread_t watchdog;
	pthread_cond_t wd_cv;
	bool wd_quit;
	/* Where the threads were when the proc stopped (eng_note_stop),
	 * under lock. */
	eng_stop_stack *stops;
	uint32_t nstops, cap_stops;
};

/* ---- shared between the files ---------------------------------------- */

/* Thread t leaves the interpreter because its proc stops: keep where it
 * was (the instruction pc of inst, depth frames below it) in the proc's
 * stops, once per thread (compile.c). */
void eng_note_stop(eng_thread *t, const eng_cell *pc, const eng_instance *inst,
		   uint32_t depth);

/* Make tag's exception, with the values vals (tag->nslots slots), the one
 * thread t throws. False when its buffer cannot grow (out of memory). */
bool eng_exn_set(eng_thread *t, const eng_tag *tag, const eng_val *vals);

/* Where t's exception lands in fn (of instance inst, frame fp) thrown by
 * or propagated through the instruction at cell `at`: the first cell of
 * the catch body that takes it, its values written to the frame; NULL if
 * no handler of fn takes it, or if the catch must keep for a rethrow
 * more values than any tag of fn's module has (*too_big is then set: a
 * foreign exception caught by catch_all). */
const eng_cell *eng_exn_land(eng_thread *t, const eng_instance *inst,
			     const eng_fn *fn, const eng_cell *at,
			     eng_val *fp, bool *too_big);

/* compile.c: handler addresses, from the interpreter (NULL in switch
 * mode: the code then holds opcode numbers). */
const void *const *eng_interp_handlers(void);

/* interp.c: run f (a Wasm function) on t with its arguments already in
 * base[0..nparams); results end up in base[0..nresults). Returns ENG_OK or
 * a trap kind; for a trap, *trap_pc is the instruction (NULL when not in
 * code) and *trap_inst the instance running it. Out-of-bounds memory
 * faults, and traps in compiled code, do not return here: they longjmp
 * to t->trap_jmp. nested: called by compiled code, which has pushed f's
 * eng_frame and counted it in t->depth (the host entry pushes none). */
eng_trap_kind eng_interp(eng_thread *t, eng_func *f, eng_val *base, bool nested,
			 eng_trap *trap, const eng_cell **trap_pc,
			 eng_instance **trap_inst);

/* runtime.c helpers the interpreter calls on slow paths. */
eng_trap_kind eng_rt_call_host(eng_thread *t, eng_func *f, eng_val *args,
			       eng_val *scratch, eng_trap *trap);
uint32_t eng_rt_memory_grow(eng_proc *p, eng_memory *mem, uint32_t delta);
uint32_t eng_rt_table_grow(eng_table *tab, eng_val init, uint32_t delta);
/* The bulk memory and table instructions (memory.fill, .copy, .init,
 * data.drop, table.get, .set, .size, .grow, .fill, .copy, .init,
 * elem.drop), op their internal opcode, ip the instruction, fp its frame:
 * ENG_OK or the trap. The interpreter and compiled code both run them
 * here. */
eng_trap_kind eng_rt_bulk(eng_instance *inst, const eng_cell *ip, eng_val *fp,
			  unsigned op);
/* memory.atomic.notify, wait32 and wait64 ({d,a} {b,c} {offset,mem}) on
 * thread t, whose depth is current: ENG_OK, the trap (misaligned, out of
 * bounds, an unshared memory), or ENG_STOPPED when the proc stopped the
 * wait. Sets t->pc to ip (a sync hook may take a backtrace). */
eng_trap_kind eng_rt_wait_notify(eng_thread *t, eng_instance *inst,
				 const eng_cell *ip, eng_val *fp, unsigned op);
eng_trap_kind eng_rt_wait(eng_thread *t, eng_memory *mem, uint8_t *addr,
			  uint64_t expect, bool is64, int64_t timeout_ns,
			  uint32_t *result);
uint32_t eng_rt_notify(eng_thread *t, eng_memory *mem, uint8_t *addr,
		       uint32_t count);
/* Wake every waiter of p (after its stop flag was set). */
void eng_rt_wake_proc(eng_proc *p);

enum { ENG_STOP_REQ = 1, ENG_STOP_THROTTLE = 2 };

/* sched.c: serial execution's mechanism (engine.h says what it is). */
enum { ENG_S_RUN = 1, ENG_S_WAIT, ENG_S_DONE };
/* A new thread of a serial proc: runnable from now; false when out of
 * memory for the thread table. */
bool eng_sched_register(eng_thread *t);
/* A spawned thread, before it runs anything: wait for its turn. */
void eng_sched_enter(eng_thread *t);
/* A spawned thread's last act, after eng_sched_end: run the thread whose
 * turn it is, or the OS thread's own stack; never returns. */
void eng_sched_exit(eng_thread *t);
/* For eng_proc_join: the spawned thread to run next (the turn holder,
 * or after a stop any that has not ended), NULL when none is left. */
eng_thread *eng_sched_leftover(eng_proc *p);
/* runtime.c: run thread `to` (NULL: the OS thread's own stack) in place
 * of `from` (NULL: the same), telling the switch hook; last for from's
 * final switch. Returns when something switches back to from. */
void eng_rt_fiber_to(eng_proc *p, eng_thread *from, eng_thread *to, bool last);
/* A spawned thread's stack in a serial proc. */
#define ENG_FIBER_STACK (1u << 20)
/* The stack compiled code may use below the outermost eng_call (jit.c):
 * deeper, a call traps as the call stack exhausted. */
#define ENG_JIT_STACK (512u << 10)
/* The points: before host function f is called with args; a wait on key
 * (the address; off its offset in the memory, for the digest) of at most
 * timeout_ns virtual (< 0: none), *result 0 woken, 2 timed out; a notify
 * of at most count waiters of key (returns how many, *k ENG_STOPPED when
 * the proc stops); a spawn (by the turn holder, after the new thread was
 * registered); a spawned thread's end. Each returns ENG_OK, or
 * ENG_STOPPED when the proc stops. */
eng_trap_kind eng_sched_host(eng_thread *t, const eng_func *f,
			     const eng_val *args);
eng_trap_kind eng_sched_wait(eng_thread *t, uintptr_t key, uint64_t off,
			     int64_t timeout_ns, uint32_t *result);
uint32_t eng_sched_notify(eng_thread *t, uintptr_t key, uint64_t off,
			  uint32_t count, eng_trap_kind *k);
void eng_sched_spawned(eng_proc *p);
void eng_sched_end(eng_thread *t);
/* A host function's name as serial runs' digest mixes it, computed once
 * when the function is made (every probe call is a point). */
uint64_t eng_sched_name_hash(const char *name);
/* The slow path of a poll that found the stop word non-zero: true when
 * the thread must stop, false after throttling (if due). */
bool eng_rt_poll(eng_thread *t);
/* A throttled thread's next interval (polls between yields) after a
 * yield that took took_ns, from its current one and lim.throttle (base).
 * A yield that long gave the CPU to another process, not to a thread of
 * the run: on a loaded machine every yield would, and a thread that
 * yielded every `base` polls would crawl while the other processes run
 * their slices. So a slow yield doubles the interval (up to
 * ENG_THROTTLE_MAX) and a quick one takes a sixteenth off it, back down
 * to base on an idle machine. */
#define ENG_THROTTLE_SLOW_NS 1000000
#define ENG_THROTTLE_MAX     (1u << 20)
uint32_t eng_rt_throttle_next(uint32_t every, uint32_t base, int64_t took_ns);

/* Canonical id of a function type (process-wide registry). 0 on
 * allocation failure (ids start at 1). */
uint32_t eng_type_intern(const wasm_functype *ft);

/* Fill a trap: kind, function, offset and the message. */
void eng_trap_at(eng_trap *trap, eng_trap_kind k, const eng_module *cm,
		 const eng_cell *pc, const char *detail);

/* The detail of an indirect call type mismatch: the function called
 * (cf, by name), its type and the type the call expected (canonical id
 * want, a type of inst's module), into buf. */
void eng_indirect_detail(const eng_instance *inst, const eng_func *cf,
			 uint32_t want, char *buf, size_t cap);
/* A call through a pointer of another function type, in a C module
 * (eng_module.c_calls), runs as on a native ABI, where the caller passes
 * arguments the callee may ignore: true, with the slots the caller
 * passes in *nargs, when cf called through type want (a canonical id of
 * inst's module) can run so. The parameters both types have must agree,
 * the callee's extra ones are not references (they start as zero), and
 * it returns at least the results the caller reads, of the same types
 * (a result it never wrote would be a stale slot); results the caller
 * does not read are dropped. */
bool eng_indirect_adapt(const eng_instance *inst, const eng_func *cf,
			uint32_t want, uint32_t *nargs);
/* Find the compiled function of cm containing pc (NULL if none). */
const eng_fn *eng_fn_of_pc(const eng_module *cm, const eng_cell *pc);
/* Fill trap for a C stack overflow of thread t at pc: the thread, its
 * stack's size, the function, and how to give it more. */
void eng_trap_c_stack(eng_trap *trap, const eng_thread *t,
		      const eng_module *cm, const eng_cell *pc);

#define ENG_PAGE 65536u

#endif
