/*
 * cmd_triage.c - what a developer decides about bugs and how builds
 * compare: `triage` (a bug's state: new, confirmed, fixed, not-a-bug,
 * kept per program name and signature so that it follows the bug into
 * later builds) and `diff` (the bugs two campaigns found, matched by
 * signature: new, gone, persisting).
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"

#include <inttypes.h>
#include <string.h>

/* ---- triage -------------------------------------------------------------- */

static bool history_text(void *ctx, const db_triage *t)
{
	FILE *out = ctx;
	char when[32];

	tui_fmt_time(t->time, when, sizeof when);
	fprintf(out, "  %-16s  %-9s  %s\n", when, db_state_name(t->state),
		t->note ? t->note : "");
	return true;
}

static bool history_json(void *ctx, const db_triage *t)
{
	tui_json *j = ctx;

	tui_json_obj(j, NULL);
	tui_json_str(j, "state", db_state_name(t->state));
	if (t->note)
		tui_json_str(j, "note", t->note);
	else
		tui_json_null(j, "note");
	tui_json_u64(j, "time", t->time > 0 ? (uint64_t)t->time : 0);
	tui_json_end(j, '}');
	return true;
}

int tui_cmd_triage(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *note = tui_opt_value(cmd, a, "--note");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	db_state state = DB_STATE_NEW, was;
	db_bug b = {0};
	const char *path;
	int64_t bid;
	tui_json j;
	wasm_err e;
	wasm_status st;
	db *d;
	int rc;

	if ((rc = tui_parse_id(cmd, "bug", a->operands[0], "bugs", &bid, err)))
		return rc;
	if (a->noperands > 1 && !db_state_parse(a->operands[1], &state)) {
		fprintf(
		    err,
		    "heisen %s: '%s' is not a triage state (new, confirmed, "
		    "fixed or not-a-bug)\n",
		    cmd->name, a->operands[1]);
		return TUI_EXIT_USAGE;
	}
	if (note && a->noperands < 2) {
		fprintf(err,
			"heisen %s: --note goes with a STATE: 'heisen %s "
			"%s confirmed --note TEXT'\n",
			cmd->name, cmd->name, a->operands[0]);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	wasm_err_clear(&e);
	if ((st = db_bug_get(d, bid, &b, &e)))
		goto fail;
	was = b.state;
	if (a->noperands > 1) {
		db_bug_clear(&b);
		if ((st = db_triage_set(d, bid, state, note, &e)) ||
		    (st = db_bug_get(d, bid, &b, &e)))
			goto fail;
	}
	if (json) {
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.triage/1");
		tui_json_str(&j, "db", path);
		tui_json_u64(&j, "bug", (uint64_t)bid);
		tui_json_str(&j, "program", b.program ? b.program : "");
		tui_json_str(&j, "signature", b.sig ? b.sig : "");
		tui_json_str(&j, "state", db_state_name(b.state));
		tui_json_str(&j, "was", db_state_name(was));
		tui_json_arr(&j, "history");
		st = db_triage_list(d, bid, history_json, &j, &e);
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out, "bug %" PRId64 " (%s, signature %s): %s", bid,
			b.program ? b.program : "?", b.sig ? b.sig : "?",
			db_state_name(b.state));
		if (a->noperands > 1)
			fprintf(out, ", was %s", db_state_name(was));
		fputc('\n', out);
		if (b.triaged > 0) {
			fprintf(out,
				"decisions (every build of %s with this "
				"signature shares them):\n",
				b.program ? b.program : "?");
			st = db_triage_list(d, bid, history_text, out, &e);
		}
	}
	if (st)
		goto fail;
	db_bug_clear(&b);
	db_close(d);
	return TUI_EXIT_OK;
fail:
	rc = tui_query_fail(cmd, st, &e, err);
	db_bug_clear(&b);
	db_close(d);
	return rc;
}

/* ---- diff ---------------------------------------------------------------- */

/* One side's bugs: ids and signatures, in the list's order. */
typedef struct diff_side {
	int64_t *id;
	char **sig;
	size_t n, cap;
	bool nomem;
} diff_side;

static bool diff_collect(void *ctx, const db_bug *b)
{
	diff_side *s = ctx;

	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		int64_t *ni = wasm_realloc(s->id, nc * sizeof *ni);
		char **ns = ni ? wasm_realloc(s->sig, nc * sizeof *ns) : NULL;
		if (ni)
			s->id = ni;
		if (!ns) {
			s->nomem = true;
			return false;
		}
		s->sig = ns;
		s->cap = nc;
	}
	s->id[s->n] = b->id;
	s->sig[s->n] = wasm_strdup(b->sig ? b->sig : "");
	if (!s->sig[s->n]) {
		s->nomem = true;
		return false;
	}
	s->n++;
	return true;
}

