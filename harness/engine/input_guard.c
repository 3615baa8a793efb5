/* The inputs' check after each variant (input_guard.h). */
#include "input_guard.h"

#include <stdio.h>
#include <string.h>

#include "hash64.h"
#include "runner.h"

static uint64_t sl__slot_hash(const sl_bundle *b, int s) {
  return b->mem[s] && b->bytes[s] ? sl_hash64(b->mem[s], b->bytes[s]) : 0;
}

void sl_input_guard_mark(sl_input_guard *g, const sl_bundle *b, int n_in) {
  g->n_in = n_in;
  for (int s = 0; s < n_in; ++s) g->hash[s] = sl__slot_hash(b, s);
}

/* Names the first element of slot s that differs from the fresh build. */
static void sl__name_write(const sl_bundle *b, const sl_bundle *fresh, int s,
                           char *why, size_t len) {
  const unsigned char *got = b->mem[s], *want = fresh->mem[s];
  size_t at = 0;
  while (at < b->bytes[s] && got[at] == want[at]) ++at;
  const size_t es = sl_dtype_size(b->call.arg[s].dtype);
  const size_t elem = es ? at / es : at, first = es ? elem * es : at;
  char was[40] = "", now[40] = "";
  for (size_t i = 0; i < es && i < 16 && first + i < b->bytes[s]; ++i) {
    /* Bytes in memory order, high address first: the value as printed. */
    const size_t j = first + (es - 1 - i);
    snprintf(was + 2 * i, sizeof was - 2 * i, "%02x", want[j]);
    snprintf(now + 2 * i, sizeof now - 2 * i, "%02x", got[j]);
  }
  snprintf(why, len,
           "wrote its input '%s' at element %zu of its buffer (0x%s -> 0x%s); "
           "the inputs were restored for the variants after it",
           sl_op_get(b->call.op)->arg_names[s], elem, was, now);
}

int sl_input_guard_check(const sl_input_guard *g, sl_bundle *b,
                         const sl_case *c0, const char *load_dir,
                         uint64_t max_case_bytes, char *why, size_t len) {
  int written = -1;
  for (int s = 0; s < g->n_in && written < 0; ++s)
    if (sl__slot_hash(b, s) != g->hash[s]) written = s;
  if (written < 0) return 0;
  sl_case c;
  sl_bundle fresh;
  char err[256];
  if (sl_prepare_case(c0, load_dir, max_case_bytes, &c, &fresh, err,
                      sizeof err)) {
    snprintf(why, len,
             "wrote its input '%s' (its bytes changed; the inputs could not be "
             "built again to restore them: %s)",
             sl_op_get(b->call.op)->arg_names[written], err);
    return -1;
  }
  sl__name_write(b, &fresh, written, why, len);
  for (int s = 0; s < g->n_in; ++s)
    if (b->mem[s] && fresh.mem[s] && b->bytes[s] == fresh.bytes[s])
      memcpy(b->mem[s], fresh.mem[s], b->bytes[s]);
  sl_bundle_free(&fresh);
  return 1;
}
