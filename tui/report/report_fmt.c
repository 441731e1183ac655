/*
 * report_fmt.c - SARIF 2.1.0, JUnit XML and heisen.event/1 lines for the
 * bugs that bugs, sweep and check report (report_fmt.h).
 *
 * The three formats read the same things: a bug's row (db_bug) and its
 * report (tui_report: both call stacks, the evidence run, the race text),
 * loaded one bug at a time at close, so a long list holds one report in
 * memory at once.
 */
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/report/report_fmt.h"

#include "tui/report/jsonw.h"
#include "tui/report/race.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EVENT_SCHEMA "heisen.event/1"
#define SARIF_SCHEMA                                                           \
	"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"  \
	"sarif-schema-2.1.0.json"
#define SARIF_ROOT "SRCROOT"

static const char *const format_names[] = {
    [TUI_FORMAT_SARIF] = "sarif",
    [TUI_FORMAT_JUNIT] = "junit",
    [TUI_FORMAT_JSONL] = "jsonl",
};

int tui_format_parse(const tui_cmd *cmd, const tui_args *a, tui_format *f,
		     char **root, FILE *err)
{
	const char *v = tui_opt_value(cmd, a, "--format");
	const char *r = tui_opt_value(cmd, a, "--source-root");
	struct stat sb;
	char *real;

	*f = TUI_FORMAT_TEXT;
	*root = NULL;
	if (v) {
		for (int i = TUI_FORMAT_SARIF; i <= TUI_FORMAT_JSONL; i++)
			if (!strcmp(v, format_names[i]))
				*f = (tui_format)i;
		if (*f == TUI_FORMAT_TEXT) {
			fprintf(err,
				"heisen %s: --format takes sarif, junit or "
				"jsonl, not '%s'\n",
				cmd->name, v);
			return TUI_EXIT_USAGE;
		}
		if (tui_opt_value(cmd, a, "--json")) {
			fprintf(err,
				"heisen %s: --format and --json cannot be "
				"combined (--json is heisen's own schema, "
				"docs/json.md)\n",
				cmd->name);
			return TUI_EXIT_USAGE;
		}
	}
	if (!r)
		return TUI_EXIT_OK;
	if (*f != TUI_FORMAT_SARIF) {
		fprintf(err,
			"heisen %s: --source-root applies to --format "
			"sarif only\n",
			cmd->name);
		return TUI_EXIT_USAGE;
	}
	/* The real path: DWARF records the directories a compiler ran in
	 * as getcwd gives them, without symbolic links. */
	if (!(real = realpath(r, NULL)) || stat(real, &sb) ||
	    !S_ISDIR(sb.st_mode)) {
		fprintf(err, "heisen %s: --source-root %s: %s\n", cmd->name, r,
			real ? "not a directory" : strerror(errno));
		free(real);
		return TUI_EXIT_USAGE;
	}
	*root = wasm_malloc(strlen(real) + 2);
	if (!*root) {
		free(real);
		fprintf(err, "heisen %s: out of memory\n", cmd->name);
		return TUI_EXIT_INTERNAL;
	}
	strcpy(*root, real);
	if (strcmp(real, "/"))
		strcat(*root, "/");
	free(real);
	return TUI_EXIT_OK;
}

/* ---- encoders ------------------------------------------------------------ */

/* The length of the UTF-8 sequence at s (n bytes left) when it is one
 * XML 1.0 allows, else 0. */
static size_t xml_char(const unsigned char *s, size_t n)
{
	uint32_t c;
	size_t len;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ||
		       s[0] == '\r';
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF, U+FFFE/U+FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c == 0xfffe ||
	    c == 0xffff)
		return 0;
	return len;
}

void tui_xml_text(FILE *out, const char *s, size_t n, bool attr)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t len = xml_char(p + i, n - i);
		switch (len ? p[i] : 0) {
		case 0: fputs("\xef\xbf\xbd", out); break;
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		/* A parser turns a raw CR into LF, and in an attribute any
		 * of the three into a space. */
		case '\r': fputs("&#13;", out); break;
		case '"':
		case '\t':
		case '\n':
			if (attr) {
				fprintf(out, "&#%d;", p[i]);
				break;
			}
			/* fall through */
		default: fwrite(p + i, 1, len, out);
		}
		i += len ? len : 1;
	}
}

