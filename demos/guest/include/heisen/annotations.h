/*
 * heisen/annotations.h - race annotations under heisen's own names, for
 * a program that also builds natively: under `heisen cc` they are the
 * guest library's dynamic annotations, in a native build with
 * ThreadSanitizer (-fsanitize=thread) its own, and in any other build
 * they compile to nothing. Copy this header into a project that builds
 * elsewhere too. docs/annotations.md.
 *
 *   HEISEN_BENIGN_RACE(addr, size)   races on the bytes are benign
 *   HEISEN_HAPPENS_BEFORE(addr)      what this thread did so far happens
 *   HEISEN_HAPPENS_AFTER(addr)         before what a thread does after a
 *                                      later HEISEN_HAPPENS_AFTER(addr)
 *   HEISEN_IGNORE_READS_BEGIN()      this thread's plain reads (writes)
 *   HEISEN_IGNORE_READS_END()          in between are not checked
 *   HEISEN_IGNORE_WRITES_BEGIN()
 *   HEISEN_IGNORE_WRITES_END()
 *   HEISEN_NEW_MEMORY(addr, size)    the bytes are new memory
 *   HEISEN_THREAD_NAME(name)         this thread's name in reports
 */
#ifndef HEISEN_ANNOTATIONS_H
#define HEISEN_ANNOTATIONS_H

#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HEISEN_ANNOTATIONS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define HEISEN_ANNOTATIONS_TSAN 1
#endif

#if defined(__wasm__) || defined(HEISEN_ANNOTATIONS_TSAN)
#ifdef __cplusplus
extern "C" {
#endif
void AnnotateBenignRaceSized(const char *file, int line,
			     const volatile void *mem, size_t size,
			     const char *description);
void AnnotateHappensBefore(const char *file, int line,
			   const volatile void *obj);
void AnnotateHappensAfter(const char *file, int line, const volatile void *obj);
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
void AnnotateNewMemory(const char *file, int line, const volatile void *mem,
		       size_t size);
void AnnotateThreadName(const char *file, int line, const char *name);
#ifdef __cplusplus
}
#endif
#define HEISEN_BENIGN_RACE(addr, size)                                         \
	AnnotateBenignRaceSized(__FILE__, __LINE__, (addr), (size), "benign")
#define HEISEN_HAPPENS_BEFORE(addr)                                            \
	AnnotateHappensBefore(__FILE__, __LINE__, (addr))
#define HEISEN_HAPPENS_AFTER(addr)                                             \
	AnnotateHappensAfter(__FILE__, __LINE__, (addr))
#define HEISEN_IGNORE_READS_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define HEISEN_IGNORE_READS_END()   AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#define HEISEN_IGNORE_WRITES_BEGIN()                                           \
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__)
#define HEISEN_IGNORE_WRITES_END() AnnotateIgnoreWritesEnd(__FILE__, __LINE__)
#define HEISEN_NEW_MEMORY(addr, size)                                          \
	AnnotateNewMemory(__FILE__, __LINE__, (addr), (size))
#define HEISEN_THREAD_NAME(name) AnnotateThreadName(__FILE__, __LINE__, (name))
#else
#define HEISEN_BENIGN_RACE(addr, size)	((void)(addr), (void)(size))
#define HEISEN_HAPPENS_BEFORE(addr)	((void)(addr))
#define HEISEN_HAPPENS_AFTER(addr)	((void)(addr))
#define HEISEN_IGNORE_READS_BEGIN()	((void)0)
#define HEISEN_IGNORE_READS_END()	((void)0)
#define HEISEN_IGNORE_WRITES_BEGIN()	((void)0)
#define HEISEN_IGNORE_WRITES_END()	((void)0)
#define HEISEN_NEW_MEMORY(addr, size)	((void)(addr), (void)(size))
#define HEISEN_THREAD_NAME(name)	((void)(name))
#endif

#endif
