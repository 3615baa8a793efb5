/*
 * The call a CPU variant receives from the runner: its outputs poisoned
 * (0xA5) between guard regions that must survive the kernel, and contiguous
 * copies of the inputs whose layout the variant's capabilities exclude
 * (sl/sl_provider.h: SL_LAYOUT_STRIDED, SL_LAYOUT_BROADCAST).
 */
#ifndef SL_VARIANT_CALL_H
#define SL_VARIANT_CALL_H

#include <stddef.h>

#include "sl/sl.h"

/* Bytes of guard on each side of a CPU output, and their pattern. */
#define SL_CPU_GUARD 64
#define SL_CPU_GUARD_BYTE 0x5C
/* The byte every output starts as (device.h poisons the device's alike). */
#define SL_POISON_BYTE 0xA5
/* How a guard's failure begins: a write past an output's ends
 * (failure_group.h keys it on an invalid case as the missing check). */
#define SL_WROTE_OUTSIDE_PREFIX "wrote outside its output"

/* An element of dtype dt made of poison bytes, read as a number: what an
 * element that was never written holds. Set *plain when that value is one
 * a kernel writes as well (one-byte dtypes: bool true, u8 165) or NaN, so
 * that it tells nothing. */
double sl_poison_value(sl_dtype dt, int *plain);

typedef struct sl_variant_call {
  sl_call call;                      /* what the kernel gets */
  unsigned char *block[SL_MAX_ARGS]; /* guard + output + guard */
  size_t bytes[SL_MAX_ARGS];         /* output bytes between the guards */
  void *copies[SL_MAX_ARGS];         /* contiguous copies of inputs */
} sl_variant_call;

/*
 * Builds vc from `inferred` (a call sl_infer has filled in: the inputs and
 * the outputs' shapes): outputs allocated, guarded and poisoned; inputs with
 * a layout in `copy_layouts` replaced by contiguous copies, named in note
 * ("inputs made contiguous for the variant: x (strided)") or note[0] = 0.
 * Returns 0, or -1 when memory runs out (vc is then freed).
 */
int sl_variant_call_prepare(sl_variant_call *vc, const sl_call *inferred,
                            unsigned copy_layouts, char *note, size_t len);

/* Whether every guard is intact; if not, msg names the output, the side
 * and how far from the edge the first changed byte is. */
int sl_variant_call_guards_ok(const sl_variant_call *vc, char *msg, size_t len);

void sl_variant_call_free(sl_variant_call *vc);

/* The layout class of an input: 0 (contiguous, or no data), or
 * SL_LAYOUT_BROADCAST (a stride 0 over an extent > 1) or SL_LAYOUT_STRIDED
 * (any other non-contiguous strides). */
unsigned sl_input_layout(const sl_tensor *t);

#endif