static bool uri_keeps(unsigned char c, bool relative)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	/* A relative reference's first segment must not look like a
	 * scheme: ':' is encoded in all of its segments. */
	if (c == ':')
		return !relative;
	return c && strchr("-._~!$&'()*+,;=@/", c);
}

char *tui_file_uri(const char *path, const char *root, bool *relative)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t rl = root ? strlen(root) : 0;
	const char *rest = path;
	char *uri, *o;

	*relative = rl && !strncmp(path, root, rl) && path[rl];
	if (*relative)
		rest = path + rl;
	uri = wasm_malloc(sizeof "file://" + 3 * strlen(rest));
	if (!uri)
		return NULL;
	o = uri;
	if (rest[0] == '/')
		o += sprintf(o, "file://");
	for (const unsigned char *p = (const unsigned char *)rest; *p; p++) {
		if (uri_keeps(*p, rest[0] != '/')) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return uri;
}

/* ---- the emitter --------------------------------------------------------- */

static wasm_status emit_nomem(tui_emit *em)
{
	if (!em->st)
		em->st = wasm_err_set(&em->err, WASM_NOMEM, WASM_NO_OFFSET,
				      "out of memory");
	return em->st;
}

void tui_emit_init(tui_emit *em, tui_format fmt, const char *command, FILE *out,
		   db *d, tui_gate gate, char *root)
{
	memset(em, 0, sizeof *em);
	em->fmt = fmt;
	em->command = command;
	em->out = out;
	em->d = d;
	em->gate = gate;
	em->root = root;
	wasm_err_clear(&em->err);
}

void tui_emit_program(tui_emit *em, const char *name)
{
	char *copy;

	name = name ? name : "?";
	for (size_t i = 0; i < em->nprog; i++)
		if (!strcmp(em->prog[i], name))
			return;
	if (em->nprog == em->capprog) {
		size_t cap = em->capprog ? 2 * em->capprog : 8;
		char **v = wasm_realloc(em->prog, cap * sizeof *v);
		if (!v) {
			emit_nomem(em);
			return;
		}
		em->prog = v;
		em->capprog = cap;
	}
	if (!(copy = wasm_strdup(name))) {
		emit_nomem(em);
		return;
	}
	em->prog[em->nprog++] = copy;
}

static bool campaign_program(void *ctx, const db_campaign *c)
{
	tui_emit *em = ctx;

	tui_emit_program(em, c->program);
	return !em->st;
}

wasm_status tui_emit_programs(tui_emit *em, wasm_err *e)
{
	wasm_status st = db_campaign_list(em->d, campaign_program, em, e);

	if (!st && em->st) {
		*e = em->err;
		st = em->st;
	}
	return st;
}

bool tui_emit_bug(tui_emit *em, const db_bug *b)
{
	if (em->nbug == em->capbug) {
		size_t cap = em->capbug ? 2 * em->capbug : 16;
		db_bug *v = wasm_realloc(em->bug, cap * sizeof *v);
		if (!v)
			return !emit_nomem(em);
		em->bug = v;
		em->capbug = cap;
	}
	if (!db_bug_copy(b, &em->bug[em->nbug]))
		return !emit_nomem(em);
	em->nbug++;
	tui_emit_program(em, b->program);
	return !em->st;
}

static void event_begin(tui_emit *em, tui_json *j, const char *type)
{
	tui_json_init(j, em->out);
	tui_json_obj(j, NULL);
	tui_json_str(j, "schema", EVENT_SCHEMA);
	tui_json_str(j, "type", type);
	tui_json_str(j, "command", em->command);
}

/* A line goes out whole and at once: a reader follows the sweep. */
static void event_end(tui_emit *em, tui_json *j)
{
	tui_json_end(j, '}');
	tui_json_done(j);
	fflush(em->out);
}

