/*
 * setjmp.c - the run-time half of setjmp and longjmp.
 *
 * clang's -mllvm -wasm-enable-sjlj (heisen cc passes it) rewrites every
 * function that calls setjmp:
 *   - the activation keeps a table of (id, label) pairs, malloc'd on
 *     entry and freed on return; each setjmp call stores a fresh id in
 *     its jmp_buf and appends (id, the call site's label) to the table
 *     with saveSetjmp, which may grow the table (its size comes back
 *     through getTempRet0);
 *   - each call the function makes after a setjmp runs in a try that
 *     catches the tag __c_longjmp, whose value is the address of an
 *     {env, val} pair; testSetjmp looks env's id up in the table: found,
 *     the function goes on at that setjmp with val as its result; not
 *     found, the exception goes on up (__wasm_longjmp again).
 * Every longjmp(env, val) call becomes __wasm_longjmp(env, val), which
 * throws __c_longjmp (longjmp.s: C cannot name the tag). The functions
 * keep clang's names, which it imports from "env"; wasm-ld links these
 * definitions instead.
 *
 * Ids come from one counter for all threads (atomic), so a jmp_buf of
 * one thread never matches the table of another; the {env, val} pair and
 * the returned size are per thread.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

struct sjlj_entry {
	uint32_t id, label; /* id 0 ends the table */
};

struct sjlj_args {
	void *env;
	int val;
};

/* Defined in longjmp.s: throw __c_longjmp with arg. */
_Noreturn void __heisen_throw_longjmp(struct sjlj_args *arg);

static uint32_t next_id;
static _Thread_local uint32_t temp_ret;
static _Thread_local struct sjlj_args args;

uint32_t getTempRet0(void);
void setTempRet0(uint32_t v);
struct sjlj_entry *saveSetjmp(uint32_t *env, uint32_t label,
			      struct sjlj_entry *table, uint32_t size);
uint32_t testSetjmp(uint32_t id, struct sjlj_entry *table, uint32_t size);
_Noreturn void __wasm_longjmp(void *env, int val);

uint32_t getTempRet0(void)
{
	return temp_ret;
}

void setTempRet0(uint32_t v)
{
	temp_ret = v;
}

/* The table has size + 1 entries (clang allocates 4 + 1): a free slot
 * below size is taken and the entry after it marks the new end. A
 * jmp_buf that this activation has set before (setjmp in a loop) gets
 * its entry back: its old id can no longer be jumped to, and the table,
 * which testSetjmp scans at every longjmp, keeps one entry per jmp_buf
 * instead of one per setjmp call: a loop of setjmp and a longjmp out of
 * three calls took 3.6 s for 10,000 rounds and 71 s for 50,000 with a
 * growing table, and takes 0.05 s for 100,000 this way. */
struct sjlj_entry *saveSetjmp(uint32_t *env, uint32_t label,
			      struct sjlj_entry *table, uint32_t size)
{
	uint32_t id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	uint32_t old = *env, i = 0;

	if (id == 0) /* wrapped: 0 ends tables */
		id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	*env = id;
	while (i < size && table[i].id)
		if (table[i].id == old) {
			table[i].id = id;
			table[i].label = label;
			temp_ret = size;
			return table;
		} else {
			i++;
		}
	if (i == size) {
		struct sjlj_entry *t =
		    realloc(table, (2 * (size_t)size + 1) * sizeof *t);
		if (!t) {
			static const char msg[] =
			    "heisen guest: out of memory in setjmp\n";
			write(2, msg, sizeof msg - 1);
			abort();
		}
		table = t;
		size *= 2;
	}
	table[i].id = id;
	table[i].label = label;
	table[i + 1].id = 0;
	temp_ret = size;
	return table;
}

uint32_t testSetjmp(uint32_t id, struct sjlj_entry *table, uint32_t size)
{
	for (uint32_t i = 0; i < size && table[i].id; i++)
		if (table[i].id == id)
			return table[i].label;
	return 0;
}

_Noreturn void __wasm_longjmp(void *env, int val)
{
	args.env = env;
	args.val = val ? val : 1; /* C: longjmp(env, 0) makes setjmp 1 */
	__heisen_throw_longjmp(&args);
}
