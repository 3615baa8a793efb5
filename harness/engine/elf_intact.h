/*
 * A shared library checked before dlopen() maps it: a file cut short (a
 * copy or a link step that did not finish) is mapped past its end, and the
 * loader dies of SIGBUS while it reads the missing pages, with no message
 * (issue 48). This compares the ELF headers' extents with the file's size.
 */
#ifndef SL_ELF_INTACT_H
#define SL_ELF_INTACT_H

#include <stddef.h>

/* 0 when the file at path is no 64-bit ELF file (dlopen() says what it is)
 * or one whose program headers, segments and section headers all lie
 * within it; -1 with why ("cut short: ...") when something lies past its
 * end or it cannot be read. */
int sl_elf_intact(const char *path, char *why, size_t len);

#endif /* SL_ELF_INTACT_H */
