/*
 * exceptions.c - reading the spec runners' known-exceptions files.
 */
#include "exceptions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool spec_exceptions_read(const char *prog, const char *path,
			  spec_exc_add add, void *ctx)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	bool ok = true;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return false;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *s = line, *colon, *end = NULL, *reason;
		long n;

		lineno++;
		s[strcspn(s, "\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		colon = strchr(s, ':');
		n = colon ? strtol(colon + 1, &end, 10) : 0;
		reason = end;
		while (reason && (*reason == ' ' || *reason == '\t'))
			reason++;
		if (!colon || end == colon + 1 || n <= 0 ||
		    (*end != ' ' && *end != '\t') || !*reason) {
			fprintf(stderr,
				"%s: %s:%d: expected \"suite/file.wast:LINE "
				"reason\"\n",
				prog, path, lineno);
			ok = false;
			break;
		}
		*colon = '\0';
		add(ctx, s, n, reason, lineno);
	}
	free(line);
	fclose(f);
	return ok;
}
