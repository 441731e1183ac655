/*
 * gate.c - `--fail-on-bugs [new|any]`, the CI gate of sweep, check, run
 * and bugs: which of the bugs a command reports make it exit 1. any:
 * every bug not suppressed. new: of those, the ones nobody triaged yet
 * (state new) and the fixed ones that came back; confirmed and
 * not-a-bug bugs are known and pass.
 */
#include "tui/cli/cli.h"
#include "tui/report/filter.h"

#include "detector/suppress.h"

#include <string.h>
#include <sys/stat.h>

int tui_gate_parse(const tui_cmd *cmd, const tui_args *a, tui_gate *g,
		   FILE *err)
{
	const char *v = tui_opt_value(cmd, a, "--fail-on-bugs");

	*g = TUI_GATE_OFF;
	if (!v)
		return TUI_EXIT_OK;
	if (!*v || !strcmp(v, "any")) {
		*g = TUI_GATE_ANY;
	} else if (!strcmp(v, "new")) {
		*g = TUI_GATE_NEW;
	} else {
		fprintf(err,
			"heisen %s: --fail-on-bugs takes 'new' or 'any', not "
			"'%s'\n",
			cmd->name, v);
		return TUI_EXIT_USAGE;
	}
	return TUI_EXIT_OK;
}

bool tui_gate_fails(tui_gate g, db_state s)
{
	switch (g) {
	case TUI_GATE_ANY: return true;
	case TUI_GATE_NEW: return s == DB_STATE_NEW || s == DB_STATE_FIXED;
	default: return false;
	}
}

typedef struct gate_count {
	const det_supp *supp;
	db *d;
	tui_gate g;
	uint64_t n;
	wasm_status st;
	wasm_err *err;
} gate_count;

static bool gate_bug(void *ctx, const db_bug *b)
{
	gate_count *c = ctx;
	const det_supp_rule *rule = NULL;

	if (c->supp &&
	    (c->st = det_supp_match_bug(c->supp, c->d, b, 0, &rule, c->err)))
		return false;
	c->n += !rule && tui_gate_fails(c->g, b->state);
	return true;
}

wasm_status tui_gate_campaign(db *d, int64_t campaign, const det_supp *supp,
			      tui_gate g, uint64_t *n, wasm_err *err)
{
	gate_count c = {supp, d, g, 0, WASM_OK, err};
	wasm_status st;

	*n = 0;
	if (g == TUI_GATE_OFF)
		return WASM_OK;
	st = db_bug_list_campaign(d, campaign, gate_bug, &c, err);
	*n = c.n;
	return st ? st : c.st;
}

int tui_gate_hits(const tui_cmd *cmd, tui_gate g, const char *dbopt,
		  const char *program, const db_hit *hits, const bool *skip,
		  uint32_t n, uint32_t *failing, FILE *err)
{
	const char *path = db_path_choose(dbopt);
	struct stat sb;
	wasm_err e;
	db *d = NULL;
	int rc;

	*failing = 0;
	if (g == TUI_GATE_OFF)
		return TUI_EXIT_OK;
	/* Without a workspace nobody triaged anything: every race is new,
	 * and a gate must not create one. */
	if (g == TUI_GATE_NEW && !stat(path, &sb) &&
	    (rc = tui_open_db(dbopt, &d, err)))
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		db_state s = DB_STATE_NEW;
		char sig[DB_SIG_LEN + 1];
		if (skip && skip[i])
			continue;
		if (d && hits[i].site[0].sig && hits[i].site[1].sig) {
			db_sig_format(db_sig_pair(hits[i].site[0].sig,
						  hits[i].site[1].sig),
				      sig);
			wasm_err_clear(&e);
			if (db_triage_state(d, program, sig, &s, &e)) {
				rc = tui_query_fail(cmd, e.status, &e, err);
				db_close(d);
				return rc;
			}
		}
		*failing += tui_gate_fails(g, s);
	}
	db_close(d);
	return TUI_EXIT_OK;
}
