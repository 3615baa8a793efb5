/*
 * Line charts as inline SVG, drawn by our own code so that a report is one
 * file that opens anywhere without a script or a network. Log or linear
 * axes, one polyline with point markers per series, a legend, and two
 * decorations for history charts: vertical marks (change points) and
 * horizontal levels (segment means). Internal to reports/.
 */
#ifndef SL_SVG_H
#define SL_SVG_H

#include <stdio.h>

typedef struct sl__svg_series {
  const char *name; /* legend text; NULL: no legend entry */
  const double *x, *y;
  int n;     /* points, in x order; non-finite (or <= 0 on a log axis) skip */
  int color; /* palette index */
  /* NULL, or per point the IQR (same unit as y): a vertical bar of that
   * height centred on the point, so a noisy median reads as noisy. */
  const double *iqr;
} sl__svg_series;

typedef struct sl__svg_level {
  double x0, x1, y;
} sl__svg_level;

typedef struct sl__svg_chart {
  const char *title, *xlabel, *ylabel;
  int width, height; /* of the plot area, in pixels */
  int logx, logy;
  int y_seconds;       /* y tick labels as times ("1.2 ms") */
  int x_integer;       /* x tick labels as integers (run ids) */
  const double *marks; /* x positions of vertical dashed marks */
  int nmarks;
  const sl__svg_level *levels; /* horizontal segment lines */
  int nlevels;
} sl__svg_chart;

/* The colour of palette index i (wraps around). */
const char *sl__svg_color(int i);

/* Writes one <svg> element. Every text (title, labels, series names) is
 * escaped. */
void sl__svg_write(FILE *out, const sl__svg_chart *c, const sl__svg_series *s,
                   int ns);

#endif
