/*
 * Sizes in bytes as people write and read them: "6G", "512MiB", "1000000"
 * parsed (binary multiples: K = KiB = 1024), and "6.0 GiB" printed. Also
 * the default per-case memory cap, a share of this machine's memory, and
 * the bytes a tensor spans.
 */
#ifndef SL_BYTE_SIZE_H
#define SL_BYTE_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "sl/sl.h"

/* Parses "N", "N[KMGT]" or "N[KMGT]iB" (N a whole number, K..T powers of
 * 1024). Returns 0, or -1 when s is not one or overflows 64 bits. */
int sl_bytes_parse(const char *s, uint64_t *bytes);

/* "512 B", "3.2 KiB", "6.0 GiB" into buf; returns buf. */
const char *sl_bytes_str(uint64_t bytes, char *buf, size_t len);

/* The --max-case-bytes in force: `given`, or when 0 the default, a quarter
 * of physical memory (so that two jobs' cases and the harness fit beside
 * the rest of the machine; 4 GiB where the size is unknown), measured once
 * per process: every case asks. */
uint64_t sl_case_bytes_cap(uint64_t given);

/* Bytes of memory behind t: from its first element to one past its last,
 * whatever its strides (a stepped layout spans more than its elements, a
 * broadcast one less; strides are never negative, so the first element
 * is the lowest address); 0 when t is empty. */
uint64_t sl_tensor_span_bytes(const sl_tensor *t);

#endif
