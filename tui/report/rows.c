/*
 * rows.c - formatting every listing shares: times, densities, a site's
 * kind and place, a bug's row of `heisen bugs` (text or JSON, also
 * printed by sweep and triage), and the JSON of sites and call stacks.
 */
#include "tui/report/report.h"
#include "tui/report/filter.h"
#include "tui/report/jsonw.h"
#include "tui/report/report_fmt.h"

#include "detector/campaign.h"
#include "rewriter/instrument.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

/* Local time to the minute, "-" when unknown. */
void tui_fmt_time(double t, char *buf, size_t cap)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&s, &tm) ||
	    !strftime(buf, cap, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, cap, "-");
}

/* Basis points as a percentage with up to two decimals: "5%", "12.5%". */
void tui_fmt_density(uint32_t bp, char *buf, size_t cap)
{
	uint32_t frac = bp % 100;

	if (!frac)
		snprintf(buf, cap, "%u%%", bp / 100);
	else if (frac % 10 == 0)
		snprintf(buf, cap, "%u.%u%%", bp / 100, frac / 10);
	else
		snprintf(buf, cap, "%u.%02u%%", bp / 100, frac);
}

char tui_kind_letter(uint8_t k)
{
	switch (k) {
	case RW_READ:
	case RW_RANGE_READ: return 'R';
	case RW_WRITE:
	case RW_RANGE_WRITE: return 'W';
	case RW_ATOMIC_READ:
	case RW_ATOMIC_WRITE:
	case RW_ATOMIC_RMW: return 'A';
	}
	return '?';
}

void tui_fmt_kinds(const db_bug *b, char *buf, size_t cap)
{
	snprintf(buf, cap, "%c/%c", tui_kind_letter(b->site[0].kind),
		 tui_kind_letter(b->site[1].kind));
}

const char *tui_or_unknown(const char *s) { return s && *s ? s : "?"; }

/* "func file:line", "?" for each part not known. */
void tui_fmt_site(const struct db_bug_site *s, char *buf, size_t cap)
{
	char line[16] = "?";

	if (s->line)
		snprintf(line, sizeof line, "%u", s->line);
	snprintf(buf, cap, "%s %s:%s", tui_or_unknown(s->func),
		 tui_or_unknown(s->file), line);
}

void tui_json_site(tui_json *j, const struct db_bug_site *s)
{
	tui_json_u64(j, "site", s->id);
	tui_json_str(j, "kind", rw_kind_name((rw_kind)s->kind));
	tui_json_str_or_null(j, "function", s->func);
	tui_json_str_or_null(j, "file", s->file);
	if (s->line)
		tui_json_u64(j, "line", s->line);
	else
		tui_json_null(j, "line");
}

/* `func file:line` of a site of p. */
void tui_prog_site_text(const det_prog *p, uint32_t site, char *buf, size_t cap)
{
	char fn[128];
	rw_srcpos pos;

	det_prog_site(p, site, fn, sizeof fn, &pos);
	if (pos.file && pos.line)
		snprintf(buf, cap, "%s %s:%u", fn, pos.file, pos.line);
	else if (pos.file)
		snprintf(buf, cap, "%s %s (line unknown)", fn, pos.file);
	else
		snprintf(buf, cap, "%s ?", fn);
}

void tui_json_prog_site(tui_json *j, const det_prog *p, uint32_t site)
{
	tui_json_prog_access(j, p, site,
			     site < p->sites.nsites ? p->sites.sites[site].kind
						    : UINT8_MAX);
}

void tui_json_prog_access(tui_json *j, const det_prog *p, uint32_t site,
			  uint8_t kind)
{
	char fn[128];
	rw_srcpos pos;

	det_prog_site(p, site, fn, sizeof fn, &pos);
	tui_json_u64(j, "site", site);
	tui_json_str(j, "kind", rw_kind_name((rw_kind)kind));
	tui_json_str(j, "function", fn);
	if (pos.file) {
		tui_json_str(j, "file", pos.file);
		tui_json_u64(j, "line", pos.line);
	} else {
		tui_json_null(j, "file");
		tui_json_null(j, "line");
	}
}

