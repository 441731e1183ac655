/*
 * history.c - the command-line history shared by `heisen shell` and the
 * TUI's ':' prompt: one plain file, one entry per line.
 */
#include "tui/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void history_warn(tui_history *h, const char *what, const char *path,
			 int errnum)
{
	if (h->warning[0])
		return;
	snprintf(h->warning, sizeof h->warning,
		 "cannot %s %s: %s (the history is not kept)", what, path,
		 strerror(errnum));
}

/* Creates every missing directory of dir, 0700 as XDG asks. */
static int mkdir_all(char *dir)
{
	for (char *p = dir + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			*p = c;
			return -1;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

static void history_push(tui_history *h, char *line)
{
	if (h->n == TUI_HISTORY_MAX) {
		free(h->v[0]);
		memmove(h->v, h->v + 1, (TUI_HISTORY_MAX - 1) * sizeof *h->v);
		h->n--;
	}
	h->v[h->n++] = line;
}

/* $XDG_STATE_HOME/heisen/history (an absolute XDG_STATE_HOME only, as
 * the spec says), else ~/.local/state/heisen/history. */
void tui_history_load(tui_history *h)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *dir, *line = NULL;
	size_t cap = 0, len;
	ssize_t got;
	FILE *f;

	memset(h, 0, sizeof *h);
	if (xdg && xdg[0] == '/')
		dir = malloc(strlen(xdg) + sizeof "/heisen");
	else if (home && home[0] == '/')
		dir = malloc(strlen(home) + sizeof "/.local/state/heisen");
	else
		return;
	if (!dir)
		return;
	if (xdg && xdg[0] == '/')
		sprintf(dir, "%s/heisen", xdg);
	else
		sprintf(dir, "%s/.local/state/heisen", home);
	len = strlen(dir);
	if (!(h->path = malloc(len + sizeof "/history"))) {
		free(dir);
		return;
	}
	sprintf(h->path, "%s/history", dir);
	if (mkdir_all(dir)) {
		history_warn(h, "create", dir, errno);
		free(dir);
		return;
	}
	free(dir);
	if (!(f = fopen(h->path, "r"))) {
		if (errno != ENOENT)
			history_warn(h, "read", h->path, errno);
		return;
	}
	while ((got = getline(&line, &cap, f)) >= 0) {
		char *copy;
		if (got && line[got - 1] == '\n')
			line[--got] = '\0';
		if (got && (copy = strdup(line)))
			history_push(h, copy);
	}
	free(line);
	fclose(f);
}

/* Rewrites the whole file (a temporary file renamed over it), so it never
 * holds more than TUI_HISTORY_MAX lines nor a half-written one. */
static void history_save(tui_history *h)
{
	char *tmp;
	int fd, err = 0;
	FILE *f;

	if (!h->path || h->warning[0])
		return;
	if (!(tmp = malloc(strlen(h->path) + sizeof ".XXXXXX")))
		return;
	sprintf(tmp, "%s.XXXXXX", h->path);
	if ((fd = mkstemp(tmp)) < 0) {
		history_warn(h, "write", h->path, errno);
		free(tmp);
		return;
	}
	errno = 0;
	if (!(f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
	}
	for (int i = 0; f && i < h->n; i++)
		fprintf(f, "%s\n", h->v[i]);
	if (f && (fflush(f) || ferror(f)))
		err = errno ? errno : EIO;
	if (f && fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, h->path))
		err = errno;
	if (err) {
		unlink(tmp);
		history_warn(h, "write", h->path, err);
	}
	free(tmp);
}

/* A line worth recalling: not blank, not hidden by a leading space, not
 * the line just before it again. */
bool tui_history_add(tui_history *h, const char *line)
{
	char *copy;

	if (line[0] == ' ' || !line[strspn(line, " \t")] ||
	    (h->n && !strcmp(h->v[h->n - 1], line)))
		return false;
	if (!(copy = strdup(line)))
		return false;
	history_push(h, copy);
	history_save(h);
	return true;
}

void tui_history_free(tui_history *h)
{
	for (int i = 0; i < h->n; i++)
		free(h->v[i]);
	free(h->path);
	h->n = 0;
}
