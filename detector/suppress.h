/*
 * suppress.h - suppressions: a file of rules naming races that reports
 * leave out (known, accepted or someone else's), in ThreadSanitizer's
 * syntax where it applies. The runs that saw a suppressed race are still
 * recorded; only what is printed, and what --fail-on-bugs counts, changes.
 *
 * The file: one rule per line, TYPE:PATTERN; blank lines and lines whose
 * first character (after blanks) is '#' are ignored, as is the rest of a
 * line from a '#' after a blank; blanks around the rule and the pattern
 * are trimmed. Types:
 *
 *   race:PATTERN        the racing access itself (frame #0 of either
 *                       access): its function name or its source file
 *                       path; when frame #0 is inlined, also the
 *                       functions it was inlined into, down to the first
 *                       frame not inlined
 *   race:FILE:LINE      the racing access is at LINE of a file whose path
 *                       is FILE or ends with '/' FILE (FILE literal)
 *   race_top:...        TSan's name for the same (TSan's own race: looks
 *                       at every frame; heisen's, like race_top:, at #0)
 *   called_from:PATTERN a caller of either access (frame #1 and up) by
 *                       function name
 *
 * TSan's other types (thread:, mutex:, deadlock:, signal:,
 * called_from_lib:) name things heisen does not report and are refused.
 *
 * Patterns match as TSan's TemplateMatch does: '*' matches any run of
 * characters, a leading '^' anchors the pattern at the start of the name,
 * a trailing '$' at its end; without anchors the pattern may match
 * anywhere in it (a substring). An empty name never matches. Unlike
 * TSan's, the matcher backtracks ("a*b$" matches "abxb"), and a '$' or
 * '^' elsewhere in the pattern is a plain character (Rust's legacy
 * mangling writes '$' inside names).
 *
 * A violation is suppressed when a rule matches either of its two
 * accesses; the first such rule in file order is the one reported.
 *
 * Ownership: det_supp_load/det_supp_parse return a det_supp the caller
 * frees with det_supp_free (NULL accepted); rules returned by the match
 * functions point into it and live as long as it. Nothing here keeps a
 * pointer to the caller's stacks or bugs.
 *
 * Errors (wasm_err, the message starting "FILE:LINE: " for the file's
 * content):
 *   WASM_IO        the file cannot be read (path and strerror), or is
 *                  over DET_SUPP_MAX_BYTES;
 *   WASM_MALFORMED a line is not a rule: no TYPE:, an unknown type, one
 *                  of TSan's types heisen refuses, an empty pattern, a
 *                  NUL byte, a FILE:LINE whose line is 0 or too large or
 *                  whose FILE has '*' or anchors, called_from: with
 *                  FILE:LINE (callers are matched by name only);
 *   WASM_NOMEM;
 *   and from det_supp_match_bug, the database's errors (db/db.h).
 */
#ifndef HEISEN_DETECTOR_SUPPRESS_H
#define HEISEN_DETECTOR_SUPPRESS_H

#include "db/db.h"

/* The file a command reads when it is given none, in the current
 * directory. */
#define DET_SUPP_DEFAULT ".heisen-suppressions"
/* A suppressions file is a hand-written list: anything larger is a
 * mistake (a binary named by accident). */
#define DET_SUPP_MAX_BYTES (1u << 20)

typedef enum det_supp_type {
	DET_SUPP_RACE,	      /* race: / race_top: frame #0 of an access */
	DET_SUPP_CALLED_FROM, /* called_from: frame #1 and up */
} det_supp_type;

typedef struct det_supp_rule {
	det_supp_type type;
	uint32_t number;     /* 1-based, in file order: "rule 3" */
	uint32_t line;	     /* where it is in the file */
	char *text;	     /* as written, trimmed: "race:bump_a" */
	const char *pattern; /* points into text, after "TYPE:" */
	char *file;	     /* race:FILE:LINE: FILE; NULL for a pattern */
	uint32_t file_line;  /* race:FILE:LINE: LINE */
	uint64_t hits;	     /* det_supp_hit calls: what it suppressed */
} det_supp_rule;

typedef struct det_supp {
	char *path; /* the file's name as given (messages, reports) */
	det_supp_rule *rule;
	uint32_t n;
	bool callers; /* some rule is called_from: (stacks matter) */
} det_supp;

/* Parse the rules of text[0, len) (need not be NUL-terminated), named
 * `name` in messages. An empty file is valid and has no rules. */
wasm_status det_supp_parse(const char *name, const char *text, size_t len,
			   det_supp **out, wasm_err *err);

/* Read and parse the file at path. path NULL: DET_SUPP_DEFAULT when it
 * exists, else no file: *out NULL and WASM_OK. A path given must exist;
 * a device is read to the cap, so /dev/null is a file without rules (to
 * set the default file aside). */
wasm_status det_supp_load(const char *path, det_supp **out, wasm_err *err);

void det_supp_free(det_supp *s);

/* Whether pattern matches s, as rules match names (above). */
bool det_supp_template_match(const char *pattern, const char *s);

/* The first rule that matches one of the two accesses of a violation,
 * given as call stacks (innermost first, frame 0 the access); NULL when
 * none does or s is NULL. A stack with n = 0 matches nothing. */
const det_supp_rule *det_supp_match(const det_supp *s, const db_stack acc[2]);

/* The same for a violation as the workspace keeps it: an access whose
 * stack was not kept (n = 0) is matched as a one-frame stack of its
 * site's function, file and line. */
const det_supp_rule *det_supp_match_hit(const det_supp *s, const db_hit *h);

/* A recorded bug: suppressed by the first race: rule that matches one of
 * its two sites (function, file, file:line as stored in the bug), else,
 * when s has called_from: rules, by the rule matching the stacks of its
 * first run that kept stacks, provided the stacks of every run that kept
 * them (each run's pair judged as one violation) match some rule; runs
 * of campaign `campaign` only (0: of every campaign). *rule NULL: not
 * suppressed. Errors: the database's. */
wasm_status det_supp_match_bug(const det_supp *s, db *d, const db_bug *b,
			       int64_t campaign, const det_supp_rule **rule,
			       wasm_err *err);

/* Count one violation or bug that rule r (of s) suppressed in a report:
 * its hits, which reports list as the rules used. r NULL: nothing. */
void det_supp_hit(det_supp *s, const det_supp_rule *r);

#endif
