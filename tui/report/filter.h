/*
 * filter.h - what a report leaves out and what makes a command fail:
 * suppressions (detector/suppress.h) as they apply to listings and
 * reports, and the CI gate of --fail-on-bugs.
 *
 * Layer: tui/report/ (see report.h).
 */
#ifndef HEISEN_TUI_FILTER_H
#define HEISEN_TUI_FILTER_H

#include "tui/cli/cli.h"
#include "tui/report/report.h"

/* ---- the CI gate (tui/report/gate.c)
 * ------------------------------------------
 *
 * --fail-on-bugs [new|any]: which reported bugs make a command exit 1.
 * any (also the option alone): every bug not suppressed; new: of those,
 * the ones in triage state new (never triaged) or fixed (came back). */
typedef enum tui_gate { TUI_GATE_OFF, TUI_GATE_ANY, TUI_GATE_NEW } tui_gate;
/* cmd's --fail-on-bugs into *g; exit 2 with the message on err for a
 * value that is neither. */
int tui_gate_parse(const tui_cmd *cmd, const tui_args *a, tui_gate *g,
		   FILE *err);
/* Whether a bug in triage state s fails gate g. */
bool tui_gate_fails(tui_gate g, db_state s);
/* How many bugs that campaign's runs detected fail g, suppressed ones
 * (by supp, may be NULL) aside. The database's errors. */
struct det_supp;
wasm_status tui_gate_campaign(struct db *d, int64_t campaign,
			      const struct det_supp *supp, tui_gate g,
			      uint64_t *n, wasm_err *err);
/* The same for races not recorded as bugs (`run`): hits[i] with skip[i]
 * set (skip may be NULL) are suppressed; under new, each other's state
 * is its signature's in the workspace dbopt names (db_path_choose), read
 * only when that file exists. An exit code (the database's errors
 * printed under cmd's name); *failing the count. */
int tui_gate_hits(const tui_cmd *cmd, tui_gate g, const char *dbopt,
		  const char *program, const db_hit *hits, const bool *skip,
		  uint32_t n, uint32_t *failing, FILE *err);

/* ---- suppressions in reports (tui/report/suppress.c; detector/suppress.h)
 * ----
 *
 * tui_supp_open reads cmd's --suppressions FILE, else ./.heisen-
 * suppressions when it exists: *out (NULL: no file; det_supp_free it).
 * An exit code; a bad file prints "heisen CMD: FILE:LINE: reason" (2). */
struct det_supp;
int tui_supp_open(const tui_cmd *cmd, const tui_args *a, struct det_supp **out,
		  FILE *err);
/* A db_bug_list callback over tui_bug_row that judges each bug
 * (det_supp_match_bug over all its runs), counts the suppressed ones as
 * hits of their rules and leaves them out, or with show passes them on
 * marked. open counts the rows not suppressed, failing those of them
 * that fail gate (tui_gate_fails on their state).
 * A database error stops the list: st and *err say why. */
typedef struct tui_supp_list {
	tui_list *list;
	struct det_supp *supp; /* NULL: nothing is suppressed */
	struct db *d;
	bool show;
	uint64_t suppressed, open;
	tui_gate gate;
	uint64_t failing;
	wasm_status st;
	wasm_err *err;
} tui_supp_list;
bool tui_supp_bug_row(void *ctx, const struct db_bug *b);
/* With l->marks, the marker column of a row (its rule, or "-") or of
 * the header; nothing otherwise. */
void tui_supp_column(const tui_list *l, bool header);
/* The end of a text report: "N WHATs suppressed by FILE (HINT)" and a
 * line per rule that suppressed something, with its count; nothing when
 * n is 0. hint may be NULL. */
void tui_supp_print(FILE *out, const struct det_supp *s, uint64_t n,
		    const char *what, const char *hint);
/* The same as JSON members of j's open object: "suppressed": n and
 * "suppressions": null without a file, else {file, rules: [{rule, line,
 * text, hits}]}. */
void tui_supp_json(struct tui_json *j, const struct det_supp *s, uint64_t n);
/* Races the program annotated benign (docs/annotations.md), which runs
 * leave out as suppressions do: "N races annotated benign left out (in
 * RUNS of NRUNS runs)" at the end of a text report, nothing when n is
 * 0; as JSON members "benign": n, "benign_runs": runs. n counts each
 * run's distinct site pairs. */
void tui_benign_print(FILE *out, uint64_t n, uint64_t runs, uint64_t nruns);
void tui_benign_json(struct tui_json *j, uint64_t n, uint64_t runs);
/* A bug row's members: "suppressed" (bool) and "suppressed_by": null or
 * {rule, line, text}. */
void tui_supp_json_row(struct tui_json *j, const struct det_supp_rule *rule);
#endif
