/*
 * timeline.c - a recorded execution's rows (replay/trace.h) as people and
 * scripts read them: `heisen timeline` and the Timeline screen print the
 * same words, so what one shows the other can be checked against.
 */
#include "tui/report/report.h"
#include "tui/report/jsonw.h"

#include "detector/campaign.h"
#include "replay/trace.h"
#include "rewriter/instrument.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

void tui_event_what(const rep_trace *t, uint64_t i, char *buf, size_t cap)
{
	const rep_event *e = &t->ev[i];

	switch ((rep_ev_kind)e->kind) {
	case REP_EV_ACCESS:
		if (e->part == REP_PART_SRC)
			snprintf(buf, cap, "range-read @0x%" PRIx64 " (source)",
				 e->addr);
		else if (e->part == REP_PART_LEN)
			snprintf(buf, cap, "%s of %" PRIu64 " bytes",
				 rw_kind_name((rw_kind)e->rw), e->addr);
		else if (!e->width || e->width > 8)
			snprintf(buf, cap, "%s %u @0x%" PRIx64,
				 rw_kind_name((rw_kind)e->rw), e->width,
				 e->addr);
		else if (e->rw == RW_READ || e->rw == RW_ATOMIC_READ)
			snprintf(buf, cap, "%s %u @0x%" PRIx64 " -> %" PRIu64,
				 rw_kind_name((rw_kind)e->rw), e->width,
				 e->addr, e->value);
		else
			snprintf(buf, cap,
				 "%s %u @0x%" PRIx64 " (was %" PRIu64 ")",
				 rw_kind_name((rw_kind)e->rw), e->width,
				 e->addr, e->value);
		return;
	case REP_EV_CALL:
		snprintf(buf, cap, "call %s",
			 e->site < t->nnames ? t->names[e->site] : "?");
		return;
	case REP_EV_WAIT:
	case REP_EV_NOTIFY:
		snprintf(buf, cap, "%s @0x%" PRIx64,
			 rep_ev_kind_name((rep_ev_kind)e->kind), e->addr);
		return;
	case REP_EV_SPAWN:
		snprintf(buf, cap, "spawn T%" PRIu64, e->addr);
		return;
	case REP_EV_END: snprintf(buf, cap, "end"); return;
	}
	snprintf(buf, cap, "?");
}

void tui_event_where(const det_prog *p, const rep_trace *t, uint64_t i,
		     char *buf, size_t cap)
{
	const rep_event *e = &t->ev[i];
	char fn[128];
	rw_srcpos pos = {0};

	if (e->kind != REP_EV_ACCESS) {
		snprintf(buf, cap, "%s", "");
		return;
	}
	det_prog_site(p, e->site, fn, sizeof fn, &pos);
	if (pos.file && pos.line)
		snprintf(buf, cap, "%s %s:%u", fn, base(pos.file), pos.line);
	else
		snprintf(buf, cap, "%s (line unknown)", fn);
}

void tui_json_event(tui_json *j, const det_prog *p, const rep_trace *t,
		    uint64_t i, bool watch)
{
	const rep_event *e = &t->ev[i];

	tui_json_obj(j, NULL);
	tui_json_u64(j, "event", i);
	tui_json_u64(j, "thread", e->thread);
	tui_json_str(j, "type", rep_ev_kind_name((rep_ev_kind)e->kind));
	switch ((rep_ev_kind)e->kind) {
	case REP_EV_ACCESS:
		tui_json_prog_access(j, p, e->site, e->rw);
		tui_json_str(j, "operand",
			     e->part == REP_PART_SRC   ? "source"
			     : e->part == REP_PART_LEN ? "length"
						       : "address");
		tui_json_u64(j, "width", e->width);
		tui_json_u64(j, "address", e->addr);
		if (e->part == REP_PART_ADDR && e->width && e->width <= 8)
			tui_json_u64(j, "value", e->value);
		else
			tui_json_null(j, "value");
		break;
	case REP_EV_CALL:
		tui_json_str(j, "name",
			     e->site < t->nnames ? t->names[e->site] : "?");
		break;
	case REP_EV_WAIT:
	case REP_EV_NOTIFY: tui_json_u64(j, "address", e->addr); break;
	case REP_EV_SPAWN: tui_json_u64(j, "spawned", e->addr); break;
	case REP_EV_END: break;
	}
	tui_json_bool(j, "race", e->mark & REP_MARK_RACE);
	tui_json_bool(j, "switch_after", e->mark & REP_MARK_SWITCH);
	if (watch)
		tui_json_u64(j, "watch", e->watch);
	tui_json_end(j, '}');
}

void tui_event_short(const det_prog *p, const rep_trace *t, uint64_t i,
		     char *buf, size_t cap)
{
	const rep_event *e = &t->ev[i];
	char fn[128];
	rw_srcpos pos = {0};

	if (e->kind != REP_EV_ACCESS || e->part != REP_PART_ADDR) {
		tui_event_what(t, i, buf, cap);
		return;
	}
	det_prog_site(p, e->site, fn, sizeof fn, &pos);
	if (e->width && e->width <= 8)
		snprintf(buf, cap, "%c%u 0x%" PRIx64 " %" PRIu64 " %s:%u",
			 tui_kind_letter(e->rw), e->width, e->addr, e->value,
			 fn, pos.line);
	else
		snprintf(buf, cap, "%c 0x%" PRIx64 " %s:%u",
			 tui_kind_letter(e->rw), e->addr, fn, pos.line);
}
