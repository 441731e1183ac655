/*
 * grid.c - a bug's detections grid as text: a row per (node, profile), a
 * K/N column per density, each cell's heat against the best cell.
 */
#include "tui/report/report.h"

#include <inttypes.h>
#include <string.h>

/* The heat of a cell against the best: ANSI background, black text. */
static const char *heat(uint64_t k, uint64_t n, double best)
{
	double v = n && best > 0 ? (double)k / (double)n / best : 0;

	return !k	  ? ""
	       : v < 0.25 ? "\033[30;44m"
	       : v < 0.5  ? "\033[30;46m"
	       : v < 0.75 ? "\033[30;43m"
			  : "\033[30;41m";
}

double tui_report_best(const tui_report *r)
{
	double best = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].n &&
		    (double)r->cells[i].k / r->cells[i].n > best)
			best = (double)r->cells[i].k / r->cells[i].n;
	return best;
}

void tui_print_grid(FILE *out, const tui_report *r, int width, bool colour)
{
	int pw = (int)strlen("profile"), nw = (int)strlen("node"), lead;
	double best = tui_report_best(r);
	size_t per;

	for (size_t row = 0; row < r->nrows; row++) {
		const tui_cell *c = &r->cells[r->row_of[row]];
		int n = (int)strlen(c->profile), m = (int)strlen(c->node);
		pw = n > pw ? n : pw;
		nw = m > nw ? m : nw;
	}
	lead = 2 + pw + (r->multi_node ? nw + 2 : 0);
	per = width > lead + 12 ? (size_t)(width - lead) / 12 : r->ndens;
	if (!per)
		per = 1;
	for (size_t col = 0; col < r->ndens; col += per) {
		size_t end = col + per < r->ndens ? col + per : r->ndens;
		if (col)
			fputc('\n', out);
		fprintf(out, "  ");
		if (r->multi_node)
			fprintf(out, "%-*s  ", nw, "node");
		fprintf(out, "%-*s", pw, "profile");
		for (size_t k = col; k < end; k++) {
			char dl[16];
			tui_fmt_density(r->dens[k], dl, sizeof dl);
			fprintf(out, " %11s", dl);
		}
		fprintf(out, "\n");
		for (size_t row = 0; row < r->nrows; row++) {
			const tui_cell *c = &r->cells[r->row_of[row]];
			fprintf(out, "  ");
			if (r->multi_node)
				fprintf(out, "%-*s  ", nw, c->node);
			fprintf(out, "%-*s", pw, c->profile);
			for (size_t k = col; k < end; k++) {
				const tui_cell *o = tui_report_cell(r, row, k);
				const char *h =
				    colour && o ? heat(o->k, o->n, best) : "";
				char kn[48] = "-";
				if (o)
					snprintf(kn, sizeof kn,
						 "%" PRIu64 "/%" PRIu64, o->k,
						 o->n);
				fprintf(out, " %s%11s%s", h, kn,
					*h ? "\033[0m" : "");
			}
			fprintf(out, "\n");
		}
	}
}
