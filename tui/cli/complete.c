/*
 * complete.c - tab completion for the command line and the TUI's ':'
 * prompt. Everything it offers comes from the command table: names,
 * option names, and what an operand or option value is, read from the
 * usage synopsis ("show BUG") and the options' value names ("--db
 * FILE"), so a new command or option completes without a line here.
 */
#include "tui/cli/cli.h"

#include "db/db.h"
#include "db/nodes.h"
#include "detector/race.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The candidates found so far. Each is word[0, head) followed by what a
 * completer adds, so a value after "--db=" or a comma keeps its start. */
typedef struct cands {
	char **v;
	size_t n, cap;
	const char *word;
	size_t head;
	bool nomem;
} cands;

static void add(cands *c, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s;

	if (c->nomem)
		return;
	if (!(s = malloc(c->head + la + lb + 1))) {
		c->nomem = true;
		return;
	}
	memcpy(s, c->word, c->head);
	memcpy(s + c->head, a, la);
	memcpy(s + c->head + la, b, lb + 1);
	if (strncmp(s, c->word, strlen(c->word))) {
		free(s);
		return;
	}
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 32;
		char **nv = realloc(c->v, nc * sizeof *nv);
		if (!nv) {
			free(s);
			c->nomem = true;
			return;
		}
		c->v = nv;
		c->cap = nc;
	}
	c->v[c->n++] = s;
}