void tui_emit_run(tui_emit *em, const db_run *r, const db_hit *hits,
		  uint32_t nhits)
{
	char seed[20];
	tui_json j;

	if (em->fmt != TUI_FORMAT_JSONL)
		return;
	em->runs++;
	snprintf(seed, sizeof seed, "%016" PRIx64, r->seed);
	event_begin(em, &j, "run");
	tui_json_i64(&j, "campaign", r->campaign_id);
	tui_json_i64(&j, "run", r->id);
	tui_json_u64(&j, "index", r->idx);
	tui_json_str_or_null(&j, "profile", r->profile);
	tui_json_u64(&j, "density_bp", r->density_bp);
	tui_json_str(&j, "seed", seed);
	tui_json_str_or_null(&j, "status", r->status);
	tui_json_i64(&j, "exit_code", r->exit_code);
	tui_json_str_or_null(&j, "message", r->msg);
	tui_json_u64(&j, "duration_us", r->duration_us);
	/* The run's insert created its bugs: this connection sees them. */
	tui_json_arr(&j, "bugs");
	for (uint32_t i = 0; i < nhits; i++) {
		int64_t id = 0;
		wasm_err e;
		wasm_status st =
		    db_bug_find(em->d, em->program_id, hits[i].site[0].id,
				hits[i].site[1].id, &id, &e);
		if (st && !em->st) {
			em->st = st;
			em->err = e;
		}
		if (id)
			tui_json_i64(&j, NULL, id);
	}
	tui_json_end(&j, ']');
	event_end(em, &j);
}

/* ---- what the formats say about a bug ------------------------------------ */

/* Race kinds, SARIF's rules: one list that the rules array, results'
 * ruleId and JUnit's failure type read. */
enum { RULE_READ_WRITE, RULE_WRITE_WRITE, RULE_MIXED_ATOMIC, NRULES };
static const struct race_rule {
	const char *id, *name, *brief, *full, *help;
} race_rules[NRULES] = {
    [RULE_READ_WRITE] =
	{"data-race", "DataRace",
	 "A write and a read of the same memory race between threads.",
	 "Two threads access the same bytes of shared memory, one writes "
	 "and the other reads, and nothing orders the two accesses: the "
	 "read may see the old value, the new one or, for wider accesses, a "
	 "mix.",
	 "Order the two accesses: hold one mutex around both, or make both "
	 "atomic. 'heisen show BUG' prints both call stacks; 'heisen replay "
	 "BUG' forces the race to happen."},
    [RULE_WRITE_WRITE] =
	{"data-race-write-write", "WriteWriteRace",
	 "Two writes to the same memory race between threads.",
	 "Two threads write the same bytes of shared memory and nothing "
	 "orders the writes: one of them is lost (a lost update when each "
	 "write stores a value computed from an earlier read).",
	 "Order the two writes: hold one mutex around each read-modify-write "
	 "sequence, or use an atomic read-modify-write. 'heisen show BUG' "
	 "prints both call stacks; 'heisen replay BUG' forces the race to "
	 "happen."},
    [RULE_MIXED_ATOMIC] =
	{"data-race-mixed-atomic", "MixedAtomicRace",
	 "An atomic and a plain access to the same memory race between "
	 "threads.",
	 "One thread accesses the bytes atomically, another with a plain "
	 "load or store, and nothing orders the two: the atomic access does "
	 "not protect the plain one.",
	 "Make every access to the location atomic, or order the plain one "
	 "with a mutex or a release/acquire pair. 'heisen show BUG' prints "
	 "both call stacks."},
};

static int rule_of(const db_bug *b)
{
	char k0 = tui_kind_letter(b->site[0].kind);
	char k1 = tui_kind_letter(b->site[1].kind);

	if ((k0 == 'A') != (k1 == 'A'))
		return RULE_MIXED_ATOMIC;
	return k0 == 'W' && k1 == 'W' ? RULE_WRITE_WRITE : RULE_READ_WRITE;
}

