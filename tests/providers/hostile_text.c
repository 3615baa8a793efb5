/*
 * libsltest_hostile_text: a provider ("hostile") whose words attack the writers
 * rather than the memory (issue 48, points 7 and 8): each gather variant
 * refuses every call (LibTorch accepts it: reject_mismatch) with a message
 * built to break something, and the version string carries a CI command.
 * tests/providers/hostile_text.sh drives it through run, fuzz, report and list.
 *
 *   cpu.long_utf8   438 bytes of "€" (3 bytes each): the harness's
 *                   512-byte message cuts it inside a character
 *   cpu.bad_bytes   raw invalid UTF-8 (0xFF, 0xFE, an overlong '/')
 *   cpu.inject      a newline, then GitHub's ::stop-commands:: and ::error
 *                   at line starts, and GitLab's section_start marker
 *   cpu.f16_only    a correct gather that declares only f16: a campaign
 *                   over f32 cases never meets a case it supports
 *   cpu.loud        a correct gather that writes to fds 1 and 2 a forged
 *                   summary line, a GitHub ::error command, a GitLab
 *                   section marker and half a JSON document
 *   cpu.close_stdout  a correct gather that closes fd 1
 *
 * The library links nothing of scatterlab: sl_provider.h is all it needs.
 */
#define _GNU_SOURCE /* write, close */
#include <string.h>
#include <unistd.h>

#include "sl/sl_provider.h"
#include "sltest_gather.h"

/* What a CI log must never read as a command: the test greps for these. */
#define HOSTILE_STOP "::stop-commands::sltest-pwned"
#define HOSTILE_ERROR "::error::sltest forged annotation"
#define HOSTILE_SECTION "section_start:1700000000:sltest_forged\r\x1b[0K"

static sl_status hostile_long_utf8(sl_ctx *ctx, sl_call *c) {
  (void)c;
  char msg[146 * 3 + 1] = "";
  for (int i = 0; i < 146; ++i) strcat(msg, "\xE2\x82\xAC");
  return sl_provider_fail(ctx, SL_STATUS_INVALID_ARGUMENT, "%s", msg);
}

static sl_status hostile_bad_bytes(sl_ctx *ctx, sl_call *c) {
  (void)c;
  return sl_provider_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                          "raw bytes \xFF\xFE and \xC0\xAF here");
}

static sl_status hostile_inject(sl_ctx *ctx, sl_call *c) {
  (void)c;
  return sl_provider_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                          "refused\n" HOSTILE_STOP "\n  " HOSTILE_ERROR
                          "\n" HOSTILE_SECTION "tail");
}

static void hostile_copy(void *out, const void *x, sl_dtype dt, void *user) {
  (void)user;
  memcpy(out, x, sl_provider_dtype_size(dt));
}

static sl_status hostile_f16_only(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sltest_gather_each(c, hostile_copy, NULL);
  return SL_STATUS_OK;
}

/* What cpu.loud prints: the test greps the command's streams for it. */
#define HOSTILE_SUMMARY "1 cases, 3 verdicts: 3 passed 0 failed (sltest forged)"
#define HOSTILE_JSON "{\"sltest\": \"forged\", \"results\": ["

static sl_status hostile_loud(sl_ctx *ctx, sl_call *c) {
  static const char said[] = "\n" HOSTILE_SUMMARY "\n" HOSTILE_ERROR
                             "\n" HOSTILE_SECTION "\n" HOSTILE_JSON;
  for (int fd = 1; fd <= 2; ++fd)
    if (write(fd, said, sizeof said - 1) < 0) continue; /* closed: fine */
  return hostile_f16_only(ctx, c);
}

static sl_status hostile_close_stdout(sl_ctx *ctx, sl_call *c) {
  close(1);
  return hostile_f16_only(ctx, c);
}

#define HOSTILE_CAPS(dts)                                                      \
  {                                                                            \
    .dtypes = dts, .index_dtypes = SL_INDEX_DTYPES_ALL, .reduces = 0,          \
    .include_self = 0, .max_rank = SL_MAX_DIMS, .layouts = SL_LAYOUTS_ALL      \
  }

#define HOSTILE_VARIANT(name, fn, dts)                                         \
  { SL_OP_GATHER, name, SL_DEVICE_CPU, fn, 0, HOSTILE_CAPS(dts) }

static const sl_provider_variant hostile_variants[] = {
    HOSTILE_VARIANT("cpu.long_utf8", hostile_long_utf8, SL_DTYPES_ALL),
    HOSTILE_VARIANT("cpu.bad_bytes", hostile_bad_bytes, SL_DTYPES_ALL),
    HOSTILE_VARIANT("cpu.inject", hostile_inject, SL_DTYPES_ALL),
    HOSTILE_VARIANT("cpu.f16_only", hostile_f16_only, SL_DTYPE_BIT(SL_F16)),
    HOSTILE_VARIANT("cpu.loud", hostile_loud, SL_DTYPES_ALL),
    HOSTILE_VARIANT("cpu.close_stdout", hostile_close_stdout, SL_DTYPES_ALL),
};

static const sl_provider hostile_provider = {
    .abi_version = SL_PROVIDER_ABI_VERSION,
    .size = sizeof(sl_provider),
    .name = "hostile",
    .version = "1.0\n" HOSTILE_STOP "\n" HOSTILE_SECTION,
    .n_variants = sizeof hostile_variants / sizeof hostile_variants[0],
    .variants = hostile_variants,
};

SL_PROVIDER_ENTRY { return &hostile_provider; }
