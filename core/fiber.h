/*
 * fiber.h - stacks of execution switched in user space, for serial
 * execution (sched.c): a serial proc runs one guest thread at a time, so
 * its threads share one OS thread and a switch between them is a few
 * register moves, not a futex wake, a sleep and the kernel's scheduler
 * (5 to 12 us a switch on this project's VMs; programs that block at
 * every lock switch hundreds of thousands of times).
 *
 * A fiber is the saved state of one stack. eng_fiber_new gives a fiber
 * its own stack, which starts in entry(arg) at its first switch; the
 * OS thread's own stack is a fiber that needs no creation (a zeroed
 * eng_fiber, filled at its first switch away). entry must never return:
 * it ends with eng_fiber_finish, and whoever owns the fiber frees it from
 * another stack.
 *
 * x86-64 switches with a few instructions of its own (callee-saved
 * registers, the stack pointer, MXCSR and the x87 control word); other
 * architectures use ucontext, which also saves the signal mask (a system
 * call a switch). Under AddressSanitizer every switch is announced to
 * it, so that it knows which stack is live.
 *
 * Memory: a fiber's stack is mmap'd with a guard page below it and
 * unmapped by eng_fiber_free; the eng_fiber itself is the caller's.
 */
#ifndef HEISEN_FIBER_H
#define HEISEN_FIBER_H

#include <stdbool.h>
#include <stddef.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

typedef struct eng_fiber {
#if defined(__x86_64__)
	void *sp; /* saved stack pointer while switched away */
#else
	ucontext_t uc;
#endif
	void *map;	  /* the stack's mapping with its guard page */
	size_t map_bytes; /* 0: the OS thread's own stack */
	void (*entry)(void *);
	void *arg;
	/* AddressSanitizer's view of the stack (its bottom and size, and
	 * its fake stack while switched away). */
	void *asan_fake;
	const void *asan_bottom;
	size_t asan_size;
} eng_fiber;

/* Give f a stack of stack_bytes (rounded up to pages) that starts in
 * entry(arg) at the first switch to it. False when the stack cannot be
 * mapped (the caller falls back or reports out of memory). */
bool eng_fiber_new(eng_fiber *f, size_t stack_bytes, void (*entry)(void *),
		   void *arg);

/* Save the running stack into from and run to where it was saved (or
 * start it). Returns when something switches back to from. */
void eng_fiber_switch(eng_fiber *from, eng_fiber *to);

/* The last switch of from, whose entry is done: the same, but from is
 * never switched back to. */
void eng_fiber_finish(eng_fiber *from, eng_fiber *to);

/* Unmap f's stack; f must not be running. A fiber of the OS thread's
 * own stack has nothing to free. */
void eng_fiber_free(eng_fiber *f);

#endif
