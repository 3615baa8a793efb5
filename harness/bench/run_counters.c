/* The hardware counters of a timing command (see run_counters.h). */
#include "run_counters.h"

#include <stdio.h>
#include <string.h>

void sl_run_counters_open(sl_run_counters *rc, int off) {
  memset(rc, 0, sizeof *rc);
  if (off) {
    snprintf(rc->line, sizeof rc->line, "off (--no-counters)");
    return;
  }
  char why[400] = "";
  if (sl_counters_open(&rc->c, why, sizeof why)) {
    rc->c = NULL;
    snprintf(rc->line, sizeof rc->line, "none: %s", why);
    return;
  }
  rc->turn = sl_turn_counter_of(rc->c);
  rc->instructions = sl_counters_counts_instructions(rc->c);
  if (why[0])
    snprintf(rc->line, sizeof rc->line, "per call, user space, partly: %s",
             why);
  else
    snprintf(rc->line, sizeof rc->line,
             "instructions, cycles and cache misses per call (user space, "
             "every thread)");
}

const sl_turn_counter *sl_run_counters_turn(const sl_run_counters *rc) {
  return rc->c ? &rc->turn : NULL;
}

void sl_run_counters_close(sl_run_counters *rc) {
  sl_counters_close(rc->c);
  rc->c = NULL;
}
