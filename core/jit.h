/*
 * jit.h - the baseline compiler: the register code of compile.c turned
 * into x86-64 machine code, one template per instruction, so that a
 * function runs without the interpreter's dispatch.
 *
 * What it keeps: the frame layout (every value in its 8-byte slot at
 * fp + 8 * slot, exactly as the interpreter has it), the call frames in
 * eng_thread.frames (so backtraces, stops and race reports read the same
 * register-code positions), and every slow path (host calls, indirect
 * calls, polls that stop, traps) through the interpreter's runtime
 * helpers. Compiled and interpreted functions call each other freely.
 *
 * Registers while compiled code runs: rbx the frame, r12 the fast
 * memory's base, r13 the thread, r14 the instance, r15 the proc's stop
 * word; rsi, rdi, r8, r9 and r10 hold the function's five most used
 * slots (written back around every call); rax, rcx, rdx, r11, xmm0 and
 * xmm15 are scratch. A compiled function is entered by a native
 * call with rbx at its frame (its caller pushed the eng_frame and counted
 * the depth) and returns with its results in slots 0..n-1.
 *
 * Traps: compiled code calls a helper that fills the trap of the
 * innermost eng_call (eng_thread.trap_out) and siglongjmps to its trap
 * point (value 2: filled); out-of-bounds accesses fault in the guard
 * region as for the interpreter, and eng_jit_fault finds the faulting
 * instruction's cell for the report.
 *
 * Which functions: every function whose module has no exception
 * handling; the others stay interpreted, counted in eng_module.jit_interp.
 * Every instruction has a template, every SIMD one included: 224 of the
 * 236 are SSE sequences (loads of every form, lane loads and stores,
 * stores, constants, the arithmetic, saturating, min/max (float ones
 * with Wasm's NaN and zero rules), average, compare (every integer
 * order, i64x2's with SSE4.2), narrow, abs, neg, sqrt, rounding, extend,
 * extended multiply, pairwise add and bitwise ops, pmin/pmax, dot,
 * bitselect, swizzle, shifts of 16- to 64-bit lanes,
 * any_true/all_true/bitmask, every lane's splat, extract and replace,
 * shuffle, the conversions but four) and the other 12 (q15mulr, popcnt,
 * i8x16 shifts, i64x2 abs/mul/shr_s, the saturating truncations but
 * f32x4's signed one, f64x2.convert_low_i32x4_u) call simd.h's function
 * for the instruction, as the interpreter does: about what the
 * interpreter's handler costs, but the rest of the function runs
 * compiled. Only on
 * x86-64 Linux; elsewhere, and with HEISEN_ENGINE=interp, nothing is
 * compiled.
 *
 * Why a hand-written emitter over the register code: compile.c already
 * does the work a baseline compiler needs (operand stack resolved to
 * slots, constants folded into immediates, compare-and-branch fused, the
 * probe's mask check one instruction), so each cell maps to a fixed
 * x86-64 sequence; no dependency, a few hundred lines of encoder.
 *
 * When: a function is compiled on its first call (V8's lazy
 * compilation), with the functions it calls directly (up to 16 in all,
 * one mapping), in the thread that makes the call, under the module's
 * lock; a sweep's workers each compile what their runs call, once. A 20 MB
 * module is ready as soon as interpreted (docs/benchmarks.md, "The
 * compiler"), and a short run pays only for what it calls.
 *
 * Memory: the code of each compile is a mapping of its own, owned by its
 * eng_module (eng_jit_free unmaps them); it is never writable and
 * executable at once.
 */
#ifndef HEISEN_CORE_JIT_H
#define HEISEN_CORE_JIT_H

#include <stdbool.h>

struct eng_module;
struct eng_thread;
struct eng_instance;

/* Whether this process compiles: x86-64 Linux and HEISEN_ENGINE unset or
 * "jit" (HEISEN_ENGINE=interp: every function interpreted). */
bool eng_jit_wanted(void);

/* Override HEISEN_ENGINE for the modules compiled from now on (the
 * differential fuzz target and tests run both engines in one process):
 * on takes effect only where the compiler exists. */
void eng_jit_enable(bool on);

/* Ready cm's functions for compilation (their ops must be set): each
 * one that may be compiled waits for its first call, which compiles it
 * and the waiting functions it calls directly (eng_fn_code in
 * engine_int.h, from every call path of both engines and every entry);
 * the others are counted as interpreted. Nothing is
 * compiled here: a program's start does not wait for the functions it
 * never calls. Never fails the module: a function that cannot be
 * compiled, or whose code cannot be mapped, runs interpreted. */
void eng_jit_prepare(struct eng_module *cm);

/* Compile every function still waiting, now, in one region (the
 * compiler's throughput in `make bench`). */
void eng_jit_compile_all(struct eng_module *cm);

/* Unmap cm's code (eng_module_free frees the ops of the functions
 * never compiled). */
void eng_jit_free(struct eng_module *cm);

/* From the guard-page signal handler: when the fault (signal context uc)
 * is an access of compiled code, set t->pc to its instruction's cell.
 * Async-signal-safe: a search of an array that does not change. */
void eng_jit_fault(struct eng_thread *t, const void *uc);

/* Run compiled function entry with its frame at fp, on thread t in
 * instance in: the caller has pushed its eng_frame and counted it in
 * t->depth. Returns when the function returns; a trap leaves through
 * t->trap_jmp. */
void eng_jit_run(struct eng_thread *t, struct eng_instance *in, void *fp,
		 const void *entry);

#endif