static void diff_free(diff_side *s)
{
	for (size_t i = 0; i < s->n; i++)
		wasm_free(s->sig[i]);
	wasm_free(s->sig);
	wasm_free(s->id);
}

/* The index in s of the bug with signature sig, or -1. Linear: two
 * campaigns' bugs are tens, not thousands. */
static long diff_find(const diff_side *s, const char *sig)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->sig[i], sig))
			return (long)i;
	return -1;
}

/* Print (or add to JSON) the bugs of `from` whose presence in `other`
 * is `present`: a section of the diff. */
static wasm_status diff_section(db *d, tui_list *l, const char *title,
				const diff_side *from, const diff_side *other,
				bool present, wasm_err *e)
{
	size_t n = 0;

	for (size_t i = 0; i < from->n; i++)
		n += (diff_find(other, from->sig[i]) >= 0) == present;
	if (l->j) {
		tui_json_arr(l->j, title);
	} else {
		fprintf(l->out, "\n%s: %zu\n", title, n);
		l->n = 0;
	}
	for (size_t i = 0; i < from->n; i++) {
		long k = diff_find(other, from->sig[i]);
		db_bug b;
		if ((k >= 0) != present)
			continue;
		if (db_bug_get(d, from->id[i], &b, e))
			return e->status;
		tui_bug_row(l, &b);
		db_bug_clear(&b);
	}
	if (l->j)
		tui_json_end(l->j, ']');
	return WASM_OK;
}

static void diff_campaign_json(tui_json *j, const char *key,
			       const db_campaign *c)
{
	tui_json_obj(j, key);
	tui_json_u64(j, "id", (uint64_t)c->id);
	tui_json_str(j, "program", c->program ? c->program : "");
	tui_json_u64(j, "program_id", (uint64_t)c->program_id);
	tui_json_u64(j, "runs", c->done);
	tui_json_end(j, '}');
}

int tui_cmd_diff(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	db_campaign c[2] = {{0}, {0}};
	diff_side side[2] = {{0}, {0}};
	tui_list l = {.out = out};
	const char *path;
	int64_t id[2];
	tui_json j;
	wasm_err e;
	wasm_status st = WASM_OK;
	db *d;
	int rc;

	for (int i = 0; i < 2; i++)
		if ((rc = tui_parse_id(cmd, "campaign", a->operands[i],
				       "campaigns", &id[i], err)))
			return rc;
	if ((rc = tui_open_existing_db(tui_opt_value(cmd, a, "--db"), &d, &path,
				       err)))
		return rc;
	wasm_err_clear(&e);
	for (int i = 0; i < 2 && !st; i++)
		if (!(st = db_campaign_get(d, id[i], &c[i], &e)) &&
		    !(st = db_bug_list_campaign(d, id[i], diff_collect,
						&side[i], &e)) &&
		    side[i].nomem)
			st = wasm_err_set(&e, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
	if (st)
		goto done;
	if (json) {
		l.j = &j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.diff/1");
		tui_json_str(&j, "db", path);
		diff_campaign_json(&j, "a", &c[0]);
		diff_campaign_json(&j, "b", &c[1]);
	} else {
		fprintf(out,
			"campaign %" PRId64 " (%s, %" PRIu64
			" bugs) -> campaign %" PRId64 " (%s, %" PRIu64
			" bugs); bugs match by signature\n",
			c[0].id, c[0].program ? c[0].program : "?",
			(uint64_t)side[0].n, c[1].id,
			c[1].program ? c[1].program : "?", (uint64_t)side[1].n);
	}
	/* Persisting bugs are listed as B has them: the newer build's ids
	 * are the ones to look at. */
	if (!(st = diff_section(d, &l, "new", &side[1], &side[0], false, &e)) &&
	    !(st = diff_section(d, &l, "gone", &side[0], &side[1], false, &e)))
		st = diff_section(d, &l, "persisting", &side[1], &side[0], true,
				  &e);
	if (json) {
		tui_json_end(&j, '}');
		tui_json_done(&j);
	}
done:
	rc = st ? tui_query_fail(cmd, st, &e, err) : TUI_EXIT_OK;
	for (int i = 0; i < 2; i++) {
		diff_free(&side[i]);
		db_campaign_clear(&c[i]);
	}
	db_close(d);
	return rc;
}
