/*
 * exceptions.h - the known-exceptions files of the spec runners
 * (tests/spec/exceptions.txt, run_exceptions.txt): one case per line,
 * "suite/file.wast:LINE reason", blank lines and # comments ignored.
 */
#ifndef HEISEN_TESTS_SPEC_EXCEPTIONS_H
#define HEISEN_TESTS_SPEC_EXCEPTIONS_H

#include <stdbool.h>

/* Called once per case; the strings are valid only during the call. */
typedef void (*spec_exc_add)(void *ctx, const char *file, long line,
			     const char *reason, int src_line);

/* Read path, calling add for each case. On an unreadable file or a
 * malformed line prints "PROG: PATH:LINE: ..." to stderr and returns
 * false. */
bool spec_exceptions_read(const char *prog, const char *path,
			  spec_exc_add add, void *ctx);

#endif
