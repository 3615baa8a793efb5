/* The inputs' check after each variant (input_guard.h). */
#include "input_guard.h"

#include <stdio.h>
#include <string.h>

#include "runner.h"

/* 64 bits over the buffer: four independent multiply-xor lanes over
 * 8-byte words (a dependent chain is the cost of a hash: four of them run
 * side by side), the tail bytewise. Not cryptographic: a kernel that
 * writes its input by mistake does not aim at a collision. */
static uint64_t sl__hash(const unsigned char *p, size_t n) {
  const uint64_t k = 0x9E3779B97F4A7C15ull;
  uint64_t h[4] = {n, 1, 2, 3};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      memcpy(&w, p + i + 8 * l, 8);
      h[l] = (h[l] ^ w) * k;
    }
  for (; i < n; ++i) h[0] = (h[0] ^ p[i]) * k;
  return h[0] ^ (h[1] >> 1) ^ (h[2] << 1) ^ (h[3] >> 3) ^ (h[3] << 7);
}

static uint64_t sl__slot_hash(const sl_bundle *b, int s) {
  return b->mem[s] && b->bytes[s] ? sl__hash(b->mem[s], b->bytes[s]) : 0;
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
