/*
 * The provider ABI made visible to libabigail: one exported function whose
 * parameters reach every type a provider sees (sl/sl_provider.h and the
 * parts of sl/sl.h a kernel reads), so that `abidw` records their layout.
 * Built as a shared library with debug info (core/CMakeLists.txt); never
 * loaded. check_abi.sh compares it with the dump kept beside it.
 */
#include "sl/sl_provider.h"

SL_PROVIDER_EXPORT unsigned sl_abi_probe(const sl_provider *provider,
                                         const sl_provider_variant *variant,
                                         const sl_caps *caps,
                                         const sl_call *call,
                                         const sl_ctx *ctx,
                                         const sl_alloc_counts *counts,
                                         sl_provider_entry_fn entry) {
  (void)provider, (void)variant, (void)caps, (void)call, (void)ctx;
  (void)counts, (void)entry;
  return SL_PROVIDER_ABI_VERSION;
}
