/*
 * Inputs are read-only to a kernel: after each variant the runner checks
 * that every input buffer of the case still holds its bytes, and a kernel
 * that wrote one (as scratch, say) fails by name, with the element, while
 * the inputs are put back for the variants after it. Without it the next
 * variant (in ab the other build) ran on the damaged inputs and was blamed
 * for the wrong answer.
 *
 * A hash per buffer, not a read-only mapping: the buffers are the
 * generator's (malloc'd, sharing pages with other data), and a write to a
 * protected page would be a crash with no name of the input; the hash is
 * one pass over bytes the kernel has just read (cost: docs/notes/benchmarks-2026.md).
 * When one differs, the case's inputs are built again (they are a function
 * of the case line) to name the first element written and to restore them.
 */
#ifndef SL_INPUT_GUARD_H
#define SL_INPUT_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "datagen.h"

typedef struct sl_input_guard {
  int n_in;
  uint64_t hash[SL_MAX_ARGS];
} sl_input_guard;

/* Hashes the n_in input buffers of b: the state every variant must leave. */
void sl_input_guard_mark(sl_input_guard *g, const sl_bundle *b, int n_in);

/* Whether b's inputs still hash as marked: 0. Else 1, with why ("wrote its
 * input 'x' at element 3 of its buffer (0x00000000 -> 0x7f7f7f7f)") when
 * a fresh build of case c0 (load_dir, max_case_bytes as sl_prepare_case)
 * shows where, and b's inputs restored from it; -1 when they could not be
 * rebuilt (why says so; b stays damaged). */
int sl_input_guard_check(const sl_input_guard *g, sl_bundle *b,
                         const sl_case *c0, const char *load_dir,
                         uint64_t max_case_bytes, char *why, size_t len);

#endif
