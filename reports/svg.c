/* Line charts as inline SVG (see svg.h). */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "html.h"

/* Okabe-Ito: tells apart for the common kinds of colour blindness. */
static const char *const sl__palette[] = {"#0072B2", "#D55E00", "#009E73",
                                          "#CC79A7", "#E69F00", "#56B4E9",
                                          "#000000", "#999999"};
#define SL__NPALETTE ((int)(sizeof sl__palette / sizeof sl__palette[0]))

const char *sl__svg_color(int i) {
  if (i < 0) i = -i;
  return sl__palette[i % SL__NPALETTE];
}

enum { SL__LEFT = 70, SL__TOP = 30, SL__BOTTOM = 44, SL__LEGEND = 150 };

/* One axis: the data range in axis units (log10 for log axes). */
typedef struct sl__axis {
  int log;
  double lo, hi;
  int have;
} sl__axis;

static int sl__usable(const sl__axis *a, double v) {
  return isfinite(v) && (!a->log || v > 0);
}

static void sl__extend(sl__axis *a, double v) {
  if (!sl__usable(a, v)) return;
  double u = a->log ? log10(v) : v;
  if (!a->have || u < a->lo) a->lo = u;
  if (!a->have || u > a->hi) a->hi = u;
  a->have = 1;
}

/* Pads the range so that points do not sit on the frame, and gives an
 * empty or one-value range some width. */
static void sl__pad(sl__axis *a) {
  if (!a->have) {
    a->lo = 0;
    a->hi = 1;
    return;
  }
  double span = a->hi - a->lo;
  /* A flat series (rounding apart) gets a range around its value. */
  if (span <= 1e-9 * fmax(fabs(a->lo), fabs(a->hi))) {
    double w = a->log ? 0.5 : (a->lo != 0 ? fabs(a->lo) * 0.1 : 1);
    a->lo -= w;
    a->hi += w;
    return;
  }
  a->lo -= span * 0.06;
  a->hi += span * 0.06;
}

/* Axis units -> pixels, over [p0, p1] (p1 < p0 for y). */
static double sl__map(const sl__axis *a, double v, double p0, double p1) {
  double u = a->log ? log10(v) : v;
  return p0 + (u - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

/* Tick positions in data units: decades (with 2 and 5 when fewer than
 * three decades show) on a log axis, 1-2-5 steps on a linear one (whole
 * steps for an integer axis). */
static int sl__ticks(const sl__axis *a, int integer, double *t, int max) {
  int n = 0;
  if (a->log) {
    int d0 = (int)floor(a->lo), d1 = (int)ceil(a->hi);
    int sub = d1 - d0 < 3;
    for (int d = d0; d <= d1 && n < max; ++d) {
      static const double mult[] = {1, 2, 5};
      for (int m = 0; m < (sub ? 3 : 1) && n < max; ++m) {
        double v = mult[m] * pow(10, d);
        double u = log10(v);
        if (u >= a->lo && u <= a->hi) t[n++] = v;
      }
    }
    return n;
  }
  double span = a->hi - a->lo, raw = span / 5;
  double p = pow(10, floor(log10(raw))), step = p;
  if (raw / p > 5)
    step = 10 * p;
  else if (raw / p > 2)
    step = 5 * p;
  else if (raw / p > 1)
    step = 2 * p;
  if (integer && step < 1) step = 1;
  for (double v = ceil(a->lo / step) * step; v <= a->hi && n < max; v += step)
    t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
  return n;
}

static void sl__tick_label(char *buf, size_t len, double v, int seconds,
                           int integer) {
  if (seconds)
    sl__fmt_seconds(buf, len, v);
  else if (integer)
    snprintf(buf, len, "%.0f", v);
  else
    snprintf(buf, len, "%g", v);
}

static void sl__axes(FILE *out, const sl__svg_chart *c, const sl__axis *ax,
                     const sl__axis *ay) {
  double x0 = SL__LEFT, x1 = SL__LEFT + c->width;
  double y0 = SL__TOP + c->height, y1 = SL__TOP;
  fprintf(out,
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
          "stroke=\"#888\"/>\n",
          SL__LEFT, SL__TOP, c->width, c->height);
  double t[64];
  char label[32];
  int n = sl__ticks(ax, c->x_integer, t, 64);
  for (int i = 0; i < n; ++i) {
    double px = sl__map(ax, t[i], x0, x1);
    sl__tick_label(label, sizeof label, t[i], 0, c->x_integer);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#e4e4e4\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%s</text>\n",
            px, y0, px, y1, px, y0 + 14, label);
  }
  n = sl__ticks(ay, 0, t, 64);
  for (int i = 0; i < n; ++i) {
    double py = sl__map(ay, t[i], y0, y1);
    sl__tick_label(label, sizeof label, t[i], c->y_seconds, 0);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#e4e4e4\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"end\">%s</text>\n",
            x0, py, x1, py, x0 - 4, py + 4, label);
  }
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
          (x0 + x1) / 2, y0 + 34);
  sl__html_text(out, c->xlabel ? c->xlabel : "");
  fprintf(out,
          "</text>\n<text transform=\"translate(14 %.1f) rotate(-90)\" "
          "text-anchor=\"middle\">",
          (y0 + y1) / 2);
  sl__html_text(out, c->ylabel ? c->ylabel : "");
  fprintf(out, "</text>\n<text x=\"%d\" y=\"18\" font-weight=\"bold\">",
          SL__LEFT);
  sl__html_text(out, c->title ? c->title : "");
  fputs("</text>\n", out);
}

