/*
 * The standard streams of a process that runs kernels (the engine's worker,
 * the timing worker). A kernel may write anything to fds 1 and 2: a forged
 * summary line, a GitHub "::error" command, half a JSON document into
 * `run --format json`'s stdout. So a worker's stdin reads /dev/null and its
 * stdout and stderr go to a capture, an anonymous file shared with the
 * command (memfd), never to the user's streams: the command takes the text,
 * names whose it is, and writes it to its own stderr line by line behind
 * its own prefix, cleaned (clean_text.h), so that no line of it can pass
 * for scatterlab's or for a CI command. A file, not a pipe: it never fills
 * (a kernel's write never blocks), and what a kernel wrote before it killed
 * its worker is still there for the command to read.
 */
#ifndef SL_STDIO_CAPTURE_H
#define SL_STDIO_CAPTURE_H

#include <stddef.h>
#include <stdio.h>

typedef struct sl_capture {
  int fd;      /* the shared file, close-on-exec; -1: none (/dev/null) */
  int reports; /* reports written so far (a noisy kernel is cut short) */
} sl_capture;

/* Before the fork: the capture (fd -1 when none can be made: the worker's
 * streams then go to /dev/null). */
void sl_capture_open(sl_capture *c);
void sl_capture_close(sl_capture *c);

/* In the worker, first: stdin from /dev/null, stdout and stderr appended
 * to the capture. 0, or -1 when they could not be set. */
int sl_capture_attach(const sl_capture *c);

/* The text written since the last take: its first len - 1 bytes into buf
 * (NUL-terminated; a NUL byte in it becomes a space), the capture emptied.
 * Returns how many bytes were written in all (0: none). */
size_t sl_capture_take(const sl_capture *c, char *buf, size_t len);

/* Writes text (the first bytes of `total`) to out as what `who` printed:
 * each line behind "scatterlab: WHO printed: ", cleaned (sl_text_put),
 * and the count when more was written. After a few reports, one line says
 * that more is not shown, and the rest are dropped. */
void sl_capture_report(sl_capture *c, FILE *out, const char *who,
                       const char *text, size_t total);

#endif