void tui_json_stack(tui_json *j, const char *key, const db_stack *s)
{
	if (!s->n) {
		tui_json_null(j, key);
		tui_json_bool(j, "stack_truncated", false);
		return;
	}
	tui_json_arr(j, key);
	for (uint32_t i = 0; i < s->n; i++) {
		const db_frame *f = &s->frame[i];
		tui_json_obj(j, NULL);
		tui_json_str(j, "function", f->func);
		if (f->file) {
			tui_json_str(j, "file", f->file);
			tui_json_u64(j, "line", f->line);
		} else {
			tui_json_null(j, "file");
			tui_json_null(j, "line");
		}
		tui_json_u64(j, "offset", f->offset);
		tui_json_bool(j, "inlined", f->inlined);
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_bool(j, "stack_truncated", s->truncated);
}

bool tui_bug_row(void *ctx, const db_bug *b)
{
	tui_list *l = ctx;
	char kinds[8], seen[32], s0[320], s1[320];

	l->n++;
	if (l->em)
		return tui_emit_bug(l->em, b);
	tui_fmt_kinds(b, kinds, sizeof kinds);
	if (l->j) {
		tui_json *j = l->j;
		tui_json_obj(j, NULL);
		tui_json_u64(j, "id", (uint64_t)b->id);
		tui_json_u64(j, "program_id", (uint64_t)b->program_id);
		tui_json_str_or_null(j, "program", b->program);
		tui_json_str(j, "kinds", kinds);
		tui_json_arr(j, "sites");
		for (int i = 0; i < 2; i++) {
			tui_json_obj(j, NULL);
			tui_json_site(j, &b->site[i]);
			tui_json_end(j, '}');
		}
		tui_json_end(j, ']');
		tui_json_u64(j, "runs", b->runs);
		tui_json_str(j, "found_by", db_found_name(b->found_by));
		tui_json_u64(j, "first_run", b->first_run);
		tui_json_u64(j, "first_seen",
			     b->first_seen > 0 ? (uint64_t)b->first_seen : 0);
		tui_json_str_or_null(j, "signature", b->sig);
		tui_json_str(j, "state", db_state_name(b->state));
		if (b->triaged > 0)
			tui_json_u64(j, "triaged", (uint64_t)b->triaged);
		else
			tui_json_null(j, "triaged");
		tui_json_u64(j, "builds", b->builds);
		tui_supp_json_row(j, l->rule);
		tui_json_end(j, '}');
		return true;
	}
	if (l->n == 1) {
		tui_supp_column(l, true);
		fprintf(l->out, "%-5s %-16s %-5s %6s%s  %-9s  %-9s  %-16s %s\n",
			"bug", "program", "kinds", "runs",
			l->builds ? " builds" : "", "state", "found by",
			"first seen", "sites");
	}
	tui_fmt_time(b->first_seen, seen, sizeof seen);
	tui_fmt_site(&b->site[0], s0, sizeof s0);
	tui_fmt_site(&b->site[1], s1, sizeof s1);
	tui_supp_column(l, false);
	fprintf(l->out, "%-5" PRId64 " %-16s %-5s %6" PRIu64, b->id,
		tui_or_unknown(b->program), kinds, b->runs);
	if (l->builds)
		fprintf(l->out, " %6" PRIu64, b->builds);
	fprintf(l->out, "  %-9s  %-9s  %-16s %s <-> %s\n",
		db_state_name(b->state), db_found_name(b->found_by), seen, s0,
		s1);
	return true;
}

void tui_reasons_note(tui_reasons *rs, const db_run *r)
{
	const char *msg = r->msg ? r->msg : "";
	size_t i;

	if (!r->status || !strcmp(r->status, "ok") ||
	    !strcmp(r->status, "exit"))
		return;
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->reason[i].status, r->status) &&
		    !strcmp(rs->reason[i].msg, msg))
			break;
	if (i == rs->n) {
		struct tui_reason *x = &rs->reason[i];
		if (i == TUI_REASONS) {
			rs->more++;
			return;
		}
		snprintf(x->status, sizeof x->status, "%s", r->status);
		snprintf(x->msg, sizeof x->msg, "%s", msg);
		snprintf(x->tail, sizeof x->tail, "%s",
			 r->stderr_tail ? r->stderr_tail : "");
		x->first = r->id;
		rs->n++;
	}
	rs->reason[i].runs++;
}

void tui_reasons_print(FILE *out, const tui_reasons *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct tui_reason *x = &rs->reason[i];
		fprintf(out,
			"    %s in %" PRIu64 " run%s (first: run %" PRId64
			"): %s\n",
			x->status, x->runs, x->runs == 1 ? "" : "s", x->first,
			x->msg[0] ? x->msg : "no message");
		if (!x->tail[0])
			continue;
		fprintf(out, "      run %" PRId64 "'s stderr ended with:\n",
			x->first);
		for (const char *l = x->tail; *l;) {
			size_t k = strcspn(l, "\n");
			fprintf(out, "        %.*s\n", (int)k, l);
			l += k + (l[k] == '\n');
		}
	}
	if (rs->more)
		fprintf(out,
			"    and %" PRIu64 " more run%s for other reasons "
			"('heisen runs CAMPAIGN')\n",
			rs->more, rs->more == 1 ? "" : "s");
}

void tui_reasons_json(tui_json *j, const tui_reasons *rs)
{
	tui_json_arr(j, "reasons");
	for (size_t i = 0; i < rs->n; i++) {
		const struct tui_reason *x = &rs->reason[i];
		tui_json_obj(j, NULL);
		tui_json_str(j, "status", x->status);
		tui_json_str(j, "message", x->msg);
		tui_json_u64(j, "runs", x->runs);
		tui_json_i64(j, "first_run", x->first);
		tui_json_str_or_null(j, "stderr", x->tail[0] ? x->tail : NULL);
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
}
