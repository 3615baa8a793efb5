/* A crash's state (crash_state.h). */
#define _GNU_SOURCE
#include "crash_state.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "providers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SL__SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SL__SANITIZED 1
#endif
#endif

#define SL__IN_FUNCTION " in function "

#ifndef SL__SANITIZED
static sl_crash_frames *sl__into;
static volatile int sl__taken;

static void sl__on_fault(int sig, siginfo_t *info, void *uc) {
  (void)info, (void)uc;
  /* The first thread to fault records; backtrace() was called once when
   * armed, so it loads nothing here. */
  if (sl__into && !__atomic_exchange_n(&sl__taken, 1, __ATOMIC_SEQ_CST))
    sl__into->n = backtrace(sl__into->pc, SL_CRASH_FRAMES);
  /* The handler is reset (SA_RESETHAND) and the signal blocked while it
   * runs: raised again, it kills the process as it returns, with the
   * wait status the harness would have seen without the handler. */
  raise(sig);
}
#endif

void sl_crash_state_arm(sl_crash_frames *into) {
#ifndef SL__SANITIZED
  static char alt[1 << 16]; /* a stack overflow's handler needs a stack */
  const stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  void *warm[1];
  backtrace(warm, 1);
  sl__into = into;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = sl__on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t k = 0; k < sizeof sigs / sizeof *sigs; ++k)
    sigaction(sigs[k], &sa, NULL);
#else
  (void)into;
#endif
}

/* Reads n bytes at off of fd: 0, or -1. */
static int sl__pread_all(int fd, void *buf, size_t n, off_t off) {
  return pread(fd, buf, n, off) == (ssize_t)n ? 0 : -1;
}

/* The symbol table section of the ELF file fd (.symtab, else .dynsym) and
 * its string table: 0, or -1. */
static int sl__symtab(int fd, Elf64_Shdr *sym, Elf64_Shdr *str) {
  Elf64_Ehdr eh;
  if (sl__pread_all(fd, &eh, sizeof eh, 0) ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof *sym)
    return -1;
  int found = 0;
  for (int pass = 0; pass < 2 && !found; ++pass)
    for (unsigned k = 0; k < eh.e_shnum && !found; ++k) {
      if (sl__pread_all(fd, sym, sizeof *sym,
                        (off_t)(eh.e_shoff + k * sizeof *sym)))
        return -1;
      found = sym->sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB);
    }
  if (!found || sym->sh_link >= eh.e_shnum) return -1;
  return sl__pread_all(fd, str, sizeof *str,
                       (off_t)(eh.e_shoff + sym->sh_link * sizeof *str));
}

/* The name of the function symbol among syms[0..n) whose code holds `at`,
 * as an offset in the string table, or -1. */
static int64_t sl__holder(const Elf64_Sym *syms, uint64_t n, uint64_t at) {
  for (uint64_t k = 0; k < n; ++k)
    if (ELF64_ST_TYPE(syms[k].st_info) == STT_FUNC && syms[k].st_value <= at &&
        at < syms[k].st_value + (syms[k].st_size ? syms[k].st_size : 1))
      return syms[k].st_name;
  return -1;
}

/* The function of ELF file `path` whose code holds address `at` (relative
 * to its load base) into out, its compiler suffixes cut: 0, or -1. */
static int sl__function_at(const char *path, uint64_t at, char *out,
                           size_t len) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  Elf64_Shdr sym, str;
  int rc = sl__symtab(fd, &sym, &str);
  static Elf64_Sym chunk[512];
  const uint64_t total = rc ? 0 : sym.sh_size / sizeof *chunk;
  int64_t hit = -1;
  for (uint64_t k = 0; !rc && hit < 0 && k < total; k += 512) {
    const uint64_t n = total - k < 512 ? total - k : 512;
    rc = sl__pread_all(fd, chunk, n * sizeof *chunk,
                       (off_t)(sym.sh_offset + k * sizeof *chunk));
    if (!rc) hit = sl__holder(chunk, n, at);
  }
  if (!rc && hit >= 0 && (uint64_t)hit < str.sh_size && len) {
    const uint64_t left = str.sh_size - (uint64_t)hit;
    const size_t n = len - 1 < left ? len - 1 : (size_t)left;
    rc = pread(fd, out, n, (off_t)(str.sh_offset + (uint64_t)hit)) < 0;
    out[rc ? 0 : n] = '\0';
    out[strcspn(out, ".")] = '\0';
  }
  close(fd);
  return rc || hit < 0 || !len || !out[0] ? -1 : 0;
}

enum { SL__BASES = 64 }; /* kernel libraries told apart: more than loaded */

/* The load bases of the libraries that hold a variant's kernel: not the
 * harness's own (the handler's frame), nor the Python bridge's, whose
 * kernels are Python code below one C function that every op shares. */
static int sl__kernel_bases(const void **base) {
  int n = 0;
  Dl_info self;
  const int known = dladdr((const void *)(uintptr_t)sl_crash_state_name, &self);
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    Dl_info d;
    const sl_hvariant *v = sl_hvariant_at(i);
    if (!v->v.fn || sl_provider_at((size_t)v->provider)->py_module[0] ||
        !dladdr((const void *)(uintptr_t)v->v.fn, &d) ||
        (known && d.dli_fbase == self.dli_fbase))
      continue;
    int k = 0;
    while (k < n && base[k] != d.dli_fbase) ++k;
    if (k == n && n < SL__BASES) base[n++] = d.dli_fbase;
  }
  return n;
}

static int sl__listed(const void *const *base, int n, const void *b) {
  for (int k = 0; k < n; ++k)
    if (base[k] == b) return 1;
  return 0;
}

void sl_crash_state_name(const sl_crash_frames *f, char *out, size_t len) {
  if (len) out[0] = '\0';
  const void *base[SL__BASES];
  const int bases = sl__kernel_bases(base);
  const int n = f->n < SL_CRASH_FRAMES ? f->n : SL_CRASH_FRAMES;
  for (int k = 0; k < n; ++k) {
    Dl_info d;
    /* A return address points past its call: one byte back is inside. */
    const uintptr_t pc = (uintptr_t)f->pc[k] - (k > 0);
    if (!dladdr((const void *)pc, &d) || !d.dli_fname ||
        !sl__listed(base, bases, d.dli_fbase))
      continue;
    char fn[128];
    if (sl__function_at(d.dli_fname, pc - (uintptr_t)d.dli_fbase, fn,
                        sizeof fn))
      continue;
    const char *lib = strrchr(d.dli_fname, '/');
    snprintf(out, len, SL__IN_FUNCTION "%s of %s", fn,
             lib ? lib + 1 : d.dli_fname);
    return;
  }
}

int sl_crash_state_in(const char *message) {
  const char *killed = message ? strstr(message, "killed by signal") : NULL;
  return killed && strstr(killed, SL__IN_FUNCTION) != NULL;
}
