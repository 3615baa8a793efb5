/* The allocation-fault and scratch-release hooks of scatterlab's own
 * kernels (sl_provider.alloc_faults and .release_scratch; alloc.c). */
#ifndef SL_ALLOC_H
#define SL_ALLOC_H

#include "sl/sl_provider.h"

sl_alloc_counts sl__alloc_faults(int64_t fail_after);
/* Frees the large blocks kept for the next call; returns their bytes. */
size_t sl__alloc_release(void);

#endif /* SL_ALLOC_H */
