/*
 * fiber.c - user-space stack switching for serial execution (fiber.h).
 */
#include "fiber.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FIBER_ASAN)
#define FIBER_ASAN 1
#endif

#ifdef FIBER_ASAN
#include <sanitizer/common_interface_defs.h>

/* Before leaving from for to: from's fake stack is kept while it is
 * away; a fiber switching away for the last time (its entry is done)
 * passes NULL, which lets ASan drop its fake stack. */
static void asan_leave(eng_fiber *from, const eng_fiber *to, bool last)
{
	__sanitizer_start_switch_fiber(last ? NULL : &from->asan_fake,
				       to->asan_bottom, to->asan_size);
}

/* Back on f: what ASan reports of the stack we came from fills in a
 * stack it did not know yet (the OS thread's own, at its first switch). */
static void asan_arrive(eng_fiber *f, eng_fiber *prev)
{
	const void *bottom;
	size_t size;

	__sanitizer_finish_switch_fiber(f->asan_fake, &bottom, &size);
	if (prev && !prev->asan_bottom) {
		prev->asan_bottom = bottom;
		prev->asan_size = size;
	}
}
#else
static void asan_leave(eng_fiber *from, const eng_fiber *to, bool last)
{
	(void)from;
	(void)to;
	(void)last;
}

static void asan_arrive(eng_fiber *f, eng_fiber *prev)
{
	(void)f;
	(void)prev;
}
#endif

/* The fiber that switched to the one starting, for its ASan arrival. */
static _Thread_local eng_fiber *starting_from;

#if defined(__x86_64__)

/* heisen_fiber_swap(&from->sp, to->sp): push the callee-saved registers
 * and the floating-point control words, save the stack pointer, load the
 * other one, pop its registers and return into it. A new stack is laid
 * out so that the return lands in heisen_fiber_start with entry in r13
 * and its argument in r12. */
void heisen_fiber_swap(void **save, void *to);
void heisen_fiber_start(void);
__asm__(".text\n"
	".globl heisen_fiber_swap\n"
	".hidden heisen_fiber_swap\n"
	".type heisen_fiber_swap, @function\n"
	"heisen_fiber_swap:\n"
	"\tendbr64\n"
	"\tpushq %rbp\n"
	"\tpushq %rbx\n"
	"\tpushq %r12\n"
	"\tpushq %r13\n"
	"\tpushq %r14\n"
	"\tpushq %r15\n"
	"\tsubq $8, %rsp\n"
	"\tstmxcsr (%rsp)\n"
	"\tfnstcw 4(%rsp)\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tldmxcsr (%rsp)\n"
	"\tfldcw 4(%rsp)\n"
	"\taddq $8, %rsp\n"
	"\tpopq %r15\n"
	"\tpopq %r14\n"
	"\tpopq %r13\n"
	"\tpopq %r12\n"
	"\tpopq %rbx\n"
	"\tpopq %rbp\n"
	"\tret\n"
	".size heisen_fiber_swap, .-heisen_fiber_swap\n"
	".globl heisen_fiber_start\n"
	".hidden heisen_fiber_start\n"
	".type heisen_fiber_start, @function\n"
	"heisen_fiber_start:\n"
	"\tendbr64\n"
	"\tmovq %r12, %rdi\n"
	"\tcallq *%r13\n"
	"\tud2\n"
	".size heisen_fiber_start, .-heisen_fiber_start\n");

#endif

/* The first code on a new stack: tell ASan, then run the entry, which
 * switches away for good instead of returning. */
static void fiber_first(void *arg)
{
	eng_fiber *f = arg;

	asan_arrive(f, starting_from);
	f->entry(f->arg);
}

#if !defined(__x86_64__)
/* makecontext passes ints: the fiber's address in two halves. */
static void fiber_first_uc(unsigned hi, unsigned lo)
{
	fiber_first((void *)(((uintptr_t)hi << 32) | lo));
}
#endif

bool eng_fiber_new(eng_fiber *f, size_t stack_bytes, void (*entry)(void *),
		   void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = (stack_bytes + page - 1) / page * page;
	uint8_t *map;

	*f = (eng_fiber){0};
	map = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return false;
	/* A call chain that runs off the stack faults here, not in a
	 * neighbouring mapping. */
	if (mprotect(map, page, PROT_NONE) != 0) {
		munmap(map, size + page);
		return false;
	}
	f->map = map;
	f->map_bytes = size + page;
	f->entry = entry;
	f->arg = arg;
	f->asan_bottom = map + page;
	f->asan_size = size;
#if defined(__x86_64__)
	{
		/* From the top: a zero word where a return address would be,
		 * heisen_fiber_start, then the six registers and the control
		 * words the swap pops. After the return the stack is 16-byte
		 * aligned before start's call, as the ABI wants. */
		uint64_t *sp = (uint64_t *)(map + page + size);
		uint32_t csr;
		uint16_t cw;
		__asm__ volatile("stmxcsr %0" : "=m"(csr));
		__asm__ volatile("fnstcw %0" : "=m"(cw));
		*--sp = 0;
		*--sp = 0;
		*--sp = (uint64_t)(uintptr_t)heisen_fiber_start;
		*--sp = 0;				  /* rbp */
		*--sp = 0;				  /* rbx */
		*--sp = (uint64_t)(uintptr_t)f;		  /* r12 */
		*--sp = (uint64_t)(uintptr_t)fiber_first; /* r13 */
		*--sp = 0;				  /* r14 */
		*--sp = 0;				  /* r15 */
		*--sp = (uint64_t)csr | (uint64_t)cw << 32;
		f->sp = sp;
	}
#else
	if (getcontext(&f->uc) != 0) {
		munmap(map, size + page);
		*f = (eng_fiber){0};
		return false;
	}
	f->uc.uc_stack.ss_sp = map + page;
	f->uc.uc_stack.ss_size = size;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, (void (*)(void))fiber_first_uc, 2,
		    (unsigned)((uintptr_t)f >> 32), (unsigned)(uintptr_t)f);
#endif
	return true;
}

static void fiber_swap(eng_fiber *from, eng_fiber *to, bool last)
{
	starting_from = from;
	asan_leave(from, to, last);
#if defined(__x86_64__)
	heisen_fiber_swap(&from->sp, to->sp);
#else
	swapcontext(&from->uc, &to->uc);
#endif
	asan_arrive(from, starting_from);
}

void eng_fiber_switch(eng_fiber *from, eng_fiber *to)
{
	fiber_swap(from, to, false);
}

void eng_fiber_finish(eng_fiber *from, eng_fiber *to)
{
	fiber_swap(from, to, true);
}

void eng_fiber_free(eng_fiber *f)
{
	if (f->map)
		munmap(f->map, f->map_bytes);
	*f = (eng_fiber){0};
}
