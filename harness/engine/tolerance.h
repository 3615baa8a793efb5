/*
 * --tolerance: per-dtype overrides of the tolerance oracle's threshold
 * (oracles.h: a float output passes when diff1 and diff2, the relative L1
 * and L2 distances of docs/spec.md §5, are both within its dtype's threshold).
 * An override for a dtype also replaces the per-position judgement
 * (exact where one value is written, a derived bound elsewhere) that
 * scatter_reduce, scatter_nd and index_reduce otherwise get.
 *
 *   --tolerance f16=1e-3              one dtype
 *   --tolerance f16=1e-3,f32=1e-6     several (the option repeats too)
 *
 * Only the floating dtypes (f16 bf16 f32 f64 c64 c128) have one: integers
 * and bool are judged exactly. A value is a number in [0, 1] (0: the
 * outputs' norms must agree exactly). The overrides decide verdicts, so a
 * run stores them (its config text, runs.config: "--tolerance
 * f16=0.001,f32=1e-06") and `fuzz --resume` refuses different ones.
 */
#ifndef SL_TOLERANCE_H
#define SL_TOLERANCE_H

#include <stddef.h>
#include <stdio.h>

#include "sl/sl.h"

typedef struct sl_tolerances {
  unsigned set; /* bit dt: value[dt] overrides the default */
  double value[SL_DTYPE_COUNT];
} sl_tolerances;

/* Adds the overrides of one --tolerance value to t (a later one for the
 * same dtype wins). 0, or SL_EXIT_USAGE after a usage error of `cmd`
 * naming the item, what was expected and what was found. */
int sl_tolerances_parse(sl_tolerances *t, const char *cmd, const char *value);

/* t as one canonical --tolerance value ("f16=0.001,f32=1e-06", dtypes in
 * enum order, numbers exact), or "" when t overrides nothing. */
void sl_tolerances_format(const sl_tolerances *t, char *buf, size_t len);

/* What a run stores of t in its config text: "--tolerance VALUE", or ""
 * when t overrides nothing. */
void sl_tolerances_config(const sl_tolerances *t, char *buf, size_t len);

/* Makes t's overrides the thresholds sl_tolerance() answers, in this
 * process and the workers and jobs it forks from now on. */
void sl_tolerances_install(const sl_tolerances *t);

/* The threshold installed for dt, or a negative number when none is. */
double sl_tolerance_override(sl_dtype dt);

/* Writes `"tolerances": {"f16": 0.01, ...}`: the threshold of every float
 * dtype in force (defaults and overrides), for --format json. */
void sl_tolerances_json(FILE *out);

#endif
