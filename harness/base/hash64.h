/* A fast 64-bit hash of bytes: four independent multiply-xorshift lanes
 * over 32-byte blocks (a dependent multiply chain is the cost of a hash;
 * four run side by side). It tells buffers apart, as the device's cache of
 * a case's inputs and the inputs' guard need; not a security matter. */
#ifndef SL_HASH64_H
#define SL_HASH64_H

#include <stddef.h>
#include <stdint.h>

uint64_t sl_hash64(const void *data, size_t n);

#endif
