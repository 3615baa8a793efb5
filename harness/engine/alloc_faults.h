/*
 * Error paths, reached on purpose: a variant that passed a case runs again
 * with one of its scratch allocations failing (its provider's
 * alloc_faults hook, sl/sl_provider.h), the way a machine out of memory
 * would make it fail. A failed malloc is where kernels leak, free twice,
 * write through NULL or return success over a half-made answer; without
 * this no campaign takes those paths (about 40 of the 273 lines of
 * core/src that the default campaign left unrun were behind a failed
 * allocation).
 */
#ifndef SL_ALLOC_FAULTS_H
#define SL_ALLOC_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "sl/sl.h"

/* How every message of a failing error path begins: the defect it shows
 * is the allocation path's, whatever the op (failure_group.h). */
#define SL_ALLOC_FAULTS_PREFIX "with allocation "

/*
 * v runs again on `inferred` (with `copies`, `threads` as the first run)
 * while its provider counts the allocations; when it made some, once more
 * with allocation k (drawn from seed among them) and every later one
 * failing. That run must return SL_STATUS_OUT_OF_MEMORY with a message,
 * or an answer that c's oracles pass against `first` (the first run's, as
 * produced: a path that needs less memory); either way it must free what
 * it took and write nothing outside its outputs. Returns 1 when it does or
 * the check does not apply (*applied 0: no hook, no allocation); 0 when
 * not, msg saying what; -1 when it could not be made, msg saying why.
 */
int sl_alloc_faults_agree(const sl_variant *v, const sl_case *c,
                          const sl_call *inferred, unsigned copies, int threads,
                          const sl_call *first, uint64_t seed, int *applied,
                          char *msg, size_t len);

#endif /* SL_ALLOC_FAULTS_H */
