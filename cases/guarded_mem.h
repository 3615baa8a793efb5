/*
 * A case's input buffers end against an inaccessible page. A kernel that
 * reads past an input's last element (a row walked one too far, an index
 * read with a stride it does not have, a broadcast dim walked as if it
 * were there) faults on that page at once, every time, in the function
 * that read: a crash the harness keys by that function (crash_state.h).
 * From a malloc'd buffer the same read returned whatever lay beyond it: a
 * wrong value that changed from run to run, and with it the failure's
 * defect and the message under its repro.
 *
 * A buffer starts 16-byte aligned, as malloc's do, so up to 15 bytes past
 * its end stay readable; they hold SL_GUARDED_SLACK_BYTE. Mappings of up
 * to 256 KiB are kept for reuse by the thread that freed them (16 at
 * most): a fuzz case allocates a few inputs and outputs, and a mapping
 * and a protection for each would cost more than the case's kernels.
 */
#ifndef SL_GUARDED_MEM_H
#define SL_GUARDED_MEM_H

#include <stddef.h>

/* The bytes between a buffer's end and its guard page: the poison the
 * outputs start as (variant_call.h), so a read of them shows as one. */
#define SL_GUARDED_SLACK_BYTE 0xA5

/* `bytes` zeroed bytes whose end abuts a page no access may touch; NULL
 * when memory (or address space) runs out. Never NULL for 0 bytes. */
void *sl_guarded_calloc(size_t bytes);

/* Frees a buffer of sl_guarded_calloc; NULL is ignored. */
void sl_guarded_free(void *p);

#endif
