/*
 * valgrind/helgrind.h - the Helgrind client requests that have a
 * meaning to heisen, for `heisen cc` (docs/annotations.md):
 *   VALGRIND_HG_DISABLE_CHECKING(start, len)  races on the bytes are
 *                                             benign (for the whole run:
 *                                             heisen has no ENABLE)
 *   VALGRIND_HG_CLEAN_MEMORY(start, len)      the bytes are new memory
 * and the ANNOTATE_* macros of dynamic_annotations.h, which Helgrind's
 * header defines too. Helgrind's other requests (its own mutex and
 * barrier events, which heisen learns from the guest library itself)
 * are not provided.
 */
#ifndef HEISEN_GUEST_VALGRIND_HELGRIND_H
#define HEISEN_GUEST_VALGRIND_HELGRIND_H

#include <dynamic_annotations.h>

#define VALGRIND_HG_DISABLE_CHECKING(start, len)                               \
	AnnotateBenignRaceSized(__FILE__, __LINE__, (start), (len),            \
				"VALGRIND_HG_DISABLE_CHECKING")
#define VALGRIND_HG_CLEAN_MEMORY(start, len)                                   \
	AnnotateNewMemory(__FILE__, __LINE__, (start), (len))

#endif
