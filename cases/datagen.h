/*
 * Turns a case into tensors: allocation with the case's layouts, index values
 * by pattern, data values by pattern, all from the case's seed.
 */
#ifndef SL_DATAGEN_H
#define SL_DATAGEN_H

#include "case.h"
#include "sl/sl.h"

/* A call plus the host memory behind its tensors. */
typedef struct sl_bundle {
  sl_call call;
  void *mem[SL_MAX_ARGS];
  size_t bytes[SL_MAX_ARGS];
} sl_bundle;

/* Largest tensor a case may allocate (bytes); larger cases are refused with
 * a message before anything is allocated. */
#define SL_GEN_MAX_BYTES ((size_t)8 << 30)

/* Bytes of the buffer behind a tensor of dtype dt with the shape and layout
 * of s (a stepped dim k times wider, a broadcast dim 0 one row). Returns 0,
 * or -1 with a message naming `name` when it is over SL_GEN_MAX_BYTES. */
int sl_case_shape_bytes(sl_dtype dt, const sl_case_shape *s, uint64_t *bytes,
                        const char *name, char *err, size_t errlen);

/* Bytes of every input sl_gen_inputs allocates for the forward case c, known
 * before anything is allocated. 0, or -1 with a message as above. */
int sl_case_input_bytes(const sl_case *c, uint64_t *bytes, char *err,
                        size_t errlen);

void sl_bundle_init(sl_bundle *b, sl_op op);
void sl_bundle_free(sl_bundle *b);

/* Allocates slot `slot` (zeroed) with dtype dt and the shape and layout of s.
 * Returns 0, or -1 with a message (overflow, too large, out of memory). */
int sl_bundle_alloc(sl_bundle *b, int slot, sl_dtype dt, const sl_case_shape *s,
                    const char *name, char *err, size_t errlen);

/* Hands the contiguous tensor t to slot of b, freeing what the slot held:
 * its elements copied against a guard page (guarded_mem.h), and the memory
 * behind it (malloc'd) freed, whatever the outcome. 0, or -1 with a
 * message when memory runs out. */
int sl_bundle_adopt(sl_bundle *b, int slot, sl_tensor t, char *err,
                    size_t errlen);

/* Allocates slot `slot` zero-filled, contiguous, with dtype dt and shape
 * (ndim extents). 0, or -1 with a message as sl_bundle_alloc's. */
int sl_bundle_zeros(sl_bundle *b, int slot, sl_dtype dt, int ndim,
                    const int64_t *shape, char *err, size_t errlen);

/* For a backward op, the forward case whose inputs it is built from
 * (scatter_reduce_backward -> scatter_reduce, ...: the case spec's forward
 * and shape_slots); for a forward op, a copy. Returns 1 when c is a backward
 * op. */
int sl_case_forward(const sl_case *c, sl_case *fw);

/* The inverse: the case of op (fw's op, or a backward op whose forward it
 * is) whose forward view is fw. */
void sl_case_from_forward(const sl_case *fw, sl_op op, sl_case *c);

/* Copies the case's shared parameters into p. */
void sl_case_params(const sl_case *c, sl_params *p);
/* Copies every parameter of the case into call: p and the op's own
 * (call->segment). */
void sl_case_call_params(const sl_case *c, sl_call *call);

/* Generates every input of a forward case into b (b->call.op = c->op). */
int sl_gen_inputs(const sl_case *c, sl_bundle *b, char *err, size_t errlen);

/* Fills an allocated tensor with data of pattern dp (stream separates the
 * values of different tensors of one seed). Respects its layout: the logical
 * elements are generated in row-major order. */
void sl_gen_fill_data(sl_tensor *t, sl_data_pattern dp, uint64_t seed,
                      uint64_t stream);

#endif
