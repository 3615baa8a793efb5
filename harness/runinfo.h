/* What a run records about where and how it ran (the store's runs row). */
#ifndef SL_RUNINFO_H
#define SL_RUNINFO_H

#include "sl_store.h"

typedef struct sl_runinfo_buf {
  char host[256];
  char cpu_model[256];
  char command_line[4096];
  sl_run_info info;
} sl_runinfo_buf;

/* Fills b->info for a run of `kind` started by argv. */
void sl_runinfo_fill(sl_runinfo_buf *b, const char *kind, int argc,
                     char **argv, int threads);

#endif
