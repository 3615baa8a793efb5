/* What a run records about where and how it ran (the store's runs row). */
#ifndef SL_RUNINFO_H
#define SL_RUNINFO_H

#include "sl_store.h"

typedef struct sl_runinfo_buf {
  char host[256];
  char cpu_model[256];
  char command_line[4096];
  sl_provider_record providers[64]; /* the loaded ones (providers.h) */
  sl_run_info info;
} sl_runinfo_buf;

/*
 * The threads a run gives parallel variants when none are asked for:
 * OMP_NUM_THREADS if set, else every processor OpenMP may use. Not
 * omp_get_max_threads(): LibTorch sets the calling thread's OpenMP thread
 * count to its own default (1 on some machines) at its first op, which
 * would quietly make every cpu.omp run after the reference serial.
 */
int sl_default_threads(void);

/* The reference this build judges and times against, as the store records
 * it: "LibTorch 2.11.0 (PyPI torch 2.11.0)". */
const char *sl_reference_text(void);

/* Fills b->info for a run of `kind` started by argv (threads 0: the
 * default). */
void sl_runinfo_fill(sl_runinfo_buf *b, const char *kind, int argc, char **argv,
                     int threads);

#endif