static void sl__series(FILE *out, const sl__svg_chart *c, const sl__axis *ax,
                       const sl__axis *ay, const sl__svg_series *s) {
  double x0 = SL__LEFT, x1 = SL__LEFT + c->width;
  double y0 = SL__TOP + c->height, y1 = SL__TOP;
  const char *color = sl__svg_color(s->color);
  fprintf(out,
          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
          "points=\"",
          color);
  for (int i = 0; i < s->n; ++i)
    if (sl__usable(ax, s->x[i]) && sl__usable(ay, s->y[i]))
      fprintf(out, "%.1f,%.1f ", sl__map(ax, s->x[i], x0, x1),
              sl__map(ay, s->y[i], y0, y1));
  fputs("\"/>\n", out);
  char ys[32];
  for (int i = 0; s->iqr && i < s->n; ++i) {
    double lo = s->y[i] - s->iqr[i] / 2, hi = s->y[i] + s->iqr[i] / 2;
    if (!(s->iqr[i] > 0) || !sl__usable(ax, s->x[i])) continue;
    /* On a log axis the bar's low end may fall to or below zero: clamp it
     * to the axis' bottom rather than drop the bar. */
    double py0 = sl__usable(ay, lo) ? sl__map(ay, lo, y0, y1) : y0;
    double py1 = sl__usable(ay, hi) ? sl__map(ay, hi, y0, y1) : y1;
    if (py0 > y0) py0 = y0;
    if (py1 < y1) py1 = y1;
    double px = sl__map(ax, s->x[i], x0, x1);
    fprintf(out,
            "<path class=\"errbar\" stroke=\"%s\" stroke-width=\"1\" "
            "d=\"M%.1f,%.1fV%.1fM%.1f,%.1fH%.1fM%.1f,%.1fH%.1f\"/>\n",
            color, px, py0, py1, px - 3, py0, px + 3, px - 3, py1, px + 3);
  }
  for (int i = 0; i < s->n; ++i) {
    if (!sl__usable(ax, s->x[i]) || !sl__usable(ay, s->y[i])) continue;
    /* A <title> is the browser's own tooltip: no script needed. */
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
            sl__map(ax, s->x[i], x0, x1), sl__map(ay, s->y[i], y0, y1), color);
    if (s->name) {
      sl__html_text(out, s->name);
      fputs(", ", out);
    }
    sl__html_text(out, c->xlabel ? c->xlabel : "x");
    sl__tick_label(ys, sizeof ys, s->y[i], c->y_seconds, 0);
    fprintf(out, " %g: %s</title></circle>\n", s->x[i], ys);
  }
}

static void sl__decorations(FILE *out, const sl__svg_chart *c,
                            const sl__axis *ax, const sl__axis *ay) {
  double x0 = SL__LEFT, x1 = SL__LEFT + c->width;
  double y0 = SL__TOP + c->height, y1 = SL__TOP;
  for (int i = 0; i < c->nmarks; ++i) {
    if (!sl__usable(ax, c->marks[i])) continue;
    double px = sl__map(ax, c->marks[i], x0, x1);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#b00000\" stroke-width=\"1.5\" "
            "stroke-dasharray=\"5,4\"/>\n",
            px, y0, px, y1);
  }
  for (int i = 0; i < c->nlevels; ++i) {
    const sl__svg_level *l = &c->levels[i];
    if (!sl__usable(ax, l->x0) || !sl__usable(ax, l->x1) ||
        !sl__usable(ay, l->y))
      continue;
    double py = sl__map(ay, l->y, y0, y1);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#b00000\" stroke-width=\"1\" opacity=\"0.7\"/>\n",
            sl__map(ax, l->x0, x0, x1), py, sl__map(ax, l->x1, x0, x1), py);
  }
}

static void sl__legend(FILE *out, const sl__svg_chart *c,
                       const sl__svg_series *s, int ns) {
  int x = SL__LEFT + c->width + 12, y = SL__TOP + 6;
  for (int i = 0; i < ns; ++i) {
    if (!s[i].name) continue;
    fprintf(out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
            "stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">",
            x, y, x + 18, y, sl__svg_color(s[i].color), x + 24, y + 4);
    sl__html_text(out, s[i].name);
    fputs("</text>\n", out);
    y += 16;
  }
}

void sl__svg_write(FILE *out, const sl__svg_chart *c, const sl__svg_series *s,
                   int ns) {
  sl__axis ax = {c->logx, 0, 0, 0}, ay = {c->logy, 0, 0, 0};
  int named = 0;
  for (int i = 0; i < ns; ++i) {
    named |= s[i].name != NULL;
    for (int k = 0; k < s[i].n; ++k)
      if (sl__usable(&ax, s[i].x[k]) && sl__usable(&ay, s[i].y[k])) {
        sl__extend(&ax, s[i].x[k]);
        sl__extend(&ay, s[i].y[k]);
      }
  }
  for (int i = 0; i < c->nlevels; ++i) sl__extend(&ay, c->levels[i].y);
  sl__pad(&ax);
  sl__pad(&ay);
  int w = SL__LEFT + c->width + (named ? SL__LEGEND : 16);
  int h = SL__TOP + c->height + SL__BOTTOM;
  fprintf(out,
          "<svg width=\"%d\" "
          "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
          "font-size=\"11\" role=\"img\" aria-label=\"",
          w, h, w, h);
  sl__html_text(out, c->title ? c->title : "chart");
  fputs("\">\n", out);
  sl__axes(out, c, &ax, &ay);
  sl__decorations(out, c, &ax, &ay);
  for (int i = 0; i < ns; ++i) sl__series(out, c, &ax, &ay, &s[i]);
  sl__legend(out, c, s, ns);
  fputs("</svg>\n", out);
}
