/*
 * annotations.c - ThreadSanitizer's and Valgrind's dynamic annotations
 * (dynamic_annotations.h, <sanitizer/tsan_interface.h>), with the
 * meaning ThreadSanitizer gives them, passed to heisen through
 * heisen.hint imports (docs/annotations.md). Where nobody listens they
 * do nothing, as they do in a program built without a race detector.
 */
#include <dynamic_annotations.h>
#include <sanitizer/tsan_interface.h>
#include <string.h>

#include "internal.h"

__attribute__((import_module("heisen.hint"), import_name("benign"))) void
__heisen_hint_benign(const volatile void *p, size_t size);
/* release 1: the calling thread's past happens before whoever acquires
 * at p later; 0: acquire what was released at p. */
__attribute__((import_module("heisen.hint"), import_name("hb"))) void
__heisen_hint_hb(const volatile void *p, int release);
__attribute__((import_module("heisen.hint"), import_name("ignore"))) void
__heisen_hint_ignore(int writes, int begin);
__attribute__((import_module("heisen.hint"), import_name("thread_name"))) void
__heisen_hint_thread_name(const char *name, size_t len);

void AnnotateBenignRaceSized(const char *file, int line,
			     const volatile void *mem, size_t size,
			     const char *description)
{
	__heisen_hint_benign(mem, size);
}

/* One byte, as ThreadSanitizer takes it: a race on the object's first
 * byte; annotate a wider object with AnnotateBenignRaceSized. */
void AnnotateBenignRace(const char *file, int line, const volatile void *mem,
			const char *description)
{
	__heisen_hint_benign(mem, 1);
}

void AnnotateHappensBefore(const char *file, int line, const volatile void *obj)
{
	__heisen_hint_hb(obj, 1);
}

void AnnotateHappensAfter(const char *file, int line, const volatile void *obj)
{
	__heisen_hint_hb(obj, 0);
}

void AnnotateIgnoreReadsBegin(const char *file, int line)
{
	__heisen_hint_ignore(0, 1);
}

void AnnotateIgnoreReadsEnd(const char *file, int line)
{
	__heisen_hint_ignore(0, 0);
}

void AnnotateIgnoreWritesBegin(const char *file, int line)
{
	__heisen_hint_ignore(1, 1);
}

void AnnotateIgnoreWritesEnd(const char *file, int line)
{
	__heisen_hint_ignore(1, 0);
}

void AnnotateNewMemory(const char *file, int line, const volatile void *mem,
		       size_t size)
{
	__heisen_hint_new_memory(mem, size);
}

void AnnotateThreadName(const char *file, int line, const char *name)
{
	if (name)
		__heisen_hint_thread_name(name, strlen(name));
}

void __tsan_acquire(void *addr) { __heisen_hint_hb(addr, 0); }

void __tsan_release(void *addr) { __heisen_hint_hb(addr, 1); }
