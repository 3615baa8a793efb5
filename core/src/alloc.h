/* The allocation-fault hook of scatterlab's own kernels
 * (sl_provider.alloc_faults; alloc.c). */
#ifndef SL_ALLOC_H
#define SL_ALLOC_H

#include "sl/sl_provider.h"

sl_alloc_counts sl__alloc_faults(int64_t fail_after);

#endif /* SL_ALLOC_H */