/* The access a report names first: the plain write when one site is. */
static int first_access(const db_bug *b)
{
	return tui_kind_letter(b->site[0].kind) != 'W' &&
	       tui_kind_letter(b->site[1].kind) == 'W';
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* "write of 4 bytes in deposit (lost-update.c:36)" */
static void access_text(const struct db_bug_site *s, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s", tui_access_name(s->kind, false));

	if (s->width && n >= 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " of %u byte%s",
			      s->width, s->width == 1 ? "" : "s");
	if (n >= 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " in %s",
			      s->func ? s->func : "?");
	if (s->file && *s->file && n >= 0 && (size_t)n < cap) {
		if (s->line)
			snprintf(buf + n, cap - (size_t)n, " (%s:%u)",
				 base_name(s->file), s->line);
		else
			snprintf(buf + n, cap - (size_t)n, " (%s)",
				 base_name(s->file));
	}
}

/* The one-line message of a bug: SARIF's result message, JUnit's
 * failure message. */
static void bug_message(const db_bug *b, char *buf, size_t cap)
{
	int f = first_access(b);
	char a0[400], a1[400];

	access_text(&b->site[f], a0, sizeof a0);
	access_text(&b->site[1 - f], a1, sizeof a1);
	snprintf(buf, cap,
		 "Data race: %s and %s, in different threads with nothing "
		 "ordering them (bug %" PRId64 " of %s, detected by %" PRIu64
		 " run%s, triage state %s)",
		 a0, a1, b->id, b->program ? b->program : "?", b->runs,
		 b->runs == 1 ? "" : "s", db_state_name(b->state));
}

/* ---- SARIF --------------------------------------------------------------- */

/* SARIF's message and description objects: {"text": text} under key. */
static void sarif_text(tui_json *j, const char *key, const char *text)
{
	tui_json_obj(j, key);
	tui_json_str(j, "text", text);
	tui_json_end(j, '}');
}

/* A SARIF location object under key: the file and line when known, the
 * function as a logical location and as the message. */
static void sarif_location(tui_emit *em, tui_json *j, const char *key,
			   const char *func, const char *file, uint32_t line,
			   const char *msg)
{
	tui_json_obj(j, key);
	if (file && *file) {
		bool rel;
		char *uri = tui_file_uri(file, em->root, &rel);
		if (!uri) {
			emit_nomem(em);
		} else {
			tui_json_obj(j, "physicalLocation");
			tui_json_obj(j, "artifactLocation");
			tui_json_str(j, "uri", uri);
			if (rel)
				tui_json_str(j, "uriBaseId", SARIF_ROOT);
			tui_json_end(j, '}');
			if (line) {
				tui_json_obj(j, "region");
				tui_json_u64(j, "startLine", line);
				tui_json_end(j, '}');
			}
			tui_json_end(j, '}');
			wasm_free(uri);
		}
	}
	tui_json_arr(j, "logicalLocations");
	tui_json_obj(j, NULL);
	tui_json_str(j, "name", func ? func : "?");
	tui_json_str(j, "kind", "function");
	tui_json_end(j, '}');
	tui_json_end(j, ']');
	sarif_text(j, "message", msg ? msg : func ? func : "?");
	tui_json_end(j, '}');
}

static void sarif_site(tui_emit *em, tui_json *j, const struct db_bug_site *s,
		       const char *what)
{
	char acc[400], text[480];

	access_text(s, acc, sizeof acc);
	snprintf(text, sizeof text, "%s: %s", what, acc);
	sarif_location(em, j, NULL, s->func, s->file, s->line, text);
}

/* One access's thread flow: its call stack, innermost frame first (frame
 * 0 is the racing access), or the site alone when no stack was kept. */
static void sarif_thread_flow(tui_emit *em, tui_json *j, const tui_report *r,
			      int i)
{
	const struct db_bug_site *s = &r->bug.site[i];
	const db_stack *st = &r->stack[i];
	const tui_example *x = r->evidence >= 0 ? &r->ex[r->evidence] : NULL;
	const db_locks *const acc[2] = {&r->locks[0], &r->locks[1]};
	char text[1200], where[300];

	access_text(s, text, sizeof text);
	if (x)
		snprintf(text + strlen(text), sizeof text - strlen(text),
			 ", by thread %u at 0x%08x (run %" PRId64 ")",
			 x->tid[i], x->addr[i], x->run);
	/* The locks held, as the text report's access line and Mutex
	 * lines name them. */
	for (uint32_t k = 0; k < r->locks[i].n; k++) {
		const db_lock *l = &r->locks[i].lock[k];
		size_t n = strlen(text);
		bool at = tui_loc_text(&l->loc, where, sizeof where);
		snprintf(text + n, sizeof text - n,
			 "%s %s M%u (%s at 0x%08x%s%s)", k ? "," : ", holding",
			 tui_lock_mode(l->kind), tui_lock_number(acc, i, k),
			 tui_lock_type(l->kind), l->addr, at ? ", " : "",
			 at ? where : "");
	}
	tui_json_obj(j, NULL);
	sarif_text(j, "message", text);
	tui_json_obj(j, "properties");
	tui_json_locks(j, "locks", "locksHeld", acc, i);
	tui_json_end(j, '}');
	tui_json_arr(j, "locations");
	if (!st->n) {
		tui_json_obj(j, NULL);
		sarif_location(em, j, "location", s->func, s->file, s->line,
			       NULL);
		tui_json_end(j, '}');
	}
	for (uint32_t k = 0; k < st->n; k++) {
		const db_frame *f = &st->frame[k];
		char inl[300];
		/* As the text report marks it: the frame's function was
		 * inlined into the next one. */
		snprintf(inl, sizeof inl, "%s (inlined)", f->func);
		tui_json_obj(j, NULL);
		sarif_location(em, j, "location", f->func, f->file, f->line,
			       f->inlined ? inl : NULL);
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_end(j, '}');
}

static void sarif_result(tui_emit *em, tui_json *j, const db_bug *b,
			 const tui_report *r)
{
	int rule = rule_of(b), f = first_access(b);
	char msg[1024], kinds[8];

	bug_message(b, msg, sizeof msg);
	tui_fmt_kinds(b, kinds, sizeof kinds);
	tui_json_obj(j, NULL);
	tui_json_str(j, "ruleId", race_rules[rule].id);
	tui_json_u64(j, "ruleIndex", (uint64_t)rule);
	/* Triaged intended or harmless: still listed, below what code
	 * scanning gates on. */
	tui_json_str(j, "level",
		     b->state == DB_STATE_NOT_A_BUG ? "note" : "error");
	sarif_text(j, "message", msg);
	tui_json_arr(j, "locations");
	sarif_site(em, j, &b->site[f], "This access");
	tui_json_end(j, ']');
	tui_json_arr(j, "relatedLocations");
	sarif_site(em, j, &b->site[1 - f], "The access it races with");
	tui_json_end(j, ']');
	tui_json_arr(j, "codeFlows");
	tui_json_obj(j, NULL);
	tui_json_arr(j, "threadFlows");
	sarif_thread_flow(em, j, r, f);
	sarif_thread_flow(em, j, r, 1 - f);
	tui_json_end(j, ']');
	tui_json_end(j, '}');
	tui_json_end(j, ']');
	tui_json_obj(j, "partialFingerprints");
	tui_json_str_or_null(j, "heisenSignature/v1", b->sig);
	tui_json_end(j, '}');
	tui_json_obj(j, "properties");
	tui_json_i64(j, "bug", b->id);
	tui_json_str_or_null(j, "program", b->program);
	tui_json_str(j, "state", db_state_name(b->state));
	tui_json_u64(j, "runs", b->runs);
	tui_json_str(j, "kinds", kinds);
	tui_json_str(j, "found_by", db_found_name(b->found_by));
	tui_json_u64(j, "builds", b->builds);
	tui_json_end(j, '}');
	tui_json_end(j, '}');
}

static void sarif_begin(tui_emit *em, tui_json *j)
{
	tui_json_init(j, em->out);
	tui_json_obj(j, NULL);
	tui_json_str(j, "$schema", SARIF_SCHEMA);
	tui_json_str(j, "version", "2.1.0");
	tui_json_arr(j, "runs");
	tui_json_obj(j, NULL);
	tui_json_obj(j, "tool");
	tui_json_obj(j, "driver");
	tui_json_str(j, "name", "heisen");
	tui_json_str(j, "version", HEISEN_VERSION);
	tui_json_str(j, "semanticVersion", HEISEN_VERSION);
	tui_json_arr(j, "rules");
	for (int i = 0; i < NRULES; i++) {
		const struct race_rule *r = &race_rules[i];
		tui_json_obj(j, NULL);
		tui_json_str(j, "id", r->id);
		tui_json_str(j, "name", r->name);
		sarif_text(j, "shortDescription", r->brief);
		sarif_text(j, "fullDescription", r->full);
		sarif_text(j, "help", r->help);
		tui_json_obj(j, "defaultConfiguration");
		tui_json_str(j, "level", "error");
		tui_json_end(j, '}');
		tui_json_obj(j, "properties");
		tui_json_arr(j, "tags");
		tui_json_str(j, NULL, "concurrency");
		tui_json_str(j, NULL, "data-race");
		tui_json_end(j, ']');
		tui_json_end(j, '}');
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_end(j, '}');
	tui_json_end(j, '}');
	if (em->root) {
		bool rel;
		char *uri = tui_file_uri(em->root, NULL, &rel);
		if (!uri) {
			emit_nomem(em);
		} else {
			tui_json_obj(j, "originalUriBaseIds");
			tui_json_obj(j, SARIF_ROOT);
			tui_json_str(j, "uri", uri);
			tui_json_end(j, '}');
			tui_json_end(j, '}');
			wasm_free(uri);
		}
	}
	tui_json_arr(j, "results");
}

/* ---- the end ------------------------------------------------------------- */

static uint64_t count_failing(const tui_emit *em)
{
	uint64_t n = 0;

	for (size_t i = 0; i < em->nbug; i++)
		n += tui_gate_fails(em->gate, em->bug[i].state);
	return n;
}

static const char *gate_name(tui_gate g)
{
	return g == TUI_GATE_ANY ? "any" : g == TUI_GATE_NEW ? "new" : NULL;
}

/* The members every format's summary has, into j's open object. */
static void json_end_members(tui_emit *em, tui_json *j, const tui_emit_end *end)
{
	if (end->campaign)
		tui_json_i64(j, "campaign", end->campaign);
	else
		tui_json_null(j, "campaign");
	tui_json_str_or_null(j, "status", end->status);
	tui_json_u64(j, "bugs", em->nbug);
	tui_json_u64(j, "suppressed", end->suppressed);
	tui_json_str_or_null(j, "fail_on_bugs", gate_name(em->gate));
	tui_json_u64(j, "failing", count_failing(em));
}

static void sarif_end(tui_emit *em, tui_json *j, const tui_emit_end *end)
{
	tui_json_end(j, ']');
	tui_json_obj(j, "properties");
	tui_json_str(j, "command", em->command);
	json_end_members(em, j, end);
	tui_json_end(j, '}');
	tui_json_end(j, '}');
	tui_json_end(j, ']');
	tui_json_end(j, '}');
	tui_json_done(j);
}

static void jsonl_bug(tui_emit *em, const db_bug *b, const tui_report *r)
{
	const db_locks *const acc[2] = {&r->locks[0], &r->locks[1]};
	char kinds[8], msg[1024];
	tui_json j;

	tui_fmt_kinds(b, kinds, sizeof kinds);
	bug_message(b, msg, sizeof msg);
	event_begin(em, &j, "bug");
	tui_json_i64(&j, "bug", b->id);
	tui_json_i64(&j, "program_id", b->program_id);
	tui_json_str_or_null(&j, "program", b->program);
	tui_json_str(&j, "rule", race_rules[rule_of(b)].id);
	tui_json_str(&j, "message", msg);
	tui_json_str(&j, "kinds", kinds);
	tui_json_str_or_null(&j, "signature", b->sig);
	tui_json_str(&j, "state", db_state_name(b->state));
	tui_json_u64(&j, "runs", b->runs);
	tui_json_str(&j, "found_by", db_found_name(b->found_by));
	tui_json_u64(&j, "first_run", b->first_run);
	tui_json_u64(&j, "builds", b->builds);
	tui_json_arr(&j, "sites");
	for (int i = 0; i < 2; i++) {
		tui_json_obj(&j, NULL);
		tui_json_site(&j, &b->site[i]);
		if (b->site[i].width)
			tui_json_u64(&j, "width", b->site[i].width);
		else
			tui_json_null(&j, "width");
		tui_json_stack(&j, "stack", &r->stack[i]);
		tui_json_locks(&j, "locks", "locks_held", acc, i);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	event_end(em, &j);
}

static void jsonl_end(tui_emit *em, const tui_emit_end *end)
{
	tui_json j;

	event_begin(em, &j, "summary");
	tui_json_arr(&j, "programs");
	for (size_t i = 0; i < em->nprog; i++)
		tui_json_str(&j, NULL, em->prog[i]);
	tui_json_end(&j, ']');
	if (end->ran)
		tui_json_u64(&j, "runs", em->runs);
	else
		tui_json_null(&j, "runs");
	json_end_members(em, &j, end);
	event_end(em, &j);
}

/* ---- JUnit --------------------------------------------------------------- */

static void xml_attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	tui_xml_text(out, value, strlen(value), true);
	fputc('"', out);
}

static void xml_attr_u64(FILE *out, const char *name, uint64_t v)
{
	fprintf(out, " %s=\"%" PRIu64 "\"", name, v);
}

static void junit_property(FILE *out, const char *name, const char *value)
{
	fputs("      <property", out);
	xml_attr(out, "name", name);
	xml_attr(out, "value", value);
	fputs("/>\n", out);
}

static bool has_bug(const tui_emit *em, const char *prog)
{
	for (size_t i = 0; i < em->nbug; i++)
		if (!strcmp(em->bug[i].program ? em->bug[i].program : "?",
			    prog))
			return true;
	return false;
}

static void junit_begin(tui_emit *em, const tui_emit_end *end)
{
	FILE *out = em->out;
	uint64_t failed = 0;
	char num[24];

	for (size_t i = 0; i < em->nprog; i++)
		failed += has_bug(em, em->prog[i]);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
	xml_attr(out, "name", "heisen");
	xml_attr_u64(out, "tests", em->nprog);
	xml_attr_u64(out, "failures", failed);
	fputs(">\n  <testsuite", out);
	xml_attr(out, "name", "heisen");
	xml_attr_u64(out, "tests", em->nprog);
	xml_attr_u64(out, "failures", failed);
	xml_attr_u64(out, "errors", 0);
	fputs(">\n    <properties>\n", out);
	junit_property(out, "command", em->command);
	if (end->campaign) {
		snprintf(num, sizeof num, "%" PRId64, end->campaign);
		junit_property(out, "campaign", num);
	}
	if (end->status)
		junit_property(out, "status", end->status);
	snprintf(num, sizeof num, "%zu", em->nbug);
	junit_property(out, "bugs", num);
	snprintf(num, sizeof num, "%" PRIu64, end->suppressed);
	junit_property(out, "suppressed", num);
	fputs("    </properties>\n", out);
}

/* "lost-update" of "lost-update.wasm": a JUnit reader splits a class
 * name at its dots. */
static void junit_classname(FILE *out, const char *prog)
{
	size_t n = strlen(prog);

	if (n > 5 && !strcmp(prog + n - 5, ".wasm"))
		n -= 5;
	fputs(" classname=\"heisen.", out);
	tui_xml_text(out, prog, n, true);
	fputc('"', out);
}

/* A failure of the open test case: the message, the race report with
 * both stacks in the body (out of memory: em->st says so). */
static void junit_failure(tui_emit *em, const db_bug *b, const tui_report *r)
{
	char msg[1024], kinds[8];
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		emit_nomem(em);
		return;
	}
	tui_fmt_kinds(b, kinds, sizeof kinds);
	fprintf(mem,
		"bug %" PRId64 " of %s: %s, detected by %" PRIu64
		" run%s, triage state %s, signature %s\n",
		b->id, b->program ? b->program : "?", kinds, b->runs,
		b->runs == 1 ? "" : "s", db_state_name(b->state),
		b->sig ? b->sig : "-");
	tui_report_race(mem, r);
	fprintf(mem, "'heisen show %" PRId64 "' tells more.\n", b->id);
	if (fclose(mem)) {
		free(text);
		emit_nomem(em);
		return;
	}
	bug_message(b, msg, sizeof msg);
	fputs("      <failure", em->out);
	xml_attr(em->out, "message", msg);
	xml_attr(em->out, "type", race_rules[rule_of(b)].id);
	fputc('>', em->out);
	tui_xml_text(em->out, text, len, false);
	fputs("</failure>\n", em->out);
	free(text);
}

/* ---- close --------------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Bug i's report, or the database's error. */
static wasm_status load_report(tui_emit *em, size_t i, tui_report *r,
			       wasm_err *e)
{
	wasm_status st = tui_report_load(em->d, em->bug[i].id, r, e);

	if (st)
		tui_report_free(r);
	return st;
}

static wasm_status write_bugs(tui_emit *em, tui_json *j, const char *prog,
			      wasm_err *e)
{
	wasm_status st = WASM_OK;

	for (size_t i = 0; !st && !em->st && i < em->nbug; i++) {
		const db_bug *b = &em->bug[i];
		tui_report r;
		if (prog && strcmp(b->program ? b->program : "?", prog))
			continue;
		if ((st = load_report(em, i, &r, e)))
			break;
		switch (em->fmt) {
		case TUI_FORMAT_SARIF: sarif_result(em, j, b, &r); break;
		case TUI_FORMAT_JUNIT: junit_failure(em, b, &r); break;
		default: jsonl_bug(em, b, &r); break;
		}
		tui_report_free(&r);
	}
	return st;
}

static void emit_free(tui_emit *em)
{
	for (size_t i = 0; i < em->nprog; i++)
		wasm_free(em->prog[i]);
	wasm_free(em->prog);
	for (size_t i = 0; i < em->nbug; i++)
		db_bug_clear(&em->bug[i]);
	wasm_free(em->bug);
	wasm_free(em->root);
	em->prog = NULL;
	em->bug = NULL;
	em->root = NULL;
	em->nprog = em->nbug = 0;
}

wasm_status tui_emit_close(tui_emit *em, const tui_emit_end *end, wasm_err *e)
{
	wasm_status st = em->st;
	tui_json j;

	if (st) {
		*e = em->err;
		goto done;
	}
	/* Test cases and summaries in one order, whatever order the
	 * programs were met in. After an error the document is left
	 * unfinished (no closing brackets, tags or summary line): a reader
	 * must not take it for a whole report. */
	qsort(em->prog, em->nprog, sizeof *em->prog, cmp_name);
	switch (em->fmt) {
	case TUI_FORMAT_SARIF:
		sarif_begin(em, &j);
		if (!(st = write_bugs(em, &j, NULL, e)) && !em->st)
			sarif_end(em, &j, end);
		break;
	case TUI_FORMAT_JUNIT:
		junit_begin(em, end);
		for (size_t i = 0; !st && !em->st && i < em->nprog; i++) {
			fputs("    <testcase", em->out);
			junit_classname(em->out, em->prog[i]);
			xml_attr(em->out, "name", em->prog[i]);
			if (!has_bug(em, em->prog[i])) {
				fputs("/>\n", em->out);
				continue;
			}
			fputs(">\n", em->out);
			if (!(st = write_bugs(em, NULL, em->prog[i], e)))
				fputs("    </testcase>\n", em->out);
		}
		if (!st && !em->st)
			fputs("  </testsuite>\n</testsuites>\n", em->out);
		break;
	case TUI_FORMAT_JSONL:
		if (!(st = write_bugs(em, NULL, NULL, e)) && !em->st)
			jsonl_end(em, end);
		break;
	case TUI_FORMAT_TEXT: break;
	}
	if (!st && em->st) {
		st = em->st;
		*e = em->err;
	}
	fflush(em->out);
done:
	emit_free(em);
	return st;
}

void tui_emit_fini(tui_emit *em) { emit_free(em); }
