/*
 * suppress.c - suppressions in the reports of bugs, sweep, check and run
 * (detector/suppress.h does the matching): reading --suppressions, the
 * bug list that leaves suppressed bugs out or marks them, and the lines
 * and JSON members that say what was left out.
 */
#include "tui/cli/cli.h"
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/report/jsonw.h"

#include "detector/suppress.h"

#include <inttypes.h>

int tui_supp_open(const tui_cmd *cmd, const tui_args *a, det_supp **out,
		  FILE *err)
{
	wasm_err e;
	wasm_status st;

	if ((st = det_supp_load(tui_opt_value(cmd, a, "--suppressions"), out,
				&e))) {
		fprintf(err, "heisen %s: %s\n", cmd->name, e.msg);
		return tui_exit_for(st);
	}
	return TUI_EXIT_OK;
}

bool tui_supp_bug_row(void *ctx, const db_bug *b)
{
	tui_supp_list *sl = ctx;
	const det_supp_rule *rule;

	if ((sl->st =
		 det_supp_match_bug(sl->supp, sl->d, b, 0, &rule, sl->err)))
		return false;
	if (rule) {
		det_supp_hit(sl->supp, rule);
		sl->suppressed++;
		if (!sl->show)
			return true;
	}
	sl->open += !rule;
	sl->failing += !rule && tui_gate_fails(sl->gate, b->state);
	sl->list->rule = rule;
	return tui_bug_row(sl->list, b);
}

void tui_supp_print(FILE *out, const det_supp *s, uint64_t n, const char *what,
		    const char *hint)
{
	if (!s || !n)
		return;
	fprintf(out, "%" PRIu64 " %s%s suppressed by %s", n, what,
		n == 1 ? "" : "s", s->path);
	if (hint)
		fprintf(out, " (%s)", hint);
	fputc('\n', out);
	for (uint32_t i = 0; i < s->n; i++)
		if (s->rule[i].hits)
			fprintf(out,
				"  rule %" PRIu32 " (%s:%" PRIu32
				") %s: %" PRIu64 "\n",
				s->rule[i].number, s->path, s->rule[i].line,
				s->rule[i].text, s->rule[i].hits);
}

void tui_benign_print(FILE *out, uint64_t n, uint64_t runs, uint64_t nruns)
{
	if (!n)
		return;
	fprintf(out,
		"%" PRIu64 " race%s annotated benign left out (in %" PRIu64
		" of %" PRIu64 " run%s)\n",
		n, n == 1 ? "" : "s", runs, nruns, nruns == 1 ? "" : "s");
}

void tui_benign_json(tui_json *j, uint64_t n, uint64_t runs)
{
	tui_json_u64(j, "benign", n);
	tui_json_u64(j, "benign_runs", runs);
}

void tui_supp_json(tui_json *j, const det_supp *s, uint64_t n)
{
	tui_json_u64(j, "suppressed", n);
	if (!s) {
		tui_json_null(j, "suppressions");
		return;
	}
	tui_json_obj(j, "suppressions");
	tui_json_str(j, "file", s->path);
	tui_json_arr(j, "rules");
	for (uint32_t i = 0; i < s->n; i++) {
		tui_json_obj(j, NULL);
		tui_json_u64(j, "rule", s->rule[i].number);
		tui_json_u64(j, "line", s->rule[i].line);
		tui_json_str(j, "text", s->rule[i].text);
		tui_json_u64(j, "hits", s->rule[i].hits);
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_end(j, '}');
}

void tui_supp_json_row(tui_json *j, const det_supp_rule *rule)
{
	tui_json_bool(j, "suppressed", rule != NULL);
	if (!rule) {
		tui_json_null(j, "suppressed_by");
		return;
	}
	tui_json_obj(j, "suppressed_by");
	tui_json_u64(j, "rule", rule->number);
	tui_json_u64(j, "line", rule->line);
	tui_json_str(j, "text", rule->text);
	tui_json_end(j, '}');
}

void tui_supp_column(const tui_list *l, bool header)
{
	char mark[16] = "-";

	if (!l->marks)
		return;
	if (!header && l->rule)
		snprintf(mark, sizeof mark, "rule %" PRIu32, l->rule->number);
	fprintf(l->out, "%-10s ", header ? "suppressed" : mark);
}