/* Ids in numeric order (9 before 10), everything else as bytes. */
static int cand_cmp(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	size_t la = strlen(a), lb = strlen(b);

	if (tui_is_decimal(a) && tui_is_decimal(b) && la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

/* ---- what an operand or an option value is ------------------------------ */

static void add_commands(cands *c)
{
	for (const tui_cmd *k = tui_commands; k->name; k++)
		add(c, k->name, "");
}

static void add_settings(cands *c)
{
	for (int i = 0; tui_settable[i].name; i++)
		add(c, tui_settable[i].name, "");
}

/* A profile, or one more of a comma-separated list of them. */
static void add_profiles(cands *c, bool list)
{
	const char *comma = list ? strrchr(c->word + c->head, ',') : NULL;

	if (comma)
		c->head = (size_t)(comma + 1 - c->word);
	for (int i = 0; det_profiles[i].name; i++)
		add(c, det_profiles[i].name, "");
}

/* Entries of the directory part of the value ("dir/sub/" of
 * "dir/sub/pre"), directories with a '/'. A leading "~/" stands for
 * $HOME and stays in the candidates. Hidden entries only when the name
 * typed starts with '.'. */
static void add_files(cands *c, bool dirs_only)
{
	const char *val = c->word + c->head, *slash = strrchr(val, '/');
	const char *home = getenv("HOME");
	size_t dlen = slash ? (size_t)(slash + 1 - val) : 0;
	const char *base = val + dlen;
	char *dir;
	DIR *d;
	struct dirent *e;

	if (val[0] == '~' && val[1] == '/' && home && *home) {
		size_t hl = strlen(home);
		if (!(dir = malloc(hl + dlen + 2)))
			goto nomem;
		memcpy(dir, home, hl);
		memcpy(dir + hl, val + 1, dlen - 1);
		dir[hl + dlen - 1] = '\0';
	} else if (!(dir = dlen ? strndup(val, dlen) : strdup("."))) {
		goto nomem;
	}
	c->head += dlen;
	if ((d = opendir(dir))) {
		size_t dl = strlen(dir);
		while ((e = readdir(d))) {
			struct stat st;
			char *full;
			bool isdir;

			if (!strcmp(e->d_name, ".") ||
			    !strcmp(e->d_name, "..") ||
			    (e->d_name[0] == '.' && base[0] != '.') ||
			    strncmp(e->d_name, base, strlen(base)))
				continue;
			if (!(full = malloc(dl + strlen(e->d_name) + 2))) {
				c->nomem = true;
				break;
			}
			sprintf(full, "%s/%s", dir, e->d_name);
			isdir = !stat(full, &st) && S_ISDIR(st.st_mode);
			free(full);
			if (isdir || !dirs_only)
				add(c, e->d_name, isdir ? "/" : "");
		}
		closedir(d);
	}
	free(dir);
	return;
nomem:
	c->nomem = true;
}

static bool add_bug(void *ctx, const db_bug *b)
{
	char id[24];

	snprintf(id, sizeof id, "%" PRId64, b->id);
	add(ctx, id, "");
	return true;
}

static bool add_campaign(void *ctx, const db_campaign *k)
{
	char id[24];

	snprintf(id, sizeof id, "%" PRId64, k->id);
	add(ctx, id, "");
	return true;
}

static bool add_run(void *ctx, const db_run *r)
{
	char id[24];

	snprintf(id, sizeof id, "%" PRId64, r->id);
	add(ctx, id, "");
	return true;
}

static bool newest(void *ctx, const db_campaign *k)
{
	*(int64_t *)ctx = k->id;
	return false;
}

static bool add_node(void *ctx, const db_remote *r)
{
	add(ctx, r->name, "");
	return true;
}

enum ids { IDS_BUG, IDS_CAMPAIGN, IDS_RUN, IDS_NODE };

/* Ids from the workspace the command would use, when it exists: a
 * completion must never create a database. Runs are those of the
 * newest campaign: all of them would be every run ever recorded. */
static void add_ids(cands *c, const char *dbopt, enum ids what)
{
	const char *path = db_path_choose(dbopt);
	struct stat st;
	int64_t last = 0;
	db *d;
	wasm_err e;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || db_open(path, &d, &e))
		return;
	if (what == IDS_BUG)
		db_bug_list(d, 0, add_bug, c, &e);
	else if (what == IDS_CAMPAIGN)
		db_campaign_list(d, add_campaign, c, &e);
	else if (what == IDS_NODE)
		db_remote_list(d, add_node, c, &e);
	else if (!db_campaign_list(d, newest, &last, &e) && last)
		db_run_list(d, last, 0, add_run, c, &e);
	db_close(d);
}

/* The option's row in some command: what a setting's value is. */
static const tui_opt *any_opt(const char *name)
{
	for (const tui_cmd *k = tui_commands; k->name; k++)
		for (const tui_opt *o = k->opts; o->name; o++)
			if (!strcmp(o->name, name))
				return o;
	return NULL;
}

/* The words of a value, "sarif|junit|jsonl", or of an optional one,
 * "[new|any]". */
static void add_choices(cands *c, const char *what)
{
	for (const char *p = what + (what[0] == '['); *p && *p != ']';) {
		size_t len = strcspn(p, "|]");
		char w[32];
		if (len < sizeof w) {
			memcpy(w, p, len);
			w[len] = '\0';
			add(c, w, "");
		}
		p += len + (p[len] == '|');
	}
}

static void add_value(cands *c, const char *opt, const char *what,
		      const char *dbopt)
{
	size_t n = strlen(what);

	if (opt && (!strcmp(opt, "--profile") || !strcmp(opt, "--profiles")))
		add_profiles(c, !strcmp(opt, "--profiles"));
	else if (what[0] == '[' || strchr(what, '|'))
		add_choices(c, what);
	else if (!strcmp(what, "COMMAND"))
		add_commands(c);
	else if (!strcmp(what, "NAME"))
		add_settings(c);
	else if (!strcmp(what, "BUG"))
		add_ids(c, dbopt, IDS_BUG);
	else if (!strcmp(what, "CAMPAIGN"))
		add_ids(c, dbopt, IDS_CAMPAIGN);
	else if (!strcmp(what, "RUN"))
		add_ids(c, dbopt, IDS_RUN);
	else if (!strncmp(what, "HOST", 4) || !strcmp(what, "DIR"))
		add_files(c, true);
	else if (strstr(what, "FILE") || !strcmp(what, "ARGS...") ||
		 (n > 5 && !strcmp(what + n - 5, ".wasm")))
		add_files(c, false);
}

/* ---- the command's synopsis --------------------------------------------- */

/* The name of operand idx in the first form of cmd's usage, counting
 * those before "--" (after_dashes false) or after it: the words that are
 * not an option nor an option's value, brackets dropped; the last one
 * repeats when it ends in "...". Writes it to buf; false when there is
 * none. */
static bool usage_operand(const tui_cmd *cmd, int idx, bool after_dashes,
			  char *buf, size_t cap)
{
	const char *p = cmd->usage;
	bool value_next = false, dashes = false;
	int depth = 0, n = 0;
	size_t len = 0;

	while (*p) {
		const char *w, *end;

		while (*p == ' ')
			p++;
		w = p;
		while (*p && *p != ' ')
			p++;
		end = p;
		for (const char *q = w; q < end; q++)
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
		while (w < end && *w == '[')
			w++;
		if (w == end || (*w == '|' && depth))
			continue;
		if (*w == '|')
			break; /* the command's next form */
		if (end - w == 2 && !strncmp(w, "--", 2)) {
			dashes = true;
		} else if (*w == '-') {
			value_next = end[-1] != ']';
		} else if (value_next) {
			value_next = false;
		} else if (dashes == after_dashes) {
			while (end > w && end[-1] == ']')
				end--;
			len = (size_t)(end - w) < cap ? (size_t)(end - w)
						      : cap - 1;
			memcpy(buf, w, len);
			buf[len] = '\0';
			if (n++ == idx)
				return true;
		}
	}
	return n && len > 3 && !strcmp(buf + len - 3, "...");
}

static const tui_opt *find_opt(const tui_cmd *cmd, const char *w, size_t len)
{
	for (const tui_opt *o = cmd->opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, w, len))
			return o;
	return NULL;
}

/* The words of the command that line[0, start) ends in, before the word
 * being completed. A marker byte stands for that word while splitting:
 * the command that holds it is the current one; when the marker is lost
 * in a comment there is nothing to complete. An unclosed quote opens
 * the word being completed. */
