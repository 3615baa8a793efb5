/* A shared library's extents against its size (elf_intact.h). */
#include "elf_intact.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The end of [off, off + n * each), UINT64_MAX past any file (garbage
 * headers must not wrap around to a small number). */
static uint64_t sl__end(uint64_t off, uint64_t n, uint64_t each) {
  uint64_t bytes, end;
  if (!n || !each) return 0;
  if (__builtin_mul_overflow(n, each, &bytes) ||
      __builtin_add_overflow(off, bytes, &end))
    return UINT64_MAX;
  return end;
}

/* The farthest byte the program headers' segments reach (0: unreadable). */
static uint64_t sl__segments_end(int fd, const Elf64_Ehdr *eh) {
  uint64_t far = 0;
  for (unsigned i = 0; i < eh->e_phnum; ++i) {
    Elf64_Phdr ph;
    if (pread(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + i * eh->e_phentsize)) !=
        (ssize_t)sizeof ph)
      return UINT64_MAX;
    const uint64_t end = sl__end(ph.p_offset, 1, ph.p_filesz);
    if (ph.p_type != PT_NULL && end > far) far = end;
  }
  return far;
}

int sl_elf_intact(const char *path, char *why, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  Elf64_Ehdr eh;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(why, len, "cannot read it (%s)", strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  const ssize_t got = pread(fd, &eh, sizeof eh, 0);
  if (got < (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize < sizeof(Elf64_Phdr)) {
    close(fd);
    return 0; /* not ours to judge: dlopen() names what is wrong */
  }
  const uint64_t size = (uint64_t)st.st_size;
  uint64_t need = sl__end(eh.e_phoff, eh.e_phnum, eh.e_phentsize);
  const uint64_t shdrs = sl__end(eh.e_shoff, eh.e_shnum, eh.e_shentsize);
  if (shdrs > need) need = shdrs;
  if (need <= size) {
    const uint64_t seg = sl__segments_end(fd, &eh);
    if (seg > need) need = seg;
  }
  close(fd);
  if (need <= size) return 0;
  if (need == UINT64_MAX)
    snprintf(why, len,
             "damaged: its ELF headers point past the end of its %llu bytes",
             (unsigned long long)size);
  else
    snprintf(why, len,
             "cut short: %llu bytes, where its ELF headers reach byte %llu "
             "(a copy or a build that did not finish?)",
             (unsigned long long)size, (unsigned long long)need);
  return -1;
}
