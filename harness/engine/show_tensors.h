/*
 * A small case's tensors as text, for the reader of a failure: the inputs,
 * LibTorch's outputs and the variant's, each on a line of its own,
 * "src f32 [2x3] = [[1, 2, 3], [4, 5, 6]]", so that a minimal repro shows
 * its bug without numpy. A tensor of more than SL_SHOW_MAX_ELEMENTS
 * elements is named with its shape only. Values print as %.9g (f64
 * %.17g): enough to tell any two of the dtype apart.
 */
#ifndef SL_SHOW_TENSORS_H
#define SL_SHOW_TENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "sl/sl.h"

enum { SL_SHOW_MAX_ELEMENTS = 64 };

/* Appends slots [from, to) of call's arguments that are present, each as
 * "<prefix><slot name> <dtype> [<shape>] = <values>\n", to the text in
 * buf (NUL-terminated, at most len bytes; what does not fit is cut at a
 * line with "...\n"). tensors: the arguments, indexed by slot (the call's
 * own, or the reference's outputs with slot - n_in). */
void sl_show_slots(char *buf, size_t len, const char *prefix, sl_op op,
                   const sl_tensor *tensors, int from, int to, int first_slot);

/* FNV-1a 64 of the n tensors' elements in their logical order (any
 * strides; device memory and absent tensors count as empty): two variants
 * that wrote the same outputs have the same digest. */
uint64_t sl_outputs_digest(const sl_tensor *t, int n);

#endif