static bool words_before(const char *line, size_t start, tui_words *w)
{
	enum { MARK = '\x01' };
	char *buf = malloc(start + 2);
	size_t pos = 0, end = start;
	wasm_err e;
	wasm_status st;
	bool ok = false;

	if (!buf)
		return false;
	memcpy(buf, line, start);
	buf[end] = MARK;
	buf[end + 1] = '\0';
	for (;;) {
		if ((st = tui_split_words(buf, &pos, w, &e))) {
			if (st != WASM_MALFORMED || e.offset >= end)
				break;
			/* Only an unclosed quote can fail before the
			 * marker: it opens the current word. */
			end = e.offset;
			buf[end] = MARK;
			buf[end + 1] = '\0';
			pos = 0;
			continue;
		}
		if (buf[pos]) {
			tui_words_free(w);
			continue;
		}
		if (w->argc) {
			const char *last = w->argv[w->argc - 1];
			ok = last[strlen(last) - 1] == MARK;
		}
		if (ok)
			w->argv[--w->argc] = NULL;
		else
			tui_words_free(w);
		break;
	}
	free(buf);
	return ok;
}

static void collect(cands *c, tui_session *s, const tui_words *w)
{
	const tui_cmd *cmd;
	const tui_opt *pending = NULL;
	const char *dbopt = NULL;
	int before = 0, after = 0;
	bool dashes = false;
	char what[64];

	if (!w->argc) {
		add_commands(c);
		return;
	}
	if (!(cmd = tui_find_cmd(w->argv[0])))
		return;
	for (int i = 0; tui_settable[i].name && s; i++)
		if (!strcmp(tui_settable[i].name, "db"))
			dbopt = s->val[i];
	for (int i = 1; i < w->argc; i++) {
		const char *a = w->argv[i], *eq;
		const tui_opt *o;

		if (pending) {
			if (!strcmp(pending->name, "--db"))
				dbopt = a;
			pending = NULL;
		} else if (cmd->max_operands == TUI_RAW_ARGS || dashes ||
			   a[0] != '-' || !a[1]) {
			*(dashes ? &after : &before) += 1;
		} else if (!strcmp(a, "--")) {
			dashes = true;
		} else {
			eq = strchr(a, '=');
			o = find_opt(cmd, a, eq ? (size_t)(eq - a) : strlen(a));
			/* The word after an optional value's option may
			 * be an operand. */
			if (o && o->arg && o->arg[0] != '[' && !eq)
				pending = o;
			else if (o && eq && !strcmp(o->name, "--db"))
				dbopt = eq + 1;
		}
	}
	if (pending) {
		add_value(c, pending->name, pending->arg, dbopt);
	} else if (c->word[0] == '-' && !dashes) {
		const char *eq = strchr(c->word, '=');
		const tui_opt *o =
		    eq ? find_opt(cmd, c->word, (size_t)(eq - c->word)) : NULL;
		if (o && o->arg) {
			c->head = (size_t)(eq + 1 - c->word);
			add_value(c, o->name, o->arg, dbopt);
		} else if (!eq) {
			for (o = cmd->opts; o->name; o++)
				add(c, o->name, "");
		}
	} else if (cmd->max_operands == TUI_RAW_ARGS) {
		add_files(c, false);
	} else if ((!strcmp(cmd->name, "fetch") ||
		    !strcmp(cmd->name, "dispatch")) &&
		   !dashes) {
		/* NAME...: the workspace's nodes; dispatch's program too. */
		add_ids(c, dbopt, IDS_NODE);
		if (!strcmp(cmd->name, "dispatch"))
			add_files(c, false);
	} else if (!strcmp(cmd->name, "node") && before >= 1) {
		/* A new node's name and URL are the user's to invent. */
		if (before == 1 && (!strcmp(w->argv[1], "check") ||
				    !strcmp(w->argv[1], "remove") ||
				    !strcmp(w->argv[1], "status")))
			add_ids(c, dbopt, IDS_NODE);
	} else if (!strcmp(cmd->name, "set") && before == 1) {
		/* set NAME VALUE: VALUE is what the option of NAME takes. */
		for (int i = 0; tui_settable[i].name; i++) {
			const tui_opt *o = any_opt(tui_settable[i].option);
			if (o && o->arg &&
			    !strcmp(tui_settable[i].name, w->argv[1]))
				add_value(c, o->name, o->arg, dbopt);
		}
	} else if (usage_operand(cmd, dashes ? after : before, dashes, what,
				 sizeof what)) {
		add_value(c, NULL, what, dbopt);
	}
}

void tui_complete(tui_session *s, const char *line, size_t start, size_t end,
		  tui_complete_cb cb, void *ctx)
{
	cands c = {0};
	tui_words w;
	char *word = strndup(line + start, end - start);

	if (!word)
		return;
	c.word = word;
	if (words_before(line, start, &w)) {
		collect(&c, s, &w);
		tui_words_free(&w);
	}
	if (c.n)
		qsort(c.v, c.n, sizeof *c.v, cand_cmp);
	for (size_t i = 0; i < c.n; i++)
		if (!i || strcmp(c.v[i], c.v[i - 1]))
			if (!cb(ctx, c.v[i]))
				break;
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	free(word);
}
