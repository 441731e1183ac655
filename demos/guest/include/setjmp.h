/*
 * setjmp.h - setjmp and longjmp for heisen's guests.
 *
 * heisen cc compiles with clang's -mllvm -wasm-enable-sjlj, which lowers
 * every call to setjmp and longjmp onto WebAssembly exception handling
 * (demos/guest/setjmp.c says how); jmp_buf only holds the number setjmp
 * gave its call. A longjmp unwinds the frames it leaves, so it works from
 * any depth of calls below the setjmp, as C requires, and not into a
 * function that has returned (C leaves that undefined; here the longjmp
 * traps with "uncaught exception" when no frame of the thread took it).
 * sigsetjmp and siglongjmp are setjmp and longjmp: the signal mask is
 * neither saved nor restored.
 */
#ifndef HEISEN_GUEST_SETJMP_H
#define HEISEN_GUEST_SETJMP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __heisen_jmp_buf {
	unsigned long __id; /* written by setjmp (saveSetjmp) */
} jmp_buf[1];
typedef jmp_buf sigjmp_buf;

/* Both names are recognised by clang's lowering, which rewrites each
 * call: neither is a function the program links. */
int setjmp(jmp_buf env) __attribute__((returns_twice));
_Noreturn void longjmp(jmp_buf env, int val);

#define _setjmp(env) setjmp(env)
#define _longjmp(env, val) longjmp(env, val)
#define sigsetjmp(env, savemask) setjmp(env)
#define siglongjmp(env, val) longjmp(env, val)

#ifdef __cplusplus
}
#endif
#endif
