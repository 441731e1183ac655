/*
 * dynamic_annotations.h - the dynamic annotations ThreadSanitizer and
 * Valgrind's Helgrind read (the header Chromium and Abseil ship), for
 * `heisen cc`: the Annotate* functions, which the guest library passes
 * to heisen, and the ANNOTATE_* macros that call them with the caller's
 * file and line. docs/annotations.md says what each means to heisen.
 */
#ifndef HEISEN_GUEST_DYNAMIC_ANNOTATIONS_H
#define HEISEN_GUEST_DYNAMIC_ANNOTATIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void AnnotateBenignRaceSized(const char *file, int line,
			     const volatile void *mem, size_t size,
			     const char *description);
void AnnotateBenignRace(const char *file, int line, const volatile void *mem,
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

/* Races on *pointer (its whole size) are benign: not reported. */
#define ANNOTATE_BENIGN_RACE(pointer, description)                             \
	AnnotateBenignRaceSized(__FILE__, __LINE__, (pointer),                 \
				sizeof(*(pointer)), (description))
#define ANNOTATE_BENIGN_RACE_SIZED(address, size, description)                 \
	AnnotateBenignRaceSized(__FILE__, __LINE__, (address), (size),         \
				(description))
/* What the calling thread did before ANNOTATE_HAPPENS_BEFORE(obj)
 * happens before what a thread does after a later
 * ANNOTATE_HAPPENS_AFTER(obj). */
#define ANNOTATE_HAPPENS_BEFORE(obj)                                           \
	AnnotateHappensBefore(__FILE__, __LINE__, (obj))
#define ANNOTATE_HAPPENS_AFTER(obj)                                            \
	AnnotateHappensAfter(__FILE__, __LINE__, (obj))
/* The calling thread's plain reads (writes) in between are not checked. */
#define ANNOTATE_IGNORE_READS_BEGIN()                                          \
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define ANNOTATE_IGNORE_READS_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#define ANNOTATE_IGNORE_WRITES_BEGIN()                                         \
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__)
#define ANNOTATE_IGNORE_WRITES_END()                                           \
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__)
#define ANNOTATE_IGNORE_READS_AND_WRITES_BEGIN()                               \
	do {                                                                   \
		ANNOTATE_IGNORE_READS_BEGIN();                                 \
		ANNOTATE_IGNORE_WRITES_BEGIN();                                \
	} while (0)
#define ANNOTATE_IGNORE_READS_AND_WRITES_END()                                 \
	do {                                                                   \
		ANNOTATE_IGNORE_WRITES_END();                                  \
		ANNOTATE_IGNORE_READS_END();                                   \
	} while (0)
/* [address, address + size) is new memory: its past accesses are
 * forgotten. */
#define ANNOTATE_NEW_MEMORY(address, size)                                     \
	AnnotateNewMemory(__FILE__, __LINE__, (address), (size))
/* The calling thread's name in race reports. */
#define ANNOTATE_THREAD_NAME(name) AnnotateThreadName(__FILE__, __LINE__, (name))

#endif
