/*
 * The hardware counters of a timing command (`bench`, `ab`): opened once,
 * before the process starts any worker thread (perf_counters.h: threads
 * that already exist are not counted), with one line that says what they
 * count or why there are none, for the command's output and its JSON.
 */
#ifndef SL_RUN_COUNTERS_H
#define SL_RUN_COUNTERS_H

#include "perf_counters.h"
#include "timing.h"

typedef struct sl_run_counters {
  sl_counters *c;       /* NULL: none */
  sl_turn_counter turn; /* reads c around each timed turn */
  int instructions;     /* 1: the instructions counter opened */
  /* "instructions, cycles and cache misses per call (user space, all
   * threads)", or why some or all are missing ("none: no hardware PMU ..."
   * / "off (--no-counters)") */
  char line[512];
} sl_run_counters;

/* Opens the counters, unless off (then the line says so). Never fails: a
 * machine without counters gets none, and the line says why. */
void sl_run_counters_open(sl_run_counters *rc, int off);

/* The turn counter to hand to the timing (sl_timing_opts, sl_ab_opts), or
 * NULL without counters. */
const sl_turn_counter *sl_run_counters_turn(const sl_run_counters *rc);

void sl_run_counters_close(sl_run_counters *rc);

#endif
